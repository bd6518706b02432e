#!/usr/bin/env bash
# Prints the keel.conf (octavia.conf-compatible INI) that ci/serve.sh, ci/tempest.sh and
# bench/keel.sh give Keel: 127.0.0.1:<port>, the database <db-url>, keystone auth as the stack's
# `octavia` service user, the stack's Neutron and OVN NB/SB (ci/stack/README.md), provider ovn.
#   ci/keel-conf.sh <port> <db-url> > keel.conf      KEEL_RUN_AGENT=false: `[keel] run_agent`
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <port> <db-url>" >&2
  exit 2
fi
port=$1
db_url=$2
# the addresses of the stack of $STACK_SLOT (ports moved by STACK_SLOT×1000)
# shellcheck disable=SC1091
source "$(dirname "$0")/stack/common.sh"
cat <<CONF
[api_settings]
bind_host = 127.0.0.1
bind_port = $port
auth_strategy = keystone
enabled_provider_drivers = ovn:OVN provider driver
default_provider_driver = ovn

[database]
connection = $db_url

[keystone_authtoken]
auth_url = http://$HOST:$KEYSTONE_PORT/v3
username = octavia
password = octavia-pass
project_name = service
user_domain_name = Default
project_domain_name = Default

[service_auth]
auth_url = http://$HOST:$KEYSTONE_PORT/v3
username = octavia
password = octavia-pass
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne

[neutron]
endpoint = http://$HOST:$NEUTRON_PORT

[ovn]
ovn_nb_connection = $OVN_NB_TCP
ovn_sb_connection = $OVN_SB_TCP

[keel]
run_agent = ${KEEL_RUN_AGENT:-true}
CONF
