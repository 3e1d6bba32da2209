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
# Every probe answered or lost (a loaded machine may lose a few past the
# timeout: the identities, not zero loss).
for x in t.values():
    p = x['probes']
    assert p['sent'] == n and p['received'] + p['lost'] == n, x
    assert p['lost'] <= n // 50 and x['rtt_ns']['count'] == p['received'], x
assert 'network_rtt_ns' in t[(f'{ip}:862', 'stamp')]
assert 'network_rtt_ns' not in t[(f'{ip}:11111', 'sockperf')]
assert t[(f'{ip}:862', 'stamp')]['label'] == 'stamp-one'
assert d['probes']['sent'] == 3 * n
assert d['rtt_ns']['count'] == d['probes']['received'] == 3 * n - d['probes']['lost']
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
		--addr "$LP_ADDR_PROBE" -t 60 -q -i 1ms --targets "$WORK/pinglist" \
		--arp-timeout 1s --metrics 127.0.0.1:9105
	pid=$LP_LAST_PID
	ip -n "$LP_NS_PROBE" link set lo up
	lp_wait_for "$WORK/probe2.log" '^latprobe probe: ' 20 ||
		{ cat "$WORK/probe2.log" >&2; fail "prober 2 did not start"; }
	# Scraped until every target has probes (up to 30 s: a loaded machine).
	for ((i = 0; i < 300; i++)); do
		ip netns exec "$LP_NS_PROBE" curl -sS --max-time 5 \
			http://127.0.0.1:9105/metrics >"$WORK/m.prom" 2>/dev/null || true
		[ "$(grep -cE '^latprobe_probes_sent_total\{.*\} [1-9]' "$WORK/m.prom")" -ge 3 ] &&
			break
		sleep 0.1
	done
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
	--interval-report 200ms --json "$WORK/probe3.json"
pid=$LP_LAST_PID
lp_wait_for "$WORK/probe3.log" '^latprobe probe: ' 20 ||
	{ cat "$WORK/probe3.log" >&2; fail "prober 3 did not start"; }
printf '%s\n%s proto=sockperf\n' "$refl_ip" "$refl_ip" >"$WORK/pl2.tmp"
mv -f "$WORK/pl2.tmp" "$WORK/pl2"
kill -HUP "$pid"
lp_wait_for "$WORK/probe3.log" 'SIGHUP: .* 1 kept, 1 added, 0 removed' 30 ||
	{ cat "$WORK/probe3.log" >&2; fail "SIGHUP not applied"; }
# Until the new target has measured probes (its ARP, its warm-up).
lp_wait_for "$WORK/probe3.log" "^interval .* ${refl_ip//./\\.}:11111 +sent [1-9]" 30 ||
	{ tail -n 20 "$WORK/probe3.log" >&2; fail "the added target was not probed"; }
lp_stop_bg "$pid"
$PY - "$WORK/probe3.json" "$refl_ip" <<'PYEOF' || fail "SIGHUP on dpdk: the JSON report"
import json, sys
d, ip = json.load(open(sys.argv[1])), sys.argv[2]
t = {(x['target'], x['proto']): x['probes'] for x in d['targets']}
assert set(t) == {(f'{ip}:862', 'stamp'), (f'{ip}:11111', 'sockperf')}, t
assert all(p['sent'] > 0 and p['sent'] == p['received'] + p['lost'] and
           p['lost'] <= p['sent'] // 10 for p in t.values()), t
PYEOF
stop_reflector

# ARP for the prober's own address while it has no target to probe (a
# pinglist of comments only after SIGHUP): its lcore keeps polling and
# answers, so the other namespace's kernel resolves it. The target is the
# kernel there (ARP answered, nothing on 862: ICMP port unreachable).
lp_kaddrs 0 1
printf '%s label=kernel\n' "$refl_ip" >"$WORK/pl4"
LP_BG_LOG=$WORK/probe4.log lp_bg_ns "$LP_NS_PROBE" "$LATPROBE" probe -l 1 \
	"${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- \
	--addr "$LP_ADDR_PROBE" --forever -q --no-doctor --arp-timeout 5s \
	--targets "$WORK/pl4"
pid=$LP_LAST_PID
lp_wait_for "$WORK/probe4.log" '^latprobe probe: ' 30 ||
	{ cat "$WORK/probe4.log" >&2; fail "prober 4 did not start"; }
printf '# no target\n' >"$WORK/pl4.tmp"
mv -f "$WORK/pl4.tmp" "$WORK/pl4"
kill -HUP "$pid"
lp_wait_for "$WORK/probe4.log" 'SIGHUP: .* 0 kept, 0 added, 1 removed' 30 ||
	{ cat "$WORK/probe4.log" >&2; fail "SIGHUP 4 not applied"; }
ip -n "$LP_NS_REFL" neigh flush dev "$LP_IF_REFL"
probe_ip=${LP_ADDR_PROBE%/*}
# The prober answers no echo: ping only makes the kernel ask (3 requests,
# one a second, each answer awaited up to 3 s on a loaded machine).
ip netns exec "$LP_NS_REFL" ping -c 3 -W 3 "$probe_ip" >/dev/null 2>&1 || true
neigh=$(ip -n "$LP_NS_REFL" neigh show "$probe_ip" dev "$LP_IF_REFL")
lp_stop_bg "$pid"
lp_kaddrs 0 0
echo "neighbour of the idle prober: $neigh"
[[ $neigh == *lladdr* ]] ||
	fail "the prober's address did not answer ARP with no target to probe ($neigh)"
echo "$LP_PROG: ok"
