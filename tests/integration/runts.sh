#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# No runt on the wire. A frame under the Ethernet minimum (60 bytes
# without the FCS) is an error on a real NIC (igb counts it in
# rx_undersize_errors); a veth passes it on, so this captures on the
# kernel's end of the veth (dumpcap; no XDP program there, so it sees every
# frame that arrives) and finds no frame from the DPDK side under 60 bytes:
#   1. the DPDK prober (af_xdp) against the kernel: ARP, sockperf, STAMP,
#      ICMP and TCP SYN probes (and the RST after a listener's SYN-ACK);
#   2. the DPDK reflector (af_xdp) answering the kernel: ARP, ping -s 0
#      (42-byte requests), sockperf and STAMP probes from --backend kernel
#      (the sockperf ones leave the kernel as 56-byte frames).
. "$(dirname "$0")/lib.sh"
need_env
lp_have tshark || lp_skip "needs tshark"
lp_have dumpcap || lp_skip "needs dumpcap (wireshark-common)"
lp_have ping || lp_skip "needs iputils-ping"
lp_begin testbed
mac_of() { # NS IF
	ip -n "$1" -br link show dev "$2" | awk '{print $3}'
}
probe_mac=$(mac_of "$LP_NS_PROBE" "$LP_IF_PROBE")
refl_mac=$(mac_of "$LP_NS_REFL" "$LP_IF_REFL")

# capture_start NAME NS IF / capture_stop: dumpcap in the background.
capture_start() {
	LP_BG_LOG=$WORK/$1.cap.log lp_bg_ns "$2" dumpcap -q -i "$3" -w "$WORK/$1.pcapng"
	CAP_PID=$LP_LAST_PID
	lp_wait_for "$WORK/$1.cap.log" 'Capturing on' 20 ||
		{ cat "$WORK/$1.cap.log" >&2; fail "dumpcap on $3 did not start"; }
}
capture_stop() {
	sleep 0.5 # the last frames written
	kill -INT "$CAP_PID" 2>/dev/null || true
	wait "$CAP_PID" 2>/dev/null || true
}
# check_capture NAME MAC KIND...: frames from MAC in the capture, none under
# 60 bytes, at least one of each KIND (a tshark display filter).
check_capture() {
	local name=$1 mac=$2 kind n short
	shift 2
	tshark -r "$WORK/$name.pcapng" -Y "eth.src == $mac" -T fields \
		-e frame.len -e frame.protocols >"$WORK/$name.frames" 2>/dev/null
	n=$(wc -l <"$WORK/$name.frames")
	short=$(awk '$1 < 60' "$WORK/$name.frames" | sort | uniq -c)
	echo "$LP_PROG: $name: $n frames from $mac; under 60 bytes: ${short:-none}"
	[ "$n" -gt 0 ] || fail "$name: no frame from $mac captured"
	[ -z "$short" ] || fail "$name: runts on the wire: $short"
	for kind in "$@"; do
		[ "$(tshark -r "$WORK/$name.pcapng" -Y "eth.src == $mac && ($kind)" 2>/dev/null | wc -l)" -gt 0 ] ||
			fail "$name: no '$kind' frame from $mac captured"
	done
}
eal() { # IFACE LCORE
	echo "-l $2 ${EAL_COMMON[*]} --vdev net_af_xdp0,iface=$1"
}
# shellcheck disable=SC2046
dprobe() { # RC NAME OPTS... : DPDK prober in the probe namespace
	local want=$1 name=$2 rc=0
	shift 2
	timeout 60 ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe $(eal "$LP_IF_PROBE" 1) \
		-- --addr "$LP_ADDR_PROBE" -q --json "$WORK/$name.json" "$@" \
		>"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq "$want" ] || {
		cat "$WORK/$name.txt" "$WORK/$name.err" >&2
		fail "$name: probe exited $rc, expected $want"
	}
}

# 1. The DPDK prober; the kernel on the reflector side (its address, a TCP
# listener, no STAMP or sockperf listener: those probes are answered with
# ICMP port unreachable, and are on the wire all the same).
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
LP_BG_LOG=$WORK/listen.log lp_bg_ns "$LP_NS_REFL" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 8080))
s.listen(64)
print("listening", flush=True)
time.sleep(120)
' "$refl_ip"
lp_wait_for "$WORK/listen.log" '^listening' 20 || fail "the TCP listener did not start"
capture_start prober "$LP_NS_REFL" "$LP_IF_REFL"
dprobe 0 icmp --proto icmp -l 8 -n 5 -w 0 -i 10ms "$refl_ip"
dprobe 0 tcp --proto tcp-syn -n 5 -w 0 -i 10ms "$refl_ip:8080"
dprobe 5 sockperf --proto sockperf -l 14 -n 5 -w 0 -i 10ms --timeout 100ms "$refl_ip"
dprobe 5 stamp -n 5 -w 0 -i 10ms --timeout 100ms "$refl_ip"
capture_stop
check_capture prober "$probe_mac" arp icmp "tcp.flags.syn == 1" \
	"tcp.flags.reset == 1" "udp.dstport == 11111" "udp.dstport == 862"
ip -n "$LP_NS_REFL" addr del "$LP_ADDR_REFL" dev "$LP_IF_REFL"

# 2. The DPDK reflector; the kernel on the probe side.
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
# shellcheck disable=SC2046
start_reflector "$LP_NS_REFL" $(eal "$LP_IF_REFL" 0) -- --addr "$LP_ADDR_REFL" \
	--json "$WORK/refl.json" -q
capture_start reflector "$LP_NS_PROBE" "$LP_IF_PROBE"
timeout 20 ip netns exec "$LP_NS_PROBE" ping -c 3 -i 0.2 -s 0 -W 2 "$refl_ip" \
	>"$WORK/ping.txt" 2>&1 || { cat "$WORK/ping.txt" >&2; fail "ping -s 0: no answer"; }
for p in sockperf:14 stamp:44; do
	timeout 30 ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe --backend kernel \
		--proto "${p%:*}" -l "${p#*:}" -n 5 -w 0 -i 10ms \
		-q --json "$WORK/k${p%:*}.json" "$refl_ip" >"$WORK/k${p%:*}.txt" 2>&1 ||
		{ cat "$WORK/k${p%:*}.txt" >&2; fail "--backend kernel --proto ${p%:*}: not answered"; }
done
capture_stop
stop_reflector
check_capture reflector "$refl_mac" arp icmp "udp.srcport == 11111" "udp.srcport == 862"
# The kernel's own requests were runts (the case the reflector pads).
[ "$(tshark -r "$WORK/reflector.pcapng" -Y "eth.src == $probe_mac && frame.len < 60" 2>/dev/null | wc -l)" -gt 0 ] ||
	fail "the kernel sent no runt: the reflector's padding was not exercised"
echo "$LP_PROG: ok"
