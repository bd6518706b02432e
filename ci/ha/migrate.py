"""The migration run (ci/ha/migrate.sh runs it with the stack venv's python): from three
Python octavia-api replicas and the Python driver agent to three Keel replicas and Keel's
agent, one replica at a time, and one Keel replica back to Python, under fault.py's four
clients. Each step is one of fault.py's windows (load, the step, more load, the clients
stopped, the checks: nothing PENDING_*, every change ACTIVE, `keel ovn-db-sync --dry-run`
without difference, no orphan port, only 2xx / 409 answers (no window here excuses a 503) —
an answer of the Python replicas' own, such as their Galera deadlock 500s, and a load
balancer a Python replica last changed, are reported apart) with no cut excused: a replace drains
the replica in haproxy (`set server … state drain`, then waits for its sessions to end)
before stopping it, so no request may be cut.

Per step it also reports how many client operations were served by one kind on a load
balancer the other kind created (haproxy's access log gives the replica of every request;
the step timeline gives the kind of each replica at that time), and whether a member's
health is reported whichever agent is active: on the topology's data plane, a load balancer
made before the first step (by the Python replicas) with two member VMs and a TCP health
monitor (traffic.py's `Plane`); after every step one member's server is stopped (the member
must turn ERROR) and started again (ONLINE), by real probes of ovn-controller.
"""
import json
import os
import socket
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fault  # noqa: E402
import traffic  # noqa: E402

HA_DIR = os.path.dirname(os.path.abspath(__file__))
SOCK = f"{fault.RUN}/haproxy.sock"
# slot -> [(since, kind)]: which kind served haproxy's server keelN from when
TIMELINE = {n: [(0.0, "py")] for n in (1, 2, 3)}
STEPS = []  # per step: what the replace took, seconds


def haproxy(cmd):
    s = socket.socket(socket.AF_UNIX)
    s.connect(SOCK)
    s.sendall(cmd.encode() + b"\n")
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    s.close()
    return out.decode()


def server_stat(n):
    """haproxy's `show stat` row of keel/keelN as a dict (scur = current sessions)."""
    lines = haproxy("show stat").splitlines()
    head = lines[0].lstrip("# ").split(",")
    for ln in lines[1:]:
        row = dict(zip(head, ln.split(",")))
        if row.get("pxname") == "keel" and row.get("svname") == f"keel{n}":
            return row
    raise RuntimeError(f"haproxy has no keel/keel{n}")


