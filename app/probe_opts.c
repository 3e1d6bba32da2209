/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe probe's options: the usage text, the option table, parsing and
 * validation into struct probe_opts (probe.h). Nothing here touches a port or
 * a socket.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"
#include "probe.h"

/* Long-only option codes of probe (h6's range: 0x581-0x5bf). */
enum {
	PROBE_OPT_TARGETS = 0x581,
	PROBE_OPT_FOREVER,	   /* 0x582 */
	PROBE_OPT_INTERVAL_REPORT, /* 0x583 */
};

/* Long-only option codes of probe's flows (h2's range: 0x610-0x61f). */
enum {
	PROBE_OPT_FLOWS = 0x610,
	PROBE_OPT_NEW_FLOW_EVERY, /* 0x611 */
	PROBE_OPT_FIRST_PACKET,	  /* 0x612 */
};

/* --flows: at most this many per lcore (about 2 KiB each). */
#define PROBE_MAX_FLOWS		 4096
/* --first-packet: --new-flow-every this. */
#define PROBE_FIRST_PACKET_EVERY 10
/* Open loop (h1's range: 0x600-0x60f). */
enum {
	PROBE_OPT_RATE = 0x600,
	PROBE_OPT_SPACING,    /* 0x601 */
	PROBE_OPT_SEED,	      /* 0x602 */
	PROBE_OPT_MAX_BEHIND, /* 0x603 */
};

/* One-way delays (h28's range: 0x628-0x62f). */
enum {
	PROBE_OPT_SAME_CLOCK = 0x628,
};

/* The report's view (long-option codes 0x635-0x63f). */
enum {
	PROBE_OPT_DETAILS = 0x635,
};

/* --max-behind when not given: a send later than this is a late send. */
#define PROBE_MAX_BEHIND_NS 10000ull

