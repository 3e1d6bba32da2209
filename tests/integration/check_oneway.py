#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks on a probe report's one-way delays: tests/integration/oneway.sh."""
import argparse
import csv
import json
import sys


def fail(msg):
    print("check_oneway: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--samples")
    ap.add_argument("--sent", type=int)
    ap.add_argument("--same-clock", action="store_true")
    ap.add_argument("--expect", choices=["valid-or-bound", "invalid"], default="valid-or-bound")
    ap.add_argument("--reason", action="append", default=[])
    ap.add_argument("--offset-ns", type=int, default=0)
    ap.add_argument("--covered", action="store_true",
                    help="the reflector's claimed sync error covers the offset")
    ap.add_argument("--true-json", help="a run without the offset: the true one-way delays")
    a = ap.parse_args()
    with open(a.json) as f:
        r = json.load(f)
    ow = r.get("one_way")
    if ow is None:
        fail("no one_way in the JSON")
    for k in ("forward_ns", "reverse_ns"):
        if k not in r:
            fail("no %s series" % k)
        for key in ("count", "min", "mean", "stddev", "max", "p50", "p90", "p99", "p99_9", "p99_99"):
            if key not in r[k]:
                fail("%s lacks %s (rtt_ns's keys)" % (k, key))
    bound = ow["bound_ns"]
    # An unknown bound (null) never goes with valid figures; the sum check
    # below still has the two mappings' figures when they are known.
    if bound is None:
        if ow["valid"]:
            fail("valid with an unknown bound")
        if not ow["bound_reason"] or ow["bound_reason"] not in ow["reasons"]:
            fail("bound null, bound_reason %s not among %s" % (ow["bound_reason"], ow["reasons"]))
    elif ow["bound_reason"] is not None:
        fail("bound %d with bound_reason %s" % (bound, ow["bound_reason"]))
    tol = bound if bound is not None else \
        (ow["local"]["mapping_error_max_ns"] or 0) + ow["reflector"]["error_estimate_max_ns"]
    recv = r["probes"]["received"]
    if a.sent is not None and ow["answers"] != recv:
        fail("one_way.answers %d != received %d" % (ow["answers"], recv))
    if ow["same_clock"] != a.same_clock:
        fail("same_clock is %s" % ow["same_clock"])
    # Every positive answer is in its series; the others are counted.
    if r["forward_ns"]["count"] + ow["forward_nonpositive"] != ow["answers"]:
        fail("forward count %d + nonpositive %d != answers %d" %
             (r["forward_ns"]["count"], ow["forward_nonpositive"], ow["answers"]))
    if r["reverse_ns"]["count"] + ow["reverse_nonpositive"] != ow["answers"]:
        fail("reverse count + nonpositive != answers")
    reasons = ow["reasons"]
    if ow["valid"] != (len(reasons) == 0):
        fail("valid %s with reasons %s" % (ow["valid"], reasons))
    for want in a.reason:
        if want not in reasons:
            fail("reason %s not given (%s)" % (want, reasons))
    neg = ow["forward_nonpositive"] + ow["reverse_nonpositive"]
    if neg and "negative_delay" not in reasons:
        fail("%d delays <= 0 and no negative_delay reason" % neg)
    if neg:
        worst = -min(ow["forward_min_signed_ns"], ow["reverse_min_signed_ns"])
        if ow["clocks_disagree_ns"] != worst:
            fail("clocks_disagree_ns %d != %d" % (ow["clocks_disagree_ns"], worst))
    if a.expect == "invalid" and ow["valid"]:
        fail("valid, expected refused")
    if a.expect == "valid-or-bound" and not ow["valid"]:
        if reasons != ["bound_exceeds_delay"]:
            fail("refused for %s" % reasons)
        print("check_oneway: note: refused only for the bound (+-%d ns vs forward p50 %d, reverse p50 %d)"
              % (bound, r["forward_ns"]["p50"], r["reverse_ns"]["p50"]))
    if a.offset_ns and a.covered and (bound is None or bound < abs(a.offset_ns)):
        fail("bound %d does not cover the offset %d" % (bound, a.offset_ns))
    # Never a confident wrong direction: a direction named (valid, medians
    # further apart than twice the bound) must be the one a run without
    # the offset names, when that one names one.
    if ow["valid"] and a.true_json:
        with open(a.true_json) as f:
            t = json.load(f)
        f_, v_ = r["forward_ns"]["p50"], r["reverse_ns"]["p50"]
        tf, tv, tb = t["forward_ns"]["p50"], t["reverse_ns"]["p50"], t["one_way"]["bound_ns"]
        mine = "f" if f_ > v_ + 2 * bound else "r" if v_ > f_ + 2 * bound else ""
        truth = "f" if tf > tv + 2 * tb else "r" if tv > tf + 2 * tb else ""
        if mine and truth and mine != truth:
            fail("a confident wrong direction: %s slower here, %s without the offset" % (mine, truth))
    if a.samples:
        with open(a.samples) as f:
            rows = list(csv.DictReader(f))
        n = 0
        for row in rows:
            if row["forward_ns"] == "":
                fail("seq %s: no forward_ns" % row["seq"])
            fwd, rev, net = int(row["forward_ns"]), int(row["reverse_ns"]), int(row["network_rtt_ns"])
            # T1..T4 round to the ns (NTP's 2^-32 s steps) and the mapping
            # may move between T1 and T4: a few ns, well inside the bound.
            if abs(fwd + rev - net) > tol + 4:
                fail("seq %s: forward %d + reverse %d != network RTT %d (within %d)" %
                     (row["seq"], fwd, rev, net, tol))
            if a.same_clock and not a.offset_ns and (fwd <= 0 or rev <= 0):
                fail("seq %s: forward %d, reverse %d: not both positive on one host's clock" %
                     (row["seq"], fwd, rev))
            n += 1
        if n != recv:
            fail("%d samples, %d received" % (n, recv))
        print("check_oneway: %d answers: forward + reverse == network RTT within +-%d ns%s" %
              (n, tol + 4, ", both > 0" if a.same_clock and not a.offset_ns else ""))


main()
