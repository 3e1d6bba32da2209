# SPDX-License-Identifier: BSD-3-Clause
# Shared shell helpers for tools/* and tests/integration/*. Source it:
#
#   . "$(dirname "$0")/lib.sh"          (from tools/)
#   lp_trap_cleanup                      # run registered cleanups on exit
#   lp_cleanup_push "tools/testbed down" # runs even if the script fails
#   lp_bg_ns lp-refl rawping ...         # background job in a namespace,
#                                        # killed (by its pid) on exit
#
# Names of the testbed (overridable so that two testbeds can coexist, e.g. CI
# and a developer: LP_NS_PREFIX=lpci- tools/testbed up).
# Interface names are limited to 15 characters (IFNAMSIZ - 1).

LP_NS_PREFIX=${LP_NS_PREFIX:-lp-}
LP_NS_REFL=${LP_NS_REFL:-${LP_NS_PREFIX}refl}
LP_NS_PROBE=${LP_NS_PROBE:-${LP_NS_PREFIX}probe}
LP_IF_REFL=${LP_IF_REFL:-${LP_NS_PREFIX}r0}
LP_IF_PROBE=${LP_IF_PROBE:-${LP_NS_PREFIX}p0}
# RFC 2544 benchmarking range only (198.18.0.0/15).
LP_ADDR_PROBE=${LP_ADDR_PROBE:-198.18.0.1/24}
LP_ADDR_REFL=${LP_ADDR_REFL:-198.18.0.2/24}
# RFC 5180 IPv6 benchmarking prefix only (2001:2::/48).
LP_ADDR6_PROBE=${LP_ADDR6_PROBE:-2001:2::1/64}
LP_ADDR6_REFL=${LP_ADDR6_REFL:-2001:2::2/64}
# memif sockets live here (socket-abstract=no, so they cross namespaces).
LP_RUN_DIR=${LP_RUN_DIR:-/run/latprobe}
# The clang-format major the format check uses (Debian 12's): majors lay out
# the same .clang-format differently, so the check is only deterministic with
# one. tools/setup installs it where the release has it.
LP_CLANG_FORMAT_MAJOR=14

lp_log() { printf '%s: %s\n' "${LP_PROG:-${0##*/}}" "$*"; }
lp_warn() { printf '%s: warning: %s\n' "${LP_PROG:-${0##*/}}" "$*" >&2; }
lp_die() {
	printf '%s: error: %s\n' "${LP_PROG:-${0##*/}}" "$*" >&2
	exit 1
}

lp_need_root() {
	[ "$(id -u)" -eq 0 ] || lp_die "must run as root"
}

lp_have() { command -v "$1" >/dev/null 2>&1; }

# --- cleanup stack --------------------------------------------------------
# Commands pushed with lp_cleanup_push run in reverse order when the shell
# exits for any reason (normal end, error under set -e, SIGINT, SIGTERM);
# $LP_EXIT_RC holds the exit status then.
LP_CLEANUP=()
LP_BG_PIDS=()

# A zombie (exited, not yet reaped) is not alive.
lp_alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

lp_cleanup_push() { LP_CLEANUP+=("$*"); }

