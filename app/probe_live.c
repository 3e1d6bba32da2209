/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe probe while it runs: the live line and warm-up progress, the dead
 * peer watch, --hlog's intervals, --interval-report's lines and the metrics
 * exposition (the prober's figures mapped onto metric names).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path_watch.h"
#include "probe.h"

/* The metrics thread reads the workers' targets and figures while SIGHUP
 * may give a retired worker's place to a new target: this keeps them
 * apart. */
pthread_mutex_t probe_mx_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t
sum_stat(const struct probe_run *run, size_t off)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < run->n_workers; i++)
		s += prober_stat_read(
			(const uint64_t *)((const char *)&run->w[i].st + off));
	return s + *(const uint64_t *)((const char *)&run->gone.st + off);
}

#define SUM_STAT(run, f) sum_stat(run, offsetof(struct prober_stats, f))

/* Series s of --hlog: rtt, then network_rtt and turnaround when the proto
 * has them, then (open loop) intended. */
static const struct histogram *
probe_hlog_get(void *ctx, unsigned s, unsigned w)
{
	const struct probe_ctx *x = ctx;
	const struct prober_worker *pw = &x->run->w[w];

	/* STAMP: forward and reverse come last (after intended). */
	if (x->o.proto->has_remote_ts && s >= 3 + (x->o.rate_pps != 0))
		return s == 3 + (x->o.rate_pps != 0) ? &pw->forward
						     : &pw->reverse;
	if (s != 0 && !x->o.proto->has_remote_ts)
		s += 2;
	return s == 0	? &pw->rtt
	       : s == 1 ? &pw->network_rtt
	       : s == 2 ? &pw->turnaround
			: &pw->intended;
}

/* --hlog: Tag=rtt (and network_rtt, turnaround, forward, reverse when the
 * proto has them; intended with --rate). */
void
probe_interval(struct app_run *r, double el, bool final)
{
	static const char *const tags[] = {"rtt", "network_rtt", "turnaround",
					   "forward", "reverse"};
	static const char *const tags_ro[] = {"rtt",	    "network_rtt",
					      "turnaround", "intended",
					      "forward",    "reverse"};
	static const char *const tags_open[] = {"rtt", "intended"};
	struct probe_ctx *x = r->ctx;
	bool remote = x->o.proto->has_remote_ts, open = x->o.rate_pps != 0;

	(void) final;
	/* STAMP: one-way forward and reverse too. */
	if (x->hlog.n_workers == 0)
		app_hlog_series(&x->hlog, (remote ? 5u : 1u) + (open ? 1u : 0u),
				remote && open ? tags_ro
				: remote       ? tags
					       : tags_open,
				x->run->n_workers);
	app_hlog_tick(&x->hlog, el, probe_hlog_get, x);
}

/* Live line each second; during warm-up, its progress. */
void
probe_tick(struct app_run *r, double el)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;
	struct live *lv = &x->live;
	uint64_t sent, recv, lost, warm;
	char line[256];

	if (lv->oom)
		return;
	if (lv->prev == NULL) {
		/* Room for workers SIGHUP may add later. */
		lv->prev = calloc(PROBE_MAX_WORKERS + 1, sizeof(*lv->prev));
		lv->snap = histogram_create();
		lv->iv = histogram_create();
		lv->sum = histogram_create();
		if (lv->prev == NULL || lv->snap == NULL || lv->iv == NULL ||
		    lv->sum == NULL) {
			lv->oom = true;
			return;
		}
		for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++)
			histogram_init(&lv->prev[i]);
		if (x->o.rate_pps != 0) {
			lv->iprev = calloc(PROBE_MAX_WORKERS + 1,
					   sizeof(*lv->iprev));
			lv->isum = histogram_create();
			if (lv->iprev == NULL || lv->isum == NULL) {
				lv->oom = true;
				return;
			}
			for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++)
				histogram_init(&lv->iprev[i]);
		}
	}
	sent = SUM_STAT(run, sent);
	warm = SUM_STAT(run, warmup);
	if (sent == 0 && x->o.warmup != 0 && warm < x->o.warmup) {
		fprintf(stderr, "%7.1fs  warm-up %llu/%llu\n", el,
			(unsigned long long)warm,
			(unsigned long long)x->o.warmup);
		return;
	}
	histogram_init(lv->sum);
	for (unsigned i = 0; i < run->n_workers; i++) {
		histogram_take_interval(lv->sum, &run->w[i].rtt, &lv->prev[i],
					lv->snap, lv->iv);
	}
	recv = SUM_STAT(run, received);
	lost = SUM_STAT(run, lost);
	report_live_line(line, sizeof(line), el, sent - lv->sent,
			 recv - lv->recv, lost - lv->lost, lv->sum);
	if (lv->isum != NULL) {
		/* Open loop: the intended latency's p99 that second too. */
		char p99[16] = "-";
		size_t len = strlen(line);

		histogram_init(lv->isum);
		for (unsigned i = 0; i < run->n_workers; i++) {
			histogram_take_interval(lv->isum, &run->w[i].intended,
						&lv->iprev[i], lv->snap,
						lv->iv);
		}
		/* "-" too when the second has too few for a p99. */
		if (report_pct_enough(histogram_count(lv->isum), 99.0))
			report_fmt_ns(histogram_percentile(lv->isum, 99.0), p99,
				      sizeof(p99));
		snprintf(line + len, sizeof(line) - len, "  intended p99 %s",
			 p99);
	}
	app_link_live_mark(line + strlen(line), sizeof(line) - strlen(line));
	fprintf(stderr, "%s\n", line);
	lv->sent = sent;
	lv->recv = recv;
	lv->lost = lost;
}

