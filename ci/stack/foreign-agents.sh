#!/usr/bin/env bash
# Refuses (exit 1, naming the lock) while some process holds an OVN provider agent's lock on
# the stack's NB or SB: a Python provider agent (`neutron_ovn_octavia_event_lock`, taken on
# both databases by ovn_octavia_provider/agent.py) or a Keel (`keel_ovn_provider_agent`,
# NB). Such an agent reacts to the rows the tests make and damage (member statuses, router
# ports), so results would depend on it; the tests expect to start every agent themselves.
# Each check asks for the lock once (`ovsdb-client lock`: `{"locked":false}` when another
# session holds it) and withdraws at once.
set -euo pipefail
# shellcheck disable=SC1091
source "$(dirname "$0")/common.sh"

held_elsewhere() { # remote lock
  local first=""
  coproc LK { exec ovsdb-client lock "$1" "$2" 2>/dev/null; }
  read -r -t 5 first <&"${LK[0]}" || true
  kill "$LK_PID" 2>/dev/null || true
  wait "$LK_PID" 2>/dev/null || true
  [[ -n $first ]] || die "ovsdb-client lock $1 $2: no answer within 5 s"
  [[ $first == *false* ]]
}

found=0
for check in "$OVN_NB_TCP keel_ovn_provider_agent Keel" \
             "$OVN_NB_TCP neutron_ovn_octavia_event_lock Python" \
             "$OVN_SB_TCP neutron_ovn_octavia_event_lock Python"; do
  read -r remote lock kind <<<"$check"
  if held_elsewhere "$remote" "$lock"; then
    echo "foreign agent: a $kind provider agent holds lock $lock on $remote" >&2
    found=1
  fi
done
if ((found)); then
  echo "refusing to run the tests beside it: stop that agent (e.g. ci/stack/down.sh after a STACK_REFERENCE=1 up, or a running ci/serve.sh)" >&2
  exit 1
fi
