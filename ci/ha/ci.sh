#!/usr/bin/env bash
# The HA stage of ci/test.sh: a short, representative slice of what ci/ha/ runs by hand.
#   1. ci/ha/up.sh: 3-member raft NB/SB, 3-node Galera behind haproxy, the HA Neutron and
#      3 Keel replicas (the debug build CI just made, unless KEEL_BIN says otherwise);
#   2. the Galera tests (crates/keel/tests/galera.rs, #[ignore]d outside this stage);
#   3. the fault run with one short window per fault kind (fault.py: 8 s of load before the
#      fault, 12 s after, every check of the long run: every change ends ACTIVE, a 503 only
#      as the Galera / Neutron window's own Keel fault, the SIGKILL proven to land on accepted
#      work — its window re-run up to 3 times until it does);
#   4. takeover.sh: a live replica (exactly one) takes a frozen one's lease over (member
#      create, cascade delete), the frozen one resumed and watched for a lease + 2 periods,
#      and a SIGTERM lands while accepted provider work cannot finish;
#   5. ci/ha/down.sh (only what up.sh started).
# Installs what the topology needs beyond ci/stack (haproxy, galera-4, rsync). Needs the
# stack of ci/stack/up.sh (its venv and Keystone). Exit 0 = every step passed; each step's
# time is logged. The long run (~15 min) stays `ci/ha/fault.sh` by hand.
set -euo pipefail
# the debug build ci/test.sh just made: a release binary left in the shared target dir by an
# earlier build (a benchmark's, another commit's) must not stand in for this tree
export KEEL_BIN="${KEEL_BIN:-${CARGO_TARGET_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/target}/debug/keel}"
# the Galera tests read the stack's STACK_* addresses: ci/test.sh has sourced ci/stack/env.sh
# before it runs this; a run by hand has not (then they fail at once: "STACK_KEYSTONE_URL is
# not set"). Before common.sh, whose `log` stays the one used here.
# shellcheck disable=SC1091
if [[ -z ${STACK_KEYSTONE_URL:-} ]]; then source "$(dirname "${BASH_SOURCE[0]}")/../stack/env.sh" admin >/dev/null 2>&1; fi
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
root="$(cd "$HA_DIR/../.." && pwd)"
missing=()
for p in haproxy galera-4 rsync; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  log "apt: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi
rc=0
step() { # name cmd...
  local t0 r=0
  t0=$(date +%s)
  "${@:2}" || r=$?
  log "HA stage: $1: rc $r in $(( $(date +%s) - t0 )) s"
  ((r == 0)) || rc=1
  return 0
}
# from nothing, every time: a restart of the raft clusters from an earlier run's files
# failed at once ("the NB cluster does not answer") on this machine — by hand, up.sh
# restarts what died; here the slice measures a clean start
"$HA_DIR/down.sh" --wipe >/dev/null 2>&1 || true
trap '"$HA_DIR/down.sh" --wipe >/dev/null 2>&1 || true' EXIT
step "up" "$HA_DIR/up.sh"
if ((rc)); then log "HA stage: the topology did not come up; see $HA_LOGS"; exit 1; fi
step "galera tests" bash -c "cd '$root' && cargo nextest run --locked -p keel --test galera --run-ignored all --test-threads 1"
step "fault run (short windows)" "$HA_DIR/fault.sh" --warm 8 --after 12 --settle 90
step "takeover" "$HA_DIR/takeover.sh"
exit $rc
