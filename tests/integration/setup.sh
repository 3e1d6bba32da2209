#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# latprobe setup on the fixture hosts of tests/unit/host/fixtures (copied
# into $WORK; the real /sys is never written): netvsc + mlx5 VFs, MANA,
# and a PCI NIC behind an IOMMU. --dry-run prints the plan and changes no
# file; a run writes the sysfs files (driver_override, unbind,
# drivers_probe, flags, nr_hugepages) and the profile, which --profile
# finds; --undo puts every file back; the default route's and the SSH
# session's NIC, a PCI NIC without an IOMMU and a second setup are refused
# in one line (exit 4); bad options are usage errors (2).
. "$(dirname "$0")/lib.sh"
lp_begin
FIX=$LP_TOP/tests/unit/host/fixtures
unset SSH_CONNECTION
LP_EXPECT_ONE_LINE=1

# host NAME: a fresh copy of fixture NAME in $WORK/NAME
host() {
	rm -rf "${WORK:?}/$1"
	cp -a "$FIX/$1" "$WORK/$1"
	H=$WORK/$1
}
# sums DIR: every file's content and every link's target, for a diff
sums() { (cd "$1" && find . \( -type f -o -type l \) -print0 | sort -z |
	xargs -0 sh -c 'for f; do if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(md5sum <"$f")"; fi; done' _); }
# has FILE VALUE: FILE under $H holds VALUE (one line)
has() { [ "$(cat "$H/$1")" = "$2" ] || fail "$1 holds '$(cat "$H/$1")', expected '$2'"; }

U1=000d3a00-0000-4000-8000-000000000001

# ---- netvsc + mlx5: the dry run's plan, in order, and no file changed.
host setup-netvsc
sums "$H" >"$WORK/before"
expect 0 "" "$LATPROBE" setup --root "$H" --dry-run
cat "$WORK/out"
grep -q "^latprobe setup: eth1 (VMBus $U1, hv_netvsc), VF enP2s2 (0002:00:02.0 15b3:1016, mlx5_core): netvsc+mlx$" \
	"$WORK/out" || fail "netvsc: not detected as eth1 + mlx5 VF (the only NIC free of the default route)"
$PY - "$WORK/out" "$U1" <<'PYEOF' || fail "netvsc: the plan is not the expected one"
import re, sys
out, u = open(sys.argv[1]).read(), sys.argv[2]
steps = re.findall(r"^ +\d+\. (.*)$", out, re.M)
want = [
    "echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
    "modprobe mlx5_ib",
    "ip link set dev eth1 down   # echo 0x1002 > /sys/class/net/eth1/flags",
    f"echo uio_hv_generic > /sys/bus/vmbus/devices/{u}/driver_override",
    f"echo {u} > /sys/bus/vmbus/drivers/hv_netvsc/unbind",
    f"echo {u} > /sys/bus/vmbus/drivers_probe",
    f"write /etc/latprobe/dpdk-config/host: -l 3 --in-memory -a {u},latency=10",
]
assert len(steps) == len(want), steps
for s, w in zip(steps, want):
    assert s.startswith(w), (s, w)
assert re.search(r"^    -a %s,latency=10$" % u, out, re.M), "profile text"
PYEOF
sums "$H" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "--dry-run changed files"

# The run: the files it writes, the state, the profile --profile finds.
expect 0 "state: /run/latprobe/setup.state" "$LATPROBE" setup --root "$H" --iface eth1
grep -q "skipped (--root): modprobe mlx5_ib" "$WORK/out" || fail "modprobe not skipped under --root"
has sys/bus/vmbus/devices/$U1/driver_override uio_hv_generic
has sys/bus/vmbus/drivers/hv_netvsc/unbind $U1
has sys/bus/vmbus/drivers_probe $U1
has sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 1024
has sys/class/net/eth1/flags 0x1002
grep -qx -- "-a $U1,latency=10" "$H/etc/latprobe/dpdk-config/host" || fail "no profile"
# --profile host reads it (the unknown option after -- proves it was parsed,
# without starting EAL).
expect 2 "unknown option '--no-such'" env LATPROBE_PROFILE_DIR="$H/etc/latprobe/dpdk-config" \
	"$LATPROBE" info --profile host -- --no-such
expect 4 "already set up \(/run/latprobe/setup.state\): latprobe setup --undo first" \
	"$LATPROBE" setup --root "$H" --iface eth1
