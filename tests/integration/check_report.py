#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Assertions on a latprobe probe report (JSON) and its --samples CSV.

Exits non-zero with one line per failed check, so an integration test can
`python3 check_report.py --json r.json [...] || fail`.
"""
import argparse
import csv
import json
import math
import sys

STABLE_SERIES = ["count", "min", "mean", "stddev", "max",
                 "p50", "p90", "p99", "p99_9", "p99_99"]
STABLE_PROBES = ["sent", "received", "lost", "duplicated", "reordered"]

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


def series_sane(rep, key):
    s = rep.get(key)
    check(isinstance(s, dict), f"{key} missing")
    if not isinstance(s, dict):
        return
    for k in STABLE_SERIES:
        check(k in s, f"{key}.{k} missing")
    if s.get("count", 0) == 0:
        return
    # A percentile the series has too few samples for is null and named
    # in too_few_samples; the others keep their order.
    for k in ("p50", "p90", "p99", "p99_9", "p99_99"):
        check((s[k] is None) == (k in s.get("too_few_samples", [])),
              f"{key}.{k} is {s[k]} but too_few_samples is "
              f"{s.get('too_few_samples')}")
    order = [v for v in (s["min"], s["p50"], s["p90"], s["p99"],
                         s["p99_9"], s["max"]) if v is not None]
    check(s["min"] > 0, f"{key}.min is {s['min']}, not > 0")
    check(all(a <= b for a, b in zip(order, order[1:])),
          f"{key}: min <= p50 <= p90 <= p99 <= p99.9 <= max fails: {order}")
    check(s["min"] <= s["mean"] <= s["max"], f"{key}: mean outside [min, max]")


def pct_exact(sorted_vals, p):
    """The value at rank ceil(p/100 * n), as the histogram defines it."""
    rank = max(1, math.ceil(p / 100.0 * len(sorted_vals)))
    return sorted_vals[rank - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--samples")
    ap.add_argument("--sent", type=int, help="probes.sent must equal this")
    ap.add_argument("--no-loss", action="store_true",
                    help="every lost probe answered late (a stall, not a loss), but "
                         "for at most 2 in flight at the end")
    ap.add_argument("--remote-ts", action="store_true",
                    help="network_rtt_ns and turnaround_ns present, net <= rtt")
    ap.add_argument("--interrupted", choices=["true", "false"])
    ap.add_argument("--proto")
    args = ap.parse_args()

    try:
        with open(args.json) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_report: {args.json}: not a complete JSON report: {e}")
        return 1

    probes = rep.get("probes", {})
    for k in STABLE_PROBES:
        check(k in probes, f"probes.{k} missing")
    check("tsc" in rep and "hz" in rep["tsc"] and "invariant" in rep["tsc"],
          "tsc.hz / tsc.invariant missing")
    check(isinstance(rep.get("buckets"), list) and all(
        "upper_ns" in b and "count" in b for b in rep.get("buckets", [])),
        "buckets[] of {upper_ns, count} missing")
    series_sane(rep, "rtt_ns")
    sent = probes.get("sent", -1)
    recv = probes.get("received", -1)
    check(sent == recv + probes.get("lost", 0),
          f"sent {sent} != received {recv} + lost {probes.get('lost')}")
    check(rep.get("rtt_ns", {}).get("count") == recv,
          f"rtt_ns.count {rep.get('rtt_ns', {}).get('count')} != received {recv}")
    if rep.get("buckets"):
        check(sum(b["count"] for b in rep["buckets"]) == recv,
              "bucket counts do not add up to probes.received")
    if args.sent is not None:
        check(sent == args.sent, f"probes.sent {sent} != {args.sent}")
    if args.no_loss:
        # A quiet link loses nothing. A loaded 2-vCPU machine can hold an
        # answer past the probe timeout (seen: a 1.7 s stall on memif): that
        # probe is lost and its answer counted late, not gone. Only the
        # probes in flight when the run ends (one a worker; 2 workers at
        # most in these tests) can have their answer come after it.
        lost, late = probes.get("lost", 0), probes.get("late", 0)
        check(sent > 0 and lost - min(late, lost) <= 2,
              f"loss on a quiet link: sent {sent} received {recv}, "
              f"lost {lost} of which {late} answered late")
        if lost:
            print(f"check_report: {args.json}: {lost} lost to the probe "
                  f"timeout, {late} of them answered late (a loaded machine)")
    if args.proto:
        check(rep.get("proto") == args.proto, f"proto {rep.get('proto')}")
    if args.interrupted:
        check(str(rep.get("interrupted")).lower() == args.interrupted,
              f"interrupted is {rep.get('interrupted')}")
    if args.remote_ts:
        series_sane(rep, "network_rtt_ns")
        series_sane(rep, "turnaround_ns")
        r, n = rep.get("rtt_ns", {}), rep.get("network_rtt_ns", {})
        for k in ["min", "p50", "p99", "max"]:
            # null: too few samples for that percentile's interval
            if r.get(k) is not None and n.get(k) is not None:
                check(n[k] <= r[k], f"network_rtt_ns.{k} {n[k]} > rtt_ns.{k} {r[k]}")

    if args.samples:
        with open(args.samples) as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == recv,
              f"--samples has {len(rows)} rows, report received {recv}")
        rtts = sorted(int(r["rtt_ns"]) for r in rows)
        if rtts:
            # The histogram reports the top of the bucket: within 1/128.
            for key, p in [("p50", 50), ("p90", 90), ("p99", 99)]:
                exact = pct_exact(rtts, p)
                got = rep["rtt_ns"][key]
                check(exact <= got <= exact * (1 + 1 / 128) + 1,
                      f"samples {key} {exact} vs report {got}: beyond the "
                      "histogram's 0.78 % error")
            check(rtts[0] == rep["rtt_ns"]["min"] and
                  rtts[-1] == rep["rtt_ns"]["max"],
                  "samples min/max differ from the report's")

    for m in fails:
        print(f"check_report: {m}")
    if not fails:
        print(f"check_report: {args.json}: ok (sent {sent}, received {recv}, "
              f"rtt p50 {rep['rtt_ns'].get('p50')} ns)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
