#!/usr/bin/env python3
"""An NB oracle that is not Keel's code (issue 45).

Derives, from the Octavia database (and Neutron / the NB topology for the facts the
mapping needs), the OVN Northbound rows that ovn-octavia-provider 11.0.0 writes for every
non-DELETED `provider='ovn'` load balancer, and compares them with a dump of the real
ovsdb-server, unfiltered: a Load_Balancer row no expected load balancer accounts for is an
orphan. Nothing here uses Keel's planners; the mapping is written from the reference's
facts (seed 000 = the OVN provider driver's document; ovn_octavia_provider/helper.py) and
the facts are restated in ci/oracle/README.md.

    nb_oracle.py --db mysql://keel:pw@127.0.0.1:3306/keel_x --nb tcp:127.0.0.1:6641 \
        [--neutron-url http://127.0.0.1:9696 --token T] [--only-lbs-of-db] \
        [--scope-network NET]... [--ignore-foreign] [--lb-id ID]...

Output (stdout): JSON {"lbs": N, "differences": [...], "orphans": [...], "unjudged": [...],
"notes": [...]}. Exit 0: no difference and no orphan; 1: some; 2: it cannot run (what is
missing is named on stderr and in {"error": ...}) — it never passes by skipping.
"""
import argparse
import ipaddress
import json
import os
import sqlite3
import subprocess
import sys
import urllib.parse

# --- facts of the reference (restated; see README.md "The mapping") --------------------
# seed 000 §4.1 / ovn_octavia_provider/common/constants.py LB_SELECTION_FIELDS_MAP: the
# row's selection_fields per pool algorithm; an LB created without a pool (`lb_create`,
# algorithm None) gets the same fields as SOURCE_IP_PORT in another order.
SELECTION = {
    "SOURCE_IP_PORT": frozenset(["ip_dst", "ip_src", "tp_dst", "tp_src"]),
    "SOURCE_IP": frozenset(["ip_src", "ip_dst"]),
    None: frozenset(["ip_src", "ip_dst", "tp_src", "tp_dst"]),
}
PENDING = ("PENDING_CREATE", "PENDING_UPDATE", "PENDING_DELETE")
# external_ids keys by which a Load_Balancer row is recognisably ovn-octavia-provider's
# (seed 000 §1.2); a row with none of them is "foreign" (Neutron port forwarding, …).
OCTAVIA_KEYS = ("neutron:vip", "neutron:vip_port_id", "ls_refs", "lr_ref",
                "octavia:healthmonitors", "neutron:member_status",
                "neutron:additional_vips", "neutron:vip_fip")
OCTAVIA_PREFIXES = ("listener_", "pool_")


class CannotRun(Exception):
    pass


def is_octavia_row(ext):
    if ext.get("neutron:device_owner") == "port_forwarding_plugin":
        return False
    return any(k in ext for k in OCTAVIA_KEYS) or any(
        k.startswith(OCTAVIA_PREFIXES) for k in ext)


def ipver(ip):
    return ipaddress.ip_address(ip).version


def bracket(ip):
    return f"[{ip}]" if ipver(ip) == 6 else ip


# --- the Octavia database ---------------------------------------------------------------
class Db:
    def __init__(self, url):
        self.url = url
        if url.startswith("sqlite"):
            path = url.split("://", 1)[1].split("?", 1)[0] if "://" in url else url
            if not os.path.exists(path):
                raise CannotRun(f"SQLite database file {path} does not exist")
            self.conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            self.conn.row_factory = sqlite3.Row
            self.kind = "sqlite"
        elif url.startswith("mysql"):
            try:
                import pymysql
            except ImportError as e:
                raise CannotRun(f"pymysql is not importable: {e}") from e
            u = urllib.parse.urlparse(url.replace("mysql+pymysql://", "mysql://"))
            try:
                self.conn = pymysql.connect(
                    host=u.hostname, port=u.port or 3306,
                    user=urllib.parse.unquote(u.username or ""),
                    password=urllib.parse.unquote(u.password or ""),
                    database=u.path.lstrip("/"),
                    cursorclass=pymysql.cursors.DictCursor, connect_timeout=10)
            except Exception as e:
                raise CannotRun(f"cannot connect to {u.hostname}:{u.port}{u.path}: {e}") from e
            self.kind = "mysql"
        else:
            path = url
            if not os.path.exists(path):
                raise CannotRun(f"database {url!r}: neither a mysql:// URL nor a file")
            return self.__init__("sqlite://" + path)

    def rows(self, sql):
        cur = self.conn.cursor()
        cur.execute(sql)
        return [dict(r) for r in cur.fetchall()]


def load_db(db):
    try:
        lbs = db.rows("SELECT id, provider, provisioning_status, enabled FROM load_balancer")
        vips = db.rows("SELECT load_balancer_id, ip_address, port_id, subnet_id, network_id FROM vip")
        addl = db.rows("SELECT load_balancer_id, ip_address, port_id, subnet_id, network_id "
                       "FROM additional_vip")
        listeners = db.rows("SELECT id, load_balancer_id, protocol, protocol_port, enabled, "
                            "default_pool_id, provisioning_status FROM listener")
        pools = db.rows("SELECT id, load_balancer_id, protocol, lb_algorithm, enabled, "
                        "provisioning_status, updated_at FROM pool")
        sps = db.rows("SELECT pool_id, type, persistence_timeout FROM session_persistence")
        members = db.rows("SELECT id, pool_id, subnet_id, ip_address, protocol_port, enabled, "
                          "operating_status, provisioning_status FROM member")
        hms = db.rows("SELECT id, pool_id, type, delay, timeout, fall_threshold, rise_threshold, "
                      "enabled, provisioning_status FROM health_monitor")
        flavors = db.rows("SELECT l.id AS id, p.flavor_data AS data FROM load_balancer l "
                          "JOIN flavor f ON f.id = l.flavor_id "
                          "JOIN flavor_profile p ON p.id = f.flavor_profile_id "
                          "WHERE p.provider_name = 'ovn'")
    except Exception as e:
        raise CannotRun(f"reading the Octavia database failed: {e}") from e
    flavor_of = {}
    for x in flavors:
        try:
            data = json.loads(x["data"])
        except ValueError:
            continue
        if isinstance(data, dict):
            flavor_of[x["id"]] = data
    return lbs, vips, addl, listeners, pools, sps, members, hms, flavor_of


