#!/usr/bin/env bash
# list_scale.sh's steps, with Keel's list indexes (octavia-db page::LIST_INDEXES) created on the
# bench DB after seeding (the release binary at hand predates the upgrade step that makes them).
set -euo pipefail
cd /work/wt-c
root=/work/wt-c; state=/var/tmp/keel-stack; n=10000; out=$root/bench/results/2026-12-01-lists
PY=$state/venv/bin/python
mkdir -p $out
source ci/stack/env.sh admin >/dev/null
export PATH="$state/venv/bin:$PATH"
project=$(openstack project show scale -f value -c id)
dir=$state/bench; mkdir -p $dir
mysql -h127.0.0.1 -ukeel -pkeel-db-pass -e 'DROP DATABASE IF EXISTS keel_test_bench; CREATE DATABASE keel_test_bench'
KEEL_RUN_AGENT=false ci/keel-conf.sh 9878 mysql://keel:keel-db-pass@127.0.0.1:3306/keel_test_bench > $dir/keel.conf
/tmp/hc/keel-rel --config-file $dir/keel.conf db upgrade
KEEL_LOG=info setsid /tmp/hc/keel-rel --config-file $dir/keel.conf serve > $dir/keel.log 2>&1 &
echo $! > $dir/keel.pid
for _ in $(seq 100); do curl -fsS http://127.0.0.1:9878/ >/dev/null 2>&1 && break; sleep 0.1; done
keel_db="mysql://keel:keel-db-pass@127.0.0.1:3306/keel_test_bench"
ref_db="mysql://octavia:refstack-db-pass@127.0.0.1:3306/octavia"
$PY bench/seed_lists.py --db "$keel_db" --project "$project" --n "$n"
mysql -h127.0.0.1 -ukeel -pkeel-db-pass keel_test_bench -e "
CREATE INDEX IF NOT EXISTS keel_ix_load_balancer_project_created ON load_balancer (project_id, created_at, id);
CREATE INDEX IF NOT EXISTS keel_ix_load_balancer_created ON load_balancer (created_at, id);
CREATE INDEX IF NOT EXISTS keel_ix_load_balancer_name ON load_balancer (name);
CREATE INDEX IF NOT EXISTS keel_ix_listener_project_created ON listener (project_id, created_at, id);
CREATE INDEX IF NOT EXISTS keel_ix_listener_created ON listener (created_at, id);
CREATE INDEX IF NOT EXISTS keel_ix_pool_project_created ON pool (project_id, created_at, id);
CREATE INDEX IF NOT EXISTS keel_ix_pool_created ON pool (created_at, id);"
$PY bench/seed_lists.py --db "$ref_db" --project "$project" --clean
$PY bench/seed_lists.py --db "$ref_db" --project "$project" --n "$n"
trap '$PY bench/seed_lists.py --db "$ref_db" --project "$project" --clean' EXIT
args=(--username scale --password scale-pass --project scale --n "$n" --admin-password "$OS_PASSWORD")
cd bench
echo "== keel (:9878)"
$PY list_scale.py --endpoint http://127.0.0.1:9878 "${args[@]}" --rss-pid "$(cat $state/bench/keel.pid)" --json "$out/keel.json" | tee "$out/keel.txt"
echo "== reference (:9877)"
$PY list_scale.py --endpoint http://127.0.0.1:9877 "${args[@]}" --rss-pid "$(cat $state/run/octavia-api.pid)" --json "$out/reference.json" | tee "$out/reference.txt"
