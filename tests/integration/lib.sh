# SPDX-License-Identifier: BSD-3-Clause
# Shared by the integration tests: each test is a bash script run by meson
# with the latprobe binary as $1. Sources tools/lib.sh for the testbed names,
# the cleanup stack and lp_skip (exit 77 = skipped).
set -euo pipefail
LP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# A prefix of our own, so a developer's testbed (lp-) is left alone.
export LP_NS_PREFIX=${LP_NS_PREFIX:-lpt-}
# shellcheck source=tools/lib.sh
. "$LP_TOP/tools/lib.sh"
LP_PROG=${LP_PROG:-$(basename "$0" .sh)}
LATPROBE=${1:?usage: $0 path/to/latprobe}
LATPROBE=$(readlink -f "$LATPROBE")
WORK=$(mktemp -d /tmp/latprobe-test.XXXXXX)
export LP_RUN_DIR=$WORK/run
mkdir -p "$LP_RUN_DIR"
EAL_COMMON=(--in-memory --no-pci --log-level=lib.eal:error --log-level=pmd.net.af_xdp:error)
PY=python3

fail() {
	printf '%s: FAIL: %s\n' "$LP_PROG" "$*" >&2
	exit 1
}

need_env() {
	[ "$(id -u)" -eq 0 ] || lp_skip "needs root (namespaces, DPDK)"
	lp_have ip || lp_skip "needs iproute2"
	local hp
	hp=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)
	[ "${hp:-0}" -ge 64 ] || lp_skip "needs 2 MB hugepages (tools/setup sets them; have ${hp:-0})"
	[ "$(nproc)" -ge 2 ] || lp_skip "needs 2 CPUs (one lcore for each side)"
}

testbed_up() {
	lp_cleanup_push "'$LP_TOP/tools/testbed' down >/dev/null 2>&1 || true"
	"$LP_TOP/tools/testbed" up "$@" >/dev/null
}

cleanup_work() {
	lp_cleanup_push "rm -rf '$WORK'"
}

