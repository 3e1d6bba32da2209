#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DPDK's memif disconnect race and the unmap gate, with plain DPDK
# (bench/tools/memif_race; docs/design.md, "memif disconnect"): a memif
# server whose lcore polls rx while a client connects and disconnects 100
# times, the EAL interrupt thread (which unmaps the rings on each
# disconnect) on the lcore's CPU. With the gate the poller lives through
# every round (asserted). Without it the poller usually dies of SIGSEGV
# within a few dozen rounds: that run is reported, not asserted (the race
# is DPDK's, and a run that misses it proves nothing either way).
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
lp_bench_tool race memif_race
[ "$(nproc)" -ge 2 ] || lp_skip "needs 2 CPUs"

sock=$LP_RUN_DIR/${LP_NS_PREFIX}race.sock
lp_cleanup_push "rm -f '$sock'"
eal=("${EAL_COMMON[@]}" --log-level=pmd.net.memif:error)
rounds=100

# round NAME [gate]: the poller's exit code (139: SIGSEGV).
round() {
	local name=$1 rc=0 pid i
	shift
	rm -f "$sock"
	timeout 120 "$race" -l 0,1 "${eal[@]}" \
		--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" \
		-- poll "$@" >"$WORK/$name.poll" 2>&1 &
	pid=$!
	LP_BG_PIDS+=("$pid")
	for ((i = 0; i < 200; i++)); do
		[ -S "$sock" ] && break
		sleep 0.1
	done
	[ -S "$sock" ] || { cat "$WORK/$name.poll" >&2; fail "$name: the poller did not listen"; }
	timeout 120 "$race" -l 0 "${eal[@]}" \
		--vdev "net_memif0,role=client,socket=$sock,socket-abstract=no" \
		-- cycle "$rounds" >"$WORK/$name.cycle" 2>&1 || true
	wait "$pid" || rc=$?
	return "$rc"
}

rc=0
round gated gate || rc=$?
if [ "$rc" -ne 0 ] ||
	! grep -q "memif_race cycle: $rounds of $rounds rounds connected" "$WORK/gated.cycle" ||
	! grep -q 'gated: alive' "$WORK/gated.poll"; then
	cat "$WORK/gated.poll" "$WORK/gated.cycle" >&2
	fail "gated poller: exit $rc"
fi
rc=0
round bare || rc=$?
echo "memif_race: gated: $rounds disconnects, alive; without the gate: exit $rc, $(grep -h 'memif_race cycle' "$WORK/bare.cycle" || echo 'no cycle line')"
