#!/usr/bin/env bash
# The README's first command: start the real services Keel talks to (ci/stack/: OVN NB/SB +
# ovn-northd, Keystone, Neutron, MariaDB), then Keel itself in the foreground on
# 127.0.0.1:9876 (the catalog's load-balancer endpoint) with the embedded SQLite database.
# Ctrl-C stops Keel; `ci/stack/down.sh` stops the services.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
state="${STACK_STATE:-/var/tmp/keel-stack}"

ci/stack/install.sh
ci/stack/up.sh
cargo build --locked --release -p keel

conf="$state/etc/keel.conf"
mkdir -p "$state/etc" "$state/keel"
cat > "$conf" <<CONF
[api_settings]
bind_host = 127.0.0.1
bind_port = 9876
auth_strategy = keystone
enabled_provider_drivers = ovn:OVN provider driver
default_provider_driver = ovn

[database]
connection = sqlite://$state/keel/keel.sqlite?mode=rwc

[keystone_authtoken]
auth_url = http://127.0.0.1:5000/v3
username = octavia
password = octavia-pass
project_name = service
user_domain_name = Default
project_domain_name = Default

[service_auth]
auth_url = http://127.0.0.1:5000/v3
username = octavia
password = octavia-pass
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne

[neutron]
endpoint = http://127.0.0.1:9696

[ovn]
ovn_nb_connection = tcp:127.0.0.1:6641
ovn_sb_connection = tcp:127.0.0.1:6642
CONF

keel="$CARGO_TARGET_DIR/release/keel"
"$keel" --config-file "$conf" db upgrade
echo "Keel: http://127.0.0.1:9876 (config $conf). Try: source ci/stack/env.sh demo; openstack loadbalancer list" >&2
exec "$keel" --config-file "$conf" serve
