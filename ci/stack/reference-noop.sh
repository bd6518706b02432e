#!/usr/bin/env bash
# The Python reference's API as Octavia's noop API job runs it (octavia-v2-dsvm-noop-api:
# [controller_worker] noop drivers, so the API's own network checks — VIP network/subnet/port,
# member subnets, QoS — go to network_noop_driver and accept any id; [certificates]
# cert_manager = noop_cert_manager, so the random TLS container refs the plugin sends with
# test_with_noop = True are accepted — with noop the TERMINATED_HTTPS tests run whatever
# [service_available] barbican says), for
# `TEMPEST_PROVIDER=amphora ci/stack/tempest.sh` (test_with_noop = True) against the reference.
#   reference-noop.sh up     after `STACK_REFERENCE=1 up.sh`: stops the reference's octavia-api
#                            (by the PID in $RUN/octavia-api.pid) and starts it again under
#                            gunicorn on the same port with $STATE/etc-noop/octavia/octavia.conf
#                            = up.sh's octavia.conf + the [controller_worker] noop drivers; its
#                            PID goes to $RUN/octavia-api.pid (so `down.sh --reference` stops it)
#   reference-noop.sh down   stops that octavia-api (by PID; the driver agent and worker-ref stay)
# The worker-ref (worker.sh ref) already runs the noop drivers; the reference's default provider
# stays ovn (tempest names amphora explicitly). An up.sh run afterwards leaves this API alone
# (it sees octavia-api alive) — stop it first to get the Neutron-backed one back.
set -euo pipefail
main() {
  source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
  local etc="$STATE/etc-noop" pidf="$RUN/octavia-api.pid" pid kids
  stop_api() {
    [[ -s $pidf ]] || return 0
    pid=$(cat "$pidf")
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidf"; return 0; }
    kids=$(ps -o pid= --ppid "$pid" | tr '\n' ' ')
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    # shellcheck disable=SC2086
    for p in $kids; do kill -0 "$p" 2>/dev/null && kill -TERM "$p" 2>/dev/null; done
    rm -f "$pidf"
    log "octavia-api (pid $pid; workers $kids) stopped"
  }
  case ${1:-} in
    up)
      [[ -f $ETC/octavia/octavia.conf ]] || die "no $ETC/octavia/octavia.conf: run STACK_REFERENCE=1 up.sh first"
      grep -q '^transport_url = rabbit' "$ETC/octavia/octavia.conf" \
        || die "the reference has no amphora provider (STACK_REFERENCE=1 up.sh with the worker)"
      stop_api
      mkdir -p "$etc/octavia"
      cp -r "$ETC/wsgi" "$etc/"
      { cat "$ETC/octavia/octavia.conf"; cat <<EOF
[controller_worker]
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver
network_driver = network_noop_driver
image_driver = image_noop_driver
volume_driver = volume_noop_driver
loadbalancer_topology = SINGLE
[certificates]
cert_manager = noop_cert_manager
EOF
      } >"$etc/octavia/octavia.conf"
      port_busy "$OCTAVIA_PORT" && die "port $OCTAVIA_PORT is taken"
      STACK_ETC="$etc" setsid "$VENV/bin/gunicorn" --bind "$HOST:$OCTAVIA_PORT" \
        --workers "$STACK_WORKERS" --timeout 300 --graceful-timeout 5 --chdir "$etc/wsgi" \
        --access-logfile "$LOGS/octavia-api-access.log" \
        "octavia_app:application" >>"$LOGS/octavia-api-gunicorn.log" 2>&1 </dev/null &
      echo $! >"$pidf"
      wait_http "http://$HOST:$OCTAVIA_PORT/" 180 || die "octavia-api (noop) did not answer; see $LOGS/octavia*.log"
      log "octavia-api with the noop network driver: pid $(cat "$pidf") on $HOST:$OCTAVIA_PORT (config $etc/octavia/octavia.conf)" ;;
    down) stop_api ;;
    *) die "usage: $0 up|down" ;;
  esac
}
main "$@"
