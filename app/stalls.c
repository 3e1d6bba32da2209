/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stall detection's app side: options, the host's view of the
 * workers' CPUs over the run, the reports' stall sections, --metrics.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "app.h"
#include "run.h"
#include "stalls.h"
#include "latprobe/metrics.h"
#include "latprobe/stall.h"
#include "latprobe/stamp.h"

/* The STAMP payload that holds the base packet and the stall TLV. */
#define STALL_TLV_MIN_SIZE                                                     \
	(STAMP_BASE_LEN + STAMP_TLV_HDR_LEN + STAMP_TLV_LP_STALLS_LEN)

int
app_stalls_probe_check(struct app_common_opts *co,
		       const struct probe_proto *proto, bool *have_l,
		       uint64_t *size)
{
	if (!co->stall_tlv)
		return 0;
	if (proto != &probe_proto_stamp) {
		app_err("--stall-tlv applies to --proto stamp only");
		return -1;
	}
	if (co->auth_key_len != 0) {
		app_err("--stall-tlv: authenticated STAMP carries no TLVs");
		return -1;
	}
	if (co->stall_threshold_ns == 0) {
		app_err("--stall-tlv with --stall-threshold 0: nothing to "
			"attribute");
		return -1;
	}
	if (!*have_l) {
		/* As if given: every target takes it. */
		*size = STALL_TLV_MIN_SIZE;
		*have_l = true;
	} else if (*size < STALL_TLV_MIN_SIZE) {
		app_err("--stall-tlv: -l %llu is too small for the stall TLV "
			"(at least %u bytes)",
			(unsigned long long)*size, STALL_TLV_MIN_SIZE);
		return -1;
	}
	return 0;
}

/* The CPUs the workers run on: the lcores' (DPDK), else our affinity. */
static void
worker_cpus(struct app_run *r, struct host_cpus *cpus)
{
	cpu_set_t set;

	host_cpus_zero(cpus);
	CPU_ZERO(&set);
	if (r->dpdk_ready) {
		for (unsigned i = 0; i < r->n_workers; i++) {
			rte_cpuset_t c = rte_lcore_cpuset(r->worker_lcore[i]);

			CPU_OR(&set, &set, &c);
		}
	} else if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		return;
	}
	for (unsigned c = 0; c < HOST_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			host_cpus_set(cpus, c);
}

void
app_stalls_host_begin(struct app_run *r)
{
	struct app_stalls_host *h = &r->stalls_host;

	memset(h, 0, sizeof(*h));
	h->s = calloc(1, sizeof(*h->s));
	if (h->s == NULL)
		return;
	worker_cpus(r, &h->cpus);
	h->s->self_pid = (int)getpid();
	h->s->err_before = host_stat_read("/", &h->s->before);
	if (host_tasks_scan("/", &h->cpus, h->s) == 0)
		h->s->n_scans++;
	h->on = true;
}

void
app_stalls_host_scan(struct app_run *r)
{
	struct app_stalls_host *h = &r->stalls_host;

	if (h->on && host_tasks_scan("/", &h->cpus, h->s) == 0)
		h->s->n_scans++;
}

void
app_stalls_host_end(struct app_run *r)
{
	struct app_stalls_host *h = &r->stalls_host;

	if (!h->on)
		return;
	/* The last window: up to the workers' end (the side thread is
	 * joined). */
	app_stalls_host_sample(r);
	app_stalls_host_scan(r);
	h->s->err_after = host_stat_read("/", &h->s->after);
}

bool
app_stalls_host_sampling(struct app_run *r)
{
	struct app_stalls_host *h = &r->stalls_host;

	h->sampling = h->on && r->cmd->stall_dets != NULL;
	memset(&h->prev, 0, sizeof(h->prev));
	memset(&h->corr, 0, sizeof(h->corr));
	memset(h->carry_wait, 0, sizeof(h->carry_wait));
	memset(h->carry_off, 0, sizeof(h->carry_off));
	h->carry_at = 0;
	return h->sampling;
}