# --undo --dry-run: the undo as commands, last step first; nothing changed.
sums "$H" >"$WORK/before"
expect 0 "" "$LATPROBE" setup --root "$H" --undo --dry-run
cat "$WORK/out"
$PY - "$WORK/out" "$U1" <<'PYEOF' || fail "dry undo: not the expected steps"
import re, sys
out, u = open(sys.argv[1]).read(), sys.argv[2]
steps = re.findall(r"^ +\d+\. (.*)$", out, re.M)
# The override is cleared before the probe, or the kernel binds
# uio_hv_generic again.
want = ["rm /etc/latprobe/dpdk-config/host",
        f"echo {u} > /sys/bus/vmbus/drivers/uio_hv_generic/unbind",
        f"echo > /sys/bus/vmbus/devices/{u}/driver_override",
        f"echo {u} > /sys/bus/vmbus/drivers_probe",
        f"echo > /sys/bus/vmbus/devices/{u}/driver_override",
        "echo 0x1003 > /sys/class/net/eth1/flags",
        "modprobe -r mlx5_ib",
        "echo 0 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"]
assert steps == want, steps
PYEOF
sums "$H" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "--undo --dry-run changed files"
expect 0 "" "$LATPROBE" setup --root "$H" --undo
cat "$WORK/out"
has sys/bus/vmbus/devices/$U1/driver_override ""
has sys/bus/vmbus/drivers/uio_hv_generic/unbind $U1
has sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 0
has sys/class/net/eth1/flags 0x1003
[ ! -e "$H/etc/latprobe/dpdk-config/host" ] || fail "--undo left the profile"
[ ! -e "$H/run/latprobe/setup.state" ] || fail "--undo left the state file"
expect 0 "nothing to undo" "$LATPROBE" setup --root "$H" --undo

# Refusals: the default route's NIC (named directly or by its VF), the
# SSH session's, every NIC busy.
expect 4 "refused: eth0 carries the default route" "$LATPROBE" setup --root "$H" --dry-run --iface eth0
expect 4 "refused: eth0 carries the default route" "$LATPROBE" setup --root "$H" --dry-run --iface enP1s1
expect 4 "refused: eth1 carries this SSH session \(SSH_CONNECTION from 198.19.1.9\)" \
	env SSH_CONNECTION="198.19.1.9 50022 198.19.1.4 22" "$LATPROBE" setup --root "$H" --dry-run --iface eth1
expect 4 "refused: eth1 carries this SSH session \(SSH_CONNECTION from 2001:2::9\)" \
	env SSH_CONNECTION="2001:2::9 50022 2001:2::4 22" "$LATPROBE" setup --root "$H" --dry-run --iface eth1
expect 4 "no NIC free for DPDK .*interfaces: eth0 \(vmbus\), eth1 \(vmbus\)" \
	env SSH_CONNECTION="198.19.1.9 50022 198.19.1.4 22" "$LATPROBE" setup --root "$H" --dry-run
expect 0 "netvsc\+mlx" env SSH_CONNECTION="198.19.1.9 50022 198.19.1.4 22" \
	"$LATPROBE" setup --root "$H" --dry-run --iface eth1 --force
expect 4 "no interface 'eth9'" "$LATPROBE" setup --root "$H" --dry-run --iface eth9
# A kernel without VMBus driver_override: uio_hv_generic's new_id, unbind,
# bind (DPDK's netvsc guide), undone by unbind and a bind to hv_netvsc.
rm "$H/sys/bus/vmbus/devices/$U1/driver_override"
expect 0 "" "$LATPROBE" setup --root "$H" --hugepages 0
grep -q "echo f8615163-df3e-46c5-913f-f2d2f965ed0e > /sys/bus/vmbus/drivers/uio_hv_generic/new_id" "$WORK/out" ||
	fail "no new_id step without driver_override"
has sys/bus/vmbus/drivers/uio_hv_generic/bind $U1
has sys/bus/vmbus/drivers/hv_netvsc/unbind $U1
expect 0 "" "$LATPROBE" setup --root "$H" --undo
has sys/bus/vmbus/drivers/uio_hv_generic/unbind $U1
has sys/bus/vmbus/drivers/hv_netvsc/bind $U1

