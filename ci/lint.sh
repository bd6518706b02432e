#!/usr/bin/env bash
# House rules CI enforces before the tests: rustfmt's layout, clippy with every warning an
# error (the workspace lints forbid unwrap/expect/panic outside tests; functions of library and
# binary code stay under clippy.toml's line bound, known exceptions marked), no import cycle between
# the modules of a crate (ci/module_cycles.py), every doc example compiled and run (nextest
# skips doctests), the API docs built with every rustdoc warning (a broken intra-doc link) an
# error, no dependency a crate declares but never uses (cargo-machete), no misspelling in the
# tracked files (typos; what it must let pass is in _typos.toml), and the dependency graph held
# to deny.toml (cargo-deny: licences, crates.io as the only source, no wildcard requirement,
# duplicate versions warned).
#
# The three tools are installed once, pinned, under $KEEL_TOOLS with `cargo install --locked`;
# a first install on this 2-core machine takes: cargo-machete ~3 min, typos-cli 245 s,
# cargo-deny 242 s. Once there, typos adds ~1 s and cargo-deny ~2 s to the lint.
#
# cargo-deny's `advisories` check is not run: it needs the RustSec advisory database, a git
# repository on GitHub, and CI and the developers' machines reach only the package registries.
# Running it would take a copy of that database vendored into the repository (or a mirror
# reachable from here), refreshed by hand, with `[advisories] db-path` pointing at it and
# cargo-deny run with `--disable-fetch`; until then no advisory is checked.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ci/toolchain.sh
source ci/toolchain.sh   # the pinned toolchain (rust-toolchain.toml), linked offline
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
tools="${KEEL_TOOLS:-/var/tmp/keel-tools}"
machete_version=0.9.2
typos_version=1.52.0
deny_version=0.20.2

# `cargo install` of a pinned version, unless that version is already under $tools
install() { # crate binary version
  if [[ " $("$tools/bin/$2" --version 2>/dev/null)" != *" $3" ]]; then
    cargo install --locked --quiet --root "$tools" --version "$3" "$1"
  fi
}

cargo fmt --all --check
python3 ci/module_cycles.py
cargo clippy --locked --workspace --all-targets -- -D warnings
# functions under clippy.toml's bound (100 lines) in library and binary code; tests exempt
cargo clippy --locked --workspace --lib --bins -- -D warnings -D clippy::too_many_lines
cargo test --locked --workspace --doc
RUSTDOCFLAGS="-D warnings" cargo doc --locked --workspace --no-deps
install cargo-machete cargo-machete "$machete_version"
"$tools/bin/cargo-machete"
install typos-cli typos "$typos_version"
"$tools/bin/typos"
install cargo-deny cargo-deny "$deny_version"
"$tools/bin/cargo-deny" --locked check bans licenses sources
