# shellcheck shell=bash
# Case mq: virtio-net with 2 queue pairs and RSS. A dgram
# netdev carries one queue pair only, so the two NICs are taps with 2
# queues each (vnet headers), bridged in a network namespace of the lab's
# own (${LP_NS_PREFIX}vmlab-mq<pid>, created here, removed on every exit of
# tools/vmlab by its cleanup stack), QEMU run inside it: nothing of the
# host's network is reachable. The reflector on 2 lcores (2 queues, RSS over
# the UDP 4-tuple, QEMU's virtio RSS), the prober with --flows 16 (16 source
# ports, in turn): both queues answer, their shares from the reflector's
# JSON (workers[]). With a vnet header QEMU offers virtio's checksum
# features: rx udp,tcp and tx udp are used (tools/vmlab.d/csum.sh). And the
# verdict virtio gives a frame whose sum was left to an offload
# (RTE_MBUF_F_RX_L4_CKSUM_NONE, the host's VIRTIO_NET_HDR_F_NEEDS_CSUM):
# the namespace's kernel (198.18.0.3 on the bridge, whose UDP leaves with a
# partial sum: the taps have tx checksum offload) runs `sockperf
# ping-pong -t 2` against the reflector while the guest waits: the reflector
# counts those requests in rx.l4_partial, answers them with the sum left to
# its tx offload, and the kernel's sockperf must get its answers.
cases_all+=" mq"

mq_n=400
mq_flows=16

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_mq() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on,mq=on,vectors=6,rss=on"
	nics_fn=mq_nics
	guest_fn=mq_guest
	check_fn=mq_check
	csum_rx=udp,tcp csum_tx=udp csum_l4=software+partial
	host_fn=mq_host
	# Booted without isolcpus (tools/vmlab.d/doctor.sh).
	doctor_missing=isolcpus
	cmdline_extra=$(doctor_cmdline isolcpus)
	ok_msg="net_virtio, 2 queues: $mq_n/$mq_n answered over $mq_flows flows, both lcores answering"
	mq_ns=${LP_NS_PREFIX}vmlab-mq$$
	mq_netns_up "$mq_ns" || lp_die "mq: the namespace $mq_ns could not be set up"
	qemu_netns=$mq_ns
}

# The namespace, its bridge and two persistent multi-queue taps in it (QEMU
# attaches to them by name); removed with the namespace.
mq_netns_up() {
	local ns=$1 t
	ip netns add "$ns" || return 1
	lp_cleanup_push "ip netns del '$ns' 2>/dev/null"
	ip netns exec "$ns" sh -c 'for f in /proc/sys/net/ipv6/conf/*/disable_ipv6; do echo 1 >"$f"; done' &&
		ip -n "$ns" link add br0 type bridge stp_state 0 || return 1
	for t in lpmq1 lpmq2; do
		ip -n "$ns" tuntap add dev "$t" mode tap multi_queue vnet_hdr &&
			ip -n "$ns" link set dev "$t" master br0 &&
			ip -n "$ns" link set dev "$t" up || return 1
	done
	ip -n "$ns" link set dev br0 up &&
		ip -n "$ns" addr add 198.18.0.3/24 dev br0 &&
		ip -n "$ns" link set dev lo up
}

# Beside the guest: once its reflector is up (out/refl.ready), a kernel
# sockperf client in the namespace, 2 s; then out/host.done for the guest.
mq_host() {
	local dir=$1 i
	for ((i = 0; i < 1500; i++)); do
		[ -e "$dir/out/refl.ready" ] && break
		# The guest ended (or never got there).
		[ -e "$dir/rc" ] && return 1
		sleep 0.2
	done
	[ -e "$dir/out/refl.ready" ] || return 1
	timeout 30 ip netns exec "$mq_ns" sockperf ping-pong -i 198.18.0.2 -p 11111 -t 2 \
		>"$dir/out/host-sockperf.txt" 2>&1
	echo "$?" >"$dir/out/host-sockperf.rc"
	touch "$dir/out/host.done"
}

mq_nics() {
	local n
	for n in 1 2; do
		printf -- '-device pcie-root-port,id=rp%s,bus=pcie.0,chassis=%s,addr=0x1%s ' "$n" "$n" "$n"
		printf -- '-netdev tap,id=n%s,ifname=lpmq%s,script=no,downscript=no,queues=2,vhost=off ' "$n" "$n"
		printf -- '-device %s,netdev=n%s,id=nic%s,bus=rp%s,mac=52:54:00:1a:b0:0%s%s ' \
			"$model" "$n" "$n" "$n" "$n" "$extra"
	done
	echo
}