# ---- MANA: stays on mana, both interfaces of eth1's MAC down, mac=.
host azure-mana
expect 0 "" "$LATPROBE" setup --root "$H" --dry-run --hugepages 0 --lcore 2
cat "$WORK/out"
grep -q "VF enP30832s1d1 (7870:00:00.0 1414:00ba, mana): mana$" "$WORK/out" || fail "mana: not detected"
grep -q "stays bound to mana" "$WORK/out" || fail "mana: no note that it stays on mana"
! grep -qE "driver_override|unbind|nr_hugepages|modprobe" "$WORK/out" || fail "mana: binds or loads something"
grep -qx -- "    -a 7870:00:00.0,mac=60:45:bd:00:00:02" "$WORK/out" || fail "mana: no mac= profile"
grep -qx -- "    -l 2" "$WORK/out" || fail "mana: --lcore not taken"
expect 0 "" "$LATPROBE" setup --root "$H" --hugepages 0
has sys/class/net/eth1/flags 0x1002
has sys/class/net/enP30832s1d1/flags 0x1002
has sys/class/net/enP30832s1/flags 0x1003
expect 0 "" "$LATPROBE" setup --root "$H" --undo
has sys/class/net/eth1/flags 0x1003
has sys/class/net/enP30832s1d1/flags 0x1003
sums "$H" >"$WORK/after"
sums "$FIX/azure-mana" >"$WORK/before"
diff "$WORK/before" "$WORK/after" || fail "mana: --undo did not restore every file"

# ---- PCI behind an IOMMU: vfio-pci through driver_override.
host setup-pci
expect 0 "" "$LATPROBE" setup --root "$H" --dry-run
cat "$WORK/out"
grep -q "^latprobe setup: ens4 (PCI 0000:00:04.0, igbvf): pci$" "$WORK/out" || fail "pci: not detected"
grep -q "echo vfio-pci > /sys/bus/pci/devices/0000:00:04.0/driver_override" "$WORK/out" || fail "pci: no override"
grep -q "echo 0000:00:04.0 > /sys/bus/pci/drivers/igbvf/unbind" "$WORK/out" || fail "pci: no unbind"
expect 0 "" "$LATPROBE" setup --root "$H"
has sys/bus/pci/devices/0000:00:04.0/driver_override vfio-pci
has sys/bus/pci/drivers/igbvf/unbind 0000:00:04.0
has sys/bus/pci/drivers_probe 0000:00:04.0
has sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 1024
expect 0 "" "$LATPROBE" setup --root "$H" --undo
has sys/bus/pci/devices/0000:00:04.0/driver_override ""
has sys/bus/pci/drivers/vfio-pci/unbind 0000:00:04.0
has sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 128
# Without an IOMMU: refused with the reason and the fix; --noiommu asks
# for vfio's no-IOMMU mode, and --undo turns it off again.
rm "$H/sys/devices/pci0000:00/0000:00:04.0/iommu_group"
expect 4 "ens4 \(0000:00:04.0\) has no IOMMU group .*intel_iommu=on .*--noiommu" \
	"$LATPROBE" setup --root "$H" --dry-run
expect 0 "echo Y > /sys/module/vfio/parameters/enable_unsafe_noiommu_mode" \
	"$LATPROBE" setup --root "$H" --dry-run --noiommu
expect 0 "" "$LATPROBE" setup --root "$H" --noiommu
has sys/module/vfio/parameters/enable_unsafe_noiommu_mode Y
expect 0 "" "$LATPROBE" setup --root "$H" --undo
has sys/module/vfio/parameters/enable_unsafe_noiommu_mode N

# A kernel that gives fewer hugepages than asked: said, not hidden (here
# the file swallows the write, as a fragmented memory would).
host setup-pci
ln -sf /dev/null "$H/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
LP_EXPECT_ONE_LINE=0
expect 0 "warning: hugepages: 1024 asked, the kernel holds 0" "$LATPROBE" setup --root "$H"
LP_EXPECT_ONE_LINE=1
expect 0 "" "$LATPROBE" setup --root "$H" --undo

# ---- usage
expect 2 "--hugepages wants a count of 2 MiB pages, not 'x'" "$LATPROBE" setup --hugepages x
expect 2 "--lcore wants a CPU number" "$LATPROBE" setup --lcore -1
expect 2 "unknown or incomplete option '--frob'" "$LATPROBE" setup --frob
expect 2 "unexpected argument 'eth1'" "$LATPROBE" setup eth1
LP_EXPECT_ONE_LINE=0
expect 0 "usage: latprobe setup" "$LATPROBE" setup --help
# The real host: only a dry run (nothing is written to /sys here).
rc=0
"$LATPROBE" setup --dry-run >"$WORK/real.out" 2>"$WORK/real.err" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || { cat "$WORK/real.err" >&2; fail "dry run here exited $rc"; }
[ "$rc" -eq 0 ] || [ "$(wc -l <"$WORK/real.err")" -eq 1 ] || fail "dry run here: more than one error line"
sed 's/^/  here: /' "$WORK/real.out" "$WORK/real.err"
echo "$LP_PROG: ok"
