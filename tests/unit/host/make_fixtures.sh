#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Writes the /proc and /sys fixture trees of the host unit test (kept in
# git; this script documents them and rebuilds them: tests/unit/host/
# make_fixtures.sh). Layouts unlike the development VM: a two-node
# bare-metal box with intel_pstate, isolcpus and deep C-states; an
# Azure-like VM (Hyper-V clocksource, SMT, no cpufreq/cpuidle, mlx5 VF);
# and garbage files that must give clear errors.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf fixtures
f() { mkdir -p "$(dirname "$1")"; printf '%b' "$2" >"$1"; }

# ---- bare metal: 8 CPUs, nodes 0 (0-3) and 1 (4-7), SMT pairs (0,1)...
B=fixtures/baremetal
f $B/proc/cmdline 'BOOT_IMAGE=/vmlinuz-6.1.0-13-amd64 root=UUID=x ro isolcpus=domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 quiet\n'
f $B/proc/cpuinfo 'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni\n\nprocessor\t: 1\nflags\t\t: fpu\n'
f $B/sys/devices/system/clocksource/clocksource0/current_clocksource 'tsc\n'
f $B/sys/devices/system/clocksource/clocksource0/available_clocksource 'tsc hpet acpi_pm \n'
f $B/sys/devices/system/cpu/online '0-7\n'
f $B/sys/devices/system/cpu/isolated '2-3\n'
f $B/sys/devices/system/cpu/nohz_full '2-3\n'
f $B/sys/devices/system/cpu/smt/control 'on\n'
f $B/sys/devices/system/cpu/intel_pstate/no_turbo '0\n'
f $B/sys/devices/system/cpu/cpuidle/current_driver 'intel_idle\n'
for c in 0 1 2 3 4 5 6 7; do
	d=$B/sys/devices/system/cpu/cpu$c
	f $d/topology/thread_siblings_list "$((c & ~1))-$((c | 1))\n"
	gov=powersave; [ $c -eq 2 ] || [ $c -eq 3 ] && gov=performance
	f $d/cpufreq/scaling_governor "$gov\n"
	f $d/cpufreq/scaling_driver 'intel_pstate\n'
	k=0
	for st in POLL:0 C1:2 C1E:10 C6:133; do
		f $d/cpuidle/state$k/name "${st%:*}\n"
		f $d/cpuidle/state$k/latency "${st#*:}\n"
		dis=0
		# CPU 2: everything below C1 off; CPU 3: all on
		[ $c -eq 2 ] && [ $k -ge 2 ] && dis=1
		f $d/cpuidle/state$k/disable "$dis\n"
		k=$((k + 1))
	done
done
f $B/sys/kernel/mm/transparent_hugepage/enabled '[always] madvise never\n'
for n in 0 1; do
	d=$B/sys/devices/system/node/node$n
	f $d/cpulist "$((n * 4))-$((n * 4 + 3))\n"
	nr=1024; [ $n -eq 1 ] && nr=0
	f $d/hugepages/hugepages-2048kB/nr_hugepages "$nr\n"
	f $d/hugepages/hugepages-2048kB/free_hugepages "$nr\n"
	f $d/hugepages/hugepages-1048576kB/nr_hugepages '0\n'
	f $d/hugepages/hugepages-1048576kB/free_hugepages '0\n'
