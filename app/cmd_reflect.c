/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "app.h"
#include "link_events.h"
#include "cli.h"
#include "hlog_out.h"
#include "latprobe/port.h"
#include "preflight.h"
#include "latprobe/reflector.h"
#include "run.h"
#include "latprobe/sockio.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"

struct reflect_opts {
	struct app_common_opts co;
	uint16_t stamp_port, sockperf_port, echo_port;
	bool stateful;
	bool allow_low_sport;
	struct reflector_prefix allow[REFLECTOR_MAX_ALLOW];
	unsigned n_allow;
	uint32_t rate_limit;
	uint32_t session_idle_s;
};

static void
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
	      "until SIGINT)\n"
	      "  --port-id N           DPDK port to use (default 0)\n"
	      "  --promisc             put the port in promiscuous mode "
	      "(default: off)\n"
	      "  --hw-timestamps       T2 from the NIC's rx timestamp (mlx5); "
	      "exit 4 on a\n"
	      "                        port without them\n"
	      "  --live-path           after each live line, the port's path "
	      "that second\n"
	      "                        (VF vs synthetic packets, or the "
	      "driver's counters)\n"
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
		{"help", no_argument, NULL, 'H'},
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
		case 'H':
			reflect_usage(stdout);
			exit(EXIT_OK);
		default:
			if (app_common_opt(c, optarg, &o->co, "reflect",
					   argv[optind - 1]) != 0)
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

struct reflect_run {
	struct reflector_worker w[RTE_MAX_LCORE];
	unsigned n_workers;
	/* The port's per-queue counters before the workers start (DPDK). */
	struct port_queue_stats qs_before;
	bool have_qs;
};

struct reflect_ctx {
	struct reflect_opts o;
	struct reflector_conf conf;
	struct reflect_run *run;
	struct sockio *sock;
	struct app_out json;
	struct app_hlog hlog;
	char addr_str[2 * CLI_IP_STRLEN + 16];
	struct histogram *mx_snap, *mx_sum;   /* the metrics thread's */
	uint64_t last_rx, last_tx, last_drop; /* live line */
	uint64_t last_wrx[RTE_MAX_LCORE];     /* live line, per worker */
};

static int
reflect_worker(struct app_run *r, unsigned idx)
{
	struct reflect_ctx *x = r->ctx;

	reflector_run(&x->run->w[idx], &force_quit);
	return 0;
}

static uint64_t
sum_counter(const struct reflect_run *r, enum reflector_counter c)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < r->n_workers; i++)
		s += reflector_counter_read(&r->w[i], c);
	return s;
}

static int
write_reflect_json(const void *arg, FILE *f)
{
	return report_reflect_json(arg, f);
}

/* Live line each second. */
static void
reflect_tick(struct app_run *r, double el)
{
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;
	uint64_t rx = sum_counter(run, RC_RX);
	uint64_t tx = sum_counter(run, RC_TX);
	/* Everything received and not answered. */
	uint64_t drop = rx - sum_counter(run, RC_ARP) -
			sum_counter(run, RC_ICMP) - sum_counter(run, RC_STAMP) -
			sum_counter(run, RC_SOCKPERF) -
			sum_counter(run, RC_ECHO);
	char per[160] = "";
	size_t len = 0;

	/* Several workers: each one's frames that second, up to 8. */
	for (unsigned i = 0; run->n_workers > 1 && i < run->n_workers && i < 8;
	     i++) {
		uint64_t v = reflector_counter_read(&run->w[i], RC_RX);
		int n = snprintf(per + len, sizeof(per) - len, "%s%llu",
				 i == 0 ? "  rx per lcore " : " ",
				 (unsigned long long)(v - x->last_wrx[i]));

		x->last_wrx[i] = v;
		if (n < 0 || (size_t)n >= sizeof(per) - len)
			break;
		len += (size_t)n;
	}
	fprintf(stderr, "%7.1fs  rx %llu tx %llu not answered %llu%s%s\n", el,
		(unsigned long long)(rx - x->last_rx),
		(unsigned long long)(tx - x->last_tx),
		(unsigned long long)(drop - x->last_drop), per,
		run->n_workers > 8 ? " ..." : "");
	x->last_rx = rx;
	x->last_tx = tx;
	x->last_drop = drop;
}

