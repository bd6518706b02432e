#!/usr/bin/env bash
# shellcheck disable=SC2031  # subshells that source env.sh re-set the same values
# STACK_COMPUTE=1: real Glance, Nova and Cinder beside the stack, for the checks the amphora
# provider makes against them (flavor GET, availability-zone lists of Nova and Cinder, image
# by tag). Loopback only, their own venv ($COMPUTE_VENV), databases on the stack's MariaDB,
# RabbitMQ vhost $COMPUTE_VHOST on the stack's node, keystone auth, catalog entries.
#
#   compute.sh install   the venv (pip once; a stamp file makes re-runs cheap)
#   compute.sh up        DBs, vhost, users/catalog, configs, start what is not running, the
#                        flavor / aggregate / image; waits until every zone is available
#   compute.sh env       print the STACK_* variables env.sh exports
#
# Processes (PID files $RUN/<name>.pid, logs $LOGS/<name>*.log; down.sh stops them by PID):
#   placement-api, glance-api, nova-api, cinder-api   gunicorn, $STACK_COMPUTE_WORKERS worker(s)
#   nova-conductor                                    cell1's conductor (no superconductor split)
#   nova-compute, nova-compute-az                     compute_driver fake.PredictableNodeUUIDDriver, hosts
#                                                     $NOVA_DEFAULT_HOST (zone nova) and
#                                                     $NOVA_AZ_HOST (aggregate/zone $NOVA_AZ)
#   cinder-volume                                     backend `fake`: cinder's own logging driver
#                                                     (no storage), zone $CINDER_AZ
# No nova-scheduler / cinder-scheduler: nothing here boots a server or makes a volume.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$STACK_DIR/lib.sh"
CV="$COMPUTE_VENV"
CCONS="$STATE/compute-constraints.txt"

