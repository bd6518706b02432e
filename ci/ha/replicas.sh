# shellcheck shell=bash
# The API replicas of the HA topology, sourced by up.sh and migrate.sh (after common.sh).
# Slot N (1-3) listens on ${KEEL_PORTS[N-1]} behind haproxy's server `keelN`, and holds
# either a `keel serve` (pid file keel-N.pid, log keel-N.log) or a Python `octavia-api`
# under gunicorn (py-N.pid, py-N-*.log) — never both. The Python processes (the API
# replicas and the driver agent, whose provider drivers use the fixed socket directory
# /var/run/octavia) run in one private mount namespace (held by py-ns.pid) in which
# $HA_RUN/octavia is bind-mounted on /var/run/octavia, so no other reference on this
# machine shares their sockets.

KS_URL="http://$HOST:$KEYSTONE_PORT"
# [keel] metrics_listen of replica N: 9886 + N
metrics_port() { echo $((HA_API_PORT + $1)); }

keel_conf() { # n
  local i=$(($1 - 1))
  local auth="auth_url = $KS_URL/v3
username = octavia
password = $OCTAVIA_PASS
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne"
  cat <<CFG
[api_settings]
bind_host = $HOST
bind_port = ${KEEL_PORTS[i]}
auth_strategy = keystone
enabled_provider_drivers = ovn:OVN provider driver
default_provider_driver = ovn
[database]
connection = $HA_KEEL_DB
[keystone_authtoken]
$auth
[service_auth]
$auth
[neutron]
endpoint = http://$HOST:$HA_NEUTRON_PORT
[ovn]
ovn_nb_connection = $HA_NB
ovn_sb_connection = $HA_SB
ovsdb_probe_interval = 5000
ovsdb_retry_max_interval = 2
[keel]
metrics_listen = $HOST:$(metrics_port "$1")
${HA_RECOVERY_LEASE:+recovery_lease = $HA_RECOVERY_LEASE}
${HA_RECOVERY_PERIOD:+recovery_period = $HA_RECOVERY_PERIOD}
CFG
}

# keel_start N: starts `keel serve` in slot N unless it runs; does not wait.
keel_start() {
  local n=$1
  keel_conf "$n" >"$HA_ETC/keel-$n.conf"
  ha_alive "keel-$n" && return 0
  ha_alive "py-$n" && die "slot $n holds a Python octavia-api (py-$n.pid)"
  busy_refuse "keel-$n" "${KEEL_PORTS[n-1]}"
  KEEL_LOG=${KEEL_LOG:-info} NO_COLOR=1 setsid "$KEEL_BIN" --config-file "$HA_ETC/keel-$n.conf" serve \
    >>"$HA_LOGS/keel-$n.log" 2>&1 </dev/null &
  echo $! >"$HA_RUN/keel-$n.pid"
  log "keel-$n started (pid $!) on $HOST:${KEEL_PORTS[n-1]} ($KEEL_BIN)"
}

# ------------------------------------------------------------ the Python reference
# octavia.conf as ci/stack writes it for the reference, on the HA pieces: Galera through
# haproxy (database $HA_DB_NAME), the NB/SB clusters, the HA Neutron.
py_conf() {
  mkdir -p "$HA_ETC/octavia" "$HA_ETC/wsgi" "$HA_STATE/octavia/lock" "$HA_RUN/octavia"
  cp "$STACK_DIR/wsgi/octavia_app.py" "$HA_ETC/wsgi/"
  local ks="www_authenticate_uri = $KS_URL
auth_url = $KS_URL
auth_type = password
username = octavia
password = $OCTAVIA_PASS
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne"
  cat >"$HA_ETC/octavia/octavia.conf" <<CFG
[DEFAULT]
transport_url = fake://
log_file = $HA_LOGS/py-octavia.log
use_stderr = false
[api_settings]
bind_host = $HOST
auth_strategy = keystone
enabled_provider_drivers = ovn:OVN provider driver
default_provider_driver = ovn
[database]
connection = mysql+pymysql://keel:$KEEL_DB_PASS@$HOST:$HA_DB_PORT/$HA_DB_NAME?charset=utf8mb4
[keystone_authtoken]
$ks
service_token_roles_required = true
[service_auth]
$ks
[neutron]
region_name = RegionOne
endpoint_override = http://$HOST:$HA_NEUTRON_PORT
[ovn]
ovn_nb_connection = $HA_NB
ovn_sb_connection = $HA_SB
[driver_agent]
status_socket_path = /var/run/octavia/status.sock
stats_socket_path = /var/run/octavia/stats.sock
get_socket_path = /var/run/octavia/get.sock
enabled_provider_agents = ovn
provider_agent_shutdown_timeout = 10
[oslo_concurrency]
lock_path = $HA_STATE/octavia/lock
CFG
}

