#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A fleet of 4 hosts scraped by a real Prometheus (Debian's): 4 network
# namespaces on a bridge in the root namespace (198.19.206.0/24), each with
# a kernel-backend `latprobe reflect` and a mesh prober (`--targets` listing
# the other three), both with --metrics on the namespace's address. A
# Prometheus in the root namespace (127.0.0.1, scrape interval 1 s) scrapes
# the 8 endpoints; once every series has two scrapes, its HTTP API must show
# 12 (prober, target) pairs, each with probes sent, none lost, and a
# plausible p50 from histogram_quantile. Prints the PromQL query's result.
# Bounded: probers stop after 60 s, the whole test after 90 s.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (network namespaces)"
lp_have ip || lp_skip "needs iproute2"
lp_have curl || lp_skip "needs curl"
lp_have prometheus || lp_skip "needs prometheus (Debian's package; tools/setup installs it)"
lp_begin
P=$LP_NS_PREFIX
NET=198.19.206
br=${P}fbr
ip link del "$br" 2>/dev/null || true
ip link add "$br" type bridge
lp_cleanup_push "ip link del '$br' 2>/dev/null || true"
ip addr add "$NET.254/24" dev "$br"
ip link set "$br" up
for i in 1 2 3 4; do
	ns=${P}f$i
	ip netns del "$ns" 2>/dev/null || true
	ip netns add "$ns"
	lp_cleanup_push "ip netns del '$ns' 2>/dev/null || true"
	ip link add "${P}fb$i" type veth peer name eth0 netns "$ns"
	ip link set "${P}fb$i" master "$br" up
	ip -n "$ns" addr add "$NET.$i/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set lo up
done

# Reflectors, then the mesh probers (each lists the three others).
for i in 1 2 3 4; do
	LP_BG_LOG=$WORK/refl$i.log lp_bg_ns "${P}f$i" "$LATPROBE" reflect \
		--backend kernel --addr "$NET.$i/24" -q -t 80 --metrics "$NET.$i:9101"
done
for i in 1 2 3 4; do
	lp_wait_for "$WORK/refl$i.log" '^latprobe reflect: ' 20 ||
		{ cat "$WORK/refl$i.log" >&2; fail "reflector $i did not start"; }
	{
		echo "# mesh pinglist of host $i"
		for j in 1 2 3 4; do
			[ "$j" -eq "$i" ] || echo "$NET.$j label=host$j"
		done
	} >"$WORK/targets$i"
done
probe_pids=()
for i in 1 2 3 4; do
	LP_BG_LOG=$WORK/probe$i.log lp_bg_ns "${P}f$i" "$LATPROBE" probe \
		--backend kernel --addr "$NET.$i/24" -q -t 60 -i 20ms -w 10 --timeout 2s \
		--targets "$WORK/targets$i" --json "$WORK/probe$i.json" \
		--metrics "$NET.$i:9102"
	probe_pids+=("$LP_LAST_PID")
done
for i in 1 2 3 4; do
	lp_wait_for "$WORK/probe$i.log" '^latprobe probe: ' 20 ||
		{ cat "$WORK/probe$i.log" >&2; fail "prober $i did not start"; }
done

# Prometheus, on a free loopback port, its database in $WORK.
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{
	echo "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}"
	echo "scrape_configs:"
	echo "  - job_name: latprobe"
	echo "    static_configs:"
	printf '      - targets: ['
	sep=
	for i in 1 2 3 4; do
		printf '%s"%s:9101", "%s:9102"' "$sep" "$NET.$i" "$NET.$i"
		sep=', '
	done
	echo ']'
} >"$WORK/prometheus.yml"
LP_BG_LOG=$WORK/prometheus.log lp_bg_ns - prometheus --config.file="$WORK/prometheus.yml" \
	--web.listen-address="127.0.0.1:$port" --storage.tsdb.path="$WORK/tsdb"
api=http://127.0.0.1:$port/api/v1
query() { # PROMQL: the JSON answer of an instant query
	curl -sS --max-time 5 --get --data-urlencode "query=$1" "$api/query"
}
# Two scrapes of every endpoint with the probers' series in them, and a
# round trip in each pair's histogram.
ok=
for _ in $(seq 60); do
	sleep 1
	n=$(query 'count(count_over_time(latprobe_probes_sent_total[1m]) >= 2)' 2>/dev/null |
		$PY -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null) || n=0
	up=$(query 'sum(up)' 2>/dev/null |
		$PY -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null) || up=0
	ans=$(query 'count(latprobe_rtt_seconds_count > 0)' 2>/dev/null |
		$PY -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null) || ans=0
	if [ "$n" = 12 ] && [ "$up" = 8 ] && [ "$ans" = 12 ]; then
		ok=1
		break
	fi
done
[ -n "$ok" ] || { tail -5 "$WORK/prometheus.log" >&2; fail "Prometheus did not get two scrapes of 12 answered series from 8 endpoints (got $n series, $ans answered, $up up)"; }

p50q='histogram_quantile(0.5, sum by (instance, target, le) (latprobe_rtt_seconds_bucket))'
query "$p50q" >"$WORK/p50.json"
query 'sum by (instance, target) (latprobe_probes_sent_total)' >"$WORK/sent.json"
query 'sum by (instance, target) (latprobe_probes_lost_total)' >"$WORK/lost.json"
$PY - "$WORK" "$NET" <<'PYEOF' || fail "Prometheus' view of the fleet"
import json, math, sys
work, net = sys.argv[1], sys.argv[2]
def res(name):
    d = json.load(open(f'{work}/{name}.json'))
    assert d['status'] == 'success', d
    return {(r['metric']['instance'], r['metric']['target']): float(r['value'][1])
            for r in d['data']['result']}
p50, sent, lost = res('p50'), res('sent'), res('lost')
want = {(f'{net}.{i}:9102', f'{net}.{j}:862')
        for i in range(1, 5) for j in range(1, 5) if i != j}
for name, got in (('p50', p50), ('sent', sent), ('lost', lost)):
    assert set(got) == want, (name, sorted(set(got) ^ want))
for k in sorted(want):
    # Plausible: a round trip on this host, above 1 us (the floor of any
    # kernel UDP round trip), below the 2 s timeout.
    assert not math.isnan(p50[k]) and 1e-6 < p50[k] < 2.0, (k, p50[k])
    assert sent[k] > 0 and lost[k] == 0, (k, sent[k], lost[k])
print(f'fleet: 12 pairs, p50 {min(p50.values())*1e6:.1f}..{max(p50.values())*1e6:.1f} us, '
      f'{int(sum(sent.values()))} probes, 0 lost')
PYEOF
echo "fleet: PromQL: $p50q"
$PY - "$WORK/p50.json" <<'PYEOF'
import json, sys
for r in sorted(json.load(open(sys.argv[1]))['data']['result'],
                key=lambda r: (r['metric']['instance'], r['metric']['target'])):
    m = r['metric']
    print(f"  {{instance=\"{m['instance']}\", target=\"{m['target']}\"}}  {float(r['value'][1]):.6g}")
PYEOF

# The probers' own reports agree: every pair, no loss.
for pid in "${probe_pids[@]}"; do
	lp_stop_bg "$pid"
done
for i in 1 2 3 4; do
	$PY - "$WORK/probe$i.json" <<'PYEOF' || fail "prober $i report"
import json, sys
d = json.load(open(sys.argv[1]))
t = d['targets']
assert len(t) == 3, t
assert all(x['probes']['sent'] > 0 and x['probes']['lost'] == 0 for x in t), t
assert all(x['label'].startswith('host') for x in t), t
PYEOF
done
echo "fleet: ok"
