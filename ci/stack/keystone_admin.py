"""Keystone objects the stack's catalog scripts (catalog.py, catalog_compute.py) make.

Imported by them, run with the main venv's python and the admin OS_* variables set
(env.sh admin). Every helper is idempotent: it looks the object up before creating it;
endpoints() also rewrites an endpoint whose URL differs from the wanted one.
"""
import os

import openstack

HOST = os.environ.get('STACK_HOST', '127.0.0.1')
REGION = 'RegionOne'

conn = openstack.connect(
    auth_url=os.environ['OS_AUTH_URL'],
    username=os.environ['OS_USERNAME'],
    password=os.environ['OS_PASSWORD'],
    project_name=os.environ['OS_PROJECT_NAME'],
    user_domain_name='Default', project_domain_name='Default',
    region_name=REGION, interface='public')
idn = conn.identity
domain = idn.find_domain('default', ignore_missing=False)


def user(name, password):
    """The user `name` of domain `default`, created with `password` if missing."""
    u = idn.find_user(name, domain_id=domain.id)
    return u or idn.create_user(name=name, password=password,
                                domain_id=domain.id)


def grant(proj, usr, rol):
    """Role `rol` for `usr` on project `proj` (Keystone ignores a repeat)."""
    idn.assign_project_role_to_user(proj, usr, rol)


def service(name, stype, desc):
    """The first service of type `stype`, else a new one named `name`."""
    for s in idn.services():
        if s.type == stype:
            return s
    return idn.create_service(name=name, type=stype, description=desc)


def endpoints(svc, url):
    """Public, internal and admin endpoints of `svc` in RegionOne at `url`."""
    have = {e.interface: e for e in idn.endpoints(service_id=svc.id)}
    for iface in ('public', 'internal', 'admin'):
        e = have.get(iface)
        if e is None:
            idn.create_endpoint(service_id=svc.id, interface=iface, url=url,
                                region_id=REGION)
        elif e.url != url:
            idn.update_endpoint(e, url=url)
