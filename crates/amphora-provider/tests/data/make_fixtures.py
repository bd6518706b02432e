"""Writes the amphora provider's reference fixtures (casts, refusals, flavor texts).

Run with the reference venv (Octavia 19.0.0, octavia-lib):
    /var/tmp/keel-stack/venv/bin/python crates/amphora-provider/tests/data/make_fixtures.py

It builds Octavia's own DB data models, turns them into provider models with
octavia/api/drivers/utils.py (as the API controllers do), hands them to
octavia.api.drivers.amphora_driver.v2.driver.AmphoraProviderDriver with its RPC client and
DB session mocked, and writes each cast's method and kwargs to casts.json; each refusal's
error class and texts to refusals.json; the flavor / AZ validation outcomes to
metadata.json. The Rust tests read those files only. The `orm_*` casts convert ORM objects
read back from an in-memory SQLite database, as the update and delete controllers do.
"""
import datetime
import json
import os
import sys
from unittest import mock

from oslo_config import cfg

from octavia.common import config  # noqa: F401  (registers the options)
from octavia.common import data_models as dm
from octavia.api.drivers import utils as driver_utils
from octavia_lib.api.drivers import data_models as pdm
from octavia_lib.api.drivers import exceptions as lib_exc

CONF = cfg.CONF
CONF([], project='octavia', default_config_files=[])
CONF.set_override('network_driver', 'network_noop_driver', group='controller_worker')

OUT = os.path.dirname(os.path.abspath(__file__))

LB = 'b1c5e8a6-0000-4000-8000-00000000000b'
LI = 'b1c5e8a6-0000-4000-8000-0000000000a1'
PO = 'b1c5e8a6-0000-4000-8000-0000000000b1'
ME = 'b1c5e8a6-0000-4000-8000-0000000000c1'
ME2 = 'b1c5e8a6-0000-4000-8000-0000000000c2'
ME3 = 'b1c5e8a6-0000-4000-8000-0000000000c3'
HM = 'b1c5e8a6-0000-4000-8000-0000000000d1'
L7P = 'b1c5e8a6-0000-4000-8000-0000000000e1'
L7R = 'b1c5e8a6-0000-4000-8000-0000000000f1'
LI2 = 'b1c5e8a6-0000-4000-8000-0000000000a2'
PO2 = 'b1c5e8a6-0000-4000-8000-0000000000b2'
PO3 = 'b1c5e8a6-0000-4000-8000-0000000000b3'
PRJ = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'
NET = 'b1c5e8a6-0000-4000-8000-000000000e01'
SUB = 'b1c5e8a6-0000-4000-8000-000000000501'
SUB6 = 'b1c5e8a6-0000-4000-8000-000000000506'
PORT = 'b1c5e8a6-0000-4000-8000-000000000901'
T0 = datetime.datetime(2026, 12, 1, 10, 0, 0)


def db_lb():
    lb = dm.LoadBalancer(
        id=LB, project_id=PRJ, name='lb1', description=None,
        provisioning_status='ACTIVE', operating_status='ONLINE',
        enabled=True, topology='SINGLE', provider='amphora',
        created_at=T0, updated_at=None, flavor_id=None,
        availability_zone=None)
    lb.vip = dm.Vip(load_balancer_id=LB, ip_address='10.0.0.5',
                    subnet_id=SUB, network_id=NET, port_id=PORT,
                    qos_policy_id=None, octavia_owned=True,
                    vnic_type='normal', sg_ids=[], load_balancer=lb)
    return lb


def db_listener(protocol='HTTP'):
    return dm.Listener(
        id=LI, project_id=PRJ, name='l1', description=None,
        default_pool_id=None, load_balancer_id=LB, protocol=protocol,
        protocol_port=80, connection_limit=-1, enabled=True,
        provisioning_status='PENDING_CREATE', operating_status='OFFLINE',
        tls_certificate_id=None, sni_containers=[], peer_port=1025,
        insert_headers={}, timeout_client_data=50000,
        timeout_member_connect=5000, timeout_member_data=50000,
        timeout_tcp_inspect=0, created_at=T0, updated_at=None,
        client_ca_tls_certificate_id=None, client_authentication='NONE',
        client_crl_container_id=None, allowed_cidrs=[], tls_ciphers=None,
        tls_versions=None, alpn_protocols=None, hsts_max_age=None,
        hsts_include_subdomains=False, hsts_preload=False)


