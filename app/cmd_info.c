/* SPDX-License-Identifier: BSD-3-Clause */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "app.h"
#include "cli.h"
#include "eal_devs.h"
#include "latprobe/port.h"

static void
info_usage(FILE *f)
{
	fputs("usage: latprobe info [EAL options] -- [--calibrate DURATION]\n"
	      "\n"
	      "Prints the TSC facts every latency depends on (rate measured "
	      "against\n"
	      "CLOCK_MONOTONIC_RAW, its difference to DPDK's rte_get_tsc_hz() "
	      "in ppm,\n"
	      "invariance, cost of a read) and, for every DPDK port the EAL "
	      "options\n"
	      "bring up, its driver, MAC, link, queues, MTU, offloads and "
	      "whether it\n"
	      "can timestamp received packets in hardware.\n"
	      "\n"
	      "  --calibrate DURATION  calibration window (default 1s; e.g. "
	      "200ms)\n"
	      "\n"
	      "Without EAL options, the EAL starts with no PCI bus and no "
	      "hugepages.\n"
	      "\n"
	      "examples:\n"
	      "  latprobe info\n"
	      "  latprobe info --profile veth-afxdp-probe -- --calibrate 2s\n",
	      f);
}

static void
print_offloads(const char *what, uint64_t capa, int rx)
{
	printf("    %s offloads:", what);
	if (capa == 0)
		printf(" none");
	for (unsigned b = 0; b < 64; b++) {
		uint64_t bit = 1ull << b;

		if (!(capa & bit))
			continue;
		printf(" %s", rx ? rte_eth_dev_rx_offload_name(bit)
				 : rte_eth_dev_tx_offload_name(bit));
	}
	printf("\n");
}

/* The checksum offloads probe/reflect enable on this port (port_setup()). */
static void
print_csum(const struct port_facts *f)
{
	struct port_csum c;
	char rx[32], tx[32];

	port_csum_pick(f->rx_offload_capa, f->tx_offload_capa, &c);
	port_csum_names(&c, 1, rx, sizeof(rx));
	port_csum_names(&c, 0, tx, sizeof(tx));
	printf("    checksum offloads used: rx %s, tx %s%s\n",
	       rx[0] ? rx : "none", tx[0] ? tx : "none",
	       c.rx == 0 ? " (checksums verified in software)" : "");
}

/* The kind of path, the VF behind a master, what a latency includes. */
static void
print_path(uint16_t pid, const struct port_facts *f)
{
	enum port_path_kind k = port_path_kind_of(f->driver);
	char vf_driver[64];
	uint16_t vf;

	printf("    path: ");
	switch (k) {
	case PORT_PATH_NETVSC:
	case PORT_PATH_FAILSAFE:
		if (port_vf_get(pid, &vf, vf_driver, sizeof(vf_driver)) == 0) {
			printf("VF behind %s (VF port %u, driver %s)\n",
			       port_path_kind_name(k), vf, vf_driver);
			printf("    the VF: %s\n",
			       port_path_vf_includes(vf_driver));
		} else
			printf("%s with NO hardware VF among the ports it "
			       "owns: synthetic (or software) path only\n",
			       port_path_kind_name(k));
		break;
	case PORT_PATH_MLX:
		printf("bare NIC (%s, no synthetic fallback)\n", f->driver);
		break;
	case PORT_PATH_MANA:
		printf("bare MANA NIC (%s driven directly, the port its "
		       "mac= devarg selected; no netvsc, no synthetic "
		       "fallback)\n",
		       f->driver);
		break;
	case PORT_PATH_SOFTWARE:
		printf("software (%s)\n", f->driver);
		break;
	default:
		printf("other (%s: not classified)\n", f->driver);
		break;
	}
	printf("    a latency here includes: %s\n", port_path_includes(k));
}

