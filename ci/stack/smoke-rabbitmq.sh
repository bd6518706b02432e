#!/usr/bin/env bash
# Smoke test of the private RabbitMQ node + the noop octavia-worker (after up.sh):
#  1. queue octavia_provisioning_v2 on vhost "/" has ≥ 1 consumer;
#  2. a load balancer row (PENDING_CREATE, provider amphora, topology SINGLE), its vip row and
#     a quotas row (in_use_load_balancer 1, as the API counts it) are inserted into the worker's
#     database, then create_load_balancer is cast with oslo.messaging
#     (the venv's, as Octavia's amphora provider driver casts it); the worker must set it ACTIVE
#     within 60 s; then delete_load_balancer is cast and it must become DELETED within 60 s;
#  3. a recorder queue bound to exchange `octavia` (routing key octavia_provisioning_v2) gets a
#     copy of the cast: its AMQP properties and body are printed, and so are the exchanges,
#     queues and bindings oslo.messaging declared (rabbitmqctl).
# `--keep`: leave the load balancer ACTIVE (no delete). Exit 0 = pass.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
KEEP=0; [[ ${1:-} == --keep ]] && KEEP=1
CTL=("$STACK_DIR/rabbitmq.sh" ctl)
pid_alive rabbitmq || die "RabbitMQ is not running (up.sh)"
pid_alive octavia-worker || die "octavia-worker is not running (up.sh)"

n=$("${CTL[@]}" list_queues -q -p / name consumers | awk '$1 == "octavia_provisioning_v2" {print $2}')
[[ ${n:-0} -ge 1 ]] || die "queue octavia_provisioning_v2 on vhost / has ${n:-no} consumer(s)"
log "queue octavia_provisioning_v2 on vhost /: $n consumer(s)"

export PYTHONWARNINGS="ignore" SMOKE_URL="$TRANSPORT_URL" SMOKE_KEEP="$KEEP" \
       SMOKE_DB_PORT="$STACK_DB_PORT" SMOKE_DB_PASS="$DB_PASS" SMOKE_DB_NAME="$WORKER_DB_NAME" \
       SMOKE_AMQP_HOST="$HOST" SMOKE_AMQP_PORT="$RABBIT_PORT" SMOKE_USER="$RABBIT_USER" SMOKE_PASS="$RABBIT_PASS"
"$VENV/bin/python" - <<'EOF'
import json, os, sys, time, uuid
import kombu, pymysql
from oslo_config import cfg
import oslo_messaging as messaging

def say(*a): print('[smoke]', *a, flush=True)

u = os.environ
db = pymysql.connect(host=u['SMOKE_AMQP_HOST'], port=int(u['SMOKE_DB_PORT']), user='octavia',
                     password=u['SMOKE_DB_PASS'], database=u['SMOKE_DB_NAME'], autocommit=True)
lb_id, project = str(uuid.uuid4()), 'keel-smoke-' + uuid.uuid4().hex[:8]
port_id, subnet_id, net_id = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
with db.cursor() as c:
    c.execute("INSERT INTO load_balancer (project_id, id, name, provisioning_status, operating_status,"
              " enabled, topology, created_at, provider) VALUES (%s,%s,%s,'PENDING_CREATE','OFFLINE',1,"
              "'SINGLE',UTC_TIMESTAMP(),'amphora')", (project, lb_id, 'smoke-rabbitmq'))
    c.execute("INSERT INTO vip (load_balancer_id, ip_address, port_id, subnet_id, network_id, octavia_owned)"
              " VALUES (%s,'10.99.0.10',%s,%s,%s,1)", (lb_id, port_id, subnet_id, net_id))
    # the API counts the LB in the project's quota usage; the worker's delete flow decrements it
    c.execute("INSERT INTO quotas (project_id, in_use_load_balancer) VALUES (%s, 1)", (project,))
say('inserted load_balancer', lb_id, 'PENDING_CREATE amphora SINGLE (+ vip 10.99.0.10)')

# A recorder queue bound like the worker's: a copy of every cast on this routing key.
conn = kombu.Connection(hostname=u['SMOKE_AMQP_HOST'], port=int(u['SMOKE_AMQP_PORT']),
                        userid=u['SMOKE_USER'], password=u['SMOKE_PASS'], virtual_host='/')
