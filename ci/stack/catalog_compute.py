"""Keystone side of STACK_COMPUTE=1 (run by compute.sh with the main venv, admin OS_*).

Service users glance/nova/placement/cinder (admin + service in project `service`, as the
stack's neutron/octavia users) and the catalog entries: image, compute, placement,
block-storage and volumev3 (the type python-cinderclient asks for by default). Idempotent;
an endpoint whose URL changed is rewritten.
"""
import os

import openstack

HOST = os.environ.get('STACK_HOST', '127.0.0.1')
REGION = 'RegionOne'
conn = openstack.connect(
    auth_url=os.environ['OS_AUTH_URL'], username=os.environ['OS_USERNAME'],
    password=os.environ['OS_PASSWORD'], project_name=os.environ['OS_PROJECT_NAME'],
    user_domain_name='Default', project_domain_name='Default',
    region_name=REGION, interface='public')
idn = conn.identity
domain = idn.find_domain('default', ignore_missing=False)
service_p = idn.find_project('service', domain_id=domain.id, ignore_missing=False)
roles = {r: idn.find_role(r, ignore_missing=False) for r in ('admin', 'service')}

for name, env in (('glance', 'GLANCE_PASS'), ('nova', 'NOVA_PASS'),
                  ('placement', 'PLACEMENT_PASS'), ('cinder', 'CINDER_PASS')):
    u = idn.find_user(name, domain_id=domain.id) or idn.create_user(
        name=name, password=os.environ[env], domain_id=domain.id)
    for r in roles.values():
        idn.assign_project_role_to_user(service_p, u, r)


def service(name, stype, desc):
    for s in idn.services():
        if s.type == stype:
            return s
    return idn.create_service(name=name, type=stype, description=desc)


def endpoints(svc, url):
    have = {e.interface: e for e in idn.endpoints(service_id=svc.id)}
    for iface in ('public', 'internal', 'admin'):
        e = have.get(iface)
        if e is None:
            idn.create_endpoint(service_id=svc.id, interface=iface, url=url,
                                region_id=REGION)
        elif e.url != url:
            idn.update_endpoint(e, url=url)


port = {k: os.environ['STACK_' + k.upper() + '_PORT']
        for k in ('glance', 'nova', 'placement', 'cinder')}
cinder_url = f'http://{HOST}:{port["cinder"]}/v3/%(project_id)s'
for name, stype, desc, url in (
        ('glance', 'image', 'Image service', f'http://{HOST}:{port["glance"]}'),
        ('nova', 'compute', 'Compute service', f'http://{HOST}:{port["nova"]}/v2.1'),
        ('placement', 'placement', 'Placement service', f'http://{HOST}:{port["placement"]}'),
        ('cinder', 'block-storage', 'Block storage service', cinder_url),
        ('cinderv3', 'volumev3', 'Block storage service (v3 type name)', cinder_url)):
    endpoints(service(name, stype, desc), url)
    print(f'  catalog: {stype:14} {url}')
