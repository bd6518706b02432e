#!/usr/bin/env python3
"""CPU time per process while a command runs: which of the stack's services a workload keeps busy.

Reads utime+stime of every process in /proc before and after the command and prints each
one's share of the CPU time used (gunicorn workers grouped by their app). A process that
exits during the command (the workload's own client) is not counted.

  python3 bench/cpu_split.py $BENCH_PY bench/throughput.py --clients 4 --seconds 15 --endpoint http://127.0.0.1:9878
"""
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


before = snapshot()
t0 = time.time()
subprocess.run(sys.argv[1:], check=False)
after = snapshot()
wall = time.time() - t0
ticks = os.sysconf('SC_CLK_TCK')
used = {}
for pid, (comm, cmd, t) in after.items():
    d = t - (before[pid][2] if pid in before else 0)
    if d > 0:
        used[key(comm, cmd)] = used.get(key(comm, cmd), 0) + d
total = sum(used.values())
print(f'wall {wall:.1f} s, CPU time used {total / ticks:.1f} s')
for k, v in sorted(used.items(), key=lambda kv: -kv[1])[:14]:
    print(f'{v / ticks:8.2f} s {100 * v / total:5.1f} %  {k}')
