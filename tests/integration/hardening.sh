#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The app's hardening (docs/usage.md, exit codes):
#   - an output path that cannot be written is a usage error (2) before
#     anything is sent (no ARP even);
#   - a failed write or flush of stdout or a report file exits 1, after the
#     rest is written;
#   - a second SIGINT/SIGTERM exits at once (128 + signal); the same signal
#     delivered twice at once (timeout(1) does it) is one request;
#   - a probe whose port has no link exits 4;
#   - a dead peer is named on stderr within 3 s, the run goes on, and the
#     live line shows the warm-up's progress;
#   - the JSON of a DPDK run has port.xstats_delta;
#   - a worker that stops on an error makes the run exit 1 (gdb makes
#     prober_worker_run return -EIO), the report still written;
#   - no thread but the worker may run on the worker's CPU (-l 1 on two
#     CPUs: everything else on CPU 0), also for reflect -q without -t
#     (its side thread watches the link); with -l taking every CPU a
#     warning says so.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
refl_net=(--addr 198.18.0.2/24)
# A kernel reflector on loopback, STAMP only, on a port of our own.
kport=$((20000 + $$ % 20000))
krefl=(--backend kernel --addr 127.0.0.1 --udp-port "$kport" --sockperf-port 0 --echo-port 0)


# 1. Unwritable outputs: exit 2 and nothing on the wire. The port is a
# net_pcap whose tx goes to a file: it must not even be created.
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$WORK/empty.pcap"
pcap_port() { echo "net_pcap0,rx_pcap=$WORK/empty.pcap,tx_pcap=$WORK/tx.pcap"; }
bad=/nonexistent-dir/x
for opt in --json --samples --pcap; do
	rm -f "$WORK/tx.pcap"
	expect 2 "^latprobe: error: $opt $bad: cannot write it" \
		"$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" --vdev "$(pcap_port)" \
		-- --addr 198.18.0.1/24 --arp-timeout 1s -n 5 -q "$opt" $bad 198.18.0.2
	[ ! -e "$WORK/tx.pcap" ] || fail "probe $opt $bad: the port was opened (frames may have gone out)"
done
expect 2 "^latprobe: error: --json $bad: cannot write it" \
	"$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" --vdev net_null0 -- "${refl_net[@]}" \
	-t 1 -q --json $bad
expect 2 "^latprobe: error: --json $bad: cannot write it" \
	"$LATPROBE" probe --backend kernel -n 5 -q --json $bad 127.0.0.1

# 2. Write failures: exit 1 with the other outputs complete.
ring=(--profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 --loopback -n 200 -q)
expect 1 "--json /dev/full: writing failed" "$LATPROBE" probe "${ring[@]}" --json /dev/full 198.18.0.2
grep -q "Received = 200" "$WORK/out" || fail "--json /dev/full: the text report is incomplete"
rc=0
timeout 30 "$LATPROBE" probe "${ring[@]}" --json "$WORK/full.json" 198.18.0.2 \
	>/dev/full 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/err" >&2; fail "stdout on /dev/full exited $rc, expected 1"; }
grep -q "writing to stdout failed" "$WORK/err" || fail "stdout on /dev/full: no error line"
[ "$(json_get "$WORK/full.json" probes/received)" -eq 200 ] ||
	fail "stdout on /dev/full: the JSON was not written whole"
rc=0
timeout 30 "$LATPROBE" reflect "${krefl[@]}" -t 0.3 -q >/dev/full 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/err" >&2; fail "reflect, stdout on /dev/full: exit $rc, expected 1"; }

# 3. A second signal exits at once: SIGINT then SIGTERM (two different
# signals, so the second cannot merge with a first still pending).
LP_BG_LOG=$WORK/twice.log lp_bg_ns - "$LATPROBE" reflect "${krefl[@]}" -q \
	--json "$WORK/twice.json"
pid=$LP_LAST_PID
lp_wait_for "$WORK/twice.log" '^latprobe reflect: ' 20 || fail "reflector did not start"
kill -INT "$pid"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || [ "$rc" -eq 143 ] ||
	{ cat "$WORK/twice.log" >&2; fail "two signals: exit $rc, expected 130 or 143"; }

