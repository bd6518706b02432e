"""Lease takeover and drain checks on the HA topology (ci/ha/takeover.sh runs this with the
stack venv's python; fault.py's helpers). Three checks, each asserting on the database, the
NB (`keel ovn-db-sync --dry-run` and the NB oracle ci/oracle/nb_oracle.py — Keel's planners
and a mapping that is not Keel's code, both in fault.sync_dry_run —, the NB leader's rows) and
the replicas' metrics and logs:

frozen-member, frozen-delete: the NB raft members are paused (SIGSTOP) so that the provider
  work a request queues cannot finish; the request goes to keel-1 directly and is accepted
  (keel-1's `keel_provider_jobs_pending` > 0, the load balancer PENDING_* in the database);
  keel-1 is then frozen (SIGSTOP, not killed) and the NB resumed. Another replica must take
  the lease over (its log: `taking over accepted work lb=<the load balancer>`) and complete
  the work (member ACTIVE / load balancer DELETED). A later change is made through another
  replica (the member deleted), then keel-1 is resumed (SIGCONT) and watched for a lease + two
  recovery periods (and until its queue is empty): in that time nothing of the load balancer
  may change — its row (provisioning_status, updated_at: a lease renewal or a status report
  writes it), its children's provisioning_status, its NB rows (`_uuid`, `_version` on the NB
  raft leader) — and keel-1 may log no takeover, re-plan or error of it; its queue must be
  empty at the end (no work left whose lease it would renew). Then the member is still
  deleted, the load balancer ACTIVE (or gone), the NB equal to the database, no VIP port
  left, and exactly one replica, once, logged the takeover of the load balancer.
sigterm-in-flight: the NB paused, a member create accepted by keel-3 (its job pending), then
  SIGTERM to keel-3 while the job provably cannot finish (keel-3 still alive and its job
  pending one second after the signal); the NB resumed; keel-3 must finish the work itself
  (no replica logs a takeover of that load balancer), exit, and the member be ACTIVE.

Exit 0 when every check held; 2 when a judge cannot run (a missing tool or endpoint, named).
Timings are bounds, polled; the one wait that is not a poll is the watch after SIGCONT, whose
length is the point (what must not happen within it).
"""
import json
import os
import subprocess
import signal
import sys
import time
import uuid

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fault  # noqa: E402

H = fault.HOST
PORTS = {1: 9891, 2: 9892, 3: 9893}
TAKEOVER = fault.TAKEOVER
jobs_pending = fault.jobs_pending
log_size = fault.log_size
log_since = fault.log_since


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


def lb_status(lb):
    return fault.sql(f"SELECT provisioning_status FROM load_balancer WHERE id = '{lb}'")


def member_status(m):
    return fault.sql(f"SELECT provisioning_status FROM member WHERE id = '{m}'")


def nb_pids():
    return [fault.pid(f"nb{n}") for n in (1, 2, 3)]


def signal_all(pids, sig):
    for p in pids:
        os.kill(p, sig)


def takeovers_of(lb, offsets):
    """[(keel-N, line)] of every replica's `taking over accepted work` lines naming `lb`
    since `offsets`."""
    return [(f"keel-{n}", line) for n in (1, 2, 3) for who, line in fault.takeovers(n, offsets[n]) if who == lb]


def nb_leader():
    for n in (1, 2, 3):
        out = subprocess.run(["ovs-appctl", "-t", f"{fault.RUN}/nb{n}.ctl", "cluster/status", "OVN_Northbound"],
                             capture_output=True, text=True)
        if "Role: leader" in out.stdout:
            return n
    raise Failed("no NB raft member says it is the leader (ovs-appctl cluster/status)")


