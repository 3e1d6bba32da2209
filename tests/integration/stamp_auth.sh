#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# STAMP authenticated mode (RFC 8762 §4.4, --auth-key) over af_xdp on a veth
# pair: a keyed reflector answers a prober with the same key (every answer's
# HMAC checked again here by Python from the prober's pcap), answers nothing
# to a wrong key or to an unauthenticated prober (dropped.auth), and a keyed
# prober facing a reflector without the key counts every answer in
# probes.auth_failed and records none. Also --loopback over net_ring.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed

vdev() { echo "net_af_xdp0,iface=$1"; }
openssl rand -hex 32 >"$WORK/good.key"
openssl rand -hex 20 >"$WORK/wrong.key"
chmod 600 "$WORK/good.key" "$WORK/wrong.key"
printf '%s\n' 'not hex' >"$WORK/bad.key"

# probe EXPECTED_RC NAME OPTS... : one prober run in its namespace.
probe() {
	local want=$1 name=$2 rc=0
	shift 2
	ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
		--vdev "$(vdev "$LP_IF_PROBE")" -- --addr "$LP_ADDR_PROBE" -q \
		--json "$WORK/$name.json" "$@" "${LP_ADDR_REFL%/*}" \
		>"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq "$want" ] || {
		cat "$WORK/$name.txt" "$WORK/$name.err" >&2
		fail "$name: probe exited $rc, expected $want"
	}
}

# A key file that is not a key: one line, exit 2, before EAL starts.
rc=0
"$LATPROBE" reflect --backend kernel --addr 198.18.0.2 --auth-key "$WORK/bad.key" \
	2>"$WORK/bad.err" || rc=$?
if [ "$rc" -ne 2 ] || [ "$(wc -l <"$WORK/bad.err")" -ne 1 ]; then
	cat "$WORK/bad.err" >&2
	fail "bad key file: exit $rc"
fi

# A key file that group or others may read: taken, with one warning line
# that says how to fix it (as ssh does); none at mode 0600. -t bogus ends
# the run in the option parser, after the key.
loose() {
	rc=0
	"$LATPROBE" reflect --backend kernel --addr 198.18.0.2 --auth-key "$1" \
		-t bogus 2>"$WORK/loose.err" || rc=$?
	[ "$rc" -eq 2 ] || { cat "$WORK/loose.err" >&2; fail "-t bogus after a key: exit $rc"; }
}
cp "$WORK/good.key" "$WORK/loose.key"
chmod 644 "$WORK/loose.key"
loose "$WORK/loose.key"
[ "$(grep -c '^latprobe: warning: --auth-key .*loose.key: mode 0644, open to group or others: chmod 600 ' "$WORK/loose.err")" -eq 1 ] ||
	{ cat "$WORK/loose.err" >&2; fail "no warning for a key file of mode 0644"; }
chmod 600 "$WORK/loose.key"
loose "$WORK/loose.key"
! grep -q 'warning' "$WORK/loose.err" || { cat "$WORK/loose.err" >&2; fail "a warning for a key file of mode 0600"; }

# --loopback: the in-process reflector gets the key too (net_ring).
"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
	--loopback --auth-key "$WORK/good.key" -n 2000 -q --json "$WORK/ring.json" \
	198.18.0.2 >"$WORK/ring.txt" 2>"$WORK/ring.err" ||
	{ cat "$WORK/ring.err" >&2; fail "ring --loopback: exit $?"; }
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/ring.json" \
	--sent 2000 --no-loss --remote-ts --proto stamp || fail "ring --loopback report"

start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --auth-key "$WORK/good.key" --json "$WORK/refl.json" -q

n=2000
probe 0 good -n $n -w 20 --auth-key "$WORK/good.key" --pcap "$WORK/good.pcapng"
cat "$WORK/good.txt"
grep -q "Authenticated (HMAC-SHA-256): 0 answers failed verification" "$WORK/good.txt" ||
	fail "text report lacks the authentication line"
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/good.json" \
	--sent $n --no-loss --remote-ts --proto stamp || fail "report checks"
