#!/usr/bin/env bash
# Keel beside the Python reference on the same data plane (by hand, not in CI): the traffic
# test `beside_the_reference` (crates/keel/tests/traffic.rs) run twice on this slot's stack —
# first through a `keel serve` it starts (Keel's agent active; the reference must not be
# running, its driver agent would hold the agent locks), then through the Python reference
# (Octavia + ovn-octavia-provider, started here with STACK_REFERENCE=1 on $REFERENCE_PORT
# and stopped again afterwards with `down.sh --reference`) — and the two sides printed as one
# table. Results: $STACK_STATE/side-by-side-<date>/{keel,reference}.json, table.md.
# Exit 0 when Keel's side passed every step (the reference's is measured, not judged).
set -euo pipefail
STACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$STACK_DIR/common.sh"
REPO=$(cd "$STACK_DIR/../.." && pwd)
: "${REFERENCE_PORT:=$((9877 + STACK_SLOT * 1000))}"
out="$STATE/side-by-side-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
pid_alive octavia-driver-agent \
  && die "the reference's driver agent is running: stop it first (ci/stack/down.sh --reference)"
"$STACK_DIR/up.sh" >"$out/up.log" 2>&1 || die "up.sh failed, see $out/up.log"
side() { # keel|reference [KEY=VALUE…]
  local s=$1; shift
  log "side $s"
  ( source "$STACK_DIR/env.sh" admin >/dev/null
    cd "$REPO" && env KEEL_SIDE="$s" KEEL_SIDE_OUT="$out/$s.json" "$@" \
      cargo nextest run --locked --workspace --run-ignored only --no-capture \
        -E 'binary_id(keel::traffic) & test(beside_the_reference)' ) >"$out/$s.log" 2>&1
}
T0=$(date +%s)
keel_rc=0; side keel || keel_rc=$?
log "Keel's side: rc $keel_rc [$(( $(date +%s) - T0 ))s]"
STACK_REFERENCE=1 OCTAVIA_PORT=$REFERENCE_PORT "$STACK_DIR/up.sh" >"$out/up-reference.log" 2>&1 \
  || { "$STACK_DIR/down.sh" --reference >/dev/null; die "the reference did not start, see $out/up-reference.log"; }
side reference KEEL_REFERENCE_ENDPOINT="http://$HOST:$REFERENCE_PORT" || true
"$STACK_DIR/down.sh" --reference >"$out/down-reference.log" 2>&1
log "both sides done [$(( $(date +%s) - T0 ))s]"
python3 - "$out" <<'PY' | tee "$out/table.md"
import json, sys
d = sys.argv[1]
sides = {}
for s in ("keel", "reference"):
    try:
        sides[s] = {r["step"]: r.get("ok") or "FAILED: " + r["failed"] for r in json.load(open(f"{d}/{s}.json"))["steps"]}
    except (OSError, ValueError) as e:
        sides[s] = {}
        print(f"(no {s} results: {e})")
steps = list(dict.fromkeys([*sides["keel"], *sides["reference"]]))
print("| step | Keel | reference |\n|---|---|---|")
for st in steps:
    cell = lambda s: sides[s].get(st, "—").replace("|", "/").replace("\n", " ")
    print(f"| {st} | {cell('keel')} | {cell('reference')} |")
PY
exit "$keel_rc"
