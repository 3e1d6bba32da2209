#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A SIGINT/SIGTERM storm: 50 signals, one per process, at random moments of
# its run (0-700 ms after it said it was up), SIGINT or SIGTERM at random,
# across probe and reflect, on DPDK (memif) and on the kernel backend.
# Every run must exit 0 and leave a complete JSON (python's json parses it,
# the keys are there) and its text report.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
ROUNDS=${LP_STORM_ROUNDS:-25} # two signals a round
sock=$LP_RUN_DIR/${LP_NS_PREFIX}storm.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }
kport=$((20000 + $$ % 20000))
signals=0

rand_sleep() { # up to MS milliseconds
	sleep "$(printf '0.%03d' $((RANDOM % $1)))"
}
rand_sig() { if ((RANDOM % 2)); then echo INT; else echo TERM; fi; }

# stop NAME PID: one signal at a random moment, then its exit status.
stop() {
	local name=$1 pid=$2 sig rc=0 i
	sig=$(rand_sig)
	rand_sleep 700
	kill -"$sig" "$pid"
	signals=$((signals + 1))
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	wait "$pid" || rc=$?
	# Exit 139 on memif would be the PMD's disconnect race (the reflector's
	# rings unmapped under its lcore as the prober leaves), which the unmap
	# gate closes (docs/design.md, "memif disconnect"): no round is redone.
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: exit $rc after SIG$sig"; }
}

check_probe() { # NAME
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/$1.json" \
		--interrupted true || fail "$1: report checks"
	grep -q "round trips to" "$WORK/$1.out" || fail "$1: no text report"
}

check_refl() { # NAME
	$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True, "not interrupted"
assert "answered.stamp" in d["counters"], "counters missing"
assert d["tsc"]["hz"] > 0, "tsc missing"' "$WORK/$1.json" || fail "$1: JSON incomplete"
	grep -q "^Reflector on" "$WORK/$1.out" || fail "$1: no text report"
}

start() { # NAME CMD... : background, stdout/stderr to files; pid in $pid
	local name=$1
	shift
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	LP_BG_PIDS+=("$pid")
}

t0=$(date +%s)
for ((r = 0; r < ROUNDS; r++)); do
	if ((r % 2 == 0)); then
		kind=memif
		rm -f "$sock"
		start "refl$r" "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" --vdev "$(memif server)" \
			-- --addr 198.18.0.2/24 --calibrate 20ms -q --json "$WORK/refl$r.json"
		rpid=$pid
		lp_wait_for "$WORK/refl$r.err" '^latprobe reflect: ' 20 || fail "refl$r did not start"
		start "probe$r" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$(memif client)" \
			-- --addr 198.18.0.1/24 --calibrate 20ms -t 30 -w 10 \
			--json "$WORK/probe$r.json" 198.18.0.2
	else
		kind=kernel
		start "refl$r" "$LATPROBE" reflect --backend kernel --addr 127.0.0.1 \
			--udp-port "$kport" --sockperf-port 0 --echo-port 0 --calibrate 20ms \
			--json "$WORK/refl$r.json"
		rpid=$pid
		lp_wait_for "$WORK/refl$r.err" '^latprobe reflect: ' 20 || fail "refl$r did not start"
		start "probe$r" "$LATPROBE" probe --backend kernel --calibrate 20ms -t 30 -w 10 -q \
			--json "$WORK/probe$r.json" "127.0.0.1:$kport"
	fi
	ppid_=$pid
	lp_wait_for "$WORK/probe$r.err" '^latprobe probe: ' 20 ||
		{ cat "$WORK/probe$r.err" >&2; fail "probe$r ($kind) did not start"; }
	stop "probe$r" "$ppid_"
	stop "refl$r" "$rpid"
	check_probe "probe$r"
	check_refl "refl$r"
done
t1=$(date +%s)
[ "$signals" -ge $((2 * ROUNDS)) ] || fail "sent $signals signals, expected $((2 * ROUNDS))"
echo "$LP_PROG: $signals signals, $ROUNDS rounds, every run exited 0 with its reports ($((t1 - t0)) s)"
echo "$LP_PROG: ok"
