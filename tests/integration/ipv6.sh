#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv6 end to end over the testbed's veth pair on a real PMD ($2: af_xdp or
# af_packet), addresses from 2001:2::/48 only (RFC 5180), DAD off:
#   1. latprobe probe -> latprobe reflect: stamp, sockperf, udp-echo and
#      icmp over IPv6 (neighbour discovery both ways), no loss; the
#      reflector, given an IPv4 and an IPv6 address, still answers IPv4;
#   2. kernel peers -> latprobe reflect: ping -6, a sockperf ping-pong
#      client over kernel IPv6 UDP (udp6_peer.py: Debian's sockperf 3.7 has
#      no IPv6), the kernel resolving the reflector by NS;
#      latprobe probe --backend kernel over IPv6 sockets;
#   3. latprobe probe -> kernel: a sockperf-protocol server (udp6_peer.py),
#      ICMPv6 echo, tcp-syn to a kernel TCP listener and to a closed port,
#      and latprobe reflect --backend kernel on an IPv6 address.
. "$(dirname "$0")/lib.sh"
pmd=${2:?af_xdp or af_packet}
need_env
lp_have ping || lp_skip "needs ping (iputils-ping)"
lp_begin testbed
vdev() { echo "net_${pmd}0,iface=$1"; }
refl6=${LP_ADDR6_REFL%/*}
peer6=$LP_TOP/tests/integration/udp6_peer.py

# probe6 NAME OPTIONS...: a DPDK prober over IPv6 on $pmd.
probe6() {
	local name=$1 rc=0
	shift
	ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
		--vdev "$(vdev "$LP_IF_PROBE")" -- --addr "$LP_ADDR6_PROBE" -q \
		--json "$WORK/$name.json" "$@" >"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: probe exited $rc"; }
}
check() { # NAME N PROTO [more check_report options]
	local name=$1 n=$2 proto=$3
	shift 3
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/$name.json" \
		--sent "$n" --no-loss --proto "$proto" "$@" || fail "$name report"
	grep -q "\[$refl6\]" "$WORK/$name.json" || fail "$name: target is not [$refl6]:PORT in the JSON"
}

# 1. latprobe to latprobe.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --addr "$LP_ADDR6_REFL" --json "$WORK/refl.json" -q
probe6 stamp -n 1000 "[$refl6]:862"
check stamp 1000 stamp --remote-ts
probe6 sockperf --proto sockperf -l 64 -n 1000 "$refl6"
check sockperf 1000 sockperf
probe6 udpecho --proto udp-echo -l 64 -n 1000 "$refl6"
check udpecho 1000 udp-echo
probe6 icmp --proto icmp -l 56 -n 1000 "$refl6"
check icmp 1000 icmp
# Above the MTU: IPv6 fragments both ways (Fragment header, reassembly).
probe6 large -l 8k -n 200 "$refl6"
check large 200 stamp --remote-ts
# The same reflector answers IPv4 too.
probe_dpdk v4 -n 200 "$refl_ip"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/v4.json" \
	--sent 200 --no-loss --proto stamp || fail "IPv4 next to IPv6"

# 2. Kernel peers against the reflector: the probe side's kernel gets IPv6.
lp_kaddr6 "$LP_NS_PROBE" "$LP_IF_PROBE" "$LP_ADDR6_PROBE"
timeout 30 ip netns exec "$LP_NS_PROBE" ping -6 -n -c 20 -i 0.01 -W 2 "$refl6" \
	>"$WORK/ping.txt" 2>&1 || { cat "$WORK/ping.txt" >&2; fail "ping -6 to latprobe reflect"; }
grep -q ' 0% packet loss' "$WORK/ping.txt" || { cat "$WORK/ping.txt" >&2; fail "ping -6 lost packets"; }
timeout 60 ip netns exec "$LP_NS_PROBE" "$peer6" sockperf-client "$refl6" 11111 1000 \
	>"$WORK/spc.txt" 2>&1 || { cat "$WORK/spc.txt" >&2; fail "kernel sockperf client (IPv6)"; }
grep -q '^answered 1000 ' "$WORK/spc.txt" || { cat "$WORK/spc.txt" >&2; fail "kernel sockperf client: not all answered"; }
# latprobe's kernel backend over IPv6 sockets, same reflector.
timeout 30 ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe --backend kernel -n 1000 -q \
	--json "$WORK/kstamp.json" "[$refl6]:862" >"$WORK/kstamp.txt" 2>&1 ||
	{ cat "$WORK/kstamp.txt" >&2; fail "kernel backend probe over IPv6"; }
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/kstamp.json" \
	--sent 1000 --no-loss --remote-ts --proto stamp || fail "kernel backend IPv6 report"
# The kernel found the reflector's MAC by NS.
ip -n "$LP_NS_PROBE" -6 neigh show "$refl6" | grep -q lladdr ||
	fail "the kernel has no neighbour entry for $refl6"
stop_reflector
for k in answered.nd answered.icmp_echo answered.sockperf answered.stamp answered.udp_echo; do
	[ "$(json_get "$WORK/refl.json" "counters/$k")" -gt 0 ] || fail "reflector: $k is 0"
done
[ "$(json_get "$WORK/refl.json" counters/reassembled)" -ge 200 ] || fail "reflector reassembled no IPv6 probe"
[ "$(json_get "$WORK/refl.json" counters/dropped.reassembly)" -eq 0 ] || fail "reflector dropped IPv6 reassemblies"
[ "$(json_get "$WORK/refl.json" counters/dropped.nd)" -eq 0 ] || fail "reflector dropped valid ND"
ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"

# 3. DPDK prober against the kernel on the reflector side.
lp_kaddr6 "$LP_NS_REFL" "$LP_IF_REFL" "$LP_ADDR6_REFL"
LP_BG_LOG=$WORK/sps.log lp_bg_ns "$LP_NS_REFL" "$peer6" sockperf-server "$refl6" 11111 60
lp_wait_for "$WORK/sps.log" listening 10 || fail "no sockperf-protocol server"
LP_BG_LOG=$WORK/listener.log lp_bg_ns "$LP_NS_REFL" "$peer6" tcp-listen "$refl6" 8080 60
lp_wait_for "$WORK/listener.log" listening 10 || fail "no TCP listener"
probe6 ksockperf --proto sockperf -l 64 -n 1000 "$refl6"
check ksockperf 1000 sockperf
probe6 kicmp --proto icmp -l 56 -n 1000 "$refl6"
check kicmp 1000 icmp
probe6 ktcp --proto tcp-syn -n 500 "[$refl6]:8080"
check ktcp 500 tcp-syn
[ "$(json_get "$WORK/ktcp.json" probes/resets)" -eq 0 ] || fail "the listener answered RST"
probe6 ktcpclosed --proto tcp-syn -n 200 "[$refl6]:8081"
# A closed UDP port: the kernel's ICMPv6 port unreachable (RFC 4443) ends
# each probe at once (5 probes: within the kernel's burst of ICMPv6 errors).
rc=0
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "$(vdev "$LP_IF_PROBE")" -- --addr "$LP_ADDR6_PROBE" -q --json "$WORK/kclosed.json" \
	--proto udp-echo -l 16 -n 5 -w 0 --timeout 2s "[$refl6]:9" >"$WORK/kclosed.txt" 2>&1 || rc=$?
[ "$rc" -eq 5 ] || { cat "$WORK/kclosed.txt" >&2; fail "closed UDP port over IPv6: exit $rc, not 5"; }
[ "$(json_get "$WORK/kclosed.json" probes/unreachable_port)" -ge 1 ] ||
	{ cat "$WORK/kclosed.txt" >&2; fail "closed UDP port over IPv6: no ICMPv6 port unreachable counted"; }
# latprobe reflect --backend kernel on an IPv6 address (sockperf's port is
# the python server's).
LP_BG_LOG=$WORK/krefl.log lp_bg_ns "$LP_NS_REFL" "$LATPROBE" reflect --backend kernel \
	--addr "$refl6" --sockperf-port 0 -t 30 -q --json "$WORK/krefl.json"
krefl=$LP_LAST_PID
lp_wait_for "$WORK/krefl.log" '^latprobe reflect: ' 20 || { cat "$WORK/krefl.log" >&2; fail "kernel reflector over IPv6"; }
probe6 kreflstamp -n 1000 "[$refl6]:862"
check kreflstamp 1000 stamp --remote-ts
lp_stop_bg "$krefl"
[ "$(json_get "$WORK/ktcpclosed.json" probes/resets)" -eq 200 ] || fail "closed port: RSTs not counted"
left=$(ip netns exec "$LP_NS_REFL" ss -Htan state syn-recv state established | wc -l)
[ "$left" -eq 0 ] || fail "$left TCP connections left on the listener side"

for f in stamp sockperf udpecho icmp large kstamp ksockperf kicmp ktcp kreflstamp; do
	printf 'ipv6 %s: %-10s p50 %s ns p99 %s ns\n' "$pmd" "$f" \
		"$(json_get "$WORK/$f.json" rtt_ns/p50)" "$(json_get "$WORK/$f.json" rtt_ns/p99)"
done
printf 'ipv6 %s: kernel sockperf client -> reflect: %s\n' "$pmd" "$(cat "$WORK/spc.txt")"
echo "$LP_PROG: ok ($pmd)"
