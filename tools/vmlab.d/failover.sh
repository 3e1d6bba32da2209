# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Failover: the prober on a failsafe port over a "VF" (QEMU's
# igb on vfio-pci, nic2) and a fallback (net_af_packet on a kernel virtio
# NIC, nic3, with the VF's MAC: the synthetic path of Azure's vdev_netvsc
# model). igb, not virtio, as the VF: failsafe applies its port's link
# state to a sub-device it probes again (rte_eth_dev_set_link_up), which
# net_virtio does not have (-ENOTSUP: "Unable to synchronize sub_device
# state", the VF is dropped again); net_e1000_igb has it, as mlx5 does. Six virtio NICs in three dgram pairs: the reflector's (:01), the
# VF (:02) and the fallback (:03), each to a kernel NIC (:11, :12, :13) in
# one guest bridge, which learns where the prober's MAC is from what it
# sends (as a cloud host's switch does for the VF and the synthetic NIC).
#
# 4 s into a -t 22 run the host removes the VF (QMP device_del), waits
# until it is gone and adds it again 2 s later; the guest binds it to
# vfio-pci and failsafe probes it again (hotplug_poll=200). igb's PMD
# raises no RTE_ETH_EVENT_INTR_RMV, so failsafe cannot move by itself:
# latprobe hears of the removal (the vfio request, RTE_DEV_EVENT_REMOVE of
# the sub-device) and makes the failsafe port again over the fallback.
# Checked: the run does not end (exit 0 at -t, not 8), the removal completes
# (nic2 gone from QEMU), the path accounting has two shifts (vf ->
# synthetic with the time it took after the removal, then synthetic -> vf)
# and three latency intervals (vf, synthetic, vf) each with answers, the
# VF and the synthetic path each carried packets, the samples' sums equal
# the sub-devices' xstats (the first port's carried across the one made
# again), sent == received + lost.
cases_all+=" failover"

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_failover() {
	model=virtio-net-pci
	drv=net_virtio
	pdrv=net_failsafe
	extra=",iommu_platform=on,disable-legacy=on"
	fo_vf=2
	nics_fn=failover_nics
	guest_fn=failover_guest
	check_fn=failover_check
	host_fn=failover_host
	ok_msg="net_failsafe over an igb VF + af_packet fallback: VF removed and given back mid-run, two path shifts, latency per path, no end"
}

# Three dgram pairs on loopback (random free ports), a root port each:
# nic1 (reflector) <-> nic11, nic2 (prober) <-> nic12, nic3 (fallback) <-> nic13;
# nic${fo_vf:-2}, the failsafe port's VF, is an igb, the others virtio.
failover_nics() {
	local ports=() p i n vf=${fo_vf:-2}
	for ((i = 0; i < 6; i++)); do
		for _ in 1 2 3 4 5; do
			p=$(free_port) || return 1
			[[ " ${ports[*]} " == *" $p "* ]] || break
		done
		ports+=("$p")
	done
	[ "$(printf '%s\n' "${ports[@]}" | sort -u | wc -l)" = 6 ] || return 1
	local d="local.type=inet,local.host=127.0.0.1,remote.type=inet,remote.host=127.0.0.1"
	for n in 1 2 3 11 12 13; do
		printf -- '-device pcie-root-port,id=rp%s,bus=pcie.0,chassis=%s,addr=0x%x ' "$n" "$n" $((0x10 + n))
	done
	for n in 1 2 3; do
		printf -- '-netdev dgram,id=n%s,%s,local.port=%s,remote.port=%s ' "$n" "$d" "${ports[$((2 * n - 2))]}" "${ports[$((2 * n - 1))]}"
		printf -- '-netdev dgram,id=n1%s,%s,local.port=%s,remote.port=%s ' "$n" "$d" "${ports[$((2 * n - 1))]}" "${ports[$((2 * n - 2))]}"
	done
	for n in 1 2 3 11 12 13; do
		if [ "$n" = "$vf" ]; then
			printf -- '-device igb,netdev=n%s,id=nic%s,bus=rp%s,mac=52:54:00:1a:b0:%02d ' "$n" "$n" "$n" "$n"
		else
			printf -- '-device %s,netdev=n%s,id=nic%s,bus=rp%s,mac=52:54:00:1a:b0:%02d%s ' \
				"$model" "$n" "$n" "$n" "$n" "$extra"
		fi
	done
	echo
}

