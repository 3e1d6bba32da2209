#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --hlog against HdrHistogram's own reader (Java, Debian's
# libhdrhistogram-java): HistogramLogProcessor and HistogramLogReader read
# our interval log; their count equals the JSON's and their percentiles
# agree with the JSON's within one bucket, for every tag. Also: an
# unwritable --hlog path is exit 2 before anything is sent, and a run
# stopped by SIGINT leaves a complete log (every probe of the JSON in it).
. "$(dirname "$0")/lib.sh"
JAR=/usr/share/java/hdrhistogram.jar
lp_have javac && lp_have java ||
	lp_skip "needs a JDK (default-jdk-headless; tools/setup installs it, test-only)"
[ -r "$JAR" ] ||
	lp_skip "needs libhdrhistogram-java (tools/setup installs it, test-only)"
need_env
lp_begin
javac -cp "$JAR" -d "$WORK" "$LP_TOP/tests/java/HdrCheck.java" || fail "javac"
CP=$JAR:$WORK
PROBE=("$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24
	--loopback -q)

# 1. A path that cannot be written: usage error, nothing runs.
rc=0
"${PROBE[@]}" -n 100 --hlog /nonexistent-dir/x.hlog 198.18.0.2 \
	>"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
[ "$rc" -eq 2 ] || fail "unwritable --hlog: exit $rc, want 2"
grep -q -- '--hlog /nonexistent-dir/x.hlog' "$WORK/bad.err" ||
	fail "unwritable --hlog: no message naming it: $(cat "$WORK/bad.err")"
grep -q 'Sent' "$WORK/bad.out" && fail "unwritable --hlog: it probed anyway"
rc=0
"${PROBE[@]}" -n 100 --hlog - 198.18.0.2 >/dev/null 2>"$WORK/dash.err" || rc=$?
[ "$rc" -eq 2 ] || fail "--hlog -: exit $rc, want 2 (stdout carries the report)"
rc=0
"${PROBE[@]}" -n 100 --hlog-interval 1ms --hlog "$WORK/x.hlog" 198.18.0.2 \
	>/dev/null 2>"$WORK/iv.err" || rc=$?
[ "$rc" -eq 2 ] || fail "--hlog-interval 1ms: exit $rc, want 2"

# $1 hlog, $2 json, $3 tag, $4 JSON series, $5 minimum intervals
check_tag() {
	local hlog=$1 json=$2 tag=$3 series=$4 min_iv=$5
	java -cp "$CP" HdrCheck hlog "$hlog" "$tag" >"$WORK/$tag.java" ||
		fail "HistogramLogReader could not read $hlog"
	java -cp "$CP" org.HdrHistogram.HistogramLogProcessor -i "$hlog" \
		-o "$WORK/proc-$tag" -tag "$tag" -outputValueUnitRatio 1 \
		>"$WORK/proc-$tag.log" 2>&1 ||
		{ cat "$WORK/proc-$tag.log" >&2; fail "HistogramLogProcessor failed"; }
	$PY - "$json" "$series" "$WORK/$tag.java" "$WORK/proc-$tag.hgrm" "$min_iv" <<'PYEOF' ||
import json, re, sys
rep, series, jout, hgrm, min_iv = sys.argv[1:6]
s = json.load(open(rep))[series]
lines = open(jout).read().split("\n")
f = lines[0].split()
n_iv = int(lines[1])
count, jmin, jmax = int(f[0]), int(f[1]), int(f[2])
pj = dict(zip(["p50", "p90", "p99", "p99_9", "p99_99"], map(int, f[4:9])))

def width(v):  # one HdrHistogram bucket at v (2 digits, lowest 1)
    return max(1, 1 << max(0, v.bit_length() - 8))

err = []
if n_iv < int(min_iv):
    err.append("only %d intervals" % n_iv)
if count != s["count"]:
    err.append("Java count %d, JSON %d" % (count, s["count"]))
for k, v in pj.items():
    if s[k] is None:  # too few samples for it: no figure to agree with
        continue
    if abs(v - s[k]) > width(s[k]):
        err.append("%s: Java %d, JSON %d" % (k, v, s[k]))
for k, v in (("min", jmin), ("max", jmax)):
    if abs(v - s[k]) > width(s[k]):
        err.append("%s: Java %d, JSON %d" % (k, v, s[k]))
# HistogramLogProcessor's own summary and percentile rows
txt = open(hgrm).read()
m = re.search(r"Total count *= *(\d+)", txt)
if m is None or int(m.group(1)) != s["count"]:
    err.append("HistogramLogProcessor total %s, JSON %d"
               % (m and m.group(1), s["count"]))
m = re.search(r"#\[Max *= *([0-9.]+)", txt)
if m is None or abs(float(m.group(1)) - s["max"]) > width(s["max"]):
    err.append("HistogramLogProcessor max %s, JSON %d"
               % (m and m.group(1), s["max"]))
rows = [tuple(map(float, l.split()[:2])) for l in txt.split("\n")
        if re.match(r"^ *[0-9]", l)]
for k, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99_9", 0.999)):
    # the value at p lies between the rows around p
    if s[k] is None:
        continue
    below = [v for v, q in rows if q <= p]
    above = [v for v, q in rows if q >= p]
    lo = below[-1] if below else rows[0][0]
    hi = above[0] if above else rows[-1][0]
    if not (lo - width(s[k]) <= s[k] <= hi + width(s[k])):
        err.append("%s: JSON %d outside HistogramLogProcessor's %g..%g"
                   % (k, s[k], lo, hi))
if err:
    print("\n".join(err))
    sys.exit(1)
print("%s: %d values in %d intervals; p50 %s p99 %s p99.99 %s agree"
      % (series, count, n_iv, s["p50"], s["p99"], s["p99_99"]))
PYEOF
		fail "$tag: Java disagrees with the JSON"
}