def slot(*args):
    out = subprocess.run([f"{HA_DIR}/slot.sh", *map(str, args)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"slot.sh {' '.join(map(str, args))}: {(out.stdout + out.stderr)[-1500:]}")
    return out.stdout.strip().splitlines()[-1]


def poll(what, bound, fn):
    deadline = time.time() + bound
    while time.time() < deadline:
        if fn():
            return time.time()
        time.sleep(0.2)
    raise RuntimeError(f"{what}: not within {bound} s")


def replace(n, old, new):
    """Drains slot n in haproxy, stops its `old` replica, starts a `new` one, puts it back."""
    def step():
        t0 = time.time()
        haproxy(f"set server keel/keel{n} state drain")
        poll(f"keel{n} drained", 180, lambda: server_stat(n)["scur"] == "0" and server_stat(n)["qcur"] in ("0", ""))
        t_drained = time.time()
        haproxy(f"set server keel/keel{n} state maint")
        stopped = slot("stop", f"{old}-{n}")
        t_stopped = time.time()
        started = slot("start", new, n)
        TIMELINE[n].append((time.time(), new))
        haproxy(f"set server keel/keel{n} state ready")
        poll(f"keel{n} UP in haproxy", 60, lambda: server_stat(n)["status"] == "UP")
        t_up = time.time()
        STEPS.append({"slot": n, "from": old, "to": new, "drain_s": round(t_drained - t0, 1),
                      "stop_s": round(t_stopped - t_drained, 1), "start_s": round(t_up - t_stopped, 1),
                      "stop": stopped, "start": started})
        return f"slot {n}: {old} → {new} (drained {t_drained - t0:.1f} s, stopped {t_stopped - t_drained:.1f} s, " \
               f"new one UP {t_up - t_stopped:.1f} s)", None
    return step


def agent(action):
    def step():
        t0 = time.time()
        out = slot(action, "py-agent")
        STEPS.append({"agent": action, "s": round(time.time() - t0, 1), "out": out})
        return f"Python driver agent: {action} ({time.time() - t0:.1f} s)", None
    return step


def rollback(n):
    start_agent, back = agent("start"), replace(n, "keel", "py")

    def step():
        a, _ = start_agent()  # a Python API replica reports statuses through the driver agent
        b, _ = back()
        return f"{a}; {b}", None
    return step


def baseline():
    return "no change (3 Python replicas, the Python agent)", None


def kind_at(server, t):
    n = int(server.rsplit("keel", 1)[1]) if server and server.startswith("keel/keel") else None
    if n is None:
        return None
    kind = None
    for since, k in TIMELINE[n]:
        if since <= t:
            kind = k
    return kind


def cross_kind(rec):
    """after_window hook: operations served by one kind on a load balancer the other made."""
    def hook(name, r):
        sent = rec.sent[name]
        where = fault.access_log([rid for rid, _, _, _ in sent])
        creator, cross, by_kind = {}, {}, {}
        for rid, op, lb, t0 in sent:
            k = kind_at((where.get(rid) or {}).get("server"), t0)
            by_kind[k or "?"] = by_kind.get(k or "?", 0) + 1
            if op == "LB create" and lb:
                creator[lb] = k
        for rid, op, lb, t0 in sent:
            k = kind_at((where.get(rid) or {}).get("server"), t0)
            if op != "LB create" and lb in creator and k and creator[lb] and k != creator[lb]:
                key = f"{op} by {k} on {creator[lb]}'s LB"
                cross[key] = cross.get(key, 0) + 1
        # An answer the run would fail (a 500, …) that haproxy's log puts on a Python replica
        # is the reference's own behaviour (e.g. its Galera deadlocks, not retried): reported
        # apart, not counted against the migration; one served by Keel or by no known replica
        # stays a failure.
        t_of = {rid: t0 for rid, _, _, t0 in sent}
        python = {}
        for rid, cause in rec.bad[name]:
            if kind_at((where.get(rid) or {}).get("server"), t_of.get(rid, 0)) == "py":
                python[cause] = python.get(cause, 0) + 1
                r["failures"][cause] -= 1
                if r["failures"][cause] == 0:
                    del r["failures"][cause]
        r["failures_of_python_replicas"] = python
        # A sync difference on a load balancer whose last change (its cascade delete, mostly)
        # a Python replica served is the reference's own state (e.g. a cascade delete it
        # answered 204 and then left ACTIVE, without NB row or VIP port): reported apart; one
        # whose last change Keel served stays a difference.
        every = [op for ops in rec.sent.values() for op in ops]
        seen = fault.access_log([rid for rid, _, _, _ in every])  # one read of the log
        last = {}  # lb -> (time, kind) of its latest change
        for rid, op, lb, t0 in every:
            if lb and op != "GET lb" and t0 >= last.get(lb, (0.0, None))[0]:
                last[lb] = (t0, kind_at((seen.get(rid) or {}).get("server"), t0))
        mine, theirs = [], []
        for d in r["sync"]["differences"]:
            words = d.split()
            lb = words[1].rstrip(":") if len(words) > 1 else None
            (theirs if last.get(lb, (0, None))[1] == "py" else mine).append(d)
        # likewise a load balancer a change left other than ACTIVE (or still in the database
        # after its cascade delete) when a Python replica served its last change
        na = [e for e in r.get("not_active", []) if last.get(e["lb"], (0, None))[1] == "py"]
        if na:
            r["not_active_after_a_python_change"] = na
            r["not_active"] = [e for e in r["not_active"] if e not in na]
        for lb in [lb for lb in r.get("lbs_left", {}) if last.get(lb, (0, None))[1] == "py"]:
            r.setdefault("lbs_left_after_a_python_change", {})[lb] = r["lbs_left"].pop(lb)
        if theirs:
            r["sync"]["differences_after_a_python_change"] = theirs
            r["sync"]["differences"] = mine
            if not mine:
                r["sync"]["rc_raw"], r["sync"]["rc"] = r["sync"]["rc"], 0
        r["by_kind"] = by_kind
        r["cross_kind"] = cross
        r["step"] = STEPS[-1] if STEPS and name != "0 baseline" else None
    return hook


def main():
    a = fault.arguments("step").parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    demo, admin, net, subnet = fault.network("migrate")
    plane = traffic.Plane("mig")
    rec = fault.Record()
    by_cross_kind = cross_kind(rec)

    def after(name, r):
        by_cross_kind(name, r)
        try:
            r["health"] = plane.health_round(traffic=False)
        except (RuntimeError, requests.RequestException) as e:
            r["health_error"] = str(e)
    steps = [
        ("0 baseline", baseline),
        ("1 py-1 → keel-1", replace(1, "py", "keel")),
        ("2 py-2 → keel-2", replace(2, "py", "keel")),
        ("3 py-3 → keel-3", replace(3, "py", "keel")),
        ("4 Python agent stopped", agent("stop")),
        ("5 keel-3 → py-3 (rollback)", rollback(3)),
    ]
    if a.only:
        want = set(a.only.split(","))
        steps = [s for s in steps if s[0] in want]
    try:
        fault.preflight(a.keel_bin)
        plane.setup()  # made by the Python replicas: a Python-made LB with a health monitor
        results = fault.windows(a, steps, demo, admin, net, subnet, rec, after)
    except fault.Unjudgeable as e:
        print(f"\nmigrate.py CANNOT JUDGE (nothing passes by skipping): {e}", flush=True)
        sys.exit(2)
    finally:
        plane.close()
    requests.delete(f"{fault.NEUTRON}/networks/{net}", headers={"X-Auth-Token": demo}, timeout=60)
    wall = round(time.time() - t0, 1)
    with open(f"{a.out}/results.json", "w") as f:
        json.dump({"results": results, "examples": rec.examples, "wall_s": wall, "steps": STEPS}, f, indent=1)
    bad = fault.summary(results, "step")
    bad += sum(1 for r in results if r.get("health_error"))
    print("\nstep | by kind | cross-kind operations | failures answered by Python replicas (not counted) | member health")
    for r in results:
        print(f"{r['fault']} | {r.get('by_kind')} | {r.get('cross_kind')} | {r.get('failures_of_python_replicas') or 'none'}"
              f" | {r.get('health_error') or r.get('health')}")
    print(f"migration wall time {wall} s")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
