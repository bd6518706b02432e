#!/usr/bin/env python3
"""Per-step latency of the basic LB workflow .

Each round, as one user with one token, over plain HTTP:
  setup (not timed as LB steps): network + subnet 10.0.0.0/24 + router +
  router interface + 2 member ports 10.0.0.10/.11;
  neutron reference: one bare port create + delete on the same subnet (the
  VIP port the LB create makes is such a port);
  LB (provider ovn) -> TCP listener :80 -> SOURCE_IP_PORT pool ->
  member 10.0.0.10:8080 -> member 10.0.0.11:8080 -> TCP health monitor ->
  cascade delete;
  cleanup of ports/router/network.
For each LB step: HTTP latency (request sent -> response) and time until
the LB's provisioning_status is ACTIVE again (GONE for the delete), polled
every --poll s (default 20 ms). Prints p50/p95 over the rounds.

Usage:
  source ci/stack/env.sh demo
  $STACK_STATE/venv/bin/python bench/lbsteps.py --rounds 10 [--endpoint URL] [--json out.json]
"""
import argparse
import json
import sys
import time

from benchlib import Client, add_common_args, summary

p = add_common_args(argparse.ArgumentParser(description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter))
p.add_argument('--rounds', type=int, default=10)
p.add_argument('--provider', default='ovn')
p.add_argument('--no-router', action='store_true', help='skip router + interface')
p.add_argument('--second-hm', action='store_true',
               help='also: TCP listener :81 -> pool 2 -> member -> TCP health monitor, timed '
                    'as "healthmonitor 2 create (HM port exists)": the subnet\'s HM port '
                    'already exists then (not in the reference run of 2026-11-29)')
args = p.parse_args()
c = Client(args)
NET, LB = c.net, c.lb
res = {}  # step -> {'http': [...], 'done': [...]}


def rec(step, http, done=None):
    d = res.setdefault(step, {'http': [], 'done': []})
    d['http'].append(http)
    if done is not None:
        d['done'].append(done)


def lbstep(name, method, url, body, lb_id=None, want='ACTIVE'):
    t0 = time.perf_counter()
    data, dt = c.call(method, url, body)
    if lb_id is None:
        lb_id = data['loadbalancer']['id']
    total = c.wait_lb(lb_id, want, t0)
    rec(name, dt, total)
    print(f'  {name:40} http {dt:8.1f} ms   until {want:6} {total:8.1f} ms', flush=True)
    return data, lb_id


def net(name, method, url, body=None, ok=(200, 201, 202, 204)):
    data, dt = c.call(method, url, body, ok=ok)
    rec(name, dt)
    return data, dt


