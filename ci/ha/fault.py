"""The HA fault run (ci/ha/fault.sh runs it with the stack venv's python).

Four clients loop through haproxy (LB, listener, pool, members, health monitor create /
update / delete, batch member update, cascade delete) while, one window at a time, a fault
is injected: a Keel replica SIGKILLed (the agent-lock holder), one SIGTERMed (a rolling
restart), the NB raft leader killed, the Galera writer node killed, Neutron SIGSTOPped for
20 s. After each window the clients stop, and within a bounded settle time the run checks
(every one a failure of the run, named with its window, load balancer and what was seen):

* every change the clients made ends ACTIVE: a load balancer a client saw end ERROR,
  PENDING_* past its 90 s wait (or GONE) after a change, one left ACTIVE after an accepted
  cascade delete, an object of its status tree (listener, pool, member, health monitor) in
  ERROR or PENDING_* once the load balancer is ACTIVE, and a load balancer of the window
  still in the database after the clients stopped, are failures;
* nothing in PENDING_* in the database; `keel ovn-db-sync --dry-run` finds no difference, nor
  does the NB oracle (ci/oracle/nb_oracle.py, not Keel's code; orphan NB rows count);
  no Neutron VIP/HM port is left on the run's network (a SIGKILL that cut an LB create on
  its replica may leave its VIP port to Keel's orphan sweep: then waited for, up to
  SWEEP_BOUND);
* every answer was 2xx or 409; a 503 is excused only when its body is Keel's own fault
  (Octavia's JSON fault, `faultcode` and `faultstring`) naming the peer the window takes
  away (EXPECTED_503: the database in the Galera window, Neutron in the Neutron window) —
  haproxy's HTML 503 ("No server is available") never is; a request the client saw cut (no
  answer, or haproxy's 502/504) is excused only when haproxy's access log (up.sh's
  `log-format`: the `X-Fault-Id` every request carries, and the server it went to) puts it
  on the replica a SIGKILL window killed; in every other window (a SIGTERM drain included)
  a cut request is a failure;
* the SIGKILL window proves that the kill landed on accepted, unfinished work: the killed
  replica's `keel_provider_jobs_pending` (its `[keel] metrics_listen`) is polled and the
  SIGKILL sent the moment it reads >= 1, and after the kill a surviving replica must log
  `taking over accepted work` for a load balancer that haproxy's log puts a write of on the
  killed replica (or, for an LB create whose answer the kill cut, whose id the client never
  learned, such a cut create). A window without that proof is run again, at most
  --sigkill-attempts times in all; then the run fails, saying so.

A judge that cannot run (a missing tool, an unreadable haproxy log, a replica without its
metrics) stops the run with exit 2 naming what is missing: it never passes by skipping.
Then `up.sh` restarts what was killed.

Output: a summary on stdout and `results.json` in the output directory.
"""
import argparse
import collections
import itertools
import json
import os
import random
import re
import shutil
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
# The 503s a window excuses: Keel's own fault body (Octavia's JSON fault) with the text of
# the peer that window takes away (crates/api/src/fault.rs `PeerUnavailable`). Any other
# 503 — haproxy's HTML page, a fault text the window has no reason for — is a failure.
EXPECTED_503 = {
    "Galera writer kill": {"The database service is temporarily unavailable."},
    "Neutron SIGSTOP 20 s": {"The Neutron service is temporarily unavailable."},
}
EXCUSED_503 = "503 excused: "
# [keel] metrics_listen of replica N (replicas.sh): the API port + N
METRICS = {n: int(E.get("HA_API_PORT", "9886")) + n for n in (1, 2, 3)}
TAKEOVER = "taking over accepted work"
# The recovery lease and period of the replicas (`[keel] recovery_lease`/`recovery_period`,
# 30/10 s unless replicas.sh was given HA_RECOVERY_*)
LEASE = float(E.get("HA_RECOVERY_LEASE") or 30)
PERIOD = float(E.get("HA_RECOVERY_PERIOD") or 10)


class Unjudgeable(Exception):
    """A judge cannot run (a tool, a log, an endpoint is missing): the run stops, exit 2."""


