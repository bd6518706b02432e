"""Shared helpers for the load-balancer workload scripts (plain HTTP).

Auth: Keystone password auth from the OS_* environment (source
ci/stack/env.sh demo) or the --auth-url/--username/... flags; one token is
fetched with keystoneauth1 and then sent as X-Auth-Token by plain
`requests` sessions (one per thread). The load-balancer endpoint comes from
the Keystone catalog unless --endpoint is given, so the same script can be
pointed at any implementation serving the Octavia v2 API (e.g. the Rust
product on :9876).
"""
import argparse
import os
import statistics
import threading
import time

import requests
from keystoneauth1 import loading, session as ks_session


def add_common_args(p: argparse.ArgumentParser):
    e = os.environ.get
    p.add_argument('--auth-url', default=e('OS_AUTH_URL', 'http://127.0.0.1:5000/v3'))
    p.add_argument('--username', default=e('OS_USERNAME', 'demo'))
    p.add_argument('--password', default=e('OS_PASSWORD', 'demo-pass'))
    p.add_argument('--project', default=e('OS_PROJECT_NAME', 'demo'))
    p.add_argument('--endpoint', default=None,
                   help='load-balancer API base URL (default: Keystone catalog)')
    p.add_argument('--net-endpoint', default=None,
                   help='network API base URL (default: Keystone catalog)')
    p.add_argument('--poll', type=float, default=0.02,
                   help='status poll interval in seconds (default 0.02)')
    p.add_argument('--timeout', type=float, default=300,
                   help='max seconds to wait for one state change')
    p.add_argument('--json', default=None, help='also write results as JSON here')
    return p


class Client:
    """One token, thread-local requests sessions."""

    def __init__(self, args):
        auth = loading.get_plugin_loader('password').load_from_options(
            auth_url=args.auth_url, username=args.username,
            password=args.password, project_name=args.project,
            user_domain_name='Default', project_domain_name='Default')
        ks = ks_session.Session(auth=auth)
        self.token = ks.get_token()
        self.project_id = ks.get_project_id()
        self.lb = (args.endpoint or ks.get_endpoint(
            service_type='load-balancer', interface='public')).rstrip('/')
        self.net = (args.net_endpoint or ks.get_endpoint(
            service_type='network', interface='public')).rstrip('/')
        self.poll = args.poll
        self.timeout = args.timeout
        self._tl = threading.local()

    @property
    def s(self):
        s = getattr(self._tl, 's', None)
        if s is None:
            s = requests.Session()
            s.headers.update({'X-Auth-Token': self.token,
                              'Content-Type': 'application/json',
                              'Accept': 'application/json'})
            self._tl.s = s
        return s

    def call(self, method, url, body=None, ok=(200, 201, 202, 204)):
        t0 = time.perf_counter()
        r = self.s.request(method, url, json=body, timeout=600)
        dt = (time.perf_counter() - t0) * 1000
        if r.status_code not in ok:
            raise RuntimeError(f'{method} {url} -> {r.status_code}: {r.text[:400]}')
        return (r.json() if r.content else None), dt

    # ---- status polling
    def lb_state(self, lb_id):
        r = self.s.get(f'{self.lb}/v2/lbaas/loadbalancers/{lb_id}', timeout=60)
        if r.status_code == 404:
            return 'GONE'
        r.raise_for_status()
        return r.json()['loadbalancer']['provisioning_status']

    def wait_lb(self, lb_id, want, t_start):
        """Poll until the LB's provisioning_status == want ('GONE' = 404).
        Returns ms since t_start (perf_counter)."""
        while True:
            st = self.lb_state(lb_id)
            if st == want:
                return (time.perf_counter() - t_start) * 1000
            if st == 'ERROR':
                raise RuntimeError(f'LB {lb_id} went to ERROR')
            if time.perf_counter() - t_start > self.timeout:
                raise RuntimeError(f'LB {lb_id} still {st} after {self.timeout}s')
            time.sleep(self.poll)

    def wait_gone(self, url, t_start):
        while True:
            r = self.s.get(url, timeout=60)
            if r.status_code == 404:
                return (time.perf_counter() - t_start) * 1000
            if time.perf_counter() - t_start > self.timeout:
                raise RuntimeError(f'{url} still there after {self.timeout}s')
            time.sleep(self.poll)

    # ---- neutron helpers (setup only)
    def make_net(self, name, cidrs):
        net, _ = self.call('POST', f'{self.net}/v2.0/networks',
                           {'network': {'name': name}})
        net = net['network']
        subs = []
        for c in cidrs:
            sub, _ = self.call('POST', f'{self.net}/v2.0/subnets',
                               {'subnet': {'network_id': net['id'], 'ip_version': 4,
                                           'cidr': c, 'name': f'{name}-{c}'}})
            subs.append(sub['subnet'])
        return net, subs

    def del_net(self, net_id):
        self.call('DELETE', f'{self.net}/v2.0/networks/{net_id}', ok=(204, 404, 409))

    def create_lb(self, name, subnet_id, provider='ovn'):
        t0 = time.perf_counter()
        d, dt = self.call('POST', f'{self.lb}/v2/lbaas/loadbalancers',
                          {'loadbalancer': {'name': name, 'vip_subnet_id': subnet_id,
                                            'provider': provider}})
        lb_id = d['loadbalancer']['id']
        return lb_id, dt, self.wait_lb(lb_id, 'ACTIVE', t0)

    def delete_lb(self, lb_id):
        t0 = time.perf_counter()
        self.call('DELETE', f'{self.lb}/v2/lbaas/loadbalancers/{lb_id}?cascade=true',
                  ok=(202, 204, 404))
        return self.wait_lb(lb_id, 'GONE', t0)


def pct(vals, p):
    """Percentile with linear interpolation (p in 0..100)."""
    v = sorted(vals)
    if not v:
        return float('nan')
    if len(v) == 1:
        return v[0]
    k = (len(v) - 1) * p / 100.0
    f = int(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def summary(vals):
    return {'n': len(vals), 'p50': pct(vals, 50), 'p95': pct(vals, 95),
            'mean': statistics.fmean(vals) if vals else float('nan'),
            'min': min(vals) if vals else float('nan'),
            'max': max(vals) if vals else float('nan')}
