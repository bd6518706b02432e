#!/usr/bin/env bash
# The fast tier: the tests that need no root and no running service — every crate's unit
# tests, the api's HTTP tests (the router in-process over SQLite, fake provider drivers, fake
# Keystone), octavia-db on SQLite, the OVSDB client against its in-process server, the
# image/deploy-file checks. KEEL_TEST_TIER=fast drops the MariaDB half of the tests that run
# on both backends. Everything here also runs in ci/test.sh, which adds MariaDB and the real
# services (OVN, Keystone, Neutron, Barbican, the data plane). Extra arguments go to nextest.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ci/toolchain.sh
source ci/toolchain.sh   # the pinned toolchain (rust-toolchain.toml), linked offline
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export KEEL_TEST_TIER=fast
# nothing reaches a stack by accident
for v in $(env | sed -n 's/^\(STACK_[A-Z_]*\)=.*/\1/p; s/^\(OS_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
# the set is nextest's profile `fast` (.config/nextest.toml, which says what is left out)
exec cargo nextest run --locked --workspace --no-fail-fast --profile fast "$@"
