/* SPDX-License-Identifier: BSD-3-Clause */
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

#include "app.h"
#include "cli.h"
#include "port.h"
#include "reflector.h"
#include "sockio.h"
#include "sockperf.h"
#include "stamp.h"
#include "stamp_auth.h"

struct reflect_opts {
	uint32_t addr;
	unsigned prefix;
	bool have_addr;
	uint16_t stamp_port, sockperf_port, echo_port;
	bool stateful, verify_l4, quiet;
	uint64_t duration_ns;
	uint16_t port_id;
	const char *json;
	uint64_t calib_ns;
	bool kernel;
	int busy_poll_us;
	uint8_t auth_key[STAMP_AUTH_KEY_MAX]; /* never printed */
	size_t auth_key_len;		      /* 0: unauthenticated */
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
	      "\n"
	      "  --addr A.B.C.D/LEN    our IPv4 address (required)\n"
	      "  --udp-port N          STAMP port (default 862; 0 = off)\n"
	      "  --sockperf-port N     sockperf port (default 11111; 0 = off)\n"
	      "  --echo-port N         UDP echo port (default 7; 0 = off)\n"
	      "  --stateful            STAMP stateful mode: own sequence per "
	      "session\n"
	      "  --verify-l4-csum      drop UDP datagrams with a bad checksum\n"
	      "  -t, --duration T      stop after T (e.g. 30, 500ms; default: "
	      "until SIGINT)\n"
	      "  --port-id N           DPDK port to use (default 0)\n"
	      "  --json FILE           write the counters as JSON at exit ('-' "
	      "= stdout)\n"
	      "  --calibrate T         TSC calibration window (default 250ms)\n"
	      "  -q, --quiet           no live line on stderr\n"
	      "  --backend kernel      kernel UDP sockets instead of DPDK, "
	      "busy-polling\n"
	      "                        (STAMP, sockperf, UDP echo; no EAL "
	      "options)\n"
	      "  --busy-poll-us N      kernel backend: SO_BUSY_POLL on the "
	      "sockets\n"
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
	      "  latprobe reflect -l 0 --vdev net_memif0,role=server -- \\\n"
	      "          --addr 198.18.0.2/24 --stateful -t 60 --json "
	      "refl.json\n",
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
		{"addr", required_argument, NULL, 'a'},
		{"udp-port", required_argument, NULL, 'U'},
		{"sockperf-port", required_argument, NULL, 'S'},
		{"echo-port", required_argument, NULL, 'E'},
		{"stateful", no_argument, NULL, 's'},
		{"verify-l4-csum", no_argument, NULL, 'V'},
		{"duration", required_argument, NULL, 't'},
		{"port-id", required_argument, NULL, 'P'},
		{"json", required_argument, NULL, 'j'},
		{"calibrate", required_argument, NULL, 'C'},
		{"quiet", no_argument, NULL, 'q'},
		{"backend", required_argument, NULL, 'B'},
		{"busy-poll-us", required_argument, NULL, 'Y'},
		{"auth-key", required_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c, r;

	memset(o, 0, sizeof(*o));
	o->stamp_port = STAMP_PORT;
	o->sockperf_port = SOCKPERF_PORT;
	o->echo_port = 7;
	o->calib_ns = 250000000ull;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:q", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (cli_parse_ipv4_prefix(optarg, &o->addr,
						  &o->prefix) != 0) {
				app_err("--addr wants A.B.C.D/LEN, not '%s'",
					optarg);
				return -1;
			}
			o->have_addr = true;
			break;
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
			o->verify_l4 = true;
			break;
		case 't':
			if (cli_parse_duration_ns(optarg, &o->duration_ns) !=
				    0 ||
			    o->duration_ns == 0) {
				app_err("-t wants a duration such as 30, 1.5s "
					"or 500ms, not '%s'",
					optarg);
				return -1;
			}
			break;
		case 'P':
			if (cli_parse_u64(optarg, 0, RTE_MAX_ETHPORTS - 1,
					  &v)) {
				app_err("--port-id wants a port number, not "
					"'%s'",
					optarg);
				return -1;
			}
			o->port_id = (uint16_t)v;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'C':
			if (cli_parse_duration_ns(optarg, &o->calib_ns) != 0 ||
			    o->calib_ns < 10000000ull) {
				app_err("--calibrate wants at least 10ms, not "
					"'%s'",
					optarg);
				return -1;
			}
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'B':
			if (strcmp(optarg, "kernel") == 0)
				o->kernel = true;
			else if (strcmp(optarg, "dpdk") != 0) {
				app_err("--backend wants dpdk or kernel, not "
					"'%s'",
					optarg);
				return -1;
			}
			break;
		case 'Y':
			if (cli_parse_u64(optarg, 0, 1000000, &v)) {
				app_err("--busy-poll-us wants microseconds, "
					"not '%s'",
					optarg);
				return -1;
			}
			o->busy_poll_us = (int)v;
			break;
		case 'K':
			r = stamp_auth_key_load(optarg, o->auth_key,
						&o->auth_key_len);
			if (r != 0) {
				app_err("--auth-key %s: %s", optarg,
					stamp_auth_key_error(r));
				return -1;
			}
			break;
		case 'H':
			reflect_usage(stdout);
			exit(EXIT_OK);
		default:
			app_err("unknown or incomplete option '%s' (try "
				"'latprobe reflect --help')",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		app_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!o->have_addr) {
		app_err("--addr A.B.C.D/LEN is required (the address to answer "
			"for)");
		return -1;
	}
	return 0;
}

