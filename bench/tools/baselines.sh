#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Baseline round trips of this machine, side by side in one run:
#   floor      cache-line ping-pong between CPU 0 and CPU 1
#   memif      rawping <-> rawping echo (and dpdk-testpmd macswap if present)
#   af_xdp     same, across the testbed veth
#   af_packet  same, across the testbed veth
#
#   bench/tools/baselines.sh BUILD_DIR [COUNT]
#
# Needs root, 2 CPUs. Uses its own testbed (LP_NS_PREFIX, default "lpb-") so
# that it does not disturb a developer's lp- testbed. Prints one line per
# path, p50/p99 in ns; the JSON of every run is kept in $OUT (default a
# temporary directory).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export LP_NS_PREFIX=${LP_NS_PREFIX:-lpb-}
# shellcheck source=tools/lib.sh
. "$top/tools/lib.sh"
LP_PROG=baselines

build=${1:?usage: baselines.sh BUILD_DIR [COUNT]}
count=${2:-100000}
floor=$build/bench/tools/floor
rawping=$build/bench/tools/rawping
[ -x "$floor" ] && [ -x "$rawping" ] || lp_die "build floor and rawping first (ninja -C $build bench/tools/floor bench/tools/rawping)"
lp_need_root
[ "$(nproc)" -ge 2 ] || lp_skip "needs 2 CPUs"

OUT=${OUT:-$(mktemp -d /tmp/lp-baselines.XXXXXX)}
mkdir -p "$OUT"
# Hugepages if there are some, else the no-hugepage fallback.
if [ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)" -ge 64 ]; then
	mem=(--in-memory)
else
	mem=(--no-huge -m 256 --no-shconf)
fi
eal_refl=(-l 1 "${mem[@]}" --no-pci --log-level=lib.eal:error)
eal_probe=(-l 0 "${mem[@]}" --no-pci --log-level=lib.eal:error)
sock=$LP_RUN_DIR/${LP_NS_PREFIX}memif.sock

lp_trap_cleanup
lp_cleanup_push '"$top/tools/testbed" down >/dev/null 2>&1'
"$top/tools/testbed" up >/dev/null

# p50 / p99 out of a rawping JSON line.
summary() {
	python3 -c 'import json,sys
d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
r=d["rtt_ns"]
print("%-34s p50 %8.0f ns  p99 %8.0f ns  (n=%d, lost %d)" % (sys.argv[2], r["p50"], r["p99"], r["count"], d["lost"]))' "$1" "$2"
}

# run NAME REFL_NS REFL_CMD... -- PROBE_NS PROBE_VDEV
run_pair() {
	local name=$1 rns=$2 pns=$3 rvdev=$4 pvdev=$5 echo=$6 log=$OUT/$1
	if [ "$echo" = testpmd ]; then
		# Without --stats-period testpmd stops at once when stdin is
		# not a terminal. Both of its lcores share CPU 1.
		LP_BG_LOG=$log.echo lp_bg_ns "$rns" timeout 120 dpdk-testpmd \
			--lcores '0@1,1@1' "${mem[@]}" --no-pci \
			--log-level=lib.eal:error --vdev "$rvdev" -- \
			--forward-mode=macswap --stats-period 3600 --nb-cores=1 \
			--rxq=1 --txq=1
		lp_wait_for "$log.echo" 'Press enter|forwards packets' 20 ||
			lp_die "$name: testpmd did not start (see $log.echo)"
	else
		LP_BG_LOG=$log.echo lp_bg_ns "$rns" timeout 120 "$rawping" \
			"${eal_refl[@]}" --vdev "$rvdev" -- --mode echo \
			--duration 100
		lp_wait_for "$log.echo" 'echo ready' 20 ||
			lp_die "$name: echo did not start (see $log.echo)"
	fi
	local pcmd=("$rawping" "${eal_probe[@]}" --vdev "$pvdev" -- --mode ping
		-n "$count" --json)
	if [ "$pns" = - ]; then
		timeout 90 "${pcmd[@]}" >"$log.json" 2>"$log.err" || true
	else
		timeout 90 ip netns exec "$pns" "${pcmd[@]}" >"$log.json" \
			2>"$log.err" || true
	fi
	kill -INT "$LP_LAST_PID" 2>/dev/null || true
	wait "$LP_LAST_PID" 2>/dev/null || true
	if [ -s "$log.json" ]; then
		summary "$log.json" "$name"
	else
		echo "$name: no result (see $log.err)"
	fi
}

"$floor" --json -n "$count" >"$OUT/floor.json"
python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
r=d["rtt_ns"]
print("%-34s p50 %8.0f ns  p99 %8.0f ns  (TSC %.1f MHz)" % ("floor (cache line, CPU0<->CPU1)", r["p50"], r["p99"], d["tsc_hz"]/1e6))' "$OUT/floor.json"

mif="socket=$sock,socket-abstract=no"
run_pair memif-rawping - - "net_memif0,role=server,$mif" "net_memif0,role=client,$mif" rawping
if lp_have dpdk-testpmd; then
	run_pair memif-testpmd - - "net_memif0,role=server,$mif" "net_memif0,role=client,$mif" testpmd
fi
for pmd in af_xdp af_packet; do
	run_pair "$pmd-rawping" "$LP_NS_REFL" "$LP_NS_PROBE" \
		"net_${pmd}0,iface=$LP_IF_REFL" "net_${pmd}0,iface=$LP_IF_PROBE" rawping
	if lp_have dpdk-testpmd; then
		run_pair "$pmd-testpmd" "$LP_NS_REFL" "$LP_NS_PROBE" \
			"net_${pmd}0,iface=$LP_IF_REFL" "net_${pmd}0,iface=$LP_IF_PROBE" testpmd
	fi
done
echo "raw results: $OUT"