# --- the real NB ------------------------------------------------------------------------
def ovsdb(remote, txn):
    try:
        out = subprocess.run(["ovsdb-client", "--timeout=30", "transact", remote, json.dumps(txn)],
                             capture_output=True, text=True, timeout=40)
    except FileNotFoundError as e:
        raise CannotRun("ovsdb-client is not on PATH") from e
    except subprocess.TimeoutExpired as e:
        raise CannotRun(f"ovsdb-client transact {remote} timed out") from e
    if out.returncode != 0:
        raise CannotRun(f"ovsdb-client transact {remote}: {out.stderr.strip()}")
    res = json.loads(out.stdout)
    for r in res:
        if isinstance(r, dict) and "error" in r:
            raise CannotRun(f"ovsdb-client transact {remote}: {r}")
    return res


def pick_nb(remotes):
    """The leader of a raft cluster when several remotes are given (a follower may lag)."""
    remotes = [r for r in remotes.split(",") if r]
    if len(remotes) == 1:
        return remotes[0]
    errs = []
    for r in remotes:
        try:
            res = ovsdb(r, ["_Server", {"op": "select", "table": "Database",
                                        "where": [["name", "==", "OVN_Northbound"]]}])
        except CannotRun as e:
            errs.append(str(e))
            continue
        for row in res[0]["rows"]:
            if row.get("leader") is True and row.get("connected") is True:
                return r
    raise CannotRun(f"no NB raft leader among {remotes}: {errs}")


def val(v):
    """OVSDB JSON → Python: maps → dict, sets → list, uuids → str."""
    if isinstance(v, list) and len(v) == 2 and v[0] in ("map", "set", "uuid"):
        if v[0] == "map":
            return {val(k): val(x) for k, x in v[1]}
        if v[0] == "set":
            return [val(x) for x in v[1]]
        return v[1]
    return v


def load_nb(remote):
    tables = [
        ("Load_Balancer", None),
        ("Load_Balancer_Health_Check", None),
        ("Logical_Switch", ["_uuid", "name", "load_balancer", "ports", "external_ids"]),
        ("Logical_Switch_Port", ["_uuid", "name", "addresses", "type", "options", "external_ids"]),
        ("Logical_Router", ["_uuid", "name", "load_balancer", "ports", "external_ids"]),
        ("Logical_Router_Port", ["_uuid", "name", "networks", "gateway_chassis",
                                 "ha_chassis_group", "external_ids"]),
    ]
    txn = ["OVN_Northbound"]
    for t, cols in tables:
        op = {"op": "select", "table": t, "where": []}
        if cols:
            op["columns"] = cols
        txn.append(op)
    res = ovsdb(remote, txn)
    out = {t: [{k: val(v) for k, v in row.items()} for row in r["rows"]]
           for (t, _), r in zip(tables, res)}
    # a set column of one element comes bare (RFC 7047 <set>): make every set a list
    for rows in out.values():
        for row in rows:
            for k in SET_COLUMNS & row.keys():
                if not isinstance(row[k], list):
                    row[k] = [row[k]]
    return out


SET_COLUMNS = {"load_balancer", "ports", "networks", "gateway_chassis", "ha_chassis_group",
               "addresses", "health_check", "selection_fields", "protocol"}


# --- Neutron (optional; required only for the facts a load balancer needs) ---------------
class Neutron:
    def __init__(self, url, token):
        self.url, self.token = url, token
        self.cache = {}

    def get(self, path):
        if path in self.cache:
            return self.cache[path]
        if not self.url or not self.token:
            raise CannotRun(f"Neutron is needed ({path}) but no --neutron-url/--token "
                            "(or STACK_NEUTRON_URL + OS_* credentials) were given")
        import requests
        try:
            r = requests.get(f"{self.url}/v2.0{path}", headers={"X-Auth-Token": self.token},
                             timeout=30)
        except Exception as e:
            raise CannotRun(f"Neutron GET {path}: {e}") from e
        if r.status_code == 404:
            self.cache[path] = None
            return None
        if r.status_code != 200:
            raise CannotRun(f"Neutron GET {path}: {r.status_code} {r.text[:200]}")
        self.cache[path] = r.json()
        return self.cache[path]

    def subnet(self, sid):
        b = self.get(f"/subnets/{sid}")
        return b["subnet"] if b else None

    def fips_of_port(self, port_id):
        b = self.get(f"/floatingips?port_id={port_id}")
        return [f["floating_ip_address"] for f in (b or {}).get("floatingips", [])]

    def ports_named(self, name):
        b = self.get(f"/ports?name={urllib.parse.quote(name)}")
        return (b or {}).get("ports", [])

    def ports_of_network(self, net):
        b = self.get(f"/ports?network_id={net}")
        return (b or {}).get("ports", [])


