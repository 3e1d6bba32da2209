#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Several targets on the dpdk backend (af_xdp over the testbed's veth): one
# DPDK reflector, a pinglist naming it three times (stamp, sockperf, icmp:
# three targets, three workers taking turns on one lcore), an address that
# does not answer ARP (warned about, not probed) and a bad line (reported,
# skipped); every target gets its -n answers, its own row (worst p99
# first) and JSON entry, and its own --metrics series.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" -q
cat >"$WORK/pinglist" <<EOT
# one reflector, three protocols
$refl_ip label=stamp-one
$refl_ip proto=sockperf label=sp
$refl_ip proto=icmp
198.18.0.77 label=nobody
not an address
EOT
n=500
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -n $n -w 20 \
	--arp-timeout 1s --targets "$WORK/pinglist" --json "$WORK/probe.json" \
	>"$WORK/probe.txt" 2>"$WORK/probe.err" ||
	{ cat "$WORK/probe.err" >&2; fail "probe exited $?"; }
cat "$WORK/probe.err" >&2
grep -qE "pinglist:6: not an address" "$WORK/probe.err" || fail "bad line not reported"
grep -qE "no ARP answer from 198\.18\.0\.77:862 .*not probed" "$WORK/probe.err" ||
	fail "the silent address was not reported"
sed -n '/^Targets/,/^TSC/p' "$WORK/probe.txt"
$PY - "$WORK/probe.json" "$refl_ip" $n <<'PYEOF' || fail "the JSON report"
import json, sys
d, ip, n = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
t = {(x['target'], x['proto']): x for x in d['targets']}
assert set(t) == {(f'{ip}:862', 'stamp'), (f'{ip}:11111', 'sockperf'),
                  (ip, 'icmp')}, sorted(t)
for x in t.values():
    assert x['probes']['sent'] == n and x['probes']['lost'] == 0, x
    assert x['rtt_ns']['count'] == n, x
assert 'network_rtt_ns' in t[(f'{ip}:862', 'stamp')]
assert 'network_rtt_ns' not in t[(f'{ip}:11111', 'sockperf')]
assert t[(f'{ip}:862', 'stamp')]['label'] == 'stamp-one'
assert d['probes']['sent'] == 3 * n and d['rtt_ns']['count'] == 3 * n
PYEOF
# Rows worst p99 first.
$PY - "$WORK/probe.txt" <<'PYEOF' || fail "rows not worst p99 first"
import re, sys
units = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
rows = [l.split() for l in open(sys.argv[1]).read().split('Targets (')[1].splitlines()[2:5]]
p99 = [float(re.match(r'([\d.]+)', r[-2]).group(1)) * units[re.search(r'[a-z]+$', r[-2]).group(0)]
       for r in rows]
assert p99 == sorted(p99, reverse=True), p99
PYEOF

# --metrics on the dpdk backend (an EAL control thread), per target.
if lp_have curl; then
	LP_BG_LOG=$WORK/probe2.log lp_bg_ns "$LP_NS_PROBE" "$LATPROBE" probe -l 1 \
		"${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- \
		--addr "$LP_ADDR_PROBE" -t 4 -q -i 1ms --targets "$WORK/pinglist" \
		--arp-timeout 1s --metrics 127.0.0.1:9105
	pid=$LP_LAST_PID
	ip -n "$LP_NS_PROBE" link set lo up
	lp_wait_for "$WORK/probe2.log" '^latprobe probe: ' 20 ||
		{ cat "$WORK/probe2.log" >&2; fail "prober 2 did not start"; }
	sleep 1
	ip netns exec "$LP_NS_PROBE" curl -sS --max-time 5 http://127.0.0.1:9105/metrics \
		>"$WORK/m.prom" || fail "dpdk scrape"
	lp_stop_bg "$pid"
	grep -q '^latprobe_build_info{.*backend="dpdk",command="probe"} 1' "$WORK/m.prom" ||
		fail "dpdk exposition: no build_info"
	for t in "$refl_ip:862\",proto=\"stamp" "$refl_ip:11111\",proto=\"sockperf" \
		"$refl_ip\",proto=\"icmp"; do
		grep -qE "^latprobe_probes_sent_total\{target=\"$t\",label=\"[^\"]*\"\} [1-9]" \
			"$WORK/m.prom" || fail "dpdk exposition: no probes to $t"
	done
	if lp_have promtool; then
		promtool check metrics <"$WORK/m.prom" || fail "promtool: dpdk exposition"
	fi
fi

# SIGHUP on the dpdk backend: the new target's MAC comes from ARP on the
# lcore that probes it.
printf '%s\n' "$refl_ip" >"$WORK/pl2"
LP_BG_LOG=$WORK/probe3.log lp_bg_ns "$LP_NS_PROBE" "$LATPROBE" probe -l 1 \
	"${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- \
	--addr "$LP_ADDR_PROBE" --forever -q -i 1ms --targets "$WORK/pl2" \
	--json "$WORK/probe3.json"
pid=$LP_LAST_PID
lp_wait_for "$WORK/probe3.log" '^latprobe probe: ' 20 ||
	{ cat "$WORK/probe3.log" >&2; fail "prober 3 did not start"; }
sleep 0.5
printf '%s\n%s proto=sockperf\n' "$refl_ip" "$refl_ip" >"$WORK/pl2"
kill -HUP "$pid"
lp_wait_for "$WORK/probe3.log" 'SIGHUP: .* 1 kept, 1 added, 0 removed' 10 ||
	{ cat "$WORK/probe3.log" >&2; fail "SIGHUP not applied"; }
sleep 1
lp_stop_bg "$pid"
$PY - "$WORK/probe3.json" "$refl_ip" <<'PYEOF' || fail "SIGHUP on dpdk: the JSON report"
import json, sys
d, ip = json.load(open(sys.argv[1])), sys.argv[2]
t = {(x['target'], x['proto']): x['probes'] for x in d['targets']}
assert set(t) == {(f'{ip}:862', 'stamp'), (f'{ip}:11111', 'sockperf')}, t
assert all(p['sent'] > 0 and p['lost'] == 0 for p in t.values()), t
PYEOF
stop_reflector
echo "$LP_PROG: ok"
