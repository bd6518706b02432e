#!/usr/bin/env bash
# The README's first command: start the real services Keel talks to (ci/stack/: OVN NB/SB +
# ovn-northd, Keystone, Neutron, MariaDB), then Keel itself in the foreground on
# 127.0.0.1:9876 (the catalog's load-balancer endpoint) with the embedded SQLite database.
# Ctrl-C stops Keel; `ci/stack/down.sh` stops the services.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=ci/toolchain.sh
source ci/toolchain.sh   # the pinned toolchain (rust-toolchain.toml), linked offline
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
state="${STACK_STATE:-/var/tmp/keel-stack}"

ci/stack/install.sh
ci/stack/up.sh
cargo build --locked --release -p keel

conf="$state/etc/keel.conf"
mkdir -p "$state/etc" "$state/keel"
ci/keel-conf.sh 9876 "sqlite://$state/keel/keel.sqlite?mode=rwc" > "$conf"

keel="$CARGO_TARGET_DIR/release/keel"
"$keel" --config-file "$conf" db upgrade
echo "Keel: http://127.0.0.1:9876 (config $conf). Try: source ci/stack/env.sh demo; openstack loadbalancer list" >&2
exec "$keel" --config-file "$conf" serve
