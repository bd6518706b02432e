#!/usr/bin/env bash
# Start Keel's HA topology on this machine, 127.0.0.1 only (see README.md):
#   3 OVN NB + 3 OVN SB ovsdb-server raft members, ovn-northd on them,
#   3 MariaDB Galera nodes, haproxy (the load-balancer API in front of the Keel
#   replicas; one Galera writer with two backups), a Neutron API on the NB/SB
#   clusters and Galera, a data plane (ovs-vswitchd + ovn-controller as a chassis of the SB
#   cluster, dataplane.sh; HA_DATAPLANE=0 skips it), and $HA_REPLICAS `keel serve` replicas.
# Needs ci/stack/ up (its venv and Keystone). Every PID goes to
# $HA_RUN/<name>.pid; down.sh stops exactly those. Idempotent: whatever is
# alive is left alone, whatever is dead is started again (a killed Galera
# node rejoins, a killed raft member catches up, a killed replica restarts).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
T0=$(date +%s)
step() { log "$* [$(( $(date +%s) - T0 ))s]"; }
[[ -x $VENV/bin/neutron-db-manage ]] || die "no stack venv in $VENV: run ci/stack/install.sh"
curl -s -o /dev/null -m 5 "http://$HOST:$KEYSTONE_PORT/v3" || die "Keystone does not answer on $HOST:$KEYSTONE_PORT: run ci/stack/up.sh first"
for b in ovsdb-server ovsdb-tool ovn-northd haproxy rsync mariadbd; do
  command -v "$b" >/dev/null || [[ -x /usr/sbin/$b ]] || die "$b missing: apt-get install ovn-central haproxy rsync mariadb-server galera-4"
done
[[ -f /usr/lib/galera/libgalera_smm.so ]] || die "galera-4 missing: apt-get install galera-4"
[[ -x $KEEL_BIN ]] || die "no keel binary at $KEEL_BIN (cargo build -p keel, or set KEEL_BIN)"
mkdir -p "$HA_RUN/mysql" "$HA_LOGS/galera" "$HA_ETC/neutron" "$HA_ETC/wsgi" "$HA_OVN" "$HA_GALERA" "$HA_STATE/neutron/lock"
chown mysql:mysql "$HA_RUN/mysql" "$HA_LOGS/galera" "$HA_GALERA"

# ------------------------------------------------------------ OVN raft clusters
ovn_cluster() { # name(nb|sb) schema dbname ports-var raft-var
  local name=$1 schema=$2 dbname=$3 i n db
  local -n ports=$4 raft=$5
  for i in 0 1 2; do
    n=$((i + 1)); db="$HA_OVN/$name$n.db"
    if [[ ! -f $db ]]; then
      if (( i == 0 )); then
        ovsdb-tool create-cluster "$db" "$schema" "tcp:$HOST:${raft[0]}"
      else
        ovsdb-tool join-cluster "$db" "$dbname" "tcp:$HOST:${raft[i]}" "tcp:$HOST:${raft[0]}"
      fi
    fi
    if ha_alive "$name$n"; then continue; fi
    busy_refuse "$name$n" "${ports[i]}"
    rm -f "$HA_RUN/$name$n.ctl"
    ovsdb-server "$db" --detach --no-chdir --pidfile="$HA_RUN/$name$n.pid" \
      --log-file="$HA_LOGS/$name$n.log" --unixctl="$HA_RUN/$name$n.ctl" \
      --remote="ptcp:${ports[i]}:$HOST"
    log "$name$n started (pid $(ha_pid "$name$n")), client port ${ports[i]}, raft ${raft[i]}"
  done
  for n in 1 2 3; do
    for _ in $(seq 60); do
      ovs-appctl -t "$HA_RUN/$name$n.ctl" cluster/status "$dbname" 2>/dev/null | grep -q '^Status: cluster member' && break
      sleep 0.5
    done
    ovs-appctl -t "$HA_RUN/$name$n.ctl" cluster/status "$dbname" | grep -q '^Status: cluster member' \
      || die "$name$n is not a cluster member; see $HA_LOGS/$name$n.log"
  done
}
ovn_cluster nb /usr/share/ovn/ovn-nb.ovsschema OVN_Northbound NB_PORTS NB_RAFT
ovn_cluster sb /usr/share/ovn/ovn-sb.ovsschema OVN_Southbound SB_PORTS SB_RAFT
if ! ha_alive ovn-northd; then
  ovn-northd --detach --no-chdir --pidfile="$HA_RUN/ovn-northd.pid" \
    --log-file="$HA_LOGS/ovn-northd.log" --unixctl="$HA_RUN/ovn-northd.ctl" \
    --ovnnb-db="$HA_NB" --ovnsb-db="$HA_SB"
  log "ovn-northd started (pid $(ha_pid ovn-northd))"
