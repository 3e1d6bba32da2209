#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# deploy/ is what people run a fleet with (docs/fleet.md); nothing in it may
# rot unnoticed:
#   1. promtool check config / check rules, and promtool test rules: the
#      recording rules give the expected p50/p99/loss on synthetic series and
#      the alerts fire on the pairs they should, and only there;
#   2. check_deploy.py: the Grafana dashboard, the Kubernetes manifests (and
#      `kubectl kustomize`'s output where kubectl is installed), the pinglist
#      grammar, the metric names deploy/ queries;
#   3. make-pinglists: the pair counts of docs/fleet.md for 100 and 1,000
#      hosts, every list valid; the DaemonSets' entrypoint (dry run and
#      linted);
#   4. when latprobe has --metrics: a reflector and a prober (kernel backend,
#      loopback of a namespace of our own) are scraped, their exposition
#      passes promtool check metrics, and every series deploy/ queries must
#      be in what they export;
#   5. then a Prometheus of our own scrapes them with rules.yml: the
#      recording rules give a plausible p50/p99, zero loss, a turnaround.
. "$(dirname "$0")/lib.sh"
lp_begin
D=$LP_TOP/deploy
lp_have promtool || lp_skip "needs promtool (Debian package prometheus; tools/setup installs it)"
# Debian's python3 (python3-yaml), not whatever python3 is first in PATH.
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
$PY -c 'import yaml' 2>/dev/null || lp_skip "needs python3-yaml (tools/setup installs it)"

# 1. promtool.
expect 0 'SUCCESS' promtool check config "$D/prometheus/prometheus.yml"
grep -i 'warning' "$WORK/out" "$WORK/err" && fail "promtool check config warns"
expect 0 'SUCCESS: 1[0-9] rules found' promtool check rules "$D/prometheus/rules.yml"
expect 0 'SUCCESS' promtool test rules "$D/prometheus/rules_test.yml"
echo "$LP_PROG: promtool: config, rules and rule tests pass"

# 2. Dashboard, manifests, lists, metric names.
rendered=()
if lp_have kubectl; then
	timeout 30 kubectl kustomize "$D/kubernetes" >"$WORK/k8s.yaml" 2>"$WORK/k8s.err" ||
		{ cat "$WORK/k8s.err" >&2; fail "kubectl kustomize deploy/kubernetes"; }
	rendered=(--rendered "$WORK/k8s.yaml")
else
	echo "$LP_PROG: kubectl not installed: manifests checked with python3-yaml only"
fi
$PY "$LP_TOP/tests/integration/check_deploy.py" "$LP_TOP" "${rendered[@]}" ||
	fail "check_deploy.py"

# make-pinglists: the pair counts docs/fleet.md's scale table is built on
# (100 and 1,000 hosts in racks of 20), every list valid and never its own
# node.
$PY -c '
for i in range(1000):
    r, h = divmod(i, 20)
    print(f"n{i:04d} 198.18.{r}.{h + 1}/16 198.19.{r}.{h + 1}/16 r{r:02d}")
' >"$WORK/nodes1000"
head -100 "$WORK/nodes1000" >"$WORK/nodes100"
for c in "100 full 9900 99" "100 sampled 1980 27" "1000 sampled 28800 117"; do
	read -r n mode pairs busiest <<<"$c"
	rm -rf "$WORK/pl"
	expect 0 "$n nodes, $((n / 20)) racks, $mode: $pairs pairs, busiest prober $busiest targets" \
		"$PY" "$D/make-pinglists" "$WORK/nodes$n" --out "$WORK/pl" --mode "$mode"
	$PY "$LP_TOP/tests/integration/check_deploy.py" "$LP_TOP" \
		--pinglist-dir "$WORK/pl" "$WORK/nodes$n" "$pairs" || fail "make-pinglists $c"
	grep -q "| ${pairs:0:-3},${pairs: -3} |" "$LP_TOP/docs/fleet.md" ||
		fail "docs/fleet.md does not show the $pairs pairs of $n hosts, $mode"
done
expect 0 '' "$PY" "$D/make-pinglists" "$D/kubernetes/nodes" --out "$WORK/pl4"
grep -qxF '198.18.11.1 label=rack2' "$WORK/pl4/pinglist.node-a" ||
	fail "make-pinglists: node-a's list lacks node-c"
expect 2 'want NODE REFLECT_ADDR/LEN' "$PY" "$D/make-pinglists" "$D/kubernetes/pinglist" --out "$WORK/bad"