def db_member(mid=ME, address='10.0.0.10', name='m1'):
    return dm.Member(
        id=mid, project_id=PRJ, pool_id=PO, ip_address=address,
        protocol_port=8080, weight=1, backup=False, enabled=True,
        subnet_id=SUB, operating_status='NO_MONITOR',
        created_at=T0, updated_at=None, provisioning_status='ACTIVE',
        name=name, monitor_address=None, monitor_port=None, tags=[],
        vnic_type='normal')


def db_hm():
    return dm.HealthMonitor(
        id=HM, project_id=PRJ, pool_id=PO, type='HTTP', delay=5, timeout=3,
        fall_threshold=3, rise_threshold=2, http_method='GET',
        url_path='/', expected_codes='200', enabled=True,
        provisioning_status='PENDING_CREATE', operating_status='OFFLINE',
        name='hm1', created_at=T0, updated_at=None, tags=[],
        http_version=1.1, domain_name=None)


def db_pool(protocol='HTTP', members=(), hm=None, listeners=None,
            algorithm='ROUND_ROBIN', sp=True):
    pool = dm.Pool(
        id=PO, project_id=PRJ, name='p1', description=None,
        protocol=protocol, lb_algorithm=algorithm, enabled=True,
        operating_status='OFFLINE', provisioning_status='PENDING_CREATE',
        load_balancer_id=LB, members=list(members), health_monitor=hm,
        created_at=T0, updated_at=None, tags=[], tls_certificate_id=None,
        ca_tls_certificate_id=None, crl_container_id=None,
        tls_enabled=False, tls_ciphers=None, tls_versions=None,
        alpn_protocols=None)
    if sp:
        pool.session_persistence = dm.SessionPersistence(
            pool_id=PO, type='APP_COOKIE', cookie_name='c1',
            persistence_timeout=None, persistence_granularity=None)
    pool.listeners = listeners if listeners is not None else []
    for m in pool.members:
        m.pool = pool
    return pool


def db_l7policy():
    return dm.L7Policy(
        id=L7P, name='pol1', description=None, listener_id=LI,
        action='REDIRECT_TO_URL', redirect_pool_id=None,
        redirect_url='http://example.com', position=1, enabled=True,
        provisioning_status='PENDING_CREATE', operating_status='OFFLINE',
        project_id=PRJ, created_at=T0, updated_at=None, tags=[],
        redirect_prefix=None, redirect_http_code=302, l7rules=[])


def db_l7rule():
    return dm.L7Rule(
        id=L7R, l7policy_id=L7P, type='PATH', compare_type='STARTS_WITH',
        key=None, value='/api', invert=False, enabled=True,
        provisioning_status='PENDING_CREATE', operating_status='OFFLINE',
        project_id=PRJ, created_at=T0, updated_at=None, tags=[])


def make_driver():
    with mock.patch('octavia.common.rpc.get_client') as gc:
        from octavia.api.drivers.amphora_driver.v2 import driver
        d = driver.AmphoraProviderDriver()
    d.client = gc.return_value
    d.client.reset_mock()
    return d


def session_patch():
    return mock.patch('octavia.db.api.get_session')


def dumpable(v):
    return json.loads(json.dumps(v, default=str))


casts = {}


def record(name, d, fn, *args):
    d.client.reset_mock()
    with session_patch():
        fn(*args)
    (ctx, method), kwargs = d.client.cast.call_args
    casts[name] = {'method': method, 'args': dumpable(kwargs)}


