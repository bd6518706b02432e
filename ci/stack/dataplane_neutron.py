"""Neutron side of ci/stack/dataplane.sh (run with the stack venv's python, OS_* from env.sh).

  create-port NAME NETWORK HOST [SUBNET] [IP]  -> prints the port as JSON (plus per fixed IP
      its subnet's cidr/gateway/ip_version); exit 2 with a one-line reason on bad input
  wait-active PORT_ID SECONDS                  -> exit 0 once ACTIVE, else 3 with the reason
  delete-port PORT_ID                          -> 404 counts as deleted
  ext-net NAME PHYSNET CIDR GW START END       -> the external network's id (made if absent)

The port: on NETWORK (name or id), in the network's project, binding:host_id HOST (the
data plane's chassis), device_owner compute:keel-dp, device_id NAME, security group
keel-dp-open of that project (all ingress allowed; made on first use) so that members are
reachable from any client while the ACLs of a real port stay in the path.
"""
import json
import os
import sys
import time

from keystoneauth1 import exceptions as ksa_exc
from keystoneauth1 import session as ksa_session
from keystoneauth1.identity import v3

SG_NAME = "keel-dp-open"
# DP_NEUTRON_ENDPOINT (e.g. ci/ha's Neutron) replaces the catalog's network endpoint
ENDPOINT = {"endpoint_override": os.environ["DP_NEUTRON_ENDPOINT"]} if os.environ.get("DP_NEUTRON_ENDPOINT") \
    else {"endpoint_filter": {"service_type": "network", "interface": "public"}}


def die(code, msg):
    print(msg, file=sys.stderr)
    sys.exit(code)


def client():
    auth = v3.Password(
        auth_url=os.environ["OS_AUTH_URL"], username=os.environ["OS_USERNAME"],
        password=os.environ["OS_PASSWORD"], project_name=os.environ["OS_PROJECT_NAME"],
        user_domain_name=os.environ.get("OS_USER_DOMAIN_NAME", "Default"),
        project_domain_name=os.environ.get("OS_PROJECT_DOMAIN_NAME", "Default"))
    sess = ksa_session.Session(auth=auth, timeout=30)
    return sess


def call(sess, method, path, body=None, ok=(200, 201, 204)):
    try:
        r = sess.request("/v2.0" + path, method, json=body, raise_exc=False,
                         **ENDPOINT)
    except ksa_exc.ClientException as e:
        die(2, f"neutron unreachable: {e}")
    if r.status_code not in ok:
        try:
            msg = r.json().get("NeutronError", {}).get("message") or r.text
        except ValueError:
            msg = r.text
        die(2, f"neutron {method} {path}: HTTP {r.status_code}: {msg}")
    return r.json() if r.content else {}


def find(sess, kind, ref):
    """A network/subnet by id, else by unique name."""
    r = sess.request(f"/v2.0/{kind}s/{ref}", "GET", raise_exc=False,
                     **ENDPOINT)
    if r.status_code == 200:
        return r.json()[kind]
    found = call(sess, "GET", f"/{kind}s?name={ref}")[f"{kind}s"]
    if len(found) == 1:
        return found[0]
    if not found:
        die(2, f"no {kind} named or with id '{ref}'")
    die(2, f"{len(found)} {kind}s are named '{ref}': give its id")


def open_sg(sess, project):
    sgs = call(sess, "GET", f"/security-groups?name={SG_NAME}&project_id={project}")["security_groups"]
    if sgs:
        return sgs[0]["id"]
    sg = call(sess, "POST", "/security-groups", {"security_group": {
        "name": SG_NAME, "project_id": project,
        "description": "ci/stack/dataplane.sh: every ingress allowed"}})["security_group"]
    for eth in ("IPv4", "IPv6"):
        call(sess, "POST", "/security-group-rules", {"security_group_rule": {
            "security_group_id": sg["id"], "direction": "ingress", "ethertype": eth,
            "project_id": project}})
    return sg["id"]


def create_port(name, network, host, subnet=None, ip=None):
    sess = client()
    net = find(sess, "network", network)
    fixed = None
    if subnet or ip:
        f = {}
        if subnet:
            s = find(sess, "subnet", subnet)
            if s["network_id"] != net["id"]:
                die(2, f"subnet '{subnet}' is not on network '{network}'")
            f["subnet_id"] = s["id"]
        if ip:
            f["ip_address"] = ip
        fixed = [f]
    body = {"name": f"dp-{name}", "network_id": net["id"], "project_id": net["project_id"],
            "binding:host_id": host, "device_owner": "compute:keel-dp", "device_id": name,
            "security_groups": [open_sg(sess, net["project_id"])]}
    if fixed:
        body["fixed_ips"] = fixed
    port = call(sess, "POST", "/ports", {"port": body})["port"]
    ips = []
    for f in port["fixed_ips"]:
        s = call(sess, "GET", f"/subnets/{f['subnet_id']}")["subnet"]
        ips.append({"ip": f["ip_address"], "cidr": s["cidr"], "gateway": s["gateway_ip"] or "",
                    "version": s["ip_version"]})
    print(json.dumps({"id": port["id"], "mac": port["mac_address"], "network": net["id"],
                      "fixed_ips": ips}))


def wait_active(port_id, seconds):
    sess = client()
    deadline = time.monotonic() + float(seconds)
    while True:
        p = call(sess, "GET", f"/ports/{port_id}")["port"]
        if p["status"] == "ACTIVE":
            return
        if time.monotonic() > deadline:
            die(3, f"port {port_id} not ACTIVE after {seconds}s: status {p['status']}, "
                   f"binding:host_id {p.get('binding:host_id')!r}, "
                   f"binding:vif_type {p.get('binding:vif_type')!r} (binding_failed: no chassis "
                   f"of that name in the SB, or its bridge mappings lack the network's physnet)")
        time.sleep(0.5)


def ext_net(name, physnet, cidr, gateway, pool_start, pool_end):
    """The external network NAME (flat on PHYSNET, router:external, shared), made if absent."""
    sess = client()
    nets = call(sess, "GET", f"/networks?name={name}")["networks"]
    if nets:
        net = nets[0]
    else:
        net = call(sess, "POST", "/networks", {"network": {
            "name": name, "router:external": True, "provider:network_type": "flat",
            "provider:physical_network": physnet}})["network"]
    if not net["subnets"]:
        call(sess, "POST", "/subnets", {"subnet": {
            "name": name, "network_id": net["id"], "ip_version": 4, "cidr": cidr,
            "gateway_ip": gateway, "enable_dhcp": False,
            "allocation_pools": [{"start": pool_start, "end": pool_end}]}})
    print(net["id"])


def delete_port(port_id):
    call(client(), "DELETE", f"/ports/{port_id}", ok=(204, 404))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"create-port": create_port, "wait-active": wait_active, "delete-port": delete_port,
     "ext-net": ext_net}[cmd](*args)
