#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/tools/rawping --frame stamp over memif: latprobe reflect answers
# its STAMP probes (every one, with its STAMP engine); testpmd 5tswap's
# turned-around frames count as answers, testpmd macswap's (addresses not
# swapped: our own datagram back) do not; bad options are refused.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
lp_bench_tool rawping rawping

sock=$LP_RUN_DIR/${LP_NS_PREFIX}rawping.sock
srv="net_memif0,role=server,socket=$sock,socket-abstract=no"
cli="net_memif0,role=client,socket=$sock,socket-abstract=no"
mac=02:00:c6:12:00:02
lp_cleanup_push "rm -f '$sock'"
n=2000
stamp=(--frame stamp --src-ip 198.18.0.1 --dst-ip 198.18.0.2 --peer-mac "$mac")

# ping LOG [ARGS...]: rawping ping on CPU 0, JSON on LOG.out; its exit code.
# A timeout a loaded machine meets (200 ms: a peer descheduled for a few
# time slices still answers in time); a later option overrides it.
ping_memif() {
	local log=$1 rc=0
	shift
	timeout 120 "$rawping" -l 0 "${EAL_COMMON[@]}" --vdev "$cli" -- \
		--mode ping -n "$n" -w 10 --timeout-us 200000 --json "$@" \
		>"$log.out" 2>"$log.err" || rc=$?
	return "$rc"
}

# Refused: STAMP without addresses, a size other than its own, a raw size
# below the Ethernet minimum.
for bad in "--frame stamp" "--frame stamp --src-ip 198.18.0.1" \
	"${stamp[*]} --size 100" "--size 59" "--frame ip" "--src-ip 198.18.0.300"; do
	rc=0
	# shellcheck disable=SC2086 # the options are words
	"$rawping" --no-huge -m 64 --no-shconf --no-pci --log-level=lib.eal:error \
		-- --mode ping $bad \
		>"$WORK/bad.out" 2>&1 || rc=$?
	[ "$rc" -eq 2 ] && grep -q '^usage:' "$WORK/bad.out" ||
		fail "rawping --mode ping $bad: exit $rc, want 2 with the usage"
done

# latprobe reflect answers every STAMP probe.
rm -f "$sock"
LP_BG_LOG=$WORK/refl.log lp_bg_ns - timeout 60 "$LATPROBE" reflect -l 1 \
	"${EAL_COMMON[@]}" --vdev "$srv,mac=$mac" -- --addr 198.18.0.2/24 -q \
	--json "$WORK/refl.json"
refl=$LP_LAST_PID
lp_wait_for "$WORK/refl.log" '^latprobe reflect:' 60 || fail "reflector did not start"
ping_memif "$WORK/refl" "${stamp[@]}" || fail "rawping -> reflector: exit $? ($(tail -n 2 "$WORK/refl.err"))"
lp_stop_bg "$refl"
$PY - "$WORK/refl.out" "$WORK/refl.json" "$n" <<'EOF' || fail "rawping -> latprobe reflect (above)"
import json, sys
p = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
r = json.load(open(sys.argv[2]))
n = int(sys.argv[3])
stamp = sum(w["answered_by"]["stamp"] for w in r["workers"])
# Identities rather than zero loss (load can delay an answer past the
# timeout; memif itself loses nothing): every probe answered or lost, the
# reflector answered every probe, every lost probe's answer came late
# (only the last one's may come after rawping stopped), nothing stray.
ok = (p["frame"] == "stamp" and p["frame_len"] == 86 and
      p["sent"] == n + 10 and
      p["received"] + p["lost"] + p["tx_failed"] == p["sent"] and
      p["rtt_ns"]["count"] + p["lost"] + p["tx_failed"] >= n and
      p["stray"] == 0 and p["late"] <= p["lost"] and
      p["lost"] - p["late"] <= 1 and p["tx_failed"] == 0 and
      stamp == p["sent"])
print("rawping: frame %s %d B, %d answered, %d lost (%d answered late), "
      "%d stray; reflector answered %d STAMP of %d sent" % (p["frame"],
      p["frame_len"], p["received"], p["lost"], p["late"], p["stray"],
      stamp, p["sent"]))
sys.exit(0 if ok else 1)
EOF

if lp_have dpdk-testpmd; then
	for fwd in 5tswap macswap; do
		rm -f "$sock"
		# stdbuf -oL: testpmd's stdout is a file, whose lines would
		# wait in its buffer (its first --stats-period print flushes
		# them only on a host up for longer than the period). 8 Ki
		# mbufs instead of its default 155 Ki (338 MB to set up).
		LP_BG_LOG=$WORK/tp.$fwd lp_bg_ns - timeout 120 stdbuf -oL \
			dpdk-testpmd --lcores '0@1,1@1' "${EAL_COMMON[@]}" \
			--vdev "$srv" -- --forward-mode=$fwd --stats-period 3600 \
			--nb-cores=1 --rxq=1 --txq=1 --total-num-mbufs=8192 </dev/null
		tp=$LP_LAST_PID
		lp_wait_for "$WORK/tp.$fwd" 'Press enter|forwards packets' 60 ||
			fail "testpmd $fwd did not start"
		rc=0
		if [ "$fwd" = 5tswap ]; then
			ping_memif "$WORK/$fwd" "${stamp[@]}" || rc=$?
		else
			# No answer will come: 50 probes, 2 ms each.
			ping_memif "$WORK/$fwd" "${stamp[@]}" -n 50 --timeout-us 2000 || rc=$?
		fi
		lp_stop_bg "$tp"
		if [ "$fwd" = 5tswap ]; then
			[ "$rc" -eq 0 ] || fail "rawping -> testpmd 5tswap: exit $rc"
		else
			# Every frame back is our own datagram: stray, no answer.
			[ "$rc" -eq 1 ] && grep -q 'no reply' "$WORK/$fwd.err" ||
				fail "rawping -> testpmd macswap: exit $rc, want 1 (no reply)"
		fi
	done
	echo "rawping: testpmd 5tswap answers taken, macswap's refused"
else
	echo "rawping: no dpdk-testpmd, its pairs not run"
fi
