#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --metrics ADDR:PORT on probe and reflect (kernel backend, loopback of a
# namespace of our own): scrapes while the run goes on, what they hold,
# `promtool check metrics` on both expositions, 404/405/400 answers, a
# client that never finishes its request does not stop the next scrape,
# several slow clients at once neither (and are dropped in the end), an
# accept error (EMFILE) backs off instead of spinning, bad --metrics values
# are one-line usage errors, and with DPDK the server's thread stays off
# the worker's CPU.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (a network namespace)"
lp_have ip || lp_skip "needs iproute2"
lp_have curl || lp_skip "needs curl"
lp_have promtool || lp_skip "needs promtool (Debian's prometheus package; tools/setup installs it)"
lp_begin
lp_lo_ns met
inns() { ip netns exec "$ns" "$@"; }
scrape() { # URL OUT: GET with a 5 s bound
	inns curl -sS --max-time 5 -o "$2" -w '%{http_code}' "$1"
}

LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
	--addr 127.0.0.1/8 -t 60 --metrics 127.0.0.1:9101
REFL_PID=$LP_LAST_PID
lp_wait_for "$WORK/refl.log" '^latprobe reflect: ' 20 ||
	{ cat "$WORK/refl.log" >&2; fail "reflector did not start"; }
LP_BG_LOG=$WORK/probe.log lp_bg_ns "$ns" "$LATPROBE" probe --backend kernel -q \
	-i 1ms -t 50 --json "$WORK/probe.json" --metrics 127.0.0.1:9102 127.0.0.1
PROBE_PID=$LP_LAST_PID
lp_wait_for "$WORK/probe.log" '^latprobe probe: ' 20 ||
	{ cat "$WORK/probe.log" >&2; fail "prober did not start"; }
# Past the warm-up, however loaded the machine: a readiness poll, not a sleep.
for ((i = 0; i < 300; i++)); do
	scrape http://127.0.0.1:9102/metrics "$WORK/p0.prom" >/dev/null || true
	[ "$(awk '/^latprobe_probes_sent_total/ {print $2}' "$WORK/p0.prom" 2>/dev/null)" -gt 100 ] 2>/dev/null && break
	sleep 0.1
done

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
# sent = received + lost, an identity: a loaded host may lose one to the
# timeout even on loopback (seen: 116 = 115 + 1).
assert sent > 100 and sent == recv + lost, (sent, recv, lost)
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
# One-way: a validity gauge always; forward and reverse (the positive
# ones only, so at most every answer) only while valid, the bound only
# while known (a valid run has one).
valid = v['latprobe_one_way_valid' + lab]
assert valid in (0.0, 1.0), valid
for h in ('latprobe_forward_seconds', 'latprobe_reverse_seconds'):
    l = lab[:-1]
    if valid == 0.0:
        assert not any(k.startswith(h + '_') for k in v), h
        continue
    count = v[h + '_count' + lab]
    assert 0 < count <= recv and count == v[h + '_bucket' + l + ',le="+Inf"}'], (h, count, recv)
if valid == 1.0:
    assert v['latprobe_one_way_bound_seconds' + lab] > 0
print('one-way: valid %d, bound %s' % (valid, v.get('latprobe_one_way_bound_seconds' + lab)))
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

# Several slow clients at once: half send nothing, half a byte
# a second. A scrape is answered while every one of them still holds its
# connection (one connection at a time answered it only after the server
# had dropped them all), and the server drops each of them in the end
# (idle: 2 s; trickling: 4 s after it was accepted).
inns "$PY" - 9102 6 <<'PYEOF' || fail "scrape beside slow clients"
import socket, sys, time, urllib.request
port, n = int(sys.argv[1]), int(sys.argv[2])
slow = [socket.create_connection(('127.0.0.1', port), timeout=5) for _ in range(n)]
req = b'GET /metrics HTTP/1.1\r\nHost: x\r\n'
for i, s in enumerate(slow):
    if i % 2:
        s.send(req[:1])
time.sleep(0.5)

def open_(s):  # still connected: nothing to read, no EOF
    s.setblocking(False)
    try:
        return s.recv(1) != b''
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        s.setblocking(True)

t0 = time.monotonic()
body = urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=30).read()
ms = (time.monotonic() - t0) * 1000
held = sum(open_(s) for s in slow)
print('metrics: scrape beside %d slow clients answered after %.0f ms, %d of them '
      'still connected' % (n, ms, held))
assert b'latprobe_probes_sent_total' in body
assert held == n, 'the scrape waited for the server to drop %d slow clients' % (n - held)
# Now each one must be dropped: the trickling ones keep sending meanwhile.
left, sent, t0 = set(range(n)), 1, time.monotonic()
while left and time.monotonic() - t0 < 30:
    time.sleep(1)
    for i in sorted(left):
        if not open_(slow[i]):
            left.discard(i)
        elif i % 2 and sent < len(req):
            try:
                slow[i].send(req[sent:sent + 1])
            except OSError:
                left.discard(i)
    sent += 1
assert not left, 'slow clients %s never dropped' % sorted(left)
print('metrics: every slow client dropped after %.1f s' % (time.monotonic() - t0))
PYEOF

