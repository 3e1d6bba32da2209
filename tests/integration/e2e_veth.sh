#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Reflector and prober in two namespaces over a veth pair, on a real DPDK
# PMD ($2: af_xdp or af_packet). Asserts no loss on the quiet link, sane
# percentiles, network RTT <= RTT, the JSON keys, and that --samples agrees
# with the histogram within its 0.78 % error.
. "$(dirname "$0")/lib.sh"
pmd=${2:?af_xdp or af_packet}
need_env
lp_begin testbed

vdev() { echo "net_${pmd}0,iface=$1"; }
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --json "$WORK/refl.json" -q
n=3000
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "$(vdev "$LP_IF_PROBE")" -- --addr "$LP_ADDR_PROBE" -n $n -w 50 -q \
	--json "$WORK/probe.json" --samples "$WORK/samples.csv" --pcap "$WORK/probe.pcapng" \
	"${LP_ADDR_REFL%/*}" \
	>"$WORK/probe.txt" 2>"$WORK/probe.err" || {
	cat "$WORK/probe.err" >&2
	fail "probe exited $?"
}
cat "$WORK/probe.txt"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/probe.json" \
	--samples "$WORK/samples.csv" --sent $n --no-loss --remote-ts --proto stamp ||
	fail "report checks"
grep -q 'Sent = 3000, Received = 3000' "$WORK/probe.txt" || fail "text report lacks the summary line"
# --pcap: every probe and answer (warm-up included), readable by tshark as STAMP.
if lp_have tshark; then
	pkts=$(tshark -r "$WORK/probe.pcapng" -d udp.port==862,twamp.test -Y twamp.test 2>/dev/null | wc -l)
	[ "$pkts" -eq $((2 * (n + 50))) ] || fail "pcapng has $pkts STAMP packets, expected $((2 * (n + 50)))"
fi

stop_reflector
[ -s "$WORK/refl.json" ] || fail "reflector wrote no JSON on SIGINT"
answered=$(json_get "$WORK/refl.json" counters/answered.stamp)
# Every probe and warm-up probe was answered by the reflector.
[ "$answered" -eq $((n + 50)) ] || fail "reflector answered $answered STAMP probes, expected $((n + 50))"
echo "$LP_PROG: ok ($pmd)"
