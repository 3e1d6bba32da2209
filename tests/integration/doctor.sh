#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# latprobe doctor for real on this machine: every check reports a value read
# here (no "cannot read/parse"), the JSON parses and holds the same checks,
# the exit code follows the documented rule (0 unless a check fails), and
# bad options are usage errors. Then probe's one-line start summary, and
# --no-doctor.
. "$(dirname "$0")/lib.sh"
lp_begin
NAMES="tsc_invariant clocksource tsc_rate cpufreq isolation smt irq_affinity cstates thp hugepages numa steal runnable"
CLOCK_NAMES="clock_sync clock_error clock_ptp" # after the host's (and MANA's)
# A host with a MANA device (PCI 1414:00ba) gets five checks more.
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor" 2>/dev/null):$(cat "$d/device" 2>/dev/null)" = 0x1414:0x00ba ] &&
		NAMES="$NAMES mana_kernel mana_modules mana_libmana mana_iface mana_pmd" && break
done
NAMES="$NAMES $CLOCK_NAMES"

# check_doc TEXT JSON RC: the text and JSON of one run agree and are whole.
check_doc() {
	$PY - "$1" "$2" "$3" "$NAMES" <<'PYEOF' || fail "doctor output: see above"
import json, re, sys
text, js, rc, names = open(sys.argv[1]).read().splitlines(), sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
d = json.load(open(js))
got = [c["name"] for c in d["checks"]]
assert got == names, f"checks {got}, expected {names}"
n = {"ok": 0, "warn": 0, "fail": 0}
for c in d["checks"]:
    assert c["verdict"] in n, c
    n[c["verdict"]] += 1
    assert c["value"].strip(), f"{c['name']}: empty value"
    assert not re.search(r"cannot (read|parse)", c["value"]), f"{c['name']}: {c['value']}"
    assert c["verdict"] == "ok" or c["fix"], f"{c['name']}: {c['verdict']} without a fix"
assert d["summary"] == n, (d["summary"], n)
assert rc == (1 if n["fail"] else 0), f"exit {rc} with {n['fail']} failing check(s)"
# One header line, then one line per check: verdict, name, value [fix].
assert re.match(r"latprobe doctor: lcores \S+, .*; %d checks: %d ok, %d warn, %d fail$" % (len(names), n["ok"], n["warn"], n["fail"]), text[0]), text[0]
lines = text[1:]
assert len(lines) == len(names), f"{len(lines)} check lines"
for line, c in zip(lines, d["checks"]):
    assert line.startswith(f'{c["verdict"]:<4}  {c["name"]:<13} {c["value"]}'), line
    assert ("[fix: " in line) == bool(c["fix"]), line
print("doctor: " + ", ".join(f'{c["name"]}={c["verdict"]}' for c in d["checks"]))
PYEOF
}

rc=0
"$LATPROBE" doctor -- --calibrate 200ms --json "$WORK/d.json" >"$WORK/d.txt" 2>"$WORK/d.err" || rc=$?
cat "$WORK/d.txt"
[ "$rc" -le 1 ] || { cat "$WORK/d.err" >&2; fail "doctor exited $rc"; }
check_doc "$WORK/d.txt" "$WORK/d.json" "$rc"
# The checks that read a number here must show it.
grep -qE '^(ok|warn|fail) +tsc_rate +[0-9]+\.[0-9]+ MHz over 0\.[0-9]+ s' "$WORK/d.txt" ||
	fail "tsc_rate: no measured rate"
grep -qE '^(ok|warn) +steal +[0-9.]+% on CPU [0-9]+' "$WORK/d.txt" || fail "steal: no figure"
grep -qE '^(ok|warn) +runnable .* in 10 scans over 1\.[0-9]+ s' "$WORK/d.txt" || fail "runnable: no sample"
grep -qE "^(ok|warn) +thp +$(sed -E 's/.*\[(.*)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)" \
	"$WORK/d.txt" || fail "thp: not what sysfs says"
grep -qE "^(ok|warn) +clocksource +$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) " \
	"$WORK/d.txt" || fail "clocksource: not what sysfs says"

# --json -: the JSON alone on stdout, the text on stderr.
rc=0
"$LATPROBE" doctor -- --lcores 0 --calibrate 50ms --json - >"$WORK/s.json" 2>"$WORK/s.txt" || rc=$?
check_doc "$WORK/s.txt" "$WORK/s.json" "$rc"
grep -q '^latprobe doctor: lcores 0,' "$WORK/s.txt" || fail "--lcores 0 not taken"