# ------------------------------------------------------------------ install
# upper-constraints.txt (requirements master of 2026-08-22) predates nova 34.0.0, which needs
# keystoneauth1 >= 5.16.0 and oslo.versionedobjects >= 3.12.0: those two pins are raised in a
# copy for this venv; everything else stays as pinned.
COMPUTE_PIN_OVERRIDES=("keystoneauth1===5.16.0" "oslo.versionedobjects===3.12.0")
install() {
  local want stamp t0
  want="glance==$GLANCE_VER nova==$NOVA_VER cinder==$CINDER_VER openstack-placement==$PLACEMENT_VER pyroute2 ${COMPUTE_PIN_OVERRIDES[*]}"
  stamp="$CV/.stack-installed"
  if [[ -x $CV/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
    log "compute venv: $CV already has $want"; return 0
  fi
  mkdir -p "$STATE" "$LOGS"
  grep -viE '^(keystoneauth1|oslo[._-]versionedobjects)===' "$STACK_DIR/upper-constraints.txt" >"$CCONS"
  printf '%s\n' "${COMPUTE_PIN_OVERRIDES[@]}" >>"$CCONS"
  t0=$(date +%s)
  [[ -x $CV/bin/python ]] || "$STACK_PYTHON" -m venv "$CV"
  "$CV/bin/pip" install -q -U pip setuptools wheel >"$LOGS/pip-compute-bootstrap.log" 2>&1 \
    || die "pip bootstrap failed, see $LOGS/pip-compute-bootstrap.log"
  log "pip: installing $want (+ PyMySQL, gunicorn, pyroute2: os-vif imports it) into $CV"
  "$CV/bin/pip" install -c "$CCONS" "glance==$GLANCE_VER" "nova==$NOVA_VER" "cinder==$CINDER_VER" \
      "openstack-placement==$PLACEMENT_VER" PyMySQL gunicorn pyroute2 \
      >"$LOGS/pip-compute-install.log" 2>&1 || die "pip install failed, see $LOGS/pip-compute-install.log"
  echo "$want" >"$stamp"
  echo "pip_compute_install_s=$(( $(date +%s) - t0 )) ($(date -u +%FT%TZ))" >>"$STATE/install-times.txt"
  log "compute venv ready in $(( $(date +%s) - t0 ))s"
}

print_env() {
  echo "STACK_NOVA_URL=http://$HOST:$NOVA_PORT/v2.1"
  echo "STACK_GLANCE_URL=http://$HOST:$GLANCE_PORT"
  echo "STACK_CINDER_URL=http://$HOST:$CINDER_PORT/v3"
  echo "STACK_PLACEMENT_URL=http://$HOST:$PLACEMENT_PORT"
  echo "STACK_NOVA_FLAVOR_ID=$NOVA_FLAVOR_ID"
  echo "STACK_NOVA_AZ=$NOVA_AZ"
  echo "STACK_CINDER_AZ=$CINDER_AZ"
  echo "STACK_GLANCE_AMP_TAG=$GLANCE_AMP_TAG"
  echo "STACK_GLANCE_AMP_IMAGE_ID=$(cat "$COMPUTE_DIR/amp-image-id" 2>/dev/null)"
  echo "STACK_GLANCE_AMP_OWNER_ID=$(cat "$COMPUTE_DIR/amp-image-owner" 2>/dev/null)"
}

# ------------------------------------------------------------------ up
# start_daemon NAME BINARY ARGS...: started names are added to STARTED
STARTED=()
start_daemon() {
  local name=$1 bin=$2; shift 2
  if pid_alive "$name"; then log "$name already running"; return; fi
  setsid "$CV/bin/$bin" "$@" >>"$LOGS/$name-stdout.log" 2>&1 </dev/null &
  echo $! >"$RUN/$name.pid"
  STARTED+=("$name")
  log "$name started (pid $!)"
}
# node_identity HOST: nova-compute refuses a second start ("No local node identity found")
# without $state_path/compute_id once its service row exists, and the fake drivers never write
# that file (libvirt does). fake.PredictableNodeUUIDDriver reports node uuid
# uuid5(NAMESPACE_DNS, nodename), nodename = host (plain FakeDriver: a random uuid per process,
# so a restarted compute tries to insert its node again: DuplicateRecord). Pre-provision it.
node_identity() {
  local f="$COMPUTE_DIR/nova/$1/compute_id"
  [[ -s $f ]] && return 0
  python3 -c 'import sys, uuid; sys.stdout.write(str(uuid.uuid5(uuid.NAMESPACE_DNS, sys.argv[1])))' "$1" >"$f"
}
# cell1_sql SQL: a query on cell1's database `nova` as root, no headers
cell1_sql() { mysql_root -N -B nova -e "$1"; }

up() {
  [[ -x $CV/bin/nova-manage ]] || die "compute venv missing in $CV: run STACK_COMPUTE=1 install.sh first"
  curl -s -o /dev/null -m 5 "$KS_URL/v3" || die "Keystone does not answer on $KS_URL: run up.sh first"
  pid_alive rabbitmq || die "the stack's RabbitMQ is not running (STACK_WORKER=0?): Nova and Cinder need it"
  [[ -s $MYSQL_MODE_FILE ]] || die "MariaDB mode unknown: run up.sh first"
  export PATH="$CV/bin:$PATH" STACK_ETC="$ETC" PYTHONWARNINGS="ignore::DeprecationWarning"
  mkdir -p "$RUN" "$LOGS" "$ETC/wsgi" "$ETC/glance" "$ETC/nova" "$ETC/placement" "$ETC/cinder" \
    "$COMPUTE_DIR/glance/images" "$COMPUTE_DIR/glance/staging" "$COMPUTE_DIR/glance/tasks" \
    "$COMPUTE_DIR/nova/$NOVA_DEFAULT_HOST" "$COMPUTE_DIR/nova/$NOVA_AZ_HOST" "$COMPUTE_DIR/cinder" \
    "$COMPUTE_DIR/lock"
  cp "$STACK_DIR"/wsgi/*.py "$ETC/wsgi/"

  # databases + users
  mysql_root -e "$(db_user_sql glance:glance placement:placement nova:nova_api nova:nova_cell0 nova:nova cinder:cinder)" || die "creating the compute databases/users failed"
  log "MariaDB: databases glance, placement, nova_api, nova_cell0, nova, cinder  [$(step_t)]"

  # RabbitMQ vhost: in definitions.json for later boots (rabbitmq.sh); added to a running node
  # here (once per node process: a rabbitmqctl call costs 1-4 s)
  local vstamp="$RUN/rabbitmq.compute-vhost"
  if [[ $(cat "$vstamp" 2>/dev/null) == "$(cat "$RUN/rabbitmq.pid")" ]]; then :
  elif "$STACK_DIR/rabbitmq.sh" ctl list_vhosts -q 2>/dev/null | grep -qx "$COMPUTE_VHOST"; then
    cat "$RUN/rabbitmq.pid" >"$vstamp"
  else
    "$STACK_DIR/rabbitmq.sh" ctl add_vhost "$COMPUTE_VHOST" >/dev/null || die "rabbitmqctl add_vhost $COMPUTE_VHOST failed"
    "$STACK_DIR/rabbitmq.sh" ctl set_permissions -p "$COMPUTE_VHOST" "$RABBIT_USER" '.*' '.*' '.*' >/dev/null \
      || die "rabbitmqctl set_permissions on $COMPUTE_VHOST failed"
    cat "$RUN/rabbitmq.pid" >"$vstamp"
    log "RabbitMQ: vhost $COMPUTE_VHOST added for user $RABBIT_USER  [$(step_t)]"
  fi

  # Keystone users + catalog
  local want="glance=$GLANCE_PORT nova=$NOVA_PORT placement=$PLACEMENT_PORT cinder=$CINDER_PORT"
  if [[ $(cat "$STATE/.keystone-catalog-compute" 2>/dev/null) != "$want" ]]; then
    ( source "$STACK_DIR/env.sh" admin 2>/dev/null
      export GLANCE_PASS NOVA_PASS PLACEMENT_PASS CINDER_PASS STACK_HOST="$HOST" \
        STACK_GLANCE_PORT="$GLANCE_PORT" STACK_NOVA_PORT="$NOVA_PORT" \
        STACK_PLACEMENT_PORT="$PLACEMENT_PORT" STACK_CINDER_PORT="$CINDER_PORT"
      "$VENV/bin/python" "$STACK_DIR/catalog_compute.py" ) || die "catalog_compute.py failed"
    echo "$want" >"$STATE/.keystone-catalog-compute"
    log "keystone: users glance/nova/placement/cinder and their catalog entries  [$(step_t)]"
  fi

  write_configs

  # schemas (once per release)
  if [[ ! -f $STATE/.placement-db-$PLACEMENT_VER ]]; then
    placement-manage --config-file "$ETC/placement/placement.conf" db sync >"$LOGS/placement-manage.log" 2>&1 \
      || die "placement-manage db sync failed, see $LOGS/placement-manage.log"
    touch "$STATE/.placement-db-$PLACEMENT_VER"; log "placement db sync done  [$(step_t)]"
  fi
  if [[ ! -f $STATE/.glance-db-$GLANCE_VER ]]; then
    glance-manage --config-file "$ETC/glance/glance-api.conf" db_sync >"$LOGS/glance-manage.log" 2>&1 \
      || die "glance-manage db_sync failed, see $LOGS/glance-manage.log"
    touch "$STATE/.glance-db-$GLANCE_VER"; log "glance db_sync done  [$(step_t)]"
  fi
  if [[ ! -f $STATE/.cinder-db-$CINDER_VER ]]; then
    cinder-manage --config-file "$ETC/cinder/cinder.conf" db sync >"$LOGS/cinder-manage.log" 2>&1 \
      || die "cinder-manage db sync failed, see $LOGS/cinder-manage.log"
    touch "$STATE/.cinder-db-$CINDER_VER"; log "cinder db sync done  [$(step_t)]"
  fi
  local NM=(nova-manage --config-file "$ETC/nova/nova.conf")
  if [[ ! -f $STATE/.nova-db-$NOVA_VER ]]; then
    { "${NM[@]}" api_db sync &&
      { "${NM[@]}" cell_v2 list_cells 2>/dev/null | grep -q ' cell0 ' ||
        "${NM[@]}" cell_v2 map_cell0 --database_connection "$(dburl nova nova_cell0)"; } &&
      { "${NM[@]}" cell_v2 list_cells 2>/dev/null | grep -q ' cell1 ' ||
        "${NM[@]}" cell_v2 create_cell --name cell1; } &&
      "${NM[@]}" db sync
    } >"$LOGS/nova-manage.log" 2>&1 || die "nova-manage (api_db sync, cells, db sync) failed, see $LOGS/nova-manage.log"
    touch "$STATE/.nova-db-$NOVA_VER"; log "nova api_db/cell0/cell1 ready  [$(step_t)]"
  fi

  # services
  start_gunicorn "$CV" "$STACK_COMPUTE_WORKERS" placement-api "$PLACEMENT_PORT" placement_app
  start_gunicorn "$CV" "$STACK_COMPUTE_WORKERS" glance-api "$GLANCE_PORT" glance_app
  start_gunicorn "$CV" "$STACK_COMPUTE_WORKERS" nova-api "$NOVA_PORT" nova_app
  start_gunicorn "$CV" "$STACK_COMPUTE_WORKERS" cinder-api "$CINDER_PORT" cinder_app
  # heartbeats newer than this mean a service started below is up
  local t0; t0=$(mysql_root -N -B -e "SELECT UTC_TIMESTAMP()")
  node_identity "$NOVA_DEFAULT_HOST"; node_identity "$NOVA_AZ_HOST"
  start_daemon nova-conductor nova-conductor --config-file "$ETC/nova/nova.conf" --log-file "$LOGS/nova-conductor.log"
  start_daemon nova-compute nova-compute --config-file "$ETC/nova/compute-$NOVA_DEFAULT_HOST.conf" \
    --log-file "$LOGS/nova-compute.log"
  start_daemon nova-compute-az nova-compute --config-file "$ETC/nova/compute-$NOVA_AZ_HOST.conf" \
    --log-file "$LOGS/nova-compute-az.log"
  start_daemon cinder-volume cinder-volume --config-file "$ETC/cinder/cinder.conf" --log-file "$LOGS/cinder-volume.log"
  wait_url placement-api "http://$HOST:$PLACEMENT_PORT/"
  wait_url glance-api "http://$HOST:$GLANCE_PORT/"
  wait_url nova-api "http://$HOST:$NOVA_PORT/"
  wait_url cinder-api "http://$HOST:$CINDER_PORT/"

  # Each service started now must report (services.updated_at after t0: the first heartbeat,
  # through the conductor for nova-compute) and the computes must have their compute_nodes
  # rows (their resource trackers make them) before discover_hosts maps them to cell1 and an
  # aggregate can hold one.
  local i n want=0 want_cv=0 p
  for p in "${STARTED[@]}"; do
    case $p in nova-compute|nova-compute-az) want=$((want + 1)) ;; cinder-volume) want_cv=1 ;; esac
  done
  for i in $(seq 180); do
    for p in nova-conductor nova-compute nova-compute-az cinder-volume; do pid_alive "$p" || die "$p died; see $LOGS/$p*.log"; done
    n=$(cell1_sql "SELECT (SELECT COUNT(*) FROM compute_nodes WHERE deleted=0 AND host IN ('$NOVA_DEFAULT_HOST','$NOVA_AZ_HOST')) = 2
                      AND (SELECT COUNT(*) FROM services WHERE deleted=0 AND \`binary\`='nova-compute'
                           AND host IN ('$NOVA_DEFAULT_HOST','$NOVA_AZ_HOST') AND updated_at > '$t0') >= $want
                      AND (SELECT COUNT(*) FROM cinder.services WHERE deleted=0 AND \`binary\`='cinder-volume'
                           AND updated_at > '$t0') >= $want_cv" 2>/dev/null || echo 0)
    [[ $n == 1 ]] && break
    ((i == 180)) && die "nova-compute/cinder-volume did not report within 180 s; see $LOGS/nova-compute*.log, $LOGS/cinder-volume.log"
    sleep 1
  done
  log "nova-compute $NOVA_DEFAULT_HOST, $NOVA_AZ_HOST and cinder-volume report  [$(step_t)]"
  n=$(mysql_root -N -B nova_api -e "SELECT COUNT(*) FROM host_mappings WHERE host IN ('$NOVA_DEFAULT_HOST','$NOVA_AZ_HOST')")
  if [[ $n != 2 ]]; then
    "${NM[@]}" cell_v2 discover_hosts >>"$LOGS/nova-manage.log" 2>&1 || die "nova-manage cell_v2 discover_hosts failed, see $LOGS/nova-manage.log"
    log "nova: hosts mapped to cell1  [$(step_t)]"
  fi

  # flavor, aggregate, image; waits for the zones. Skipped when every service was already
  # running and an earlier run got that far (smoke-compute.sh checks it all in ~2 s).
  if ((${#STARTED[@]} == 0)) && [[ -s $COMPUTE_DIR/amp-image-id && -f $COMPUTE_DIR/.setup-done ]]; then
    log "compute side already up (flavor $NOVA_FLAVOR_ID, image $(cat "$COMPUTE_DIR/amp-image-id"))  [$(step_t)]"
    return 0
  fi
  rm -f "$COMPUTE_DIR/.setup-done"
  local out
  out=$( source "$STACK_DIR/env.sh" admin 2>/dev/null
         export NOVA_FLAVOR_ID NOVA_AZ NOVA_AZ_HOST GLANCE_AMP_TAG CINDER_AZ
         "$VENV/bin/python" "$STACK_DIR/compute_setup.py" ) || die "compute_setup.py failed (see above)"
  for p in "${COMPUTE_NAMES[@]}"; do pid_alive "$p" || die "$p died; see $LOGS/$p*.log"; done
  sed -n 's/^IMAGE_ID=//p' <<<"$out" >"$COMPUTE_DIR/amp-image-id"
  sed -n 's/^IMAGE_OWNER=//p' <<<"$out" >"$COMPUTE_DIR/amp-image-owner"
  touch "$COMPUTE_DIR/.setup-done"
  log "compute side up: flavor $NOVA_FLAVOR_ID, zones nova + $NOVA_AZ (Nova), $CINDER_AZ (Cinder), image $(cat "$COMPUTE_DIR/amp-image-id") tag $GLANCE_AMP_TAG  [$(step_t)]"
}

write_configs() {
  local LOCK="$COMPUTE_DIR/lock"
  # ---- placement
  cat >"$ETC/placement/placement.conf" <<EOF
[DEFAULT]
log_file = $LOGS/placement-api.log
use_stderr = false
[api]
auth_strategy = keystone
[placement_database]
connection = $(dburl placement placement)
$(authtoken placement "$PLACEMENT_PASS")
EOF
  # ---- glance: one file store under $COMPUTE_DIR (+ the two reserved stores multi-store wants)
  cp "$CV/etc/glance/glance-api-paste.ini" "$ETC/glance/glance-api-paste.ini"
  cat >"$ETC/glance/glance-api.conf" <<EOF
[DEFAULT]
log_file = $LOGS/glance-api.log
use_stderr = false
enabled_backends = fs:file
[glance_store]
default_backend = fs
[fs]
filesystem_store_datadir = $COMPUTE_DIR/glance/images/
[os_glance_staging_store]
filesystem_store_datadir = $COMPUTE_DIR/glance/staging/
[os_glance_tasks_store]
filesystem_store_datadir = $COMPUTE_DIR/glance/tasks/
[database]
connection = $(dburl glance glance)
$(authtoken glance "$GLANCE_PASS")
[paste_deploy]
flavor = keystone
config_file = $ETC/glance/glance-api-paste.ini
[oslo_concurrency]
lock_path = $LOCK
EOF
  # ---- nova: nova.conf for nova-api, nova-conductor and nova-manage (databases); each compute
  # its own file without any database (as a compute node is configured: it reaches the
  # databases through the conductor only)
  cp "$CV/etc/nova/api-paste.ini" "$ETC/nova/api-paste.ini"
  local common
  common=$(cat <<EOF
[DEFAULT]
transport_url = $TRANSPORT_URL_COMPUTE
my_ip = $HOST
use_stderr = false
compute_driver = fake.PredictableNodeUUIDDriver
default_availability_zone = nova
$(svc_auth placement nova "$NOVA_PASS" "valid_interfaces = public")
$(svc_auth service_user nova "$NOVA_PASS" "valid_interfaces = public")
send_service_user_token = true
[glance]
valid_interfaces = public
[vnc]
enabled = false
[oslo_concurrency]
lock_path = $LOCK
[oslo_messaging_notifications]
driver = noop
EOF
)
  cat >"$ETC/nova/nova.conf" <<EOF
$common
[DEFAULT]
state_path = $COMPUTE_DIR/nova
log_file = $LOGS/nova-api.log
[api]
auth_strategy = keystone
[wsgi]
api_paste_config = $ETC/nova/api-paste.ini
[api_database]
connection = $(dburl nova nova_api)
[database]
connection = $(dburl nova nova)
$(authtoken nova "$NOVA_PASS")
[conductor]
workers = 1
EOF
  local h
  for h in "$NOVA_DEFAULT_HOST" "$NOVA_AZ_HOST"; do
    cat >"$ETC/nova/compute-$h.conf" <<EOF
$common
[DEFAULT]
host = $h
state_path = $COMPUTE_DIR/nova/$h
instances_path = $COMPUTE_DIR/nova/$h/instances
EOF
  done
  # ---- cinder: api + one volume service, backend `fake` (cinder's logging driver: no storage)
  cp "$CV/etc/cinder/api-paste.ini" "$ETC/cinder/api-paste.ini"
  cat >"$ETC/cinder/cinder.conf" <<EOF
[DEFAULT]
transport_url = $TRANSPORT_URL_COMPUTE
my_ip = $HOST
host = keel-cinder
state_path = $COMPUTE_DIR/cinder
log_file = $LOGS/cinder-api.log
use_stderr = false
auth_strategy = keystone
api_paste_config = $ETC/cinder/api-paste.ini
storage_availability_zone = $CINDER_AZ
default_availability_zone = $CINDER_AZ
enabled_backends = fake
[fake]
volume_driver = cinder.tests.fake_driver.FakeLoggingVolumeDriver
volume_backend_name = fake
[database]
connection = $(dburl cinder cinder)
$(authtoken cinder "$CINDER_PASS")
[oslo_concurrency]
lock_path = $LOCK
[oslo_messaging_notifications]
driver = noop
EOF
}

case "${1:-up}" in
  install) install ;;
  up) up ;;
  env) print_env ;;
  *) die "usage: compute.sh [install|up|env]" ;;
esac