/*
 * A dead peer: the first 10 probes (warm-up included) went unanswered. Say
 * so once, with the likeliest cause the counters point at; the run goes on.
 */
#define DEAD_PROBES 10

bool
probe_watch(struct app_run *r, double el)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;
	uint64_t done = SUM_STAT(run, warmup) + SUM_STAT(run, sent);
	uint64_t ignored = SUM_STAT(run, rx_ignored);
	uint64_t resets = SUM_STAT(run, resets);
	const char *why;

	(void)el;
	if (x->o.multi)
		return false; /* per target: the report's rows, the metrics */
	if (SUM_STAT(run, answered) != 0)
		return false; /* alive */
	if (done < DEAD_PROBES)
		return !app_quit();
	if (SUM_STAT(run, ignored[PROBER_IGN_TOO_SHORT]) != 0)
		why = "the reflector answers, but its answers are too short to "
		      "be used (too_short)";
	else if (ignored != 0)
		why = "frames come back but none answers our probes: the port "
		      "is closed or runs another protocol";
	else if (x->sock != NULL)
		why = "nothing comes back: no reflector on that port, or a "
		      "firewall";
	else if (x->o.have_peer_mac)
		why = "nothing comes back: wrong --peer-mac, no reflector "
		      "there, or a firewall";
	else
		why = "nothing comes back although ARP answered: no reflector "
		      "on that port, or a firewall";
	fprintf(stderr,
		"latprobe probe: no answer from %s:%u to the first %u probes "
		"(%llu frames ignored%s): %s; going on\n",
		x->ip, x->o.dport, DEAD_PROBES, (unsigned long long)ignored,
		resets ? ", RST seen" : "", why);
	return false;
}

/*
 * The series of --metrics: one per target with several targets (worker i
 * is target i), else one for all the workers of the one target.
 */
/* Workers published so far (SIGHUP adds some from the side thread). */
static unsigned
run_nw(const struct probe_run *run)
{
	return __atomic_load_n(&run->n_workers, __ATOMIC_ACQUIRE);
}

static unsigned
mx_n_series(const struct probe_ctx *x)
{
	return x->o.multi ? run_nw(x->run) : 1;
}

static bool
mx_in(const struct probe_ctx *x, unsigned series, unsigned worker)
{
	return !x->o.multi || series == worker;
}

/* A target SIGHUP removed: its series leaves the exposition. */
static bool
mx_retired(const struct probe_ctx *x, unsigned series)
{
	return x->o.multi &&
	       __atomic_load_n(&x->run->retired[series], __ATOMIC_RELAXED);
}

static const struct probe_target *
mx_target(const struct probe_ctx *x, unsigned series)
{
	return &x->o.tg[x->o.multi ? x->run->target[series] : 0];
}

static uint64_t
mx_stat(const struct probe_ctx *x, unsigned series, size_t off)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < run_nw(x->run); i++)
		if (mx_in(x, series, i))
			v += prober_stat_read(
				(const uint64_t *)((const char *)&x->run->w[i]
							   .st +
						   off));
	return v;
}

