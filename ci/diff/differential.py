#!/usr/bin/env python3
"""Differential runner: the same request sequences to Keel and to the reference Octavia API.

Each case is a sequence of steps (persona, method, path, body). Both endpoints get every step;
ids each side hands out are kept per side (``<<name>>`` in a later step's path or body is that
side's value), and the answers are compared after normalising ids, timestamps and addresses:
status code, faultstring, and the body's keys and values. Every difference is printed, one block
per step, and counted at the end (exit status 1 when there is one).

Keel answers a write once the provider's outcome is committed, so a write right after a create
gets 200 where the reference answers 409 (PENDING_*): after every write on a load balancer tree
the runner polls both sides until that load balancer is no longer PENDING_* (deadline 90 s), so
the reference is compared in the same state.

Needs the stack (``ci/stack/up.sh``) with its personas, the reference API (``--ref``, default
127.0.0.1:9877, database ``octavia``) and a Keel (``--keel``) over a MariaDB database
(``--keel-db``): the reference's OVN provider cannot validate flavors or AZ metadata (501), so
the profiles the flavor / AZ cases need are written into both databases (and removed at the
end). Keel's OVN provider validates flavors (README, "Provider flavors for OVN"): the
``fp post`` steps for ``ovn`` differ by design (Keel 201 or 501 with the schema's text, the
reference 501 "does not support a requested action").
Run with the stack venv's python (``ci/diff/run.sh`` starts a Keel and runs this)::

    $PY ci/diff/differential.py --keel http://127.0.0.1:9886 --keel-db keel_test_diffc [--only flavor]
"""
import argparse
import copy
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pymysql
import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TS_KEYS = {"created_at", "updated_at"}
ADDR_KEYS = {"vip_address", "address"}
PERSONAS = ("admin", "demo", "demo2", "reader")


def persona_env(who):
    """OS_* of a persona, as ci/stack/env.sh sets them."""
    out = subprocess.run(
        ["bash", "-c", f"source ci/stack/env.sh {who} >/dev/null 2>&1; env"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if line.startswith(("OS_", "STACK_")))


def token(env):
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": env["OS_USERNAME"], "domain": {"name": "Default"}, "password": env["OS_PASSWORD"]}}},
        "scope": {"project": {"name": env["OS_PROJECT_NAME"], "domain": {"name": "Default"}}}}}
    r = requests.post(env["OS_AUTH_URL"] + "/auth/tokens", json=body, timeout=30)
    r.raise_for_status()
    return r.headers["X-Subject-Token"], r.json()["token"]["project"]["id"]


class Side:
    """One endpoint: its URL, database and the ids it handed out."""

    def __init__(self, name, url, db):
        self.name, self.url, self.db = name, url.rstrip("/"), db
        self.vars = {}

    def unstick(self, lb):
        """What an operator does for a load balancer tree its provider left PENDING_*: set
        it ACTIVE in SQL, so the run goes on (the stuck object is reported)."""
        for stmt in (
                "UPDATE load_balancer SET provisioning_status = 'ACTIVE' WHERE id = %s",
                "UPDATE listener SET provisioning_status = 'ACTIVE' WHERE load_balancer_id = %s",
                "UPDATE pool SET provisioning_status = 'ACTIVE' WHERE load_balancer_id = %s",
                "UPDATE member SET provisioning_status = 'ACTIVE' WHERE pool_id IN "
                "(SELECT id FROM pool WHERE load_balancer_id = %s)",
                "UPDATE health_monitor SET provisioning_status = 'ACTIVE' WHERE pool_id IN "
                "(SELECT id FROM pool WHERE load_balancer_id = %s)",
                "UPDATE l7policy SET provisioning_status = 'ACTIVE' WHERE listener_id IN "
                "(SELECT id FROM listener WHERE load_balancer_id = %s)",
                "UPDATE l7rule SET provisioning_status = 'ACTIVE' WHERE l7policy_id IN "
                "(SELECT p.id FROM l7policy p JOIN listener l ON p.listener_id = l.id "
                "WHERE l.load_balancer_id = %s)"):
            self.sql(stmt.replace("'ACTIVE' WHERE", "'ACTIVE' WHERE provisioning_status LIKE "
                                  "'PENDING_%%' AND"), (lb,))

    def sql(self, stmt, args=()):
        conn = pymysql.connect(**self.db, autocommit=True)
        try:
            with conn.cursor() as c:
                c.execute(stmt, args)
        finally:
            conn.close()


def subst(v, vars_):
    if isinstance(v, str):
        # a name the side never got (its create failed) stays visible in the request
        return re.sub(r"<<(\w+)>>", lambda m: str(vars_.get(m.group(1), f"missing-{m.group(1)}")), v)
    if isinstance(v, list):
        return [subst(x, vars_) for x in v]
    if isinstance(v, dict):
        return {k: subst(x, vars_) for k, x in v.items()}
    return v


def normalise(v, side, key=None):
    """Ids → their name (or <uuid>), timestamps → <ts>, addresses → <ip>."""
    if key in TS_KEYS and v is not None:
        return "<ts>"
    if key in ADDR_KEYS and isinstance(v, str):
        return "<ip>"
    if isinstance(v, str):
        # WSME lists unknown attributes in set order (random per process): compare them sorted
        # and an Enum's values in set order too
        m = re.fullmatch(r"(Unknown attributes for argument [\w.]+: |.*Value should be one of: )(.*)", v)
        if m:
            v = m.group(1) + ", ".join(sorted(m.group(2).split(", ")))
        for name, val in side.vars.items():
            if isinstance(val, str) and UUID_RE.fullmatch(val):
                v = v.replace(val, f"<<{name}>>")
        return UUID_RE.sub("<uuid>", v)
    if isinstance(v, list):
        return [normalise(x, side) for x in v]
    if isinstance(v, dict):
        return {k: normalise(x, side, k) for k, x in v.items()}
    return v


