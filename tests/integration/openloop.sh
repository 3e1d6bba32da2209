#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open loop (--rate) on a real PMD ($2: af_xdp over a veth pair between two
# namespaces, or memif between two processes): probes at 20 kpps leave on
# schedule, the count and the rate come out right (generous bounds: a shared
# 2-CPU machine), loss is nil or tiny, every answer has its intended
# latency (count == received), the sender keys are there, --interval-report
# carries the intended series, Poisson spacing reports its seed; bad values
# give exit 2 and one line; --flows and --new-flow-every work in open loop.
. "$(dirname "$0")/lib.sh"
pmd=${2:?af_xdp or memif}
need_env

usage_err() { # PATTERN ARGS...: exit 2 with one line matching PATTERN
	local pat=$1
	shift
	expect 2 "^latprobe: error: $pat" "$LATPROBE" probe --backend kernel "$@" 127.0.0.1
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err" >&2; fail "'$*': not one line"; }
}

if [ "$pmd" = memif ]; then
	lp_begin
	sock=$LP_RUN_DIR/${LP_NS_PREFIX}memif.sock
	vdev_refl="net_memif0,role=server,socket=$sock,socket-abstract=no"
	vdev_probe="net_memif0,role=client,socket=$sock,socket-abstract=no"
	refl_ns=-
	probe_ns=()
	addr_refl=198.18.0.2/24
	addr_probe=198.18.0.1/24
else
	lp_begin testbed
	vdev_refl="net_af_xdp0,iface=$LP_IF_REFL"
	vdev_probe="net_af_xdp0,iface=$LP_IF_PROBE"
	refl_ns=$LP_NS_REFL
	probe_ns=(ip netns exec "$LP_NS_PROBE")
	addr_refl=$LP_ADDR_REFL
	addr_probe=$LP_ADDR_PROBE
fi

# 1. Bad values: one line, exit 2 (parsed before any port opens).
usage_err "--rate wants probes per second" --rate 0
usage_err "--rate wants probes per second" --rate x
usage_err "--spacing wants constant or poisson, not 'foo'" --rate 100 --spacing foo
usage_err "--rate \(open loop\) and -i \(closed loop\) do not go together" --rate 100 -i 1ms
usage_err "--spacing, --seed and --max-behind need --rate" --seed 3
usage_err "--rate 100000000 x --timeout 1s is more than 262144 probes in flight" --rate 100000000 --timeout 1s