/* The series' histogram at off in struct prober_worker, in x->mx_sum. */
static void
mx_merge(struct probe_ctx *x, unsigned series, size_t off)
{
	struct probe_run *run = x->run;

	histogram_init(x->mx_sum);
	for (unsigned i = 0; i < run_nw(run); i++) {
		if (!mx_in(x, series, i))
			continue;
		histogram_snapshot(
			(const struct histogram *)((const char *)&run->w[i] +
						   off),
			x->mx_snap);
		histogram_merge(x->mx_sum, x->mx_snap);
	}
}

static void
mx_labels(const struct probe_ctx *x, unsigned series, struct metrics_label l[3])
{
	const struct probe_target *t = mx_target(x, series);

	l[0] = (struct metrics_label){"target", t->name};
	l[1] = (struct metrics_label){"proto", t->proto->name};
	l[2] = (struct metrics_label){"label", t->label};
}

static void
mx_counter(struct probe_ctx *x, struct metrics_buf *b, const char *name,
	   const char *help, size_t off)
{
	struct metrics_label l[3];

	metrics_family(b, name, "counter", help);
	for (unsigned s = 0; s < mx_n_series(x); s++) {
		if (mx_retired(x, s))
			continue;
		mx_labels(x, s, l);
		metrics_counter(b, name, l, 3, mx_stat(x, s, off));
	}
}

/* Where the interval lines go: stdout, unless it carries the JSON. */
static FILE *
iv_out(const struct probe_ctx *x)
{
	return x->o.co.json != NULL && strcmp(x->o.co.json, "-") == 0 ? stderr
								      : stdout;
}

/* An interval row's series from its merged histogram. */
static void
iv_stat_from(const struct histogram *h, struct report_iv_stat *st)
{
	struct report_summary sm;

	report_summarise(h, &sm);
	st->count = sm.count;
	st->p50 = sm.pct[0];
	st->p99 = sm.pct[2];
	st->max = sm.max;
}

/*
 * --interval-report, from the side thread (and once more from the main
 * thread after the workers stopped): each series' interval from relaxed
 * snapshots, one line each, and into a ring of PROBE_IV_KEEP intervals.
 */
void
probe_report_interval(struct app_run *r, double el, bool final)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;
	struct ivrep *v = x->ivr;
	unsigned nw = run->n_workers, ns = mx_n_series(x);
	struct report_iv_row *rows;
	struct report_interval *slot;
	char line[256];
	FILE *out = iv_out(x);
	struct timespec t_in, t_out;

	(void) final;
	clock_gettime(CLOCK_MONOTONIC, &t_in);
	if (v == NULL || v->oom)
		return;
	if (v->snap == NULL) {
		v->snap = histogram_create();
		v->iv = histogram_create();
		v->sum = histogram_create();
		if (v->snap == NULL || v->iv == NULL || v->sum == NULL) {
			v->oom = true;
			return;
		}
	}
	if (x->o.rate_pps != 0 && v->isum == NULL &&
	    (v->isum = histogram_create()) == NULL) {
		v->oom = true;
		return;
	}
	for (unsigned i = 0; i < nw; i++) {
		if (v->prev[i] == NULL &&
		    (v->prev[i] = histogram_create()) == NULL) {
			v->oom = true;
			return;
		}
		if (x->o.rate_pps != 0 && v->iprev[i] == NULL &&
		    (v->iprev[i] = histogram_create()) == NULL) {
			v->oom = true;
			return;
		}
	}
	rows = calloc(ns != 0 ? ns : 1, sizeof(*rows));
	if (rows == NULL)
		return; /* this interval is lost; the next one covers it */
	for (unsigned s = 0; s < ns; s++) {
		struct report_iv_row *row = &rows[s];

		histogram_init(v->sum);
		if (v->isum != NULL)
			histogram_init(v->isum);
		for (unsigned i = 0; i < nw; i++) {
			const struct prober_worker *w = &run->w[i];
			uint64_t sent, recv, lost;

			if (!mx_in(x, s, i))
				continue;
			histogram_take_interval(v->sum, &w->rtt, v->prev[i],
						v->snap, v->iv);
			if (v->isum != NULL)
				histogram_take_interval(v->isum, &w->intended,
							v->iprev[i], v->snap,
							v->iv);
			sent = prober_stat_read(&w->st.sent);
			recv = prober_stat_read(&w->st.received);
			lost = prober_stat_read(&w->st.lost);
			row->sent += sent - v->sent[i];
			row->received += recv - v->recv[i];
			row->lost += lost - v->lost[i];
			v->sent[i] = sent;
			v->recv[i] = recv;
			v->lost[i] = lost;
		}
		row->target = mx_target(x, s)->name;
		iv_stat_from(v->sum, &row->rtt);
		row->has_intended = v->isum != NULL;
		if (row->has_intended)
			iv_stat_from(v->isum, &row->intended);
	}
	/* The interval ends when its counts were read, not when this thread
	 * woke for it: a side thread held up (a failover, a busy CPU) would
	 * otherwise put answers after a re-attach into an interval that
	 * ends before it. */
	clock_gettime(CLOCK_MONOTONIC, &t_out);
	el += (double)(t_out.tv_sec - t_in.tv_sec) +
	      (double)(t_out.tv_nsec - t_in.tv_nsec) / 1e9;
	if (v->n == v->keep) {
		free((void *)v->ring[v->head].rows);
		v->head = (v->head + 1) % PROBE_IV_KEEP;
		v->n--;
		v->dropped++;
	}
	slot = &v->ring[(v->head + v->n) % PROBE_IV_KEEP];
	*slot = (struct report_interval){
		.t_s = el,
		.len_s = el - v->last_el,
		.rows = rows,
		.n_rows = ns,
		.one_target = !x->o.multi,
	};
	app_link_interval(slot);
	app_path_interval(slot, v->last_el, el);
	v->n++;
	v->last_el = el;
	for (unsigned s = 0; s < ns; s++) {
		report_iv_line(line, sizeof(line), slot, &rows[s]);
		fprintf(out, "%s\n", line);
	}
	fflush(out);
}

