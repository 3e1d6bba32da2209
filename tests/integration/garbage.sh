#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The reflector under a burst of frames that are not probes for it, sent by
# the kernel of the other namespace (scapy): each is counted under its reason
# and dropped, nothing crashes, and the valid ICMP/UDP echo among them are
# answered. Then iputils ping against the reflector (ARP + ICMP echo).
# af_xdp, not af_packet: DPDK 22.11's af_packet joins a fanout group with
# PACKET_FANOUT_FLAG_DEFRAG, so the kernel holds lone IP fragments back (seen
# here: none reached an af_packet reflector).
. "$(dirname "$0")/lib.sh"
need_env
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import scapy' 2>/dev/null ||
	lp_skip "needs Debian's python3-scapy"
lp_have ping || lp_skip "needs iputils-ping"
lp_trap_cleanup
cleanup_work
testbed_up

start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" --json "$WORK/refl.json" -q
mac=$(ip -n "$LP_NS_REFL" -br link show dev "$LP_IF_REFL" | awk '{print $3}')
[ -n "$mac" ] || fail "no MAC for $LP_IF_REFL"
ip netns exec "$LP_NS_PROBE" /usr/bin/python3 "$LP_TOP/tests/integration/send_garbage.py" \
	"$LP_IF_PROBE" "$mac" "${LP_ADDR_REFL%/*}" "${LP_ADDR_PROBE%/*}" 20 >"$WORK/expect.json" ||
	fail "send_garbage.py failed"
# The kernel side needs an address for ping (the reflector side has none).
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
ip netns exec "$LP_NS_PROBE" ping -c 5 -i 0.2 -W 2 "${LP_ADDR_REFL%/*}" >"$WORK/ping.txt" ||
	{ cat "$WORK/ping.txt" >&2; fail "iputils ping got no answer from the reflector"; }
grep -q '5 received' "$WORK/ping.txt" || fail "ping: not 5 answers"
sleep 0.5
stop_reflector
[ -s "$WORK/refl.json" ] || fail "no reflector JSON"
$PY - "$WORK/expect.json" "$WORK/refl.json" <<'PY' || fail "counter mismatch"
import json, sys
expect = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
c = rep["counters"]
bad = 0
# ping adds 5 echo requests and at least one ARP request.
expect["counters/answered.icmp_echo"] += 5
for key, want in expect.items():
    got = c.get(key.split("/", 1)[1])
    if got != want:
        print(f"garbage: {key}: got {got}, expected {want}")
        bad = 1
if c.get("reassembled", 0) != 0:
    print("garbage: a lone fragment was 'reassembled'")
    bad = 1
if c.get("answered.arp", 0) < 1:
    print("garbage: ping's ARP request was not answered")
    bad = 1
print("garbage: counters " + ", ".join(f"{k}={v}" for k, v in sorted(c.items()) if v))
sys.exit(bad)
PY
echo "$LP_PROG: ok"
