#!/usr/bin/env bash
# CI's short slices of the suites run by hand against a whole Keel and the stack's real peers
# (the long runs and their last results: README "Compatibility"). ci/test.sh runs this after
# the test binaries; each step's time is logged; exit 0 = every slice passed.
#
#   1. tempest api.v2 with the amphora provider, upstream's noop-job settings (ci/tempest.sh
#      with KEEL_PROVIDER=amphora, IPv4, check interval 1 s): one or two tests of every resource
#      module — LB create/show/update/failover/cascade delete, HTTP listener create/update
#      (allowed_cidrs refused on a foreign IP version), pool, member, health monitor, L7 policy
#      and rule, flavor profile, availability zone, the amphora admin API. 19 tests, ~2 min
#      (+1 min the first time: tempest's pip install).
#   2. the Python reference beside Keel (`STACK_REFERENCE=1`, its API on 127.0.0.1:9877 so that
#      the catalog's 9876 stays Keel's): the amphora casts differential (ci/diff/run.sh --casts:
#      every message of one request sequence, both sides, no difference allowed) and the
#      migration both ways (ci/diff/run.sh --amphora-shared: amphora trees made by one API
#      changed and deleted through the other on one database and worker); then the reference
#      is stopped (its OVN driver agent must not outlive the slice). ~4 min.
#
# Needs ci/stack/up.sh's stack (RabbitMQ and the noop worker included); KEEL_CI_SLICES=0 in
# ci/test.sh skips this.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rc=0
step() {
  local name="$1" t0
  shift
  t0=$(date +%s)
  echo "[slices $(date +%T)] $name"
  if "$@"; then
    echo "[slices $(date +%T)] $name: passed in $(( $(date +%s) - t0 )) s"
  else
    echo "[slices $(date +%T)] $name: FAILED (rc $?) in $(( $(date +%s) - t0 )) s" >&2
    rc=1
  fi
}

v2='^octavia_tempest_plugin\.tests\.api\.v2\.'
tests=(
  'test_load_balancer\.LoadBalancerAPITest\.test_load_balancer_(ipv4_create|show|update|failover|delete_cascade)'
  'test_listener\.ListenerAPITest\.test_http_listener_(create|update)\b'
  'test_pool\.PoolAPITest\.test_HTTP_LC_pool_with_listener_create'
  'test_member\.MemberAPITest1\.test_ipv4_HTTP_LC_(member_create|backup_member_create)'
  'test_healthmonitor\.HealthMonitorAPITest\.test_LC_HTTP_healthmonitor_create'
  'test_l7policy\.L7PolicyAPITest\.test_l7policy_create_redirect_pool'
  'test_l7rule\.L7RuleAPITest\.test_l7rule_create'
  'test_flavor_profile\.FlavorProfileAPITest\.test_flavor_profile_create'
  'test_availability_zone\.AvailabilityZoneAPITest\.test_availability_zone_create'
  'test_amphora\.AmphoraAPITest\.test_amphora_(list_and_show|failover)'
)
regex="$v2($(IFS='|'; echo "${tests[*]}"))"
step "tempest amphora slice" env KEEL_PROVIDER=amphora TEMPEST_IPV6=false \
  TEMPEST_CHECK_INTERVAL=1 TEMPEST_LB_BUILD_INTERVAL=1 TEMPEST_REGEX="$regex" ci/tempest.sh

reference() {
  OCTAVIA_PORT=9877 STACK_REFERENCE=1 ci/stack/up.sh >/tmp/keel-slices-ref-up.log 2>&1 \
    || { tail -20 /tmp/keel-slices-ref-up.log >&2; return 1; }
}
if step "reference API up (port 9877)" reference; then
  step "amphora casts differential" env REF_URL=http://127.0.0.1:9877 ci/diff/run.sh --casts
  step "amphora migration both ways" env REF_URL=http://127.0.0.1:9877 ci/diff/run.sh --amphora-shared
fi
step "reference API down" env OCTAVIA_PORT=9877 ci/stack/down.sh --reference
exit $rc
