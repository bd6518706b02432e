#!/usr/bin/env bash
# "VMs" on the stack's data plane (dataplane-up.sh must be running), for tests and people:
#   dataplane.sh vm NAME NETWORK [--subnet S] [--ip IP] [--timeout SEC]
#       a Neutron port on NETWORK (binding:host_id = the chassis, security group keel-dp-open),
#       its interface (an OVS internal port = a tap under the netdev datapath, iface-id = the
#       port id) moved into netns keel<slot>-NAME with the port's MAC, IPs (v4 and v6) and
#       default routes; waits until Neutron shows the port ACTIVE (default 60 s); prints
#       "NAME port=<id> mac=<mac> ips=<ip,...>". On any failure: the reason, and everything
#       made so far is removed.
#   dataplane.sh ext NAME IP/PLEN [GATEWAY]  a client outside the cloud: netns on br-ex (the
#                                            bridge of physnet1), no Neutron port; for floating IPs
#   dataplane.sh ext-net                     the external network keel-dp-ext (physnet1,
#                                            172.24.4.0/24) + its client VM "ext" (172.24.4.2),
#                                            made if absent; prints the network id
#   dataplane.sh serve NAME tcp|udp|echo PORT
#                                            a server answering each connection/datagram with
#                                            "NAME\n" (echo: TCP kept open, "NAME\n" then each
#                                            line answered "NAME <line>"); returns once it
#                                            listens (10 s bound)
#   dataplane.sh stop NAME tcp|udp PORT      stops that server
#   dataplane.sh probe NAME tcp|udp HOST PORT [COUNT [INTERVAL_MS [TIMEOUT_MS]]]
#                                            COUNT connections from NAME, one line each:
#                                            "ok <answer>" / "fail <reason>", then "# ok=N fail=M"
#   dataplane.sh hold NAME HOST PORT [COUNT [INTERVAL_MS [TIMEOUT_MS]]]
#                                            ONE TCP connection from NAME kept open, a line sent
#                                            each INTERVAL_MS: "connected NAME", then per line "ok
#                                            <answer>" / "fail <reason>", then "# ok=N fail=M"
#   dataplane.sh exec NAME CMD...            CMD inside the VM's netns
#   dataplane.sh rm NAME                     servers, netns, OVS port, Neutron port
#   dataplane.sh ls                          the VMs of this slot
#   dataplane.sh vswitchd-pid                the running ovs-vswitchd's PID (a test that sees
#                                            it change knows the daemon crashed, was restarted)
#   dataplane.sh down-local                  (down.sh) servers + netns of every VM, no Neutron
# NAME: 1-9 of [a-z0-9-], starting with a letter or digit (netns keel<slot>-NAME).
# Neutron calls use the OS_* of the caller (admin by default: binding:host_id needs it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export OVS_RUNDIR="$DP_RUN" OVN_RUNDIR="$DP_RUN"
VMS="$DP/vms"
PY="$VENV/bin/python"
if [[ -z ${OS_AUTH_URL:-} ]]; then source "$STACK_DIR/env.sh" admin 2>/dev/null; fi

usage() { sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "dataplane.sh: $*" >&2; exit 1; }
check_name() {
  [[ ${1:-} =~ ^[a-z0-9][a-z0-9-]{0,8}$ ]] || fail "bad VM name '${1:-}': 1-9 characters of [a-z0-9-]"
}
need_vm() { check_name "$1"; [[ -f $VMS/$1/port.json || -f $VMS/$1/ext ]] || fail "no VM '$1' (dataplane.sh ls lists them)"; }
ns_of() { echo "$DP_VM_NS_PREFIX$1"; }
need_dp() {
  pid_alive ovs-vswitchd || fail "ovs-vswitchd is not running (start the data plane: ci/stack/dataplane-up.sh)"
  pid_alive ovn-controller || fail "ovn-controller is not running (start the data plane: ci/stack/dataplane-up.sh)"
}
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# stop_servers NAME [PROTO-PORT]: SIGTERM the recorded server(s), by PID.
stop_servers() {
  local f pid
  for f in "$VMS/$1"/serve-${2:-*}.pid; do
    [[ -f $f ]] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$f"
  done
}

