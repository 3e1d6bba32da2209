/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe reflect's options: the usage text, the option table, parsing and
 * validation into struct reflect_opts (reflect.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "reflect.h"

void
reflect_usage(FILE *f)
{
	fputs("usage: latprobe reflect [EAL options] -- --addr A.B.C.D/LEN "
	      "[options]\n"
	      "\n"
	      "Answers probes on one DPDK port, one rx/tx queue pair per "
	      "lcore:\n"
	      "ARP for its address, ICMP echo, STAMP (RFC 8762/8972), "
	      "sockperf\n"
	      "ping-pong and UDP echo; IPv4 fragments are reassembled and the "
	      "answer\n"
	      "fragmented again. Everything else is counted by reason and "
	      "dropped.\n"
	      "With several lcores (EAL -l), each answers the frames of its "
	      "own queue\n"
	      "(RSS, af_packet qpairs=N, memif's queue pairs); the report, "
	      "the JSON\n"
	      "(workers) and --metrics give each lcore's counters.\n"
	      "\n"
	      "  --addr A.B.C.D/LEN    our IPv4 address, and/or X:X::X/LEN our "
	      "IPv6 address\n"
	      "                        (one of each at most; NS answered for "
	      "it and for\n"
	      "                        the link-local address of the port's "
	      "MAC)\n"
	      "  --udp-port N          STAMP port (default 862; 0 = off)\n"
	      "  --sockperf-port N     sockperf port (default 11111; 0 = off)\n"
	      "  --echo-port N         UDP echo port (default 7; 0 = off)\n"
	      "  --stateful            STAMP stateful mode: own sequence per "
	      "session\n"
	      "  --verify-l4-csum      no effect (checksums are always "
	      "verified)\n"
	      "  --allow A.B.C.D/LEN   answer only sources in this prefix "
	      "(repeatable,\n"
	      "                        up to 64; ARP is always answered)\n"
	      "  --rate-limit PPS      at most PPS requests a second per "
	      "source address\n"
	      "                        (burst max(PPS/10, 16); 4096 sources "
	      "tracked)\n"
	      "  --allow-low-sport     answer UDP source ports below 1024 "
	      "(refused by\n"
	      "                        default; echo/chargen/reflector ports "
	      "never are)\n"
	      "  --session-timeout T   --stateful: a session idle for T "
	      "starts again at 0\n"
	      "                        (default 300s; 0 = never)\n"
	      "  -t, --duration T      stop after T (e.g. 30, 500ms; default: "
	      "until SIGINT)\n",
	      f);
	fputs("  --port-id N           DPDK port to use (default 0, or the "
	      "failsafe/netvsc\n"
	      "                        master that owns port 0)\n"
	      "  --promisc             put the port in promiscuous mode "
	      "(default: off)\n"
	      "  --hw-timestamps       T2 from the NIC's rx timestamp (mlx5); "
	      "exit 4 on a\n"
	      "                        port without them\n"
	      "  --live-path           after each live line, the port's path "
	      "that second\n"
	      "                        (VF vs synthetic packets, or the "
	      "driver's counters)\n"
	      "  --stall-threshold T   a gap of a worker's poll loop above T "
	      "is a stall\n"
	      "                        (default 5us, 0 = off): counted (JSON "
	      "stalls); a\n"
	      "                        prober's --stall-tlv learns which "
	      "answers one delayed\n"
	      "  --json FILE           write the counters as JSON at exit ('-' "
	      "= stdout)\n"
	      "  --hlog FILE           HdrHistogram interval log of the "
	      "turnaround (ns)\n"
	      "  --hlog-interval T     its interval (default 1s, 10ms..1h)\n"
	      "  --metrics ADDR[:PORT]\n"
	      "                        serve Prometheus metrics on "
	      "http://ADDR:PORT/metrics\n"
	      "                        (answered/dropped counters, "
	      "turnaround histogram;\n"
	      "                        no PORT: 9862, or the first free one "
	      "above)\n"
	      "  --calibrate T         TSC calibration window (default 250ms)\n"
	      "  -q, --quiet           no live line on stderr\n"
	      "  --no-doctor           no one-line host check (latprobe "
	      "doctor) at start\n"
	      "  --backend kernel      kernel UDP sockets instead of DPDK, "
	      "busy-polling\n"
	      "                        (STAMP, sockperf, UDP echo; no EAL "
	      "options)\n"
	      "  --busy-poll-us N      kernel backend: SO_BUSY_POLL on the "
	      "sockets (and\n"
	      "                        SO_PREFER_BUSY_POLL where allowed)\n"
	      "  --auth-key FILE       STAMP authenticated mode (RFC 8762 "
	      "4.4): FILE holds\n"
	      "                        the HMAC key as hex digits (1-64 "
	      "bytes); only requests\n"
	      "                        whose HMAC verifies are answered "
	      "(dropped.auth)\n"
	      "\n"
	      "examples:\n"
	      "  latprobe reflect --backend kernel --addr 198.18.0.2 "
	      "--echo-port 0\n"
	      "  latprobe reflect --profile veth-afxdp-refl -- --addr "
	      "198.18.0.2/24\n"
	      "  latprobe reflect --profile memif-server -- --addr "
	      "198.18.0.2/24 \\\n"
	      "          --stateful -t 60 --json refl.json\n"
	      "  latprobe reflect -l 1 --in-memory --no-pci --vdev \\\n"
	      "          net_memif0,role=server,socket=/run/latprobe/"
	      "lp-memif.sock,socket-abstract=no,mac=02:00:00:00:00:02 \\\n"
	      "          -- --addr 198.18.0.2/24 -t 60      (a fixed MAC: "
	      "memif's is random)\n"
	      "  latprobe reflect --profile veth-afxdp-refl -- --addr "
	      "198.18.0.2/24 \\\n"
	      "          --allow 198.18.0.0/24 --allow 198.19.7.0/28 "
	      "--rate-limit 1000\n",
	      f);
}

static int
parse_port(const char *name, const char *arg, uint16_t *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, 0, 65535, &v) != 0) {
		app_err("%s wants a UDP port 0..65535, not '%s'", name, arg);
		return -1;
	}
	*out = (uint16_t)v;
	return 0;
}

