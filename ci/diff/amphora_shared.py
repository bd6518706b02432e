#!/usr/bin/env python3
"""Amphora load balancers shared by Keel and the Python reference API: migration both ways, and
the time of each amphora write on each side, in one run.

Both APIs use one database (the reference's ``octavia``) and one RabbitMQ vhost (``/ref``),
whose ``octavia-worker`` (the stack's ``worker-ref``, upstream's noop drivers) takes every cast
and writes every outcome. So whatever one API made, the other reads and changes, as during a
rolling switch from octavia-api to Keel (or back).

migrate (the default): trees made by one side are changed and deleted through the other:
  ref→keel  the reference creates an LB, an HTTP listener, a pool, a member and a monitor;
            Keel renames the LB, updates the listener, adds a member, batch-updates the
            members, deletes one, fails the LB over, then deletes the tree with cascade;
  keel→ref  the same with the roles swapped.
  Judged by the database (the worker's writes) and each side's GET: every step ends ACTIVE
  (or DELETED), each side shows the other's objects with the same attributes.

--bench N: N rounds, alternating which side goes first; per write (LB create, listener create,
  pool create, member create, LB update, cascade delete) the time to the API's answer and the
  time to ACTIVE (or DELETED) in the database, p50 / p95 per side, and Keel / reference.

    $PY ci/diff/amphora_shared.py --keel http://127.0.0.1:9886 --ref http://127.0.0.1:9877 \\
        [--bench 10] [--out results.json]

(``ci/diff/run.sh --amphora-shared`` starts a Keel on the reference's database and vhost and
runs this.) Exit 1 when a step failed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential import persona_env, token  # noqa: E402

DB = ["mysql", "-h127.0.0.1", "-uoctavia", "-prefstack-db-pass", "octavia", "-N", "-B", "-e"]


class Failed(Exception):
    pass


def sql(q):
    return subprocess.run(DB + [q], check=True, capture_output=True, text=True).stdout.strip()


def status_of(table, oid):
    return sql(f"SELECT provisioning_status FROM {table} WHERE id = '{oid}'")


def wait_db(table, oid, want, bound=90):
    """Polls the database until the worker wrote `want` (DELETED also when the row is gone);
    fails on ERROR or after `bound` seconds. Returns the seconds it took."""
    t0 = time.time()
    while True:
        s = status_of(table, oid)
        if s == want or (want == "DELETED" and s == ""):
            return time.time() - t0
        if s == "ERROR":
            raise Failed(f"{table} {oid} went ERROR (waiting for {want})")
        if time.time() - t0 > bound:
            raise Failed(f"{table} {oid} is {s!r} after {bound} s (waiting for {want})")
        time.sleep(0.05)


class Api:
    def __init__(self, name, url, tok):
        self.name, self.url, self.tok = name, url.rstrip("/"), tok

    def call(self, method, path, body=None, want=(200, 201, 202, 204)):
        t0 = time.time()
        r = requests.request(method, self.url + path, json=body, timeout=60,
                             headers={"X-Auth-Token": self.tok})
        took = time.time() - t0
        if r.status_code not in want:
            raise Failed(f"{self.name} {method} {path} {json.dumps(body)} → {r.status_code} {r.text[:400]}")
        doc = r.json() if r.text else {}
        return doc, took

    def get(self, path):
        return self.call("GET", path, want=(200,))[0]


def network(adm):
    """A Neutron network + subnet of the run's own (the VIPs' and members')."""
    n, _ = adm.call("POST", "/v2.0/networks", {"network": {"name": f"amp-shared-{os.getpid()}"}})
    net = n["network"]["id"]
    s, _ = adm.call("POST", "/v2.0/subnets", {"subnet": {
        "network_id": net, "cidr": "10.96.0.0/24", "ip_version": 4, "name": "amp-shared"}})
    return net, s["subnet"]["id"]


def tree(api, subnet, name):
    """LB, HTTP listener, pool, member and monitor through `api`, each to ACTIVE."""
    lb = api.call("POST", "/v2/lbaas/loadbalancers", {"loadbalancer": {
        "name": name, "vip_subnet_id": subnet, "provider": "amphora"}})[0]["loadbalancer"]["id"]
    wait_db("load_balancer", lb, "ACTIVE")
    ls = api.call("POST", "/v2/lbaas/listeners", {"listener": {
        "loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80,
        "timeout_client_data": 5000}})[0]["listener"]["id"]
    wait_db("load_balancer", lb, "ACTIVE")
    pool = api.call("POST", "/v2/lbaas/pools", {"pool": {
        "listener_id": ls, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}})[0]["pool"]["id"]
    wait_db("load_balancer", lb, "ACTIVE")
    m1 = api.call("POST", f"/v2/lbaas/pools/{pool}/members", {"member": {
        "address": "10.96.0.10", "protocol_port": 8080, "subnet_id": subnet}})[0]["member"]["id"]
    wait_db("load_balancer", lb, "ACTIVE")
    hm = api.call("POST", "/v2/lbaas/healthmonitors", {"healthmonitor": {
        "pool_id": pool, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2}})[0]["healthmonitor"]["id"]
    wait_db("load_balancer", lb, "ACTIVE")
    return {"lb": lb, "listener": ls, "pool": pool, "member": m1, "hm": hm}


