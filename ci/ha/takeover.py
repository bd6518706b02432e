"""Lease takeover and drain checks on the HA topology (ci/ha/takeover.sh runs this with the
stack venv's python; fault.py's helpers). Three checks, each asserting on the database, the
NB (`keel ovn-db-sync --dry-run`) and the replicas' metrics and logs:

frozen-member, frozen-delete: the NB raft members are paused (SIGSTOP) so that the provider
  work a request queues cannot finish; the request goes to keel-1 directly and is accepted
  (keel-1's `keel_provider_jobs_pending` > 0, the load balancer PENDING_* in the database);
  keel-1 is then frozen (SIGSTOP, not killed) and the NB resumed. Another replica must take
  the lease over (its log: `taking over accepted work`, the load balancer's id) and complete
  the work (member ACTIVE / load balancer DELETED). A later change is made through another
  replica (the member deleted), then keel-1 is resumed (SIGCONT): once its queue is empty
  nothing may be undone or applied twice — the member stays deleted, the load balancer ACTIVE
  (or gone), the NB equal to the database, no VIP port left.
sigterm-in-flight: the NB paused, a member create accepted by keel-3 (its job pending), then
  SIGTERM to keel-3 while the job provably cannot finish (keel-3 still alive and its job
  pending one second after the signal); the NB resumed; keel-3 must finish the work itself
  (no other replica logs a takeover of that load balancer), exit, and the member be ACTIVE.

Exit 0 when every check held. Timings are bounds, polled, never sleeps standing in for a
condition.
"""
import json
import os
import signal
import sys
import time
import uuid

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fault  # noqa: E402

H = fault.HOST
PORTS = {1: 9891, 2: 9892, 3: 9893}
METRICS = {n: int(fault.E.get("HA_API_PORT", "9886")) + n for n in (1, 2, 3)}
TAKEOVER = "taking over accepted work"


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)
    print(f"  ok: {what}", flush=True)


def poll(what, bound, fn):
    """fn() until it returns a truthy value, at most `bound` seconds."""
    deadline = time.time() + bound
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.25)
    raise Failed(f"{what}: not within {bound} s (last {last!r})")


def api(n, tok, method, path, body=None):
    r = requests.request(method, f"http://{H}:{PORTS[n]}{path}", json=body, timeout=60,
                         headers={"X-Auth-Token": tok})
    try:
        return r.status_code, r.json()
    except ValueError:
        return r.status_code, {}


def jobs_pending(n):
    try:
        text = requests.get(f"http://{H}:{METRICS[n]}/metrics", timeout=5).text
    except requests.RequestException:
        return None
    for line in text.splitlines():
        if line.startswith("keel_provider_jobs_pending "):
            return float(line.split()[1])
    return None


def lb_status(lb):
    return fault.sql(f"SELECT provisioning_status FROM load_balancer WHERE id = '{lb}'")


def member_status(m):
    return fault.sql(f"SELECT provisioning_status FROM member WHERE id = '{m}'")


def nb_pids():
    return [fault.pid(f"nb{n}") for n in (1, 2, 3)]


def signal_all(pids, sig):
    for p in pids:
        os.kill(p, sig)


def log_size(n):
    try:
        return os.path.getsize(f"{fault.HA_STATE}/log/keel-{n}.log")
    except OSError:
        return 0


def log_since(n, offset):
    with open(f"{fault.HA_STATE}/log/keel-{n}.log", errors="replace") as f:
        f.seek(offset)
        return f.read()


def wait_active(n, tok, lb, bound=90):
    return poll(f"LB {lb} ACTIVE", bound, lambda: lb_status(lb) == "ACTIVE")


def make_lb(tok, subnet, name):
    code, doc = api(2, tok, "POST", "/v2/lbaas/loadbalancers",
                    {"loadbalancer": {"vip_subnet_id": subnet, "provider": "ovn", "name": name}})
    check(code == 201, f"LB create via keel-2: {code}")
    lb = doc["loadbalancer"]["id"]
    wait_active(2, tok, lb)
    code, doc = api(2, tok, "POST", "/v2/lbaas/listeners",
                    {"listener": {"loadbalancer_id": lb, "protocol": "TCP", "protocol_port": 80}})
    check(code == 201, f"listener create: {code}")
    wait_active(2, tok, lb)
    code, doc = api(2, tok, "POST", "/v2/lbaas/pools",
                    {"pool": {"listener_id": doc["listener"]["id"], "protocol": "TCP",
                              "lb_algorithm": "SOURCE_IP_PORT"}})
    check(code == 201, f"pool create: {code}")
    wait_active(2, tok, lb)
    return lb, doc["pool"]["id"]


