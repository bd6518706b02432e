#!/usr/bin/env python3
"""Python side of crates/ovsdb/benches/nb.rs: the same work with the OVS Python IDL
(`ovs`, as ovsdbapp/ovn-octavia-provider use it) and a raw pipelined JSON-RPC sender.

  sync REMOTE              initial sync of Load_Balancer (all columns); prints
                           {"ms": .., "rows": .., "rss_kb": ..}
  txn REMOTE N             N single-row Load_Balancer updates, one at a time (commit_block)
  raw REMOTE N DEPTH       N `transact` updates of one row, DEPTH outstanding, raw socket
Each prints one JSON line.
"""
import json
import resource
import socket
import sys
import time

DB = 'OVN_Northbound'


def idl_for(remote):
    import ovs.db.idl
    from ovsdbapp.backend.ovs_idl import idlutils
    helper = idlutils.get_schema_helper(remote, DB)
    helper.register_table('Load_Balancer')
    idl = ovs.db.idl.Idl(remote, helper)
    import ovs.poller
    while True:
        idl.run()
        if idl.has_ever_connected() and idl.change_seqno > 0:
            return idl
        p = ovs.poller.Poller()
        idl.wait(p)
        p.block()


def cmd_sync(remote):
    t0 = time.monotonic()
    idl = idl_for(remote)
    ms = (time.monotonic() - t0) * 1000
    rows = len(idl.tables['Load_Balancer'].rows)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({'ms': ms, 'rows': rows, 'rss_kb': rss}))


def cmd_txn(remote, n):
    import ovs.db.idl
    idl = idl_for(remote)
    row = next(r for r in idl.tables['Load_Balancer'].rows.values()
               if r.name == 'bench-target-py')
    t0 = time.monotonic()
    for i in range(n):
        txn = ovs.db.idl.Transaction(idl)
        row.setkey('external_ids', 'bench-seq', str(i))
        st = txn.commit_block()
        if st != ovs.db.idl.Transaction.SUCCESS:
            raise SystemExit(f'txn {i}: {st}')
    dt = time.monotonic() - t0
    print(json.dumps({'tps': n / dt, 'n': n}))


def cmd_raw(remote, n, depth):
    _, host, port = remote.split(':')
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # find the target row
    s.sendall(json.dumps({'id': 0, 'method': 'transact', 'params': [
        DB, {'op': 'select', 'table': 'Load_Balancer',
             'where': [['name', '==', 'bench-target-raw']], 'columns': ['_uuid']}]}).encode())
    dec = json.JSONDecoder()
    buf = ''

    def replies():
        nonlocal buf
        out = []
        while True:
            buf = buf.lstrip()
            if not buf:
                break
            try:
                obj, end = dec.raw_decode(buf)
            except ValueError:
                break
            buf = buf[end:]
            out.append(obj)
        return out

    uuid = None
    while uuid is None:
        buf += s.recv(65536).decode()
        for r in replies():
            if r.get('id') == 0:
                uuid = r['result'][0]['rows'][0]['_uuid']
    sent = done = 0
    t0 = time.monotonic()
    while done < n:
        while sent < n and sent - done < depth:
            sent += 1
            s.sendall(json.dumps({'id': sent, 'method': 'transact', 'params': [
                DB, {'op': 'update', 'table': 'Load_Balancer', 'where': [['_uuid', '==', uuid]],
                     'row': {'external_ids': ['map', [['bench-seq', str(sent)]]]}}]}).encode())
        buf += s.recv(65536).decode()
        for r in replies():
            if isinstance(r.get('id'), int) and r['id'] > 0:
                if r.get('error') or 'error' in r['result'][0]:
                    raise SystemExit(f'raw txn failed: {r}')
                done += 1
    dt = time.monotonic() - t0
    print(json.dumps({'tps': n / dt, 'n': n, 'depth': depth}))


if __name__ == '__main__':
    cmd, remote = sys.argv[1], sys.argv[2]
    if cmd == 'sync':
        cmd_sync(remote)
    elif cmd == 'txn':
        cmd_txn(remote, int(sys.argv[3]))
    elif cmd == 'raw':
        cmd_raw(remote, int(sys.argv[3]), int(sys.argv[4]))
