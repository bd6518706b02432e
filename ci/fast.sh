#!/usr/bin/env bash
# The fast tier: the tests that need no root and no running service — every crate's unit
# tests, the api's HTTP tests (the router in-process over SQLite, fake provider drivers, fake
# Keystone), octavia-db on SQLite, the OVSDB client against its in-process server, the
# image/deploy-file checks. KEEL_TEST_TIER=fast drops the MariaDB half of the tests that run
# on both backends. Everything here also runs in ci/test.sh, which adds MariaDB and the real
# services (OVN, Keystone, Neutron, Barbican, the data plane). Extra arguments go to nextest.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export KEEL_TEST_TIER=fast
# nothing reaches a stack by accident
for v in $(env | sed -n 's/^\(STACK_[A-Z_]*\)=.*/\1/p; s/^\(OS_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
# not here: the MariaDB-only tests (deadlock retry, the schema against the reference's, row
# locks of the quota charge, the fuzz's MariaDB half) and the unit test on the real Keystone
FAST='(kind(lib) | kind(bin) | binary_id(api::*) | binary_id(octavia-db::*) | binary_id(ovsdb::fake_server) | binary_id(ovsdb::property) | binary_id(amphora-provider::*) | binary_id(oslo-messaging::*))'
# oslo-messaging::rabbitmq casts through the stack's RabbitMQ; octavia-db::connections kills
# pooled connections on the stack's MariaDB
FAST+=' - binary_id(api::deadlock_retry) - binary_id(octavia-db::schema) - binary_id(oslo-messaging::rabbitmq) - binary_id(octavia-db::connections)'
FAST+=' - test(=hostile_input_mariadb) - test(=quota_charge_does_not_hold_other_projects_writes)'
FAST+=' - test(=wiring::tests::bogus_token_on_the_real_keystone_is_401)'
exec cargo nextest run --locked --workspace --no-fail-fast -E "$FAST" "$@"
