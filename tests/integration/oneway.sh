#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One-way delays between two namespaces of one host over af_xdp:
# both sides read one system clock, so with --same-clock the bound is the
# two TSC -> UTC mappings' errors.
#  1. every answer: forward + reverse == network RTT (within the bound and
#     the timestamps' rounding), both > 0; one_way.valid on this quiet path
#     or, when not, for the bound alone (said, not failed: a loaded
#     machine's mapping error may exceed a few-us delay);
#  2. without --same-clock on a host whose clock is not synchronised
#     (adjtimex STA_UNSYNC, as here): valid false, local_unsynchronised and
#     reflector_unsynchronised (the reflector's S bit clear), text says why;
#  3. the reflector's clock off by a known offset (the test hook
#     LATPROBE_TEST_CLOCK_OFFSET_NS): +/-40 us unaccounted makes one
#     direction negative: refused, clocks_disagree_ns >= the offset minus
#     the true one-way delay; the same offset with the reflector claiming a
#     sync error that covers it (LATPROBE_TEST_CLOCK_SYNC_NS): the bound
#     covers the offset; never a confident direction other than the one
#     the run without the offset names;
#  4. both sides synchronised by a chrony the test plays
#     (LATPROBE_TEST_CHRONYC): S set, chrony's bound in the bound, valid
#     without --same-clock.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed

vdev() { echo "net_af_xdp0,iface=$1"; }
N=${LP_ONEWAY_N:-2000}
PROBE_ENV=() # the prober's environment (test hooks)

# run NAME REFL_ENV... -- PROBE_OPTS...: a reflector with the environment
# given, one probe run, the reflector stopped.
run() {
	local name=$1 envs=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	LP_BG_LOG=$WORK/refl-$name.log lp_bg_ns "$LP_NS_REFL" env "${envs[@]}" "$LATPROBE" reflect -l 0 \
		"${EAL_COMMON[@]}" --vdev "$(vdev "$LP_IF_REFL")" -- --addr "$LP_ADDR_REFL" -q \
		--json "$WORK/refl-$name.json"
	REFL_PID=$LP_LAST_PID
	lp_wait_for "$WORK/refl-$name.log" '^latprobe reflect: ' 20 ||
		{ cat "$WORK/refl-$name.log" >&2; fail "reflector did not start"; }
	local rc=0
	ip netns exec "$LP_NS_PROBE" env "${PROBE_ENV[@]}" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
		--vdev "$(vdev "$LP_IF_PROBE")" -- --addr "$LP_ADDR_PROBE" -n "$N" -w 50 -i 1ms -q --details \
		--json "$WORK/$name.json" --samples "$WORK/$name.csv" --pcap "$WORK/$name.pcapng" "$@" "$refl_ip" \
		>"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	stop_reflector
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: probe exited $rc"; }
	grep -q 'STAMP clock' "$WORK/refl-$name.log" || { cat "$WORK/refl-$name.log" >&2; fail "$name: reflector did not say its clock"; }
}

run same -- --same-clock
sed -n '/^Network RTT/,/^TSC/p' "$WORK/same.txt"
$PY "$LP_TOP/tests/integration/check_oneway.py" --json "$WORK/same.json" \
	--samples "$WORK/same.csv" --sent "$N" --same-clock || fail "same-clock checks"
# The reflector's Error Estimate on the wire, read by tshark and scapy:
# S as this host's clock is (clear where adjtimex says STA_UNSYNC), its
# measured mapping error (under 100 us here), what the prober read.
host_synced=1
$PY -c 'import ctypes,sys
class T(ctypes.Structure): _fields_=[("modes",ctypes.c_uint),("pad",ctypes.c_long*40)]
t=T(); r=ctypes.CDLL(None).adjtimex(ctypes.byref(t)); sys.exit(0 if r==5 else 1)' && host_synced=0
if lp_have tshark && /usr/bin/python3 -c 'import scapy.contrib.stamp' 2>/dev/null; then
	/usr/bin/python3 "$LP_TOP/tests/integration/check_ee.py" --pcap "$WORK/same.pcapng" \
		--json "$WORK/same.json" --s "$host_synced" --min-ns 1 --max-ns 100000 ||
		fail "Error Estimate on the wire"
	HAVE_EE_DECODERS=1
else
	echo "$LP_PROG: no tshark or scapy: the wire's Error Estimate not checked"
	HAVE_EE_DECODERS=0
fi

# 2. Not --same-clock: this host's clock as it is. Where it is not
# synchronised (adjtimex STA_UNSYNC), both sides say so and are refused.
run plain --
sed -n '/^One-way/,/Fix:/p' "$WORK/plain.txt"
if [ "$host_synced" -eq 0 ]; then
	$PY "$LP_TOP/tests/integration/check_oneway.py" --json "$WORK/plain.json" \
		--samples "$WORK/plain.csv" --sent "$N" --expect invalid \
		--reason local_unsynchronised --reason reflector_unsynchronised || fail "unsynchronised checks"
	grep -q 'not synchronised' "$WORK/plain.txt" || fail "the text does not say the clock is not synchronised"
	grep -q 'ptp_hyperv' "$WORK/plain.txt" || fail "the text does not give the fix"
else
	echo "$LP_PROG: this host's clock is synchronised: the unsynchronised case not checked"
fi

# 3. The reflector's clock off by a known offset (test hook). Unaccounted
# (its S bit is clear: it knows nothing of UTC): refused, and the
# direction the offset pushes below zero is evidence of the disagreement.
for off in 40000 -40000; do
	run "off$off" LATPROBE_TEST_CLOCK_OFFSET_NS=$off -- --same-clock
	sed -n '/^Forward/,/Fix:/p' "$WORK/off$off.txt"
	$PY "$LP_TOP/tests/integration/check_oneway.py" --json "$WORK/off$off.json" \
		--samples "$WORK/off$off.csv" --sent "$N" --same-clock --offset-ns $off \
		--expect invalid --reason negative_delay --true-json "$WORK/same.json" ||
		fail "offset $off checks"
	grep -q 'clocks disagree by at least' "$WORK/off$off.txt" || fail "offset $off: the text does not say the clocks disagree"