def diff_values(a, b, path=""):
    """Differences between two normalised bodies, as text lines."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b:
                out.append(f"  {path}/{k}: only in keel ({json.dumps(a[k])[:120]})")
            elif k not in a:
                out.append(f"  {path}/{k}: only in reference ({json.dumps(b[k])[:120]})")
            else:
                out += diff_values(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff_values(x, y, f"{path}[{i}]")
    elif a != b:
        out.append(f"  {path}: keel {json.dumps(a)[:200]} / reference {json.dumps(b)[:200]}")
    return out


def dig(body, dotted):
    for part in dotted.split("."):
        if body is None:
            return None
        body = body[int(part)] if isinstance(body, list) else body.get(part)
    return body


class Runner:
    def __init__(self, keel, ref, tokens):
        self.sides = (keel, ref)
        self.tokens = tokens
        self.steps = 0
        self.diffs = []
        self.better = []
        self.verbose = False
        self.stuck = []
        self.label = ""
        self.lbs = []

    def call(self, side, who, method, path, body, raw=None):
        headers = {"X-Auth-Token": self.tokens[who][0], "Accept": "application/json"}
        data = None
        if raw is not None:
            data = raw
            headers["Content-Type"] = "application/json"
        elif body is not None:
            data = json.dumps(subst(body, side.vars))
            headers["Content-Type"] = "application/json"
        r = requests.request(method, side.url + subst(path, side.vars), data=data,
                             headers=headers, timeout=120)
        try:
            js = r.json() if r.content else None
        except ValueError:
            js = {"<text>": r.text[:200]}
        return r.status_code, js

    def wait_lb(self, var, gone=False):
        """Poll each side's load balancer until it is not PENDING_* (or gone)."""
        for side in self.sides:
            if var not in side.vars:
                continue
            deadline = time.monotonic() + 90
            while True:
                s, b = self.call(side, "admin", "GET", f"/v2/lbaas/loadbalancers/<<{var}>>", None)
                st = (b or {}).get("loadbalancer", {}).get("provisioning_status", "")
                if (gone and s == 404) or (not gone and s == 200 and not st.startswith("PENDING_")):
                    break
                if s not in (200, 404) or (s == 404 and not gone) or time.monotonic() > deadline:
                    self.stuck.append((side.name, f"{self.label}: {side.name} {var} left {s} {st}"))
                    print(f"!! {side.name} {var} stuck: {s} {st}", flush=True)
                    if st.startswith("PENDING_"):
                        side.unstick(side.vars[var])
                    break
                time.sleep(0.25)

    def step(self, label, who, method, path, body=None, save=None, wait=None, raw=None,
             ignore=()):
        self.steps += 1
        self.label = label
        res = []
        for side in self.sides:
            s, b = self.call(side, who, method, path, body, raw)
            if save and 200 <= s < 300:
                for name, dotted in save.items():
                    side.vars[name] = dig(b, dotted)
                    if dotted.startswith("loadbalancer.") and name not in self.lbs:
                        self.lbs.append(name)
            res.append((s, b))
        if wait:
            self.wait_lb(wait, gone=method == "DELETE"
                         and path.split("?")[0].endswith(f"<<{wait}>>"))
        (ks, kb), (rs, rb) = res
        if self.verbose:
            kf0 = kb.get("faultstring") if isinstance(kb, dict) else None
            print(f"   {ks} {rs} {label}{'  ' + str(kf0)[:150] if kf0 else ''}", flush=True)
        lines = []
        if ks != rs:
            lines.append(f"  status: keel {ks} / reference {rs}")
        kf = (kb or {}).get("faultstring") if isinstance(kb, dict) else None
        rf = (rb or {}).get("faultstring") if isinstance(rb, dict) else None
        nk, nr = normalise(kb, self.sides[0]), normalise(rb, self.sides[1])
        if kf is not None or rf is not None:
            if normalise(kf, self.sides[0]) != normalise(rf, self.sides[1]):
                lines.append(f"  faultstring: keel {normalise(kf, self.sides[0])!r}"
                             f" / reference {normalise(rf, self.sides[1])!r}")
        elif 200 <= ks < 300 and 200 <= rs < 300:
            for k in ignore:
                for x in (nk, nr):
                    if isinstance(x, dict):
                        for v in x.values():
                            if isinstance(v, dict):
                                v.pop(k, None)
            lines += diff_values(nk, nr)
        if lines and rs >= 500 and ks < 500:
            # the reference fails (a 500); Keel answers (a 4xx, or a 2xx where it stores a
            # duplicate once): listed, not a difference
            self.better.append(f"{label}: keel {ks} {normalise(kf, self.sides[0])!r} / reference {rs}")
        elif lines:
            head = f"{label}: {who} {method} {path} {json.dumps(body)[:300] if body is not None else raw or ''}"
            self.diffs.append((head, lines))
            print(head)
            print("\n".join(lines))
        return res

    def both(self, fn):
        for side in self.sides:
            fn(side)

    def cleanup(self):
        for var in reversed(self.lbs):
            for side in self.sides:
                if var in side.vars:
                    self.call(side, "admin", "DELETE",
                              f"/v2/lbaas/loadbalancers/<<{var}>>?cascade=true", None)
        for var in self.lbs:
            for side in self.sides:
                deadline = time.monotonic() + 90
                while var in side.vars and time.monotonic() < deadline:
                    s, _ = self.call(side, "admin", "GET", f"/v2/lbaas/loadbalancers/<<{var}>>", None)
                    if s == 404:
                        break
                    time.sleep(0.5)


# ---- request bodies that should be refused, per attribute kind --------------------------------

BAD_STR = [None, 1, True, [], {}, "x" * 256]
BAD_INT = [None, "a", "1", 1.5, True, -1, 2**31, []]
BAD_BOOL = [None, "maybe", 2, [], "True"]
BAD_UUID = [None, "nope", 1, "<<fp_missing>>"]


def walk(r, label, who, method, path, wrapper, base, fields, key="id", **kw):
    """Each field of `fields` ({name: bad values}) in turn set to each bad value over `base`,
    then an unknown key, then each key left out. What a side accepts is deleted again (by
    `key` of the answer), so the next request meets the same state."""
    bodies = []
    for field, bads in fields.items():
        for bad in bads:
            b = copy.deepcopy(base)
            b[field] = bad
            bodies.append((f"{label} {field}={json.dumps(bad)[:20]}", b))
    bodies.append((f"{label} unknown key", dict(copy.deepcopy(base), bogus=1)))
    for k in list(base):
        b = copy.deepcopy(base)
        del b[k]
        bodies.append((f"{label} without {k}", b))
    for lbl, b in bodies:
        res = r.step(lbl, who, method, path, {wrapper: b}, **kw)
        deleted = False
        for side, (s, body) in zip(r.sides, res):
            if method == "POST" and s == 201:
                r.call(side, "admin", "DELETE", f"{path}/{body[wrapper][key]}", None)
                deleted = True
        if deleted and kw.get("wait"):
            r.wait_lb(kw["wait"])


