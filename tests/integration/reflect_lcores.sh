#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A reflector with two lcores answers on two queues, each worker the frames
# of its own queue, and its report says so per lcore (JSON workers[], the
# text table); the totals are the sum of the workers'.
#  - memif: the PMD pairs queue i with the peer's queue i, so a prober with
#    two lcores reaches both reflector workers. (Not with fewer client
#    queues than server queues: DPDK 22.11's memif leaves the extra server
#    queues without a ring and they read another's; the reflector warns.)
#  - af_packet qpairs=2: the kernel's PACKET_FANOUT_HASH spreads flows over
#    the two sockets (RSS-like): 16 kernel-socket probers from 16 source
#    ports reach both workers; one flow reaches one, and the report names
#    the idle worker.
#  - af_xdp: DPDK 22.11 takes its queue count from the interface's combined
#    channels, which a veth does not have (ethtool -l: Combined n/a): tried,
#    and when the PMD refuses queue_count=2 that part says why and is left out.
# 2 CPUs, 3-4 busy pollers: short runs, assertions on counts only.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin

# check_workers JSON N MIN_ANSWERING: N workers, lcores and queues distinct,
# at least MIN_ANSWERING of them answered STAMP, and rx, tx and each
# answered.* of the totals equal to the sum over the workers.
check_workers() {
	$PY - "$@" <<'EOF'
import json, sys
path, n, min_ans = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = json.load(open(path))
w, c = r["workers"], r["counters"]
def bad(msg):
    sys.exit(f"{path}: {msg}\nworkers: {json.dumps(w)}")
if len(w) != n:
    bad(f"{len(w)} workers, expected {n}")
if len({x["lcore"] for x in w}) != n or len({x["queue"] for x in w}) != n:
    bad("lcores or queues not distinct")
if sorted(x["queue"] for x in w) != list(range(n)):
    bad("queues are not 0..n-1")
for key in ("rx", "tx"):
    if sum(x[key] for x in w) != c[key]:
        bad(f"sum of workers' {key} != counters.{key} {c[key]}")
for proto in w[0]["answered_by"]:
    if sum(x["answered_by"][proto] for x in w) != c["answered." + proto]:
        bad(f"sum of answered_by.{proto} != counters.answered.{proto}")
for x in w:
    if x["answered"] != sum(x["answered_by"].values()):
        bad("a worker's answered is not the sum of its answered_by")
    for key in ("ignored", "tx_dropped"):
        if not isinstance(x[key], int):
            bad(f"{key} missing")
answering = [x for x in w if x["answered_by"]["stamp"] > 0]
if len(answering) < min_ans:
    bad(f"{len(answering)} worker(s) answered STAMP, expected >= {min_ans}")
print(f"{path}: " + ", ".join(
    f"lcore {x['lcore']} queue {x['queue']}: {x['answered']} answered"
    for x in w))
EOF
}

# --- memif -----------------------------------------------------------------
sock=$LP_RUN_DIR/${LP_NS_PREFIX}memif.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }

# memif_run NAME PROBE_LCORES: reflector on lcores 0,1, a prober on
# PROBE_LCORES; the reflector's JSON in $WORK/NAME.json, its text report in
# $WORK/refl.log. The reflector is stopped while the prober still sends: a
# memif reflector that sees its peer leave while it polls can fault inside
# DPDK 22.11's rx burst (docs/design.md, Known limits), and with two polling
# lcores on 2 CPUs that happened in two runs in a row here. The prober's
# own end is not looked at (it may meet the same fault when we leave).
memif_run() {
	local name=$1 lcores=$2 probe_pid
	rm -f "$sock"
	start_reflector - -l 0,1 "${EAL_COMMON[@]}" --vdev "$(memif server)" \
		-- --addr 198.18.0.2/24 -q --json "$WORK/$name.json"
	LP_BG_LOG=$WORK/$name-probe.log lp_bg_ns - "$LATPROBE" probe -l "$lcores" \
		"${EAL_COMMON[@]}" --vdev "$(memif client)" \
		-- --addr 198.18.0.1/24 -t 20 -w 0 -q 198.18.0.2
	probe_pid=$LP_LAST_PID
	lp_wait_for "$WORK/$name-probe.log" '^latprobe probe: ' 20 ||
		{ cat "$WORK/$name-probe.log" >&2; fail "$name: the prober did not start"; }
	sleep 2
	stop_reflector
	kill -INT "$probe_pid" 2>/dev/null || true
	wait "$probe_pid" 2>/dev/null || true
	[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "$name: reflector exited $REFL_RC"; }
}

