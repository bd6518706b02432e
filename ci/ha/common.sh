# shellcheck shell=bash
# shellcheck disable=SC2034  # variables are used by the scripts that source this file
# Shared settings of the HA stack scripts (ci/ha/). Sourced, never run.
# Builds on ci/stack/: its venv (Neutron), its Keystone (127.0.0.1:5000) and its
# passwords. Everything these scripts write lives under $HA_STATE (default
# /var/tmp/keel-ha); every server binds 127.0.0.1 only.

HA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../stack/common.sh
source "$HA_DIR/../stack/common.sh"
: "${HA_STATE:=/var/tmp/keel-ha}"
HA_RUN="$HA_STATE/run"    # pid files, sockets, unixctl
HA_LOGS="$HA_STATE/log"
HA_ETC="$HA_STATE/etc"    # generated configs (keel-N.conf, haproxy.cfg, neutron/)
HA_OVN="$HA_STATE/ovn"    # raft database files
HA_GALERA="$HA_STATE/galera"

# OVN: three raft members per database (client port, raft port).
NB_PORTS=(6651 6652 6653); NB_RAFT=(6654 6655 6656)
SB_PORTS=(6661 6662 6663); SB_RAFT=(6664 6665 6666)
remotes() { local p out=""; for p in "$@"; do out+="${out:+,}tcp:$HOST:$p"; done; echo "$out"; }
HA_NB="$(remotes "${NB_PORTS[@]}")"
HA_SB="$(remotes "${SB_PORTS[@]}")"
# Galera: three MariaDB nodes (client, group communication; IST = gcomm+1, SST rsync port).
GALERA_PORTS=(3311 3312 3313); GALERA_GCOMM=(4567 4577 4587); GALERA_SST=(4444 4454 4464)
# haproxy: the load-balancer API in front of the Keel replicas, and one Galera writer
# (the other two nodes are backups: Galera's certification then never has to choose
# between two writers of one row, the usual OpenStack set-up).
: "${HA_API_PORT:=9886}"
: "${HA_DB_PORT:=3310}"
: "${HA_STATS_PORT:=9885}"
# Keel replicas (api ports); HA_REPLICAS of them are started.
KEEL_PORTS=(9891 9892 9893)
: "${HA_REPLICAS:=3}"
# The HA Neutron API (its own config and database on Galera, the NB/SB clusters).
: "${HA_NEUTRON_PORT:=9697}"
# The keel binary: release build if there is one, else the debug build.
: "${CARGO_TARGET_DIR:=$HA_DIR/../../target}"
if [[ -z ${KEEL_BIN:-} ]]; then
  KEEL_BIN="$CARGO_TARGET_DIR/release/keel"
  [[ -x $KEEL_BIN ]] || KEEL_BIN="$CARGO_TARGET_DIR/debug/keel"
fi
# The load-balancer service's database on Galera (migrate.sh: `octavia`, made by the
# reference's octavia-db-manage).
: "${HA_DB_NAME:=keel}"
HA_KEEL_DB="mysql://keel:$KEEL_DB_PASS@$HOST:$HA_DB_PORT/$HA_DB_NAME"

log() { printf '[ha %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*" >&2; exit 1; }
# Every process below PID $1 (children, grandchildren, …), noted before a stop: a child the
# stopped process leaves behind is re-parented to init and no longer found by its parent.
descendants() { local p; for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$p"; descendants "$p"; done; }
# ha_alive NAME: $HA_RUN/NAME.pid names a live process (not a zombie).
ha_alive() {
  local f="$HA_RUN/$1.pid" p
  [[ -s $f ]] || return 1
  p=$(cat "$f")
  kill -0 "$p" 2>/dev/null && [[ $(ps -o stat= -p "$p" 2>/dev/null) != Z* ]]
}
# busy_refuse NAME PORT: die when something already listens on 127.0.0.1:PORT.
busy_refuse() {
  if port_busy "$2"; then die "$1: 127.0.0.1:$2 is taken by a process that is not ours: $(ss -Hltnp "( sport = :$2 )" | head -1)"; fi
}
ha_pid() { cat "$HA_RUN/$1.pid" 2>/dev/null; }
# galera_sql N ARGS...: the MariaDB client as root on node N's socket.
galera_sql() { local n=$1; shift; mariadb --no-defaults --socket="$HA_RUN/mysql/galera$n.sock" -u root "$@"; }
