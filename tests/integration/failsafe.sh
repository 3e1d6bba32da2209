#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Failover on the testbed: the prober on a failsafe port (Azure's older
# vdev_netvsc model) over one af_packet sub-device that EAL probed first,
# as it probes a VF's PCI device before the vdevs: the sub-device is port 0
# and failsafe takes it over (port 1). Without --port-id latprobe takes the
# failsafe port (the one port no one owns); with --port-id 0 it refuses the
# sub-device (exit 4) instead of bypassing the failsafe layer. The path
# is watched over the run (port.path.poll_s, shifts, intervals): one path,
# the synthetic one (af_packet is software), no shift, one latency interval
# with every probe; the text report says so; while a run lasts, --metrics
# has latprobe_port_path{path="synthetic"} 1 (promtool accepts it) and the
# interval lines end in "PATH synthetic". The VF's removal and the
# failover are the VM lab's (tools/vmlab.d/failover.sh).
. "$(dirname "$0")/lib.sh"
need_env
lp_begin testbed

start_reflector "$LP_NS_REFL" -l 0 "${EAL_COMMON[@]}" --vdev "net_af_packet0,iface=$LP_IF_REFL" \
	-- --addr "$LP_ADDR_REFL" -q
sub="net_af_packet1,iface=$LP_IF_PROBE"
fs="net_failsafe0,dev(net_af_packet1)"
n=500
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$sub" --vdev "$fs" -- \
	--addr "$LP_ADDR_PROBE" -n $n -w 10 -i 2ms --json "$WORK/probe.json" "${LP_ADDR_REFL%/*}" \
	>"$WORK/probe.txt" 2>"$WORK/probe.err" || {
	cat "$WORK/probe.err" >&2
	fail "probe over failsafe exited $?"
}
sed -n '/^Port path/,/^Port events\|^TSC/p' "$WORK/probe.txt"
$PY - "$WORK/probe.json" $n <<'PYEOF' || fail "JSON checks"
import json, sys
p, n = json.load(open(sys.argv[1])), int(sys.argv[2])
ok = True
def fail(m):
    global ok
    print("FAIL: " + m)
    ok = False
path = p.get("port", {}).get("path", {})
if p.get("port_driver") != "net_failsafe":
    fail(f"port_driver {p.get('port_driver')!r}: the sub-device was used, not failsafe")
if path.get("kind") != "failsafe":
    fail(f"port.path.kind {path.get('kind')!r}")
if path.get("poll_s") != 0.05:
    fail(f"port.path.poll_s {path.get('poll_s')}")
if path.get("shifts") != [] or path.get("shifts_dropped") != 0:
    fail(f"port.path.shifts {path.get('shifts')}: one path, no shift")
ivs = path.get("intervals", [])
if len(ivs) != 1 or ivs[0].get("path") != "synthetic":
    fail(f"port.path.intervals {ivs}: one, on the synthetic path")
elif ivs[0].get("sent") != p["probes"]["sent"] or ivs[0].get("received") != p["probes"]["received"]:
    fail(f"the interval's sent/received {ivs[0].get('sent')}/{ivs[0].get('received')} != the run's")
elif not isinstance(ivs[0].get("rtt_ns"), dict) or not ivs[0]["rtt_ns"]["min"] <= ivs[0]["rtt_ns"]["p50"] <= ivs[0]["rtt_ns"]["max"]:
    fail(f"the interval's rtt_ns {ivs[0].get('rtt_ns')}")
if p["probes"]["sent"] != n:
    fail(f"probes.sent {p['probes']['sent']} != {n}")
# Two counts of one thing: the samples' sums and the run's xstats delta.
dd = path.get("driver_delta", {})
if dd.get("tx_sub0_good_packets") != path.get("synthetic_tx_packets") or \
        dd.get("rx_sub0_good_packets") != path.get("synthetic_rx_packets"):
    fail(f"the samples' synthetic rx/tx {path.get('synthetic_rx_packets')}/{path.get('synthetic_tx_packets')} "
         f"!= the run's sub-device delta {dd.get('rx_sub0_good_packets')}/{dd.get('tx_sub0_good_packets')}")
if path.get("vf_tx_packets") != 0 or not path.get("synthetic_tx_packets"):
    fail(f"VF tx {path.get('vf_tx_packets')}, synthetic tx {path.get('synthetic_tx_packets')}")
sys.exit(0 if ok else 1)
PYEOF
grep -q 'port net_failsafe0 (net_failsafe)' "$WORK/probe.err" ||
	fail "the start line does not name the failsafe port"
grep -q 'path shifts: 0 (sampled every 50 ms): the packets kept to one path' "$WORK/probe.txt" ||
	fail "the text report does not say the path stayed the same"
grep -Eq '^ +0\.000 - +[0-9.]+ s  synthetic +sent [0-9]+ received [0-9]+ lost [0-9]+  min ' "$WORK/probe.txt" ||
	fail "the text report has no latency-by-path line"

# While it runs: --metrics has the path (latprobe_port_path, scraped in the
# prober's namespace, on its loopback) and the interval lines say it is
# the synthetic one.
if lp_have curl; then
	ip -n "$LP_NS_PROBE" link set lo up
	ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$sub" --vdev "$fs" -- \
		--addr "$LP_ADDR_PROBE" -t 4 -i 2ms --interval-report 1s --metrics 127.0.0.1 \
		"${LP_ADDR_REFL%/*}" >"$WORK/m.txt" 2>"$WORK/m.err" &
	mpid=$!
	lp_wait_for "$WORK/m.err" 'metrics on http://127.0.0.1:[0-9]+/metrics' 30 ||
		{ cat "$WORK/m.err" >&2; fail "the prober with --metrics did not start"; }
	murl=$(grep -oE 'http://127.0.0.1:[0-9]+/metrics' "$WORK/m.err" | head -1)
	lp_wait_for "$WORK/m.txt" '^interval' 20 || fail "no interval line"
	ip netns exec "$LP_NS_PROBE" curl -sS --max-time 5 -o "$WORK/m.prom" "$murl" ||
		fail "scrape failed"
	wait "$mpid" || fail "the prober with --metrics exited $?"
	grep -qx 'latprobe_port_path{path="synthetic"} 1' "$WORK/m.prom" &&
		grep -qx 'latprobe_port_path{path="vf"} 0' "$WORK/m.prom" ||
		{ grep latprobe_port "$WORK/m.prom" >&2; fail "latprobe_port_path does not say synthetic"; }
	if lp_have promtool; then
		if ! promtool check metrics <"$WORK/m.prom" >"$WORK/promtool.out" 2>&1; then
			cat "$WORK/promtool.out" >&2
			fail "promtool rejects the exposition"
		fi
	fi
	grep -q '^interval .*  PATH synthetic$' "$WORK/m.txt" ||
		{ cat "$WORK/m.txt" >&2; fail "the interval lines do not say PATH synthetic"; }
else
	echo "$LP_PROG: no curl: the --metrics part not checked"
fi

# --port-id 0 is failsafe's sub-device: refused, exit 4 (setup).
rc=0
ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$sub" --vdev "$fs" -- \
	--addr "$LP_ADDR_PROBE" -n 5 --port-id 0 "${LP_ADDR_REFL%/*}" \
	>"$WORK/sub.txt" 2>"$WORK/sub.err" || rc=$?
[ "$rc" -eq 4 ] || { cat "$WORK/sub.err" >&2; fail "--port-id 0 (a sub-device) exited $rc, not 4"; }
grep -q 'port 0 belongs to another port (its owner: Fail-safe)' "$WORK/sub.err" ||
	{ cat "$WORK/sub.err" >&2; fail "no clear error for the sub-device's port"; }
stop_reflector
echo "$LP_PROG: ok (failsafe: the master taken over its sub-device, the path watched, one interval)"
