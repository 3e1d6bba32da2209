#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Stall detection and attribution end to end, kernel backend on
# both sides of the testbed, then the DPDK backend over net_memif:
#   0. a run without a hog: the baseline;
#   1. a hog on the prober: SIGSTOP/SIGCONT of its process in N bursts of
#      LEN ms (tests/integration/stall_hog.py): the prober finds at least
#      90 % of them (longer than LEN/2) and no more than 110 % of N in their
#      histogram bucket (the loaded machine adds stalls of its own), every
#      probe of the hog's tail (above LEN/2) is host-affected (prober), the
#      unaffected series has no such probe;
#   2. the same on the reflector, the prober asking with --stall-tlv: the
#      reflector counts them, the prober marks the answers it delayed
#      host-affected (reflector);
#   3. a stock STAMP peer (scapy's layers, tests/integration/stamp_peer.py):
#      without --stall-tlv its requests carry no TLV; with it, scapy decodes
#      the TLV's bytes as latprobe lays them out, and the run does not break
#      (the reflector's side then reads "not known");
#   4. 1. again on the DPDK backend (net_memif, one lcore each side).
# Only counts are asserted (accounting); the figures are printed.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
ip -n "$LP_NS_REFL" addr add "$LP_ADDR_REFL" dev "$LP_IF_REFL"
N=30
LEN_MS=150
GAP_MS=150
HOG=(/usr/bin/python3 "$LP_TOP/tests/integration/stall_hog.py")

