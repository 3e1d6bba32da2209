#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Normalise one recorded app run (tests/integration/app_golden.sh) so that
two runs of the same command compare equal while every label, JSON key,
exact count and the structure of the output still has to match.

A run's measured values (latencies, rates, timestamps, durations, the TSC
frequency, how many intervals or bucket rows a run happened to have) differ
from run to run; its counts do not (ring loopback and kernel loopback lose
nothing, -n is exact, warm-up is fixed). So:

- text (stdout, stderr, CSV): every number that is not part of a name or
  an IPv4 address is replaced by '#', except on the
  lines that hold the probe counters ("Sent = ...", "Duplicated = ...") and
  the reflector's counter lines ("  answered.stamp   600"), which are kept
  as they are; durations lose their unit ("#t": 900ns and 1.2us are the
  same size of number), MAC addresses become <mac>, runs of spaces one space
  (column widths follow the values), the rows of the targets table (ordered
  by a measured p99) are sorted, DPDK's own "EAL: " lines are dropped; then
  consecutive lines that became identical are folded into one (a bucket
  table or the interval lines, whatever their number of rows).
- JSON: the keys, their order and every value's type are kept; numbers are
  kept only under the keys in EXACT (counts and settings) and inside the
  objects in EXACT_UNDER (the counters), other numbers
  become '#'; strings are masked as text; consecutive array elements that
  became identical are folded into one; the hdr strings become '<hdr>'.
- SUBST (the work directory, ports chosen at run time) are replaced by a
  name before anything else, where they stand whole (not inside a longer
  number); the host name of the "Measured ... on HOST," line is <hostname>.

usage: app_golden_norm.py [--subst VALUE=NAME]... KIND FILE
  KIND: text | json | raw (raw: only SUBST)