def nb_rows(lb):
    """[(_uuid, _version)] of the NB Load_Balancer rows named `lb`, read on the raft leader."""
    n = nb_leader()
    op = ["OVN_Northbound", {"op": "select", "table": "Load_Balancer", "where": [["name", "==", lb]],
                             "columns": ["_uuid", "_version"]}]
    out = subprocess.run(["ovsdb-client", "--timeout", "20", "transact", f"tcp:{H}:{6650 + n}", json.dumps(op)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise Failed(f"ovsdb-client transact on nb{n}: {out.stderr.strip()[:300]}")
    rows = json.loads(out.stdout)[0].get("rows", [])
    return sorted((r["_uuid"][1], r["_version"][1]) for r in rows)


def lb_state(lb):
    """What a stale replica could change of `lb`: its row's provisioning_status and
    updated_at, its children's provisioning_status, its NB rows' versions."""
    row = fault.sql(f"SELECT provisioning_status, updated_at FROM load_balancer WHERE id = '{lb}'")
    kids = fault.sql(
        f"SELECT 'listener', id, provisioning_status FROM listener WHERE load_balancer_id = '{lb}' UNION ALL "
        f"SELECT 'pool', id, provisioning_status FROM pool WHERE load_balancer_id = '{lb}' UNION ALL "
        f"SELECT 'member', m.id, m.provisioning_status FROM member m JOIN pool p ON p.id = m.pool_id "
        f"WHERE p.load_balancer_id = '{lb}' UNION ALL "
        f"SELECT 'health_monitor', h.id, h.provisioning_status FROM health_monitor h JOIN pool p ON "
        f"p.id = h.pool_id WHERE p.load_balancer_id = '{lb}'")
    return {"row": row, "children": sorted(kids.splitlines()), "nb": nb_rows(lb)}


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
        first = poll("another replica takes the lease over", bound, lambda: takeovers_of(lb, offsets))
        who = int(first[0][0].split("-")[1])
        check(who != 1, f"the takeover is logged by a live replica, not frozen keel-1: {first}")
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
        before = lb_state(lb)
        off_resume = log_size(1)
    finally:
        os.kill(k1, signal.SIGCONT)
    t_resumed = time.time()
    # The watch: a lease + two recovery periods after SIGCONT (and until keel-1's queue is
    # empty, at most 120 s), nothing of the load balancer may change. A renewal of its lease
    # or a status report by keel-1 writes the row's updated_at; re-driven provider work writes
    # its NB rows (a new _version) or its children's statuses.
    watch = fault.LEASE + 2 * fault.PERIOD
    t_empty = None
    while True:
        now = lb_state(lb)
        if now != before:
            lines = [ln for ln in log_since(1, off_resume).splitlines() if lb in ln][:5]
            raise Failed(f"LB {lb} changed {time.time() - t_resumed:.1f} s after keel-1 resumed (a stale replica "
                         f"renewed or re-drove its work): before {before}, now {now}; keel-1's lines naming it: {lines}")
        if t_empty is None and jobs_pending(1) == 0:
            t_empty = time.time()
            print(f"  keel-1 queue empty {t_empty - t_resumed:.1f} s after SIGCONT", flush=True)
        elapsed = time.time() - t_resumed
        if elapsed >= watch and (t_empty is not None or elapsed >= 120):
            break
        time.sleep(1)
    check(t_empty is not None, f"keel-1 holds no work whose lease it would renew: keel_provider_jobs_pending "
          f"{jobs_pending(1)} {time.time() - t_resumed:.0f} s after SIGCONT")
    check(now == before, f"LB {lb} unchanged for {time.time() - t_resumed:.0f} s after keel-1 resumed "
          f"(lease {fault.LEASE:g} s + 2 periods of {fault.PERIOD:g} s): {before}")
    resumed_log = log_since(1, off_resume)
    # (`… no longer waits for this work (taken over): not re-planned` is the stale job giving
    # up, as it should)
    redrive = [ln for ln in resumed_log.splitlines() if lb in ln and any(
        w in ln for w in (TAKEOVER, "re-planning from a fresh NB snapshot", "re-planned after an unknown outcome",
                          "queued by recovery"))]
    check(not redrive, f"keel-1 logged no takeover or re-plan of {lb} after it resumed: {redrive[:3]}")
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
    every = takeovers_of(lb, offsets)
    check(len(every) == 1, f"exactly one replica took LB {lb} over, once: {len(every)} takeover line(s) "
          f"{[(w, ln[-160:]) for w, ln in every]}")
    if case == "member":
        api(2, tok, "DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true")
        poll("cleanup", 60, lambda: lb_status(lb) in ("", "DELETED"))
    return {"case": case, "lb": lb, "taken_over_by": f"keel-{who}", "takeovers": len(every),
            "watched_after_sigcont_s": round(time.time() - t_resumed, 1)}


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
    taken = takeovers_of(lb, offsets)
    check(not taken, f"no replica took LB {lb} over (keel-3 finished it): {taken}")
    sync = fault.sync_dry_run(keel_bin)
    check(sync["rc"] == 0 and not sync["differences"], f"DB = NB after the drain: {sync}")
    fault.up()
    api(2, tok, "DELETE", f"/v2/lbaas/loadbalancers/{lb}?cascade=true")
    poll("cleanup", 60, lambda: lb_status(lb) in ("", "DELETED"))
    return {"case": "sigterm", "lb": lb}


def main():
    keel_bin = sys.argv[1]
    only = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else ["member", "delete", "sigterm"]
    try:
        fault.preflight(keel_bin, tools=("mariadb", "ovs-appctl", "ovsdb-client", "ps"), metrics=True)
    except fault.Unjudgeable as e:
        print(f"takeover.py CANNOT JUDGE (nothing passes by skipping): {e}", flush=True)
        sys.exit(2)
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