chan = conn.channel()
recorder = kombu.Queue('keel-smoke-recorder-' + uuid.uuid4().hex[:8],
                       kombu.Exchange('octavia', type='topic', durable=False, auto_delete=False, passive=True),
                       routing_key='octavia_provisioning_v2', exclusive=True, auto_delete=True)
recorder(chan).declare()

cfg.CONF([], project='keel-smoke', default_config_files=[])
messaging.set_transport_defaults(control_exchange='octavia')   # as octavia.common.config
transport = messaging.get_rpc_transport(cfg.CONF, url=u['SMOKE_URL'])
target = messaging.Target(namespace='controller', topic='octavia_provisioning_v2', version='2.0', fanout=False)
client = messaging.get_rpc_client(transport, target)
lb = {'loadbalancer_id': lb_id, 'project_id': project, 'name': 'smoke-rabbitmq', 'description': None,
      'admin_state_up': True, 'vip_address': '10.99.0.10', 'vip_port_id': port_id,
      'vip_subnet_id': subnet_id, 'vip_network_id': net_id, 'vip_qos_policy_id': None,
      'listeners': [], 'pools': [], 'flavor': None, 'availability_zone': None}

def wait_status(want, t0, bound=60):
    while time.monotonic() - t0 < bound:
        with db.cursor() as c:
            c.execute("SELECT provisioning_status FROM load_balancer WHERE id=%s", (lb_id,))
            st = c.fetchone()[0]
        if st == want:
            return time.monotonic() - t0
        if st == 'ERROR':
            break
        time.sleep(0.05)
    say(f'FAIL: load balancer {lb_id} is {st}, not {want}, after {time.monotonic() - t0:.1f} s')
    sys.exit(1)

t0 = time.monotonic()
client.cast({}, 'create_load_balancer', loadbalancer=lb, flavor=None, availability_zone=None)
t_cast = time.monotonic() - t0
dt = wait_status('ACTIVE', t0)
say(f'create_load_balancer cast in {t_cast*1000:.0f} ms; ACTIVE {dt:.2f} s after the cast')
with db.cursor() as c:
    c.execute("SELECT id, role, status, compute_id, lb_network_ip FROM amphora WHERE load_balancer_id=%s", (lb_id,))
    for r in c.fetchall():
        say('amphora row:', r)
    c.execute("SELECT operating_status FROM load_balancer WHERE id=%s", (lb_id,))
    say('operating_status:', c.fetchone()[0])

m = None
for _ in range(50):
    m = recorder(chan).get(no_ack=True)
    if m: break
    time.sleep(0.1)
if not m:
    say('FAIL: the recorder queue got no copy of the cast'); sys.exit(1)
props = {k: v for k, v in m.properties.items() if k != 'application_headers'}
say('recorded cast: delivery_info', {k: m.delivery_info.get(k) for k in ('exchange', 'routing_key')})
say('recorded cast: properties', json.dumps(props, sort_keys=True, default=str))
say('recorded cast: headers', json.dumps(m.headers, sort_keys=True, default=str))
body = json.loads(m.body)
inner = json.loads(body['oslo.message'])
say('recorded cast: body keys', sorted(body), '| oslo.version', body['oslo.version'])
say('recorded cast: oslo.message', json.dumps(inner, sort_keys=True))

if u['SMOKE_KEEP'] != '1':
    t0 = time.monotonic()
    client.cast({}, 'delete_load_balancer', loadbalancer=lb, cascade=False)
    dt = wait_status('DELETED', t0)
    say(f'delete_load_balancer: DELETED {dt:.2f} s after the cast')
    with db.cursor() as c:
        c.execute("SELECT in_use_load_balancer FROM quotas WHERE project_id=%s", (project,))
        say('quota in_use_load_balancer after the delete:', c.fetchone()[0])
        c.execute("DELETE FROM quotas WHERE project_id=%s", (project,))
transport.cleanup(); conn.release()
EOF
log "what oslo.messaging declared on vhost / (rabbitmqctl):"
"${CTL[@]}" list_exchanges -p / name type durable auto_delete internal arguments | grep -E 'octavia|^name' | sed 's/^/  exchange: /'
"${CTL[@]}" list_queues -p / name durable auto_delete exclusive arguments consumers | grep -E 'octavia|^name' | sed 's/^/  queue: /'
"${CTL[@]}" list_bindings -p / source_name destination_name routing_key | grep -E 'octavia|^source' | sed 's/^/  binding: /'
log "smoke-rabbitmq: PASS"
