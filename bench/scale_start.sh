#!/usr/bin/env bash
# Start-up and ovn-db-sync at scale: N load balancers (bench/seed_lists.py: 1 listener, 1 pool,
# 10 members each) in a database of their own (MariaDB `keel_test_scale`) and in an NB of its
# own (a private ovsdb-server pair on 127.0.0.1:6651/6652, no ovn-northd: the shared stack's NB
# and northd never see the 10,000 rows). The NB rows are written by Keel's own sync
# (`keel ovn-db-sync`, DB -> NB), its Neutron lookups answered by bench/fake_neutron.py (the
# VIP ports exist only in the database). Then, timed:
#   1. `keel ovn-db-sync --dry-run` over the N in-sync load balancers (3 runs);
#   2. `keel serve` (agent on): time to the first 200 of `GET /` and of an authenticated
#      `GET /v2/lbaas/loadbalancers?limit=1`, RSS then, 10 s later, and after a round of lists
#      (bench/list_scale.py).
#   N=10000 bench/scale_start.sh [outdir]      (default bench/results/<date>-scale)
#   SKIP_SEED=1: keep keel_test_scale as an earlier run (or a hand seeding) left it
#   SKIP_NB=1: also keep the private NB an earlier run wrote from it (no 10-minute write)
#   BASELINE=<keel binary>: also time its dry run on the same data (a same-run ratio)
# Needs the stack (Keystone, MariaDB) and a release build in $CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck disable=SC1091
source "$root/bench/slot.sh"
state="$STATE"
n="${N:-10000}"
out="$(realpath -m "${1:-$root/bench/results/$(date -u +%Y-%m-%d)-scale}")"
dir="$state/bench/scale"
port="${KEEL_SCALE_PORT:-$((9879 + _slot_off))}"
nb_port=$((6651 + _slot_off)); sb_port=$((6652 + _slot_off)); neutron_port=$((9697 + _slot_off))
PY="$BENCH_PY"
keel="${CARGO_TARGET_DIR:-/var/tmp/keel-target}/release/keel"
mkdir -p "$out" "$dir"
# shellcheck disable=SC1091
source "$root/ci/stack/env.sh" admin >/dev/null
export PATH="$VENV/bin:$PATH"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for f in "$dir"/nb.pid "$dir"/sb.pid; do [[ -s $f ]] && kill "$(cat "$f")" 2>/dev/null || true; done
}
trap cleanup EXIT

db="mysql://keel:keel-db-pass@$BENCH_DB_HOSTPORT/keel_test_scale"
if [[ -z ${SKIP_SEED:-} ]]; then
  mysql -h"$HOST" -P"$STACK_DB_PORT" -ukeel -pkeel-db-pass -e \
    'DROP DATABASE IF EXISTS keel_test_scale; CREATE DATABASE keel_test_scale'
fi
"$root/ci/keel-conf.sh" "$port" "$db" \
  | sed -e "s|^ovn_nb_connection = .*|ovn_nb_connection = tcp:127.0.0.1:$nb_port|" \
        -e "s|^ovn_sb_connection = .*|ovn_sb_connection = tcp:127.0.0.1:$sb_port|" \
        -e "s|^endpoint = http://$HOST:$NEUTRON_PORT|endpoint = http://127.0.0.1:$neutron_port|" \
  > "$dir/keel.conf"
project=$(openstack project show admin -f value -c id)
if [[ -z ${SKIP_SEED:-} ]]; then
  "$keel" --config-file "$dir/keel.conf" db upgrade
  "$PY" "$root/bench/seed_lists.py" --db "$db" --project "$project" --n "$n" | tee "$out/seed.txt"
fi

# the private NB/SB
keep_nb=""
[[ -n ${SKIP_NB:-} && -n ${SKIP_SEED:-} && -s $dir/nb.db ]] && keep_nb=1
if [[ -z $keep_nb ]]; then
  rm -f "$dir"/nb.db "$dir"/sb.db
  ovsdb-tool create "$dir/nb.db" /usr/share/ovn/ovn-nb.ovsschema
  ovsdb-tool create "$dir/sb.db" /usr/share/ovn/ovn-sb.ovsschema