# 3. The entrypoint: node-b's prober probes every reflector but its own, on
# the VF the device plugin gave it; the reflector gets node-b's address.
ep=$D/kubernetes/entrypoint.sh
lp_have shellcheck && { shellcheck -s sh "$ep" || fail "shellcheck $ep"; }
epenv=(env NODE_NAME=node-b HOST_IP=198.18.99.2 LATPROBE_CONFIG="$D/kubernetes"
	LATPROBE_RUN="$WORK/run-ep" LATPROBE_DRY_RUN=1 PCIDEVICE_EXAMPLE_COM_VF=0000:00:09.0)
expect 0 '' "${epenv[@]}" taskset -c 0 sh "$ep" probe
grep -qxF -- "latprobe probe --in-memory -l 0 -a 0000:00:09.0 -- --addr 198.18.10.102/24 -q --metrics 198.18.99.2:9863 --forever --targets $WORK/run-ep/pinglist" "$WORK/out" ||
	{ cat "$WORK/out" >&2; fail "entrypoint probe: wrong command"; }
grep -q '^198\.18\.10\.2 ' "$WORK/out" && fail "entrypoint: node-b probes its own reflector"
[ "$(grep -cE '^198\.18\.' "$WORK/out")" -eq 3 ] ||
	{ cat "$WORK/out" >&2; fail "entrypoint: node-b's list is not the 3 other reflectors"; }
expect 0 '^latprobe reflect --in-memory -l 1 -a 0000:00:09.0 -- --addr 198.18.10.2/24 -q --metrics 198.18.99.2:9862$' \
	"${epenv[@]}" taskset -c 0,1 sh "$ep" reflect
expect 0 '^latprobe reflect -l 7 --in-memory -a 0000:00:09.0 -- ' \
	"${epenv[@]}" LATPROBE_EAL='-l 7 --in-memory' sh "$ep" reflect
expect 0 '^latprobe reflect --backend kernel --addr 198.18.99.2 -q --metrics 198.18.99.2:9862$' \
	"${epenv[@]}" NODE_NAME=node-z LATPROBE_BACKEND=kernel sh "$ep" reflect
expect 1 'node node-z has no line' "${epenv[@]}" NODE_NAME=node-z sh "$ep" reflect

# systemd units: the package's (dist/latprobe-{reflect,probe}@.service),
# verified by tests/integration/install.sh.

# 4. The names against a running latprobe.
# (Help into a file first: grep -q closing the pipe early would fail the
# pipeline under pipefail.)
"$LATPROBE" probe --help >"$WORK/probe-help.txt" 2>&1 || true
if ! grep -q -- '--metrics' "$WORK/probe-help.txt"; then
	echo "$LP_PROG: latprobe has no --metrics yet: metric names checked against the fleet list only"
	echo "$LP_PROG: ok"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || lp_skip "needs root for its own namespace (the metric-name check against a running latprobe)"
lp_have curl || lp_skip "needs curl"
ns=${LP_NS_PREFIX}deploy
ip netns del "$ns" 2>/dev/null || true
ip netns add "$ns"
lp_cleanup_push "ip netns del '$ns' 2>/dev/null || true"
ip -n "$ns" link set lo up
LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
	--addr 127.0.0.1 -q -t 60 --metrics 127.0.0.1:9862
LP_BG_LOG=$WORK/probe.log lp_bg_ns "$ns" "$LATPROBE" probe --backend kernel \
	-q -t 55 -i 1ms --metrics 127.0.0.1:9863 127.0.0.1
scrape() { # PORT FILE: wait until the endpoint has latprobe's series
	local _
	for _ in $(seq 50); do
		ip netns exec "$ns" curl -sf --max-time 2 "http://127.0.0.1:$1/metrics" \
			>"$2" 2>/dev/null && grep -q '^latprobe_' "$2" && return 0
		sleep 0.2
	done
	return 1
}
# Both up, and the prober's histogram filled for a second.
scrape 9862 "$WORK/refl.prom" || { cat "$WORK/refl.log" >&2; fail "no /metrics from the reflector"; }
scrape 9863 "$WORK/probe.prom" || { cat "$WORK/probe.log" >&2; fail "no /metrics from the prober"; }
sleep 1
scrape 9863 "$WORK/probe.prom" || fail "no /metrics from the prober"
scrape 9862 "$WORK/refl.prom" || fail "no /metrics from the reflector"
for f in refl probe; do
	promtool check metrics <"$WORK/$f.prom" >"$WORK/$f.lint" 2>&1 ||
		{ cat "$WORK/$f.lint" >&2; fail "promtool check metrics: $f"; }
