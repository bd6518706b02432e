#!/usr/bin/env python3
"""The floor of one API step on this machine: what any implementation of Octavia's contract
pays for a listener create until ACTIVE, as lbsteps.py's client sees it, before doing any
work of its own.

Three parts, each timed back to back (no idle between samples, which flatters the floor),
interleaved sample by sample so that the machine's state is the same for all three:

  http2   the client's two requests of a step (the POST, the GET that sees ACTIVE), as two
          `GET /` of the load-balancer endpoint on one kept-alive `requests` session: no
          auth, no database, the server's least work
  commit  one durable MariaDB commit (a one-row UPDATE + COMMIT, pymysql): the accepted
          change must be on disk before the API answers
  nb_txn  one OVSDB transaction on the Northbound (a one-row update of a Load_Balancer row
          this script inserts and deletes, ovsdb_raw.py's client)

floor1 = http2 + commit + nb_txn   (one commit per step: the least any design can do)
floor2 = http2 + 2 x commit + nb_txn   (Octavia's two: the accepted change, then the outcome)

With --ref-ms (the reference's p50 for the step, measured in the same run) it prints the
largest ratio each floor allows. The parts are timed from Python clients; Keel's own
histograms (`keel_stage_duration_seconds`, bench/stages.py) give the Rust-side figures.

Usage:
  source ci/stack/env.sh demo
  $STACK_STATE/venv/bin/python bench/floor.py --endpoint http://127.0.0.1:9878 \
      --db-user keel --db-password keel-db-pass --db keel_test_bench [--samples 300] [--ref-ms 187]
"""
import argparse
import json
import os
import statistics
import time
import uuid

import pymysql
import requests

from ovsdb_raw import DB, Ovsdb, fake_lb_row, omap

state = os.environ.get('STACK_STATE', '/var/tmp/keel-stack')
ap = argparse.ArgumentParser(description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--endpoint', required=True, help='load-balancer API base URL')
ap.add_argument('--db-host', default='127.0.0.1')
ap.add_argument('--db-port', type=int, default=3306)
ap.add_argument('--db-user', default='keel')
ap.add_argument('--db-password', default='keel-db-pass')
ap.add_argument('--db', default='keel_test_bench', help='a database the user may create a '
                'scratch table in (zz_floor, dropped at the end)')
ap.add_argument('--nb', default=f'unix:{state}/run/ovnnb_db.sock')
ap.add_argument('--samples', type=int, default=300)
ap.add_argument('--ref-ms', type=float, default=None,
                help="the reference's p50 for the step, from the same run")
ap.add_argument('--json', default=None)
a = ap.parse_args()

http = requests.Session()
base = a.endpoint.rstrip('/') + '/'

sql = pymysql.connect(host=a.db_host, port=a.db_port, user=a.db_user, password=a.db_password,
                      database=a.db, autocommit=False)
cur = sql.cursor()
cur.execute('CREATE TABLE IF NOT EXISTS zz_floor (id INT PRIMARY KEY, n BIGINT NOT NULL) '
            'ENGINE=InnoDB')
cur.execute('REPLACE INTO zz_floor VALUES (1, 0)')
sql.commit()

nb = Ovsdb(a.nb)
row = fake_lb_row(0, marker=False)
row['name'] = 'keel-floor-' + str(uuid.uuid4())
lb_uuid = nb.transact({'op': 'insert', 'table': 'Load_Balancer', 'row': row})[0]['uuid'][1]
where = [['_uuid', '==', ['uuid', lb_uuid]]]
ext = dict(row['external_ids'][1])


def timed(fn):
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def two_gets():
    for _ in range(2):
        r = http.get(base, timeout=30)
        r.raise_for_status()


def one_commit():
    cur.execute('UPDATE zz_floor SET n = n + 1 WHERE id = 1')
    sql.commit()


seq = 0


def one_nb_txn():
    global seq
    seq += 1
    ext['keel-floor:seq'] = str(seq)
    res = nb.transact({'op': 'update', 'table': 'Load_Balancer', 'where': where,
                       'row': {'external_ids': omap(ext)}})
    if res[0].get('count') != 1:
        raise RuntimeError(f'bad reply: {res}')


parts = {'http2': [], 'commit': [], 'nb_txn': []}
try:
    for _ in range(10):  # warm-up, discarded
        two_gets(), one_commit(), one_nb_txn()
    for _ in range(a.samples):
        parts['http2'].append(timed(two_gets))
        parts['commit'].append(timed(one_commit))
        parts['nb_txn'].append(timed(one_nb_txn))
finally:
    nb.transact({'op': 'delete', 'table': 'Load_Balancer', 'where': where})
    cur.execute('DROP TABLE IF EXISTS zz_floor')
    sql.commit()
    sql.close()

p50 = {k: statistics.median(v) for k, v in parts.items()}
floor1 = p50['http2'] + p50['commit'] + p50['nb_txn']
floor2 = floor1 + p50['commit']
out = {'samples': a.samples, 'p50_ms': p50, 'floor1_ms': floor1, 'floor2_ms': floor2}
for k, v in p50.items():
    print(f'  {k:8} p50 {v:6.2f} ms')
print(f'  floor, one commit:  {floor1:6.2f} ms')
print(f'  floor, two commits: {floor2:6.2f} ms')
if a.ref_ms:
    out['ref_ms'] = a.ref_ms
    out['max_ratio_one_commit'] = a.ref_ms / floor1
    out['max_ratio_two_commits'] = a.ref_ms / floor2
    print(f'  reference {a.ref_ms:.1f} ms: at most x{a.ref_ms / floor1:.0f} (one commit), '
          f'x{a.ref_ms / floor2:.0f} (two); x60 needs {a.ref_ms / 60:.2f} ms')
if a.json:
    with open(a.json, 'w') as f:
        json.dump(out, f, indent=1)
