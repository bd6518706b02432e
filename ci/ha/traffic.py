"""Traffic through a load balancer of the HA topology while its control plane fails
(ci/ha/traffic.sh runs it with the stack venv's python).

On the topology's data plane (dataplane.sh: ovn-controller as a chassis of the SB raft
cluster), two member VMs and a client VM on one tenant network; through haproxy's API a load
balancer with a TCP listener, a SOURCE_IP_PORT pool, both members and a TCP health monitor.
Then one window per fault: the client opens a connection to the VIP every 100 ms (a bounded
loop), the fault lands a few seconds in (the NB raft leader SIGKILLed, the SB raft leader
SIGKILLed, the Keel replica holding the agent lock SIGKILLed), the loop ends, `up.sh` restarts
what died; then the control plane must work again (a member set admin-down through the API:
ACTIVE, and traffic leaves it; set up again: both answer). Last, the health monitor by real
probes: a member's server stopped -> ERROR and no traffic to it, started -> ONLINE.

Checks: no connection failed in any window (the data plane does not depend on the NB, the SB
or Keel while nothing changes), every control-plane step reached ACTIVE within its bound, the
health monitor's transitions happened within their bound. Output: a summary and results.json.
`Plane` is also used by migrate.py (a member's health reported whichever agent is active).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fault  # noqa: E402

HA_DIR = os.path.dirname(os.path.abspath(__file__))
DP = f"{HA_DIR}/dataplane.sh"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}  # dataplane.sh: admin


def dp(*args, timeout=180):
    out = subprocess.run([DP, *map(str, args)], capture_output=True, text=True, timeout=timeout, env=ENV)
    if out.returncode != 0:
        raise RuntimeError(f"dataplane.sh {' '.join(map(str, args))}: {(out.stdout + out.stderr)[-1500:]}")
    return out.stdout


def tally(lines):
    """Probe output lines -> (ok by answer, failures by reason)."""
    ok, fail = {}, {}
    for ln in lines:
        if ln.startswith("ok "):
            ok[ln[3:]] = ok.get(ln[3:], 0) + 1
        elif ln.startswith("fail "):
            fail[ln[5:]] = fail.get(ln[5:], 0) + 1
    return ok, fail


class Plane:
    """Three VMs (m1, m2: members serving TCP 80; c1: the client) on a fresh demo network, and
    one load balancer made through the API: TCP listener 80, SOURCE_IP_PORT pool, both
    members, a TCP health monitor (delay 2 s, 2 retries down)."""

    def __init__(self, tag="tr"):
        self.tag, self.router, self.lb, self.vms = tag, None, None, {}
        self.demo, self.admin, self.net, self.subnet = fault.network(tag)
        self.h = {"X-Auth-Token": self.demo}

    def setup(self):
        """Everything above, made in order; `close` removes what was made, also after a failure."""
        tag = self.tag
        # the router's load-balancer neighbour responder answers ARP for the VIP (a subnet
        # without a router has no one to answer it, with Keel as with the reference)
        self.router = self.neutron("POST", "/routers", {"router": {"name": f"ha-{tag}"}})["router"]["id"]
        self.neutron("PUT", f"/routers/{self.router}/add_router_interface", {"subnet_id": self.subnet})
        for name in ("m1", "m2", "c1"):
            self.vms[name] = None
            line = dp("vm", name, self.net).strip().splitlines()[-1]
            self.vms[name] = dict(w.split("=", 1) for w in line.split()[1:])["ips"].split(",")[0]
        for name in ("m1", "m2"):
            dp("serve", name, "tcp", 80)
        self.lb = self.post("loadbalancers", {"loadbalancer": {
            "vip_subnet_id": self.subnet, "provider": "ovn", "name": f"ha-{tag}"}})["loadbalancer"]
        self.vip = self.lb["vip_address"]
        self.wait_active()
        self.listener = self.post("listeners", {"listener": {
            "loadbalancer_id": self.lb["id"], "protocol": "TCP", "protocol_port": 80}})["listener"]["id"]
        self.wait_active()
        self.pool = self.post("pools", {"pool": {
            "listener_id": self.listener, "protocol": "TCP", "lb_algorithm": "SOURCE_IP_PORT"}})["pool"]["id"]
        self.wait_active()
        self.members = {}
        for name in ("m1", "m2"):
            self.members[name] = self.post(f"pools/{self.pool}/members", {"member": {
                "address": self.vms[name], "protocol_port": 80, "subnet_id": self.subnet,
                "name": name}})["member"]["id"]
            self.wait_active()
        self.post("healthmonitors", {"healthmonitor": {
            "pool_id": self.pool, "type": "TCP", "delay": 2, "timeout": 1, "max_retries": 2,
            "max_retries_down": 2}})
        self.wait_active()

    def neutron(self, method, path, body=None):
        r = requests.request(method, f"{fault.NEUTRON}{path}", json=body, headers=self.h, timeout=60)
        if r.status_code not in (200, 201, 204):
            raise RuntimeError(f"Neutron {method} {path}: {r.status_code} {r.text[:300]}")
        return r.json() if r.content else {}

    def post(self, path, body):
        for _ in range(30):
            r = requests.post(f"{fault.API}/v2/lbaas/{path}", json=body, headers=self.h, timeout=60)
            if r.status_code == 201:
                return r.json()
            if r.status_code not in (409, 503):
                raise RuntimeError(f"POST {path}: {r.status_code} {r.text[:300]}")
            time.sleep(1)
        raise RuntimeError(f"POST {path}: still {r.status_code} after 30 tries")

    def put_member(self, name, body):
        r = requests.put(f"{fault.API}/v2/lbaas/pools/{self.pool}/members/{self.members[name]}",
                         json={"member": body}, headers=self.h, timeout=60)
        if r.status_code != 200:
            raise RuntimeError(f"PUT member {name}: {r.status_code} {r.text[:300]}")

    def status(self):
        r = requests.get(f"{fault.API}/v2/lbaas/loadbalancers/{self.lb['id']}/status",
                         headers=self.h, timeout=60)
        r.raise_for_status()
        return r.json()["statuses"]["loadbalancer"]

    def lb_status(self):
        r = requests.get(f"{fault.API}/v2/lbaas/loadbalancers/{self.lb['id']}", headers=self.h, timeout=60)
        r.raise_for_status()
        return r.json()["loadbalancer"]["provisioning_status"]

    def wait_active(self, bound=120):
        t0 = time.time()
        while time.time() < t0 + bound:
            try:
                st = self.lb_status()
            except requests.RequestException:
                st = "unreachable"
            if st == "ACTIVE":
                return round(time.time() - t0, 2)
            if st == "ERROR":
                raise RuntimeError("the load balancer went ERROR")
            time.sleep(0.2)
        raise RuntimeError(f"the load balancer not ACTIVE within {bound} s")

    def member_status(self, name):
        for m in self.status()["listeners"][0]["pools"][0]["members"]:
            if m["id"] == self.members[name]:
                return m["operating_status"]
        return None

    def wait_member(self, name, want, bound):
        t0 = time.time()
        while time.time() < t0 + bound:
            try:
                if self.member_status(name) == want:
                    return round(time.time() - t0, 1)
            except (requests.RequestException, KeyError, IndexError):
                pass
            time.sleep(0.5)
        raise RuntimeError(f"member {name} not {want} within {bound} s (now {self.member_status(name)})")

    def probe(self, count=20, interval_ms=50, timeout_ms=2000):
        out = dp("probe", "c1", "tcp", self.vip, 80, count, interval_ms, timeout_ms, timeout=count * 3 + 30)
        return tally(out.splitlines())

    def wait_who(self, want, bound=60):
        """Until 10 connections in a row reach exactly the members `want` and fail none."""
        t0 = time.time()
        while time.time() < t0 + bound:
            ok, failed = self.probe(10, 20, 1000)
            if not failed and set(ok) == set(want):
                return round(time.time() - t0, 2)
            time.sleep(0.3)
        raise RuntimeError(f"not only {sorted(want)} answering within {bound} s (last: {ok} {failed})")

    def health_round(self, bound=60, traffic=True):
        """m2's server stopped -> ERROR (and, with `traffic`, connections only to m1); started
        -> ONLINE (and both answer). Returns the seconds of each transition."""
        dp("stop", "m2", "tcp", 80)
        t = {"stop -> ERROR": self.wait_member("m2", "ERROR", bound)}
        if traffic:
            t["ERROR -> only m1 answers"] = self.wait_who(["m1"])
        dp("serve", "m2", "tcp", 80)
        t["start -> ONLINE"] = self.wait_member("m2", "ONLINE", bound)
        if traffic:
            t["ONLINE -> both answer"] = self.wait_who(["m1", "m2"])
        return t

    def close(self):
        if self.lb:
            requests.delete(f"{fault.API}/v2/lbaas/loadbalancers/{self.lb['id']}?cascade=true",
                            headers=self.h, timeout=60)
        for name in list(self.vms):
            try:
                dp("rm", name)
            except RuntimeError as e:
                print(f"cleanup: {e}", file=sys.stderr)
        t0 = time.time()
        while self.lb and time.time() < t0 + 120 and not self.lb_gone():
            time.sleep(1)
        steps = [("PUT", f"/routers/{self.router}/remove_router_interface", {"subnet_id": self.subnet}),
                 ("DELETE", f"/routers/{self.router}", None)] if self.router else []
        for method, path, body in steps + [("DELETE", f"/networks/{self.net}", None)]:
            try:
                self.neutron(method, path, body)
            except (RuntimeError, requests.RequestException) as e:
                print(f"cleanup: {e}", file=sys.stderr)

    def lb_gone(self):
        r = requests.get(f"{fault.API}/v2/lbaas/loadbalancers/{self.lb['id']}", headers=self.h, timeout=60)
        return r.status_code == 404 or r.json()["loadbalancer"]["provisioning_status"] == "DELETED"


def kill_sb_leader():
    for n in (1, 2, 3):
        out = subprocess.run(["ovs-appctl", "-t", f"{fault.RUN}/sb{n}.ctl", "cluster/status", "OVN_Southbound"],
                             capture_output=True, text=True)
        if "Role: leader" in out.stdout:
            p = fault.pid(f"sb{n}")
            os.kill(p, signal.SIGKILL)
            return f"sb{n} (pid {p})", None
    raise RuntimeError("no SB leader found")


class Evidence:
    """What the control plane changed around a fault, for a window that lost connections:
    timestamped `ovsdb-client monitor` of the SB's `Service_Monitor` and of each NB member's
    `Load_Balancer` and `Load_Balancer_Health_Check`, and ovs-vswitchd's PID before and after (a crashed and
    restarted vswitchd drops every connection for its restart)."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.vswitchd = dp("vswitchd-pid").strip()
        self.procs = []
        sb = ["SB", os.environ["HA_SB"].split(",")[0], "OVN_Southbound", "Service_Monitor"]
        nbs = [[f"NB{i}", remote, "OVN_Northbound", "Load_Balancer", "Load_Balancer_Health_Check"]
               for i, remote in enumerate(os.environ["HA_NB"].split(","), 1)]
        for tag, remote, db, *tables in [sb, *nbs]:
            for t in tables:
                f = open(f"{prefix}-{tag}-{t}.txt", "w")
                self.procs.append((subprocess.Popen(["ovsdb-client", "--timestamp", "monitor", remote, db, t],
                                                    stdout=f, stderr=subprocess.STDOUT), f))

    def stop(self, t_fault):
        for p, f in self.procs:
            p.terminate()
            p.wait(timeout=10)
            f.close()
        after = dp("vswitchd-pid").strip()
        return {"vswitchd pid before/after": [self.vswitchd, after],
                "fault at": time.strftime("%H:%M:%S", time.localtime(t_fault)) + f".{int(t_fault % 1 * 1000):03d}",
                "monitors": f"{self.prefix}-*.txt"}


