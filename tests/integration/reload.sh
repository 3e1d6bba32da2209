#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# SIGHUP re-reads of a pinglist (kernel backend, a namespace of our own: a
# reflector on 198.18.208.1, the prober on .10, every 198.18.208.0/24
# address local on lo):
#   - an empty file (an editor's rewrite caught half way) keeps the targets,
#     with one warning line; so does a file that is gone;
#   - churn past PINGLIST_MAX (128): 7 re-reads, each replacing 20 targets
#     with 20 new ones (141 targets added in all, the list written to a
#     temporary file and renamed, as docs/usage.md says): every re-read
#     adds all 20 (new ones take removed ones' places), the last 20 are
#     probed, the one kept target is answered throughout, and the merged
#     figures hold at least the rows' probes (and the identities).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (a network namespace)"
lp_have ip || lp_skip "needs iproute2"
lp_begin
NET=198.18.208
lp_lo_ns reload
for a in 1 10; do ip -n "$ns" addr add "$NET.$a/24" dev lo; done

LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
	--addr "$NET.1/24" -q -t 300
lp_wait_for "$WORK/refl.log" '^latprobe reflect: ' 30 ||
	{ cat "$WORK/refl.log" >&2; fail "reflector did not start"; }

list=$WORK/pinglist
keep="$NET.1 label=kept"
printf '%s\n' "$keep" >"$list"
LP_BG_LOG=$WORK/probe.log lp_bg_ns "$ns" "$LATPROBE" probe \
	--backend kernel --addr "$NET.10/24" --forever -q -i 1ms --timeout 1s --no-doctor \
	--interval-report 200ms --targets "$list" --json "$WORK/probe.json"
PROBE_PID=$LP_LAST_PID
lp_wait_for "$WORK/probe.log" '^latprobe probe: ' 30 ||
	{ cat "$WORK/probe.log" >&2; fail "prober did not start"; }

# hup N: SIGHUP, then wait (up to 60 s, a loaded machine) for the N-th
# "re-read" or "targets unchanged" line.
hup() {
	local want=$1 i
	kill -HUP "$PROBE_PID"
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -cE 'SIGHUP: --targets .*(re-read|targets unchanged)' \
			"$WORK/probe.log")" -ge "$want" ] && return 0
		sleep 0.1
	done
	cat "$WORK/probe.log" >&2
	fail "SIGHUP $want not applied within 60 s"
}
# put TEXT: the pinglist replaced atomically (a temporary file renamed).
put() {
	printf '%s\n' "$@" >"$list.tmp"
	mv -f "$list.tmp" "$list"
}

# Empty (truncated), then missing: one warning line each, nothing removed.
: >"$list"
hup 1
grep -qE "SIGHUP: --targets $list: empty .*; targets unchanged$" "$WORK/probe.log" ||
	{ cat "$WORK/probe.log" >&2; fail "no warning for the empty file"; }
rm -f "$list"
hup 2
grep -qE "SIGHUP: --targets $list: No such file or directory; targets unchanged$" \
	"$WORK/probe.log" || { cat "$WORK/probe.log" >&2; fail "no warning for a missing file"; }
put "$keep"
hup 3
grep "re-read" "$WORK/probe.log" | tail -n 1 | grep -qE 're-read: 1 kept, 0 added, 0 removed' ||
	{ cat "$WORK/probe.log" >&2; fail "the empty file was taken as a list of none"; }

# answered ADDR:PORT: wait (up to 60 s) until an interval row since the
# last re-read shows it sent a measured probe (2 warm-up probes, a 1 s
# rest, then one).
answered() {
	local i
	for ((i = 0; i < 600; i++)); do
		sed -n "$(grep -n 're-read' "$WORK/probe.log" | tail -n 1 | cut -d: -f1),\$p" \
			"$WORK/probe.log" | awk -v t="$1" '
			$1 == "interval" && $3 == t && $4 == "sent" && $5 > 0 { f = 1 }
			END { exit !f }' && return 0
		sleep 0.1
	done
	return 1
}