"""
import json
import re
import sys

# JSON keys whose numbers are exact in these runs (counts and settings).
EXACT = {
    "format_version", "sent", "received", "lost", "duplicated", "reordered",
    "warmup", "size", "lcores", "interval_ns",
    "timeout_ns", "rate_pps", "seed", "window_slots", "flows", "port",
    "new_flow_every", "answered", "answered.stamp", "answered.sockperf",
    "answered.udp_echo", "answered.arp", "dropped.not_ours", "workers",
    "checksum", "too_short", "other_flow", "never_sent", "not_ip", "arp",
    "unreachable", "auth", "auth_failed", "nombuf", "reassembly_failed",
    "l4_partial", "resets", "unreachable_net", "unreachable_host",
    "unreachable_port", "unreachable_admin", "unreachable_other",
    "timeouts", "count_sent",
}
# Objects whose numbers are all exact: the probe and reflector counters.
EXACT_UNDER = {"probes", "counters"}
# Arrays and objects whose counts are cut by time (--interval-report).
MEASURED_UNDER = {"intervals"}
# Strings that name the machine or the moment.
MASK_STR = {"start_utc", "host", "cpu_model", "kernel", "dpdk_version", "hdr"}

# A number not part of a name (p99, net_ring0 and h5- stay), or an IPv4
# address, which is kept (the runs use fixed addresses).
NUM = re.compile(r"(?<![A-Za-z_\d.])(\d+\.\d+\.\d+\.\d+(?![\d.])|"
                 r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
# A duration's unit follows from its size: "#t" for any of them.
DUR = re.compile(r"#(?:ns|us|µs|ms|s)\b")
MAC = re.compile(r"\b[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}\b")
TARGET_ROW = re.compile(r"^\s+\[?[0-9a-f:.]+\]?(?::\S+)?\s")
# Lines a report prints or not after a measured value (open loop: more than
# 1 % of the sends late, which a loaded CPU decides).
# One-way: on one host's unsynchronised clock, whether the bound
# exceeds a median of ~100 ns, or a delay came out <= 0, is measured.
VARIES = re.compile(r"^\s*the sender did not keep the rate |"
                    r"^\s*- the bound \S+ is not below the median |"
                    r"^\s*- \d+ forward and \d+ reverse delays were <= 0")
# JSON values of one_way.reasons that a measurement decides (as above).
VARIES_REASON = {"bound_exceeds_delay", "negative_delay"}
# The stall histogram's line: how many buckets a run filled.
STALL_BUCKETS = re.compile(r"<=#t: #(?: <=#t: #)+")
# The percentile table's "without host-affected" column holds as many
# probes as the host let through unaffected (a loaded host: the kernel
# backend's probes on a busy CPU): whether a cell is a figure, "-" with the
# count it needs or "-" alone (none) is a measured outcome, like its values.
PCT_CELL = r"(?:#t \[#-#\]|- \(too few: needs [#,]+\)|-)"
UNAFFECTED_CELL = re.compile(r"^( p[\d.]+ %s) %s$" % (PCT_CELL, PCT_CELL))
# A percentile's interval: its bounds carry a unit of their own when their
# size differs from the figure's ("[340ns-10.43us]").
CI_UNITS = re.compile(r"\[#(?:t)?-#(?:t)?\]")
# The series without host-affected probes: which of its percentiles have
# enough samples follows from the measured split (as above).
UNAFFECTED_MEASURED = {"ci95", "too_few_samples"}
# The reflector's Error Estimate moves with its measured error.
EE_CHANGED = re.compile(r"\), changed # times?$")
MEASURED_ON = re.compile(r"^(Measured <utc> on )[^,]*,")
UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
KEEP_LINE = re.compile(r"^\s*(Sent|Duplicated) = |^ +[a-z_]+(\.[a-z_]+)* +\d+$")
subst = []


def do_subst(s):
    # Whole values only: a port number inside a measured one stays.
    for value, name in subst:
        s = re.sub(r"(?<![\d\w])%s(?![\d])" % re.escape(value), name, s)
    return s


def mask_text(s):
    s = UTC.sub("<utc>", s)
    s = MEASURED_ON.sub(r"\1<hostname>,", s)
    s = MAC.sub("<mac>", s)
    s = NUM.sub(lambda m: m.group(0) if m.group(0).count(".") == 3 else "#", s)
    return DUR.sub("#t", s)


def sort_target_rows(lines):
    """The targets table is sorted by a measured p99: sort each run of its
    rows by text."""
    out, run = [], []
    for line in lines + [None]:
        if line is not None and TARGET_ROW.match(line):
            run.append(line)
            continue
        out.extend(sorted(run))
        run = []
        if line is not None:
            out.append(line)
    return out


def fold(items):
    out = []
    for x in items:
        if not out or out[-1] != x:
            out.append(x)
    return out


def norm_text(data):
    lines = []
    for line in do_subst(data).split("\n"):
        if line.startswith("EAL: ") or VARIES.match(line):
            continue  # DPDK's own log lines, or a load-dependent hint
        line = UTC.sub("<utc>", line) if KEEP_LINE.match(line) else mask_text(line)
        # Column widths follow the values: one space for any run of them.
        line = re.sub(r"\s+", " ", line)
        line = EE_CHANGED.sub(")", STALL_BUCKETS.sub("<=#t: #", line))
        line = line.replace("# stall,", "# stalls,")  # a measured count
        if line.strip() == "<=#t: #":
            continue  # the stall histogram: none on a quiet run
        line = CI_UNITS.sub("[#-#]", line)
        line = UNAFFECTED_CELL.sub(r"\1 <unaffected>", line)
        lines.append(line)
    return "\n".join(fold(sort_target_rows(lines)))


def norm_json(v, key=None, exact=False, measured=False):
    if key in MEASURED_UNDER:
        measured = True
    if isinstance(v, dict):
        exact = exact or key in EXACT_UNDER
        if key == "rtt_ns_unaffected":
            return {k: "<measured>" if k in UNAFFECTED_MEASURED
                    else norm_json(x, k, exact, measured)
                    for k, x in v.items()}
        return {k: norm_json(x, k, exact, measured) for k, x in v.items()}
    if isinstance(v, list):
        # The stalls' duration histogram lists the buckets a run filled
        # (none on a quiet run): how many is measured.
        if key == "histogram" and all(
                isinstance(x, dict) and set(x) == {"upper_ns", "count"}
                for x in v):
            return "<stall buckets>"
        if key == "too_few_samples" and measured:
            # An interval's count is cut by time: which of its
            # percentiles have enough samples is too.
            return "<measured>"
        if key == "reasons":
            v = [x for x in v if x not in VARIES_REASON]
        return fold([norm_json(x, key, exact, measured) for x in v])
    exact = (exact or key in EXACT) and not measured
    if isinstance(v, bool):
        return v
    if v is None:
        # A driver's counter may be unknown (null) in one run and not in
        # the next.
        return None if exact else "#"
    if isinstance(v, (int, float)):
        return v if exact else "#"
    if isinstance(v, str):
        if key in MASK_STR:
            return "<%s>" % key
        return mask_text(do_subst(v))
    raise TypeError(type(v))


def main(argv):
    args = argv[1:]
    while args and args[0] == "--subst":
        value, name = args[1].split("=", 1)
        if value:
            subst.append((value, "<%s>" % name))
        args = args[2:]
    kind, path = args
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        data = f.read()
    if kind == "raw":
        sys.stdout.write(do_subst(data))
    elif kind == "text":
        sys.stdout.write(norm_text(data))
    elif kind == "json":
        doc = json.loads(data)
        sys.stdout.write(json.dumps(norm_json(doc), indent=1, ensure_ascii=False) + "\n")
    else:
        raise SystemExit("kind: text, json or raw")


if __name__ == "__main__":
    main(sys.argv)
