#!/usr/bin/env python3
"""Raw OVSDB JSON-RPC client (RFC 7047) for the OVN Northbound DB: physical
limits of ovsdb-server, and bulk Load_Balancer rows for scale tests.

No ovs/ovsdbapp library: JSON objects written to / parsed from the socket.

Subcommands (default socket: $STACK_STATE/run/ovnnb_db.sock; also
tcp:HOST:PORT):
  count                      number of Load_Balancer rows (and bench rows)
  latency  [--seconds 15]    one transaction outstanding at a time
  pipeline [--seconds 15 --depth 64]   N transactions outstanding
      both transact single-row `update`s of one Load_Balancer row's
      external_ids (the full map plus a changing key, as an IDL client
      would send it); the row is inserted first (with realistic columns)
      and deleted at the end. Reports transactions/s and latency p50/p95.
  insert   [--rows 10000 --per-txn 1000]  insert fake-but-realistic
      Load_Balancer rows (name = uuid, protocol tcp, vips with 2 backends,
      external_ids like ovn-octavia-provider's: neutron:vip,
      neutron:vip_port_id, enabled, listener_x, pool_y with 2 members,
      ls_refs, neutron:member_status, plus a marker key
      refstack-bench=scale) NOT referenced by any Logical_Switch/Router.
  busy-switch [--rows 10000]  one Logical_Switch of a busy provider network:
      --rows Neutron-shaped ports (addresses "MAC IP", neutron:cidrs), one
      router interface (type router, options:router-port) of a
      Logical_Router, and a probe Load_Balancer named busy-probe-lb whose
      ls_refs names the switch (the switch references it), with one member
      on a port of the switch: what an API step on an LB of that network
      reads (hot_paths bench, HOT_PATHS_LBS=busy-probe-lb).
  delete                     delete every row carrying the marker key
      (also the busy-switch rows).

Usage: $STACK_STATE/venv/bin/python bench/ovsdb_raw.py latency
"""
import argparse
import json
import os
import re
import socket
import time
import uuid

DB = 'OVN_Northbound'
MARK = ('refstack-bench', 'scale')
_TOK = re.compile(r'[{}"\\]')


class Ovsdb:
    def __init__(self, remote):
        if remote.startswith('tcp:'):
            _, host, port = remote.split(':')
            self.sock = socket.create_connection((host, int(port)))
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        else:
            path = remote[5:] if remote.startswith('unix:') else remote
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(path)
        self.buf = ''          # undecoded text
        self.scan = 0          # scan position in buf
        self.depth = 0
        self.in_str = False
        self.esc = False
        self.next_id = 0
        self.dec = json.JSONDecoder()

    def send(self, obj):
        self.sock.sendall(json.dumps(obj, separators=(',', ':')).encode())

    def request(self, method, params):
        self.next_id += 1
        self.send({'method': method, 'params': params, 'id': self.next_id})
        return self.next_id

    def _messages(self):
        """Yield complete JSON messages already in self.buf."""
        out = []
        i = self.scan
        buf = self.buf
        start = 0
        if self.esc:
            if i >= len(buf):
                return out
            i += 1
            self.esc = False
        while True:
            m = _TOK.search(buf, i)
            if m is None:
                break
            ch = m.group()
            i = m.end()
            if self.in_str:
                if ch == '\\':
                    # the escaped char is the next one, whatever it is
                    if i < len(buf):
                        i += 1
                    else:
                        self.esc = True
                        break
                elif ch == '"':
                    self.in_str = False
                continue
            if ch == '"':
                self.in_str = True
            elif ch == '{':
                self.depth += 1
            elif ch == '}':
                self.depth -= 1
                if self.depth == 0:
                    out.append(json.loads(buf[start:i]))
                    start = i
        self.buf = buf[start:]
        self.scan = i - start
        return out

    def recv(self):
        """Return the list of complete messages, blocking for at least one.
        Answers echo requests itself."""
        while True:
            msgs = self._messages()
            res = []
            for m in msgs:
                if m.get('method') == 'echo':
                    self.send({'result': m.get('params', []), 'error': None, 'id': m['id']})
                else:
                    res.append(m)
            if res:
                return res
            data = self.sock.recv(1 << 20)
            if not data:
                raise ConnectionError('ovsdb-server closed the connection')
            self.buf += data.decode()

    def call(self, method, params):
        rid = self.request(method, params)
        while True:
            for m in self.recv():
                if m.get('id') == rid:
                    if m.get('error'):
                        raise RuntimeError(m['error'])
                    return m['result']

    def transact(self, *ops):
        res = self.call('transact', [DB, *ops])
        for r in res:
            if isinstance(r, dict) and 'error' in r:
                raise RuntimeError(f'transact error: {res}')
        return res


def omap(d):
    return ['map', [[k, v] for k, v in d.items()]]


