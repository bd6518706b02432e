#!/usr/bin/env python3
"""CPU time per process while a command runs: which of the stack's services a workload keeps busy.

Reads utime+stime of every process in /proc before and after the command and prints each
one's share of the CPU time used (gunicorn workers grouped by their app). The command's own
processes (the workload's client) are counted as `(the command)`.

With `--from TEXT --to TEXT` only the window between the command's output lines starting
with those texts is counted (throughput.py prints `loop start` and `loop end` around its
loop, so its set-up and clean-up are left out); the command's output is passed through.

  python3 bench/cpu_split.py [--from 'loop start' --to 'loop end'] -- \
      $BENCH_PY bench/throughput.py --clients 4 --seconds 15 --endpoint http://127.0.0.1:9878
"""
import argparse
import os
import subprocess
import sys
import time


def snapshot():
    out = {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            stat = open(f'/proc/{pid}/stat').read()
            cmd = open(f'/proc/{pid}/cmdline').read().replace('\0', ' ')
        except OSError:
            continue
        comm = stat[stat.index('(') + 1:stat.rindex(')')]
        fields = stat[stat.rindex(')') + 2:].split()
        out[pid] = (comm, cmd, int(fields[11]) + int(fields[12]))
    return out


def key(comm, cmd):
    if 'gunicorn' in cmd:
        return 'gunicorn:' + cmd.split('[')[-1].split(']')[0] if '[' in cmd else 'gunicorn'
    return comm


def spent(before, after, own=None):
    """CPU ticks per process group between two snapshots; the pid `own` as '(the command)'."""
    used = {}
    for pid, (comm, cmd, t) in after.items():
        d = t - (before[pid][2] if pid in before else 0)
        if d > 0:
            k = '(the command)' if pid == own else key(comm, cmd)
            used[k] = used.get(k, 0) + d
    return used


ap = argparse.ArgumentParser(description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--from', dest='start', default=None)
ap.add_argument('--to', dest='end', default=None)
ap.add_argument('cmd', nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd[:1] == ['--'] else a.cmd
ticks = os.sysconf('SC_CLK_TCK')
if a.start:
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    before = after = None
    t0 = t1 = time.time()
    for ln in p.stdout:
        sys.stdout.write(ln)
        sys.stdout.flush()
        if before is None and ln.startswith(a.start):
            before, t0 = snapshot(), time.time()
        elif before is not None and after is None and ln.startswith(a.end):
            after, t1 = snapshot(), time.time()
    p.wait()
    if before is None or after is None:
        sys.exit(f'cpu_split: no window: the command printed no {a.start!r} / {a.end!r} line')
    used = spent(before, after, own=str(p.pid))
else:
    before = snapshot()
    t0 = time.time()
    c0 = os.times()
    subprocess.run(cmd, check=False)
    c1 = os.times()
    after = snapshot()
    t1 = time.time()
    used = spent(before, after)
    own = (c1.children_user + c1.children_system) - (c0.children_user + c0.children_system)
    used['(the command)'] = round(own * ticks)
wall = t1 - t0
total = sum(used.values())
print(f'wall {wall:.1f} s, CPU time used {total / ticks:.1f} s')
for k, v in sorted(used.items(), key=lambda kv: -kv[1])[:14]:
    print(f'{v / ticks:8.2f} s {100 * v / total:5.1f} %  {k}')
