#!/usr/bin/env python3
"""Markdown tables from a bench/run_all.sh results directory: Keel beside the reference
measured in the same run (ratio = reference / Keel), plus the reference's recorded figures
(quiet machine, 2026-11-29) when --recorded points at them.

Usage: python3 bench/summary.py bench/results/<date> [--recorded DIR]
"""
import argparse
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument('dir')
ap.add_argument('--recorded', default=None, help="the reference's own results dir")
a = ap.parse_args()


def load(name, d=None):
    p = os.path.join(d or a.dir, name)
    return json.load(open(p)) if os.path.exists(p) else None


def f(v, unit=''):
    return '—' if v is None else (f'{v:,.0f}{unit}' if v >= 100 else f'{v:.1f}{unit}')


def ratio(ref, keel):
    return '—' if not ref or not keel else f'×{ref / keel:.1f}'


def done(steps, name, key='p50'):
    s = (steps or {}).get('steps', {}).get(name, {})
    return (s.get('done') or s.get('http') or {}).get(key)


def http(steps, name, key='p50'):
    return (steps or {}).get('steps', {}).get(name, {}).get('http', {}).get(key)


ks, rs = load('keel_steps.json'), load('ref_steps.json')
rec = load('steps10.json', a.recorded) if a.recorded else None
print('| step (p50, ms) | Keel HTTP | Keel → ACTIVE | reference → ACTIVE (same run) | ratio | reference recorded (quiet) |')
print('|---|---|---|---|---|---|')
for name in ('loadbalancer create', 'listener create', 'pool create', 'member 1 create',
             'member 2 create', 'healthmonitor create', 'lb delete cascade'):
    print(f'| {name} | {f(http(ks, name))} | {f(done(ks, name))} | {f(done(rs, name))} | '
          f'{ratio(done(rs, name), done(ks, name))} | {f(done(rec, name))} |')
for name in ('neutron port create (bare)', 'neutron port delete', 'neutron subnet GET',
             'neutron port list by ip'):
    print(f'| {name} (Neutron HTTP) | {f(http(ks, name))} | | {f(http(rs, name))} | | {f(http(rec, name))} |')
k2, r2 = load('keel_steps_hm2.json'), load('ref_steps_hm2.json')
n = 'healthmonitor 2 create (HM port exists)'
if k2:
    print(f'| {n} | {f(http(k2, n))} | {f(done(k2, n))} | {f(done(r2, n))} | {ratio(done(r2, n), done(ks and k2, n))} | |')
print()
kk, rk = load('keel_steps_10k.json'), load('ref_steps_10k.json')
if kk:
    print('| step, +10,000 LB rows (p50 ms) | Keel | Keel ×(empty) | reference | reference ×(empty) |')
    print('|---|---|---|---|---|')
    for name in ('loadbalancer create', 'listener create', 'pool create', 'member 1 create',
                 'member 2 create', 'healthmonitor create', 'lb delete cascade'):
        k0, k1, r0, r1 = done(ks, name), done(kk, name), done(rs, name), done(rk, name)
        print(f'| {name} | {f(k1)} | {ratio(k1, k0)} | {f(r1)} | {ratio(r1, r0)} |')
    print()
kb, rb = load('keel_batch.json'), load('ref_batch.json')
if kb:
    print('| member batch (200) | Keel HTTP | Keel → ACTIVE | Keel list = request | reference → ACTIVE | reference list = request |')
    print('|---|---|---|---|---|---|')
    for ph in ('batch create', 'batch replace half'):
        k, r = kb.get(ph, {}), (rb or {}).get(ph, {})
        lm = lambda d: 'at ACTIVE' if d.get('match') else f(d.get('list_matches_ms'), ' ms')
        print(f"| {ph} | {f(k.get('http_ms'))} ms | {f(k.get('active_ms'))} ms | {lm(k)} | "
              f"{f(r.get('active_ms'))} ms | {lm(r) if r else '—'} |")
    print(f"| cascade delete (GONE) | | {f(kb.get('cascade delete gone_ms'))} ms | | "
          f"{f((rb or {}).get('cascade delete gone_ms'))} ms | |")
    print()
kt, rt = load('keel_tput.json'), load('ref_tput.json')
if kt:
    print('| throughput, 4 clients | Keel | reference (same run) |')
    print('|---|---|---|')
    print(f"| ops/s | {kt['ops_per_s']:.1f} | {rt['ops_per_s']:.1f} |" if rt else f"| ops/s | {kt['ops_per_s']:.1f} | — |")
    for k in ('create_active', 'delete_gone'):
        print(f"| {k} p50 / p95 ms | {f(kt[k]['p50'])} / {f(kt[k]['p95'])} | "
              + (f"{f(rt[k]['p50'])} / {f(rt[k]['p95'])} |" if rt else '— |'))
    print(f"| errors | {kt['errors']} | {rt['errors'] if rt else '—'} |")
    print()
for name in ('mariadb', 'ovsdb_lat', 'ovsdb_pipe'):
    d = load(f'{name}.json')
    if d:
        v = d.get('commits_per_s') or d.get('txn_per_s')
        print(f"- {name}: {v:,.0f}/s, p50 {d['lat_ms_p50']:.2f} ms, p95 {d['lat_ms_p95']:.2f} ms")
