/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe probe's report: the start line, and at the end the prober's
 * figures mapped onto the report's (lib/report) for text, JSON and the
 * --samples CSV.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/port.h"
#include "latprobe/stamp.h"
#include "probe.h"

/* The STAMP reflector's Error Estimate: the last one of the worker that had
 * the most answers, answers and changes summed over the workers. */
void
probe_reflector_ee(const struct probe_run *run, struct report_error_estimate *e)
{
	const struct prober_stats *best = NULL;
	struct stamp_error_estimate d;

	memset(e, 0, sizeof(*e));
	for (unsigned i = 0; i < run->n_workers; i++) {
		const struct prober_stats *st = &run->w[i].st;

		e->answers += st->reflector_ee_answers;
		e->changes += st->reflector_ee_changes;
		if (st->reflector_ee_answers != 0 &&
		    (best == NULL ||
		     st->reflector_ee_answers > best->reflector_ee_answers))
			best = st;
	}
	if (best == NULL)
		return;
	e->present = true;
	e->raw = (uint16_t)best->reflector_ee;
	stamp_ee_decode(e->raw, &d);
	e->sync = d.sync;
	e->ptp = d.ptp;
	e->scale = d.scale;
	e->multiplier = d.multiplier;
	e->seconds = stamp_ee_to_ns(&d) / 1e9;
}

static int
write_probe_json(const void *arg, FILE *f)
{
	return report_probe_json(arg, f);
}

/* The prober's counters under the report's names (JSON keys). */
static const enum report_ignored ignored_to_report[PROBER_IGN__COUNT] = {
	[PROBER_IGN_CHECKSUM] = REPORT_IGN_CHECKSUM,
	[PROBER_IGN_TOO_SHORT] = REPORT_IGN_TOO_SHORT,
	[PROBER_IGN_OTHER_FLOW] = REPORT_IGN_OTHER_FLOW,
	[PROBER_IGN_NEVER_SENT] = REPORT_IGN_NEVER_SENT,
	[PROBER_IGN_LATE] = REPORT_IGN_LATE,
	[PROBER_IGN_DUPLICATE] = REPORT_IGN_DUPLICATE,
	[PROBER_IGN_NOT_IP] = REPORT_IGN_NOT_IP,
	[PROBER_IGN_ARP] = REPORT_IGN_ARP,
	[PROBER_IGN_UNREACHABLE] = REPORT_IGN_UNREACHABLE,
	[PROBER_IGN_AUTH] = REPORT_IGN_AUTH,
};
_Static_assert((int)PROBER_IGN__COUNT == (int)REPORT_IGN__COUNT,
	       "every prober ignored reason has a report name");

static const enum report_unreach unreach_to_report[PROBER_UNREACH__COUNT] = {
	[PROBER_UNREACH_NET] = REPORT_UNREACH_NET,
	[PROBER_UNREACH_HOST] = REPORT_UNREACH_HOST,
	[PROBER_UNREACH_PORT] = REPORT_UNREACH_PORT,
	[PROBER_UNREACH_ADMIN] = REPORT_UNREACH_ADMIN,
	[PROBER_UNREACH_OTHER] = REPORT_UNREACH_OTHER,
};
_Static_assert((int)PROBER_UNREACH__COUNT == (int)REPORT_UNREACH__COUNT,
	       "every unreachable class has a report name");

static int
write_samples(const void *arg, FILE *f)
{
	const struct probe_run *r = arg;
	struct report_sample chunk[256];
	int ret = report_samples_header(f);

	for (unsigned i = 0; ret == 0 && i < r->n_workers; i++) {
		const struct prober_worker *w = &r->w[i];

		for (size_t k = 0; ret == 0 && k < w->n_samples;) {
			size_t n = 0;

			for (; n < RTE_DIM(chunk) && k < w->n_samples; n++, k++)
				chunk[n] = (struct report_sample){
					.seq = w->samples[k].seq,
					.lcore = w->samples[k].lcore,
					.t1_ns = w->samples[k].t1_ns,
					.rtt_ns = w->samples[k].rtt_ns,
					.network_rtt_ns =
						w->samples[k].network_rtt_ns,
					.has_one_way =
						w->samples[k].has_one_way,
					.forward_ns = w->samples[k].forward_ns,
					.reverse_ns = w->samples[k].reverse_ns,
				};
			ret = report_samples_write(f, chunk, n);
		}
	}
	return ret;
}

