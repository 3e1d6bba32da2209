#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the floors of lib/ (docs/design.md, "Layout"): a module includes
only its own headers and those of modules on a lower floor; no header of
tests/ (the fake wire, test helpers) or app/ is included from lib/, and no
test support lives in lib/. And the floors of app/ (APP_FLOORS): a file
includes app/ headers of its own module or of a lower floor, or of its own
floor below the commands' (commands never include each other's), and the
modules' includes make no circle. Prints one line per violation; exit 1 if
any.

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
# app/: module -> floor (docs/design.md, "The app floor"). A module is a
# file's name without .c/.h, but for the groups in APP_GROUPS.
APP_FLOORS = {
    # leaves: values, messages, pre-EAL checks, pure parsers
    'exit': 0, 'msg': 0, 'cli': 0, 'sigrule': 0, 'eal_diag': 0, 'log': 0,
    'pinglist': 0, 'capture': 0, 'preflight': 0, 'version': 0,
    # what the commands share: app.h (common.c), outputs, EAL devices
    'common': 1, 'hlog_out': 1, 'metrics_srv': 1, 'eal_devs': 1,
    # the clock thread of one-way delays (probe, reflect, doctor)
    'oneway': 1,
    # the run skeleton of probe and reflect, and doctor's brief it prints
    'run': 2, 'doctor': 2,
    # the commands and main()
    'probe': 3, 'reflect': 3, 'cmd_info': 3, 'cmd_plot': 3,
    'cmd_compare': 3, 'cmd_setup': 3, 'main': 3,
}
APP_COMMANDS = 3
APP_GROUPS = {
    'app.h': 'common', 'version.h.in': 'version', 'cmd_doctor.c': 'doctor',
    'cmd_probe.c': 'probe', 'cmd_reflect.c': 'reflect',
    # services of the run skeleton that run.c calls and that read struct
    # app_run: stall detection's host view and reports, link
    # and removal events and the path over the run
    'stalls.c': 'run', 'stalls.h': 'run',
    'link_events.c': 'run', 'link_events.h': 'run',
    # the path the packets take over the run (failover)
    'path_watch.c': 'run', 'path_watch.h': 'run',
}
# A command split by concern: <cmd>.h and <cmd>_*.c are one module.
APP_SPLIT = ('probe', 'reflect')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def app_module(name):
    if name in APP_GROUPS:
        return APP_GROUPS[name]
    for cmd in APP_SPLIT:
        if name == cmd + '.h' or (name.startswith(cmd + '_') and
                                  name.endswith('.c')):
            return cmd
    return re.sub(r'\.(c|h)$', '', name)


def check_app(root, bad):
    """The app floor; returns how many files it read."""
    app = os.path.join(root, 'app')
    names = sorted(n for n in os.listdir(app) if n.endswith(('.c', '.h')))
    deps = {}  # module -> {module: first "file: #include" that makes it}
    for name in names:
        mod = app_module(name)
        if mod not in APP_FLOORS:
            bad.append(f'app/{name}: module {mod} on no floor (add it to '
                       'APP_FLOORS in tools/check_floors.py and to '
                       'docs/design.md)')
            continue
        with open(os.path.join(app, name), encoding='utf-8') as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            if inc.startswith('latprobe/'):
                continue  # lib/: checked above, app/ may use all of it
            dep = app_module(inc)
            where = f'app/{name}: #include "{inc}"'
            if dep not in APP_FLOORS:
                bad.append(f'{where}: not a header of an app/ module')
                continue
            if dep == mod:
                continue
            fm, fd = APP_FLOORS[mod], APP_FLOORS[dep]
            if fd > fm:
                bad.append(f'{where}: {dep} (floor {fd}) is above {mod} '
                           f'(floor {fm})')
            elif fd == fm == APP_COMMANDS:
                bad.append(f'{where}: one command includes another\'s '
                           f'header ({dep})')
            deps.setdefault(mod, {}).setdefault(dep, where)
    # Sideways includes below the commands are allowed, circles are not.
    state = {}

    def visit(m, path):
        state[m] = 1
        for d in sorted(deps.get(m, {})):
            if state.get(d) == 1:
                cyc = path[path.index(d):] + [d]
                hops = '; '.join(deps[a][b] for a, b in zip(cyc, cyc[1:]))
                bad.append(f'app/: include circle {" -> ".join(cyc)} '
                           f'({hops})')
            elif d not in state:
                visit(d, path + [d])
        state[m] = 2
    for m in sorted(deps):
        if m not in state:
            visit(m, [m])
    return len(names)


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
    n_app = check_app(a.root, bad)
    for b in bad:
        print(b)
    if bad:
        print(f'check_floors: {len(bad)} violation(s)', file=sys.stderr)
        return 1
    print(f'check_floors: {len(files)} files in lib/, {n_app} in app/, no '
          'upward include, no circle in app/')
    return 0


if __name__ == '__main__':
    sys.exit(main())
