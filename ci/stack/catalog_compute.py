"""Keystone side of STACK_COMPUTE=1 (run by compute.sh as keystone_admin.py says).

Service users glance/nova/placement/cinder (admin + service in project `service`, as the
stack's neutron/octavia users) and the catalog entries: image, compute, placement,
block-storage and volumev3 (the type python-cinderclient asks for by default). Idempotent
as keystone_admin.py's helpers are.
"""
import os
import sys

# common.sh: nothing is written next to these scripts (no __pycache__ for the import below).
sys.dont_write_bytecode = True
from keystone_admin import HOST, domain, endpoints, grant, idn, service, user  # noqa: E402

service_p = idn.find_project('service', domain_id=domain.id, ignore_missing=False)
roles = {r: idn.find_role(r, ignore_missing=False) for r in ('admin', 'service')}

for name, env in (('glance', 'GLANCE_PASS'), ('nova', 'NOVA_PASS'),
                  ('placement', 'PLACEMENT_PASS'), ('cinder', 'CINDER_PASS')):
    u = user(name, os.environ[env])
    for r in roles.values():
        grant(service_p, u, r)

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
