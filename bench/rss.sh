#!/usr/bin/env bash
# Resident memory (KiB -> MiB) of each recorded stack service: the PID in
# $STACK_STATE/run/<name>.pid plus all its descendants, listed per process.
# Usage: bench/rss.sh [name ...]   (default: octavia-api octavia-driver-agent
#        neutron-api neutron-ovn-maintenance-worker neutron-periodic-workers ovnnb_db ovn-northd)
#        bench/keel = the Keel started by bench/keel.sh ($STACK_STATE/bench/keel.pid)
if [[ -n ${REFSTACK_STATE:-} && -z ${STACK_STATE:-} ]]; then STACK_STATE=$REFSTACK_STATE; fi
# shellcheck disable=SC1091
source "$(dirname "$0")/slot.sh"
RUN=$STATE/run
names=("$@"); [[ ${#names[@]} -gt 0 ]] || names=(bench/keel octavia-api octavia-driver-agent neutron-api neutron-ovn-maintenance-worker neutron-periodic-workers ovnnb_db ovnsb_db ovn-northd)
desc() { local p; for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$p"; desc "$p"; done; }
for n in "${names[@]}"; do
  f=$RUN/$n.pid; [[ -s $f ]] || f=$STATE/$n.pid
  [[ -s $f ]] || { echo "$n: no pid file"; continue; }
  pid=$(cat "$f"); tot=0; det=""
  for p in $pid $(desc "$pid"); do
    r=$(ps -o rss= -p "$p" 2>/dev/null | tr -d ' '); [[ -n $r ]] || continue
    tot=$((tot + r)); det+=" $p:$((r/1024))"
  done
  printf '%-31s total %7.1f MiB  (pid:MiB%s)\n' "$n" "$(awk -v r=$tot 'BEGIN{print r/1024}')" "$det"
done
