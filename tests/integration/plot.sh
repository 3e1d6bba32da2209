#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# latprobe plot: bad input gives one line and exit 2; the page of two real
# runs (ring loopback) is rendered by Debian's headless Chromium, which must
# load it without a console message, and its DOM must hold one series per
# run in each chart. Exit 77 when Chromium is not installed.
. "$(dirname "$0")/lib.sh"
lp_begin

LP_EXPECT_STDERR=1
LP_EXPECT_ONE_LINE=1

SEED=$LP_TOP/tests/fuzz/plot/corpus_plot_json/probe_stamp_1k.json

# Bad input: one clear line, exit 2, no page.
expect 2 "no RUN.json" "$LATPROBE" plot -o "$WORK/x.html"
expect 2 "-o FILE is required" "$LATPROBE" plot "$SEED"
expect 2 "$WORK/missing.json: cannot read it: No such file" \
	"$LATPROBE" plot "$WORK/missing.json" -o "$WORK/x.html"
expect 2 "cannot read it: Is a directory" "$LATPROBE" plot "$WORK" -o "$WORK/x.html"
printf 'not json at all\n' >"$WORK/text.json"
expect 2 "text.json: not JSON" "$LATPROBE" plot "$WORK/text.json" -o "$WORK/x.html"
head -c 300 "$SEED" >"$WORK/cut.json"
expect 2 "cut.json: not JSON \(it ends in the middle\)" "$LATPROBE" plot "$WORK/cut.json" -o "$WORK/x.html"
printf '{"counters":{"answered.stamp":5},"duration_s":1.0}\n' >"$WORK/refl.json"
expect 2 "a reflector's report" "$LATPROBE" plot "$WORK/refl.json" -o "$WORK/x.html"
printf '{"rtt_ns":{"count":3,"min":1,"max":5},"buckets":[{"upper_ns":5,"count":2}]}\n' >"$WORK/liar.json"
expect 2 "hold 2 round trips but rtt_ns.count says 3" "$LATPROBE" plot "$WORK/liar.json" -o "$WORK/x.html"
expect 2 "not a latprobe --samples CSV" "$LATPROBE" plot "$SEED" --samples "$SEED" -o "$WORK/x.html"
expect 2 "2 --label for 1 run" "$LATPROBE" plot "$SEED" --label a --label b -o "$WORK/x.html"
expect 2 "unknown or incomplete option '--bogus'" "$LATPROBE" plot "$SEED" --bogus -o "$WORK/x.html"
expect 2 "-o $WORK/no/such/dir/x.html: cannot write it" "$LATPROBE" plot "$SEED" -o "$WORK/no/such/dir/x.html"
many=()
for i in $(seq 50); do many+=("$SEED"); done
expect 2 "more than 32 runs; one page holds at most 32" "$LATPROBE" plot "${many[@]}" -o "$WORK/x.html"
[ ! -e "$WORK/x.html" ] || fail "a page was written for bad input"
# Every option plot --help lists is taken (here with a value that fits).
for o in $("$LATPROBE" plot --help | grep -oE '^ +(-[a-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u); do
	case $o in
	--help) args=(--help) ;;
	--output) args=(--output "$WORK/opt.html") ;;
	--samples | --hlog) args=("$o" '' -o "$WORK/opt.html") ;;
	--series) args=(--series rtt -o "$WORK/opt.html") ;;
	--unaffected) continue ;; # below: it needs a report with the series
	*) args=("$o" value -o "$WORK/opt.html") ;;
	esac
	expect 0 "" "$LATPROBE" plot "$SEED" "${args[@]}"
done
# --unaffected draws rtt_ns_unaffected: a report with stall
# detection on has it, one without is refused.
STALLS=$LP_TOP/tests/unit/report/golden/probe_stalls.json
expect 0 "" "$LATPROBE" plot "$STALLS" --unaffected -o "$WORK/unaff.html"
grep -q 'class="series"' "$WORK/unaff.html" || fail "--unaffected: no series drawn"
expect 2 "no rtt_ns_unaffected series in this report" "$LATPROBE" plot "$SEED" --unaffected \
	-o "$WORK/x.html"