# failover_net MAC: the guest's part of the network both failover cases
# share: the kernel NICs found by MAC, IPv6 off, the bridge, the fallback
# NIC (:03) up with the VF's MAC.
failover_net() {
	echo "VF_MAC=$1"
	cat <<'EOF'
F='' K1='' K2='' K3=''
for n in /sys/class/net/*; do
	case $(cat $n/address) in
	52:54:00:1a:b0:03) F=${n##*/} ;;
	52:54:00:1a:b0:11) K1=${n##*/} ;;
	52:54:00:1a:b0:12) K2=${n##*/} ;;
	52:54:00:1a:b0:13) K3=${n##*/} ;;
	esac
done
[ -n "$F" ] && [ -n "$K1" ] && [ -n "$K2" ] && [ -n "$K3" ] ||
	{ log "FAIL: kernel NICs not found"; ls -l /sys/class/net; exit 3; }
# No IPv6 (no RS, MLD, DAD): nothing but latprobe's frames on the wire,
# and nothing of the kernel's from the VF's MAC on the fallback.
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
for k in $F $K1 $K2 $K3; do echo 1 >/proc/sys/net/ipv6/conf/$k/disable_ipv6; done
modprobe bridge || { log "FAIL: no bridge module"; exit 3; }
ip link add br0 type bridge stp_state 0 forward_delay 0 || exit 3
echo 1 >/proc/sys/net/ipv6/conf/br0/disable_ipv6
for k in $K1 $K2 $K3; do ip link set dev $k master br0 && ip link set dev $k up || exit 3; done
ip link set dev br0 up || exit 3
# The synthetic NIC has the VF's MAC, as on Azure.
ip link set dev $F address $VF_MAC && ip link set dev $F up || exit 3
EOF
}

failover_guest() {
	failover_net 52:54:00:1a:b0:02
	cat <<'EOF'
log "bridge br0: $K1 (reflector) + $K2 (VF $P) + $K3 (fallback $F)"
refl_start
FS="net_failsafe0,mac=52:54:00:1a:b0:02,hotplug_poll=200,dev($P),dev(net_af_packet0,iface=$F)"
timeout 120 $L probe -l 1 --file-prefix lpp -a "$P" --vdev "$FS" $EAL -- \
	--addr 198.18.0.1/24 --arp-timeout 30s -t 22 -i 1ms --timeout 1s --interval-report 1s \
	--json $out/probe.json 198.18.0.2 >$out/probe.txt 2>$out/probe.err &
ppid=$!
for i in $(seq 600); do
	grep -q '^latprobe probe: 198' $out/probe.err 2>/dev/null && break
	kill -0 $ppid 2>/dev/null || break
	sleep 0.1
done
: >$out/probe.started
# The VF goes, then comes back (bound to vfio-pci again): failsafe
# probes it again by itself.
await_readd
wait $ppid
echo "$?" >$out/probe.rc
log "probe: rc $(cat $out/probe.rc), $(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' $out/probe.txt)"
grep -E 'VF sub-device|made again|packets go over' $out/probe.err | sed 's/^/guest:   /'
sed -n '/^Port path/,/^[A-Z]/p' $out/probe.txt | sed 's/^/guest:   /'
refl_stop
EOF
}

failover_host() { host_readd_nic "$1" nic2 rp2 n2 52:54:00:1a:b0:02 igb; }

# failover_lines OUT LOG NIC: the failover's four lines in OUT/LOG, and
# NIC gone from QEMU (the host's log): the removal completed.
failover_lines() {
	local o=$1 log=$2 nic=$3 bad=0 re
	for re in 'its VF sub-device .* is being removed' 'made again over the fallback' \
		'packets go over the synthetic path' 'packets go over the VF path'; do
		grep -q "$re" "$o/$log" ||
			{ echo "FAIL: no '$re' line in $log"; bad=1; }
	done
	grep -q "$nic gone" "$o/../host.log" 2>/dev/null ||
		{ echo "FAIL: the VF's removal did not complete ($nic still in query-pci)"; bad=1; }
	return $bad
}