def case_profiles(r, admin_project):
    for kind, coll, wrap, data in (("fp", "flavorprofiles", "flavorprofile", "flavor_data"),
                                    ("azp", "availabilityzoneprofiles", "availability_zone_profile",
                                     "availability_zone_data")):
        p = f"/v2/lbaas/{coll}"
        good = {"name": "p1", "provider_name": "ovn", data: "{}"}
        for who in ("demo", "reader"):
            r.step(f"{kind} post as {who}", who, "POST", p, {wrap: good})
            r.step(f"{kind} list as {who}", who, "GET", p)
        r.step(f"{kind} post ovn", "admin", "POST", p, {wrap: good})
        walk(r, f"{kind} post", "admin", "POST", p, wrap, good,
             {"name": BAD_STR, "provider_name": BAD_STR + ["nope", "amphora", ""],
              data: BAD_STR + ["{nope", "[]", "1", "null", '"s"', "x" * 4097, '{"compute_flavor": 1}']})
        r.step(f"{kind} post no wrapper", "admin", "POST", p, good)
        r.step(f"{kind} post empty", "admin", "POST", p, {wrap: {}})
        r.step(f"{kind} post not json", "admin", "POST", p, raw="{")
        # the row written into both databases
        pid = f"<<{kind}_row>>"
        r.step(f"{kind} show", "admin", "GET", f"{p}/{pid}")
        r.step(f"{kind} show fields", "admin", "GET", f"{p}/{pid}?fields=name&fields=id")
        r.step(f"{kind} list", "admin", "GET", f"{p}?name=seeded-{kind}")
        r.step(f"{kind} show missing", "admin", "GET", f"{p}/<<fp_missing>>")
        r.step(f"{kind} show nil", "admin", "GET", f"{p}/00000000-0000-0000-0000-000000000000")
        r.step(f"{kind} put as demo", "demo", "PUT", f"{p}/{pid}", {wrap: {"name": "x"}})
        for field, bads in (("name", BAD_STR), ("provider_name", BAD_STR + ["nope"]),
                            (data, BAD_STR + ["{nope", "[]", "{}"])):
            for bad in bads:
                r.step(f"{kind} put {field}={json.dumps(bad)[:20]}", "admin", "PUT", f"{p}/{pid}",
                       {wrap: {field: bad}})
        r.step(f"{kind} put unknown", "admin", "PUT", f"{p}/{pid}", {wrap: {"id": "x"}})
        r.step(f"{kind} put empty", "admin", "PUT", f"{p}/{pid}", {wrap: {}})
        r.step(f"{kind} put name", "admin", "PUT", f"{p}/{pid}", {wrap: {"name": f"seeded-{kind}"}})
        r.step(f"{kind} put missing name", "admin", "PUT", f"{p}/<<fp_missing>>", {wrap: {"name": "n"}})
        r.step(f"{kind} put missing data", "admin", "PUT", f"{p}/<<fp_missing>>", {wrap: {data: "{}"}})
        r.step(f"{kind} put nil", "admin", "PUT", f"{p}/00000000-0000-0000-0000-000000000000",
               {wrap: {"name": "n"}})
        r.step(f"{kind} delete missing", "admin", "DELETE", f"{p}/<<fp_missing>>")
        r.step(f"{kind} delete nil", "admin", "DELETE", f"{p}/00000000-0000-0000-0000-000000000000")
        r.step(f"{kind} delete as demo", "demo", "DELETE", f"{p}/{pid}")
        r.step(f"{kind} put provider back", "admin", "PUT", f"{p}/{pid}",
               {wrap: {"provider_name": "ovn"}})


def case_flavors(r, admin_project):
    p = "/v2/lbaas/flavors"
    good = {"name": "f1", "flavor_profile_id": "<<fp_row>>", "description": "d", "enabled": True}
    for who in ("demo", "reader"):
        r.step(f"flavor post as {who}", who, "POST", p, {"flavor": good})
    walk(r, "flavor post", "admin", "POST", p, "flavor", good,
         {"name": BAD_STR + [""], "description": BAD_STR, "enabled": BAD_BOOL,
          "flavor_profile_id": BAD_UUID + ["00000000-0000-0000-0000-000000000000"]})
    r.step("flavor post", "admin", "POST", p, {"flavor": good}, save={"fl": "flavor.id"})
    r.step("flavor post dup", "admin", "POST", p, {"flavor": good})
    r.step("flavor post dup other case", "admin", "POST", p, {"flavor": dict(good, name="F1")})
    r.step("flavor post 2", "admin", "POST", p, {"flavor": dict(good, name="f2", enabled=False)},
           save={"fl2": "flavor.id"})
    for who in ("demo", "reader"):
        r.step(f"flavor list as {who}", who, "GET", f"{p}?sort=name:asc")
        r.step(f"flavor show as {who}", who, "GET", f"{p}/<<fl>>")
        r.step(f"flavor put as {who}", who, "PUT", f"{p}/<<fl>>", {"flavor": {"name": "z"}})
        r.step(f"flavor delete as {who}", who, "DELETE", f"{p}/<<fl>>")
    r.step("flavor list enabled", "admin", "GET", f"{p}?enabled=false")
    for field, bads in (("name", BAD_STR + [""]), ("description", BAD_STR), ("enabled", BAD_BOOL),
                        ("flavor_profile_id", ["<<fp_row>>"]), ("id", ["x"])):
        for bad in bads:
            r.step(f"flavor put {field}={json.dumps(bad)[:20]}", "admin", "PUT", f"{p}/<<fl2>>",
                   {"flavor": {field: bad}})
    r.step("flavor put dup name", "admin", "PUT", f"{p}/<<fl2>>", {"flavor": {"name": "f1"}})
    r.step("flavor put empty", "admin", "PUT", f"{p}/<<fl2>>", {"flavor": {}})
    r.step("flavor put missing", "admin", "PUT", f"{p}/<<fp_missing>>", {"flavor": {"name": "q"}})
    r.step("flavor put nil", "admin", "PUT", f"{p}/00000000-0000-0000-0000-000000000000",
           {"flavor": {"name": "q"}})
    r.step("flavor show nil", "admin", "GET", f"{p}/00000000-0000-0000-0000-000000000000")
    r.step("fp in use put data", "admin", "PUT", "/v2/lbaas/flavorprofiles/<<fp_row>>",
           {"flavorprofile": {"flavor_data": "{}"}})
    r.step("fp in use put provider", "admin", "PUT", "/v2/lbaas/flavorprofiles/<<fp_row>>",
           {"flavorprofile": {"provider_name": "ovn"}})
    r.step("fp in use put name", "admin", "PUT", "/v2/lbaas/flavorprofiles/<<fp_row>>",
           {"flavorprofile": {"name": "renamed"}})
    r.step("fp in use delete", "admin", "DELETE", "/v2/lbaas/flavorprofiles/<<fp_row>>")
    # a load balancer with a flavor: disabled one refused, in-use delete
    r.step("flavor disable", "admin", "PUT", f"{p}/<<fl2>>", {"flavor": {"enabled": False}})
    r.step("lb with disabled flavor", "demo", "POST", "/v2/lbaas/loadbalancers",
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "flavor_id": "<<fl2>>"}},
           save={"lbx1": "loadbalancer.id"}, wait="lbx1")
    r.step("lb with missing flavor", "demo", "POST", "/v2/lbaas/loadbalancers",
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "flavor_id": "<<fp_missing>>"}},
           save={"lbx3": "loadbalancer.id"}, wait="lbx3")
    r.step("lb with flavor", "demo", "POST", "/v2/lbaas/loadbalancers",
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "flavor_id": "<<fl>>", "name": "lbf"}},
           save={"lbf": "loadbalancer.id"}, wait="lbf")
    r.step("flavor delete in use", "admin", "DELETE", f"{p}/<<fl>>")
    r.step("lb with flavor delete", "demo", "DELETE", "/v2/lbaas/loadbalancers/<<lbf>>", wait="lbf")
    r.step("flavor delete after lb", "admin", "DELETE", f"{p}/<<fl>>")
    r.step("flavor delete again", "admin", "DELETE", f"{p}/<<fl>>")
    r.step("flavor delete 2", "admin", "DELETE", f"{p}/<<fl2>>")
    r.step("flavor delete nil", "admin", "DELETE", f"{p}/00000000-0000-0000-0000-000000000000")


