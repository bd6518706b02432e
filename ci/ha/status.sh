#!/usr/bin/env bash
# The HA stack at a glance: each recorded process (alive or not), the raft
# roles of the NB/SB members, the Galera cluster, haproxy's view of its
# backends, which Keel replica holds the agent lock. Exit 1 if a recorded
# process is dead.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
rc=0
printf '%-12s %-8s %s\n' NAME PID STATE
for f in "$HA_RUN"/*.pid; do
  [[ -e $f ]] || continue
  n=$(basename "$f" .pid)
  if ha_alive "$n"; then s=alive; else s=DEAD; rc=1; fi
  printf '%-12s %-8s %s\n' "$n" "$(ha_pid "$n")" "$s"
done
for db in nb sb; do
  name=OVN_Northbound; [[ $db == sb ]] && name=OVN_Southbound
  for n in 1 2 3; do
    role=$(ovs-appctl -t "$HA_RUN/$db$n.ctl" cluster/status "$name" 2>/dev/null | sed -n 's/^Role: //p')
    printf '%s%s raft role: %s\n' "$db" "$n" "${role:-unreachable}"
  done
done
for n in 1 2 3; do
  st=$(galera_sql "$n" -N -e "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment','wsrep_cluster_size')" 2>/dev/null | tr '\n\t' ' =')
  printf 'galera%s: %s\n' "$n" "${st:-unreachable}"
done
curl -s -m 3 "http://$HOST:$HA_STATS_PORT/;csv" 2>/dev/null \
  | awk -F, '$1 ~ /^(keel|galera)$/ && $2 !~ /FRONTEND|BACKEND/ {print "haproxy " $1 "/" $2 ": " $18}'
grep -l 'held=true' "$HA_LOGS"/keel-*.log 2>/dev/null | sed 's|.*/||; s|\.log$| logged the agent lock held (last holder may differ)|'
exit $rc
