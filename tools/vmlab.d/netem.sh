# shellcheck shell=bash
# Case netem: a kernel hop with netem between prober and reflector, all its
# variants in one boot. Four virtio NICs in two dgram pairs: the
# reflector's (DPDK, :01) to a kernel NIC K1 (:13), the prober's (DPDK,
# :02) to a kernel NIC K2 (:14); K1 and K2 in a guest bridge, netem on K1's
# egress: the probes' direction only (the answers leave K2 unimpaired).
# The prober has --peer-mac (no ARP through the netem), no warm-up (-w 0:
# every frame netem sees is a measured probe), and the guest has IPv6 off:
# nothing else crosses the qdisc, so its counters are the probes'.
#
# Runs, in order (one reflector for all):
#   loss1, loss5  netem loss 1 % / 5 %, open loop 200/s, 1000 probes:
#                 probes.lost == the qdisc's drops, exactly
#   dup1          duplicate 1 %: probes.duplicated == frames K1 sent minus
#                 frames K2 received (netem's copies), exactly
#   reorder       delay 1s reorder 100% gap 5, open loop 20/s (50 ms
#                 apart), 100 probes: every 5th leaves at once (netem counts
#                 it in "requeues"), the other 4 a second late, each
#                 overtaken by the next one that leaves at once (at most
#                 200 ms after it: a margin of 800 ms): probes.reordered ==
#                 probes - requeues, exactly. (A margin of a few ms does not
#                 hold under emulation: answers here jitter by 100 ms and
#                 more under load; 15 ms and 75 ms delays with the overtaken
#                 one alone gave 66 for 40 and 19 for 20.)
#   base/delay    3 x alternating: netem with no impairment, then delay 500us,
#                 closed loop, 200 probes each: every delay run's minimum RTT
#                 is at least 500 us (netem delayed the probes). The issue's
#                 figure, the median of the delay runs' rtt_ns.p50 minus the
#                 base runs' = 500 us within 2 %, is asserted only under KVM
#                 (LP_VMLAB_ACCEL=kvm): under TCG here one run's p50 spread
#                 is several ms (stddev 2.6 to 4.5 ms, p50 1.0 to 4.1 ms from
#                 run to run), so the shift is printed, not asserted; the
#                 minimum moved by about 590 us (netem's timer under TCG).
# Every run: exit 0, sent == N, sent == received + lost, a bounded duration
# (it never stalls).
cases_all+=" netem"

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_netem() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	nics_fn=netem_nics
	guest_fn=netem_guest
	check_fn=netem_check
	# tools/vmlab.d/csum.sh: virtio over dgram, no offloads
	csum_l4=software
	doctor_missing="nohz_full rcu_nocbs"
	cmdline_extra=$(doctor_cmdline nohz_full rcu_nocbs)
	ok_msg="netem: lost, duplicated, reordered = what netem did (loss 1 %, 5 %, duplicate 1 %, reorder); delay 500us: min RTT >= 500 us, p50 shift printed (asserted under KVM only)"
}

# The netem runs: TAG|NETEM ARGUMENTS|PROBE ARGUMENTS|N.
netem_runs="loss1|loss 1%|--rate 200|1000
loss5|loss 5%|--rate 200|1000
dup1|duplicate 1%|--rate 200|1000
reorder|delay 1s reorder 100% gap 5|--rate 20|100
base1|limit 1000||200
delay1|delay 500us|--|200
base2|limit 1000||200
delay2|delay 500us|--|200
base3|limit 1000||200
delay3|delay 500us|--|200"

# Two dgram pairs on loopback (random free ports): nic1 (reflector) <->
# nic3 (kernel K1), nic2 (prober) <-> nic4 (kernel K2); a root port each.
netem_nics() {
	local p1 p2 p3 p4
	p1=$(free_port) && p2=$(free_port) && p3=$(free_port) && p4=$(free_port) || return 1
	for _ in 1 2 3; do
		[ "$(printf '%s\n' "$p1" "$p2" "$p3" "$p4" | sort -u | wc -l)" = 4 ] && break
		p2=$(free_port) p3=$(free_port) p4=$(free_port)
	done
	[ "$(printf '%s\n' "$p1" "$p2" "$p3" "$p4" | sort -u | wc -l)" = 4 ] || return 1
	local d="local.type=inet,local.host=127.0.0.1,remote.type=inet,remote.host=127.0.0.1"
	local n
	for n in 1 2 3 4; do
		printf -- '-device pcie-root-port,id=rp%s,bus=pcie.0,chassis=%s,addr=0x1%s ' "$n" "$n" "$n"
	done
	printf -- '-netdev dgram,id=n1,%s,local.port=%s,remote.port=%s ' "$d" "$p1" "$p3"
	printf -- '-netdev dgram,id=n3,%s,local.port=%s,remote.port=%s ' "$d" "$p3" "$p1"
	printf -- '-netdev dgram,id=n2,%s,local.port=%s,remote.port=%s ' "$d" "$p2" "$p4"
	printf -- '-netdev dgram,id=n4,%s,local.port=%s,remote.port=%s ' "$d" "$p4" "$p2"
	for n in 1 2 3 4; do
		printf -- '-device %s,netdev=n%s,id=nic%s,bus=rp%s,mac=52:54:00:1a:b0:%s%s ' \
			"$model" "$n" "$n" "$n" "$([ "$n" -le 2 ] && echo "0$n" || echo "1$n")" "$extra"
	done
	echo
}