def case_azs(r, admin_project):
    p = "/v2/lbaas/availabilityzones"
    good = {"name": "az1", "availability_zone_profile_id": "<<azp_row>>", "description": "d",
            "enabled": True}
    for who in ("demo", "reader"):
        r.step(f"az post as {who}", who, "POST", p, {"availability_zone": good})
    walk(r, "az post", "admin", "POST", p, "availability_zone", good,
         {"name": BAD_STR + [""], "description": BAD_STR, "enabled": BAD_BOOL,
          "availability_zone_profile_id": BAD_UUID}, key="name")
    r.step("az post", "admin", "POST", p, {"availability_zone": good})
    r.step("az post dup", "admin", "POST", p, {"availability_zone": good})
    r.step("az post 2", "admin", "POST", p, {"availability_zone": dict(good, name="az 2&x", enabled=False)})
    for who in ("demo", "reader"):
        r.step(f"az list as {who}", who, "GET", p)
        r.step(f"az show as {who}", who, "GET", f"{p}/az1")
        r.step(f"az put as {who}", who, "PUT", f"{p}/az1", {"availability_zone": {"description": "z"}})
        r.step(f"az delete as {who}", who, "DELETE", f"{p}/az1")
    for field, bads in (("description", BAD_STR), ("enabled", BAD_BOOL), ("name", ["n"]),
                        ("availability_zone_profile_id", ["<<azp_row>>"])):
        for bad in bads:
            r.step(f"az put {field}={json.dumps(bad)[:20]}", "admin", "PUT", f"{p}/az1",
                   {"availability_zone": {field: bad}})
    r.step("az put empty", "admin", "PUT", f"{p}/az1", {"availability_zone": {}})
    r.step("az put missing", "admin", "PUT", f"{p}/nowhere", {"availability_zone": {"description": "q"}})
    r.step("az show missing", "admin", "GET", f"{p}/nowhere")
    r.step("azp in use put data", "admin", "PUT", "/v2/lbaas/availabilityzoneprofiles/<<azp_row>>",
           {"availability_zone_profile": {"availability_zone_data": "{}"}})
    r.step("azp in use delete", "admin", "DELETE", "/v2/lbaas/availabilityzoneprofiles/<<azp_row>>")
    r.step("az disable", "admin", "PUT", f"{p}/az 2&x", {"availability_zone": {"enabled": False}})
    r.step("lb with disabled az", "demo", "POST", "/v2/lbaas/loadbalancers",
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "availability_zone": "az 2&x"}},
           save={"lbx2": "loadbalancer.id"}, wait="lbx2")
    r.step("lb with missing az", "demo", "POST", "/v2/lbaas/loadbalancers",
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "availability_zone": "nowhere"}},
           save={"lbx4": "loadbalancer.id"}, wait="lbx4")
    r.step("az delete", "admin", "DELETE", f"{p}/az1")
    r.step("az delete again", "admin", "DELETE", f"{p}/az1")
    r.step("az delete 2", "admin", "DELETE", f"{p}/az 2&x")


def case_quotas(r, admin_project):
    p = "/v2/lbaas/quotas"
    proj = "<<demo2_project>>"
    for who in ("demo", "reader"):
        r.step(f"quota put as {who}", who, "PUT", f"{p}/{proj}", {"quota": {"listener": 5}})
        r.step(f"quota show other as {who}", who, "GET", f"{p}/{proj}")
        r.step(f"quota show own as {who}", who, "GET", f"{p}/<<demo_project>>")
        r.step(f"quota delete as {who}", who, "DELETE", f"{p}/{proj}")
    for field in ("loadbalancer", "load_balancer", "listener", "member", "pool", "healthmonitor",
                  "health_monitor", "l7policy", "l7rule"):
        for bad in [None, "a", "5", 1.5, True, -2, -1, 0, 2**31, 2**31 - 1, 50000, []]:
            r.step(f"quota put {field}={json.dumps(bad)}", "admin", "PUT", f"{p}/{proj}",
                   {"quota": {field: bad}})
    r.step("quota put both aliases", "admin", "PUT", f"{p}/{proj}",
           {"quota": {"loadbalancer": 3, "load_balancer": 4}})
    r.step("quota put unknown", "admin", "PUT", f"{p}/{proj}", {"quota": {"amphora": 3}})
    r.step("quota put empty", "admin", "PUT", f"{p}/{proj}", {"quota": {}})
    r.step("quota put no wrapper", "admin", "PUT", f"{p}/{proj}", {"listener": 3})
    r.step("quota put project_id", "admin", "PUT", f"{p}/{proj}", {"quota": {"project_id": "x"}})
    r.step("quota show", "admin", "GET", f"{p}/{proj}")
    r.step("quota default", "admin", "GET", f"{p}/{proj}/default")
    r.step("quota default as demo", "demo", "GET", f"{p}/<<demo_project>>/default")
    r.step("quota list filter", "admin", "GET", f"{p}?project_id={proj}")
    r.step("quota delete", "admin", "DELETE", f"{p}/{proj}")
    r.step("quota delete again", "admin", "DELETE", f"{p}/{proj}")
    r.step("quota show after delete", "admin", "GET", f"{p}/{proj}")
    r.step("quota put non-uuid project", "admin", "PUT", f"{p}/not-a-project", {"quota": {"pool": 2}})
    r.step("quota delete non-uuid project", "admin", "DELETE", f"{p}/not-a-project")


