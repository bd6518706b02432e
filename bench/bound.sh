#!/usr/bin/env bash
# What bounds throughput: the 4-client listener loop (throughput.py) against the bench Keel,
# once with every service running and once with each set of the stack's other consumers of NB
# changes paused (SIGSTOP) while the clients loop. Neither Neutron nor ovn-northd is on the
# path of a listener create/delete: Keel asks them nothing, it only writes one Load_Balancer row,
# which they then digest. Pausing them shows what that digestion costs on a shared machine.
# Needs ci/stack/up.sh and bench/keel.sh start. Only the stack's own PIDs are signalled, and
# they are always resumed (also on Ctrl-C).
#   bench/bound.sh [outdir]      TPUT_SECONDS=30 (per case) CASES="none neutron northd both"
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck disable=SC1091
source "$root/bench/slot.sh"
state="$STATE"
R=$(realpath -m "${1:-$root/bench/results/$(date -u +%Y-%m-%d)-bound}")
mkdir -p "$R"
source "$root/ci/stack/env.sh" demo >/dev/null
PY=$BENCH_PY
KEEL=http://127.0.0.1:$KEEL_BENCH_PORT
curl -fsS "$KEEL/" >/dev/null 2>&1 || { echo "no Keel on $KEEL: bench/keel.sh start" >&2; exit 1; }
neutron_master=$(cat "$state/run/neutron-api.pid")
neutron="$neutron_master $(pgrep -P "$neutron_master" | tr '\n' ' ')"
northd=$(cat "$state/run/ovn-northd.pid")
# The PIDs paused right now, for the trap (the pausing happens in a pipeline's subshell).
mark="$R/.paused"
resume() { [[ -s $mark ]] && kill -CONT $(cat "$mark") 2>/dev/null; rm -f "$mark"; }
trap resume EXIT INT TERM
for c in ${CASES:-none neutron northd both}; do
  case $c in
  none) pids="" ;;
  neutron) pids=$neutron ;;
  northd) pids=$northd ;;
  both) pids="$neutron $northd" ;;
  *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  echo "== $c paused: ${pids:-nothing}" >&2
  : > "$R/tput_$c.txt"
  # The clients' networks and LBs need Neutron: pause only once the last LB is ACTIVE
  # (throughput.py prints "LB <n-1>: …"), resume when the loop's time is up.
  $PY -u "$root/bench/throughput.py" --clients 4 --seconds "${TPUT_SECONDS:-30}" \
    --endpoint "$KEEL" --json "$R/tput_$c.json" 2>&1 | while read -r line; do
    echo "$line" >> "$R/tput_$c.txt"
    if [[ -n $pids && $line == "LB 3:"* ]]; then
      echo "$pids" > "$mark" && kill -STOP $pids
      (sleep "${TPUT_SECONDS:-30}"; kill -CONT $pids 2>/dev/null) &
    fi
  done
  resume
  python3 -c "
import json
d = json.load(open('$R/tput_$c.json'))
print(f\"$c paused: {d['ops_per_s']:.1f} ops/s, create p50/p95 {d['create_active']['p50']:.1f}/{d['create_active']['p95']:.1f} ms, errors {d['errors']}\")" | tee -a "$R/summary.txt"
done