# rm_local NAME: servers, netns, OVS port (no Neutron call).
rm_local() {
  local name=$1 ns; ns=$(ns_of "$1")
  stop_servers "$name"
  ip netns list 2>/dev/null | grep -q "^$ns\b" && ip netns del "$ns"
  if [[ -f $VMS/$name/tap ]] && [[ -S $DP_RUN/db.sock ]]; then
    dp_vsctl --if-exists del-port "$(cat "$VMS/$name/tap")" 2>/dev/null || true
  fi
}

cmd_vm() {
  local name=${1:-} network=${2:-} subnet="" ip="" timeout=60
  [[ -n $name && -n $network ]] || usage
  check_name "$name"; shift 2
  while (($#)); do
    case $1 in
      --subnet) subnet=${2:?--subnet needs a value}; shift 2 ;;
      --ip) ip=${2:?--ip needs a value}; shift 2 ;;
      --timeout) timeout=${2:?--timeout needs a value}; shift 2 ;;
      *) fail "unknown option '$1'" ;;
    esac
  done
  need_dp
  local ns dir; ns=$(ns_of "$name"); dir="$VMS/$name"
  [[ -e $dir ]] && fail "VM '$name' exists already (dataplane.sh rm $name)"
  dp_drop_stale_ns "$ns"
  ip netns list | grep -q "^$ns\b" && fail "netns $ns exists already (not made by dataplane.sh?)"
  mkdir -p "$dir"
  # from here on, any failure removes what was made
  trap 'rc=$?; if ((rc)); then rm_local "$name"; [[ -s $dir/port.json ]] && "$PY" "$STACK_DIR/dataplane_neutron.py" delete-port "$(jget "$dir/port.json" "d[\"id\"]")" 2>/dev/null; rm -rf "$dir"; fi' EXIT
  local rc=0
  timeout 120 "$PY" "$STACK_DIR/dataplane_neutron.py" create-port "$name" "$network" "$DP_CHASSIS" "$subnet" "$ip" >"$dir/port.json.new" || rc=$?
  ((rc == 124)) && fail "VM '$name': Neutron did not make the port within 120 s (overloaded? see $LOGS/neutron-api.log)"
  ((rc == 0)) || fail "VM '$name': no Neutron port made (see the reason above)"
  mv "$dir/port.json.new" "$dir/port.json"
  local id mac tap
  id=$(jget "$dir/port.json" 'd["id"]'); mac=$(jget "$dir/port.json" 'd["mac"]')
  tap="kv$STACK_SLOT-${id:0:8}"; echo "$tap" >"$dir/tap"
  dp_vsctl -- --may-exist add-port br-int "$tap" -- set Interface "$tap" type=internal \
    external_ids:iface-id="$id" external_ids:attached-mac="$mac" external_ids:iface-status=active \
    external_ids:keel-vm="$name" >/dev/null
  local i
  for i in $(seq 100); do ip -n "$DP_NS" link show "$tap" >/dev/null 2>&1 && break; sleep 0.1; done
  ip -n "$DP_NS" link show "$tap" >/dev/null 2>&1 || fail "VM '$name': ovs-vswitchd made no device $tap in 10 s (see $LOGS/ovs-vswitchd.log)"
  ip netns add "$ns"
  ip -n "$DP_NS" link set "$tap" netns "$ns"
  ip -n "$ns" link set lo up
  ip -n "$ns" link set "$tap" address "$mac"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_ra=0 "net.ipv6.conf.$tap.accept_ra=0" 2>/dev/null || true
  ip -n "$ns" link set "$tap" up
  local ipcfg
  while read -r ipcfg; do
    read -r addr plen gw ver <<<"$ipcfg"
    if [[ $ver == 6 ]]; then ip -n "$ns" -6 addr add "$addr/$plen" dev "$tap" nodad
    else ip -n "$ns" addr add "$addr/$plen" dev "$tap"; fi
    [[ -n $gw && $gw != - ]] && ip -n "$ns" -"$ver" route replace default via "$gw" dev "$tap"
  done < <(jget "$dir/port.json" '"\n".join("%s %s %s %s" % (x["ip"], x["cidr"].split("/")[1], x["gateway"] or "-", x["version"]) for x in d["fixed_ips"])')
  "$PY" "$STACK_DIR/dataplane_neutron.py" wait-active "$id" "$timeout" \
    || fail "VM '$name': $(ovn-sbctl --db="$DP_SB" --timeout=5 --bare --columns=chassis,up find Port_Binding logical_port="$id" 2>/dev/null | tr '\n' ' ' | sed 's/^/SB Port_Binding chassis,up: /')"
  trap - EXIT
  echo "$name port=$id mac=$mac ips=$(jget "$dir/port.json" '",".join(x["ip"] for x in d["fixed_ips"])')"
}

