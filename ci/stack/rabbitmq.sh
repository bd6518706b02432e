#!/usr/bin/env bash
# The stack's private RabbitMQ node (Debian's rabbitmq-server 3.10.8, Erlang 25), loopback only:
# AMQP on $HOST:$RABBIT_PORT, Erlang distribution on $HOST:$RABBIT_DIST_PORT, its own epmd on
# $HOST:$RABBIT_EPMD_PORT (5672 / 25672 / 4369 + slot×1000), node $RABBIT_NODE, run as user
# rabbitmq (HOME /var/lib/rabbitmq: the package's Erlang cookie) with everything else under
# $RABBIT_DIR (mnesia, config, definitions)
# and logs in $LOGS/rabbitmq/. No plugins (empty enabled-plugins file: no management port).
# Users/vhosts come from a definitions file loaded at every boot: user $RABBIT_USER (password
# $RABBIT_PASS, tag administrator) with ".*" on vhosts "/", "$RABBIT_REF_VHOST" and "$COMPUTE_VHOST"
# (Nova and Cinder of compute.sh); no guest.
#
#   rabbitmq.sh [up]        start epmd + the node unless they run (PIDs $RUN/rabbitmq-epmd.pid,
#                           $RUN/rabbitmq.pid; down.sh stops them), wait until it is ready
#   rabbitmq.sh start|wait  the two halves of `up` (up.sh starts early and waits later)
#   rabbitmq.sh ctl ARGS…   rabbitmqctl against this node (e.g. `list_queues -p / name consumers`)
#   rabbitmq.sh env         print STACK_TRANSPORT_URL=… and STACK_RABBITMQCTL=…
#   rabbitmq.sh quiet-system  (install.sh) stop the node/epmd Debian's package may have started,
#                           by PID, and mask/disable its services so they do not come back
# With STACK_SLOT=N and a STACK_STATE of its own (mode 755), a throw-away extra node beside
# the stack's (the fault tests; README "Extra nodes"): the caller stops it by its PID files.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
RMQ_BIN=/usr/lib/rabbitmq/bin
RLOG="$LOGS/rabbitmq"

# Environment of every rabbitmq script (server and CLI) for this node: nothing from
# /etc/rabbitmq is read (own env file, config, plugins file).
rmq_env() {
  cat <<EOF
HOME=/var/lib/rabbitmq
RABBITMQ_NODENAME=$RABBIT_NODE
RABBITMQ_NODE_IP_ADDRESS=$HOST
RABBITMQ_NODE_PORT=$RABBIT_PORT
RABBITMQ_DIST_PORT=$RABBIT_DIST_PORT
ERL_EPMD_ADDRESS=$HOST
ERL_EPMD_PORT=$RABBIT_EPMD_PORT
RABBITMQ_CONF_ENV_FILE=$RABBIT_DIR/rabbitmq-env.conf
RABBITMQ_CONFIG_FILE=$RABBIT_DIR/rabbitmq.conf
RABBITMQ_ADVANCED_CONFIG_FILE=$RABBIT_DIR/advanced.config
RABBITMQ_ENABLED_PLUGINS_FILE=$RABBIT_DIR/enabled_plugins
RABBITMQ_MNESIA_BASE=$RABBIT_DIR/mnesia
RABBITMQ_LOG_BASE=$RLOG
RABBITMQ_PID_FILE=$RABBIT_DIR/beam.pid
RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=+S 1:1 +SDcpu 1:1 +sbwt none +sbwtdcpu none +sbwtdio none -kernel inet_dist_use_interface {127,0,0,1}
RABBITMQ_CTL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}
EOF
}

ctl() {
  local -a envs; mapfile -t envs < <(rmq_env)
  setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups env "${envs[@]}" "$RMQ_BIN/rabbitmqctl" -n "$RABBIT_NODE" "$@"
}

print_env() {
  echo "STACK_TRANSPORT_URL=$TRANSPORT_URL"
  echo "STACK_RABBITMQCTL=$STACK_DIR/rabbitmq.sh ctl"
}