mq_guest() {
	doctor_guest
	cat <<'EOF'
$L info --file-prefix lpi -a "$R" $EAL -- >$out/info.txt 2>&1
echo "$?" >$out/info.rc
# 2 lcores, 2 queues; the prober shares lcore 1 (2 vCPUs): slower turns,
# nothing else.
$L reflect -l 0,1 --file-prefix lpr -a "$R" $EAL -- --addr 198.18.0.2/24 \
	--json $out/refl.json >$out/refl.log 2>&1 &
rpid=$!
for i in $(seq 300); do
	grep -q '^latprobe reflect: ' $out/refl.log && break
	kill -0 $rpid 2>/dev/null || break
	sleep 0.2
done
log "reflector: $(grep '^latprobe reflect: ' $out/refl.log)"
# The host's kernel sockperf (mq_host), at most 60 s.
touch $out/refl.ready
for i in $(seq 300); do [ -e $out/host.done ] && break; sleep 0.2; done
log "host's sockperf: rc $(cat $out/host-sockperf.rc 2>/dev/null)"
EOF
	cat <<EOF
t0=\$(cut -d' ' -f1 /proc/uptime)
timeout 300 \$L probe -l 1 --file-prefix lpp -a "\$P" \$EAL -- --addr 198.18.0.1/24 --arp-timeout 30s \\
	--flows $mq_flows -n $mq_n -w $mq_flows --timeout 2s --json \$out/probe-mq.json 198.18.0.2 \\
	>\$out/probe-mq.txt 2>\$out/probe-mq.err
echo "\$?" >\$out/probe-mq.rc
log "probe (--flows $mq_flows -n $mq_n): rc \$(cat \$out/probe-mq.rc), \$(grep -o 'Sent = [0-9]*, Received = [0-9]*' \$out/probe-mq.txt), \$t0 s to \$(cut -d' ' -f1 /proc/uptime) s"
EOF
	cat <<'EOF'
refl_stop
log "reflector rc $(cat $out/refl.rc)"
grep -A4 '^Per lcore' $out/refl.log | sed 's/^/  /'
EOF
}

mq_check() {
	local o=$1 drv=$2 bad=0 f v
	vm_rcs_ok "$o" info refl probe-mq || bad=1
	grep -q "(driver $drv)" "$o/info.txt" && grep -q 'queues rx 2 tx 2 max' "$o/info.txt" || {
		echo "FAIL: info does not show $drv with 2 queue pairs:"
		grep -E 'driver|queues|rss' "$o/info.txt" | sed 's/^/  /'
		bad=1
	}
	python3 - "$o" "$drv" "$mq_n" "$mq_flows" <<'PYEOF' || bad=1
import json, sys
o, drv, n, flows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ok = True
def fail(m):
    global ok
    print("FAIL: mq: " + m)
    ok = False
try:
    p = json.load(open(f"{o}/probe-mq.json"))
    r = json.load(open(f"{o}/refl.json"))
except (OSError, ValueError) as e:
    print(f"FAIL: mq: {e}")
    sys.exit(1)
pr = p.get("probes", {})
if pr.get("sent") != n or pr.get("received") != n:
    fail(f"probes sent {pr.get('sent')} received {pr.get('received')}, want {n}")
if p.get("port_driver") != drv:
    fail(f"port_driver {p.get('port_driver')!r}")
fl = p.get("flows") or []
ports = {f.get("sport") for f in fl}
print(f"  prober: sent {pr.get('sent')} received {pr.get('received')}, {len(fl)} flows "
      f"(source ports {min(ports, default=0)}-{max(ports, default=0)}), each answered "
      f"{sorted({f.get('count') for f in fl})}")
if len(ports) != flows or any(f.get("count", 0) == 0 or f.get("lost") for f in fl):
    fail(f"{len(ports)} flows (want {flows}, --flows), counts {[f.get('count') for f in fl]}")
ws = r.get("workers") or []
c = r.get("counters", {})
total = sum(w.get("answered", 0) for w in ws)
for w in ws:
    share = w.get("answered", 0) / total if total else 0
    print(f"  reflector lcore {w.get('lcore')} queue {w.get('queue')}: rx {w.get('rx')} answered "
          f"{w.get('answered')} ({share:.1%}) stamp {w.get('answered_by', {}).get('stamp')} "
          f"queue_rx_packets {w.get('queue_rx_packets')}")
if sorted((w.get("lcore"), w.get("queue")) for w in ws) != [(0, 0), (1, 1)]:
    fail(f"workers {[(w.get('lcore'), w.get('queue')) for w in ws]}, want lcore 0 queue 0 and lcore 1 queue 1")
# Both queues answer: RSS put flows on each (16 flows on one of 2 queues
# is a chance of 2 in 65536).
for w in ws:
    if not w.get("answered_by", {}).get("stamp"):
        fail(f"lcore {w.get('lcore')} (queue {w.get('queue')}) answered no STAMP request")
    # What the PMD counted on the queue is what the worker took from it.
    q = w.get("queue_rx_packets")
    if q is not None and q != w.get("rx"):
        fail(f"lcore {w.get('lcore')}: queue_rx_packets {q} != rx {w.get('rx')}")
if total != sum(v for k, v in c.items() if k.startswith("answered.")):
    fail(f"workers answered {total} != the counters' answered.* sum")
if c.get("answered.stamp", 0) < n + flows:
    fail(f"answered.stamp {c.get('answered.stamp')} < {n + flows}")
# The kernel's sockperf through the taps (partial sums: NONE verdicts).
try:
    rc = open(f"{o}/host-sockperf.rc").read().strip()
    txt = open(f"{o}/host-sockperf.txt", errors="replace").read()
except OSError as e:
    rc, txt = None, ""
    fail(f"the host's sockperf did not run: {e}")
import re
m = re.search(r"\[Valid Duration\][^\n]*?SentMessages=(\d+);\s*ReceivedMessages=(\d+)", txt)
got = (int(m.group(1)), int(m.group(2))) if m else None
print(f"  host's kernel sockperf: rc {rc}, sent/received {got}; reflector answered.sockperf "
      f"{c.get('answered.sockperf')}, rx.l4_partial {c.get('rx.l4_partial')}")
if rc != "0" or got is None or got[1] == 0:
    fail(f"the host's kernel sockperf got no answers (rc {rc}): {txt[-300:]!r}")
sys.exit(0 if ok else 1)
PYEOF
	doctor_check "$o" || bad=1
	return $bad
}
