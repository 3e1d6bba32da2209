# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# A device removed and given back under a --forever prober:
# virtio-net (net_virtio on vfio-pci), the prober on nic2; 4 s into it the
# host removes nic2 (QMP device_del), waits until it is gone, and 2 s later
# adds it again (device_add: same netdev, id, root port and MAC), as a
# cloud host gives a VF back after servicing. The guest binds the new
# device to vfio-pci (the kernel's virtio-pci takes it first). Checked: the
# prober released the device, waited for it, re-attached it and went on
# (answers after the re-attach), its report has removed then attached
# events and attached_at_s, the intervals show the gap; SIGINT ends it
# with exit 0.
cases_all+=" readd"

vmcase_readd() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	guest_fn=guest_readd
	check_fn=check_readd
	host_fn=host_readd
	ok_msg="net_virtio: device_del + device_add under --forever: re-attached, probing resumed"
}

guest_readd() {
	cat <<'EOF'
refl_start
probe_bg 200 --forever
await_readd
for i in $(seq 300); do
	grep -q 'the device is back' $out/probe.err && break
	kill -0 $ppid 2>/dev/null || break
	sleep 0.1
done
sleep 4
kill -INT $ppid
wait $ppid
echo "$?" >$out/probe.rc
log "probe: rc $(cat $out/probe.rc), $(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' $out/probe.txt)"
grep -E 'removed|released|back|waiting' $out/probe.err | sed 's/^/guest:   /'
refl_stop
EOF
}

host_readd() { host_readd_nic "$1" nic2 rp2 n2 52:54:00:1a:b0:02; }

# host_readd_nic DIR ID BUS NETDEV MAC [MODEL] [CUE]: 4 s after the guest's
# out/CUE (probe.started), device_del ID, wait until it is gone from
# query-pci, 2 s, device_add it again (MODEL: virtio-net-pci, modern only
# behind the vIOMMU, by default).
host_readd_nic() {
	local dir=$1 id=$2 bus=$3 nd=$4 mac=$5 model=${6:-virtio-net-pci} i gone=0 more=''
	local cue=${7:-probe.started}
	[ "$model" = virtio-net-pci ] && more=', "iommu_platform": true, "disable-legacy": "on"'

	for ((i = 0; i < 1800; i++)); do
		[ -e "$dir/out/$cue" ] && break
		[ -e "$dir/rc" ] && return 1
		sleep 0.1
	done
	[ -e "$dir/out/$cue" ] || return 1
	sleep 4
	qmp "$dir" device_del "{\"id\": \"$id\"}" >>"$dir/host.log" 2>&1 || return 1
	for ((i = 0; i < 80; i++)); do
		qmp "$dir" query-pci >"$dir/query-pci.json" 2>>"$dir/host.log" || return 1
		grep -q "\"qdev_id\": \"$id\"" "$dir/query-pci.json" || { gone=1; break; }
		sleep 0.5
	done
	[ "$gone" = 1 ] || { echo "$id still there 40 s after device_del" >>"$dir/host.log"; return 1; }
	echo "$id gone" >>"$dir/host.log"
	sleep 2
	qmp "$dir" device_add "{\"driver\": \"$model\", \"netdev\": \"$nd\", \"id\": \"$id\", \"bus\": \"$bus\", \"mac\": \"$mac\"$more}" >>"$dir/host.log" 2>&1 || return 1
	echo "$id added again" >>"$dir/host.log"
}

check_readd() {
	local o=$1 bad=0 v
	v=$(cat "$o/probe.rc" 2>/dev/null)
	[ "$v" = 0 ] || {
		echo "FAIL: probe exited ${v:-?}, not 0:"
		tail -5 "$o/probe."{err,txt} 2>/dev/null | sed 's/^/  /'
		bad=1
	}
	for re in 'is being removed' 'waiting for the device' 'the device is back'; do
		grep -q "$re" "$o/probe.err" ||
			{ echo "FAIL: no '$re' line on the prober's stderr"; bad=1; }
	done
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
ev = [e.get("event") for e in port.get("link_events", [])]
if "removed" not in ev or "attached" not in ev or ev.index("attached") < ev.index("removed"):
    fail(f"port.link_events {ev}: not removed then attached")
r, a = port.get("removed_at_s"), port.get("attached_at_s")
if not isinstance(r, (int, float)) or not isinstance(a, (int, float)) or not a > r:
    fail(f"removed_at_s {r}, attached_at_s {a}")
ivs = p.get("intervals", [])
after = [i for i in ivs if isinstance(a, (int, float)) and i["t_s"] > a + 1 and i["targets"][0]["received"] > 0]
if not after:
    fail("no answers in the intervals after the re-attach")
# The intervals' times are CLOCK_MONOTONIC's, the events' the TSC's (under
# TCG they drift apart by up to about half a second over the run): the
# marks are made on the events' clock, so the gap is the intervals marked
# removed and not attached, and those well inside the gap by time must be
# marked removed.
# removed and not attached, but for the first: it holds the removal, and
# the answers before it.
away = [i for i in ivs if i.get("link", {}).get("removed") and not i.get("link", {}).get("attached")][1:]
if any(i["targets"][0]["received"] for i in away):
    fail("answers in an interval marked removed")
gap = [i for i in ivs if isinstance(r, (int, float)) and isinstance(a, (int, float)) and r + 1.5 < i["t_s"] <= a - 0.5]
if len(away) < 2 or not gap or not all(i.get("link", {}).get("removed") for i in gap):
    fail(f"intervals in the gap not marked link.removed ({len(away)} marked)")
if pr.get("sent") != pr.get("received", 0) + pr.get("lost", 0):
    fail("sent != received + lost")
print(f"  probe: sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')}; "
      f"removed_at_s {r}, attached_at_s {a}; {len(gap)} intervals in the gap, {len(after)} answered after; "
      f"link_events {json.dumps(port.get('link_events'))}")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
