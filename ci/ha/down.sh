#!/usr/bin/env bash
# Stop the HA stack: ONLY the processes whose PIDs up.sh recorded in
# $HA_RUN/*.pid (and their children noted just before: gunicorn workers), by
# PID — SIGTERM, SIGKILL after 30 s; never by name. Data is kept;
# `down.sh --wipe` also deletes $HA_STATE (raft and Galera data, configs, logs).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gone() { ! kill -0 "$1" 2>/dev/null || [[ $(ps -o stat= -p "$1" 2>/dev/null) == Z* ]]; }
stop_one() { # name
  local f="$HA_RUN/$1.pid" pid kids p i
  [[ -s $f ]] || return 0
  pid=$(cat "$f")
  if gone "$pid"; then rm -f "$f"; return 0; fi
  kids=$(descendants "$pid" | tr '\n' ' ')
  kill -CONT "$pid" 2>/dev/null   # a paused (fault.sh) process cannot handle SIGTERM
  for p in $kids; do kill -CONT "$p" 2>/dev/null; done
  kill -TERM "$pid" 2>/dev/null
  for i in $(seq 150); do gone "$pid" && break; sleep 0.2; done
  gone "$pid" || { log "$1 (pid $pid) alive after 30 s: SIGKILL"; kill -KILL "$pid" 2>/dev/null; }
  for p in $kids; do gone "$p" || kill -KILL "$p" 2>/dev/null; done
  log "stopped $1 (pid $pid${kids:+; children $kids})"; rm -f "$f"
}
T0=$(date +%s)
# the data plane first (its own pid files, under $HA_STATE/dataplane-stack)
[[ -d $HA_STATE/dataplane-stack ]] && "$HA_DIR/dataplane.sh" down
for n in 3 2 1; do stop_one "keel-$n"; stop_one "py-$n"; done
stop_one py-agent
stop_one py-ns
stop_one neutron-api
stop_one haproxy
for n in 3 2 1; do stop_one "galera$n"; done
stop_one ovn-northd
for n in 3 2 1; do stop_one "sb$n"; stop_one "nb$n"; done
if [[ ${1:-} == --wipe ]]; then
  log "wiping $HA_STATE"
  rm -rf "$HA_STATE"
fi
log "down in $(( $(date +%s) - T0 ))s"
