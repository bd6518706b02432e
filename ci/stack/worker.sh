#!/usr/bin/env bash
# The operator's Python octavia-worker (Octavia 19.0.0 from the stack venv) with upstream's noop
# drivers (amphora, compute, network, image, volume; noop cert manager; no jobboard), as
# Octavia's noop CI job runs it: every flow completes without Nova, Glance, Neutron or VMs.
# It consumes topic octavia_provisioning_v2 (exchange `octavia`) on the private RabbitMQ node
# (rabbitmq.sh).
#
#   worker.sh up [main|ref]    write the config, make the throw-away CA and (main) the database
#                              if missing, start the worker unless it runs
#   worker.sh wait [main|ref]  wait (≤ 120 s) until the worker consumes from its queue
#   worker.sh env              print STACK_WORKER_CONF=… and STACK_WORKER_DB=…
#
#   main  the worker Keel casts to: vhost "/", its own database $WORKER_DB_NAME (migrated here
#         with octavia-db-manage), config $STATE/worker/octavia.conf, PID octavia-worker,
#         log $LOGS/octavia-worker.log. A Keel under test uses that same database.
#   ref   (STACK_REFERENCE=1) the Python reference API's own worker: vhost "$RABBIT_REF_VHOST", the
#         reference's database `octavia`, config $STATE/worker-ref/octavia.conf, PID
#         octavia-worker-ref, log $LOGS/octavia-worker-ref.log.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export PATH="$VENV/bin:$PATH" PYTHONWARNINGS="ignore::DeprecationWarning"
CA_DIR="$WORKER_DIR/ca"
# [certificates] server_certs_key_passphrase: 32 characters of [A-Za-z0-9-_=] (throw-away).
WORKER_CERT_PASSPHRASE=keel-stack-amphora-noop-pass-32c

which_worker() { # main|ref -> NAME DIR DB_URL TRANSPORT VHOST
  case "${1:-main}" in
    main) W_NAME=octavia-worker; W_DIR="$WORKER_DIR"; W_DB="$WORKER_DB_URL"; W_URL="$TRANSPORT_URL"; W_VHOST=/ ;;
    ref)  W_NAME=octavia-worker-ref; W_DIR="$STATE/worker-ref"
          W_DB="mysql+pymysql://octavia:$DB_PASS@$HOST:$STACK_DB_PORT/octavia?charset=utf8mb4"
          W_URL="$TRANSPORT_URL_REF"; W_VHOST="$RABBIT_REF_VHOST" ;;
    *) die "worker.sh: unknown worker '$1' (main|ref)" ;;
  esac
}

make_ca() {
  [[ -s $CA_DIR/ca_01.pem && -s $CA_DIR/ca_01.key ]] && return 0
  mkdir -p "$CA_DIR"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -sha256 -subj "/CN=keel-stack-amphora-noop-ca" \
    -keyout "$CA_DIR/ca_01.key" -out "$CA_DIR/ca_01.pem" >"$CA_DIR/openssl.log" 2>&1 \
    || die "openssl could not make the worker's CA; see $CA_DIR/openssl.log"
  chmod 600 "$CA_DIR/ca_01.key"
}

write_conf() {
  mkdir -p "$W_DIR/lock"
  cat >"$W_DIR/octavia.conf" <<EOF
# written by worker.sh ($W_NAME): Octavia's noop CI job settings
[DEFAULT]
transport_url = $W_URL
host = keel-stack-$W_NAME
log_file = $LOGS/$W_NAME.log
use_stderr = false
[database]
connection = $W_DB
[controller_worker]
workers = 1
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver
network_driver = network_noop_driver
image_driver = image_noop_driver
volume_driver = volume_noop_driver
loadbalancer_topology = SINGLE
client_ca = $CA_DIR/ca_01.pem
[certificates]
cert_manager = noop_cert_manager
cert_generator = local_cert_generator
ca_certificate = $CA_DIR/ca_01.pem
ca_private_key = $CA_DIR/ca_01.key
server_certs_key_passphrase = $WORKER_CERT_PASSPHRASE
[task_flow]
jobboard_enabled = False
[oslo_concurrency]
lock_path = $W_DIR/lock
EOF
}

