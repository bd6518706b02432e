#!/usr/bin/env bash
# Lease takeover and drain checks (takeover.py), by hand or from ci/test.sh's HA stage:
# a replica frozen (SIGSTOP) holding accepted work is taken over by a live one, and
# resumed without undoing anything; a SIGTERM landing while accepted provider work provably
# cannot finish still ends ACTIVE. Needs ci/ha/up.sh's topology with 3 Keel replicas.
# Args: [case,case] of member,delete,sigterm (default all). Exit 0 = every check held.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$HA_DIR/status.sh" >/dev/null || die "the HA stack is not (fully) up: run ci/ha/up.sh"
for n in 1 2 3; do ha_alive "keel-$n" || die "takeover.sh needs 3 Keel replicas (slot $n)"; done
export HA_STATE KEEL_DB_PASS DEMO_PASS ADMIN_PASS KEYSTONE_PORT HA_API_PORT HA_NEUTRON_PORT HA_DB_PORT HA_DB_NAME
export HA_RECOVERY_LEASE="${HA_RECOVERY_LEASE:-}" HA_RECOVERY_PERIOD="${HA_RECOVERY_PERIOD:-}"
export PATH="$VENV/bin:$PATH"
T0=$(date +%s)
rc=0
PYTHONWARNINGS=ignore "$VENV/bin/python" "$HA_DIR/takeover.py" "$KEEL_BIN" "${1:-}" || rc=$?
log "takeover checks: rc $rc in $(( $(date +%s) - T0 )) s"
exit $rc
