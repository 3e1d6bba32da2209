/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe reflect's set-up: the output files, the reflector's configuration,
 * the DPDK or kernel backend (the kernel's sockets on the three ports), the
 * workers, and the teardown that undoes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/port.h"
#include "preflight.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "reflect.h"

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
	c->stall_threshold_ns = o->co.stall_threshold_ns;
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

int
reflect_open_outputs(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	int ret = app_out_open(&x->json, "--json", x->o.co.json);

	if (ret == EXIT_OK)
		ret = app_hlog_open(&x->hlog, x->o.co.hlog);
	return ret;
}

int
reflect_setup_dpdk(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	conf_common(r);
	memcpy(x->conf.mac.b, r->port.mac.addr_bytes, 6);
	return EXIT_OK;
}

/* Kernel UDP sockets on the three ports; one worker, this thread. */
int
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

int
reflect_init_workers(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	x->run = calloc(1, sizeof(*x->run));
	if (x->run == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	/* One-way delays: T2/T3 on a re-sampled UTC mapping, our measured
	 * error in the Error Estimate (app/oneway.c). */
	if (x->o.stamp_port != 0 &&
	    app_oneway_start(&x->ow, &r->clk, r->dpdk_ready) == 0) {
		x->conf.utc_feed = &x->ow.feed;
	} else if (x->o.stamp_port != 0) {
		/* The start's mapping drifts unmeasured from here: no figure
		 * we could send would be a bound. */
		x->conf.error_estimate = app_oneway_unknown_ee();
		app_warn("cannot start the clock thread: STAMP answers carry "
			 "the start's clock mapping and an Error Estimate "
			 "that says the error is unknown (the largest, S "
			 "clear): probers get no one-way bound");
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

void
reflect_teardown(struct app_run *r)
{
	struct reflect_ctx *x = r->ctx;

	app_oneway_stop(&x->ow);
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