/* The counters now: the workers' stalls and threads, the CPUs'. */
static void
win_read(struct app_run *r, struct app_stalls_win *w)
{
	struct app_stalls_host *h = &r->stalls_host;
	const struct stall_det *d[RTE_MAX_LCORE];
	unsigned n = r->cmd->stall_dets(r, d, RTE_MAX_LCORE);
	struct host_stat st;

	struct timespec ts;

	memset(w, 0, sizeof(*w));
	w->have = true;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w->wall_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (unsigned i = 0; i < n; i++) {
		struct stall_stats ss;

		stall_stats_read(&d[i]->st, &ss);
		w->stalls += ss.count;
		w->stall_ns += ss.total_ns;
	}
	/* The threads the detectors run on (several targets' workers share
	 * one). */
	w->threads_ok = r->n_workers > 0;
	w->n_threads = r->n_workers;
	for (unsigned i = 0; i < r->n_workers; i++) {
		struct host_thread t;
		int tid = __atomic_load_n(&r->worker_tid[i], __ATOMIC_RELAXED);

		if (tid <= 0 ||
		    host_thread_read("/", h->s->self_pid, tid, &t) != 0) {
			w->threads_ok = false;
			continue;
		}
		w->run_ns += t.run_ns;
		w->wait_ns += t.wait_ns;
		w->voluntary += t.voluntary;
		w->involuntary += t.involuntary;
	}
	if (host_stat_read("/", &st) == 0) {
		w->steal_ok = true;
		for (unsigned c = 0; c < HOST_MAX_CPUS; c++)
			if (host_cpus_isset(&h->cpus, c) &&
			    host_cpus_isset(&st.present, c))
				w->steal_ticks += st.steal[c];
	}
	w->irqs_ok = host_irqs_read("/", &h->cpus, &w->irqs) == 0;
}

static uint64_t
delta(uint64_t now, uint64_t before)
{
	/* A detector restarted (calibration, warm-up's end) counts from 0. */
	return now >= before ? now - before : now;
}

static uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Up to *ns of the carried lost time in ring[] (taken out of it): what
 * was claimed. */
static uint64_t
carry_claim(uint64_t *ring, uint64_t *ns)
{
	uint64_t got = 0;

	for (unsigned i = 0; i < APP_STALLS_CARRY && *ns != 0; i++) {
		uint64_t t = min_u64(ring[i], *ns);

		ring[i] -= t;
		*ns -= t;
		got += t;
	}
	return got;
}

/* The unclaimed lost time still carried (at the report: hidden). */
static uint64_t
carry_left(const struct app_stalls_host *h)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < APP_STALLS_CARRY; i++)
		t += h->carry_wait[i] + h->carry_off[i];
	return t;
}