/*
 * --metrics, from the metrics thread: counters and histograms read relaxed
 * from the workers (single writer each; they only grow) and merged in this
 * thread's own scratch histograms. Warm-up probes are not in them.
 */
static int probe_metrics_locked(struct app_run *r, struct metrics_buf *b);

/*
 * One-way: the judgement of the run so far per series (as the report's
 * one_way: this host's clock over every read, every answer's Error
 * Estimate), a validity gauge and the bound (absent while unknown) beside
 * forward and reverse, which are exported only while valid: a histogram
 * of figures that mean nothing would be aggregated like any other.
 */
static void
probe_metrics_one_way(struct probe_ctx *x, struct metrics_buf *b)
{
	static const struct prober_worker *ws[PROBE_MAX_WORKERS];
	struct report_one_way ow;
	static bool valid[PROBE_MAX_WORKERS], known[PROBE_MAX_WORKERS];
	static uint64_t bound[PROBE_MAX_WORKERS]; /* under probe_mx_lock */
	struct metrics_label l[3];
	unsigned ns = mx_n_series(x);

	if (x->mx_fwd == NULL)
		x->mx_fwd = histogram_create();
	if (x->mx_rev == NULL)
		x->mx_rev = histogram_create();
	if (x->mx_fwd == NULL || x->mx_rev == NULL) {
		b->err = -ENOMEM;
		return;
	}
	metrics_family(b, "latprobe_one_way_valid", "gauge",
		       "1 while the one-way figures of the run so far are "
		       "valid (the report's one_way.valid), else 0");
	for (unsigned s = 0; s < ns && s < PROBE_MAX_WORKERS; s++) {
		unsigned n = 0;

		valid[s] = known[s] = false;
		if (!mx_target(x, s)->proto->has_remote_ts || mx_retired(x, s))
			continue;
		for (unsigned i = 0; i < run_nw(x->run); i++)
			if (mx_in(x, s, i))
				ws[n++] = &x->run->w[i];
		mx_merge(x, s, offsetof(struct prober_worker, forward));
		histogram_init(x->mx_fwd);
		histogram_merge(x->mx_fwd, x->mx_sum);
		mx_merge(x, s, offsetof(struct prober_worker, reverse));
		histogram_init(x->mx_rev);
		histogram_merge(x->mx_rev, x->mx_sum);
		app_oneway_live(&x->ow, ws, n, x->o.same_clock, x->mx_fwd,
				x->mx_rev, &ow);
		valid[s] = ow.valid;
		known[s] = ow.bound_known;
		bound[s] = ow.bound_ns;
		mx_labels(x, s, l);
		metrics_gauge(b, "latprobe_one_way_valid", l, 3,
			      valid[s] ? 1.0 : 0.0);
	}
	metrics_family(b, "latprobe_one_way_bound_seconds", "gauge",
		       "How far each one-way figure may be off either way: "
		       "the reflector's Error Estimate + this host's mapping "
		       "+ its sync error (the report's one_way.bound_ns); "
		       "absent while unknown");
	for (unsigned s = 0; s < ns && s < PROBE_MAX_WORKERS; s++) {
		if (!mx_target(x, s)->proto->has_remote_ts ||
		    mx_retired(x, s) || !known[s])
			continue;
		mx_labels(x, s, l);
		metrics_gauge(b, "latprobe_one_way_bound_seconds", l, 3,
			      (double)bound[s] / 1e9);
	}
	for (unsigned k = 0; k < 2; k++) {
		const char *name = k == 0 ? "latprobe_forward_seconds"
					  : "latprobe_reverse_seconds";

		metrics_family(b, name, "histogram",
			       k == 0 ? "One-way forward delay T2 - T1, only "
					"while latprobe_one_way_valid is 1 "
					"(+- latprobe_one_way_bound_seconds)"
				      : "One-way reverse delay T4 - T3, only "
					"while latprobe_one_way_valid is 1 "
					"(+- latprobe_one_way_bound_seconds)");
		for (unsigned s = 0; s < ns && s < PROBE_MAX_WORKERS; s++) {
			if (!mx_target(x, s)->proto->has_remote_ts ||
			    mx_retired(x, s) || !valid[s])
				continue;
			mx_labels(x, s, l);
			mx_merge(
				x, s,
				k == 0 ? offsetof(struct prober_worker, forward)
				       : offsetof(struct prober_worker,
						  reverse));
			metrics_histogram(b, name, l, 3, x->mx_sum);
		}
	}
}

