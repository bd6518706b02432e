#!/usr/bin/env python3
"""Pooled figures of a bench/interleave.sh run: per side, each lbsteps step's time until
ACTIVE (p50 over all rounds), the 200-member batch's create / replace-half until ACTIVE, the
4-client throughput (ops/s, median of the rounds); and each side's ratio against the
reference (reference / side) and against the first side.

Usage: python3 bench/interleave.py OUTDIR
"""
import glob
import json
import os
import re
import statistics
import sys

d = sys.argv[1]
sides = []
for f in sorted(glob.glob(f'{d}/*-steps-*.json'), key=os.path.getmtime):
    s = re.sub(r'-steps-\d+\.json$', '', os.path.basename(f))
    if s not in sides:
        sides.append(s)


def p50(xs):
    return statistics.median(xs) if xs else None


steps, batch, tput = {}, {}, {}
for s in sides:
    for f in glob.glob(f'{d}/{s}-steps-*.json'):
        for name, o in json.load(open(f))['steps'].items():
            smp = o.get('samples', {})
            steps.setdefault(name, {}).setdefault(s, []).extend(smp.get('done') or smp.get('http') or [])
    for f in glob.glob(f'{d}/{s}-batch-*.json'):
        for name, o in json.load(open(f)).items():
            if isinstance(o, dict) and 'active_ms' in o:
                batch.setdefault(name, {}).setdefault(s, []).append(o['active_ms'])
    for f in glob.glob(f'{d}/{s}-tput-*.json'):
        tput.setdefault(s, []).append(json.load(open(f))['ops_per_s'])


def fmt(v):
    return '—' if v is None else (f'{v:,.0f}' if v >= 100 else f'{v:.1f}')


def row(name, per_side, higher_better=False):
    vals = {s: p50(per_side.get(s, [])) for s in sides}
    cells = [fmt(vals[s]) for s in sides]
    ref = vals.get('ref')
    ratios = []
    for s in sides:
        if s == 'ref' or not ref or not vals[s]:
            continue
        r = vals[s] / ref if higher_better else ref / vals[s]
        ratios.append(f'{s} ×{r:.0f}')
    n = {s: len(per_side.get(s, [])) for s in sides}
    print(f'| {name} | ' + ' | '.join(cells) + f" | {', '.join(ratios) or '—'} | {min(n.values())} |")


print('| step (ms until ACTIVE, p50) | ' + ' | '.join(sides) + ' | ratio to reference | samples |')
print('|---|' + '---|' * (len(sides) + 2))
for name, per in steps.items():
    row(name, per)
for name, per in batch.items():
    row(f'200 members: {name}', per)
row('4-client throughput, ops/s (median)', tput, higher_better=True)

# floor.py runs (FLOOR=1): the least a step costs this client here, per the reference's step
floors = [json.load(open(f)) for f in sorted(glob.glob(f'{d}/*-floor-*.json'))]
if floors:
    ref_listener = p50((steps.get('listener create') or {}).get('ref', []))
    print()
    print('| floor part (p50 of runs\' p50s, ms) | value |')
    print('|---|---|')
    for k in floors[0]['p50_ms']:
        print(f"| {k} | {p50([f['p50_ms'][k] for f in floors]):.2f} |")
    for k, label in (('floor1_ms', 'one commit'), ('floor2_ms', 'two commits')):
        v = p50([f[k] for f in floors])
        most = f', at most ×{ref_listener / v:.0f} of the reference\'s listener create' if ref_listener else ''
        print(f'| floor, {label} | {v:.2f}{most} |')

# cpu_split.py tables (CPU_SPLIT=1) at the end of the throughput logs: CPU ms per operation
line = re.compile(r'^\s*([\d.]+) s\s+[\d.]+ %\s+(.+)$')
cpu = {}
for s in sides:
    for f in glob.glob(f'{d}/{s}-tput-*.txt'):
        j = f[:-4] + '.json'
        if not os.path.exists(j):
            continue
        ops = json.load(open(j))['ops']
        for ln in open(f):
            m = line.match(ln)
            if m and ops:
                cpu.setdefault(s, {}).setdefault(m.group(2).strip(), []).append(
                    1000 * float(m.group(1)) / ops)
for s, per in cpu.items():
    print()
    print(f'| {s}: CPU per operation of the loop (ms, median of rounds) | |')
    print('|---|---|')
    tot = 0.0
    for name, v in sorted(per.items(), key=lambda kv: -p50(kv[1])):
        tot += p50(v)
        print(f'| {name} | {p50(v):.2f} |')
    print(f'| all | {tot:.2f} (2 cores: at most {2000 / tot:.0f} ops/s) |')
