#!/usr/bin/env python3
"""A read-only Neutron stand-in for the start-up / ovn-db-sync benchmark (bench/scale_start.sh):
answers the lookups the OVN provider makes for load balancers seeded by bench/seed_lists.py,
whose VIP ports exist only in the database (creating 10,000 real ports would take Neutron
most of an hour on this machine).

Ports come from the `vip` table (id, address, the seeded subnet), as the VIP ports the
provider creates look (`ovn-lb-vip-<lb>`, owner `ovn-lb:vip`, device `lb-<lb>`); the seeded
subnet and network are answered from constants; a port or subnet list filtered by `id`
(`?id=a&id=b`) gives the named ones, every other list is empty (no floating IPs, no
health-monitor ports); anything else is 404 in Neutron's error shape. `GET /counts` gives the
requests per collection (lists apart: `ports (list)`), `?reset=1` also sets them to zero.

  $PY bench/fake_neutron.py --db mysql://keel:keel-db-pass@127.0.0.1:3306/keel_test_bench \\
      --port 9697
"""
import argparse
import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pymysql

from seed_lists import NETWORK, SUBNET

SUBNET_BODY = {
    'id': SUBNET, 'name': 'scale-subnet', 'network_id': NETWORK, 'project_id': '',
    'cidr': '10.0.0.0/8', 'ip_version': 4, 'gateway_ip': '10.0.0.1', 'enable_dhcp': False,
    'allocation_pools': [{'start': '10.0.0.2', 'end': '10.255.255.254'}],
    'dns_nameservers': [], 'host_routes': [], 'ipv6_address_mode': None,
    'ipv6_ra_mode': None, 'subnetpool_id': None, 'segment_id': None, 'description': '',
    'tags': [],
}
NETWORK_BODY = {
    'id': NETWORK, 'name': 'scale-net', 'project_id': '', 'admin_state_up': True,
    'status': 'ACTIVE', 'subnets': [SUBNET], 'shared': False, 'mtu': 1442,
    'provider:network_type': 'geneve', 'router:external': False, 'port_security_enabled': True,
    'description': '', 'tags': [],
}


def load_ports(url):
    u = urllib.parse.urlparse(url)
    conn = pymysql.connect(host=u.hostname, port=u.port or 3306, user=u.username,
                           password=u.password, database=u.path.lstrip('/'))
    cur = conn.cursor()
    cur.execute('SELECT `port_id`, `load_balancer_id`, `ip_address`, `subnet_id` FROM `vip`')
    ports = {}
    for port_id, lb, ip, subnet in cur.fetchall():
        ports[port_id] = {
            'id': port_id, 'name': f'ovn-lb-vip-{lb}', 'network_id': NETWORK,
            'project_id': '', 'mac_address': 'fa:16:3e:00:00:01', 'admin_state_up': True,
            'status': 'DOWN', 'device_id': f'lb-{lb}', 'device_owner': 'ovn-lb:vip',
            'fixed_ips': [{'subnet_id': subnet, 'ip_address': ip}], 'security_groups': [],
            'allowed_address_pairs': [], 'qos_policy_id': None, 'port_security_enabled': True,
            'binding:host_id': '', 'dns_name': None, 'description': '', 'tags': [],
        }
    conn.close()
    return ports


class Handler(BaseHTTPRequestHandler):
    ports = {}
    counts = {}
    lock = threading.Lock()
    protocol_version = 'HTTP/1.1'
    # headers and body go out as two writes: without TCP_NODELAY, Nagle holds the body until
    # the client's delayed ACK (40 ms per answer, which then bounds a sequential client)
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def not_found(self, what):
        self.send(404, {'NeutronError': {'type': 'NotFound', 'message': f'{what} not found',
                                         'detail': ''}})

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        path = re.sub(r'^/v2\.0', '', url.path.rstrip('/'))
        query = urllib.parse.parse_qs(url.query)
        kind = path.split('/')[1] if '/' in path else ''
        if path in ('/ports', '/subnets', '/floatingips'):
            kind += ' (list)'
        with self.lock:
            if path == '/counts' and 'reset' in query:
                counts = dict(self.counts)
                self.counts.clear()
                return self.send(200, counts)
            self.counts[kind] = self.counts.get(kind, 0) + 1
        m = re.fullmatch(r'/(ports|subnets|networks)/([^/]+)', path)
        if m:
            coll, rid = m.groups()
            body = {'ports': self.ports.get(rid),
                    'subnets': SUBNET_BODY if rid == SUBNET else None,
                    'networks': NETWORK_BODY if rid == NETWORK else None}[coll]
            if body is None:
                return self.not_found(f'{coll[:-1]} {rid}')
            return self.send(200, {coll[:-1]: body})
        if path in ('/ports', '/subnets') and 'id' in query:
            # `?id=a&id=b`: the named ones that exist (as Neutron ORs a repeated filter)
            found = [self.ports.get(i) if path == '/ports' else
                     (SUBNET_BODY if i == SUBNET else None) for i in query['id']]
            return self.send(200, {path[1:]: [x for x in found if x is not None]})
        if path in ('/ports', '/subnets', '/networks', '/floatingips', '/extensions',
                    '/security-groups', '/qos/policies'):
            return self.send(200, {path[1:].replace('qos/', ''): []})
        if path == '':
            return self.send(200, {'resources': []})
        if path == '/counts':
            return self.send(200, self.counts)
        return self.not_found(path)

    def do_PUT(self):
        # maintenance backfills are never needed for these ports; refuse loudly if asked
        self.send(409, {'NeutronError': {'type': 'Conflict', 'message': 'read-only stand-in',
                                         'detail': ''}})

    do_POST = do_PUT
    do_DELETE = do_PUT


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--db', required=True)
    p.add_argument('--port', type=int, default=9697)
    a = p.parse_args()
    Handler.ports = load_ports(a.db)
    print(f'fake neutron: {len(Handler.ports)} ports on 127.0.0.1:{a.port}', flush=True)
    ThreadingHTTPServer(('127.0.0.1', a.port), Handler).serve_forever()


if __name__ == '__main__':
    main()