# ext NAME IP/PLEN [GATEWAY]: a client "outside the cloud": netns NAME on br-ex (the bridge of
# the physnet1 mapping, i.e. on a flat provider network of physnet1), no Neutron port.
cmd_ext() {
  local name=${1:-} cidr=${2:-} gw=${3:-}
  [[ -n $name && $cidr == */* ]] || usage
  check_name "$name"; need_dp
  local ns dir tap; ns=$(ns_of "$name"); dir="$VMS/$name"; tap="kx$STACK_SLOT-$name"
  [[ -e $dir ]] && fail "VM '$name' exists already (dataplane.sh rm $name)"
  dp_drop_stale_ns "$ns"
  ip netns list | grep -q "^$ns\b" && fail "netns $ns exists already (not made by dataplane.sh?)"
  mkdir -p "$dir"; echo "$tap" >"$dir/tap"; echo "$cidr" >"$dir/ext"
  trap 'rc=$?; if ((rc)); then rm_local "$name"; rm -rf "$dir"; fi' EXIT
  dp_vsctl -- --may-exist add-port br-ex "$tap" -- set Interface "$tap" type=internal >/dev/null
  local i
  for i in $(seq 100); do ip -n "$DP_NS" link show "$tap" >/dev/null 2>&1 && break; sleep 0.1; done
  ip -n "$DP_NS" link show "$tap" >/dev/null 2>&1 || fail "ext '$name': ovs-vswitchd made no device $tap in 10 s"
  ip netns add "$ns"
  ip -n "$DP_NS" link set "$tap" netns "$ns"
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$cidr" dev "$tap"
  ip -n "$ns" link set "$tap" up
  [[ -n $gw ]] && ip -n "$ns" route replace default via "$gw" dev "$tap"
  trap - EXIT
  echo "$name ext ips=${cidr%/*}"
}

# ext-net: the external network keel-dp-ext (flat on physnet1, 172.24.4.0/24, gateway
# 172.24.4.1, floating IPs from .10-.200) and its client "ext" (172.24.4.2), both made if
# absent and left in place (stack infrastructure, shared by tests); prints the network id.
cmd_ext_net() {
  need_dp
  local id
  id=$(timeout 60 "$PY" "$STACK_DIR/dataplane_neutron.py" ext-net keel-dp-ext "$DP_PHYSNET"        172.24.4.0/24 172.24.4.1 172.24.4.10 172.24.4.200) || fail "external network keel-dp-ext not made (see above)"
  # a client whose netns is gone, or whose tap no running ovs-vswitchd holds (the stack's
  # state kept across a restart of its processes), answers nothing: make it again
  if [[ -f $VMS/ext/ext ]]; then
    dp_drop_stale_ns "$(ns_of ext)"
    ip netns list | grep -q "^$(ns_of ext)\b" || { rm_local ext; rm -rf "$VMS/ext"; }
  fi
  [[ -f $VMS/ext/ext ]] || cmd_ext ext 172.24.4.2/24 >/dev/null
  echo "$id"
}

cmd_serve() {
  local name=${1:-} proto=${2:-} port=${3:-}
  [[ -n $port ]] || usage
  need_vm "$name"
  [[ $proto == tcp || $proto == udp || $proto == echo ]] ||
    fail "protocol '$proto': tcp, udp or echo"
  [[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || fail "bad port '$port'"
  local pidf="$VMS/$name/serve-$proto-$port.pid" out="$VMS/$name/serve-$proto-$port.out"
  if [[ -f $pidf ]] && kill -0 "$(cat "$pidf")" 2>/dev/null; then echo "$name: $proto/$port already served"; return; fi
  : >"$out"
  setsid ip netns exec "$(ns_of "$name")" python3 -u "$STACK_DIR/dataplane_vm.py" serve "$name" "$proto" "$port" \
    >"$out" 2>&1 </dev/null &
  echo $! >"$pidf"
  local i
  for i in $(seq 100); do
    grep -q '^listening' "$out" && { echo "$name: serving $proto/$port (pid $(cat "$pidf"))"; return; }
    kill -0 "$(cat "$pidf")" 2>/dev/null || break
    sleep 0.1
  done
  stop_servers "$name" "$proto-$port"
  fail "$name: the $proto server on port $port did not listen within 10 s: $(tr '\n' ' ' <"$out")"
}

cmd_stop() {
  local name=${1:-} proto=${2:-} port=${3:-}
  [[ -n $port ]] || usage
  need_vm "$name"
  [[ -f $VMS/$name/serve-$proto-$port.pid ]] || fail "$name serves no $proto/$port"
  stop_servers "$name" "$proto-$port"
  echo "$name: stopped $proto/$port"
}

cmd_probe() {
  local name=${1:-} proto=${2:-} host=${3:-} port=${4:-} count=${5:-1} interval=${6:-100} tmo=${7:-2000}
  [[ -n $port ]] || usage
  need_vm "$name"
  [[ $proto == tcp || $proto == udp ]] || fail "protocol '$proto': tcp or udp"
  exec ip netns exec "$(ns_of "$name")" python3 -u "$STACK_DIR/dataplane_vm.py" probe "$proto" "$host" "$port" "$count" "$interval" "$tmo"
}

cmd_hold() {
  local name=${1:-} host=${2:-} port=${3:-} count=${4:-10} interval=${5:-200} tmo=${6:-1000}
  [[ -n $port ]] || usage
  need_vm "$name"
  exec ip netns exec "$(ns_of "$name")" python3 -u "$STACK_DIR/dataplane_vm.py" \
    hold "$host" "$port" "$count" "$interval" "$tmo"
}

cmd_exec() {
  local name=${1:-}; [[ -n $name ]] || usage; shift
  need_vm "$name"
  (($#)) || fail "exec $name: no command"
  exec ip netns exec "$(ns_of "$name")" "$@"
}

cmd_rm() {
  local name=${1:-}; [[ -n $name ]] || usage
  check_name "$name"
  [[ -e $VMS/$name ]] || fail "no VM '$name'"
  rm_local "$name"
  if [[ -s $VMS/$name/port.json ]]; then
    timeout 60 "$PY" "$STACK_DIR/dataplane_neutron.py" delete-port "$(jget "$VMS/$name/port.json" 'd["id"]')"
  fi
  rm -rf "${VMS:?}/$name"
  echo "$name removed"
}

cmd_ls() {
  local d
  for d in "$VMS"/*/; do
    [[ -f $d/ext ]] && { echo "$(basename "$d") ext ips=$(cut -d/ -f1 "$d/ext")"; continue; }
    [[ -f $d/port.json ]] || continue
    echo "$(basename "$d") port=$(jget "$d/port.json" 'd["id"]') ips=$(jget "$d/port.json" '",".join(x["ip"] for x in d["fixed_ips"])')"
  done
}

cmd_down_local() {
  local d
  for d in "$VMS"/*/; do
    [[ -d $d ]] || continue
    rm_local "$(basename "$d")"
    # an ext client has nothing outside this host: forget it (ext-net makes it again)
    [[ -f $d/ext ]] && rm -rf "$d"
  done
  return 0
}

sub=${1:-}; shift || true
case $sub in
  vm) cmd_vm "$@" ;;
  ext) cmd_ext "$@" ;;
  ext-net) cmd_ext_net ;;
  serve) cmd_serve "$@" ;;
  stop) cmd_stop "$@" ;;
  probe) cmd_probe "$@" ;;
  hold) cmd_hold "$@" ;;
  exec) cmd_exec "$@" ;;
  rm) cmd_rm "$@" ;;
  ls) cmd_ls ;;
  vswitchd-pid) pid_alive ovs-vswitchd && cat "$RUN/ovs-vswitchd.pid" || fail "ovs-vswitchd is not running" ;;
  down-local) cmd_down_local ;;
  *) usage ;;
esac
