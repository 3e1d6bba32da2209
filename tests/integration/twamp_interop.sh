#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# STAMP / TWAMP-Light against implementations latprobe did not write, both
# directions, across the testbed's namespaces (the peer on kernel UDP
# sockets where the kernel owns the address, latprobe on net_af_xdp):
#   - scapy's STAMP layers (python3-scapy, scapy.contrib.stamp) driven by
#     tests/integration/stamp_peer.py, which also packs RFC 5357 TWAMP-Light
#     packets as the RFC figures draw them (14 bytes and up, random padding,
#     own sequence numbers, Error Estimate with S/Z, PTP timestamps, answers
#     longer or shorter than the request);
#   - nokia's twampy (TWAMP-Light sender and responder, BSD-3-Clause, pure
#     Python), a test-only tool tools/setup installs under
#     /opt/latprobe-test/twampy (or $LP_TWAMPY); without it those rows skip.
# 1. peers -> latprobe reflect (DPDK), stateless then --stateful;
# 2. latprobe probe (DPDK) -> peers' reflectors; then the kernel backend,
#    prober and reflector.
# docs/peers.md has the table this prints.
. "$(dirname "$0")/lib.sh"
need_env
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import scapy.contrib.stamp' 2>/dev/null ||
	lp_skip "needs Debian's python3-scapy"
