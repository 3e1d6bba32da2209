#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/demo keeps its run's reports: the directory its last line names
# exists after it ended (namespaces gone), inside the directory it was
# started from, and holds probe.json (the run's), probe.txt and reflect.txt.
# tools/demo builds and runs build/ of the source tree: this test runs only
# when that is the binary under test (else it would test another build).
. "$(dirname "$0")/lib.sh"
need_env
DEMO=${LP_DEMO:-$LP_TOP/tools/demo}
[ "$(readlink -f "$(dirname "$DEMO")/../build/app/latprobe")" = "$LATPROBE" ] ||
	lp_skip "tools/demo runs build/app/latprobe, not the binary under test"
lp_begin
mkdir -p "$WORK/cwd"
rc=0
(cd "$WORK/cwd" && timeout 120 "$DEMO" -n 200 -- -q) >"$WORK/demo.out" 2>"$WORK/demo.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/demo.out" "$WORK/demo.err" >&2; fail "tools/demo exited $rc"; }
last=$(tail -n 1 "$WORK/demo.out")
echo "$LP_PROG: tools/demo ended with: $last"
dir=$(sed -nE 's/^demo: done; reports in (.*)\/ \(.*$/\1/p' <<<"$last")
[ -n "$dir" ] || fail "tools/demo's last line names no report directory"
case $dir in "$WORK/cwd/"*) ;; *) fail "reports in $dir, not under the directory demo ran in" ;; esac
[ "$(json_get "$dir/probe.json" probes/received)" -eq 200 ] || fail "$dir/probe.json: not the run's 200 answers"
grep -q 'Received = 200' "$dir/probe.txt" || fail "$dir/probe.txt: not the run's text report"
# The default report answers in its first ten lines and fits in 30.
n=$(wc -l <"$dir/probe.txt")
[ "$n" -le 30 ] || fail "$dir/probe.txt: $n lines, more than 30 without --details"
head -n 11 "$dir/probe.txt" | grep -q '^  p99 ' || fail "$dir/probe.txt: no p99 in its first lines"
grep -q '^Reflector on ' "$dir/reflect.txt" || fail "$dir/reflect.txt: no reflector report"
! lp_ns_exists "$LP_NS_PROBE" || fail "tools/demo left $LP_NS_PROBE behind"
echo "$LP_PROG: ok"
