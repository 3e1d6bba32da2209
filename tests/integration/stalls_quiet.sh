#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The stall detector on a quiet host and against stalls of a known length
# on every testbed backend: af_xdp, af_packet (veth between
# the testbed's namespaces), memif (both ends in this namespace) and the
# kernel backend. The prober's worker on CPU 1, the reflector's on CPU 0.
#   1. quiet: a 3 s run; then, the reflector still up, bench/tools/stall on
#      CPU 1 for as long, with the run's calibrated threshold: the machine's
#      own rate of gaps that long on that CPU. The run's stalls per second
#      within QUIET_FACTOR of it plus QUIET_SLACK per second, and fewer than
#      one per ten probes (a detector that counts probes or PMD calls as
#      stalls fails both); af_xdp's rate within XDP_FACTOR of memif's.
#   2. injected (af_xdp, memif, kernel): tests/integration/fifo_hog.py, a
#      SCHED_FIFO busy loop on CPU 1, N bursts of LEN ms: see check_inject
#      in stalls_quiet.py for what is asserted and why.
#   3. SIGSTOP bursts on af_xdp (stalls.sh does the kernel backend and
#      memif): the same accounting as stalls.sh.
#   4. 500 probes (memif): too few for a p99.9 and a verdict: "-" in the
#      text, null in the JSON, 'p99_9' in too_few_samples, a no_verdict.
# Only counts are asserted, never a time; the figures are printed.
. "$(dirname "$0")/lib.sh"
need_env
lp_bench_tool STALL stall
lp_begin testbed
# LP_KEEP=DIR: the reports and logs copied there at exit (to look at a
# failure's figures).
[ -z "${LP_KEEP:-}" ] || lp_cleanup_push "mkdir -p '$LP_KEEP' && cp -r '$WORK'/. '$LP_KEEP'/"
CHECK=($PY "$LP_TOP/tests/integration/stalls_quiet.py")
FIFO_HOG=(/usr/bin/python3 "$LP_TOP/tests/integration/fifo_hog.py")
STOP_HOG=(/usr/bin/python3 "$LP_TOP/tests/integration/stall_hog.py")
R=${LP_ADDR_REFL%/*}
# The prober's CPU (its lcore, or its taskset for the kernel backend): the
# hog and the reference loop run there.
PCPU=1
QUIET_SECS=3
# Injected bursts: 20 of 120 ms, 150 ms apart (2.4 s of FIFO time on CPU 1
# in all, CPU 0 left to the rest). 120 ms: a burst plus the switches around
# it lands in the (100, 200] ms bucket of the 1-2-5 histogram, not on an
# edge, and above what a loaded host's scheduler does to a busy task: at
# load 10 on 2 vCPUs the quiet runs' stalls reach 20 to 55 ms (other
# tasks' time slices), so 20 or 30 ms bursts share their bucket with tens
# of the machine's own.
N=20
LEN_MS=120
GAP_MS=150
# SIGSTOP bursts (as stalls.sh): 20 of 150 ms.
SN=20
SLEN_MS=150
SGAP_MS=150
# The prober's and the reference's niceness: 0 for the quiet runs (as a
# user runs it); -20 for the injected stalls, so that the other tasks of a
# loaded host take CPU 1 from them in slices of a few ms rather than the
# 50 to 190 ms seen at nice 0 (load 10 on 2 vCPUs: 4 to 37 gaps above 60 ms
# in 8 s), which would else share the injected ones' bucket. The FIFO hog
# preempts any niceness; SIGSTOP stops any.
NICE=0
sock=$LP_RUN_DIR/${LP_NS_PREFIX}stq-memif.sock
lp_cleanup_push "rm -f '$sock'"

# refl_start BACKEND: the reflector for BACKEND on CPU 0.
refl_start() {
	: >"$WORK/refl.log"
	case $1 in
	af_xdp | af_packet)
		start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" \
			--vdev "net_${1}0,iface=$LP_IF_REFL" -- --addr "$LP_ADDR_REFL" -q
		;;
	memif)
		rm -f "$sock"
		start_reflector - -l 0 "${EAL_COMMON[@]}" \
			--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" -- \
			--addr "$LP_ADDR_REFL" -q
		;;
	kernel)
		# start_reflector cannot put taskset in front: the same by hand.
		LP_BG_LOG=$WORK/refl.log lp_bg_ns "$LP_NS_REFL" taskset -c 0 \
			"$LATPROBE" reflect --backend kernel --addr "$R" -q
		REFL_PID=$LP_LAST_PID
		lp_wait_for "$WORK/refl.log" '^latprobe reflect: ' 20 ||
			{ cat "$WORK/refl.log" >&2; fail "kernel reflector did not start"; }
		;;
	esac
}
refl_end() {
	stop_reflector
	[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "$1: reflector exited $REFL_RC"; }
}

# probe_bg BACKEND NAME OPTIONS...: the prober for BACKEND on CPU 1 in the
# background (PROBE_PID), report in $WORK/NAME.json, text in NAME.txt;
# returns once it has started probing.
probe_bg() {
	local be=$1 name=$2 ns=$LP_NS_PROBE cmd
	shift 2
	case $be in
	af_xdp | af_packet)
		cmd=("$LATPROBE" probe -l $PCPU "${EAL_COMMON[@]}"
			--vdev "net_${be}0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE")
		;;
	memif)
		ns=-
		cmd=("$LATPROBE" probe -l $PCPU "${EAL_COMMON[@]}"
			--vdev "net_memif0,role=client,socket=$sock,socket-abstract=no" --
			--addr "$LP_ADDR_PROBE")
		;;
	kernel)
		cmd=(taskset -c $PCPU "$LATPROBE" probe --backend kernel)
		;;
	esac
	LP_BG_LOG=$WORK/$name.txt lp_bg_ns "$ns" nice -n "$NICE" "${cmd[@]}" --timeout 2s \
		--json "$WORK/$name.json" "$@" "$R"
	PROBE_PID=$LP_LAST_PID
	lp_wait_for "$WORK/$name.txt" '^latprobe probe: [0-9].* -> ' 30 ||
		{ cat "$WORK/$name.txt" >&2; fail "$name: prober did not start"; }
}
wait_probe() { # NAME
	local rc=0
	wait "$PROBE_PID" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/$1.txt" >&2; fail "$1: probe exited $rc"; }
}

# reference NAME: bench/tools/stall on the prober's CPU for as long as run
# NAME lasted (at least 1 s), with its calibrated threshold, in
# $WORK/NAME.ref.json. Run while the reflector still polls on CPU 0: the
# machine as loaded as during the run.
reference() {
	local ms thr
	ms=$($PY -c 'import json,sys; print(max(1000, int(json.load(open(sys.argv[1]))["duration_s"] * 1000)))' "$WORK/$1.json")
	thr=$(json_get "$WORK/$1.json" stalls/prober/calibration/threshold_ns)
	timeout 120 nice -n "$NICE" "$STALL" --cpu $PCPU --ms "$ms" --threshold-ns "$thr" --json \
		>"$WORK/$1.ref.json" || fail "$1: bench/tools/stall exited $?"
}

# stop_probe NAME: SIGINT to the prober (its report is written then).
stop_probe() {
	kill -INT "$PROBE_PID" 2>/dev/null || true
	wait_probe "$1"
}

quiet() { # BACKEND
	refl_start "$1"
	probe_bg "$1" "quiet-$1" -q -t $QUIET_SECS
	wait_probe "quiet-$1"
	reference "quiet-$1"
	refl_end "$1"
	"${CHECK[@]}" quiet "$1" "$WORK/quiet-$1.json" "$WORK/quiet-$1.ref.json" ||
		fail "$1: quiet run's stalls"
}

# The injected runs count only stalls above LEN/2 (--stall-threshold, the
# calibration's floor): a loaded host's own stalls of microseconds to tens
# of ms would else fill total_ns and the host-affected probes, and the
# injected ones could not be told from them there (the histogram's counts
# can, its totals cannot). The reference then counts the CPU's gaps above
# LEN/2 over as long: the machine's own stalls that long.
# The hog is started first and waits for a go file (a python process takes
# seconds to start on a loaded host); the prober runs until it is stopped
# (-t 0), from its first interval line (it is measuring: warm-up and
# calibration done) to the hog's end, so every burst falls in its run.
inject() { # BACKEND
	local go=$WORK/go-$1 hog rc=0
	rm -f "$go"
	LP_BG_LOG=$WORK/fifo-$1.hog lp_bg_ns - timeout -s KILL 120 \
		"${FIFO_HOG[@]}" $PCPU $LEN_MS $GAP_MS $N "$go"
	hog=$LP_LAST_PID
	lp_wait_for "$WORK/fifo-$1.hog" '^ready' 60 ||
		{ cat "$WORK/fifo-$1.hog" >&2; fail "$1: the FIFO hog did not start"; }
	refl_start "$1"
	probe_bg "$1" "fifo-$1" -q -t 0 --interval-report 200ms \
		--stall-threshold $((LEN_MS / 2))ms
	lp_wait_for "$WORK/fifo-$1.txt" '^interval ' 30 ||
		{ cat "$WORK/fifo-$1.txt" >&2; fail "$1: the prober did not report an interval"; }
	touch "$go"
	wait "$hog" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/fifo-$1.hog" >&2; fail "$1: the FIFO hog exited $rc"; }
	tail -1 "$WORK/fifo-$1.hog"
	stop_probe "fifo-$1"
	reference "fifo-$1"
	refl_end "$1"
	"${CHECK[@]}" inject "$1" "$WORK/fifo-$1.json" "$WORK/fifo-$1.hog" $N $LEN_MS \
		"$WORK/fifo-$1.ref.json" "$WORK/quiet-$1.json" || fail "$1: injected stalls"
}

# The veth backends first: the kernel backend needs the addresses on the
# veth, which the DPDK ones do without (the kernel would answer ARP too).
for be in af_xdp af_packet memif; do
	quiet $be
done
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
quiet kernel
"${CHECK[@]}" compare "$WORK/quiet-af_xdp.json" "$WORK/quiet-memif.json" ||
	fail "af_xdp's quiet stall rate against memif's"
ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"
ip -n "$LP_NS_REFL" addr flush dev "$LP_IF_REFL"

NICE=-20
for be in af_xdp memif; do
	inject $be
done

# SIGSTOP bursts on af_xdp (the prober stopped once they are over, as
# above).
refl_start af_xdp
probe_bg af_xdp stop-af_xdp -q -t 0 --interval-report 200ms
lp_wait_for "$WORK/stop-af_xdp.txt" '^interval ' 30 ||
	{ cat "$WORK/stop-af_xdp.txt" >&2; fail "af_xdp: the prober did not report an interval"; }
# (Killed by the timeout, the hog cannot send its SIGCONT: sent here.)
timeout -s KILL 120 "${STOP_HOG[@]}" "$PROBE_PID" $SLEN_MS $SGAP_MS $SN >"$WORK/stop.hog" ||
	{ kill -CONT "$PROBE_PID"; cat "$WORK/stop.hog" >&2; fail "the SIGSTOP hog"; }
tail -1 "$WORK/stop.hog"
stop_probe stop-af_xdp
refl_end af_xdp
"${CHECK[@]}" sigstop af_xdp "$WORK/stop-af_xdp.json" $SN $SLEN_MS ||
	fail "af_xdp: SIGSTOP stalls"

# Too few probes for a p99.9 (3,688) and a verdict.
NICE=0
refl_start memif
probe_bg memif few -n 500
wait_probe few
refl_end memif
# The default view folds the too-few rows into one line; --details has a
# row each.
grep -E '^ *p99\.9( +-  \(too few: needs 3,688\)| and up: too few round trips \(p99\.9 needs 3,688\))' "$WORK/few.txt" ||
	{ cat "$WORK/few.txt" >&2; fail "500 probes: the text prints a p99.9"; }
"${CHECK[@]}" few "$WORK/few.json" || fail "500 probes: the JSON"

ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
NICE=-20
inject kernel
echo "$LP_PROG: ok"
