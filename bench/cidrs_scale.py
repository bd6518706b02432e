#!/usr/bin/env python3
"""The cost at scale of the NB rows Keel adds for a listener's `allowed_cidrs` (issue 44):
ovn-northd's CPU and the Southbound's logical flows with N listeners holding K CIDRs each,
against the same load balancers without them.

A private NB and SB `ovsdb-server` and a private `ovn-northd` (the machine's OVN; nothing of
the stack is touched) in a temporary directory. The topology: S tenant switches on one
router, each with its router port and a VIP port; N/10 load balancers of 10 TCP listeners
each (one Load_Balancer row per LB, 10 `vips` entries of 2 backends), attached to their
switch and the router, as the OVN provider attaches them. Then, per listener, the rows
`crates/ovn-provider/src/cidrs.rs` documents: a Port_Group `keel_<listener>` anchored on the
router ports of `--anchors` switches (the VIP's first; default 1), Address_Sets `…_allow4`
(K CIDRs) and `…_vip4` (the VIP), and two `from-lport` ACLs: `allow` at 1011 (`ip4.dst ==
$…_vip4 && tcp.dst == <port> && ip4.src == $…_allow4`) above `drop` at 1010 (the same without
the source). The rows are written
here from that layout (this measures the layout's cost in OVN, not Keel's speed).

Per phase ("none", then "cidrs"): the Logical_Flow count, northd's CPU seconds and the wall
time from the bulk transaction to `ovn-nbctl --wait=sb sync`, and forced full recomputes
(`inc-engine/recompute`, 10: median wall, mean CPU) timed the same way; for "cidrs" also one listener's allow list
changed (10 samples: wall time until the SB has it — northd's share of "update to
enforcement").

Usage: python3 bench/cidrs_scale.py [--listeners 1000] [--cidrs 10] [--switches 10] [--anchors 1]
       [--out bench/results/<date>-cidrs-scale.json]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

NB_SCHEMA = "/usr/share/ovn/ovn-nb.ovsschema"
SB_SCHEMA = "/usr/share/ovn/ovn-sb.ovsschema"


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick  # utime + stime


class Ovn:
    def __init__(self, d):
        self.d = d
        self.procs = []
        for name, schema in (("nb", NB_SCHEMA), ("sb", SB_SCHEMA)):
            db = f"{d}/{name}.db"
            run("ovsdb-tool", "create", db, schema)
            p = subprocess.Popen(
                ["ovsdb-server", db, f"--remote=punix:{d}/{name}.sock",
                 f"--unixctl={d}/{name}.ctl", f"--pidfile={d}/{name}.pid",
                 f"--log-file={d}/{name}.log"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.procs.append(p)
        for name in ("nb", "sb"):
            self.wait_sock(f"{d}/{name}.sock")
        self.nb = f"unix:{d}/nb.sock"
        self.sb = f"unix:{d}/sb.sock"
        run("ovn-nbctl", f"--db={self.nb}", "init")
        self.northd = subprocess.Popen(
            ["ovn-northd", f"--ovnnb-db={self.nb}", f"--ovnsb-db={self.sb}",
             f"--unixctl={d}/northd.ctl", f"--log-file={d}/northd.log"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(self.northd)
        self.sync()

    @staticmethod
    def wait_sock(path):
        deadline = time.monotonic() + 30
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                raise SystemExit(f"cidrs_scale: {path} never appeared")
            time.sleep(0.05)

    def sync(self):
        run("ovn-nbctl", f"--db={self.nb}", "--timeout=600", "--wait=sb", "sync")

    def transact(self, ops):
        out = run("ovsdb-client", "transact", self.nb, json.dumps(["OVN_Northbound"] + ops))
        res = json.loads(out)
        errors = [r for r in res if isinstance(r, dict) and "error" in r]
        if errors:
            raise SystemExit(f"cidrs_scale: transaction failed: {errors[:2]}")
        return res

    def transact_groups(self, groups, limit=100_000):
        """The op groups (each self-contained: its named uuids resolve inside it) in as few
        transactions as a command line holds (`limit` bytes of JSON each)."""
        batch, size = [], 0
        for g in groups:
            n = len(json.dumps(g))
            if batch and size + n > limit:
                self.transact(batch)
                batch, size = [], 0
            batch += g
            size += n
        if batch:
            self.transact(batch)

    def lflows(self):
        out = run("ovsdb-client", "transact", self.sb, json.dumps(
            ["OVN_Southbound", {"op": "select", "table": "Logical_Flow", "where": [],
                                "columns": ["_uuid"]}]))
        return len(json.loads(out)[0]["rows"])

    def timed(self, what):
        """(wall s, northd CPU s) of `what()` followed by a --wait=sb sync."""
        c0, t0 = cpu_seconds(self.northd.pid), time.monotonic()
        what()
        self.sync()
        return time.monotonic() - t0, cpu_seconds(self.northd.pid) - c0

    def recompute(self, n=10):
        """Median wall s and mean northd CPU s of `n` forced full recomputes."""
        samples = [self.timed(lambda: run("ovn-appctl", "-t", f"{self.d}/northd.ctl",
                                          "inc-engine/recompute")) for _ in range(n)]
        walls = sorted(w for w, _ in samples)
        return walls[n // 2], sum(c for _, c in samples) / n

    def stop(self):
        for p in reversed(self.procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def oset(xs):
    return ["set", list(xs)]


def omap(d):
    return ["map", [[k, v] for k, v in d.items()]]


def topology(switches):
    """One router, `switches` switches each with a router port and a VIP port."""
    ops, lrps = [], []
    for s in range(switches):
        lrp = f"lrp{s}"
        ops.append({"op": "insert", "table": "Logical_Router_Port", "uuid-name": lrp,
                    "row": {"name": f"lrp-{s}", "mac": f"fa:16:3e:00:{s // 256:02x}:{s % 256:02x}",
                            "networks": f"10.{s}.0.1/16"}})
        lrps.append(["named-uuid", lrp])
        ops.append({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": f"rp{s}",
                    "row": {"name": f"rp-{s}", "type": "router", "addresses": "router",
                            "options": omap({"router-port": f"lrp-{s}"})}})
        ops.append({"op": "insert", "table": "Logical_Switch_Port", "uuid-name": f"vp{s}",
                    "row": {"name": f"vip-{s}", "addresses": f"fa:16:3e:01:00:{s:02x} 10.{s}.0.5"}})
        ops.append({"op": "insert", "table": "Logical_Switch", "uuid-name": f"ls{s}",
                    "row": {"name": f"neutron-{uuid.uuid4()}",
                            "ports": oset([["named-uuid", f"rp{s}"], ["named-uuid", f"vp{s}"]])}})
    ops.append({"op": "insert", "table": "Logical_Router", "uuid-name": "r0",
                "row": {"name": f"neutron-{uuid.uuid4()}", "ports": oset(lrps)}})
    return ops


def load_balancers(n_lbs, switches, ls_uuid, lr_uuid):
    """(op groups, listeners): n_lbs LBs of 10 TCP listeners each; listeners are (id, switch, vip,
    port)."""
    groups, listeners = [], []
    for i in range(n_lbs):
        ops = []
        s = i % switches
        vip = f"10.{s}.{1 + i // 250}.{i % 250 + 1}"
        vips = {}
        for k in range(10):
            port = 8000 + k
            vips[f"{vip}:{port}"] = f"10.{s}.200.10:{port},10.{s}.200.11:{port}"
            listeners.append((str(uuid.uuid4()), s, vip, port))
        name = f"lb{i}"
        ops.append({"op": "insert", "table": "Load_Balancer", "uuid-name": name,
                    "row": {"name": str(uuid.uuid4()), "protocol": "tcp", "vips": omap(vips),
                            "external_ids": omap({"neutron:vip": vip})}})
        ops.append({"op": "mutate", "table": "Logical_Switch",
                    "where": [["_uuid", "==", ["uuid", ls_uuid[s]]]],
                    "mutations": [["load_balancer", "insert", oset([["named-uuid", name]])]]})
        ops.append({"op": "mutate", "table": "Logical_Router",
                    "where": [["_uuid", "==", ["uuid", lr_uuid]]],
                    "mutations": [["load_balancer", "insert", oset([["named-uuid", name]])]]})
        groups.append(ops)
    return groups, listeners


def cidr_rows(listeners, k, rp_uuid, anchors):
    groups = []
    for n, (lid, s, vip, port) in enumerate(listeners):
        ops = []
        g = "keel_" + lid.replace("-", "_")
        ext = omap({"keel:owner": "keel-allowed-cidrs", "keel:listener_id": lid})
        allow = [f"172.{16 + (n + j) % 16}.{(n * 7 + j) % 256}.0/24" for j in range(k)]
        ops.append({"op": "insert", "table": "Address_Set",
                    "row": {"name": f"{g}_allow4", "addresses": oset(allow), "external_ids": ext}})
        ops.append({"op": "insert", "table": "Address_Set",
                    "row": {"name": f"{g}_vip4", "addresses": oset([vip]), "external_ids": ext}})
        to_listener = f"ip4.dst == ${g}_vip4 && tcp.dst == {port}"
        ops.append({"op": "insert", "table": "ACL", "uuid-name": f"allow{n}",
                    "row": {"direction": "from-lport", "priority": 1011, "action": "allow",
                            "match": f"{to_listener} && ip4.src == ${g}_allow4",
                            "external_ids": ext}})
        ops.append({"op": "insert", "table": "ACL", "uuid-name": f"drop{n}",
                    "row": {"direction": "from-lport", "priority": 1010, "action": "drop",
                            "match": to_listener, "external_ids": ext}})
        ops.append({"op": "insert", "table": "Port_Group",
                    "row": {"name": g, "ports": oset([["uuid", rp_uuid[(s + j) % len(rp_uuid)]]
                                                     for j in range(anchors)]),
                            "acls": oset([["named-uuid", f"allow{n}"], ["named-uuid", f"drop{n}"]]),
                            "external_ids": ext}})
        groups.append(ops)
    return groups


def uuids(ovn, table, prefix):
    out = run("ovsdb-client", "transact", ovn.nb, json.dumps(
        ["OVN_Northbound", {"op": "select", "table": table, "where": [],
                            "columns": ["_uuid", "name"]}]))
    rows = json.loads(out)[0]["rows"]
    return {r["name"]: r["_uuid"][1] for r in rows if r["name"].startswith(prefix)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listeners", type=int, default=1000)
    ap.add_argument("--cidrs", type=int, default=10)
    ap.add_argument("--switches", type=int, default=10)
    ap.add_argument("--anchors", type=int, default=1,
                    help="switches each listener's Port_Group is anchored on (its VIP's first)")
    ap.add_argument("--out")
    a = ap.parse_args()
    for tool in ("ovsdb-tool", "ovsdb-server", "ovsdb-client", "ovn-northd", "ovn-nbctl",
                 "ovn-appctl"):
        if shutil.which(tool) is None:
            raise SystemExit(f"cidrs_scale: cannot run: {tool} is missing")
    d = tempfile.mkdtemp(prefix="keel-cidrs-scale.")
    ovn = Ovn(d)
    result = {"listeners": a.listeners, "cidrs_per_listener": a.cidrs, "switches": a.switches,
              "anchors": a.anchors,
              "ovn_northd": run("ovn-northd", "--version").splitlines()[0],
              "load": os.getloadavg()}
    try:
        ovn.transact(topology(a.switches))
        ovn.sync()
        by_name = uuids(ovn, "Logical_Switch", "neutron-")
        # switch s is the one whose ports hold rp-s: map by the router port's name
        rp = uuids(ovn, "Logical_Switch_Port", "rp-")
        rp_uuid = [rp[f"rp-{s}"] for s in range(a.switches)]
        ls_uuid = [next(u for u in by_name.values()
                        if rp_uuid[s] in run("ovn-nbctl", f"--db={ovn.nb}", "--bare",
                                             "--columns=ports", "list", "Logical_Switch", u))
                   for s in range(a.switches)]
        lr_uuid = next(iter(uuids(ovn, "Logical_Router", "neutron-").values()))
        groups, listeners = load_balancers(a.listeners // 10, a.switches, ls_uuid, lr_uuid)
        wall, cpu = ovn.timed(lambda: ovn.transact_groups(groups))
        rw, rc = ovn.recompute()
        result["none"] = {"lflows": ovn.lflows(), "bulk_wall_s": wall, "bulk_cpu_s": cpu,
                          "recompute_wall_s": rw, "recompute_cpu_s": rc}
        print("none ", json.dumps(result["none"]), flush=True)
        wall, cpu = ovn.timed(
            lambda: ovn.transact_groups(cidr_rows(listeners, a.cidrs, rp_uuid, a.anchors)))
        rw, rc = ovn.recompute()
        result["cidrs"] = {"lflows": ovn.lflows(), "bulk_wall_s": wall, "bulk_cpu_s": cpu,
                           "recompute_wall_s": rw, "recompute_cpu_s": rc}
        # one listener's list changed: the SB has it after
        samples = []
        for j in range(10):
            lid = listeners[j * (len(listeners) // 10)][0]
            name = "keel_" + lid.replace("-", "_") + "_allow4"
            w, c = ovn.timed(lambda: ovn.transact([{
                "op": "mutate", "table": "Address_Set", "where": [["name", "==", name]],
                "mutations": [["addresses", "insert", oset([f"192.0.2.{j}/32"])]]}]))
            samples.append(w)
        samples.sort()
        result["cidrs"]["list_change_to_sb_s"] = {"p50": samples[len(samples) // 2],
                                                  "max": samples[-1], "samples": samples}
        print("cidrs", json.dumps(result["cidrs"]), flush=True)
        n = result["none"]["lflows"]
        result["ratio"] = {k: (result["cidrs"][k] / result["none"][k]) if result["none"][k] else None
                           for k in ("lflows", "recompute_wall_s", "recompute_cpu_s")}
        result["lflows_added_per_listener"] = (result["cidrs"]["lflows"] - n) / len(listeners)
        print("ratio", json.dumps(result["ratio"]), "lflows/listener",
              result["lflows_added_per_listener"])
    finally:
        ovn.stop()
        shutil.rmtree(d, ignore_errors=True)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