netem_guest() {
	cat <<'EOF'
K1='' K2=''
for n in /sys/class/net/*; do
	case $(cat $n/address) in
	52:54:00:1a:b0:13) K1=${n##*/} ;;
	52:54:00:1a:b0:14) K2=${n##*/} ;;
	esac
done
[ -n "$K1" ] && [ -n "$K2" ] || { log "FAIL: kernel NICs not found"; ls -l /sys/class/net; exit 3; }
# Nothing but the probes through the qdisc: no IPv6 (no RS, MLD, DAD).
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
for k in $K1 $K2; do echo 1 >/proc/sys/net/ipv6/conf/$k/disable_ipv6; done
modprobe bridge && modprobe sch_netem || { log "FAIL: no bridge or sch_netem module"; exit 3; }
ip link add br0 type bridge stp_state 0 || exit 3
echo 1 >/proc/sys/net/ipv6/conf/br0/disable_ipv6
ip link set dev $K1 master br0 && ip link set dev $K2 master br0 || exit 3
ip link set dev $K1 up && ip link set dev $K2 up && ip link set dev br0 up || exit 3
tc qdisc replace dev $K1 root netem limit 1000 || { log "FAIL: tc netem"; exit 3; }
log "bridge br0: $K1 (to the reflector, netem) + $K2 (to the prober)"
$L info --file-prefix lpi -a "$R" $EAL -- >$out/info.txt 2>&1
echo "$?" >$out/info.rc
EOF
	# Booted without nohz_full and rcu_nocbs (tools/vmlab.d/doctor.sh).
	doctor_guest
	cat <<'EOF'
refl_start
snap() {
	tc -s -j qdisc show dev $K1 >$out/$1.$2.qdisc.json
	ip -s -j link show dev $K1 >$out/$1.$2.k1.json
	ip -s -j link show dev $K2 >$out/$1.$2.k2.json
}
EOF
	local tag nargs pargs n
	while IFS='|' read -r tag nargs pargs n; do
		[ "$pargs" = -- ] && pargs=''
		cat <<EOF
tc qdisc replace dev \$K1 root netem $nargs || { log "FAIL: tc qdisc replace ... netem $nargs"; exit 3; }
snap $tag before
t0=\$(cut -d' ' -f1 /proc/uptime)
timeout 120 \$L probe -l 1 --file-prefix lpp -a "\$P" \$EAL -- --addr 198.18.0.1/24 \\
	--peer-mac 52:54:00:1a:b0:01 -w 0 -n $n $pargs --timeout 2s \\
	--json \$out/$tag.json 198.18.0.2 >\$out/$tag.txt 2>\$out/$tag.err
echo "\$?" >\$out/$tag.rc
snap $tag after
log "$tag (netem $nargs; $pargs -n $n): rc \$(cat \$out/$tag.rc), \$(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' \$out/$tag.txt), \$t0 s to \$(cut -d' ' -f1 /proc/uptime) s"
EOF
	done <<<"$netem_runs"
	cat <<'EOF'
tc -s qdisc show dev $K1 | sed 's/^/  /'
refl_stop
log "reflector rc $(cat $out/refl.rc)"
EOF
}