static void
conf_common(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;
	const struct reflect_opts *o = &x->o;
	struct reflector_conf *c = &x->conf;
	char abuf[16], a6[CLI_IP_STRLEN];

	reflector_conf_default(c);
	c->addr = o->co.have_addr ? o->co.addr : 0;
	c->addr6 = o->co.addr6;
	c->prefix_len = (uint8_t)o->co.prefix;
	c->stamp_port = o->stamp_port;
	c->sockperf_port = o->sockperf_port;
	c->echo_port = o->echo_port;
	c->stateful = o->stateful;
	c->clock = r->clk.clock;
	c->anchor = r->clk.anchor;
	c->allow_low_sport = o->allow_low_sport;
	memcpy(c->allow, o->allow, sizeof(c->allow));
	c->n_allow = o->n_allow;
	c->rate_limit_pps = o->rate_limit;
	c->session_idle_s = o->session_idle_s;
	c->auth_key = o->co.auth_key;
	c->auth_key_len = o->co.auth_key_len;
	/* NIC clock: two reads 10 ms apart to start, then one a second. */
	c->hw_ts = o->co.hw_timestamps;
	c->hw_calib_cycles = tsc_from_ns(&r->clk.clock, 10000000ull);
	c->hw_resample_cycles = tsc_from_ns(&r->clk.clock, 1000000000ull);
	cli_format_ipv4(o->co.addr, abuf);
	cli_format_ip(&o->co.addr6, a6);
	if (!o->co.have_addr)
		snprintf(x->addr_str, sizeof(x->addr_str), "%s/%u", a6,
			 o->co.prefix6);
	else if (o->co.addr6.family == 6)
		snprintf(x->addr_str, sizeof(x->addr_str), "%s/%u %s/%u", abuf,
			 o->co.prefix, a6, o->co.prefix6);
	else
		snprintf(x->addr_str, sizeof(x->addr_str), "%s/%u", abuf,
			 o->co.prefix);
}

static int
reflect_parse_hook(struct app_run *r, int argc, char **argv)
{
	struct reflect_ctx *x = r->ctx;

	if (reflect_parse(argc, argv, &x->o) != 0)
		return -1;
	/* Issue 27: a service (no -t) waits for a removed device. */
	r->opt.reattach = x->o.co.duration_ns == 0;
	r->opt.kernel = x->o.co.kernel;
	r->opt.quiet = x->o.co.quiet;
	r->opt.promisc = x->o.co.promisc;
	r->opt.no_doctor = x->o.co.no_doctor;
	r->opt.hw_timestamps = x->o.co.hw_timestamps;
	r->opt.live_path = x->o.co.live_path;
	r->opt.link_required = false; /* a reflector waits for its peers */
	r->opt.port_id = x->o.co.port_id;
	r->opt.calib_ns = x->o.co.calib_ns;
	r->opt.deadline_ns = x->o.co.duration_ns;
	r->opt.have_metrics = x->o.co.have_metrics;
	r->opt.metrics_addr = x->o.co.metrics_addr;
	r->opt.metrics_port = x->o.co.metrics_port;
	if (x->o.co.have_hlog_interval && x->o.co.hlog == NULL) {
		app_err("--hlog-interval needs --hlog FILE");
		return -1;
	}
	r->opt.hlog_interval_ns = x->o.co.hlog == NULL ? 0
				  : x->o.co.have_hlog_interval
					  ? x->o.co.hlog_interval_ns
					  : APP_HLOG_DEFAULT_INTERVAL_NS;
	return 0;
}

static int
reflect_open_outputs(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	int ret = app_out_open(&x->json, "--json", x->o.co.json);

	if (ret == EXIT_OK)
		ret = app_hlog_open(&x->hlog, x->o.co.hlog);
	return ret;
}

