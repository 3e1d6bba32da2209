#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two processes on one host over net_memif (reflector = server, started
# first; prober = client), each on its own lcore. ARP runs over memif too.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
sock=$LP_RUN_DIR/${LP_NS_PREFIX}memif.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }

rm -f "$sock"
start_reflector - -l 0 "${EAL_COMMON[@]}" --vdev "$(memif server)" \
	-- --addr 198.18.0.2/24 --stateful --json "$WORK/refl.json" -q
n=20000
"$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$(memif client)" \
	-- --addr 198.18.0.1/24 -n $n -w 100 -q -h 10,20,50,100 \
	--json "$WORK/probe.json" --samples "$WORK/samples.csv" 198.18.0.2 \
	>"$WORK/probe.txt" 2>"$WORK/probe.err" || {
	cat "$WORK/probe.err" >&2
	fail "probe exited $?"
}
cat "$WORK/probe.txt"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/probe.json" \
	--samples "$WORK/samples.csv" --sent $n --no-loss --remote-ts ||
	fail "report checks"
# -h with edges: 4 edge rows plus the open-ended one.
[ "$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["buckets"]))' "$WORK/probe.json")" -eq 5 ] ||
	fail "-h 10,20,50,100 did not give 5 bucket rows"
stop_reflector
# No second chance: a reflector dead of SIGSEGV as its peer left would be
# the memif disconnect race that the unmap gate closes (docs/design.md).
[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "reflector exited $REFL_RC"; }
[ "$(json_get "$WORK/refl.json" counters/answered.stamp)" -eq $((n + 100)) ] ||
	{ cat "$WORK/refl.log" "$WORK/refl.json" >&2; fail "reflector did not count every STAMP answer"; }
echo "$LP_PROG: ok"