TWAMPY_DIR=${LP_TWAMPY:-/opt/latprobe-test/twampy}
have_twampy=0
PYTHONPATH=$TWAMPY_DIR /usr/bin/python3 -c 'import twampy' 2>/dev/null && have_twampy=1
lp_begin testbed
PEER=(/usr/bin/python3 "$LP_TOP/tests/integration/stamp_peer.py")
TWAMPY=(env "PYTHONPATH=$TWAMPY_DIR" /usr/bin/python3 -m twampy)
probe_ip=${LP_ADDR_PROBE%/*}
ROWS=()
row() { ROWS+=("$(printf '%-34s %-28s %s' "$1" "$2" "$3")"); }

# peer_send NAME ARGS...: stamp_peer.py's sender in the probe namespace.
peer_send() {
	local name=$1
	shift
	timeout 60 ip netns exec "$LP_NS_PROBE" "${PEER[@]}" send --to "$refl_ip" "$@" \
		>"$WORK/$name.txt" 2>&1 || { cat "$WORK/$name.txt" >&2; fail "$name"; }
	grep '^stamp_peer send' "$WORK/$name.txt"
}

# twampy_send NAME PADDING COUNT: twampy's TWL sender (14 + PADDING bytes).
twampy_send() {
	timeout 60 ip netns exec "$LP_NS_PROBE" "${TWAMPY[@]}" sender \
		"$refl_ip:862" "$probe_ip:20000" -v --padding "$2" -c "$3" -i 10 \
		>"$WORK/$1.txt" 2>&1 || { cat "$WORK/$1.txt" >&2; fail "$1: twampy exited non-zero"; }
}

# 1. Peers send, latprobe reflect (DPDK) answers. ------------------------
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" --json "$WORK/refl.json" -q
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
sent=0
peer_send scapy-stamp44 --kind stamp --len 44 --count 50
peer_send scapy-stamp200 --kind stamp --len 200 --count 50
row "scapy STAMP sender 44, 200 B" "-> latprobe reflect" "ok: same length, all fields"
peer_send rfc5357-14 --kind twamp --len 14 --count 50
peer_send rfc5357-41 --kind twamp --len 41 --random-pad --count 50
peer_send rfc5357-300 --kind twamp --len 300 --random-pad --count 50
row "RFC 5357 sender 14/41/300 B" "-> latprobe reflect" "ok: same length, padding kept"
sent=$((sent + 250))
if [ "$have_twampy" -eq 1 ]; then
	twampy_send twampy-41 27 50
	[ "$(grep -c 'Reply from' "$WORK/twampy-41.txt")" -eq 50 ] ||
		{ cat "$WORK/twampy-41.txt" >&2; fail "twampy sender (41 B): not 50 replies"; }
	grep -E 'Roundtrip:.* 0\.0%' "$WORK/twampy-41.txt" || fail "twampy sender (41 B): loss"
	row "twampy sender --padding 27 (41 B)" "-> latprobe reflect" "ok: 50/50"
	# twampy's default, 14 bytes: answered with 14 bytes (no amplification),
	# which twampy drops as shorter than its 36 (docs/peers.md).
	twampy_send twampy-14 0 10
	n=$(grep -c 'short packet received: 14 bytes' "$WORK/twampy-14.txt" || true)
	[ "$n" -eq 10 ] || { cat "$WORK/twampy-14.txt" >&2; fail "twampy sender (14 B): $n short answers, expected 10"; }
	row "twampy sender --padding 0 (14 B)" "-> latprobe reflect" "answered 14 B; twampy wants >= 36"
	sent=$((sent + 60))
else
	echo "$LP_PROG: twampy not in $TWAMPY_DIR (tools/setup installs it): its rows skipped"
	row "twampy sender" "-> latprobe reflect" "skipped (not installed)"
fi
stop_reflector
answered=$(json_get "$WORK/refl.json" counters/answered.stamp)
[ "$answered" -eq "$sent" ] || fail "reflector answered $answered STAMP requests of $sent"

start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" --stateful -q
peer_send rfc5357-64-stateful --kind twamp --len 64 --random-pad --count 50 --stateful
peer_send scapy-stamp-stateful --kind stamp --len 44 --count 50 --stateful
row "scapy STAMP, RFC 5357 sender" "-> reflect --stateful" "ok: own seq 0, 1, 2..."
if [ "$have_twampy" -eq 1 ]; then
	twampy_send twampy-41-stateful 27 50
	[ "$(grep -c 'Reply from' "$WORK/twampy-41-stateful.txt")" -eq 50 ] ||
		fail "twampy sender against --stateful: not 50 replies"
	grep -q 'rseq=49 sseq=49' "$WORK/twampy-41-stateful.txt" ||
		fail "twampy sender against --stateful: reflector numbering not 0..49"
	row "twampy sender --padding 27" "-> reflect --stateful" "ok: 50/50, rseq 0..49"
fi
stop_reflector

# 2. latprobe probe (DPDK) -> the peers' reflectors. ---------------------
lp_kaddrs 0 1
check_probe() { # NAME COUNT
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/$1.json" \
		--sent "$2" --no-loss --remote-ts --proto stamp || fail "$1 report"
	[ "$(json_get "$WORK/$1.json" probes/answers_unusable)" = False ] ||
		fail "$1: answers_unusable"
}
ee() { json_get "$WORK/$1.json" "stamp/reflector_error_estimate/$2"; }
p50() { # NAME: "RTT p50 X us, turnaround p50 Y us"
	$PY -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("RTT p50 %.1f us, turnaround p50 %.1f us" %
      (r["rtt_ns"]["p50"] / 1e3, r["turnaround_ns"]["p50"] / 1e3))' "$WORK/$1.json"
}
if [ "$have_twampy" -eq 1 ]; then
	LP_BG_LOG=$WORK/twampy-resp.log lp_bg_ns "$LP_NS_REFL" "${TWAMPY[@]}" responder "$refl_ip:862"
	pid=$LP_LAST_PID
	sleep 1
	probe_dpdk twampy-resp -n 200 "$refl_ip"
	check_probe twampy-resp 200
	# twampy: S=0 Z=0 scale 0 multiplier 1, 38-byte answers, own seq
	[ "$(ee twampy-resp raw)" -eq 1 ] || fail "twampy's error estimate: $(ee twampy-resp raw)"
	[ "$(ee twampy-resp timestamp_format)" = ntp ] || fail "twampy: not NTP"
	row "latprobe probe (DPDK)" "-> twampy responder" "ok: 200/200, EE 0x0001, $(p50 twampy-resp)"
	lp_stop_bg "$pid"
fi
for mode in stateless stateful ptp twamp41 long; do
	LP_BG_LOG=$WORK/peer-$mode.log lp_bg_ns "$LP_NS_REFL" "${PEER[@]}" reflect \
		--bind "$refl_ip" --mode "$mode" --timeout 30
	pid=$LP_LAST_PID
	lp_wait_for "$WORK/peer-$mode.log" '^stamp_peer reflect:' 10 || fail "stamp_peer reflect $mode"
	probe_dpdk "scapy-$mode" -n 200 "$refl_ip"
	check_probe "scapy-$mode" 200
	case $mode in
	stateless | stateful | long)
		[ "$(ee "scapy-$mode" raw)" -eq $((0x8a03)) ] || fail "$mode: error estimate"
		[ "$(ee "scapy-$mode" synchronized)" = True ] || fail "$mode: S bit" ;;
	ptp)
		# T3 - T2 = 50 us exactly in PTP format; read as NTP it would
		# be 11.6 us.
		[ "$(ee scapy-ptp timestamp_format)" = ptp ] || fail "ptp: Z bit not seen"
		t=$(json_get "$WORK/scapy-ptp.json" turnaround_ns/p50)
		[ "$t" -ge 50000 ] && [ "$t" -le 50400 ] || fail "ptp: turnaround p50 $t ns, expected 50 us" ;;
	twamp41)
		[ "$(ee scapy-twamp41 raw)" -eq 1 ] || fail "twamp41: error estimate" ;;
	esac
	row "latprobe probe (DPDK)" "-> scapy reflector $mode" "ok: 200/200, $(p50 "scapy-$mode")"
	lp_stop_bg "$pid"
done

# Answers too short to hold our sequence number: counted, said, exit 5.
LP_BG_LOG=$WORK/peer-short.log lp_bg_ns "$LP_NS_REFL" "${PEER[@]}" reflect \
	--bind "$refl_ip" --mode short --timeout 30
pid=$LP_LAST_PID
lp_wait_for "$WORK/peer-short.log" '^stamp_peer reflect:' 10 || fail "stamp_peer reflect short"
rc=0
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -q \
	--json "$WORK/short.json" -n 20 -w 0 --timeout 50ms "$refl_ip" \
	>"$WORK/short.txt" 2>"$WORK/short.err" || rc=$?
lp_stop_bg "$pid"
[ "$rc" -eq 5 ] || { cat "$WORK/short.err" >&2; fail "short answers: exit $rc, expected 5"; }
[ "$(json_get "$WORK/short.json" probes/ignored/too_short)" -eq 20 ] || fail "short answers not too_short"
[ "$(json_get "$WORK/short.json" probes/answers_unusable)" = True ] || fail "answers_unusable not set"
grep -q 'The reflector answered (20 too_short) but its answers were not usable' "$WORK/short.txt" ||
	{ cat "$WORK/short.txt" >&2; fail "the report does not say the answers were unusable"; }
grep -q 'the reflector answers, but its answers are too short to be used (too_short)' "$WORK/short.err" ||
	{ cat "$WORK/short.err" >&2; fail "the dead-peer line does not name too_short"; }
row "latprobe probe (DPDK)" "-> 20-byte answers" "too_short 20, 'not usable', exit 5"

# The kernel backend prober, against scapy's TWAMP-Light reflector and
# twampy's responder.
lp_kaddrs 1 1
kernel_probe() { # NAME
	timeout 60 ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe --backend kernel -q \
		-n 200 --json "$WORK/$1.json" "$refl_ip" >"$WORK/$1.txt" 2>&1 ||
		{ cat "$WORK/$1.txt" >&2; fail "$1: kernel prober"; }
	check_probe "$1" 200
}
LP_BG_LOG=$WORK/peer-k41.log lp_bg_ns "$LP_NS_REFL" "${PEER[@]}" reflect \
	--bind "$refl_ip" --mode twamp41 --timeout 30
pid=$LP_LAST_PID
lp_wait_for "$WORK/peer-k41.log" '^stamp_peer reflect:' 10 || fail "stamp_peer reflect twamp41"
kernel_probe kernel-twamp41
lp_stop_bg "$pid"
[ "$(ee kernel-twamp41 raw)" -eq 1 ] || fail "kernel backend: twamp41 error estimate"
row "latprobe probe --backend kernel" "-> scapy reflector twamp41" "ok: 200/200, $(p50 kernel-twamp41)"
if [ "$have_twampy" -eq 1 ]; then
	LP_BG_LOG=$WORK/twampy-resp2.log lp_bg_ns "$LP_NS_REFL" "${TWAMPY[@]}" responder "$refl_ip:862"
	pid=$LP_LAST_PID
	sleep 1
	kernel_probe kernel-twampy
	lp_stop_bg "$pid"
	[ "$(ee kernel-twampy raw)" -eq 1 ] || fail "kernel backend: twampy's error estimate"
	row "latprobe probe --backend kernel" "-> twampy responder" "ok: 200/200, $(p50 kernel-twampy)"
fi

# The kernel backend reflector, against the same senders.
start_reflector "$LP_NS_REFL" --backend kernel --addr "$refl_ip" --sockperf-port 0 \
	--echo-port 0 --json "$WORK/krefl.json" -q
peer_send k-scapy-stamp44 --kind stamp --len 44 --count 50
peer_send k-rfc5357-14 --kind twamp --len 14 --count 50
peer_send k-rfc5357-300 --kind twamp --len 300 --random-pad --count 50
ksent=150
if [ "$have_twampy" -eq 1 ]; then
	twampy_send k-twampy-41 27 50
	[ "$(grep -c 'Reply from' "$WORK/k-twampy-41.txt")" -eq 50 ] ||
		fail "twampy sender against the kernel reflector: not 50 replies"
	ksent=200
fi
stop_reflector
[ "$(json_get "$WORK/krefl.json" counters/answered.stamp)" -eq "$ksent" ] ||
	fail "kernel reflector answered $(json_get "$WORK/krefl.json" counters/answered.stamp) of $ksent"
row "scapy, RFC 5357 (, twampy) senders" "-> reflect --backend kernel" "ok: $ksent/$ksent"

echo "$LP_PROG: interop table (peer x direction x result):"
printf '  %s\n' "${ROWS[@]}"
echo "$LP_PROG: ok"
