/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe setup: prepare this host for a DPDK run on its second NIC
 * (hugepages, modules, the NIC's interfaces down, the bind, a profile) and
 * undo it. The plan, the sysfs writes and the state file are lib/host's
 * (latprobe/setup.h, fixture-tested); this file parses, prints and runs
 * modprobe. No EAL.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "latprobe/host.h"
#include "latprobe/setup.h"

#define SETUP_PROFILE_REL "etc/latprobe/dpdk-config/host"
#define SETUP_STATE_REL	  "run/latprobe/setup.state"
#define SETUP_HUGE_REL	  "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"

enum {
	SETUP_OPT_IFACE = 0x501,
	SETUP_OPT_HUGEPAGES,
	SETUP_OPT_LCORE,
	SETUP_OPT_DRY_RUN,
	SETUP_OPT_UNDO,
	SETUP_OPT_FORCE,
	SETUP_OPT_NOIOMMU,
	SETUP_OPT_ROOT,
};

static void
setup_usage(FILE *f)
{
	fputs("usage: latprobe setup [--iface IF] [--hugepages N] [--lcore "
	      "CPU] [--dry-run]\n"
	      "                      [--force] [--noiommu]\n"
	      "       latprobe setup --undo [--dry-run]\n"
	      "\n"
	      "Prepares this host for DPDK on one NIC, the steps a user "
	      "does by hand\n"
	      "otherwise: 2 MiB hugepages, the modules the NIC needs, its "
	      "kernel\n"
	      "interfaces down, the bind, and a profile for this host "
	      "(--profile host,\n"
	      "/etc/latprobe/dpdk-config/host). What the NIC is decides the "
	      "rest:\n"
	      "  netvsc + mlx4/mlx5 VF (Azure)  the VMBus device to "
	      "uio_hv_generic (sysfs\n"
	      "                                 driver_override, as "
	      "driverctl); the VF stays\n"
	      "  MANA (PCI 1414:00ba, Azure)    stays on mana; its "
	      "interfaces down; mac=\n"
	      "  another PCI NIC                vfio-pci, with the IOMMU "
	      "(else refused)\n"
	      "It refuses the NIC that carries the default route or this SSH "
	      "session.\n"
	      "What it changed is kept in /run/latprobe/setup.state: --undo "
	      "restores it\n"
	      "(sysfs writes do not survive a reboot: run setup again after "
	      "one).\n"
	      "\n"
	      "  --iface IF       the NIC to give DPDK (its VF's name works "
	      "too); default:\n"
	      "                   the only one free of the default route "
	      "and SSH\n"
	      "  --hugepages N    2 MiB hugepages to have at least "
	      "(default 1024; 0: leave)\n"
	      "  --lcore CPU      the profile's lcore (default: the last "
	      "online CPU)\n"
	      "  --dry-run        print every step, change nothing\n"
	      "  --undo           restore what the last setup changed\n"
	      "  --force          take the NIC even if it carries the "
	      "default route or SSH\n"
	      "  --noiommu        vfio-pci without an IOMMU (vfio's unsafe "
	      "no-IOMMU mode)\n"
	      "\n"
	      "Exit: 0 done (or nothing to undo), 1 a step failed (--undo "
	      "restores the\n"
	      "steps done), 2 usage, 4 refused (no such NIC, the default "
	      "route's or\n"
	      "SSH's NIC, no IOMMU, already set up, not root).\n"
	      "\n"
	      "examples:\n"
	      "  latprobe setup --dry-run\n"
	      "  sudo latprobe setup --iface eth1\n"
	      "  sudo latprobe info --profile host --\n"
	      "  sudo latprobe setup --undo\n",
	      f);
}

struct ctx {
	bool real; /* root is "/": modprobe runs */
	bool skipped;
	unsigned k;
};

static int
run_modprobe(void *arg, const char *module, bool remove)
{
	struct ctx *c = arg;
	pid_t pid;
	int st;

	c->skipped = false;
	if (!c->real) {
		c->skipped = true; /* a fixture tree: no modprobe there */
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (remove)
			execlp("modprobe", "modprobe", "-r", module,
			       (char *)NULL);
		else
			execlp("modprobe", "modprobe", module, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

static void
step_done(void *arg, const struct host_setup_step *s, int ret)
{
	struct ctx *c = arg;

	c->k++;
	if (ret != 0)
		printf("  %2u. FAILED (%s): %s\n", c->k, strerror(-ret),
		       s->text);
	else
		printf("  %2u. %s: %s\n", c->k,
		       c->skipped ? "skipped (--root)" : "done", s->text);
	c->skipped = false;
}

static void
undo_done(void *arg, const char *text, int ret)
{
	struct ctx *c = arg;

	c->k++;
	if (ret != 0)
		printf("  %2u. FAILED (%s): %s\n", c->k, strerror(-ret), text);
	else
		printf("  %2u. %s: %s\n", c->k,
		       c->skipped ? "skipped (--root)" : "done", text);
	c->skipped = false;
}

static void
undo_dry(void *arg, const char *text, int ret)
{
	struct ctx *c = arg;

	(void)ret;
	printf("  %2u. %s\n", ++c->k, text);
}

static void
print_plan(const struct host_setup_opts *o, const struct host_setup_plan *p)
{
	printf("latprobe setup: %s (%s %s, %s)", p->nic.name,
	       strcmp(p->nic.bus, "vmbus") == 0 ? "VMBus" : "PCI",
	       p->nic.device, p->nic.driver[0] ? p->nic.driver : "no driver");
	if (p->have_vf)
		printf(", VF %s (%s %04x:%04x, %s)", p->vf.name, p->vf.device,
		       p->vf.vendor, p->vf.device_id,
		       p->vf.driver[0] ? p->vf.driver : "no driver");
	printf(": %s\n", host_setup_kind_name(p->kind));
	for (unsigned i = 0; i < p->n_notes; i++)
		printf("  note: %s\n", p->notes[i]);
	(void)o;
}

static int
undo_cmd(const struct host_setup_opts *o, bool dry, struct ctx *c)
{
	int ret;

	printf("latprobe setup --undo%s, from /%s:\n",
	       dry ? " (--dry-run: nothing changed)" : "", o->state_rel);
	ret = host_setup_undo(o, dry ? NULL : run_modprobe, c,
			      dry ? undo_dry : undo_done);
	if (ret == -ENOENT) {
		printf("  nothing to undo (no /%s)\n", o->state_rel);
		return app_stdout_flush();
	}
	if (ret == -EINVAL) {
		app_err("/%s is malformed: undo stopped there", o->state_rel);
		return EXIT_RUNTIME;
	}
	if (ret != 0) {
		app_err("setup --undo: a step failed (%s): see above",
			strerror(-ret));
		return EXIT_RUNTIME;
	}
	return app_stdout_flush();
}

int
cmd_setup(int argc, char **argv)
{
	static const struct option opts[] = {
		{"iface", required_argument, NULL, SETUP_OPT_IFACE},
		{"hugepages", required_argument, NULL, SETUP_OPT_HUGEPAGES},
		{"lcore", required_argument, NULL, SETUP_OPT_LCORE},
		{"dry-run", no_argument, NULL, SETUP_OPT_DRY_RUN},
		{"undo", no_argument, NULL, SETUP_OPT_UNDO},
		{"force", no_argument, NULL, SETUP_OPT_FORCE},
		{"noiommu", no_argument, NULL, SETUP_OPT_NOIOMMU},
		{"root", required_argument, NULL, SETUP_OPT_ROOT},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	struct host_setup_opts o = {
		.root = "/",
		.hugepages = 1024,
		.lcore = -1,
		.profile_rel = SETUP_PROFILE_REL,
		.state_rel = SETUP_STATE_REL,
	};
	static struct host_setup_plan p;
	struct ctx c = {0};
	bool dry = false, undo = false;
	char err[768];
	unsigned failed = 0;
	uint64_t v;
	int ch, ret;

	/* argv[0] is the first argument: getopt skips it (as plot does). */
	argc++;
	argv--;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case SETUP_OPT_IFACE:
			o.iface = optarg;
			break;
		case SETUP_OPT_HUGEPAGES:
			if (cli_parse_u64(optarg, 0, 1u << 20, &v) != 0)
				return app_opt_bad("--hugepages",
						   "a count of 2 MiB pages",
						   optarg),
				       EXIT_USAGE;
			o.hugepages = (unsigned)v;
			break;
		case SETUP_OPT_LCORE:
			if (cli_parse_u64(optarg, 0, 1023, &v) != 0)
				return app_opt_bad("--lcore", "a CPU number",
						   optarg),
				       EXIT_USAGE;
			o.lcore = (int)v;
			break;
		case SETUP_OPT_DRY_RUN:
			dry = true;
			break;
		case SETUP_OPT_UNDO:
			undo = true;
			break;
		case SETUP_OPT_FORCE:
			o.force = true;
			break;
		case SETUP_OPT_NOIOMMU:
			o.noiommu = true;
			break;
		case SETUP_OPT_ROOT:
			o.root = optarg;
			break;
		case 'H':
			setup_usage(stdout);
			return EXIT_OK;
		default:
			app_err("unknown or incomplete option '%s' (try "
				"'latprobe setup --help')",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		app_err("unexpected argument '%s' (setup takes no EAL "
			"options)",
			argv[optind]);
		return EXIT_USAGE;
	}
	c.real = strcmp(o.root, "/") == 0;
	if (c.real && !dry && geteuid() != 0) {
		app_err("setup writes to /sys and /etc: run it as root "
			"(sudo), or --dry-run to see the plan");
		return EXIT_SETUP;
	}
	if (undo)
		return undo_cmd(&o, dry, &c);
	o.ssh_connection = getenv("SSH_CONNECTION");
	ret = host_setup_plan(&o, &p, err, sizeof(err));
	if (ret != 0) {
		app_err("setup: %s", err);
		return EXIT_SETUP;
	}
	print_plan(&o, &p);
	if (dry) {
		printf("plan (--dry-run: nothing changed):\n");
		for (unsigned i = 0; i < p.n_steps; i++)
			printf("  %2u. %s\n", i + 1, p.steps[i].text);
		printf("profile /%s:\n", o.profile_rel);
		for (const char *l = p.profile; *l;) {
			const char *nl = strchr(l, '\n');
			int len = nl ? (int)(nl - l) : (int)strlen(l);

			printf("    %.*s\n", len, l);
			l += len + (nl != NULL);
		}
		return app_stdout_flush();
	}
	printf("steps:\n");
	ret = host_setup_apply(&o, &p, run_modprobe, &c, step_done, &failed);
	if (ret != 0) {
		app_err("setup: step %u failed (%s); 'latprobe setup --undo' "
			"restores the %u step(s) done",
			failed + 1, strerror(-ret), failed);
		return EXIT_RUNTIME;
	}
	if (o.hugepages > 0) {
		char got[32];
		unsigned long n = 0;

		/* The kernel gives what it can find contiguous. */
		if (host_fs_line(o.root, SETUP_HUGE_REL, got, sizeof(got)) == 0)
			n = strtoul(got, NULL, 10);
		if (n < o.hugepages)
			app_warn("hugepages: %u asked, the kernel holds %lu "
				 "(memory too fragmented: hugepages=%u on the "
				 "kernel command line reserves them at boot)",
				 o.hugepages, n, o.hugepages);
	}
	printf("state: /%s ('latprobe setup --undo' restores)\n"
	       "next: latprobe info --profile host --\n",
	       o.state_rel);
	return app_stdout_flush();
}