def preflight(keel_bin, tools=("mariadb", "ovs-appctl", "ps"), metrics=False):
    """Everything the judges need, or Unjudgeable naming each thing that is missing."""
    missing = [f"the `{t}` command (not on PATH)" for t in tools + ("ovsdb-client",) if shutil.which(t) is None]
    if not os.path.isfile(ORACLE):
        missing.append(f"the NB oracle {ORACLE}")
    for mod in ("pymysql", "requests"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(f"the Python module {mod} (for the NB oracle, {sys.executable})")
    if not (os.path.isfile(keel_bin) and os.access(keel_bin, os.X_OK)):
        missing.append(f"the keel binary {keel_bin} (for `ovn-db-sync --dry-run`)")
    if not os.access(ACCESS_LOG, os.R_OK):
        missing.append(f"haproxy's access log {ACCESS_LOG} (to put each cut request on a replica)")
    if metrics:
        for n in (1, 2, 3):
            if pid(f"keel-{n}") and jobs_pending(n) is None:
                missing.append(f"keel-{n}'s keel_provider_jobs_pending at http://{HOST}:{METRICS[n]}/metrics "
                               "([keel] metrics_listen)")
    if not missing:
        try:
            sql("SELECT 1")
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            missing.append(f"the database through haproxy ({' '.join(DB[:5])} …): {e}")
    if missing:
        raise Unjudgeable("; ".join(missing))


_metrics = threading.local()


def jobs_pending(n):
    """keel-N's `keel_provider_jobs_pending` (provider jobs queued or running), None when its
    metrics endpoint does not answer or has no such line."""
    s = getattr(_metrics, "s", None)
    if s is None:
        s = _metrics.s = requests.Session()
    try:
        text = s.get(f"http://{HOST}:{METRICS[n]}/metrics", timeout=5).text
    except requests.RequestException:
        return None
    for line in text.splitlines():
        if line.startswith("keel_provider_jobs_pending "):
            return float(line.split()[1])
    return None


def log_size(n):
    try:
        return os.path.getsize(f"{HA_STATE}/log/keel-{n}.log")
    except OSError:
        return 0


def log_since(n, offset):
    try:
        with open(f"{HA_STATE}/log/keel-{n}.log", errors="replace") as f:
            f.seek(offset)
            return f.read()
    except OSError:
        return ""


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def takeovers(n, offset):
    """[(load balancer id, the log line)] of keel-N's `taking over accepted work` lines after
    `offset` (the line's `lb=<id>` field)."""
    out = []
    for line in log_since(n, offset).splitlines():
        if TAKEOVER in line:
            field = re.search(r"\blb=(" + _UUID.pattern + ")", line)
            anywhere = _UUID.search(line)
            out.append((field.group(1) if field else anywhere.group(0) if anywhere else None, line.strip()))
    return out


def fault_text(r):
    """(text, whether the body is Octavia's JSON fault) of an answer."""
    try:
        doc = r.json()
    except ValueError:
        doc = None
    if isinstance(doc, dict) and "faultcode" in doc and "faultstring" in doc:
        return str(doc["faultstring"]), True
    if isinstance(doc, dict):
        text = str(doc.get("faultstring") or doc.get("description") or doc.get("message") or "")
        if text:
            return text, False
    # not JSON (haproxy's HTML page, a proxy's text): its words, without the markup
    return " ".join(re.sub(r"<[^>]*>", " ", r.text or "").split())[:120], False


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
        self.first = collections.defaultdict(dict)  # window -> cause -> its first occurrence
        self.cut = collections.defaultdict(list)  # window -> [(X-Fault-Id, op, code)] cut
        self.errors = {}  # X-Fault-Id -> the client's exception text
        self.sent = collections.defaultdict(list)  # window -> [(X-Fault-Id, op, lb, sent at)]
        self.bad = collections.defaultdict(list)  # window -> [(X-Fault-Id, cause)] not 2xx/409/excused 503/cut
        self.ended = collections.defaultdict(list)  # window -> [{lb, after, status, at}] not ACTIVE

    def end(self, lb, after, status):
        """A load balancer (or an object of its tree) a change left other than ACTIVE."""
        with self.lock:
            self.ended[self.window].append({"lb": lb, "after": after, "status": status,
                                            "at": time.strftime("%H:%M:%S")})

    def add(self, op, code, text, t0, rid="", lb=None, fault_body=False):
        cause = None
        if code in OK:
            pass
        elif code == 409:
            cause = "409 " + text[:60]
        elif code == 503 and fault_body and text in EXPECTED_503.get(self.window, ()):
            cause = EXCUSED_503 + text[:80]
        elif code == 503:
            why = "a fault this window has no reason for" if fault_body else \
                "not Keel's JSON fault (faultcode/faultstring)"
            cause = f"503 not excused, {why}: {text[:100]}"
            with self.lock:
                self.bad[self.window].append((rid, cause))
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
                at = time.strftime('%H:%M:%S', time.localtime(t0))
                self.examples.setdefault(cause, f"{op} at {at}")
                self.first[self.window].setdefault(cause, f"{op} at {at}, LB {lb}, X-Fault-Id {rid}")


class Client(threading.Thread):
    def __init__(self, n, rec, stop, tok, subnet, stats):
        super().__init__(daemon=True)
        self.n, self.rec, self.stop, self.tok, self.subnet, self.stats = n, rec, stop, tok, subnet, stats
        self.s = requests.Session()
        self.stuck = False
        self.lb = None  # the load balancer of the current iteration
        self.reported = set()  # ids of its objects already recorded as not ACTIVE
        self.last = ("", 0.0, "", False)

    def req(self, op, method, path, body=None, record=True, gone_ok=False):
        t0 = time.time()
        rid = f"{RUN_TAG}-{next(SEQ)}"
        fault_body = False
        try:
            r = self.s.request(method, API + path, json=body, timeout=90,
                               headers={"X-Auth-Token": self.tok, "X-Fault-Id": rid})
            code = r.status_code
            try:
                doc = r.json()
            except ValueError:
                doc = {}
            text = ""
            if code not in OK:
                text, fault_body = fault_text(r)
        except requests.RequestException as e:
            code, doc, text = 0, {}, type(e).__name__
            self.rec.errors[rid] = str(e)[:200]
        # for a caller that records an unrecorded request's answer
        self.last = (rid, t0, text, fault_body)
        if record:
            lb = self.lb
            if lb is None and isinstance(doc, dict) and "loadbalancer" in doc:
                lb = doc["loadbalancer"].get("id")
            self.rec.add(op, 204 if gone_ok and code == 404 else code, text, t0, rid, lb, fault_body)
        return code, doc

    def record_last(self, op, code, lb):
        rid, t0, text, fault_body = self.last
        self.rec.add(op, code, text, t0, rid, lb, fault_body)

    def wait_lb(self, lb, timeout=90):
        """ACTIVE / ERROR / GONE / the last status when the deadline passed. A poll cut by
        the fault (no answer, haproxy's 502/504) is polled again; any other answer but 200 /
        404 is recorded and judged as the clients' requests are (a 503 included)."""
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
            elif code not in CUT:
                self.record_last("GET lb", code, lb)
            time.sleep(0.25)
        return "STUCK " + last

    def tree_not_active(self, lb, after):
        """Records every object of `lb`'s status tree that is not ACTIVE (the load balancer
        is): an accepted change that ended ERROR (or PENDING_*) under an ACTIVE LB."""
        code, doc = self.req("GET lb status", "GET", f"/v2/lbaas/loadbalancers/{lb}/status", record=False)
        if code != 200:
            if code not in CUT and code != 404:
                self.record_last("GET lb status", code, lb)
            return

        def walk(kind, obj):
            if isinstance(obj, dict):
                st = obj.get("provisioning_status")
                if st and st != "ACTIVE" and obj.get("id") not in self.reported:
                    self.reported.add(obj.get("id"))
                    self.rec.end(lb, after, f"{kind} {obj.get('id')} {st}")
                for k, v in obj.items():
                    if isinstance(v, (dict, list)):
                        walk(k.rstrip("s"), v)
            elif isinstance(obj, list):
                for o in obj:
                    walk(kind, o)
        lbdoc = (doc.get("statuses") or {}).get("loadbalancer") or {}
        for k, v in lbdoc.items():
            if isinstance(v, (dict, list)):
                walk(k.rstrip("s"), v)

    def settle(self, lb, after):
        """Waits for `lb` after a change; a load balancer that ends other than ACTIVE (ERROR,
        PENDING_* past the wait, GONE) is recorded, as is any object of its tree left
        ERROR / PENDING_*. Returns the status."""
        st = self.wait_lb(lb)
        if st != "ACTIVE":
            self.stats[f"LB {st} after {after}"] += 1
            self.rec.end(lb, after, f"load balancer {st}")
            self.stuck |= st.startswith("STUCK")
        else:
            self.tree_not_active(lb, after)
        return st

    def step(self, lb, op, method, path, body=None):
        """One change, then wait for the LB; a 409 (immutable) is retried once."""
        for _ in range(2):
            code, doc = self.req(op, method, path, body)
            if code in OK:
                st = self.settle(lb, op)
                return doc if st == "ACTIVE" else None
            if code == 409:
                self.settle(lb, f"{op} (a 409, waited for)")
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
        self.reported = set()
        try:
            if self.settle(lb, "LB create") != "ACTIVE":
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
        code = None
        for _ in range(4):
            # after a cut delete, a 404 means the cut one was done: not a failure of its own
            code, _ = self.req("LB delete cascade", "DELETE",
                               f"/v2/lbaas/loadbalancers/{lb}?cascade=true", gone_ok=cut)
            cut = code in CUT
            if code in OK or code == 404:
                st = self.wait_lb(lb)
                if st != "GONE":
                    self.stats[f"LB {st} after cascade delete"] += 1
                    self.rec.end(lb, "cascade delete (accepted)", f"load balancer {st}")
                return
            self.wait_lb(lb)
        self.stats["LB left: cascade delete refused 4 times"] += 1
        self.rec.end(lb, "cascade delete", f"refused 4 times (last answer {code})")

    def run(self):
        while not self.stop.is_set():
            try:
                self.iteration()
                self.stats["iterations"] += 1
            except Exception as e:  # noqa: BLE001 - counted (a failure), the loop goes on
                self.stats[f"client error {type(e).__name__}: {e}"[:120]] += 1
                self.rec.end(self.lb, "the client's own code", f"client error {type(e).__name__}: {e}"[:160])
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


# What the last proving SIGKILL saw (kill_keel(..., prove=True)); windows() judges it.
LAST_KILL = {}
HUNT = 30.0  # seconds a proving SIGKILL polls for accepted work before it kills anyway


def kill_keel(sig, prove=False):
    """The fault: `sig` to the agent holder (SIGKILL) or to the next replica (SIGTERM, a
    rolling restart: waited for, started again). With `prove`, the SIGKILL is sent the moment
    the replica's `keel_provider_jobs_pending` reads >= 1 (polled for at most HUNT s; then
    sent anyway, and the window is unproven), and LAST_KILL notes what was read."""
    def fault():
        n = agent_holder() if sig == signal.SIGKILL else (agent_holder() % 3) + 1
        p = pid(f"keel-{n}")
        if prove:
            LAST_KILL.clear()
            LAST_KILL.update({"replica": n, "offsets": {m: log_size(m) for m in (1, 2, 3)}})
            deadline, value, t_read = time.time() + HUNT, 0.0, time.time()
            while time.time() < deadline:
                value, t_read = jobs_pending(n), time.time()
                if value is None:
                    raise Unjudgeable(f"keel-{n}'s keel_provider_jobs_pending at http://{HOST}:{METRICS[n]}"
                                      "/metrics did not answer: the SIGKILL cannot be proven to land on accepted work")
                if value >= 1:
                    break
                time.sleep(0.005)
            os.kill(p, sig)
            t_kill = time.time()
            LAST_KILL.update({"pending_at_last_read": value, "read_to_kill_ms": round((t_kill - t_read) * 1000, 1),
                              "hunted_s": round(t_kill - (deadline - HUNT), 1), "t_kill": t_kill})
        else:
            os.kill(p, sig)
        if sig == signal.SIGTERM:
            # a rolling restart: wait for the drain, then start it again
            deadline = time.time() + 90
            while time.time() < deadline and os.path.exists(f"/proc/{p}") and \
                    not open(f"/proc/{p}/stat").read().split()[2] == "Z":
                time.sleep(0.2)
            up()
        return f"keel-{n} (pid {p})", (f"keel/keel{n}" if sig == signal.SIGKILL else None)
    fault.proves = prove and sig == signal.SIGKILL
    return fault


def kill_proof(rec, window, killed):
    """Whether the window's proving SIGKILL landed on accepted, unfinished work: the killed
    replica's pending-jobs gauge read >= 1 right before the kill, and after it a surviving
    replica logged a takeover (`taking over accepted work`: a PENDING_* load balancer whose
    lease nobody renewed) of a load balancer haproxy's log puts a write of on the killed
    replica before the kill — or, when the kill cut an LB create on it (whose id the client
    never learned), at least that. Polls the survivors' logs for at most a lease + 2 periods +
    15 s after the kill."""
    k = dict(LAST_KILL)
    n, t_kill = k["replica"], k["t_kill"]
    survivors = [m for m in (1, 2, 3) if m != n]
    # the writes this window sent to the killed replica before the kill, by LB
    sent = [(rid, op, lb, t0) for rid, op, lb, t0 in rec.sent[window] if t0 < t_kill and op != "GET lb"]
    where = access_log([rid for rid, _, _, _ in sent])
    on_killed = {lb for rid, op, lb, _ in sent if lb and (where.get(rid) or {}).get("server") == killed}
    cut_create = any(op == "LB create" and (where.get(rid) or {}).get("server") == killed
                     for rid, op, lb, _ in sent if not lb)
    bound = t_kill + LEASE + 2 * PERIOD + 15
    seen = []
    while True:
        seen = [(f"keel-{m}", lb, line) for m in survivors for lb, line in takeovers(m, k["offsets"][m])]
        matched = [lb for _, lb, _ in seen if lb in on_killed]
        if (matched or (seen and cut_create)) or time.time() > bound:
            break
        time.sleep(1)
    proven = k["pending_at_last_read"] >= 1 and bool(matched or (seen and cut_create))
    why = None
    if k["pending_at_last_read"] < 1:
        why = f"keel-{n}'s keel_provider_jobs_pending never read >= 1 in {HUNT:.0f} s of polling"
    elif not seen:
        why = (f"keel-{n}'s gauge read {k['pending_at_last_read']:g} {k['read_to_kill_ms']} ms before the kill, "
               f"but no survivor logged '{TAKEOVER}' within {LEASE + 2 * PERIOD + 15:.0f} s (the job had "
               "finished, or was not committed yet)")
    elif not proven:
        why = (f"survivors took over {sorted({lb for _, lb, _ in seen})}, none of which haproxy's log puts a "
               f"write of on {killed} before the kill")
    return {"replica": f"keel-{n}", "pending_at_last_read": k["pending_at_last_read"],
            "read_to_kill_ms": k["read_to_kill_ms"], "hunted_s": k["hunted_s"],
            "takeovers": [f"{who}: {line[-220:]}" for who, _, line in seen],
            "lbs_written_on_killed": len(on_killed), "cut_lb_create_on_killed": cut_create,
            "proven": proven, "why_not": why}


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
    except OSError as e:
        if want:
            raise Unjudgeable(f"haproxy's access log {ACCESS_LOG} cannot be read ({e}): "
                              "which replica served each request is unknown") from e
    return out


def judge_cuts(cut, killed, errors=None):
    """The cut requests of a window with haproxy's view of each; `excused`: those haproxy
    sent to `killed` (the haproxy server a SIGKILL took down; None: excuse none)."""
    seen = access_log([rid for rid, _, _ in cut])
    rows = [{"id": rid, "op": op, "code": code, "error": (errors or {}).get(rid),
             **seen.get(rid, {"server": "not in haproxy's log"})} for rid, op, code in cut]
    for r in rows:
        r["excused"] = killed is not None and r["server"] == killed
    return rows, sum(r["excused"] for r in rows)


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
    """DB = NB by two judges: `keel ovn-db-sync --dry-run` (Keel's own planners replayed) and
    the NB oracle (ci/oracle/nb_oracle.py: the reference's mapping, not Keel's code, on the
    NB raft leader's rows, unfiltered: an orphan row counts). rc/differences hold both (the
    oracle's lines prefixed `oracle:`), so every `DB = NB` check judges both; an oracle that
    cannot run stops the run (Unjudgeable, exit 2)."""
    conf = next(f"{HA_STATE}/etc/keel-{n}.conf" for n in (1, 2, 3) if os.path.exists(f"{HA_STATE}/etc/keel-{n}.conf"))
    out = subprocess.run([keel_bin, "--config-file", conf, "ovn-db-sync", "--dry-run"],
                         capture_output=True, text=True, env={**E, "NO_COLOR": "1", "KEEL_LOG": "warn"})
    diffs = [ln for ln in out.stdout.splitlines() if ln.strip()]
    summary = [ln for ln in out.stderr.splitlines() if ln.startswith("ovn-db-sync:") or ln.startswith("skip")]
    oracle = nb_oracle()
    diffs += [f"oracle: {d}" for d in oracle["differences"] + oracle["orphans"]]
    rc = out.returncode or oracle["rc"]
    return {"rc": rc, "differences": diffs, "summary": summary,
            "oracle": {"rc": oracle["rc"], "lbs": oracle.get("lbs"), "differences": len(oracle["differences"]),
                       "orphans": len(oracle["orphans"])}}


ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle", "nb_oracle.py")
# the NB raft cluster's members (ci/ha/common.sh NB_PORTS); the oracle reads the leader's rows
HA_NB = ",".join(f"tcp:{HOST}:{p}" for p in (6651, 6652, 6653))
HA_DB_URL = (f"mysql://keel:{E.get('KEEL_DB_PASS', 'keel-db-pass')}@{HOST}:{E.get('HA_DB_PORT', '3310')}/"
             f"{E.get('HA_DB_NAME', 'keel')}")


def nb_oracle():
    """ci/oracle/nb_oracle.py on the HA database (Galera through haproxy), the NB raft
    leader and the HA Neutron. Unfiltered (every Octavia row of the NB cluster must be
    accounted for by this database) but for rows with no Octavia key (`--ignore-foreign`);
    HA_ORACLE_ARGS adds options (e.g. `--only-lbs-of-db` when another database's load
    balancers share the NB cluster, as after migrate.sh)."""
    tok = token("admin", E.get("ADMIN_PASS", "admin-pass"), "admin")
    cmd = [sys.executable, ORACLE, "--db", HA_DB_URL, "--nb", HA_NB, "--neutron-url", NEUTRON[: -len("/v2.0")],
           "--ignore-foreign"] + E.get("HA_ORACLE_ARGS", "").split()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                         env={**E, "KEEL_ORACLE_TOKEN": tok})
    if out.returncode == 2 or out.returncode not in (0, 1):
        raise Unjudgeable(f"the NB oracle cannot run (rc {out.returncode}): {out.stderr.strip()[-500:]}")
    try:
        r = json.loads(out.stdout)
    except ValueError as e:
        raise Unjudgeable(f"the NB oracle's output is not JSON: {e}: {out.stdout[-300:]}") from e
    r["rc"] = out.returncode
    return r