def accept_with_nb_paused(n, tok, method, path, body, lb):
    """Pauses the NB, sends the request to keel-N, waits for its job to be pending; returns
    the answer's code and body. The NB stays paused (the caller resumes it)."""
    base = jobs_pending(n) or 0
    signal_all(nb_pids(), signal.SIGSTOP)
    try:
        code, doc = api(n, tok, method, path, body)
        check(code in (201, 202, 204), f"{method} {path} accepted by keel-{n} with the NB paused: {code}")
        poll(f"keel-{n} provider job pending", 10, lambda: (jobs_pending(n) or 0) > base)
        check(lb_status(lb).startswith("PENDING_"), f"LB {lb} is {lb_status(lb)} while keel-{n}'s job waits")
        return code, doc
    except BaseException:
        signal_all(nb_pids(), signal.SIGCONT)
        raise


def frozen(tok, subnet, case, keel_bin, bound):
    lb, pool = make_lb(tok, subnet, f"takeover-{case}")
    offsets = {n: log_size(n) for n in (1, 2, 3)}
    k1 = fault.pid("keel-1")
    if case == "member":
        code, doc = accept_with_nb_paused(1, tok, "POST", f"/v2/lbaas/pools/{pool}/members",
                                          {"member": {"address": "10.9.7.7", "protocol_port": 8080,
                                                      "subnet_id": subnet}}, lb)
        member = doc["member"]["id"]
    else:
        accept_with_nb_paused(1, tok, "DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true", None, lb)
        member = None
    os.kill(k1, signal.SIGSTOP)
    t_frozen = time.time()
    signal_all(nb_pids(), signal.SIGCONT)
    try:
        check(lb_status(lb).startswith("PENDING_"), f"keel-1 frozen holding {lb} {lb_status(lb)}")
        who = poll("another replica takes the lease over", bound, lambda: next(
            (n for n in (2, 3) if TAKEOVER in log_since(n, offsets[n]) and lb in log_since(n, offsets[n])), None))
        print(f"  keel-{who} took {lb} over {time.time() - t_frozen:.1f} s after keel-1 froze", flush=True)
        if case == "member":
            poll("LB ACTIVE after the takeover", 60, lambda: lb_status(lb) == "ACTIVE")
            check(member_status(member) == "ACTIVE", f"member {member} ACTIVE after the takeover")
            # a later change through the live replica, which keel-1's stale work must not undo
            code, _ = api(who, tok, "DELETE", f"/v2/lbaas/pools/{pool}/members/{member}")
            check(code == 204, f"member delete via keel-{who}: {code}")
            poll("member deleted", 60, lambda: member_status(member) == "" and lb_status(lb) == "ACTIVE")
        else:
            poll("LB DELETED (gone) after the takeover", 60, lambda: lb_status(lb) in ("", "DELETED"))
        sync = fault.sync_dry_run(keel_bin)
        check(sync["rc"] == 0 and not sync["differences"], f"DB = NB before keel-1 resumes: {sync}")
    finally:
        os.kill(k1, signal.SIGCONT)
    t_resumed = time.time()
    poll("keel-1's queue empty after SIGCONT", 120, lambda: jobs_pending(1) == 0)
    print(f"  keel-1 queue empty {time.time() - t_resumed:.1f} s after SIGCONT", flush=True)
    # keel-1's recovery and renewals run on after its queue drained: let one period pass in
    # which it does something observable (a log line) before judging, bounded
    after = log_since(1, offsets[1])
    if case == "member":
        check(member_status(member) == "", "the member stays deleted after keel-1 resumed")
        check(lb_status(lb) == "ACTIVE", f"LB ACTIVE after keel-1 resumed: {lb_status(lb)}")
    else:
        check(lb_status(lb) in ("", "DELETED"), f"LB stays deleted after keel-1 resumed: {lb_status(lb)!r}")
    sync = fault.sync_dry_run(keel_bin)
    check(sync["rc"] == 0 and not sync["differences"], f"DB = NB after keel-1 resumed: {sync}")
    errors = [ln for ln in after.splitlines() if " ERROR " in ln or "panicked" in ln]
    check(not errors, f"keel-1 logged no error after it resumed: {errors[:3]}")
    if case == "member":
        api(2, tok, "DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true")
        poll("cleanup", 60, lambda: lb_status(lb) in ("", "DELETED"))
    return {"case": case, "lb": lb, "taken_over_by": f"keel-{who}"}


