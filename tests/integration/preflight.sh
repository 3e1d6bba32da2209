#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Pre-flight checks before EAL init: an interface that lives in another
# namespace is named with that namespace (probe and info exit 4); a second
# reflector on a taken af_xdp interface, memif server socket or kernel UDP
# port is refused (exit 4) and leaves the first one working.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed

LP_EXPECT_STDERR=1
LP_EXPECT_SHOW=1

# 1. The probe's interface from outside its namespace: say where it is.
expect 4 "interface $LP_IF_PROBE .* is not in this network namespace but in '$LP_NS_PROBE'" \
	"$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_PROBE" \
	-- --addr "$LP_ADDR_PROBE" -n 10 "$refl_ip"
expect 4 "is not in this network namespace but in '$LP_NS_PROBE'" \
	"$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --calibrate 10ms
expect 4 "interface ${LP_NS_PREFIX}nosuch0 .* does not exist here" \
	"$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=${LP_NS_PREFIX}nosuch0" -- --calibrate 10ms
# info exits 4 when a device the EAL options name does not come up.
expect 4 "--vdev net_af_packet0: the device did not come up as a DPDK port: EAL says .*failed to initialize net_af_packet0" \
	"$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --vdev "net_af_packet0" -- --calibrate 10ms

# 2. A second reflector on the same af_xdp interface.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" -q
prog=$(ip -n "$LP_NS_REFL" -d link show dev "$LP_IF_REFL" | grep -oE 'prog/xdp id [0-9]+')
[ -n "$prog" ] || fail "the first reflector has no XDP program on $LP_IF_REFL"
expect 4 "interface $LP_IF_REFL is in use: its XDP program [0-9]+ is held by pid $REFL_PID \(latprobe\); stop that process first" \
	ip netns exec "$LP_NS_REFL" "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" -- --addr "$LP_ADDR_REFL" -q
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "the refusal took more than one line"
[ "$(ip -n "$LP_NS_REFL" -d link show dev "$LP_IF_REFL" | grep -oE 'prog/xdp id [0-9]+')" = "$prog" ] ||
	fail "the second reflector changed the first one's XDP program"
kill -0 "$REFL_PID" || fail "the first reflector died"
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -n 200 -w 0 -q \
	--json "$WORK/probe.json" "$refl_ip" >"$WORK/probe.txt" 2>"$WORK/probe.err" ||
	{ cat "$WORK/probe.err" >&2; fail "probe after the refused second reflector exited $?"; }
# The veth path may drop ~0.1 % (dpdk-config/README.md); 200 probes keep it rare.
[ "$(json_get "$WORK/probe.json" probes/received)" -ge 199 ] ||
	fail "the first reflector no longer answers"
stop_reflector
# A killed reflector leaves its program attached and held by nobody: say how
# to remove it.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" -q
kill -KILL "$REFL_PID"
wait "$REFL_PID" 2>/dev/null || true
# Seen once under load: the program was gone by now (nothing to refuse).
if ip -n "$LP_NS_REFL" -d link show dev "$LP_IF_REFL" | grep -q 'prog/xdp'; then
	expect 4 "interface $LP_IF_REFL already has XDP program [0-9]+ attached and no process holds it.*'ip link set dev $LP_IF_REFL xdp off'" \
		ip netns exec "$LP_NS_REFL" "$LATPROBE" info -l 0 "${EAL_COMMON[@]}" \
		--vdev "net_af_xdp0,iface=$LP_IF_REFL" -- --calibrate 10ms
	ip -n "$LP_NS_REFL" link set dev "$LP_IF_REFL" xdp off
else
	echo "$LP_PROG: the killed reflector's XDP program was already detached; the orphan case is not exercised this time"
fi

# 3. A second memif server on the same socket.
sock=$LP_RUN_DIR/${LP_NS_PREFIX}pf-memif.sock
rm -f "$sock"
start_reflector - -l 0 "${EAL_COMMON[@]}" --vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" \
	-- --addr 198.18.0.2/24 -q
expect 4 "memif socket $sock .* already has a server listening by pid $REFL_PID \(latprobe\)" \
	"$LATPROBE" reflect -l 1 "${EAL_COMMON[@]}" --vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" \
	-- --addr 198.18.0.2/24 -q
[ -S "$sock" ] || fail "the second memif server removed the first one's socket"
kill -0 "$REFL_PID" || fail "the first memif reflector died"
stop_reflector

# 4. A second kernel reflector: name the port in use and who has it.
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
start_reflector "$LP_NS_REFL" --backend kernel --addr "$refl_ip" -q
expect 4 "UDP port 862 on $refl_ip is already in use by pid $REFL_PID \(latprobe\) \(another reflector\?\)" \
	ip netns exec "$LP_NS_REFL" "$LATPROBE" reflect --backend kernel --addr "$refl_ip" -q
stop_reflector
echo "$LP_PROG: ok"