# Debian's package (no policy-rc.d on the machine) starts rabbit@<host> and an epmd on
# 0.0.0.0:4369. Stop exactly those: processes of user rabbitmq that are an epmd listening on a
# non-loopback address, or the packaged node (its beam runs with `-sname rabbit` / nodename
# rabbit@…); never a node of these scripts (keelN@localhost).
quiet_system() {
  local changed=0 pid args
  if command -v systemctl >/dev/null; then
    for u in rabbitmq-server.service epmd.service epmd.socket; do
      [[ -L /etc/systemd/system/$u && $(readlink "/etc/systemd/system/$u") == /dev/null ]] && continue
      [[ -e /lib/systemd/system/$u ]] || continue
      systemctl stop "$u" >/dev/null 2>&1 || true
      systemctl mask "$u" >/dev/null 2>&1 && changed=1
    done
  fi
  if [[ -x /etc/init.d/rabbitmq-server ]] && ls /etc/rc[2-5].d/S*rabbitmq-server >/dev/null 2>&1; then
    update-rc.d rabbitmq-server disable >/dev/null 2>&1 && changed=1
  fi
  # If anything ever starts the packaged node or a plain `rabbitmqctl` (which would start an
  # epmd on every address), keep it on loopback.
  local envf=/etc/rabbitmq/rabbitmq-env.conf
  if [[ -f $envf ]] && ! grep -q 'keel-stack: loopback only' "$envf"; then
    printf '\n# keel-stack: loopback only\nNODE_IP_ADDRESS=127.0.0.1\nexport ERL_EPMD_ADDRESS=127.0.0.1\n' >>"$envf"; changed=1
  fi
  for pid in $(pgrep -u rabbitmq 2>/dev/null || true); do
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
    if [[ $args == *epmd* ]] && ss -Hltnp 2>/dev/null | grep "pid=$pid," | awk '{print $4}' | grep -qvE '^(127\.0\.0\.1|\[::1\]):'; then
      log "stopping epmd pid $pid (listens on a non-loopback address): $args"; kill -TERM "$pid" 2>/dev/null; changed=1
    elif [[ $args == *beam* && ( $args == *"-sname rabbit "* || $args == *"nodename rabbit@"* || $args == *"-sname rabbit@"* ) ]]; then
      log "stopping the packaged RabbitMQ node pid $pid"; kill -TERM "$pid" 2>/dev/null; changed=1
    fi
  done
  ((changed)) && log "rabbitmq: packaged service/epmd masked, disabled, not running" || log "rabbitmq: packaged service/epmd not running (masked)"
  return 0
}

# password_hash of rabbit_password_hashing_sha256: base64(salt4 ++ sha256(salt4 ++ password)).
pw_hash() {
  python3 -c 'import base64,hashlib,os,sys; s=os.urandom(4); print(base64.b64encode(s+hashlib.sha256(s+sys.argv[1].encode()).digest()).decode())' "$1"
}