def fake_lb_row(i, marker=True):
    """A Load_Balancer row shaped like ovn-octavia-provider's (one TCP
    listener :80, one SOURCE_IP_PORT pool, 2 members)."""
    u = lambda: str(uuid.uuid4())
    lb_id, lis, pool, sub, net, rtr = u(), u(), u(), u(), u(), u()
    m1, m2 = u(), u()
    vip = f'172.{16 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}'
    b1 = f'10.{(i >> 8) & 255}.{i & 255}.10'
    b2 = f'10.{(i >> 8) & 255}.{i & 255}.11'
    ext = {
        'enabled': 'True',
        'neutron:vip': vip,
        'neutron:vip_port_id': u(),
        f'listener_{lis}': f'80:pool_{pool}',
        f'pool_{pool}': f'member_{m1}_{b1}:8080_{sub},member_{m2}_{b2}:8080_{sub}',
        'ls_refs': json.dumps({f'neutron-{net}': 1}),
        'lr_ref': f'neutron-{rtr}',
        'neutron:member_status': json.dumps({m1: 'NO_MONITOR', m2: 'NO_MONITOR'}),
    }
    if marker:
        ext[MARK[0]] = MARK[1]
    return {
        'name': lb_id,
        'protocol': ['set', ['tcp']],
        'vips': omap({f'{vip}:80': f'{b1}:8080,{b2}:8080'}),
        'selection_fields': ['set', ['ip_dst', 'ip_src', 'tp_dst', 'tp_src']],
        'external_ids': omap(ext),
    }


def busy_switch(db, rows):
    """The busy-switch fixture (module docs); every row carries the marker."""
    u = lambda: str(uuid.uuid4())
    net, rif, rtr, lis, pool, sub, m1 = u(), u(), u(), u(), u(), u(), u()
    ls_name = f'neutron-{net}'
    mark = dict([MARK])
    ops, ports = [], []

    def ip(i):
        return f'10.{64 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}'
    for i in range(rows):
        pid = u()
        ports.append(['named-uuid', f'p{i}'])
        ops.append({'op': 'insert', 'table': 'Logical_Switch_Port', 'uuid-name': f'p{i}',
                    'row': {'name': pid,
                            'addresses': ['set', [f'fa:16:3e:{(i >> 16) & 255:02x}:{(i >> 8) & 255:02x}:{i & 255:02x} {ip(i + 2)}']],
                            'external_ids': omap({**mark, 'neutron:cidrs': f'{ip(i + 2)}/10',
                                                  'neutron:device_owner': 'compute:nova',
                                                  'neutron:network_name': ls_name})}})
    ports.append(['named-uuid', 'rif'])
    ops.append({'op': 'insert', 'table': 'Logical_Switch_Port', 'uuid-name': 'rif',
                'row': {'name': rif, 'type': 'router', 'addresses': ['set', ['router']],
                        'options': omap({'router-port': f'lrp-{rif}'}),
                        'external_ids': omap({**mark, 'neutron:device_owner': 'network:router_interface',
                                              'neutron:device_id': rtr,
                                              'neutron:network_name': ls_name})}})
    ops.append({'op': 'insert', 'table': 'Logical_Router_Port', 'uuid-name': 'lrp',
                'row': {'name': f'lrp-{rif}', 'mac': 'fa:16:3e:ff:ff:01', 'networks': '10.64.0.1/10',
                        'external_ids': omap({**mark, 'neutron:network_name': ls_name})}})
    ops.append({'op': 'insert', 'table': 'Logical_Router',
                'row': {'name': f'neutron-{rtr}', 'ports': ['set', [['named-uuid', 'lrp']]],
                        'load_balancer': ['set', [['named-uuid', 'lb']]],
                        'external_ids': omap(mark)}})
    vip, member = ip(1), ip(2)
    ops.append({'op': 'insert', 'table': 'Load_Balancer', 'uuid-name': 'lb',
                'row': {'name': 'busy-probe-lb', 'protocol': ['set', ['tcp']],
                        'vips': omap({f'{vip}:80': f'{member}:8080'}),
                        'external_ids': omap({**mark, 'enabled': 'True', 'neutron:vip': vip,
                                              'neutron:vip_port_id': u(),
                                              f'listener_{lis}': f'80:pool_{pool}',
                                              f'pool_{pool}': f'member_{m1}_{member}:8080_{sub}',
                                              'ls_refs': json.dumps({ls_name: 2}),
                                              'lr_ref': f'neutron-{rtr}',
                                              'neutron:member_status': json.dumps({m1: 'NO_MONITOR'})})}})
    ops.append({'op': 'insert', 'table': 'Logical_Switch',
                'row': {'name': ls_name, 'ports': ['set', ports],
                        'load_balancer': ['set', [['named-uuid', 'lb']]],
                        'external_ids': omap({**mark, 'neutron:network_name': f'busy-{rows}'})}})
    t0 = time.perf_counter()
    db.transact(*ops)
    return {'switch': ls_name, 'ports': rows + 1, 'load_balancer': 'busy-probe-lb',
            'member': member, 'seconds': time.perf_counter() - t0}


