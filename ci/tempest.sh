#!/usr/bin/env bash
# Score Keel with octavia-tempest-plugin, configured as the OVN upstream CI job (by hand; not
# part of ci/test.sh — a full api.v2 run takes ~10 min at 1-s polling, ~40 min at the CI's).
#   1. ci/stack/up.sh (the real services; idempotent);
#   2. builds keel (debug unless KEEL_PROFILE=release);
#   3. starts `keel serve` on 127.0.0.1:9876 (the catalog's load-balancer endpoint) with a fresh
#      SQLite database in a temp directory (KEEL_DB=mariadb: a fresh `keel_test_tempest`
#      database in the stack's MariaDB instead),
#      keystone auth as the octavia service user, the stack's Neutron and OVN NB/SB;
#   4. runs ci/stack/tempest.sh with the caller's TEMPEST_* knobs (see ci/stack/README.md:
#      TEMPEST_IPV6, TEMPEST_REGEX, TEMPEST_CHECK_INTERVAL, TEMPEST_LB_BUILD_INTERVAL, ...);
#   5. stops that keel (by its PID) and prints where the summary is.
# Example: TEMPEST_IPV6=false TEMPEST_CHECK_INTERVAL=1 TEMPEST_LB_BUILD_INTERVAL=1 ci/tempest.sh
# KEEL_PROVIDER=amphora: Octavia's noop API job (octavia-v2-dsvm-noop-api) instead — Keel gets a
#   second config file with the amphora provider as default (amphora + ovn enabled), the stack's
#   transport URL (env.sh STACK_TRANSPORT_URL), [controller_worker] noop drivers, [keel]
#   run_agent = false, and the noop octavia-worker's database (STACK_WORKER_DB: Keel and the
#   worker MUST share one); ci/stack/tempest.sh runs with TEMPEST_PROVIDER=amphora
#   (test_with_noop = True, provider amphora, the job's feature flags). KEEL_DB is ignored.
#   KEEL_AMPHORA_NETWORK_DRIVER=allowed_address_pairs_driver (VIP ports in Neutron; implies
#   TEMPEST_NOOP=false: the plugin makes real networks): the same on real Neutron objects — not
#   the job's setup: no health manager here, so tests waiting for operating_status ONLINE time
#   out, the noop worker leaves VIP ports behind (network cleanup 409), and the AZ tests' random
#   management_network is refused (500) — the reference with the same drivers should do the same
#   (not run there).
# Keel's log: $STACK_STATE/tempest/last/keel.log. Exit status: tempest's.
# Not while ci/test.sh runs: this keel's agent holds the NB lock `keel_ovn_provider_agent`, which
# the agent tests then wait for in vain — unless KEEL_RUN_AGENT=false (`[keel] run_agent`: the
# API tests of tempest need no agent; the scenario tests' health statuses do).
set -euo pipefail

