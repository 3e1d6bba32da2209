# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# A fleet prober and an open-loop prober under --forever, each
# through a removal and return of its device (virtio-net on vfio-pci, nic2),
# one after the other in one boot (the readd case's host part, twice):
#   fleet  two targets (STAMP on 862, sockperf on 11111, a pinglist) in
#          closed loop: both go on after the re-attach, each with answers,
#          none duplicated, none for a probe never sent;
#   open   --rate 200: goes on after the re-attach from its schedule; the
#          5 s or so of the gap are not sent afterwards in a burst (the
#          first interval after it sends at most twice the rate), none
#          duplicated.
# Each: SIGINT 4 s after "the device is back", exit 0, removed then
# attached, answers after attached_at_s, sent == received + lost.
cases_all+=" readd_fleet"

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_readd_fleet() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	guest_fn=fleet_guest
	check_fn=fleet_check
	host_fn=fleet_host
	ok_msg="net_virtio: device_del + device_add under --forever with 2 targets, then in open loop: both went on"
}

fleet_guest() {
	cat <<'EOF'
refl_start
echo "198.18.0.2:11111 proto=sockperf label=sp" >$out/pinglist
# fleet_run TAG ARGS: one --forever prober through the removal and return.
fleet_run() {
	tag=$1
	shift
	timeout 200 $L probe -l 1 --file-prefix lpp -a "$P" $EAL -- \
		--addr 198.18.0.1/24 --arp-timeout 30s --forever "$@" --timeout 1s --interval-report 1s \
		--json $out/$tag.json 198.18.0.2 >$out/$tag.txt 2>$out/$tag.err &
	ppid=$!
	for i in $(seq 600); do
		grep -q '^latprobe probe: 198' $out/$tag.err 2>/dev/null && break
		kill -0 $ppid 2>/dev/null || break
		sleep 0.1
	done
	: >$out/$tag.started
	await_readd
	for i in $(seq 300); do
		grep -q 'the device is back' $out/$tag.err && break
		kill -0 $ppid 2>/dev/null || break
		sleep 0.1
	done
	sleep 4
	kill -INT $ppid
	wait $ppid
	echo "$?" >$out/$tag.rc
	log "$tag: rc $(cat $out/$tag.rc); $(grep -E 'removed|back' $out/$tag.err | tr '\n' ' ')"
}
fleet_run fleet --targets $out/pinglist -i 1ms
fleet_run open --rate 200
refl_stop
EOF
}

fleet_host() {
	host_readd_nic "$1" nic2 rp2 n2 52:54:00:1a:b0:02 virtio-net-pci fleet.started &&
		host_readd_nic "$1" nic2 rp2 n2 52:54:00:1a:b0:02 virtio-net-pci open.started
}

fleet_check() {
	local o=$1 bad=0 v t
	for t in fleet open; do
		v=$(cat "$o/$t.rc" 2>/dev/null)
		[ "$v" = 0 ] || {
			echo "FAIL: $t: probe exited ${v:-?}, not 0:"
			tail -5 "$o/$t."{err,txt} 2>/dev/null | sed 's/^/  /'
			bad=1
		}
		grep -q 'the device is back' "$o/$t.err" 2>/dev/null ||
			{ echo "FAIL: $t: no 'the device is back' line"; bad=1; }
	done
	python3 - "$o" <<'PYEOF' || bad=1
import json, sys
o = sys.argv[1]
ok = True
def fail(m):
    global ok
    print("FAIL: " + m)
    ok = False
for tag, n_tg in (("fleet", 2), ("open", 1)):
    try:
        p = json.load(open(f"{o}/{tag}.json"))
    except (OSError, ValueError) as e:
        fail(f"{tag}: {e}")
        continue
    port, pr = p.get("port", {}), p.get("probes", {})
    ev = [e.get("event") for e in port.get("link_events", [])]
    if "removed" not in ev or "attached" not in ev or ev.index("attached") < ev.index("removed"):
        fail(f"{tag}: port.link_events {ev}: not removed then attached")
    a = port.get("attached_at_s")
    if not isinstance(a, (int, float)):
        fail(f"{tag}: attached_at_s {a}")
        continue
    if pr.get("sent") != pr.get("received", 0) + pr.get("lost", 0):
        fail(f"{tag}: sent {pr.get('sent')} != received + lost")
    if pr.get("duplicated"):
        fail(f"{tag}: {pr.get('duplicated')} duplicated (a sequence number used twice?)")
    ivs = p.get("intervals", [])
    after = [i for i in ivs if i["t_s"] > a + 1]
    for k in range(n_tg):
        if not any(i["targets"][k]["received"] for i in after if k < len(i["targets"])):
            fail(f"{tag}: target {k}: no answers after the re-attach")
    if tag == "open":
        first = [i for i in ivs if i["t_s"] > a]
        if first and first[0]["targets"][0]["sent"] > 2 * 200:
            fail(f"{tag}: {first[0]['targets'][0]['sent']} sent in the first interval after the re-attach: a catch-up burst")
        rate = p.get("open_loop", {}).get("rate_pps")
        print(f"  open: rate {rate}, first interval after the re-attach sent "
              f"{first[0]['targets'][0]['sent'] if first else None}, late_sends {p.get('sender', {}).get('late_sends')}")
    print(f"  {tag}: sent {pr.get('sent')} received {pr.get('received')} lost {pr.get('lost')}; "
          f"removed_at_s {port.get('removed_at_s')}, attached_at_s {a}; targets {len(p.get('targets', []))}")
sys.exit(0 if ok else 1)
PYEOF
	[ -f "$o/../host.log" ] && sed 's/^/  host: /' "$o/../host.log"
	return $bad
}
