#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --metrics ADDR:PORT on probe and reflect (kernel backend, loopback of a
# namespace of our own): scrapes while the run goes on, what they hold,
# `promtool check metrics` on both expositions, 404/405/400 answers, a
# client that never finishes its request does not stop the next scrape,
# and bad --metrics values are one-line usage errors.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (a network namespace)"
lp_have ip || lp_skip "needs iproute2"
lp_have curl || lp_skip "needs curl"
lp_have promtool || lp_skip "needs promtool (Debian's prometheus package; tools/setup installs it)"
lp_begin
ns=${LP_NS_PREFIX}met
ip netns del "$ns" 2>/dev/null || true
ip netns add "$ns"
lp_cleanup_push "ip netns del '$ns' 2>/dev/null || true"
ip -n "$ns" link set lo up
inns() { ip netns exec "$ns" "$@"; }
scrape() { # URL OUT: GET with a 5 s bound
	inns curl -sS --max-time 5 -o "$2" -w '%{http_code}' "$1"
}

LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
	--addr 127.0.0.1/8 -t 20 --metrics 127.0.0.1:9101
REFL_PID=$LP_LAST_PID
lp_wait_for "$WORK/refl.log" '^latprobe reflect: ' 20 ||
	{ cat "$WORK/refl.log" >&2; fail "reflector did not start"; }
LP_BG_LOG=$WORK/probe.log lp_bg_ns "$ns" "$LATPROBE" probe --backend kernel -q \
	-i 1ms -t 20 --json "$WORK/probe.json" --metrics 127.0.0.1:9102 127.0.0.1
PROBE_PID=$LP_LAST_PID
lp_wait_for "$WORK/probe.log" '^latprobe probe: ' 20 ||
	{ cat "$WORK/probe.log" >&2; fail "prober did not start"; }
sleep 2

code=$(scrape http://127.0.0.1:9102/metrics "$WORK/p1.prom") || fail "probe scrape: curl failed"
[ "$code" = 200 ] || fail "probe /metrics answered $code"
code=$(scrape http://127.0.0.1:9101/metrics "$WORK/r1.prom") || fail "reflect scrape: curl failed"
[ "$code" = 200 ] || fail "reflect /metrics answered $code"
promtool check metrics <"$WORK/p1.prom" || fail "promtool check metrics: probe exposition"
promtool check metrics <"$WORK/r1.prom" || fail "promtool check metrics: reflect exposition"

# What the probe exposition holds: per-target counters and histograms.
$PY - "$WORK/p1.prom" <<'PYEOF' || fail "probe exposition content"
import re, sys
lab = '{target="127.0.0.1:862",proto="stamp",label=""}'
v = {}
for line in open(sys.argv[1]):
    if line.startswith('#') or not line.strip():
        continue
    k, val = line.rsplit(' ', 1)
    v[k] = float(val)
sent = v['latprobe_probes_sent_total' + lab]
recv = v['latprobe_probes_received_total' + lab]
lost = v['latprobe_probes_lost_total' + lab]
assert sent > 100 and sent == recv + lost and lost == 0, (sent, recv, lost)
for h in ('latprobe_rtt_seconds', 'latprobe_network_rtt_seconds'):
    l = lab[:-1]
    count = v[h + '_count' + lab]
    inf = v[h + '_bucket' + l + ',le="+Inf"}']
    assert count == recv == inf, (h, count, recv, inf)
    les = [(float(re.search(r'le="([^"]+)"', k).group(1)), n) for k, n in v.items()
           if k.startswith(h + '_bucket' + l + ',')]
    les.sort()
    assert len(les) == 20 and les[0][0] == 1e-06 and les[-2][0] == 1.0, les
    assert all(a[1] <= b[1] for a, b in zip(les, les[1:])), les
    assert 0 < v[h + '_sum' + lab] < count, h
assert v['latprobe_tsc_hertz'] > 1e8
assert any(k.startswith('latprobe_build_info{') and 'backend="kernel"' in k
           and 'command="probe"' in k for k in v)
PYEOF
grep -qE '^latprobe_reflector_answered_total\{proto="stamp"\} [1-9]' "$WORK/r1.prom" ||
	fail "reflector: no answered STAMP count"
grep -qE '^latprobe_reflector_dropped_total\{reason="udp_port"\} ' "$WORK/r1.prom" ||
	fail "reflector: no dropped counters by reason"
grep -qE '^latprobe_reflector_turnaround_seconds_count [1-9]' "$WORK/r1.prom" ||
	fail "reflector: no turnaround histogram"

# Counters only grow between scrapes.
sleep 1
scrape http://127.0.0.1:9102/metrics "$WORK/p2.prom" >/dev/null || fail "second scrape"
a=$(awk '/^latprobe_probes_sent_total/ {print $2}' "$WORK/p1.prom")
b=$(awk '/^latprobe_probes_sent_total/ {print $2}' "$WORK/p2.prom")
[ "$b" -gt "$a" ] || fail "probes sent did not grow between scrapes ($a, $b)"

# Other paths, methods and garbage.
[ "$(scrape http://127.0.0.1:9102/ "$WORK/x")" = 404 ] || fail "/ is not 404"
[ "$(inns curl -sS --max-time 5 -o /dev/null -w '%{http_code}' -X POST \
	http://127.0.0.1:9102/metrics)" = 405 ] || fail "POST is not 405"
[ "$(inns curl -sS --max-time 5 -o /dev/null -w '%{http_code}' -I \
	http://127.0.0.1:9102/metrics)" = 200 ] || fail "HEAD is not 200"
# A client that sends half a request and waits: dropped after 2 s, and the
# scrape behind it is answered.
inns bash -c 'exec 3<>/dev/tcp/127.0.0.1/9102; printf "GET /met" >&3; sleep 4' &
slow=$!
lp_cleanup_push "kill $slow 2>/dev/null || true"
sleep 0.3
t0=$(date +%s%N)
[ "$(scrape http://127.0.0.1:9102/metrics "$WORK/p3.prom")" = 200 ] ||
	fail "scrape behind a stalled client failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 4000 ] || fail "the scrape behind a stalled client took $ms ms"
echo "metrics: scrape behind a stalled client answered after $ms ms"

lp_stop_bg "$PROBE_PID"
wait "$PROBE_PID" 2>/dev/null || true
[ -s "$WORK/probe.json" ] || { cat "$WORK/probe.log" >&2; fail "prober wrote no report"; }

# Usage errors: one line, exit 2, before anything is sent.
export LP_EXPECT_ONE_LINE=1
expect 2 "--metrics wants ADDR:PORT" "$LATPROBE" probe --backend kernel --metrics 127.0.0.1 127.0.0.1
expect 2 "--metrics wants ADDR:PORT" "$LATPROBE" reflect --backend kernel --addr 127.0.0.1/8 --metrics localhost:9
expect 2 "--metrics wants ADDR:PORT" "$LATPROBE" probe --backend kernel --metrics 127.0.0.1:0 127.0.0.1
expect 2 "cannot listen there" ip netns exec "$ns" "$LATPROBE" probe --backend kernel -n 1 \
	--metrics 198.18.0.77:9100 127.0.0.1
# Taken by the reflector still running: a set-up error.
expect 4 "cannot listen there.*in use" ip netns exec "$ns" "$LATPROBE" probe --backend kernel -n 1 \
	--metrics 127.0.0.1:9101 127.0.0.1
kill -INT "$REFL_PID" 2>/dev/null || true
wait "$REFL_PID" 2>/dev/null || true
echo "metrics: ok"