/* One window's stalls against what the host's counters say of it. */
static void
win_explain(struct app_stalls_host *h, const struct app_stalls_win *a,
	    const struct app_stalls_win *b)
{
	struct report_stall_corr *c = &h->corr;
	uint64_t left_wait = 0, left_off = 0;
	unsigned slot;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t n = delta(b->stalls, a->stalls);
	uint64_t ns = delta(b->stall_ns, a->stall_ns);
	uint64_t wait = 0, inv = 0, off = 0, vol = 0, steal = 0, irqs = 0, k;

	c->windows++;
	if (a->threads_ok && b->threads_ok) {
		/* Each thread's wall time, less what it ran and waited to run:
		 * stopped or asleep (a busy-polling worker never sleeps). */
		uint64_t wall = delta(b->wall_ns, a->wall_ns) * b->n_threads;
		uint64_t run = delta(b->run_ns, a->run_ns);

		wait = delta(b->wait_ns, a->wait_ns);
		inv = delta(b->involuntary, a->involuntary);
		vol = delta(b->voluntary, a->voluntary);
		/* Below 1 % of the window: the reads' own skew. */
		if (wall > run + wait && wall - run - wait > wall / 100)
			off = wall - run - wait;
	}
	if (a->steal_ok && b->steal_ok && hz > 0)
		steal = delta(b->steal_ticks, a->steal_ticks) *
			(1000000000ull / (uint64_t)hz);
	if (a->irqs_ok && b->irqs_ok)
		irqs = delta(b->irqs, a->irqs);
	c->wait_ns += wait;
	c->involuntary += inv;
	c->off_cpu_ns += off;
	c->voluntary += vol;
	c->irqs += irqs;
	/* Preemption: as many stalls as the thread was switched out (at
	 * least one when it waited), their time up to the wait. */
	if (wait != 0 || inv != 0) {
		uint64_t t = min_u64(ns, wait);

		k = min_u64(n, inv != 0 ? inv : 1);
		c->by_preemption += k;
		c->by_preemption_ns += t;
		n -= k;
		ns -= t;
		left_wait = wait - t;
	}
	if (off != 0) {
		uint64_t t = min_u64(ns, off);

		k = min_u64(n, vol != 0 ? vol : 1);
		c->by_off_cpu += k;
		c->by_off_cpu_ns += t;
		n -= k;
		ns -= t;
		left_off = off - t;
	}
	/* Stall time this window's counters do not cover began in the
	 * windows before: their unclaimed lost time is its. */
	if (ns != 0) {
		uint64_t t = carry_claim(h->carry_wait, &ns);

		c->by_preemption_ns += t;
		if (t != 0 && n != 0) {
			c->by_preemption++;
			n--;
		}
		t = carry_claim(h->carry_off, &ns);
		c->by_off_cpu_ns += t;
		if (t != 0 && n != 0) {
			c->by_off_cpu++;
			n--;
		}
	}
	/* This window's unclaimed lost time joins the ring; the oldest
	 * window's, unclaimed for APP_STALLS_CARRY windows, is hidden. */
	slot = h->carry_at;
	h->carry_at = (slot + 1) % APP_STALLS_CARRY;
	c->hidden_wait_ns += h->carry_wait[slot] + h->carry_off[slot];
	h->carry_wait[slot] = left_wait;
	h->carry_off[slot] = left_off;
	if (n != 0 && steal != 0) {
		uint64_t t = min_u64(ns, steal);

		k = n; /* a stolen window explains all of its rest */
		c->by_steal += k;
		c->by_steal_ns += t;
		n -= k;
		ns -= t;
	}
	if (n != 0 && irqs != 0) {
		k = min_u64(n, irqs);
		c->by_irq += k;
		n -= k;
	}
	c->unexplained += n;
	c->unexplained_ns += ns;
}

void
app_stalls_host_sample(struct app_run *r)
{
	struct app_stalls_host *h = &r->stalls_host;
	struct app_stalls_win now;

	if (!h->sampling)
		return;
	win_read(r, &now);
	if (h->prev.have)
		win_explain(h, &h->prev, &now);
	h->corr.have = h->corr.windows != 0;
	h->corr.threads_ok = now.threads_ok;
	h->corr.steal_ok = now.steal_ok;
	h->corr.irqs_ok = now.irqs_ok;
	h->prev = now;
}

void
app_stalls_host_free(struct app_run *r)
{
	free(r->stalls_host.s);
	r->stalls_host.s = NULL;
	r->stalls_host.on = false;
}

/* Steal time and other runnable tasks on the workers' CPUs into d. */
static void
side_host(const struct app_run *r, struct report_stall_side *d)
{
	const struct app_stalls_host *h = &r->stalls_host;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks = 0;

	if (!h->on || h->s->err_before != 0 || h->s->err_after != 0 || hz <= 0)
		return;
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++)
		if (host_cpus_isset(&h->cpus, c) &&
		    host_cpus_isset(&h->s->before.present, c) &&
		    h->s->after.steal[c] >= h->s->before.steal[c])
			ticks += h->s->after.steal[c] - h->s->before.steal[c];
	d->have_host = true;
	d->steal_ns = ticks * (1000000000ull / (uint64_t)hz);
	d->other_runnable = h->s->n_tasks + h->s->more_tasks;
	d->host_scans = h->s->n_scans;
	d->corr = h->corr;
	d->corr.hidden_wait_ns += carry_left(h);
}

/* The detector's calibration, loop gaps and PMD calls of d into side. */
static void
side_det(struct report_stall_side *side, const struct stall_det *d,
	 struct stall_call_stats *calls, uint64_t *gap_log2)
{
	const struct stall_calib *c = &d->calib;

