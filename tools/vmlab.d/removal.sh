# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Device removal mid-run: virtio-net (net_virtio on vfio-pci),
# the prober on nic2 with -t 60; the host removes nic2 (QMP device_del)
# once the prober has run 4 s. The guest's pciehp waits its 5 s (the
# attention button's grace period), then vfio-pci asks the user for the
# device (the request notifier: EAL's RTE_DEV_EVENT_REMOVE). Checked: the
# probe stops at once and exits 8 with its report whole (port.removed_at_s,
# sent = received + lost), it released the device, and the removal
# completed: the device is gone from QEMU's query-pci and from the guest's
# /sys/bus/pci well before the 60 s run would have ended.
cases_all+=" removal"

vmcase_removal() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	guest_fn=guest_removal
	check_fn=check_removal
	host_fn=host_removal
	ok_msg="net_virtio: device_del mid-run: report whole, exit 8, device released and gone"
}

guest_removal() {
	cat <<'EOF'
refl_start
t0=$(cut -d' ' -f1 /proc/uptime)
probe_bg 120 -t 60
wait $ppid
echo "$?" >$out/probe.rc
t1=$(cut -d' ' -f1 /proc/uptime)
log "probe: rc $(cat $out/probe.rc) after $(echo "$t1 - $t0" | bc 2>/dev/null || echo "$t0..$t1") s, $(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' $out/probe.txt)"
grep -E 'removed|released' $out/probe.err | sed 's/^/guest:   /'
# The kernel's side of the removal: the device is gone within 10 s.
for i in $(seq 100); do
	[ -e /sys/bus/pci/devices/$P ] || break
	sleep 0.1
done
if [ -e /sys/bus/pci/devices/$P ]; then echo present >$out/gone; else echo gone >$out/gone; fi
log "device $P: $(cat $out/gone) ($(cut -d' ' -f1 /proc/uptime) s)"
dmesg | grep -iE 'pciehp|vfio|Relaying' | tail -6 | sed 's/^/guest:   /'
refl_stop
EOF
}

# Host: 4 s into the probe, device_del nic2; then query-pci until it is
# gone (at most 40 s), with the time it took.
host_removal() {
	local dir=$1 i t0
	for ((i = 0; i < 1800; i++)); do
		[ -e "$dir/out/probe.started" ] && break
		[ -e "$dir/rc" ] && return 1
		sleep 0.1
	done
	[ -e "$dir/out/probe.started" ] || return 1
	sleep 4
	t0=$(date +%s.%N)
	qmp "$dir" device_del '{"id": "nic2"}' >"$dir/host.log" 2>&1 || return 1
	for ((i = 0; i < 80; i++)); do
		qmp "$dir" query-pci >"$dir/query-pci.json" 2>>"$dir/host.log" || return 1
		if ! grep -q '"qdev_id": "nic2"' "$dir/query-pci.json"; then
			echo "nic2 gone from query-pci $(echo "$(date +%s.%N) - $t0" | bc) s after device_del" >>"$dir/host.log"
			return 0
		fi
		sleep 0.5
	done
	echo "nic2 still in query-pci 40 s after device_del" >>"$dir/host.log"
	return 1
}

check_removal() {
	local o=$1 bad=0 v
	v=$(cat "$o/probe.rc" 2>/dev/null)
	[ "$v" = 8 ] || {
		echo "FAIL: probe exited ${v:-?}, not 8 (port removed):"
		tail -5 "$o/probe."{err,txt} 2>/dev/null | sed 's/^/  /'
		bad=1
	}
	v=$(cat "$o/refl.rc" 2>/dev/null)
	[ "$v" = 0 ] || { echo "FAIL: reflector exited ${v:-?}"; bad=1; }
	[ "$(cat "$o/gone" 2>/dev/null)" = gone ] ||
		{ echo "FAIL: the prober's device is still in the guest's /sys/bus/pci"; bad=1; }
	grep -q 'is being removed' "$o/probe.err" ||
		{ echo "FAIL: no 'is being removed' line on the prober's stderr"; bad=1; }
	grep -q 'released' "$o/probe.err" ||
		{ echo "FAIL: no 'released' line on the prober's stderr"; bad=1; }
	grep -q '^Port removed at' "$o/probe.txt" ||
		{ echo "FAIL: no 'Port removed at' line in the text report"; bad=1; }
	grep -q '^summary:' "$o/probe.txt" ||
		{ echo "FAIL: the text report is not whole (no summary line)"; bad=1; }
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
r = port.get("removed_at_s")
if not isinstance(r, (int, float)) or r <= 0:
    fail(f"port.removed_at_s {r}")
elif not r < 60:
    fail(f"removed_at_s {r}: not before -t 60")
ev = [e.get("event") for e in port.get("link_events", [])]
if "removed" not in ev:
    fail(f"port.link_events {ev} has no 'removed'")
if pr.get("sent", 0) == 0 or pr.get("sent") != pr.get("received", 0) + pr.get("lost", 0):
    fail(f"probes sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')}")
if p.get("duration_s", 99) >= 60:
    fail(f"duration_s {p.get('duration_s')}: the run did not stop at the removal")
print(f"  probe: sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')}; "
      f"removed_at_s {r}; duration_s {p.get('duration_s')}; link_events {json.dumps(port.get('link_events'))}")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
