#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The NIC path: the path classification on a real failsafe port over
# net_ring, looped back (its one sub-device carries every packet: taken as
# the VF, share 1, or as the synthetic path, share 0 and a warning),
# --live-path, latprobe info's path line, and --hw-timestamps refused, in
# one line and with exit 4, on
# PMDs without NIC rx timestamps: af_xdp and ring (probe), af_xdp and memif
# (reflect; a memif client cannot start without its server).
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed
LP_EXPECT_STDERR=1
LP_EXPECT_ONE_LINE=1

# failsafe numbers its sub-devices in the order of dev()/exec()/fd() and
# latprobe reads them from its devargs: a sub-device whose device comes at
# run time (exec(), fd(): vdev_netvsc hot-plugs the VF so) is the VF, a
# dev() naming a software PMD the synthetic path.
vf=(-l 0 "${EAL_COMMON[@]}" --vdev 'net_failsafe0,exec(echo net_ring0)')
syn=(-l 0 "${EAL_COMMON[@]}" --vdev 'net_failsafe0,dev(net_ring0)')
"$LATPROBE" probe "${vf[@]}" -- --addr 198.18.0.1/24 --loopback -n 500 -w 10 -q \
	--json "$WORK/fs.json" 198.18.0.2 >"$WORK/fs.txt" 2>"$WORK/fs.err" ||
	{ cat "$WORK/fs.err" >&2; fail "failsafe probe exited $?"; }
[ "$(json_get "$WORK/fs.json" port/path/kind)" = failsafe ] || fail "port.path.kind is not failsafe"
[ "$(json_get "$WORK/fs.json" port/path/vf_share)" = 1.0 ] || fail "port.path.vf_share is not 1.0"
# 510 probes and their 510 answers, each sent and received on the port.
[ "$(json_get "$WORK/fs.json" port/path/vf_tx_packets)" -ge 1020 ] || fail "vf_tx_packets below 1020"
[ "$(json_get "$WORK/fs.json" port/path/synthetic_rx_packets)" -eq 0 ] || fail "synthetic rx moved"
grep -q '^Port path (failsafe): VF rx [0-9]* tx [0-9]*, synthetic rx 0 tx 0 (VF share 100.00%)$' \
	"$WORK/fs.txt" || fail "text report lacks the path line"
grep -q WARNING "$WORK/fs.txt" && fail "a warning with no synthetic packet"
# Everything over the synthetic sub-device: share 0, a warning on stderr
# and in the report.
"$LATPROBE" probe "${syn[@]}" -- --addr 198.18.0.1/24 --loopback -n 500 -w 10 -q \
	--json "$WORK/syn.json" 198.18.0.2 >"$WORK/syn.txt" 2>"$WORK/syn.err" ||
	{ cat "$WORK/syn.err" >&2; fail "failsafe (synthetic) probe exited $?"; }
[ "$(json_get "$WORK/syn.json" port/path/vf_share)" = 0.0 ] || fail "synthetic: vf_share is not 0.0"
[ "$(json_get "$WORK/syn.json" port/path/synthetic_tx_packets)" -ge 1020 ] ||
	fail "synthetic_tx_packets below 1020"
grep -q 'over the synthetic path, not the VF (VF share 0.00%)' "$WORK/syn.err" ||
	fail "no synthetic-path warning on stderr"
grep -q '^WARNING: [0-9]* packet(s) took the synthetic path' "$WORK/syn.txt" ||
	fail "no synthetic-path warning in the report"
# --live-path: under each live line, the path of that second.
"$LATPROBE" probe "${syn[@]}" -- --addr 198.18.0.1/24 --loopback -n 2500 -i 1ms -w 0 \
	-t 2.5 --live-path 198.18.0.2 >/dev/null 2>"$WORK/live.err" ||
	{ cat "$WORK/live.err" >&2; fail "--live-path probe exited $?"; }
grep -qE '^ +path \(failsafe\): VF rx \+0 tx \+0, synthetic rx \+[1-9][0-9]* tx \+[1-9][0-9]* \(SYNTHETIC PATH\)$' \
	"$WORK/live.err" || { cat "$WORK/live.err" >&2; fail "no live path line"; }
# A software port: its kind, no split.
"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
	--loopback -n 100 -q --json "$WORK/ring.json" 198.18.0.2 >/dev/null 2>&1 ||
	fail "ring probe exited $?"
[ "$(json_get "$WORK/ring.json" port/path/kind)" = software ] || fail "ring: kind is not software"
$PY -c 'import json,sys; sys.exit("vf_share" in json.load(open(sys.argv[1]))["port"]["path"])' \
	"$WORK/ring.json" || fail "ring: vf_share present"

LP_EXPECT_STDERR=0
expect 0 'path: failsafe with NO hardware VF' "$LATPROBE" info "${syn[@]}" -- --calibrate 20ms
expect 0 'path: software \(net_ring\)' "$LATPROBE" info --profile ring -- --calibrate 20ms
LP_EXPECT_STDERR=1

refused='--hw-timestamps: port 0 \(net_[a-z_]+\) cannot timestamp received packets'
expect 4 "$refused" "$LATPROBE" probe --profile ring --log-level=lib.eal:error -- \
	--addr 198.18.0.1/24 --loopback -n 10 -q --hw-timestamps 198.18.0.2
expect 4 "$refused" ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -n 10 -q \
	--hw-timestamps "$refl_ip"
expect 4 "$refused" ip netns exec "$LP_NS_REFL" "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" -- --addr "$LP_ADDR_REFL" -q --hw-timestamps
expect 4 "$refused" "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_memif0,role=server,socket=$WORK/hw.sock,socket-abstract=no" -- \
	--addr 198.18.0.2/24 -q --hw-timestamps
# The af_xdp port closed properly: no XDP program left behind.
ip netns exec "$LP_NS_PROBE" ip link show "$LP_IF_PROBE" | grep -q 'prog/xdp' &&
	fail "an XDP program was left on $LP_IF_PROBE"
expect 2 '--hw-timestamps needs the dpdk backend' "$LATPROBE" probe --backend kernel \
	--hw-timestamps 198.18.0.2
expect 2 '--hw-timestamps needs the dpdk backend' "$LATPROBE" reflect --backend kernel \
	--addr 127.0.0.1 --hw-timestamps
echo "$LP_PROG: ok"
