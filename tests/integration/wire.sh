#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The report's options and lines on a real PMD (af_xdp on the testbed's veth pair):
#   1. the DPDK reflector's start line gives the port's MAC (the veth's);
#      the port is promiscuous with --promisc only;
#   2. VLAN: a tagged ARP request and echo request (scapy, from the other
#      veth) get answers with the same tag through the PMD;
#   3. probe --vlan against the DPDK reflector: all 500 answered, every
#      probe and answer tagged in the prober's pcap;
#   4. -t bounds the run with its warm-up: tcp-syn -i 10ms -t 3 -w 200 to a
#      closed port of the kernel (RST answers) ends in about 3 s (before,
#      the 2 s of warm-up came on top);
#      A closed UDP port of the kernel: its ICMP port unreachable reported.
#   5. an interval stretched by timeouts is reported (tcp-syn to an address
#      nobody owns, -w 0), and the empty series as '-'.
# The veths carry VLAN tags in the frame (rxvlan/txvlan off), as a NIC
# without VLAN offload would. (The test kernel may lack 802.1Q interfaces:
# no kernel VLAN peer here.)
. "$(dirname "$0")/lib.sh"
need_env
lp_have ethtool || lp_skip "needs ethtool"
lp_have ping || lp_skip "needs iputils-ping"
lp_begin testbed
vid=100
for x in "$LP_NS_PROBE $LP_IF_PROBE" "$LP_NS_REFL $LP_IF_REFL"; do
	# shellcheck disable=SC2086
	set -- $x
	ip netns exec "$1" ethtool -K "$2" rxvlan off txvlan off >/dev/null 2>&1 || true
done
eal() { # IFACE LCORE
	echo "-l $2 ${EAL_COMMON[*]} --vdev net_af_xdp0,iface=$1"
}
# shellcheck disable=SC2046
dprobe() { # RC NAME OPTS... : DPDK prober in the probe namespace
	local want=$1 name=$2 rc=0 t0
	shift 2
	t0=$(date +%s%N)
	timeout 60 ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe $(eal "$LP_IF_PROBE" 1) \
		-- --addr "$LP_ADDR_PROBE" -q --json "$WORK/$name.json" "$@" \
		>"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	ELAPSED_MS=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" -eq "$want" ] || {
		cat "$WORK/$name.txt" "$WORK/$name.err" >&2
		fail "$name: probe exited $rc, expected $want"
	}
}
refl_mac=$(ip -n "$LP_NS_REFL" -br link show dev "$LP_IF_REFL" | awk '{print $3}')

# 1./2. DPDK reflector; the probe side's kernel on a VLAN interface pings it.
# shellcheck disable=SC2046
start_reflector "$LP_NS_REFL" $(eal "$LP_IF_REFL" 0) -- --addr "$LP_ADDR_REFL" \
	--json "$WORK/refl.json" -q
grep -q "^latprobe reflect: $LP_ADDR_REFL on port 0 (net_af_xdp0, net_af_xdp, MAC $refl_mac)" "$WORK/refl.log" ||
	{ cat "$WORK/refl.log" >&2; fail "the reflector's start line does not give its MAC $refl_mac"; }
promisc() { ip -n "$LP_NS_REFL" -o link show dev "$LP_IF_REFL" | grep -c PROMISC || true; }
[ "$(promisc)" -eq 0 ] || fail "the port is promiscuous without --promisc"
# This kernel may have no 802.1Q support: scapy sends the tagged ARP request
# and echo request from the probe side's veth and takes the answers there.
if ! /usr/bin/python3 -c 'import scapy' 2>/dev/null; then
	stop_reflector
	lp_skip "needs Debian's python3-scapy"
fi
rc=0
timeout 30 ip netns exec "$LP_NS_PROBE" /usr/bin/python3 - "$LP_IF_PROBE" "$refl_ip" \
	"${LP_ADDR_PROBE%/*}" "$refl_mac" $vid >"$WORK/vlan-arp.txt" 2>&1 <<'PY' || rc=$?
import sys
from scapy.all import ARP, ICMP, IP, Dot1Q, Ether, conf, get_if_hwaddr, srp1
conf.verb = 0
iface, dip, sip, dmac, vid = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
me = get_if_hwaddr(iface)
ans = srp1(Ether(src=me, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=vid) /
           ARP(op=1, hwsrc=me, psrc=sip, pdst=dip), iface=iface, timeout=3)
assert ans is not None, "no ARP answer"
assert Dot1Q in ans and ans[Dot1Q].vlan == vid, f"ARP answer without tag {vid}: {ans.summary()}"
assert ans[ARP].op == 2 and ans[ARP].hwsrc == dmac, ans.summary()
ans = srp1(Ether(src=me, dst=dmac) / Dot1Q(vlan=vid) / IP(src=sip, dst=dip) /
           ICMP(id=9, seq=1), iface=iface, timeout=3)