/* clang-format off: the help text is laid out as it prints. */
void
probe_usage(FILE *f)
{
	fputs("usage: latprobe probe [EAL options] -- --addr A.B.C.D/LEN "
	      "[options] TARGET[:PORT]...\n"
	      "       (IPv6: --addr X:X::X/LEN ... [X:X::X]:PORT or X:X::X)\n"
	      "       latprobe probe --backend kernel [options] "
	      "TARGET[:PORT]...\n"
	      "       latprobe probe ... --targets FILE [TARGET[:PORT]...]\n"
	      "\n"
	      "Closed-loop ping-pong: one probe in flight per lcore, TSC read "
	      "right before\n"
	      "tx and right after the rx burst that brings the answer, on the "
	      "same lcore.\n"
	      "Every latency goes into a per-lcore histogram; the report "
	      "merges them.\n"
	      "\n"
	      "  --addr A.B.C.D/LEN   our IPv4 address on the DPDK port "
	      "(required; with\n"
	      "                       --backend kernel: the address to bind, "
	      "optional);\n"
	      "                       X:X::X/LEN for an IPv6 TARGET (both may "
	      "be given)\n"
	      "  --proto P            stamp (default, UDP 862), sockperf "
	      "(11111),\n"
	      "                       udp-echo (7), icmp, or tcp-syn (80: SYN "
	      "to\n"
	      "                       SYN-ACK or RST of any listener, then "
	      "RST)\n"
	      "  -n COUNT             probes to measure (default 10000; with "
	      "-t: no limit)\n"
	      "  -t DURATION          stop after this long, warm-up included "
	      "(e.g. 10,\n"
	      "                       1.5s, 500ms); a probe in flight then is "
	      "not counted\n"
	      "  -l SIZE              probe payload bytes, 'k' suffix ok "
	      "(default: the\n"
	      "                       protocol's minimum, 44 for STAMP); above "
	      "the MTU\n"
	      "                       probes go as IPv4 fragments, up to "
	      "65507\n"
	      "  -w COUNT             warm-up probes, sent first and not "
	      "recorded (default 100)\n"
	      "  -i INTERVAL          time between probe starts (default 0 = "
	      "back to back;\n"
	      "                       PsPing's default is 1s); e.g. 0.001, "
	      "100us\n"
	      "  -h N | E1,E2,...     bucket table: N equal buckets between "
	      "min and max, or\n"
	      "                       upper edges in microseconds (default: "
	      "about 20 rows\n"
	      "                       spaced for the data, from p0.1 to max)\n"
	      "  -t 0, --forever      run until SIGINT/SIGTERM (with "
	      "--interval-report,\n"
	      "                       --metrics: memory stays bounded)\n"
	      "  --interval-report T  each T (100ms..1h): one line per target "
	      "on stdout\n"
	      "                       (sent, lost, p50, p99, max of that "
	      "interval); JSON\n"
	      "                       \"intervals\" keeps the last 1000\n",
	      f);
	fputs("  --rate PPS           open loop: PPS probes a second per "
	      "lcore, each sent at\n"
	      "                       its scheduled time whatever the answers "
	      "do (many in\n"
	      "                       flight); adds intended_latency_ns "
	      "(from the scheduled\n"
	      "                       time) and sender.*; not with -i\n"
	      "  --spacing S          open loop: constant (default) or poisson "
	      "(exponential\n"
	      "                       gaps, reproducible by --seed)\n"
	      "  --seed N             poisson spacing's seed (default 1; the "
	      "JSON says it)\n"
	      "  --max-behind T       open loop: a send later than T behind "
	      "its "
	      "schedule\n"
	      "                       counts in sender.late_sends (default "
	      "10us)\n"
	      "  --timeout T          a probe not answered by then is lost "
	      "(default 200ms);\n"
	      "                       a lost probe delays the next -i start "
	      "to its timeout\n"
	      "  --targets FILE       a pinglist, one target a line: "
	      "ADDR[:PORT] [proto=P]\n"
	      "                       [label=L], '#' comments; with TARGETs "
	      "too. Targets take\n"
	      "                       turns on each lcore (spread over "
	      "lcores), -n per target,\n"
	      "                       one row each in the report\n"
	      "  --peer-mac MAC       skip ARP (IPv6: neighbour discovery) and "
	      "send to this MAC\n"
	      "  --arp-timeout T      give up resolving the peer after T "
	      "(default 3s)\n"
	      "  --sport N            first source port (default 40000); each "
	      "lcore gets one\n"
	      "                       from there whose answers RSS brings back "
	      "to its own\n"
	      "                       queue (N + index without RSS); "
	      "--backend kernel\n"
	      "                       without --sport: the first free port "
	      "from 40000 up\n",
	      f);
	fputs("  --flows N            rotate each lcore's probes over N "
	      "5-tuples (source\n"
	      "                       ports RSS brings back to it; 1..4096): "
	      "a row per\n"
	      "                       flow (worst p99 first, JSON \"flows\") "
	      "and whether\n"
	      "                       the flows differ more than their own "
	      "spread\n"
	      "  --new-flow-every K   every K probes a source port never used "
	      "before; the\n"
	      "                       first probe of each new tuple goes to "
	      "JSON\n"
	      "                       first_packet_rtt_ns, not into the RTT "
	      "(steady state)\n"
	      "  --first-packet       --new-flow-every 10\n",
	      f);
	fputs("  --port-id N          DPDK port to use (default 0, or the "
	      "failsafe/netvsc\n"
	      "                       master that owns port 0)\n"
	      "  --promisc            put the port in promiscuous mode "
	      "(default: off)\n"
	      "  --hw-timestamps      NIC rx timestamps too (mlx5): the "
	      "NIC-clock RTT and\n"
	      "                       the TSC - NIC difference next to the "
	      "TSC figures;\n"
	      "                       exit 4 on a port without them\n"
	      "  --live-path          after each live line, the port's path "
	      "that second\n"
	      "                       (VF vs synthetic packets, or the "
	      "driver's counters)\n"
	      "  --vlan ID            802.1Q tag 1..4094 on probes and ARP; "
	      "untagged\n"
	      "                       answers are ignored\n"
	      "  -v, --details        the text report's every section (the "
	      "bucket table,\n"
	      "                       each series, one-way, stalls, port, "
	      "TSC); by default\n"
	      "                       a section that found nothing is left "
	      "out (the JSON\n"
	      "                       has them all)\n"
	      "  --json FILE          JSON report ('-': stdout, the text "
	      "report to stderr)\n"
	      "  --samples FILE       every probe as CSV: "
	      "seq,lcore,t1_ns,rtt_ns,\n"
	      "                       network_rtt_ns,forward_ns,reverse_ns "
	      "(signed one-way)\n"
	      "  --same-clock         STAMP one-way delays: the reflector "
	      "reads this host's\n"
	      "                       clock (namespaces, processes of one "
	      "host): sync errors\n"
	      "                       cancel, the bound is both mappings' "
	      "errors\n",
	      f);
	fputs("  --stall-threshold T  a gap of a worker's poll loop above T "
	      "is a stall\n"
	      "                       (default 5us, 0 = off): counted, and "
	      "the probes it\n"
	      "                       overlapped host-affected (JSON stalls, "
	      "rtt_ns_unaffected)\n"
	      "  --stall-tlv          STAMP: ask a latprobe reflector for its "
	      "stalls (a TLV\n"
	      "                       of RFC 8972's experimental range; -l "
	      "64 or more)\n",
	      f);
	fputs("  --hlog FILE          HdrHistogram interval log (Tag=rtt, "
	      "network_rtt,\n"
	      "                       turnaround, intended with --rate, "
	      "forward,\n"
	      "                       reverse; ns) for HdrHistogram's tools\n"
	      "  --hlog-interval T    its interval (default 1s, 10ms..1h)\n"
	      "  --metrics ADDR[:PORT]\n"
	      "                       serve Prometheus metrics on "
	      "http://ADDR:PORT/metrics\n"
	      "                       (counters and RTT histograms per "
	      "target; off by default;\n"
	      "                       no PORT: 9863, or the first free one "
	      "above)\n"
	      "  --pcap FILE          every probe and answer as pcapng (first "
	      "256 bytes),\n"
	      "                       TSC timestamps; copies taken outside "
	      "T1..T4\n"
	      "  --calibrate T        TSC calibration window (default 250ms)\n"
	      "  -q, --quiet          no live line on stderr\n"
	      "  --no-doctor          no one-line host check (latprobe doctor) "
	      "at start\n"
	      "  --loopback           answer our own probes in this process: "
	      "for ports\n"
	      "                       whose tx comes back on rx (net_ring, "
	      "--profile ring)\n"
	      "  --backend kernel     kernel UDP sockets instead of DPDK, "
	      "busy-polling\n"
	      "                       (stamp, sockperf, udp-echo; no EAL "
	      "options)\n"
	      "  --busy-poll-us N     kernel backend: SO_BUSY_POLL on the "
	      "socket (and\n"
	      "                       SO_PREFER_BUSY_POLL where allowed)\n"
	      "  --auth-key FILE      STAMP authenticated mode (RFC 8762 "
	      "4.4): FILE holds\n"
	      "                       the HMAC key as hex digits (1-64 bytes); "
	      "probes are\n"
	      "                       112+ bytes, answers that do not verify "
	      "are not counted\n"
	      "\n"
	      "examples:\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          -n 10000 -h 20 198.18.0.2\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          -l 8k -n 10000 -h 100 198.18.0.2          (PsPing's "
	      "-l 8k -n 10000 -h 100)\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          -t 10 --json out.json 198.18.0.2\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          --proto tcp-syn -i 10ms -t 60 198.18.0.2:443\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          --flows 8 -n 8000 198.18.0.2\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          --rate 20000 -t 2 --json out.json 198.18.0.2\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          --same-clock -n 2000 198.18.0.2\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          --stall-tlv -t 2 --json out.json 198.18.0.2   (which "
	      "outliers were stalls)\n"
	      "  latprobe probe --backend kernel --proto sockperf -l 64 -n "
	      "10000 198.18.0.2\n"
	      "\n"
	      "exit codes: 0 ok, 1 runtime error, 2 usage, 3 peer unreachable "
	      "(no ARP),\n"
	      "            4 EAL/port set-up failed, 5 all probes lost, 6 TSC "
	      "unusable\n",
	      f);
}
/* clang-format on */

