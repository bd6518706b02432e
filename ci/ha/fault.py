"""The HA fault run (ci/ha/fault.sh runs it with the stack venv's python).

Four clients loop through haproxy (LB, listener, pool, members, health monitor create /
update / delete, batch member update, cascade delete) while, one window at a time, a fault
is injected: a Keel replica SIGKILLed (the agent-lock holder), one SIGTERMed (a rolling
restart), the NB raft leader killed, the Galera writer node killed, Neutron SIGSTOPped for
20 s. After each window the clients stop, and within a bounded settle time the run checks:
nothing in PENDING_*; `keel ovn-db-sync --dry-run` finds no difference; no Neutron VIP/HM
port is left on the run's network (a SIGKILL that cut an LB create on its replica may leave
its VIP port to Keel's orphan sweep: then waited for, up to SWEEP_BOUND); every answer the
clients saw was 2xx, 409 or a 503 with a fault text, the rest counted by cause. A request the client saw cut (no answer, or
haproxy's 502/504) is excused only when haproxy's access log (up.sh's `log-format`: the
`X-Fault-Id` every request carries, and the server it went to) puts it on the replica a
SIGKILL window killed; in every other window (a SIGTERM drain included) a cut request is
a failure. Then `up.sh` restarts what was killed.

Output: a summary on stdout and `results.json` in the output directory.
"""
import argparse
import collections
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid

import requests

HOST = "127.0.0.1"
E = os.environ
HA_STATE = E.get("HA_STATE", "/var/tmp/keel-ha")
RUN = f"{HA_STATE}/run"
API = f"http://{HOST}:{E.get('HA_API_PORT', '9886')}"
NEUTRON = f"http://{HOST}:{E.get('HA_NEUTRON_PORT', '9697')}/v2.0"
KEYSTONE = f"http://{HOST}:{E.get('KEYSTONE_PORT', '5000')}/v3"
DB = ["mariadb", "--no-defaults", "-h", HOST, "-P", E.get("HA_DB_PORT", "3310"),
      "-ukeel", f"-p{E.get('KEEL_DB_PASS', 'keel-db-pass')}", "-N", "-B", E.get("HA_DB_NAME", "keel")]
OK = {200, 201, 202, 204}
RUN_TAG = uuid.uuid4().hex[:8]  # prefix of this run's X-Fault-Id values
SEQ = itertools.count(1)  # their suffix, unique in the run (next() is atomic under the GIL)
# answers that mean the request was cut: no answer, or haproxy's own 502/504 (neither
# Keel nor Octavia answers those)
CUT = {0, 502, 504}
ACCESS_LOG = f"{HA_STATE}/log/haproxy-access.log"


def token(user, password, project):
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": user, "domain": {"name": "Default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"name": "Default"}}}}}
    r = requests.post(f"{KEYSTONE}/auth/tokens", json=body, timeout=60)
    r.raise_for_status()
    return r.headers["X-Subject-Token"]


def pid(name):
    try:
        with open(f"{RUN}/{name}.pid") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def children(p):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(p)], capture_output=True, text=True)
    kids = [int(x) for x in out.stdout.split()]
    return kids + [g for k in kids for g in children(k)]


def sql(statement):
    out = subprocess.run(DB + ["-e", statement], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"mysql: {out.stderr.strip()}")
    return out.stdout.strip()


