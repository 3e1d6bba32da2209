# shellcheck shell=bash
# Case setup: `latprobe setup` binds a real PCI NIC (leftover),
# and `latprobe doctor` on a guest booted for isolation, in one
# boot. Two igb NICs; the guest's kernel command line has isolcpus=1
# nohz_full=1 rcu_nocbs=1 irqaffinity=0 (and clocksource=tsc tsc=reliable
# transparent_hugepage=madvise), and every IRQ is moved to CPU 0.
#   1. `latprobe setup --iface IF --hugepages 0 --lcore 0` takes the
#      reflector's NIC (not the script's bind_vfio): exit 0, the NIC on
#      vfio-pci, the profile /etc/latprobe/dpdk-config/host naming it; a
#      second setup is refused (exit 4, "already set up").
#   2. A reflector from that profile (--profile host) answers 200 STAMP
#      probes from the other NIC.
#   3. `latprobe setup --undo`: exit 0, the NIC back on igb.
#   4. `latprobe doctor -- --lcores 1` (the kernel's NICs stand in, the
#      igb again among them): every check ok but tsc_invariant and the
#      clock checks (no time daemon in the guest: they warn); then the
#      igb's IRQs moved to CPU 1: irq_affinity warns, the rest as before.
# The same doctor in a guest booted without isolation (the netem case's,
# tools/vmlab.d/netem.sh) warns of isolation. Under TCG tsc_invariant fails
# (QEMU's TCG offers no invariant TSC) whatever the kernel: doctor exits 1
# with it, and that is checked as the exit code of a failed check.
cases_all+=" setup"

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_setup() {
	model=igb
	drv=net_e1000_igb
	bind_r=0
	guest_fn=setup_guest
	check_fn=setup_check
	# Isolation, and the clock source and THP doctor wants (else it
	# warns of hpet and of THP "always").
	cmdline_extra="isolcpus=1 nohz_full=1 rcu_nocbs=1 irqaffinity=0 clocksource=tsc tsc=reliable transparent_hugepage=madvise"
	ok_msg="latprobe setup bound and restored the igb, its profile answered 200/200; doctor: all ok but tsc_invariant (TCG) and the clock (no time daemon), irq_affinity warns with an IRQ on the lcore"
}

setup_guest() {
	cat <<'EOF'
# The image is read-only (snapshot=on underneath: nothing reaches it):
# setup writes /etc/latprobe.
mount -o remount,rw / || { log "FAIL: remount /"; exit 3; }
drv_of() { basename "$(readlink -f /sys/bus/pci/devices/$1/driver)"; }
IF=$(ls /sys/bus/pci/devices/$R/net/ | head -1)
log "reflector NIC $R: $IF on $(drv_of $R)"
$L setup --iface "$IF" --hugepages 0 --lcore 0 >$out/setup.txt 2>&1
echo "$?" >$out/setup.rc
drv_of "$R" >$out/setup.driver
cp /etc/latprobe/dpdk-config/host $out/profile.txt 2>/dev/null
log "setup: rc $(cat $out/setup.rc), $R on $(cat $out/setup.driver)"
$L setup --iface "$IF" --hugepages 0 >$out/setup2.txt 2>&1
echo "$?" >$out/setup2.rc
$L reflect --profile host -- --addr 198.18.0.2/24 --json $out/refl.json >$out/refl.log 2>&1 &
rpid=$!
for i in $(seq 300); do
	grep -q '^latprobe reflect: ' $out/refl.log && break
	kill -0 $rpid 2>/dev/null || break
	sleep 0.2
done
log "reflector: $(grep '^latprobe reflect: ' $out/refl.log)"
timeout 200 $L probe -l 1 --file-prefix lpp -a "$P" $EAL -- --addr 198.18.0.1/24 --arp-timeout 30s \
	-n 200 -w 10 --timeout 2s --json $out/probe-stamp.json 198.18.0.2 \
	>$out/probe-stamp.txt 2>$out/probe-stamp.err
echo "$?" >$out/probe-stamp.rc
log "probe: rc $(cat $out/probe-stamp.rc), $(grep -o 'Sent = [0-9]*, Received = [0-9]*' $out/probe-stamp.txt)"
refl_stop
$L setup --undo >$out/undo.txt 2>&1
echo "$?" >$out/undo.rc
drv_of "$R" >$out/undo.driver
log "setup --undo: rc $(cat $out/undo.rc), $R on $(cat $out/undo.driver)"
# Every IRQ that can move to CPU 0 (irqaffinity=0 did the rest at boot).
for d in /proc/irq/[0-9]*; do echo 0 >$d/smp_affinity_list 2>/dev/null; done
for i in $(seq 20); do
	IF2=$(ls /sys/bus/pci/devices/$R/net/ 2>/dev/null | head -1)
	[ -n "$IF2" ] && break
	sleep 0.5
done
ip link set dev "$IF2" up
sleep 1
grep -E "$IF2|$R" /proc/interrupts >$out/irqs-iso.txt
$L doctor -- --lcores 1 --json $out/doctor-iso.json >$out/doctor-iso.txt 2>&1
echo "$?" >$out/doctor-iso.rc
# The igb's IRQs onto the lcore.
for n in $(grep -E "$IF2|$R" /proc/interrupts | cut -d: -f1); do
	echo 1 >/proc/irq/$n/smp_affinity_list 2>/dev/null
done
$L doctor -- --lcores 1 --json $out/doctor-irq.json >$out/doctor-irq.txt 2>&1
echo "$?" >$out/doctor-irq.rc
log "doctor: rc $(cat $out/doctor-iso.rc) (IRQs on CPU 0), $(cat $out/doctor-irq.rc) (the igb's on CPU 1); cmdline: $(cat /proc/cmdline)"
EOF
}