def main():
    d = make_driver()
    lb = db_lb()
    # --- load balancer ---
    # create: as load_balancer.py post builds it (lb_dict of the request, flavor/AZ dicts)
    # (a request naming no description: the key is absent, as wsme's to_dict leaves it)
    lb_dict = {'id': LB, 'project_id': PRJ, 'name': 'lb1',
               'enabled': True, 'provisioning_status': 'PENDING_CREATE',
               'operating_status': 'OFFLINE', 'topology': 'SINGLE',
               'provider': 'amphora', 'tags': [], 'flavor_id': None,
               'availability_zone': None}
    lb_dict['flavor'] = {}
    lb_dict['availability_zone'] = {}
    create = driver_utils.lb_dict_to_provider_dict(lb_dict, lb.vip, [], None, None)
    record('loadbalancer_create', d, d.loadbalancer_create,
           pdm.LoadBalancer.from_dict(create))
    lb_dict2 = dict(lb_dict, flavor={'loadbalancer_topology': 'ACTIVE_STANDBY'},
                    availability_zone={'compute_zone': 'az1'})
    create2 = driver_utils.lb_dict_to_provider_dict(lb_dict2, lb.vip, [], None, None)
    record('loadbalancer_create_flavor_az', d, d.loadbalancer_create,
           pdm.LoadBalancer.from_dict(create2))
    old = driver_utils.db_loadbalancer_to_provider_loadbalancer(lb, for_delete=True)
    record('loadbalancer_delete', d, d.loadbalancer_delete, old, False)
    record('loadbalancer_delete_cascade', d, d.loadbalancer_delete, old, True)
    record('loadbalancer_failover', d, d.loadbalancer_failover, LB)
    new = driver_utils.lb_dict_to_provider_dict(
        {'id': LB, 'name': 'lb2', 'enabled': False})
    new['vip_qos_policy_id'] = 'b1c5e8a6-0000-4000-8000-000000000a05'
    record('loadbalancer_update', d, d.loadbalancer_update, old,
           pdm.LoadBalancer.from_dict(new))
    new = driver_utils.lb_dict_to_provider_dict({'id': LB, 'description': 'd'})
    record('loadbalancer_update_description', d, d.loadbalancer_update, old,
           pdm.LoadBalancer.from_dict(new))

    # --- listener ---
    li = driver_utils.db_listener_to_provider_listener(db_listener())
    record('listener_create', d, d.listener_create, li)
    # (delete and update convert ORM objects: orm_casts)

    # a TERMINATED_HTTPS-like listener with lists and a default pool (no certificates: the
    # cert manager is not reached) — lists and the nested pool are dropped by to_dict()
    li2 = db_listener('HTTP')
    li2.default_pool_id = PO
    li2.default_pool = db_pool(listeners=[li2])
    li2.alpn_protocols = ['h2', 'http/1.1']
    li2.tls_versions = ['TLSv1.2']
    li2.allowed_cidrs = [dm.ListenerCidr(listener_id=LI, cidr='10.0.0.0/8')]
    li2.insert_headers = {'X-Forwarded-For': 'true'}
    pl2 = driver_utils.db_listener_to_provider_listener(li2)
    record('listener_create_lists', d, d.listener_create, pl2)
    # a pool with a listener and list columns: recursive for create
    po2 = db_pool(listeners=[db_listener('HTTP')], sp=False)
    po2.tls_versions = ['TLSv1.2', 'TLSv1.3']
    po2.alpn_protocols = ['h2']
    pp2 = driver_utils.db_pool_to_provider_pool(po2)
    record('pool_create_lists', d, d.pool_create, pp2)

    # --- pool ---
    pool = driver_utils.db_pool_to_provider_pool(db_pool())
    record('pool_create', d, d.pool_create, pool)
    pool_full = driver_utils.db_pool_to_provider_pool(
        db_pool(members=[db_member()], hm=db_hm()))
    record('pool_create_with_children', d, d.pool_create, pool_full)

    # --- member ---
    member = driver_utils.db_member_to_provider_member(db_member())
    d.repositories.pool.get = mock.Mock(return_value=db_pool())
    record('member_create', d, d.member_create, member)
    record('member_delete', d, d.member_delete, member)
    new = driver_utils.member_dict_to_provider_dict(
        {'id': ME, 'weight': 5, 'enabled': False, 'name': 'm2'})
    record('member_update', d, d.member_update, member,
           pdm.Member.from_dict(new))
    # batch: ME stays (weight changed), ME2 is deleted, ME3 is new
    d.repositories.pool.get = mock.Mock(return_value=db_pool(
        members=[db_member(), db_member(ME2, '10.0.0.11', 'm2')]))
    keep = driver_utils.db_member_to_provider_member(db_member())
    keep.weight = 7
    newm = pdm.Member(member_id=ME3, pool_id=PO, address='10.0.0.12',
                      protocol_port=8080, subnet_id=SUB, admin_state_up=True,
                      weight=1, backup=False, name='m3', monitor_address=None,
                      monitor_port=None, project_id=PRJ, vnic_type='normal')
    record('member_batch_update', d, d.member_batch_update, PO, [keep, newm])

    # --- health monitor ---
    hm = driver_utils.db_HM_to_provider_HM(db_hm())
    record('health_monitor_create', d, d.health_monitor_create, hm)
    record('health_monitor_delete', d, d.health_monitor_delete, hm)
    new = driver_utils.hm_dict_to_provider_dict(
        {'id': HM, 'delay': 10, 'fall_threshold': 4, 'rise_threshold': 5,
         'enabled': False, 'url_path': '/health'})
    record('health_monitor_update', d, d.health_monitor_update, hm,
           pdm.HealthMonitor.from_dict(new))

    # --- l7 ---
    pol = driver_utils.db_l7policy_to_provider_l7policy(db_l7policy())
    d.repositories.listener.get = mock.Mock(return_value=db_listener('HTTP'))
    record('l7policy_create', d, d.l7policy_create, pol)
    record('l7policy_delete', d, d.l7policy_delete, pol)
    new = driver_utils.l7policy_dict_to_provider_dict(
        {'id': L7P, 'position': 2, 'enabled': False, 'redirect_url': None,
         'action': 'REJECT'})
    record('l7policy_update', d, d.l7policy_update, pol,
           pdm.L7Policy.from_dict(new))
    rule = driver_utils.db_l7rule_to_provider_l7rule(db_l7rule())
    record('l7rule_create', d, d.l7rule_create, rule)
    record('l7rule_delete', d, d.l7rule_delete, rule)
    new = driver_utils.l7rule_dict_to_provider_dict(
        {'id': L7R, 'value': '/v2', 'enabled': False, 'key': None})
    record('l7rule_update', d, d.l7rule_update, rule,
           pdm.L7Rule.from_dict(new))

    orm_casts(d)

    # the admin API's casts (octavia/api/v2/controllers/amphora.py)
    for m in ('failover_amphora', 'delete_amphora', 'update_amphora_agent_config'):
        casts[m] = {'method': m, 'args': {'amphora_id': 'amp-1'}}

    with open(os.path.join(OUT, 'casts.json'), 'w') as f:
        json.dump(casts, f, indent=1, sort_keys=True)
        f.write('\n')

    refusals(d)
    metadata(d)


