#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the floors of lib/ (docs/design.md, "Layout"): a module includes
only its own headers and those of modules on a lower floor; no header of
tests/ (the fake wire, test helpers) or app/ is included from lib/, and no
test support lives in lib/. Prints one line per violation; exit 1 if any.

  tools/check_floors.py [--root DIR]
"""
import argparse
import os
import re
import sys

# Keep in step with docs/design.md.
FLOORS = {
    'util': 0,
    'codec': 1, 'timing': 1, 'histogram': 1, 'io': 1, 'host': 1,
    'port': 2, 'sockio': 2, 'reflector': 2, 'prober': 2,
    'report': 3,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..'))
    a = ap.parse_args()
    lib = os.path.join(a.root, 'lib')
    owner = {}  # header name -> module
    bad = []
    files = []
    for mod in sorted(os.listdir(lib)):
        d = os.path.join(lib, mod)
        if not os.path.isdir(d):
            continue
        if mod not in FLOORS:
            bad.append(f'lib/{mod}: module on no floor (add it to '
                       'tools/check_floors.py and docs/design.md)')
            continue
        # Sources in lib/<mod>/, public headers in lib/<mod>/latprobe/
        # (included as "latprobe/<name>.h").
        for sub in ('', 'latprobe'):
            sd = os.path.join(d, sub)
            if not os.path.isdir(sd):
                continue
            for name in sorted(os.listdir(sd)):
                if name.endswith(('.c', '.h')):
                    files.append((mod, os.path.join(sub, name)))
                    if name.endswith('.h'):
                        if sub != 'latprobe':
                            bad.append(f'lib/{mod}/{name}: a header '
                                       f'belongs in lib/{mod}/latprobe/')
                        owner[name] = mod
    tests = set()
    for dp, _, fs in os.walk(os.path.join(a.root, 'tests')):
        tests.update(f for f in fs if f.endswith('.h'))
    for mod, name in files:
        base = os.path.basename(name)
        if 'fake' in base or base.startswith('test_'):
            bad.append(f'lib/{mod}/{name}: test support belongs in '
                       'tests/support, not in a production library')
        with open(os.path.join(lib, mod, name), encoding='utf-8') as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            h = os.path.basename(inc)
            where = f'lib/{mod}/{name}: #include "{inc}"'
            if h not in owner:
                what = 'a test header' if h in tests else 'not a lib/ header'
                bad.append(f'{where}: {what}')
                continue
            dep = owner[h]
            if dep != mod and FLOORS[dep] >= FLOORS[mod]:
                bad.append(f'{where}: {dep} (floor {FLOORS[dep]}) is not '
                           f'below {mod} (floor {FLOORS[mod]})')
    for b in bad:
        print(b)
    if bad:
        print(f'check_floors: {len(bad)} violation(s)', file=sys.stderr)
        return 1
    print(f'check_floors: {len(files)} files in lib/, no upward include')
    return 0


if __name__ == '__main__':
    sys.exit(main())
