#!/usr/bin/env bash
# The HA topology's data plane: ci/stack's own (dataplane-up.sh, dataplane.sh, down.sh) run as
# chassis keel-dp-9 of the SB raft cluster, with its VM ports made through the HA Neutron, its
# files under $HA_STATE/dataplane-stack, its netns keel9-*:
#   ci/ha/dataplane.sh up        start it (idempotent; ci/ha/up.sh runs it unless HA_DATAPLANE=0)
#   ci/ha/dataplane.sh down      stop its VMs' servers and netns, ovn-controller, ovs-vswitchd
#                                (ci/ha/down.sh runs it)
#   ci/ha/dataplane.sh ARGS...   ci/stack/dataplane.sh ARGS: vm, serve, stop, probe, exec, rm, ls
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# OS_* of ci/stack's admin (the HA topology uses ci/stack's Keystone), read before the slot moves
[[ -n ${OS_AUTH_URL:-} ]] || source "$STACK_DIR/env.sh" admin 2>/dev/null
export STACK_SLOT=9 STACK_STATE="$HA_STATE/dataplane-stack" DP_SB="$HA_SB" \
  DP_NEUTRON_ENDPOINT="http://$HOST:$HA_NEUTRON_PORT/" STACK_VENV="$VENV"
case ${1:-} in
  up) exec "$STACK_DIR/dataplane-up.sh" ;;
  down) exec "$STACK_DIR/down.sh" ;;
  *) exec "$STACK_DIR/dataplane.sh" "$@" ;;
esac
