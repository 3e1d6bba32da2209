#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Many flows and the first packet of a flow, on af_xdp (veth between two
# namespaces) and on memif:
#   --flows 8: 8 flows in JSON "flows" (distinct source ports) whose counts
#     sum to probes.received, the spread verdict in "flows_spread";
#   --new-flow-every 10: first_packet_rtt_ns counts n/10, rtt_ns the rest;
#   the two series kept apart with a real effect: a kernel UDP echo that
#     holds the first datagram of every new 5-tuple 5 ms
#     (flow_setup_peer.py), with a new tuple every 5 probes, gives
#     first-packet p50 >= 5 ms and rtt_ns p90 < 5 ms (mixed, a fifth of
#     rtt_ns would be >= 5 ms: its p90 too; p90, not p99, so that a few
#     scheduling hiccups of the Python peer on a busy 2-CPU box do not
#     fail the test);
#   bad values and combinations: exit 2, one line.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed

# check FILE flows N | first N K: the JSON of one run.
check() {
	$PY - "$@" <<'PY' || fail "$1: JSON checks"
import json, sys
f, what = sys.argv[1], sys.argv[2]
r = json.load(open(f))
recv = r["probes"]["received"]
def die(msg):
    print(f"{f}: {msg}", file=sys.stderr)
    sys.exit(1)
if what == "flows":
    n = int(sys.argv[3])
    fl = r["flows"]
    if len(fl) != n:
        die(f"{len(fl)} flows, expected {n}")
    for o in fl:
        for k in ("sport", "count", "lost", "p50", "p99", "max"):
            if k not in o:
                die(f"flow without {k}: {o}")
        # A percentile is null with too few samples for its interval.
        fig = [o[k] for k in ("p50", "p99", "max") if o[k] is not None]
        if o["count"] == 0 or fig != sorted(fig):
            die(f"flow figures out of order: {o}")
    if len({o["sport"] for o in fl}) != n:
        die("two flows share a source port")
    if sum(o["count"] for o in fl) != recv:
        die(f"flow counts sum to {sum(o['count'] for o in fl)}, received {recv}")
    sp = r["flows_spread"]
    if not sp["valid"] or sp["ratio"] < 1 or not isinstance(sp["differ"], bool):
        die(f"flows_spread: {sp}")
    print(f"{f}: {n} flows, counts sum to {recv}, spread ratio "
          f"{sp['ratio']:.2f} vs own {sp['own_p99_over_p50']:.2f}")
else:
    n, k = int(sys.argv[3]), int(sys.argv[4])
    first = r["first_packet_rtt_ns"]["count"]
    steady = r["rtt_ns"]["count"]
    lost = r["probes"]["lost"]
    if abs(first - n // k) > lost or first == 0:
        die(f"first_packet_rtt_ns count {first}, expected {n // k} (lost {lost})")
    if first + steady != recv:
        die(f"first {first} + steady {steady} != received {recv}")
    if r["first_packet"]["new_flows"] != n // k:
        die(f"first_packet.new_flows {r['first_packet']['new_flows']}")
    print(f"{f}: {first} first packets, {steady} steady")
PY
}

# 1. af_xdp, against latprobe's reflector.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" -- --addr "$LP_ADDR_REFL" \
	--addr "$LP_ADDR6_REFL" -q
probe_dpdk xdp_flows --flows 8 -n 4000 "$refl_ip"
check "$WORK/xdp_flows.json" flows 8
grep -q '^Flows (8, worst p99 first' "$WORK/xdp_flows.txt" || fail "no flow table in the text report"
grep -qE '^  the flows (DIFFER|do not differ)' "$WORK/xdp_flows.txt" || fail "no spread verdict"
probe_dpdk xdp_first --new-flow-every 10 -n 1000 -w 0 "$refl_ip"
check "$WORK/xdp_first.json" first 1000 10
grep -q '^First packet of each new flow' "$WORK/xdp_first.txt" || fail "no first-packet line"
# IPv6: the same over 4-tuples of IPv6 addresses.
probe_dpdk xdp_flows6 --addr "$LP_ADDR6_PROBE" --proto udp-echo --flows 4 -n 800 \
	"[${LP_ADDR6_REFL%/*}]:7"
check "$WORK/xdp_flows6.json" flows 4
probe_dpdk xdp_first6 --addr "$LP_ADDR6_PROBE" --new-flow-every 5 -n 500 -w 0 \
	"[${LP_ADDR6_REFL%/*}]:862"
check "$WORK/xdp_first6.json" first 500 5
# Fresh ports run out (65 from 65471 up): the oldest is used again,
# counted and said.
probe_dpdk xdp_reuse --new-flow-every 1 -n 100 -w 0 --sport 65471 "$refl_ip"
[ "$(json_get "$WORK/xdp_reuse.json" first_packet/fresh_reused)" -eq 35 ] ||
	fail "fresh_reused is not 35"
grep -q 'fresh source ports ran out' "$WORK/xdp_reuse.err" || fail "no warning when fresh ports ran out"
# The options' bad values and combinations: one line, exit 2.
LP_EXPECT_ONE_LINE=1
for bad in "--flows 0" "--flows 4097" "--flows x" "--new-flow-every 0" \
	"--flows 4 --new-flow-every 10" "--flows 4 --proto icmp" \
	"--first-packet --proto icmp"; do
	# shellcheck disable=SC2086 # the options split on purpose
	expect 2 "flow|first|icmp" ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 \
		"${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- \
		--addr "$LP_ADDR_PROBE" -q $bad "$refl_ip"
done
expect 2 "dpdk backend" "$LATPROBE" probe --backend kernel --flows 4 127.0.0.1
unset LP_EXPECT_ONE_LINE
stop_reflector

# 2. The first packets kept apart, with an effect: the kernel answers (it
# owns the reflector side's address now), holding each new tuple's first
# datagram 5 ms. The peer runs on CPU 0, away from the prober's lcore 1.
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
LP_BG_LOG=$WORK/peer.log lp_bg_ns "$LP_NS_REFL" taskset -c 0 \
	"$LP_TOP/tests/integration/flow_setup_peer.py" "$refl_ip" 7 5 60
lp_wait_for "$WORK/peer.log" listening 10 || fail "the flow-setup peer did not start"
probe_dpdk setup --proto udp-echo -l 64 --new-flow-every 5 -n 500 -w 0 "$refl_ip"
check "$WORK/setup.json" first 500 5
$PY - "$WORK/setup.json" <<'PY' || fail "first packets and steady state not kept apart"
import json, sys
r = json.load(open(sys.argv[1]))
first, steady = r["first_packet_rtt_ns"], r["rtt_ns"]
print(f"first-packet p50 {first['p50']} ns, steady p50 {steady['p50']} ns, "
      f"p90 {steady['p90']} ns, p99 {steady['p99']} ns")
sys.exit(0 if first["p50"] >= 5000000 and steady["p90"] < 5000000 else 1)
PY
# tcp-syn: the kernel's RST from a closed port is each flow's answer (the
# answer's ACK names the probe, its destination port the flow).
probe_dpdk tcp_flows --proto tcp-syn --flows 4 -n 400 "$refl_ip:8081"
check "$WORK/tcp_flows.json" flows 4
ip -n "$LP_NS_REFL" addr flush dev "$LP_IF_REFL"

# 3. memif (the server first), against latprobe's reflector.
sock=$LP_RUN_DIR/${LP_NS_PREFIX}memif.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }
# One reflector per run (a memif server serves one client at a time).
memif_run() { # NAME OPTIONS...
	local name=$1
	shift
	rm -f "$sock"
	start_reflector - -l 0 "${EAL_COMMON[@]}" --vdev "$(memif server)" \
		-- --addr 198.18.0.2/24 -q
	"$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$(memif client)" \
		-- --addr 198.18.0.1/24 -q --json "$WORK/$name.json" "$@" 198.18.0.2 \
		>"$WORK/$name.txt" 2>"$WORK/$name.err" ||
		{ cat "$WORK/$name.err" >&2; fail "$name: probe exited"; }
	stop_reflector
	[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "reflector exited $REFL_RC"; }
}
memif_run memif_flows --flows 8 -n 4000
memif_run memif_first --new-flow-every 10 -n 1000 -w 0
check "$WORK/memif_flows.json" flows 8
check "$WORK/memif_first.json" first 1000 10
echo "$LP_PROG: ok"