/* --flows and --new-flow-every: what they cannot go with. 0 or -1
 * (printed). */
static int
probe_flows_check(struct probe_opts *o)
{
	const char *opt = o->flows > 1 ? "--flows" : "--new-flow-every";

	if (o->flows == 1)
		o->flows = 0; /* one flow per lcore: as without */
	if (o->flows == 0 && o->new_flow_every == 0)
		return 0;
	if (o->flows != 0 && o->new_flow_every != 0) {
		app_err("--flows (fixed flows, one histogram each) and "
			"--new-flow-every (a new flow every K probes) do not "
			"go "
			"together: use one");
		return -1;
	}
	if (o->multi) {
		app_err("%s takes one target", opt);
		return -1;
	}
	if (o->co.kernel) {
		app_err("%s needs the dpdk backend (the kernel backend has one "
			"socket, one source port)",
			opt);
		return -1;
	}
	if (!o->proto->udp && o->proto != &probe_proto_tcp_syn) {
		app_err("%s varies the source port: %s has none (use a UDP "
			"protocol or tcp-syn)",
			opt, o->proto->name);
		return -1;
	}
	return 0;
}

static int
probe_parse(int argc, char **argv, struct probe_opts *o)
{
	static const struct option opts[] = {
		APP_COMMON_LONGOPTS,
		{"proto", required_argument, NULL, 'p'},
		{"timeout", required_argument, NULL, 'T'},
		{"peer-mac", required_argument, NULL, 'M'},
		{"arp-timeout", required_argument, NULL, 'A'},
		{"sport", required_argument, NULL, 's'},
		{"samples", required_argument, NULL, 'S'},
		{"pcap", required_argument, NULL, 'W'},
		{"vlan", required_argument, NULL, 'V'},
		{"loopback", no_argument, NULL, 'L'},
		{"targets", required_argument, NULL, PROBE_OPT_TARGETS},
		{"forever", no_argument, NULL, PROBE_OPT_FOREVER},
		{"interval-report", required_argument, NULL,
		 PROBE_OPT_INTERVAL_REPORT},
		{"flows", required_argument, NULL, PROBE_OPT_FLOWS},
		{"new-flow-every", required_argument, NULL,
		 PROBE_OPT_NEW_FLOW_EVERY},
		{"first-packet", no_argument, NULL, PROBE_OPT_FIRST_PACKET},
		{"rate", required_argument, NULL, PROBE_OPT_RATE},
		{"spacing", required_argument, NULL, PROBE_OPT_SPACING},
		{"seed", required_argument, NULL, PROBE_OPT_SEED},
		{"max-behind", required_argument, NULL, PROBE_OPT_MAX_BEHIND},
		{"same-clock", no_argument, NULL, PROBE_OPT_SAME_CLOCK},
		{"details", no_argument, NULL, PROBE_OPT_DETAILS},
		{"stall-tlv", no_argument, NULL, APP_OPT_STALL_TLV},
		{"help", no_argument, NULL, APP_OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	bool have_n = false, have_l = false, have_i = false;
	bool have_open_opt = false;
	uint64_t v;
	int c, r;

	memset(o, 0, sizeof(*o));
	app_common_opts_init(&o->co);
	o->proto = &probe_proto_stamp;
	o->count = 10000;
	o->warmup = 100;
	o->timeout_ns = 200000000ull;
	o->arp_timeout_ns = 3000000000ull;
	o->sport = 40000;
	o->n_buckets = 0; /* no -h: the report's default table */
	o->seed = PROBER_DEFAULT_SEED;
	o->max_behind_ns = PROBE_MAX_BEHIND_NS;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:t:l:w:i:h:qv", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			o->proto = probe_proto_find(optarg);
			if (o->proto == NULL)
				return app_opt_bad(
					"--proto",
					"stamp, sockperf, udp-echo, icmp or "
					"tcp-syn",
					optarg);
			break;
		case 'v':
		case PROBE_OPT_DETAILS:
			o->details = true;
			break;
		case 'n':
			if (cli_parse_u64(optarg, 1, UINT64_MAX / 2, &o->count))
				return app_opt_bad("-n", "a count >= 1",
						   optarg);
			have_n = true;
			break;
		case 'l':
			/* 0 parses: the protocol's minimum is said below. */
			if (cli_parse_size(optarg, &o->size))
				return app_opt_bad("-l",
						   "a size in bytes (64, 1k)",
						   optarg);
			have_l = true;
			break;
		case 'w':
			if (cli_parse_u64(optarg, 0, 100000000, &o->warmup))
				return app_opt_bad("-w", "a probe count",
						   optarg);
			break;
		case 'i':
			if (cli_parse_duration_ns(optarg, &o->interval_ns))
				return app_opt_bad(
					"-i", "an interval (0, 0.001, 100us)",
					optarg);
			have_i = true;
			break;
		case 'h':
			r = histogram_parse_spec(optarg, &o->n_buckets,
						 o->edges_ns, CLI_MAX_EDGES,
						 &o->n_edges);
			if (r != 0) {
				app_err("-h wants a bucket count 1..%u or up "
					"to %u ascending edges in us "
					"(10,20,50), not '%s'",
					HISTOGRAM_MAX_LINEAR_BUCKETS,
					CLI_MAX_EDGES, optarg);
				return -1;
			}
			break;
		case 'T':
			if (cli_parse_duration_ns(optarg, &o->timeout_ns) ||
			    o->timeout_ns < 1000 ||
			    o->timeout_ns > 60000000000ull)
				return app_opt_bad("--timeout",
						   "a duration 1us..60s",
						   optarg);
			break;
		case 'M':
			if (codec_mac_parse(optarg, &o->peer_mac))
				return app_opt_bad("--peer-mac",
						   "aa:bb:cc:dd:ee:ff", optarg);
			o->have_peer_mac = true;
			break;
		case 'A':
			if (cli_parse_duration_ns(optarg, &o->arp_timeout_ns) ||
			    o->arp_timeout_ns > 60000000000ull)
				return app_opt_bad("--arp-timeout",
						   "a duration <= 60s", optarg);
			break;
		case 's':
			if (cli_parse_u64(optarg, 1, 65535 - 64, &v))
				return app_opt_bad("--sport", "a port 1..65471",
						   optarg);
			o->sport = (uint16_t)v;
			o->have_sport = true;
			break;
		case 'S':
			o->samples = optarg;
			break;
		case 'W':
			o->pcap = optarg;
			break;
		case 'V':
			if (cli_parse_u64(optarg, 1, 4094, &v))
				return app_opt_bad("--vlan",
						   "a VLAN ID 1..4094", optarg);
			o->vlan = (uint16_t)v;
			break;
		case 'L':
			o->loopback = true;
			break;
		case PROBE_OPT_TARGETS:
			o->targets_file = optarg;
			break;
		case PROBE_OPT_FOREVER:
			o->co.forever = true;
			o->co.duration_ns = 0;
			break;
		case PROBE_OPT_INTERVAL_REPORT:
			if (cli_parse_duration_ns(optarg, &o->iv_report_ns) ||
			    o->iv_report_ns < 100000000ull ||
			    o->iv_report_ns > 3600000000000ull)
				return app_opt_bad(
					"--interval-report",
					"a duration from 100ms to 1h", optarg);
			break;
		case PROBE_OPT_FLOWS:
			if (cli_parse_u64(optarg, 1, PROBE_MAX_FLOWS, &v))
				return app_opt_bad("--flows",
						   "a flow count 1..4096",
						   optarg);
			o->flows = (uint32_t)v;
			break;
		case PROBE_OPT_NEW_FLOW_EVERY:
			if (cli_parse_u64(optarg, 1, UINT32_MAX, &v))
				return app_opt_bad("--new-flow-every",
						   "a probe count >= 1",
						   optarg);
			o->new_flow_every = v;
			break;
		case PROBE_OPT_FIRST_PACKET:
			o->new_flow_every = PROBE_FIRST_PACKET_EVERY;
			break;
		case PROBE_OPT_RATE:
			if (cli_parse_u64(optarg, 1, 100000000, &o->rate_pps))
				return app_opt_bad(
					"--rate",
					"probes per second 1..100000000",
					optarg);
			break;
		case PROBE_OPT_SPACING:
			if (strcmp(optarg, "constant") == 0)
				o->spacing = PROBER_SPACING_CONSTANT;
			else if (strcmp(optarg, "poisson") == 0)
				o->spacing = PROBER_SPACING_POISSON;
			else
				return app_opt_bad("--spacing",
						   "constant or poisson",
						   optarg);
			have_open_opt = true;
			break;
		case PROBE_OPT_SEED:
			if (cli_parse_u64(optarg, 0, UINT64_MAX, &o->seed))
				return app_opt_bad("--seed", "an integer >= 0",
						   optarg);
			have_open_opt = true;
			break;
		case PROBE_OPT_MAX_BEHIND:
			if (cli_parse_duration_ns(optarg, &o->max_behind_ns) ||
			    o->max_behind_ns > 1000000000ull)
				return app_opt_bad("--max-behind",
						   "a duration 0..1s (10us)",
						   optarg);
			have_open_opt = true;
			break;
		case PROBE_OPT_SAME_CLOCK:
			o->same_clock = true;
			break;
		default:
			if (app_common_opt_or_help(c, optarg, &o->co, "probe",
						   argv[optind - 1],
						   probe_usage) != 0)
				return -1;
			break;
		}
	}
	if (o->co.duration_ns != 0 && !have_n)
		o->count = 0;
	if (o->rate_pps != 0 && have_i) {
		app_err("--rate (open loop) and -i (closed loop) do not go "
			"together");
		return -1;
	}
	if (o->rate_pps == 0 && have_open_opt) {
		app_err("--spacing, --seed and --max-behind need --rate");
		return -1;
	}
	if (o->rate_pps != 0) {
		r = prober_open_window_size(o->rate_pps, o->timeout_ns,
					    &o->window_slots);
		if (r != 0) {
			app_err("--rate %llu x --timeout %.3gs is more than "
				"%u probes in flight per lcore (the sequence "
				"window's cap): lower one of them",
				(unsigned long long)o->rate_pps,
				(double)o->timeout_ns / 1e9,
				PROBER_OPEN_MAX_INFLIGHT);
			return -1;
		}
	}
	if (o->co.forever) {
		if (have_n) {
			app_err("-n COUNT and --forever (-t 0) do not go "
				"together");
			return -1;
		}
		o->count = 0; /* until SIGINT/SIGTERM */
	}
	if (have_l && o->proto == &probe_proto_tcp_syn) {
		app_err("-l does not apply to tcp-syn (a SYN carries no data)");
		return -1;
	}
	if (o->co.auth_key_len != 0 && o->proto != &probe_proto_stamp) {
		app_err("--auth-key applies to --proto stamp only");
		return -1;
	}
	if (!have_l)
		o->size = o->co.auth_key_len != 0 ? STAMP_AUTH_BASE_LEN
						  : o->proto->min_size;
	/* --loopback runs its reflector inside this worker's rx poll: the
	 * poll loop's gaps are that reflector's work (several us for -l 8k),
	 * not stalls of the host, so stalls are not watched there. */
	if (o->loopback)
		o->co.stall_threshold_ns = 0;
	if (app_stalls_probe_check(&o->co, o->proto, &have_l, &o->size) != 0)
		return -1;
	if (o->co.auth_key_len != 0 && o->size < STAMP_AUTH_BASE_LEN) {
		app_err("-l %llu is too small for authenticated STAMP (at "
			"least %u bytes)",
			(unsigned long long)o->size, STAMP_AUTH_BASE_LEN);
		return -1;
	}
	if (o->size > 65507) {
		app_err("-l %llu is more than a UDP datagram or ICMP echo "
			"carries "
			"(65507 bytes)",
			(unsigned long long)o->size);
		return -1;
	}
	if (o->size < o->proto->min_size) {
		app_err("-l %llu is too small for %s (at least %u bytes)",
			(unsigned long long)o->size, o->proto->name,
			o->proto->min_size);
		return -1;
	}
	o->have_l = have_l;
	o->args = argv + optind;
	o->n_args = argc - optind;
	if (probe_targets_load(o, o->n_args, o->args, false) != 0)
		return -1;
	if (o->multi && (o->loopback || o->pcap != NULL)) {
		app_err("--loopback and --pcap take one target");
		return -1;
	}
	if (o->multi && o->rate_pps != 0) {
		app_err("--rate takes one target (several targets take turns "
			"in closed loop)");
		return -1;
	}
	o->target_str = argv[optind];
	if (!o->multi) {
		/* One TARGET: IPv4 or IPv6 (several targets are IPv4). */
		if (cli_parse_target_ip(o->args[0], &o->target, &o->dport,
					&o->have_port))
			return app_opt_bad("TARGET",
					   "A.B.C.D[:PORT] or [X:X::X][:PORT]",
					   o->args[0]);
	} else {
		o->target = codec_ip_from_v4(o->tg[0].addr);
	}
	o->dport = o->tg[0].dport;
	o->have_port = true;
	if (o->co.kernel) {
		if (!o->proto->udp) {
			app_err("--backend kernel runs stamp, sockperf and "
				"udp-echo, not %s",
				o->proto->name);
			return -1;
		}
		if (o->pcap != NULL || o->loopback || o->have_peer_mac ||
		    o->vlan != 0 || o->co.promisc) {
			app_err("--pcap, --loopback, --peer-mac, --vlan and "
				"--promisc need the dpdk backend");
			return -1;
		}
		if (o->co.hw_timestamps) {
			app_err("--hw-timestamps needs the dpdk backend");
			return -1;
		}
	} else if (o->target.family == 6 && o->co.addr6.family != 6) {
		app_err("--addr X:X::X/LEN is required for an IPv6 target (our "
			"IPv6 address on the port)");
		return -1;
	} else if (o->target.family == 4 && !o->co.have_addr) {
		app_err("--addr A.B.C.D/LEN is required (our address on the "
			"port)");
		return -1;
	}
	if (app_common_opts_check(&o->co) != 0)
		return -1;
	return probe_flows_check(o);
}