# 3b. The same signal twice at once is one request: timeout(1) sends it to
# the command and to its process group (the reflector under tools/bench's
# valgrind lost its report so, about one run in three; natively 5 of 6).
# Five runs, each must exit 0 with its JSON whole.
for i in 1 2 3 4 5; do
	# A log and a JSON of its own per run: a start line left from the run
	# before must not be taken for this one's.
	LP_BG_LOG=$WORK/dup$i.log lp_bg_ns - timeout 60 "$LATPROBE" reflect \
		"${krefl[@]}" -q --no-doctor --json "$WORK/dup$i.json"
	pid=$LP_LAST_PID
	lp_wait_for "$WORK/dup$i.log" '^latprobe reflect: ' 20 || fail "reflector did not start"
	kill -INT "$pid" # timeout's pid: it passes SIGINT on, twice
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] ||
		{ cat "$WORK/dup$i.log" >&2; fail "SIGINT through timeout(1), run $i: exit $rc, expected 0"; }
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))["counters"]' "$WORK/dup$i.json" ||
		fail "SIGINT through timeout(1), run $i: no whole JSON report"
done

# 3c. The same signal again from another process is a second request: it
# exits at once (only a repeat from the same sender, as timeout(1)'s, is
# taken for the first). The second kill comes from kill(1), another process
# than this shell, a few ms later (its fork and exec): a reflector on DPDK
# (net_null) takes longer than that to stop (port and EAL clean-up), the
# kernel backend's often did not (it stopped cleanly before the second kill
# in 8 to 10 runs of 10, for this change's binary and the one before alike).
# A run that stopped cleanly before it arrived (exit 0) is tried again, up
# to 5 times.
ok=0
for i in 1 2 3 4 5; do
	LP_BG_LOG=$WORK/other$i.log lp_bg_ns - "$LATPROBE" reflect -l 0 \
		"${EAL_COMMON[@]}" --vdev net_null0 -- --addr 198.18.0.2/24 -q \
		--no-doctor --json "$WORK/other$i.json"
	pid=$LP_LAST_PID
	lp_wait_for "$WORK/other$i.log" '^latprobe reflect: ' 20 || fail "reflector did not start"
	kill -INT "$pid"
	env kill -INT "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ] && { ok=1; break; }
	[ "$rc" -eq 0 ] ||
		{ cat "$WORK/other$i.log" >&2; fail "SIGINT from two processes: exit $rc, expected 130"; }
done
[ "$ok" -eq 1 ] || fail "SIGINT from two processes: taken as one request in 5 runs (exit 0), expected 130"

# 4. No link: a memif server nobody connects to.
expect 4 "link of port 0 .* is down" "$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_memif0,role=server,socket=$LP_RUN_DIR/${LP_NS_PREFIX}none.sock,socket-abstract=no" \
	-- --addr 198.18.0.1/24 -n 5 -q 198.18.0.2

# 5. A dead peer: net_null (no-rx) swallows every probe. With --peer-mac nothing
# comes back at all, so the line names the MAC. The run goes on to its end
# (-t bounds the whole run: 3 s of warm-up, then about 10 probes lost).
rc=0
timeout 60 "$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" --vdev net_null0,no-rx=1 -- \
	--addr 198.18.0.1/24 --peer-mac 02:00:00:00:00:02 -w 15 -t 5 --timeout 200ms \
	--json "$WORK/dead.json" 198.18.0.2 >"$WORK/dead.out" 2>"$WORK/dead.err" || rc=$?
[ "$rc" -eq 5 ] || { cat "$WORK/dead.err" >&2; fail "dead peer: exit $rc, expected 5 (all lost)"; }
grep -E '^latprobe probe: no answer from 198\.18\.0\.2:862 .*wrong --peer-mac' "$WORK/dead.err" ||
	{ cat "$WORK/dead.err" >&2; fail "dead peer: no 'no answer from' line naming --peer-mac"; }
grep -qE '^ +1\.0s +warm-up [0-9]+/15$' "$WORK/dead.err" ||
	{ cat "$WORK/dead.err" >&2; fail "dead peer: the live line does not show the warm-up"; }
# Within 3 s: the dead line comes before the 3 s live line.
awk '/no answer from/ { print "dead"; exit } / 3\.0s / { print "late"; exit }' \
	"$WORK/dead.err" | grep -qx dead || fail "dead peer: the line came after 3 s"
[ "$(json_get "$WORK/dead.json" probes/warmup)" -eq 15 ] || fail "dead peer: the run did not go on"

