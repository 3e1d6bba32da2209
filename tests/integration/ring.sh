#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One process, no NIC: --profile ring (net_ring loopback) with --loopback,
# every probe protocol through the real PMD, the codec and both engines.
. "$(dirname "$0")/lib.sh"
need_env
lp_trap_cleanup
cleanup_work
for proto in stamp sockperf udp-echo icmp; do
	args=()
	[ "$proto" = stamp ] && args=(--remote-ts)
	"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
		--loopback --proto "$proto" -l 200 -n 5000 -q --json "$WORK/$proto.json" \
		198.18.0.2 >"$WORK/$proto.txt" 2>"$WORK/$proto.err" ||
		{ cat "$WORK/$proto.err" >&2; fail "$proto: exit $?"; }
	$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/$proto.json" \
		--sent 5000 --no-loss --proto "$proto" "${args[@]}" || fail "$proto report"
done
echo "$LP_PROG: ok"
