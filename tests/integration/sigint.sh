#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# SIGINT in the middle of a long run: the prober stops within a second and
# still writes its complete report (JSON parses, interrupted = true, every
# probe counted as received or lost, samples match).
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
sock=$LP_RUN_DIR/${LP_NS_PREFIX}sigint.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }

start_reflector - -l 0 "${EAL_COMMON[@]}" --vdev "$(memif server)" \
	-- --addr 198.18.0.2/24 -q
LP_BG_LOG=$WORK/probe.err lp_bg_ns - "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "$(memif client)" -- --addr 198.18.0.1/24 -t 60 -i 20us \
	--json "$WORK/probe.json" --samples "$WORK/samples.csv" 198.18.0.2
pid=$LP_LAST_PID
lp_wait_for "$WORK/probe.err" '^latprobe probe: ' 20 || fail "prober did not start"
sleep 2
kill -INT "$pid"
t0=$(date +%s%N)
rc=0
wait "$pid" || rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
echo "$LP_PROG: exit $rc, ${ms} ms after SIGINT"
[ "$rc" -eq 0 ] || { cat "$WORK/probe.err" >&2; fail "exit code $rc after SIGINT"; }
# Generous bound: it only proves the loops do not ignore the flag.
[ "$ms" -lt 5000 ] || fail "took ${ms} ms to stop"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/probe.json" \
	--samples "$WORK/samples.csv" --interrupted true || fail "report checks"
sent=$(json_get "$WORK/probe.json" probes/sent)
[ "$sent" -gt 1000 ] || fail "only $sent probes in 2 s"
echo "$LP_PROG: ok"
