#!/usr/bin/env bash
# The README's test command: starts the real services (OVN NB/SB ovsdb-server + ovn-northd,
# MariaDB, Keystone, Neutron — ci/stack/, idempotent) and runs every test of the workspace
# against them. Extra arguments go to the test runner (e.g. a test name filter).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=ci/toolchain.sh
source ci/toolchain.sh   # the pinned toolchain (rust-toolchain.toml), linked offline
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
# one-shot builds: incremental caches only grow the shared target dir (it filled the disk)
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# The compute side too (real Glance, Nova, Cinder: ci/stack/README.md "Compute side"; ~70 s of
# pip once, ~145 s to start from nothing, 1.4 GiB): the amphora provider's flavor and zone
# checks and the deployment tools' own octavia.conf (real compute and image drivers) run
# against them. STACK_COMPUTE=0 leaves them out; those tests then use the noop drivers.
export STACK_COMPUTE="${STACK_COMPUTE:-1}"
ci/stack/install.sh
ci/stack/up.sh
# no provider agent but the tests' own may follow this NB/SB (a Python agent of a
# STACK_REFERENCE=1 stack, a ci/serve.sh): refuse, naming it
ci/stack/foreign-agents.sh
# OS_* for the admin persona, STACK_* addresses for the tests, the stack venv (openstack CLI) on PATH.
# shellcheck disable=SC1091
source ci/stack/env.sh admin

cargo build --locked --workspace --all-targets
# Two profiles of .config/nextest.toml: `ci`, everything but the tests that run an OVN provider
# agent, in parallel; then `ci-serial`, those (every test binary of crates/keel runs `keel
# serve`; keel::traffic sends real connections through the data plane up.sh starts: 2 tests,
# 4.3 min at load 10), one at a time, after the rest.
if cargo nextest --version >/dev/null 2>&1; then
  rc=0
  # nextest's output is kept to find FLAKY tests (passed on a retry: `--retries` given here or
  # NEXTEST_RETRIES); .config/nextest.toml retries nothing, and a flaky test fails the run
  nextest_log="$(mktemp /tmp/keel-nextest.XXXXXX)"
  trap 'rm -f "$nextest_log"' EXIT
  nextest() { cargo nextest run --color "${NEXTEST_COLOR:-auto}" "$@" 2>&1 | tee -a "$nextest_log"; }
  nextest --locked --workspace --no-fail-fast --profile ci "$@" || rc=$?
  nextest --locked --workspace --no-fail-fast --profile ci-serial "$@" || rc=$?
  # The amphora provider's checks against real Nova, Glance and Cinder: `#[ignore]`d tests,
  # since only a STACK_COMPUTE=1 stack has those services (ci/stack/env.sh then exports
  # STACK_NOVA_URL); one at a time, as every keel test binary runs `keel serve`.
  if [[ -n ${STACK_NOVA_URL:-} && $# == 0 ]]; then
    nextest --locked --workspace --no-fail-fast --run-ignored only --test-threads 1 \
      -E 'binary(compute_checks) | binary(compute_services)' || rc=$?
  fi
  flaky="$(sed 's/\x1b\[[0-9;]*m//g' "$nextest_log" | grep -E '^ *FLAKY ' || true)"
  if [[ -n $flaky ]]; then
    echo "ci/test.sh: FAILED: nextest reports FLAKY tests (passed only on a retry); a flaky test is a failure here:" >&2
    echo "$flaky" >&2
    rc=1
  fi
  # The short slices of the by-hand suites (ci/slices.sh: tempest with the amphora provider,
  # the casts differential and the amphora migration beside the Python reference; ~7 min);
  # KEEL_CI_SLICES=0 skips them.
  if [[ ${KEEL_CI_SLICES:-1} == 1 && $# == 0 ]]; then ci/slices.sh || rc=$?; fi
  # The HA topology's short slice (ci/ha/ci.sh: Galera tests, one window per fault kind,
  # takeover.sh; ~9 min, ci/ha/README.md "The CI slice"); KEEL_CI_HA=0 skips it.
  if [[ ${KEEL_CI_HA:-1} == 1 && $# == 0 ]]; then ci/ha/ci.sh || rc=$?; fi
  # The OCI image (ci/image/: a debootstrap'd Debian base + the debug `keel` just built) run
  # as kolla's and helm's containers run it: ~4 min on a fresh machine, 15 s once the base exists.
  if [[ ${KEEL_CI_IMAGE:-1} == 1 && $# == 0 ]]; then
    { KEEL_BIN="$CARGO_TARGET_DIR/debug/keel" ci/image/build.sh && ci/image/smoke.sh; } || rc=$?
  fi
  exit $rc
else
  cargo test --locked --workspace --no-fail-fast -- --test-threads 1 "$@"
fi