class Record:
    """Every answer the clients saw, by window."""

    def __init__(self):
        self.lock = threading.Lock()
        self.window = "warm-up"
        self.ops = collections.defaultdict(collections.Counter)      # window -> op -> n
        self.failures = collections.defaultdict(collections.Counter)  # window -> cause -> n
        self.examples = {}
        self.cut = collections.defaultdict(list)  # window -> [(X-Fault-Id, op, code)] cut
        self.errors = {}  # X-Fault-Id -> the client's exception text
        self.sent = collections.defaultdict(list)  # window -> [(X-Fault-Id, op, lb, sent at)]
        self.bad = collections.defaultdict(list)  # window -> [(X-Fault-Id, cause)] not 2xx/409/503/cut

    def add(self, op, code, text, t0, rid="", lb=None):
        cause = None
        if code in OK:
            pass
        elif code == 409:
            cause = "409 " + text[:60]
        elif code == 503 and text:
            cause = "503 " + text[:80]
        elif code in CUT:
            cause = ("no answer: " + text) if code == 0 else f"{code} (haproxy) {text[:60]}"
            with self.lock:
                self.cut[self.window].append((rid, op, code))
        else:
            cause = f"{code} {text[:100]}"
            with self.lock:
                self.bad[self.window].append((rid, cause))
        with self.lock:
            self.sent[self.window].append((rid, op, lb, t0))
            self.ops[self.window][op] += 1
            if cause:
                self.failures[self.window][cause] += 1
                self.examples.setdefault(cause, f"{op} at {time.strftime('%H:%M:%S', time.localtime(t0))}")


