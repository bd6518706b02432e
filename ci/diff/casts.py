#!/usr/bin/env python3
"""Differential casts: the amphora provider's RPC messages of Keel beside the reference's.

The same request sequence goes to Keel (amphora provider, vhost ``/``) and to the Python
reference (amphora provider named explicitly, vhost ``/ref``). On each vhost a capture queue of
this script (``keel-casts-capture-<pid>``, exclusive, bound to the exchange ``octavia`` with the
routing key ``octavia_provisioning_v2`` and with ``#``: every routing key) receives a copy of
every cast; the octavia-worker of each vhost keeps consuming its own queue, so the flows run
and the load balancers go ACTIVE. Only this script's messages are kept: those that name an id
one of its requests created (other sessions may cast on the same vhost).

Every message is decoded with oslo.messaging's own deserialisation
(``oslo_messaging._drivers.common.deserialize_msg`` of the JSON body) and split into
``method``, ``args``, ``namespace``, ``version``, the ``_context_*`` keys, ``_unique_id`` and any
other key, plus the AMQP side (exchange, routing key, content type/encoding, delivery mode,
priority, expiration, headers, other properties). Masked before comparing: uuids (numbered by
first appearance over the side's whole stream, so the same object has the same number on both
sides), 32-hex ids (``_unique_id``, project ids, request ids), timestamps, VIP addresses and MACs.
Messages are paired in order; every difference is printed; the counts at the end.

    $PY ci/diff/casts.py --keel http://127.0.0.1:9886 --ref http://127.0.0.1:9876 \\
        --keel-amqp rabbit://octavia:…@127.0.0.1:5672/ --ref-amqp rabbit://…/ref

(``ci/diff/run.sh --casts`` starts a Keel on the worker's database and runs this.) Exit 1 when a
difference was found.
"""
import argparse
import datetime
import json
import os
import re
import socket
import sys
import time
import uuid

import kombu
import requests
from oslo_messaging._drivers import common as rpc_common

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential import persona_env, token  # noqa: E402

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HEX32_RE = re.compile(r"\b[0-9a-f]{32}\b")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")
MAC_RE = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
IP_KEYS = {"vip_address", "vrrp_ip", "ha_ip", "lb_network_ip"}  # Neutron-allocated
TOPIC = "octavia_provisioning_v2"


# ------------------------------------------------------------------ capture
class Capture:
    """An exclusive queue on one vhost bound to the exchange `octavia`."""

    def __init__(self, url, label):
        self.label = label
        # oslo's rabbit:// URL, read by kombu as amqp:// (same host, credentials and vhost:
        # "…:5672/" is "/", "…:5672//ref" is "/ref")
        self.conn = kombu.Connection(re.sub(r"^rabbit://", "amqp://", url))
        self.conn.connect()
        self.ch = self.conn.channel()
        self.queue = f"keel-casts-capture-{label}-{os.getpid()}"
        # the exchange as oslo.messaging declares it (topic, not durable, not auto-delete);
        # passive first: it exists as soon as a worker listens
        try:
            self.ch.exchange_declare("octavia", "topic", passive=True)
        except Exception:
            self.ch = self.conn.channel()
            self.ch.exchange_declare("octavia", "topic", durable=False, auto_delete=False)
        self.ch.queue_declare(self.queue, exclusive=True, auto_delete=True)
        self.ch.queue_bind(self.queue, "octavia", routing_key=TOPIC)
        self.ch.queue_bind(self.queue, "octavia", routing_key="#")
        self.messages = []

    def drain(self):
        """Everything in the queue so far (basic_get until empty)."""
        while True:
            m = self.ch.basic_get(self.queue, no_ack=True)
            if m is None:
                return
            self.messages.append(m)

    def close(self):
        try:
            self.conn.release()
        except Exception:
            pass


def decode(m):
    """(decoded oslo message dict, AMQP-side dict) of one amqp message."""
    body = m.body
    if isinstance(body, (bytes, bytearray)):
        body = body.decode(m.properties.get("content_encoding") or "utf-8")
    env = json.loads(body)
    msg = rpc_common.deserialize_msg(env)
    props = dict(m.properties)
    headers = props.pop("application_headers", None)
    amqp = {
        "exchange": m.delivery_info.get("exchange"),
        "routing_key": m.delivery_info.get("routing_key"),
        "envelope_keys": sorted(env) if isinstance(env, dict) else type(env).__name__,
        "envelope_version": env.get(rpc_common._VERSION_KEY) if isinstance(env, dict) else None,
        "properties": props,
        "headers": headers,
    }
    return msg, amqp


