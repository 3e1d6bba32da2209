/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "doctor.h"
#include "log.h"
#include "version.h"

static void
usage(FILE *f)
{
	fputs("usage: latprobe SUBCOMMAND [EAL options] -- [options]\n"
	      "\n"
	      "Kernel-bypass latency prober (DPDK). Subcommands:\n"
	      "  reflect   answer probes: STAMP (UDP 862), sockperf (11111), "
	      "UDP echo (7),\n"
	      "            ICMP echo and ARP\n"
	      "  probe     send probes to a reflector and report latency "
	      "percentiles\n"
	      "  info      TSC calibration and the capabilities of every DPDK "
	      "port\n"
	      "  doctor    is this host set up for microsecond measurement? "
	      "checks, fixes\n"
	      "  plot      draw saved probe reports as one self-contained "
	      "HTML page (no EAL)\n"
	      "  compare   compare saved JSON reports: bootstrap intervals, "
	      "verdicts (no EAL)\n"
	      "  setup     prepare this host's NIC for DPDK (hugepages, "
	      "modules, bind,\n"
	      "            a profile) and --undo it (no EAL)\n"
	      "\n"
	      "EAL options go before '--'; '--profile NAME' takes them from "
	      "dpdk-config/NAME.\n"
	      "'latprobe SUBCOMMAND --help' explains each one; "
	      "'latprobe --version'\n"
	      "prints the version (and the git tree it was built from).\n"
	      "\n"
	      "examples:\n"
	      "  latprobe info --profile ring --\n"
	      "  latprobe doctor\n"
	      "  latprobe setup --dry-run\n"
	      "  latprobe reflect --profile veth-afxdp-refl -- --addr "
	      "198.18.0.2/24\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          -n 10000 -h 20 198.18.0.2\n"
	      "\n"
	      "exit codes: 0 ok, 1 runtime error, 2 usage, 3 peer "
	      "unreachable,\n"
	      "            4 EAL/port set-up failed, 5 all probes lost, 6 TSC "
	      "unusable,\n"
	      "            7 compare --fail-if-slower: significantly slower,\n"
	      "            8 the port's device was removed during the run\n",
	      f);
}

/* Options put on the wrong side of "--", before EAL can misread them. */
static int
check_sides(const char *cmd, int argc, char **argv)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	char err[512];

	/* The subcommand prints its help: -h too, but in probe (buckets). */
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 ||
		    (strcmp(argv[i], "-h") == 0 && strcmp(cmd, "probe") != 0))
			return EXIT_OK;
	if (cli_check_eal_part(cmd, argc, argv, ncpus > 0 ? (unsigned)ncpus : 1,
			       err, sizeof(err)) != 0) {
		fprintf(stderr, "latprobe: error: %s\n", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int
main(int argc, char **argv)
{
	const char *cmd;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		/* meson's project version, then `git describe` */
		if (LATPROBE_GIT_DESCRIBE[0] != '\0')
			printf("latprobe %s (git %s)\n", LATPROBE_VERSION,
			       LATPROBE_GIT_DESCRIBE);
		else
			printf("latprobe %s\n", LATPROBE_VERSION);
		return EXIT_OK;
	}
	if ((strcmp(cmd, "info") == 0 || strcmp(cmd, "probe") == 0 ||
	     strcmp(cmd, "reflect") == 0 || strcmp(cmd, "doctor") == 0) &&
	    (ret = check_sides(cmd, argc - 2, argv + 2)) != EXIT_OK)
		return ret;
	/* No EAL: only a "--" after something asks which side is which. */
	if (strcmp(cmd, "plot") == 0) {
		for (int i = 3; i < argc; i++)
			if (strcmp(argv[i], "--") == 0 &&
			    (ret = check_sides(cmd, argc - 2, argv + 2)) !=
				    EXIT_OK)
				return ret;
		return cmd_plot(argc - 2, argv + 2);
	}
	/* Reads files only: no EAL, no side check, no DPDK log set-up. */
	if (strcmp(cmd, "compare") == 0)
		return cmd_compare(argc - 2, argv + 2);
	if (strcmp(cmd, "setup") == 0)
		return cmd_setup(argc - 2, argv + 2);
	app_log_init();
	if (strcmp(cmd, "info") == 0)
		return cmd_info(argc - 2, argv + 2);
	if (strcmp(cmd, "doctor") == 0)
		return cmd_doctor(argc - 2, argv + 2);
	if (strcmp(cmd, "probe") == 0)
		return cmd_probe(argc - 2, argv + 2);
	if (strcmp(cmd, "reflect") == 0)
		return cmd_reflect(argc - 2, argv + 2);
	fprintf(stderr,
		"latprobe: error: unknown subcommand '%s' "
		"(try 'latprobe --help')\n",
		cmd);
	return EXIT_USAGE;
}