/* The source address of a flow as text. */
static void
flow_src_format(const struct codec_flow *fl, char *out /* CLI_IP_STRLEN */)
{
	struct codec_ip ip = fl->ip_version == 6 ? codec_ip_from_v6(fl->src6)
						 : codec_ip_from_v4(fl->src4);

	cli_format_ip(&ip, out);
}

/*
 * The start line's ", source port 40001" (", source ports 40001, 40002,
 * ..." with several workers: each one's first), and why when the kernel
 * backend had to move off --sport's default; "" for ICMP.
 */
static void
sports_format(const struct probe_ctx *x, char *out, size_t cap)
{
	const struct probe_run *run = x->run;
	unsigned n = run->n_workers, shown = n < 4 ? n : 4;
	size_t len;

	out[0] = '\0';
	if (n == 0 || (!x->o.multi && !x->o.proto->udp &&
		       x->o.proto != &probe_proto_tcp_syn))
		return;
	len = (size_t)snprintf(out, cap, ", source port%s", n > 1 ? "s" : "");
	for (unsigned i = 0; i < shown && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s %u",
					i != 0 ? "," : "",
					run->conf[i].flow.sport);
	if (n > shown && len < cap)
		len += (size_t)snprintf(out + len, cap - len, ", ... (%u)", n);
	if (x->o.co.kernel && !x->o.have_sport &&
	    run->conf[0].flow.sport != x->o.sport && len < cap)
		snprintf(out + len, cap - len,
			 " (%u was taken: the first free one)", x->o.sport);
}

void
probe_start_line(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	char mac[18], src[CLI_IP_STRLEN], sports[128];

	codec_mac_format(&x->peer, mac);
	flow_src_format(&x->conf.flow, src);
	sports_format(x, sports, sizeof(sports));
	if (x->o.multi) {
		fprintf(stderr,
			"latprobe probe: %s -> %u targets (%s first), %s, "
			"%u lcore(s), %s %s (%s)%s\n",
			src, x->run->n_workers,
			x->run->n_workers != 0 ? x->o.tg[x->run->target[0]].name
					       : "-",
			x->o.co.kernel ? "kernel routes" : "ARP per target",
			r->n_workers, x->o.co.kernel ? "backend" : "port",
			x->o.co.kernel ? "kernel" : r->port.name,
			x->o.co.kernel ? "UDP sockets" : r->port.driver,
			sports);
		return;
	}
	fprintf(stderr,
		"latprobe probe: %s -> %s%s%s:%u (%s), %s, %llu-byte "
		"probes, %u lcore(s), %s %s (%s)%s\n",
		src, x->o.target.family == 6 ? "[" : "", x->ip,
		x->o.target.family == 6 ? "]" : "", x->o.dport,
		x->o.co.kernel ? "kernel route" : mac, x->o.proto->name,
		(unsigned long long)x->o.size, r->n_workers,
		x->o.co.kernel ? "backend" : "port",
		x->o.co.kernel ? "kernel" : r->port.name,
		x->o.co.kernel ? "UDP socket" : r->port.driver, sports);
	if (x->conf.utc_feed != NULL) {
		char clk[256];

		app_oneway_describe(&x->ow, clk, sizeof(clk));
		fprintf(stderr, "latprobe probe: one-way: %s%s\n", clk,
			x->o.same_clock ? "; --same-clock" : "");
	}
}

/*
 * --flows: every worker's flows into *flows (rep->flows); --new-flow-every:
 * the first packets merged into *first (rep->first_packet) and a warning
 * when fresh ports ran out. EXIT_OK or EXIT_RUNTIME (said).
 */
static int
probe_report_flows(struct probe_ctx *x, struct report_probe *rep,
		   struct report_flow **flows, struct histogram **first)
{
	const struct probe_opts *o = &x->o;
	const struct probe_run *run = x->run;
	unsigned n = 0;