done
$PY "$LP_TOP/tests/integration/check_deploy.py" "$LP_TOP" \
	--exposition "$WORK/probe.prom" "$WORK/refl.prom" || fail "deploy/ against latprobe's /metrics"

# 5. rules.yml on real data: a Prometheus of our own (in the namespace, 1 s
# scrapes and rule evaluations, the same rules.yml) scrapes the two; the
# recording rules must give a plausible p50/p99 and zero loss for the pair,
# and the reflector's turnaround.
if ! lp_have prometheus; then
	echo "$LP_PROG: no prometheus binary (promtool alone?): rules.yml not evaluated on real data"
	echo "$LP_PROG: ok"
	exit 0
fi
sed -e 's/^  scrape_interval: 15s/  scrape_interval: 1s/' \
	-e 's/^  evaluation_interval: 15s/  evaluation_interval: 1s/' \
	-e 's/^  scrape_timeout: 5s/  scrape_timeout: 1s/' \
	-e "s|^  - rules.yml|  - $D/prometheus/rules.yml|" \
	-e 's/198\.18\.0\.[23]:9862/127.0.0.1:9862/; s/198\.18\.0\.1:9863/127.0.0.1:9863/' \
	"$D/prometheus/prometheus.yml" | grep -v '198\.18\.0\.3:9862' >"$WORK/prom.yml"
if ! grep -q 'scrape_interval: 1s' "$WORK/prom.yml" ||
	! grep -q "$D/prometheus/rules.yml" "$WORK/prom.yml"; then
	fail "could not derive the test's Prometheus config from prometheus.yml"
fi
mkdir -p "$WORK/prom-targets"
sed -i "s|- targets/\*.yml|- $WORK/prom-targets/*.yml|" "$WORK/prom.yml"
expect 0 SUCCESS promtool check config "$WORK/prom.yml"
LP_BG_LOG=$WORK/prometheus.log lp_bg_ns "$ns" prometheus --config.file="$WORK/prom.yml" \
	--storage.tsdb.path="$WORK/tsdb" --web.listen-address=127.0.0.1:9090
query() { # PROMQL: the first sample's value, or nothing
	ip netns exec "$ns" curl -sf --max-time 2 -G http://127.0.0.1:9090/api/v1/query \
		--data-urlencode "query=$1" 2>/dev/null |
		$PY -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null || true
}
number() { [[ $1 =~ ^[0-9.e+-]+$ ]]; } # not empty, not NaN
# Each rate needs two scrapes that differ: wait (at most 30 s) until every
# rule has a number.
for _ in $(seq 60); do
	p50=$(query 'pair:latprobe_rtt_seconds:p50_rate1m{target="127.0.0.1:862"}')
	p99=$(query 'pair:latprobe_rtt_seconds:p99_rate1m{target="127.0.0.1:862"}')
	loss=$(query 'pair:latprobe_probes_loss:ratio_rate1m{target="127.0.0.1:862"}')
	turn=$(query 'instance:latprobe_reflector_turnaround_seconds:p99_rate1m')
	up=$(query 'count(up{job=~"latprobe.*"} == 1)')
	number "$p50" && number "$p99" && number "$loss" && number "$turn" && number "$up" && break
	sleep 0.5
done
echo "$LP_PROG: from rules.yml: p50 ${p50}s p99 ${p99}s loss ${loss} reflector turnaround p99 ${turn}s, ${up} endpoints up"
$PY - "$p50" "$p99" "$loss" "$turn" "$up" <<'PYEOF' || fail "rules.yml on real data"
import sys
p50, p99, loss, turn, up = (float(x) if x else float("nan") for x in sys.argv[1:])
ok = True
def need(cond, msg):
    global ok
    if not cond:
        print("deploy: " + msg); ok = False
# Loopback, but two busy-polling processes on a loaded 2-vCPU machine: the
# scheduler's time slices show (p50 of 8 ms seen); an answered probe is
# below the 200 ms timeout whatever the load.
need(1e-6 <= p50 <= 0.2, f"p50 {p50} s is not a loopback round trip")
need(p50 <= p99 <= 1.0, f"p99 {p99} s below p50 or above 1 s")
need(loss == 0, f"loss ratio {loss}, want 0 on loopback")
need(1e-7 <= turn <= 0.05, f"reflector turnaround p99 {turn} s implausible")
need(up == 2, f"{up} latprobe endpoints up, want 2")
sys.exit(0 if ok else 1)
PYEOF
echo "$LP_PROG: ok"