# probe NAME OPTS...: a DPDK prober on lcore 1, JSON in $WORK/NAME.json;
# LIVE=1: with its live lines (in $WORK/NAME.err).
probe() {
	local name=$1 rc=0 q=(-q)
	shift
	[ "${LIVE:-0}" -eq 0 ] || q=()
	"${probe_ns[@]}" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$vdev_probe" \
		-- --addr "$addr_probe" "${q[@]}" --json "$WORK/$name.json" "$@" "${addr_refl%/*}" \
		>"$WORK/$name.txt" 2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "$name: probe exited $rc"; }
}

[ "$pmd" = memif ] && rm -f "$sock"
start_reflector "$refl_ns" -l 0 "${EAL_COMMON[@]}" --vdev "$vdev_refl" \
	-- --addr "$addr_refl" -q
# 2. Constant spacing, -n: every probe's fate known, 1.5 s at 20 kpps.
probe const --rate 20000 -n 30000 -w 200 --interval-report 500ms \
	--hlog "$WORK/const.hlog"
cat "$WORK/const.txt"
# 3. Poisson with a seed, -t: the run ends on time; live lines on.
LIVE=1 probe poisson --rate 20000 --spacing poisson --seed 7 -t 1.5
# 4. Flows and first packets in open loop (many in flight on 4 tuples).
probe flows --rate 20000 -n 8000 --flows 4
probe first --rate 20000 -n 5000 --new-flow-every 10
stop_reflector
[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "reflector exited $REFL_RC"; }

$PY - "$WORK/const.json" "$WORK/poisson.json" "$WORK/const.err" "$WORK/flows.json" "$WORK/first.json" "$WORK/first.err" <<'PYEOF' || fail "report checks"
import json, re, sys
c = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
# Probes a full tx ring did not take are not sent (a warning says how many).
def not_taken(path):
    return sum(int(n) for n in re.findall(r"lcore \d+: (\d+) probes the tx queue did not take", open(path).read()))
tx_fail = not_taken(sys.argv[3])
def check(ok, what):
    if not ok:
        sys.exit("openloop: " + what)
for name, r in (("const", c), ("poisson", p)):
    pr = r["probes"]
    il = r["intended_latency_ns"]
    check(pr["sent"] == pr["received"] + pr["lost"], name + ": sent != received + lost")
    # memif and veth lose nothing by themselves, but a CI machine's 2 vCPUs
    # are shared: a reflector off its CPU for tens of ms overflows its rx
    # ring at 20 kpps (seen: 8 % lost at load 16). A matcher defect loses
    # most or all: that is what this bound is for; the exact accounting is
    # the identity above and the unit tests'.
    check(pr["lost"] <= pr["sent"] // 2, name + ": lost %d of %d" % (pr["lost"], pr["sent"]))
    check(il["count"] == pr["received"] == r["rtt_ns"]["count"],
          name + ": intended_latency_ns.count %d, received %d" % (il["count"], pr["received"]))
    for k in ("min", "mean", "max", "p50", "p90", "p99", "p99_9", "hdr"):
        check(k in il, name + ": intended_latency_ns lacks " + k)
    # The intended time is never after T1: intended latency >= wire RTT.
    check(il["p50"] >= r["rtt_ns"]["p50"] * 0.99, name + ": intended p50 below the wire's")
    s = r["sender"]
    for k in ("late_sends", "behind_max_ns", "bound_ns", "behind_p99_ns"):
        check(k in s, name + ": sender lacks " + k)
    check(s["bound_ns"] == 10000, name + ": default --max-behind is not 10us")
    check(r["open_loop"]["rate_pps"] == 20000, name + ": open_loop.rate_pps")
# -n 30000 at 20 kpps: all of them, in about 1.5 s (the measured phase).
check(c["probes"]["sent"] + tx_fail == 30000 and tx_fail < 30000 // 4,
      "const: sent %d + %d the tx queue did not take, not 30000" % (c["probes"]["sent"], tx_fail))
# Never faster than the rate; slower only by what the load holds it up.
check(1.3 <= c["duration_s"] <= 30.0, "const: 30000 probes at 20 kpps took %.2f s" % c["duration_s"])
check(c["open_loop"]["spacing"] == "constant" and c["open_loop"]["seed"] == 1, "const: spacing/seed")
iv = c["intervals"]
check(len(iv) >= 2, "const: %d intervals" % len(iv))
check(all("intended_latency_ns" in row for i in iv for row in i["targets"]), "const: an interval lacks intended_latency_ns")
check(sum(row["intended_latency_ns"]["count"] for i in iv for row in i["targets"]) == c["intended_latency_ns"]["count"],
      "const: the intervals' intended counts do not add up")
# -t 1.5 at 20 kpps: the warm-up (100 probes, 5 ms) and 1.5 s of sends.
check(p["open_loop"]["spacing"] == "poisson" and p["open_loop"]["seed"] == 7, "poisson: spacing/seed")
# At most the rate's (and a little: Poisson); fewer when a busy CPU holds
# the sender up (it catches up on what is due, within -t).
check(5000 <= p["probes"]["sent"] <= 31000, "poisson: sent %d in 1.5 s at 20 kpps" % p["probes"]["sent"])
# Flows: 4, each 2000 probes' fate, adding up to the run's.
f = json.load(open(sys.argv[4]))
fl = f["flows"]
check(len(fl) == 4 and len({x["sport"] for x in fl}) == 4, "flows: %d flows" % len(fl))
check(sum(x["count"] for x in fl) == f["probes"]["received"] and
      sum(x["lost"] for x in fl) == f["probes"]["lost"], "flows: per-flow counts do not add up")
check(all(x["count"] + x["lost"] == 2000 for x in fl), "flows: a flow did not get every 4th probe")
check(f["intended_latency_ns"]["count"] == f["rtt_ns"]["count"] == f["probes"]["received"],
      "flows: intended/rtt counts")
# First packets: 500 of 5000, apart from rtt_ns and intended_latency_ns.
g = json.load(open(sys.argv[5]))
fp, gp = g["first_packet_rtt_ns"], g["probes"]
# A probe a full tx ring did not take is never sent (the warning counts it):
# a first packet among them is neither received nor lost.
first_tx_fail = not_taken(sys.argv[6])
n_first = fp["count"] + g["first_packet"]["lost"]
check(n_first <= 500 and 500 - n_first <= first_tx_fail,
      "first: %d first packets + %d lost, not 500 (%d probes not taken by the tx queue)"
      % (fp["count"], g["first_packet"]["lost"], first_tx_fail))
check(g["rtt_ns"]["count"] == gp["received"] - fp["count"] == g["intended_latency_ns"]["count"],
      "first: rtt_ns %d, intended %d, received %d - first %d" % (g["rtt_ns"]["count"], g["intended_latency_ns"]["count"], gp["received"], fp["count"]))
print("openloop: const sent %d lost %d rtt p99 %d ns intended p99 %d ns late_sends %d behind_max %d ns; "
      "poisson sent %d" % (c["probes"]["sent"], c["probes"]["lost"], c["rtt_ns"]["p99"],
      c["intended_latency_ns"]["p99"], c["sender"]["late_sends"], c["sender"]["behind_max_ns"],
      p["probes"]["sent"]))
PYEOF
grep -q '^Intended latency (T4-scheduled): count' "$WORK/const.txt" || fail "text report lacks the intended latency line"
grep -q '^Tag=intended,' "$WORK/const.hlog" || fail "--hlog has no Tag=intended line"
grep -Eq '^ +1\.0s +sent [0-9.]+[kMG]? .* intended p99 [0-9.]+[nmu]?s$' "$WORK/poisson.err" ||
	{ cat "$WORK/poisson.err" >&2; fail "the live line lacks the intended p99"; }
grep -q '^Open loop: 20000 probes/s per lcore, constant spacing' "$WORK/const.txt" || fail "text report lacks the open loop line"
echo "$LP_PROG: ok ($pmd)"