static int
reflect_parse(int argc, char **argv, struct reflect_opts *o)
{
	static const struct option opts[] = {
		APP_COMMON_LONGOPTS,
		{"udp-port", required_argument, NULL, 'U'},
		{"sockperf-port", required_argument, NULL, 'S'},
		{"echo-port", required_argument, NULL, 'E'},
		{"stateful", no_argument, NULL, 's'},
		{"verify-l4-csum", no_argument, NULL, 'V'},
		{"duration", required_argument, NULL, 't'},
		{"allow", required_argument, NULL, 'A'},
		{"rate-limit", required_argument, NULL, 'R'},
		{"allow-low-sport", no_argument, NULL, 'W'},
		{"session-timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, APP_OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	struct reflector_conf d;
	int c;

	memset(o, 0, sizeof(*o));
	app_common_opts_init(&o->co);
	reflector_conf_default(&d);
	o->stamp_port = d.stamp_port;
	o->sockperf_port = d.sockperf_port;
	o->echo_port = d.echo_port;
	o->session_idle_s = 300;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:q", opts, NULL)) != -1) {
		switch (c) {
		case 'U':
			if (parse_port("--udp-port", optarg, &o->stamp_port))
				return -1;
			break;
		case 'S':
			if (parse_port("--sockperf-port", optarg,
				       &o->sockperf_port))
				return -1;
			break;
		case 'E':
			if (parse_port("--echo-port", optarg, &o->echo_port))
				return -1;
			break;
		case 's':
			o->stateful = true;
			break;
		case 'V':
			/* Accepted as before; a request's L4 checksum is now
			 * always verified when the NIC did not. */
			break;
		case 'A': {
			uint32_t a, mask;
			unsigned len;

			if (cli_parse_ipv4_prefix(optarg, &a, &len) != 0) {
				app_err("--allow wants A.B.C.D/LEN, not '%s'",
					optarg);
				return -1;
			}
			if (o->n_allow == REFLECTOR_MAX_ALLOW) {
				app_err("--allow: at most %u prefixes",
					REFLECTOR_MAX_ALLOW);
				return -1;
			}
			mask = len == 0 ? 0 : UINT32_MAX << (32 - len);
			o->allow[o->n_allow].addr = a & mask;
			o->allow[o->n_allow].mask = mask;
			o->n_allow++;
			break;
		}
		case 'R':
			if (cli_parse_u64(optarg, 1, 100000000, &v)) {
				app_err("--rate-limit wants requests a second "
					"per source, 1..100000000, not '%s'",
					optarg);
				return -1;
			}
			o->rate_limit = (uint32_t)v;
			break;
		case 'W':
			o->allow_low_sport = true;
			break;
		case 'T':
			if (cli_parse_duration_ns(optarg, &v) != 0 ||
			    v > 86400000000000ull) {
				app_err("--session-timeout wants a duration "
					"up to 1 day such as 300 or 90s, not "
					"'%s'",
					optarg);
				return -1;
			}
			o->session_idle_s =
				(uint32_t)((v + 999999999ull) / 1000000000ull);
			break;
		default:
			if (app_common_opt_or_help(c, optarg, &o->co, "reflect",
						   argv[optind - 1],
						   reflect_usage) != 0)
				return -1;
			break;
		}
	}
	if (optind < argc) {
		app_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->co.kernel && o->co.promisc) {
		app_err("--promisc needs the dpdk backend");
		return -1;
	}
	if (o->co.kernel && o->co.hw_timestamps) {
		app_err("--hw-timestamps needs the dpdk backend");
		return -1;
	}
	if (!o->co.have_addr && o->co.addr6.family != 6) {
		app_err("--addr A.B.C.D/LEN is required (the address to answer "
			"for; X:X::X/LEN for IPv6, or one of each)");
		return -1;
	}
	if (o->co.kernel && o->co.addr6.family == 6 && o->co.have_addr) {
		app_err("--backend kernel answers on one address: IPv4 or "
			"IPv6, not both");
		return -1;
	}
	return 0;
}

int
reflect_parse_hook(struct app_run *r, int argc, char **argv)
{
	struct reflect_ctx *x = r->ctx;

	if (reflect_parse(argc, argv, &x->o) != 0)
		return -1;
	app_run_opts_common(&r->opt, &x->o.co);
	/* A service (no -t) waits for a removed device. */
	r->opt.reattach = x->o.co.duration_ns == 0;
	r->opt.link_required = false; /* a reflector waits for its peers */
	r->opt.deadline_ns = x->o.co.duration_ns;
	return app_common_opts_check(&x->o.co);
}
