"""The objects STACK_COMPUTE=1 promises (run by compute.sh, main venv, admin OS_*).

Idempotent: the flavor $NOVA_FLAVOR_ID, the aggregate $NOVA_AZ (availability zone of the same
name) holding host $NOVA_AZ_HOST, one active public image tagged $GLANCE_AMP_TAG (a few bytes,
raw/bare); then waits until Nova lists both zones and Cinder its zone as available. Every call
goes through the catalog (public interface). Prints IMAGE_ID=… and IMAGE_OWNER=… on stdout.
"""
import os
import sys
import time

import openstack

E = os.environ
conn = openstack.connect(
    auth_url=E['OS_AUTH_URL'], username=E['OS_USERNAME'], password=E['OS_PASSWORD'],
    project_name=E['OS_PROJECT_NAME'], user_domain_name='Default',
    project_domain_name='Default', region_name='RegionOne', interface='public')
sess = conn.session
FLAVOR, AZ, AZ_HOST = E['NOVA_FLAVOR_ID'], E['NOVA_AZ'], E['NOVA_AZ_HOST']
TAG, CINDER_AZ = E['GLANCE_AMP_TAG'], E['CINDER_AZ']


def call(method, stype, path, **kw):
    kw.setdefault('raise_exc', False)
    hdrs = kw.pop('headers', {})
    if stype == 'compute':
        hdrs['OpenStack-API-Version'] = 'compute 2.15'
    r = sess.request(path, method, endpoint_filter={
        'service_type': stype, 'interface': 'public', 'region_name': 'RegionOne'},
        headers=hdrs, **kw)
    return r


def must(r, what):
    if r.status_code >= 400:
        sys.exit(f'compute_setup: {what}: HTTP {r.status_code} {r.text[:300]}')
    return r


def log(msg):
    print(f'[compute_setup] {msg}', file=sys.stderr)


# flavor
if call('GET', 'compute', f'/flavors/{FLAVOR}').status_code == 404:
    must(call('POST', 'compute', '/flavors', json={'flavor': {
        'name': FLAVOR, 'id': FLAVOR, 'ram': 1024, 'vcpus': 1, 'disk': 2}}),
        'flavor create')
    log(f'flavor {FLAVOR} created')
must(call('GET', 'compute', f'/flavors/{FLAVOR}'), 'flavor get')

# aggregate + host
aggs = must(call('GET', 'compute', '/os-aggregates'), 'aggregate list').json()['aggregates']
agg = next((a for a in aggs if a['name'] == AZ), None)
if agg is None:
    agg = must(call('POST', 'compute', '/os-aggregates', json={'aggregate': {
        'name': AZ, 'availability_zone': AZ}}), 'aggregate create').json()['aggregate']
    log(f'aggregate {AZ} created')
if AZ_HOST not in (agg.get('hosts') or []):
    must(call('POST', 'compute', f'/os-aggregates/{agg["id"]}/action',
              json={'add_host': {'host': AZ_HOST}}), f'add host {AZ_HOST} to {AZ}')
    log(f'host {AZ_HOST} added to aggregate {AZ}')

# image
q = f'/v2/images?tag={TAG}&status=active'
imgs = must(call('GET', 'image', q), 'image list').json()['images']
if not imgs:
    img = must(call('POST', 'image', '/v2/images', json={
        'name': 'keel-amphora', 'disk_format': 'raw', 'container_format': 'bare',
        'visibility': 'public', 'tags': [TAG]}), 'image create').json()
    must(call('PUT', 'image', f'/v2/images/{img["id"]}/file', data=b'keel-amphora\n',
              headers={'Content-Type': 'application/octet-stream'}), 'image upload')
    log(f'image {img["id"]} uploaded, tag {TAG}')
    imgs = must(call('GET', 'image', q), 'image list').json()['images']
if not imgs:
    sys.exit(f'compute_setup: no active image tagged {TAG} after the upload')
img = imgs[0]

# zones
want_nova = {AZ, 'nova'}
for i in range(90):
    zs = must(call('GET', 'compute', '/os-availability-zone'), 'nova zones').json()
    nova_ok = {z['zoneName'] for z in zs['availabilityZoneInfo']
               if z['zoneState']['available']}
    cz = must(call('GET', 'block-storage', '/os-availability-zone'), 'cinder zones').json()
    cinder_ok = {z['zoneName'] for z in cz['availabilityZoneInfo']
                 if z['zoneState']['available']}
    if want_nova <= nova_ok and CINDER_AZ in cinder_ok:
        break
    time.sleep(1)
else:
    sys.exit(f'compute_setup: zones not available after 90 s: nova {sorted(nova_ok)} '
             f'(want {sorted(want_nova)}), cinder {sorted(cinder_ok)} (want {CINDER_AZ})')
log(f'nova zones {sorted(nova_ok)}, cinder zones {sorted(cinder_ok)}')
print(f'IMAGE_ID={img["id"]}')
print(f'IMAGE_OWNER={img["owner"]}')