# The usual "latprobe SUB [EAL] -- [options]" with an empty EAL part.
expect 0 "" "$LATPROBE" plot -- "$SEED" -o "$WORK/dash.html"
expect 2 "latprobe plot's --label goes after '--'" "$LATPROBE" plot --label x -- "$SEED" -o "$WORK/x.html"
# One empty run among others: still a page.
printf '{"probes":{"sent":5,"received":0,"lost":5},"rtt_ns":{"count":0}}\n' >"$WORK/empty.json"
expect 0 "" "$LATPROBE" plot "$SEED" "$WORK/empty.json" -o "$WORK/empty.html"
grep -q 'empty.json: no round trip was recorded' "$WORK/empty.html" || fail "the empty run is not named on the page"

# Two real runs when DPDK can run here (ring loopback), else the seed.
if [ "$(id -u)" -eq 0 ] &&
	[ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)" -ge 64 ]; then
	# Latency over time: the first run from --samples, the second from an
	# --hlog interval log (10 ms intervals: enough probes for several).
	"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
		--loopback -n 3000 -q --json "$WORK/run-44.json" \
		--samples "$WORK/run-44.csv" 198.18.0.2 >/dev/null 2>"$WORK/probe.err" ||
		{ cat "$WORK/probe.err" >&2; fail "ring run -l 44 failed"; }
	"$LATPROBE" probe --profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 \
		--loopback -n 100000 -l 1k -q --json "$WORK/run-1k.json" \
		--hlog "$WORK/run-1k.hlog" --hlog-interval 10ms 198.18.0.2 >/dev/null 2>"$WORK/probe.err" ||
		{ cat "$WORK/probe.err" >&2; fail "ring run -l 1k failed"; }
	runs=("$WORK/run-44.json" "$WORK/run-1k.json")
	samples=(--samples "$WORK/run-44.csv" --hlog '' --samples '' --hlog "$WORK/run-1k.hlog")
	expect 2 "run 1 \\(.*run-44.json\\) has both --samples and --hlog" \
		"$LATPROBE" plot "${runs[@]}" --samples "$WORK/run-44.csv" --hlog "$WORK/run-1k.hlog" -o "$WORK/x.html"
	expect 2 "--hlog .*run-44.json: line 1 is not an HdrHistogram interval" \
		"$LATPROBE" plot "${runs[@]}" --hlog "$WORK/run-44.json" -o "$WORK/x.html"
else
	echo "$LP_PROG: no root or hugepages: drawing the seed report twice" >&2
	runs=("$SEED" "$SEED")
	samples=()
fi
expect 0 "" "$LATPROBE" plot "${runs[@]}" --label 'small <44B>' --label '1 KiB' \
	"${samples[@]}" --title 'plot.sh & Chromium' -o "$WORK/plot.html"
grep -q "2 runs drawn in $WORK/plot.html" "$WORK/out" || fail "plot did not say where the page is"
$PY - "$WORK/plot.html" <<'EOF' || fail "the page is not well-formed XML with 2 series per chart"
import sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
for svg in root.iter(S + "svg"):
    n = sum(1 for p in svg.iter(S + "path") if p.get("class") == "series")
    assert n == 2, (svg.get("id"), n)
EOF

if [ "${runs[0]}" != "$SEED" ]; then
	# Today's reports carry rtt_ns.hdr: the page's figures are the run's own
	# (the table prints 3 significant digits), not a bucket-table estimate.
	! grep -q 'drawn from its bucket table' "$WORK/plot.html" ||
		fail "a report with rtt_ns.hdr was drawn as approximate"
	$PY - "$WORK/plot.html" "${runs[@]}" <<'EOF' || fail "the page's table does not match the reports"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r"<tr><td><span[^>]*></span>[^<]*</td>(.*?)</tr>", page)
unit = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}
for row, path in zip(rows, sys.argv[2:]):
    cells = re.findall(r"<td>(.*?)</td>", row)
    r = json.load(open(path))["rtt_ns"]
    assert int(cells[0]) == r["count"], (cells[0], r["count"])
    for cell, key in zip(cells[1:6], ["min", "p50", "p99", "p99_9", "max"]):
        if r[key] is None:  # too few samples: no figure on either side
            assert cell == "-", (key, cell)
            continue
        v, u = cell.split(" ")
        got = float(v) * unit[u]
        assert abs(got - r[key]) <= 0.005 * r[key] + 0.5, (key, cell, r[key])