	if (o->flows != 0) {
		*flows = calloc((size_t)run->n_workers * o->flows,
				sizeof(**flows));
		if (*flows == NULL) {
			app_err("out of memory");
			return EXIT_RUNTIME;
		}
		for (unsigned i = 0; i < run->n_workers; i++) {
			const struct prober_worker *w = &run->w[i];

			for (unsigned j = 0; w->flows != NULL && j < o->flows;
			     j++) {
				const struct prober_flow *f = &w->flows[j];

				(*flows)[n++] = (struct report_flow){
					.flow = i * o->flows + j,
					.lcore = i,
					.sport = f->sport,
					.count = f->count,
					.lost = f->lost,
					.p50 = prober_flow_percentile(f, 50),
					.p99 = prober_flow_percentile(f, 99),
					.max = f->max,
				};
			}
		}
		rep->flows = *flows;
		rep->n_flows = n;
	}
	if (o->new_flow_every == 0)
		return EXIT_OK;
	*first = histogram_create();
	if (*first == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	for (unsigned i = 0; i < run->n_workers; i++) {
		const struct prober_worker *w = &run->w[i];

		if (w->first_rtt != NULL)
			histogram_merge(*first, w->first_rtt);
		rep->new_flows += w->st.new_flows;
		rep->fresh_reused += w->st.fresh_reused;
		rep->first_lost += w->st.first_lost;
		rep->fresh_ports += run->conf[i].n_sports;
	}
	rep->new_flow_every = o->new_flow_every;
	rep->first_packet = *first;
	if (rep->fresh_reused != 0)
		app_warn(
			"--new-flow-every %llu: the %llu fresh source ports "
			"ran out; %llu new flows reused the oldest port (their "
			"first packet may not be a flow's first)",
			(unsigned long long)o->new_flow_every,
			(unsigned long long)rep->fresh_ports,
			(unsigned long long)rep->fresh_reused);
	return EXIT_OK;
}

int
probe_report(struct app_run *r, double duration_s,
	     const struct report_counter *xs, unsigned n_xs)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run = x->run;
	struct histogram *rtt = histogram_create();
	struct histogram *net = histogram_create();
	struct histogram *turn = histogram_create();
	struct histogram *hw_rtt = histogram_create();
	struct histogram *hw_rxd = histogram_create();
	struct histogram *intended = histogram_create();
	struct histogram *behind = histogram_create();
	struct report_hw hw = {.rtt = hw_rtt, .rx_delay = hw_rxd};
	struct report_open open = {
		.rate_pps = o->rate_pps,
		.spacing = o->spacing == PROBER_SPACING_POISSON ? "poisson"
								: "constant",
		.seed = o->seed,
		.window_slots = o->window_slots,
		.bound_ns = o->max_behind_ns,
		.intended = intended,
		.behind = behind,
	};
	struct report_probe rep;
	struct report_port_path path;
	struct report_meta meta = {0};
	struct report_target *tgs = NULL;
	uint16_t sports[PROBE_MAX_WORKERS];
	struct report_interval *ivs = NULL;
	struct report_flow *flows = NULL;
	struct histogram *first = NULL;
	struct app_probe_stalls stalls = {0};
	char target[CLI_IP_STRLEN + 8], src[CLI_IP_STRLEN], iface[160];
	char csum_rx[32], csum_tx[32];
	bool remote_ts = o->proto->has_remote_ts;
	int ret = EXIT_OK, sret;

