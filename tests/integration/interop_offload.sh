#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Kernel peers that leave their checksum to the NIC, as a container's or a
# pod's kernel does on a veth (tx checksum offload on: the UDP/TCP checksum
# field holds the folded pseudo-header sum alone, CHECKSUM_PARTIAL). The
# testbed turns that offload off; here it is turned on again on both veth
# ends, and the peers of interop.sh / ipv6.sh / twamp_interop.sh run again:
#   1. Debian's sockperf client (IPv4), a sockperf-protocol client over IPv6
#      (udp6_peer.py) and scapy's STAMP sender (stamp_peer.py) ->
#      latprobe reflect (DPDK, af_xdp): every request answered with a sum
#      the sender's kernel accepts; counters rx.l4_partial > 0,
#      dropped.l4_checksum 0;
#   2. latprobe probe (DPDK) -> sockperf server, a kernel TCP listener
#      (SYN-ACK), stamp_peer.py's STAMP reflector: no loss, every answer
#      with a partial sum used and counted (probes.l4_partial).
. "$(dirname "$0")/lib.sh"
need_env
lp_have sockperf || lp_skip "needs Debian's sockperf"
lp_have ethtool || lp_skip "needs ethtool"
/usr/bin/python3 -c 'import scapy.contrib.stamp' 2>/dev/null || lp_skip "needs scapy (python3-scapy)"
lp_begin testbed
vdev() { echo "net_af_xdp0,iface=$1"; }
refl6=${LP_ADDR6_REFL%/*}
peer6=$LP_TOP/tests/integration/udp6_peer.py
PEER=(/usr/bin/python3 "$LP_TOP/tests/integration/stamp_peer.py")

# The sender's offload, as a kernel has it by default on a veth.
for side in "$LP_NS_PROBE:$LP_IF_PROBE" "$LP_NS_REFL:$LP_IF_REFL"; do
	ip netns exec "${side%%:*}" ethtool -K "${side#*:}" tx on >/dev/null 2>&1 ||
		lp_skip "ethtool -K ${side#*:} tx on refused"
	ip netns exec "${side%%:*}" ethtool -k "${side#*:}" | grep -q '^tx-checksumming: on' ||
		lp_skip "tx checksumming stays off on ${side#*:}"
done

# 1. Kernel senders -> latprobe reflect.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --addr "$LP_ADDR6_REFL" --json "$WORK/refl.json" -q
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
timeout 30 ip netns exec "$LP_NS_PROBE" sockperf ping-pong -i "$refl_ip" -p 11111 \
	-m 64 -t 2 --full-rtt >"$WORK/sp-client.txt" 2>&1 ||
	{ cat "$WORK/sp-client.txt" >&2; fail "sockperf client against the reflector (tx offload on)"; }
grep -E 'Summary: Round trip is' "$WORK/sp-client.txt" ||
	{ cat "$WORK/sp-client.txt" >&2; fail "sockperf got no answer from the reflector (tx offload on)"; }
timeout 60 ip netns exec "$LP_NS_PROBE" "${PEER[@]}" send --to "$refl_ip" --kind stamp \
	--len 44 --count 50 >"$WORK/stamp-send.txt" 2>&1 ||
	{ cat "$WORK/stamp-send.txt" >&2; fail "scapy STAMP sender against the reflector (tx offload on)"; }
grep '^stamp_peer send' "$WORK/stamp-send.txt"
lp_kaddr6 "$LP_NS_PROBE" "$LP_IF_PROBE" "$LP_ADDR6_PROBE"
timeout 60 ip netns exec "$LP_NS_PROBE" "$peer6" sockperf-client "$refl6" 11111 200 \
	>"$WORK/spc6.txt" 2>&1 || { cat "$WORK/spc6.txt" >&2; fail "IPv6 sockperf client (tx offload on)"; }
grep -q '^answered 200 ' "$WORK/spc6.txt" || { cat "$WORK/spc6.txt" >&2; fail "IPv6 sockperf client: not all answered"; }
stop_reflector
partial=$(json_get "$WORK/refl.json" counters/rx.l4_partial)
[ "$partial" -gt 0 ] || fail "reflector: rx.l4_partial is 0 with the senders' offload on"
[ "$(json_get "$WORK/refl.json" counters/dropped.l4_checksum)" -eq 0 ] ||
	fail "reflector dropped requests for their checksum"
grep -q 'rx.l4_partial: requests whose L4 checksum was partial' "$WORK/refl.log" ||
	fail "the text report does not say what rx.l4_partial means"
for k in answered.sockperf answered.stamp; do
	[ "$(json_get "$WORK/refl.json" "counters/$k")" -gt 0 ] || fail "reflector: $k is 0"
done
echo "interop_offload: reflector completed $partial partial checksums"
ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"

# 2. latprobe probe -> kernel peers whose answers carry partial sums.
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
LP_BG_LOG=$WORK/sp-server.log lp_bg_ns "$LP_NS_REFL" sockperf server -i "$refl_ip" -p 11111
lp_tcp_listener "$LP_NS_REFL" "$refl_ip" 8080 "$WORK/listener.log"
LP_BG_LOG=$WORK/peer-refl.log lp_bg_ns "$LP_NS_REFL" "${PEER[@]}" reflect \
	--bind "$refl_ip" --mode stateless --timeout 30
lp_wait_for "$WORK/peer-refl.log" '^stamp_peer reflect:' 10 || fail "stamp_peer reflect"
sleep 1
probe_dpdk sockperf --proto sockperf -l 64 -n 1000 "$refl_ip"
probe_dpdk tcp --proto tcp-syn -n 500 "$refl_ip:8080"
probe_dpdk stamp -n 200 "$refl_ip"
for t in sockperf:1000:sockperf tcp:500:tcp-syn stamp:200:stamp; do
	IFS=: read -r name n proto <<<"$t"
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/$name.json" \
		--sent "$n" --no-loss --proto "$proto" || fail "$name report (tx offload on)"
	p=$(json_get "$WORK/$name.json" probes/l4_partial)
	[ "$p" -gt 0 ] || fail "$name: no answer counted with a partial checksum"
	printf 'interop_offload: %-8s %s/%s answered, %s with a partial sum, p50 %s ns\n' "$name" \
		"$(json_get "$WORK/$name.json" probes/received)" "$n" "$p" \
		"$(json_get "$WORK/$name.json" rtt_ns/p50)"
done
grep -q 'Answers with a partial L4 checksum = ' "$WORK/sockperf.txt" ||
	fail "the probe's text report does not say partial"
# af_xdp offers no checksum offload: none enabled, and the JSON says so.
for f in refl sockperf; do
	$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))["checksum_offloads"]
sys.exit(0 if d == {"rx": "", "tx": ""} else 1)' "$WORK/$f.json" ||
		fail "$f: checksum_offloads is not {rx: \"\", tx: \"\"} on af_xdp"
done
echo "$LP_PROG: ok"