fi
for x in nb:$nb_port sb:$sb_port; do
  name=${x%%:*}; p=${x##*:}
  ovsdb-server "$dir/$name.db" --detach --no-chdir --pidfile="$dir/$name.pid" \
    --log-file="$dir/$name.log" --unixctl="$dir/$name.ctl" --remote="ptcp:$p:127.0.0.1"
done
net=$("$PY" -c 'import sys; sys.path.insert(0, "'"$root"'/bench"); import seed_lists as s; print(s.NETWORK)')
[[ -n $keep_nb ]] || ovn-nbctl --db="tcp:127.0.0.1:$nb_port" ls-add "neutron-$net" -- \
  set Logical_Switch "neutron-$net" external_ids:neutron\\:network_name=scale-net

(cd "$root/bench" && exec "$PY" fake_neutron.py --db "$db" --port "$neutron_port") \
  > "$dir/fake_neutron.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$neutron_port/v2.0/" >/dev/null 2>&1 && break; sleep 0.2; done

# timed <stdout file> <stderr file> <command…>: runs it (a non-zero exit is appended to the
# stderr file, not fatal) and prints its wall time in seconds
timed() {
  local o=$1 e=$2 t0 t1; shift 2
  t0=$(date +%s.%N); "$@" >"$o" 2>"$e" || echo "exit $?" >>"$e"; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f\n", b-a}'
}
if [[ -z $keep_nb ]]; then
  echo "== keel ovn-db-sync (DB -> empty NB: writes the $n load balancers)" | tee "$out/sync.txt"
  t=$(timed "$dir/sync-write.out" "$dir/sync-write.err" "$keel" --config-file "$dir/keel.conf" ovn-db-sync)
  tail -1 "$dir/sync-write.err" | tee -a "$out/sync.txt"; echo "write: $t s" | tee -a "$out/sync.txt"
else
  echo "== the NB an earlier run wrote (SKIP_NB)" | tee "$out/sync.txt"
fi
echo "NB Load_Balancer rows: $(ovn-nbctl --db="tcp:127.0.0.1:$nb_port" --bare --columns=_uuid \
  list Load_Balancer | grep -c .)" | tee -a "$out/sync.txt"
echo "== keel ovn-db-sync --dry-run (in sync)" | tee -a "$out/sync.txt"
for r in 1 2 3; do
  t=$(timed "$dir/sync-dry.out" "$dir/sync-dry.err" "$keel" --config-file "$dir/keel.conf" ovn-db-sync --dry-run)
  echo "dry-run $r: $t s, $(grep -c . "$dir/sync-dry.out") difference lines; $(tail -1 "$dir/sync-dry.err")" \
    | tee -a "$out/sync.txt"
done

if [[ -n ${BASELINE:-} ]]; then
  # the same dry run with another build (e.g. the previous commit's), same data, same run
  echo "== baseline $("$BASELINE" --version): ovn-db-sync --dry-run" | tee -a "$out/sync.txt"
  t=$(timed "$dir/sync-base.out" "$dir/sync-base.err" "$BASELINE" --config-file "$dir/keel.conf" ovn-db-sync --dry-run)
  echo "baseline dry-run: $t s, $(grep -c . "$dir/sync-base.out") difference lines; $(tail -1 "$dir/sync-base.err")" \
    | tee -a "$out/sync.txt"
fi

# the Neutron requests of the syncs above; then counted afresh for `keel serve`
curl -fsS "http://127.0.0.1:$neutron_port/v2.0/counts?reset=1" | sed 's/^/fake neutron requests of the syncs: /' \
  | tee -a "$out/sync.txt"; echo | tee -a "$out/sync.txt"
echo "== keel serve with $n LBs in DB and NB" | tee "$out/serve.txt"
token=$(openstack token issue -f value -c id)
t0=$(date +%s.%N)
KEEL_LOG=info setsid "$keel" --config-file "$dir/keel.conf" serve >"$dir/serve.log" 2>&1 &
kpid=$!; pids+=($kpid)
rss() { awk '/VmRSS/{printf "%.1f", $2/1024}' "/proc/$kpid/status"; }
since() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b-a}'; }
up=""; listed=""
for _ in $(seq 3000); do
  if [[ -z $up ]] && curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then
    up=$(since); echo "first 200 of GET /: $up s, RSS $(rss) MiB" | tee -a "$out/serve.txt"
  fi
  if [[ -n $up ]] && curl -fsS -o /dev/null -H "X-Auth-Token: $token" \
      "http://127.0.0.1:$port/v2/lbaas/loadbalancers?limit=1" 2>/dev/null; then
    listed=$(since); echo "first 200 of GET /v2/lbaas/loadbalancers?limit=1: $listed s, RSS $(rss) MiB" \
      | tee -a "$out/serve.txt"; break
  fi
  kill -0 "$kpid" 2>/dev/null || { echo "keel serve died; see $dir/serve.log" >&2; exit 1; }
  sleep 0.02
done
sleep 10
echo "10 s later: RSS $(rss) MiB" | tee -a "$out/serve.txt"
(cd "$root/bench" && "$PY" list_scale.py --endpoint "http://127.0.0.1:$port" \
   --username admin --password "$OS_PASSWORD" --project admin --admin-password "$OS_PASSWORD" \
   --n "$n" --rss-pid "$kpid" \
   --json "$out/serve-lists.json") | tee -a "$out/serve.txt"
echo "after the lists: RSS $(rss) MiB" | tee -a "$out/serve.txt"
grep -ciE 'error|panic' "$dir/serve.log" | sed 's/^/error lines in serve.log: /' | tee -a "$out/serve.txt" || true
curl -fsS "http://127.0.0.1:$neutron_port/v2.0/counts" | sed 's/^/fake neutron requests of keel serve: /' | tee -a "$out/serve.txt"; echo
