#!/usr/bin/env bash
# One API replica or the Python driver agent of the HA topology, started or stopped
# (migrate.sh's steps; see replicas.sh for the slots):
#   slot.sh start keel N | start py N   start slot N's replica, wait until it answers
#   slot.sh start py-agent              the Python driver agent, wait for its sockets
#   slot.sh stop NAME                   SIGTERM to NAME's recorded PID (keel-N, py-N,
#                                       py-agent), wait for it (SIGKILL after 90 s), forget it
# Prints the seconds it took. Drain a replica in haproxy first (migrate.py does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$HA_DIR/replicas.sh"
T0=$(date +%s.%N)
case "${1:-} ${2:-}" in
  "start keel")
    keel_start "$3"
    wait_http "http://$HOST:${KEEL_PORTS[$3-1]}/" 180 && ha_alive "keel-$3" || die "keel-$3 did not start; see $HA_LOGS/keel-$3.log" ;;
  "start py")
    py_agent_start; py_start "$3"
    wait_http "http://$HOST:${KEEL_PORTS[$3-1]}/" 180 && ha_alive "py-$3" || die "py-$3 did not start; see $HA_LOGS/py-$3-gunicorn.log, py-octavia.log" ;;
  "start py-agent")
    py_agent_start ;;
  stop\ *)
    name=$2
    if ha_alive "$name"; then
      pid=$(ha_pid "$name")
      kids=$(descendants "$pid" | tr '\n' ' ')
      kill -TERM "$pid"
      for _ in $(seq 450); do ha_alive "$name" || break; sleep 0.2; done
      if ha_alive "$name"; then log "$name (pid $pid) alive 90 s after SIGTERM: SIGKILL"; kill -KILL "$pid"; fi
      # its descendants (gunicorn workers, the driver agent's provider agents) go with it;
      # one still alive 10 s after its parent is SIGKILLed (it would be init's orphan)
      for p in $kids; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$p" 2>/dev/null && { log "$name: child $p alive 10 s after its parent: SIGKILL"; kill -KILL "$p" 2>/dev/null; }
      done
    fi
    # a replica's listening socket can outlive the recorded PID (gunicorn's master under
    # setsid/nsenter): the next replica of the slot needs the port, so wait until it is free
    if [[ $name =~ ^(keel|py)-([1-3])$ ]]; then
      port=${KEEL_PORTS[${BASH_REMATCH[2]}-1]}
      for _ in $(seq 150); do port_busy "$port" || break; sleep 0.2; done
      port_busy "$port" && log "$name stopped but 127.0.0.1:$port is still taken: $(ss -Hltnp "( sport = :$port )" | head -1)"
    fi
    rm -f "$HA_RUN/$name.pid" ;;
  *) die "usage: slot.sh start keel|py N | start py-agent | stop NAME" ;;
esac
printf '%s %s %s: %.1f s\n' "$1" "$2" "${3:-}" "$(echo "$(date +%s.%N) - $T0" | bc)"