	if (rtt == NULL || net == NULL || turn == NULL || hw_rtt == NULL ||
	    hw_rxd == NULL || intended == NULL || behind == NULL) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	memset(&rep, 0, sizeof(rep));
	memset(&path, 0, sizeof(path));
	/* The workers, then the removed targets whose places were reused. */
	for (unsigned i = 0; i <= run->n_workers; i++) {
		const struct prober_worker *w =
			i < run->n_workers ? &run->w[i] : &run->gone;

		if (w == &run->gone && run->gone_rows == 0)
			break;
		histogram_merge(rtt, &w->rtt);
		histogram_merge(net, &w->network_rtt);
		histogram_merge(turn, &w->turnaround);
		histogram_merge(hw_rtt, &w->hw_rtt);
		histogram_merge(hw_rxd, &w->hw_rx_delay);
		histogram_merge(intended, &w->intended);
		histogram_merge(behind, &w->behind);
		open.late_sends += w->st.late_sends;
		if (w->st.behind_max_ns > open.behind_max_ns)
			open.behind_max_ns = w->st.behind_max_ns;
		app_hw_add(&hw, &w->hw, &w->nic, &r->clk.clock);
		rep.sent += w->st.sent;
		rep.received += w->st.received;
		rep.lost += w->st.lost;
		rep.duplicated += w->st.duplicated;
		rep.reordered += w->st.reordered;
		rep.timeouts += w->st.lost - w->st.lost_unreachable;
		rep.lost_link_down += w->st.lost_link_down;
		for (unsigned k = 0; k < PROBER_IGN__COUNT; k++)
			rep.ignored[ignored_to_report[k]] += w->st.ignored[k];
		for (unsigned k = 0; k < PROBER_UNREACH__COUNT; k++)
			rep.unreachable[unreach_to_report[k]] +=
				w->st.unreachable[k];
		rep.rx_ignored += w->st.rx_ignored;
		rep.warmup += w->st.warmup;
		rep.late += w->st.late;
		rep.resets += w->st.resets;
		rep.reasm_failed += w->st.reasm_failed;
		rep.auth_failed += w->st.auth_failed;
		rep.l4_partial += w->st.l4_partial;
		rep.nombuf += w->st.nombuf;
		if (w->st.tx_fail != 0)
			app_warn("lcore %u: %llu probes the tx queue did not "
				 "take (not counted as sent)",
				 w->lcore, (unsigned long long)w->st.tx_fail);
		if (w->samples_dropped)
			app_warn("lcore %u: %llu samples not kept (--samples "
				 "memory cap)",
				 w->lcore,
				 (unsigned long long)w->samples_dropped);
	}
	if (rep.sent == 0 && rep.warmup != 0 && o->co.duration_ns != 0 &&
	    !r->interrupted)
		app_warn("-t %.3gs ended during the warm-up (%llu probes of "
			 "-w %llu): nothing measured",
			 (double)o->co.duration_ns / 1e9,
			 (unsigned long long)rep.warmup,
			 (unsigned long long)o->warmup);
	snprintf(target, sizeof(target),
		 o->target.family == 6 ? "[%s]:%u" : "%s:%u", x->ip, o->dport);
	if (o->multi) {
		/* One row per target; the figures above merge them all. */
		tgs = calloc(run->n_workers + 1, sizeof(*tgs));
		if (tgs == NULL) {
			app_err("out of memory");
			ret = EXIT_RUNTIME;
			goto out;
		}
		remote_ts = run->n_workers != 0;
		for (unsigned i = 0; i < run->n_workers; i++) {
			const struct prober_worker *w = &run->w[i];
			const struct probe_target *t = &o->tg[run->target[i]];

			tgs[i] = (struct report_target){
				.target = t->name,
				.proto = t->proto->name,
				.label = t->label,
				.sent = w->st.sent,
				.received = w->st.received,
				.lost = w->st.lost,
				.rtt = &w->rtt,
				.network_rtt = t->proto->has_remote_ts
						       ? &w->network_rtt
						       : NULL,
				.removed = run->retired[i],
				.sport =
					t->proto->udp ||
							t->proto ==
								&probe_proto_tcp_syn
						? run->conf[i].flow.sport
						: 0,
			};
			remote_ts = remote_ts && t->proto->has_remote_ts;
		}
		rep.targets = tgs;
		rep.n_targets = run->n_workers;
		snprintf(target, sizeof(target), "%u targets", run->n_workers);
	}
	if (x->ivr != NULL && x->ivr->n != 0) {
		ivs = calloc(x->ivr->n, sizeof(*ivs));
		if (ivs == NULL) {
			app_err("out of memory");
			ret = EXIT_RUNTIME;
			goto out;
		}
		for (unsigned k = 0; k < x->ivr->n; k++)
			ivs[k] = x->ivr->ring[(x->ivr->head + k) %
					      PROBE_IV_KEEP];
		rep.intervals = ivs;
		rep.n_intervals = x->ivr->n;
	}
	if (x->ivr != NULL)
		rep.intervals_dropped = x->ivr->dropped;
	if (probe_report_flows(x, &rep, &flows, &first) != EXIT_OK) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	rep.proto = o->proto->name;
	rep.backend = x->o.co.kernel ? "kernel" : "dpdk";
	rep.target = target;
	rep.port_driver = x->o.co.kernel ? "udp-socket" : r->port.driver;
	for (unsigned i = 0;
	     i < run->n_workers &&
	     (o->multi || o->proto->udp || o->proto == &probe_proto_tcp_syn);
	     i++)
		sports[rep.n_sports++] = run->conf[i].flow.sport;
	rep.sports = sports;
	rep.size = (unsigned)o->size;
	rep.lcores = r->n_workers;
	rep.duration_s = duration_s;
	rep.interrupted = r->interrupted;
	rep.authenticated = o->co.auth_key_len != 0;
	rep.rtt = rtt;
	rep.network_rtt = remote_ts ? net : NULL;
	rep.turnaround = remote_ts ? turn : NULL;
	rep.buckets.n_buckets = o->n_edges ? 0 : o->n_buckets;
	rep.buckets.edges_ns = o->edges_ns;
	rep.buckets.n_edges = o->n_edges;
	rep.port.present = r->dpdk_ready;
	rep.port.delta = xs;
	rep.port.n_delta = n_xs;
	if (r->path != NULL) {
		/* The latency on each path the packets took. */
		path = *r->path;
		probe_path_intervals(r, duration_s, &path);
		rep.port.path = &path;
	}
	rep.port.events = app_link_report(duration_s);
	rep.hw = o->co.hw_timestamps ? &hw : NULL;
	if (rep.hw != NULL)
		app_hw_check(&hw);
	rep.interval_ns = o->interval_ns;
	rep.timeout_ns = o->timeout_ns;
	rep.open = o->rate_pps != 0 ? &open : NULL;
	for (unsigned i = 0; i < run->n_workers; i++)
		rep.interval_stretched += run->w[i].st.interval_stretched;
	rep.interval_stretched += run->gone.st.interval_stretched;
	probe_reflector_ee(run, &rep.reflector_ee);
	if (remote_ts && (x->ow_fwd = histogram_create()) != NULL &&
	    (x->ow_rev = histogram_create()) != NULL) {
		app_oneway_probe_report(&x->ow, run->w, run->n_workers,
					run->gone_rows != 0 ? &run->gone : NULL,
					o->same_clock, x->ow_fwd, x->ow_rev,
					&x->ow_rep);
		rep.one_way = &x->ow_rep;
	}
	sret = app_stalls_probe_report(r, run->w, run->n_workers,
				       run->gone_rows != 0 ? &run->gone : NULL,
				       run->target, &o->co, &stalls,
				       &rep.stalls);
	if (sret == -EINVAL) {
		/* The report goes on without the split: nothing else in it
		 * rests on it. */
		app_warn("the stall split does not add up (host-affected "
			 "probes not a part of the round trips): left out");
		rep.stalls = NULL;
	} else if (sret != 0) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (report_meta_init(&meta, r->start, "latprobe probe", r->argc,
			     r->argv) == 0)
		rep.meta = &meta;
	meta.dpdk_version = x->o.co.kernel ? NULL : rte_version();
	meta.nic_driver = rep.port_driver;
	meta.cores_used = rep.lcores;
	if (r->dpdk_ready && !x->o.co.kernel) {
		port_csum_names(&r->port.csum, 1, csum_rx, sizeof(csum_rx));
		port_csum_names(&r->port.csum, 0, csum_tx, sizeof(csum_tx));
		meta.csum_rx = csum_rx;
		meta.csum_tx = csum_tx;
	}
	flow_src_format(&x->conf.flow, src);
	meta.source = src;
	snprintf(iface, sizeof(iface), "%s (%s)",
		 x->o.co.kernel ? "kernel" : r->port.name,
		 x->o.co.kernel ? "UDP socket" : r->port.driver);
	meta.interface = iface;
	app_clock_report(&r->clk, &rep.tsc);
	rep.brief = !o->details;