# Churn: 7 x 20 new targets (ports nobody listens on: lost, but probed).
rounds=7 per=20
for ((r = 1; r <= rounds; r++)); do
	# One answered target a round, sockperf and udp-echo in turn: each
	# is removed by the next round, its figures kept in the merged ones.
	if ((r % 2)); then ans="$NET.1:11111 proto=sockperf"; else ans="$NET.1:7 proto=udp-echo"; fi
	lines=("$keep" "$ans label=a$r")
	for ((i = 0; i < per - 1; i++)); do
		lines+=("$NET.1:$((20000 + r * per + i)) label=r$r")
	done
	put "${lines[@]}"
	hup $((3 + r))
	answered "${ans%% *}" || fail "round $r: ${ans%% *} not probed within 60 s"
	removed=$((r == 1 ? 0 : per))
	grep "re-read" "$WORK/probe.log" | tail -n 1 |
		grep -qE "re-read: 1 kept, $per added, $removed removed" ||
		{ tail -n 5 "$WORK/probe.log" >&2; fail "re-read $r: not all $per added"; }
done
grep -q "took the places of removed ones" "$WORK/probe.log" ||
	fail "past 128 targets, no removed target's place was taken"
# Until each of the last 20 has a measured probe in an interval row since
# the last re-read (its 2 warm-up probes, a 1 s rest, one more; up to 60 s
# on a loaded machine).
lo=$((20000 + rounds * per)) hi=$((20000 + rounds * per + per - 1))
last_probed() {
	sed -n "$(grep -n 're-read' "$WORK/probe.log" | tail -n 1 | cut -d: -f1),\$p" \
		"$WORK/probe.log" | awk -v lo="$lo" -v hi="$hi" '
		$1 == "interval" && $4 == "sent" && $5 > 0 {
			n = split($3, a, ":"); p = a[n] + 0
			if (p >= lo && p <= hi) seen[p] = 1
		}
		END { c = 0; for (k in seen) c++; print c }'
}
for ((i = 0; i < 600; i++)); do
	[ "$(last_probed)" -ge "$((per - 1))" ] && break
	sleep 0.1
done
lp_stop_bg "$PROBE_PID"
$PY - "$WORK/probe.json" "$NET" "$rounds" "$per" <<'PYEOF' || fail "the JSON report"
import json, sys
d, net, rounds, per = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = d['targets']
assert len(rows) <= 128, len(rows)
live = [x for x in rows if not x['removed']]
last = {x['target'] for x in live if x['label'] == f'r{rounds}'}
want = {f'{net}.1:{20000 + rounds * per + i}' for i in range(per - 1)}
assert last == want, sorted(want - last)
kept = [x for x in live if x['label'] == 'kept']
assert len(kept) == 1 and len(live) == per + 1, [(x['target'], x['label']) for x in live]
k = kept[0]['probes']
# Answered throughout (a loaded machine may lose one past --timeout).
assert k['received'] > 0 and k['lost'] <= k['sent'] // 10, k
for x in live:
    p = x['probes']
    assert p['sent'] > 0 and p['sent'] == p['received'] + p['lost'], (x['target'], p)
# The merged figures hold every target's probes, rows given up included.
tot = d['probes']
assert tot['sent'] == tot['received'] + tot['lost'], tot
assert tot['sent'] >= sum(x['probes']['sent'] for x in rows), (tot, len(rows))
assert tot['received'] >= sum(x['probes']['received'] for x in rows), tot
# The stall split adds up with retired targets in the totals: every
# measured round trip unaffected or host-affected, none counted twice.
rtt, u = d['rtt_ns'], d['rtt_ns_unaffected']
ha = d['stalls']['host_affected']
retired_answered = sum(x['probes']['received'] for x in rows
                       if x['removed'] and x['label'].startswith('a'))
assert retired_answered > 0, 'no retired target was answered'
assert u['count'] + ha['probes'] == rtt['count'], (u['count'], ha, rtt['count'])
print(f"reload: {len(rows)} rows, {tot['sent']} probes in the totals, "
      f"{sum(x['probes']['sent'] for x in rows)} in the rows")
PYEOF
echo "reload: ok"
