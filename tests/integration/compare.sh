#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# latprobe compare on synthetic reports (make_report.py: log-normal RTTs,
# its own HdrHistogram V2 encoder): verdicts, --fail-if-slower's exit 7,
# groups and labels, --json, refusal of other protocols/sizes unless
# --force, warnings on other CPUs/drivers, clear errors on bad files.
# Needs no DPDK and no root.
. "$(dirname "$0")/lib.sh"
lp_begin
mk() { $PY "$LP_TOP/tests/integration/make_report.py" "$@" || fail "make_report $*"; }
cmp() { "$LATPROBE" compare "$@"; }
jget() { # FILE a/0/b: like json_get, numbers index arrays
	$PY -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("/"): v=v[int(k)] if k.isdigit() else v[k]
print(v)' "$1" "$2"
}

mk "$WORK/a1.json" --median 10000 --seed 1
mk "$WORK/a2.json" --median 10400 --seed 2
mk "$WORK/a3.json" --median 9700 --seed 3
mk "$WORK/a4.json" --median 10000 --seed 4
mk "$WORK/b1.json" --median 12000 --seed 5
mk "$WORK/b2.json" --median 12300 --seed 6
mk "$WORK/b3.json" --median 11800 --seed 7
mk "$WORK/sp.json" --median 10000 --seed 8 --proto sockperf
mk "$WORK/big.json" --median 10000 --seed 9 --size 8192
mk "$WORK/cpu.json" --median 10000 --seed 10 --cpu "Intel Xeon" --driver net_netvsc --host other
mk "$WORK/old.json" --median 10000 --seed 11 --no-hdr

# Same distribution: no significant difference at p50, exit 0 under a gate.
cmp "$WORK/a1.json" "$WORK/a4.json" --fail-if-slower p99:5% --json "$WORK/same.json" \
	>"$WORK/same.txt" 2>"$WORK/same.err" || fail "same distribution: exit $?"
grep -E '^  p50 .*no significant difference' "$WORK/same.txt" >/dev/null ||
	fail "same distribution: p50 verdict: $(grep p50 "$WORK/same.txt")"
grep -q 'one run per side' "$WORK/same.txt" || fail "no one-run note"
[ "$(jget "$WORK/same.json" comparisons/0/series/rtt_ns/stats/p50/verdict)" = none ] ||
	fail "same: JSON verdict"

# 20 % slower: slower everywhere, the gate trips with exit 7.
rc=0
cmp "$WORK/a1.json" "$WORK/b1.json" --fail-if-slower p99:5% --json "$WORK/slow.json" \
	>"$WORK/slow.txt" || rc=$?
[ "$rc" -eq 7 ] || fail "slower B: exit $rc, want 7"
grep -E '^  p99 .*slower' "$WORK/slow.txt" >/dev/null || fail "slower: p99 verdict"
grep -q '^FAIL: rtt_ns p99' "$WORK/slow.txt" || fail "slower: no FAIL line"
[ "$(jget "$WORK/slow.json" fail_if_slower/0/tripped)" = True ] || fail "JSON tripped"
# ... but not when the threshold is above the slowdown
cmp "$WORK/a1.json" "$WORK/b1.json" --fail-if-slower p99:50% >/dev/null ||
	fail "p99:50% tripped on a 20% slowdown"
# and the other way round it is faster
cmp "$WORK/b1.json" "$WORK/a1.json" | grep -E '^  p50 .*faster' >/dev/null ||
	fail "faster verdict"

# Groups: '--' and --label give the same result; the run-to-run spread shows.
cmp "$WORK/a1.json" "$WORK/a2.json" "$WORK/a3.json" -- "$WORK/b1.json" "$WORK/b2.json" \
	"$WORK/b3.json" --json "$WORK/grp.json" >"$WORK/grp.txt" || fail "groups: exit $?"
grep -q 'run-to-run spread' "$WORK/grp.txt" || fail "groups: no spread"
grep -q 'one run per side' "$WORK/grp.txt" && fail "groups: one-run note"
[ "$(jget "$WORK/grp.json" comparisons/0/series/rtt_ns/runs_a)" -eq 3 ] || fail "runs_a"
cmp --label ppg "$WORK/a1.json" --label noppg "$WORK/b1.json" --label ppg "$WORK/a2.json" \
	--label noppg "$WORK/b2.json" --label ppg "$WORK/a3.json" --label noppg "$WORK/b3.json" \
	--json "$WORK/lab.json" >"$WORK/lab.txt" || fail "labels: exit $?"