class Client(threading.Thread):
    def __init__(self, n, rec, stop, tok, subnet, stats):
        super().__init__(daemon=True)
        self.n, self.rec, self.stop, self.tok, self.subnet, self.stats = n, rec, stop, tok, subnet, stats
        self.s = requests.Session()
        self.stuck = False
        self.lb = None  # the load balancer of the current iteration

    def req(self, op, method, path, body=None, record=True, gone_ok=False):
        t0 = time.time()
        rid = f"{RUN_TAG}-{next(SEQ)}"
        self.last = (rid, t0)  # for a caller that records an unrecorded request's answer
        try:
            r = self.s.request(method, API + path, json=body, timeout=90,
                               headers={"X-Auth-Token": self.tok, "X-Fault-Id": rid})
            code = r.status_code
            try:
                doc = r.json()
            except ValueError:
                doc = {}
            text = ""
            if isinstance(doc, dict):
                text = str(doc.get("faultstring") or doc.get("description") or doc.get("message") or "")
            if not text and code not in OK:
                text = r.text.strip().splitlines()[0][:100] if r.text.strip() else ""
        except requests.RequestException as e:
            code, doc, text = 0, {}, type(e).__name__
            self.rec.errors[rid] = str(e)[:200]
        if record:
            lb = self.lb
            if lb is None and isinstance(doc, dict) and "loadbalancer" in doc:
                lb = doc["loadbalancer"].get("id")
            self.rec.add(op, 204 if gone_ok and code == 404 else code, text, t0, rid, lb)
        return code, doc

    def wait_lb(self, lb, timeout=90):
        """ACTIVE / ERROR / GONE / the last status when the deadline passed."""
        deadline = time.time() + timeout
        last = "?"
        while time.time() < deadline:
            code, doc = self.req("GET lb", "GET", f"/v2/lbaas/loadbalancers/{lb}",
                                 record=False)
            if code == 404:
                return "GONE"
            if code == 200:
                last = doc["loadbalancer"]["provisioning_status"]
                if last in ("ACTIVE", "ERROR"):
                    return last
            elif code not in (0, 502, 503, 504):
                rid, t0 = self.last
                self.rec.add("GET lb", code, str(doc)[:80], t0, rid, lb)
            time.sleep(0.25)
        return "STUCK " + last

    def step(self, lb, op, method, path, body=None):
        """One change, then wait for the LB; a 409 (immutable) is retried once."""
        for _ in range(2):
            code, doc = self.req(op, method, path, body)
            if code in OK:
                st = self.wait_lb(lb)
                if st != "ACTIVE":
                    self.stats[f"LB {st} after {op}"] += 1
                    self.stuck |= st.startswith("STUCK")
                return doc if st == "ACTIVE" else None
            if code == 409:
                self.stuck |= self.wait_lb(lb).startswith("STUCK")
                if self.stuck:
                    return None
                continue
            return None
        return None

    def iteration(self):
        code, doc = self.req("LB create", "POST", "/v2/lbaas/loadbalancers",
                             {"loadbalancer": {"vip_subnet_id": self.subnet, "provider": "ovn",
                                               "name": f"fault-{self.n}"}})
        if code != 201:
            time.sleep(1)
            return
        lb = doc["loadbalancer"]["id"]
        self.lb = lb
        self.stuck = False
        try:
            st = self.wait_lb(lb)
            if st != "ACTIVE":
                self.stats[f"LB {st} after LB create"] += 1
                return
            port = random.randint(1, 65000)
            d = self.step(lb, "listener create", "POST", "/v2/lbaas/listeners",
                          {"listener": {"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": port}})
            if not d:
                return
            lid = d["listener"]["id"]
            d = self.step(lb, "pool create", "POST", "/v2/lbaas/pools",
                          {"pool": {"listener_id": lid, "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}})
            if not d:
                return
            pool = d["pool"]["id"]
            addr = lambda: f"10.9.{random.randint(1, 250)}.{random.randint(1, 250)}"  # noqa: E731
            members = []
            for _ in range(2):
                d = self.step(lb, "member create", "POST", f"/v2/lbaas/pools/{pool}/members",
                              {"member": {"address": addr(), "protocol_port": 8080, "subnet_id": self.subnet}})
                if d:
                    members.append(d["member"]["id"])
            d = self.step(lb, "HM create", "POST", "/v2/lbaas/healthmonitors",
                          {"healthmonitor": {"pool_id": pool, "type": "TCP", "delay": 5, "timeout": 3,
                                             "max_retries": 3}})
            hm = d["healthmonitor"]["id"] if d else None
            if members:
                self.step(lb, "member update", "PUT", f"/v2/lbaas/pools/{pool}/members/{members[0]}",
                          {"member": {"weight": 5}})
            if hm:
                self.step(lb, "HM update", "PUT", f"/v2/lbaas/healthmonitors/{hm}",
                          {"healthmonitor": {"delay": 7}})
            self.step(lb, "listener update", "PUT", f"/v2/lbaas/listeners/{lid}",
                      {"listener": {"description": "updated"}})
            self.step(lb, "batch member update", "PUT", f"/v2/lbaas/pools/{pool}/members",
                      {"members": [{"address": addr(), "protocol_port": 80 + i, "subnet_id": self.subnet}
                                   for i in range(3)]})
            if hm:
                self.step(lb, "HM delete", "DELETE", f"/v2/lbaas/healthmonitors/{hm}")
        finally:
            self.delete(lb)
            self.lb = None

    def delete(self, lb):
        if self.stuck:
            # left to the checks below: PENDING_* that nothing completes is what they catch
            self.stats["LB abandoned: PENDING_* past the client's 90 s wait"] += 1
            return
        cut = False
        for _ in range(4):
            # after a cut delete, a 404 means the cut one was done: not a failure of its own
            code, _ = self.req("LB delete cascade", "DELETE",
                               f"/v2/lbaas/loadbalancers/{lb}?cascade=true", gone_ok=cut)
            cut = code in CUT
            if code in OK or code == 404:
                st = self.wait_lb(lb)
                if st != "GONE":
                    self.stats[f"LB {st} after cascade delete"] += 1
                return
            self.wait_lb(lb)
        self.stats["LB left: cascade delete refused 4 times"] += 1

    def run(self):
        while not self.stop.is_set():
            try:
                self.iteration()
                self.stats["iterations"] += 1
            except Exception as e:  # noqa: BLE001 - counted, the loop goes on
                self.stats[f"client error {type(e).__name__}: {e}"[:120]] += 1
                time.sleep(1)


def agent_holder():
    """The replica whose log last said it holds the agent lock."""
    best = None
    for n in (1, 2, 3):
        try:
            lines = open(f"{HA_STATE}/log/keel-{n}.log").read().splitlines()
        except OSError:
            continue
        held = [ln for ln in lines if "held=" in ln]
        if held and "held=true" in held[-1]:
            best = n
    return best or 1


def kill_keel(sig):
    def fault():
        n = agent_holder() if sig == signal.SIGKILL else (agent_holder() % 3) + 1
        p = pid(f"keel-{n}")
        os.kill(p, sig)
        if sig == signal.SIGTERM:
            # a rolling restart: wait for the drain, then start it again
            deadline = time.time() + 90
            while time.time() < deadline and os.path.exists(f"/proc/{p}") and \
                    not open(f"/proc/{p}/stat").read().split()[2] == "Z":
                time.sleep(0.2)
            up()
        return f"keel-{n} (pid {p})", (f"keel/keel{n}" if sig == signal.SIGKILL else None)
    return fault


def kill_nb_leader():
    for n in (1, 2, 3):
        out = subprocess.run(["ovs-appctl", "-t", f"{RUN}/nb{n}.ctl", "cluster/status", "OVN_Northbound"],
                             capture_output=True, text=True)
        if "Role: leader" in out.stdout:
            p = pid(f"nb{n}")
            os.kill(p, signal.SIGKILL)
            return f"nb{n} (pid {p})", None
    raise RuntimeError("no NB leader found")


def kill_galera_writer():
    p = pid("galera1")
    os.kill(p, signal.SIGKILL)
    return f"galera1, haproxy's writer (pid {p})", None


def pause_neutron():
    p = pid("neutron-api")
    procs = [p] + children(p)
    for q in procs:
        os.kill(q, signal.SIGSTOP)
    time.sleep(20)
    for q in procs:
        os.kill(q, signal.SIGCONT)
    return f"neutron-api pids {procs}, 20 s", None


def access_log(ids):
    """X-Fault-Id -> {server, status, term, retries} of haproxy's access log lines for `ids`
    (up.sh's log-format: `<time> id=<X-Fault-Id> srv=<backend>/<server> st=<status>
    term=<termination state> retries=<n> <method> <path>`)."""
    want, out = set(ids), {}
    try:
        with open(ACCESS_LOG) as f:
            for line in f:
                parts = dict(w.split("=", 1) for w in line.split() if "=" in w and w.split("=", 1)[0]
                             in ("id", "srv", "st", "term", "retries"))
                if parts.get("id") in want:
                    out[parts["id"]] = {"server": parts.get("srv"), "status": parts.get("st"),
                                        "term": parts.get("term"), "retries": parts.get("retries")}
    except OSError:
        pass
    return out


def judge_cuts(cut, killed, errors=None):
    """The cut requests of a window with haproxy's view of each; `excused`: those haproxy
    sent to `killed` (the haproxy server a SIGKILL took down; None: excuse none)."""
    seen = access_log([rid for rid, _, _ in cut])
    rows = [{"id": rid, "op": op, "code": code, "error": (errors or {}).get(rid),
             **seen.get(rid, {"server": "not in haproxy's log"})} for rid, op, code in cut]
    excused = sum(1 for r in rows if killed is not None and r["server"] == killed)
    return rows, excused


def is_cut(cause):
    return cause.startswith("no answer") or "(haproxy)" in cause


def up():
    out = subprocess.run([f"{os.path.dirname(os.path.abspath(__file__))}/up.sh"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("up.sh failed: " + (out.stdout + out.stderr)[-2000:])


def pending():
    q = " UNION ALL ".join(
        f"SELECT '{t}', COUNT(*) FROM {t} WHERE provisioning_status LIKE 'PENDING%'"
        for t in ("load_balancer", "listener", "pool", "member", "health_monitor"))
    rows = [ln.split("\t") for ln in sql(q).splitlines()]
    return {t: int(c) for t, c in rows if int(c)}


def sync_dry_run(keel_bin):
    conf = next(f"{HA_STATE}/etc/keel-{n}.conf" for n in (1, 2, 3) if os.path.exists(f"{HA_STATE}/etc/keel-{n}.conf"))
    out = subprocess.run([keel_bin, "--config-file", conf, "ovn-db-sync", "--dry-run"],
                         capture_output=True, text=True, env={**E, "NO_COLOR": "1", "KEEL_LOG": "warn"})
    diffs = [ln for ln in out.stdout.splitlines() if ln.strip()]
    summary = [ln for ln in out.stderr.splitlines() if ln.startswith("ovn-db-sync:") or ln.startswith("skip")]
    return {"rc": out.returncode, "differences": diffs, "summary": summary}


# Keel's sweep of a crashed LB create's VIP port (`[keel] recovery_lease`/`recovery_period`,
# 30/10 s unless replicas.sh was given HA_RECOVERY_*): a replica lists the ports every 6
# periods and deletes a candidate about a lease after it first saw it; one period of slack.
_LEASE = float(os.environ.get("HA_RECOVERY_LEASE") or 30)
_PERIOD = float(os.environ.get("HA_RECOVERY_PERIOD") or 10)
SWEEP_BOUND = 6 * _PERIOD + _LEASE + 2 * _PERIOD


def orphan_ports(admin, net):
    r = requests.get(f"{NEUTRON}/ports", params={"network_id": net},
                     headers={"X-Auth-Token": admin}, timeout=60)
    r.raise_for_status()
    lbs = set(sql("SELECT id FROM load_balancer WHERE provisioning_status <> 'DELETED'").split())
    out = []
    for p in r.json()["ports"]:
        name = p.get("name") or ""
        vip_of = name[len("ovn-lb-vip-"):] if name.startswith("ovn-lb-vip-") else None
        if vip_of and vip_of in lbs:
            continue  # the VIP port of a load balancer that exists
        if name.startswith("ovn-lb-") or p.get("device_owner", "").startswith(("Octavia", "ovn-lb")):
            out.append(f"{name or p['id']} ({p.get('device_owner')})")
    return out


def arguments(what="fault"):
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--warm", type=float, default=20, help=f"seconds of load before the {what}")
    ap.add_argument("--after", type=float, default=30, help=f"seconds of load after the {what}")
    ap.add_argument("--settle", type=float, default=120, help="bound for PENDING_* to clear")
    ap.add_argument("--only", default="", help=f"comma-separated {what} names to run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keel-bin", required=True)
    return ap


def network(kind):
    """A demo network and subnet for the run: (demo token, admin token, network, subnet)."""
    demo = token("demo", E.get("DEMO_PASS", "demo-pass"), "demo")
    admin = token("admin", E.get("ADMIN_PASS", "admin-pass"), "admin")
    h = {"X-Auth-Token": demo}
    tag = uuid.uuid4().hex[:6]
    net = requests.post(f"{NEUTRON}/networks", json={"network": {"name": f"ha-{kind}-{tag}"}},
                        headers=h, timeout=60).json()["network"]["id"]
    subnet = requests.post(f"{NEUTRON}/subnets", json={"subnet": {
        "network_id": net, "cidr": "10.9.0.0/16", "ip_version": 4, "name": f"ha-{kind}-{tag}"}},
        headers=h, timeout=60).json()["subnet"]["id"]
    return demo, admin, net, subnet


def windows(a, faults, demo, admin, net, subnet, rec, after_window=None):
    """One window per (name, fault): the clients' load, `fault()` (-> description, the
    haproxy server it SIGKILLed or None), more load, the clients stopped, the checks, up.sh.
    `after_window(name, result)` may add to each result. Returns the results."""
    results = []
    for name, fault in faults:
        rec.window = name
        stop = threading.Event()
        stats = collections.Counter()
        clients = [Client(i, rec, stop, demo, subnet, stats) for i in range(a.clients)]
        t_start = time.time()
        for c in clients:
            c.start()
        time.sleep(a.warm)
        t_fault = time.time()
        what, killed = fault()
        print(f"[fault {time.strftime('%H:%M:%S')}] {name}: {what}", flush=True)
        time.sleep(a.after)
        stop.set()
        join_by = time.time() + 240
        for c in clients:
            c.join(timeout=max(0.0, join_by - time.time()))
        t_stop = time.time()
        left = pending()
        while left and time.time() < t_stop + a.settle:
            time.sleep(1)
            left = pending()
        settled = time.time() - t_stop
        sync = sync_dry_run(a.keel_bin)
        cuts, excused = judge_cuts(rec.cut[name], killed, rec.errors)
        orphans, swept_after = orphan_ports(admin, net), None
        if orphans and any(c["op"] == "LB create" and killed is not None and c["server"] == killed
                           for c in cuts):
            # an LB create SIGKILLed between its VIP port create and its commit: the port is
            # the surviving replicas' orphan sweep's (crates/keel/src/recovery.rs), waited for
            t0 = time.time()
            while orphans and time.time() < t0 + SWEEP_BOUND:
                time.sleep(2)
                orphans = orphan_ports(admin, net)
            swept_after = round(time.time() - t0, 1)
        up()  # restart what the fault killed
        r = {
            "fault": name, "target": what,
            "seconds": {"load_before": round(t_fault - t_start, 1), "load_total": round(t_stop - t_start, 1),
                        "pending_cleared_after_stop": round(settled, 1)},
            "operations": sum(rec.ops[name].values()), "by_op": dict(rec.ops[name]),
            "failures": dict(rec.failures[name]), "client_stats": dict(stats),
            "pending_left": left, "sync": sync, "orphan_ports": orphans,
            "orphan_ports_swept_after": swept_after,
            # requests cut, each with the server haproxy's log sent it to; excused: those on
            # the replica a SIGKILL killed (a drain, SIGTERM, excuses none)
            "cut": cuts, "in_flight_on_killed": excused,
            "clients_alive": sum(c.is_alive() for c in clients),
        }
        if after_window:
            after_window(name, r)
        results.append(r)
        print(json.dumps(r, indent=1), flush=True)
    return results


def summary(results, what="fault"):
    """Prints the table; returns the number of failed checks."""
    bad = 0
    print(f"\n{what} | ops | not 2xx (by cause) | of which cut on a SIGKILLed replica | PENDING left / cleared after | sync diffs | orphan ports")
    for r in results:
        fails = "; ".join(f"{n}× {c}" for c, n in sorted(r["failures"].items(), key=lambda x: -x[1])) or "none"
        diffs = len(r["sync"]["differences"])
        print(f"{r['fault']} | {r['operations']} | {fails} | {r['in_flight_on_killed']} | {r['pending_left'] or 0} / "
              f"{r['seconds']['pending_cleared_after_stop']} s | {diffs} | {len(r['orphan_ports'])}")
        bad += bool(r["pending_left"]) + bool(diffs) + bool(r["orphan_ports"]) + (r["sync"]["rc"] != 0)
        bad += len(r["cut"]) - r["in_flight_on_killed"]
        bad += sum(n for c, n in r["failures"].items()
                   if not c.startswith(("409", "503")) and not is_cut(c))
    return bad


def main():
    a = arguments().parse_args()
    os.makedirs(a.out, exist_ok=True)
    demo, admin, net, subnet = network("fault")
    faults = [
        ("keel SIGKILL", kill_keel(signal.SIGKILL)),
        ("keel SIGTERM", kill_keel(signal.SIGTERM)),
        ("NB leader kill", kill_nb_leader),
        ("Galera writer kill", kill_galera_writer),
        ("Neutron SIGSTOP 20 s", pause_neutron),
    ]
    if a.only:
        want = set(a.only.split(","))
        faults = [f for f in faults if f[0] in want]
    rec = Record()
    results = windows(a, faults, demo, admin, net, subnet, rec)
    requests.delete(f"{NEUTRON}/networks/{net}", headers={"X-Auth-Token": demo}, timeout=60)
    with open(f"{a.out}/results.json", "w") as f:
        json.dump({"results": results, "examples": rec.examples}, f, indent=1)
    sys.exit(1 if summary(results) else 0)


if __name__ == "__main__":
    main()
