#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Command-line contract: --help exits 0; bad input gives one clear line and
# exit 2; an unreachable peer exits 3; a missing port exits 4.
. "$(dirname "$0")/lib.sh"
lp_begin


expect 0 'usage: latprobe SUBCOMMAND' "$LATPROBE" --help
expect 0 'examples:' "$LATPROBE" probe --help
expect 0 'examples:' "$LATPROBE" reflect --help
expect 0 'examples:' "$LATPROBE" info --help
expect 0 'examples:' "$LATPROBE" plot --help
# -h is help wherever it is, except in probe (buckets there).
expect 0 'usage: latprobe info' "$LATPROBE" info -h --
expect 0 'usage: latprobe reflect' "$LATPROBE" reflect -l 0 -h -- --addr 198.18.0.2/24
expect 2 'unknown subcommand' "$LATPROBE" frobnicate
expect 2 'usage' "$LATPROBE"
expect 2 "-n wants a count" "$LATPROBE" probe -- --addr 198.18.0.1/24 -n abc 198.18.0.2
expect 2 "-l wants a size" "$LATPROBE" probe -- --addr 198.18.0.1/24 -l -5 198.18.0.2
expect 2 "too small for stamp" "$LATPROBE" probe -- --addr 198.18.0.1/24 -l 10 198.18.0.2
expect 2 "-l 0 is too small for stamp \(at least 44 bytes\)" "$LATPROBE" probe -- --addr 198.18.0.1/24 -l 0 198.18.0.2
expect 2 "-h wants a bucket count 1..10000 or up to 64 ascending" "$LATPROBE" probe -- --addr 198.18.0.1/24 -h 100000 198.18.0.2
expect 2 "--proto wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 --proto carrier-pigeon 198.18.0.2
expect 2 "no TARGET" "$LATPROBE" probe -- --addr 198.18.0.1/24
expect 2 "an IPv6 target is probed alone" "$LATPROBE" probe -- --addr 198.18.0.1/24 --addr 2001:2::1/64 198.18.0.2 2001:2::2
expect 2 "an IPv6 target is probed alone" "$LATPROBE" probe --backend kernel 2001:2::2 2001:2::3
expect 2 "TARGET wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 198.18.0.300
expect 2 "--addr A.B.C.D/LEN is required" "$LATPROBE" probe -- 198.18.0.2
expect 2 "--addr wants" "$LATPROBE" probe -- --addr 198.18.0.1/33 198.18.0.2
expect 2 "--addr wants" "$LATPROBE" probe -- --addr /24 198.18.0.2
expect 2 "TARGET wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 198.18.0.2:0
expect 2 "TARGET wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 198.18.0.2:70000
expect 2 "more than a UDP datagram" "$LATPROBE" probe -- --addr 198.18.0.1/24 -l 64k 198.18.0.2
expect 2 "-l does not apply to tcp-syn" "$LATPROBE" probe -- --addr 198.18.0.1/24 --proto tcp-syn -l 100 198.18.0.2
expect 2 "runs stamp, sockperf and udp-echo" "$LATPROBE" probe --backend kernel --proto icmp 198.18.0.2
expect 2 "takes no EAL options" "$LATPROBE" probe -l 0 -- --backend kernel 198.18.0.2
expect 2 "takes no EAL options" "$LATPROBE" reflect -l 0 -- --backend kernel --addr 198.18.0.2
expect 2 "-h wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 -h 50,20 198.18.0.2
expect 2 "-t wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 -t soon 198.18.0.2
expect 2 "--peer-mac wants" "$LATPROBE" probe -- --addr 198.18.0.1/24 --peer-mac 01:02 198.18.0.2
expect 2 "unknown or incomplete option" "$LATPROBE" probe -- --addr 198.18.0.1/24 --bogus 198.18.0.2
expect 2 "--udp-port wants" "$LATPROBE" reflect -- --addr 198.18.0.2/24 --udp-port 70000
expect 2 "--addr A.B.C.D/LEN is required" "$LATPROBE" reflect --
expect 2 "profile 'no-such-profile' not found.*profiles:.* veth-afxdp-probe" "$LATPROBE" probe --profile no-such-profile -- --addr 198.18.0.1/24 198.18.0.2
# Options on the wrong side of '--' are refused in one line, before EAL runs
# (no EAL usage dump, no run with 10,000 probes).
expect 2 "-n 100 before '--' would set DPDK's memory channels" \
	"$LATPROBE" probe --profile veth-afxdp-probe -n 100 -- --addr 198.18.0.1/24 198.18.0.2
expect 2 "-l 8k before '--' would set DPDK's lcore list.*probe size goes after" \
	"$LATPROBE" probe --profile veth-afxdp-probe -l 8k -- --addr 198.18.0.1/24 198.18.0.2
expect 2 "the bucket option -h goes after '--'" "$LATPROBE" probe -h 100 -- --addr 198.18.0.1/24 198.18.0.2
expect 2 "--profile is an EAL option but no '--' follows" \
	"$LATPROBE" probe --profile veth-afxdp-probe --addr 198.18.0.1/24 198.18.0.2