# 6. port.xstats_delta in a DPDK run's JSON (and not in a kernel one's).
expect 0 "" "$LATPROBE" probe "${ring[@]}" --json "$WORK/xs.json" 198.18.0.2
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d["port"]["xstats_delta"], dict)' \
	"$WORK/xs.json" || fail "no port.xstats_delta object in the JSON"
# 7. A worker error: exit 1, one line naming the lcore, the JSON complete.
lp_have gdb || fail "needs gdb (tools/setup installs it)"
timeout 60 gdb -q -batch -nx -ex 'set confirm off' -ex 'set pagination off' \
	-ex 'break prober_worker_run' -ex run -ex 'return -5' -ex continue \
	--args "$LATPROBE" probe "${ring[@]}" --json "$WORK/werr.json" 198.18.0.2 \
	>"$WORK/werr.out" 2>&1 </dev/null || true
grep -q 'exited with code 01\]' "$WORK/werr.out" ||
	{ tail -20 "$WORK/werr.out" >&2; fail "a worker error did not exit 1"; }
grep -q '^latprobe: error: lcore 0 stopped on an error: Input/output error' "$WORK/werr.out" ||
	fail "a worker error: no error line"
json_get "$WORK/werr.json" probes/sent >/dev/null || fail "a worker error: no JSON"
# 8. The worker's CPU is the worker's: DPDK process on -l 1, no other thread
# (EAL's or our side thread) allowed on CPU 1.
# off_cpu1 FILE: no thread of threads_of's list may run on CPU 1.
off_cpu1() {
	$PY -c 'import sys
def cpus(l):
    out = set()
    for part in l.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
sys.exit(any(1 in cpus(line.split()[-1]) for line in open(sys.argv[1])))' "$1"
}
threads_of() { # PID: "name allowed-cpus" per thread but the main one
	local t
	for t in /proc/"$1"/task/*; do
		[ "${t##*/}" = "$1" ] && continue
		printf '%s %s\n' "$(cat "$t/comm")" "$(awk '/Cpus_allowed_list/ {print $2}' "$t/status")"
	done
}
"$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev net_ring0 -- --addr 198.18.0.1/24 \
	--loopback -t 3 -w 10 198.18.0.2 >"$WORK/aff.out" 2>"$WORK/aff.err" &
pid=$!
LP_BG_PIDS+=("$pid")
lp_wait_for "$WORK/aff.err" '^latprobe probe: ' 20 || fail "probe -l 1 did not start"
sleep 0.5
threads_of "$pid" >"$WORK/aff.threads"
wait "$pid" || fail "probe -l 1 failed"
grep -q . "$WORK/aff.threads" || fail "no thread besides the worker: cannot check"
off_cpu1 "$WORK/aff.threads" ||
	{ cat "$WORK/aff.threads" >&2; fail "a thread may run on the worker's CPU 1"; }
# reflect -q without -t on DPDK: the side thread still watches the port's
# link (net_null has no LSC interrupt, so it is polled) and the
# STAMP clock thread re-samples T2/T3's mapping; neither may run
# on the worker's CPU 1.
LP_BG_LOG=$WORK/rq.err lp_bg_ns - "$LATPROBE" reflect -l 1 "${EAL_COMMON[@]}" \
	--vdev net_null0,no-rx=1 -- "${refl_net[@]}" -q
pid=$LP_LAST_PID
lp_wait_for "$WORK/rq.err" '^latprobe reflect: ' 20 || fail "reflect -q did not start"
sleep 0.3
threads_of "$pid" >"$WORK/rq.threads"
kill -INT "$pid"
wait "$pid" || fail "reflect -q: exit $?"
grep -q '^lp-side ' "$WORK/rq.threads" ||
	{ cat "$WORK/rq.threads" >&2; fail "reflect -q on DPDK: no side thread to watch the link"; }
off_cpu1 "$WORK/rq.threads" ||
	{ cat "$WORK/rq.threads" >&2; fail "reflect -q: a thread may run on the worker's CPU 1"; }
# -l on every CPU (a 2-CPU machine): the side thread shares one, and says so.
[ "$(nproc)" -ne 2 ] || expect 0 "warning: no CPU is free of workers" "$LATPROBE" probe -l 0,1 "${EAL_COMMON[@]}" \
	--vdev net_ring0 -- --addr 198.18.0.1/24 --loopback -n 100 198.18.0.2
echo "$LP_PROG: ok"
