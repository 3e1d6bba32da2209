#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/bench --only openloop, one quick repetition: the testpmd io
# baseline gives a packet rate, every search step ran latprobe probe --rate
# and was judged from its report, the strict and kept maxima are consistent
# with the steps that met them, and the issue-12 keys are in the JSON.
# Asserts the plumbing, not a speed: figures on this shared machine are the
# bench's business (docs/performance.md).
. "$(dirname "$0")/lib.sh"
need_env
lp_have dpdk-testpmd || lp_skip "needs dpdk-testpmd (Debian: dpdk; tools/setup installs it)"
lp_begin
build=$(dirname "$(dirname "$LATPROBE")")
[ -f "$build/build.ninja" ] || lp_skip "latprobe is not in a meson build directory"
help=$("$LATPROBE" probe --help 2>&1 || true)
[[ $help == *"--rate "* ]] || fail "latprobe probe has no --rate"

bench_run openloop 'tpio.*.srv' 'tpio.*.err'
grep -q 'openloop_ratio_to_testpmd_io ' "$WORK/bench.out" ||
	bench_fail "no openloop_ratio_to_testpmd_io line in the table"

$PY - "$WORK/bench.json" <<'EOF' || bench_fail "bench JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
need(d.get("openloop_status") == "measured", "openloop_status %r" % d.get("openloop_status"))
need((d.get("testpmd_io_pps") or 0) > 0, "testpmd_io_pps %r" % d.get("testpmd_io_pps"))
keys = ["openloop_ratio_to_testpmd_io", "openloop_ratio_to_testpmd_io_kept",
        "openloop_max_pps", "openloop_max_pps_kept", "openloop_points_basis",
        "cpu_stalls_over_10us_per_s"]
keys += ["openloop_%s_ns_at_%dpct" % (s, p) for p in (10, 50, 90)
         for s in ("p50", "p99", "intended_p50", "intended_p99")]
for k in keys:
    need(k in d, "key %s missing" % k)
runs = d.get("figures", {}).get("openloop", {}).get("runs", [])
need(len(runs) == 1, "%d open-loop repetitions, want 1" % len(runs))
for r in runs:
    for crit in ("strict", "kept"):
        steps = r.get("steps_" + crit, [])
        need(steps, "no %s steps" % crit)
        for s in steps:
            need(s.get("sent", 0) > 0 and "behind_max_ns" in s,
                 "%s step at %s pps: no probe report (%s)" % (crit, s.get("rate"), s.get("error")))
        met = [s["rate"] for s in steps if s.get("ok_" + crit)]
        top = r.get("max_pps" if crit == "strict" else "max_pps_kept")
        # The maximum is the highest rate a step met, or none.
        need(top == (max(met) if met else None),
             "%s max %r but steps met %r" % (crit, top, met))
        # The criteria as documented, recomputed from the step's figures.
        for s in steps:
            if "sent" not in s:
                continue
            lossless = s["lost"] / s["sent"] < 0.001
            want = lossless and (s["behind_max_ns"] <= 10000 if crit == "strict"
                                 else s["behind_p50_ns"] <= 10000)
            need(s["ok_" + crit] == want, "%s step %r judged wrong" % (crit, s))
    basis = r.get("points_basis")
    need(basis in ("strict", "kept", "none"), "points_basis %r" % basis)
    if basis != "none":
        base = r["max_pps"] if basis == "strict" else r["max_pps_kept"]
        pcts = sorted(p["pct"] for p in r.get("points", []))
        need(pcts == [10, 50, 90], "points at %r" % pcts)
        for p in r.get("points", []):
            need(p["rate"] == base * p["pct"] // 100, "point %r not at its share of %d" % (p, base))
            need(p.get("sent", 0) > 0, "point at %d %% has no report" % p["pct"])
st = d.get("figures", {}).get("cpu_stall", {}).get("runs", [])
need(len(st) == 1 and st[0].get("seconds", 0) > 0, "cpu_stall runs %r" % st)
for b in bad:
    print("bench_openloop:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
echo "bench_openloop: ok ($(grep -E 'openloop max pps|testpmd io pps' "$WORK/bench.out" | tr -s ' ' | paste -sd';'))"
