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
# memif sockets live here (socket-abstract=no, so they cross namespaces).
LP_RUN_DIR=${LP_RUN_DIR:-/run/latprobe}

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
