#!/usr/bin/env python3
"""The house's measures (issue 46's "Measure"), read from a checkout's text, so a before and an
after are taken by the same rules:

  ci/house_metrics.py [--repo DIR] [--json]

- `hsts_preload`: production lines and files that spell it (crates/*/src, test code left out:
  `tests.rs`, `tests/`, `#[cfg(test)]` modules);
- the five longest functions of each crate's production code (lines from `fn` to its closing
  brace at the same indent, rustfmt's layout);
- echo docs: `///` lines on an item or field whose words are only the item's name (articles and
  punctuation aside), the docs that repeat the name;
- `pub mod` against all `mod` declarations per crate;
- non-boilerplate pairs of `duplicates` over every crate's `src` (a copy without tests), when the
  `duplicates` command is on PATH.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FN = re.compile(r'^(\s*)(?:pub(?:\([a-z]+\))? )?(?:const )?(?:async )?(?:unsafe )?fn (\w+)')
ITEM = re.compile(
    r'^\s*(?:pub(?:\([a-z]+\))? )?(?:(?:struct|enum|trait|type|const|static|mod|fn|async fn) )?'
    r'(?:mut )?(\w+)\s*[:(<{=;]?')
ARTICLES = {'the', 'a', 'an'}


def production_files(repo):
    """Yield (crate, path) of every production source file under crates/*/src."""
    crates = os.path.join(repo, 'crates')
    for crate in sorted(os.listdir(crates)):
        src = os.path.join(crates, crate, 'src')
        for root, _dirs, files in os.walk(src):
            if '/tests' in root[len(src):]:
                continue
            for f in sorted(files):
                if f.endswith('.rs') and f != 'tests.rs':
                    yield crate, os.path.join(root, f)


def without_test_modules(lines):
    """The lines with `#[cfg(test)]` items (to their closing brace) blanked out."""
    out = list(lines)
    i = 0
    while i < len(out):
        if out[i].strip() == '#[cfg(test)]':
            indent = len(out[i]) - len(out[i].lstrip())
            j = i + 1
            if j < len(out) and out[j].rstrip().endswith(';'):
                out[i] = out[j] = ''
                i = j + 1
                continue
            while j < len(out) and out[j].rstrip() != ' ' * indent + '}':
                j += 1
            for k in range(i, min(j + 1, len(out))):
                out[k] = ''
            i = j + 1
        else:
            i += 1
    return out


def words(name):
    name = re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', name)
    return [w for w in name.lower().split('_') if w]


def is_echo(doc_lines, name):
    text = ' '.join(d.strip()[3:].strip() for d in doc_lines).lower()
    text = re.sub(r'[`.,:;()\[\]]', ' ', text)
    doc_words = [w for w in text.split() if w not in ARTICLES]
    return bool(doc_words) and doc_words == [w for w in words(name) if w not in ARTICLES]


def measure(repo):
    hsts_lines, hsts_files = 0, set()
    longest = {}
    echo = 0
    mods = {}
    for crate, path in production_files(repo):
        with open(path, encoding='utf-8') as f:
            lines = without_test_modules(f.read().split('\n'))
        rel = os.path.relpath(path, repo)
        for i, line in enumerate(lines):
            if 'hsts_preload' in line:
                hsts_lines += 1
                hsts_files.add(rel)
            m = FN.match(line)
            if m and not line.rstrip().endswith(';'):
                indent = m.group(1)
                j = i
                if not line.rstrip().endswith('}'):
                    j = i + 1
                    while j < len(lines) and lines[j].rstrip() != indent + '}':
                        j += 1
                longest.setdefault(crate, []).append((j - i + 1, f'{rel}:{i + 1} {m.group(2)}'))
            if line.strip().startswith('///') and (i + 1 < len(lines)) and not lines[i + 1].strip().startswith('///'):
                k = i
                while k > 0 and lines[k - 1].strip().startswith('///'):
                    k -= 1
                nxt = i + 1
                while nxt < len(lines) and lines[nxt].strip().startswith('#['):
                    nxt += 1
                im = ITEM.match(lines[nxt]) if nxt < len(lines) else None
                if im and is_echo(lines[k:i + 1], im.group(1)):
                    echo += i + 1 - k
            mm = re.match(r'^\s*(pub(?:\([a-z]+\))? )?mod \w+', line)
            if mm:
                total, public = mods.get(crate, (0, 0))
                mods[crate] = (total + 1, public + (1 if mm.group(1) == 'pub ' else 0))
    top = {c: [f'{n} {where}' for n, where in sorted(v, reverse=True)[:5]] for c, v in longest.items()}
    return {
        'hsts_preload': {'lines': hsts_lines, 'files': len(hsts_files)},
        'longest_functions': top,
        'echo_doc_lines': echo,
        'pub_mods': {c: f'{p} of {t}' for c, (t, p) in sorted(mods.items())},
        'duplicates_pairs': duplicates(repo),
    }


def duplicates(repo):
    """Non-boilerplate pair count of `duplicates` over a copy of the crates' production src."""
    if not shutil.which('duplicates'):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for crate, path in production_files(repo):
            dest = os.path.join(tmp, os.path.relpath(path, repo))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(path, dest)
        out = subprocess.run(['duplicates', '--repo', tmp, '--most', '200', '--seconds', '120'],
                             capture_output=True, text=True, check=False).stdout
    m = re.match(r'(\d+) pairs.*?(\d+) of those marked boilerplate', out)
    if not m:
        return {'pairs': 0, 'not_boilerplate': 0} if out.startswith('no duplicates') else out.split('\n')[0]
    return {'pairs': int(m.group(1)), 'not_boilerplate': int(m.group(1)) - int(m.group(2))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repo', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('--json', action='store_true')
    args = ap.parse_args()
    result = measure(os.path.abspath(args.repo))
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return
    h = result['hsts_preload']
    print(f"hsts_preload: {h['lines']} production lines in {h['files']} files")
    print(f"echo doc lines: {result['echo_doc_lines']}")
    print(f"duplicates (crates/*/src): {result['duplicates_pairs']}")
    for crate, mods in result['pub_mods'].items():
        print(f"pub mod {crate}: {mods}")
    for crate, fns in sorted(result['longest_functions'].items()):
        print(f"longest {crate}: " + '; '.join(fns))


if __name__ == '__main__':
    main()
