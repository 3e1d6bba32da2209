/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/host: the parsers on hand-made input, and every check against the
 * fixture trees in fixtures/ (bare metal with intel_pstate, isolcpus and
 * deep C-states; an Azure-like VM; garbage files).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/host.h"
#include "latprobe/nic.h"
#include "latprobe/setup.h"

#define BARE	 FIXTURES "/baremetal"
#define AZURE	 FIXTURES "/azure"
#define GARBAGE	 FIXTURES "/garbage"
#define MANA	 FIXTURES "/azure-mana"
#define MANA_OLD FIXTURES "/mana-old"
#define SNETVSC	 FIXTURES "/setup-netvsc"
#define SPCI	 FIXTURES "/setup-pci"

static void
cpus(struct host_cpus *c, const char *list)
{
	assert_int_equal(host_cpus_parse(list, strlen(list), c), 0);
}

static void
has(const char *field, const char *want)
{
	if (strstr(field, want) == NULL)
		fail_msg("'%s' not in '%s'", want, field);
}

static void
lacks(const char *field, const char *unwanted)
{
	if (strstr(field, unwanted) != NULL)
		fail_msg("'%s' in '%s'", unwanted, field);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

/* ---- parsers ---- */

static void
test_cpulist(void **state)
{
	struct host_cpus c;
	char buf[64];

	(void)state;
	cpus(&c, "0-3,8,10-11\n");
	assert_int_equal(host_cpus_count(&c), 7);
	assert_true(host_cpus_isset(&c, 10));
	assert_false(host_cpus_isset(&c, 9));
	assert_string_equal(host_cpus_format(&c, buf, sizeof(buf)),
			    "0-3,8,10-11");
	cpus(&c, "  \n");
	assert_int_equal(host_cpus_count(&c), 0);
	assert_string_equal(host_cpus_format(&c, buf, sizeof(buf)), "none");
	cpus(&c, "1023");
	assert_true(host_cpus_isset(&c, 1023));
	assert_int_equal(host_cpus_parse("1024", 4, &c), -ERANGE);
	assert_int_equal(host_cpus_parse("99999999999999999999999", 23, &c),
			 -ERANGE);
	assert_int_equal(host_cpus_parse("3-1", 3, &c), -EINVAL);
	assert_int_equal(host_cpus_parse("0-", 2, &c), -EINVAL);
	assert_int_equal(host_cpus_parse("0,,1", 4, &c), -EINVAL);
	assert_int_equal(host_cpus_parse("a", 1, &c), -EINVAL);
	assert_int_equal(host_cpus_parse("1 2", 3, &c), -EINVAL);
	/* Length-bounded: the 5 after the length is not read. */
	assert_int_equal(host_cpus_parse("0-25", 3, &c), 0);
	assert_int_equal(host_cpus_count(&c), 3);
	/* Truncated output stays a string. */
	cpus(&c, "0,2,4,6,8,10");
	assert_true(strlen(host_cpus_format(&c, buf, 6)) < 6);
}

static void
test_stat_parse(void **state)
{
	static struct host_stat s;
	const char *ok = "cpu  1 2 3 4 5 6 7 8 9 10\n"
			 "cpu0 1 2 3 4 5 6 7 8 9 10\n"
			 "cpu3 10 0 0 100 5 0 0 7\n"
			 "intr 1 2 3\n";

	(void)state;
	assert_int_equal(host_stat_parse(ok, strlen(ok), &s), 0);
	assert_true(host_cpus_isset(&s.present, 0));
	assert_false(host_cpus_isset(&s.present, 1));
	assert_true(host_cpus_isset(&s.present, 3));
	assert_int_equal(s.total[0], 36); /* the first 8 fields */
	assert_int_equal(s.idle[0], 9);
	assert_int_equal(s.steal[0], 8);
	assert_int_equal(s.steal[3], 7);
	assert_int_equal(s.idle[3], 105);
	assert_int_equal(host_stat_parse("cpu0 1 2 3\n", 11, &s), -EINVAL);
	assert_int_equal(host_stat_parse("cpu0 1 x 3 4 5 6 7 8\n", 21, &s),
			 -EINVAL);
	assert_int_equal(host_stat_parse("intr 1\n", 7, &s), -EINVAL);
	assert_int_equal(host_stat_parse("cpu5000 1 2 3 4 5 6 7 8\n", 24, &s),
			 -EINVAL);
	assert_int_equal(host_stat_parse("", 0, &s), -EINVAL);
}

static void
test_interrupts_parse(void **state)
{
	/* CPU1 offline: its column is missing. */
	const char *t = "           CPU0       CPU2\n"
			"  0:         31          0  IO-APIC 2-edge timer\n"
			" 42:          0          7  PCI-MSI eth0-rx-0\n"
			"NMI:          1          2  Non-maskable interrupts\n"
			" 43:          0  short row\n";
	struct host_irq irq[4];
	unsigned n;

	(void)state;
	assert_int_equal(host_interrupts_parse(t, strlen(t), irq, 4, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(irq[1].irq, 42);
	assert_true(host_cpus_isset(&irq[1].fired, 2));
	assert_false(host_cpus_isset(&irq[1].fired, 1));
	assert_int_equal(irq[1].count, 7);
	assert_string_equal(irq[1].desc, "PCI-MSI eth0-rx-0");
	assert_string_equal(irq[2].desc, "short row");
	/* max bounds what is kept, not what is parsed */
	assert_int_equal(host_interrupts_parse(t, strlen(t), irq, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(
		host_interrupts_parse("  0: 1 timer\n", 13, irq, 4, &n),
		-EINVAL);
	assert_int_equal(
		host_interrupts_parse("CPU0\n 4x: 1\n", 12, irq, 4, &n),
		-EINVAL);
	assert_int_equal(host_interrupts_parse("", 0, irq, 4, &n), -EINVAL);
}

static void
test_task_stat_parse(void **state)
{
	char st, comm[20], buf[1024];
	unsigned cpu;
	size_t len;
	FILE *f;
	const char *t = "42 (a (b) c) R 1 1 1 0 -1 4194560 100 0 0 0 10 5 0 0 "
			"20 0 1 0 100 1000 100 18446744073709551615 1 1 0 0 0 "
			"0 0 0 0 0 0 0 17 7 0 0 0 0 0\n";

	(void)state;
	assert_int_equal(host_task_stat_parse(t, strlen(t), &st, &cpu, comm,
					      sizeof(comm)),
			 0);
	assert_int_equal(st, 'R');
	assert_int_equal(cpu, 7);
	assert_string_equal(comm, "a (b) c");
	/* cut to the buffer, never past it */
	assert_int_equal(host_task_stat_parse(t, strlen(t), &st, &cpu, comm, 4),
			 0);
	assert_string_equal(comm, "a (");
	/* 38 fields: no CPU */
	assert_int_equal(
		host_task_stat_parse(t, 120, &st, &cpu, comm, sizeof(comm)),
		-EINVAL);
	assert_int_equal(
		host_task_stat_parse("1 (x)", 5, &st, &cpu, comm, sizeof(comm)),
		-EINVAL);
	assert_int_equal(host_task_stat_parse("1 x) R", 6, &st, &cpu, comm,
					      sizeof(comm)),
			 -EINVAL);
	/* this very process, on one of the online CPUs */
	f = fopen("/proc/self/stat", "r");
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(
		host_task_stat_parse(buf, len, &st, &cpu, comm, sizeof(comm)),
		0);
	assert_int_equal(st, 'R');
	assert_string_equal(comm, "test_host");
}

/* ---- bare metal ---- */

static struct host_input *
bare_input(const char *lcores)
{
	struct host_input *in = calloc(1, sizeof(*in));

	assert_non_null(in);
	in->root = BARE;
	cpus(&in->lcores, lcores);
	in->tsc_hz = 3000000000ull;
	in->tsc_window_ns = 1000000000ull;
	in->tsc_spread_ppm = 0.5;
	in->dpdk_hz = 3000000000ull;
	/* mlx5 (bifurcated: the kernel's ens1f0np0 keeps its IRQs) on node 1,
	 * its pool on node 0 */
	snprintf(in->nics[0].name, sizeof(in->nics[0].name), "port 0 mlx5");
	snprintf(in->nics[0].ifname, sizeof(in->nics[0].ifname), "ens1f0np0");
	snprintf(in->nics[0].device, sizeof(in->nics[0].device),
		 "0000:3b:00.0");
	in->nics[0].node = 1;
	in->nics[0].mem_node = 0;
	in->nics[0].dpdk = true;
	in->n_nics = 1;
	return in;
}

static void
test_bare_tsc(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_result r;

	(void)state;
	/* CPUID not invariant, cpuinfo flags are: invariant. */
	host_check_tsc(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "constant_tsc yes, nonstop_tsc yes");
	has(r.value, "CPUID 80000007H EDX[8] no");
	host_check_clocksource(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "tsc (available: tsc hpet acpi_pm)");
	host_check_tsc_rate(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "3000.000000 MHz");
	in->tsc_spread_ppm = 200;
	host_check_tsc_rate(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	in->tsc_hz = 0;
	host_check_tsc_rate(in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	free(in);
}

static void
test_bare_cpufreq(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_result r;

	(void)state;
	host_check_cpufreq(in, &r);
	assert_int_equal(r.verdict, HOST_WARN); /* turbo */
	has(r.value, "intel_pstate: governor performance on CPUs 2-3");
	has(r.value, "turbo/boost on");
	has(r.fix, "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
	lacks(r.fix, "frequency-set");
	cpus(&in->lcores, "1-2");
	host_check_cpufreq(in, &r);
	has(r.value, "powersave on CPU 1");
	has(r.fix, "cpupower frequency-set -g performance");
	free(in);
}

static void
test_bare_isolation(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_result r;

	(void)state;
	host_check_isolation(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "isolcpus 2-3, nohz_full 2-3, rcu_nocbs 2-3");
	assert_string_equal(r.fix, "");
	cpus(&in->lcores, "1-2");
	host_check_isolation(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "not isolated: 1");
	has(r.fix, "isolcpus=1-2 nohz_full=1-2 rcu_nocbs=1-2");
	lacks(r.fix, "leave one out");
	free(in);
}

static void
test_bare_smt(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_result r;

	(void)state;
	host_check_smt(in, NULL, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "CPU 2 shares its core with CPU 3 (an lcore too)");
	has(r.fix, "nosmt");
	/* CPU 3 isolated and idle over the sample: fine as a sibling. */
	cpus(&in->lcores, "2");
	host_check_smt(in, NULL, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "CPU 2 shares its core with CPU 3 (isolated, load not "
		     "sampled)");
	free(in);
}

static void
test_bare_irq(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_result r;

	(void)state;
	host_check_irq(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	/* effective affinity first, then smp_affinity, then where it fired */
	has(r.value, "IRQ 120 on CPUs 0,");
	has(r.value, "IRQ 121 on CPUs 2 (an lcore)");
	has(r.value, "IRQ 122 on CPUs 4-7");
	lacks(r.value, "IRQ 130"); /* nvme */
	lacks(r.value, "IRQ 131"); /* another device: 0000:3b:00.01 */
	has(r.fix, "for i in 121; do echo 0-1,4-7 > /proc/irq/$i/"
		   "smp_affinity_list");
	/* af_xdp on the same NIC: no bus device of its own, the kernel
	 * interface's device link names the IRQs. */
	in->nics[0].device[0] = '\0';
	host_check_irq(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "IRQ 121 on CPUs 2 (an lcore)");
	cpus(&in->lcores, "3");
	host_check_irq(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	in->n_nics = 0;
	in->nic_note = "no DPDK port";
	host_check_irq(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "no NIC to look at: no DPDK port");
	free(in);
}

static void
test_bare_cstates(void **state)
{
	struct host_input *in = bare_input("2");
	struct host_result r;

	(void)state;
	host_check_cstates(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "driver intel_idle, CPU 2: POLL (0 us), C1 (2 us), C1E "
		     "(10 us, disabled), C6 (133 us, disabled)");
	cpus(&in->lcores, "2-3");
	host_check_cstates(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "enabled deeper than C1: C1E on CPU 3, C6 on CPU 3");
	lacks(r.value, "on CPU 2"); /* disabled there */
	has(r.fix, "intel_idle.max_cstate=1");
	free(in);
}

static void
test_bare_memory(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_result r;

	(void)state;
	host_check_thp(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "always (khugepaged");
	has(r.fix, "echo madvise > /sys/kernel/mm/transparent_hugepage/"
		   "enabled");
	/* The port is on node 1, which has no hugepages. */
	host_check_hugepages(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "node0: 1024 x 2048kB (1024 free), 0 x 1048576kB");
	has(r.fix, "node1/hugepages/hugepages-2048kB/nr_hugepages");
	lacks(r.fix, "node0");
	host_check_numa(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "2 NUMA node(s); lcores on node 0");
	has(r.value, "port 0 mlx5 on node 1, its mbuf pool on node 0");
	has(r.fix, "run on lcores of node 1");
	has(r.fix, "mbuf pool landed on node 0");
	/* Lcores, port and pool on node 1: fine. */
	cpus(&in->lcores, "4-5");
	in->nics[0].mem_node = 1;
	host_check_numa(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "lcores on node 1");
	in->n_nics = 0;
	host_check_hugepages(in, &r);
	assert_int_equal(r.verdict, HOST_WARN); /* lcores on node 1 */
	cpus(&in->lcores, "0-1");
	host_check_hugepages(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	free(in);
}

static struct host_sample *
fixture_sample(const char *root, const struct host_cpus *lcores)
{
	struct host_sample *s = calloc(1, sizeof(*s));
	char path[512];
	size_t len;
	char *buf;

	assert_non_null(s);
	s->self_pid = 300; /* "our" task is never counted */
	s->err_before = host_stat_read(root, &s->before);
	assert_int_equal(s->err_before, 0);
	snprintf(path, sizeof(path), "%s/stat.after", root);
	buf = slurp(path, &len);
	s->err_after = host_stat_parse(buf, len, &s->after);
	assert_int_equal(s->err_after, 0);
	free(buf);
	s->seconds = 1.0;
	assert_int_equal(host_tasks_scan(root, lcores, s), 0);
	return s;
}

static void
test_bare_sampled(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_sample *s = fixture_sample(BARE, &in->lcores);
	struct host_result r;

	(void)state;
	host_check_steal(in, s, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "0.0% on CPU 2, 5.0% on CPU 3 over 1.00 s");
	has(r.fix, "dedicated");
	host_check_runnable(in, s, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "1 other task(s) runnable");
	has(r.value, "kworker/2:1 (pid 100 tid 100) on CPU 2 in 1");
	lacks(r.value, "tid 101"); /* sleeping */
	lacks(r.value, "busy");	   /* on CPU 5 */
	lacks(r.value, "mlx5");	   /* our own pid */
	/* The sibling's load from the sample: CPU 3 (not an lcore here) was
	 * idle but for its steal: 5 % busy. */
	cpus(&in->lcores, "2");
	host_check_smt(in, s, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "CPU 2 shares its core with CPU 3 (busy 5% over the "
		     "sample)");
	/* Two scans: the task is counted per scan. */
	cpus(&in->lcores, "2-3");
	assert_int_equal(host_tasks_scan(BARE, &in->lcores, s), 0);
	host_check_runnable(in, s, &r);
	has(r.value, "in 2 scans");
	has(r.value, "on CPU 2 in 2");
	free(s);
	free(in);
}

static void
test_bare_all(void **state)
{
	struct host_input *in = bare_input("2-3");
	struct host_sample *s = fixture_sample(BARE, &in->lcores);
	struct host_result r[HOST_N_CHECKS];
	unsigned n;

	(void)state;
	n = host_check_all(in, s, r);
	assert_int_equal(n, HOST_N_BASE_CHECKS);
	for (unsigned i = 0; i < n; i++) {
		assert_non_null(r[i].name);
		assert_true(r[i].value[0] != '\0');
		/* a warning or failure always says how to fix it */
		assert_true(r[i].verdict == HOST_OK || r[i].fix[0] != '\0');
		for (unsigned j = 0; j < i; j++)
			assert_string_not_equal(r[i].name, r[j].name);
	}
	assert_int_equal(host_check_all(in, NULL, r), HOST_N_BASE_CHECKS - 2);
	free(s);
	free(in);
}

/* ---- Azure-like VM ---- */

static struct host_input *
azure_input(void)
{
	struct host_input *in = calloc(1, sizeof(*in));

	assert_non_null(in);
	in->root = AZURE;
	cpus(&in->lcores, "2-3");
	in->cpuid_invariant = true;
	in->tsc_hz = 2793437000ull;
	in->tsc_window_ns = 1000000000ull;
	in->n_nics = host_kernel_nics(AZURE, in->nics, HOST_MAX_NICS);
	return in;
}

static void
test_azure(void **state)
{
	struct host_input *in = azure_input();
	struct host_sample *s;
	struct host_result r;
	int vf = -1;

	(void)state;
	/* eth0 (synthetic, VMBus) and eth1 (the VF); lo has no device */
	assert_int_equal(in->n_nics, 2);
	for (unsigned k = 0; k < in->n_nics; k++) {
		assert_false(in->nics[k].dpdk);
		if (strcmp(in->nics[k].ifname, "eth1") == 0)
			vf = (int)k;
	}
	assert_true(vf >= 0);
	assert_string_equal(in->nics[vf].device, "7870:00:02.0");
	assert_int_equal(in->nics[vf].node, 0);
	assert_string_equal(in->nics[vf].name, "eth1 (7870:00:02.0)");

	host_check_tsc(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "tsc_reliable yes");
	host_check_clocksource(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "hyperv_clocksource_tsc_page");
	has(r.fix, "does not offer tsc");
	host_check_cpufreq(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "no cpufreq driver on CPUs 2-3: the hypervisor controls "
		     "frequency");
	host_check_cstates(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "no cpuidle states on CPUs 2-3 (driver none): the vCPU "
		     "halts");
	host_check_isolation(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "isolcpus none, nohz_full none, rcu_nocbs none");
	has(r.fix, "isolcpus=2-3");
	host_check_smt(in, NULL, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "(smt/control: on)");
	host_check_irq(in, &r);
	assert_int_equal(r.verdict, HOST_OK); /* VF IRQs on CPUs 0-1 */
	has(r.value, "eth1 (7870:00:02.0): IRQ 24 on CPUs 0, IRQ 25 on CPUs 0, "
		     "IRQ 26 on CPUs 1");
	has(r.value, "no interrupts in /proc/interrupts");
	cpus(&in->lcores, "1-2");
	host_check_irq(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.fix, "for i in 26; do echo 0,3 > /proc/irq/$i/");
	cpus(&in->lcores, "2-3");
	host_check_thp(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	assert_string_equal(r.value, "madvise");
	host_check_hugepages(in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.fix, "node0/hugepages/hugepages-2048kB/nr_hugepages");
	host_check_numa(in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "one node");

	s = fixture_sample(AZURE, &in->lcores);
	host_check_steal(in, s, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "0.0% on CPU 2, 0.0% on CPU 3");
	host_check_runnable(in, s, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "no other task runnable on CPUs 2-3 in 1 scans");
	/* CPU 1 (sibling of 0) was idle; CPU 3 (sibling of 2) 40 % busy */
	cpus(&in->lcores, "2");
	host_check_smt(in, s, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "CPU 2 shares its core with CPU 3 (busy 40% over the "
		     "sample)");
	cpus(&in->lcores, "0");
	host_check_smt(in, s, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "CPU 0 shares its core with CPU 1 (busy 0% over the "
		     "sample)");
	free(s);
	free(in);
}

static void
test_oldcpu(void **state)
{
	struct host_input in;
	struct host_result r;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.root = FIXTURES "/oldcpu";
	cpus(&in.lcores, "0");
	host_check_tsc(&in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	has(r.value, "NOT invariant");
	has(r.value, "constant_tsc yes, nonstop_tsc no");
	has(r.fix, "invariant TSC");
	in.cpuid_invariant = true; /* CPUID alone is enough */
	host_check_tsc(&in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	host_check_clocksource(&in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.value, "hpet (available: tsc hpet acpi_pm)");
	has(r.fix, "echo tsc > /sys/devices/system/clocksource/clocksource0/"
		   "current_clocksource");
	/* nohz_full=1 offloads CPU 1's RCU callbacks without rcu_nocbs= */
	cpus(&in.lcores, "1");
	host_check_isolation(&in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "isolcpus 1, nohz_full 1, rcu_nocbs 1");
	cpus(&in.lcores, "0-1");
	host_check_isolation(&in, &r);
	assert_int_equal(r.verdict, HOST_WARN);
	has(r.fix, "(the lcores are every CPU: leave one out");
}

/* ---- garbage ---- */

static void
test_garbage(void **state)
{
	struct host_input *in = calloc(1, sizeof(*in));
	struct host_sample *s = calloc(1, sizeof(*s));
	struct host_result r[HOST_N_CHECKS];
	struct host_cpus online;
	unsigned n;

	(void)state;
	assert_non_null(in);
	assert_non_null(s);
	in->root = GARBAGE;
	cpus(&in->lcores, "0-1");
	in->tsc_hz = 1000000000ull;
	assert_int_equal(host_online_cpus(GARBAGE, &online), -EINVAL);
	assert_int_equal(host_kernel_nics(GARBAGE, in->nics, HOST_MAX_NICS), 0);
	s->err_before = host_stat_read(GARBAGE, &s->before);
	assert_int_equal(s->err_before, -EINVAL);
	s->err_after = s->err_before;
	/* Malformed task stat files are skipped, not trusted. */
	assert_int_equal(host_tasks_scan(GARBAGE, &in->lcores, s), 0);
	assert_int_equal(s->n_tasks, 0);
	n = host_check_all(in, s, r);
	assert_int_equal(n, HOST_N_BASE_CHECKS);
	for (unsigned i = 0; i < n; i++) {
		/* printable and bounded */
		for (const char *p = r[i].value; *p; p++)
			assert_true((unsigned char)*p >= 0x20);
		assert_true(strlen(r[i].value) < sizeof(r[i].value));
	}
	/* The broken ones say which file. */
	assert_int_equal(r[0].verdict, HOST_WARN); /* no flags, no CPUID */
	has(r[0].value, "no flags line in proc/cpuinfo");
	assert_int_equal(r[1].verdict, HOST_WARN);
	has(r[1].value, "(empty)");
	assert_int_equal(r[4].verdict, HOST_WARN);
	has(r[4].value, "cannot parse sys/devices/system/cpu/isolated");
	has(r[4].value, "cannot parse rcu_nocbs=9999999999999999999999");
	assert_int_equal(r[5].verdict, HOST_WARN);
	has(r[5].value, "CPU 0: cannot parse its thread_siblings_list");
	assert_int_equal(r[8].verdict, HOST_WARN);
	has(r[8].value, "cannot parse sys/kernel/mm/transparent_hugepage");
	assert_int_equal(r[9].verdict, HOST_WARN);
	has(r[9].value, "cannot parse sys/devices/system/node/node0/cpulist");
	assert_int_equal(r[10].verdict, HOST_WARN);
	has(r[10].value, "cannot parse sys/devices/system/node/node0/cpulist");
	assert_int_equal(r[11].verdict, HOST_WARN);
	has(r[11].value, "cannot read proc/stat: Invalid argument");
	free(s);
	free(in);
}

/* ---- MANA (PCI 1414:00ba) ---- */

/* A MANA VM with every prerequisite (Debian 13): only the interfaces are
 * still up; and the checks appear on a host with the device only. */
static void
test_mana_ok(void **state)
{
	struct host_input in = {.root = MANA};
	static struct host_result r[HOST_N_CHECKS];
	char bdf[2][32], def[4][32];
	unsigned n;

	(void)state;
	assert_int_equal(host_mana_devices(MANA, bdf, 2), 1);
	assert_string_equal(bdf[0], "7870:00:00.0");
	assert_int_equal(host_mana_devices(AZURE, bdf, 2), 0);
	assert_int_equal(host_default_route_ifaces(MANA, def, 4), 1);
	assert_string_equal(def[0], "eth0");
	in.dpdk_version = "DPDK 24.11.3";
	in.mana_pmd_built = true;
	in.pmd_dir = "/usr/lib/x86_64-linux-gnu/dpdk/pmds-25.0";
	cpus(&in.lcores, "1");
	n = host_check_all(&in, NULL, r);
	assert_int_equal(n, 11 + HOST_N_MANA_CHECKS);
	assert_string_equal(r[11].name, "mana_kernel");
	assert_int_equal(r[11].verdict, HOST_OK);
	has(r[11].value, "kernel 6.12.38+deb13-cloud-amd64 (6.2 or later)");
	assert_string_equal(r[12].name, "mana_modules");
	assert_int_equal(r[12].verdict, HOST_OK);
	has(r[12].value, "7870:00:00.0 bound to mana");
	assert_string_equal(r[13].name, "mana_libmana");
	assert_int_equal(r[13].verdict, HOST_OK);
	has(r[13].value, "libmana.so.1.0.56.0 (rdma-core 56)");
	assert_string_equal(r[14].name, "mana_iface");
	assert_int_equal(r[14].verdict, HOST_WARN);
	has(r[14].value, "enP30832s1 (60:45:bd:00:00:01, with eth0) up "
			 "(default route: keep it)");
	has(r[14].value, "enP30832s1d1 (60:45:bd:00:00:02, with eth1) up");
	has(r[14].fix, "ip link set dev IF down");
	assert_string_equal(r[15].name, "mana_pmd");
	assert_int_equal(r[15].verdict, HOST_OK);
	has(r[15].value, "pmds-25.0/librte_net_mana.so.25");
	/* Without the device, no MANA check at all. */
	in.root = AZURE;
	assert_int_equal(host_check_all(&in, NULL, r), 11);
}

/* Debian 12 on a MANA VM: old kernel, modules and libmana missing, and a
 * DPDK without the PMD: each fails with its fix, the PMD in one line. */
static void
test_mana_missing(void **state)
{
	struct host_input in = {.root = MANA_OLD};
	struct host_result r;

	(void)state;
	in.dpdk_version = "DPDK 22.11.11";
	host_check_mana_kernel(&in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	has(r.value, "6.1.0-13-cloud-amd64 is older than 6.2");
	has(r.fix, "bookworm-backports");
	host_check_mana_modules(&in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	has(r.value, "missing mana_ib ib_uverbs");
	has(r.fix, "modprobe -a mana_ib ib_uverbs");
	host_check_mana_libmana(&in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	has(r.fix, "ibverbs-providers");
	/* eth1's MANA port is down here: ready for DPDK. */
	host_check_mana_iface(&in, &r);
	assert_int_equal(r.verdict, HOST_OK);
	has(r.value, "enP30832s1d1 (60:45:bd:00:00:02, with eth1) down");
	host_check_mana_pmd(&in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	has(r.value, "DPDK 22.11.11 is built without the MANA PMD");
	has(r.fix, "librte-net-mana25");
	assert_null(strchr(r.value, '\n'));
	/* Built with it but the package of the PMD is not installed. */
	in.mana_pmd_built = true;
	in.pmd_dir = "/usr/lib/x86_64-linux-gnu/dpdk/pmds-25.0";
	host_check_mana_pmd(&in, &r);
	assert_int_equal(r.verdict, HOST_FAIL);
	has(r.value, "has no librte_net_mana.so");
}

/* Routes: the interface an address goes through (longest prefix). */
static void
test_routes(void **state)
{
	char ifn[32];

	(void)state;
	assert_int_equal(host_route_iface(MANA, 0xc6130109u, ifn, sizeof(ifn)),
			 0);
	assert_string_equal(ifn, "eth1"); /* 198.19.1.9: 198.19.1.0/24 */
	assert_int_equal(host_route_iface(MANA, 0xc6130009u, ifn, sizeof(ifn)),
			 0);
	assert_string_equal(ifn, "eth0");
	assert_int_equal(host_route_iface(MANA, 0xc6120001u, ifn, sizeof(ifn)),
			 0);
	assert_string_equal(ifn, "eth0"); /* the default route */
	assert_int_equal(host_route_iface(GARBAGE, 1, ifn, sizeof(ifn)),
			 -ENOENT);
	/* IPv6: fe80::/64 on eth0; the lo "unreachable" default skipped. */
	{
		uint8_t ll[16] = {0xfe, 0x80, [15] = 9}, other[16] = {0x20, 1};

		assert_int_equal(host_route6_iface(MANA, ll, ifn, sizeof(ifn)),
				 0);
		assert_string_equal(ifn, "eth0");
		assert_int_equal(
			host_route6_iface(MANA, other, ifn, sizeof(ifn)),
			-ENOENT);
	}
}

/* ---- latprobe setup: what the NIC is and the plan (no write here) ---- */

static void
test_setup_plan(void **state)
{
	static struct host_setup_plan p;
	struct host_setup_opts o = {
		.root = SNETVSC,
		.hugepages = 1024,
		.lcore = -1,
		.profile_rel = "etc/latprobe/dpdk-config/host",
		.state_rel = "run/latprobe/setup.state",
	};
	char err[512];

	(void)state;
	assert_true(host_setup_mlx_vf(0x15b3, 0x1016));
	assert_true(host_setup_mlx_vf(0x15b3, 0x1004));
	assert_false(host_setup_mlx_vf(0x15b3, 0x1017)); /* a PF */
	assert_false(host_setup_mlx_vf(0x1414, 0x00ba));
	/* netvsc + mlx5: the free NIC is eth1; its VF found by MAC. */
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), 0);
	assert_int_equal(p.kind, HOST_SETUP_NETVSC);
	assert_string_equal(p.nic.name, "eth1");
	assert_string_equal(p.vf.name, "enP2s2");
	assert_string_equal(
		p.eal, "-a 000d3a00-0000-4000-8000-000000000001,latency=10");
	has(p.profile, "\n-l 3\n--in-memory\n-a 000d3a00-");
	/* The undo of the bind gives it back to the kernel's match. */
	for (unsigned i = 0; i < p.n_steps; i++)
		if (strstr(p.steps[i].act.path, "driver_override") != NULL) {
			assert_string_equal(p.steps[i].act.value,
					    "uio_hv_generic");
			assert_int_equal(p.steps[i].n_undo, 1);
			assert_string_equal(p.steps[i].undo[0].value, "");
		}
	/* The probe's undo clears the override before probing again, else
	 * the kernel would bind uio_hv_generic once more. */
	for (unsigned i = 0; i < p.n_steps; i++)
		if (strstr(p.steps[i].act.path, "drivers_probe") != NULL) {
			assert_int_equal(p.steps[i].n_undo, 3);
			has(p.steps[i].undo[0].path,
			    "drivers/uio_hv_generic/unbind");
			has(p.steps[i].undo[1].path, "driver_override");
			assert_string_equal(p.steps[i].undo[1].value, "");
			has(p.steps[i].undo[2].path, "drivers_probe");
		}
	/* Its VF's name leads to its master; eth0 is the default route's. */
	o.iface = "enP1s1";
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), -EPERM);
	has(err, "eth0 carries the default route");
	o.force = true;
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), 0);
	assert_string_equal(p.nic.name, "eth0");
	/* The SSH client's route decides which NIC carries the session. */
	o.force = false;
	o.iface = "eth1";
	o.ssh_connection = "198.19.1.9 50022 198.19.1.4 22";
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), -EPERM);
	has(err, "eth1 carries this SSH session");
	o.ssh_connection = "198.18.0.9 50022 198.19.0.4 22"; /* via eth0 */
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), 0);
	/* MANA: the MANA PMD on the PCI device, mac= eth1's. */
	o.root = MANA;
	o.ssh_connection = NULL;
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), 0);
	assert_int_equal(p.kind, HOST_SETUP_MANA);
	assert_string_equal(p.eal, "-a 7870:00:00.0,mac=60:45:bd:00:00:02");
	/* PCI behind an IOMMU: vfio-pci. */
	o.root = SPCI;
	o.iface = NULL;
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), 0);
	assert_int_equal(p.kind, HOST_SETUP_PCI);
	assert_string_equal(p.nic.name, "ens4");
	assert_string_equal(p.eal, "-a 0000:00:04.0");
	/* A root with no NIC at all. */
	o.root = GARBAGE;
	assert_int_equal(host_setup_plan(&o, &p, err, sizeof(err)), -ENODEV);
	has(err, "no NIC with a PCI or VMBus device");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_interrupts_parse),
		cmocka_unit_test(test_task_stat_parse),
		cmocka_unit_test(test_bare_tsc),
		cmocka_unit_test(test_bare_cpufreq),
		cmocka_unit_test(test_bare_isolation),
		cmocka_unit_test(test_bare_smt),
		cmocka_unit_test(test_bare_irq),
		cmocka_unit_test(test_bare_cstates),
		cmocka_unit_test(test_bare_memory),
		cmocka_unit_test(test_bare_sampled),
		cmocka_unit_test(test_bare_all),
		cmocka_unit_test(test_azure),
		cmocka_unit_test(test_oldcpu),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_mana_ok),
		cmocka_unit_test(test_mana_missing),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_setup_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