memif_run memif2 0,1
check_workers "$WORK/memif2.json" 2 2 || fail "memif, 2 prober lcores"
grep -q '^Per lcore (2 workers' "$WORK/refl.log" ||
	{ cat "$WORK/refl.log" >&2; fail "memif: no per-lcore table in the text report"; }

# --- veth: af_packet, af_xdp -----------------------------------------------
testbed_up --queues 2
refl_ip=${LP_ADDR_REFL%/*}
# The kernel owns the prober side (kernel-socket probes); the reflector side
# has no kernel address (DPDK answers there).
ip -n "$LP_NS_PROBE" addr add "$LP_ADDR_PROBE" dev "$LP_IF_PROBE"
# No ARP: it could land on either queue and blur the one-flow case.
refl_mac=$(ip netns exec "$LP_NS_REFL" cat "/sys/class/net/$LP_IF_REFL/address")
ip -n "$LP_NS_PROBE" neigh replace "$refl_ip" lladdr "$refl_mac" \
	dev "$LP_IF_PROBE" nud permanent

# kernel_flows NAME N: N kernel-socket probers in a row, one source port each.
kernel_flows() {
	local sp
	for sp in $(seq 41000 $((41000 + $2 - 1))); do
		ip netns exec "$LP_NS_PROBE" "$LATPROBE" probe -- --backend kernel \
			--addr "$LP_ADDR_PROBE" --sport "$sp" -n 10 -w 0 -q "$refl_ip" \
			>"$WORK/$1-probe.txt" 2>"$WORK/$1-probe.err" ||
			{ cat "$WORK/$1-probe.err" >&2; fail "$1: kernel probe from port $sp exited $?"; }
	done
}

# afpacket_run NAME FLOWS: an af_packet reflector on 2 lcores, FLOWS flows;
# its /metrics (namespace loopback) scraped into $WORK/NAME.prom at the end.
afpacket_run() {
	start_reflector "$LP_NS_REFL" -l 0,1 "${EAL_COMMON[@]}" \
		--vdev "net_af_packet0,iface=$LP_IF_REFL,qpairs=2" \
		-- --addr "$LP_ADDR_REFL" --json "$WORK/$1.json" --metrics 127.0.0.1:9181
	kernel_flows "$1" "$2"
	if lp_have curl; then
		ip netns exec "$LP_NS_REFL" curl -sS --max-time 5 -o "$WORK/$1.prom" \
			http://127.0.0.1:9181/metrics || fail "$1: /metrics scrape failed"
	fi
	stop_reflector
	[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "$1: reflector exited $REFL_RC"; }
}

afpacket_run afpacket 16
check_workers "$WORK/afpacket.json" 2 2 || fail "af_packet qpairs=2, 16 flows"
# The live line (each second, stderr) gives each lcore's frames too.
grep -qE '^ +[0-9.]+s  rx [0-9]+ tx [0-9]+ not answered [0-9]+  rx per lcore [0-9]+ [0-9]+$' "$WORK/refl.log" ||
	{ cat "$WORK/refl.log" >&2; fail "af_packet: no per-lcore rx in the live line"; }
# af_packet counts per queue: its count is the workers' rx.
$PY - "$WORK/afpacket.json" <<'EOF' || fail "af_packet: per-queue PMD counters"
import json, sys
for x in json.load(open(sys.argv[1]))["workers"]:
    if x["queue_rx_packets"] != x["rx"]:
        sys.exit(f"queue {x['queue']}: PMD says {x['queue_rx_packets']}, worker {x['rx']}")
EOF

# /metrics: the same per lcore, labelled by lcore and queue.
if [ -f "$WORK/afpacket.prom" ]; then
	! lp_have promtool || promtool check metrics <"$WORK/afpacket.prom" ||
		fail "promtool check metrics: per-lcore families"
	$PY - "$WORK/afpacket.prom" "$WORK/afpacket.json" <<'EOF' || fail "af_packet: per-lcore metrics"
import json, sys
v = {}
for line in open(sys.argv[1]):
    if line.startswith('#') or not line.strip():
        continue
    k, val = line.rsplit(' ', 1)
    v[k] = float(val)
for x in json.load(open(sys.argv[2]))["workers"]:
    lab = '{lcore="%d",queue="%d"}' % (x["lcore"], x["queue"])
    # Scraped before the reflector stopped: at most what it finally says.
    ans = v['latprobe_reflector_lcore_answered_total' + lab]
    rx = v['latprobe_reflector_lcore_rx_frames_total' + lab]
    assert 0 < ans <= x["answered"] and 0 < rx <= x["rx"], (lab, ans, rx, x)
    assert v['latprobe_reflector_lcore_tx_dropped_total' + lab] == 0
EOF
else
	echo "$LP_PROG: no curl: the /metrics part left out"
fi

# One flow: one worker answers it all, the report names the other.
afpacket_run afpacket1 1
check_workers "$WORK/afpacket1.json" 2 1 || fail "af_packet qpairs=2, 1 flow"
[ "$($PY -c 'import json,sys; print(sum(x["answered_by"]["stamp"] > 0 for x in json.load(open(sys.argv[1]))["workers"]))' "$WORK/afpacket1.json")" -eq 1 ] ||
	fail "af_packet, 1 flow: its STAMP answers on more than one worker"
grep -qE 'lcore [01] \(queue [01]\) answered nothing while the others answered' "$WORK/refl.log" ||
	{ cat "$WORK/refl.log" >&2; fail "af_packet, 1 flow: the idle worker is not named"; }

# More lcores than the port has queues: one line saying how many it has.
LP_EXPECT_STDERR=1 LP_EXPECT_ONE_LINE=1 expect 4 'has 1 rx/tx queue pair\(s\) for us and EAL -l gives 2 lcores' \
	ip netns exec "$LP_NS_REFL" "$LATPROBE" reflect -l 0,1 "${EAL_COMMON[@]}" \
	--vdev "net_af_xdp0,iface=$LP_IF_REFL" -- --addr "$LP_ADDR_REFL" -q --no-doctor -t 1

# af_xdp with two queues: only where the PMD takes queue_count=2 on a veth.
LP_BG_LOG=$WORK/xdp.log lp_bg_ns "$LP_NS_REFL" "$LATPROBE" reflect -l 0,1 \
	"${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=$LP_IF_REFL,queue_count=2" \
	-- --addr "$LP_ADDR_REFL" -q --json "$WORK/afxdp.json"
REFL_PID=$LP_LAST_PID
xdp_up=0
for _ in $(seq 200); do
	grep -q '^latprobe reflect: ' "$WORK/xdp.log" && { xdp_up=1; break; }
	lp_alive "$REFL_PID" || break
	sleep 0.1
done
if [ "$xdp_up" -eq 1 ]; then
	kernel_flows afxdp
	stop_reflector
	[ "$REFL_RC" -eq 0 ] || { cat "$WORK/xdp.log" >&2; fail "af_xdp: reflector exited $REFL_RC"; }
	check_workers "$WORK/afxdp.json" 2 1 || fail "af_xdp queue_count=2"
else
	stop_reflector
	grep -q 'larger than combined queue count' "$WORK/xdp.log" ||
		{ cat "$WORK/xdp.log" >&2; fail "af_xdp queue_count=2: neither ran nor said why"; }
	echo "$LP_PROG: af_xdp part left out: DPDK $(pkg-config --modversion libdpdk 2>/dev/null || echo '?') af_xdp takes its queue count from the veth's combined channels, which a veth has none of (ethtool -l: Combined n/a)"
fi
echo "$LP_PROG: ok"
