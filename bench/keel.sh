#!/usr/bin/env bash
# A Keel for benchmarks, next to whatever serves the catalog's endpoint:
# release build, 127.0.0.1:$KEEL_BENCH_PORT (9878 + STACK_SLOT×1000, bench/slot.sh), its own database (MariaDB
# `keel_test_bench` by default — production's engine; `KEEL_BENCH_DB=sqlite` for an
# SQLite file), the stack's Keystone/Neutron/OVN. Needs ci/stack/up.sh to have run.
# KEEL_RUN_AGENT=false: no OVN provider agent in this Keel (`[keel] run_agent`), so it never
# holds the NB agent lock the agent tests of ci/test.sh need.
#   bench/keel.sh start   # build, db upgrade, start in the background, wait until it answers
#   bench/keel.sh stop    # stop the PID this script started (only that one)
# Metrics: http://127.0.0.1:$KEEL_BENCH_METRICS_PORT/metrics (9880 + STACK_SLOT×1000).
# State: $STACK_STATE/bench/ (keel.conf, keel.pid, keel.log).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck disable=SC1091
source "$root/bench/slot.sh"
state="$STATE"
dir="$state/bench"
port="$KEEL_BENCH_PORT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
# KEEL_BIN=<binary>: run that build instead (no cargo build), e.g. a baseline commit's
keel="${KEEL_BIN:-$CARGO_TARGET_DIR/release/keel}"
mkdir -p "$dir"
case "${1:-}" in
stop)
  [[ -s $dir/keel.pid ]] || { echo "no $dir/keel.pid" >&2; exit 0; }
  pid=$(cat "$dir/keel.pid")
  kill "$pid" 2>/dev/null || true
  rm -f "$dir/keel.pid"; echo "stopped keel pid $pid" >&2; exit 0 ;;
start) ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
if [[ -s $dir/keel.pid ]] && kill -0 "$(cat "$dir/keel.pid")" 2>/dev/null; then
  echo "bench keel already running (pid $(cat "$dir/keel.pid"))" >&2; exit 0
fi
[[ -n ${KEEL_BIN:-} ]] || (cd "$root" && cargo build --locked --release -p keel)
if [[ ${KEEL_BENCH_DB:-mariadb} == sqlite ]]; then
  rm -f "$dir/keel.sqlite"; db="sqlite://$dir/keel.sqlite?mode=rwc"
else
  # KEEL_BENCH_KEEP_DB=1: keep the database (another binary on the same seeded rows)
  [[ ${KEEL_BENCH_KEEP_DB:-0} == 1 ]] || mysql -h"$HOST" -P"$STACK_DB_PORT" -ukeel -pkeel-db-pass -e \
    'DROP DATABASE IF EXISTS keel_test_bench; CREATE DATABASE keel_test_bench'
  db="mysql://keel:keel-db-pass@$BENCH_DB_HOSTPORT/keel_test_bench"
fi
conf="$dir/keel.conf"
"$root/ci/keel-conf.sh" "$port" "$db" > "$conf"
# the Prometheus endpoint (per-stage histograms: API request, provider job, NB transaction)
echo "metrics_listen = 127.0.0.1:${KEEL_BENCH_METRICS_PORT:-$((9880 + _slot_off))}" >> "$conf"
"$keel" --config-file "$conf" db upgrade
KEEL_LOG="${KEEL_LOG:-info}" setsid "$keel" --config-file "$conf" serve >"$dir/keel.log" 2>&1 &
echo $! > "$dir/keel.pid"
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/" >/dev/null 2>&1 && {
    echo "bench keel pid $(cat "$dir/keel.pid") on http://127.0.0.1:$port ($db)" >&2; exit 0; }
  kill -0 "$(cat "$dir/keel.pid")" 2>/dev/null || { echo "keel died; see $dir/keel.log" >&2; exit 1; }
  sleep 0.1
done
echo "keel did not answer on :$port; see $dir/keel.log" >&2; exit 1