[ "$(json_get "$WORK/good.json" probes/auth_failed)" -eq 0 ] || fail "auth_failed with the right key"
[ "$(json_get "$WORK/good.json" authenticated)" = True ] || fail "JSON does not say authenticated"
[ "$(json_get "$WORK/good.json" size)" -eq 112 ] || fail "authenticated probes are not 112 bytes by default"
if grep -q "$(cat "$WORK/good.key")" "$WORK/good.txt" "$WORK/good.json" "$WORK/good.err"; then
	fail "the key shows in the report"
fi

# Every probe and answer on the wire, HMAC checked by Python (hmac, hashlib)
# over the RFC 8762 layout: first 96 bytes covered, 16-byte HMAC after.
if ! /usr/bin/python3 -c 'import scapy' 2>/dev/null; then
	echo "$LP_PROG: wire HMAC check skipped (needs Debian's python3-scapy)"
else
/usr/bin/python3 - "$WORK/good.pcapng" "$WORK/good.key" $((2 * (n + 20))) <<'PYEOF' || fail "wire HMAC check"
import hashlib, hmac, struct, sys
from scapy.all import UDP, rdpcap
pkts, key, want = rdpcap(sys.argv[1]), bytes.fromhex(open(sys.argv[2]).read().strip()), int(sys.argv[3])
n = 0
for p in pkts:
    if UDP not in p or 862 not in (p[UDP].sport, p[UDP].dport):
        continue
    b = bytes(p[UDP].payload)
    assert len(b) == 112, len(b)
    mac = hmac.new(key, b[:96], hashlib.sha256).digest()[:16]
    assert hmac.compare_digest(mac, b[96:112]), f"bad HMAC in packet {n}"
    if p[UDP].sport == 862:  # answer: T3 >= T2, sender seq echoed (Figure 6)
        t3, t2 = struct.unpack_from(">Q", b, 16)[0], struct.unpack_from(">Q", b, 32)[0]
        assert t3 >= t2, "T3 before T2"
    n += 1
assert n == want, f"{n} STAMP packets in the pcap, expected {want}"
print(f"wire: {n} authenticated STAMP packets, every HMAC verified")
PYEOF
fi

m=200
probe 5 wrong -n $m -w 0 --timeout 5ms --auth-key "$WORK/wrong.key"
[ "$(json_get "$WORK/wrong.json" probes/received)" -eq 0 ] || fail "answers to a wrong key"
[ "$(json_get "$WORK/wrong.json" probes/lost)" -eq $m ] || fail "wrong key: not all lost"
probe 5 plain -n $m -w 0 --timeout 5ms
[ "$(json_get "$WORK/plain.json" probes/received)" -eq 0 ] || fail "answers to an unauthenticated prober"

stop_reflector
[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "reflector exited $REFL_RC"; }
[ "$(json_get "$WORK/refl.json" counters/answered.stamp)" -eq $((n + 20)) ] ||
	{ cat "$WORK/refl.json" >&2; fail "reflector did not answer every authenticated probe"; }
[ "$(json_get "$WORK/refl.json" counters/dropped.auth)" -eq $((2 * m)) ] ||
	{ cat "$WORK/refl.json" >&2; fail "dropped.auth is not $((2 * m))"; }
grep -q '^latprobe reflect: .* (authenticated)$' "$WORK/refl.log" ||
	fail "the reflector's start line does not say authenticated"
if grep -q "$(cat "$WORK/good.key")" "$WORK/refl.log" "$WORK/refl.json"; then
	fail "the key shows in the reflector's output"
fi

# A reflector without the key: its answers do not verify. Each probe waits
# for its timeout (a failed answer is no answer): a long one, so that even
# on a busy machine the last answer comes before the prober leaves.
start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" \
	-- --addr "$LP_ADDR_REFL" --json "$WORK/refl2.json" -q
k=30
probe 5 nokey -n $k -w 0 --timeout 100ms --auth-key "$WORK/good.key"
stop_reflector
[ "$(json_get "$WORK/refl2.json" counters/answered.stamp)" -eq $k ] || fail "plain reflector did not answer"
af=$(json_get "$WORK/nokey.json" probes/auth_failed)
[ "$af" -eq $k ] || fail "auth_failed is $af, not $k"
[ "$(json_get "$WORK/nokey.json" probes/received)" -eq 0 ] || fail "unverified answers recorded"
echo "$LP_PROG: ok"