def keystone_token():
    import requests
    url = os.environ.get("OS_AUTH_URL") or os.environ.get("STACK_KEYSTONE_URL")
    user, pw = os.environ.get("OS_USERNAME"), os.environ.get("OS_PASSWORD")
    project = os.environ.get("OS_PROJECT_NAME")
    if not (url and user and pw and project):
        return None
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": user, "password": pw, "domain": {"name": "Default"}}}},
        "scope": {"project": {"name": project, "domain": {"name": "Default"}}}}}
    try:
        r = requests.post(f"{url.rstrip('/')}/auth/tokens", json=body, timeout=30)
    except Exception as e:
        raise CannotRun(f"Keystone {url}: {e}") from e
    if r.status_code != 201:
        raise CannotRun(f"Keystone {url}: {r.status_code} {r.text[:200]}")
    return r.headers["X-Subject-Token"]


# --- the NB topology facts the mapping reads (helper.py `_find_lrs_of_ls`, `_find_ls_for_lr`,
# `_get_member_lsp`, `_ls_is_provider_network`) -------------------------------------------
class Topology:
    def __init__(self, nb):
        self.ls_by_name = {r["name"]: r for r in nb["Logical_Switch"]}
        self.lsp = {r["_uuid"]: r for r in nb["Logical_Switch_Port"]}
        self.lrp = {r["_uuid"]: r for r in nb["Logical_Router_Port"]}
        self.lrs = nb["Logical_Router"]
        self.lr_of_lrp_name = {}
        for lr in self.lrs:
            for p in lr["ports"]:
                if p in self.lrp:
                    self.lr_of_lrp_name[self.lrp[p]["name"]] = lr

    def is_provider(self, ls_name):
        ls = self.ls_by_name.get(ls_name)
        return bool(ls and ls["external_ids"].get("neutron:provnet-physical-network"))

    def routers_of(self, ls_name, cidr):
        """helper.py `_find_lrs_of_ls`: router interface ports of the switch whose
        neutron:cidrs hold the subnet's CIDR → the router holding their router-port."""
        ls = self.ls_by_name.get(ls_name)
        if not ls:
            return []
        out = {}
        net = ipaddress.ip_network(cidr, strict=False)
        for pu in ls["ports"]:
            p = self.lsp.get(pu)
            if not p or p["type"] != "router":
                continue
            if p["external_ids"].get("neutron:device_owner") != "network:router_interface":
                continue
            cidrs = p["external_ids"].get("neutron:cidrs", "").split()
            if not any(ipaddress.ip_network(c, strict=False) == net for c in cidrs):
                continue
            lr = self.lr_of_lrp_name.get(p["options"].get("router-port", ""))
            if lr:
                out[lr["name"]] = lr
        return list(out.values())

    def switches_of_router(self, lr, version):
        """helper.py `_find_ls_for_lr`: non-gateway router ports of the VIP's IP version →
        neutron-<their network>."""
        out = []
        for pu in lr["ports"]:
            p = self.lrp.get(pu)
            if not p or p["gateway_chassis"] or p["ha_chassis_group"]:
                continue
            if not p["networks"]:
                continue
            if ipaddress.ip_network(p["networks"][0], strict=False).version != version:
                continue
            name = p["external_ids"].get("neutron:network_name")
            if name:
                out.append(f"neutron-{name}" if not name.startswith("neutron-") else name)
        return out

    def member_lsp(self, ls_name, ip):
        """helper.py `_get_member_lsp`: the port of the member's switch holding its IP."""
        ls = self.ls_by_name.get(ls_name)
        if not ls:
            return None
        for pu in ls["ports"]:
            p = self.lsp.get(pu)
            if not p:
                continue
            ips = [x for a in p["addresses"] for x in a.split() if _is_ip(x)]
            if ip in ips:
                return p
        return None


def _is_ip(x):
    try:
        ipaddress.ip_address(x)
        return True
    except ValueError:
        return False


# --- the mapping ----------------------------------------------------------------------
class Expect:
    """What one NB Load_Balancer row (one protocol of one LB) must hold."""

    def __init__(self, lb_id, protocol):
        self.lb_id, self.protocol = lb_id, protocol
        self.ext = {}           # key → exact value
        self.ext_alt = {}       # key → set of accepted values (history-dependent)
        self.ext_optional = set()  # keys accepted present or absent (unjudged objects)
        self.set_keys = {}      # key → (expected set of comma items)
        self.json_keys = {}     # key → expected JSON value (dict / sorted list)
        self.ls_refs = None     # (required {name: count or None}, allowed names)
        self.vips = {}
        self.selection = None   # set of accepted frozensets
        self.options = ({}, set())  # (required, keys allowed)
        self.options_alt = {}
        self.hcs = []           # expected (vip-or-None-for-any, options, external_ids)
        self.ipm_required = {}
        self.ipm_allowed = {}
        self.switches = set()
        self.switches_allowed = set()
        self.routers = set()


def b(v):
    return bool(int(v)) if not isinstance(v, bool) else v


