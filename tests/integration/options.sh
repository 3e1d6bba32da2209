#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The report's options and lines, checked on the binary:
#   - bad values of --allow (also a 65th prefix), --rate-limit,
#     --session-timeout, --auth-key, --vlan and --promisc on the kernel
#     backend: one line, exit 2;
#   - reflect --json to a path that cannot be written: exit 2 before EAL
#     opens the port (a net_pcap port whose tx file must not appear);
#   - the prober's start line says SRC -> DST:PORT, a DPDK reflector's its MAC;
#   - the probe report's metadata, summary line and tables (default and -h N);
#   - the reflector's text report lists only the counters that moved, its
#     JSON every counter;
#   - STAMP authenticated mode on the kernel backend (127.0.0.1): the right
#     key answered, a wrong key and no key dropped as dropped.auth;
#   - kernel backend: a closed port reported as such (probes.unreachable), a
#     source port in use named with --sport as the way out.
. "$(dirname "$0")/lib.sh"
lp_begin

usage_err() { # PATTERN CMD...: exit 2 with one line matching PATTERN
	local pat=$1
	shift
	expect 2 "^latprobe: error: $pat" "$@"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err" >&2; fail "'$*': not one line"; }
}

# A kernel reflector on loopback, STAMP only, on a port of our own.
kport=$((20000 + $$ % 20000))
krefl=(reflect --backend kernel --addr 127.0.0.1 --udp-port "$kport" --sockperf-port 0 --echo-port 0)
dp=(-- --addr 198.18.0.1/24)

# 1. Usage errors of the new options.
usage_err "--allow wants A.B.C.D/LEN, not '198.18.0.0/33'" "$LATPROBE" "${krefl[@]}" --allow 198.18.0.0/33
usage_err "--allow wants A.B.C.D/LEN, not 'bogus/8'" "$LATPROBE" "${krefl[@]}" --allow bogus/8
allow=()
for i in $(seq 0 64); do allow+=(--allow "198.19.$i.0/24"); done
usage_err "--allow: at most 64 prefixes" "$LATPROBE" "${krefl[@]}" "${allow[@]}"
# ... and 64 of them are taken (the run ends by -t).
expect 0 "" "$LATPROBE" "${krefl[@]}" "${allow[@]:2}" -t 0.2 -q
usage_err "--rate-limit wants requests a second per source, 1\.\.100000000, not '0'" \
	"$LATPROBE" "${krefl[@]}" --rate-limit 0
usage_err "--session-timeout wants a duration .* not 'soon'" "$LATPROBE" "${krefl[@]}" --stateful --session-timeout soon
usage_err "--session-timeout wants a duration .* not '-1s'" "$LATPROBE" "${krefl[@]}" --stateful --session-timeout -1s
usage_err "--auth-key $WORK/none\.key: No such file or directory" \
	"$LATPROBE" "${krefl[@]}" --auth-key "$WORK/none.key"
usage_err "--auth-key $WORK/none\.key: No such file or directory" \
	"$LATPROBE" probe --backend kernel --auth-key "$WORK/none.key" "127.0.0.1:$kport"
usage_err "--vlan wants a VLAN ID 1\.\.4094, not '0'" "$LATPROBE" probe "${dp[@]}" --vlan 0 198.18.0.2
usage_err "--vlan wants a VLAN ID 1\.\.4094, not '4095'" "$LATPROBE" probe "${dp[@]}" --vlan 4095 198.18.0.2
usage_err "--pcap, --loopback, --peer-mac, --vlan and --promisc need the dpdk backend" \
	"$LATPROBE" probe --backend kernel --promisc 127.0.0.1
usage_err "--pcap, --loopback, --peer-mac, --vlan and --promisc need the dpdk backend" \
	"$LATPROBE" probe --backend kernel --vlan 7 127.0.0.1
usage_err "--promisc needs the dpdk backend" "$LATPROBE" "${krefl[@]}" --promisc

# 2. The reflector's report: text lists what moved, JSON keeps all. 50 STAMP
# probes from a kernel prober: rx, tx and answered.stamp move, nothing else.
LP_BG_LOG=$WORK/krefl.log lp_bg_ns - "$LATPROBE" "${krefl[@]}" -q --json "$WORK/krefl.json"
pid=$LP_LAST_PID
lp_wait_for "$WORK/krefl.log" '^latprobe reflect: ' 20 || { cat "$WORK/krefl.log" >&2; fail "kernel reflector did not start"; }
expect 0 "Received = 50," "$LATPROBE" probe --backend kernel --sport "$((kport + 4))" -n 50 -w 0 "127.0.0.1:$kport"
kill -INT "$pid"
wait "$pid" || fail "kernel reflector exited $?"
awk '/^Reflector on /{on=1; next} on && /^[^ ]/{exit} on' "$WORK/krefl.log" >"$WORK/counters.txt"
grep -qE '^ +answered\.stamp +50$' "$WORK/counters.txt" ||
	{ cat "$WORK/krefl.log" >&2; fail "reflector text report: no 'answered.stamp 50' line"; }
