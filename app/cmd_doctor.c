/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe doctor: is this host set up for microsecond measurement? The
 * checks live in lib/host (fixture-tested); this file gathers what only a
 * DPDK process knows (lcores, ports, mempools, the TSC calibration), runs a
 * one-second sample for steal time and runnable tasks, and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_version.h>

#include "app.h"
#include "cli.h"
#include "doctor.h"
#include "oneway.h"
#include "latprobe/host_clock.h"

#define DOCTOR_OPT_LCORES    0x441
#define DOCTOR_OPT_JSON	     0x442
#define DOCTOR_OPT_CALIBRATE 0x443

/* The one-second sample: this many scans of the tasks. */
#define SAMPLE_SCANS 10
#define SAMPLE_NS    1000000000ull

static void
doctor_usage(FILE *f)
{
	fputs("usage: latprobe doctor [EAL options] -- [--lcores LIST] "
	      "[--json FILE]\n"
	      "\n"
	      "Checks that this host is set up for microsecond measurement, "
	      "one line\n"
	      "per check: ok, warn or fail, what was measured, and the fix "
	      "(a command\n"
	      "or a kernel parameter). The checks: invariant TSC, "
	      "clocksource, the\n"
	      "TSC rate against CLOCK_MONOTONIC_RAW, frequency governor and "
	      "turbo,\n"
	      "isolcpus/nohz_full/rcu_nocbs, SMT siblings, the NIC's IRQ "
	      "affinity,\n"
	      "C-states, transparent hugepages, hugepages per NUMA node, the "
	      "NUMA node\n"
	      "of each port and its mbuf pool, and over one second: steal "
	      "time and\n"
	      "other runnable tasks on the lcores. On a host with a MANA NIC "
	      "(PCI\n"
	      "1414:00ba) also: kernel >= 6.2, the mana, mana_ib and "
	      "ib_uverbs modules,\n"
	      "rdma-core's libmana, the NIC's kernel interfaces down, and "
	      "a DPDK with\n"
	      "the MANA PMD. Last, the clock (for STAMP one-way delays): "
	      "synchronised or\n"
	      "not and by what (chronyd, ntpd, systemd-timesyncd, ptp4l), "
	      "its error\n"
	      "(chrony's bound, adjtimex), and the Hyper-V PTP clock "
	      "/dev/ptp_hyperv.\n"
	      "\n"
	      "  --lcores LIST        the CPUs to check (default: the EAL's "
	      "lcores,\n"
	      "                       every CPU without EAL options)\n"
	      "  --json FILE          the checks as JSON ('-': stdout, the "
	      "text goes\n"
	      "                       to stderr)\n"
	      "  --calibrate T        TSC calibration window (default 1s)\n"
	      "\n"
	      "Without EAL options there is no DPDK port: the kernel's NICs "
	      "are checked.\n"
	      "Exit: 0 when no check fails (warnings allowed), 1 when one "
	      "fails,\n"
	      "2 usage, 4 EAL set-up failed.\n"
	      "\n"
	      "examples:\n"
	      "  latprobe doctor\n"
	      "  latprobe doctor --profile veth-afxdp-probe -- --lcores 1 "
	      "--json -\n",
	      f);
}

static void
pool_mem_cb(struct rte_mempool *mp, void *opaque,
	    struct rte_mempool_memhdr *memhdr, unsigned mem_idx)
{
	int *node = opaque;
	int n = host_mem_node(memhdr->addr);

	(void)mp;
	(void)mem_idx;
	/* The first chunk's node (a pool this small has one chunk). */
	if (*node < 0 && n >= 0)
		*node = n;
}