def derive(args, dbrows, topo, neutron, notes, unjudged):
    lbs, vips, addl, listeners, pools, sps, members, hms, flavor_of = dbrows
    vip_of = {v["load_balancer_id"]: v for v in vips}
    addl_of, lis_of, pools_of, mem_of, hm_of, sp_of = {}, {}, {}, {}, {}, {}
    for a in addl:
        addl_of.setdefault(a["load_balancer_id"], []).append(a)
    for x in listeners:
        lis_of.setdefault(x["load_balancer_id"], []).append(x)
    for x in pools:
        pools_of.setdefault(x["load_balancer_id"], []).append(x)
    for x in members:
        mem_of.setdefault(x["pool_id"], []).append(x)
    for x in hms:
        hm_of.setdefault(x["pool_id"], []).append(x)
    for x in sps:
        sp_of[x["pool_id"]] = x

    expected = {}   # lb id → [Expect]
    skipped = set()  # LB ids whose rows are not judged (ERROR LBs) but are not orphans
    for lb in lbs:
        if lb["provider"] != "ovn" or lb["provisioning_status"] == "DELETED":
            continue
        if args.lb_id and lb["id"] not in args.lb_id:
            skipped.add(lb["id"])
            continue
        if lb["provisioning_status"] == "ERROR":
            unjudged.append(f"lb {lb['id']}: provisioning_status ERROR — its NB rows are not judged")
            skipped.add(lb["id"])
            continue
        vip = vip_of.get(lb["id"])
        if not vip:
            unjudged.append(f"lb {lb['id']}: no vip row")
            skipped.add(lb["id"])
            continue
        expected[lb["id"]] = derive_lb(lb, vip, addl_of.get(lb["id"], []),
                                       lis_of.get(lb["id"], []), pools_of.get(lb["id"], []),
                                       mem_of, hm_of, sp_of, topo, neutron, notes,
                                       flavor_of.get(lb["id"], {}))
    return expected, skipped


def judged(obj):
    return obj["provisioning_status"] not in ("ERROR", "DELETED")


def flavor_rows(flavor):
    """Keel's OVN provider flavor (README "Provider flavors for OVN"), a departure the
    reference never writes: (the `keel:flavor` value, the options, the hash fields or None,
    reject)."""
    marker, options = {}, {}
    for k in ("reject", "ct_flush"):
        if isinstance(flavor.get(k), bool):
            marker[k] = flavor[k]
            options[k] = "true" if flavor[k] else "false"
    if isinstance(flavor.get("neighbor_responder"), str):
        marker["neighbor_responder"] = options["neighbor_responder"] = flavor["neighbor_responder"]
    snat = [x for x in flavor.get("hairpin_snat_ip") or [] if isinstance(x, str)]
    if snat:
        marker["hairpin_snat_ip"] = snat
        options["hairpin_snat_ip"] = " ".join(snat)
    sf = flavor.get("selection_fields")
    if isinstance(sf, list):
        marker["selection_fields"] = sf
        sf = frozenset(sf)
    else:
        sf = None
    return marker, options, sf, flavor.get("reject") is True


