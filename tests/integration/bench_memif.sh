#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/bench --only memif, one quick repetition: every memif pair ran,
# the cross pairs among them (rawping's STAMP frame answered by
# latprobe reflect's STAMP engine, latprobe probe answered by testpmd
# 5tswap), and their keys are numbers in the JSON, the parts of the gap
# adding up to it. Asserts the plumbing, not a speed (docs/performance.md).
. "$(dirname "$0")/lib.sh"
need_env
lp_have dpdk-testpmd || lp_skip "needs dpdk-testpmd (Debian: dpdk; tools/setup installs it)"
lp_begin
build=$(dirname "$(dirname "$LATPROBE")")
[ -f "$build/build.ninja" ] || lp_skip "latprobe is not in a meson build directory"

bench_run memif 'memif_*.err'
for row in "memif: rawping -> latprobe reflect" \
	"memif: latprobe probe -> testpmd 5tswap" memif_reflector_ratio_to_bare \
	memif_prober_ratio_to_bare "latprobe reflect instead of 5tswap"; do
	grep -qF -- "$row " "$WORK/bench.out" || bench_fail "no '$row' line in the table"
done

$PY - "$WORK/bench.json" "$WORK/bench/memif_rawping_to_reflector.1.refl.json" <<'EOF' || bench_fail "bench JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)
keys = ["memif_ratio_to_bare", "memif_reflector_ratio_to_bare",
        "memif_prober_ratio_to_bare", "memif_bare_86b_ratio_to_bare"]
keys += ["%s_%s_us" % (k, p) for p in ("p50", "p99")
         for k in ("memif_rawping_to_reflector", "memif_probe_to_5tswap",
                   "memif_rawping_to_5tswap", "memif_bare_86b")]
for k in keys:
    need(num(d.get(k)) and d[k] > 0, "%s = %r, want a positive number" % (k, d.get(k)))
fig = d.get("figures", {})
# kind: (tool, frame, frame length) of its one run
want = {"memif_bare": ("rawping", "raw", 60), "memif_bare_86b": ("rawping", "raw", 86),
        "memif_rawping_to_5tswap": ("rawping", "stamp", 86),
        "memif_rawping_to_reflector": ("rawping", "stamp", 86),
        "memif_probe_to_5tswap": ("latprobe", None, None),
        "memif_latprobe": ("latprobe", None, None)}
for kind, (tool, frame, flen) in want.items():
    runs = fig.get(kind, {}).get("runs", [])
    need(len(runs) == 1, "%s: %d runs, want 1" % (kind, len(runs)))
    for r in runs:
        need(r.get("tool") == tool, "%s: tool %r" % (kind, r.get("tool")))
        # Answered, most of it: the bench's 5 ms timeout is short for a
        # loaded machine, so a few lost are load, not a defect of memif.
        need(r.get("count", 0) > 0 and r.get("lost", 1) < r["count"],
             "%s: %r answered, %r lost" % (kind, r.get("count"), r.get("lost")))
        if frame is not None:
            need((r.get("frame"), r.get("frame_len")) == (frame, flen),
                 "%s: frame %r %r, want %s %d" % (kind, r.get("frame"),
                                                   r.get("frame_len"), frame, flen))
t = d.get("memif_reflector_turnaround_p50_ns")
need(num(t) and t >= 0, "memif_reflector_turnaround_p50_ns = %r" % t)
basis = d.get("memif_parts_basis")
need(str(basis).startswith(("steady ", "all ")), "memif_parts_basis %r" % basis)
# The parts of the gap, and that they add up to it.
parts = d.get("memif_parts_ns") or {}
names = ("gap_ns", "size_ns", "echo_5tswap_ns", "reflector_ns", "prober_ns", "rest_ns")
for k in names:
    need(num(parts.get(k)), "memif_parts_ns.%s = %r" % (k, parts.get(k)))
if all(num(parts.get(k)) for k in names):
    total = sum(parts[k] for k in names[1:])
    need(abs(total - parts["gap_ns"]) < 0.5,
         "parts add up to %.1f, gap %.1f" % (total, parts["gap_ns"]))
# The reflector answered rawping's probes with its STAMP engine.
refl = json.load(open(sys.argv[2]))
stamp = sum(w["answered_by"]["stamp"] for w in refl["workers"])
sent = fig.get("memif_rawping_to_reflector", {}).get("runs", [{}])[0].get("count", 0)
need(stamp >= sent > 0, "reflector answered %d STAMP probes, rawping counted %d" % (stamp, sent))
for b in bad:
    print("bench_memif:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
echo "bench_memif: ok ($(grep -E '^memif_(reflector|prober)_ratio_to_bare ' "$WORK/bench.out" | tr -s ' ' | paste -sd';'))"