start() {
  [[ -x $RMQ_BIN/rabbitmq-server ]] || die "rabbitmq-server is not installed: run install.sh"
  if pid_alive rabbitmq; then log "rabbitmq already running (pid $(cat "$RUN/rabbitmq.pid"), node $RABBIT_NODE, amqp $HOST:$RABBIT_PORT)"; return 0; fi
  mkdir -p "$RABBIT_DIR/mnesia" "$RLOG" "$RUN"
  : >"$RABBIT_DIR/rabbitmq-env.conf"
  echo '[].' >"$RABBIT_DIR/enabled_plugins"
  echo '[].' >"$RABBIT_DIR/advanced.config"
  cat >"$RABBIT_DIR/rabbitmq.conf" <<EOF
# written by rabbitmq.sh; listener address/port come from RABBITMQ_NODE_IP_ADDRESS/_PORT
load_definitions = $RABBIT_DIR/definitions.json
log.file.level = info
log.console = false
vm_memory_high_watermark.relative = 0.2
disk_free_limit.absolute = 50MB
EOF
  cat >"$RABBIT_DIR/definitions.json" <<EOF
{"users": [{"name": "$RABBIT_USER", "password_hash": "$(pw_hash "$RABBIT_PASS")",
            "hashing_algorithm": "rabbit_password_hashing_sha256", "tags": ["administrator"]}],
 "vhosts": [{"name": "/"}, {"name": "$RABBIT_REF_VHOST"}, {"name": "$COMPUTE_VHOST"}],
 "permissions": [
   {"user": "$RABBIT_USER", "vhost": "/", "configure": ".*", "write": ".*", "read": ".*"},
   {"user": "$RABBIT_USER", "vhost": "$RABBIT_REF_VHOST", "configure": ".*", "write": ".*", "read": ".*"},
   {"user": "$RABBIT_USER", "vhost": "$COMPUTE_VHOST", "configure": ".*", "write": ".*", "read": ".*"}]}
EOF
  chown -R rabbitmq:rabbitmq "$RABBIT_DIR" "$RLOG"
  local -a envs; mapfile -t envs < <(rmq_env)
  # epmd of our own, loopback only (the node is told where it is by ERL_EPMD_PORT)
  if pid_alive rabbitmq-epmd; then :; else
    if port_busy "$RABBIT_EPMD_PORT"; then die "rabbitmq: epmd port $HOST:$RABBIT_EPMD_PORT is taken by another process: $(ss -Hltnp "( sport = :$RABBIT_EPMD_PORT )" | head -1)"; fi
    start-stop-daemon --start --background --make-pidfile --pidfile "$RUN/rabbitmq-epmd.pid" \
      --chuid rabbitmq:rabbitmq --chdir "$RABBIT_DIR" --output "$RLOG/epmd.log" \
      --startas /usr/bin/epmd -- -address "$HOST" -port "$RABBIT_EPMD_PORT"
    for _ in $(seq 50); do port_busy "$RABBIT_EPMD_PORT" && break; sleep 0.1; done
    port_busy "$RABBIT_EPMD_PORT" || die "rabbitmq: epmd did not listen on $HOST:$RABBIT_EPMD_PORT; see $RLOG/epmd.log"
  fi
  for p in "$RABBIT_PORT" "$RABBIT_DIST_PORT"; do
    port_busy "$p" && die "rabbitmq: $HOST:$p is taken by another process: $(ss -Hltnp "( sport = :$p )" | head -1)"
  done
  env "${envs[@]}" start-stop-daemon --start --background --make-pidfile --pidfile "$RUN/rabbitmq.pid" \
    --chuid rabbitmq:rabbitmq --chdir "$RABBIT_DIR" --output "$RLOG/rabbitmq-server-stdout.log" \
    --startas "$RMQ_BIN/rabbitmq-server"
  date +%s.%N >"$RUN/rabbitmq.started"
  stat -c %s "$RLOG/$RABBIT_NODE.log" >"$RUN/rabbitmq.logoffset" 2>/dev/null || echo 0 >"$RUN/rabbitmq.logoffset"
  log "rabbitmq: node $RABBIT_NODE started (pid $(cat "$RUN/rabbitmq.pid"))"
}

wait_ready() {
  [[ -f $RUN/rabbitmq.started ]] || { pid_alive rabbitmq || die "rabbitmq: not running"; return 0; }
  # Ready = the node logged "Server startup complete" (after the definitions are loaded and
  # the AMQP listener is open) since this start; cheaper than a rabbitmqctl call (~1-2 s).
  local off i; off=$(cat "$RUN/rabbitmq.logoffset" 2>/dev/null || echo 0)
  for i in $(seq 1200); do
    tail -c +$((off + 1)) "$RLOG/$RABBIT_NODE.log" 2>/dev/null | grep -q 'Server startup complete' && port_busy "$RABBIT_PORT" && break
    pid_alive rabbitmq || die "rabbitmq: node died while starting; see $RLOG/"
    ((i == 1200)) && die "rabbitmq: node $RABBIT_NODE not ready after 120 s; see $RLOG/"
    sleep 0.1
  done
  pid_alive rabbitmq || die "rabbitmq: node died; see $RLOG/"
  log "rabbitmq: ready on amqp://$HOST:$RABBIT_PORT (vhosts / and $RABBIT_REF_VHOST, user $RABBIT_USER), $(printf '%.1f' "$(echo "$(date +%s.%N) - $(cat "$RUN/rabbitmq.started")" | bc)") s after its start"
  rm -f "$RUN/rabbitmq.started" "$RUN/rabbitmq.logoffset"
}

case "${1:-up}" in
  up) start; wait_ready ;;
  start) start ;;
  wait) wait_ready ;;
  ctl) shift; ctl "$@" ;;
  env) print_env ;;
  quiet-system) quiet_system ;;
  *) die "usage: rabbitmq.sh [up|start|wait|ctl ARGS…|env|quiet-system]" ;;
esac
