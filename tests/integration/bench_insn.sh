#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/bench --only insn, one quick repetition: the reflector under
# callgrind wrote its report (its tx counter is read), the PMD's share comes
# from the windowed model (three windows, the third predicted within the
# stated tolerance) or is null with the reason, and the issue-17 keys are
# numbers. Asserts the plumbing and the model's consistency, not a count
# (counts are the bench's business, docs/performance.md).
. "$(dirname "$0")/lib.sh"
need_env
lp_have valgrind || lp_skip "needs valgrind (Debian: valgrind; tools/setup installs it)"
lp_have callgrind_control || lp_skip "needs callgrind_control (Debian: valgrind)"
lp_begin
build=$(dirname "$(dirname "$LATPROBE")")
[ -f "$build/build.ninja" ] || lp_skip "latprobe is not in a meson build directory"

bench_run insn 'insn.refl' 'insn.w*.out'
grep -q '^pmd_instructions_per_answer ' "$WORK/bench.out" ||
	bench_fail "no pmd_instructions_per_answer line in the table"

$PY - "$WORK/bench.json" "$WORK/bench/insn.refl.json" <<'EOF' || bench_fail "bench JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)
# The reflector under valgrind wrote its report (it was lost once in three
# runs: timeout(1) passed the bench's SIGINT on twice).
try:
    refl = json.load(open(sys.argv[2]))
    need(refl["counters"]["tx"] > 0, "the reflector's report counts no tx")
except (OSError, ValueError, KeyError) as e:
    bad.append("no whole report from the reflector under callgrind: %s" % e)
for k in ("reflector_instructions_per_answer", "prober_instructions_per_probe"):
    need(num(d.get(k)) and d[k] > 0, "%s %r" % (k, d.get(k)))
cg = d.get("figures", {}).get("instructions", {})
m = cg.get("pmd_model", {})
need(len(m.get("windows", [])) == 3, "%d model windows, want 3" % len(m.get("windows", [])))
for k in ("pmd_instructions_per_answer", "bare_instructions_per_answer"):
    need(k in d, "key %s missing" % k)
if m.get("holds"):
    for k in ("pmd_instructions_per_answer", "bare_instructions_per_answer"):
        need(num(d.get(k)) and d[k] > 0, "%s %r with the model holding" % (k, d.get(k)))
    rx, tx = cg.get("pmd_rx_instructions_per_answer"), cg.get("pmd_tx_instructions_per_answer")
    need(num(rx) and rx > 0 and num(tx) and tx > 0, "PMD rx %r tx %r" % (rx, tx))
    if num(rx) and num(tx) and num(d.get("pmd_instructions_per_answer")):
        need(abs(d["pmd_instructions_per_answer"] - rx - tx) < 1e-6,
             "pmd_instructions_per_answer is not rx + tx")
    err = m.get("check_error_per_answer")
    need(num(err) and abs(err) <= m.get("tolerance_per_answer", 0),
         "the check window is off by %r per answer" % err)
    e, dc = cg.get("pmd_empty_poll_instructions"), cg.get("pmd_disconnected_poll_instructions")
    need(num(e) and e > 0, "empty poll %r" % e)
    need(num(dc) and dc > 0, "disconnected poll %r" % dc)
else:
    need(d.get("pmd_instructions_per_answer") is None,
         "a PMD share without the model holding")
    need(m.get("reason"), "the PMD share is null without a reason")
if bad:
    print("\n".join(bad), file=sys.stderr)
    print(json.dumps(dict((k, d.get(k)) for k in d if "instruction" in k), indent=1),
          file=sys.stderr)
    sys.exit(1)
EOF
echo "bench_insn: ok ($(grep -E '^(reflector|pmd)_instructions_per_answer|PMD share' "$WORK/bench.out" | tr -s ' ' | paste -sd';'))"