void
doctor_port_nic(uint16_t port_id, struct rte_mempool *pool,
		struct host_nic *nic)
{
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN] = "?", ifname[IF_NAMESIZE];
	struct rte_mempool *mine = NULL;
	int sock;

	memset(nic, 0, sizeof(*nic));
	nic->dpdk = true;
	nic->node = -1;
	nic->mem_node = -1;
	(void)rte_eth_dev_get_name_by_port(port_id, name);
	snprintf(nic->name, sizeof(nic->name), "port %u %.40s", port_id, name);
	if (rte_eth_dev_info_get(port_id, &info) == 0) {
		if (info.device != NULL)
			snprintf(nic->device, sizeof(nic->device), "%s",
				 rte_dev_name(info.device));
		if (info.if_index != 0 &&
		    if_indextoname(info.if_index, ifname) != NULL) {
			snprintf(nic->ifname, sizeof(nic->ifname), "%s",
				 ifname);
			snprintf(nic->name, sizeof(nic->name),
				 "port %u %.30s (%.16s)", port_id, name,
				 ifname);
		}
	}
	/* A vdev's "device" is its own name (net_af_xdp0): no IRQ has it. */
	sock = rte_eth_dev_socket_id(port_id);
	nic->node = sock >= 0 ? sock : -1;
	if (pool == NULL) {
		char pname[RTE_MEMPOOL_NAMESIZE];

		snprintf(pname, sizeof(pname), "lp_doctor_%u", port_id);
		mine = rte_pktmbuf_pool_create(
			pname, 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
			sock >= 0 ? sock : (int)rte_socket_id());
		pool = mine;
	}
	if (pool != NULL)
		(void)rte_mempool_mem_iter(pool, pool_mem_cb, &nic->mem_node);
	rte_mempool_free(mine);
}

/* What the MANA checks ask of the DPDK build (the headers built against). */
static void
dpdk_build_input(struct host_input *in)
{
	in->dpdk_version = rte_version();
#ifdef RTE_NET_MANA
	in->mana_pmd_built = true;
#endif
#ifdef RTE_EAL_PMD_PATH
	in->pmd_dir = RTE_EAL_PMD_PATH[0] != '\0' ? RTE_EAL_PMD_PATH : NULL;
#endif
}

void
doctor_clock_input(struct host_input *in, const struct app_clock *clk)
{
	in->cpuid_invariant = clk->inv.cpuid_invariant;
	in->tsc_hz = clk->cal.hz;
	in->tsc_window_ns = clk->cal.window_ns;
	in->tsc_spread_ppm = clk->cal.spread_ppm;
	in->dpdk_hz = clk->dpdk_hz;
	in->tsc_ppm_vs_dpdk = clk->cal.ppm_vs_reference;
}

void
doctor_brief(const char *cmd, const struct host_cpus *lcores,
	     const struct app_clock *clk, int port_id, struct rte_mempool *pool)
{
	struct host_input *in = calloc(1, sizeof(*in));
	struct host_result *r = calloc(HOST_N_CHECKS, sizeof(*r));
	char names[256] = "";
	unsigned n, n_warn = 0, n_fail = 0;

	if (in == NULL || r == NULL) {
		free(in);
		free(r);
		return;
	}
	in->root = "/";
	in->lcores = *lcores;
	doctor_clock_input(in, clk);
	dpdk_build_input(in);
	if (port_id >= 0) {
		doctor_port_nic((uint16_t)port_id, pool, &in->nics[0]);
		in->n_nics = 1;
	} else {
		in->nic_note = "kernel backend";
	}
	n = host_check_all(in, NULL, r);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(names);

		if (r[i].verdict == HOST_OK)
			continue;
		if (r[i].verdict == HOST_WARN)
			n_warn++;
		else
			n_fail++;
		snprintf(names + l, sizeof(names) - l, "%s%s%s", l ? ", " : "",
			 r[i].name, r[i].verdict == HOST_FAIL ? " (FAIL)" : "");
	}
	if (n_warn + n_fail == 0)
		fprintf(stderr,
			"latprobe %s: doctor: %u host checks ok (steal time "
			"and runnable tasks not sampled: latprobe doctor "
			"does)\n",
			cmd, n);
	else
		fprintf(stderr,
			"latprobe %s: doctor: %u of %u host checks not ok: "
			"%s ('latprobe doctor' says why and how to fix; "
			"--no-doctor skips this)\n",
			cmd, n_warn + n_fail, n, names);
	free(in);
	free(r);
}

