#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Default ports that another program holds, on the loopback of a
# namespace of our own, kernel backend:
#   1. probe without --sport while UDP 40000 is held: the first free port
#      above (start line and JSON source_port say which); several targets
#      each the next free one; --sport 40000: a one-line set-up error (4).
#   2. --metrics ADDR while TCP 9863 (probe's default) is held: the next
#      free port, said on stderr, and it answers; --metrics ADDR:9863: a
#      one-line set-up error (4).
#   3. The reflector's UDP ports are what its peers address: taken, a
#      one-line set-up error (4) that names the holder, never another port.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (a network namespace)"
lp_have ip || lp_skip "needs iproute2"
lp_have curl || lp_skip "needs curl"
lp_begin
lp_lo_ns ports
inns() { ip netns exec "$ns" "$@"; }

# hold PROTO PORT...: a python3 process in the namespace holding them (UDP
# bound, TCP listening) until killed; returns once they are held.
hold() {
	local proto=$1 ready=$WORK/held.$RANDOM
	shift
	LP_BG_LOG=$ready.log lp_bg_ns "$ns" "$PY" -c '
import socket, sys, time
kind = socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM
socks = []
for p in sys.argv[3:]:
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("0.0.0.0" if kind == socket.SOCK_DGRAM else "127.0.0.1", int(p)))
    if kind == socket.SOCK_STREAM:
        s.listen(1)
    socks.append(s)
open(sys.argv[2], "w").write("held\n")
time.sleep(120)' "$proto" "$ready" "$@"
	HOLD_PID=$LP_LAST_PID
	lp_wait_for "$ready" '^held$' 20 || { cat "$ready.log" >&2; fail "could not hold $proto $*"; }
}

LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
	--addr 127.0.0.1/8 -t 100 -q --json "$WORK/refl.json"
REFL_PID=$LP_LAST_PID
lp_wait_for "$WORK/refl.log" '^latprobe reflect: ' 20 ||
	{ cat "$WORK/refl.log" >&2; fail "reflector did not start"; }

# 1. Source ports.
hold udp 40000 40002
UDP_HOLDER=$HOLD_PID
inns "$LATPROBE" probe --backend kernel -q -n 200 --json "$WORK/p1.json" 127.0.0.1 \
	>/dev/null 2>"$WORK/p1.err" || { rc=$?; cat "$WORK/p1.err" >&2; fail "probe with UDP 40000 held: exited $rc"; }
grep -E '^latprobe probe: .*, source port 40001 \(40000 was taken: the first free one\)$' "$WORK/p1.err" ||
	{ cat "$WORK/p1.err" >&2; fail "the start line does not say source port 40001"; }
[ "$(json_get "$WORK/p1.json" source_port)" = 40001 ] || fail "JSON source_port is not 40001"
[ "$(json_get "$WORK/p1.json" probes/received)" = 200 ] || fail "probe from 40001: not 200 answers"
echo "ports: 40000 held -> source port $(json_get "$WORK/p1.json" source_port)"
# Two targets: 40001, then 40003 (40002 is held too); the same again on a
# second run (the choice depends only on what is taken).
printf '127.0.0.1\n127.0.0.1:11111 proto=sockperf\n' >"$WORK/pinglist"
for run in a b; do
	inns "$LATPROBE" probe --backend kernel -q -n 20 --json "$WORK/m$run.json" \
		--targets "$WORK/pinglist" >/dev/null 2>"$WORK/m$run.err" ||
		{ rc=$?; cat "$WORK/m$run.err" >&2; fail "two targets with 40000 held: exited $rc"; }
	$PY - "$WORK/m$run.json" <<'PYEOF' || fail "two targets: source ports"
import json, sys
d = json.load(open(sys.argv[1]))
got = {t['target']: t['source_port'] for t in d['targets']}
assert got == {'127.0.0.1:862': 40001, '127.0.0.1:11111': 40003}, got
assert d['source_ports'] == [40001, 40003], d['source_ports']
assert all(t['probes']['received'] == 20 for t in d['targets']), d['targets']
PYEOF
done
grep -qE ', source ports 40001, 40003 \(40000 was taken' "$WORK/ma.err" ||
	{ cat "$WORK/ma.err" >&2; fail "two targets: the start line does not name the ports"; }
# Asked for: strict.
export LP_EXPECT_ONE_LINE=1
expect 4 '^latprobe: error: kernel UDP socket \*:40000 -> 127\.0\.0\.1:862: Address already in use \(the source port is in use: --sport N picks another\)$' \
	ip netns exec "$ns" "$LATPROBE" probe --backend kernel -q -n 5 --sport 40000 127.0.0.1
lp_stop_bg "$UDP_HOLDER"

# 2. The metrics endpoint's default port.
hold tcp 9863
TCP_HOLDER=$HOLD_PID
LP_BG_LOG=$WORK/mp.log lp_bg_ns "$ns" "$LATPROBE" probe --backend kernel -q -i 1ms -t 30 \
	--metrics 127.0.0.1 127.0.0.1
MP_PID=$LP_LAST_PID
lp_wait_for "$WORK/mp.log" '^latprobe probe: metrics on ' 20 ||
	{ cat "$WORK/mp.log" >&2; fail "prober with --metrics 127.0.0.1 did not start"; }
grep -qE '^latprobe probe: metrics on http://127\.0\.0\.1:9864/metrics \(the default port was taken: the first free one above\)$' \
	"$WORK/mp.log" || { cat "$WORK/mp.log" >&2; fail "metrics: not on 9864, or not said"; }
code=$(inns curl -sS --max-time 10 -o "$WORK/m.prom" -w '%{http_code}' http://127.0.0.1:9864/metrics) ||
	fail "scrape of 9864 failed"
[ "$code" = 200 ] || fail "9864 answered $code"
grep -q '^latprobe_probes_sent_total' "$WORK/m.prom" || fail "9864: not the prober's metrics"
lp_stop_bg "$MP_PID"
expect 4 '^latprobe: error: --metrics 127\.0\.0\.1:9863: cannot listen there: Address already in use \(another process has it\)$' \
	ip netns exec "$ns" "$LATPROBE" probe --backend kernel -q -n 5 --metrics 127.0.0.1:9863 127.0.0.1
lp_stop_bg "$TCP_HOLDER"

# 3. The reflector's own ports: held by the reflector running above.
expect 4 '^latprobe: error: UDP port 862 on 127\.0\.0\.1 is already in use' \
	ip netns exec "$ns" "$LATPROBE" reflect --backend kernel --addr 127.0.0.1/8 -t 1 -q
lp_stop_bg "$REFL_PID"
echo "ports: ok"