def same_view(a, b, path, key):
    """`GET path` answers the same object on both sides (timestamps aside)."""
    x, y = a.get(path)[key], b.get(path)[key]
    for d in (x, y):
        for k in ("created_at", "updated_at"):
            d.pop(k, None)
    if x != y:
        diff = {k: (x.get(k), y.get(k)) for k in set(x) | set(y) if x.get(k) != y.get(k)}
        raise Failed(f"{path}: {a.name} and {b.name} answer differently: {diff}")


def take_over(maker, other, subnet, label, other_admin):
    t = tree(maker, subnet, f"amp-{label}")
    lb = t["lb"]
    for path, key in ((f"/v2/lbaas/loadbalancers/{lb}", "loadbalancer"),
                      (f"/v2/lbaas/listeners/{t['listener']}", "listener"),
                      (f"/v2/lbaas/pools/{t['pool']}", "pool"),
                      (f"/v2/lbaas/pools/{t['pool']}/members/{t['member']}", "member"),
                      (f"/v2/lbaas/healthmonitors/{t['hm']}", "healthmonitor")):
        same_view(maker, other, path, key)
    steps = []

    def step(what, method, path, body=None, api=other):
        api.call(method, path, body)
        wait_db("load_balancer", lb, "ACTIVE")
        steps.append(what)

    step("LB rename", "PUT", f"/v2/lbaas/loadbalancers/{lb}", {"loadbalancer": {"name": f"amp-{label}-2"}})
    step("listener update", "PUT", f"/v2/lbaas/listeners/{t['listener']}",
         {"listener": {"timeout_client_data": 7000, "connection_limit": 100}})
    m2 = other.call("POST", f"/v2/lbaas/pools/{t['pool']}/members", {"member": {
        "address": "10.96.0.11", "protocol_port": 8080, "subnet_id": subnet}})[0]["member"]["id"]
    wait_db("load_balancer", lb, "ACTIVE")
    steps.append("member create")
    step("member batch", "PUT", f"/v2/lbaas/pools/{t['pool']}/members", {"members": [
        {"address": "10.96.0.10", "protocol_port": 8080, "subnet_id": subnet, "weight": 5},
        {"address": "10.96.0.12", "protocol_port": 8080, "subnet_id": subnet}]})
    left = sql(f"SELECT ip_address, weight FROM member WHERE pool_id = '{t['pool']}' "
               "ORDER BY ip_address").splitlines()
    if left != ["10.96.0.10\t5", "10.96.0.12\t1"]:
        raise Failed(f"members after {other.name}'s batch update: {left}")
    if status_of("member", m2) not in ("", "DELETED"):
        raise Failed(f"member {m2} left by the batch update: {status_of('member', m2)}")
    step("pool update", "PUT", f"/v2/lbaas/pools/{t['pool']}", {"pool": {"lb_algorithm": "LEAST_CONNECTIONS"}})
    step("monitor update", "PUT", f"/v2/lbaas/healthmonitors/{t['hm']}", {"healthmonitor": {"delay": 7}})
    # (failover is an admin's: load-balancer:failover is rule:load-balancer:admin)
    step("LB failover", "PUT", f"/v2/lbaas/loadbalancers/{lb}/failover", api=other_admin)
    same_view(maker, other, f"/v2/lbaas/loadbalancers/{lb}", "loadbalancer")
    other.call("DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true")
    wait_db("load_balancer", lb, "DELETED")
    steps.append("cascade delete")
    return steps


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def bench(sides, subnet, rounds):
    """Per write and side: [(seconds to the answer, seconds to the settled status)]."""
    out = {s.name: {} for s in sides}

    def timed(api, what, method, path, body, table, oid_of, want="ACTIVE"):
        doc, took = api.call(method, path, body)
        oid = oid_of(doc)
        settle = wait_db(table, oid, want)
        out[api.name].setdefault(what, []).append((took, took + settle))
        return oid

    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        for api in order:
            lb = timed(api, "LB create", "POST", "/v2/lbaas/loadbalancers",
                       {"loadbalancer": {"vip_subnet_id": subnet, "provider": "amphora"}},
                       "load_balancer", lambda d: d["loadbalancer"]["id"])
            timed(api, "listener create", "POST", "/v2/lbaas/listeners",
                  {"listener": {"loadbalancer_id": lb, "protocol": "HTTP", "protocol_port": 80}},
                  "load_balancer", lambda d: lb)
            pool = [None]

            def pool_id(d):
                pool[0] = d["pool"]["id"]
                return lb
            timed(api, "pool create", "POST", "/v2/lbaas/pools",
                  {"pool": {"loadbalancer_id": lb, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"}},
                  "load_balancer", pool_id)
            timed(api, "member create", "POST", f"/v2/lbaas/pools/{pool[0]}/members",
                  {"member": {"address": "10.96.0.20", "protocol_port": 80, "subnet_id": subnet}},
                  "load_balancer", lambda d: lb)
            timed(api, "LB update", "PUT", f"/v2/lbaas/loadbalancers/{lb}",
                  {"loadbalancer": {"description": f"round {r}"}}, "load_balancer", lambda d: lb)
            timed(api, "cascade delete", "DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true",
                  None, "load_balancer", lambda d: lb, want="DELETED")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keel", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--bench", type=int, default=0, metavar="N")
    ap.add_argument("--out")
    a = ap.parse_args()
    demo = persona_env("demo")
    tok, _ = token(demo)
    keel, ref = Api("keel", a.keel, tok), Api("reference", a.ref, tok)
    adm, _ = token(persona_env("admin"))
    admins = {"keel": Api("keel", a.keel, adm), "reference": Api("reference", a.ref, adm)}
    neutron = Api("neutron", demo.get("STACK_NEUTRON_URL", "http://127.0.0.1:9696"), tok)
    net, subnet = network(neutron)
    result, rc = {}, 0
    t0 = time.time()
    try:
        if a.bench:
            times = bench([keel, ref], subnet, a.bench)
            table = {}
            for what in times["keel"]:
                row = {}
                for side in ("keel", "reference"):
                    xs = times[side][what]
                    row[side] = {"answer_p50_ms": round(1000 * pct([x[0] for x in xs], 50), 1),
                                 "answer_p95_ms": round(1000 * pct([x[0] for x in xs], 95), 1),
                                 "settled_p50_ms": round(1000 * pct([x[1] for x in xs], 50), 1),
                                 "settled_p95_ms": round(1000 * pct([x[1] for x in xs], 95), 1),
                                 "n": len(xs)}
                row["answer_p50_ratio"] = round(row["keel"]["answer_p50_ms"] / row["reference"]["answer_p50_ms"], 3)
                row["settled_p50_ratio"] = round(row["keel"]["settled_p50_ms"] / row["reference"]["settled_p50_ms"], 3)
                table[what] = row
                print(f"{what:16} answer p50 keel {row['keel']['answer_p50_ms']:7.1f} ms  ref "
                      f"{row['reference']['answer_p50_ms']:7.1f} ms  ratio {row['answer_p50_ratio']:.3f} | "
                      f"settled p50 keel {row['keel']['settled_p50_ms']:7.1f} ms  ref "
                      f"{row['reference']['settled_p50_ms']:7.1f} ms  ratio {row['settled_p50_ratio']:.3f}",
                      flush=True)
            result["bench"] = table
            result["rounds"] = a.bench
        else:
            for maker, other, label in ((ref, keel, "ref-to-keel"), (keel, ref, "keel-to-ref")):
                steps = take_over(maker, other, subnet, label, admins[other.name])
                print(f"{label}: made by {maker.name}, then through {other.name}: {', '.join(steps)}: ok",
                      flush=True)
                result[label] = steps
    except Failed as e:
        print(f"FAILED: {e}", flush=True)
        result["failed"] = str(e)
        rc = 1
    finally:
        # the VIP ports the reference's Neutron driver made for its LBs stay (the noop worker
        # deletes none, as upstream's noop job): delete the run's network with them
        ports = neutron.get(f"/v2.0/ports?network_id={net}")["ports"]
        for p in ports:
            if p["device_owner"] in ("Octavia", ""):
                neutron.call("DELETE", f"/v2.0/ports/{p['id']}", want=(204, 404))
        neutron.call("DELETE", f"/v2.0/networks/{net}", want=(204, 404, 409))
    result["seconds"] = round(time.time() - t0, 1)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
    print(json.dumps({k: v for k, v in result.items() if k != "bench"}))
    return rc


if __name__ == "__main__":
    sys.exit(main())