assert ans is not None, "no echo reply"
assert Dot1Q in ans and ans[Dot1Q].vlan == vid, f"echo reply without tag {vid}: {ans.summary()}"
print(f"VLAN {vid}: ARP answer and echo reply tagged")
PY
stop_reflector
cat "$WORK/vlan-arp.txt"
[ "$rc" -eq 0 ] || fail "VLAN $vid: the answers did not keep the tag"
[ "$(json_get "$WORK/refl.json" counters/answered.arp)" -eq 1 ] || fail "VLAN: not 1 ARP answered"
[ "$(json_get "$WORK/refl.json" counters/answered.icmp_echo)" -eq 1 ] || fail "VLAN: not 1 echo answered"

# 3. probe --vlan against the DPDK reflector: every probe and answer in the
# prober's pcap carries the tag, and every probe is answered.
# shellcheck disable=SC2046
start_reflector "$LP_NS_REFL" $(eal "$LP_IF_REFL" 0) -- --addr "$LP_ADDR_REFL" \
	--json "$WORK/refl2.json" -q --promisc
[ "$(promisc)" -eq 1 ] || fail "--promisc: the port is not promiscuous"
dprobe 0 vlan --vlan $vid -n 500 -w 10 --pcap "$WORK/vlan.pcapng" "$refl_ip"
stop_reflector
[ "$(json_get "$WORK/vlan.json" probes/received)" -eq 500 ] || fail "probe --vlan: not 500 answers"
/usr/bin/python3 - "$WORK/vlan.pcapng" $vid <<'PY' || fail "probe --vlan: untagged frames in the pcap"
import sys
from scapy.all import UDP, Dot1Q, rdpcap
vid, n = int(sys.argv[2]), 0
for p in rdpcap(sys.argv[1]):
    if UDP in p:
        assert Dot1Q in p and p[Dot1Q].vlan == vid, p.summary()
        n += 1
assert n == 2 * 510, f"{n} STAMP frames in the pcap"
print(f"probe --vlan {vid}: {n} probes and answers, all tagged")
PY

# 4. -t bounds the whole run: 2 s of warm-up (200 x 10 ms) inside -t 3.
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
dprobe 0 tbound --proto tcp-syn -i 10ms -t 3 -w 200 "$refl_ip:443"
echo "$LP_PROG: tcp-syn -i 10ms -t 3 -w 200: ${ELAPSED_MS} ms from start to exit"
[ "$ELAPSED_MS" -lt 4500 ] || fail "-t 3 with 2 s of warm-up ran ${ELAPSED_MS} ms"
[ "$ELAPSED_MS" -ge 2900 ] || fail "-t 3 ended after ${ELAPSED_MS} ms"
[ "$(json_get "$WORK/tbound.json" probes/warmup)" -eq 200 ] || fail "-t 3: warm-up not complete"
grep -q 'RST answers' "$WORK/tbound.txt" || fail "closed port: no 'RST answers'"

# The kernel has no STAMP listener: its ICMP port unreachable quoting each
# probe is counted (probes.unreachable) and named, not taken as plain loss.
dprobe 5 unreach -n 5 -w 0 --timeout 100ms -i 100ms "$refl_ip"
grep -q "^  $refl_ip:862 answered ICMP port unreachable: nothing listens there (5 times)" "$WORK/unreach.txt" ||
	{ cat "$WORK/unreach.txt" >&2; fail "DPDK prober: ICMP port unreachable not reported"; }
[ "$(json_get "$WORK/unreach.json" probes/unreachable)" -eq 5 ] || fail "DPDK prober: probes.unreachable is not 5"

# 5. Timeouts stretch -i: an address the kernel does not own (it drops the
# SYNs), with the reflector side's MAC so that no ARP is needed.
other=${refl_ip%.*}.$((${refl_ip##*.} + 1))
dprobe 5 stretch --proto tcp-syn -i 10ms -t 2 -w 0 --peer-mac "$refl_mac" "$other:443"
cat "$WORK/stretch.txt"
grep -qE '^  Interval 10\.000ms stretched to .* by [0-9,]+ timeouts' "$WORK/stretch.txt" ||
	fail "timeouts stretched the interval: the report does not say so"
[ "$(json_get "$WORK/stretch.json" probes/interval_stretched)" -ge 5 ] || fail "probes.interval_stretched below 5"
grep -q '^  Minimum = -, Maximum = -, Average = -, Stddev = -$' "$WORK/stretch.txt" ||
	fail "no answer: the empty series is not shown as '-'"
[ "$ELAPSED_MS" -lt 3500 ] || fail "-t 2 ran ${ELAPSED_MS} ms"
echo "$LP_PROG: ok"
