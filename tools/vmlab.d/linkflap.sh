# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Link down mid-run: virtio-net (net_virtio, whose PMD raises
# RTE_ETH_EVENT_INTR_LSC), the prober on nic2 for 20 s at -i 1ms with
# --interval-report 1s; the host takes nic2's link down for 5 s (QMP
# set_link) once the prober has run 4 s. Checked: the probe ends as usual
# (rc 0); its report has link_down then link_up in port.link_events, a
# link_down_s, probes lost while the link was down in lost_link_down
# (lost = lost_link_down + lost_path), intervals marked, the stderr lines.
cases_all+=" linkflap"

vmcase_linkflap() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	guest_fn=guest_linkflap
	check_fn=check_linkflap
	host_fn=host_linkflap
	ok_msg="net_virtio: link down 5 s mid-run, reported and counted apart"
}

# The guest: a reflector on nic1, then one prober run on nic2; the file
# out/probe.started tells the host when the prober is up (its start line).
guest_linkflap() {
	cat <<'EOF'
refl_start
probe_bg 120 -t 20
wait $ppid
echo "$?" >$out/probe.rc
log "probe: rc $(cat $out/probe.rc), $(grep -o 'Sent = [0-9]*, Received = [0-9]*, Lost = [0-9]*' $out/probe.txt)"
grep 'link' $out/probe.err | sed 's/^/guest:   /'
refl_stop
EOF
}

# Host: wait for the prober, 4 s, nic2's link off for 5 s, on again.
host_linkflap() {
	local dir=$1 i
	for ((i = 0; i < 1800; i++)); do
		[ -e "$dir/out/probe.started" ] && break
		[ -e "$dir/rc" ] && return 1 # the guest ended first
		sleep 0.1
	done
	[ -e "$dir/out/probe.started" ] || return 1
	sleep 4
	qmp "$dir" set_link '{"name": "nic2", "up": false}' >"$dir/host.log" 2>&1 || return 1
	echo "link off at $(date +%s.%N)" >>"$dir/host.log"
	sleep 5
	qmp "$dir" set_link '{"name": "nic2", "up": true}' >>"$dir/host.log" 2>&1 || return 1
	echo "link on at $(date +%s.%N)" >>"$dir/host.log"
}

check_linkflap() {
	local o=$1 bad=0 f v
	vm_rcs_ok "$o" probe refl || bad=1
	grep -q 'link down at' "$o/probe.err" ||
		{ echo "FAIL: no 'link down at' line on the prober's stderr"; bad=1; }
	grep -q 'link up at' "$o/probe.err" ||
		{ echo "FAIL: no 'link up at' line on the prober's stderr"; bad=1; }
	grep -q 'LINK DOWN' "$o/probe.err" ||
		{ echo "FAIL: no [LINK DOWN] mark in the live line"; bad=1; }
	grep -q '^interval .*LINK' "$o/probe.txt" "$o/probe.err" ||
		{ echo "FAIL: no interval line marked LINK"; bad=1; }
	grep -q '^Port events (' "$o/probe.txt" ||
		{ echo "FAIL: no 'Port events' section in the text report"; bad=1; }
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
if ev[:2] != ["link_down", "link_up"]:
    fail(f"port.link_events {ev}: not link_down then link_up")
d = port.get("link_down_s")
if not isinstance(d, (int, float)) or not 0 < d < p.get("duration_s", 0):
    fail(f"port.link_down_s {d}")
if not port.get("link_up_at_end"):
    fail("link_up_at_end is not true")
if port.get("removed_at_s", 0) is not None:
    fail(f"removed_at_s {port.get('removed_at_s')} (null expected)")
lost, lld, lp = pr.get("lost"), pr.get("lost_link_down"), pr.get("lost_path")
if not lld:
    fail(f"probes.lost_link_down {lld}: the link's losses not counted apart")
if lost != (lld or 0) + (lp or 0):
    fail(f"lost {lost} != lost_link_down {lld} + lost_path {lp}")
if pr.get("sent") != pr.get("received", 0) + (lost or 0):
    fail("sent != received + lost")
marked = [i for i in p.get("intervals", []) if "link" in i]
if not marked or not any(i["link"]["downs"] for i in marked) or not any(i["link"]["ups"] for i in marked):
    fail(f"intervals: {len(marked)} marked, without both a down and an up")
print(f"  probe: sent {pr.get('sent')} received {pr.get('received')} lost {lost} "
      f"(link down {lld}, path {lp}); link_events {json.dumps(port.get('link_events'))}; "
      f"link_down_s {d}; detection {port.get('link_detection')}; {len(marked)} intervals marked")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