kprobe_bg() { # NAME OPTIONS...: kernel prober in the background, PID in PROBE_PID
	local name=$1
	shift
	LP_BG_LOG=$WORK/$name.txt lp_bg_ns "$LP_NS_PROBE" "$LATPROBE" probe --backend kernel \
		-q --timeout 2s --json "$WORK/$name.json" "$@"
	PROBE_PID=$LP_LAST_PID
}
wait_probe() { # NAME
	local rc=0
	wait "$PROBE_PID" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/$1.txt" >&2; fail "$1: probe exited $rc"; }
}
# check NAME SIDE: the JSON of NAME against the hog on SIDE (prober/reflector).
check() {
	$PY - "$WORK/$1.json" "$2" "$N" "$LEN_MS" "${3:-}" <<'EOF' || fail "$1: stall accounting"
import json, sys
r = json.load(open(sys.argv[1]))
side, n, len_ms = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
refl_json = sys.argv[5]
half = len_ms / 2 * 1e6
st = r['stalls']
def long_ones(s):
    return sum(b['count'] for b in s.get('histogram', [])
               if b['upper_ns'] is None or b['upper_ns'] > half)
# The bucket the injected ones fall in (LEN plus the signals' delays): the
# machine's own stalls that long are rarer than those above LEN/2.
def band(s):
    return sum(b['count'] for b in s.get('histogram', [])
               if b['upper_ns'] is not None and
               b['upper_ns'] // 2 < len_ms * 1e6 <= b['upper_ns'])
def within(side_stalls, what):
    got, inb = long_ones(side_stalls), band(side_stalls)
    print(f"  {what}: {got} stalls longer than {half/1e6:.0f} ms, {inb} in "
          f"the injected ones' bucket, {n} injected")
    # Every injected stall found; no more than 10 % over in its bucket.
    assert got >= 0.9 * n, f'{got} long stalls for {n} injected'
    assert inb <= 1.1 * n, f'{inb} stalls in the bucket for {n} injected'
u, rtt = r['rtt_ns_unaffected'], r['rtt_ns']
ha = st['host_affected']
print(f"  {sys.argv[1].split('/')[-1]}: prober stalls {st['prober']['count']}"
      f" (longer than {half/1e6:.0f} ms: {long_ones(st['prober'])}),"
      f" host-affected prober {ha['prober']} reflector {ha['reflector']}"
      f" both {ha['both']}, rtt p50 {rtt['p50']} max {rtt['max']},"
      f" unaffected p50 {u['p50']} p99.9 {u['p99_9']} max {u['max']}"
      f" count {u['count']} of {rtt['count']}")
print(f"  verdict: {st['verdict']}" if st['verdict'] is not None
      else f"  no verdict: {st['no_verdict']}")
assert u['count'] + ha['probes'] == rtt['count'], 'probes lost in the split'
# The hog made a tail, and every probe of it is host-affected.
assert rtt['max'] > half, 'the hog left no tail'
assert u['max'] < half, 'an unaffected probe is as slow as the hog'
# The hog's probes are the far tail (the machine's own stalls fill the
# p99.9 one too on a busy day).
t = st['tail']['p99_99']
print(f"  p99.99 tail: {t['above']} probes: this host {t['prober']}, the "
      f"reflector's {t['reflector']}, both {t['both']}")
if side == 'prober':
    within(st['prober'], 'prober')
    # Each injected stall held the probe in flight (closed loop): charged
    # to this side. (Which side the machine's own stalls hit more is
    # the load's choice: not asserted.)
    assert ha['prober'] + ha['both'] >= 0.9 * n, \
        f"{ha['prober'] + ha['both']} charged to this host for {n} injected"
else:
    rr = json.load(open(refl_json))
    within(rr['stalls']['reflector'], 'reflector')
    # Each injected stall held the one probe in flight (the prober runs
    # meanwhile): its 150 ms against the prober's microseconds.
    assert ha['reflector'] >= 0.9 * n, f"{ha['reflector']} charged to the reflector"
    assert st['reflector']['known'], 'the stall TLV told nothing'
    assert ha['reflector'] + ha['both'] > 0
EOF
}

R=${LP_ADDR_REFL%/*}
# start_reflector waits for its start line in $WORK/refl.log, which the
# background child truncates only when it starts: empty it first, or the
# last reflector's line is taken for the new one's.
refl_log_reset() { : >"$WORK/refl.log"; }
refl_log_reset; start_reflector "$LP_NS_REFL" --backend kernel --addr "$R" --json "$WORK/refl0.json" -q

# 0. Baseline.
kprobe_bg base -t 3 --stall-tlv "$R"
wait_probe base
$PY -c 'import json,sys; r=json.load(open(sys.argv[1])); u=r["rtt_ns_unaffected"]; \
print("  base: rtt p50 %s p99 %s; unaffected p50 %s p99 %s; %s" % (r["rtt_ns"]["p50"], \
r["rtt_ns"]["p99"], u["p50"], u["p99"], r["stalls"]["verdict"] or r["stalls"]["no_verdict"]))' "$WORK/base.json"

# 1. The hog on the prober.
kprobe_bg hogp -t $(((N * (LEN_MS + GAP_MS)) / 1000 + 3)) --stall-tlv "$R"
sleep 1
"${HOG[@]}" "$PROBE_PID" "$LEN_MS" "$GAP_MS" "$N" >"$WORK/hogp.log" ||
	{ cat "$WORK/hogp.log" >&2; fail "hog on the prober"; }
wait_probe hogp
tail -1 "$WORK/hogp.log"
check hogp prober
stop_reflector
[ "$REFL_RC" -eq 0 ] || fail "reflector exited $REFL_RC"

# 2. The hog on the reflector (a fresh one: its report counts this part).
refl_log_reset; start_reflector "$LP_NS_REFL" --backend kernel --addr "$R" --json "$WORK/refl.json" -q
kprobe_bg hogr -t $(((N * (LEN_MS + GAP_MS)) / 1000 + 3)) --stall-tlv "$R"
sleep 1
"${HOG[@]}" "$REFL_PID" "$LEN_MS" "$GAP_MS" "$N" >"$WORK/hogr.log" ||
	{ cat "$WORK/hogr.log" >&2; fail "hog on the reflector"; }
wait_probe hogr
stop_reflector
[ "$REFL_RC" -eq 0 ] || fail "reflector exited $REFL_RC"
tail -1 "$WORK/hogr.log"
check hogr reflector "$WORK/refl.json"

# 2b. What latprobe's reflector writes into the TLV, read by scapy's
# reflector layer: a request with the TLV sent from a plain UDP socket.
refl_log_reset; start_reflector "$LP_NS_REFL" --backend kernel --addr "$R" -q
if /usr/bin/python3 -c 'import scapy.contrib.stamp' 2>/dev/null; then
	ip netns exec "$LP_NS_PROBE" /usr/bin/python3 - "$R" <<'EOF' || fail "the reflector's stall TLV, read by scapy"
import socket, struct, sys
from scapy.layers.inet import UDP
from scapy.contrib.stamp import STAMPSessionReflectorTestUnauthenticated as Rf
req = struct.pack('!IQHH', 7, 0, 1, 1) + bytes(28) + bytes([0, 242, 0, 16]) + bytes(16)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.bind(('0.0.0.0', 40123))
s.sendto(req, (sys.argv[1], 862))
ans = s.recv(2048)
assert len(ans) == len(req), f'{len(ans)}-byte answer'
p = Rf(ans, _parent=UDP(len=8 + len(ans)))
t = p.tlv_objects[0]
v = bytes(t.value)
assert (int(t.flags), t.type, t.len) == (0, 242, 16), (t.flags, t.type, t.len)
assert v[1] == 1 and v[2:4] == bytes([0, 1]), v.hex()
print(f'  reflector TLV (scapy): flags {v[0]:#04x} filled {v[1]} longest '
      f'{int.from_bytes(v[4:8], "big")} ns, count '
      f'{int.from_bytes(v[8:12], "big")}, total {int.from_bytes(v[12:16], "big")} us')
EOF
fi
stop_reflector

# 3. A stock STAMP peer: no TLV unless asked; asked, scapy reads ours.
PEER=(/usr/bin/python3 "$LP_TOP/tests/integration/stamp_peer.py")
if /usr/bin/python3 -c 'import scapy.contrib.stamp' 2>/dev/null; then
	for ask in no yes; do
		LP_BG_LOG=$WORK/peer-$ask.log lp_bg_ns "$LP_NS_REFL" "${PEER[@]}" reflect \
			--bind "$R" --mode stateless --timeout 30
		pid=$LP_LAST_PID
		lp_wait_for "$WORK/peer-$ask.log" '^stamp_peer reflect:' 10 || fail "stamp_peer reflect"
		opt=()
		[ $ask = yes ] && opt=(--stall-tlv)
		kprobe_bg "peer-$ask" -n 200 "${opt[@]}" "$R"
		wait_probe "peer-$ask"
		lp_stop_bg "$pid"
		[ "$(json_get "$WORK/peer-$ask.json" probes/received)" -eq 200 ] ||
			fail "stock peer ($ask): not every probe answered"
		req=$(sed -n 's/^request *\([0-9]*\) B: \([0-9a-f]*\)$/\1 \2/p' "$WORK/peer-$ask.log" | head -1)
		[ -n "$req" ] || { cat "$WORK/peer-$ask.log" >&2; fail "stamp_peer logged no request"; }
		[ "$(json_get "$WORK/peer-$ask.json" stalls/reflector/known)" = False ] ||
			fail "stock peer ($ask): the reflector's stalls claimed known"
		/usr/bin/python3 - $ask $req <<'EOF' || fail "stock peer ($ask): TLV bytes"
import sys
from scapy.layers.inet import UDP
from scapy.contrib.stamp import STAMPSessionSenderTestUnauthenticated as S
ask, n, hexs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
b = bytes.fromhex(hexs)
if ask == 'no':
    assert n == 44 and len(b) == 44, f'{n}-byte request without --stall-tlv'
    print('  stock peer: 44-byte requests, no TLV')
    sys.exit(0)
assert n == 64, f'{n}-byte request with --stall-tlv'
# (scapy 2.5 sizes the TLV list from the UDP header above it)
p = S(b, _parent=UDP(len=8 + len(b)))
tlvs = p.tlv_objects
assert tlvs, 'scapy sees no TLV: ' + p.show(dump=True)
t = tlvs[0]
f = {'flags': int(t.flags), 'type': t.type, 'len': t.len}
assert f == {'flags': 0, 'type': 242, 'len': 16}, f'scapy read {f}'
v = bytes(t.value)
assert v == bytes(16), f'value not zero in the request: {v.hex()}'
print(f'  stock peer: scapy reads TLV flags 0 type 242 len 16, value zero')
EOF
	done
else
	echo "$LP_PROG: (no python3-scapy: the stock-peer part skipped)"
fi
# 4. The DPDK backend (net_memif, one lcore each): the hog on the prober.
sock=$LP_RUN_DIR/${LP_NS_PREFIX}stall-memif.sock
lp_cleanup_push "rm -f '$sock'"
refl_log_reset; start_reflector - -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" -- \
	--addr "$LP_ADDR_REFL" -q
LP_BG_LOG=$WORK/hogd.txt lp_bg_ns - "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "net_memif0,role=client,socket=$sock,socket-abstract=no" -- \
	--addr "$LP_ADDR_PROBE" -q --timeout 2s --stall-tlv \
	-t $(((N * (LEN_MS + GAP_MS)) / 1000 + 4)) --json "$WORK/hogd.json" "$R"
PROBE_PID=$LP_LAST_PID
lp_wait_for "$WORK/hogd.txt" '^latprobe probe: [0-9].* -> ' 30 ||
	{ cat "$WORK/hogd.txt" >&2; fail "DPDK prober did not start"; }
sleep 1
"${HOG[@]}" "$PROBE_PID" "$LEN_MS" "$GAP_MS" "$N" >"$WORK/hogd.log" ||
	{ cat "$WORK/hogd.log" >&2; fail "hog on the DPDK prober"; }
wait_probe hogd
stop_reflector
tail -1 "$WORK/hogd.log"
check hogd prober
echo "$LP_PROG: ok"
