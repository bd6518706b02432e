#!/usr/bin/env bash
# Restore from nothing on the stack's real parts (issue 29), both tools on the same rows:
# N load balancers (1 listener, 1 pool, 10 members each; bench/seed_lists.py) whose VIP ports
# are real Neutron ports (bench/restore_ports.py: Neutron's bulk create on a network of their
# own, 10.128.0.0/16) are seeded into the reference's Octavia database (the stack's `octavia`,
# which its API and driver agent read: STACK_REFERENCE=1 ci/stack/up.sh). None of them has a
# Load_Balancer row in the stack's NB (ovn-northd running). Then, timed:
#   1. `keel ovn-db-sync` (config: that database, the stack's NB/SB and Neutron): wall time
#      and peak RSS (/usr/bin/time), NB rows after, then `--dry-run` (nothing left to repair);
#   2. their NB rows deleted again, the reference's `octavia-ovn-db-sync-util` with its own
#      octavia.conf, stopped after REF_BOUND s (default 300) if not done: rows written, rate;
#   3. clean-up: the NB rows, the seeded DB rows, the ports and the network.
#   N=10000 bench/restore.sh [outdir]     (default bench/results/<date>-restore)
# Neutron made 10,000 ports in ~55 min here (bulk create slows as the network fills).
# The NB rows are found by name (the seeded LB ids) and deleted in one transaction per 1,000.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck disable=SC1091
source "$root/bench/slot.sh"
n="${N:-10000}"
out="$(realpath -m "${1:-$root/bench/results/$(date -u +%Y-%m-%d)-restore}")"
dir="$STATE/bench/restore"
keel="${KEEL_BIN:-${CARGO_TARGET_DIR:-/var/tmp/keel-target}/release/keel}"
PY="$BENCH_PY"
mkdir -p "$out" "$dir"
# shellcheck disable=SC1091
source "$root/ci/stack/env.sh" admin >/dev/null
export PATH="$VENV/bin:$PATH"
refconf="$STATE/etc/octavia/octavia.conf"
[[ -s $refconf ]] || { echo "no $refconf: start the stack with STACK_REFERENCE=1" >&2; exit 1; }
db=$(sed -n 's/^connection = mysql+pymysql:/mysql:/p' "$refconf" | head -1 | sed 's/?.*//')
nb="$OVN_NB_TCP"
project=$(openstack project show admin -f value -c id)
log() { echo "$*" | tee -a "$out/restore.txt"; }
: > "$out/restore.txt"

ids() { mysql -h"$HOST" -P"$STACK_DB_PORT" -uoctavia -prefstack-db-pass -N -B octavia -e \
  "SELECT id FROM load_balancer WHERE project_id = '$project' AND name LIKE 'scale-lb-%'"; }
nb_rows() { ids > "$dir/ids.txt"; "$PY" - "$dir/ids.txt" "$nb" <<'EOF'
import json, subprocess, sys
ids = set(open(sys.argv[1]).read().split())
out = subprocess.run(['ovsdb-client', 'dump', '-f', 'json', sys.argv[2],
                      'OVN_Northbound', 'Load_Balancer', 'name'], capture_output=True, text=True).stdout
rows = json.loads(out)['data'] if out.strip().startswith('{') else []
print(sum(1 for r in rows if r[0] in ids))
EOF
}
nb_delete() { ids > "$dir/ids.txt"; "$PY" - "$dir/ids.txt" "$nb" <<'EOF'
import json, subprocess, sys
ids = open(sys.argv[1]).read().split()
for k in range(0, len(ids), 1000):
    ops = ['OVN_Northbound'] + [{'op': 'delete', 'table': 'Load_Balancer',
                                 'where': [['name', '==', i]]} for i in ids[k:k + 1000]]
    subprocess.run(['ovsdb-client', 'transact', sys.argv[2], json.dumps(ops)],
                   check=True, capture_output=True)
EOF
}
# Neutron's default port quota (500 a project) is lifted for the run, put back after
quota=$(openstack quota show --network admin -f json \
  | "$PY" -c 'import json, sys; print(next(r["Limit"] for r in json.load(sys.stdin) if r["Resource"] == "ports"))')
