#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A device the EAL options ask for that does not come up as a DPDK
# port stops info, probe and reflect with exit 4 and one line naming the
# device (as given), why and what to do; before, info exited 0 with "no
# DPDK ports" and probe/reflect said "no DPDK port 0: give the EAL a device".
#   1. -a / --allow= / the short form of a PCI address this machine lacks;
#   2. -a on a PCI device that is no network device (a host bridge), when
#      this machine has one: nothing is probed on it, no driver takes it;
#   3. a --vdev that fails to probe (net_af_packet0 without iface=), and one
#      on an interface that does not exist (the pre-flight check).
# PCI: only an absent address or a host bridge (class 0x0600) is ever named;
# the others pass --no-pci, so the machine's own NICs are never probed.
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
export LP_EXPECT_STDERR=1 LP_EXPECT_SHOW=1 LP_EXPECT_ONE_LINE=1
EAL_PCI=(--in-memory --log-level=lib.eal:error)
APP_PROBE=(-- --addr 198.18.0.1/24 -n 1 198.18.0.2)
APP_REFL=(-- --addr 198.18.0.2/24)

# each RE EAL...: info, probe and reflect with these EAL options exit 4 with RE.
each() {
	local re=$1
	shift
	expect 4 "$re" "$LATPROBE" info -l 0 "$@" -- --calibrate 10ms
	expect 4 "$re" "$LATPROBE" probe -l 0 "$@" "${APP_PROBE[@]}"
	expect 4 "$re" "$LATPROBE" reflect -l 0 "$@" "${APP_REFL[@]}"
}

# 1. An address nobody has here.
absent=
for a in 0000:7f:1f.7 0000:7e:1f.7 0000:fe:1f.6; do
	[ -e "/sys/bus/pci/devices/$a" ] || { absent=$a; break; }
done
[ -n "$absent" ] || lp_skip "every candidate PCI address exists here"
each "^latprobe: error: -a $absent: no such PCI device on this machine" "${EAL_PCI[@]}" -a "$absent"
each "^latprobe: error: --allow $absent,foo=1: no such PCI device" "${EAL_PCI[@]}" "--allow=$absent,foo=1"
each "^latprobe: error: -a ${absent#0000:}: no such PCI device" "${EAL_PCI[@]}" -a "${absent#0000:}"
each "^latprobe: error: -a pci:$absent: no such PCI device" "${EAL_PCI[@]}" -a "pci:$absent"

# 2. A host bridge: a PCI device, but no NIC.
bridge=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/class" 2>/dev/null)" = 0x060000 ] && { bridge=${d##*/}; break; }
done
if [ -n "$bridge" ]; then
	each "^latprobe: error: -a $bridge: the device did not come up as a DPDK port: it is not a network device \(PCI class 0x060000\)" \
		"${EAL_PCI[@]}" -a "$bridge"
else
	echo "$LP_PROG: no host bridge here: case 2 not run"
fi

# 3. A --vdev whose PMD fails, and one on an interface that does not exist.
export LP_EXPECT_ONE_LINE=0 # EAL's own lines come first
each "^latprobe: error: --vdev net_af_packet0: the device did not come up as a DPDK port: EAL says \".*failed to initialize net_af_packet0 device\"" \
	"${EAL_COMMON[@]}" --vdev net_af_packet0
each "interface ${LP_NS_PREFIX}nosuch0 \(--vdev net_af_xdp0,iface=${LP_NS_PREFIX}nosuch0\) does not exist here" \
	"${EAL_COMMON[@]}" --vdev "net_af_xdp0,iface=${LP_NS_PREFIX}nosuch0"
# A device that comes up is no failure, among one that does not.
expect 4 "^latprobe: error: -a $absent: no such PCI device" "$LATPROBE" info -l 0 \
	"${EAL_PCI[@]}" -a "$absent" --vdev net_null0 -- --calibrate 10ms
grep -q "^port 0: net_null0" "$WORK/out" && fail "info went on after a failed device"
export LP_EXPECT_STDERR=0
expect 0 "^port 0: net_null0" "$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --vdev net_null0 -- --calibrate 10ms
expect 0 "^port 0: net_null0" "$LATPROBE" info -l 0 "${EAL_COMMON[@]}" --vdev vdev:net_null0 -- --calibrate 10ms
echo "$LP_PROG: ok"
