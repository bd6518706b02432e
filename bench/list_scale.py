#!/usr/bin/env python3
"""Collection GETs over a large database (seed it with bench/seed_lists.py): the requests
monitoring, cloud controllers and dashboards make every few seconds, timed back to back
(p50/p95 per request), and the API's resident memory before and after.

The project member is the --username user (the seeded project's); the admin lists globally.
The name filter asks for a different seeded name each time (`scale-lb-<k>`, one match).

  PY=/var/tmp/keel-stack/venv/bin/python; source ci/stack/env.sh admin
  $PY bench/list_scale.py --endpoint http://127.0.0.1:9878 --username scale \\
      --password scale-pass --project scale --n 10000 --rss-pid <pid> --json out.json
"""
import argparse
import json
import os
import random
import subprocess
import time

import benchlib


def rss_mib(pids):
    """Resident memory of the given PIDs and their descendants, MiB."""
    if not pids:
        return None
    seen, todo, tot = set(), list(pids), 0
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f'/proc/{p}/status') as f:
                for line in f:
                    if line.startswith('VmRSS:'):
                        tot += int(line.split()[1])
        except OSError:
            continue
        out = subprocess.run(['ps', '-o', 'pid=', '--ppid', str(p)], capture_output=True,
                             text=True).stdout
        todo += [int(x) for x in out.split()]
    return tot / 1024


def main():
    p = benchlib.add_common_args(argparse.ArgumentParser(description=__doc__.split('\n')[0]))
    p.add_argument('--admin-username', default='admin')
    p.add_argument('--admin-password', default=os.environ.get('STACK_ADMIN_PASSWORD', 'admin'))
    p.add_argument('--admin-project', default='admin')
    p.add_argument('--n', type=int, default=10000, help='seeded LBs (for the name filter)')
    p.add_argument('--rounds', type=int, default=20)
    p.add_argument('--full-rounds', type=int, default=10,
                   help='rounds of the 1,000-item page (slow on the reference)')
    p.add_argument('--rss-pid', type=int, action='append', default=[],
                   help='PID whose RSS (with descendants) is read before/after')
    a = p.parse_args()
    member = benchlib.Client(a)
    adm = argparse.Namespace(**vars(a))
    adm.username, adm.password, adm.project = a.admin_username, a.admin_password, a.admin_project
    admin = benchlib.Client(adm)
    base = member.lb + '/v2/lbaas'
    rng = random.Random(14)
    first = member.call('GET', f'{base}/loadbalancers?limit=20')[0]['loadbalancers']
    marker = first[-1]['id'] if first else ''
    pool = member.call('GET', f'{base}/pools?limit=1')[0]['pools']
    pool_id = pool[0]['id'] if pool else ''
    cases = [
        ('GET /loadbalancers?limit=20 (member)', member, lambda: f'{base}/loadbalancers?limit=20', a.rounds),
        ('GET /loadbalancers?name=... (member)', member,
         lambda: f'{base}/loadbalancers?name=scale-lb-{rng.randrange(a.n)}', a.rounds),
        ('GET /listeners?limit=20 (member)', member, lambda: f'{base}/listeners?limit=20', a.rounds),
        ('GET /loadbalancers?limit=20 (admin, global)', admin,
         lambda: f'{base}/loadbalancers?limit=20', a.rounds),
        ('GET /loadbalancers (1,000, member)', member, lambda: f'{base}/loadbalancers', a.full_rounds),
        ('GET /loadbalancers?limit=20&marker=... (member)', member,
         lambda: f'{base}/loadbalancers?limit=20&marker={marker}', a.rounds),
        ('GET /loadbalancers?tags=grp-3&limit=20 (member)', member,
         lambda: f'{base}/loadbalancers?tags=grp-3&limit=20', a.rounds),
        ('GET /pools?limit=20 (member)', member, lambda: f'{base}/pools?limit=20', a.rounds),
        ('GET /pools/{id}/members (member)', member, lambda: f'{base}/pools/{pool_id}/members', a.rounds),
    ]
    out = {'endpoint': member.lb, 'n': a.n, 'rss_before_mib': rss_mib(a.rss_pid), 'cases': {}}
    for name, c, url, rounds in cases:
        c.call('GET', url())  # warm the connection
        times, items = [], 0
        for _ in range(rounds):
            d, dt = c.call('GET', url())
            times.append(dt)
            items = len(next(v for k, v in d.items() if not k.endswith('_links')))
        s = benchlib.summary(times)
        s['items'] = items
        out['cases'][name] = s
        print(f'{name:52s} p50 {s["p50"]:9.1f} ms  p95 {s["p95"]:9.1f} ms  ({items} items)',
              flush=True)
    out['rss_after_mib'] = rss_mib(a.rss_pid)
    if a.rss_pid:
        print(f'RSS {out["rss_before_mib"]:.1f} -> {out["rss_after_mib"]:.1f} MiB')
    out['at'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)


if __name__ == '__main__':
    main()
