#!/usr/bin/env bash
# Differential run: a Keel of this tree beside the reference Octavia API, the same request
# sequences to both (ci/diff/differential.py), every difference printed.
#   ci/diff/run.sh [differential.py args, e.g. --only flavor]
# Keel: $CARGO_TARGET_DIR/${KEEL_PROFILE:-debug}/keel (built if missing) on 127.0.0.1:$KEEL_DIFF_PORT
# (9886), a fresh MariaDB database $KEEL_DIFF_DB (keel_test_diff), ci/keel-conf.sh's config with the agent off
# (`[keel] run_agent = false`: no NB agent lock taken). The reference: $REF_URL
# (http://127.0.0.1:9877, its database `octavia`); start it with STACK_REFERENCE=1 ci/stack/up.sh.
# State: $DIFF_STATE (/tmp/keel-diff): keel.conf, keel.log.
# --casts: the amphora provider's RPC casts instead (ci/diff/casts.py): Keel gets a second config
# file with the amphora provider (default; [controller_worker] network_driver as the reference's:
# allowed_address_pairs_driver, Neutron), the noop worker's database (env.sh STACK_WORKER_DB:
# Keel and the worker share one) and the transport URL of vhost "/" (STACK_TRANSPORT_URL); the
# reference's amphora casts on vhost "/ref" (up.sh's TRANSPORT_URL_REF, STACK_REFERENCE=1).
#   ci/diff/run.sh --casts [casts.py args, e.g. --out /tmp/casts.json]
# --amphora-shared: Keel on the reference's own database (`octavia`) and vhost "/ref", whose
# worker (worker-ref) settles both APIs' casts (ci/diff/amphora_shared.py): amphora load
# balancers made by one API changed and deleted through the other (migration both ways), or
# with --bench N each amphora write timed on both sides in one run.
#   ci/diff/run.sh --amphora-shared [--bench 10] [--out /tmp/amp.json]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
casts=0
shared=0
if [[ ${1:-} == --casts ]]; then casts=1; shift; fi
if [[ ${1:-} == --amphora-shared ]]; then casts=1; shared=1; shift; fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
port="${KEEL_DIFF_PORT:-9886}"
state="${DIFF_STATE:-/tmp/keel-diff}"
db="${KEEL_DIFF_DB:-keel_test_diff}"
keel="$CARGO_TARGET_DIR/${KEEL_PROFILE:-debug}/keel"
py=/var/tmp/keel-stack/venv/bin/python
mkdir -p "$state"
[[ -x $keel ]] || (cd "$root" && cargo build --locked -p keel --bin keel)
conf_args=(--config-file "$state/keel.conf")
if [[ $casts == 1 ]]; then
  # shellcheck disable=SC1091
  source "$root/ci/stack/env.sh" admin 2>/dev/null
  # shellcheck disable=SC1091
  source "$root/ci/stack/common.sh"
  worker_db="${STACK_WORKER_DB%%\?*}" amqp="$STACK_TRANSPORT_URL"
  if [[ $shared == 1 ]]; then
    worker_db="mysql://octavia:$DB_PASS@$HOST:$STACK_DB_PORT/octavia" amqp="$TRANSPORT_URL_REF"
  fi
  KEEL_RUN_AGENT=false "$root/ci/keel-conf.sh" "$port" "$worker_db" > "$state/keel.conf"
  cat > "$state/amphora.conf" <<CONF
[DEFAULT]
transport_url = $amqp
[api_settings]
enabled_provider_drivers = amphora:The Octavia Amphora driver.,ovn:OVN provider driver
default_provider_driver = amphora
[controller_worker]
network_driver = allowed_address_pairs_driver
# the stack has no Nova/Glance (STACK_COMPUTE=1 aside): the real drivers would refuse the start
compute_driver = compute_noop_driver
image_driver = image_noop_driver
volume_driver = volume_noop_driver
[keel]
run_agent = false
CONF
  conf_args+=(--config-file "$state/amphora.conf")
else
  mysql -h127.0.0.1 -ukeel -pkeel-db-pass -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
  KEEL_RUN_AGENT=false "$root/ci/keel-conf.sh" "$port" \
    "mysql://keel:keel-db-pass@127.0.0.1:3306/$db" > "$state/keel.conf"
fi
"$keel" "${conf_args[@]}" db upgrade
"$keel" "${conf_args[@]}" serve > "$state/keel.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 200); do
  curl -fsS "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
  kill -0 $pid 2>/dev/null || { echo "keel died; see $state/keel.log" >&2; exit 1; }
  sleep 0.1
done
if [[ $shared == 1 ]]; then
  rc=0
  "$py" "$root/ci/diff/amphora_shared.py" --keel "http://127.0.0.1:$port" \
    --ref "${REF_URL:-http://127.0.0.1:9877}" "$@" || rc=$?
  # the way back: the reference's database exactly as octavia-db-manage left it (Keel's list
  # indexes and keel_deployment removed, as an operator going back to octavia-api does)
  kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
  "$keel" "${conf_args[@]}" db remove-keel-objects || rc=$?
  exit $rc
fi
if [[ $casts == 1 ]]; then
  "$py" "$root/ci/diff/casts.py" --keel "http://127.0.0.1:$port" \
    --ref "${REF_URL:-http://127.0.0.1:9877}" \
    --keel-amqp "$STACK_TRANSPORT_URL" --ref-amqp "$TRANSPORT_URL_REF" "$@"
  exit $?
fi
"$py" "$root/ci/diff/differential.py" --keel "http://127.0.0.1:$port" --keel-db "$db" \
  --ref "${REF_URL:-http://127.0.0.1:9877}" "$@"
