#!/usr/bin/env bash
# The micro-benchmarks (criterion) against a baseline kept in the repository.
#
#   bench/micro.sh save      # run them, keep the result as the baseline (bench/micro-baseline/)
#   bench/micro.sh compare   # run them, and criterion says per case: change, p-value, noise
#   bench/micro.sh           # run them, no baseline (criterion compares with its last run)
#
# Cases: crates/ovn-provider/benches/hot_paths.rs (external_ids framing of a 1,000-member pool,
# frame_vips, the status tree; replica lookups and scoped snapshots on the stack's NB when it
# answers). criterion keeps a baseline under $CARGO_TARGET_DIR/criterion/<group>/<case>/<name>/;
# `save` copies those directories here (a few KB of JSON per case), `compare` puts them back
# before the run, so a clean clone or another machine compares against the same baseline. The
# ovsdb client's comparison with the Python IDL is a macro benchmark: `cargo bench -p ovsdb
# --bench nb`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=ci/toolchain.sh
source ci/toolchain.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
name=keel-main
kept="$root/bench/micro-baseline"
crit="$CARGO_TARGET_DIR/criterion"
bench=(cargo bench --locked -p ovn-provider --bench hot_paths --)

case "${1:-run}" in
  save)
    "${bench[@]}" --save-baseline "$name"
    rm -rf "$kept"
    (cd "$crit" && find . -type d -name "$name" -print0) | while IFS= read -r -d '' d; do
      mkdir -p "$kept/$d"
      cp "$crit/$d"/*.json "$kept/$d/"
    done
    echo "bench/micro.sh: baseline $name kept in bench/micro-baseline ($(find "$kept" -name estimates.json | wc -l) cases)"
    ;;
  compare)
    [[ -d $kept ]] || { echo "bench/micro.sh: no baseline in bench/micro-baseline; run 'bench/micro.sh save' first" >&2; exit 1; }
    mkdir -p "$crit"
    (cd "$kept" && find . -type d -name "$name" -print0) | while IFS= read -r -d '' d; do
      mkdir -p "$crit/$d"
      cp "$kept/$d"/*.json "$crit/$d/"
    done
    "${bench[@]}" --baseline "$name"
    ;;
  run) "${bench[@]}" ;;
  *) echo "usage: bench/micro.sh [save|compare]" >&2; exit 2 ;;
esac