lp_run_cleanup() {
	local rc=$? i pid
	trap - EXIT INT TERM
	set +e
	# Background jobs first: SIGTERM, give them a second, then SIGKILL.
	for pid in "${LP_BG_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${LP_BG_PIDS[@]}"; do
		for i in 1 2 3 4 5 6 7 8 9 10; do
			lp_alive "$pid" || break
			sleep 0.1
		done
		lp_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	done
	# Reap only our own jobs: a bare "wait" would block on a caller's.
	[ "${#LP_BG_PIDS[@]}" -eq 0 ] || wait "${LP_BG_PIDS[@]}" 2>/dev/null
	LP_BG_PIDS=()
	# Cleanups can look at the script's exit status.
	LP_EXIT_RC=$rc
	for ((i = ${#LP_CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${LP_CLEANUP[i]}"
	done
	LP_CLEANUP=()
	return "$rc"
}

lp_trap_cleanup() {
	trap 'lp_run_cleanup' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# lp_bg_ns NS CMD... : start CMD in namespace NS (or the root namespace if NS
# is "-") in the background; its pid is in LP_LAST_PID and it is stopped by
# lp_run_cleanup. Output goes to the file in $LP_BG_LOG if set.
lp_bg_ns() {
	local ns=$1
	shift
	# The log emptied here, not by the background job's own redirection,
	# which runs when that job gets the CPU: a caller that then waits for
	# a line in it would else find the previous run's (quiet.sh's second
	# reflector: its start line seen at once, the memif socket not there
	# yet, once on a busy host).
	if [ -n "${LP_BG_LOG:-}" ]; then : >"$LP_BG_LOG"; fi
	if [ "$ns" = - ]; then
		"$@" >"${LP_BG_LOG:-/dev/null}" 2>&1 &
	else
		ip netns exec "$ns" "$@" >"${LP_BG_LOG:-/dev/null}" 2>&1 &
	fi
	LP_LAST_PID=$!
	LP_BG_PIDS+=("$LP_LAST_PID")
}

# lp_wait_for FILE REGEX SECONDS: wait until FILE has a line matching REGEX.
lp_wait_for() {
	local file=$1 re=$2 secs=$3 i
	for ((i = 0; i < secs * 10; i++)); do
		grep -qE "$re" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# 77 is meson's "skipped" exit status.
lp_skip() {
	printf '%s: SKIP: %s\n' "${LP_PROG:-${0##*/}}" "$*" >&2
	exit 77
}

lp_ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx -- "$1"; }

# --- shared by tools/bench and tools/peers ----------------------------------

# lp_kaddrs PROBE REFL: kernel addresses on the testbed's veth ends, 1 = give
# the kernel its address there, 0 = none. Only where the kernel is a peer: a
# DPDK side must never have the kernel answer ARP for it.
lp_kaddrs() {
	ip -n "$LP_NS_PROBE" addr flush dev "$LP_IF_PROBE"
	ip -n "$LP_NS_REFL" addr flush dev "$LP_IF_REFL"
	[ "$1" = 0 ] || ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
	[ "$2" = 0 ] || ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
}

# lp_kaddr6 NS IF ADDR: IPv6 back on for the kernel on IF in NS (the
# testbed turns it off), without DAD or router solicitations, and ADDR on IF.
# Only where the kernel is a peer, as lp_kaddrs.
lp_kaddr6() {
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.router_solicitations=0 \
		net.ipv6.conf.default.router_solicitations=0 \
		"net.ipv6.conf.$2.accept_dad=0" \
		"net.ipv6.conf.$2.router_solicitations=0" \
		net.ipv6.conf.all.disable_ipv6=0 \
		"net.ipv6.conf.$2.disable_ipv6=0" >/dev/null
	ip -n "$1" addr add "$3" dev "$2" nodad
}

# lp_stop_bg PID: SIGINT (our tools print their report on it), up to 10 s
# for it to exit, then SIGKILL; then forget the job so the exit cleanup does
# not signal a pid the kernel may have reused.
lp_stop_bg() {
	local pid=$1 i keep=()
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		lp_alive "$pid" || break
		sleep 0.1
	done
	lp_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
	for i in "${LP_BG_PIDS[@]}"; do
		[ "$i" = "$pid" ] || keep+=("$i")
	done
	LP_BG_PIDS=("${keep[@]+"${keep[@]}"}")
}

# lp_machine_json TOP [KEY=VALUE...]: the machine a measurement ran on, as
# one JSON object (date, CPU, cores, kernel, DPDK, sockperf, latprobe
# commit, load, invariant TSC), plus the extra string fields given.
lp_machine_json() {
	local top=$1
	shift
	python3 - "$top" "$@" <<'PYEOF'
import json, os, platform, subprocess, sys, time

def out(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"

top = sys.argv[1]
cpuinfo = open("/proc/cpuinfo").read()
model = next((l.split(":", 1)[1].strip() for l in cpuinfo.splitlines()
              if l.startswith("model name")), "unknown")
d = dict(date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         cpu_model=model, cpus=os.cpu_count(), kernel=platform.release(),
         dpdk=out("pkg-config", "--modversion", "libdpdk"),
         sockperf=out("dpkg-query", "-W", "-f", "${Version}", "sockperf"),
         latprobe_commit=out("git", "-C", top, "describe", "--always",
                             "--dirty"),
         loadavg=" ".join(open("/proc/loadavg").read().split()[:3]),
         invariant_tsc=" constant_tsc" in cpuinfo and
         " nonstop_tsc" in cpuinfo)
for kv in sys.argv[2:]:
    k, _, v = kv.partition("=")
    d[k] = v
print(json.dumps(d))
PYEOF
}