def derive_lb(lb, vip, addl, lis, pls, mem_of, hm_of, sp_of, topo, neutron, notes, flavor):
    lb_id = lb["id"]
    marker, flavor_options, flavor_sf, reject = flavor_rows(flavor)
    enabled = b(lb["enabled"])
    vip_ip = vip["ip_address"]
    addl = sorted(addl, key=lambda a: a["ip_address"])
    addl_ips = [a["ip_address"] for a in addl]
    vip_ls = f"neutron-{vip['network_id']}"
    vip_subnet = vip["subnet_id"]
    # FIPs of the VIP ports (seed 000 §1.2 neutron:vip_fip / neutron:additional_vip_fips)
    vip_fips = neutron.fips_of_port(vip["port_id"]) if vip["port_id"] else []
    addl_fips = [f for a in addl if a["port_id"] for f in neutron.fips_of_port(a["port_id"])]
    fips = vip_fips[:1] + addl_fips

    # routers of the VIP subnet (lb_create) and of member subnets (_add_member)
    def subnet_facts(sid):
        s = neutron.subnet(sid)
        if not s:
            return None, None
        return f"neutron-{s['network_id']}", s["cidr"]

    _, vip_cidr = subnet_facts(vip_subnet)
    protocols = {}
    for x in lis:
        protocols.setdefault(x["protocol"].lower(), {"lis": [], "pools": []})["lis"].append(x)
    for p in pls:
        protocols.setdefault(p["protocol"].lower(), {"lis": [], "pools": []})["pools"].append(p)
    if not protocols:
        protocols = {"": {"lis": [], "pools": []}}
    multi_row = len(protocols) > 1
    pool_by_id = {p["id"]: p for p in pls}
    all_member_ls = set()
    out = []
    for proto, objs in sorted(protocols.items()):
        e = Expect(lb_id, proto)
        # a protocol only listeners/pools in ERROR have: its row may or may not exist (the
        # reference makes the row before the failing step), and is not judged
        e.unjudged = bool(objs["lis"] or objs["pools"]) and not any(
            judged(o) for o in objs["lis"] + objs["pools"])
        e.ext["neutron:vip"] = vip_ip
        e.ext["neutron:vip_port_id"] = vip["port_id"]
        e.ext["enabled"] = "True" if enabled else "False"
        if marker:
            e.json_keys["keel:flavor"] = marker
        for k, v in flavor_options.items():
            e.options_alt[k] = {v}
        if addl:
            e.set_keys["neutron:additional_vips"] = addl_ips
            e.set_keys["neutron:additional_vip_port_ids"] = [a["port_id"] for a in addl]
        if vip_fips:
            e.ext["neutron:vip_fip"] = vip_fips[0]
        if addl_fips:
            e.set_keys["neutron:additional_vip_fips"] = addl_fips
        # listeners: listener_<id>[:D] = "<port>:" + "pool_<default pool>" (seed 000 §1.2, §3.1)
        lis_port_of_pool = {}
        for x in objs["lis"]:
            key = f"listener_{x['id']}" + ("" if b(x["enabled"]) else ":D")
            pool_key = f"pool_{x['default_pool_id']}" if x["default_pool_id"] else ""
            value = f"{x['protocol_port']}:{pool_key}"
            if not judged(x):
                e.ext_optional.update({f"listener_{x['id']}", f"listener_{x['id']}:D"})
                continue
            if x["default_pool_id"]:
                lis_port_of_pool.setdefault(x["default_pool_id"], x["protocol_port"])
                dp = pool_by_id.get(x["default_pool_id"])
                if dp is not None and not b(dp["enabled"]):
                    # a pool created disabled with this listener appends its disabled key
                    # (helper.py `pool_create`): history the database does not keep
                    e.ext_alt[key] = {value, value + ":D"}
                    continue
            e.ext[key] = value
        # pools: pool_<id>[:D] = members member_<id>_<ip>:<port>_<subnet> (seed 000 §1.2, §5.1);
        # a member without subnet gets the VIP subnet (seed 000 §2.2, §5.1)
        member_status = {}
        online_v = {}
        ipm_required, ipm_allowed = {}, {}
        ls_count = {}
        row_has_hm = any(judged(h) for p in objs["pools"] for h in hm_of.get(p["id"], []))
        hm_ids = []
        for p in objs["pools"]:
            key = f"pool_{p['id']}" + ("" if b(p["enabled"]) else ":D")
            if not judged(p):
                e.ext_optional.update({f"pool_{p['id']}", f"pool_{p['id']}:D"})
                continue
            infos = []
            pool_hms = [h for h in hm_of.get(p["id"], []) if judged(h)]
            # Keel's one documented departure here (README "Compatibility"): a monitor
            # with admin_state_up false probes nothing — no health check, no mapping
            # required, as Octavia's amphora driver; the reference keeps probing. Its id
            # still counts in octavia:healthmonitors.
            probing = [h for h in pool_hms if b(h["enabled"])]
            for h in hm_of.get(p["id"], []):
                if not judged(h):
                    unjudged.append(f"lb {lb_id}: health monitor {h['id']} is {h['provisioning_status']}: its rows are not judged")
            for m in mem_of.get(p["id"], []):
                if not judged(m):
                    unjudged.append(f"lb {lb_id}: member {m['id']} is {m['provisioning_status']}: not judged")
                    continue
                sid = m["subnet_id"] or vip_subnet
                infos.append(f"member_{m['id']}_{m['ip_address']}:{m['protocol_port']}_{sid}")
                member_status[m["id"]] = m["operating_status"]
                if m["operating_status"] != "OFFLINE":
                    online_v.setdefault(p["id"], []).append(m)
                m_ls, m_cidr = subnet_facts(sid)
                if m_ls and m_ls in topo.ls_by_name and not topo.is_provider(m_ls):
                    ls_count[m_ls] = ls_count.get(m_ls, 0) + 1
                    all_member_ls.add(m_ls)
                    for lr in topo.routers_of(m_ls, m_cidr):
                        e.routers.add(lr["name"])
                # ip_port_mappings (helper.py `_update_hm_member`): "<member ip>" =
                # "<member LSP name>:<HM port ip>" when the member's LSP and the subnet's
                # ovn-lb-hm-<subnet> port exist
                if row_has_hm and m_ls:
                    lsp = topo.member_lsp(m_ls, m["ip_address"])
                    hm_ip = None
                    for port in neutron.ports_named(f"ovn-lb-hm-{sid}"):
                        for f in port.get("fixed_ips", []):
                            if f["subnet_id"] == sid:
                                hm_ip = f["ip_address"]
                    if lsp and hm_ip:
                        v = f"{lsp['name']}:{hm_ip}"
                        ipm_allowed.setdefault(m["ip_address"], set()).add(v)
                        if probing and b(m["enabled"]):
                            ipm_required.setdefault(m["ip_address"], set()).add(v)
            e.set_keys[key] = infos
            # health checks: one per VIP and additional VIP, one per FIP (seed 000 §6.1,
            # helper.py `_add_lbhc`); vip "<vip>:<listener port>" or '' without a listener
            hm_ids.extend(h["id"] for h in pool_hms)
            for h in probing:
                # a 0 is written at create but never by an update (helper.py `hm_update` sets
                # only truthy values, merged into the map): after a 0 any value is history
                opts = {"interval": h["delay"], "timeout": h["timeout"],
                        "success_count": h["rise_threshold"], "failure_count": h["fall_threshold"]}
                opts = {k: (str(v) if v else None) for k, v in opts.items()}
                port = lis_port_of_pool.get(p["id"])
                for ip in [vip_ip] + addl_ips + fips:
                    ext = {"octavia:healthmonitor": h["id"], "octavia:pool_id": p["id"],
                           "octavia:vip": ip}
                    e.hcs.append((f"{bracket(ip)}:{port}" if port else None, opts, ext))
        if member_status:
            e.json_keys["neutron:member_status"] = member_status
        if hm_ids:
            e.json_keys["octavia:healthmonitors"] = sorted(hm_ids)
        e.ipm_required, e.ipm_allowed = ipm_required, ipm_allowed
        # vips (seed 000 §1.2 `_frame_vip_ips`): nothing when the LB is disabled; per enabled
        # listener with a default pool that is enabled and has members not OFFLINE, every
        # VIP/additional VIP of the member's family → the members; the FIPs → IPv4 members
        if enabled:
            for x in objs["lis"]:
                if not judged(x) or not b(x["enabled"]):
                    continue
                dp = pool_by_id.get(x["default_pool_id"]) if x["default_pool_id"] else None
                if dp is not None and not judged(dp):
                    continue
                if dp is None or not b(dp["enabled"]):
                    # without a backend: no VIP, or with the flavor's reject the VIP kept
                    # with none (Keel's departure, README "Provider flavors for OVN")
                    if not reject:
                        continue
                    dp = None
                ms = online_v.get(dp["id"], []) if dp else []
                # members in the order they were added (the pool value's order); the DB has
                # no order, so the value is compared as a set of backends
                v4 = [f"{m['ip_address']}:{m['protocol_port']}" for m in ms if ipver(m["ip_address"]) == 4]
                v6 = [f"[{m['ip_address']}]:{m['protocol_port']}" for m in ms if ipver(m["ip_address"]) == 6]
                for ip in [vip_ip] + addl_ips:
                    if (v4 or reject) and ipver(ip) == 4:
                        e.vips[f"{ip}:{x['protocol_port']}"] = v4
                    if (v6 or reject) and ipver(ip) == 6:
                        e.vips[f"[{ip}]:{x['protocol_port']}"] = v6
                if v4 or reject:
                    for ip in fips:
                        if ipver(ip) == 4:
                            e.vips[f"{ip}:{x['protocol_port']}"] = v4
        # selection_fields / options:affinity_timeout are row-level and last-writer-wins
        # (seed 000 §4.1/§4.2): a pool update's algorithm is never sent to the provider
        live_pools = [p for p in objs["pools"] if judged(p)]
        algos = {p["lb_algorithm"] for p in live_pools}
        # a flavor's hash fields stand for SOURCE_IP_PORT's and a pool-less row's (Keel)
        sel = dict(SELECTION)
        if flavor_sf is not None:
            sel["SOURCE_IP_PORT"] = sel[None] = flavor_sf
        if live_pools and all(p.get("updated_at") is None for p in live_pools):
            e.selection = {sel.get(a) for a in algos}
            if len(algos) > 1:
                notes.append(f"lb {lb_id} row {proto or '[]'}: pools of algorithms {sorted(algos)} share the row: any of their fields accepted")
        else:
            e.selection = set(sel.values())
        timeouts = set()
        for p in live_pools:
            sp = sp_of.get(p["id"])
            if sp and sp["type"] == "SOURCE_IP":
                timeouts.add(str(sp["persistence_timeout"] if sp["persistence_timeout"] is not None else 360))
        if timeouts:
            e.options_alt["affinity_timeout"] = timeouts | {None}  # a later pool_delete drops it
        elif any(p.get("updated_at") is not None for p in live_pools) or not live_pools:
            e.options_alt["affinity_timeout"] = None  # any value: history (seed 000 §4.2)
        # ls_refs (helper.py `_get_lb_to_ls_association_commands`): the VIP switch counts
        # 1 + number of additional VIPs, each member one on its switch
        if not topo.is_provider(vip_ls):
            ls_count[vip_ls] = ls_count.get(vip_ls, 0) + 1 + len(addl)
        e.ls_refs = ls_count
        e.multi_row = multi_row
        # routers of the VIP subnet; switches: ls_refs' keys + the routers' switches
        if vip_cidr:
            for lr in topo.routers_of(vip_ls, vip_cidr):
                e.routers.add(lr["name"])
        e.switches = {k for k in ls_count if k in topo.ls_by_name}
        lr_by_name = {lr["name"]: lr for lr in topo.lrs}
        for r in e.routers:
            e.switches |= {s for s in topo.switches_of_router(lr_by_name[r], ipver(vip_ip))
                           if s in topo.ls_by_name}
        if e.routers:
            e.set_keys["lr_ref"] = sorted(e.routers)
        out.append(e)
    for e in out:
        e.all_member_ls = all_member_ls
    return out