! grep -qE '^ +[a-z_.]+ +0$' "$WORK/counters.txt" ||
	{ cat "$WORK/counters.txt" >&2; fail "reflector text report lists a zero counter"; }
$PY - "$WORK/krefl.json" <<'PY' || fail "reflector JSON does not keep every counter"
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
need = ["rx", "tx", "answered.stamp", "dropped.acl", "dropped.rate_limited",
        "dropped.bad_source", "dropped.low_port", "dropped.loop_port",
        "dropped.auth", "dropped.bad_probe"]
missing = [k for k in need if k not in c]
assert not missing, f"missing {missing}"
assert c["answered.stamp"] == 50 and c["dropped.acl"] == 0, c
PY

# 3. STAMP authenticated mode on the kernel backend.
openssl rand -hex 32 >"$WORK/good.key"
openssl rand -hex 32 >"$WORK/wrong.key"
LP_BG_LOG=$WORK/auth.log lp_bg_ns - "$LATPROBE" "${krefl[@]}" -q \
	--auth-key "$WORK/good.key" --json "$WORK/auth.json"
pid=$LP_LAST_PID
lp_wait_for "$WORK/auth.log" '^latprobe reflect: ' 20 || { cat "$WORK/auth.log" >&2; fail "keyed kernel reflector did not start"; }
grep -q '(authenticated)$' "$WORK/auth.log" || fail "keyed kernel reflector: start line does not say authenticated"
# The kernel backend's start line shows no MAC (it has none of its own).
grep -q '^latprobe reflect: 127\.0\.0\.1/32 on backend 0 (kernel, UDP sockets), ' "$WORK/auth.log" ||
	{ cat "$WORK/auth.log" >&2; fail "kernel reflector's start line"; }
expect 0 "Authenticated \(HMAC-SHA-256\): 0 answers failed verification" \
	"$LATPROBE" probe --backend kernel --sport "$((kport + 4))" -n 100 -w 0 --auth-key "$WORK/good.key" \
	--json "$WORK/kgood.json" "127.0.0.1:$kport"
[ "$(json_get "$WORK/kgood.json" probes/received)" -eq 100 ] || fail "right key: not 100 answers"
expect 5 "" "$LATPROBE" probe --backend kernel --sport "$((kport + 4))" -n 20 -w 0 --timeout 20ms \
	--auth-key "$WORK/wrong.key" --json "$WORK/kwrong.json" "127.0.0.1:$kport"
[ "$(json_get "$WORK/kwrong.json" probes/received)" -eq 0 ] || fail "wrong key answered"
expect 5 "" "$LATPROBE" probe --backend kernel --sport "$((kport + 4))" -n 20 -w 0 --timeout 20ms "127.0.0.1:$kport"
kill -INT "$pid"
wait "$pid" || fail "keyed kernel reflector exited $?"
[ "$(json_get "$WORK/auth.json" counters/answered.stamp)" -eq 100 ] || fail "keyed reflector: answered.stamp not 100"
[ "$(json_get "$WORK/auth.json" counters/dropped.auth)" -eq 40 ] ||
	fail "keyed reflector: dropped.auth is $(json_get "$WORK/auth.json" counters/dropped.auth), expected 40"

# 4. Kernel backend: a closed port is reported as closed (ICMP port
# unreachable, probes.unreachable), not as plain loss; a source port in use
# is named with the way out.
closed=$((kport + 1))
expect 5 "127\.0\.0\.1:$closed answered ICMP port unreachable: nothing listens there \(5 times\)" \
	"$LATPROBE" probe --backend kernel --sport "$((kport + 2))" -n 5 -w 0 --timeout 50ms \
	--json "$WORK/closed.json" "127.0.0.1:$closed"
[ "$(json_get "$WORK/closed.json" probes/unreachable)" -eq 5 ] || fail "closed port: probes.unreachable is not 5"
$PY -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(10)' "$((kport + 3))" "$WORK/held" &
holder=$!
LP_BG_PIDS+=("$holder")
# Python's start-up takes more than half a second on a loaded machine.
for ((i = 0; i < 100; i++)); do [ -e "$WORK/held" ] && break; sleep 0.1; done
expect 4 "^latprobe: error: kernel UDP socket 127\.0\.0\.1:$((kport + 3)) -> 127\.0\.0\.1:$closed: Address already in use \(the source port is in use: --sport N picks another\)$" \
	"$LATPROBE" probe --backend kernel --addr 127.0.0.1 --sport "$((kport + 3))" -n 5 "127.0.0.1:$closed"
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true