	if (c->done) {
		uint64_t thr = tsc_to_ns(d->clock, c->thr_cycles);

		if (!side->have_calib || thr > side->threshold_ns)
			side->threshold_ns = thr;
		side->floor_ns = tsc_to_ns(d->clock, c->floor_cycles);
		side->calib_gaps += c->gaps;
		if (c->gaps >= STALL_CALIB_MIN_GAPS) {
			uint64_t p = tsc_to_ns(d->clock, c->p999_cycles);

			if (p > side->calib_p999_ns)
				side->calib_p999_ns = p;
		}
		side->have_calib = true;
		side->calib_mult = STALL_CALIB_MULT;
	}
	side->have_calls = true;
	side->path_calls = d->path_calls;
	for (unsigned k = 0; k < STALL_CALLS; k++) {
		struct stall_call_stats cs;

		stall_call_read(&d->calls[k], &cs);
		stall_call_add(&calls[k], &cs);
		if (!d->path_calls && stall_on(d) && k < REPORT_STALL_CALLS) {
			uint64_t t = tsc_to_ns(
				d->clock, util_relaxed_read(&d->kind_thr[k]));

			if (t > side->calls[k].thr_ns)
				side->calls[k].thr_ns = t;
		}
	}
	for (unsigned b = 0; b < STALL_LOG2_BINS; b++)
		gap_log2[b] += util_relaxed_read(&d->gap_log2[b]);
	/* Work gaps: each worker's own level; the side shows the highest. */
	if (stall_on(d)) {
		uint64_t n = util_relaxed_read(&d->work_n), p50, thr;

		p50 = tsc_to_ns(d->clock,
				stall_log2_quantile(d->work_log2, 0.5));
		/* The level is STALL_WORK_Q's: shown as the threshold. */
		thr = tsc_to_ns(d->clock, util_relaxed_read(&d->work_thr));
		side->work_gaps += n;
		if (n != 0 && p50 > side->work_p50_ns)
			side->work_p50_ns = p50;
		if (thr > side->work_thr_ns)
			side->work_thr_ns = thr;
	}
}

/* The merged call series and gaps (cycles of clock) into side, in ns. */
static void
side_det_done(struct report_stall_side *side, const struct tsc_clock *clock,
	      const struct stall_call_stats *calls, const uint64_t *gap_log2)
{
	for (unsigned k = 0; k < STALL_CALLS && k < REPORT_STALL_CALLS; k++) {
		struct report_stall_call *o = &side->calls[k];
		const struct stall_call_stats *c = &calls[k];

		o->kind = stall_call_name[k];
		o->count = c->count;
		o->total_ns = tsc_to_ns(clock, c->cycles);
		o->max_ns = tsc_to_ns(clock, c->max_cycles);
		o->p50_ns = tsc_to_ns(clock, stall_log2_quantile(c->log2, 0.5));
		o->p99_ns =
			tsc_to_ns(clock, stall_log2_quantile(c->log2, 0.99));
	}
	for (unsigned b = 0; b < STALL_LOG2_BINS; b++)
		side->gaps += gap_log2[b];
	side->gap_p50_ns = tsc_to_ns(clock, stall_log2_quantile(gap_log2, 0.5));
	side->gap_p999_ns =
		tsc_to_ns(clock, stall_log2_quantile(gap_log2, 0.999));
}

static void
side_add(struct report_stall_side *d, const struct stall_stats *src)
{
	struct stall_stats s;

	stall_stats_read(src, &s);
	d->count += s.count;
	d->total_ns += s.total_ns;
	d->in_call += s.in_call;
	if (s.longest_ns > d->longest_ns)
		d->longest_ns = s.longest_ns;
	for (unsigned i = 0; i < REPORT_STALL_BUCKETS && i < STALL_BUCKETS; i++)
		d->hist[i] += s.hist[i];
	d->have_hist = true;
	d->hist_upper_ns = stall_bucket_upper_ns;
}

_Static_assert(REPORT_STALL_BUCKETS == STALL_BUCKETS,
	       "the report's stall histogram is the detector's");

void
app_stalls_fold(struct prober_worker *gone, const struct prober_worker *w)
{
	struct stall_det *g = &gone->stall;

	histogram_merge(&gone->rtt_host_prober, &w->rtt_host_prober);
	histogram_merge(&gone->rtt_host_reflector, &w->rtt_host_reflector);
	histogram_merge(&gone->rtt_host_both, &w->rtt_host_both);
	stall_stats_add(&g->st, &w->stall.st);
	for (unsigned k = 0; k < STALL_CALLS; k++)
		stall_call_add(&g->calls[k], &w->stall.calls[k]);
	for (unsigned b = 0; b < STALL_LOG2_BINS; b++)
		g->gap_log2[b] += w->stall.gap_log2[b];
}

