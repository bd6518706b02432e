#!/usr/bin/env bash
# Planted-fault proof of the NB oracle (issue 45): in a throwaway git worktree of HEAD, make
# one planner value wrong — every `vips` backend port off by one (crates/ovn-provider/src/
# vips.rs `frame_vips`, which ovn-db-sync's dry run replays too) —, build keel and the
# fuzz_ovn test there (CARGO_TARGET_DIR=/var/tmp/keel-target-planted), run the fuzz end check
# slice, and require:
#   * the test to FAIL, with the ORACLE reporting a `vips[...]` difference whose NB backend
#     port is the expected one + 1;
#   * `ovn-db-sync --dry-run` NOT to report it (it replays the same wrong planner) — printed
#     as the reason the oracle exists; a dry run that does catch it is reported, not hidden.
# Exit 0 when the oracle caught the planted fault; 1 otherwise; 2 when it cannot run.
#   ci/oracle/planted.sh            (needs the stack: ci/stack/up.sh; KEEL_FUZZ_SECONDS, 10)
# The HA judges by hand (the lead; the HA topology up): build the planted keel with this
# script's worktree (KEEL_PLANTED_KEEP=1 keeps it), then
#   KEEL_BIN=/var/tmp/keel-target-planted/debug/keel ci/ha/fault.sh   (or ci/ha/takeover.sh)
# and expect every window's / case's `DB = NB` check to fail with `oracle: … vips[…]` lines.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
wt="${KEEL_PLANTED_WT:-/var/tmp/keel-wt-planted}"
export CARGO_TARGET_DIR="${KEEL_PLANTED_TARGET:-/var/tmp/keel-target-planted}" CARGO_INCREMENTAL=0
log="${KEEL_PLANTED_LOG:-/var/tmp/keel-planted-fuzz.log}"

command -v ovsdb-client >/dev/null || { echo "planted: ovsdb-client missing" >&2; exit 2; }
# shellcheck source=../stack/env.sh
source ci/stack/env.sh admin
[[ -n ${STACK_NEUTRON_URL:-} ]] || { echo "planted: the stack's env is missing" >&2; exit 2; }

git worktree remove --force "$wt" 2>/dev/null || true
git worktree add --detach "$wt" HEAD >/dev/null
cleanup() { [[ ${KEEL_PLANTED_KEEP:-0} == 1 ]] || git -C "$root" worktree remove --force "$wt"; }
trap cleanup EXIT

# the planted fault: each backend's port + 1 in the vips framing
f="$wt/crates/ovn-provider/src/vips.rs"
grep -q 'map(|m| SocketAddr::new(m.address, m.port));' "$f" || {
  echo "planted: the vips framing line to plant the fault in is not in $f any more" >&2; exit 2; }
sed -i 's/map(|m| SocketAddr::new(m.address, m.port));/map(|m| SocketAddr::new(m.address, m.port.wrapping_add(1)));/' "$f"
git -C "$wt" diff --stat

(cd "$wt" && cargo build --locked -p keel --bin keel && cargo test --locked -p keel --test fuzz_ovn --no-run) \
  || { echo "planted: the planted build failed" >&2; exit 2; }

set +e
(cd "$wt" && KEEL_FUZZ_SECONDS="${KEEL_FUZZ_SECONDS:-10}" \
  cargo test --locked -p keel --test fuzz_ovn -- --nocapture) >"$log" 2>&1
rc=$?
set -e
echo "planted: fuzz_ovn exit $rc (log $log)"
oracle=$(grep -E '^NB oracle: .*vips\[' "$log" || true)
sync=$(grep -E 'ovn-db-sync --dry-run:' "$log" || true)
echo "oracle lines:"; echo "${oracle:-  (none)}" | head -5
echo "ovn-db-sync --dry-run lines:"; echo "${sync:-  (none)}" | head -5
if [[ $rc -eq 0 || -z $oracle ]]; then
  echo "planted: FAILED — the oracle did not catch the wrong vips backend port" >&2
  exit 1
fi
# the NB backend port is the database's + 1: "expected backends ['10.0.0.20:80', …], NB has '10.0.0.20:81…'"
if ! grep -qE "expected backends \[.*:80'.*\], NB has '[^']*:81" <<<"$oracle"; then
  echo "planted: the oracle failed the run but not with the planted port (+1)" >&2
  exit 1
fi
if [[ -n $sync ]]; then
  echo "planted: note — ovn-db-sync --dry-run ALSO reported a difference"
else
  echo "planted: ovn-db-sync --dry-run reported nothing: it replays the same wrong planner"
fi
echo "planted: OK — the oracle caught the planted fault"
