#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end under ASan+UBSan (tools/check runs it with build-asan's binary
# as $1): a reflector and a prober over net_memif with --no-huge EAL memory,
# every output (--json, --samples, --pcap); the kernel backend; and the
# error paths (usage errors, a bad profile, no port, an unwritable output,
# `info` and `doctor` with and without ports). Any AddressSanitizer, LeakSanitizer or
# UBSan report fails it, whatever the exit code.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
# Leaks are reported at exit with exit code 23 and fail the run; UBSan
# aborts on its first report.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# grep reads all of nm's output (no -q): under pipefail, nm killed by
# SIGPIPE after an early match would read as "not found".
{ nm -D "$LATPROBE"; nm "$LATPROBE"; } 2>/dev/null | grep __asan_init >/dev/null ||
	lp_skip "$LATPROBE is not built with -Db_sanitize=address,undefined"
EAL_ASAN=(--no-huge -m 256 --no-pci --no-shconf --log-level=lib.eal:error)
sock=$LP_RUN_DIR/${LP_NS_PREFIX}asan.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }
kport=$((20000 + $$ % 20000))
n_runs=0

# The sanitizers' reports, in any of the logs.
sanitizer_clean() { # LOG...
	if grep -lE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer' "$@"; then
		grep -hE -A20 'ERROR: |runtime error:' "$@" | head -60 >&2
		return 1
	fi
}

run() { # NAME CODE CMD... : foreground run, expected exit code, clean log
	local name=$1 code=$2 rc=0
	shift 2
	timeout 60 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null || rc=$?
	n_runs=$((n_runs + 1))
	sanitizer_clean "$WORK/$name.err" || fail "$name: sanitizer report"
	[ "$rc" -eq "$code" ] || { cat "$WORK/$name.err" >&2; fail "$name: exit $rc, expected $code"; }
}

# 1. memif: reflector (server) and prober (client), all outputs.
rm -f "$sock"
LP_BG_LOG=$WORK/refl.err lp_bg_ns - "$LATPROBE" reflect -l 0 "${EAL_ASAN[@]}" \
	--file-prefix "${LP_NS_PREFIX}asan-r" --vdev "$(memif server)" \
	-- --addr 198.18.0.2/24 --json "$WORK/refl.json"
REFL_PID=$LP_LAST_PID
lp_wait_for "$WORK/refl.err" '^latprobe reflect: ' 30 ||
	{ cat "$WORK/refl.err" >&2; fail "reflector did not start"; }
run probe 0 "$LATPROBE" probe -l 1 "${EAL_ASAN[@]}" --file-prefix "${LP_NS_PREFIX}asan-p" \
	--vdev "$(memif client)" -- --addr 198.18.0.1/24 -n 3000 -l 2000 \
	--json "$WORK/probe.json" --samples "$WORK/probe.csv" --pcap "$WORK/probe.pcapng" 198.18.0.2
stop_reflector
n_runs=$((n_runs + 1))
sanitizer_clean "$WORK/refl.err" || fail "reflector: sanitizer report"
[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.err" >&2; fail "reflector exited $REFL_RC"; }
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/probe.json" \
	--samples "$WORK/probe.csv" --sent 3000 --no-loss --remote-ts || fail "memif report"
[ -s "$WORK/probe.pcapng" ] || fail "no pcapng written"
json_get "$WORK/refl.json" counters/answered.stamp >/dev/null || fail "reflector JSON"

# 2. Kernel backend, both ends.
LP_BG_LOG=$WORK/krefl.err lp_bg_ns - "$LATPROBE" reflect --backend kernel --addr 127.0.0.1 \
	--udp-port "$kport" --sockperf-port 0 --echo-port 0 --json "$WORK/krefl.json"
REFL_PID=$LP_LAST_PID
lp_wait_for "$WORK/krefl.err" '^latprobe reflect: ' 30 || fail "kernel reflector did not start"
run kprobe 0 "$LATPROBE" probe --backend kernel -n 2000 -l 3000 --json "$WORK/kprobe.json" \
	"127.0.0.1:$kport"
stop_reflector
n_runs=$((n_runs + 1))
sanitizer_clean "$WORK/krefl.err" || fail "kernel reflector: sanitizer report"
[ "$REFL_RC" -eq 0 ] || fail "kernel reflector exited $REFL_RC"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/kprobe.json" \
	--sent 2000 --no-loss || fail "kernel report"

# 3. Error paths: each frees what it took.
run info-bad-opt 2 "$LATPROBE" info -- --bogus
run info-bad-calib 2 "$LATPROBE" info -- --calibrate 1ms
run info-extra 2 "$LATPROBE" info -- extra
run info-profile 2 "$LATPROBE" info --profile no-such-profile --
run info-noport 0 "$LATPROBE" info "${EAL_ASAN[@]}" -- --calibrate 20ms
run info-ring 0 "$LATPROBE" info --profile ring --log-level=lib.eal:error -- --calibrate 20ms
# doctor: usage errors, no port (the kernel's NICs, the 1 s sample), a port
# and its pool (exit 0: no check fails on these machines, doctor.sh checks
# the rule itself).
run doctor-bad-opt 2 "$LATPROBE" doctor -- --bogus
run doctor-lcores 2 "$LATPROBE" doctor -- --lcores 1-0
run doctor-badout 2 "$LATPROBE" doctor -- --json /nonexistent-dir/x
run doctor-noport 0 "$LATPROBE" doctor "${EAL_ASAN[@]}" -- --calibrate 20ms --json "$WORK/doc.json"
run doctor-ring 0 "$LATPROBE" doctor --profile ring --log-level=lib.eal:error -- --calibrate 20ms --json -
# An option on the wrong side of '--' is refused before EAL (exit 2); a
# device the EAL cannot create fails EAL init itself (exit 4).
run info-side 2 "$LATPROBE" info --no-huge -m 256 --no-pci --bogus-eal-option --
run info-eal 4 "$LATPROBE" info --no-huge -m 256 --no-pci --vdev net_nosuchpmd0 --
run probe-usage 2 "$LATPROBE" probe -- --addr 198.18.0.1/24 -n abc 198.18.0.2
run probe-profile 2 "$LATPROBE" probe --profile no-such-profile -- --addr 198.18.0.1/24 198.18.0.2
run probe-noport 4 "$LATPROBE" probe -l 0 "${EAL_ASAN[@]}" -- --addr 198.18.0.1/24 198.18.0.2
run probe-badout 2 "$LATPROBE" probe -l 0 "${EAL_ASAN[@]}" --vdev net_ring0 \
	-- --addr 198.18.0.1/24 --json /nonexistent-dir/x 198.18.0.2
run probe-noarp 3 "$LATPROBE" probe -l 0 "${EAL_ASAN[@]}" --vdev net_null0,no-rx=1 \
	-- --addr 198.18.0.1/24 --arp-timeout 300ms -q 198.18.0.2
run reflect-usage 2 "$LATPROBE" reflect -- --addr 198.18.0.2/24 --udp-port 70000
run reflect-noport 4 "$LATPROBE" reflect -l 0 "${EAL_ASAN[@]}" -- --addr 198.18.0.2/24
echo "$LP_PROG: $n_runs runs under ASan+UBSan+LSan, no report"
echo "$LP_PROG: ok"