done
f $B/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/numa_node '1\n'
mkdir -p $B/sys/class/net/ens1f0np0
ln -s ../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0 $B/sys/class/net/ens1f0np0/device
mkdir -p $B/sys/class/net/lo
f $B/proc/interrupts '            CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       \n   0:         31          0          0          0          0          0          0          0  IR-IO-APIC    2-edge      timer\n 120:       9001          0          0          0          0          0          0          0  IR-PCI-MSI 31457280-edge      mlx5_async0@pci:0000:3b:00.0\n 121:          0          0      12345          0          0          0          0          0  IR-PCI-MSI 31457281-edge      mlx5_comp0@pci:0000:3b:00.0\n 122:          0          0          0          0       4242          0          0          0  IR-PCI-MSI 31457282-edge      mlx5_comp1@pci:0000:3b:00.0\n 130:          5          0          0          0          0          0          0          0  IR-PCI-MSI 524288-edge      nvme0q0\n 131:          0          0          0          0          0          0          0          0  IR-PCI-MSI 31457283-edge      mlx5_comp2@pci:0000:3b:00.01\nNMI:          1          2          3          4          5          6          7          8   Non-maskable interrupts\nLOC:     100000     100001     100002     100003     100004     100005     100006     100007   Local timer interrupts\nERR:          0\n'
f $B/proc/irq/120/effective_affinity_list '0\n'
f $B/proc/irq/120/smp_affinity_list '0-1\n'
f $B/proc/irq/121/effective_affinity_list '2\n'
f $B/proc/irq/122/smp_affinity_list '4-7\n'
# /proc/stat at the start of the sample and one second later (stat.after)
f $B/proc/stat 'cpu  800 0 400 70000 10 0 5 0 0 0\ncpu0 100 0 50 8750 2 0 1 0 0 0\ncpu1 100 0 50 8750 1 0 1 0 0 0\ncpu2 100 0 50 8750 1 0 0 0 0 0\ncpu3 100 0 50 8750 1 0 0 0 0 0\ncpu4 100 0 50 8750 1 0 1 0 0 0\ncpu5 100 0 50 8750 1 0 1 0 0 0\ncpu6 100 0 50 8750 1 0 1 0 0 0\ncpu7 100 0 50 8750 2 0 0 0 0 0\nintr 12345\nctxt 99\nbtime 1700000000\nprocs_running 3\n'
f $B/stat.after 'cpu  900 0 450 70700 10 0 5 5 0 0\ncpu0 100 0 50 8850 2 0 1 0 0 0\ncpu1 100 0 50 8850 1 0 1 0 0 0\ncpu2 200 0 50 8750 1 0 0 0 0 0\ncpu3 100 0 50 8845 1 0 0 5 0 0\ncpu4 100 0 50 8850 1 0 1 0 0 0\ncpu5 100 0 50 8850 1 0 1 0 0 0\ncpu6 100 0 50 8850 1 0 1 0 0 0\ncpu7 100 0 50 8850 2 0 0 0 0 0\nintr 12345\n'
st() { # pid tid comm state cpu
	local fields="$2 ($3) $4 1 1 1 0 -1 4194560 100 0 0 0 10 5 0 0 20 0 1 0 100 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 $5 0 0 0 0 0"
	f $B/proc/$1/task/$2/stat "$fields\n"
}
st 100 100 'kworker/2:1' R 2
st 100 101 'kworker/2:1' S 2
st 200 200 'busy (x) y' R 5
st 300 300 'irq/121-mlx5' R 3

# ---- an Azure-like VM: 4 vCPUs (2 cores with SMT), one node, mlx5 VF
A=fixtures/azure
f $A/proc/cmdline 'BOOT_IMAGE=/boot/vmlinuz-6.1.0-13-cloud-amd64 root=PARTUUID=x ro console=tty0 console=ttyS0,115200n8 earlyprintk=ttyS0,115200 scsi_mod.use_blk_mq=Y\n'
f $A/proc/cpuinfo 'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology tsc_reliable nonstop_tsc cpuid pni pclmulqdq ssse3 hypervisor lahf_lm\n'
f $A/sys/devices/system/clocksource/clocksource0/current_clocksource 'hyperv_clocksource_tsc_page\n'
f $A/sys/devices/system/clocksource/clocksource0/available_clocksource 'hyperv_clocksource_tsc_page acpi_pm \n'
f $A/sys/devices/system/cpu/online '0-3\n'
f $A/sys/devices/system/cpu/isolated '\n'
f $A/sys/devices/system/cpu/smt/control 'on\n'
for c in 0 1 2 3; do
	f $A/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list "$((c & ~1))-$((c | 1))\n"
