"""The monitoring scrape: openstack-exporter's load-balancer collector, replayed call by call.

As exporters/loadbalancer.go of prometheus openstack-exporter (gophercloud, one kept-alive
connection, admin credentials): every LB page by page (`GET /v2/lbaas/loadbalancers`, no
limit, following `loadbalancers_links` rel=next), then `GET /v2/lbaas/loadbalancers/{id}/stats`
for each LB one after the other, then every amphora (`/v2/octavia/amphorae`) and every pool the same way.
kolla-ansible scrapes every 60 s with a 45 s timeout.

  source ci/stack/env.sh admin
  $PY bench/scrape.py --endpoint http://127.0.0.1:9878 [--stats-limit N] [--json out.json]

--stats-limit N: only the first N stats calls are made and their total is extrapolated to
every LB (for the reference, whose full scrape takes ~10 minutes); the report says so.
"""
import argparse
import json
import time

import benchlib


def all_pages(c, url, key):
    """Follows the `<key>_links` next links as gophercloud's AllPages: (items, ms, pages)."""
    items, ms, pages = [], 0.0, 0
    while url:
        d, dt = c.call('GET', url)
        ms += dt
        pages += 1
        items.extend(d[key])
        url = next((ln['href'] for ln in d.get(f'{key}_links', []) if ln.get('rel') == 'next'),
                   None)
    return items, ms, pages


def main():
    p = benchlib.add_common_args(argparse.ArgumentParser(description=__doc__.split('\n')[0]))
    p.add_argument('--stats-limit', type=int, default=0,
                   help='time only the first N stats calls and extrapolate (0: all)')
    a = p.parse_args()
    c = benchlib.Client(a)
    base = c.lb + '/v2/lbaas'
    c.call('GET', f'{base}/loadbalancers?limit=1')  # the connection and the token check warm
    t0 = time.perf_counter()
    lbs, lb_ms, lb_pages = all_pages(c, f'{base}/loadbalancers', 'loadbalancers')
    todo = lbs if a.stats_limit <= 0 else lbs[:a.stats_limit]
    stats = []
    for lb in todo:
        _, dt = c.call('GET', f'{base}/loadbalancers/{lb["id"]}/stats')
        stats.append(dt)
    amps, amp_ms, amp_pages = all_pages(c, f'{c.lb}/v2/octavia/amphorae', 'amphorae')
    pools, pool_ms, pool_pages = all_pages(c, f'{base}/pools', 'pools')
    wall = (time.perf_counter() - t0) * 1000
    stats_ms = sum(stats)
    extrapolated = len(todo) < len(lbs)
    stats_all_ms = stats_ms * len(lbs) / len(todo) if todo else 0.0
    total_ms = wall - stats_ms + stats_all_ms
    s = benchlib.summary(stats)
    out = {
        'endpoint': c.lb, 'lbs': len(lbs), 'lb_pages': lb_pages, 'lb_list_ms': lb_ms,
        'stats_calls': len(todo), 'stats_ms': stats_ms, 'stats': s,
        'amphorae': len(amps), 'amphora_pages': amp_pages, 'amphora_list_ms': amp_ms,
        'pools': len(pools), 'pool_pages': pool_pages, 'pool_list_ms': pool_ms,
        'scrape_s': total_ms / 1000, 'extrapolated': extrapolated,
        'at': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
    }
    print(f'LB list: {len(lbs)} LBs in {lb_pages} pages, {lb_ms:.0f} ms')
    print(f'stats: {len(todo)} calls, {stats_ms / 1000:.2f} s (p50 {s["p50"]:.2f} ms, '
          f'p95 {s["p95"]:.2f} ms, max {s["max"]:.1f} ms)')
    print(f'amphorae: {len(amps)} in {amp_pages} pages, {amp_ms:.0f} ms; '
          f'pools: {len(pools)} in {pool_pages} pages, {pool_ms:.0f} ms')
    print(f'scrape: {total_ms / 1000:.1f} s'
          + (f' (stats of {len(lbs)} extrapolated from {len(todo)})' if extrapolated else ''))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)


if __name__ == '__main__':
    main()