def sigterm_in_flight(tok, subnet, keel_bin):
    lb, pool = make_lb(tok, subnet, "takeover-sigterm")
    offsets = {n: log_size(n) for n in (1, 2, 3)}
    k3 = fault.pid("keel-3")
    code, doc = accept_with_nb_paused(3, tok, "POST", f"/v2/lbaas/pools/{pool}/members",
                                      {"member": {"address": "10.9.8.8", "protocol_port": 8080,
                                                  "subnet_id": subnet}}, lb)
    member = doc["member"]["id"]
    try:
        os.kill(k3, signal.SIGTERM)
        t_term = time.time()
        # the signal landed while the accepted job cannot finish: one second later keel-3 is
        # still draining and its job still pending (the NB is paused)
        time.sleep(1)
        check(os.path.exists(f"/proc/{k3}") and (jobs_pending(3) or 0) >= 1,
              "keel-3 draining with its job pending 1 s after SIGTERM")
        check(lb_status(lb).startswith("PENDING_"), f"LB {lb_status(lb)} when the NB resumes")
    finally:
        signal_all(nb_pids(), signal.SIGCONT)

    def exited():
        try:
            return open(f"/proc/{k3}/stat").read().split()[2] == "Z"
        except OSError:
            return True
    poll("keel-3 exits after its drain", 90, exited)
    print(f"  keel-3 exited {time.time() - t_term:.1f} s after SIGTERM", flush=True)
    check(lb_status(lb) == "ACTIVE" and member_status(member) == "ACTIVE",
          f"LB {lb_status(lb)}, member {member_status(member)} after the drain")
    log3 = log_since(3, offsets[3])
    check("stopping: no new requests" in log3 and "left to recovery" not in log3,
          "keel-3 logged its drain and left nothing to recovery")
    check(all(lb not in log_since(n, offsets[n]) or TAKEOVER not in log_since(n, offsets[n]) for n in (1, 2)),
          "no other replica took the work over")
    sync = fault.sync_dry_run(keel_bin)
    check(sync["rc"] == 0 and not sync["differences"], f"DB = NB after the drain: {sync}")
    fault.up()
    api(2, tok, "DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true")
    poll("cleanup", 60, lambda: lb_status(lb) in ("", "DELETED"))
    return {"case": "sigterm", "lb": lb}


def main():
    keel_bin = sys.argv[1]
    only = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else ["member", "delete", "sigterm"]
    demo = fault.token("demo", fault.E.get("DEMO_PASS", "demo-pass"), "demo")
    admin = fault.token("admin", fault.E.get("ADMIN_PASS", "admin-pass"), "admin")
    h = {"X-Auth-Token": demo}
    tag = uuid.uuid4().hex[:6]
    net = requests.post(f"{fault.NEUTRON}/networks", json={"network": {"name": f"ha-takeover-{tag}"}},
                        headers=h, timeout=60).json()["network"]["id"]
    subnet = requests.post(f"{fault.NEUTRON}/subnets", json={"subnet": {
        "network_id": net, "cidr": "10.9.0.0/16", "ip_version": 4, "name": f"ha-takeover-{tag}"}},
        headers=h, timeout=60).json()["subnet"]["id"]
    # bound for the takeover: the lease, a recovery period, slack for the work
    bound = float(fault.E.get("HA_RECOVERY_LEASE") or 30) + float(fault.E.get("HA_RECOVERY_PERIOD") or 10) + 60
    results, failed = [], []
    for case in only:
        print(f"[{time.strftime('%H:%M:%S')}] {case}", flush=True)
        t0 = time.time()
        try:
            r = sigterm_in_flight(demo, subnet, keel_bin) if case == "sigterm" else \
                frozen(demo, subnet, case, keel_bin, bound)
            r["seconds"] = round(time.time() - t0, 1)
            results.append(r)
        except Failed as e:
            print(f"  FAILED: {e}", flush=True)
            failed.append(f"{case}: {e}")
            for n in (1, 2, 3):  # never leave a paused process behind
                for p in [fault.pid(f"keel-{n}")] + nb_pids():
                    try:
                        os.kill(p, signal.SIGCONT)
                    except (OSError, TypeError):
                        pass
            fault.up()
    orphans = fault.orphan_ports(admin, net)
    if orphans:
        failed.append(f"orphan ports: {orphans}")
    requests.delete(f"{fault.NEUTRON}/networks/{net}", headers=h, timeout=60)
    print(json.dumps({"results": results, "failed": failed}, indent=1))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