done
# Accounted: the reflector takes itself as synchronised with a 50 us sync
# error (a time source the test controls), the prober with 1 us: the bound
# covers the 40 us offset.
PROBE_ENV=(LATPROBE_TEST_CLOCK_SYNC_NS=1000)
run covered LATPROBE_TEST_CLOCK_OFFSET_NS=40000 LATPROBE_TEST_CLOCK_SYNC_NS=50000 --
PROBE_ENV=()
sed -n '/^Forward/,/Fix:/p' "$WORK/covered.txt"
$PY "$LP_TOP/tests/integration/check_oneway.py" --json "$WORK/covered.json" \
	--samples "$WORK/covered.csv" --sent "$N" --offset-ns 40000 --covered \
	--expect invalid --true-json "$WORK/same.json" || fail "covered offset checks"
# The reflector's own report says where its T2/T3 came from.
[ "$(json_get "$WORK/refl-covered.json" clock/synchronised)" = True ] &&
	[ "$(json_get "$WORK/refl-covered.json" clock/source)" = test ] &&
	[ "$(json_get "$WORK/refl-covered.json" clock/sync_error_ns)" = 50000 ] &&
	[ "$(json_get "$WORK/refl-covered.json" clock/resamples)" -gt 0 ] ||
	fail "the reflector's JSON clock does not say the hook's synchronisation"
[ "$(json_get "$WORK/refl-same.json" clock/synchronised)" = "$([ "$host_synced" -eq 1 ] && echo True || echo False)" ] ||
	fail "the reflector's JSON clock: synchronised is not this host's"
# Its Error Estimate now says S (synchronised, by the hook) and holds the
# 50 us sync error: measured, not a constant.
if [ "$HAVE_EE_DECODERS" -eq 1 ]; then
	/usr/bin/python3 "$LP_TOP/tests/integration/check_ee.py" --pcap "$WORK/covered.pcapng" \
		--json "$WORK/covered.json" --s 1 --min-ns 50000 --max-ns 60000 ||
		fail "Error Estimate on the wire (synchronised)"
fi

# 4. Both sides synchronised by chrony (a chronyc the test plays, test hook
# LATPROBE_TEST_CHRONYC: PHC0, stratum 1, a 151 ns bound), no --same-clock:
# the S bit set on the wire, chrony named as the source, the bound the two
# chrony bounds plus the two mappings, and the split valid (or refused for
# the bound alone on a loaded machine).
cat >"$WORK/chronyc" <<'CHR'
#!/bin/sh
echo '50484330,PHC0,1,1764633590.500000000,-0.000000050,0.000000030,0.000000100,1.234,-0.000,0.010,0.000000002,0.000000100,8.0,Normal'
CHR
chmod +x "$WORK/chronyc"
PROBE_ENV=(LATPROBE_TEST_CHRONYC="$WORK/chronyc")
run chrony LATPROBE_TEST_CHRONYC="$WORK/chronyc" --
PROBE_ENV=()
sed -n '/^Forward/,/^One-way:/p' "$WORK/chrony.txt"
$PY "$LP_TOP/tests/integration/check_oneway.py" --json "$WORK/chrony.json" \
	--samples "$WORK/chrony.csv" --sent "$N" || fail "chrony checks"
[ "$(json_get "$WORK/chrony.json" one_way/local/source)" = chrony ] &&
	[ "$(json_get "$WORK/chrony.json" one_way/local/chrony/phc)" = True ] &&
	[ "$(json_get "$WORK/chrony.json" one_way/local/sync_error_ns)" = 151 ] &&
	[ "$(json_get "$WORK/chrony.json" one_way/reflector/s_clear)" = 0 ] &&
	[ "$(json_get "$WORK/refl-chrony.json" clock/source)" = chrony ] ||
	fail "chrony: not taken as the source on both sides"
if [ "$HAVE_EE_DECODERS" -eq 1 ]; then
	/usr/bin/python3 "$LP_TOP/tests/integration/check_ee.py" --pcap "$WORK/chrony.pcapng" \
		--json "$WORK/chrony.json" --s 1 --min-ns 151 --max-ns 100000 ||
		fail "Error Estimate on the wire (chrony)"
fi

# 5. A time source that is synchronised but states no error (the test
# hook with 0, as systemd-timesyncd leaves adjtimex's esterror): not a zero
# error; the bound unknown, the figures refused, the text says why.
PROBE_ENV=(LATPROBE_TEST_CLOCK_SYNC_NS=0)
run zeroerr LATPROBE_TEST_CLOCK_SYNC_NS=50000 --
PROBE_ENV=()
sed -n '/^One-way bound/,/Fix:/p' "$WORK/zeroerr.txt"
$PY "$LP_TOP/tests/integration/check_oneway.py" --json "$WORK/zeroerr.json" \
	--samples "$WORK/zeroerr.csv" --sent "$N" --expect invalid \
	--reason local_error_unknown || fail "zero-error source checks"
[ "$(json_get "$WORK/zeroerr.json" one_way/bound_reason)" = local_error_unknown ] ||
	fail "zero-error source: bound_reason is not local_error_unknown"
grep -q 'One-way bound: unknown (this host.s time source gives no error figure)' "$WORK/zeroerr.txt" ||
	fail "zero-error source: the text does not say the bound is unknown"

echo "$LP_PROG: ok"
