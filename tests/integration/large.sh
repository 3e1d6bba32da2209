#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Probes larger than the MTU (PsPing's -l 8k): IPv4 fragments both ways over
# af_xdp across the testbed's veth (MTU 1500).
#   1. latprobe probe -l 8k and -l 65507 -> latprobe reflect (both DPDK)
#   2. sockperf client -m 8192 (kernel) -> latprobe reflect
#   3. iputils ping -s 8000 -> latprobe reflect
#   4. latprobe probe --proto sockperf -l 8k -> sockperf server (kernel)
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed
vdev() { echo "net_af_xdp0,iface=$1"; }

start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --json "$WORK/refl.json" -q
probe_dpdk stamp8k -l 8k -n 1000 -w 10 --samples "$WORK/stamp8k.csv" "$refl_ip"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/stamp8k.json" \
	--samples "$WORK/stamp8k.csv" --sent 1000 --no-loss --remote-ts || fail "-l 8k report"
probe_dpdk stamp64k -l 65507 -n 100 -w 5 "$refl_ip"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/stamp64k.json" \
	--sent 100 --no-loss --remote-ts || fail "-l 65507 report"

# Kernel peers need the kernel address on the probe side now.
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
if lp_have sockperf; then
	timeout 30 ip netns exec "$LP_NS_PROBE" sockperf ping-pong -i "$refl_ip" -p 11111 \
		-m 8192 -t 2 --full-rtt >"$WORK/sp8k.txt" 2>&1 ||
		{ cat "$WORK/sp8k.txt" >&2; fail "sockperf -m 8192 against the reflector"; }
	grep -E 'Summary: Round trip is' "$WORK/sp8k.txt" || fail "sockperf 8 KiB: no round trip"
fi
ip netns exec "$LP_NS_PROBE" ping -c 5 -i 0.2 -W 2 -s 8000 "$refl_ip" >"$WORK/ping8k.txt" ||
	{ cat "$WORK/ping8k.txt" >&2; fail "ping -s 8000 got no answer"; }
grep -q '5 received' "$WORK/ping8k.txt" || fail "ping -s 8000: not 5 answers"
ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"
stop_reflector
$PY - "$WORK/refl.json" <<'PY' || fail "reflector counters"
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
print("large: reflector " + ", ".join(f"{k}={v}" for k, v in sorted(c.items()) if v))
# 1010 + 105 STAMP datagrams and 5 pings at least were reassembled.
ok = c["reassembled"] >= 1010 + 105 + 5 and c["dropped.reassembly"] == 0
sys.exit(0 if ok else 1)
PY

if lp_have sockperf; then
	ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
	LP_BG_LOG=$WORK/sp-server.log lp_bg_ns "$LP_NS_REFL" sockperf server -i "$refl_ip" -p 11111
	sleep 1
	probe_dpdk sockperf8k --proto sockperf -l 8k -n 500 "$refl_ip"
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/sockperf8k.json" \
		--sent 500 --no-loss --proto sockperf || fail "sockperf server 8 KiB report"
fi
for f in stamp8k stamp64k sockperf8k; do
	[ -f "$WORK/$f.json" ] && printf 'large: %-10s p50 %s ns\n' "$f" "$(json_get "$WORK/$f.json" rtt_ns/p50)"
done
echo "$LP_PROG: ok"