int
probe_metrics(struct app_run *r, struct metrics_buf *b)
{
	int ret;

	pthread_mutex_lock(&probe_mx_lock);
	ret = probe_metrics_locked(r, b);
	pthread_mutex_unlock(&probe_mx_lock);
	return ret;
}

static int
probe_metrics_locked(struct app_run *r, struct metrics_buf *b)
{
	struct probe_ctx *x = r->ctx;
	struct metrics_label l[3];
	bool any_net = false;

	if (x->mx_snap == NULL) {
		x->mx_snap = histogram_create();
		x->mx_sum = histogram_create();
		if (x->mx_snap == NULL || x->mx_sum == NULL)
			return -ENOMEM;
	}
	app_metrics_preamble(b, "probe", r->dpdk_ready, r->clk.clock.hz);
	app_link_metrics(b); /* Link state, port events */
	app_path_metrics(b); /* and the path the packets take */
	mx_counter(x, b, "latprobe_probes_sent_total",
		   "Probes sent whose fate is known (answered or lost)",
		   offsetof(struct prober_stats, sent));
	mx_counter(x, b, "latprobe_probes_received_total", "Probes answered",
		   offsetof(struct prober_stats, received));
	mx_counter(x, b, "latprobe_probes_lost_total",
		   "Probes not answered within --timeout",
		   offsetof(struct prober_stats, lost));
	/* The link's part of lost, apart from the path's. */
	mx_counter(x, b, "latprobe_probes_lost_link_down_total",
		   "Lost probes whose flight saw the port's link down (part "
		   "of latprobe_probes_lost_total, not the path's loss)",
		   offsetof(struct prober_stats, lost_link_down));
	mx_counter(x, b, "latprobe_probes_nombuf_total",
		   "Probe sends that found no free mbuf (tried again)",
		   offsetof(struct prober_stats, nombuf));
	mx_counter(x, b, "latprobe_probes_l4_partial_total",
		   "Answers with a partial L4 checksum or the NIC's "
		   "no-verdict, taken as right",
		   offsetof(struct prober_stats, l4_partial));
	metrics_family(b, "latprobe_rtt_seconds", "histogram",
		       "Round-trip time T4 - T1 (TSC, same lcore)");
	for (unsigned s = 0; s < mx_n_series(x); s++) {
		if (mx_retired(x, s))
			continue;
		mx_labels(x, s, l);
		mx_merge(x, s, offsetof(struct prober_worker, rtt));
		metrics_histogram(b, "latprobe_rtt_seconds", l, 3, x->mx_sum);
		any_net = any_net || mx_target(x, s)->proto->has_remote_ts;
	}
	app_stalls_metrics_probe(
		b, x->run->w,
		__atomic_load_n(&x->run->n_workers, __ATOMIC_ACQUIRE),
		x->run->gone_rows != 0 ? &x->run->gone : NULL);
	if (!any_net)
		return b->err;
	metrics_family(b, "latprobe_network_rtt_seconds", "histogram",
		       "Network round-trip time (T4 - T1) - (T3 - T2): the "
		       "reflector's turnaround taken out");
	for (unsigned s = 0; s < mx_n_series(x); s++) {
		if (!mx_target(x, s)->proto->has_remote_ts || mx_retired(x, s))
			continue;
		mx_labels(x, s, l);
		mx_merge(x, s, offsetof(struct prober_worker, network_rtt));
		metrics_histogram(b, "latprobe_network_rtt_seconds", l, 3,
				  x->mx_sum);
	}
	probe_metrics_one_way(x, b);
	return b->err;
}