# Keel's sweep of a crashed LB create's VIP port: a replica lists the ports every 6
# periods and deletes a candidate about a lease after it first saw it; one period of slack.
SWEEP_BOUND = 6 * PERIOD + LEASE + 2 * PERIOD


def lbs_left(lbs):
    """{lb: provisioning_status} of the load balancers among `lbs` still in the database (not
    DELETED): every client deletes its load balancer at the end of its iteration."""
    ids = sorted(x for x in lbs if x and _UUID.fullmatch(x))
    if not ids:
        return {}
    q = "SELECT id, provisioning_status FROM load_balancer WHERE provisioning_status <> 'DELETED' AND id IN (" + \
        ", ".join(f"'{i}'" for i in ids) + ")"
    return dict(ln.split("\t") for ln in sql(q).splitlines() if "\t" in ln)


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
    ap.add_argument("--sigkill-attempts", type=int, default=3,
                    help="runs of a proving SIGKILL window until one lands on accepted work (then fail)")
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
    A fault with `proves` (kill_keel(SIGKILL, prove=True)) must show that its kill landed on
    accepted, unfinished work (kill_proof); a window that does not is run again, at most
    `a.sigkill_attempts` times in all (named `<name> #2`, …; every attempt's checks count).
    `after_window(name, result)` may add to each result. Returns the results."""
    results = []
    for name, fault in faults:
        attempts = max(1, getattr(a, "sigkill_attempts", 3)) if getattr(fault, "proves", False) else 1
        for attempt in range(1, attempts + 1):
            wname = name if attempt == 1 else f"{name} #{attempt}"
            r = window(a, wname, fault, demo, admin, net, subnet, rec, after_window)
            results.append(r)
            proof = r.get("kill_proof")
            if proof is None or proof["proven"]:
                break
            proof["final"] = attempt == attempts
            print(f"[fault {time.strftime('%H:%M:%S')}] {wname}: the kill is not proven to have landed on "
                  f"accepted work ({proof['why_not']}); attempt {attempt} of {attempts}", flush=True)
    return results


def window(a, name, fault, demo, admin, net, subnet, rec, after_window):
    rec.window = name
    stop = threading.Event()
    stats = collections.Counter()
    clients = [Client(i, rec, stop, demo, subnet, stats) for i in range(a.clients)]
    t_start = time.time()
    for c in clients:
        c.start()
    time.sleep(a.warm)
    t_fault = time.time()
    LAST_KILL.clear()
    try:
        what, killed = fault()
    except BaseException:
        stop.set()
        raise
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
    proof = kill_proof(rec, name, killed) if getattr(fault, "proves", False) and LAST_KILL else None
    created = {lb for _, op, lb, _ in rec.sent[name] if op == "LB create" and lb}
    remaining = lbs_left(created)
    orphans, swept_after = orphan_ports(admin, net), None
    if orphans and any(c["op"] == "LB create" and killed is not None and c["server"] == killed
                       for c in cuts):
        # an LB create SIGKILLed between its VIP port create and its commit: the port is
        # the surviving replicas' orphan sweep's (crates/service/src/recovery.rs), waited for
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
        "failures": dict(rec.failures[name]), "failure_first_seen": dict(rec.first[name]),
        "client_stats": dict(stats),
        # load balancers (or objects of their tree) a change left other than ACTIVE, as the
        # clients saw them, and the window's load balancers still in the database
        "not_active": rec.ended[name], "lbs_left": remaining,
        "pending_left": left, "sync": sync, "orphan_ports": orphans,
        "orphan_ports_swept_after": swept_after,
        # requests cut, each with the server haproxy's log sent it to; excused: those on
        # the replica a SIGKILL killed (a drain, SIGTERM, excuses none)
        "cut": cuts, "in_flight_on_killed": excused,
        "clients_alive": sum(c.is_alive() for c in clients),
    }
    if proof is not None:
        r["kill_proof"] = proof
    if after_window:
        after_window(name, r)
    print(json.dumps(r, indent=1), flush=True)
    return r


def excused(cause):
    return cause.startswith(("409 ", EXCUSED_503)) or is_cut(cause)


def problems(r):
    """Each failed check of one window's result, as a readable line (window, LB, what)."""
    w, out = r["fault"], []
    for e in r.get("not_active", []):
        out.append(f"{w}: LB {e['lb']}: {e['status']} after {e['after']} (seen {e['at']})")
    for lb, st in (r.get("lbs_left") or {}).items():
        out.append(f"{w}: LB {lb} still in the database ({st}) after its client deleted it / stopped")
    if r["pending_left"]:
        out.append(f"{w}: PENDING_* left {r['seconds']['pending_cleared_after_stop']} s after the clients stopped: "
                   f"{r['pending_left']}")
    if r["sync"]["differences"] or r["sync"]["rc"] != 0:
        out.append(f"{w}: ovn-db-sync --dry-run rc {r['sync']['rc']}, differences: {r['sync']['differences'][:5]}")
    if r["orphan_ports"]:
        out.append(f"{w}: orphan ports {r['orphan_ports']}")
    unexcused_cuts = [c for c in r["cut"] if not c.get("excused")]
    if unexcused_cuts:
        out.append(f"{w}: {len(unexcused_cuts)} cut request(s) not in flight on a SIGKILLed replica: "
                   f"{[(c['op'], c['code'], c['server'], c['id']) for c in unexcused_cuts][:5]}")
    for cause, n in r["failures"].items():
        if n > 0 and not excused(cause):
            out.append(f"{w}: {n} × {cause} (first: {r.get('failure_first_seen', {}).get(cause, '?')})")
    if r.get("clients_alive"):
        out.append(f"{w}: {r['clients_alive']} client(s) still running 240 s after the stop: not judged")
    proof = r.get("kill_proof")
    if proof and not proof["proven"] and proof.get("final"):
        out.append(f"{w}: no attempt proved the SIGKILL landed on accepted, unfinished work; last: {proof['why_not']}")
    return out


def summary(results, what="fault"):
    """Prints the table and every failed check; returns the number of failed checks."""
    print(f"\n{what} | ops | not 2xx (by cause) | of which cut on a SIGKILLed replica | not ACTIVE after a change"
          " | PENDING left / cleared after | sync diffs | orphan ports | SIGKILL on accepted work")
    every = []
    for r in results:
        fails = "; ".join(f"{n}× {c}" for c, n in sorted(r["failures"].items(), key=lambda x: -x[1]) if n) or "none"
        diffs = len(r["sync"]["differences"])
        proof = r.get("kill_proof")
        pr = "—" if proof is None else (
            f"proven: keel_provider_jobs_pending {proof['pending_at_last_read']:g} at {proof['read_to_kill_ms']} ms "
            f"before the kill; {len(proof['takeovers'])} takeover(s)" if proof["proven"] else
            f"NOT proven: {proof['why_not']}" + ("" if proof.get("final") else " (run again)"))
        print(f"{r['fault']} | {r['operations']} | {fails} | {r['in_flight_on_killed']} | "
              f"{len(r.get('not_active', [])) + len(r.get('lbs_left') or {})} | {r['pending_left'] or 0} / "
              f"{r['seconds']['pending_cleared_after_stop']} s | {diffs} | {len(r['orphan_ports'])} | {pr}")
        every += problems(r)
    if every:
        print(f"\nFAILED ({len(every)}):")
        for line in every:
            print(f"  {line}")
    return len(every)


def main():
    a = arguments().parse_args()
    os.makedirs(a.out, exist_ok=True)
    faults = [
        ("keel SIGKILL", kill_keel(signal.SIGKILL, prove=True)),
        ("keel SIGTERM", kill_keel(signal.SIGTERM)),
        ("NB leader kill", kill_nb_leader),
        ("Galera writer kill", kill_galera_writer),
        ("Neutron SIGSTOP 20 s", pause_neutron),
    ]
    if a.only:
        want = set(a.only.split(","))
        faults = [f for f in faults if f[0] in want]
    try:
        preflight(a.keel_bin, metrics=any(getattr(f, "proves", False) for _, f in faults))
        demo, admin, net, subnet = network("fault")
        rec = Record()
        results = windows(a, faults, demo, admin, net, subnet, rec)
    except Unjudgeable as e:
        print(f"\nfault.py CANNOT JUDGE (nothing passes by skipping): {e}", flush=True)
        sys.exit(2)
    requests.delete(f"{NEUTRON}/networks/{net}", headers={"X-Auth-Token": demo}, timeout=60)
    with open(f"{a.out}/results.json", "w") as f:
        json.dump({"results": results, "examples": rec.examples}, f, indent=1)
    sys.exit(1 if summary(results) else 0)


if __name__ == "__main__":
    main()