done
f $A/sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never\n'
f $A/sys/devices/system/node/node0/cpulist '0-3\n'
f $A/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages '0\n'
f $A/sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages '0\n'
f $A/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages '0\n'
f $A/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/free_hugepages '0\n'
f $A/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/7870abcd-0000-0000-0000-000000000000/pci7870:00/7870:00:02.0/numa_node '0\n'
mkdir -p $A/sys/class/net/eth1 $A/sys/class/net/eth0
ln -s ../../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/7870abcd-0000-0000-0000-000000000000/pci7870:00/7870:00:02.0 $A/sys/class/net/eth1/device
ln -s ../../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/000d3a6e-1111-2222-3333-444444444444 $A/sys/class/net/eth0/device
f $A/proc/interrupts '           CPU0       CPU1       CPU2       CPU3       \n   4:          0          0       1105          0   IO-APIC   4-edge      ttyS0\n  24:      28114          0          0          0  Hyper-V PCIe MSI 1879048192-edge      mlx5_async0@pci:7870:00:02.0\n  25:      51234          0          0          0  Hyper-V PCIe MSI 1879048193-edge      mlx5_comp0@pci:7870:00:02.0\n  26:          0      49011          0          0  Hyper-V PCIe MSI 1879048194-edge      mlx5_comp1@pci:7870:00:02.0\nNMI:          0          0          0          0   Non-maskable interrupts\nHYP:     300123     290456     280789     270012   Hypervisor callback interrupts\nHRE:          0          0          0          0   Hyper-V reenlightenment interrupts\nHVS:     312345     301234     299999     288888   Hyper-V stimer0 interrupts\n'
f $A/proc/irq/24/effective_affinity_list '0\n'
f $A/proc/irq/25/effective_affinity_list '0\n'
f $A/proc/irq/26/effective_affinity_list '1\n'
f $A/proc/stat 'cpu  400 0 200 35000 4 0 2 12 0 0\ncpu0 100 0 50 8750 1 0 1 3 0 0\ncpu1 100 0 50 8750 1 0 1 3 0 0\ncpu2 100 0 50 8750 1 0 0 3 0 0\ncpu3 100 0 50 8750 1 0 0 3 0 0\nintr 1\n'
f $A/stat.after 'cpu  400 0 200 35400 4 0 2 12 0 0\ncpu0 100 0 50 8850 1 0 1 3 0 0\ncpu1 100 0 50 8850 1 0 1 3 0 0\ncpu2 100 0 50 8850 1 0 0 3 0 0\ncpu3 140 0 50 8810 1 0 0 3 0 0\nintr 1\n'

# ---- garbage: every file the checks read is present and wrong
G=fixtures/garbage
f $G/proc/cmdline 'isolcpus=domain,managed_irq nohz_full=x-y rcu_nocbs=9999999999999999999999\n'
f $G/proc/cpuinfo 'processor : 0\nflags\n'
f $G/sys/devices/system/clocksource/clocksource0/current_clocksource ''
f $G/sys/devices/system/cpu/online '0-\n'
f $G/sys/devices/system/cpu/isolated '3-1\n'
f $G/sys/devices/system/cpu/nohz_full '(null)\n'
f $G/sys/devices/system/cpu/cpu0/topology/thread_siblings_list 'zz\n'
f $G/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor '\n'
f $G/sys/devices/system/cpu/cpu0/cpuidle/state0/name 'POLL\n'
f $G/sys/devices/system/cpu/cpu0/cpuidle/state0/disable 'maybe\n'
f $G/sys/devices/system/cpu/cpu0/cpuidle/state0/latency '\xff\xfe\n'
f $G/sys/kernel/mm/transparent_hugepage/enabled 'always madvise never\n'
f $G/sys/devices/system/node/node0/cpulist '0,,1\n'
f $G/proc/interrupts '   0:   1   2   timer\n'
f $G/proc/stat 'cpu0 12 x 3\n'
f $G/proc/12/task/12/stat '12 (no closing paren R 0\n'
f $G/proc/13/task/13/stat '13 (short) R 1 2\n'

# ---- an old CPU: no invariant TSC; tsc offered but not the clocksource
O=fixtures/oldcpu
f $O/proc/cpuinfo 'processor\t: 0\nflags\t\t: fpu tsc msr pae constant_tsc\n'
f $O/sys/devices/system/clocksource/clocksource0/current_clocksource 'hpet\n'
f $O/sys/devices/system/clocksource/clocksource0/available_clocksource 'tsc hpet acpi_pm \n'
# isolcpus and nohz_full but no rcu_nocbs=: nohz_full implies it
f $O/proc/cmdline 'root=/dev/sda1 isolcpus=1 nohz_full=1\n'
f $O/sys/devices/system/cpu/isolated '1\n'
f $O/sys/devices/system/cpu/nohz_full '1\n'
f $O/sys/devices/system/cpu/online '0-1\n'

