#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The reflector under a burst of frames that are not probes for it, sent by
# the kernel of the other namespace (scapy): each is counted under its reason
# and dropped, nothing crashes, and the valid ICMP/UDP echo among them are
# answered. Then iputils ping against the reflector (ARP + ICMP echo), and
# against --allow and --rate-limit.
# af_xdp, not af_packet: DPDK 22.11's af_packet joins a fanout group with
# PACKET_FANOUT_FLAG_DEFRAG, so the kernel holds lone IP fragments back (seen
# here: none reached an af_packet reflector).
. "$(dirname "$0")/lib.sh"
need_env
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import scapy' 2>/dev/null ||
	lp_skip "needs Debian's python3-scapy"
lp_have ping || lp_skip "needs iputils-ping"
lp_begin testbed

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
# Nothing but the answers left: no frame went back to a spoofed source.
answers = sum(v for k, v in c.items() if k.startswith("answered."))
if c.get("tx") != answers:
    print(f"garbage: tx {c.get('tx')} is not the {answers} answers")
    bad = 1
if c.get("answered.stamp", 0) != 0:
    print("garbage: a STAMP request from a martian, low or loop port was answered")
    bad = 1
if c.get("answered.arp", 0) < 1:
    print("garbage: ping's ARP request was not answered")
    bad = 1
print("garbage: counters " + ", ".join(f"{k}={v}" for k, v in sorted(c.items()) if v))
sys.exit(bad)
PY

# Source policy on a real PMD: --allow without the prober's prefix (ARP still
# answered, so ping sends its echo requests, each counted as dropped.acl),
# then --rate-limit 1 against 40 quick pings: a burst of 16, then one a
# second for as long as ping took.
probe_ip=${LP_ADDR_PROBE%/*}
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" --allow 198.19.0.0/16 --json "$WORK/acl.json" -q
ip -n "$LP_NS_PROBE" neigh flush dev "$LP_IF_PROBE"
ip netns exec "$LP_NS_PROBE" ping -c 5 -i 0.2 -W 1 "${LP_ADDR_REFL%/*}" >"$WORK/ping-acl.txt" &&
	fail "ping answered from outside --allow"
sleep 0.3
stop_reflector
[ "$(json_get "$WORK/acl.json" counters/dropped.acl)" -eq 5 ] ||
	fail "--allow: dropped.acl is $(json_get "$WORK/acl.json" counters/dropped.acl), expected 5"
[ "$(json_get "$WORK/acl.json" counters/answered.arp)" -ge 1 ] ||
	fail "--allow: ARP from outside the list not answered"
[ "$(json_get "$WORK/acl.json" counters/answered.icmp_echo)" -eq 0 ] ||
	fail "--allow: echo answered"

start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" --allow "$probe_ip/32" --rate-limit 1 \
	--json "$WORK/rate.json" -q
t0=$(date +%s%N)
ip netns exec "$LP_NS_PROBE" ping -c 40 -i 0.005 -W 1 "${LP_ADDR_REFL%/*}" >"$WORK/ping-rate.txt" || true
t1=$(date +%s%N)
sleep 0.3
stop_reflector
$PY -c 'import json,sys; c=json.load(open(sys.argv[1]))["counters"]; print("garbage: rate run: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items()) if v))' "$WORK/rate.json"
ans=$(json_get "$WORK/rate.json" counters/answered.icmp_echo)
lim=$(json_get "$WORK/rate.json" counters/dropped.rate_limited)
most=$((16 + (t1 - t0) / 1000000000 + 1))
echo "$LP_PROG: --rate-limit 1, 40 pings in $(((t1 - t0) / 1000000)) ms: $ans answered, $lim rate-limited"
[ $((ans + lim)) -eq 40 ] || fail "--rate-limit: $ans + $lim is not 40"
[ "$ans" -ge 16 ] && [ "$ans" -le "$most" ] ||
	fail "--rate-limit: $ans answered, expected 16..$most"
echo "$LP_PROG: ok"
