# shellcheck shell=bash
# shellcheck disable=SC2034  # used by the bench scripts that source this file
# The bench scripts' addresses on the stack of $STACK_SLOT (ci/stack/common.sh: state dir and
# every port moved by STACK_SLOT×1000). Sourced, never run. Sets (each overridable):
#   STATE / STACK_STATE   the slot's state dir          BENCH_PY   the stack venv's python
#   KEEL_BENCH_PORT       bench Keel, 9878 + offset     REF_PORT   the reference, 9877 + offset
#   BENCH_DB_HOSTPORT     MariaDB 127.0.0.1:(3306 + offset)
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/ci/stack/common.sh"
export STACK_SLOT STACK_STATE
: "${KEEL_BENCH_PORT:=$((9878 + _slot_off))}"
: "${REF_PORT:=$((9877 + _slot_off))}"
BENCH_DB_HOSTPORT="$HOST:$STACK_DB_PORT"
BENCH_PY="$VENV/bin/python"
