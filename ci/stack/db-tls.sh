#!/usr/bin/env bash
# A second, TLS-only MariaDB of the stack, for Keel's `[database] connection = …?ssl_ca=…`
# tests: its own datadir, $HOST:$STACK_DB_TLS_PORT, `require_secure_transport = ON` (a
# plaintext login is refused), a private CA made here with the openssl CLI.
#
#   db-tls.sh [up]   make the CA, server and client certificates if missing, initialise the
#                    datadir if missing, start the server unless it runs (PID in
#                    $RUN/mariadb-tls.pid, stopped by down.sh), create the users; prints the
#                    settings as shell assignments
#   db-tls.sh env    print the assignments only
#
# Users (all privileges on `keel_test%` databases): `keel` with $KEEL_DB_PASS (TLS, any
# client), `keel_x509` with $KEEL_DB_PASS and REQUIRE SUBJECT '/CN=keel-db-client' (a client
# certificate of the CA is needed). Files in $STACK_DB_TLS_DIR (default $STATE/db-tls):
# ca.pem, server.pem (SAN IP:127.0.0.1, DNS:localhost), client.pem/client.key, and other-ca.pem
# (a CA that signed nothing here: the "wrong CA" of the tests).
# Knobs: STACK_DB_TLS=0 on up.sh skips it; STACK_DB_TLS_PORT (default 3316 + slot offset).
# Timings (2 cores): first run ~6 s (certificates, mariadb-install-db, start), later ~2 s.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

: "${STACK_DB_TLS_DIR:=$STATE/db-tls}"
D="$STACK_DB_TLS_DIR"
TLSDATA="$STATE/mysql-tls"
TLSSOCK="$RUN/mysql-tls/mysqld.sock"

print_env() {
  cat <<EOF
STACK_DB_TLS_PORT=$STACK_DB_TLS_PORT
STACK_DB_TLS_CA=$D/ca.pem
STACK_DB_TLS_OTHER_CA=$D/other-ca.pem
STACK_DB_TLS_CLIENT_CERT=$D/client.pem
STACK_DB_TLS_CLIENT_KEY=$D/client.key
EOF
}

case "${1:-up}" in
  env) print_env; exit 0 ;;
  up) ;;
  *) die "usage: db-tls.sh [up|env]" ;;
esac

mkdir -p "$D" "$RUN/mysql-tls" "$LOGS/mariadb"
if [[ ! -s $D/client.key ]]; then
  # P-256 keys, 30 days; the server's SAN is what ssl_check_hostname compares with.
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  openssl req -x509 "${ec[@]}" -keyout "$D/ca.key" -out "$D/ca.pem" -days 30 \
      -subj "/CN=keel stack DB CA $(date +%s%N)" >/dev/null 2>&1 || die "openssl: DB CA"
  openssl req -x509 "${ec[@]}" -keyout "$D/other-ca.key" -out "$D/other-ca.pem" -days 30 \
      -subj "/CN=keel stack unrelated CA $(date +%s%N)" >/dev/null 2>&1 || die "openssl: other CA"
  for who in server client; do
    openssl req "${ec[@]}" -keyout "$D/$who.key" -out "$D/$who.csr" \
        -subj "/CN=$([[ $who == server ]] && echo 127.0.0.1 || echo keel-db-client)" >/dev/null 2>&1 \
        || die "openssl: $who key"
    if [[ $who == server ]]; then
      printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$D/$who.ext"
    else
      printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n' >"$D/$who.ext"
    fi
    openssl x509 -req -in "$D/$who.csr" -CA "$D/ca.pem" -CAkey "$D/ca.key" -CAcreateserial \
        -out "$D/$who.pem" -days 30 -extfile "$D/$who.ext" >/dev/null 2>&1 || die "openssl: $who certificate"
  done
  # mariadbd runs as mysql; the tests (root) read the client files.
  chown mysql:mysql "$D/server.key"; chmod 600 "$D"/*.key
fi

chown mysql:mysql "$RUN/mysql-tls" "$LOGS/mariadb"
if pid_alive mariadb-tls; then
  log "MariaDB TLS: already running (pid $(cat "$RUN/mariadb-tls.pid"))"
else
  port_busy "$STACK_DB_TLS_PORT" && die "MariaDB TLS: $HOST:$STACK_DB_TLS_PORT is taken (set STACK_DB_TLS_PORT)"
  if [[ ! -d $TLSDATA/mysql ]]; then
    mkdir -p "$TLSDATA"; chown mysql:mysql "$TLSDATA"
    mariadb-install-db --no-defaults --user=mysql --datadir="$TLSDATA" \
      --auth-root-authentication-method=socket --skip-test-db >"$LOGS/mariadb-tls-install-db.log" 2>&1 \
      || die "mariadb-install-db (TLS) failed, see $LOGS/mariadb-tls-install-db.log"
  fi
  start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "$RUN/mariadb-tls.pid" \
    --exec /usr/sbin/mariadbd -- --no-defaults --user=mysql --datadir="$TLSDATA" \
    --socket="$TLSSOCK" --port="$STACK_DB_TLS_PORT" --bind-address="$HOST" \
    --log-error="$LOGS/mariadb/mariadb-tls.log" --pid-file="$RUN/mysql-tls/mariadbd.pid" \
    --ssl-ca="$D/ca.pem" --ssl-cert="$D/server.pem" --ssl-key="$D/server.key" \
    --require-secure-transport=ON --max-connections=100 --innodb-buffer-pool-size=16M \
    --performance-schema=OFF --character-set-server=utf8mb4
  for _ in $(seq 60); do mariadb-admin --no-defaults --socket="$TLSSOCK" ping >/dev/null 2>&1 && break; sleep 0.5; done
  mariadb-admin --no-defaults --socket="$TLSSOCK" ping >/dev/null \
    || die "MariaDB TLS not answering, see $LOGS/mariadb/mariadb-tls.log"
  log "MariaDB TLS: started (pid $(cat "$RUN/mariadb-tls.pid")) on $HOST:$STACK_DB_TLS_PORT, datadir $TLSDATA"
fi
sql=""
for h in localhost 127.0.0.1; do
  sql+="CREATE USER IF NOT EXISTS 'keel'@'$h' IDENTIFIED BY '$KEEL_DB_PASS';
        ALTER USER 'keel'@'$h' IDENTIFIED BY '$KEEL_DB_PASS' REQUIRE SSL;
        GRANT ALL PRIVILEGES ON "'`keel\_test%`'".* TO 'keel'@'$h';
        CREATE USER IF NOT EXISTS 'keel_x509'@'$h' IDENTIFIED BY '$KEEL_DB_PASS';
        ALTER USER 'keel_x509'@'$h' IDENTIFIED BY '$KEEL_DB_PASS' REQUIRE SUBJECT '/CN=keel-db-client';
        GRANT ALL PRIVILEGES ON "'`keel\_test%`'".* TO 'keel_x509'@'$h';"
done
mariadb --no-defaults --socket="$TLSSOCK" -u root -e "$sql" || die "MariaDB TLS: creating users failed"
print_env