expect 2 "no '--' follows" "$LATPROBE" info --profile ring
expect 2 "-l is an EAL option" "$LATPROBE" reflect -l 0 --addr 198.18.0.2/24
expect 2 "'198.18.0.2' before '--'" "$LATPROBE" probe --profile ring 198.18.0.2 -- --addr 198.18.0.1/24
# Every option each subcommand's --help lists that EAL does not have.
eal_long=" allow base-virtaddr block create-uio-dev file-prefix force-max-simd-bitwidth help huge-dir huge-unlink huge-worker-stack in-memory iova-mode lcores legacy-mem log-level main-lcore match-allocations mbuf-pool-ops-name no-hpet no-huge no-pci no-shconf no-telemetry proc-type single-file-segments socket-limit socket-mem syslog telemetry trace trace-bufsz trace-dir trace-mode vdev vfio-intr vfio-vf-token vmware-tsc-map profile "
for sub in probe reflect info doctor plot; do
	n=0
	for o in $("$LATPROBE" "$sub" --help | grep -oE '^ +--[a-z0-9-]+' | tr -d ' ' | sort -u); do
		case "$eal_long" in *" ${o#--} "*) continue ;; esac
		expect 2 "latprobe $sub's $o goes after '--'" "$LATPROBE" "$sub" "$o" x -- --addr 198.18.0.1/24 198.18.0.2
		[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "$sub $o before '--': more than one line"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || fail "no option found in 'latprobe $sub --help'"
done
for o in -t -w -i -q; do
	expect 2 "latprobe probe's $o goes after '--'" "$LATPROBE" probe "$o" 1 -- --addr 198.18.0.1/24 198.18.0.2
done
# Exactly one line on stderr for a usage error.
"$LATPROBE" probe -- --addr 198.18.0.1/24 -n abc 198.18.0.2 2>"$WORK/err" >/dev/null || true
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "a usage error printed more than one line"

[ "$(id -u)" -eq 0 ] || lp_skip "the rest needs root (DPDK)"
hp=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)
[ "${hp:-0}" -ge 64 ] || lp_skip "the rest needs hugepages"
expect 4 "no DPDK port 0" "$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" -- --addr 198.18.0.1/24 198.18.0.2
# The EAL options of the DPDK built against (app/cli.c's table): 24.11's
# --log-timestamp, --log-color and --syslog without a facility pass the
# check and the real EAL takes them; before 24.11 they are refused in one line.
dv=$(pkg-config --modversion libdpdk 2>/dev/null || echo 0)
if [ "$(printf '%s\n' 24.11 "$dv" | sort -V | head -1)" = 24.11 ]; then
	expect 0 "^port 0: net_null0 " "$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --log-timestamp \
		--log-color=never --vdev net_null0 -- --calibrate 100ms
	expect 0 "^port 0: net_null0 " "$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --syslog \
		--vdev net_null0 -- --calibrate 100ms
else
	expect 2 "--log-timestamp before '--' is not an EAL option" \
		"$LATPROBE" info "${EAL_COMMON[@]}" --log-timestamp -- --calibrate 100ms
	expect 2 "--log-color before '--' is not an EAL option" \
		"$LATPROBE" info "${EAL_COMMON[@]}" --log-color=never -- --calibrate 100ms
fi
# A net_null port swallows everything: nobody answers ARP.
expect 3 "no ARP answer from 198.18.0.2" "$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" \
	--vdev net_null0 -- --addr 198.18.0.1/24 --arp-timeout 500ms -q 198.18.0.2
# SIGINT while resolving the peer: one line that says so, exit 0.
"$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" --vdev net_null0 -- --addr 198.18.0.1/24 \
	--arp-timeout 30s -q 198.18.0.2 >"$WORK/out" 2>"$WORK/err" &
pid=$!
sleep 3
kill -INT $pid
rc=0
wait $pid || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/err" >&2; fail "SIGINT during ARP: exit $rc"; }
grep -q "^latprobe probe: interrupted while resolving 198.18.0.2 by ARP; no probe was sent$" "$WORK/err" ||
	{ cat "$WORK/err" >&2; fail "SIGINT during ARP printed no line saying so"; }
# With --peer-mac it sends into the void: every probe lost, exit 5, report still complete.
expect 5 "Lost = 5" "$LATPROBE" probe -l 0 "${EAL_COMMON[@]}" --vdev net_null0 \
	-- --addr 198.18.0.1/24 --peer-mac 02:00:00:00:00:02 -n 5 -w 0 --timeout 10ms -q \
	--json "$WORK/lost.json" 198.18.0.2
[ "$(json_get "$WORK/lost.json" probes/lost)" -eq 5 ] || fail "lost probes not in the JSON"
# --json -: stdout is the JSON alone (the text report goes to stderr).
"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
	--loopback -n 50 -q --json - 198.18.0.2 >"$WORK/stdout.json" 2>/dev/null ||
	fail "--json - run failed"
[ "$(json_get "$WORK/stdout.json" probes/received)" -eq 50 ] || fail "--json - stdout is not the JSON"
echo "$LP_PROG: ok"