# py_ns: the private mount namespace of the Python processes (a `sleep` holds it).
py_ns() {
  ha_alive py-ns && return 0
  mkdir -p /var/run/octavia "$HA_RUN/octavia"
  setsid unshare --mount --propagation private -- sh -c \
    "mount --bind '$HA_RUN/octavia' /var/run/octavia && exec sleep infinity" </dev/null >/dev/null 2>&1 &
  echo $! >"$HA_RUN/py-ns.pid"
  local _
  for _ in $(seq 50); do
    nsenter --target "$(ha_pid py-ns)" --mount -- findmnt -n /var/run/octavia >/dev/null 2>&1 && break
    sleep 0.1
  done
  nsenter --target "$(ha_pid py-ns)" --mount -- findmnt -n /var/run/octavia >/dev/null \
    || die "no private /var/run/octavia in the namespace of py-ns"
  log "Python mount namespace held by pid $(ha_pid py-ns): /var/run/octavia = $HA_RUN/octavia"
}
py_in_ns() { nsenter --target "$(ha_pid py-ns)" --mount -- "$@"; }

# py_agent_start: octavia-driver-agent (its status/stats/get listeners and the OVN provider
# agent) in the namespace; waits for its sockets.
py_agent_start() {
  py_conf; py_ns
  if ! ha_alive py-agent; then
    rm -f "$HA_RUN/octavia/"*.sock
    PYTHONWARNINGS=ignore py_in_ns setsid "$VENV/bin/octavia-driver-agent" \
      --config-file "$HA_ETC/octavia/octavia.conf" --log-file "$HA_LOGS/py-agent.log" \
      >>"$HA_LOGS/py-agent-stdout.log" 2>&1 </dev/null &
    echo $! >"$HA_RUN/py-agent.pid"
    log "octavia-driver-agent started (pid $!) in the Python namespace"
  fi
  local _
  for _ in $(seq 120); do
    [[ -S $HA_RUN/octavia/status.sock && -S $HA_RUN/octavia/stats.sock && -S $HA_RUN/octavia/get.sock ]] && return 0
    ha_alive py-agent || break
    sleep 0.5
  done
  die "octavia-driver-agent sockets missing in $HA_RUN/octavia; see $HA_LOGS/py-agent*.log"
}

# py_start N: a Python octavia-api (gunicorn, one worker as the reference) in slot N.
py_start() {
  local n=$1
  py_conf; py_ns
  ha_alive "py-$n" && return 0
  ha_alive "keel-$n" && die "slot $n holds a keel serve (keel-$n.pid)"
  busy_refuse "py-$n" "${KEEL_PORTS[n-1]}"
  # setsid may fork (the launcher leads its process group): the master's PID comes from
  # gunicorn's own pidfile, so that slot.sh stop signals the process that holds the port
  local gpid="$HA_RUN/py-$n.gunicorn.pid" _
  rm -f "$gpid"
  STACK_ETC="$HA_ETC" PYTHONWARNINGS=ignore py_in_ns setsid "$VENV/bin/gunicorn" \
    --bind "$HOST:${KEEL_PORTS[n-1]}" --workers 1 --timeout 300 --graceful-timeout 30 \
    --pid "$gpid" --chdir "$HA_ETC/wsgi" --access-logfile "$HA_LOGS/py-$n-access.log" \
    octavia_app:application >>"$HA_LOGS/py-$n-gunicorn.log" 2>&1 </dev/null &
  echo $! >"$HA_RUN/py-$n.pid"
  for _ in $(seq 150); do [[ -s $gpid ]] && break; sleep 0.2; done
  [[ -s $gpid ]] && cp "$gpid" "$HA_RUN/py-$n.pid"
  log "py-$n (octavia-api under gunicorn) started (pid $(ha_pid "py-$n")) on $HOST:${KEEL_PORTS[n-1]}"
}
