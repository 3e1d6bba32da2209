#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One process, no NIC: --profile ring (net_ring loopback) with --loopback,
# every probe protocol through the real PMD, the codec and both engines.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
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
# Two worker lcores, a queue pair each: -n is split, each lcore has its own
# flow and histogram, and the report merges them.
"$LATPROBE" probe -l 0,1 --in-memory --no-pci --log-level=lib.eal:error --vdev net_ring0 \
	-- --addr 198.18.0.1/24 --loopback -n 5001 -q --json "$WORK/two.json" \
	--samples "$WORK/two.csv" 198.18.0.2 >"$WORK/two.txt" 2>"$WORK/two.err" ||
	{ cat "$WORK/two.err" >&2; fail "2 lcores: exit $?"; }
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/two.json" \
	--samples "$WORK/two.csv" --sent 5001 --no-loss --remote-ts || fail "2-lcore report"
[ "$(json_get "$WORK/two.json" lcores)" -eq 2 ] || fail "report does not say 2 lcores"
split=$(tail -n +2 "$WORK/two.csv" | cut -d, -f2 | sort | uniq -c | awk '{print $1}' | sort -n | tr '\n' ' ')
[ "$split" = "2500 2501 " ] || fail "probes per lcore: '$split', expected 2500 and 2501"
echo "$LP_PROG: ok"
