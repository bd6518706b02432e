#!/usr/bin/env bash
# The HA fault run: with ci/ha/up.sh's topology up (the long run by hand; CI runs it with
# short windows through ci/ha/ci.sh: --warm 8 --after 12 --settle 90), four
# clients loop through haproxy while one fault at a time is injected (see
# fault.py); after each, the checks, then up.sh restarts what was killed.
# Args go to fault.py (--only 'keel SIGKILL,NB leader kill', --warm, --after,
# --settle, --clients). Results: $HA_STATE/fault-<date>/ (results.json, log).
# --sigkill-attempts N: runs of the SIGKILL window until its kill provably lands on accepted
# work (default 3). Exit 0 = every check held (fault.py's docstring: every change ACTIVE,
# only 2xx/409 answers or the window's own Keel 503 fault, …); 1 = a check failed (listed
# under FAILED); 2 = a judge could not run (what is missing is named).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$HA_DIR/status.sh" >/dev/null || die "the HA stack is not (fully) up: run ci/ha/up.sh"
out="$HA_STATE/fault-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
log "fault run: keel $KEEL_BIN ($(git -C "$HA_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')), results in $out"
export HA_STATE KEEL_DB_PASS DEMO_PASS ADMIN_PASS KEYSTONE_PORT HA_API_PORT HA_NEUTRON_PORT HA_DB_PORT
export PATH="$VENV/bin:$PATH"
PYTHONWARNINGS=ignore "$VENV/bin/python" "$HA_DIR/fault.py" --out "$out" --keel-bin "$KEEL_BIN" "$@" 2>&1 | tee "$out/fault.log"
exit "${PIPESTATUS[0]}"