t_all = time.perf_counter()
for rnd in range(args.rounds):
    print(f'round {rnd + 1}/{args.rounds}', flush=True)
    n, _ = net('neutron network create', 'POST', f'{NET}/v2.0/networks',
               {'network': {'name': 'bench-steps-net'}})
    n = n['network']
    s, _ = net('neutron subnet create', 'POST', f'{NET}/v2.0/subnets',
               {'subnet': {'network_id': n['id'], 'ip_version': 4,
                           'cidr': '10.0.0.0/24', 'name': 'bench-steps-subnet'}})
    s = s['subnet']
    rtr = None
    if not args.no_router:
        rtr, _ = net('neutron router create', 'POST', f'{NET}/v2.0/routers',
                     {'router': {'name': 'bench-steps-router'}})
        rtr = rtr['router']
        net('neutron router add interface', 'PUT',
            f'{NET}/v2.0/routers/{rtr["id"]}/add_router_interface',
            {'subnet_id': s['id']})
    ports = []
    for ip in ('10.0.0.10', '10.0.0.11'):
        pt, _ = net('neutron port create (fixed ip)', 'POST', f'{NET}/v2.0/ports',
                    {'port': {'network_id': n['id'],
                              'fixed_ips': [{'subnet_id': s['id'], 'ip_address': ip}]}})
        ports.append(pt['port'])
    # bare port create, like the VIP port Octavia's ovn driver creates
    pt, dt = net('neutron port create (bare)', 'POST', f'{NET}/v2.0/ports',
                 {'port': {'network_id': n['id'], 'name': 'bench-bare',
                           'fixed_ips': [{'subnet_id': s['id']}]}})
    _, dt2 = net('neutron port delete', 'DELETE', f'{NET}/v2.0/ports/{pt["port"]["id"]}')
    _, dt3 = net('neutron subnet GET', 'GET', f'{NET}/v2.0/subnets/{s["id"]}')
    _, dt4 = net('neutron port list by ip', 'GET',
                 f'{NET}/v2.0/ports?fixed_ips=ip_address%3D10.0.0.10&network_id={n["id"]}')
    print(f'  neutron: bare port create {dt:.1f} ms, port delete {dt2:.1f} ms, '
          f'subnet GET {dt3:.1f} ms, port list by ip {dt4:.1f} ms', flush=True)

    _, lb_id = lbstep('loadbalancer create', 'POST', f'{LB}/v2/lbaas/loadbalancers',
                      {'loadbalancer': {'name': 'bench-steps-lb', 'vip_subnet_id': s['id'],
                                        'provider': args.provider}})
    lis, _ = lbstep('listener create', 'POST', f'{LB}/v2/lbaas/listeners',
                    {'listener': {'loadbalancer_id': lb_id, 'protocol': 'TCP',
                                  'protocol_port': 80}}, lb_id)
    pool, _ = lbstep('pool create', 'POST', f'{LB}/v2/lbaas/pools',
                     {'pool': {'listener_id': lis['listener']['id'], 'protocol': 'TCP',
                               'lb_algorithm': 'SOURCE_IP_PORT'}}, lb_id)
    pid = pool['pool']['id']
    for i, ip in enumerate(('10.0.0.10', '10.0.0.11')):
        lbstep(f'member {i + 1} create', 'POST', f'{LB}/v2/lbaas/pools/{pid}/members',
               {'member': {'address': ip, 'protocol_port': 8080,
                           'subnet_id': s['id']}}, lb_id)
    lbstep('healthmonitor create', 'POST', f'{LB}/v2/lbaas/healthmonitors',
           {'healthmonitor': {'pool_id': pid, 'type': 'TCP', 'delay': 5,
                              'timeout': 3, 'max_retries': 3}}, lb_id)
    if args.second_hm:
        lis2, _ = lbstep('listener 2 create', 'POST', f'{LB}/v2/lbaas/listeners',
                         {'listener': {'loadbalancer_id': lb_id, 'protocol': 'TCP',
                                       'protocol_port': 81}}, lb_id)
        pool2, _ = lbstep('pool 2 create', 'POST', f'{LB}/v2/lbaas/pools',
                          {'pool': {'listener_id': lis2['listener']['id'], 'protocol': 'TCP',
                                    'lb_algorithm': 'SOURCE_IP_PORT'}}, lb_id)
        pid2 = pool2['pool']['id']
        lbstep('member 3 create', 'POST', f'{LB}/v2/lbaas/pools/{pid2}/members',
               {'member': {'address': '10.0.0.10', 'protocol_port': 8081,
                           'subnet_id': s['id']}}, lb_id)
        lbstep('healthmonitor 2 create (HM port exists)', 'POST',
               f'{LB}/v2/lbaas/healthmonitors',
               {'healthmonitor': {'pool_id': pid2, 'type': 'TCP', 'delay': 5,
                                  'timeout': 3, 'max_retries': 3}}, lb_id)
    lbstep('lb delete cascade', 'DELETE',
           f'{LB}/v2/lbaas/loadbalancers/{lb_id}?cascade=true', None, lb_id, want='GONE')
    for pt in ports:
        c.call('DELETE', f'{NET}/v2.0/ports/{pt["id"]}', ok=(204, 404))
    if rtr:
        c.call('PUT', f'{NET}/v2.0/routers/{rtr["id"]}/remove_router_interface',
               {'subnet_id': s['id']})
        c.call('DELETE', f'{NET}/v2.0/routers/{rtr["id"]}')
    c.call('DELETE', f'{NET}/v2.0/networks/{n["id"]}')

wall = time.perf_counter() - t_all
out = {'rounds': args.rounds, 'endpoint': LB, 'poll_s': args.poll, 'wall_s': wall,
       'steps': {}}
print(f'\n{args.rounds} rounds in {wall:.1f} s. ms, p50 / p95 (min..max):')
print(f'  {"step":40} {"http p50":>9} {"http p95":>9} {"done p50":>9} {"done p95":>9}')
for name, d in res.items():
    h = summary(d['http'])
    o = {'http': h, 'samples': d}  # raw ms, so interleaved runs can be pooled (interleave.py)
    line = f'  {name:40} {h["p50"]:9.1f} {h["p95"]:9.1f}'
    if d['done']:
        t = summary(d['done'])
        o['done'] = t
        line += f' {t["p50"]:9.1f} {t["p95"]:9.1f}'
    out['steps'][name] = o
    print(line)
if 'loadbalancer create' in res and 'neutron port create (bare)' in res:
    lbh = summary(res['loadbalancer create']['http'])['p50']
    pc = summary(res['neutron port create (bare)']['http'])['p50']
    out['vip_port_share_of_lb_create_http_p50'] = pc / lbh
    print(f'  bare neutron port create p50 = {pc:.1f} ms = {100 * pc / lbh:.0f}% '
          f'of LB create HTTP p50 ({lbh:.1f} ms)')
if args.json:
    with open(args.json, 'w') as f:
        json.dump(out, f, indent=1)
