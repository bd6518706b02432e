#!/usr/bin/env bash
# Several Keel builds and the Python reference measured in one run, round by round, so that
# the machine's drift falls on every side alike (issue 29's "main beside 4fb6be2", the api
# room's before/after). Each round runs, for every side in turn: one lbsteps.py round, one
# 200-member batch (member_batch.py), a 4-client throughput slice (throughput.py). Every
# Keel is started by bench/keel.sh on the same port and the same fresh MariaDB database, one
# at a time; the reference is whatever answers on $REF (STACK_REFERENCE=1 ci/stack/up.sh).
#   bench/interleave.sh OUTDIR name=/path/to/keel [name=/path/to/keel ...]
#   ROUNDS=5 TPUT_SECONDS=20 REF=http://127.0.0.1:9877 (REF=none: Keel builds only)
#   REF_UP_ONLY_FOR_ITS_TURN=1: the reference's services run only during its own turn
#   (`STACK_REFERENCE=1 OCTAVIA_PORT=<REF's port> ci/stack/up.sh` before it, `ci/stack/down.sh
#   --reference` after): its OVN provider monitors the NB and handles every row a Keel turn
#   writes, which an operator running one or the other never pays. Its turn then starts
#   with one discarded lbsteps.py round (its workers' first requests are slow), kept in
#   ref-warmup-<round>.txt.
#   CPU_SPLIT=1: each throughput slice runs under cpu_split.py (its table of each process's
#   CPU time over the loop alone, the clients' own included, ends <side>-tput-<round>.txt), to tell what the loop's cores go to.
#   FLOOR=1: after each Keel side's lbsteps round, floor.py (<side>-floor-<round>.json): the
#   least a step costs this client on this machine (two requests, a commit, an NB transaction).
# Then: python3 bench/interleave.py OUTDIR  (pooled p50/p95 per step and side, ratios)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
R=$(realpath -m "$1"); shift
cd "$root/bench"
# shellcheck disable=SC1091
source "$root/bench/slot.sh"
# shellcheck disable=SC1091
source "$root/ci/stack/env.sh" demo >/dev/null
PY=$BENCH_PY
REF=${REF:-http://127.0.0.1:$REF_PORT}
mkdir -p "$R"
declare -A bin=()
order=()
for a in "$@"; do bin[${a%%=*}]=${a#*=}; order+=("${a%%=*}"); done
ref_port=${REF##*:}; ref_port=${ref_port%%/*}
ref_up() { STACK_REFERENCE=1 OCTAVIA_PORT=$ref_port "$root/ci/stack/up.sh" >>"$R/ref-up.log" 2>&1; }
ref_down() { "$root/ci/stack/down.sh" --reference >>"$R/ref-up.log" 2>&1; }
[[ $REF != none && ${REF_UP_ONLY_FOR_ITS_TURN:-0} == 1 ]] && ref_up
[[ $REF != none ]] && curl -fsS "$REF/" >/dev/null 2>&1 && order+=(ref) || echo "no reference on $REF" >&2
[[ ${REF_UP_ONLY_FOR_ITS_TURN:-0} == 1 ]] && ref_down
load() { echo "$(date -u +%FT%TZ) $1: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$R/load.txt"; }
for round in $(seq 1 "${ROUNDS:-5}"); do
  for s in "${order[@]}"; do
    if [[ $s == ref ]]; then
      url=$REF
      if [[ ${REF_UP_ONLY_FOR_ITS_TURN:-0} == 1 ]]; then
        ref_up || echo "reference did not start" >&2
        $PY lbsteps.py --rounds 1 --endpoint "$url" >"$R/ref-warmup-$round.txt" 2>&1
      fi
    else
      KEEL_BIN=${bin[$s]} KEEL_RUN_AGENT=false ./keel.sh start >"$R/$s-start-$round.txt" 2>&1 || { echo "$s did not start" >&2; continue; }
      url=http://127.0.0.1:$KEEL_BENCH_PORT
    fi
    load "round $round $s"
    $PY lbsteps.py --rounds 1 --endpoint "$url" --json "$R/$s-steps-$round.json" >"$R/$s-steps-$round.txt" 2>&1
    if [[ ${FLOOR:-0} == 1 && $s != ref ]]; then
      $PY floor.py --endpoint "$url" --db-port "${BENCH_DB_HOSTPORT##*:}" --json "$R/$s-floor-$round.json" >"$R/$s-floor-$round.txt" 2>&1
    fi
    $PY member_batch.py --members 200 --endpoint "$url" --json "$R/$s-batch-$round.json" >"$R/$s-batch-$round.txt" 2>&1
    split=()
    [[ ${CPU_SPLIT:-0} == 1 ]] && split=(python3 cpu_split.py --from 'loop start' --to 'loop end' --)
    "${split[@]}" $PY throughput.py --clients 4 --seconds "${TPUT_SECONDS:-20}" --endpoint "$url" --json "$R/$s-tput-$round.json" >"$R/$s-tput-$round.txt" 2>&1
    if [[ $s == ref ]]; then
      [[ ${REF_UP_ONLY_FOR_ITS_TURN:-0} == 1 ]] && ref_down
    else
      ./keel.sh stop >/dev/null 2>&1
    fi
  done
done
load end
echo "results in $R; summary: python3 bench/interleave.py $R" >&2