int
cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{"calibrate", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	char *def_eal[] = APP_EAL_NODEV_ARGV;
	char **eal_argv, **app_argv, err[512] = "";
	int eal_argc, app_argc, ret, c;
	bool sep, eal = false;
	uint64_t window_ns = 1000000000ull;
	struct app_clock clk;
	uint16_t pid, n_ports = 0;
	unsigned n_vdevs = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			info_usage(stdout);
			return EXIT_OK;
		}
	}
	ret = cli_split_args(argc, argv, "latprobe", &eal_argc, &eal_argv,
			     &app_argc, &app_argv, &sep, err, sizeof(err));
	if (ret != 0) {
		app_err("%s", err);
		return EXIT_USAGE;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(app_argc, app_argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (cli_parse_duration_ns(optarg, &window_ns) != 0 ||
			    window_ns < 10000000ull ||
			    window_ns > 60000000000ull) {
				app_err("--calibrate wants a duration between "
					"10ms and 60s, not '%s'",
					optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		default:
			app_err("unknown option '%s' (try 'latprobe info "
				"--help')",
				app_argv[optind - 1]);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < app_argc) {
		app_err("unexpected argument '%s'", app_argv[optind]);
		ret = EXIT_USAGE;
		goto out;
	}
	for (int i = 1; i < eal_argc; i++)
		n_vdevs += strcmp(eal_argv[i], "--vdev") == 0 ||
			   strncmp(eal_argv[i], "--vdev=", 7) == 0;
	ret = eal_argc > 1 ? app_eal_init(eal_argc, eal_argv)
			   : app_eal_init(APP_EAL_NODEV_ARGC, def_eal);
	if (ret != EXIT_OK)
		goto out;
	eal = true;
	ret = app_eal_devices_check(eal_argc, eal_argv);
	if (ret != EXIT_OK)
		goto out;

	printf("latprobe %s on %s\n", LATPROBE_VERSION, rte_version());
	ret = app_clock_setup(&clk, window_ns, rte_get_tsc_hz());
	if (ret != EXIT_OK)
		goto out;
	printf("TSC\n");
	printf("  measured rate      %.6f MHz over %.3f s of "
	       "CLOCK_MONOTONIC_RAW "
	       "(spread %.3f ppm)\n",
	       (double)clk.cal.hz / 1e6, (double)clk.cal.window_ns / 1e9,
	       clk.cal.spread_ppm);
	printf("  rte_get_tsc_hz()   %.6f MHz (%+.1f ppm against the measured "
	       "rate)\n",
	       (double)clk.dpdk_hz / 1e6, clk.cal.ppm_vs_reference);
	printf("  invariant          %s (cpuid %s, constant_tsc %s, "
	       "nonstop_tsc "
	       "%s, tsc_reliable %s)\n",
	       clk.inv.invariant ? "yes" : "NO",
	       clk.inv.cpuid_invariant ? "yes" : "no",
	       clk.inv.constant_tsc ? "yes" : "no",
	       clk.inv.nonstop_tsc ? "yes" : "no",
	       clk.inv.tsc_reliable ? "yes" : "no");
	printf("  rdtscp (CPUID)     %s\n",
	       clk.inv.rdtscp ? "yes" : "no (not used: lfence;rdtsc;lfence)");
	printf("  clocksource        %s\n",
	       clk.inv.clocksource[0] ? clk.inv.clocksource : "unknown");
	printf("  read cost          rdtsc %.0f, lfence;rdtsc %.0f, "
	       "lfence;rdtsc;lfence %.0f cycles (%.1f / %.1f / %.1f ns)\n",
	       clk.cost.plain_cycles, clk.cost.start_cycles,
	       clk.cost.end_cycles,
	       clk.cost.plain_cycles * 1e9 / (double)clk.clock.hz,
	       clk.cost.start_cycles * 1e9 / (double)clk.clock.hz,
	       clk.cost.end_cycles * 1e9 / (double)clk.clock.hz);

	RTE_ETH_FOREACH_DEV (pid) {
		struct port_facts f;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		n_ports++;
		if (port_facts_get(pid, &f) != 0) {
			printf("port %u: cannot read its facts\n", pid);
			continue;
		}
		rte_ether_format_addr(mac, sizeof(mac), &f.mac);
		printf("port %u: %s (driver %s)\n", pid, f.name, f.driver);
		printf("    mac %s, link %s", mac, f.link_up ? "up" : "down");
		if (f.link_up)
			printf(" %u Mb/s", f.link_speed_mbps);
		printf(", socket %d\n", f.socket_id);
		printf("    queues rx %u tx %u max, mtu %u (min %u max %u)\n",
		       f.max_rx_queues, f.max_tx_queues, f.mtu, f.min_mtu,
		       f.max_mtu);
		printf("    rss hash types 0x%llx\n",
		       (unsigned long long)f.rss_offloads);
		print_offloads("rx", f.rx_offload_capa, 1);
		print_offloads("tx", f.tx_offload_capa, 0);
		print_csum(&f);
		print_path(pid, &f);
		printf("    hardware rx timestamp: %s\n",
		       f.rx_timestamp_capa
			       ? "yes (RTE_ETH_RX_OFFLOAD_TIMESTAMP)"
			       : "no (TSC after rx_burst is used)");
	}
	if (n_ports == 0 && n_vdevs == 0)
		printf("no DPDK ports (give EAL options, e.g. --profile NAME, "
		       "to probe some)\n");
	if (n_ports < n_vdevs) {
		/* The EAL logs why; a device asked for and absent is a failure.
		 */
		app_err("%u --vdev device(s) in the EAL options, %u DPDK "
			"port(s) came up: check the lines above",
			n_vdevs, n_ports);
		ret = EXIT_SETUP;
	}
	if (app_stdout_flush() != EXIT_OK && ret == EXIT_OK)
		ret = EXIT_RUNTIME;
out:
	if (eal) {
		/* Closed first: DPDK 22.11's vdev bus clean-up crashes on a
		 * failsafe port left open (its sub-devices go twice). */
		RTE_ETH_FOREACH_DEV (pid)
			(void)rte_eth_dev_close(pid);
		rte_eal_cleanup();
	}
	cli_free_argv(eal_argv);
	cli_free_argv(app_argv);
	return ret;
}
