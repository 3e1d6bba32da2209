# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Failover on the reflector's side: the failover case's network
# (tools/vmlab.d/failover.sh) with the roles turned round: the reflector,
# a service (no -t), on a failsafe port over an igb "VF" (nic1, on
# vfio-pci) and an af_packet fallback (nic3, a kernel NIC with the VF's
# MAC), the prober on a plain virtio port (nic2), -t 22. 4 s into the probe
# the host removes nic1 and gives it back 2 s after it is gone. Checked:
# the reflector went on without --forever (made its failsafe port again
# over the fallback; exit 0 at SIGINT, not 8), its report has the VF's
# removal, two path shifts (vf -> synthetic -> vf) and no removal of its
# port, the prober's answers after the VF is back, the prober's losses the
# path's (its own link stayed up).
cases_all+=" failover_refl"

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_failover_refl() {
	model=virtio-net-pci
	drv=net_failsafe
	pdrv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	fo_vf=1
	nics_fn=failover_nics
	guest_fn=failover_refl_guest
	check_fn=failover_refl_check
	host_fn=failover_refl_host
	ok_msg="the reflector on net_failsafe over an igb VF + af_packet fallback: VF removed and given back, it went on answering"
}

failover_refl_guest() {
	failover_net 52:54:00:1a:b0:01
	cat <<'EOF2'
log "bridge br0: $K1 (reflector's VF $R) + $K2 (prober) + $K3 (reflector's fallback $F)"
FS="net_failsafe0,mac=52:54:00:1a:b0:01,hotplug_poll=200,dev($R),dev(net_af_packet0,iface=$F)"
$L reflect -l 0 --file-prefix lpr -a "$R" --vdev "$FS" $EAL -- --addr 198.18.0.2/24 \
	--json $out/refl.json >$out/refl.log 2>&1 &
rpid=$!
for i in $(seq 300); do
	grep -q '^latprobe reflect: ' $out/refl.log && break
	kill -0 $rpid 2>/dev/null || break
	sleep 0.2
done
log "reflector: $(grep '^latprobe reflect: ' $out/refl.log)"
probe_bg 200 -t 22
await_readd "$R"
wait $ppid
echo "$?" >$out/probe.rc
log "probe: rc $(cat $out/probe.rc), $(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' $out/probe.txt)"
refl_stop
grep -E 'VF sub-device|made again|packets go over' $out/refl.log | sed 's/^/guest:   /'
EOF2
}

failover_refl_host() { host_readd_nic "$1" nic1 rp1 n1 52:54:00:1a:b0:01 igb; }

failover_refl_check() {
	local o=$1 bad=0 v f
	vm_rcs_ok "$o" probe refl || bad=1
	failover_lines "$o" refl.log nic1 || bad=1
	python3 - "$o" <<'PYEOF' || bad=1
import json, sys
o = sys.argv[1]
ok = True
def fail(m):
    global ok
    print("FAIL: " + m)
    ok = False
rf = json.load(open(f"{o}/refl.json"))
port = rf.get("port", {})
path = port.get("path", {})
pairs = [(s.get("from"), s.get("to")) for s in path.get("shifts", [])]
if pairs != [("vf", "synthetic"), ("synthetic", "vf")]:
    fail(f"the reflector's port.path.shifts {pairs}: not vf -> synthetic -> vf")
ev = [e.get("event") for e in port.get("link_events", [])]
if "vf_removed" not in ev:
    fail(f"the reflector's port.link_events {ev}: no vf_removed")
if port.get("removed_at_s") is not None:
    fail(f"the reflector's port.removed_at_s {port.get('removed_at_s')}: its port was not removed")
for k in ("vf_tx_packets", "synthetic_tx_packets"):
    if not path.get(k):
        fail(f"the reflector's port.path.{k} {path.get(k)}: that path answered nothing")
p = json.load(open(f"{o}/probe.json"))
pr = p.get("probes", {})
if not any(i["targets"][0]["received"] for i in p.get("intervals", [])[-5:]):
    fail("no answers in the prober's last 5 intervals: the reflector did not answer over its VF again")
if pr.get("lost_link_down"):
    fail(f"lost_link_down {pr.get('lost_link_down')}: the prober's own link stayed up")
if pr.get("sent") != pr.get("received", 0) + pr.get("lost", 0):
    fail("sent != received + lost")
print(f"  reflector: shifts {json.dumps(path.get('shifts'))}; VF tx {path.get('vf_tx_packets')}, "
      f"synthetic tx {path.get('synthetic_tx_packets')}; answered.stamp {rf.get('counters', {}).get('answered.stamp')}")
print(f"  prober: sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')}")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