# An accept error (EMFILE: no descriptor left for the connection) backs
# off instead of spinning on a listening socket that stays readable: the
# prober's accept4 calls over 2 s are counted with strace, then the
# limit is lifted and the waiting client is answered.
if lp_have strace && lp_have prlimit; then
	hard=$(prlimit --pid "$PROBE_PID" --nofile --noheadings --output HARD --raw)
	low=$($PY -c 'import os, sys
fds = {int(f) for f in os.listdir("/proc/%s/fd" % sys.argv[1])}
print(min(i for i in range(len(fds) + 1) if i not in fds))' "$PROBE_PID")
	prlimit --pid "$PROBE_PID" --nofile="$low:$hard"
	lp_cleanup_push "prlimit --pid $PROBE_PID --nofile=$hard:$hard 2>/dev/null || true"
	inns "$PY" -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", 9102), timeout=30)
s.send(b"GET /metrics HTTP/1.0\r\n\r\n")
print(s.recv(64).split(b"\r\n")[0].decode())' >"$WORK/emfile.out" 2>&1 &
	cli=$!
	LP_BG_PIDS+=("$cli")
	sleep 0.5
	# Every thread (only the metrics one accepts); `ip netns exec` exec'd
	# the prober, so PROBE_PID is its pid.
	timeout 2 strace -f -qq -p "$PROBE_PID" -e trace=accept4 -o "$WORK/accept.trace" 2>/dev/null || true
	prlimit --pid "$PROBE_PID" --nofile="$hard:$hard"
	n=$(grep -cE '^([0-9]+ +)?accept4\(' "$WORK/accept.trace" || true)
	wait "$cli" || { cat "$WORK/emfile.out" >&2; fail "the client that waited through EMFILE failed"; }
	echo "metrics: EMFILE for 2 s: $n accept4 calls; then: $(cat "$WORK/emfile.out")"
	grep -q 'EMFILE' "$WORK/accept.trace" || fail "accept4 never met EMFILE (the test did not set it up)"
	# Back-off from 10 ms doubling to 1 s: about 8 calls in 2 s.
	[ "$n" -le 30 ] || fail "$n accept4 calls in 2 s of EMFILE: the loop spins"
	grep -q '^HTTP/1.[01] 200' "$WORK/emfile.out" || fail "no 200 once descriptors were back"
else
	echo "metrics: no strace or prlimit: the EMFILE check is not run"
fi

lp_stop_bg "$PROBE_PID"
wait "$PROBE_PID" 2>/dev/null || true
[ -s "$WORK/probe.json" ] || { cat "$WORK/probe.log" >&2; fail "prober wrote no report"; }

# Usage errors: one line, exit 2, before anything is sent.
export LP_EXPECT_ONE_LINE=1
expect 2 "--metrics wants ADDR\[:PORT\]" "$LATPROBE" probe --backend kernel --metrics 127.0.0.1:x 127.0.0.1
expect 2 "--metrics wants ADDR\[:PORT\]" "$LATPROBE" reflect --backend kernel --addr 127.0.0.1/8 --metrics localhost:9
expect 2 "--metrics wants ADDR\[:PORT\]" "$LATPROBE" probe --backend kernel --metrics 127.0.0.1:0 127.0.0.1
expect 2 "cannot listen there" ip netns exec "$ns" "$LATPROBE" probe --backend kernel -n 1 \
	--metrics 198.18.0.77:9100 127.0.0.1
# Taken by the reflector still running: a set-up error.
expect 4 "cannot listen there.*in use" ip netns exec "$ns" "$LATPROBE" probe --backend kernel -n 1 \
	--metrics 127.0.0.1:9101 127.0.0.1
kill -INT "$REFL_PID" 2>/dev/null || true
wait "$REFL_PID" 2>/dev/null || true

# DPDK: the HTTP server's thread (libmicrohttpd starts none of its own) is
# an EAL control thread, never on the worker's CPU (-l 1), and it serves.
hp=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)
if [ "${hp:-0}" -ge 64 ] && [ "$(nproc)" -ge 2 ]; then
	LP_BG_LOG=$WORK/dpdk.err lp_bg_ns "$ns" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
		--vdev net_ring0 -- --addr 198.18.0.1/24 --loopback -q -t 30 -w 10 \
		--metrics 127.0.0.1:9103 198.18.0.2
	DPID=$LP_LAST_PID
	lp_wait_for "$WORK/dpdk.err" '^latprobe probe: ' 30 ||
		{ cat "$WORK/dpdk.err" >&2; fail "DPDK prober with --metrics did not start"; }
	[ "$(scrape http://127.0.0.1:9103/metrics "$WORK/d.prom")" = 200 ] ||
		fail "DPDK prober: /metrics not answered"
	t=$(grep -lx lp-metrics /proc/"$DPID"/task/*/comm 2>/dev/null | head -1 || true)
	[ -n "$t" ] || fail "DPDK prober: no lp-metrics thread"
	cpus=$(awk '/Cpus_allowed_list/ {print $2}' "${t%/comm}/status")
	$PY -c 'import sys
out = set()
for part in sys.argv[1].split(","):
    a, _, b = part.partition("-")
    out |= set(range(int(a), int(b or a) + 1))
sys.exit(1 in out)' "$cpus" || fail "the metrics thread may run on the worker's CPU 1 ($cpus)"
	echo "metrics: DPDK -l 1: lp-metrics thread on CPUs $cpus"
	lp_stop_bg "$DPID"
else
	echo "metrics: no hugepages or one CPU: the DPDK thread check is not run"
fi
echo "metrics: ok"
