#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --backend kernel (no EAL, kernel UDP sockets, busy-polling) against every
# kind of peer across the testbed:
#   1. kernel prober -> DPDK reflector (stamp, sockperf, udp-echo)
#   2. DPDK prober  -> kernel reflector (stamp)
#   3. kernel prober -> kernel reflector (stamp and sockperf, IPv4 and
#      IPv6), and -> sockperf server
#   4. sockperf client -> kernel reflector
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed
kprobe() { # NAME OPTIONS... : kernel-backend prober in the probe namespace
	local name=$1
	shift
	ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe --backend kernel -q \
		--json "$WORK/$name.json" "$@" >"$WORK/$name.txt" 2>"$WORK/$name.err" ||
		{ cat "$WORK/$name.err" >&2; fail "$name: exited $?"; }
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/$name.json" \
		--no-loss || fail "$name report"
	[ "$(json_get "$WORK/$name.json" backend)" = kernel ] || fail "$name: backend not kernel"
}

# 1. The probe side's kernel owns its address; the reflector side is DPDK.
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" -q
for p in stamp sockperf udp-echo; do
	kprobe "k2d-$p" --proto "$p" -n 2000 "$refl_ip"
done
stop_reflector

# 2. Now the kernel owns the reflector side, DPDK the probe side.
ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
start_reflector "$LP_NS_REFL" --backend kernel --addr "$refl_ip" --json "$WORK/krefl.json" -q
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -n 2000 -q \
	--json "$WORK/d2k.json" "$refl_ip" >/dev/null 2>"$WORK/d2k.err" ||
	{ cat "$WORK/d2k.err" >&2; fail "DPDK prober -> kernel reflector"; }
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/d2k.json" \
	--sent 2000 --no-loss --remote-ts || fail "d2k report"

# 3./4. Both sides kernel.
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
kprobe k2k-stamp -n 2000 "$refl_ip"
kprobe k2k-sockperf --proto sockperf -l 64 -n 2000 "$refl_ip"
kprobe k2k-8k -l 8k -n 500 "$refl_ip"
if lp_have sockperf; then
	timeout 30 ip netns exec "$LP_NS_PROBE" sockperf ping-pong -i "$refl_ip" -p 11111 \
		-m 64 -t 1 --full-rtt >"$WORK/sp.txt" 2>&1 ||
		{ cat "$WORK/sp.txt" >&2; fail "sockperf client -> kernel reflector"; }
	grep -E 'Summary: Round trip is' "$WORK/sp.txt" || fail "sockperf: no round trip"
fi
stop_reflector
if lp_have sockperf; then
	LP_BG_LOG=$WORK/sp-server.log lp_bg_ns "$LP_NS_REFL" sockperf server -i "$refl_ip" -p 11111
	sleep 1
	kprobe k2sockperf --proto sockperf -n 2000 "$refl_ip"
fi
[ "$(json_get "$WORK/krefl.json" counters/answered.stamp)" -ge 4000 ] ||
	fail "kernel reflector answered too few STAMP probes"
[ "$(json_get "$WORK/krefl.json" counters/answered.sockperf)" -ge 2000 ] ||
	fail "kernel reflector answered too few sockperf probes"

# 5. Both sides kernel over IPv6.
refl6=${LP_ADDR6_REFL%/*}
lp_kaddr6 "$LP_NS_PROBE" "$LP_IF_PROBE" "$LP_ADDR6_PROBE"
lp_kaddr6 "$LP_NS_REFL" "$LP_IF_REFL" "$LP_ADDR6_REFL"
start_reflector "$LP_NS_REFL" --backend kernel --addr "$LP_ADDR6_REFL" --json "$WORK/krefl6.json" -q
kprobe k2k6-stamp -n 2000 "[$refl6]"
kprobe k2k6-sockperf --proto sockperf -l 64 -n 2000 "[$refl6]"
stop_reflector
[ "$(json_get "$WORK/krefl6.json" counters/answered.stamp)" -ge 2000 ] &&
	[ "$(json_get "$WORK/krefl6.json" counters/answered.sockperf)" -ge 2000 ] ||
	fail "kernel reflector over IPv6 answered too few probes"
for f in k2d-stamp k2d-sockperf k2d-udp-echo d2k k2k-stamp k2k-sockperf k2k-8k k2sockperf k2k6-stamp k2k6-sockperf; do
	[ -f "$WORK/$f.json" ] && printf 'kernel: %-13s p50 %s ns\n' "$f" "$(json_get "$WORK/$f.json" rtt_ns/p50)"
done
echo "$LP_PROG: ok"
