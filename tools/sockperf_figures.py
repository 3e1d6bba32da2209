#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The figures of one `sockperf ping-pong` run, as one JSON object.

    tools/sockperf_figures.py OUTPUT [--full-rtt] [KEY=VALUE ...]

Reads sockperf 3.7's text output (it colours some lines; figures are in
microseconds) and prints {"tool": "sockperf", "p50", "p99", "min", "max"
(ns), "count", "lost"} plus the KEY=VALUE pairs given. With --full-rtt the
output must be a --full-rtt run (without it sockperf prints half the round
trip). Exits 1 with a message when the output holds no percentiles.

    sockperf: ---> percentile 50.000 =   11.571
    sockperf: ---> <MAX> observation = 19985.208
"""
import json
import re
import sys


def figures(txt, full_rtt):
    txt = re.sub(r"\x1b\[[0-9;]*m", "", txt)
    if full_rtt and "Round trip is" not in txt:
        raise ValueError("not a --full-rtt run")
    pct, obs = {}, {}
    for m in re.finditer(r"--->\s*percentile\s+([0-9.]+)\s*=\s*([0-9.]+)", txt):
        pct[float(m.group(1))] = float(m.group(2)) * 1000.0
    for m in re.finditer(r"--->\s*<(MAX|MIN)>\s*observation\s*=\s*([0-9.]+)",
                         txt):
        obs[m.group(1)] = float(m.group(2)) * 1000.0
    n = re.search(r"Total\s+(\d+)\s+observations", txt)
    lost = re.search(r"#\s*dropped messages\s*=\s*(\d+)", txt)
    if 50.0 not in pct or 99.0 not in pct or "MIN" not in obs:
        raise ValueError("no percentiles in sockperf's output")
    return dict(tool="sockperf", p50=round(pct[50.0]), p99=round(pct[99.0]),
                min=round(obs["MIN"]), max=round(obs.get("MAX", 0)),
                count=int(n.group(1)) if n else None,
                lost=int(lost.group(1)) if lost else None)


def main(argv):
    args = [a for a in argv[1:] if a != "--full-rtt"]
    if not args:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        with open(args[0], errors="replace") as f:
            d = figures(f.read(), "--full-rtt" in argv)
    except (OSError, ValueError) as e:
        sys.exit(f"sockperf_figures: {args[0]}: {e}")
    for kv in args[1:]:
        k, _, v = kv.partition("=")
        d[k] = v
    print(json.dumps(d))


if __name__ == "__main__":
    main(sys.argv)
