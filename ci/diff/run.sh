#!/usr/bin/env bash
# Differential run: a Keel of this tree beside the reference Octavia API, the same request
# sequences to both (ci/diff/differential.py), every difference printed.
#   ci/diff/run.sh [differential.py args, e.g. --only flavor]
# Keel: $CARGO_TARGET_DIR/${KEEL_PROFILE:-debug}/keel (built if missing) on 127.0.0.1:$KEEL_DIFF_PORT
# (9886), a fresh MariaDB database $KEEL_DIFF_DB (keel_test_diff), ci/keel-conf.sh's config with the agent off
# (`[keel] run_agent = false`: no NB agent lock taken). The reference: $REF_URL
# (http://127.0.0.1:9877, its database `octavia`); start it with STACK_REFERENCE=1 ci/stack/up.sh.
# State: $DIFF_STATE (/tmp/keel-diff): keel.conf, keel.log.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
port="${KEEL_DIFF_PORT:-9886}"
state="${DIFF_STATE:-/tmp/keel-diff}"
db="${KEEL_DIFF_DB:-keel_test_diff}"
keel="$CARGO_TARGET_DIR/${KEEL_PROFILE:-debug}/keel"
py=/var/tmp/keel-stack/venv/bin/python
mkdir -p "$state"
[[ -x $keel ]] || (cd "$root" && cargo build --locked -p keel --bin keel)
mysql -h127.0.0.1 -ukeel -pkeel-db-pass -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
KEEL_RUN_AGENT=false "$root/ci/keel-conf.sh" "$port" \
  "mysql://keel:keel-db-pass@127.0.0.1:3306/$db" > "$state/keel.conf"
"$keel" --config-file "$state/keel.conf" db upgrade
"$keel" --config-file "$state/keel.conf" serve > "$state/keel.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 200); do
  curl -fsS "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
  kill -0 $pid 2>/dev/null || { echo "keel died; see $state/keel.log" >&2; exit 1; }
  sleep 0.1
done
"$py" "$root/ci/diff/differential.py" --keel "http://127.0.0.1:$port" --keel-db "$db" \
  --ref "${REF_URL:-http://127.0.0.1:9877}" "$@"