static double
mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* /proc/stat, SAMPLE_SCANS task scans spread over a second, /proc/stat. */
static void
sample(const struct host_cpus *lcores, struct host_sample *s)
{
	double t0;

	s->self_pid = getpid();
	t0 = mono_s();
	s->err_before = host_stat_read("/", &s->before);
	for (unsigned k = 0; k < SAMPLE_SCANS; k++) {
		struct timespec ts = {0, (long)(SAMPLE_NS / SAMPLE_SCANS)};

		nanosleep(&ts, NULL);
		(void)host_tasks_scan("/", lcores, s);
	}
	s->err_after = host_stat_read("/", &s->after);
	s->seconds = mono_s() - t0;
}

static int
write_json(FILE *f, const struct host_input *in, const struct host_result *r,
	   unsigned n, const unsigned *count)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct json_object *sum = json_object_new_object();
	char l[256];
	int ret;

	if (doc == NULL || arr == NULL || sum == NULL) {
		json_object_put(doc);
		json_object_put(arr);
		json_object_put(sum);
		return -ENOMEM;
	}
	json_object_object_add(doc, "format_version", json_object_new_int(1));
	json_object_object_add(doc, "lcores",
			       json_object_new_string(host_cpus_format(
				       &in->lcores, l, sizeof(l))));
	for (unsigned i = 0; i < n; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "name",
				       json_object_new_string(r[i].name));
		json_object_object_add(c, "verdict",
				       json_object_new_string(host_verdict_name(
					       r[i].verdict)));
		json_object_object_add(c, "value",
				       json_object_new_string(r[i].value));
		json_object_object_add(c, "fix",
				       json_object_new_string(r[i].fix));
		json_object_array_add(arr, c);
	}
	json_object_object_add(doc, "checks", arr);
	json_object_object_add(sum, "ok", json_object_new_int((int)count[0]));
	json_object_object_add(sum, "warn", json_object_new_int((int)count[1]));
	json_object_object_add(sum, "fail", json_object_new_int((int)count[2]));
	json_object_object_add(doc, "summary", sum);
	ret = fprintf(f, "%s\n",
		      json_object_to_json_string_ext(
			      doc, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE)) < 0
		      ? -EIO
		      : 0;
	json_object_put(doc);
	return ret;
}

struct json_arg {
	const struct host_input *in;
	const struct host_result *r;
	unsigned n;
	const unsigned *count;
};

static int
write_json_cb(const void *arg, FILE *f)
{
	const struct json_arg *a = arg;

	return write_json(f, a->in, a->r, a->n, a->count);
}