# netem_check OUT DRV: what each run's JSON says against what netem did.
netem_check() {
	local o=$1 drv=$2 bad=0 f v
	vm_rcs_ok "$o" info refl $(cut -d'|' -f1 <<<"$netem_runs") || bad=1
	# shellcheck disable=SC2154 # accel: tools/vmlab's
	python3 - "$o" "$drv" "$netem_runs" "$accel" <<'PYEOF' || bad=1
import json, statistics, sys
o, drv, runs = sys.argv[1], sys.argv[2], [l.split("|") for l in sys.argv[3].splitlines()]
accel = sys.argv[4]
ok = True
def fail(m):
    global ok
    print("FAIL: netem: " + m)
    ok = False
def load(f):
    try:
        return json.load(open(f"{o}/{f}"))
    except (OSError, ValueError) as e:
        fail(f"{f}: {e}")
        return None
def qdisc(tag, when):
    q = load(f"{tag}.{when}.qdisc.json") or [{}]
    return next((x for x in q if x.get("kind") == "netem"), {})
def link(tag, when, k, d):
    l = load(f"{tag}.{when}.{k}.json") or [{}]
    return l[0].get("stats64", {}).get(d, {}).get("packets", 0)
p50 = {"base": [], "delay": []}
mins = {"base": [], "delay": []}
kvm = accel.startswith("kvm")
for tag, nargs, pargs, n in runs:
    n = int(n)
    r = load(f"{tag}.json")
    if r is None:
        continue
    pr = r.get("probes", {})
    sent, rec, lost = pr.get("sent"), pr.get("received"), pr.get("lost")
    dup, reo = pr.get("duplicated"), pr.get("reordered")
    qb, qa = qdisc(tag, "before"), qdisc(tag, "after")
    dq = {k: qa.get(k, 0) - qb.get(k, 0) for k in ("packets", "drops", "requeues")}
    k2rx = link(tag, "after", "k2", "rx") - link(tag, "before", "k2", "rx")
    k1tx = link(tag, "after", "k1", "tx") - link(tag, "before", "k1", "tx")
    print(f"  {tag} (netem {nargs}): sent {sent} received {rec} lost {lost} duplicated {dup} "
          f"reordered {reo}; netem packets {dq['packets']} drops {dq['drops']} requeues {dq['requeues']}; "
          f"K2 rx {k2rx}, K1 tx {k1tx}; {r.get('duration_s', 0):.1f} s; p50 {r.get('rtt_ns', {}).get('p50')} ns")
    if r.get("port_driver") != drv:
        fail(f"{tag}: port_driver {r.get('port_driver')!r} != {drv!r}")
    if sent != n or rec is None or lost is None or rec + lost != sent:
        fail(f"{tag}: sent {sent} received {rec} lost {lost}: not every probe's fate is known (n {n})")
    # The frames the prober sent all reached the hop.
    if k2rx != n:
        fail(f"{tag}: K2 received {k2rx} frames, the prober sent {n} probes")
    # Never stalls: the schedule (open loop) or 200 round trips, the
    # 2 s timeout, and slack for emulation.
    rate = float(pargs.split()[1]) if pargs.startswith("--rate") else 0
    bound = (n / rate if rate else 20) + 2 + 30
    if r.get("duration_s", 1e9) > bound:
        fail(f"{tag}: ran {r.get('duration_s')} s, more than {bound} s")
    if tag.startswith("loss"):
        if lost != dq["drops"]:
            fail(f"{tag}: probes.lost {lost} != netem drops {dq['drops']}")
        if dq["drops"] == 0:
            fail(f"{tag}: netem dropped nothing")
        if dup or reo:
            fail(f"{tag}: duplicated {dup} reordered {reo}, want 0")
    elif tag.startswith("dup"):
        copies = k1tx - k2rx
        if dup != copies:
            fail(f"{tag}: probes.duplicated {dup} != netem's copies {copies} (K1 tx - K2 rx)")
        if copies <= 0 or lost or reo:
            fail(f"{tag}: copies {copies} lost {lost} reordered {reo}")
    elif tag.startswith("reorder"):
        if reo != n - dq["requeues"]:
            fail(f"{tag}: probes.reordered {reo} != probes {n} - netem requeues {dq['requeues']}")
        if dq["requeues"] != n // 5 or lost or dup:
            fail(f"{tag}: requeues {dq['requeues']} (want {n // 5}) lost {lost} duplicated {dup}")
    else:
        if lost or dup:
            fail(f"{tag}: lost {lost} duplicated {dup}, want 0")
        kind = tag.rstrip("0123456789")
        p50[kind].append(r.get("rtt_ns", {}).get("p50", 0))
        mins[kind].append(r.get("rtt_ns", {}).get("min", 0))
        if kind == "delay" and r.get("rtt_ns", {}).get("min", 0) < 500000:
            fail(f"{tag}: min RTT {r.get('rtt_ns', {}).get('min')} ns under netem's 500 us delay")
if len(p50["base"]) == len(p50["delay"]) > 0:
    mb, md = statistics.median(p50["base"]), statistics.median(p50["delay"])
    shift = md - mb
    print(f"  delay 500us: p50 base {p50['base']} ns (median {mb}), delay {p50['delay']} ns "
          f"(median {md}): shift {shift / 1000:.1f} us ({(shift - 500000) / 5000:+.1f} % of 500 us); "
          f"min RTT shift {(min(mins['delay']) - min(mins['base'])) / 1000:.1f} us")
    if kvm and abs(shift - 500000) > 10000:
        fail(f"delay 500us moved p50 by {shift / 1000:.1f} us, not 500 us within 2 %")
    elif not kvm:
        print("  delay 500us: the p50 shift is not asserted under TCG (its jitter is ms): NOT verified")
sys.exit(0 if ok else 1)
PYEOF
	doctor_check "$o" || bad=1
	return $bad
}