# doctor_verdicts FILE: "name=verdict ..." of a doctor JSON (for the logs).
doctor_verdicts() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["name"] + "=" + c["verdict"] for c in d.get("checks", [])))' "$1" 2>/dev/null
}

setup_check() {
	local o=$1 drv=$2 bad=0 f v
	vm_rcs_ok "$o" setup refl probe-stamp undo || bad=1
	sed 's/^/  setup: /' "$o/setup.txt"
	v=$(cat "$o/setup.driver" 2>/dev/null)
	[ "$v" = vfio-pci ] || { echo "FAIL: after setup the NIC is on ${v:-?}, not vfio-pci"; bad=1; }
	grep -q -- '-a 0000:01:00.0' "$o/profile.txt" 2>/dev/null &&
		grep -q -- '^-l 0' "$o/profile.txt" && grep -q -- '--in-memory' "$o/profile.txt" || {
		echo "FAIL: the profile does not name the NIC, lcore 0 and --in-memory:"
		sed 's/^/  /' "$o/profile.txt" 2>/dev/null
		bad=1
	}
	v=$(cat "$o/setup2.rc" 2>/dev/null)
	if [ "$v" != 4 ] || ! grep -q 'already set up' "$o/setup2.txt"; then
		echo "FAIL: a second setup exited ${v:-?}, want 4 (already set up):"
		sed 's/^/  /' "$o/setup2.txt"
		bad=1
	fi
	v=$(cat "$o/undo.driver" 2>/dev/null)
	[ "$v" = igb ] || { echo "FAIL: after setup --undo the NIC is on ${v:-?}, not igb"; bad=1; }
	echo "  doctor, IRQs on CPU 0: $(doctor_verdicts "$o/doctor-iso.json")"
	echo "  doctor, the igb's IRQs on CPU 1: $(doctor_verdicts "$o/doctor-irq.json")"
	python3 - "$o" "$drv" <<'PYEOF' || bad=1
import json, sys
o, drv = sys.argv[1], sys.argv[2]
ok = True
def fail(m):
    global ok
    print("FAIL: setup: " + m)
    ok = False
def load(f):
    try:
        return json.load(open(f"{o}/{f}"))
    except (OSError, ValueError) as e:
        fail(f"{f}: {e}")
        return {}
p = load("probe-stamp.json").get("probes", {})
if p.get("sent") != 200 or p.get("received") != 200:
    fail(f"probe sent {p.get('sent')} received {p.get('received')}, want 200")
r = load("refl.json")
if r.get("counters", {}).get("answered.stamp", 0) < 210:
    fail(f"the --profile host reflector answered.stamp {r.get('counters', {}).get('answered.stamp')} < 210")
def verdicts(f):
    d = load(f)
    return {c["name"]: (c["verdict"], c.get("value")) for c in d.get("checks", [])}, d
first = None
for f, irq_want in (("doctor-iso", "ok"), ("doctor-irq", "warn")):
    v, d = verdicts(f + ".json")
    # All ok on a real kernel booted for it, but tsc_invariant: QEMU's
    # TCG has no invariant TSC (a fail under KVM on such a host too); and
    # the clock checks: the lab's guest runs no time daemon, so
    # doctor must say its clock is not synchronised.
    for k in ("clock_sync", "clock_error"):
        if v.get(k, ("?",))[0] != "warn":
            fail(f"{f}: {k} {v.get(k)}, want warn (no time daemon in the guest)")
    others = {k: x[0] for k, x in v.items()
              if k not in ("tsc_invariant", "irq_affinity", "clock_sync", "clock_error")}
    if first is None:
        first = others
        if not others or any(x != "ok" for x in others.values()):
            fail(f"{f}: not all ok: {others}")
    elif others != first:
        fail(f"{f}: checks other than irq_affinity changed: {others} (before {first})")
    rc = open(f"{o}/{f}.rc").read().strip()
    if v.get("isolation", ("?",))[0] != "ok":
        fail(f"{f}: isolation {v.get('isolation')}, want ok (booted isolcpus=1 nohz_full=1 rcu_nocbs=1)")
    if v.get("irq_affinity", ("?",))[0] != irq_want:
        fail(f"{f}: irq_affinity {v.get('irq_affinity')}, want {irq_want}")
    # Exit 1 exactly when a check fails (docs/usage.md).
    nfail = d.get("summary", {}).get("fail", 0)
    if rc != ("1" if nfail else "0"):
        fail(f"{f}: exit {rc} with {nfail} failed checks")
    print(f"  {f}: exit {rc}; isolation {v.get('isolation')}; irq_affinity {v.get('irq_affinity')}")
sys.exit(0 if ok else 1)
PYEOF
	return $bad
}
