#!/usr/bin/env python3
"""Throughput: N concurrent clients (threads, one HTTP session each), each
with its own LB created beforehand (all on one network/subnet 10.0.0.0/24),
each looping: listener create (TCP, port 80) -> wait until the LB is ACTIVE
-> listener delete -> wait until the listener is gone (GET 404) and the LB
ACTIVE, for --seconds (default 60). A cycle started before the deadline is
finished. Reports completed operations/s (create + delete each count as
one), cycles/s, and p50/p95 of latency to ACTIVE (create) and to gone
(delete), measured from sending the request. Errors (e.g. 409) are counted.

Usage: $STACK_STATE/venv/bin/python bench/throughput.py [--clients 4 --seconds 60] [--endpoint URL]
"""
import argparse
import json
import threading
import time

from benchlib import Client, add_common_args, summary

ap = add_common_args(argparse.ArgumentParser(description=__doc__,
                     formatter_class=argparse.RawDescriptionHelpFormatter))
ap.add_argument('--clients', type=int, default=4)
ap.add_argument('--seconds', type=float, default=60)
ap.add_argument('--provider', default='ovn')
a = ap.parse_args()
c = Client(a)
LB = c.lb
net, (sub,) = c.make_net('bench-tput-net', ['10.0.0.0/24'])
lbs = []
res = {'create_http': [], 'create_active': [], 'delete_http': [], 'delete_gone': [],
       'errors': []}
lock = threading.Lock()


def worker(lb_id, deadline):
    while time.perf_counter() < deadline:
        try:
            t0 = time.perf_counter()
            d, h1 = c.call('POST', f'{LB}/v2/lbaas/listeners',
                           {'listener': {'loadbalancer_id': lb_id, 'protocol': 'TCP',
                                         'protocol_port': 80}})
            a1 = c.wait_lb(lb_id, 'ACTIVE', t0)
            lid = d['listener']['id']
            t1 = time.perf_counter()
            _, h2 = c.call('DELETE', f'{LB}/v2/lbaas/listeners/{lid}')
            c.wait_gone(f'{LB}/v2/lbaas/listeners/{lid}', t1)
            a2 = c.wait_lb(lb_id, 'ACTIVE', t1)
            with lock:
                res['create_http'].append(h1)
                res['create_active'].append(a1)
                res['delete_http'].append(h2)
                res['delete_gone'].append(a2)
        except Exception as e:  # count and back off
            with lock:
                res['errors'].append(str(e)[:200])
            time.sleep(0.5)


try:
    for i in range(a.clients):
        lb_id, http, done = c.create_lb(f'bench-tput-{i}', sub['id'], a.provider)
        lbs.append(lb_id)
        print(f'LB {i}: {lb_id} ACTIVE after {done:.0f} ms', flush=True)
    print('loop start', flush=True)
    t_start = time.perf_counter()
    deadline = t_start + a.seconds
    th = [threading.Thread(target=worker, args=(lb, deadline)) for lb in lbs]
    for t in th:
        t.start()
    for t in th:
        t.join()
    wall = time.perf_counter() - t_start
    print('loop end', flush=True)
finally:
    for lb in lbs:
        try:
            c.delete_lb(lb)
        except Exception as e:
            print('cleanup:', e)
    c.del_net(net['id'])
cycles = len(res['create_active'])
out = {'endpoint': LB, 'clients': a.clients, 'seconds': wall, 'cycles': cycles,
       'ops': 2 * cycles, 'ops_per_s': 2 * cycles / wall, 'cycles_per_s': cycles / wall,
       'errors': len(res['errors']), 'error_samples': res['errors'][:5],
       'poll_s': a.poll}
for k in ('create_http', 'create_active', 'delete_http', 'delete_gone'):
    out[k] = summary(res[k])
print(json.dumps(out, indent=1))
if a.json:
    with open(a.json, 'w') as f:
        json.dump(out, f, indent=1)