assert len(rows) == len(sys.argv) - 2, rows
EOF
	# --series forward: the one-way forward delays of the same runs (issue
	# 28), the table's count that of forward_ns; --samples refused with it.
	expect 0 "" "$LATPROBE" plot "${runs[@]}" --series forward -o "$WORK/fwd.html"
	$PY - "$WORK/fwd.html" "${runs[@]}" <<'EOF' || fail "the forward page's table does not match forward_ns"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r"<tr><td><span[^>]*></span>[^<]*</td>(.*?)</tr>", page)
for row, path in zip(rows, sys.argv[2:]):
    cells = re.findall(r"<td>(.*?)</td>", row)
    f = json.load(open(path))["forward_ns"]
    assert int(cells[0]) == f["count"] > 0, (cells[0], f["count"])
assert len(rows) == len(sys.argv) - 2, rows
EOF
	expect 2 "--samples draws rtt_ns only" "$LATPROBE" plot "${runs[0]}" --series forward \
		--samples "$WORK/run-44.csv" -o "$WORK/x.html"
	expect 2 "--series: rtt, network_rtt" "$LATPROBE" plot "${runs[0]}" --series sideways -o "$WORK/x.html"
fi

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || lp_skip "chromium is not installed (tools/setup installs it as a test-only package; apt-get install chromium)"

# render PAGE NAME: DOM in $WORK/NAME.dom, log in $WORK/NAME.log, screenshot
# in $WORK/NAME.png. A private profile; nothing but the file is opened.
render() {
	local flags=(--headless --disable-gpu --no-sandbox --no-first-run
		--user-data-dir="$WORK/chromium-$2" --disable-background-networking
		--disable-component-update --enable-logging=stderr --v=0)
	timeout 120 "$CHROMIUM" "${flags[@]}" --dump-dom "file://$1" \
		>"$WORK/$2.dom" 2>"$WORK/$2.log" || fail "chromium --dump-dom exited $?"
	timeout 120 "$CHROMIUM" "${flags[@]}" --window-size=1000,2200 \
		--screenshot="$WORK/$2.png" "file://$1" >>"$WORK/$2.log" 2>&1 ||
		fail "chromium --screenshot exited $?"
}
# Console messages (errors, failed loads) are logged as ...:CONSOLE...
console_errors() { grep -E ':CONSOLE|Failed to load|ERR_FILE_NOT_FOUND|Uncaught' "$1" || true; }

# The detector itself: a page with a console error must be caught.
cat >"$WORK/bad.html" <<'EOF'
<!DOCTYPE html><html><body><p>bad</p><script>console.error("plot.sh canary");</script></body></html>
EOF
render "$WORK/bad.html" bad
console_errors "$WORK/bad.log" | grep -q 'plot.sh canary' ||
	fail "the console-error check does not see a console.error (chromium log format changed?)"

render "$WORK/plot.html" plot
errs=$(console_errors "$WORK/plot.log")
[ -z "$errs" ] || fail "the page logged to the console: $errs"
[ -s "$WORK/plot.png" ] || fail "no screenshot"
png_size=$(stat -c %s "$WORK/plot.png")
[ "$png_size" -gt 20000 ] || fail "the screenshot is only $png_size bytes (blank page?)"
# What the browser built: each chart holds one series per run, the time
# chart too (both runs have samples), and the legends name them.
$PY - "$WORK/plot.dom" "${#samples[@]}" <<'EOF' || fail "the rendered DOM does not hold one series per run"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.svg = None; s.series = {}; s.legend = []; s.inleg = False; s.urls = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        for k in ("src", "href"):
            if k in a: s.urls.append(a[k])
        if tag == "svg": s.svg = a.get("id"); s.series[s.svg] = set()
        if tag == "path" and a.get("class") == "series": s.series[s.svg].add(a.get("data-run"))
        s.inleg = tag == "text" and a.get("class") == "legend-label"
    def handle_data(s, d):
        if s.inleg: s.legend.append((s.svg, d)); s.inleg = False
p = P(); p.feed(open(sys.argv[1]).read())
want = ["spectrum", "histogram", "cdf"] + (["time"] if int(sys.argv[2]) else [])
assert sorted(p.series) == sorted(want), p.series
for c in want:
    assert p.series[c] == {"0", "1"}, (c, p.series[c])
    assert (c, "small <44B>") in p.legend and (c, "1 KiB") in p.legend, p.legend
assert not p.urls, p.urls
print("dom ok:", {c: len(v) for c, v in p.series.items()})
EOF
echo "$LP_PROG: ok (screenshot $png_size bytes)"