[ "$(id -u)" -eq 0 ] || lp_skip "the rest needs root (DPDK)"
hp=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)
[ "${hp:-0}" -ge 64 ] || lp_skip "the rest needs hugepages"

# 5. reflect --json to a path that cannot be written: exit 2, and the port
# (a net_pcap writing its tx to a file) never opened.
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$WORK/empty.pcap"
usage_err "--json /nonexistent-dir/x: cannot write it" "$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" \
	--vdev "net_pcap0,rx_pcap=$WORK/empty.pcap,tx_pcap=$WORK/rtx.pcap" \
	-- --addr 198.18.0.2/24 -t 1 -q --json /nonexistent-dir/x
[ ! -e "$WORK/rtx.pcap" ] || fail "reflect --json unwritable: the port was opened"

# 6. Start lines: the prober's source first, the DPDK reflector's MAC.
expect 0 "^latprobe probe: 198\.18\.0\.1 -> 198\.18\.0\.2:862 " \
	"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
	--loopback -n 20 -q 198.18.0.2
expect 0 "^latprobe reflect: 198\.18\.0\.2/24 on port 0 \(net_null0, net_null, MAC ([0-9a-f]{2}:){5}[0-9a-f]{2}\)" \
	"$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" --vdev net_null0,no-rx=1 \
	-- --addr 198.18.0.2/24 -t 0.5 -q

# 7. The report: when/where/what and the summary line (text and JSON); the
# default table is log-spaced around the bulk with a cumulative % column
# (at most ~20 rows, counts adding up), -h N keeps N equal-width rows with it.
# --details: the bucket table and the command line are in the full report
# (the default view shows the table only with -h).
ringp=(probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 --loopback -n 2000 -q --details)
expect 0 "" "$LATPROBE" "${ringp[@]}" --json "$WORK/auto.json" 198.18.0.2
cp "$WORK/out" "$WORK/auto.txt"
expect 0 "" "$LATPROBE" "${ringp[@]}" -h 5 --json "$WORK/lin.json" 198.18.0.2
cp "$WORK/out" "$WORK/lin.txt"
$PY - "$WORK/auto.txt" "$WORK/auto.json" "$WORK/lin.txt" "$WORK/lin.json" <<'PY' || fail "report layout"
import json, re, sys

def table(path):
    rows, on = [], False
    for line in open(path):
        if re.match(r"^ +Latency +Count +Cum %$", line):
            on = True
            continue
        if on:
            m = re.match(r"^ +(\S+) +(\d+) +(\d+\.\d\d)$", line)
            if not m:
                break
            rows.append((m[1], int(m[2]), float(m[3])))
    assert rows, f"{path}: no 'Latency Count Cum %' table"
    n, cum = sum(r[1] for r in rows), 0
    assert n == 2000, f"{path}: the table counts {n}, not 2000"
    for _, c, pct in rows:
        cum += c
        assert abs(pct - 100.0 * cum / n) < 0.01, f"{path}: Cum % {pct} is not {100.0 * cum / n:.2f}"
    return rows

def meta(txt, js):
    text = open(txt).read()
    d = json.load(open(js))
    assert re.search(r"^Measured \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ on \S+, 198\.18\.0\.1 -> "
                     r"198\.18\.0\.2:862 via net_ring0 \(net_ring\)$", text, re.M), f"{txt}: no 'Measured' line"
    assert re.search(r"^Command: latprobe probe --profile ring .* 198\.18\.0\.2$", text, re.M), f"{txt}: no 'Command' line"
    last = text.rstrip("\n").split("\n")[-1]
    assert re.match(r"^summary: 198\.18\.0\.2:862 stamp 44B  min \S+ p50 \S+ p99 \S+ p99\.9 \S+ max \S+  "
                    r"loss 0\.00% \(0/2000\)$", last), f"{txt}: last line {last!r}"
    assert d["summary"] == last, "JSON summary is not the text's last line"
    for k in ("start_utc", "host", "source", "interface", "command"):
        assert d.get(k), f"{js}: no {k}"
    return d

a, l = table(sys.argv[1]), table(sys.argv[3])
da, dl = meta(sys.argv[1], sys.argv[2]), meta(sys.argv[3], sys.argv[4])
assert len(a) <= 24, f"default table: {len(a)} rows"
assert da["buckets_layout"] == "auto", da["buckets_layout"]
assert len(l) == 5 and dl["buckets_layout"] == "linear", (len(l), dl["buckets_layout"])
assert [b["cum_pct"] for b in dl["buckets"]][-1] == 100.0
print(f"report: default table {len(a)} rows, -h 5 {len(l)} rows, metadata and summary line")
PY
echo "$LP_PROG: ok"
