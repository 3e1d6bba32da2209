# shellcheck shell=bash
# Case quiet: the stall detector on a PCI PMD in the guest. Two
# igb NICs (net_e1000_igb, vfio-pci: a NIC's poll-mode driver, whose rx/tx
# calls are user-space work the detector judges by time, each kind against
# its own level: under TCG igb's tx doorbell traps to QEMU, 15 us or more
# on every call). A quiet 5 s run of the prober on lcore 1 (open loop,
# 5,000 probes a second), then, the reflector still polling on lcore 0,
# bench/tools/stall on the guest's CPU 1 for as long with the run's
# calibrated threshold: the guest's own rate of gaps that long on that
# vCPU (under TCG the vCPU is a host thread: the host's load and the
# emulator's pauses are the guest's stalls). Asserted on the host: the
# run's stalls per second within 10x the reference's plus 2 a second (the
# factor of tests/integration/stalls_quiet.py: the prober's loop does more
# between two clock reads than the bare loop), and fewer than a tenth of
# the probes beyond twice the guest's own gaps (a detector that took each
# probe or PMD call for a stall is over both). The figures are printed.
cases_all+=" quiet"

quiet_secs=5
# LP_QUIET_RATE: another rate (the excess over the guest's own gaps grows
# with it if the probes' own work is taken for stalls).
quiet_rate=${LP_QUIET_RATE:-5000}

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_quiet() {
	model=igb
	drv=net_e1000_igb
	guest_fn=quiet_guest
	check_fn=quiet_check
	# The reference loop: bench/tools/stall of the same build as latprobe
	# (self-contained, libc only), copied in by quiet_guest.
	quiet_stall=$(dirname "$(dirname "$latprobe_bin")")/bench/tools/stall
	[ -x "$quiet_stall" ] || {
		lp_warn "quiet: no $quiet_stall (configured with -Dbench=false?): skipped"
		return 77
	}
	ok_msg="net_e1000_igb, a quiet ${quiet_secs} s run: its stalls at the guest's own rate (bench/tools/stall on the same vCPU), not one per probe"
}

quiet_guest() {
	# run_case's shared folder ($dir, dynamic scope) takes the reference
	# loop next to latprobe.
	# shellcheck disable=SC2154 # dir: run_case's
	cp "$quiet_stall" "$dir/stall"
	cat <<EOF
refl_start
timeout 200 \$L probe -l 1 --file-prefix lpp -a "\$P" \$EAL -- --addr 198.18.0.1/24 \\
	--arp-timeout 30s -t $quiet_secs --rate $quiet_rate --timeout 2s -q --json \$out/quiet.json 198.18.0.2 \\
	>\$out/quiet.txt 2>\$out/quiet.err
echo "\$?" >\$out/quiet.rc
log "quiet: rc \$(cat \$out/quiet.rc), \$(grep -o 'Sent = [0-9]*, Received = [0-9]*' \$out/quiet.txt)"
EOF
	cat <<'EOF'
# The run's threshold and length, for the reference loop on its vCPU.
set -- $(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["stalls"]["prober"]["calibration"]["threshold_ns"], max(1000, int(r["duration_s"] * 1000)))' $out/quiet.json)
timeout 120 /run/lab/stall --cpu 1 --ms "${2:-1000}" --threshold-ns "${1:-5000}" --json \
	>$out/ref.json 2>$out/ref.err
echo "$?" >$out/ref.rc
log "reference: rc $(cat $out/ref.rc), $(cat $out/ref.json)"
refl_stop
log "reflector rc $(cat $out/refl.rc)"
EOF
}

# quiet_check OUT DRV: the run's stalls against the guest's reference loop.
quiet_check() {
	local o=$1 drv=$2 bad=0 f v
	vm_rcs_ok "$o" refl quiet ref || bad=1
	[ "$bad" -eq 0 ] || return 1
	python3 - "$o" "$drv" <<'PYEOF' || bad=1
import json, sys
o, drv = sys.argv[1], sys.argv[2]
r = json.load(open(f"{o}/quiet.json"))
f = json.load(open(f"{o}/ref.json"))
st = r["stalls"]["prober"]
probes = r["rtt_ns"]["count"]
thr = st["calibration"]["threshold_ns"]
got = st["count"] / r["duration_s"]
ref = f["over_threshold"] / f["seconds"]
bound = 10 * ref + 2
print(f"  quiet ({r.get('port_driver')}): {st['count']} stalls in "
      f"{r['duration_s']:.2f} s = {got:.2f}/s (longest {st['longest_ns']} ns), "
      f"{probes} probes, threshold {thr} ns (calibrated from "
      f"{st['calibration']['gaps']} gaps, p99.9 {st['calibration']['gap_p99_9_ns']} ns); "
      f"PMD calls judged: {not st['pmd_calls']['path']}; the guest's loop on "
      f"CPU {f['cpu']}: {f['over_threshold']} over {thr} ns in {f['seconds']:.2f} s "
      f"= {ref:.2f}/s (bound {bound:.2f}/s), lost share {f['lost_share']:.3f}")
ok = True
def fail(m):
    global ok
    print("FAIL: quiet: " + m)
    ok = False
if r.get("port_driver") != drv:
    fail(f"port_driver {r.get('port_driver')!r} != {drv!r}")
if f["threshold_ns"] != thr:
    fail("the reference ran with another threshold")
if probes <= 0:
    fail("no probe measured")
if got > bound:
    fail(f"{got:.2f} stalls/s against the guest's {ref:.2f}/s")
# Not one per probe (as tests/integration/stalls_quiet.py): fewer than a
# tenth of the probes beyond twice the guest's own gaps. It tells a stall
# per probe apart only when the probes outnumber the guest's gaps about
# 2.2 to 1: hence the open loop at 5,000 a second (closed, under TCG: about
# 100 round trips a second against 800 gaps). It FAILS today (2026-12-05,
# TCG, host load 10 to 17): 28,186 stalls for 24,192 probes against the
# guest loop's 5,342 at --rate 5000; 6,427 against 7,889 at --rate 500: the
# excess is about one stall per probe, in the 5-10 us and 20-50 us buckets
# (the worker's own per-probe work between PMD calls, slower than the 5 us
# floor under emulation, while calibration times idle polls only).
allow = probes / 10 + 2 * f["over_threshold"]
print(f"  not one per probe: {st['count']} stalls < {probes} / 10 + 2 x "
      f"{f['over_threshold']} = {allow:.0f}" +
      ("" if 0.9 * probes > 2 * f["over_threshold"] else
       " (not discriminating: the guest's own gaps outnumber the probes)"))
if st["count"] >= allow:
    fail(f"{st['count']} stalls for {probes} probes: about one per probe")
sys.exit(0 if ok else 1)
PYEOF
	return $bad
}