make_db() { # the main worker's own database (the ref worker uses up.sh's `octavia`)
  local sql="CREATE DATABASE IF NOT EXISTS $WORKER_DB_NAME CHARACTER SET utf8mb4;" h
  for h in localhost 127.0.0.1; do
    sql+="CREATE USER IF NOT EXISTS 'octavia'@'$h' IDENTIFIED BY '$DB_PASS';
          GRANT ALL PRIVILEGES ON $WORKER_DB_NAME.* TO 'octavia'@'$h';"
    # the tests read and prepare its rows with the stack's `keel` account (their mysql helper)
    sql+="GRANT ALL PRIVILEGES ON $WORKER_DB_NAME.* TO 'keel'@'$h';"
  done
  mysql_root -e "$sql" || die "creating database $WORKER_DB_NAME failed"
  local stamp="$W_DIR/.db-$OCTAVIA_VER"
  # the stamp is dropped with the database on `down.sh --wipe` (both live under $STATE)
  if [[ ! -f $stamp ]] || [[ -z $(mysql_root -N -e "SHOW TABLES FROM $WORKER_DB_NAME LIKE 'alembic_version'") ]]; then
    octavia-db-manage --config-file "$W_DIR/octavia.conf" upgrade head >"$LOGS/$W_NAME-db-manage.log" 2>&1 \
      || die "octavia-db-manage for $WORKER_DB_NAME failed; see $LOGS/$W_NAME-db-manage.log"
    touch "$stamp"
    log "$W_NAME: database $WORKER_DB_NAME at alembic head"
  fi
}

up() {
  which_worker "$@"
  [[ -x $VENV/bin/octavia-worker ]] || die "octavia-worker missing in $VENV: run install.sh"
  make_ca; write_conf
  [[ $W_NAME == octavia-worker ]] && make_db
  if pid_alive "$W_NAME"; then
    rm -f "$RUN/$W_NAME.started"; log "$W_NAME already running (pid $(cat "$RUN/$W_NAME.pid"))"; return 0
  fi
  setsid "$VENV/bin/octavia-worker" --config-file "$W_DIR/octavia.conf" \
    >>"$LOGS/$W_NAME-stdout.log" 2>&1 </dev/null &
  echo $! >"$RUN/$W_NAME.pid"
  date +%s.%N >"$RUN/$W_NAME.started"
  log "$W_NAME started (pid $!), vhost $W_VHOST, db ${W_DB%%\?*}"
}

# wait: the queue octavia_provisioning_v2 of the worker's vhost has a consumer.
wait_consuming() {
  which_worker "$@"
  local i n
  for i in $(seq 120); do
    pid_alive "$W_NAME" || die "$W_NAME died; see $LOGS/$W_NAME.log and $LOGS/$W_NAME-stdout.log"
    n=$("$STACK_DIR/rabbitmq.sh" ctl list_queues -q -p "$W_VHOST" name consumers 2>/dev/null \
        | awk '$1 == "octavia_provisioning_v2" {print $2}')
    if [[ ${n:-0} -ge 1 ]]; then
      local since=""
      [[ -s $RUN/$W_NAME.started ]] && since="; seen $(printf '%.1f' "$(echo "$(date +%s.%N) - $(cat "$RUN/$W_NAME.started")" | bc)") s after its start"
      rm -f "$RUN/$W_NAME.started"
      log "$W_NAME consumes octavia_provisioning_v2 on vhost $W_VHOST ($n consumer$since)"
      return 0
    fi
    sleep 1
  done
  die "$W_NAME: no consumer on octavia_provisioning_v2 (vhost $W_VHOST) after 120 s; see $LOGS/$W_NAME.log"
}

case "${1:-up}" in
  up) shift || true; up "$@" ;;
  wait) shift; wait_consuming "$@" ;;
  env) echo "STACK_WORKER_CONF=$WORKER_DIR/octavia.conf"; echo "STACK_WORKER_DB=$WORKER_DB_URL" ;;
  *) die "usage: worker.sh [up|wait] [main|ref] | env" ;;
esac
