#!/usr/bin/env bash
# The migration run, by hand (see README.md): on ci/ha/up.sh's topology, the Keel replicas
# are stopped, a fresh `octavia` database on Galera is made by the reference's
# octavia-db-manage, three Python octavia-api replicas (gunicorn) and the Python driver agent
# start in their private mount namespace, and migrate.py replaces them one at a time by Keel
# replicas under load (then the Python agent goes, then keel-3 goes back to Python).
# Args go to migrate.py (--warm, --after, --settle, --clients, --only). Results:
# $HA_STATE/migrate-<date>/ (results.json, log). Exit 0 = every step's checks held.
# Afterwards slots 1-2 hold Keel, slot 3 Python: `down.sh` stops all; `up.sh` (without
# HA_DB_NAME) then brings the fault-run topology back on the `keel` database.
set -euo pipefail
export HA_DB_NAME=octavia
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$HA_DIR/replicas.sh"
for p in nb1 nb2 nb3 sb1 sb2 sb3 ovn-northd galera1 galera2 galera3 haproxy neutron-api; do
  ha_alive "$p" || die "$p is not running: run ci/ha/up.sh first"
done
T0=$(date +%s)
out="$HA_STATE/migrate-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
for n in 1 2 3; do "$HA_DIR/slot.sh" stop "keel-$n" >/dev/null; "$HA_DIR/slot.sh" stop "py-$n" >/dev/null; done
"$HA_DIR/slot.sh" stop py-agent >/dev/null
galera_sql 1 -e "DROP DATABASE IF EXISTS octavia; CREATE DATABASE octavia CHARACTER SET utf8mb4" 2>/dev/null \
  || galera_sql 2 -e "DROP DATABASE IF EXISTS octavia; CREATE DATABASE octavia CHARACTER SET utf8mb4"
py_conf
PYTHONWARNINGS=ignore "$VENV/bin/octavia-db-manage" --config-file "$HA_ETC/octavia/octavia.conf" upgrade head \
  >"$out/octavia-db-manage.log" 2>&1 || die "octavia-db-manage failed, see $out/octavia-db-manage.log"
log "octavia database at the reference's head [$(( $(date +%s) - T0 ))s]"
for n in 1 2 3; do keel_conf "$n" >"$HA_ETC/keel-$n.conf"; done
"$HA_DIR/slot.sh" start py-agent
for n in 1 2 3; do "$HA_DIR/slot.sh" start py "$n"; done
for n in 1 2 3; do
  python3 - "$HA_RUN/haproxy.sock" "$n" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(f"set server keel/keel{sys.argv[2]} state ready\n".encode()); s.recv(4096)
PY
done
wait_http "http://$HOST:$HA_API_PORT/" 60 || die "haproxy does not reach the Python replicas"
log "3 Python octavia-api replicas and the driver agent up [$(( $(date +%s) - T0 ))s]; keel $KEEL_BIN; results in $out"
export HA_STATE KEEL_DB_PASS DEMO_PASS ADMIN_PASS KEYSTONE_PORT HA_API_PORT HA_NEUTRON_PORT HA_DB_PORT HA_DB_NAME KEEL_BIN
export PATH="$VENV/bin:$PATH"
set +e
PYTHONWARNINGS=ignore "$VENV/bin/python" "$HA_DIR/migrate.py" --out "$out" --keel-bin "$KEEL_BIN" "$@" 2>&1 \
  | tee "$out/migrate.log"
rc=${PIPESTATUS[0]}
set -e
log "migration run: rc $rc, $(( $(date +%s) - T0 )) s in all"
exit "$rc"
