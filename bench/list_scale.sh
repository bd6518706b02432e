#!/usr/bin/env bash
# Lists at scale, Keel beside the reference, one run: seed N LBs (1 listener, 1 pool,
# 10 members, tags each; bench/seed_lists.py) into Keel's bench database and into the
# reference's `octavia` database, in a Keystone project `scale` (user scale/scale-pass, created
# if missing, so no other project's lists change), time bench/list_scale.py against both, then
# delete the seeded rows from `octavia` again.
#   N=10000 bench/list_scale.sh [outdir]     (default bench/results/<date>-lists)
# SCRAPE=1: then also openstack-exporter's scrape (bench/scrape.py, admin) on the same rows:
# every stats call against Keel, the first $REF_STATS_LIMIT (300) against the reference,
# extrapolated (its full scrape takes most of an hour).
# Needs the stack with the reference: STACK_REFERENCE=1 OCTAVIA_PORT=9877 CATALOG_LB_PORT=9876
# (ports + STACK_SLOT×1000 on another slot: bench/slot.sh)
# ci/stack/up.sh. Keel: bench/keel.sh (started here with KEEL_RUN_AGENT=false if not running).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck disable=SC1091
source "$root/bench/slot.sh"
state="$STATE"
n="${N:-10000}"
out="$(realpath -m "${1:-$root/bench/results/$(date -u +%Y-%m-%d)-lists}")"
ref_port="$REF_PORT"
keel_port="$KEEL_BENCH_PORT"
PY="$BENCH_PY"
mkdir -p "$out"
# shellcheck disable=SC1091
source "$root/ci/stack/env.sh" admin >/dev/null
export PATH="$VENV/bin:$PATH"
if ! openstack project show scale >/dev/null 2>&1; then
  openstack project create scale >/dev/null
  openstack user create scale --password scale-pass --project scale >/dev/null
  openstack role add --project scale --user scale member
  openstack role add --project scale --user scale reader
  openstack role add --project scale --user scale load-balancer_member
fi
project=$(openstack project show scale -f value -c id)
KEEL_RUN_AGENT=false "$root/bench/keel.sh" start
keel_db="mysql://keel:keel-db-pass@$BENCH_DB_HOSTPORT/keel_test_bench"
ref_db="mysql://octavia:refstack-db-pass@$BENCH_DB_HOSTPORT/octavia"
"$PY" "$root/bench/seed_lists.py" --db "$keel_db" --project "$project" --clean
"$PY" "$root/bench/seed_lists.py" --db "$keel_db" --project "$project" --n "$n"
"$PY" "$root/bench/seed_lists.py" --db "$ref_db" --project "$project" --clean
"$PY" "$root/bench/seed_lists.py" --db "$ref_db" --project "$project" --n "$n"
trap '"$PY" "$root/bench/seed_lists.py" --db "$ref_db" --project "$project" --clean' EXIT
args=(--username scale --password scale-pass --project scale --n "$n"
      --admin-password "$OS_PASSWORD")
cd "$root/bench"
echo "== keel (:$keel_port)"
"$PY" list_scale.py --endpoint "http://127.0.0.1:$keel_port" "${args[@]}" \
  --rss-pid "$(cat "$state/bench/keel.pid")" --json "$out/keel.json" | tee "$out/keel.txt"
echo "== reference (:$ref_port)"
"$PY" list_scale.py --endpoint "http://127.0.0.1:$ref_port" "${args[@]}" \
  --rss-pid "$(cat "$state/run/octavia-api.pid")" --json "$out/reference.json" | tee "$out/reference.txt"
if [[ ${SCRAPE:-0} == 1 ]]; then
  echo "== scrape keel (:$keel_port)"
  "$PY" scrape.py --endpoint "http://127.0.0.1:$keel_port" --json "$out/scrape-keel.json" | tee "$out/scrape-keel.txt"
  echo "== scrape reference (:$ref_port), first ${REF_STATS_LIMIT:-300} stats calls"
  "$PY" scrape.py --endpoint "http://127.0.0.1:$ref_port" --stats-limit "${REF_STATS_LIMIT:-300}" \
    --json "$out/scrape-reference.json" | tee "$out/scrape-reference.txt"
fi
"$PY" - "$out" <<'PYEOF'
import json, sys
d = sys.argv[1]
k = json.load(open(f'{d}/keel.json')); r = json.load(open(f'{d}/reference.json'))
lines = ['| request | reference p50 / p95 | Keel p50 / p95 | ratio (p50) |', '|---|---|---|---|']
for name, kc in k['cases'].items():
    rc = r['cases'][name]
    lines.append(f"| `{name}` | {rc['p50']:.1f} / {rc['p95']:.1f} ms | {kc['p50']:.1f} / {kc['p95']:.1f} ms | ×{rc['p50'] / kc['p50']:.1f} |")
lines.append(f"| RSS before → after | {r['rss_before_mib']:.1f} → {r['rss_after_mib']:.1f} MiB | {k['rss_before_mib']:.1f} → {k['rss_after_mib']:.1f} MiB | |")
open(f'{d}/table.md', 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
PYEOF
