#!/usr/bin/env bash
# Start the stack's data plane (idempotent; up.sh runs it unless STACK_DATAPLANE=0):
#   ovsdb-server (Open_vSwitch db, $DP/conf.db), ovs-vswitchd (datapath_type=netdev: these
#   machines have no openvswitch kernel module; run inside netns $DP_NS, under --monitor so a
#   crashed daemon, e.g. OVS 3.1.0's userspace-conntrack assertion, is restarted), and
#   ovn-controller (chassis $DP_CHASSIS of this stack's SB; Neutron lists it as an "OVN
#   Controller Gateway agent" and binds ports whose binding:host_id is $DP_CHASSIS).
# PIDs go to $RUN/{ovsdb-ovs,ovs-vswitchd,ovn-controller}.pid; down.sh stops them by PID.
# Every ctl call names its database/socket explicitly (nothing of the host's own OVS is used).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
mkdir -p "$DP_RUN" "$LOGS" "$DP/vms" "$RUN"
export OVS_RUNDIR="$DP_RUN" OVN_RUNDIR="$DP_RUN" OVS_DBDIR="$DP"
T0=$(date +%s%N)
ms() { echo "$(( ($(date +%s%N) - T0) / 1000000 ))ms"; }

ip netns list | grep -qx "$DP_NS\( .*\)\?" || ip netns add "$DP_NS"
ip -n "$DP_NS" link set lo up

if [[ ! -f $DP/conf.db ]]; then
  ovsdb-tool create "$DP/conf.db" /usr/share/openvswitch/vswitch.ovsschema
elif [[ $(ovsdb-tool needs-conversion "$DP/conf.db" /usr/share/openvswitch/vswitch.ovsschema) == yes ]]; then
  ovsdb-tool convert "$DP/conf.db" /usr/share/openvswitch/vswitch.ovsschema
fi
if pid_alive ovsdb-ovs; then log "ovsdb-ovs already running"; else
  rm -f "$DP_RUN/db.sock"
  ovsdb-server "$DP/conf.db" --detach --no-chdir --pidfile="$RUN/ovsdb-ovs.pid" \
    --log-file="$LOGS/ovsdb-ovs.log" --unixctl="$DP_RUN/ovsdb-server.ctl" \
    --remote="punix:$DP_RUN/db.sock" --remote=db:Open_vSwitch,Open_vSwitch,manager_options
  log "ovsdb-ovs started (pid $(cat "$RUN/ovsdb-ovs.pid"))"
fi
dp_vsctl --no-wait init
# Chassis identity and SB connection; bridge mapping for the external (provider) network;
# gateway-capable so Neutron schedules router gateway ports here.
dp_vsctl --no-wait set Open_vSwitch . \
  external_ids:system-id="$DP_CHASSIS" external_ids:hostname="$DP_CHASSIS" \
  external_ids:ovn-remote="$DP_SB" external_ids:ovn-encap-type=geneve \
  external_ids:ovn-encap-ip=127.0.0.1 external_ids:ovn-bridge=br-int \
  external_ids:ovn-bridge-datapath-type=netdev \
  external_ids:ovn-bridge-mappings="$DP_PHYSNET:br-ex" \
  external_ids:ovn-cms-options=enable-chassis-as-gw
dp_vsctl --no-wait -- --may-exist add-br br-int -- set Bridge br-int datapath_type=netdev fail_mode=secure \
  -- --may-exist add-br br-ex -- set Bridge br-ex datapath_type=netdev

if pid_alive ovs-vswitchd; then log "ovs-vswitchd already running"; else
  # VM netns of this slot left by an ovs-vswitchd that is gone hold dead taps: remove them
  # (dp_stale_ns: only this slot's names, only taps without carrier)
  for ns in $(ip netns list | awk '{print $1}' | grep "^$DP_VM_NS_PREFIX" || true); do
    dp_drop_stale_ns "$ns"
  done
  # --monitor: a parent process restarts the daemon if it dies of a signal (abort/segv);
  # the pidfile names the daemon itself.
  ip netns exec "$DP_NS" env OVS_RUNDIR="$DP_RUN" ovs-vswitchd "$DP_DB" --detach --monitor --no-chdir \
    --pidfile="$RUN/ovs-vswitchd.pid" --log-file="$LOGS/ovs-vswitchd.log" \
    --unixctl="$DP_RUN/ovs-vswitchd.ctl" -vconsole:off
  log "ovs-vswitchd started in netns $DP_NS (pid $(cat "$RUN/ovs-vswitchd.pid"), netdev datapath)"
fi
dp_vsctl --timeout=30 wait-until Interface br-int ofport!=-1 >/dev/null \
  || die "ovs-vswitchd did not create br-int; see $LOGS/ovs-vswitchd.log"
ip -n "$DP_NS" link set br-ex up

if pid_alive ovn-controller; then log "ovn-controller already running"; else
  ovn-controller "$DP_DB" --detach --no-chdir --pidfile="$RUN/ovn-controller.pid" \
    --log-file="$LOGS/ovn-controller.log" -vconsole:off
  log "ovn-controller started (pid $(cat "$RUN/ovn-controller.pid")), chassis $DP_CHASSIS -> $DP_SB"
fi
for _ in $(seq 100); do
  [[ -n $(ovn-sbctl --db="$DP_SB" --timeout=5 --bare --columns=name find Chassis name="$DP_CHASSIS" 2>/dev/null) ]] && break
  sleep 0.1
done
[[ -n $(ovn-sbctl --db="$DP_SB" --timeout=5 --bare --columns=name find Chassis name="$DP_CHASSIS") ]] \
  || die "chassis $DP_CHASSIS did not register in $DP_SB; see $LOGS/ovn-controller.log"
log "data plane up: chassis $DP_CHASSIS in SB, br-int/br-ex (netdev) in netns $DP_NS  [$(ms)]"