int
app_stalls_probe_report(struct app_run *r, const struct prober_worker *w,
			unsigned n, const struct prober_worker *gone,
			const unsigned *target,
			const struct app_common_opts *co,
			struct app_probe_stalls *ps,
			const struct report_stalls **out)
{
	struct report_stalls *s = &ps->rep;
	struct stall_call_stats calls[STALL_CALLS];
	uint64_t gaps[STALL_LOG2_BINS];

	memset(ps, 0, sizeof(*ps));
	*out = NULL;
	if (co->stall_threshold_ns == 0)
		return 0;
	ps->h = malloc(5 * sizeof(*ps->h)); /* and one scratch */
	if (ps->h == NULL)
		return -ENOMEM;
	for (unsigned k = 0; k < 4; k++)
		histogram_init(&ps->h[k]);
	s->threshold_ns = co->stall_threshold_ns;
	s->prober.known = true;
	s->tlv = co->stall_tlv;
	memset(calls, 0, sizeof(calls));
	memset(gaps, 0, sizeof(gaps));
	for (unsigned i = 0; i < n; i++)
		side_det(&s->prober, &w[i].stall, calls, gaps);
	if (gone != NULL) {
		/* Its calls and gaps only: calibration is each live worker's.
		 */
		for (unsigned k = 0; k < STALL_CALLS; k++)
			stall_call_add(&calls[k], &gone->stall.calls[k]);
		for (unsigned b = 0; b < STALL_LOG2_BINS; b++)
			gaps[b] += gone->stall.gap_log2[b];
	}
	if (n != 0)
		side_det_done(&s->prober, w[0].stall.clock, calls, gaps);
	if (s->prober.have_calib)
		s->threshold_ns = s->prober.threshold_ns;
	for (unsigned i = 0; i < n; i++) {
		if (prober_rtt_unaffected(&w[i], &ps->h[4]) != 0)
			return -EINVAL; /* cannot be: each is rtt's subset */
		histogram_merge(&ps->h[0], &ps->h[4]);
		histogram_merge(&ps->h[1], &w[i].rtt_host_prober);
		histogram_merge(&ps->h[2], &w[i].rtt_host_reflector);
		histogram_merge(&ps->h[3], &w[i].rtt_host_both);
		side_add(&s->prober, &w[i].stall.st);
		s->tlv_answers += w[i].st.peer_stall_answers;
		s->tlv_unknown += w[i].st.peer_stall_unknown;
		if (w[i].st.peer_stall_longest_ns > s->reflector.longest_ns)
			s->reflector.longest_ns = w[i].st.peer_stall_longest_ns;
	}
	if (gone != NULL) {
		if (prober_rtt_unaffected(gone, &ps->h[4]) != 0)
			return -EINVAL;
		histogram_merge(&ps->h[0], &ps->h[4]);
		histogram_merge(&ps->h[1], &gone->rtt_host_prober);
		histogram_merge(&ps->h[2], &gone->rtt_host_reflector);
		histogram_merge(&ps->h[3], &gone->rtt_host_both);
		side_add(&s->prober, &gone->stall.st);
		s->tlv_answers += gone->st.peer_stall_answers;
		s->tlv_unknown += gone->st.peer_stall_unknown;
		if (gone->st.peer_stall_longest_ns > s->reflector.longest_ns)
			s->reflector.longest_ns =
				gone->st.peer_stall_longest_ns;
	}
	{
		uint64_t c, us;

		prober_peer_stalls_merge(w, n, target, &c, &us);
		s->reflector.count = c;
		s->reflector.total_ns = us * 1000;
	}
	s->reflector.known = s->tlv && s->tlv_answers != 0;
	side_host(r, &s->prober);
	s->unaffected = &ps->h[0];
	s->host_prober = &ps->h[1];
	s->host_reflector = &ps->h[2];
	s->host_both = &ps->h[3];
	*out = s;
	return 0;
}