LP_EXPECT_ONE_LINE=1
expect 2 "--lcores wants a list of online CPUs" "$LATPROBE" doctor -- --lcores 4096
expect 2 "--lcores wants a list of online CPUs" "$LATPROBE" doctor -- --lcores 1-0
expect 2 "--lcores wants a list of online CPUs \($(cat /sys/devices/system/cpu/online)\), not '999'" \
	"$LATPROBE" doctor -- --lcores 999
expect 2 "--calibrate wants" "$LATPROBE" doctor -- --calibrate 1ns
expect 2 "unknown or incomplete option '--frobnicate'" "$LATPROBE" doctor -- --frobnicate
expect 2 "unexpected argument 'x'" "$LATPROBE" doctor -- x
expect 2 "--json /nonexistent/d.json: cannot write it" "$LATPROBE" doctor -- --json /nonexistent/d.json
LP_EXPECT_ONE_LINE=0
expect 0 "usage: latprobe doctor" "$LATPROBE" doctor --help

[ "$(id -u)" -eq 0 ] || lp_skip "the DPDK part needs root"
hp=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)
[ "${hp:-0}" -ge 64 ] || lp_skip "the DPDK part needs hugepages"
# A DPDK port: its node and where its mbuf pool's memory is (move_pages).
rc=0
"$LATPROBE" doctor --profile ring --log-level=lib.eal:error -- --calibrate 50ms \
	--json "$WORK/r.json" >"$WORK/r.txt" 2>"$WORK/r.err" || rc=$?
check_doc "$WORK/r.txt" "$WORK/r.json" "$rc"
grep -qE '^(ok|warn) +numa .*port 0 net_ring0 on node [0-9]+, its mbuf pool on node [0-9]+' \
	"$WORK/r.txt" || fail "numa: no port or pool node"
grep -qE '^ok +irq_affinity +port 0 net_ring0: no interrupts' "$WORK/r.txt" ||
	fail "irq_affinity: net_ring0 should have no interrupts"
grep -q '^latprobe doctor: lcores 0, DPDK ports' "$WORK/r.txt" || fail "the EAL's -l 0 is not the lcores"

# probe's start summary: one line, after the start line, on stderr; none
# with --no-doctor.
run_probe() {
	"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
		--loopback -n 200 -q "$@" 198.18.0.2 >"$WORK/p.txt" 2>"$WORK/p.err" ||
		{ cat "$WORK/p.err" >&2; fail "probe $* exited $?"; }
}
run_probe
cat "$WORK/p.err"
[ "$(grep -c '^latprobe probe: doctor: ' "$WORK/p.err")" -eq 1 ] || fail "no doctor line at probe start"
grep -qE '^latprobe probe: doctor: ([0-9]+ host checks ok|[0-9]+ of (11|16) host checks not ok: [a-z_]+)' \
	"$WORK/p.err" || fail "the doctor line does not say what it checked"
# The same verdicts as doctor's own quick checks on the same lcore (0); the
# clock checks are not in the brief (probe says its clock on a line of its own).
want=$($PY -c 'import json,sys
c=[x for x in json.load(open(sys.argv[1]))["checks"] if x["name"] not in ("steal","runnable","tsc_rate","clock_sync","clock_error","clock_ptp") and x["verdict"]!="ok"]
print(", ".join(x["name"] + (" (FAIL)" if x["verdict"]=="fail" else "") for x in c))' "$WORK/r.json")
if [ -n "$want" ]; then
	grep -qF "host checks not ok: $want (" "$WORK/p.err" ||
		fail "probe's doctor line does not name '$want'"
fi
run_probe --no-doctor
! grep -q 'doctor' "$WORK/p.err" || fail "--no-doctor still printed the doctor line"
# The reflector gets it from the same start path, on the kernel backend too
# (no port: its CPUs are the process's).
for nd in "" --no-doctor; do
	"$LATPROBE" reflect --backend kernel --addr 127.0.0.1 --udp-port 40862 \
		--sockperf-port 0 --echo-port 0 -t 0.5 -q $nd >/dev/null 2>"$WORK/k.err" ||
		{ cat "$WORK/k.err" >&2; fail "kernel reflect $nd exited $?"; }
	n=$(grep -c '^latprobe reflect: doctor: ' "$WORK/k.err" || true)
	[ "$n" -eq "$([ -z "$nd" ] && echo 1 || echo 0)" ] ||
		{ cat "$WORK/k.err" >&2; fail "kernel reflect $nd: $n doctor line(s)"; }
done
echo "$LP_PROG: ok"