fi
# members restarted from their files are cluster members at once but elect a leader only
# after the election timeout, and ovn-nbctl gives up at once while none is known: retry
nb_ok=0
for _ in $(seq 60); do ovn-nbctl --db="$HA_NB" --timeout=5 show >/dev/null 2>&1 && { nb_ok=1; break; }; sleep 0.5; done
((nb_ok)) || die "the NB cluster does not answer on $HA_NB"
step "OVN NB cluster $HA_NB, SB cluster $HA_SB"

# ------------------------------------------------------------ Galera
gcomm="gcomm://$(IFS=,; echo "${GALERA_GCOMM[*]/#/$HOST:}")"
galera_start() { # n [--wsrep-new-cluster]
  local n=$1 i=$(($1 - 1)) d="$HA_GALERA/g$1"
  busy_refuse "galera$n" "${GALERA_PORTS[i]}"
  mkdir -p "$d"; chown mysql:mysql "$d"
  start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "$HA_RUN/galera$n.pid" \
    --exec /usr/sbin/mariadbd -- --no-defaults --user=mysql --datadir="$d" \
    --socket="$HA_RUN/mysql/galera$n.sock" --port="${GALERA_PORTS[i]}" --bind-address="$HOST" \
    --log-error="$HA_LOGS/galera/g$n.log" --pid-file="$HA_RUN/mysql/g$n.pid" \
    --max-connections=300 --innodb-buffer-pool-size=64M --character-set-server=utf8mb4 \
    --binlog-format=ROW --default-storage-engine=InnoDB --innodb-autoinc-lock-mode=2 \
    --wsrep-on=ON --wsrep-provider=/usr/lib/galera/libgalera_smm.so \
    --wsrep-cluster-name=keel-ha --wsrep-cluster-address="$gcomm" \
    --wsrep-node-name="g$n" --wsrep-node-address="$HOST" \
    --wsrep-provider-options="gmcast.listen_addr=tcp://$HOST:${GALERA_GCOMM[i]};ist.recv_addr=$HOST:$((GALERA_GCOMM[i] + 1))" \
    --wsrep-sst-method=rsync --wsrep-sst-receive-address="$HOST:${GALERA_SST[i]}" "${@:2}"
  log "galera$n started (pid $(ha_pid "galera$n"))${2:+ $2}, port ${GALERA_PORTS[i]}"
}
galera_synced() { # n
  [[ $(galera_sql "$1" -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2) == Synced ]]
}
galera_wait() { # n
  for _ in $(seq 120); do galera_synced "$1" && return 0; ha_alive "galera$1" || break; sleep 0.5; done
  die "galera$1 not Synced; see $HA_LOGS/galera/g$1.log"
}
alive=0
for n in 1 2 3; do ha_alive "galera$n" && alive=$((alive + 1)); done
if (( alive == 0 )); then
  if [[ ! -d $HA_GALERA/g1/mysql ]]; then
    mkdir -p "$HA_GALERA/g1"; chown mysql:mysql "$HA_GALERA/g1"
    mariadb-install-db --no-defaults --user=mysql --datadir="$HA_GALERA/g1" \
      --auth-root-authentication-method=socket --skip-test-db >"$HA_LOGS/galera/install-db.log" 2>&1 \
      || die "mariadb-install-db failed, see $HA_LOGS/galera/install-db.log"
  fi
  # a whole-cluster restart: bootstrap from the node Galera marked safe, else node 1
  boot=1
  for n in 1 2 3; do
    grep -qs '^safe_to_bootstrap: 1' "$HA_GALERA/g$n/grastate.dat" && { boot=$n; break; }
  done
  [[ -f $HA_GALERA/g$boot/grastate.dat ]] && sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$HA_GALERA/g$boot/grastate.dat"
  galera_start "$boot" --wsrep-new-cluster
  galera_wait "$boot"
fi
for n in 1 2 3; do
  ha_alive "galera$n" || { galera_start "$n"; galera_wait "$n"; }
done
for n in 1 2 3; do galera_wait "$n"; done
any=1; for n in 1 2 3; do galera_synced "$n" && { any=$n; break; }; done
sql="CREATE DATABASE IF NOT EXISTS keel CHARACTER SET utf8mb4;
     CREATE DATABASE IF NOT EXISTS octavia CHARACTER SET utf8mb4;
     CREATE DATABASE IF NOT EXISTS neutron CHARACTER SET utf8mb4;"
for h in localhost 127.0.0.1; do
  sql+="CREATE USER IF NOT EXISTS 'keel'@'$h' IDENTIFIED BY '$KEEL_DB_PASS';
        GRANT ALL PRIVILEGES ON keel.* TO 'keel'@'$h';
        GRANT ALL PRIVILEGES ON octavia.* TO 'keel'@'$h';
        GRANT ALL PRIVILEGES ON \`keel\\_test%\`.* TO 'keel'@'$h';
        CREATE USER IF NOT EXISTS 'neutron'@'$h' IDENTIFIED BY '$DB_PASS';
        GRANT ALL PRIVILEGES ON neutron.* TO 'neutron'@'$h';"
done
# haproxy's mysql-check logs in as this user (no password, no privileges)
sql+="CREATE USER IF NOT EXISTS 'haproxy_check'@'127.0.0.1';"
galera_sql "$any" -e "$sql" || die "creating the Galera databases/users failed"
step "Galera: 3 nodes Synced, cluster size $(galera_sql "$any" -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)"

# ------------------------------------------------------------ haproxy
{
  cat <<CFG
global
    maxconn 4000
    # access log on stdout (up.sh sends it to haproxy-access.log): fault.py matches each
    # request it saw cut to the server haproxy sent it to
    log stdout format raw local0 info
    # runtime API: migrate.sh drains and enables servers through it
    stats socket $HA_RUN/haproxy.sock mode 600 level admin
defaults
    timeout connect 2s
    timeout client 300s
    timeout server 300s
    retries 2
listen stats
    bind $HOST:$HA_STATS_PORT
    mode http
    stats enable
    stats uri /
frontend keel_api
    bind $HOST:$HA_API_PORT
    mode http
    log global
    # one request per client connection: a request a replica's death cuts is then answered
    # 502 and logged with its server; on a kept-alive client connection (not its first
    # request) haproxy closes the connection silently and logs nothing, for the client to
    # retry (http_ana.c, abort_keep_alive) — fault.py could not tell where it was cut
    option httpclose
    # one line per request: time, the client's X-Fault-Id, backend/server, status,
    # termination state, retries, method and path
    capture request header X-Fault-Id len 64
    log-format "%tr id=%[capture.req.hdr(0)] srv=%b/%s st=%ST term=%tsc retries=%rc %HM %HP"
    default_backend keel
backend keel
    mode http
    balance roundrobin
    # a replica that refused the connection: the request was not sent, try another
    option redispatch
    retry-on conn-failure
    # GET / (the versions document) needs no token
    option httpchk GET /
    default-server inter 1s fall 2 rise 1
CFG
  for i in "${!KEEL_PORTS[@]}"; do echo "    server keel$((i + 1)) $HOST:${KEEL_PORTS[i]} check"; done
  cat <<CFG
listen galera
    bind $HOST:$HA_DB_PORT
    mode tcp
    option tcpka
    option mysql-check user haproxy_check post-41
    default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
CFG
  for i in 0 1 2; do
    # the writer back up: close the sessions still open on a backup, else the clients'
    # pooled connections keep writing there — two writers, and Galera's brute-force aborts
    # (1213) of the transactions that lose (seen in the fault run after the writer kill)
    echo "    server g$((i + 1)) $HOST:${GALERA_PORTS[i]} check$( (( i > 0 )) && echo ' backup' || echo ' on-marked-up shutdown-backup-sessions')"
  done
} >"$HA_ETC/haproxy.cfg"
haproxy -c -q -f "$HA_ETC/haproxy.cfg" || die "haproxy.cfg invalid"
if ! ha_alive haproxy; then
  busy_refuse haproxy "$HA_API_PORT"; busy_refuse haproxy "$HA_DB_PORT"
  setsid haproxy -db -f "$HA_ETC/haproxy.cfg" >>"$HA_LOGS/haproxy-access.log" 2>>"$HA_LOGS/haproxy.log" </dev/null &
  echo $! >"$HA_RUN/haproxy.pid"
  log "haproxy started (pid $!): API $HOST:$HA_API_PORT, Galera $HOST:$HA_DB_PORT, stats $HOST:$HA_STATS_PORT"
fi
for _ in $(seq 40); do
  mariadb --no-defaults -h "$HOST" -P "$HA_DB_PORT" -u keel -p"$KEEL_DB_PASS" -e 'SELECT 1' keel >/dev/null 2>&1 && break
  sleep 0.5
done
mariadb --no-defaults -h "$HOST" -P "$HA_DB_PORT" -u keel -p"$KEEL_DB_PASS" -e 'SELECT 1' keel >/dev/null \
  || die "Galera not reachable through haproxy on $HOST:$HA_DB_PORT; see $HA_LOGS/haproxy.log"
step "haproxy"

# ------------------------------------------------------------ Neutron (HA)
KS_URL="http://$HOST:$KEYSTONE_PORT"
cp "$VENV/etc/neutron/api-paste.ini" "$HA_ETC/neutron/api-paste.ini"
cp "$STACK_DIR/wsgi/neutron_app.py" "$HA_ETC/wsgi/"
ks_section() { # section user password
  cat <<CFG
[$1]
www_authenticate_uri = $KS_URL
auth_url = $KS_URL
auth_type = password
username = $2
password = $3
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne
CFG
}
cat >"$HA_ETC/neutron/neutron.conf" <<CFG
[DEFAULT]
core_plugin = ml2
service_plugins = ovn-router
auth_strategy = keystone
allow_overlapping_ips = true
transport_url = fake://
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
dhcp_agent_notification = false
api_paste_config = $HA_ETC/neutron/api-paste.ini
state_path = $HA_STATE/neutron
log_file = $HA_LOGS/neutron-api.log
use_stderr = false
host = keel-ha
[database]
connection = mysql+pymysql://neutron:$DB_PASS@$HOST:$HA_DB_PORT/neutron?charset=utf8mb4
$(ks_section keystone_authtoken neutron "$NEUTRON_PASS")
service_token_roles_required = true
$(ks_section placement neutron "$NEUTRON_PASS")
$(ks_section nova neutron "$NEUTRON_PASS")
[oslo_concurrency]
lock_path = $HA_STATE/neutron/lock
CFG
cat >"$HA_ETC/neutron/ml2_conf.ini" <<CFG
[ml2]
type_drivers = local,flat,vlan,geneve
tenant_network_types = geneve
mechanism_drivers = ovn
extension_drivers = port_security
overlay_ip_version = 4
[ml2_type_geneve]
vni_ranges = 1:65536
max_header_size = 38
[securitygroup]
enable_security_group = true
[ovn]
ovn_nb_connection = $HA_NB
ovn_sb_connection = $HA_SB
ovn_l3_scheduler = leastloaded
ovn_metadata_enabled = false
enable_distributed_floating_ip = false
CFG
NCONF=(--config-file "$HA_ETC/neutron/neutron.conf" --config-file "$HA_ETC/neutron/ml2_conf.ini")
if [[ ! -f $HA_STATE/.neutron-db-done ]]; then
  PYTHONWARNINGS=ignore "$VENV/bin/neutron-db-manage" "${NCONF[@]}" upgrade heads >"$HA_LOGS/neutron-db-manage.log" 2>&1 \
    || die "neutron-db-manage failed, see $HA_LOGS/neutron-db-manage.log"
  touch "$HA_STATE/.neutron-db-done"
  step "neutron-db-manage upgrade heads on Galera"
fi
if ! ha_alive neutron-api; then
  busy_refuse neutron-api "$HA_NEUTRON_PORT"
  ASGI_WORKERS=1 STACK_ETC="$HA_ETC" PYTHONWARNINGS=ignore setsid "$VENV/bin/gunicorn" \
    --bind "$HOST:$HA_NEUTRON_PORT" --workers 1 --timeout 300 --graceful-timeout 5 \
    --chdir "$HA_ETC/wsgi" --access-logfile "$HA_LOGS/neutron-access.log" \
    neutron_app:application >>"$HA_LOGS/neutron-gunicorn.log" 2>&1 </dev/null &
  echo $! >"$HA_RUN/neutron-api.pid"
  log "neutron-api started (pid $!) on $HOST:$HA_NEUTRON_PORT"
fi
wait_http "http://$HOST:$HA_NEUTRON_PORT/" 180 || die "HA Neutron does not answer; see $HA_LOGS/neutron-*.log"
step "Neutron on http://$HOST:$HA_NEUTRON_PORT"

# ------------------------------------------------------------ data plane
if [[ ${HA_DATAPLANE:-1} == 1 ]]; then
  "$HA_DIR/dataplane.sh" up >>"$HA_LOGS/dataplane-up.log" 2>&1 || die "the data plane did not start; see $HA_LOGS/dataplane-up.log"
  step "data plane: chassis keel-dp-9 of the SB cluster"
fi

# ------------------------------------------------------------ API replicas
# Slots 1..$HA_REPLICAS hold a Keel replica, unless migrate.sh put a Python octavia-api
# there (then that one is restarted if it died). HA_REPLICAS=0: no replica (migrate.sh).
source "$HA_DIR/replicas.sh"
started=()
for n in $(seq "$HA_REPLICAS"); do
  if [[ -s $HA_RUN/py-$n.pid ]]; then
    ha_alive "py-$n" || { rm -f "$HA_RUN/py-$n.pid"; py_agent_start; py_start "$n"; started+=("$n"); }
    continue
  fi
  ha_alive "keel-$n" && { keel_conf "$n" >"$HA_ETC/keel-$n.conf"; continue; }
  # all replicas at once: `keel serve` upgrades the schema at start, so a fresh
  # database is upgraded by several replicas concurrently
  keel_start "$n"; started+=("$n")
done
for n in "${started[@]}"; do
  wait_http "http://$HOST:${KEEL_PORTS[n-1]}/" 180 && { ha_alive "keel-$n" || ha_alive "py-$n"; } \
    || die "replica $n did not start; see $HA_LOGS/keel-$n.log or py-$n-*.log"
done
if (( HA_REPLICAS > 0 )); then
  wait_http "http://$HOST:$HA_API_PORT/" 20 || die "haproxy does not reach the API replicas"
  step "API: $HA_REPLICAS replicas behind http://$HOST:$HA_API_PORT"
fi
# haproxy's own view must agree before up.sh returns: every Galera node UP in the `galera`
# proxy (g1 marked up again closes the sessions still open on a backup — the failback of a
# writer restarted here; waited for, it happens now, not under the next fault window's load,
# where the clients' cut transactions answered 503 "database" in the Neutron window of a CI
# run, 2026-12-07). Bounded: rise 2 × inter 1 s, 30 s at most.
galera_up_in_haproxy() {
  local csv
  csv="$(curl -s -m 2 "http://$HOST:$HA_STATS_PORT/;csv")" || return 1
  for g in g1 g2 g3; do
    awk -F, -v s="$g" '$1 == "galera" && $2 == s && $18 == "UP" {f=1} END {exit !f}' <<<"$csv" || return 1
  done
}
for _ in $(seq 60); do galera_up_in_haproxy && break; sleep 0.5; done
galera_up_in_haproxy || die "haproxy does not see every Galera node UP (http://$HOST:$HA_STATS_PORT/)"
"$HA_DIR/status.sh"
log "ha-done"
