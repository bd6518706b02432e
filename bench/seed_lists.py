#!/usr/bin/env python3
"""Seed N load balancers straight into an Octavia database (Keel's or the reference's: the
schema is the same), for the list benchmark (bench/list_scale.py).

Each LB: ACTIVE/ONLINE, provider ovn, name `scale-lb-<i>`, a VIP row, tags `scale` and
`grp-<i % 10>`, one TCP listener on port 80 (its default pool), one pool (SOURCE_IP_PORT) with
10 members. Rows go in multi-row INSERTs, 500 LBs per transaction. `--clean` deletes every
row this script wrote (by the `scale-` name prefix and the project). `--vips ports.json`
(bench/restore_ports.py): the VIPs are those real Neutron ports, on their network and subnet,
and the members addresses of that subnet (10.128.250.1-10), one LB per port.

  PY=/var/tmp/keel-stack/venv/bin/python
  $PY bench/seed_lists.py --db mysql://keel:keel-db-pass@127.0.0.1:3306/keel_test_bench \
      --project <project id> --n 10000
  $PY bench/seed_lists.py --db ... --project <id> --clean
"""
import argparse
import datetime
import json
import time
import urllib.parse
import uuid

import pymysql

SUBNET = '5c8ed3f1-33f6-4a8b-a3a5-0d5ab9a1c0de'
NETWORK = '0e9a5ffd-4d1b-4b2b-9e46-1d7c4b3f6a11'


def connect(url):
    u = urllib.parse.urlparse(url)
    return pymysql.connect(host=u.hostname, port=u.port or 3306, user=u.username,
                           password=u.password, database=u.path.lstrip('/'),
                           autocommit=False)


def insert(cur, table, cols, rows):
    if not rows:
        return
    marks = '(' + ', '.join(['%s'] * len(cols)) + ')'
    sql = f"INSERT INTO `{table}` ({', '.join(f'`{c}`' for c in cols)}) VALUES "
    for k in range(0, len(rows), 1000):
        chunk = rows[k:k + 1000]
        cur.execute(sql + ', '.join([marks] * len(chunk)),
                    [v for r in chunk for v in r])


def seed(conn, project, n, start, vips=None):
    subnet, network = SUBNET, NETWORK
    if vips:
        subnet, network = vips['subnet_id'], vips['network_id']
        n = min(n, len(vips['ports']) - start)
    base = datetime.datetime(2026, 1, 1)
    t0 = time.time()
    for lo in range(start, start + n, 500):
        hi = min(lo + 500, start + n)
        lbs, vips_rows, tags, listeners, pools, members = [], [], [], [], [], []
        for i in range(lo, hi):
            lb, ls, pl = (str(uuid.uuid4()) for _ in range(3))
            at = base + datetime.timedelta(seconds=i)
            lbs.append((project, lb, f'scale-lb-{i}', None, 'ACTIVE', 'ONLINE', 1, at, 'ovn'))
            if vips:
                port_id, ip = vips['ports'][i]
            else:
                port_id, ip = str(uuid.uuid4()), f'10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}'
            vips_rows.append((lb, ip, port_id, subnet, network, 1, 'normal'))
            tags += [(lb, 'scale'), (lb, f'grp-{i % 10}')]
            pools.append((project, pl, f'scale-pool-{i}', 'TCP', 'SOURCE_IP_PORT', 'ONLINE', 1,
                          lb, at, 'ACTIVE', 0))
            listeners.append((project, ls, f'scale-listener-{i}', 'TCP', 80, -1, lb, pl,
                              'ACTIVE', 'ONLINE', 1, at, 50000, 5000, 50000, 0, 'NONE'))
            for m in range(10):
                address = f'10.128.250.{m + 1}' if vips else f'10.99.0.{m + 1}'
                members.append((project, str(uuid.uuid4()), pl, subnet, address,
                                8080, 1, 'ONLINE', 1, at, 'ACTIVE', 0, 'normal'))
        cur = conn.cursor()
        insert(cur, 'load_balancer', ['project_id', 'id', 'name', 'description',
                                      'provisioning_status', 'operating_status', 'enabled',
                                      'created_at', 'provider'], lbs)
        insert(cur, 'vip', ['load_balancer_id', 'ip_address', 'port_id', 'subnet_id',
                            'network_id', 'octavia_owned', 'vnic_type'], vips_rows)
        insert(cur, 'tags', ['resource_id', 'tag'], tags)
        insert(cur, 'pool', ['project_id', 'id', 'name', 'protocol', 'lb_algorithm',
                             'operating_status', 'enabled', 'load_balancer_id', 'created_at',
                             'provisioning_status', 'tls_enabled'], pools)
        insert(cur, 'listener', ['project_id', 'id', 'name', 'protocol', 'protocol_port',
                                 'connection_limit', 'load_balancer_id', 'default_pool_id',
                                 'provisioning_status', 'operating_status', 'enabled',
                                 'created_at', 'timeout_client_data', 'timeout_member_connect',
                                 'timeout_member_data', 'timeout_tcp_inspect',
                                 'client_authentication'], listeners)
        insert(cur, 'member', ['project_id', 'id', 'pool_id', 'subnet_id', 'ip_address',
                               'protocol_port', 'weight', 'operating_status', 'enabled',
                               'created_at', 'provisioning_status', 'backup', 'vnic_type'],
               members)
        conn.commit()
    print(f'seeded {n} LBs ({n * 10} members) in {time.time() - t0:.1f} s')


def clean(conn, project):
    cur = conn.cursor()
    lbs = "SELECT `id` FROM `load_balancer` WHERE `project_id` = %s AND `name` LIKE 'scale-lb-%%'"
    pools = f"SELECT `id` FROM `pool` WHERE `load_balancer_id` IN ({lbs})"
    steps = [
        f"DELETE FROM `member` WHERE `pool_id` IN ({pools})",
        f"DELETE FROM `listener` WHERE `load_balancer_id` IN ({lbs})",
        f"DELETE FROM `pool` WHERE `load_balancer_id` IN ({lbs})",
        f"DELETE FROM `tags` WHERE `resource_id` IN ({lbs})",
        f"DELETE FROM `vip` WHERE `load_balancer_id` IN ({lbs})",
        "DELETE FROM `load_balancer` WHERE `project_id` = %s AND `name` LIKE 'scale-lb-%%'",
    ]
    for s in steps:
        cur.execute(s, [project])
    conn.commit()
    print('cleaned')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--db', required=True, help='mysql://user:pass@host:port/db')
    p.add_argument('--project', required=True)
    p.add_argument('--n', type=int, default=10000)
    p.add_argument('--start', type=int, default=0, help='first index (to add more)')
    p.add_argument('--clean', action='store_true')
    p.add_argument('--vips', default=None, help='ports.json of bench/restore_ports.py')
    a = p.parse_args()
    conn = connect(a.db)
    if a.clean:
        clean(conn, a.project)
    else:
        vips = None
        if a.vips:
            with open(a.vips) as f:
                vips = json.load(f)
        seed(conn, a.project, a.n, a.start, vips)


if __name__ == '__main__':
    main()