# ------------------------------------------------------------------ masking
class Masker:
    def __init__(self):
        self.ids = {}
        self.ips = {}

    def uuid(self, u):
        return self.ids.setdefault(u, f"<id{len(self.ids) + 1}>")

    def mask(self, v, key=None):
        if isinstance(v, dict):
            return {k: self.mask(v[k], k) for k in sorted(v)}
        if isinstance(v, list):
            return [self.mask(x, key) for x in v]
        if isinstance(v, str):
            if key in IP_KEYS and v:
                return self.ips.setdefault(v, f"<ip{len(self.ips) + 1}>")
            if key in ("_unique_id", "_msg_id"):
                return "<unique-id>"
            if TS_RE.match(v):
                return "<ts>"
            if MAC_RE.match(v):
                return "<mac>"
            v = UUID_RE.sub(lambda mm: self.uuid(mm.group(0)), v)
            return HEX32_RE.sub("<hex32>", v)
        return v


# ------------------------------------------------------------------ API
class Side:
    def __init__(self, name, url, amqp, provider, tokens):
        self.name, self.url, self.provider, self.tokens = name, url.rstrip("/"), provider, tokens
        self.capture = Capture(amqp, name)
        self.ids = set()  # every id this side's requests created (message filter)
        self.log = []     # (step, method, path, status)

    def call(self, who, method, path, body=None, want=None):
        h = {"X-Auth-Token": self.tokens[who][0], "Accept": "application/json"}
        if body is not None:
            h["Content-Type"] = "application/json"
        r = requests.request(method, self.url + path, headers=h, timeout=120,
                             data=None if body is None else json.dumps(body))
        js = r.json() if r.content else None
        self.log.append((method, path, r.status_code))
        if want and r.status_code not in want:
            raise RuntimeError(f"{self.name}: {method} {path} -> {r.status_code} {r.text[:400]}")
        self._remember(js)
        return r.status_code, js

    def _remember(self, js):
        if isinstance(js, dict):
            for k, v in js.items():
                if k == "id" and isinstance(v, str):
                    self.ids.add(v)
                else:
                    self._remember(v)
        elif isinstance(js, list):
            for x in js:
                self._remember(x)

    def wait_lb(self, lb, gone=False, deadline=90):
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            s, b = self.call("admin", "GET", f"/v2/lbaas/loadbalancers/{lb}")
            st = (b or {}).get("loadbalancer", {}).get("provisioning_status", "")
            if gone and s == 404:
                return "DELETED"
            if not gone and s == 200 and not st.startswith("PENDING_"):
                return st
            time.sleep(0.5)
        raise RuntimeError(f"{self.name}: LB {lb} still {st} after {deadline} s")


