#!/usr/bin/env bash
# The README's test command: starts the real services (OVN NB/SB ovsdb-server + ovn-northd,
# MariaDB, Keystone, Neutron — ci/stack/, idempotent) and runs every test of the workspace
# against them. Extra arguments go to the test runner (e.g. a test name filter).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"

ci/stack/install.sh
ci/stack/up.sh
# OS_* for the admin persona, STACK_* addresses for the tests, the stack venv (openstack CLI) on PATH.
# shellcheck disable=SC1091
source ci/stack/env.sh admin

cargo build --locked --workspace --all-targets
# `keel ovn-db-sync`'s end-to-end test damages NB rows on purpose; OVN provider agents of other
# tests (each follows the whole shared NB/SB) would react to that damage, so it runs alone,
# after the rest.
serial='test(/ovn_db_sync_restores/)'
if cargo nextest --version >/dev/null 2>&1; then
  rc=0
  cargo nextest run --locked --workspace --no-fail-fast -E "not $serial" "$@" || rc=$?
  cargo nextest run --locked -p keel --no-fail-fast -E "$serial" "$@" || rc=$?
  exit $rc
else
  cargo test --locked --workspace --no-fail-fast -- --skip ovn_db_sync_restores "$@"
  cargo test --locked -p keel --test ovn_db_sync --no-fail-fast "$@"
fi