failover_check() {
	local o=$1 bad=0 v
	v=$(cat "$o/probe.rc" 2>/dev/null)
	[ "$v" = 0 ] || {
		echo "FAIL: probe exited ${v:-?}, not 0 (the failover must not end the run):"
		tail -8 "$o/probe."{err,txt} 2>/dev/null | sed 's/^/  /'
		bad=1
	}
	failover_lines "$o" probe.err nic2 || bad=1
	python3 - "$o" <<'PYEOF' || bad=1
import json, sys
o = sys.argv[1]
ok = True
def fail(m):
    global ok
    print("FAIL: " + m)
    ok = False
p = json.load(open(f"{o}/probe.json"))
port, pr = p.get("port", {}), p.get("probes", {})
path = port.get("path", {})
if p.get("port_driver") != "net_failsafe":
    fail(f"port_driver {p.get('port_driver')!r}, not net_failsafe")
if path.get("kind") != "failsafe":
    fail(f"port.path.kind {path.get('kind')!r}")
sh = path.get("shifts", [])
pairs = [(s.get("from"), s.get("to")) for s in sh]
if pairs != [("vf", "synthetic"), ("synthetic", "vf")]:
    fail(f"port.path.shifts {pairs}: not vf -> synthetic -> vf")
elif not isinstance(sh[0].get("took_s"), (int, float)) or not 0 <= sh[0]["took_s"] < 30:
    fail(f"the move to the fallback has no time it took: {sh[0]}")
ivs = path.get("intervals", [])
if [i.get("path") for i in ivs] != ["vf", "synthetic", "vf"]:
    fail(f"port.path.intervals' paths {[i.get('path') for i in ivs]}")
for i in ivs:
    if not i.get("received") or not isinstance(i.get("rtt_ns"), dict):
        fail(f"an interval without answers: {i}")
if sum(i.get("sent", 0) for i in ivs) != pr.get("sent"):
    fail(f"the intervals' sent {sum(i.get('sent', 0) for i in ivs)} != probes.sent {pr.get('sent')}")
for k in ("vf_tx_packets", "synthetic_tx_packets", "vf_rx_packets", "synthetic_rx_packets"):
    if not path.get(k):
        fail(f"port.path.{k} {path.get(k)}: that path carried nothing")
if pr.get("sent") != pr.get("received", 0) + pr.get("lost", 0):
    fail("sent != received + lost")
# Two counts of one thing across the port made again: the 50 ms samples'
# sums, and the xstats delta with the first port's counts carried.
dd = path.get("driver_delta", {})
for d in ("tx", "rx"):
    xs = sum(v for k, v in dd.items() if k.startswith(f"{d}_sub") and k.endswith("_good_packets"))
    tl = path.get(f"vf_{d}_packets", 0) + path.get(f"synthetic_{d}_packets", 0)
    if xs != tl:
        fail(f"{d}: the sub-devices' xstats count {xs}, the samples {tl}")
# --interval-report's marks: the shift to the fallback, then back.
marks = [(i["path"]["now"], i["path"]["shifts"]) for i in p.get("intervals", []) if "path" in i]
if ("synthetic", 1) not in marks or ("vf", 1) not in marks or ("synthetic", 0) not in marks:
    fail(f"the intervals' path marks {marks}: no shift to synthetic, time on it, and back")
ev = [e.get("event") for e in port.get("link_events", [])]
if "vf_removed" not in ev or ev.count("path_shift") != 2:
    fail(f"port.link_events {ev}: no vf_removed, or not 2 path_shift")
if port.get("removed_at_s") is not None:
    fail(f"port.removed_at_s {port.get('removed_at_s')}: the port itself was not removed")
print(f"  probe: sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')}; "
      f"VF tx {path.get('vf_tx_packets')} synthetic tx {path.get('synthetic_tx_packets')}")
for s in sh:
    print(f"  shift at {s.get('t_s')} s: {s.get('from')} -> {s.get('to')} (took {s.get('took_s')} s)")
for i in ivs:
    r = i.get("rtt_ns") or {}
    print(f"  {i.get('from_s'):.3f}-{i.get('to_s'):.3f} s {i.get('path')}: sent {i.get('sent')} "
          f"received {i.get('received')} lost {i.get('lost')} p50 {r.get('p50')} ns p99 {r.get('p99')} ns")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
