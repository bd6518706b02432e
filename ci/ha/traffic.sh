#!/usr/bin/env bash
# Traffic through a load balancer while the HA control plane fails (see traffic.py): with
# ci/ha/up.sh's topology up (its data plane included), a client VM connects to the VIP every
# 100 ms while the NB raft leader, the SB raft leader and the agent-holding Keel replica are
# SIGKILLed in turn; then the health monitor by real probes. Args go to traffic.py (--only,
# --seconds, --at). Results: $HA_STATE/traffic-<date>/. Exit 0 = no connection failed, the
# control plane worked after each fault, the health monitor saw the member go and come back.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$HA_DIR/status.sh" >/dev/null || die "the HA stack is not (fully) up: run ci/ha/up.sh"
out="$HA_STATE/traffic-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
log "traffic run: keel $KEEL_BIN, results in $out"
export HA_NB HA_SB HA_STATE KEEL_DB_PASS DEMO_PASS ADMIN_PASS KEYSTONE_PORT HA_API_PORT HA_NEUTRON_PORT HA_DB_PORT
export PATH="$VENV/bin:$PATH"
PYTHONWARNINGS=ignore "$VENV/bin/python" "$HA_DIR/traffic.py" --out "$out" "$@" 2>&1 | tee "$out/traffic.log"
exit "${PIPESTATUS[0]}"
