#!/usr/bin/env python3
"""House rule "no two files import each other": fails when the files (modules) of a crate form
an import cycle.

Every `src/**.rs` file is a module (`db/batch.rs` is `db/batch`; lib.rs/main.rs the crate root).
An edge A -> B is a path A's code names B by: `crate::b::…`, `super::…`/`super::*` (the parent, or the
sibling it names) or `child::…` for a child module of A. A child naming its parent's items while
the parent calls into the child is a cycle too. Comment lines and everything after the first
`#[cfg(test)]` of a file are ignored (doc links and unit tests may point anywhere); a path to an
ancestor through `crate::` (a re-export) is not counted. Cycles are strongly connected components of more than one module (Tarjan).
Usage: ci/module_cycles.py [repo root]; exit 1 and the cycles printed when there is one.
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_0-9]+)+)")
GROUP = re.compile(r"\b(crate|super)((?:::[a-z_0-9]+)*)::\{([^;]*?)\}", re.S)
GLOB = re.compile(r"\b(crate|super)((?:::[a-z_0-9]+)*)::\*")
GROUP_ITEM = re.compile(r"(?:^|[\s,{])([A-Za-z_0-9]+)(?=::|\s*[,}]|\s*$)")


def code_of(path):
    text = open(path, encoding="utf-8").read()
    cut = text.find("#[cfg(test)]")
    if cut >= 0:
        text = text[:cut]
    return "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("//"))


def module_of(src, path):
    """`db/batch.rs` -> ("db", "batch"); `db.rs` and `db/mod.rs` -> ("db",); lib/main -> ()."""
    parts = os.path.relpath(path, src)[:-3].split(os.sep)
    if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in ("lib", "main")):
        parts = parts[:-1]
    return tuple(parts)


def resolve(mods, base, names):
    """The longest module path `base + names[..k]` that exists (None: none beyond `base`)."""
    best = None
    for k in range(1, len(names) + 1):
        if base + tuple(names[:k]) in mods:
            best = base + tuple(names[:k])
    return best


def edges(src):
    files = {}
    for dirpath, _, fs in os.walk(src):
        for f in fs:
            if f.endswith(".rs"):
                files[module_of(src, os.path.join(dirpath, f))] = os.path.join(dirpath, f)
    mods = set(files)
    graph = {m: set() for m in mods}
    for m, path in files.items():
        code = code_of(path)
        refs = []
        for anchor, tail in PATH.findall(code):
            refs.append((anchor, tail.split("::")[1:]))
        for anchor, tail in GLOB.findall(code):
            refs.append((anchor, tail.split("::")[1:] if tail else []))
        for anchor, tail, group in GROUP.findall(code):
            head = tail.split("::")[1:] if tail else []
            for item in GROUP_ITEM.findall(" " + group):
                refs.append((anchor, head + [item]))
        children = {c[-1] for c in mods if len(c) == len(m) + 1 and c[: len(m)] == m}
        for child in children:
            if re.search(r"(?<![:\w])" + child + r"::", code):
                graph[m].add(m + (child,))
        for anchor, names in refs:
            base = () if anchor == "crate" else m[:-1]
            target = resolve(mods, base, names)
            if target is None and anchor == "super":
                target = base
            if target is None or target == m:
                continue
            if anchor == "crate" and m[: len(target)] == target:
                continue
            graph[m].add(target)
    return {"/".join(k) or "(root)": {"/".join(d) or "(root)" for d in v} for k, v in graph.items()}


def cycles(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    crates = os.path.join(root, "crates")
    bad = 0
    for crate in sorted(os.listdir(crates)):
        src = os.path.join(crates, crate, "src")
        if not os.path.isdir(src):
            continue
        for comp in cycles(edges(src)):
            print(f"{crate}: modules import each other: {' <-> '.join(comp)}")
            bad += 1
    if bad:
        sys.exit(1)
    print("module_cycles: no import cycle between the modules of any crate")


if __name__ == "__main__":
    main()