int
cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lcores", required_argument, NULL, DOCTOR_OPT_LCORES},
		{"json", required_argument, NULL, DOCTOR_OPT_JSON},
		{"calibrate", required_argument, NULL, DOCTOR_OPT_CALIBRATE},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	char *def_eal[] = APP_EAL_NODEV_ARGV;
	struct app_args a;
	struct app_out json = {0};
	struct host_input *in = NULL;
	struct host_sample *s = NULL;
	struct host_result *r = NULL;
	struct host_cpus online;
	struct app_clock clk;
	const char *json_path = NULL;
	uint64_t window_ns = SAMPLE_NS;
	bool eal = false, have_lcores = false;
	unsigned n = 0, count[3] = {0, 0, 0};
	FILE *txt = stdout;
	int ret, c;
	uint16_t pid;

	ret = app_args_split(argc, argv, doctor_usage, true, &a);
	if (ret != EXIT_OK)
		return ret < 0 ? EXIT_OK : ret;
	in = calloc(1, sizeof(*in));
	s = calloc(1, sizeof(*s));
	/* The host's checks, then the clock's (app/oneway.c). */
	r = calloc(HOST_N_CHECKS + HOST_N_CLOCK_CHECKS, sizeof(*r));
	if (in == NULL || s == NULL || r == NULL) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	in->root = "/";
	dpdk_build_input(in);
	if (host_online_cpus("/", &online) != 0) {
		app_err("cannot read /sys/devices/system/cpu/online");
		ret = EXIT_RUNTIME;
		goto out;
	}
	optind = 1;
	opterr = 0;
	ret = EXIT_USAGE;
	while ((c = getopt_long(a.app_argc, a.app_argv, "", opts, NULL)) !=
	       -1) {
		switch (c) {
		case DOCTOR_OPT_LCORES:
			if (host_cpus_parse(optarg, strlen(optarg),
					    &in->lcores) != 0 ||
			    host_cpus_count(&in->lcores) == 0 ||
			    !host_cpus_subset(&in->lcores, &online)) {
				char o[128];

				app_err("--lcores wants a list of online CPUs "
					"(%s), not '%s'",
					host_cpus_format(&online, o, sizeof(o)),
					optarg);
				goto out;
			}
			have_lcores = true;
			break;
		case DOCTOR_OPT_JSON:
			json_path = optarg;
			break;
		case DOCTOR_OPT_CALIBRATE:
			if (cli_parse_duration_ns(optarg, &window_ns) != 0 ||
			    window_ns < 10000000ull ||
			    window_ns > 60000000000ull) {
				app_opt_bad("--calibrate",
					    "a duration between 10ms and 60s",
					    optarg);
				goto out;
			}
			break;
		default:
			app_err("unknown or incomplete option '%s' (try "
				"'latprobe doctor --help')",
				a.app_argv[optind - 1]);
			goto out;
		}
	}
	if (optind < a.app_argc) {
		app_err("unexpected argument '%s'", a.app_argv[optind]);
		goto out;
	}
	if (app_out_open(&json, "--json", json_path) != EXIT_OK)
		goto out;
	if (json.f == stdout)
		txt = stderr;
	ret = a.eal_argc > 1 ? app_eal_init(a.eal_argc, a.eal_argv)
			     : app_eal_init(APP_EAL_NODEV_ARGC, def_eal);
	if (ret != EXIT_OK)
		goto out;
	eal = true;
	if (!have_lcores) {
		unsigned lcore;

		RTE_LCORE_FOREACH (lcore) {
			rte_cpuset_t cs = rte_lcore_cpuset(lcore);

			for (unsigned cpu = 0;
			     cpu < HOST_MAX_CPUS && cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &cs))
					host_cpus_set(&in->lcores, cpu);
		}
	}
	ret = app_clock_setup(&clk, window_ns, rte_get_tsc_hz());
	if (ret == EXIT_OK)
		doctor_clock_input(in, &clk);
	else
		in->cpuid_invariant = clk.inv.cpuid_invariant; /* tsc_hz 0 */
	RTE_ETH_FOREACH_DEV (pid) {
		if (in->n_nics == HOST_MAX_NICS)
			break;
		doctor_port_nic(pid, NULL, &in->nics[in->n_nics++]);
	}
	if (in->n_nics == 0) {
		in->n_nics = host_kernel_nics("/", in->nics, HOST_MAX_NICS);
		in->nic_note = in->n_nics == 0
				       ? "no DPDK port (give EAL options) and "
					 "no kernel NIC with a device"
				       : NULL;
	}
	sample(&in->lcores, s);
	n = host_check_all(in, s, r);
	n += app_oneway_doctor(r + n);
	for (unsigned i = 0; i < n; i++)
		count[r[i].verdict]++;
	{
		char l[256];

		fprintf(txt,
			"latprobe doctor: lcores %s, %s; %u checks: %u ok, %u "
			"warn, %u fail\n",
			host_cpus_format(&in->lcores, l, sizeof(l)),
			in->n_nics == 0	   ? "no NIC"
			: in->nics[0].dpdk ? "DPDK ports"
					   : "no DPDK port: the kernel's NICs",
			n, count[HOST_OK], count[HOST_WARN], count[HOST_FAIL]);
	}
	for (unsigned i = 0; i < n; i++) {
		fprintf(txt, "%-4s  %-13s %s", host_verdict_name(r[i].verdict),
			r[i].name, r[i].value);
		if (r[i].fix[0] != '\0')
			fprintf(txt, "  [fix: %s]", r[i].fix);
		fputc('\n', txt);
	}
	{
		struct json_arg ja = {in, r, n, count};

		ret = app_out_write(&json, write_json_cb, &ja);
	}
	if (ret == EXIT_OK)
		ret = app_stdout_flush();
	if (ret == EXIT_OK && count[HOST_FAIL] != 0)
		ret = EXIT_RUNTIME;
out:
	app_out_close(&json);
	if (eal)
		rte_eal_cleanup();
	free(in);
	free(s);
	free(r);
	app_args_free(&a);
	return ret;
}
