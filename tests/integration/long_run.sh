#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# probe --forever with --interval-report, --metrics and a pinglist changed
# under it (SIGHUP), on the kernel backend in a namespace of our own (two
# reflectors on 198.18.207.1 and .2, the prober on .10):
#   - the pinglist's first version (.1) is probed and exported;
#   - SIGHUP with .1 replaced by .2 and a bad line: the bad line is reported
#     and skipped, .1 stops (its series leaves the metrics, its interval
#     rows go to 0), .2 starts;
#   - SIGHUP adding .1 back: .2 is kept (its counters go on growing);
#   - the JSON keeps only the last intervals (LATPROBE_TEST_IV_KEEP=5 here
#     instead of 1000) and counts the others in intervals_dropped;
#   - -n with --forever is a usage error.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (a network namespace)"
lp_have ip || lp_skip "needs iproute2"
lp_have curl || lp_skip "needs curl"
lp_begin
NET=198.18.207
lp_lo_ns long
for a in 1 2 10; do ip -n "$ns" addr add "$NET.$a/24" dev lo; done
scrape() { ip netns exec "$ns" curl -sS --max-time 5 http://127.0.0.1:9103/metrics; }
sent_of() { # EXPOSITION TARGET: its latprobe_probes_sent_total, or "none"
	awk -v t="target=\"$2\"" '$1 ~ /^latprobe_probes_sent_total/ && index($1, t) { print $2; f = 1 }
		END { if (!f) print "none" }' "$1"
}
# scrape_until FILE CMD...: scrape into FILE until CMD (a test on it)
# holds, up to 30 s (a loaded machine); 1 when it never did.
scrape_until() {
	local f=$1 i
	shift
	for ((i = 0; i < 300; i++)); do
		scrape >"$f" 2>/dev/null && "$@" && return 0
		sleep 0.1
	done
	return 1
}
probed() { # FILE TARGET [MORE_THAN]: its sent counter is above MORE_THAN (0)
	local v
	v=$(sent_of "$1" "$2")
	[ "$v" != none ] && [ "$v" -gt "${3:-0}" ]
}
gone() { [ "$(sent_of "$1" "$2")" = none ]; }

for a in 1 2; do
	LP_BG_LOG=$WORK/refl$a.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
		--addr "$NET.$a/24" -q -t 60
	lp_wait_for "$WORK/refl$a.log" '^latprobe reflect: ' 20 ||
		{ cat "$WORK/refl$a.log" >&2; fail "reflector $a did not start"; }
done
list=$WORK/pinglist
printf '# first version\n%s.1 label=a\n' "$NET" >"$list"
LATPROBE_TEST_IV_KEEP=5 LP_BG_LOG=$WORK/probe.log lp_bg_ns "$ns" "$LATPROBE" probe \
	--backend kernel --addr "$NET.10/24" --forever -q -i 2ms -w 5 \
	--interval-report 200ms --targets "$list" --metrics 127.0.0.1:9103 \
	--json "$WORK/probe.json"
PROBE_PID=$LP_LAST_PID
lp_wait_for "$WORK/probe.log" '^latprobe probe: ' 20 ||
	{ cat "$WORK/probe.log" >&2; fail "prober did not start"; }
scrape_until "$WORK/m1.prom" probed "$WORK/m1.prom" "$NET.1:862" ||
	fail "scrape 1: .1 not probed ($(sent_of "$WORK/m1.prom" "$NET.1:862"))"

# .1 out, .2 in, a bad line.
printf '# second version\n%s.2 label=b\nnot-an-address\n' "$NET" >"$list"
kill -HUP "$PROBE_PID"
lp_wait_for "$WORK/probe.log" 'SIGHUP: .* 0 kept, 1 added, 1 removed' 10 ||
	{ cat "$WORK/probe.log" >&2; fail "SIGHUP 1 not applied"; }
grep -qE "pinglist:3: not an address.*skipped" "$WORK/probe.log" ||
	{ cat "$WORK/probe.log" >&2; fail "the bad line was not reported"; }
scrape_until "$WORK/m2.prom" probed "$WORK/m2.prom" "$NET.2:862" ||
	fail "scrape 2: .2 not probed ($(sent_of "$WORK/m2.prom" "$NET.2:862"))"
gone "$WORK/m2.prom" "$NET.1:862" || fail "scrape 2: .1 still exported"
s2=$(sent_of "$WORK/m2.prom" "$NET.2:862")
# The last intervals: .1 sends nothing any more (the next row after the
# re-read, up to 30 s away on a loaded machine).
for ((i = 0; i < 300; i++)); do
	tail -2 "$WORK/probe.log" | grep -qE "^interval .* $NET\.1:862 +sent 0 " && break
	sleep 0.1
done
tail -2 "$WORK/probe.log" | grep -E "^interval .* $NET\.1:862 +sent 0 " >/dev/null ||
	{ tail -6 "$WORK/probe.log" >&2; fail ".1 still probed after SIGHUP"; }

# .1 back: .2 kept, its counters go on.
printf '%s.2 label=b\n%s.1 label=a\n' "$NET" "$NET" >"$list"
kill -HUP "$PROBE_PID"
lp_wait_for "$WORK/probe.log" 'SIGHUP: .* 1 kept, 1 added, 0 removed' 10 ||
	{ cat "$WORK/probe.log" >&2; fail "SIGHUP 2 not applied"; }
scrape_until "$WORK/m3.prom" probed "$WORK/m3.prom" "$NET.1:862" ||
	fail "scrape 3: .1 not back"
scrape_until "$WORK/m3.prom" probed "$WORK/m3.prom" "$NET.2:862" "$s2" ||
	fail ".2's counter went from $s2 to $(sent_of "$WORK/m3.prom" "$NET.2:862") (kept targets keep theirs)"
probed "$WORK/m3.prom" "$NET.1:862" || fail "scrape 3: .1 not back"
# At least 15 intervals (5 kept, 10 dropped) before the end: a readiness
# poll, not a sleep (up to 30 s).
for ((i = 0; i < 300; i++)); do
	[ "$(awk '$1 == "interval" { t[$2] = 1 } END { print length(t) }' \
		"$WORK/probe.log")" -ge 15 ] && break
	sleep 0.1
done

lp_stop_bg "$PROBE_PID"
$PY - "$WORK/probe.json" "$NET" <<'PYEOF' || fail "the JSON report"
import json, sys
d, net = json.load(open(sys.argv[1])), sys.argv[2]
assert d['interrupted'] is True
t = [(x['target'], x['label']) for x in d['targets']]
# The retired .1 keeps its row; .2 and the new .1.
assert t == [(f'{net}.1:862', 'a'), (f'{net}.2:862', 'b'), (f'{net}.1:862', 'a')], t
assert [x['removed'] for x in d['targets']] == [True, False, False], d['targets']
# Answered (the identity; a loaded machine may lose one past --timeout).
assert all(p['received'] > 0 and p['sent'] == p['received'] + p['lost'] and
           p['lost'] <= p['sent'] // 10
           for p in (x['probes'] for x in d['targets'])), d['targets']
# Bounded: the last 5 intervals, the rest counted.
assert len(d['intervals']) == 5, len(d['intervals'])
assert d['intervals_dropped'] >= 10, d['intervals_dropped']
ts = [iv['t_s'] for iv in d['intervals']]
assert ts == sorted(ts), ts
print(f"long_run: {d['intervals_dropped']} intervals dropped, 5 kept, "
      f"{sum(x['probes']['sent'] for x in d['targets'])} probes")
PYEOF

export LP_EXPECT_ONE_LINE=1
expect 2 "-n COUNT and --forever" "$LATPROBE" probe --backend kernel --forever -n 5 127.0.0.1
expect 2 "-n COUNT and --forever \(-t 0\)" "$LATPROBE" probe --backend kernel -t 0 -n 5 127.0.0.1
expect 2 "--interval-report wants" "$LATPROBE" probe --backend kernel --interval-report 1ms 127.0.0.1
echo "long_run: ok"
