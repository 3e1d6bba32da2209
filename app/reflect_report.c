/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe reflect's report: the start line, and at the end the reflector's
 * counters and per-worker figures mapped onto lib/report's text and JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/port.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "reflect.h"

static int
write_reflect_json(const void *arg, FILE *f)
{
	return report_reflect_json(arg, f);
}

void
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
		x->addr_str, x->sock ? "backend" : "port",
		x->sock ? x->o.co.port_id : r->port.id,
		x->sock ? "kernel" : r->port.name,
		x->sock ? "UDP sockets" : r->port.driver, with_mac,
		x->run->n_workers, x->o.stamp_port, x->o.sockperf_port,
		x->o.echo_port, x->o.stateful ? " (stateful)" : "",
		x->o.co.auth_key_len != 0 ? " (authenticated)" : "");
	if (x->conf.utc_feed != NULL) {
		char clk[256];

		app_oneway_describe(&x->ow, clk, sizeof(clk));
		fprintf(stderr, "latprobe reflect: STAMP %s\n", clk);
	}
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
	if (run->have_qs && !run->qs_lost &&
	    port_queue_stats_read(r->port.id, r->port.n_queues, &after) == 0) {
		per_queue = port_queue_stats_delta(&run->qs_before, &after, &d);
		port_queue_stats_add(&d, &run->qs_carry);
		/* Across a re-attach: the ports' frames together (one of
		 * them may have counted nothing per queue). */
		per_queue = per_queue || run->qs_carry.ipackets != 0;
	}
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

int
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
	struct report_reflect_stalls stalls;
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
		counters[k].value = reflect_sum_counter(run, k);
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
	if (x->ow.inited) { /* also when its thread did not start */
		app_oneway_clock(&x->ow, &x->clk_rep);
		rep.clock = &x->clk_rep;
	}
	rep.port.present = r->dpdk_ready;
	rep.port.delta = xs;
	rep.port.n_delta = n_xs;
	rep.port.path = r->path;
	rep.port.events = app_link_report(duration_s);
	rep.hw = o->co.hw_timestamps ? &hw : NULL;
	rep.workers = workers;
	rep.n_workers = run->n_workers;
	app_stalls_reflect_report(r, run->w, run->n_workers, &o->co, &stalls,
				  &rep.stalls);
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

void
reflect_port_swap(struct app_run *r, bool done)
{
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;
	struct port_queue_stats now, d;

	if (done && x->conf.hw_ts)
		for (unsigned i = 0; i < run->n_workers; i++)
			reflector_hw_rebase(&run->w[i]);
	if (done && x->sock == NULL)
		app_link_announce(r, &x->conf.mac, x->conf.addr, 0);
	if (!run->have_qs || run->qs_lost)
		return;
	if (port_queue_stats_read(r->port.id, r->port.n_queues, &now) != 0) {
		run->qs_lost = true; /* workers[].queue_* unknown: null */
		return;
	}
	if (!done) {
		/* The old port's last counts; the report reads them itself
		 * if no new port follows. */
		run->qs_last = now;
		return;
	}
	(void)port_queue_stats_delta(&run->qs_before, &run->qs_last, &d);
	port_queue_stats_add(&run->qs_carry, &d);
	run->qs_before = now;
}