def window(plane, name, fault_fn, seconds, at, out):
    """Connections every 100 ms for `seconds`, the fault `at` seconds in; up.sh; then the
    control-plane check. Returns the window's result."""
    count = int(seconds * 10)
    lines, stamped = [], []
    proc = subprocess.Popen([DP, "probe", "c1", "tcp", plane.vip, "80", str(count), "100", "1000"],
                            stdout=subprocess.PIPE, text=True, env=ENV)

    def read():
        for line in proc.stdout:
            lines.append(line)
            stamped.append((time.time(), line.strip()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    evidence = Evidence(f"{out}/{name.split()[0].lower()}")
    time.sleep(at)
    what, _ = fault_fn()
    t_fault = time.time()
    print(f"[traffic {time.strftime('%H:%M:%S')}] {name}: {what}", flush=True)
    proc.wait(timeout=count * 2 + 60)
    reader.join(timeout=10)
    ok, failed = tally(lines)
    fault.up()
    r = {"fault": name, "target": what, "connections": sum(ok.values()) + sum(failed.values()),
         "by_member": ok, "failed": failed, "up_after_s": round(time.time() - t_fault, 1)}
    # when each connection failed, seconds after the fault (a failed one reports when it gave up)
    r["failed at s"] = [round(t - t_fault, 2) for t, line in stamped if not line.startswith(("ok ", "#"))]
    r.update(evidence.stop(t_fault))
    # the control plane after the fault: a member taken out and put back through the API
    try:
        plane.put_member("m2", {"admin_state_up": False})
        r["member down: ACTIVE s"] = plane.wait_active()
        r["member down: traffic only m1 s"] = plane.wait_who(["m1"])
        plane.put_member("m2", {"admin_state_up": True})
        r["member up: ACTIVE s"] = plane.wait_active()
        r["member up: both answer s"] = plane.wait_who(["m1", "m2"])
    except (RuntimeError, requests.RequestException) as e:
        r["control plane error"] = str(e)
    print(json.dumps(r), flush=True)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30, help="length of each window's connection loop")
    ap.add_argument("--at", type=float, default=8, help="seconds into the loop the fault lands")
    ap.add_argument("--only", default="", help="comma-separated fault names")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    faults = [("NB leader kill", fault.kill_nb_leader), ("SB leader kill", kill_sb_leader),
              ("keel SIGKILL (agent holder)", fault.kill_keel(signal.SIGKILL))]
    if a.only:
        faults = [f for f in faults if f[0] in set(a.only.split(","))]
    t0 = time.time()
    plane = Plane()
    res = {"windows": [], "health": None}
    try:
        plane.setup()
        res.update({"setup_s": round(time.time() - t0, 1), "vip": plane.vip})
        res["first answers from both s"] = plane.wait_who(["m1", "m2"])
        res["health: initial ONLINE s"] = plane.wait_member("m2", "ONLINE", 60)
        for name, fn in faults:
            res["windows"].append(window(plane, name, fn, a.seconds, a.at, a.out))
        res["health"] = plane.health_round()
    except (RuntimeError, requests.RequestException) as e:
        res["error"] = str(e)
    finally:
        plane.close()
    with open(f"{a.out}/results.json", "w") as f:
        json.dump(res, f, indent=1)
    bad = bool(res.get("error"))
    print("\nfault | connections | failed | by member | control plane after")
    for w in res["windows"]:
        nfail = sum(w["failed"].values())
        bad = bad or nfail > 0 or "control plane error" in w
        cp = w.get("control plane error") or (f"member down {w['member down: traffic only m1 s']} s, "
                                               f"up {w['member up: both answer s']} s")
        print(f"{w['fault']} | {w['connections']} | {nfail} {w['failed'] or ''} | {w['by_member']} | {cp}")
    print(f"health monitor: {res['health']}; error: {res.get('error')}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