/* ---- Latency by path ---------------------------------------------- */

/* Every worker's RTT (and the retired targets') merged into out. */
static void
paths_merged(const struct probe_run *run, struct histogram *out,
	     struct histogram *snap)
{
	histogram_init(out);
	for (unsigned i = 0; i <= run->n_workers; i++) {
		const struct prober_worker *w =
			i < run->n_workers ? &run->w[i] : &run->gone;

		if (w == &run->gone && run->gone_rows == 0)
			break;
		histogram_snapshot(&w->rtt, snap);
		histogram_merge(out, snap);
	}
}

static struct probe_paths *
paths_get(struct probe_ctx *x)
{
	struct probe_paths *p = x->paths;

	if (p != NULL)
		return p->base != NULL ? p : NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	x->paths = p;
	p->base = histogram_create();
	p->cur = histogram_create();
	p->iv = histogram_create();
	if (p->base == NULL || p->cur == NULL || p->iv == NULL) {
		histogram_destroy(p->base);
		histogram_destroy(p->cur);
		histogram_destroy(p->iv);
		p->base = NULL; /* out of memory: no intervals, said once */
		app_warn("no memory for the latency by path");
		return NULL;
	}
	histogram_init(p->base);
	return p;
}

/* Close the open interval at el: its path is what carried the packets. */
static void
paths_close(struct probe_ctx *x, struct probe_paths *p, double el,
	    const char *path)
{
	struct probe_run *run = x->run;
	struct report_path_interval *v;
	struct histogram *t;
	/* sent counts the probes whose fate is known, received + lost: from
	 * those two reads, so that an interval never shows an answer more
	 * than it sent (the workers count on between two reads). */
	uint64_t recv = SUM_STAT(run, received), lost = SUM_STAT(run, lost);
	uint64_t sent = recv + lost;

	/* iv is scratch for the snapshots, then the interval. */
	paths_merged(run, p->cur, p->iv);
	histogram_interval(p->iv, p->cur, p->base);
	if (p->n == PROBE_PATH_IVS) {
		p->dropped++;
	} else {
		v = &p->ivs[p->n++];
		*v = (struct report_path_interval){
			.from_s = p->from_s,
			.to_s = el,
			.path = path,
			.sent = sent - p->sent,
			.received = recv - p->recv,
			.lost = lost - p->lost,
		};
		if (histogram_count(p->iv) != 0) {
			v->min_ns = histogram_min(p->iv);
			v->p50_ns = histogram_percentile(p->iv, 50.0);
			v->p99_ns = histogram_percentile(p->iv, 99.0);
			v->max_ns = histogram_max(p->iv);
		} else {
			v->received = 0; /* answers of probes sent before */
		}
	}
	t = p->base;
	p->base = p->cur;
	p->cur = t;
	p->sent = sent;
	p->recv = recv;
	p->lost = lost;
	p->from_s = el;
}

void
probe_path_shift(struct app_run *r, double el, enum port_path_now to)
{
	struct probe_ctx *x = r->ctx;
	struct probe_paths *p = paths_get(x);

	if (p == NULL)
		return;
	/* The interval that ends here was on the path before this shift;
	 * SIGHUP's reload moves workers' rows meanwhile. */
	pthread_mutex_lock(&probe_mx_lock);
	paths_close(x, p, el,
		    port_path_now_name(to == PORT_PATH_NOW_VF
					       ? PORT_PATH_NOW_SYNTHETIC
					       : PORT_PATH_NOW_VF));
	pthread_mutex_unlock(&probe_mx_lock);
}

void
probe_path_intervals(struct app_run *r, double duration_s,
		     struct report_port_path *p)
{
	struct probe_ctx *x = r->ctx;
	struct probe_paths *pp;

	if (!p->timeline || (pp = paths_get(x)) == NULL)
		return;
	paths_close(x, pp, duration_s, app_path_now());
	p->intervals = pp->ivs;
	p->n_intervals = pp->n;
}