unjudged = []


# --- the comparison -------------------------------------------------------------------
def compare(expected, skipped, nb, topo, args, db_lb_ids, scope_ports):
    diffs, orphans, foreign = [], [], []
    hc_by_uuid = {r["_uuid"]: r for r in nb["Load_Balancer_Health_Check"]}
    rows_by_name = {}
    for r in nb["Load_Balancer"]:
        rows_by_name.setdefault(r["name"], []).append(r)
    ls_of_lb, lr_of_lb = {}, {}
    for ls in nb["Logical_Switch"]:
        for u in ls["load_balancer"]:
            ls_of_lb.setdefault(u, set()).add(ls["name"])
    for lr in nb["Logical_Router"]:
        for u in lr["load_balancer"]:
            lr_of_lb.setdefault(u, set()).add(lr["name"])

    def in_scope(r):
        if not (args.only_lbs_of_db or args.scope_network):
            return True
        if args.only_lbs_of_db and r["name"] in db_lb_ids:
            return True
        for net in args.scope_network:
            ls = f"neutron-{net}"
            if ls in ls_of_lb.get(r["_uuid"], set()):
                return True
            try:
                if ls in json.loads(r["external_ids"].get("ls_refs", "{}")):
                    return True
            except ValueError:
                pass
            if r["external_ids"].get("neutron:vip_port_id") in scope_ports:
                return True
        return False

    # orphans: rows of a name no expected LB accounts for
    for name, rows in sorted(rows_by_name.items()):
        if name in expected or name in skipped:
            continue
        for r in rows:
            if not in_scope(r):
                continue
            if not is_octavia_row(r["external_ids"]):
                if not args.ignore_foreign:
                    foreign.append(f"Load_Balancer {r['_uuid']} name={name!r}: no Octavia key (not ovn-octavia-provider's?) — --ignore-foreign to leave it")
                continue
            why = ("its LB is DELETED or not provider ovn in the database" if name in db_lb_ids
                   else "no load balancer of the database has this id")
            orphans.append(f"Load_Balancer {r['_uuid']} name={name} protocol={(r['protocol'] or ['[]'])[0]} "
                           f"vips={r['vips']} health_check={len(r['health_check'])}: {why}")

    for lb_id, exps in sorted(expected.items()):
        rows = rows_by_name.get(lb_id, [])
        by_proto = {}
        for r in rows:
            p = r["protocol"][0] if r["protocol"] else ""
            by_proto.setdefault(p, []).append(r)
        for e in exps:
            got = by_proto.pop(e.protocol, [])
            tag = f"lb {lb_id} row {e.protocol or '[]'}"
            if e.unjudged:
                unjudged.append(f"{tag}: only objects in ERROR have this protocol: the row is not judged")
                continue
            if not got:
                diffs.append(f"{tag}: missing from NB")
                continue
            if len(got) > 1:
                diffs.append(f"{tag}: {len(got)} NB rows of this protocol: {[g['_uuid'] for g in got]}")
            diffs.extend(compare_row(tag, e, got[0], hc_by_uuid, ls_of_lb, lr_of_lb))
        for p, rs in by_proto.items():
            for r in rs:
                orphans.append(f"Load_Balancer {r['_uuid']} name={lb_id} protocol={p or '[]'}: a row of an LB of the database with no listener or pool of that protocol (vips={r['vips']})")
    return diffs, orphans, foreign


