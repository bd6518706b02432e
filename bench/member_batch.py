#!/usr/bin/env python3
"""Member batch update: PUT /v2/lbaas/pools/{id}/members.

Setup: network with a VIP subnet 10.0.2.0/24 and a member subnet
10.0.1.0/24; LB (VIP on 10.0.2.0/24) -> TCP listener :80 -> ROUND_ROBIN...
(SOURCE_IP_PORT for the ovn provider) pool; no health monitor, no Neutron
ports for the members.
1. PUT with --members (default 200) members 10.0.1.1..N :8080 on the member
   subnet -> HTTP latency and time until the LB is ACTIVE again; checks
   the member count.
2. PUT replacing half: keeps the first N/2, drops the rest and adds N/2 new
   ones (same addresses as the dropped ones, protocol_port 8081) ->
   idem.
Then cascade-deletes the LB (timed) and removes the network.

Usage: $STACK_STATE/venv/bin/python bench/member_batch.py [--members 200] [--endpoint URL]
"""
import argparse
import json
import time

from benchlib import Client, add_common_args

ap = add_common_args(argparse.ArgumentParser(description=__doc__,
                     formatter_class=argparse.RawDescriptionHelpFormatter))
ap.add_argument('--members', type=int, default=200)
ap.add_argument('--provider', default='ovn')
a = ap.parse_args()
if a.members > 254:
    raise SystemExit('--members max 254 (one /24)')
c = Client(a)
LB = c.lb
out = {'endpoint': LB, 'members': a.members}
net, (msub, vsub) = c.make_net('bench-batch-net', ['10.0.1.0/24', '10.0.2.0/24'])
lb_id = None
try:
    lb_id, http, done = c.create_lb('bench-batch-lb', vsub['id'], a.provider)
    print(f'LB create: http {http:.0f} ms, ACTIVE after {done:.0f} ms', flush=True)
    t0 = time.perf_counter()
    lis, _ = c.call('POST', f'{LB}/v2/lbaas/listeners',
                    {'listener': {'loadbalancer_id': lb_id, 'protocol': 'TCP',
                                  'protocol_port': 80}})
    c.wait_lb(lb_id, 'ACTIVE', t0)
    t0 = time.perf_counter()
    pool, _ = c.call('POST', f'{LB}/v2/lbaas/pools',
                     {'pool': {'listener_id': lis['listener']['id'], 'protocol': 'TCP',
                               'lb_algorithm': 'SOURCE_IP_PORT'}})
    c.wait_lb(lb_id, 'ACTIVE', t0)
    pid = pool['pool']['id']
    mk = lambda i, port: {'address': f'10.0.1.{i}', 'protocol_port': port,
                          'subnet_id': msub['id']}
    half = a.members // 2
    phases = [
        ('batch create', [mk(i, 8080) for i in range(1, a.members + 1)]),
        ('batch replace half', [mk(i, 8080) for i in range(1, half + 1)] +
         [mk(i, 8081) for i in range(half + 1, a.members + 1)]),
    ]
    for name, members in phases:
        t0 = time.perf_counter()
        _, http = c.call('PUT', f'{LB}/v2/lbaas/pools/{pid}/members', {'members': members})
        done = c.wait_lb(lb_id, 'ACTIVE', t0)
        got, _ = c.call('GET', f'{LB}/v2/lbaas/pools/{pid}/members?limit=1000')
        ms = got['members']
        ok = (len(ms) == len(members) and
              sorted((m['address'], m['protocol_port']) for m in ms) ==
              sorted((m['address'], m['protocol_port']) for m in members))
        st = sorted({m['provisioning_status'] for m in ms})
        out[name] = {'http_ms': http, 'active_ms': done, 'members_after': len(ms),
                     'match': ok, 'member_prov_status': st}
        print(f'{name:20} ({len(members)} members): http {http:.0f} ms, LB ACTIVE after '
              f'{done:.0f} ms; members now {len(ms)} match={ok} status={st}', flush=True)
        # the member list may converge after the LB is ACTIVE: poll (max 60 s)
        t_lim = time.perf_counter() + 60
        while not ok and time.perf_counter() < t_lim:
            time.sleep(0.5)
            got, _ = c.call('GET', f'{LB}/v2/lbaas/pools/{pid}/members?limit=1000')
            ms = got['members']
            ok = (sorted((m['address'], m['protocol_port']) for m in ms) ==
                  sorted((m['address'], m['protocol_port']) for m in members))
            if ok:
                out[name]['list_matches_ms'] = (time.perf_counter() - t0) * 1000
                print(f'    member list matches the request after '
                      f'{out[name]["list_matches_ms"]:.0f} ms', flush=True)
        if not ok:
            out[name]['list_matches_ms'] = None
            print(f'    member list still {len(ms)} != {len(members)} 60 s after ACTIVE; '
                  f'statuses {sorted({m["provisioning_status"] for m in ms})}', flush=True)
finally:
    if lb_id:
        d = c.delete_lb(lb_id)
        out['cascade delete gone_ms'] = d
        print(f'cascade delete: gone after {d:.0f} ms')
    c.del_net(net['id'])
if a.json:
    with open(a.json, 'w') as f:
        json.dump(out, f, indent=1)
