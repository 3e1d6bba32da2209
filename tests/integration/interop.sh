#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# latprobe against peers it did not write, across the testbed's namespaces
# (the kernel side gets its address only where the kernel is the peer):
#   1. Debian's sockperf client -> latprobe reflect (DPDK)
#   2. latprobe probe --proto sockperf (DPDK) -> sockperf server (kernel)
#   3. latprobe probe --proto icmp -> the namespace's kernel
#   4. latprobe probe --proto tcp-syn -> a kernel TCP listener, and a closed
#      port (RST counted as the answer)
#   5. latprobe probe --proto udp-echo -> latprobe reflect (DPDK)
. "$(dirname "$0")/lib.sh"
need_env
lp_have sockperf || lp_skip "needs Debian's sockperf"
lp_begin testbed
vdev() { echo "net_af_xdp0,iface=$1"; }

# 1. sockperf client (kernel, probe namespace) -> DPDK reflector.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --json "$WORK/refl.json" -q
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
for size in 64; do
	timeout 30 ip netns exec "$LP_NS_PROBE" sockperf ping-pong -i "$refl_ip" -p 11111 \
		-m $size -t 2 --full-rtt >"$WORK/sp-client-$size.txt" 2>&1 ||
		{ cat "$WORK/sp-client-$size.txt" >&2; fail "sockperf client ($size B) against the reflector"; }
	grep -E 'Summary: Round trip is' "$WORK/sp-client-$size.txt" ||
		fail "sockperf printed no round trip ($size B)"
	grep -qE 'SentMessages=[1-9]' "$WORK/sp-client-$size.txt" || fail "sockperf sent nothing"
done
# 5. udp-echo to the DPDK reflector, while it is up.
ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"
probe_dpdk udpecho --proto udp-echo -l 64 -n 2000 "$refl_ip"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/udpecho.json" \
	--sent 2000 --no-loss --proto udp-echo || fail "udp-echo report"
stop_reflector
answered=$(json_get "$WORK/refl.json" counters/answered.sockperf)
[ "$answered" -gt 0 ] || fail "the reflector answered no sockperf message"
echo "interop: sockperf client got $answered answers from latprobe reflect"

# The kernel is the peer from here on: it owns the reflector side's address.
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"

# 2. DPDK prober, sockperf protocol -> sockperf server.
LP_BG_LOG=$WORK/sp-server.log lp_bg_ns "$LP_NS_REFL" sockperf server -i "$refl_ip" -p 11111
sleep 1
probe_dpdk sockperf --proto sockperf -l 64 -n 2000 "$refl_ip"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/sockperf.json" \
	--sent 2000 --no-loss --proto sockperf || fail "sockperf-server report"

# 3. ICMP echo to the kernel.
probe_dpdk icmp --proto icmp -l 56 -n 1000 "$refl_ip"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/icmp.json" \
	--sent 1000 --no-loss --proto icmp || fail "icmp report"

# 4. TCP SYN to a listener, then to a closed port.
lp_tcp_listener "$LP_NS_REFL" "$refl_ip" 8080 "$WORK/listener.log"
probe_dpdk tcp --proto tcp-syn -n 1000 "$refl_ip:8080"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/tcp.json" \
	--sent 1000 --no-loss --proto tcp-syn || fail "tcp-syn report"
[ "$(json_get "$WORK/tcp.json" probes/resets)" -eq 0 ] || fail "a listener answered RST"
probe_dpdk tcpclosed --proto tcp-syn -n 200 "$refl_ip:8081"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/tcpclosed.json" \
	--sent 200 --no-loss || fail "tcp-syn closed-port report"
[ "$(json_get "$WORK/tcpclosed.json" probes/resets)" -eq 200 ] || fail "closed port: RSTs not counted"
grep -q 'RST answers = 200' "$WORK/tcpclosed.txt" || fail "closed port: text report does not say RST"
# Every SYN-ACK was reset: no connection left half-open or established.
left=$(ip netns exec "$LP_NS_REFL" ss -Htan state syn-recv state established | wc -l)
[ "$left" -eq 0 ] || fail "$left TCP connections left on the listener side"

for f in sockperf icmp tcp tcpclosed udpecho; do
	printf 'interop: %-10s p50 %s ns\n' "$f" "$(json_get "$WORK/$f.json" rtt_ns/p50)"
done
echo "$LP_PROG: ok"
