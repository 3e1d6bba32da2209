#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One direction made slower on purpose: prober and reflector on
# af_xdp in namespaces of their own, joined through a third namespace where
# a user-space delay line (delay_line.py: AF_PACKET, this kernel has no
# netem; af_xdp transmits would bypass a qdisc anyway) forwards frames,
# adding D to one direction only. One host, one clock (--same-clock).
# Three runs: no delay (the baseline of the line itself), D forward, D
# reverse. Each time the slow direction's fastest trip carries D (within the two
# runs' bounds and a tenth of D: the minimum, which a loaded machine's
# jitter hardly moves; medians moved by milliseconds in one run), the
# other's does not move by more than that, the report is valid, never
# names the wrong direction and names the right one when its medians show
# it, and no one-way delay is <= 0.
. "$(dirname "$0")/lib.sh"
need_env
lp_have python3 || lp_skip "needs python3 (the delay line)"
lp_trap_cleanup
cleanup_work

P=${LP_NS_PREFIX}owp M=${LP_NS_PREFIX}owm R=${LP_NS_PREFIX}owr
IFP=${LP_NS_PREFIX}owp0 IFM0=${LP_NS_PREFIX}owm0 IFM1=${LP_NS_PREFIX}owm1 IFR=${LP_NS_PREFIX}owr0
D_US=${LP_ONEWAY_D_US:-3000}
N=${LP_ONEWAY_N:-400}
for ns in "$P" "$M" "$R"; do
	lp_cleanup_push "ip netns del '$ns' 2>/dev/null || true"
	ip netns del "$ns" 2>/dev/null || true
	ip netns add "$ns"
	ip -n "$ns" link set dev lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add "$IFP" netns "$P" type veth peer name "$IFM0" netns "$M"
ip link add "$IFM1" netns "$M" type veth peer name "$IFR" netns "$R"
for x in "$P:$IFP" "$M:$IFM0" "$M:$IFM1" "$R:$IFR"; do
	ip netns exec "${x%%:*}" ethtool -K "${x#*:}" tx off tso off gso off gro off >/dev/null 2>&1 || true
	ip -n "${x%%:*}" link set dev "${x#*:}" up
done

# run NAME FWD_US REV_US: the delay line, a reflector, one probe run.
run() {
	local name=$1 fwd=$2 rev=$3 line_pid refl_pid rc=0
	LP_BG_LOG=$WORK/line-$name.log lp_bg_ns "$M" python3 "$LP_TOP/tests/integration/delay_line.py" \
		"$IFM0" "$IFM1" "$fwd" "$rev" 120
	line_pid=$LP_LAST_PID
	lp_wait_for "$WORK/line-$name.log" '^delay line: up' 20 || { cat "$WORK/line-$name.log" >&2; fail "delay line did not start"; }
	LP_BG_LOG=$WORK/refl-$name.log lp_bg_ns "$R" "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" \
		--vdev "net_af_xdp0,iface=$IFR" -- --addr "$LP_ADDR_REFL" -q
	refl_pid=$LP_LAST_PID
	lp_wait_for "$WORK/refl-$name.log" '^latprobe reflect: ' 20 || { cat "$WORK/refl-$name.log" >&2; fail "reflector did not start"; }
	ip netns exec "$P" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$IFP" -- \
		--addr "$LP_ADDR_PROBE" -n "$N" -w 20 -i 5ms --timeout 1s --same-clock -q \
		--json "$WORK/$name.json" "${LP_ADDR_REFL%/*}" >"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	kill -INT "$refl_pid" 2>/dev/null || true
	kill -TERM "$line_pid" 2>/dev/null || true
	wait "$refl_pid" 2>/dev/null || true
	wait "$line_pid" 2>/dev/null || true
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: probe exited $rc"; }
	echo "== $name: forward +${fwd}us, reverse +${rev}us"
	sed -n '/^Network RTT/,/^One-way:/p;/not meaningful/,/Fix:/p' "$WORK/$name.txt"
}

run base 0 0
run fwd "$D_US" 0
run rev 0 "$D_US"

$PY - "$WORK" "$D_US" <<'PYEOF' || fail "one-way checks"
import json, sys
w, d = sys.argv[1], int(sys.argv[2]) * 1000
rep = {n: json.load(open("%s/%s.json" % (w, n))) for n in ("base", "fwd", "rev")}
err = []
def p50(n, k): return rep[n][k]["p50"]
for n in ("base", "fwd", "rev"):
    ow = rep[n]["one_way"]
    if ow["forward_nonpositive"] or ow["reverse_nonpositive"]:
        err.append("%s: %d/%d one-way delays <= 0 on one host's clock" % (n, ow["forward_nonpositive"], ow["reverse_nonpositive"]))
    if rep[n]["probes"]["received"] < 0.9 * rep[n]["probes"]["sent"]:
        err.append("%s: only %d of %d answered" % (n, rep[n]["probes"]["received"], rep[n]["probes"]["sent"]))
for n, slow, fast in (("fwd", "forward_ns", "reverse_ns"), ("rev", "reverse_ns", "forward_ns")):
    ow = rep[n]["one_way"]
    b = ow["bound_ns"] + rep["base"]["one_way"]["bound_ns"]
    # The minimum: the fastest trip of each direction, which the line's
    # fixed delay moves by exactly D and a loaded machine's jitter (a
    # Python delay line on 2 shared vCPUs: medians moved by milliseconds
    # in one run) hardly at all. A tenth of D is the tolerance.
    tol = b + d // 10
    added = rep[n][slow]["min"] - rep["base"][slow]["min"]
    other = rep[n][fast]["min"] - rep["base"][fast]["min"]
    print("%s: %s min +%.1f us over the baseline (D %.1f us), %s min %+.1f us; p50 %s %.1f us, %s %.1f us;"
          " bounds +-%d ns, tolerance %.1f us"
          % (n, slow, added / 1e3, d / 1e3, fast, other / 1e3, slow, p50(n, slow) / 1e3,
             fast, p50(n, fast) / 1e3, ow["bound_ns"], tol / 1e3))
    if abs(added - d) > tol:
        err.append("%s: the slow direction's fastest trip carries %d ns, not %d +- %d" % (n, added, d, tol))
    if abs(other) > tol:
        err.append("%s: the other direction's fastest trip moved by %d ns (> %d)" % (n, other, tol))
    if not ow["valid"]:
        err.append("%s: refused (%s)" % (n, ow["reasons"]))
txt = {n: open("%s/%s.txt" % (w, n)).read() for n in ("fwd", "rev")}
# The text names a direction from the medians: never the wrong one; the
# right one whenever the medians say so (a loaded machine's queueing can
# make the other direction's median as slow).
for n, right, wrong, slow, fast in (("fwd", "forward", "reverse", "forward_ns", "reverse_ns"),
                                     ("rev", "reverse", "forward", "reverse_ns", "forward_ns")):
    if "(%s is the slower direction)" % wrong in txt[n] and p50(n, fast) <= p50(n, slow):
        err.append("%s: the text names %s the slower direction, its median is not" % (n, wrong))
    if p50(n, slow) > p50(n, fast) + 2 * rep[n]["one_way"]["bound_ns"] and \
            "(%s is the slower direction)" % right not in txt[n]:
        err.append("%s: the medians say %s is slower and the text does not" % (n, right))
if err:
    print("\n".join(err))
    sys.exit(1)
PYEOF
echo "$LP_PROG: ok"
