#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# stderr of a demo-like af_xdp run, with no --log-level given: latprobe's own
# line only (no EAL informational lines, no libbpf ELF-section or libxdp
# bpffs-fallback chatter); --log-level=...:info brings them back; errors
# always show.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed
eal=(--in-memory --no-pci)

start_reflector "$LP_NS_REFL" -l 0 "${eal[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" -q
probe() { # EAL options...
	ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${eal[@]}" "$@" \
		--vdev "net_af_xdp0,iface=$LP_IF_PROBE" -- --addr "$LP_ADDR_PROBE" -n 100 -w 0 -q \
		"$refl_ip" >"$WORK/probe.txt" 2>"$WORK/probe.err" ||
		{ cat "$WORK/probe.err" >&2; fail "probe exited $?"; }
}
probe
sed 's/^/  probe stderr: /' "$WORK/probe.err"
[ "$(grep -vc '^latprobe probe: ' "$WORK/probe.err")" -eq 0 ] ||
	fail "stderr has lines besides latprobe's own"
# The reflector's stderr up to its start line: nothing but that line.
[ "$(grep -vc '^latprobe reflect: ' "$WORK/refl.log")" -eq 0 ] ||
	{ cat "$WORK/refl.log" >&2; fail "reflector stderr has lines besides latprobe's own"; }
# Asked for, the lines come back (the ELF-section ones always happen with
# libxdp's objects; the EAL ones always with lib.eal at info).
probe --log-level=latprobe.bpf:info --log-level=lib.eal:info
grep -q '^libbpf: elf: skipping unrecognized data section' "$WORK/probe.err" ||
	fail "--log-level=latprobe.bpf:info did not show libbpf's info lines"
grep -q '^EAL: Detected CPU lcores' "$WORK/probe.err" ||
	fail "--log-level=lib.eal:info did not show EAL's info lines"
stop_reflector
# memif with --in-memory: its harmless "Failed to register mp action
# callback" error is hidden, its real errors are not.
sock=$LP_RUN_DIR/${LP_NS_PREFIX}q-memif.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }
rm -f "$sock"
start_reflector - -l 0 "${eal[@]}" --vdev "$(memif server)" -- --addr 198.18.0.2/24 -q
"$LATPROBE" probe -l 1 "${eal[@]}" --vdev "$(memif client)" -- --addr 198.18.0.1/24 \
	-n 100 -w 0 -q 198.18.0.2 >"$WORK/probe.txt" 2>"$WORK/probe.err" ||
	{ cat "$WORK/probe.err" >&2; fail "memif probe exited $?"; }
[ "$(grep -vc '^latprobe probe: ' "$WORK/probe.err")" -eq 0 ] ||
	{ cat "$WORK/probe.err" >&2; fail "memif: stderr has lines besides latprobe's own"; }
stop_reflector
rm -f "$sock"
"$LATPROBE" probe -l 1 "${eal[@]}" --vdev "$(memif client)" -- --addr 198.18.0.1/24 \
	-n 1 -q 198.18.0.2 >/dev/null 2>"$WORK/probe.err" && fail "memif client with no server exited 0"
grep -q 'Failed to connect socket' "$WORK/probe.err" ||
	{ cat "$WORK/probe.err" >&2; fail "memif's connect error is missing"; }
# An error is never hidden.
"$LATPROBE" info -l 0 "${eal[@]}" --vdev net_af_packet0 -- --calibrate 10ms \
	>/dev/null 2>"$WORK/info.err" && fail "info with a device that did not come up exited 0"
grep -q 'failed to initialize net_af_packet0' "$WORK/info.err" ||
	{ cat "$WORK/info.err" >&2; fail "the PMD's error line is missing"; }
echo "$LP_PROG: ok"
