#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Costs out of a callgrind profile, by function and by call arc.

  tools/cgcost.py CALLGRIND.OUT [FUNCTION ...]

Prints a JSON object: "total" (the instructions collected), and for each
FUNCTION asked for: "self" (instructions in its own code), "calls" and
"inclusive" (summed over the calls into it that were collected, so with
--toggle-collect=F only those made while F ran) and "callers" (the same,
per calling function). A function callgrind names more than once (inlined
copies and the real body, "foo" and "foo.part.0") counts under every name
that is the FUNCTION or starts with FUNCTION + ".".

It reads callgrind's own file format (name compression, "calls=" lines
followed by the inclusive cost of that call, see the callgrind manual,
"Callgrind Format Specification"), so no annotate output is parsed.
tools/bench uses it for the instructions-per-answer figures.
"""

import json
import re
import sys
from collections import defaultdict

NAME_RE = re.compile(r"^(fn|cfn|ob|cob|fl|fi|fe|cfi|cfl)=(?:\((\d+)\))?\s*(.*)$")


def parse(path):
    """(total, self cost per fn, arcs {(caller, callee): [calls, incl]})."""
    names = {}
    self_cost = defaultdict(int)
    arcs = defaultdict(lambda: [0, 0])
    fn = cfn = None
    pending = None
    total = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = NAME_RE.match(line)
            if m:
                kind, ident, name = m.groups()
                space = "fn" if kind in ("fn", "cfn") else kind.lstrip("c")
                if ident is not None:
                    if name:
                        names[(space, ident)] = name
                    else:
                        name = names.get((space, ident), "?" + ident)
                if kind == "fn":
                    fn = name
                elif kind == "cfn":
                    cfn = name
                continue
            if line.startswith("calls="):
                pending = int(line[6:].split()[0])
                continue
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            cost = int(parts[1]) if len(parts) > 1 else 0
            if pending is not None:
                a = arcs[(fn, cfn)]
                a[0] += pending
                a[1] += cost
                pending = None
            else:
                self_cost[fn] += cost
    if total is None:
        total = sum(self_cost.values())
    return total, self_cost, arcs


def matches(name, want):
    return name == want or name.startswith(want + ".")


def costs(path, funcs):
    total, self_cost, arcs = parse(path)
    out = {"total": total, "functions": {}}
    for want in funcs:
        d = {"self": 0, "calls": 0, "inclusive": 0, "callers": {}}
        for name, c in self_cost.items():
            if name is not None and matches(name, want):
                d["self"] += c
        for (caller, callee), (calls, incl) in arcs.items():
            if callee is None or not matches(callee, want):
                continue
            # A recursive call's cost is already inside the outer call.
            if caller is not None and matches(caller, want):
                continue
            d["calls"] += calls
            d["inclusive"] += incl
            c = d["callers"].setdefault(caller or "?", [0, 0])
            c[0] += calls
            c[1] += incl
        out["functions"][want] = d
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    try:
        print(json.dumps(costs(argv[1], argv[2:]), indent=1))
    except OSError as e:
        print("cgcost: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
