#!/usr/bin/env python3
"""MariaDB commit rate: one connection, single-row UPDATE + COMMIT per
transaction, for --seconds (default 10). Reports commits/s, latency
p50/p95 and the server's durability settings.

Connects (default) as the `octavia` DB user over TCP 127.0.0.1:3306 and
uses a scratch table `zz_refbench` in the `octavia` database, dropped at
the end (Octavia never reads it).

Usage: $STACK_STATE/venv/bin/python bench/mariadb_commit.py [--seconds 10]
"""
import argparse
import json
import time

import pymysql

ap = argparse.ArgumentParser(description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--host', default='127.0.0.1')
ap.add_argument('--port', type=int, default=3306)
ap.add_argument('--user', default='octavia')
ap.add_argument('--password', default='refstack-db-pass')
ap.add_argument('--database', default='octavia')
ap.add_argument('--seconds', type=float, default=10)
ap.add_argument('--json', default=None)
a = ap.parse_args()

conn = pymysql.connect(host=a.host, port=a.port, user=a.user, password=a.password,
                       database=a.database, autocommit=False)
cur = conn.cursor()
settings = {}
for v in ('innodb_flush_log_at_trx_commit', 'sync_binlog', 'log_bin',
          'innodb_flush_method', 'innodb_doublewrite', 'version'):
    cur.execute('SHOW VARIABLES LIKE %s', (v,))
    r = cur.fetchone()
    settings[v] = r[1] if r else None
cur.execute('CREATE TABLE IF NOT EXISTS zz_refbench (id INT PRIMARY KEY, '
            'n BIGINT NOT NULL, note VARCHAR(255)) ENGINE=InnoDB')
cur.execute('REPLACE INTO zz_refbench VALUES (1, 0, %s)', ('x' * 64,))
conn.commit()
lat = []
n = 0
t0 = time.perf_counter()
t_end = t0 + a.seconds
try:
    while time.perf_counter() < t_end:
        t1 = time.perf_counter()
        cur.execute('UPDATE zz_refbench SET n = n + 1 WHERE id = 1')
        conn.commit()
        lat.append((time.perf_counter() - t1) * 1000)
        n += 1
    wall = time.perf_counter() - t0
finally:
    cur.execute('DROP TABLE IF EXISTS zz_refbench')
    conn.commit()
    conn.close()
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(round((len(lat) - 1) * q / 100)))]
out = {'commits': n, 'seconds': wall, 'commits_per_s': n / wall,
       'lat_ms_p50': p(50), 'lat_ms_p95': p(95), 'lat_ms_p99': p(99),
       'server': settings}
print(json.dumps(out, indent=1))
if a.json:
    with open(a.json, 'w') as f:
        json.dump(out, f, indent=1)
