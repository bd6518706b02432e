"""Where the time goes: Keel's Prometheus histograms over one workload, per stage.

Reads `GET /metrics` of the bench Keel (bench/keel.sh: metrics_listen 9880 + STACK_SLOT×1000)
before and after a command, and prints, for every histogram series that moved, the count and
the mean of the difference (ms): the API request per route (server time to the response head:
auth, SQL, the provider call, the commit and the settle wait), the provider job per kind, the
NB transaction, and every stage of `keel_stage_duration_seconds{stage, route}` (pool
checkout, each SQL round trip, commits, the commit gate, NB snapshot / plan / transaction,
the status write, the settle wait: crates/service/src/stages.rs).

  $PY bench/stages.py --metrics http://127.0.0.1:9880/metrics [--json out.json] -- \\
      $PY bench/lbsteps.py --rounds 10 --endpoint http://127.0.0.1:9878
"""
import argparse
import json
import re
import subprocess
import sys
import urllib.request

LINE = re.compile(r'^(\w+)_(sum|count)(\{.*\})? ([0-9.eE+-]+)$')


def read(url):
    """{(name, labels): [sum, count]} of every histogram series."""
    out = {}
    with urllib.request.urlopen(url, timeout=10) as r:
        for line in r.read().decode().splitlines():
            m = LINE.match(line)
            if not m:
                continue
            name, kind, labels, v = m.group(1), m.group(2), m.group(3) or '', float(m.group(4))
            e = out.setdefault((name, labels), [0.0, 0.0])
            e[0 if kind == 'sum' else 1] = v
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--metrics', required=True)
    p.add_argument('--json', default=None)
    p.add_argument('cmd', nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ['--'] else a.cmd
    before = read(a.metrics)
    rc = subprocess.call(cmd) if cmd else 0
    after = read(a.metrics)
    rows = []
    for key, (s1, c1) in sorted(after.items()):
        s0, c0 = before.get(key, [0.0, 0.0])
        n = c1 - c0
        if n <= 0 or not key[0].endswith('_seconds'):
            continue
        rows.append({'metric': key[0], 'labels': key[1], 'count': int(n),
                     'mean_ms': (s1 - s0) / n * 1000})
    for r in rows:
        print(f"{r['metric']:45s} {r['labels'][:70]:70s} n={r['count']:5d} "
              f"mean {r['mean_ms']:8.2f} ms")
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rows, f, indent=1)
    sys.exit(rc)


if __name__ == '__main__':
    main()
