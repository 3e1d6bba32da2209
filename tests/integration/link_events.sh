#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Link down and up during a run over net_memif: the prober is
# the memif server (it keeps listening), reflectors are clients that come
# and go, so the prober's link goes down when one leaves and up when the
# next one connects (memif's link is polled: link_detection "polled"). The
# reflectors share one MAC (memif's mac= devarg), so the prober's resolved
# peer stays right across them. Checked: the stderr lines and live marks,
# --metrics' latprobe_link_up 0 and latprobe_port_events_total while the
# link is down, the report's port.link_events (down, up, down), link_down_s,
# probes lost_link_down and lost_path adding up to lost, answers after the
# link came back, marked intervals, exit 0.
. "$(dirname "$0")/lib.sh"
need_env
lp_have curl || lp_skip "needs curl"
lp_begin
sock=$LP_RUN_DIR/${LP_NS_PREFIX}link.sock
rm -f "$sock"
lp_cleanup_push "rm -f '$sock'"
srv="net_memif0,role=server,socket=$sock,socket-abstract=no"
cli="net_memif0,role=client,socket=$sock,socket-abstract=no,mac=02:00:c6:12:00:02"

LP_BG_LOG=$WORK/probe.err lp_bg_ns - "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" \
	--vdev "$srv" -- --addr 198.18.0.1/24 --forever -i 1ms --timeout 200ms \
	--interval-report 1s --metrics 127.0.0.1 --json "$WORK/probe.json" \
	198.18.0.2
PROBE_PID=$LP_LAST_PID

# refl N SECONDS: reflector N (a client) for SECONDS once connected.
refl() {
	timeout 60 "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" --vdev "$cli" \
		-- --addr 198.18.0.2/24 -q -t "$2" --json "$WORK/refl$1.json" \
		>"$WORK/refl$1.log" 2>&1 || {
		cat "$WORK/refl$1.log" >&2
		fail "reflector $1 exited $?"
	}
}

# The prober's ARP needs a reflector: the first one connects as soon as
# the server's socket is there.
for i in $(seq 300); do
	[ -S "$sock" ] && break
	lp_alive "$PROBE_PID" || break
	sleep 0.1
done
[ -S "$sock" ] || { cat "$WORK/probe.err" >&2; fail "no memif socket from the prober"; }
refl 1 4 &
R1=$!
lp_wait_for "$WORK/probe.err" 'metrics on http://127.0.0.1:[0-9]+/metrics' 30 ||
	{ cat "$WORK/probe.err" >&2; fail "the prober did not start"; }
murl=$(grep -oE 'http://127.0.0.1:[0-9]+/metrics' "$WORK/probe.err" | head -1)
wait "$R1" || fail "reflector 1 failed"
# Reflector 1 left: the prober's link goes down.
lp_wait_for "$WORK/probe.err" 'link down at' 20 ||
	{ cat "$WORK/probe.err" >&2; fail "no 'link down at' line after the reflector left"; }
sleep 1
curl -sS --max-time 5 -o "$WORK/down.prom" "$murl" || fail "scrape while down failed"
grep -qx 'latprobe_link_up 0' "$WORK/down.prom" ||
	{ grep latprobe_link "$WORK/down.prom" >&2; fail "latprobe_link_up is not 0 while the link is down"; }
grep -qx 'latprobe_port_events_total{kind="link_down"} [1-9][0-9]*' "$WORK/down.prom" ||
	{ grep latprobe_port "$WORK/down.prom" >&2; fail "latprobe_port_events_total{kind=\"link_down\"} not counted"; }
grep -q '^latprobe_probes_lost_link_down_total{target=' "$WORK/down.prom" ||
	{ grep latprobe_probes "$WORK/down.prom" >&2; fail "no latprobe_probes_lost_link_down_total series"; }
refl 2 3
lp_wait_for "$WORK/probe.err" 'link up at' 5 ||
	{ cat "$WORK/probe.err" >&2; fail "no 'link up at' line"; }
# Reflector 2 left as well: a second down, then the prober's report.
for i in $(seq 200); do
	[ "$(grep -c 'link down at' "$WORK/probe.err")" -ge 2 ] && break
	sleep 0.1
done
kill -INT "$PROBE_PID"
wait "$PROBE_PID"
rc=$?
cat "$WORK/probe.err"
[ "$rc" -eq 0 ] || fail "probe exited $rc"
grep -q 'LINK DOWN' "$WORK/probe.err" || fail "no [LINK DOWN] mark in the live line"
$PY - "$WORK" <<'PYEOF' || fail "report checks"
import json, sys
w = sys.argv[1]
p = json.load(open(f"{w}/probe.json"))
port, pr = p["port"], p["probes"]
ev = [e["event"] for e in port["link_events"]]
assert ev[:3] == ["link_down", "link_up", "link_down"], ev
assert port["link_downs"] == ev.count("link_down"), port
assert port["link_detection"] == "polled", port["link_detection"]
assert 0 < port["link_down_s"] < p["duration_s"], port["link_down_s"]
assert port["link_up_at_end"] is False, port
assert port["removed_at_s"] is None, port
assert pr["lost"] == pr["lost_link_down"] + pr["lost_path"], pr
assert pr["sent"] == pr["received"] + pr["lost"], pr
# Reflector 2 answered: probes after the link came back were received.
up = [e["t_s"] for e in port["link_events"] if e["event"] == "link_up"][0]
after = [i for i in p["intervals"] if i["t_s"] > up + 1 and
         i["targets"][0]["received"] > 0]
assert after, "nothing answered after the link came up"
marked = [i for i in p["intervals"] if "link" in i]
assert any(i["link"]["downs"] for i in marked), marked
assert any(i["link"]["ups"] for i in marked), marked
r2 = json.load(open(f"{w}/refl2.json"))
assert r2["counters"]["answered.stamp"] > 0, r2["counters"]
print(f"link_events {ev}, link_down_s {port['link_down_s']:.3f}, lost "
      f"{pr['lost']} (link {pr['lost_link_down']}, path {pr['lost_path']}), "
      f"{len(marked)} intervals marked")
PYEOF
echo "$LP_PROG: ok"
