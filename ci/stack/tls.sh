#!/usr/bin/env bash
# HTTPS in front of the stack's Keystone, Neutron and Barbican, and of the load-balancer API
# (Keel on $CATALOG_LB_PORT): Debian's haproxy as a TLS terminator on loopback, with a
# private CA made here with the openssl CLI.
#
#   tls.sh [up]     install haproxy if missing (apt, idempotent), make the CA and the
#                   server certificate if missing, start haproxy unless it runs; prints
#                   the URLs and the CA file as shell assignments
#   tls.sh down     stop the haproxy this script started (by its PID file)
#   tls.sh env      print the assignments only
#
# Knobs: STACK_TLS_DIR (default $STACK_STATE/tls: CA, certificate, haproxy.cfg, PID file),
# KEYSTONE_TLS_PORT / NEUTRON_TLS_PORT / BARBICAN_TLS_PORT / LB_TLS_PORT (15000 / 19696 /
# 19311 / 19876), and the backends' KEYSTONE_PORT / NEUTRON_PORT / BARBICAN_PORT /
# CATALOG_LB_PORT of common.sh. Several instances
# may run side by side with different STACK_TLS_DIR and ports (each its own CA): tests do.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

: "${STACK_TLS_DIR:=$STATE/tls}"
: "${KEYSTONE_TLS_PORT:=15000}"
: "${NEUTRON_TLS_PORT:=19696}"
: "${BARBICAN_TLS_PORT:=19311}"
: "${LB_TLS_PORT:=19876}"
D="$STACK_TLS_DIR"
PIDF="$D/haproxy.pid"

print_env() {
  cat <<EOF
STACK_TLS_CA=$D/ca.pem
STACK_KEYSTONE_HTTPS_URL=https://$HOST:$KEYSTONE_TLS_PORT/v3
STACK_NEUTRON_HTTPS_URL=https://$HOST:$NEUTRON_TLS_PORT
STACK_BARBICAN_HTTPS_URL=https://$HOST:$BARBICAN_TLS_PORT
STACK_LB_HTTPS_URL=https://$HOST:$LB_TLS_PORT
EOF
}

running() { [[ -s $PIDF ]] && kill -0 "$(cat "$PIDF")" 2>/dev/null; }

case "${1:-up}" in
  env) print_env; exit 0 ;;
  down)
    if running; then
      kill "$(cat "$PIDF")"
      log "tls: haproxy $(cat "$PIDF") stopped"
    fi
    rm -f "$PIDF"
    exit 0 ;;
  up) ;;
  *) die "usage: tls.sh [up|down|env]" ;;
esac

if ! command -v haproxy >/dev/null 2>&1; then
  log "apt: installing haproxy"
  mkdir -p "$LOGS"
  apt-get update -q >"$LOGS/apt-update.log" 2>&1
  # policy-rc.d 101: the package must not start a system-wide haproxy.
  prc=/usr/sbin/policy-rc.d; made_prc=0
  if [[ ! -e $prc ]]; then printf '#!/bin/sh\nexit 101\n' >"$prc"; chmod +x "$prc"; made_prc=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends haproxy \
      >"$LOGS/apt-install-haproxy.log" 2>&1 \
      || { ((made_prc)) && rm -f "$prc"; die "apt-get install haproxy failed, see $LOGS/apt-install-haproxy.log"; }
  ((made_prc)) && rm -f "$prc"
fi

mkdir -p "$D"
if [[ ! -s $D/server-bundle.pem ]]; then
  # A private CA and one server certificate for 127.0.0.1 / localhost (P-256, 30 days).
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
      -keyout "$D/ca.key" -out "$D/ca.pem" -days 30 -subj "/CN=keel stack test CA $(date +%s%N)" \
      >/dev/null 2>&1 || die "openssl: CA"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
      -keyout "$D/server.key" -out "$D/server.csr" -subj "/CN=127.0.0.1" >/dev/null 2>&1 \
      || die "openssl: server key"
  printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$D/server.ext"
  openssl x509 -req -in "$D/server.csr" -CA "$D/ca.pem" -CAkey "$D/ca.key" -CAcreateserial \
      -out "$D/server.pem" -days 30 -extfile "$D/server.ext" >/dev/null 2>&1 \
      || die "openssl: server certificate"
  cat "$D/server.pem" "$D/server.key" >"$D/server-bundle.pem"
  chmod 600 "$D"/*.key "$D/server-bundle.pem"
fi

if ! running; then
  for p in "$KEYSTONE_TLS_PORT" "$NEUTRON_TLS_PORT" "$BARBICAN_TLS_PORT" "$LB_TLS_PORT"; do
    port_busy "$p" && die "port $p is taken (set *_TLS_PORT)"
  done
  # Plain HTTP to the services behind; X-Forwarded-Proto tells them the client used https
  # (haproxy passes the client's Host on). The load-balancer backend may come up later.
  {
    printf 'global\n  maxconn 512\n\ndefaults\n  mode http\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\n\n'
    for svc in "keystone $KEYSTONE_TLS_PORT $KEYSTONE_PORT" "neutron $NEUTRON_TLS_PORT $NEUTRON_PORT" \
               "barbican $BARBICAN_TLS_PORT $BARBICAN_PORT" "load_balancer $LB_TLS_PORT $CATALOG_LB_PORT"; do
      read -r name front back <<<"$svc"
      printf 'frontend %s\n  bind %s:%s ssl crt %s\n  http-request set-header X-Forwarded-Proto https\n  default_backend %s_plain\n\n' \
        "$name" "$HOST" "$front" "$D/server-bundle.pem" "$name"
      printf 'backend %s_plain\n  server s1 %s:%s\n\n' "$name" "$HOST" "$back"
    done
  } >"$D/haproxy.cfg"
  haproxy -c -q -f "$D/haproxy.cfg" || die "haproxy.cfg invalid: $D/haproxy.cfg"
  haproxy -D -p "$PIDF" -f "$D/haproxy.cfg" || die "haproxy did not start"
  for p in "$KEYSTONE_TLS_PORT" "$NEUTRON_TLS_PORT" "$BARBICAN_TLS_PORT" "$LB_TLS_PORT"; do
    i=0
    until port_busy "$p"; do
      ((i++ < 400)) || die "haproxy does not listen on $p (20 s)"
      sleep 0.05
    done
  done
  log "tls: haproxy $(cat "$PIDF") on $KEYSTONE_TLS_PORT/$NEUTRON_TLS_PORT/$BARBICAN_TLS_PORT/$LB_TLS_PORT (CA $D/ca.pem)"
fi
print_env
