# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# The reflector as a service (no -t) survives a removal and
# re-add of its device: virtio-net, the host removes nic1 (the reflector's)
# 4 s into a 40 s probe and adds it back (host_readd_nic, readd.sh). The
# guest binds the new device to vfio-pci. Checked: the reflector released
# the device, waited, re-attached it and answered again (the prober's
# intervals after the re-attach have answers; its losses in the gap are
# path loss to it: its own link stayed up), the reflector's report has
# removed then attached, its workers' queue_rx_packets (the PMD's per-queue
# count, the first port's carried across the re-attach) equal their rx,
# SIGINT ends it with exit 0.
cases_all+=" readd_refl"

vmcase_readd_refl() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	guest_fn=guest_readd_refl
	check_fn=check_readd_refl
	host_fn=host_readd_refl
	ok_msg="net_virtio: the reflector's device removed and re-added: it went on answering"
}

host_readd_refl() { host_readd_nic "$1" nic1 rp1 n1 52:54:00:1a:b0:01; }

guest_readd_refl() {
	cat <<'EOF'
refl_start
probe_bg 200 -t 40
await_readd "$R"
wait $ppid
echo "$?" >$out/probe.rc
log "probe: rc $(cat $out/probe.rc), $(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' $out/probe.txt)"
refl_stop
grep -E 'removed|released|back|waiting' $out/refl.log | sed 's/^/guest:   /'
EOF
}

check_readd_refl() {
	local o=$1 bad=0 v f
	vm_rcs_ok "$o" probe refl || bad=1
	for re in 'is being removed' 'waiting for the device' 'the device is back'; do
		grep -q "$re" "$o/refl.log" ||
			{ echo "FAIL: no '$re' line in the reflector's log"; bad=1; }
	done
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
ev = [e.get("event") for e in port.get("link_events", [])]
if "removed" not in ev or "attached" not in ev or ev.index("attached") < ev.index("removed"):
    fail(f"reflector port.link_events {ev}: not removed then attached")
r, a = port.get("removed_at_s"), port.get("attached_at_s")
p = json.load(open(f"{o}/probe.json"))
ivs = p.get("intervals", [])
# The two processes' clocks start apart: answers in the prober's last
# intervals (the reflector's device was back long before -t 40 ended).
tail = ivs[-5:]
if not any(i["targets"][0]["received"] for i in tail):
    fail("no answers in the prober's last 5 intervals: the reflector did not answer again")
pr = p.get("probes", {})
if not pr.get("lost"):
    fail("the prober lost nothing while the reflector's device was away")
if pr.get("lost_link_down"):
    fail(f"lost_link_down {pr.get('lost_link_down')}: the prober's own link stayed up")
# The PMD's per-queue count across the re-attach: the first port's carried
# into the second's, equal to what the worker received.
for w in rf.get("workers", []):
    if w.get("queue_rx_packets") != w.get("rx"):
        fail(f"lcore {w.get('lcore')}: queue_rx_packets {w.get('queue_rx_packets')} != rx {w.get('rx')} "
             "(the per-queue counts across the re-attach)")
c = rf.get("counters", {})
print(f"  reflector: workers' rx {[w.get('rx') for w in rf.get('workers', [])]}, "
      f"queue_rx_packets {[w.get('queue_rx_packets') for w in rf.get('workers', [])]}")
print(f"  reflector: removed_at_s {r}, attached_at_s {a}, answered.stamp {c.get('answered.stamp')}; "
      f"prober: sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')} "
      f"(link {pr.get('lost_link_down')}, path {pr.get('lost_path')})")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