def case_tree(r, admin_project):
    """A load balancer tree: create / show / update (incl. nulls) / delete of every resource."""
    lbs = "/v2/lbaas/loadbalancers"
    r.step("lb post sg dup", "demo", "POST", lbs,
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "name": "lb0",
                             "vip_sg_ids": ["<<sg2>>", "<<sg1>>", "<<sg2>>"]}},
           save={"lb0": "loadbalancer.id"}, wait="lb0")
    for field, vals in (("vip_subnet_id", [None, "nope", "<<fp_missing>>"]), ("name", [None, 1]),
                        ("admin_state_up", [None]), ("vip_sg_ids", [None, [], ["<<fp_missing>>"]]),
                        ("provider", [None, "", "nope"]), ("tags", [None]), ("description", [None])):
        for i, v in enumerate(vals):
            body = {"vip_subnet_id": "<<subnet>>", field: v}
            r.step(f"lb post {field}={json.dumps(v)[:30]}", "demo", "POST", lbs,
                   {"loadbalancer": body}, save={f"lbp_{field}{i}": "loadbalancer.id"},
                   wait=f"lbp_{field}{i}")
    r.step("lb post sg order", "demo", "POST", lbs,
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "name": "lb1",
                             "vip_sg_ids": ["<<sg2>>", "<<sg1>>"]}},
           save={"lb": "loadbalancer.id"}, wait="lb")
    r.step("lb show", "demo", "GET", f"{lbs}/<<lb>>")
    r.step("lb show as reader", "reader", "GET", f"{lbs}/<<lb>>")
    r.step("lb show as demo2", "demo2", "GET", f"{lbs}/<<lb>>")
    r.step("lb put as reader", "reader", "PUT", f"{lbs}/<<lb>>", {"loadbalancer": {"name": "x"}})
    for field, vals in (("name", [None, 1, "n" * 256, "lb1b"]), ("description", [None, 1, "d"]),
                        ("admin_state_up", [None, "x", False, True]),
                        ("vip_qos_policy_id", [None, "nope"]), ("tags", [None, ["a", "b", "a"], [], "t", [1]]),
                        ("vip_sg_ids", [["<<sg1>>", "<<sg1>>"], ["<<sg2>>", "<<sg1>>"], [], None, ["nope"]]),
                        ("vip_address", ["10.9.9.9"]), ("provider", ["ovn"]), ("flavor_id", [None])):
        for v in vals:
            r.step(f"lb put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{lbs}/<<lb>>",
                   {"loadbalancer": {field: v}}, wait="lb")
    r.step("lb show after puts", "demo", "GET", f"{lbs}/<<lb>>")
    ls = "/v2/lbaas/listeners"
    r.step("listener post", "demo", "POST", ls,
           {"listener": {"loadbalancer_id": "<<lb>>", "protocol": "TCP", "protocol_port": 80,
                         "name": "l1"}}, save={"li": "listener.id"}, wait="lb")
    r.step("listener post dup port", "demo", "POST", ls,
           {"listener": {"loadbalancer_id": "<<lb>>", "protocol": "TCP", "protocol_port": 80}}, wait="lb")
    for field, vals in (("name", [None, 1]), ("description", [None]), ("admin_state_up", [None, "x"]),
                        ("connection_limit", [None, -2, -1, 0, 10, "a"]),
                        ("default_pool_id", [None, "nope"]),
                        ("timeout_client_data", [None, -1, 0, 1000]), ("timeout_member_connect", [None]),
                        ("timeout_member_data", [None]), ("timeout_tcp_inspect", [None]),
                        ("insert_headers", [None, {}]), ("allowed_cidrs", [None, ["10.0.0.0/8", "10.0.0.0/8"], ["x"]]),
                        ("tags", [None, []]), ("protocol", ["HTTP"]), ("protocol_port", [81]),
                        ("tls_versions", [None]), ("alpn_protocols", [None]), ("hsts_max_age", [None])):
        for v in vals:
            r.step(f"listener put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{ls}/<<li>>",
                   {"listener": {field: v}}, wait="lb")
    r.step("listener show", "demo", "GET", f"{ls}/<<li>>")
    ps = "/v2/lbaas/pools"
    r.step("pool post", "demo", "POST", ps,
           {"pool": {"listener_id": "<<li>>", "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT",
                     "name": "p1"}}, save={"pool": "pool.id"}, wait="lb")
    r.step("pool post bad algo", "demo", "POST", ps,
           {"pool": {"loadbalancer_id": "<<lb>>", "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}},
           wait="lb")
    for field, vals in (("name", [None]), ("description", [None]), ("admin_state_up", [None]),
                        ("lb_algorithm", [None, "x", "ROUND_ROBIN", "SOURCE_IP_PORT"]),
                        ("session_persistence", [None, {"type": "SOURCE_IP"}, {"type": "x"}, {}]),
                        ("tls_enabled", [None, True, False]), ("tags", [None]), ("ca_tls_container_ref", [None]),
                        ("tls_versions", [None]), ("alpn_protocols", [None]), ("tls_ciphers", [None])):
        for v in vals:
            r.step(f"pool put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{ps}/<<pool>>",
                   {"pool": {field: v}}, wait="lb")
    r.step("pool show", "demo", "GET", f"{ps}/<<pool>>")
    ms = "/v2/lbaas/pools/<<pool>>/members"
    r.step("member post", "demo", "POST", ms,
           {"member": {"address": "10.0.0.50", "protocol_port": 8080, "subnet_id": "<<subnet>>"}},
           save={"mem": "member.id"}, wait="lb")
    r.step("member post dup", "demo", "POST", ms,
           {"member": {"address": "10.0.0.50", "protocol_port": 8080, "subnet_id": "<<subnet>>"}}, wait="lb")
    for field, vals in (("name", [None]), ("weight", [None, -1, 0, 257, 3]), ("admin_state_up", [None]),
                        ("backup", [None, True]), ("monitor_address", [None, "x"]), ("monitor_port", [None, 0]),
                        ("tags", [None]), ("address", ["10.0.0.51"]), ("protocol_port", [1])):
        for v in vals:
            r.step(f"member put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{ms}/<<mem>>",
                   {"member": {field: v}}, wait="lb")
    r.step("member show", "demo", "GET", f"{ms}/<<mem>>")
    hs = "/v2/lbaas/healthmonitors"
    r.step("hm post", "demo", "POST", hs,
           {"healthmonitor": {"pool_id": "<<pool>>", "type": "TCP", "delay": 5, "timeout": 3,
                              "max_retries": 3}}, save={"hm": "healthmonitor.id"}, wait="lb")
    for field, vals in (("delay", [None, 0, -1, "a", 2**31]), ("timeout", [None, 0, 10]),
                        ("max_retries", [None, 0, 11, 2]), ("max_retries_down", [None, 0, 11, 4]),
                        ("name", [None]), ("admin_state_up", [None]), ("tags", [None]),
                        ("http_method", [None, "GET"]), ("url_path", [None, "/x"]),
                        ("expected_codes", [None, "200"]), ("http_version", [None]), ("domain_name", [None]),
                        ("type", ["HTTP"])):
        for v in vals:
            r.step(f"hm put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{hs}/<<hm>>",
                   {"healthmonitor": {field: v}}, wait="lb")
    r.step("hm show", "demo", "GET", f"{hs}/<<hm>>")
    r.step("status tree", "demo", "GET", f"{lbs}/<<lb>>/status")
    r.step("hm delete", "demo", "DELETE", f"{hs}/<<hm>>", wait="lb")
    r.step("member delete", "demo", "DELETE", f"{ms}/<<mem>>", wait="lb")
    r.step("pool delete", "demo", "DELETE", f"{ps}/<<pool>>", wait="lb")
    r.step("listener delete", "demo", "DELETE", f"{ls}/<<li>>", wait="lb")
    r.step("lb delete", "demo", "DELETE", f"{lbs}/<<lb>>", wait="lb")
    r.step("lb show deleted", "demo", "GET", f"{lbs}/<<lb>>")


def case_l7(r, admin_project):
    """L7 policies and rules on a TCP listener (the OVN provider has no HTTP listeners and
    creates no L7 objects: 501 on both). What both sides can answer: the body checks before
    the driver, 404s, and — on a policy and rule written into both databases — the PUT / DELETE
    checks and the rule checks before the driver."""
    lbs, ls, ps = "/v2/lbaas/loadbalancers", "/v2/lbaas/listeners", "/v2/lbaas/pools"
    r.step("l7 lb post", "demo", "POST", lbs,
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "name": "l7lb"}},
           save={"l7lb": "loadbalancer.id"}, wait="l7lb")
    r.step("l7 listener post", "demo", "POST", ls,
           {"listener": {"loadbalancer_id": "<<l7lb>>", "protocol": "TCP", "protocol_port": 80}},
           save={"l7li": "listener.id"}, wait="l7lb")
    r.step("l7 pool post", "demo", "POST", ps,
           {"pool": {"loadbalancer_id": "<<l7lb>>", "protocol": "TCP",
                     "lb_algorithm": "SOURCE_IP_PORT"}}, save={"l7pool": "pool.id"}, wait="l7lb")
    pol, rule = str(uuid.uuid4()), str(uuid.uuid4())
    for side in r.sides:
        if "l7li" not in side.vars:
            return
        side.vars.update(l7pol=pol, l7rule=rule)
        side.sql("INSERT INTO l7policy (id, name, listener_id, action, position, enabled, "
                 "provisioning_status, operating_status, project_id, created_at) VALUES "
                 "(%s, 'seeded', %s, 'REJECT', 1, 1, 'ACTIVE', 'ONLINE', %s, NOW())",
                 (pol, side.vars["l7li"], side.vars["demo_project"]))
        side.sql("INSERT INTO l7rule (id, l7policy_id, type, compare_type, value, invert, "
                 "enabled, provisioning_status, operating_status, project_id, created_at) VALUES "
                 "(%s, %s, 'PATH', 'STARTS_WITH', '/a', 0, 1, 'ACTIVE', 'ONLINE', %s, NOW())",
                 (rule, pol, side.vars["demo_project"]))
    l7 = "/v2/lbaas/l7policies"
    good = {"listener_id": "<<l7li>>", "action": "REJECT"}
    for field, vals in (("action", [None, "x", 1, "REDIRECT_TO_POOL", "REDIRECT_TO_URL",
                                    "REDIRECT_PREFIX"]),
                        ("listener_id", [None, "nope", "<<fp_missing>>"]),
                        ("position", [None, 0, -1, "a", 2**31]),
                        ("redirect_url", [None, "x", "http://a", "u" * 256]),
                        ("redirect_prefix", [None, "x", "http://a"]),
                        ("redirect_http_code", [None, 300, 301, 309, "a"]),
                        ("redirect_pool_id", [None, "<<l7pool>>", "<<fp_missing>>", "nope"]),
                        ("name", [None, 1, "n" * 256]), ("description", [None]),
                        ("admin_state_up", [None, "x"]), ("tags", [None, "t", [1]]),
                        ("rules", [None, [], [{"type": "PATH"}]]), ("bogus", [1])):
        for i, v in enumerate(vals):
            r.step(f"l7policy post {field}={json.dumps(v)[:30]}", "demo", "POST", l7,
                   {"l7policy": dict(good, **{field: v})}, save={f"l7_{field}{i}": "l7policy.id"},
                   wait="l7lb")
    for extra in ({"action": "REDIRECT_TO_URL", "redirect_url": "http://a"},
                  {"action": "REDIRECT_TO_POOL", "redirect_pool_id": "<<l7pool>>"},
                  {"action": "REDIRECT_PREFIX", "redirect_prefix": "http://a"},
                  {"action": "REJECT", "redirect_url": "http://a"},
                  {"action": "REDIRECT_TO_URL", "redirect_pool_id": "<<l7pool>>"}):
        r.step(f"l7policy post {json.dumps(extra)[:60]}", "demo", "POST", l7,
               {"l7policy": dict(good, **extra)}, wait="l7lb")
    r.step("l7policy post no wrapper", "demo", "POST", l7, good)
    r.step("l7policy post empty", "demo", "POST", l7, {"l7policy": {}})
    r.step("l7policy post not json", "demo", "POST", l7, raw="{")
    r.step("l7policy post as reader", "reader", "POST", l7, {"l7policy": good})
    r.step("l7policy post as demo2", "demo2", "POST", l7, {"l7policy": good})
    r.step("l7policy show seeded", "demo", "GET", f"{l7}/<<l7pol>>")
    r.step("l7policy show missing", "demo", "GET", f"{l7}/<<fp_missing>>")
    r.step("l7policy show as demo2", "demo2", "GET", f"{l7}/<<l7pol>>")
    r.step("l7policy list", "demo", "GET", f"{l7}?name=seeded")
    for field, vals in (("action", [None, "x", "REDIRECT_TO_POOL", "REDIRECT_TO_URL"]),
                        ("position", [None, 0, 2]), ("redirect_url", [None, "x", "http://a"]),
                        ("redirect_prefix", [None, "http://a"]),
                        ("redirect_http_code", [None, 300, 302]),
                        ("redirect_pool_id", [None, "<<l7pool>>", "<<fp_missing>>"]),
                        ("name", [None, "n2"]), ("description", [None]),
                        ("admin_state_up", [None, "x", False]), ("tags", [None, ["a", "a"]]),
                        ("listener_id", ["<<l7li>>"]), ("bogus", [1])):
        for v in vals:
            r.step(f"l7policy put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{l7}/<<l7pol>>",
                   {"l7policy": {field: v}}, wait="l7lb")
    r.step("l7policy put empty", "demo", "PUT", f"{l7}/<<l7pol>>", {"l7policy": {}}, wait="l7lb")
    r.step("l7policy put missing", "demo", "PUT", f"{l7}/<<fp_missing>>", {"l7policy": {"name": "x"}})
    r.step("l7policy put as reader", "reader", "PUT", f"{l7}/<<l7pol>>", {"l7policy": {"name": "x"}})
    rs = f"{l7}/<<l7pol>>/rules"
    rgood = {"type": "PATH", "compare_type": "STARTS_WITH", "value": "/x"}
    for field, vals in (("type", [None, "x", 1, "HOST_NAME", "HEADER", "COOKIE", "FILE_TYPE",
                                  "SSL_CONN_HAS_CERT", "SSL_VERIFY_RESULT", "SSL_DN_FIELD"]),
                        ("compare_type", [None, "x", "REGEX", "EQUAL_TO"]),
                        ("value", [None, "", 1, "a b", "v" * 256, "\"", "[", "/x\t"]),
                        ("key", [None, "", "k", "a b", "k" * 256]),
                        ("invert", [None, "x", True]), ("admin_state_up", [None, "x"]),
                        ("tags", [None, "t"]), ("bogus", [1])):
        for v in vals:
            r.step(f"l7rule post {field}={json.dumps(v)[:30]}", "demo", "POST", rs,
                   {"rule": dict(rgood, **{field: v})}, wait="l7lb")
    for extra in ({"type": "HEADER", "key": "X-A", "value": "v"},
                  {"type": "COOKIE", "key": "c", "value": "a;b"},
                  {"type": "COOKIE", "key": "c d", "value": "v"},
                  {"type": "HEADER", "key": "X A", "value": "v"},
                  {"type": "PATH", "compare_type": "REGEX", "value": "(["},
                  {"type": "FILE_TYPE", "compare_type": "STARTS_WITH", "value": "jpg"},
                  {"type": "FILE_TYPE", "compare_type": "EQUAL_TO", "value": "jpg"},
                  {"type": "SSL_CONN_HAS_CERT", "compare_type": "EQUAL_TO", "value": "True"},
                  {"type": "SSL_CONN_HAS_CERT", "compare_type": "EQUAL_TO", "value": "x"},
                  {"type": "SSL_VERIFY_RESULT", "compare_type": "EQUAL_TO", "value": "0"},
                  {"type": "SSL_VERIFY_RESULT", "compare_type": "EQUAL_TO", "value": "-1"},
                  {"type": "SSL_DN_FIELD", "key": "CN", "value": "a"},
                  {"type": "SSL_DN_FIELD", "key": "XX", "value": "a"},
                  {"type": "HOST_NAME", "compare_type": "EQUAL_TO", "value": "a.b", "key": "k"}):
        r.step(f"l7rule post {json.dumps(extra)[:70]}", "demo", "POST", rs,
               {"rule": dict(rgood, **extra)}, wait="l7lb")
    r.step("l7rule post no wrapper", "demo", "POST", rs, rgood)
    r.step("l7rule post empty", "demo", "POST", rs, {"rule": {}})
    r.step("l7rule post missing policy", "demo", "POST", f"{l7}/<<fp_missing>>/rules", {"rule": rgood})
    r.step("l7rule post as reader", "reader", "POST", rs, {"rule": rgood})
    r.step("l7rule list", "demo", "GET", rs)
    r.step("l7rule list missing policy", "demo", "GET", f"{l7}/<<fp_missing>>/rules")
    r.step("l7rule show", "demo", "GET", f"{rs}/<<l7rule>>")
    r.step("l7rule show missing", "demo", "GET", f"{rs}/<<fp_missing>>")
    for field, vals in (("type", [None, "x", "HEADER", "COOKIE"]), ("compare_type", [None, "x", "REGEX"]),
                        ("value", [None, "", "a b", "(["]), ("key", [None, "k"]),
                        ("invert", [None, True]), ("admin_state_up", [None]), ("tags", [None]),
                        ("bogus", [1])):
        for v in vals:
            r.step(f"l7rule put {field}={json.dumps(v)[:30]}", "demo", "PUT", f"{rs}/<<l7rule>>",
                   {"rule": {field: v}}, wait="l7lb")
    r.step("l7rule put empty", "demo", "PUT", f"{rs}/<<l7rule>>", {"rule": {}}, wait="l7lb")
    r.step("l7rule put missing", "demo", "PUT", f"{rs}/<<fp_missing>>", {"rule": {"value": "x"}})
    r.step("l7rule delete missing", "demo", "DELETE", f"{rs}/<<fp_missing>>")
    r.step("l7rule delete", "demo", "DELETE", f"{rs}/<<l7rule>>", wait="l7lb")
    r.step("l7policy delete missing", "demo", "DELETE", f"{l7}/<<fp_missing>>")
    r.step("l7policy delete", "demo", "DELETE", f"{l7}/<<l7pol>>", wait="l7lb")
    r.step("l7 lb delete", "demo", "DELETE", f"{lbs}/<<l7lb>>?cascade=true", wait="l7lb")


