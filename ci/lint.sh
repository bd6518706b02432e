#!/usr/bin/env bash
# House rules CI enforces before the tests: rustfmt's layout, clippy with every warning an
# error (the workspace lints forbid unwrap/expect/panic outside tests), no import cycle between
# the modules of a crate (ci/module_cycles.py), every doc example compiled and run (nextest
# skips doctests), the API docs built with every rustdoc warning (a broken intra-doc link) an
# error, and no dependency a crate declares but never uses (cargo-machete, installed once
# under $KEEL_TOOLS, ~3 min).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
tools="${KEEL_TOOLS:-/var/tmp/keel-tools}"
machete_version=0.9.2

cargo fmt --all --check
python3 ci/module_cycles.py
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo test --locked --workspace --doc
RUSTDOCFLAGS="-D warnings" cargo doc --locked --workspace --no-deps
if [[ "$("$tools/bin/cargo-machete" --version 2>/dev/null)" != *"$machete_version"* ]]; then
  cargo install --locked --quiet --root "$tools" --version "$machete_version" cargo-machete
fi
"$tools/bin/cargo-machete"