# lp_begin [testbed]: the cleanup trap and $WORK removed at exit; with
# "testbed", the namespaces up (down at exit) and the reflector's address
# without its length in refl_ip.
lp_begin() {
	lp_trap_cleanup
	cleanup_work
	if [ "${1:-}" = testbed ]; then
		testbed_up
		refl_ip=${LP_ADDR_REFL%/*}
	fi
}

# expect CODE PATTERN CMD...: CMD (stdin /dev/null, at most 30 s) exits CODE
# and PATTERN (an ERE, "" for any) is in its stdout or stderr, kept in
# $WORK/out and $WORK/err. A script may set LP_EXPECT_STDERR=1 (PATTERN on
# stderr only), LP_EXPECT_ONE_LINE=1 (a non-zero exit says one line on
# stderr) and LP_EXPECT_SHOW=1 (stderr echoed, indented, to the log).
expect() {
	local code=$1 pat=$2 rc=0 where=("$WORK/out" "$WORK/err")
	shift 2
	timeout 30 "$@" >"$WORK/out" 2>"$WORK/err" </dev/null || rc=$?
	[ "$rc" -eq "$code" ] || { cat "$WORK/err" >&2; fail "'$*' exited $rc, expected $code"; }
	[ "${LP_EXPECT_STDERR:-0}" -eq 0 ] || where=("$WORK/err")
	if [ -n "$pat" ]; then
		grep -qE -- "$pat" "${where[@]}" ||
			{ cat "$WORK/err" >&2; fail "'$*': no '$pat' in its output"; }
	fi
	if [ "${LP_EXPECT_ONE_LINE:-0}" -ne 0 ] && [ "$code" -ne 0 ] &&
		[ "$(wc -l <"$WORK/err")" -ne 1 ]; then
		cat "$WORK/err" >&2
		fail "'$*': more than one line on stderr"
	fi
	[ "${LP_EXPECT_SHOW:-0}" -eq 0 ] || sed "s/^/  got: /" "$WORK/err"
}

# probe_dpdk NAME OPTIONS...: a DPDK prober on lcore 1 over af_xdp in the
# probe namespace, report in $WORK/NAME.json, output in $WORK/NAME.{txt,err}.
probe_dpdk() {
	local name=$1 rc=0
	shift
	ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
		--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -q \
		--json "$WORK/$name.json" "$@" >"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: probe exited $rc"; }
}

# start_reflector NS EAL... -- OPTS... : background reflector, log in $WORK/refl.log;
# waits until it says it is up.
start_reflector() {
	local ns=$1
	shift
	LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect "$@"
	REFL_PID=$LP_LAST_PID
	lp_wait_for "$WORK/refl.log" '^latprobe reflect: ' 20 ||
		{ cat "$WORK/refl.log" >&2; fail "reflector did not start"; }
}

# stop_reflector: SIGINT, wait for its report.
# stop_reflector: SIGINT, wait for its report; its exit status in REFL_RC.
stop_reflector() {
	kill -INT "$REFL_PID" 2>/dev/null || true
	local i
	for i in $(seq 50); do
		kill -0 "$REFL_PID" 2>/dev/null || break
		sleep 0.1
	done
	REFL_RC=0
	wait "$REFL_PID" 2>/dev/null || REFL_RC=$?
}

# bench_run ONLY LOG...: tools/bench --quick --reps 1 --only ONLY with the
# test's build, raw results in $WORK/bench, its JSON in $WORK/bench.json,
# its table in $WORK/bench.out; fails (bench_fail) unless it exits 0. LOG:
# globs under $WORK/bench whose tails bench_fail shows.
BENCH_LOGS=()
bench_run() {
	local only=$1 build rc=0
	shift
	BENCH_LOGS=("$@")
	build=$(dirname "$(dirname "$LATPROBE")")
	"$LP_TOP/tools/bench" --quick --reps 1 --only "$only" --build "$build" \
		--out "$WORK/bench" --json "$WORK/bench.json" >"$WORK/bench.out" \
		2>"$WORK/bench.err" || rc=$?
	[ "$rc" -eq 0 ] || bench_fail "tools/bench exited $rc"
}

# bench_fail MSG: tools/bench's stderr and the tails of bench_run's logs,
# then fail MSG.
bench_fail() {
	local g
	cat "$WORK/bench.err" >&2
	for g in "${BENCH_LOGS[@]}"; do
		# shellcheck disable=SC2086 # a glob
		tail -n 5 "$WORK"/bench/$g >&2 2>/dev/null || true
	done
	fail "$1"
}

# lp_lo_ns NAME: a namespace of our own, ${LP_NS_PREFIX}NAME in $ns (one
# left over from an earlier run replaced), its lo up, deleted at exit.
lp_lo_ns() {
	ns=${LP_NS_PREFIX}$1
	ip netns del "$ns" 2>/dev/null || true
	ip netns add "$ns"
	lp_cleanup_push "ip netns del '$ns' 2>/dev/null || true"
	ip -n "$ns" link set lo up
}

# lp_bench_tool VAR NAME: the path of bench/tools/NAME in the test's build
# in $VAR, or a skip when it was not built.
lp_bench_tool() {
	local tool
	tool=$(dirname "$(dirname "$LATPROBE")")/bench/tools/$2
	[ -x "$tool" ] || lp_skip "no $tool (configured with -Dbench=false?)"
	printf -v "$1" '%s' "$tool"
}

# lp_tcp_listener NS ADDR PORT LOG: a python3 TCP listener (backlog 128,
# 60 s) on ADDR:PORT in NS, log in LOG; returns once it listens.
lp_tcp_listener() {
	LP_BG_LOG=$4 lp_bg_ns "$1" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(128)
print("listening", flush=True)
time.sleep(60)' "$2" "$3"
	lp_wait_for "$4" listening 10 || fail "no TCP listener on $2:$3"
}

json_get() { # FILE key/key/...
	$PY -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("/"): v=v[k]
print(v)' "$1" "$2"
}