# The whole script is one function, parsed before it runs: editing this file during a run
# (a run takes minutes) cannot change what the running copy executes.
main() {
  root="$(cd "$(dirname "$0")/.." && pwd)"
  cd "$root"
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
  state="${STACK_STATE:-/var/tmp/keel-stack}"
  profile="${KEEL_PROFILE:-debug}"
  port=9876

  ci/stack/up.sh
  if [[ $profile == release ]]; then
    cargo build --release -p keel
  else
    cargo build --locked -p keel --bin keel
  fi
  keel="$CARGO_TARGET_DIR/$profile/keel"

  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "ci/tempest.sh: 127.0.0.1:$port is already taken (another keel or the reference?)" >&2
    exit 1
  fi

  work="$(mktemp -d /var/tmp/keel-tempest.XXXXXX)"
  provider="${KEEL_PROVIDER:-ovn}"
  case $provider in
    ovn) ;;
    amphora)
      # Keel and the noop octavia-worker share the worker's database (the worker reads every
      # object from it); the transport URL is the worker's (vhost "/")
      # shellcheck disable=SC1091
      source ci/stack/env.sh admin 2>/dev/null
      [[ -n ${STACK_WORKER_DB:-} && -n ${STACK_TRANSPORT_URL:-} ]] \
        || { echo "ci/tempest.sh: env.sh gave no STACK_WORKER_DB/STACK_TRANSPORT_URL" >&2; exit 1; }
      transport_url=$STACK_TRANSPORT_URL
      KEEL_DB=worker
      export TEMPEST_PROVIDER=amphora
      # VIP ports in Neutron: the plugin must make real networks (test_with_noop = False)
      [[ ${KEEL_AMPHORA_NETWORK_DRIVER:-network_noop_driver} == network_noop_driver ]] \
        || export TEMPEST_NOOP="${TEMPEST_NOOP:-false}" ;;
    *) echo "ci/tempest.sh: KEEL_PROVIDER must be ovn or amphora" >&2; exit 1 ;;
  esac
  case "${KEEL_DB:-sqlite}" in
    worker) db_url="${STACK_WORKER_DB%%\?*}" ;; # its URL without the ?charset= query
    sqlite) db_url="sqlite://$work/keel.sqlite?mode=rwc" ;;
    mariadb) # a fresh keel_test_tempest database in the stack's MariaDB (user keel)
      mysql -h 127.0.0.1 -P 3306 -u keel -pkeel-db-pass \
        -e 'DROP DATABASE IF EXISTS keel_test_tempest; CREATE DATABASE keel_test_tempest'
      db_url="mysql://keel:keel-db-pass@127.0.0.1:3306/keel_test_tempest" ;;
    *) echo "ci/tempest.sh: KEEL_DB must be sqlite or mariadb" >&2; exit 1 ;;
  esac
  conf="$work/keel.conf"
  ci/keel-conf.sh "$port" "$db_url" >"$conf"
  conf_args=(--config-file "$conf")
  if [[ $provider == amphora ]]; then
    # a second config file, whose values win (as oslo.config's): the amphora provider as the
    # upstream noop API job has it (crates/keel/tests/amphora.rs `amphora_conf`)
    amp="$work/amphora.conf"
    cat >"$amp" <<CONF
[DEFAULT]
transport_url = $transport_url

[api_settings]
enabled_provider_drivers = amphora:The Octavia Amphora driver.,ovn:OVN provider driver
default_provider_driver = amphora

[database]
connection = $db_url

[controller_worker]
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver
network_driver = ${KEEL_AMPHORA_NETWORK_DRIVER:-network_noop_driver}
image_driver = image_noop_driver
volume_driver = volume_noop_driver
loadbalancer_topology = SINGLE

[certificates]
cert_manager = noop_cert_manager

[keel]
run_agent = false
CONF
    conf_args+=(--config-file "$amp")
  fi

  "$keel" "${conf_args[@]}" db upgrade
  NO_COLOR=1 RUST_LOG="${RUST_LOG:-info}" "$keel" "${conf_args[@]}" serve >"$work/keel.log" 2>&1 &
  keel_pid=$!
  stop_keel() {
    if kill -0 "$keel_pid" 2>/dev/null; then
      kill "$keel_pid" 2>/dev/null || true
      wait "$keel_pid" 2>/dev/null || true
    fi
  }
  trap stop_keel EXIT
  for _ in $(seq 1 50); do
    curl -sf -m 2 "http://127.0.0.1:$port/" >/dev/null && break
    kill -0 "$keel_pid" 2>/dev/null || { cat "$work/keel.log" >&2; echo "keel exited" >&2; exit 1; }
    sleep 0.2
  done
  echo "keel pid $keel_pid on 127.0.0.1:$port (config $conf, log $work/keel.log)" >&2

  rc=0
  ci/stack/tempest.sh || rc=$?
  stop_keel
  trap - EXIT
  last="$state/tempest/last"
  cp "$work/keel.log" "$last/keel.log" 2>/dev/null || true
  echo "tempest summary: $last/summary.txt (failed: $last/failed.txt, log: $last/tempest.log, keel: $last/keel.log)"
  return "$rc"
}

main "$@"