def case_posts(r, admin_project):
    """Every attribute of the listener, pool, member and health monitor POST bodies wrong in
    turn (type, range, length, null), then an unknown key and each key left out, on an ACTIVE
    load balancer with a TCP listener and pool. What a side accepts is deleted again."""
    lbs = "/v2/lbaas/loadbalancers"
    r.step("posts lb", "demo", "POST", lbs,
           {"loadbalancer": {"vip_subnet_id": "<<subnet>>", "name": "lbw"}},
           save={"lbw": "loadbalancer.id"}, wait="lbw")
    r.step("posts listener", "demo", "POST", "/v2/lbaas/listeners",
           {"listener": {"loadbalancer_id": "<<lbw>>", "protocol": "TCP", "protocol_port": 80}},
           save={"lw": "listener.id"}, wait="lbw")
    r.step("posts pool", "demo", "POST", "/v2/lbaas/pools",
           {"pool": {"loadbalancer_id": "<<lbw>>", "protocol": "TCP",
                     "lb_algorithm": "SOURCE_IP_PORT"}}, save={"pw": "pool.id"}, wait="lbw")
    tags = [None, "t", [1], ["x" * 256]]
    walk(r, "listener post", "demo", "POST", "/v2/lbaas/listeners", "listener",
         {"loadbalancer_id": "<<lbw>>", "protocol": "TCP", "protocol_port": 81},
         {"loadbalancer_id": BAD_UUID, "protocol": [None, "x", 1, "HTTPS", "TERMINATED_HTTPS"],
          "protocol_port": BAD_INT + [0, 65536], "name": BAD_STR, "description": BAD_STR,
          "admin_state_up": BAD_BOOL, "connection_limit": BAD_INT + [-2],
          "default_pool_id": BAD_UUID + ["<<pw>>"], "timeout_client_data": BAD_INT,
          "timeout_member_connect": [None, -1, 2**31], "timeout_tcp_inspect": [None, "a"],
          "allowed_cidrs": [None, "x", ["x"], [1], ["10.0.0.0/8", "10.0.0.0/8"]],
          "insert_headers": [None, "x", {"X-Forwarded-For": "true"}],
          "tls_versions": [None, ["x"], "TLSv1.2"], "alpn_protocols": [None, ["x"]],
          "hsts_max_age": BAD_INT, "tags": tags}, wait="lbw")
    walk(r, "pool post", "demo", "POST", "/v2/lbaas/pools", "pool",
         {"loadbalancer_id": "<<lbw>>", "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"},
         {"loadbalancer_id": BAD_UUID, "listener_id": BAD_UUID + ["<<lw>>"],
          "protocol": [None, "x", 1, "HTTP", "UDP", "PROXY"],
          "lb_algorithm": [None, "x", "ROUND_ROBIN", "SOURCE_IP"],
          "session_persistence": [None, "x", {}, {"type": "x"}, {"type": "APP_COOKIE"},
                                  {"type": "SOURCE_IP", "persistence_timeout": "a"},
                                  {"type": "HTTP_COOKIE", "cookie_name": "c"}],
          "name": BAD_STR, "description": BAD_STR, "admin_state_up": BAD_BOOL,
          "tls_enabled": BAD_BOOL, "ca_tls_container_ref": [None, "x"],
          "tls_versions": [None, ["x"], "x"], "alpn_protocols": [None, ["x"]], "tags": tags},
         wait="lbw")
    walk(r, "member post", "demo", "POST", "/v2/lbaas/pools/<<pw>>/members", "member",
         {"address": "10.77.0.60", "protocol_port": 8080, "subnet_id": "<<subnet>>"},
         {"address": [None, "x", 1, "10.77.0.300", "::1"],
          "protocol_port": BAD_INT + [0, 65536], "subnet_id": BAD_UUID,
          "weight": BAD_INT + [0, 257], "backup": BAD_BOOL,
          "monitor_address": [None, "x", "10.77.0.61"], "monitor_port": BAD_INT + [0],
          "name": BAD_STR, "admin_state_up": BAD_BOOL, "tags": tags}, wait="lbw")
    walk(r, "hm post", "demo", "POST", "/v2/lbaas/healthmonitors", "healthmonitor",
         {"pool_id": "<<pw>>", "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3},
         {"pool_id": BAD_UUID, "type": [None, "x", "HTTP", "PING", "UDP-CONNECT"],
          "delay": BAD_INT, "timeout": BAD_INT + [6], "max_retries": BAD_INT + [0, 11],
          "max_retries_down": BAD_INT + [0, 11], "http_method": [None, "x", "GET"],
          "url_path": [None, "x", "/" * 300], "expected_codes": [None, "x", "200"],
          "http_version": [None, 2.5, "1.1"], "domain_name": [None, "-x", "a.example"],
          "name": BAD_STR, "admin_state_up": BAD_BOOL, "tags": tags}, wait="lbw")


CASES = {"profiles": case_profiles, "flavor": case_flavors, "az": case_azs, "quota": case_quotas,
         "tree": case_tree, "l7": case_l7, "posts": case_posts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keel", required=True)
    ap.add_argument("--ref", default="http://127.0.0.1:9877")
    ap.add_argument("--keel-db", required=True, help="Keel's MariaDB database (user keel)")
    ap.add_argument("--ref-db", default="octavia", help="the reference's database (user octavia)")
    ap.add_argument("--only", action="append", choices=sorted(CASES))
    ap.add_argument("-v", "--verbose", action="store_true", help="every step's two statuses")
    a = ap.parse_args()
    # a TERM (timeout, Ctrl-C in a wrapper) still runs the clean-up below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    envs = {who: persona_env(who) for who in PERSONAS}
    tokens = {who: token(envs[who]) for who in PERSONAS}
    keel = Side("keel", a.keel, dict(host="127.0.0.1", user="keel", password="keel-db-pass",
                                     database=a.keel_db))
    ref = Side("reference", a.ref, dict(host="127.0.0.1", user="octavia",
                                        password="refstack-db-pass", database=a.ref_db))
    r = Runner(keel, ref, tokens)
    r.verbose = a.verbose

    # Neutron objects of the demo project, shared by both sides
    tag = uuid.uuid4().hex[:8]
    osc = [os.path.join(os.path.dirname(sys.executable), "openstack")]
    demo_env = dict(os.environ, **envs["demo"])

    def os_cli(*args):
        return subprocess.run(osc + list(args) + ["-f", "value", "-c", "id"], env=demo_env,
                              check=True, capture_output=True, text=True).stdout.strip()

    net = os_cli("network", "create", f"diff-{tag}")
    subnet = os_cli("subnet", "create", f"diff-{tag}", "--network", net, "--subnet-range",
                    "10.77.0.0/24")
    sg1 = os_cli("security", "group", "create", f"diff-{tag}-1")
    sg2 = os_cli("security", "group", "create", f"diff-{tag}-2")
    fp_row, azp_row = str(uuid.uuid4()), str(uuid.uuid4())
    for side in r.sides:
        side.vars.update(subnet=subnet, sg1=sg1, sg2=sg2, fp_row=fp_row, azp_row=azp_row,
                         fp_missing=str(uuid.uuid4()), demo_project=tokens["demo"][1],
                         demo2_project=tokens["demo2"][1])
        side.sql("INSERT INTO flavor_profile (id, name, provider_name, flavor_data) "
                 "VALUES (%s, 'seeded-fp', 'ovn', '{}')", (fp_row,))
        side.sql("INSERT INTO availability_zone_profile (id, name, provider_name, "
                 "availability_zone_data) VALUES (%s, 'seeded-azp', 'ovn', '{}')", (azp_row,))
    try:
        for name, fn in CASES.items():
            if not a.only or name in a.only:
                print(f"== {name}", flush=True)
                fn(r, tokens["admin"][1])
    finally:
        r.cleanup()
        for side in r.sides:
            for stmt in ("DELETE FROM availability_zone WHERE availability_zone_profile_id = %s",
                         "DELETE FROM availability_zone_profile WHERE id = %s"):
                side.sql(stmt, (azp_row,))
            side.sql("UPDATE load_balancer SET flavor_id = NULL WHERE flavor_id IN "
                     "(SELECT id FROM flavor WHERE flavor_profile_id = %s) AND "
                     "provisioning_status = 'DELETED'", (fp_row,))
            side.sql("UPDATE load_balancer SET availability_zone = NULL WHERE availability_zone IN "
                     "(SELECT name FROM availability_zone WHERE availability_zone_profile_id = %s) "
                     "AND provisioning_status = 'DELETED'", (azp_row,))
            for stmt in ("DELETE FROM flavor WHERE flavor_profile_id = %s",
                         "DELETE FROM flavor_profile WHERE id = %s"):
                try:
                    side.sql(stmt, (fp_row,))
                except pymysql.MySQLError as e:
                    print(f"cleanup {side.name}: {e}")
            side.sql("DELETE FROM quotas WHERE project_id IN (%s, %s)", (tokens["demo2"][1], "not-a-project"))
        time.sleep(0)
        for what, id_ in (("security group", sg1), ("security group", sg2)):
            subprocess.run(osc + what.split() + ["delete", id_], env=demo_env, capture_output=True)
        # ports of deleted load balancers may still be going away
        deadline = time.monotonic() + 60
        while subprocess.run(osc + ["network", "delete", net], env=demo_env,
                             capture_output=True).returncode != 0 and time.monotonic() < deadline:
            time.sleep(1)
    print(f"\n== left PENDING_* ({len(r.stuck)}; set ACTIVE in SQL to go on)")
    print("\n".join(text for _, text in r.stuck))
    print(f"\n== reference 500, Keel not ({len(r.better)})")
    print("\n".join(r.better))
    print(f"\n{r.steps} steps, {len(r.diffs)} with differences, {len(r.better)} where the "
          f"reference answers 500 and Keel does not, {len(r.stuck)} left PENDING_*")
    return 1 if r.diffs or any(who == "keel" for who, _ in r.stuck) else 0


if __name__ == "__main__":
    sys.exit(main())