void
app_stalls_probe_fini(struct app_probe_stalls *ps)
{
	free(ps->h);
	ps->h = NULL;
}

void
app_stalls_reflect_report(struct app_run *r, const struct reflector_worker *w,
			  unsigned n, const struct app_common_opts *co,
			  struct report_reflect_stalls *rep,
			  const struct report_reflect_stalls **out)
{
	struct stall_call_stats calls[STALL_CALLS];
	uint64_t gaps[STALL_LOG2_BINS];

	memset(rep, 0, sizeof(*rep));
	*out = NULL;
	if (co->stall_threshold_ns == 0)
		return;
	rep->threshold_ns = co->stall_threshold_ns;
	rep->reflector.known = true;
	memset(calls, 0, sizeof(calls));
	memset(gaps, 0, sizeof(gaps));
	for (unsigned i = 0; i < n; i++) {
		side_det(&rep->reflector, &w[i].stall, calls, gaps);
		side_add(&rep->reflector, &w[i].stall.st);
	}
	if (n != 0)
		side_det_done(&rep->reflector, w[0].stall.clock, calls, gaps);
	if (rep->reflector.have_calib)
		rep->threshold_ns = rep->reflector.threshold_ns;
	side_host(r, &rep->reflector);
	*out = rep;
}

static void
metrics_side(struct metrics_buf *b, const char *side,
	     const struct report_stall_side *s)
{
	struct metrics_label l = {.name = "side", .value = side};
	const struct report_stall_side sum = *s;

	metrics_family(b, "latprobe_stalls_total", "counter",
		       "Gaps of a worker's poll loop above --stall-threshold");
	metrics_counter(b, "latprobe_stalls_total", &l, 1, sum.count);
	metrics_family(b, "latprobe_stall_seconds_total", "counter",
		       "Time the workers' poll loops lost in stalls");
	metrics_gauge(b, "latprobe_stall_seconds_total", &l, 1,
		      (double)sum.total_ns / 1e9);
	metrics_family(b, "latprobe_stall_longest_seconds", "gauge",
		       "The longest stall of the run so far");
	metrics_gauge(b, "latprobe_stall_longest_seconds", &l, 1,
		      (double)sum.longest_ns / 1e9);
}

void
app_stalls_metrics_probe(struct metrics_buf *b, const struct prober_worker *w,
			 unsigned n, const struct prober_worker *gone)
{
	static const char *const side[] = {"prober", "reflector", "both"};
	struct report_stall_side sum;
	uint64_t aff[3] = {0, 0, 0};

	if (n == 0 || !stall_on(&w[0].stall))
		return;
	memset(&sum, 0, sizeof(sum));
	for (unsigned i = 0; i < n; i++) {
		side_add(&sum, &w[i].stall.st);
		aff[0] += util_relaxed_read(&w[i].rtt_host_prober.total);
		aff[1] += util_relaxed_read(&w[i].rtt_host_reflector.total);
		aff[2] += util_relaxed_read(&w[i].rtt_host_both.total);
	}
	/* The retired targets' too: a counter never goes back when a new
	 * target takes a retired one's place. */
	if (gone != NULL) {
		side_add(&sum, &gone->stall.st);
		aff[0] += gone->rtt_host_prober.total;
		aff[1] += gone->rtt_host_reflector.total;
		aff[2] += gone->rtt_host_both.total;
	}
	metrics_side(b, "prober", &sum);
	metrics_family(b, "latprobe_host_affected_probes_total", "counter",
		       "Measured probes whose round trip overlapped a stall "
		       "(side: of this host, the reflector's, both)");
	for (unsigned k = 0; k < 3; k++) {
		struct metrics_label l = {.name = "side", .value = side[k]};

		metrics_counter(b, "latprobe_host_affected_probes_total", &l, 1,
				aff[k]);
	}
}

void
app_stalls_metrics_reflect(struct metrics_buf *b,
			   const struct reflector_worker *w, unsigned n)
{
	struct report_stall_side sum;

	if (n == 0 || !w[0].stall_watch)
		return;
	memset(&sum, 0, sizeof(sum));
	for (unsigned i = 0; i < n; i++)
		side_add(&sum, &w[i].stall.st);
	metrics_side(b, "reflector", &sum);
}
