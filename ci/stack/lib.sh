# shellcheck shell=bash
# What the two scripts that start API services (up.sh, compute.sh) share: step timing, the
# keystone sections of their configs, starting a gunicorn-served API and waiting for it.
# Sourced after common.sh, never run; sourcing it starts the step clock.

T_START=$(date +%s)
# step_t: seconds since the sourcing script started, as `12s` (the `[…]` of its log lines).
step_t() { echo "$(( $(date +%s) - T_START ))s"; }

# refuse_busy NAME PORT: die if PORT is taken by something that is not ours.
refuse_busy() {
  if port_busy "$2"; then
    die "$1: 127.0.0.1:$2 is already in use by another process (another stack, e.g. refstack, running?): $(ss -Hltnp "( sport = :$2 )" 2>/dev/null | head -1)"
  fi
}

# dburl USER [DB]: the SQLAlchemy URL of database DB (default: named as USER) on the stack's
# MariaDB, as USER with $DB_PASS.
dburl() { echo "mysql+pymysql://$1:$DB_PASS@$HOST:$STACK_DB_PORT/${2:-$1}?charset=utf8mb4"; }

# db_user_sql USER:DB...: the SQL that creates each database DB (utf8mb4) and its USER at
# localhost and 127.0.0.1 with all privileges on it; idempotent, passwords reset to $DB_PASS.
db_user_sql() {
  local pair u db h
  for pair in "$@"; do
    u=${pair%%:*}; db=${pair#*:}
    echo "CREATE DATABASE IF NOT EXISTS $db CHARACTER SET utf8mb4;"
    for h in localhost 127.0.0.1; do
      echo "CREATE USER IF NOT EXISTS '$u'@'$h' IDENTIFIED BY '$DB_PASS';
            ALTER USER '$u'@'$h' IDENTIFIED BY '$DB_PASS';
            GRANT ALL PRIVILEGES ON $db.* TO '$u'@'$h';"
    done
  done
}

KS_URL="http://$HOST:$KEYSTONE_PORT"
# authtoken USER PASSWORD: the [keystone_authtoken] section of a service that validates tokens.
authtoken() {
  cat <<EOF
[keystone_authtoken]
www_authenticate_uri = $KS_URL
auth_url = $KS_URL
auth_type = password
username = $1
password = $2
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne
service_token_roles_required = true
EOF
}
# svc_auth SECTION USER PASSWORD [LINE...]: section SECTION with the password credentials of
# USER in project `service`, then each LINE (e.g. `valid_interfaces = public`).
svc_auth() {
  cat <<EOF
[$1]
auth_url = $KS_URL
auth_type = password
username = $2
password = $3
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne
EOF
  shift 3
  (( $# == 0 )) || printf '%s\n' "$@"
}

# start_gunicorn VENV WORKERS NAME PORT MODULE: unless $RUN/NAME.pid is alive, serves
# $ETC/wsgi/MODULE.py's `application` with VENV's gunicorn on $HOST:PORT in its own session,
# PID to $RUN/NAME.pid, logs $LOGS/NAME-access.log and $LOGS/NAME-gunicorn.log; dies when
# another process holds PORT. Variables set on the call (`VAR=x start_gunicorn …`) reach it.
start_gunicorn() {
  local venv=$1 workers=$2 name=$3 port=$4 mod=$5
  if pid_alive "$name"; then log "$name already running"; return; fi
  refuse_busy "$name" "$port"
  setsid "$venv/bin/gunicorn" --bind "$HOST:$port" --workers "$workers" \
    --timeout 300 --graceful-timeout 5 --chdir "$ETC/wsgi" \
    --access-logfile "$LOGS/$name-access.log" \
    "$mod:application" >>"$LOGS/$name-gunicorn.log" 2>&1 </dev/null &
  echo $! >"$RUN/$name.pid"
  log "$name started under gunicorn (pid $!) on $HOST:$port"
}

# wait_url NAME URL: waits up to 180 s for URL to answer, then dies unless NAME's PID lives.
wait_url() {
  wait_http "$2" 180 || die "$1 did not answer on $2; see $LOGS/$1*.log"
  pid_alive "$1" || die "$1 died; see $LOGS/$1*.log"
  log "$1 answers on $2  [$(step_t)]"
}