int
probe_parse_hook(struct app_run *r, int argc, char **argv)
{
	struct probe_ctx *x = r->ctx;

	x->pcap_fd = -1;
	if (probe_parse(argc, argv, &x->o) != 0)
		return -1;
	app_run_opts_common(&r->opt, &x->o.co);
	/* The workers resume after a re-attach (one target or
	 * many, closed or open loop; --hw-timestamps matches the NIC's clock
	 * again). */
	r->opt.reattach = x->o.co.forever;
	r->opt.link_required = true;
	r->opt.report_interval_ns = x->o.iv_report_ns;
	/* SIGHUP re-reads the pinglist; its lcores then wait for targets
	 * until the run ends, which the side thread's deadline does. */
	r->opt.want_hup = x->o.targets_file != NULL;
	if (x->o.targets_file != NULL && x->o.count == 0)
		r->opt.deadline_ns = x->o.co.duration_ns;
	if (x->o.iv_report_ns != 0) {
		const char *keep = getenv("LATPROBE_TEST_IV_KEEP");

		x->ivr = calloc(1, sizeof(*x->ivr));
		if (x->ivr == NULL) {
			app_err("out of memory");
			return -1;
		}
		/* Tests show the bound without a run of 1000 intervals. */
		x->ivr->keep = keep != NULL && atoi(keep) > 0 &&
					       atoi(keep) < PROBE_IV_KEEP
				       ? (unsigned)atoi(keep)
				       : PROBE_IV_KEEP;
	}
	return 0;
}