	/* With --json -, stdout carries the JSON alone. */
	if (report_probe_text(&rep,
			      o->co.json != NULL && strcmp(o->co.json, "-") == 0
				      ? stderr
				      : stdout) != 0)
		ret = EXIT_RUNTIME;
	if (app_stdout_flush() != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_out_write(&x->json, write_probe_json, &rep) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_hlog_close(&x->hlog) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_out_write(&x->samples, write_samples, run) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (x->cap != NULL) {
		uint64_t dropped;
		int64_t n = capture_close(x->cap, &dropped);

		x->cap = NULL;
		if (n < 0) {
			app_err("--pcap %s: %s", o->pcap, strerror((int)-n));
			ret = EXIT_RUNTIME;
		} else if (dropped != 0) {
			app_warn("--pcap: %llu packets not captured (capture "
				 "pool empty)",
				 (unsigned long long)dropped);
		}
	}
	if (ret == EXIT_OK && rep.sent > 0 && rep.received == 0)
		ret = EXIT_ALL_LOST;
out:
	app_stalls_probe_fini(&stalls);
	free(tgs);
	free(ivs);
	free(flows);
	histogram_destroy(first);
	report_meta_fini(&meta);
	histogram_destroy(rtt);
	histogram_destroy(net);
	histogram_destroy(turn);
	histogram_destroy(hw_rtt);
	histogram_destroy(hw_rxd);
	histogram_destroy(intended);
	histogram_destroy(behind);
	return ret;
}