# ---- Azure VMs for the MANA checks and `latprobe setup`: two vNICs (eth0
# for login with the default route, eth1 for DPDK), each a VMBus device
# (hv_netvsc) with an accelerated VF of the same MAC. vm KIND DIR KERNEL
# MODULES: KIND mana (one MANA PCI device 1414:00ba serving both vNICs, as
# on Azure Boost sizes) or mlx5 (a ConnectX-4 Lx VF 15b3:1016 per vNIC).
VB=sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00
NETVSC_CLASS='{f8615163-df3e-46c5-913f-f2d2f965ed0e}'
# pcidev ROOT PATH BDF VENDOR DEVICE DRIVER: a PCI device and its links
pcidev() {
	f $1/$2/vendor "$4\n"
	f $1/$2/device "$5\n"
	f $1/$2/numa_node '0\n'
	f $1/$2/driver_override '(null)\n'
	mkdir -p $1/sys/bus/pci/devices $1/sys/bus/pci/drivers/$6
	f $1/sys/bus/pci/drivers/$6/bind ''
	f $1/sys/bus/pci/drivers/$6/unbind ''
	ln -sr $1/sys/bus/pci/drivers/$6 $1/$2/driver
	ln -sr $1/sys/bus/pci $1/$2/subsystem
	ln -sr $1/$2 $1/sys/bus/pci/devices/$3
}
# vmbusdev ROOT UUID: a synthetic NIC bound to hv_netvsc
vmbusdev() {
	local d=$VB/$2
	f $1/$d/class_id "$NETVSC_CLASS\n"
	f $1/$d/driver_override '\n'
	mkdir -p $1/sys/bus/vmbus/devices $1/sys/bus/vmbus/drivers/hv_netvsc
	f $1/sys/bus/vmbus/drivers/hv_netvsc/bind ''
	f $1/sys/bus/vmbus/drivers/hv_netvsc/unbind ''
	ln -sr $1/sys/bus/vmbus/drivers/hv_netvsc $1/$d/driver
	ln -sr $1/sys/bus/vmbus $1/$d/subsystem
	ln -sr $1/$d $1/sys/bus/vmbus/devices/$2
}
# iface ROOT NAME DEVICE-PATH MAC FLAGS
iface() {
	mkdir -p $1/sys/class/net/$2
	f $1/sys/class/net/$2/address "$4\n"
	f $1/sys/class/net/$2/flags "$5\n"
	ln -s ../../../${3#sys/} $1/sys/class/net/$2/device
}
vm() {
	local R=$2 u0=000d3a00-0000-4000-8000-000000000000 u1=000d3a00-0000-4000-8000-000000000001
	f $R/proc/sys/kernel/osrelease "$3\n"
	f $R/sys/devices/system/cpu/online '0-3\n'
	for m in $4; do f $R/sys/module/$m/initstate 'live\n'; done
	f $R/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages '0\n'
	f $R/sys/bus/pci/drivers_probe ''
	f $R/sys/bus/vmbus/drivers_probe ''
	vmbusdev $R $u0
	vmbusdev $R $u1
	iface $R eth0 $VB/$u0 60:45:bd:00:00:01 0x1003
	iface $R eth1 $VB/$u1 60:45:bd:00:00:02 0x1003
	if [ "$1" = mana ]; then
		local p=$VB/00007870-0001-4000-8000-000000000000/pci7870:00/7870:00:00.0
		pcidev $R $p 7870:00:00.0 0x1414 0x00ba mana
		iface $R enP30832s1 $p 60:45:bd:00:00:01 0x1003
		iface $R enP30832s1d1 $p 60:45:bd:00:00:02 0x1003
	else
		local p1=$VB/00000001-0001-4000-8000-000000000000/pci0001:00/0001:00:02.0
		local p2=$VB/00000002-0001-4000-8000-000000000000/pci0002:00/0002:00:02.0
		pcidev $R $p1 0001:00:02.0 0x15b3 0x1016 mlx5_core
		pcidev $R $p2 0002:00:02.0 0x15b3 0x1016 mlx5_core
		iface $R enP1s1 $p1 60:45:bd:00:00:01 0x1003
		iface $R enP2s2 $p2 60:45:bd:00:00:02 0x1003
	fi
	# Destination/Gateway/Mask: big-endian words printed as native ones.
	f $R/proc/net/route 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t00000000\t010013C6\t0003\t0\t0\t100\t00000000\t0\t0\t0\neth0\t000013C6\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\neth1\t000113C6\t00000000\t0001\t0\t0\t200\t00FFFFFF\t0\t0\t0\n'
	f $R/proc/net/ipv6_route '00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\nfe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0\n20010002000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth1\n'
}
# A MANA VM on Debian 13: every prerequisite there but the interfaces down.
vm mana fixtures/azure-mana 6.12.38+deb13-cloud-amd64 'mana mana_ib ib_uverbs hv_netvsc'
M=fixtures/azure-mana
f $M/usr/lib/x86_64-linux-gnu/libmana.so.1.0.56.0 ''
ln -s libmana.so.1.0.56.0 $M/usr/lib/x86_64-linux-gnu/libmana.so.1
f $M/usr/lib/x86_64-linux-gnu/dpdk/pmds-25.0/librte_net_mana.so.25 ''
# The same VM on Debian 12's 6.1 kernel with mana only, no libmana.
vm mana fixtures/mana-old 6.1.0-13-cloud-amd64 'mana hv_netvsc'
# ... whose second NIC is already down for DPDK (eth1 and its MANA port).
f fixtures/mana-old/sys/class/net/eth1/flags '0x1002\n'
f fixtures/mana-old/sys/class/net/enP30832s1d1/flags '0x1002\n'
# netvsc + mlx5 VFs (Debian 12): mlx5_ib not loaded yet.
vm mlx5 fixtures/setup-netvsc 6.1.0-13-cloud-amd64 'hv_netvsc mlx5_core ib_uverbs uio_hv_generic'
mkdir -p fixtures/setup-netvsc/sys/bus/vmbus/drivers/uio_hv_generic
f fixtures/setup-netvsc/sys/bus/vmbus/drivers/uio_hv_generic/bind ''
f fixtures/setup-netvsc/sys/bus/vmbus/drivers/uio_hv_generic/unbind ''
f fixtures/setup-netvsc/sys/bus/vmbus/drivers/uio_hv_generic/new_id ''

# ---- a KVM guest with an IOMMU (q35 + intel-iommu): eth0 (e1000e) for
# login, ens4 an igb VF (8086:10ca) for DPDK through vfio-pci.
P=fixtures/setup-pci
f $P/proc/sys/kernel/osrelease '6.1.0-13-amd64\n'
f $P/sys/devices/system/cpu/online '0-3\n'
for m in e1000e igbvf vfio vfio_pci; do f $P/sys/module/$m/initstate 'live\n'; done
f $P/sys/module/vfio/parameters/enable_unsafe_noiommu_mode 'N\n'
f $P/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages '128\n'
f $P/sys/bus/pci/drivers_probe ''
pcidev $P sys/devices/pci0000:00/0000:00:02.0 0000:00:02.0 0x8086 0x10d3 e1000e
pcidev $P sys/devices/pci0000:00/0000:00:04.0 0000:00:04.0 0x8086 0x10ca igbvf
mkdir -p $P/sys/bus/pci/drivers/vfio-pci
f $P/sys/bus/pci/drivers/vfio-pci/bind ''
f $P/sys/bus/pci/drivers/vfio-pci/unbind ''
for d in 0000:00:02.0:3 0000:00:04.0:4; do
	f $P/sys/kernel/iommu_groups/${d##*:}/type 'DMA\n'
	ln -sr $P/sys/kernel/iommu_groups/${d##*:} $P/sys/devices/pci0000:00/${d%:*}/iommu_group
done
iface $P eth0 sys/devices/pci0000:00/0000:00:02.0 52:54:00:12:34:56 0x1003
iface $P ens4 sys/devices/pci0000:00/0000:00:04.0 52:54:00:ab:cd:ef 0x1003
f $P/proc/net/route 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t00000000\t0202000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\neth0\t0002000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n'
