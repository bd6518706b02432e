#!/usr/bin/env bash
# Smoke test of the image built by build.sh, run by hand (about a minute; results in
# ci/image/README.md). Needs the stack's OVN NB/SB up (`ci/stack/up.sh`, STACK_SLOT honoured)
# and root. Each container gets its own SQLite database under $STATE/smoke and no Neutron
# or Keystone credentials (auth_strategy = noauth), so it can never sweep another
# deployment's VIP ports; `[keel] run_agent = false`, so it never takes the agent's NB lock.
#
# 1. kolla-ansible's way: config.json as octavia-api.json.j2 renders it, bootstrap container
#    (KOLLA_BOOTSTRAP → octavia-db-manage upgrade head + upgrade_persistence, exit 0), then the
#    service container (kolla_start → uwsgi /etc/octavia/octavia-api-uwsgi.ini as octavia):
#    time from `podman run` to the first 200 on GET /, healthcheck_curl inside, `podman stop`
#    (SIGTERM) → exit status 0.
# 2. openstack-helm's way: `uwsgi --ini /etc/octavia/octavia-api-uwsgi.ini` as the command,
#    /etc/octavia/octavia.conf and octavia.conf.d/ mounted: GET /healthcheck, stop → 0.
# 3. RHOSO's octavia-operator way: the pod's `/bin/bash -c /usr/local/bin/kolla_start` as
#    octavia (42437, runAsNonRoot) with the operator's config.json (octavia-api-config.json:
#    command `/usr/sbin/httpd -DFOREGROUND`) copying /var/lib/config-data/merged's
#    octavia.conf, custom.conf, httpd.conf (the operator's, from the deploy_tools test data),
#    ssl.conf and my.cnf into place: first 200, GET /healthcheck, stop → 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
STATE="${KEEL_IMAGE_STATE:-/var/tmp/keel-image}"
IMAGE="${KEEL_IMAGE:-localhost/keel:latest}"
# shellcheck source=ci/image/podman-env.sh
source ci/image/podman-env.sh
slot="${STACK_SLOT:-0}"
NB="tcp:127.0.0.1:$((6641 + slot * 1000))"
SB="tcp:127.0.0.1:$((6642 + slot * 1000))"
PORT="${KEEL_SMOKE_PORT:-$((19876 + slot))}"
log() { echo "[smoke $(date +%H:%M:%S)] $*"; }
fail() { log "FAIL: $*"; exit 1; }
ms() { date +%s%3N; }
first_200() { # url bound_s → ms until 200
  local start=$1 url=$2 deadline=$(( $(date +%s) + 60 ))
  until [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url")" == 200 ]]; do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.05
  done
  echo $(( $(ms) - start ))
}
cleanup() { podman rm -f keel-smoke-kolla keel-smoke-helm keel-smoke-rhoso >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup

dir="$STATE/smoke"
rm -rf "$dir" && mkdir -p "$dir/kolla" "$dir/db" "$dir/helm/octavia.conf.d" "$dir/rhoso/merged"
chown 42437:42437 "$dir/db"
conf() { # the database path, [DEFAULT] lines
  cat <<CONF
[DEFAULT]
$2
[api_settings]
auth_strategy = noauth
[database]
connection = sqlite:///$1
[ovn]
ovn_nb_connection = $NB
ovn_sb_connection = $SB
[keel]
run_agent = false
CONF
}
conf /var/lib/octavia/kolla.sqlite "log_dir = /var/log/kolla/octavia
log_file = octavia-api.log" > "$dir/kolla/octavia.conf"
cat > "$dir/kolla/octavia-api-uwsgi.ini" <<INI
[uwsgi]
add-header = Connection: close
buffer-size = 65535
die-on-term = true
enable-threads = true
exit-on-reload = false
hook-master-start = unix_signal:15 gracefully_kill_them_all
http = 127.0.0.1:$PORT
http-auto-chunked = true
http-chunked-input = true
http-raw-body = true
lazy-apps = true
logto2 = /var/log/kolla/octavia/octavia-api-uwsgi.log
logfile-chmod = 644
master = true
module = octavia.wsgi.api:application
plugins-dir = /usr/lib/uwsgi/plugins
plugins = python3
processes = 2
socket-timeout = 30
thunder-lock = true
uid = octavia
worker-reload-mercy = 80
static-map = /static=/var/lib/kolla/venv/lib/python3/site-packages/static
INI
cat > "$dir/kolla/config.json" <<'JSON'
{
    "command": "uwsgi /etc/octavia/octavia-api-uwsgi.ini",
    "config_files": [
        {"source": "/var/lib/kolla/config_files/octavia.conf", "dest": "/etc/octavia/octavia.conf", "owner": "octavia", "perm": "0600"},
        {"source": "/var/lib/kolla/config_files/octavia-api-uwsgi.ini", "dest": "/etc/octavia/octavia-api-uwsgi.ini", "owner": "octavia", "perm": "0600"}
    ],
    "directories": [
        {"path": "/var/log/kolla", "owner": "root:kolla", "perm": "2775"},
        {"path": "/var/log/kolla/octavia", "owner": "octavia:kolla", "perm": "2775"}
    ],
    "permissions": [
        {"path": "/var/log/kolla/octavia/*.log", "owner": "octavia:kolla", "perm": "0664"},
        {"path": "/var/run/octavia", "owner": "octavia:octavia"}
    ]
}
JSON
kolla_run=(--network host -e KOLLA_CONFIG_STRATEGY=COPY_ALWAYS
  -v "$dir/kolla:/var/lib/kolla/config_files:ro" -v "$dir/db:/var/lib/octavia")

log "kolla bootstrap container (KOLLA_BOOTSTRAP)"
podman run --rm "${kolla_run[@]}" -e KOLLA_BOOTSTRAP= "$IMAGE" > "$dir/bootstrap.log" 2>&1 \
  || { cat "$dir/bootstrap.log"; fail "bootstrap exited non-zero"; }
grep -q "upgrade_persistence: nothing to do" "$dir/bootstrap.log" || fail "no upgrade_persistence line"
log "kolla service container"
t=$(ms)
podman run -d --name keel-smoke-kolla "${kolla_run[@]}" "$IMAGE" >/dev/null
ready=$(first_200 "$t" "http://127.0.0.1:$PORT/") || { podman logs keel-smoke-kolla; fail "no 200"; }
log "kolla: podman run → first 200 on GET /: $ready ms"
podman exec keel-smoke-kolla healthcheck_curl "http://127.0.0.1:$PORT" >/dev/null || fail "healthcheck_curl"
user=$(podman exec keel-smoke-kolla sh -c 'ps -o user= -p 1 2>/dev/null || stat -c %U /proc/1')
podman exec keel-smoke-kolla grep -q "keel serving the Octavia v2 API" /var/log/kolla/octavia/octavia-api.log \
  || fail "no start line in /var/log/kolla/octavia/octavia-api.log"
log "kolla: healthcheck_curl ok; PID 1 runs as $user; lines in /var/log/kolla/octavia/octavia-api.log"
podman stop -t 30 keel-smoke-kolla >/dev/null
code=$(podman inspect keel-smoke-kolla --format '{{.State.ExitCode}}')
[[ "$code" == 0 ]] || { podman logs keel-smoke-kolla | tail; fail "kolla exit status $code"; }
log "kolla: SIGTERM → exit status 0"

conf /var/lib/octavia/helm.sqlite "debug = False" > "$dir/helm/octavia.conf"
# only in the snippet directory: a 404 on /healthcheck would mean octavia.conf.d/ went unread
printf '[api_settings]\nhealthcheck_enabled = True\n' > "$dir/helm/octavia.conf.d/10-healthcheck.conf"
cat > "$dir/helm/octavia-api-uwsgi.ini" <<INI
[uwsgi]
add-header = Connection: close
buffer-size = 65535
die-on-term = true
enable-threads = true
exit-on-reload = false
hook-master-start = unix_signal:15 gracefully_kill_them_all
http-socket = 127.0.0.1:$PORT
lazy-apps = true
log-x-forwarded-for = true
master = true
module = octavia.wsgi.api:application
processes = 4
procname-prefix-spaced = octavia-api:
route-user-agent = ^kube-probe.* donotlog:
stats = 127.0.0.1:1717
stats-http = true
thunder-lock = true
worker-reload-mercy = 80
INI
log "helm: command uwsgi --ini (octavia.conf + octavia.conf.d/ read as oslo's defaults)"
t=$(ms)
podman run -d --name keel-smoke-helm --network host --user 42437:42437 \
  -v "$dir/helm/octavia.conf:/etc/octavia/octavia.conf:ro" \
  -v "$dir/helm/octavia.conf.d:/etc/octavia/octavia.conf.d:ro" \
  -v "$dir/helm/octavia-api-uwsgi.ini:/etc/octavia/octavia-api-uwsgi.ini:ro" \
  -v "$dir/db:/var/lib/octavia" \
  "$IMAGE" sh -c 'octavia-db-manage upgrade head && exec uwsgi --ini /etc/octavia/octavia-api-uwsgi.ini' >/dev/null
ready=$(first_200 "$t" "http://127.0.0.1:$PORT/") || { podman logs keel-smoke-helm; fail "no 200"; }
hc=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthcheck")
log "helm: podman run → first 200: $ready ms (db upgrade included); GET /healthcheck → $hc"
[[ "$hc" == 200 || "$hc" == 204 ]] || fail "healthcheck $hc"
podman stop -t 30 keel-smoke-helm >/dev/null
code=$(podman inspect keel-smoke-helm --format '{{.State.ExitCode}}')
[[ "$code" == 0 ]] || { podman logs keel-smoke-helm | tail; fail "helm exit status $code"; }
log "helm: SIGTERM → exit status 0"

data=crates/keel/tests/data/deploy/rhoso
m="$dir/rhoso/merged"
conf /var/lib/octavia/rhoso.sqlite "debug = True" > "$m/octavia.conf"
printf '[api_settings]\nhealthcheck_enabled = True\n' > "$m/custom.conf"
# the operator's files with the image's paths and this smoke's port (on 127.0.0.1 only)
sed -e 's|@SERVERROOT@|/etc/httpd|' -e "s|^Listen @PORT@|Listen 127.0.0.1:$PORT|" \
  -e "s|@PORT@|$PORT|g" "$data/httpd.conf" > "$m/httpd.conf"
cp "$data/ssl.conf" "$data/my.cnf" "$m/"
chmod 644 "$m"/*
# openstack-k8s-operators/octavia-operator templates/octaviaapi/config/octavia-api-config.json
# at 82a7a50a152950f587607344fbba1c0f912fb7cb (its entries, their order and options)
cat > "$dir/rhoso/config.json" <<'JSON'
{
    "command": "/usr/sbin/httpd -DFOREGROUND",
    "config_files": [
        {"source": "/var/lib/config-data/merged/octavia.conf", "dest": "/etc/octavia/octavia.conf", "owner": "octavia", "perm": "0600"},
        {"source": "/var/lib/config-data/merged/custom.conf", "dest": "/etc/octavia/octavia.conf.d/custom.conf", "owner": "octavia", "perm": "0600"},
        {"source": "/var/lib/config-data/merged/httpd.conf", "dest": "/etc/httpd/conf/httpd.conf", "owner": "root", "perm": "0644"},
        {"source": "/var/lib/config-data/merged/ssl.conf", "dest": "/etc/httpd/conf.d/ssl.conf", "owner": "root", "perm": "0644"},
        {"source": "/var/lib/config-data/tls/certs/*", "dest": "/etc/pki/tls/certs/", "owner": "octavia", "perm": "0440", "optional": true, "merge": true},
        {"source": "/var/lib/config-data/tls/private/*", "dest": "/etc/pki/tls/private/", "owner": "octavia", "perm": "0400", "optional": true, "merge": true},
        {"source": "/var/lib/config-data/merged/policy.yaml", "dest": "/etc/octavia/policy.yaml", "owner": "octavia", "perm": "0600", "optional": true},
        {"source": "/var/lib/config-data/merged/my.cnf", "dest": "/etc/my.cnf", "owner": "octavia", "perm": "0644"}
    ],
    "permissions": [
        {"path": "/run/octavia", "owner": "octavia:octavia", "recurse": true},
        {"path": "/etc/httpd/run/", "owner": "octavia:apache", "recurse": true}
    ]
}
JSON
chmod 644 "$dir/rhoso/config.json"
rhoso_run=(--network host --user 42437:42437 -e KOLLA_CONFIG_STRATEGY=COPY_ALWAYS
  -v "$dir/rhoso/config.json:/var/lib/kolla/config_files/config.json:ro"
  -v "$m:/var/lib/config-data/merged:ro" -v "$dir/db:/var/lib/octavia")
log "rhoso: db-sync (octavia-db-manage --config-file, as bootstrap.sh)"
podman run --rm "${rhoso_run[@]}" "$IMAGE" octavia-db-manage \
  --config-file /var/lib/config-data/merged/octavia.conf upgrade head > "$dir/rhoso-db.log" 2>&1 \
  || { cat "$dir/rhoso-db.log"; fail "rhoso db-sync"; }
log "rhoso: /bin/bash -c /usr/local/bin/kolla_start as 42437 → /usr/sbin/httpd -DFOREGROUND"
t=$(ms)
podman run -d --name keel-smoke-rhoso "${rhoso_run[@]}" "$IMAGE" \
  /bin/bash -c /usr/local/bin/kolla_start >/dev/null
ready=$(first_200 "$t" "http://127.0.0.1:$PORT/") || { podman logs keel-smoke-rhoso; fail "no 200"; }
hc=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthcheck")
log "rhoso: podman run → first 200: $ready ms; GET /healthcheck (the probes) → $hc"
[[ "$hc" == 200 || "$hc" == 204 ]] || fail "healthcheck $hc"
# (the whole log first: grep -q closing the pipe early would fail podman logs under pipefail)
rlog=$(podman logs keel-smoke-rhoso 2>&1)
grep -q "httpd option ignored option=WSGIDaemonProcess" <<<"$rlog" \
  || { tail <<<"$rlog"; fail "no ignored-directive line"; }
podman stop -t 30 keel-smoke-rhoso >/dev/null
code=$(podman inspect keel-smoke-rhoso --format '{{.State.ExitCode}}')
[[ "$code" == 0 ]] || { podman logs keel-smoke-rhoso | tail; fail "rhoso exit status $code"; }
log "rhoso: SIGTERM → exit status 0"
log "image $IMAGE: $(( $(podman image inspect "$IMAGE" --format '{{.Size}}') / 1000000 )) MB; PASS"