def sequence(side, subnet, net):
    """The request sequence; returns the list of step labels (one per cast expected)."""
    steps = []
    lbs = "/v2/lbaas/loadbalancers"

    def step(label, who, method, path, body=None, want=(200, 201, 202, 204), wait=None,
             gone=False):
        s, b = side.call(who, method, path, body, want)
        if wait:
            st = side.wait_lb(wait, gone=gone)
            if st not in ("ACTIVE", "DELETED"):
                raise RuntimeError(f"{side.name}: {label}: LB {st}")
        steps.append(label)
        print(f"  {side.name:4} {label:38} {method} {path} -> {s}", flush=True)
        return b

    # 1. an LB without graph, its tree built object by object
    lb = step("lb create", "demo", "POST", lbs, {"loadbalancer": {
        "name": "casts-lb1", "description": "d", "vip_subnet_id": subnet,
        "provider": side.provider}})["loadbalancer"]["id"]
    side.wait_lb(lb)
    w = dict(wait=lb)
    http = step("listener create HTTP", "demo", "POST", "/v2/lbaas/listeners", {"listener": {
        "name": "l-http", "loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80,
        "connection_limit": 100, "insert_headers": {"X-Forwarded-For": "true"}}},
        **w)["listener"]["id"]
    tcp = step("listener create TCP", "demo", "POST", "/v2/lbaas/listeners", {"listener": {
        "name": "l-tcp", "loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 81}},
        **w)["listener"]["id"]
    # TERMINATED_HTTPS needs a certificate container (Barbican): skipped here
    pool = step("pool create (listener)", "demo", "POST", "/v2/lbaas/pools", {"pool": {
        "name": "p1", "listener_id": http, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
        "session_persistence": {"type": "APP_COOKIE", "cookie_name": "c"}}},
        **w)["pool"]["id"]
    pool2 = step("pool create (lb, TCP)", "demo", "POST", "/v2/lbaas/pools", {"pool": {
        "name": "p2", "loadbalancer_id": lb, "protocol": "TCP",
        "lb_algorithm": "LEAST_CONNECTIONS"}}, **w)["pool"]["id"]
    m1 = step("member create", "demo", "POST", f"/v2/lbaas/pools/{pool}/members", {"member": {
        "name": "m1", "address": "10.77.0.11", "protocol_port": 8080, "subnet_id": subnet,
        "weight": 3}}, **w)["member"]["id"]
    step("member batch update", "demo", "PUT", f"/v2/lbaas/pools/{pool}/members", {"members": [
        {"name": "m1b", "address": "10.77.0.11", "protocol_port": 8080, "subnet_id": subnet,
         "weight": 5},
        {"name": "m2", "address": "10.77.0.12", "protocol_port": 8080, "subnet_id": subnet},
        {"name": "m3", "address": "10.77.0.13", "protocol_port": 8081}]}, **w)
    _, b = side.call("demo", "GET", f"/v2/lbaas/pools/{pool}/members")
    mids = {m["name"]: m["id"] for m in b["members"]}
    m2 = mids["m2"]
    hm = step("hm create", "demo", "POST", "/v2/lbaas/healthmonitors", {"healthmonitor": {
        "pool_id": pool, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2,
        "max_retries_down": 3, "url_path": "/h", "expected_codes": "200-204",
        "http_method": "GET"}}, **w)["healthmonitor"]["id"]
    pol = step("l7policy create", "demo", "POST", "/v2/lbaas/l7policies", {"l7policy": {
        "name": "pol", "listener_id": http, "action": "REDIRECT_TO_POOL",
        "redirect_pool_id": pool, "position": 1}}, **w)["l7policy"]["id"]
    rule = step("l7rule create", "demo", "POST", f"/v2/lbaas/l7policies/{pol}/rules",
                {"rule": {"type": "PATH", "compare_type": "STARTS_WITH", "value": "/api"}},
                **w)["rule"]["id"]
    # 2. updates
    step("lb update", "demo", "PUT", f"{lbs}/{lb}", {"loadbalancer": {
        "name": "casts-lb1-u", "description": "d2", "admin_state_up": False}}, **w)
    step("listener update", "demo", "PUT", f"/v2/lbaas/listeners/{http}", {"listener": {
        "name": "l-http-u", "connection_limit": 200, "default_pool_id": None,
        "timeout_client_data": 12345}}, **w)
    step("pool update", "demo", "PUT", f"/v2/lbaas/pools/{pool}", {"pool": {
        "name": "p1-u", "lb_algorithm": "SOURCE_IP", "session_persistence": None}}, **w)
    step("member update", "demo", "PUT", f"/v2/lbaas/pools/{pool}/members/{m2}", {"member": {
        "name": "m2-u", "weight": 7, "backup": True}}, **w)
    step("hm update", "demo", "PUT", f"/v2/lbaas/healthmonitors/{hm}", {"healthmonitor": {
        "delay": 6, "url_path": "/h2", "name": "hm-u"}}, **w)
    step("l7policy update", "demo", "PUT", f"/v2/lbaas/l7policies/{pol}", {"l7policy": {
        "action": "REJECT", "name": "pol-u"}}, **w)
    step("l7rule update", "demo", "PUT", f"/v2/lbaas/l7policies/{pol}/rules/{rule}", {"rule": {
        "value": "/v2", "invert": True}}, **w)
    # 3. deletes
    step("l7rule delete", "demo", "DELETE", f"/v2/lbaas/l7policies/{pol}/rules/{rule}", **w)
    step("l7policy delete", "demo", "DELETE", f"/v2/lbaas/l7policies/{pol}", **w)
    step("hm delete", "demo", "DELETE", f"/v2/lbaas/healthmonitors/{hm}", **w)
    step("member delete", "demo", "DELETE", f"/v2/lbaas/pools/{pool}/members/{m1}", **w)
    step("member batch (delete all)", "demo", "PUT", f"/v2/lbaas/pools/{pool}/members",
         {"members": []}, **w)
    step("pool delete", "demo", "DELETE", f"/v2/lbaas/pools/{pool2}", **w)
    step("listener delete", "demo", "DELETE", f"/v2/lbaas/listeners/{tcp}", **w)
    # 4. failovers (admin)
    step("lb failover", "admin", "PUT", f"{lbs}/{lb}/failover", **w)
    _, b = side.call("admin", "GET", f"/v2/octavia/amphorae?loadbalancer_id={lb}")
    amps = [a["id"] for a in b.get("amphorae", []) if a.get("status") != "DELETED"]
    if amps:
        step("amphora failover", "admin", "PUT", f"/v2/octavia/amphorae/{amps[0]}/failover", **w)
    else:
        print(f"  {side.name}: no amphora listed for {lb}: amphora failover skipped")
        steps.append("amphora failover (skipped: no amphora)")
    # 5. cascade delete (listener HTTP + pool p1 left)
    step("lb cascade delete", "demo", "DELETE", f"{lbs}/{lb}?cascade=true", wait=lb, gone=True)
    # 6. an LB with a full graph, then cascade-deleted
    g = step("lb create with graph", "demo", "POST", lbs, {"loadbalancer": {
        "name": "casts-lb2", "vip_network_id": net, "provider": side.provider,
        "listeners": [{
            "name": "g-l1", "protocol": "HTTP", "protocol_port": 80,
            "default_pool": {
                "name": "g-p1", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN",
                "members": [{"address": "10.77.0.21", "protocol_port": 80,
                             "subnet_id": subnet}],
                "healthmonitor": {"type": "HTTP", "delay": 5, "timeout": 3,
                                  "max_retries": 3, "url_path": "/"}},
            "l7policies": [{"name": "g-pol", "action": "REDIRECT_TO_URL",
                            "redirect_url": "http://example.com/",
                            "rules": [{"type": "HOST_NAME", "compare_type": "EQUAL_TO",
                                       "value": "a.example.com"}]}]},
            {"name": "g-l2", "protocol": "TCP", "protocol_port": 81}]}})
    lb2 = g["loadbalancer"]["id"]
    side.wait_lb(lb2)
    step("lb2 cascade delete", "demo", "DELETE", f"{lbs}/{lb2}?cascade=true", wait=lb2, gone=True)
    # 7. an empty LB, plain delete
    lb3 = step("lb3 create (vip_network_id)", "demo", "POST", lbs, {"loadbalancer": {
        "name": "casts-lb3", "vip_network_id": net, "provider": side.provider}})[
        "loadbalancer"]["id"]
    side.wait_lb(lb3)
    step("lb3 delete", "demo", "DELETE", f"{lbs}/{lb3}", wait=lb3, gone=True)
    return steps


# ------------------------------------------------------------------ neutron
def make_network(tokens, neutron):
    h = {"X-Auth-Token": tokens["demo"][0], "Content-Type": "application/json"}
    tag = uuid.uuid4().hex[:6]
    r = requests.post(f"{neutron}/v2.0/networks", headers=h, timeout=60,
                      json={"network": {"name": f"casts-{tag}"}})
    r.raise_for_status()
    net = r.json()["network"]["id"]
    r = requests.post(f"{neutron}/v2.0/subnets", headers=h, timeout=60, json={"subnet": {
        "name": f"casts-{tag}", "network_id": net, "ip_version": 4, "cidr": "10.77.0.0/24"}})
    r.raise_for_status()
    return net, r.json()["subnet"]["id"]


def drop_network(tokens, neutron, net):
    h = {"X-Auth-Token": tokens["admin"][0]}
    # ports left by a failed run (VIP ports) first
    r = requests.get(f"{neutron}/v2.0/ports?network_id={net}", headers=h, timeout=60)
    for p in r.json().get("ports", []) if r.ok else []:
        if p.get("device_owner", "").startswith("network:"):
            continue
        requests.delete(f"{neutron}/v2.0/ports/{p['id']}", headers=h, timeout=60)
    requests.delete(f"{neutron}/v2.0/networks/{net}", headers=h, timeout=60)


# ------------------------------------------------------------------ compare
def related(msg_text, ids):
    return any(i in msg_text for i in ids)


def diff(a, b, path=""):
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b:
                out.append(f"    {path}/{k}: only in keel = {json.dumps(a[k], sort_keys=True)[:300]}")
            elif k not in a:
                out.append(f"    {path}/{k}: only in reference = {json.dumps(b[k], sort_keys=True)[:300]}")
            else:
                out += diff(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, f"{path}[{i}]")
    elif a != b:
        out.append(f"    {path}: keel {json.dumps(a, sort_keys=True)[:300]} / "
                   f"reference {json.dumps(b, sort_keys=True)[:300]}")
    return out


def split(msg, amqp):
    ctx = {k: v for k, v in msg.items() if k.startswith("_context_")}
    rest = {k: v for k, v in msg.items()
            if k not in ("method", "args", "namespace", "version") and not k.startswith("_context_")}
    return {"method": msg.get("method"), "args": msg.get("args"),
            "namespace": msg.get("namespace", "<absent>"),
            "version": msg.get("version", "<absent>"),
            "context": ctx, "other_keys": rest, "amqp": amqp}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keel", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--keel-amqp", required=True)
    ap.add_argument("--ref-amqp", required=True)
    ap.add_argument("--out", default=None, help="write the decoded messages (JSON) here")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.chdir(root)
    tokens = {who: token(persona_env(who)) for who in ("admin", "demo")}
    neutron = persona_env("admin")["STACK_NEUTRON_URL"]
    net, subnet = make_network(tokens, neutron)
    print(f"network {net} subnet {subnet}", flush=True)
    sides = [Side("keel", a.keel, a.keel_amqp, "amphora", tokens),
             Side("ref", a.ref, a.ref_amqp, "amphora", tokens)]
    results = {}
    t0 = time.time()
    try:
        for s in sides:
            print(f"== {s.name} {s.url}", flush=True)
            try:
                results[s.name] = sequence(s, subnet, net)
            except Exception as e:  # keep going: compare what was cast
                print(f"!! {s.name}: sequence stopped: {e}", flush=True)
                results[s.name] = None
            time.sleep(2)
            s.capture.drain()
    finally:
        drop_network(tokens, neutron, net)
    streams, raw = {}, {}
    for s in sides:
        kept, other = [], 0
        for m in s.capture.messages:
            msg, amqp = decode(m)
            if related(json.dumps(msg), s.ids):
                kept.append(split(msg, amqp))
                raw.setdefault(s.name, []).append(kept[-1])
            else:
                other += 1
        s.capture.close()
        # args and the rest numbered apart: a context key or property one side has cannot
        # shift the numbering of the ids in args
        margs, mrest = Masker(), Masker()
        streams[s.name] = [{k: (margs if k == "args" else mrest).mask(v, k) for k, v in x.items()}
                           for x in kept]
        print(f"{s.name}: {len(s.capture.messages)} messages captured, {len(kept)} of this run, "
              f"{other} of others (ignored)")
    if a.out:
        with open(a.out, "w") as f:
            # masked (as compared) and unmasked (e.g. to see which id order a list follows)
            json.dump({"masked": streams, "raw": raw}, f, indent=1, sort_keys=True, default=str)
    k, r = streams["keel"], streams["ref"]
    print("\n== method sequence (keel | reference)")
    for i in range(max(len(k), len(r))):
        km = k[i]["method"] if i < len(k) else "-"
        rm = r[i]["method"] if i < len(r) else "-"
        print(f"  {i + 1:3} {km:28} {rm:28} {'' if km == rm else '<-- differs'}")
    ndiff, nmsgdiff = 0, 0
    print("\n== differences per message pair")
    for i in range(min(len(k), len(r))):
        d = diff(k[i], r[i])
        if d:
            nmsgdiff += 1
            ndiff += len(d)
            print(f"  #{i + 1} keel {k[i]['method']} / reference {r[i]['method']}:")
            print("\n".join(d))
    extra = abs(len(k) - len(r))
    print(f"\n== summary: keel {len(k)} messages, reference {len(r)}; pairs compared "
          f"{min(len(k), len(r))}, pairs with a difference {nmsgdiff}, differences {ndiff}, "
          f"unpaired messages {extra}; {time.time() - t0:.0f} s")
    return 1 if (ndiff or extra or None in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