cleanup() {
  log "== clean-up"
  nb_delete
  "$PY" "$root/bench/seed_lists.py" --db "$db" --project "$project" --clean >/dev/null
  (cd "$root/bench" && "$PY" restore_ports.py delete --workers 6) | tee -a "$out/restore.txt"
  openstack quota set --ports "$quota" admin
}
trap cleanup EXIT
trap 'exit 130' INT TERM
openstack quota set --ports -1 admin

if [[ -n ${SKIP_PORTS:-} && -s $dir/ports.json ]]; then
  # SKIP_PORTS=1: the ports an interrupted run made, listed into ports.json by hand
  log "== the VIP ports of $dir/ports.json"
else
  log "== $n VIP ports in Neutron ($(date -u +%T))"
  rm -f "$dir/ports.json"
  (cd "$root/bench" && "$PY" restore_ports.py create --n "$n" --workers 4 --out "$dir/ports.json") \
    2>&1 | tee -a "$out/restore.txt"
fi
[[ -s $dir/ports.json ]] || { log "no ports: stopped"; exit 1; }
"$PY" "$root/bench/seed_lists.py" --db "$db" --project "$project" --n "$n" --vips "$dir/ports.json" \
  | tee -a "$out/restore.txt"
nb_delete
log "NB Load_Balancer rows of them before: $(nb_rows)"

"$root/ci/keel-conf.sh" "$((9879 + _slot_off))" "$db" > "$dir/keel.conf"
log "== keel ovn-db-sync, empty -> $n ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
/usr/bin/time -f "wall %e s, peak RSS %M KiB, CPU user %U s sys %S s" -o "$dir/keel.time" \
  "$keel" --config-file "$dir/keel.conf" ovn-db-sync > "$dir/keel-sync.out" 2> "$dir/keel-sync.err"
log "exit $?; $(cat "$dir/keel.time")"
log "$(grep '^ovn-db-sync' "$dir/keel-sync.err")"
log "NB Load_Balancer rows of them after: $(nb_rows)"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" -o "$dir/keel-dry.time" \
  "$keel" --config-file "$dir/keel.conf" ovn-db-sync --dry-run > "$dir/keel-dry.out" 2> "$dir/keel-dry.err"
log "dry run after: $(cat "$dir/keel-dry.time"), $(grep -c . "$dir/keel-dry.out") difference lines"

nb_delete
log "== octavia-ovn-db-sync-util, empty -> $n, at most ${REF_BOUND:-300} s ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
t0=$(date +%s.%N)
/usr/bin/time -f "wall %e s, peak RSS %M KiB, CPU user %U s sys %S s" -o "$dir/ref.time" \
  timeout "${REF_BOUND:-300}" octavia-ovn-db-sync-util --config-file "$refconf" \
  > "$dir/ref-sync.out" 2> "$dir/ref-sync.err"
rc=$?
t1=$(date +%s.%N)
rows=$(nb_rows)
log "exit $rc ($([[ $rc == 124 ]] && echo "stopped at the bound" || echo done)); $(cat "$dir/ref.time")"
log "NB Load_Balancer rows of them after: $rows"
awk -v a="$t0" -v b="$t1" -v r="$rows" -v n="$n" 'BEGIN{ if (r > 0) printf "rate %.1f LB/s; %d LBs at that rate: %.0f s\n", r/(b-a), n, n/(r/(b-a)) }' \
  | tee -a "$out/restore.txt"
grep -ciE 'error|traceback' "$dir/ref-sync.err" | sed 's/^/error lines of the reference: /' | tee -a "$out/restore.txt"
# a run that ended on its own without rows: what it said last (stdout and stderr)
if [[ $rc != 0 && $rc != 124 ]]; then
  log "the reference's last lines:"
  tail -n 5 "$dir/ref-sync.out" "$dir/ref-sync.err" | tee -a "$out/restore.txt"
fi