# 2. A timed run, 500 ms intervals.
"${PROBE[@]}" -t 3 -n 100000000 --hlog-interval 500ms --hlog "$WORK/run.hlog" \
	--json "$WORK/run.json" 198.18.0.2 >"$WORK/run.out" 2>"$WORK/run.err" ||
	{ cat "$WORK/run.err" >&2; fail "timed run: exit $?"; }
check_tag "$WORK/run.hlog" "$WORK/run.json" rtt rtt_ns 5
check_tag "$WORK/run.hlog" "$WORK/run.json" network_rtt network_rtt_ns 5
check_tag "$WORK/run.hlog" "$WORK/run.json" turnaround turnaround_ns 5
check_tag "$WORK/run.hlog" "$WORK/run.json" forward forward_ns 5
check_tag "$WORK/run.hlog" "$WORK/run.json" reverse reverse_ns 5
head -5 "$WORK/run.hlog" | grep -q '^#\[BaseTime: ' || fail "no BaseTime line"

# 3. SIGINT: the last partial interval is written, the log is complete.
"${PROBE[@]}" -t 30 -n 1000000000 --hlog "$WORK/int.hlog" \
	--json "$WORK/int.json" 198.18.0.2 >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
lp_cleanup_push "kill $pid 2>/dev/null || true"
for _ in $(seq 100); do
	grep -q '^Tag=rtt' "$WORK/int.hlog" 2>/dev/null && break
	sleep 0.1
done
sleep 0.7
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/int.err" >&2; fail "SIGINT run: exit $rc"; }
[ "$(json_get "$WORK/int.json" interrupted)" = True ] || fail "not interrupted?"
check_tag "$WORK/int.hlog" "$WORK/int.json" rtt rtt_ns 2

# 4. The reflector's --hlog (Tag=turnaround) over memif, stopped by SIGINT.
sock=$LP_RUN_DIR/${LP_NS_PREFIX}hlog.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }
rm -f "$sock"
start_reflector - -l 0 "${EAL_COMMON[@]}" --vdev "$(memif server)" \
	-- --addr 198.18.0.2/24 -q --hlog "$WORK/refl.hlog" \
	--hlog-interval 200ms --json "$WORK/refl.json"
"$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$(memif client)" \
	-- --addr 198.18.0.1/24 -n 20000 -q 198.18.0.2 \
	>"$WORK/rp.out" 2>"$WORK/rp.err" ||
	{ cat "$WORK/rp.err" >&2; fail "probe to the reflector: exit $?"; }
sleep 0.5
stop_reflector
[ "$REFL_RC" -eq 0 ] || { cat "$WORK/refl.log" >&2; fail "reflector exit $REFL_RC"; }
check_tag "$WORK/refl.hlog" "$WORK/refl.json" turnaround turnaround_ns 2
echo "$LP_PROG: ok"