def count(db):
    r = db.transact({'op': 'select', 'table': 'Load_Balancer', 'where': [],
                     'columns': ['_uuid']},
                    {'op': 'select', 'table': 'Load_Balancer',
                     'where': [['external_ids', 'includes', omap(dict([MARK]))]],
                     'columns': ['_uuid']})
    return len(r[0]['rows']), len(r[1]['rows'])


def pct(v, p):
    v = sorted(v)
    if not v:
        return float('nan')
    k = (len(v) - 1) * p / 100
    f = int(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def bench(db, seconds, depth):
    row = fake_lb_row(0, marker=False)
    row['name'] = 'refstack-bench-' + str(uuid.uuid4())
    r = db.transact({'op': 'insert', 'table': 'Load_Balancer', 'row': row})
    lb_uuid = r[0]['uuid'][1]
    base = dict(row['external_ids'][1])
    where = [['_uuid', '==', ['uuid', lb_uuid]]]
    sent = {}
    lat = []
    n_done = 0
    seq = 0

    def send_one():
        nonlocal seq
        seq += 1
        ext = dict(base)
        ext['refstack-bench:seq'] = str(seq)
        rid = db.request('transact', [DB, {'op': 'update', 'table': 'Load_Balancer',
                                           'where': where, 'row': {'external_ids': omap(ext)}}])
        sent[rid] = time.perf_counter()

    try:
        t0 = time.perf_counter()
        t_end = t0 + seconds
        for _ in range(depth):
            send_one()
        while sent:
            for m in db.recv():
                rid = m.get('id')
                if rid not in sent:
                    continue
                lat.append((time.perf_counter() - sent.pop(rid)) * 1000)
                res = m.get('result')
                if m.get('error') or not res or res[0].get('count') != 1:
                    raise RuntimeError(f'bad reply: {m}')
                n_done += 1
                if time.perf_counter() < t_end:
                    send_one()
        wall = time.perf_counter() - t0
    finally:
        db.transact({'op': 'delete', 'table': 'Load_Balancer', 'where': where})
    return {'depth': depth, 'seconds': wall, 'txns': n_done, 'txn_per_s': n_done / wall,
            'lat_ms_p50': pct(lat, 50), 'lat_ms_p95': pct(lat, 95),
            'lat_ms_p99': pct(lat, 99)}


def main():
    state = os.environ.get('STACK_STATE') or os.environ.get('REFSTACK_STATE', '/var/tmp/keel-stack')
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('cmd', choices=['count', 'latency', 'pipeline', 'insert', 'busy-switch', 'delete'])
    ap.add_argument('--remote', default=f'unix:{state}/run/ovnnb_db.sock')
    ap.add_argument('--seconds', type=float, default=15)
    ap.add_argument('--depth', type=int, default=64)
    ap.add_argument('--rows', type=int, default=10000)
    ap.add_argument('--per-txn', type=int, default=1000)
    ap.add_argument('--json', default=None)
    a = ap.parse_args()
    db = Ovsdb(a.remote)
    out = {'cmd': a.cmd, 'remote': a.remote}
    if a.cmd == 'count':
        out['load_balancers'], out['bench_rows'] = count(db)
    elif a.cmd in ('latency', 'pipeline'):
        out.update(bench(db, a.seconds, 1 if a.cmd == 'latency' else a.depth))
    elif a.cmd == 'insert':
        before = count(db)
        t0 = time.perf_counter()
        done = 0
        while done < a.rows:
            n = min(a.per_txn, a.rows - done)
            ops = [{'op': 'insert', 'table': 'Load_Balancer', 'row': fake_lb_row(done + k)}
                   for k in range(n)]
            t1 = time.perf_counter()
            db.transact(*ops)
            done += n
            print(f'  inserted {done}/{a.rows} ({(time.perf_counter() - t1) * 1000:.0f} ms for {n})',
                  flush=True)
        out.update({'rows': a.rows, 'per_txn': a.per_txn,
                    'seconds': time.perf_counter() - t0,
                    'before': before, 'after': count(db)})
    elif a.cmd == 'busy-switch':
        out.update(busy_switch(db, a.rows))
    elif a.cmd == 'delete':
        before = count(db)
        t0 = time.perf_counter()
        marked = [['external_ids', 'includes', omap(dict([MARK]))]]
        # parents first: a switch or router holds its ports (strong references)
        r = db.transact(*[{'op': 'delete', 'table': t, 'where': marked}
                          for t in ('Logical_Switch', 'Logical_Router', 'Load_Balancer',
                                    'Logical_Switch_Port', 'Logical_Router_Port')])
        out.update({'deleted': r[2].get('count'), 'seconds': time.perf_counter() - t0,
                    'deleted_rows': {t: x.get('count') for t, x in zip(
                        ('Logical_Switch', 'Logical_Router', 'Load_Balancer',
                         'Logical_Switch_Port', 'Logical_Router_Port'), r)},
                    'before': before, 'after': count(db)})
    print(json.dumps(out, indent=1))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)


if __name__ == '__main__':
    main()