struct reflect_run {
	struct reflector_worker w[RTE_MAX_LCORE];
	unsigned n_workers;
	unsigned lcore_worker[RTE_MAX_LCORE];
};

static int
reflect_lcore(void *arg)
{
	struct reflect_run *r = arg;
	unsigned idx = r->lcore_worker[rte_lcore_id()];

	reflector_run(&r->w[idx], &force_quit);
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

struct reflect_json_arg {
	const struct report_reflect *rep;
};

static int
write_reflect_json(const void *arg, FILE *f)
{
	return report_reflect_json(arg, f);
}

/* The main lcore's watcher: live line each second, duration limit. */
struct watcher {
	struct reflect_run *run;
	uint64_t duration_ns;
	bool quiet;
	struct app_tick tick;
	pthread_t tid;
};

static void *
watch(void *arg)
{
	struct watcher *wt = arg;
	uint64_t last_rx = 0, last_tx = 0, last_drop = 0;
	double next = 1.0, end = (double)wt->duration_ns / 1e9;

	/* Wake once a second (and at -t's end), not in a polling loop: this
	 * thread shares the CPUs of the busy-polling lcores. */
	while (!force_quit) {
		double el,
			wake = wt->duration_ns != 0 && end < next ? end : next;

		if (!app_tick_sleep_until(&wt->tick, wake))
			break;
		el = app_tick_elapsed(&wt->tick);
		if (wt->duration_ns != 0 && el >= end)
			force_quit = true;
		if (el < next)
			continue;
		while (next <= el)
			next += 1.0;
		if (!wt->quiet) {
			uint64_t rx = sum_counter(wt->run, RC_RX);
			uint64_t tx = sum_counter(wt->run, RC_TX);
			/* Everything received and not answered. */
			uint64_t drop = rx - sum_counter(wt->run, RC_ARP) -
					sum_counter(wt->run, RC_ICMP) -
					sum_counter(wt->run, RC_STAMP) -
					sum_counter(wt->run, RC_SOCKPERF) -
					sum_counter(wt->run, RC_ECHO);

			fprintf(stderr,
				"%7.1fs  rx %llu tx %llu not answered %llu\n",
				el, (unsigned long long)(rx - last_rx),
				(unsigned long long)(tx - last_tx),
				(unsigned long long)(drop - last_drop));
			last_rx = rx;
			last_tx = tx;
			last_drop = drop;
		}
	}
	return NULL;
}

struct reflect_ctx {
	struct reflect_opts o;
	struct app_clock clk;
	struct reflector_conf conf;
	struct reflect_run *run;
	unsigned nw;
	struct app_dpdk dpdk;
	struct port port;
	struct sockio *sock;
	char addr_str[24];
};

static void
conf_common(struct reflect_ctx *x)
{
	const struct reflect_opts *o = &x->o;
	struct reflector_conf *c = &x->conf;
	char abuf[16];

	c->addr = o->addr;
	c->stamp_port = o->stamp_port;
	c->sockperf_port = o->sockperf_port;
	c->echo_port = o->echo_port;
	c->stateful = o->stateful;
	c->verify_l4_csum = o->verify_l4;
	c->auth_key = o->auth_key;
	c->auth_key_len = o->auth_key_len;
	c->clock = x->clk.clock;
	c->anchor = x->clk.anchor;
	/* Not synchronised to UTC; NTP format; ~1 us: 1 * 2^(12-32) s. */
	c->error_estimate = (uint16_t)(12u << 8 | 1u);
	cli_format_ipv4(o->addr, abuf);
	snprintf(x->addr_str, sizeof(x->addr_str), "%s/%u", abuf, o->prefix);
}

static int
setup_dpdk(struct reflect_ctx *x, const struct app_args *a)
{
	int ret = app_dpdk_open(&x->dpdk, &x->port, a, x->o.port_id,
				x->o.calib_ns, &x->clk);

	if (ret != EXIT_OK)
		return ret;
	x->nw = x->dpdk.n_lcores;
	conf_common(x);
	memcpy(x->conf.mac.b, x->port.mac.addr_bytes, 6);
	/* Probes larger than the MTU (-l 8k) arrive as fragments. */
	x->conf.n_reasm = 4;
	x->conf.reasm_timeout_cycles = x->clk.clock.hz; /* 1 s */
	return EXIT_OK;
}

/* Kernel UDP sockets on the three ports; one worker, this thread. */
static int
setup_kernel(struct reflect_ctx *x)
{
	const struct reflect_opts *o = &x->o;
	const uint16_t ports[] = {o->stamp_port, o->sockperf_port,
				  o->echo_port};
	/* The engine checks frames are for its MAC; sockio makes them so. */
	static const struct codec_mac mac = {{0x02, 0, 0, 0, 0, 0x01}};
	struct sockio_opts so;
	int ret;

	ret = app_clock_setup(&x->clk, o->calib_ns, 0);
	if (ret != EXIT_OK)
		return ret;
	x->nw = 1;
	sockio_opts_default(&so);
	so.so_busy_poll_us = o->busy_poll_us;
	x->sock = sockio_open_reflector(o->addr, ports, 3, &mac, &so);
	if (x->sock == NULL) {
		app_err("kernel UDP sockets on %s ports %u/%u/%u: %s "
			"(ports below 1024 need root; 0 turns one off)",
			x->addr_str[0] ? x->addr_str : "--addr", ports[0],
			ports[1], ports[2], strerror(errno));
		return errno == EINVAL ? EXIT_USAGE : EXIT_SETUP;
	}
	conf_common(x);
	x->conf.mac = mac;
	/* The kernel reassembles; the engine sees whole datagrams. */
	x->conf.n_reasm = 0;
	return EXIT_OK;
}

static int
report(struct reflect_ctx *x, double duration_s)
{
	const struct reflect_opts *o = &x->o;
	struct reflect_run *run = x->run;
	struct report_counter counters[RC__COUNT];
	struct histogram *turn = histogram_create();
	struct report_reflect rep;
	int ret = EXIT_OK;

	if (turn == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	for (unsigned k = 0; k < RC__COUNT; k++) {
		counters[k].name = reflector_counter_name(k);
		counters[k].value = sum_counter(run, k);
	}
	for (unsigned k = 0; k < run->n_workers; k++)
		histogram_merge(turn, &run->w[k].turnaround);
	memset(&rep, 0, sizeof(rep));
	rep.backend = x->sock ? "kernel" : "dpdk";
	rep.addr = x->addr_str;
	rep.duration_s = duration_s;
	rep.interrupted = o->duration_ns == 0 ||
			  duration_s * 1e9 < (double)o->duration_ns;
	rep.counters = counters;
	rep.n_counters = RC__COUNT;
	rep.turnaround = turn;
	app_clock_report(&x->clk, &rep.tsc);
	/* With --json -, stdout carries the JSON alone. */
	if (report_reflect_text(&rep,
				o->json != NULL && strcmp(o->json, "-") == 0
					? stderr
					: stdout) != 0)
		ret = EXIT_RUNTIME;
	fflush(stdout);
	if (o->json != NULL &&
	    app_write_file(o->json, write_reflect_json, &rep) != EXIT_OK)
		ret = EXIT_RUNTIME;
	histogram_destroy(turn);
	return ret;
}

static void
teardown(struct reflect_ctx *x)
{
	if (x->run != NULL) {
		for (unsigned i = 0; i < x->run->n_workers; i++)
			reflector_worker_fini(&x->run->w[i]);
		free(x->run);
	}
	if (x->sock != NULL)
		sockio_close(x->sock);
	app_dpdk_close(&x->dpdk);
}

int
cmd_reflect(int argc, char **argv)
{
	struct app_args a;
	int ret;
	struct reflect_ctx *x;
	struct watcher wt;
	struct timespec t0, t1;
	unsigned lcore, i;

	ret = app_args_split(argc, argv, reflect_usage, true, &a);
	if (ret != EXIT_OK)
		return ret < 0 ? EXIT_OK : ret;
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto free_args;
	}
	if (reflect_parse(a.app_argc, a.app_argv, &x->o) != 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (x->o.kernel && (ret = app_args_no_eal(&a)) != EXIT_OK)
		goto out;
	app_signals_install();
	x->run = calloc(1, sizeof(*x->run));
	if (x->run == NULL) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = x->o.kernel ? setup_kernel(x) : setup_dpdk(x, &a);
	if (ret != EXIT_OK)
		goto out;
	for (i = 0; i < x->nw; i++) {
		struct io_queue *q =
			x->sock ? sockio_queue(x->sock) : &x->port.q[i];

		if (reflector_worker_init(&x->run->w[i], &x->conf, q) != 0) {
			app_err("out of memory (session table, reassembly)");
			ret = EXIT_RUNTIME;
			goto out;
		}
		x->run->n_workers = i + 1;
	}
	if (x->dpdk.eal) {
		i = 0;
		RTE_LCORE_FOREACH (lcore)
			x->run->lcore_worker[lcore] = i++;
	}
	fprintf(stderr,
		"latprobe reflect: %s on %s %u (%s, %s), %u lcore(s); stamp %u "
		"sockperf %u echo %u%s%s\n",
		x->addr_str, x->sock ? "backend" : "port", x->o.port_id,
		x->sock ? "kernel" : x->port.name,
		x->sock ? "UDP sockets" : x->port.driver, x->run->n_workers,
		x->o.stamp_port, x->o.sockperf_port, x->o.echo_port,
		x->o.stateful ? " (stateful)" : "",
		x->o.auth_key_len != 0 ? " (authenticated)" : "");

	memset(&wt, 0, sizeof(wt));
	wt.run = x->run;
	wt.duration_ns = x->o.duration_ns;
	wt.quiet = x->o.quiet;
	app_tick_init(&wt.tick);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&wt.tid, NULL, watch, &wt) != 0) {
		app_err("cannot start the watcher thread");
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (x->dpdk.eal) {
		rte_eal_mp_remote_launch(reflect_lcore, x->run, CALL_MAIN);
		rte_eal_mp_wait_lcore();
	} else {
		reflector_run(&x->run->w[0], &force_quit);
	}
	force_quit = true;
	app_tick_stop(&wt.tick);
	pthread_join(wt.tid, NULL);
	app_tick_fini(&wt.tick);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ret = report(x, (double)(t1.tv_sec - t0.tv_sec) +
				(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
out:
	teardown(x);
	free(x);
free_args:
	app_args_free(&a);
	return ret;
}