def orm_session():
    """A session on an in-memory SQLite database with Octavia's tables."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker
    from octavia.db import base_models
    engine = create_engine('sqlite://')
    base_models.BASE.metadata.create_all(engine)
    return sessionmaker(bind=engine)


def orm_casts(d):
    """The update and delete paths: the controllers convert ORM objects (`_get_db_*` is
    `get_orm`), whose to_dict() holds only the relationships loaded by then; each block
    touches what the controller touches before converting."""
    from octavia.db import models
    from octavia.api.v2.types import l7policy as l7policy_types
    from octavia.common import validate
    new_session = orm_session()
    s = new_session()
    listener = dict(project_id=PRJ, load_balancer_id=LB, protocol_port=80,
                    connection_limit=-1, enabled=True, provisioning_status='ACTIVE',
                    operating_status='ONLINE', timeout_client_data=50000,
                    timeout_member_connect=5000, timeout_member_data=50000,
                    timeout_tcp_inspect=0, client_authentication='NONE',
                    hsts_include_subdomains=False, hsts_preload=False)
    # LI: HTTP, a default pool, headers; LI2: TCP, nothing
    s.add(models.Pool(id=PO, project_id=PRJ, name='p1', protocol='HTTP',
                      lb_algorithm='ROUND_ROBIN', enabled=True, load_balancer_id=LB,
                      provisioning_status='ACTIVE', operating_status='ONLINE',
                      tls_enabled=False, created_at=T0))
    s.add(models.SessionPersistence(pool_id=PO, type='APP_COOKIE', cookie_name='c1'))
    s.add(models.HealthMonitor(id=HM, project_id=PRJ, pool_id=PO, type='HTTP', delay=5,
                               timeout=3, fall_threshold=3, rise_threshold=2,
                               http_method='GET', url_path='/', expected_codes='200',
                               enabled=True, provisioning_status='ACTIVE',
                               operating_status='ONLINE', name='hm1', http_version=1.1))
    s.add(models.Member(id=ME, project_id=PRJ, pool_id=PO, ip_address='10.0.0.10',
                        protocol_port=8080, weight=1, backup=False, enabled=True,
                        subnet_id=SUB, operating_status='NO_MONITOR',
                        provisioning_status='ACTIVE', name='m1', vnic_type='normal',
                        created_at=T0))
    s.add(models.Pool(id=PO2, project_id=PRJ, name='p2', protocol='TCP',
                      lb_algorithm='LEAST_CONNECTIONS', enabled=True,
                      load_balancer_id=LB, provisioning_status='ACTIVE',
                      operating_status='ONLINE', tls_enabled=False, created_at=T0))
    s.add(models.Listener(id=LI, name='l1', protocol='HTTP', peer_port=1025,
                          insert_headers={'X-Forwarded-For': 'true'},
                          default_pool_id=PO, **listener))
    s.add(models.Listener(id=LI2, name='l2', protocol='TCP', peer_port=1026,
                          insert_headers=None, **listener))
    # PO3: no listener of its own, an L7 policy with a rule redirects to it
    s.add(models.Pool(id=PO3, project_id=PRJ, name='p3', protocol='HTTP',
                      lb_algorithm='ROUND_ROBIN', enabled=True, load_balancer_id=LB,
                      provisioning_status='ACTIVE', operating_status='ONLINE',
                      tls_enabled=False, created_at=T0))
    s.add(models.SessionPersistence(pool_id=PO3, type='APP_COOKIE', cookie_name='c'))
    s.add(models.L7Policy(id=L7P, name='pol1', listener_id=LI, action='REDIRECT_TO_POOL',
                          redirect_pool_id=PO3, position=1, enabled=True,
                          provisioning_status='ACTIVE', operating_status='ONLINE',
                          project_id=PRJ))
    s.add(models.L7Rule(id=L7R, l7policy_id=L7P, type='PATH', compare_type='STARTS_WITH',
                        value='/api', invert=False, enabled=True,
                        provisioning_status='ACTIVE', operating_status='ONLINE',
                        project_id=PRJ))
    s.commit()

    # listener.py delete / put
    s = new_session()
    db = s.query(models.Listener).filter_by(id=LI2).first()
    record('orm_listener_delete', d, d.listener_delete,
           driver_utils.db_listener_to_provider_listener(db, for_delete=True))
    s = new_session()
    db = s.query(models.Listener).filter_by(id=LI).first()
    new = driver_utils.listener_dict_to_provider_dict(
        {'id': LI, 'name': 'l1-u', 'timeout_client_data': 12345,
         'timeout_tcp_inspect': 10, 'insert_headers': {'X-Forwarded-Port': 'true'},
         'client_authentication': 'NONE', 'tls_ciphers': 'ECDHE', 'hsts_max_age': 5,
         'hsts_include_subdomains': True, 'hsts_preload': False})
    record('orm_listener_update', d, d.listener_update,
           driver_utils.db_listener_to_provider_listener(db, for_delete=True),
           pdm.Listener.from_dict(new))

    # pool.py put: `_get_affected_listener_ids` reads pool.listeners first
    s = new_session()
    db = s.query(models.Pool).filter_by(id=PO3).first()
    [li.id for li in db.listeners]
    new = driver_utils.pool_dict_to_provider_dict(
        {'id': PO3, 'name': 'p3-u', 'lb_algorithm': 'SOURCE_IP',
         'session_persistence': None})
    record('orm_pool_update', d, d.pool_update,
           driver_utils.db_pool_to_provider_pool(db, for_delete=True),
           pdm.Pool.from_dict(new))
    # a sent persistence without type: put reads the stored one first
    s = new_session()
    db = s.query(models.Pool).filter_by(id=PO).first()
    if db.session_persistence and db.session_persistence.type:
        pass
    [li.id for li in db.listeners]
    new = driver_utils.pool_dict_to_provider_dict(
        {'id': PO, 'session_persistence': {'type': 'APP_COOKIE', 'cookie_name': 'c2'}})
    record('orm_pool_update_sp_without_type', d, d.pool_update,
           driver_utils.db_pool_to_provider_pool(db, for_delete=True),
           pdm.Pool.from_dict(new))

    # pool.py delete: l7policies, then listeners
    for name, pid in (('orm_pool_delete', PO2), ('orm_pool_delete_children', PO)):
        s = new_session()
        db = s.query(models.Pool).filter_by(id=pid).first()
        db.l7policies
        [li.id for li in db.listeners]
        record(name, d, d.pool_delete,
               driver_utils.db_pool_to_provider_pool(db, for_delete=True))

    # l7policy.py put: the sanitized body, as L7PolicyPUT renders it
    s = new_session()
    db = s.query(models.L7Policy).filter_by(id=L7P).first()
    body = validate.sanitize_l7policy_api_args({'action': 'REJECT', 'name': 'pol-u'})
    body = l7policy_types.L7PolicyPUT(**body).to_dict(render_unsets=False)
    body['id'] = L7P
    record('orm_l7policy_update_reject', d, d.l7policy_update,
           driver_utils.db_l7policy_to_provider_l7policy(db),
           pdm.L7Policy.from_dict(driver_utils.l7policy_dict_to_provider_dict(body)))


def refusal(d, fn, *args):
    try:
        with session_patch():
            fn(*args)
    except lib_exc.UnsupportedOptionError as e:
        return {'kind': 'unsupported', 'user': e.user_fault_string,
                'operator': e.operator_fault_string}
    except lib_exc.NotFound as e:
        return {'kind': 'not_found', 'user': e.user_fault_string,
                'operator': e.operator_fault_string}
    except lib_exc.DriverError as e:
        return {'kind': 'driver', 'user': e.user_fault_string,
                'operator': e.operator_fault_string}
    return None


def refusals(d):
    out = {}
    out['pool_algorithm'] = refusal(d, d.pool_create, pdm.Pool(
        pool_id=PO, lb_algorithm='SOURCE_IP_PORT', protocol='TCP'))
    out['pool_update_algorithm'] = refusal(d, d.pool_update, pdm.Pool(pool_id=PO),
                                           pdm.Pool(pool_id=PO, lb_algorithm='SOURCE_IP_PORT'))
    out['listener_protocol'] = refusal(d, d.listener_create, pdm.Listener(
        listener_id=LI, protocol='FOO'))
    out['listener_alpn'] = refusal(d, d.listener_create, pdm.Listener(
        listener_id=LI, protocol='TERMINATED_HTTPS', alpn_protocols=['h2', 'spdy/3']))
    out['listener_update_alpn'] = refusal(d, d.listener_update, pdm.Listener(listener_id=LI),
                                          pdm.Listener(listener_id=LI, alpn_protocols=['h3']))
    out['pool_alpn'] = refusal(d, d.pool_create, pdm.Pool(
        pool_id=PO, lb_algorithm='ROUND_ROBIN', alpn_protocols=['h3']))
    # UDP pool, IPv4 VIP, IPv6 member
    li = db_listener('UDP')
    li.load_balancer = db_lb()
    d.repositories.pool.get = mock.Mock(return_value=db_pool(
        protocol='UDP', listeners=[li]))
    out['member_mixed_ip'] = refusal(d, d.member_create, pdm.Member(
        member_id=ME, pool_id=PO, address='fd00::10'))
    d.repositories.pool.get = mock.Mock(return_value=db_pool(
        protocol='SCTP', listeners=[li]))
    out['member_batch_mixed_ip'] = refusal(d, d.member_batch_update, PO, [pdm.Member(
        member_id=ME, pool_id=PO, address='fd00::10')])
    d.repositories.listener.get = mock.Mock(return_value=db_listener('TCP'))
    out['l7policy_tcp'] = refusal(d, d.l7policy_create, pdm.L7Policy(
        l7policy_id=L7P, listener_id=LI))
    with open(os.path.join(OUT, 'refusals.json'), 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


FLAVORS = [
    {},
    {'loadbalancer_topology': 'SINGLE'},
    {'loadbalancer_topology': 'ACTIVE_STANDBY', 'sriov_vip': True,
     'allow_member_sriov': False},
    {'loadbalancer_topology': 'FOO'},
    {'loadbalancer_topology': 5},
    {'loadbalancer_topology': None},
    {'bogus': 1},
    {'bogus': 1, 'another': 'x'},
    {'bogus': 1, 'sriov_vip': 'yes'},
    {'sriov_vip': 'yes'},
    {'sriov_vip': 1},
    {'allow_member_sriov': 'true'},
    {'compute_flavor': 42},
    {'amp_image_tag': ['a']},
    {'amp_image_tag': {'a': 1}},
    {'amp_image_tag': 1.5},
    {'sriov_vip': 'yes', 'compute_flavor': 1},
    {'compute_flavor': 1, 'sriov_vip': 'yes'},
    {'loadbalancer_topology': 5, 'compute_flavor': 1},
    {'amp_image_tag': "it's"},
    {'amp_image_tag': False},
]

AZS = [
    {},
    {'compute_zone': 'az1', 'volume_zone': 'v1'},
    {'compute_zone': 1},
    {'valid_vip_networks': 'net'},
    {'valid_vip_networks': ['a', 'b']},
    {'management_network': ['x']},
    {'other': True},
    {'other': True, 'zzz': None, 'aaa': 1},
    {'volume_zone': None},
]


def validation(fn, data):
    try:
        fn(data)
    except lib_exc.UnsupportedOptionError as e:
        return {'kind': 'unsupported', 'user': e.user_fault_string}
    except lib_exc.DriverError as e:
        return {'kind': 'driver', 'user': e.user_fault_string}
    return None


def metadata(d):
    CONF.set_override('compute_driver', 'compute_noop_driver', group='controller_worker')
    CONF.set_override('image_driver', 'image_noop_driver', group='controller_worker')
    CONF.set_override('volume_driver', 'volume_noop_driver', group='controller_worker')
    out = {
        'supported_flavor_metadata': d.get_supported_flavor_metadata(),
        'supported_availability_zone_metadata':
            d.get_supported_availability_zone_metadata(),
        'flavors': [{'input': f, 'error': validation(d.validate_flavor, dict(f))}
                    for f in FLAVORS],
        'availability_zones': [
            {'input': a, 'error': validation(d.validate_availability_zone, dict(a))}
            for a in AZS],
    }
    with open(os.path.join(OUT, 'metadata.json'), 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    sys.exit(main())
