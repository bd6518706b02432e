#!/usr/bin/env python3
"""Real Neutron VIP ports for the restore benchmark (bench/restore.sh).

  create --n N --out ports.json: a network `bench-restore-net` with subnet 10.128.0.0/16 and
      N ports on it named `octavia-lb-vip-<i>`, device_owner `Octavia` (as Octavia's VIP
      ports), made with Neutron's bulk create (100 ports a request, --workers requests at a
      time). Each port's address and MAC are given (10.128.<i/200>.<i%200+10>,
      fa:16:3e:b0:<i>): Neutron's own random MACs collided between concurrent bulk requests
      (409 NeutronDbObjectDuplicateEntry after 3,800 ports). Writes {"network_id", "subnet_id", "ports": [[port_id, ip], ...]}.
  delete: every port on `bench-restore-net`, then the network (--workers deletes at a time).

Auth: the OS_* environment (source ci/stack/env.sh admin).
"""
import argparse
import concurrent.futures
import json
import sys
import time

from benchlib import Client, add_common_args

NAME = 'bench-restore-net'
CIDR = '10.128.0.0/16'
PER_REQUEST = 100


def create(c, n, workers, out):
    t0 = time.perf_counter()
    net, (sub,) = c.make_net(NAME, [CIDR])

    def bulk(lo):
        body = {'ports': [{'network_id': net['id'], 'name': f'octavia-lb-vip-{i}',
                           'device_owner': 'Octavia',
                           'mac_address': f'fa:16:3e:b0:{i >> 8:02x}:{i & 255:02x}',
                           'fixed_ips': [{'subnet_id': sub['id'],
                                          'ip_address': f'10.128.{i // 200}.{i % 200 + 10}'}]}
                          for i in range(lo, min(lo + PER_REQUEST, n))]}
        d, _ = c.call('POST', f'{c.net}/v2.0/ports', body)
        return [(p['id'], p['fixed_ips'][0]['ip_address']) for p in d['ports']]

    ports = []
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        for got in ex.map(bulk, range(0, n, PER_REQUEST)):
            ports.extend(got)
    dt = time.perf_counter() - t0
    with open(out, 'w') as f:
        json.dump({'network_id': net['id'], 'subnet_id': sub['id'], 'ports': ports}, f)
    print(f'{len(ports)} VIP ports created in {dt:.1f} s ({len(ports) / dt:.0f}/s)')


def delete(c, workers):
    d, _ = c.call('GET', f'{c.net}/v2.0/networks?name={NAME}')
    t0 = time.perf_counter()
    gone = 0
    for net in d['networks']:
        while True:
            p, _ = c.call('GET', f"{c.net}/v2.0/ports?network_id={net['id']}&fields=id"
                          f"&device_owner=Octavia&limit=1000")
            ids = [x['id'] for x in p['ports']]
            if not ids:
                break
            with concurrent.futures.ThreadPoolExecutor(workers) as ex:
                list(ex.map(lambda i: c.call('DELETE', f'{c.net}/v2.0/ports/{i}',
                                             ok=(204, 404)), ids))
            gone += len(ids)
        c.del_net(net['id'])
    print(f'{gone} ports deleted in {time.perf_counter() - t0:.1f} s')


def main():
    p = add_common_args(argparse.ArgumentParser(description=__doc__.split('\n')[0]))
    p.add_argument('action', choices=['create', 'delete'])
    p.add_argument('--n', type=int, default=10000)  # at most 65,536 (the MACs)
    p.add_argument('--workers', type=int, default=4)
    p.add_argument('--out', default='ports.json')
    a = p.parse_args()
    c = Client(a)
    if a.action == 'create':
        create(c, a.n, a.workers, a.out)
    else:
        delete(c, a.workers)
    return 0


if __name__ == '__main__':
    sys.exit(main())