grep -q '^  A = ppg: ' "$WORK/lab.txt" || fail "labels: group line"
for k in diff ci_low ci_high; do
	[ "$(jget "$WORK/grp.json" comparisons/0/series/rtt_ns/stats/p99/$k)" = \
		"$(jget "$WORK/lab.json" comparisons/0/series/rtt_ns/stats/p99/$k)" ] ||
		fail "labels and '--' differ in p99 $k"
done
# --json - : stdout is the JSON alone
cmp "$WORK/a1.json" "$WORK/b1.json" --json - 2>/dev/null | $PY -c 'import json,sys; json.load(sys.stdin)' ||
	fail "--json - is not JSON"

# Mann-Whitney U against SciPy on the raw samples (values on counter edges,
# so the histograms hold them exactly), when Debian's python3-scipy is there.
if /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
	mk "$WORK/q1.json" --median 3000 --sigma 0.3 --n 3000 --seed 21 --quantize-to "$WORK/q1.txt"
	mk "$WORK/q2.json" --median 3100 --sigma 0.3 --n 2500 --seed 22 --quantize-to "$WORK/q2.txt"
	cmp "$WORK/q1.json" "$WORK/q2.json" --json "$WORK/q.json" >/dev/null || fail "q: exit $?"
	/usr/bin/python3 - "$WORK/q1.txt" "$WORK/q2.txt" "$WORK/q.json" <<'PYEOF' || fail "U test disagrees with SciPy"
import json, sys
from scipy.stats import mannwhitneyu
a = [int(x) for x in open(sys.argv[1])]
b = [int(x) for x in open(sys.argv[2])]
m = json.load(open(sys.argv[3]))["comparisons"][0]["series"]["rtt_ns"]["mann_whitney"]
r = mannwhitneyu(b, a, alternative="two-sided", use_continuity=False, method="asymptotic")
print("U: SciPy %.1f p %.6g, latprobe %.1f p %.6g" % (r.statistic, r.pvalue, m["u_b"], m["p"]))
sys.exit(0 if r.statistic == m["u_b"] and abs(r.pvalue - m["p"]) <= 1e-9 * max(r.pvalue, 1e-300) + 1e-15 else 1)
PYEOF
else
	echo "$LP_PROG: no python3-scipy: U test not checked against SciPy here (the unit test has SciPy's figures)"
fi

# Refusals and warnings.
expect_usage() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2 rc=0
	shift 2
	cmp "$@" >"$WORK/u.out" 2>"$WORK/u.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "$what: exit $rc, want 2"
	grep -q -- "$pat" "$WORK/u.err" || fail "$what: message: $(cat "$WORK/u.err")"
	[ "$(wc -l <"$WORK/u.err")" -eq 1 ] || fail "$what: not one line: $(cat "$WORK/u.err")"
}
expect_usage "other proto" "differ in protocol" "$WORK/a1.json" "$WORK/sp.json"
expect_usage "other size" "differ in size" "$WORK/a1.json" "$WORK/big.json"
cmp --force "$WORK/a1.json" "$WORK/sp.json" >/dev/null 2>"$WORK/force.err" || fail "--force: exit $?"
grep -q 'differ in protocol' "$WORK/force.err" || fail "--force: no warning"
cmp "$WORK/a1.json" "$WORK/cpu.json" >/dev/null 2>"$WORK/cpu.err" || fail "other CPU: exit $?"
grep -q 'different CPUs' "$WORK/cpu.err" || fail "other CPU: no warning"
grep -q 'different NIC drivers' "$WORK/cpu.err" || fail "other driver: no warning"
grep -q 'different hosts' "$WORK/cpu.err" || fail "other host: no warning"
[ -s "$WORK/same.err" ] && fail "runs of one machine: $(cat "$WORK/same.err")"
expect_usage "old report" "format_version" "$WORK/a1.json" "$WORK/old.json"
echo '{"rtt_ns": ' >"$WORK/trunc.json"
expect_usage "truncated" "not JSON" "$WORK/a1.json" "$WORK/trunc.json"
expect_usage "missing file" "cannot read" "$WORK/a1.json" "$WORK/nope.json"
expect_usage "one file" "at least two" "$WORK/a1.json"
expect_usage "bad gate" "fail-if-slower" "$WORK/a1.json" "$WORK/b1.json" --fail-if-slower p98:5
expect_usage "bad bootstrap" "bootstrap" "$WORK/a1.json" "$WORK/b1.json" --bootstrap 5
expect_usage "dangling --" "last group" "$WORK/a1.json" "$WORK/b1.json" --
echo "$LP_PROG: ok"