def split_set(v):
    return sorted(x for x in v.split(",") if x) if v else []


def compare_row(tag, e, r, hc_by_uuid, ls_of_lb, lr_of_lb):
    d = []
    ext = dict(r["external_ids"])
    for k, v in e.ext.items():
        got = ext.pop(k, None)
        if got != v:
            d.append(f"{tag}: external_ids[{k}] expected {v!r}, NB has {got!r}")
    for k, vs in e.ext_alt.items():
        alt_keys = [k] + ([k[:-2]] if k.endswith(":D") else [k + ":D"])
        got = None
        for kk in alt_keys:
            if kk in ext:
                got = ext.pop(kk)
                if kk != k:
                    d.append(f"{tag}: external_ids key {kk!r} expected as {k!r}")
        if got not in vs:
            d.append(f"{tag}: external_ids[{k}] expected one of {sorted(vs)}, NB has {got!r}")
    for k, items in e.set_keys.items():
        got = ext.pop(k, None)
        if k.startswith("pool_") and got is None:
            other = k[:-2] if k.endswith(":D") else k + ":D"
            if other in ext:
                d.append(f"{tag}: external_ids key {other!r} expected as {k!r}")
                got = ext.pop(other)
        if got is None:
            d.append(f"{tag}: external_ids[{k}] missing, expected {','.join(sorted(items))!r}")
        elif split_set(got) != sorted(items):
            d.append(f"{tag}: external_ids[{k}] expected items {sorted(items)}, NB has {split_set(got)}")
    for k, v in e.json_keys.items():
        got = ext.pop(k, None)
        try:
            gv = json.loads(got) if got is not None else None
        except ValueError:
            gv = got
        if isinstance(gv, list):
            gv = sorted(gv)
        if gv != v:
            d.append(f"{tag}: external_ids[{k}] expected {json.dumps(v, sort_keys=True)}, NB has {got!r}")
    for k in e.ext_optional:
        ext.pop(k, None)
    # ls_refs
    got = ext.pop("ls_refs", None)
    try:
        gl = json.loads(got) if got else {}
    except ValueError:
        gl = None
    if gl is None:
        d.append(f"{tag}: external_ids[ls_refs] is not JSON: {got!r}")
    elif not e.multi_row:
        if gl != e.ls_refs:
            d.append(f"{tag}: external_ids[ls_refs] expected {json.dumps(e.ls_refs, sort_keys=True)}, NB has {got!r}")
    else:
        # a second protocol row copies the first row's ls_refs when it is made
        # (helper.py `_get_or_create_ovn_lb`): keys only, within the LB's switches
        missing = set(e.ls_refs) - set(gl)
        extra = set(gl) - set(e.ls_refs) - e.all_member_ls
        if missing or extra:
            d.append(f"{tag}: external_ids[ls_refs] keys: missing {sorted(missing)}, unexpected {sorted(extra)} (NB {got!r})")
    for k in sorted(ext):
        d.append(f"{tag}: external_ids[{k}] = {ext[k]!r} not expected")
    # vips: exact keys; backends as a set (their order is the order members were added)
    gv = r["vips"]
    for k in sorted(set(gv) | set(e.vips)):
        if k not in gv:
            d.append(f"{tag}: vips[{k}] missing, expected {','.join(e.vips[k])!r}")
        elif k not in e.vips:
            d.append(f"{tag}: vips[{k}] = {gv[k]!r} not expected")
        elif sorted(split_set(gv[k])) != sorted(e.vips[k]) or len(split_set(gv[k])) != len(e.vips[k]):
            d.append(f"{tag}: vips[{k}] expected backends {sorted(e.vips[k])}, NB has {gv[k]!r}")
    # protocol
    # selection_fields
    sf = frozenset(r["selection_fields"])
    if sf not in e.selection:
        d.append(f"{tag}: selection_fields {sorted(sf)} expected one of {[sorted(s) for s in e.selection if s]}")
    # options
    opts = dict(r["options"])
    for k, alts in e.options_alt.items():
        got = opts.pop(k, None)
        if alts is not None and got not in alts:
            d.append(f"{tag}: options[{k}] expected one of {sorted(a for a in alts if a) + (['absent'] if None in alts else [])}, NB has {got!r}")
    for k in sorted(opts):
        d.append(f"{tag}: options[{k}] = {opts[k]!r} not expected")
    # health checks (a multiset of (vip, options, external_ids))
    got_hcs = []
    for u in r["health_check"]:
        h = hc_by_uuid.get(u)
        if h is None:
            d.append(f"{tag}: health_check {u} does not exist")
            continue
        got_hcs.append(h)
    unmatched = list(e.hcs)
    for h in got_hcs:
        for i, (vip, opts_e, ext_e) in enumerate(unmatched):
            # '' is accepted beside "<vip>:<port>": a pool made a listener's default by a
            # listener update keeps its health checks' vip (helper.py `listener_update` does
            # not call `_update_lbhc_vip_port`)
            opts_ok = set(h["options"]) == set(opts_e) and all(
                v is None or h["options"][k] == v for k, v in opts_e.items())
            if h["external_ids"] == ext_e and opts_ok and (
                    h["vip"] in (vip, "") if vip is not None else
                    h["vip"] == "" or h["vip"].startswith(bracket(ext_e["octavia:vip"]) + ":")):
                unmatched.pop(i)
                break
        else:
            d.append(f"{tag}: health check {h['_uuid']} not expected: vip={h['vip']!r} options={h['options']} external_ids={h['external_ids']}")
    for vip, opts_e, ext_e in unmatched:
        d.append(f"{tag}: health check missing: vip={vip if vip is not None else '(empty or any port)'!r} options={opts_e} external_ids={ext_e}")
    # ip_port_mappings
    ipm = r["ip_port_mappings"]
    for ip, vs in sorted(e.ipm_required.items()):
        if ipm.get(ip) not in vs:
            d.append(f"{tag}: ip_port_mappings[{ip}] expected {sorted(vs)}, NB has {ipm.get(ip)!r}")
    for ip, v in sorted(ipm.items()):
        if ip not in e.ipm_required and v not in e.ipm_allowed.get(ip, set()):
            d.append(f"{tag}: ip_port_mappings[{ip}] = {v!r} not expected")
    # where the row is applied
    got_ls = ls_of_lb.get(r["_uuid"], set())
    if got_ls != e.switches:
        d.append(f"{tag}: referenced by Logical_Switch {sorted(got_ls)}, expected {sorted(e.switches)}")
    got_lr = lr_of_lb.get(r["_uuid"], set())
    if got_lr != e.routers:
        d.append(f"{tag}: referenced by Logical_Router {sorted(got_lr)}, expected {sorted(e.routers)}")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="mysql://user:pass@host:port/db or a SQLite file / sqlite:// URL")
    ap.add_argument("--nb", default=os.environ.get("STACK_OVN_NB", "tcp:127.0.0.1:6641"),
                    help="NB remote(s); a comma list picks the raft leader")
    ap.add_argument("--neutron-url", default=os.environ.get("STACK_NEUTRON_URL"))
    ap.add_argument("--token", default=os.environ.get("KEEL_ORACLE_TOKEN"),
                    help="a Keystone token for Neutron (else OS_* password credentials)")
    ap.add_argument("--only-lbs-of-db", action="store_true",
                    help="orphans only among rows named by an LB id of this database")
    ap.add_argument("--scope-network", action="append", default=[],
                    help="also count as in scope rows applied to / referring to this network")
    ap.add_argument("--ignore-foreign", action="store_true",
                    help="leave rows with no Octavia external_ids key (not the provider's)")
    ap.add_argument("--lb-id", action="append", default=[],
                    help="judge only these LBs' rows (orphans are still looked for)")
    args = ap.parse_args()
    try:
        db = Db(args.db)
        dbrows = load_db(db)
        nb = load_nb(pick_nb(args.nb))
        token = args.token
        if args.neutron_url and not token:
            token = keystone_token()
        neutron = Neutron(args.neutron_url, token)
        topo = Topology(nb)
        notes = []
        expected, skipped = derive(args, dbrows, topo, neutron, notes, unjudged)
        pending = [f"{t} {o['id']} {o['provisioning_status']}"
                   for t, objs in zip(("loadbalancer", "listener", "pool", "member", "healthmonitor"),
                                      (dbrows[0], dbrows[3], dbrows[4], dbrows[6], dbrows[7]))
                   for o in objs if o["provisioning_status"] in PENDING]
        if pending:
            raise CannotRun(f"the database is not settled: {pending[:10]}")
        db_lb_ids = {x["id"] for x in dbrows[0]}
        scope_ports = set()
        for net in args.scope_network:
            scope_ports |= {p["id"] for p in neutron.ports_of_network(net)}
        diffs, orphans, foreign = compare(expected, skipped, nb, topo, args, db_lb_ids, scope_ports)
    except CannotRun as e:
        print(json.dumps({"error": str(e)}))
        print(f"nb_oracle: cannot run: {e}", file=sys.stderr)
        return 2
    out = {"lbs": len(expected), "rows": sum(len(v) for v in expected.values()),
           "differences": diffs, "orphans": orphans + foreign, "unjudged": unjudged, "notes": notes}
    print(json.dumps(out, indent=1))
    return 1 if diffs or orphans or foreign else 0


if __name__ == "__main__":
    sys.exit(main())