/* --metrics: per worker (lcore and queue labels; as many as -l has). */
static int
reflect_metrics_lcores(struct app_run *r, struct metrics_buf *b)
{
	static const struct {
		const char *name, *help;
		enum reflector_counter c; /* RC__COUNT: every answered.* */
	} fam[] = {
		{"latprobe_reflector_lcore_rx_frames_total",
		 "Frames each reflector lcore received from its queue", RC_RX},
		{"latprobe_reflector_lcore_answered_total",
		 "Requests each reflector lcore answered, every protocol",
		 RC__COUNT},
		{"latprobe_reflector_lcore_tx_dropped_total",
		 "Answers the tx queue of each reflector lcore did not take",
		 RC_DROP_TX},
	};
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;

	for (unsigned k = 0; k < RTE_DIM(fam); k++) {
		metrics_family(b, fam[k].name, "counter", fam[k].help);
		for (unsigned i = 0; i < run->n_workers; i++) {
			const struct reflector_worker *w = &run->w[i];
			char lc[12], qu[12];
			struct metrics_label l[2] = {{"lcore", lc},
						     {"queue", qu}};
			uint64_t v = 0;
			int ret;

			snprintf(lc, sizeof(lc), "%u", r->worker_lcore[i]);
			snprintf(qu, sizeof(qu), "%u", w->q->queue_id);
			if (fam[k].c != RC__COUNT)
				v = reflector_counter_read(w, fam[k].c);
			else
				for (unsigned c = 0; c < RC__COUNT; c++)
					if (strncmp(reflector_counter_name(c),
						    "answered.", 9) == 0)
						v += reflector_counter_read(w,
									    c);
			ret = metrics_counter(b, fam[k].name, l, 2, v);
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

/*
 * --metrics, from the metrics thread: the workers' counters and turnaround
 * histograms read relaxed (they only grow), merged in this thread's own
 * scratch histograms.
 */
static int
reflect_metrics(struct app_run *r, struct metrics_buf *b)
{
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;
	struct metrics_label l[1];

	if (x->mx_snap == NULL) {
		x->mx_snap = histogram_create();
		x->mx_sum = histogram_create();
		if (x->mx_snap == NULL || x->mx_sum == NULL)
			return -ENOMEM;
	}
	app_metrics_preamble(b, "reflect", r->dpdk_ready, r->clk.clock.hz);
	metrics_family(b, "latprobe_reflector_rx_frames_total", "counter",
		       "Frames the reflector received");
	metrics_counter(b, "latprobe_reflector_rx_frames_total", NULL, 0,
			sum_counter(run, RC_RX));
	metrics_family(b, "latprobe_reflector_tx_frames_total", "counter",
		       "Frames the reflector sent");
	metrics_counter(b, "latprobe_reflector_tx_frames_total", NULL, 0,
			sum_counter(run, RC_TX));
	metrics_family(b, "latprobe_reflector_answered_total", "counter",
		       "Requests answered, by protocol");
	for (unsigned c = 0; c < RC__COUNT; c++) {
		const char *n = reflector_counter_name(c);

		if (strncmp(n, "answered.", 9) != 0)
			continue;
		l[0] = (struct metrics_label){"proto", n + 9};
		metrics_counter(b, "latprobe_reflector_answered_total", l, 1,
				sum_counter(run, c));
	}
	metrics_family(b, "latprobe_reflector_dropped_total", "counter",
		       "Frames not answered, by reason");
	for (unsigned c = 0; c < RC__COUNT; c++) {
		const char *n = reflector_counter_name(c);

		if (strncmp(n, "dropped.", 8) != 0)
			continue;
		l[0] = (struct metrics_label){"reason", n + 8};
		metrics_counter(b, "latprobe_reflector_dropped_total", l, 1,
				sum_counter(run, c));
	}
	if (x->sock == NULL) {
		int ret = reflect_metrics_lcores(r, b);

		if (ret != 0)
			return ret;
	}
	histogram_init(x->mx_sum);
	for (unsigned i = 0; i < run->n_workers; i++) {
		histogram_snapshot(&run->w[i].turnaround, x->mx_snap);
		histogram_merge(x->mx_sum, x->mx_snap);
	}
	metrics_family(b, "latprobe_reflector_turnaround_seconds", "histogram",
		       "STAMP turnaround T3 - T2 inside the reflector");
	return metrics_histogram(b, "latprobe_reflector_turnaround_seconds",
				 NULL, 0, x->mx_sum);
}

static const struct histogram *
reflect_hlog_get(void *ctx, unsigned s, unsigned w)
{
	(void)s;
	return &((struct reflect_run *)ctx)->w[w].turnaround;
}

/* --hlog: Tag=turnaround (T3 - T2 of STAMP answers). */
static void
reflect_interval(struct app_run *r, double el, bool final)
{
	static const char *const tags[] = {"turnaround"};
	struct reflect_ctx *x = r->ctx;

	(void) final;
	if (x->hlog.n_workers == 0)
		app_hlog_series(&x->hlog, 1, tags, x->run->n_workers);
	app_hlog_tick(&x->hlog, el, reflect_hlog_get, x->run);
}

static int
reflect_setup_dpdk(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	conf_common(r);
	memcpy(x->conf.mac.b, r->port.mac.addr_bytes, 6);
	return EXIT_OK;
}

/* Kernel UDP sockets on the three ports; one worker, this thread. */
static int
reflect_setup_kernel(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;
	const struct reflect_opts *o = &x->o;
	const uint16_t ports[] = {o->stamp_port, o->sockperf_port,
				  o->echo_port};
	/* The engine checks frames are for its MAC; sockio makes them so. */
	static const struct codec_mac mac = {{0x02, 0, 0, 0, 0, 0x01}};
	struct sockio_opts so;

	sockio_opts_default(&so);
	so.so_busy_poll_us = o->co.busy_poll_us;
	if (o->co.addr6.family == 6)
		x->sock = sockio_open_reflector6(o->co.addr6.a, ports, 3, &mac,
						 &so);
	else
		x->sock =
			sockio_open_reflector(o->co.addr, ports, 3, &mac, &so);
	if (x->sock == NULL && errno == EADDRINUSE && o->co.addr6.family != 6) {
		char who[128], ip[16];

		cli_format_ipv4(o->co.addr, ip);
		for (unsigned k = 0; k < 3; k++)
			if (ports[k] != 0 &&
			    preflight_udp_holder(o->co.addr, ports[k], who,
						 sizeof(who))) {
				app_err("UDP port %u on %s is already in use%s "
					"(another reflector?): stop it, or "
					"choose other ports (0 turns one off)",
					ports[k], ip, who);
				return EXIT_SETUP;
			}
	}
	if (x->sock == NULL) {
		app_err("kernel UDP sockets on %s ports %u/%u/%u: %s "
			"(ports below 1024 need root; 0 turns one off)",
			x->addr_str[0] ? x->addr_str : "--addr", ports[0],
			ports[1], ports[2], strerror(errno));
		return errno == EINVAL ? EXIT_USAGE : EXIT_SETUP;
	}
	conf_common(r);
	x->conf.mac = mac;
	/* The kernel reassembles; the engine sees whole datagrams. */
	x->conf.n_reasm = 0;
	return EXIT_OK;
}

static int
reflect_init_workers(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	x->run = calloc(1, sizeof(*x->run));
	if (x->run == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	for (unsigned i = 0; i < r->n_workers; i++) {
		struct io_queue *q =
			x->sock ? sockio_queue(x->sock) : &r->port.q[i];

		if (reflector_worker_init(&x->run->w[i], &x->conf, q) != 0) {
			app_err("out of memory (session table, reassembly)");
			return EXIT_RUNTIME;
		}
		x->run->n_workers = i + 1;
	}
	if (x->sock == NULL)
		x->run->have_qs =
			port_queue_stats_read(r->port.id, r->port.n_queues,
					      &x->run->qs_before) == 0;
	return EXIT_OK;
}

static void
reflect_start_line(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;
	char mac[18], with_mac[24] = "";

	/* The kernel backend's MAC is an internal placeholder: not shown. */
	if (x->sock == NULL) {
		codec_mac_format(&x->conf.mac, mac);
		snprintf(with_mac, sizeof(with_mac), ", MAC %s", mac);
	}
	fprintf(stderr,
		"latprobe reflect: %s on %s %u (%s, %s%s), %u lcore(s); "
		"stamp %u sockperf %u echo %u%s%s\n",
		x->addr_str, x->sock ? "backend" : "port", x->o.co.port_id,
		x->sock ? "kernel" : r->port.name,
		x->sock ? "UDP sockets" : r->port.driver, with_mac,
		x->run->n_workers, x->o.stamp_port, x->o.sockperf_port,
		x->o.echo_port, x->o.stateful ? " (stateful)" : "",
		x->o.co.auth_key_len != 0 ? " (authenticated)" : "");
	/* DPDK 22.11 memif: a server queue beyond the client's ring count
	 * is left without a ring of its own (seen here with a one-queue
	 * client: queue 1 answered frames the client sent on its only ring,
	 * and in one run of two the reflector crashed). */
	if (x->sock == NULL && x->run->n_workers > 1 &&
	    strcmp(r->port.driver, "net_memif") == 0)
		app_warn("memif with %u queues: the client must use %u queue "
			 "pairs too (latprobe probe -l with %u lcores); with "
			 "fewer, DPDK's memif polls one ring from two queues",
			 x->run->n_workers, x->run->n_workers,
			 x->run->n_workers);
}

/*
 * One report_reflect_worker per worker, from its counters and the port's
 * per-queue counters over the run; answered_by points into by (RC__COUNT
 * per worker).
 */
static void
reflect_workers(struct app_run *r, struct report_reflect_worker *out,
		struct report_counter *by)
{
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;
	struct port_queue_stats after, d;
	bool per_queue = false;

	memset(&d, 0, sizeof(d));
	if (run->have_qs &&
	    port_queue_stats_read(r->port.id, r->port.n_queues, &after) == 0)
		per_queue = port_queue_stats_delta(&run->qs_before, &after, &d);
	for (unsigned i = 0; i < run->n_workers; i++) {
		const struct reflector_worker *w = &run->w[i];
		struct report_reflect_worker *o = &out[i];
		struct report_counter *b = &by[(size_t)i * RC__COUNT];

		memset(o, 0, sizeof(*o));
		o->lcore = x->sock != NULL ? -1 : (int)r->worker_lcore[i];
		o->queue = x->sock != NULL ? -1 : (int)w->q->queue_id;
		o->rx = reflector_counter_read(w, RC_RX);
		o->tx = reflector_counter_read(w, RC_TX);
		o->tx_dropped = reflector_counter_read(w, RC_DROP_TX);
		o->answered_by = b;
		for (unsigned c = 0; c < RC__COUNT; c++) {
			const char *n = reflector_counter_name(c);
			uint64_t v = reflector_counter_read(w, c);

			if (strncmp(n, "answered.", 9) == 0) {
				b[o->n_answered_by].name = n + 9;
				b[o->n_answered_by++].value = v;
				o->answered += v;
			} else if (strncmp(n, "dropped.", 8) == 0 &&
				   c != RC_DROP_TX && c != RC_DROP_NOMBUF) {
				o->ignored += v;
			}
		}
		if (per_queue && o->queue >= 0 && o->queue < d.n) {
			o->have_queue_stats = true;
			o->queue_rx_packets = d.q_ipackets[o->queue];
			o->queue_rx_errors = d.q_errors[o->queue];
		}
	}
}

static int
reflect_report(struct app_run *r, double duration_s,
	       const struct report_counter *xs, unsigned n_xs)
{
	struct reflect_ctx *x = r->ctx;
	const struct reflect_opts *o = &x->o;
	struct reflect_run *run = x->run;
	struct report_counter counters[RC__COUNT];
	struct histogram *turn = histogram_create();
	struct histogram *hw_rxd = histogram_create();
	struct report_hw hw = {.rx_delay = hw_rxd};
	struct report_reflect_worker *workers =
		calloc(run->n_workers + 1, sizeof(*workers));
	struct report_counter *by =
		calloc((size_t)(run->n_workers + 1) * RC__COUNT, sizeof(*by));
	struct report_reflect rep;
	struct report_meta meta;
	char iface[160], csum_rx[32], csum_tx[32];
	int ret = EXIT_OK;

	if (turn == NULL || hw_rxd == NULL || workers == NULL || by == NULL) {
		app_err("out of memory");
		histogram_destroy(turn);
		histogram_destroy(hw_rxd);
		free(workers);
		free(by);
		return EXIT_RUNTIME;
	}
	reflect_workers(r, workers, by);
	for (unsigned k = 0; k < RC__COUNT; k++) {
		counters[k].name = reflector_counter_name(k);
		counters[k].value = sum_counter(run, k);
	}
	for (unsigned k = 0; k < run->n_workers; k++) {
		const struct reflector_worker *w = &run->w[k];

		histogram_merge(turn, &w->turnaround);
		histogram_merge(hw_rxd, &w->hw_rx_delay);
		app_hw_add(&hw, &w->hw, &w->nic, &r->clk.clock);
	}
	memset(&rep, 0, sizeof(rep));
	rep.backend = x->sock ? "kernel" : "dpdk";
	rep.addr = x->addr_str;
	rep.duration_s = duration_s;
	rep.interrupted = o->co.duration_ns == 0 ||
			  duration_s * 1e9 < (double)o->co.duration_ns;
	rep.counters = counters;
	rep.n_counters = RC__COUNT;
	rep.turnaround = turn;
	rep.port.present = r->dpdk_ready;
	rep.port.delta = xs;
	rep.port.n_delta = n_xs;
	rep.port.path = r->path;
	rep.port.events = app_link_report(duration_s); /* issue 27 */
	rep.hw = o->co.hw_timestamps ? &hw : NULL;
	rep.workers = workers;
	rep.n_workers = run->n_workers;
	if (rep.hw != NULL)
		app_hw_check(&hw);
	if (report_meta_init(&meta, r->start, "latprobe reflect", r->argc,
			     r->argv) == 0) {
		snprintf(iface, sizeof(iface), "%s (%s)",
			 x->sock ? "kernel" : r->port.name,
			 x->sock ? "UDP sockets" : r->port.driver);
		meta.source = x->addr_str;
		meta.interface = iface;
		meta.dpdk_version = x->sock ? NULL : rte_version();
		meta.nic_driver = x->sock ? "udp-socket" : r->port.driver;
		meta.cores_used = run->n_workers;
		if (x->sock == NULL && r->dpdk_ready) {
			port_csum_names(&r->port.csum, 1, csum_rx,
					sizeof(csum_rx));
			port_csum_names(&r->port.csum, 0, csum_tx,
					sizeof(csum_tx));
			meta.csum_rx = csum_rx;
			meta.csum_tx = csum_tx;
		}
		rep.meta = &meta;
	}
	app_clock_report(&r->clk, &rep.tsc);
	/* With --json -, stdout carries the JSON alone. */
	if (report_reflect_text(
		    &rep, o->co.json != NULL && strcmp(o->co.json, "-") == 0
				  ? stderr
				  : stdout) != 0)
		ret = EXIT_RUNTIME;
	if (app_stdout_flush() != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_out_write(&x->json, write_reflect_json, &rep) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_hlog_close(&x->hlog) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (rep.meta != NULL)
		report_meta_fini(&meta);
	histogram_destroy(turn);
	histogram_destroy(hw_rxd);
	free(workers);
	free(by);
	return ret;
}

static void
reflect_teardown(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	if (x->run != NULL) {
		for (unsigned i = 0; i < x->run->n_workers; i++)
			reflector_worker_fini(&x->run->w[i]);
		free(x->run);
		x->run = NULL;
	}
	app_out_close(&x->json);
	(void)app_hlog_close(&x->hlog);
	if (x->sock != NULL)
		sockio_close(x->sock);
	x->sock = NULL;
	histogram_destroy(x->mx_snap);
	histogram_destroy(x->mx_sum);
	x->mx_snap = x->mx_sum = NULL;
}

static const struct app_cmd reflect_cmd = {
	.name = "reflect",
	.usage = reflect_usage,
	.short_help = true,
	.ctx_size = sizeof(struct reflect_ctx),
	.parse = reflect_parse_hook,
	.open_outputs = reflect_open_outputs,
	.setup_kernel = reflect_setup_kernel,
	.setup_dpdk = reflect_setup_dpdk,
	.init_workers = reflect_init_workers,
	.start_line = reflect_start_line,
	.worker = reflect_worker,
	.tick = reflect_tick,
	.interval = reflect_interval,
	.report = reflect_report,
	.teardown = reflect_teardown,
	.metrics = reflect_metrics,
};

int
cmd_reflect(int argc, char **argv)
{
	return app_run(&reflect_cmd, argc, argv);
}
