/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock thread of one-way delays (app/oneway.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oneway.h"
#include "latprobe/histogram.h"
#include "latprobe/host_clock.h"
#include "latprobe/prober.h"
#include "latprobe/stamp.h"

/* chronyc only where chronyd runs: without a daemon chronyc waits for
 * answers over UDP before it gives up. */
static bool
chronyd_running(void)
{
	return access("/run/chrony/chronyd.pid", F_OK) == 0 ||
	       access("/var/run/chrony/chronyd.pid", F_OK) == 0 ||
	       access("/run/chrony/chronyd.sock", F_OK) == 0;
}

static bool
read_chrony(void *ctx, struct clock_chrony *c)
{
	char line[512];
	size_t n;
	FILE *p;
	bool ok;

	const char *fake = getenv("LATPROBE_TEST_CHRONYC");
	char cmd[320];

	/* Test hook: a chronyc the test wrote (no daemon looked for). */
	if (fake != NULL && *fake != '\0') {
		if (strchr(fake, '\'') != NULL || strlen(fake) > 256)
			return false;
		snprintf(cmd, sizeof(cmd), "'%s' -n -c tracking 2>/dev/null",
			 fake);
	} else if (chronyd_running()) {
		snprintf(cmd, sizeof(cmd),
			 "chronyc -n -c tracking 2>/dev/null");
	} else {
		return false;
	}
	p = popen(cmd, "r");
	if (p == NULL)
		return false;
	n = fread(line, 1, sizeof(line) - 1, p);
	line[n] = '\0';
	ok = pclose(p) == 0 && clock_chrony_parse(line, n, c) == 0;
	return ok;
}

static int
read_kernel(void *ctx, struct clock_kernel *k)
{
	(void)ctx;
	return clock_kernel_read(k);
}

static const struct app_clock_source sys_source = {
	.kernel = read_kernel,
	.chrony = read_chrony,
};

void
app_oneway_resync(struct app_oneway *o)
{
	struct clock_kernel k;
	struct clock_chrony c;
	bool have_c;

	memset(&k, 0, sizeof(k)); /* not read, whatever the reader left */
	if (o->src->kernel(o->src->ctx, &k) != 0)
		memset(&k, 0, sizeof(k));
	have_c = o->src->chrony(o->src->ctx, &c);
	pthread_mutex_lock(&o->mu);
	o->kernel = k;
	o->have_chrony = have_c;
	if (have_c) {
		o->chrony = c;
		snprintf(o->chrony_ref, sizeof(o->chrony_ref), "%s",
			 c.ref_name[0] != '\0' ? c.ref_name : c.ref_id);
	}
	clock_verdict_of(&o->kernel, have_c ? &o->chrony : NULL, &o->verdict);
	if (o->test_sync) {
		o->verdict.synced = true;
		o->verdict.src = CLOCK_SRC_NONE;
		o->verdict.err_known = o->test_sync_ns != 0;
		o->verdict.sync_err_ns = o->test_sync_ns;
	}
	/* The run's verdict is the worst read: one unsynchronised read
	 * leaves the timestamps around it without a bound. */
	clock_run_note(&o->run, &o->verdict);
	pthread_mutex_unlock(&o->mu);
}

/* The mapping as published: with the test offset, if any. */
static void
publish(struct app_oneway *o)
{
	struct clock_map m = o->sync.map;
	struct stamp_error_estimate e;
	uint64_t err;
	bool s;

	m.anchor.realtime_ns += (uint64_t)o->test_offset_ns;
	pthread_mutex_lock(&o->mu);
	err = o->sync.err_ns;
	/* S only when synchronised with a known error: S set promises an
	 * error against UTC. A clock whose source states no error
	 * (timesyncd) says S clear with the one figure it has, its
	 * timestamps' error against its own system clock; a receiver then
	 * takes its UTC error as unknown. NTP format (Z clear). */
	s = o->verdict.synced && o->verdict.err_known;
	if (s)
		err += o->verdict.sync_err_ns;
	stamp_ee_from_ns((double)err, s, false, &e);
	o->ee = stamp_ee_encode(&e);
	o->err_ns = err;
	if (err > o->err_max_ns)
		o->err_max_ns = err;
	pthread_mutex_unlock(&o->mu);
	clock_feed_publish(&o->feed, &m, err, o->ee);
}

uint16_t
app_oneway_unknown_ee(void)
{
	struct stamp_error_estimate e;

	stamp_ee_unknown(false, false, &e);
	return stamp_ee_encode(&e);
}

static void
sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
			      .tv_nsec = (long)(ns % 1000000000ull)};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void *
oneway_thread(void *arg)
{
	struct app_oneway *o = arg;
	unsigned k = 0;

	while (!atomic_load_explicit(&o->stop, memory_order_relaxed)) {
		struct clock_pair p;

		sleep_ns(APP_ONEWAY_PERIOD_NS);
		if (atomic_load_explicit(&o->stop, memory_order_relaxed))
			break;
		if (++k % APP_ONEWAY_SYNC_EVERY == 0)
			app_oneway_resync(o);
		if (clock_pair_read(&p, 64) != 0)
			continue;
		pthread_mutex_lock(&o->mu);
		(void)clock_sync_update(&o->sync, &p);
		pthread_mutex_unlock(&o->mu);
		publish(o);
	}
	return NULL;
}

static int64_t
env_i64(const char *name, bool *set)
{
	const char *v = getenv(name);
	char *end;
	long long x;

	*set = false;
	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno != 0 || *end != '\0')
		return 0;
	*set = true;
	return x;
}

int
app_oneway_start(struct app_oneway *o, const struct app_clock *clk, bool dpdk)
{
	return app_oneway_start_from(o, clk, dpdk, &sys_source);
}

int
app_oneway_start_from(struct app_oneway *o, const struct app_clock *clk,
		      bool dpdk, const struct app_clock_source *src)
{
	struct clock_pair p;
	bool set;
	int ret;

	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->mu, NULL);
	atomic_init(&o->stop, false);
	o->src = src;
	o->inited = true;
	o->test_offset_ns = env_i64("LATPROBE_TEST_CLOCK_OFFSET_NS", &set);
	o->test_sync_ns =
		(uint64_t)env_i64("LATPROBE_TEST_CLOCK_SYNC_NS", &o->test_sync);
	/* The run's first sync read, whether the mapping follows or not. */
	app_oneway_resync(o);
	ret = clock_pair_read(&p, 64);
	if (ret != 0)
		return ret;
	ret = clock_sync_init(&o->sync, clk->clock.hz, &p);
	if (ret != 0)
		return ret;
	publish(o);
	ret = app_thread_start(&o->thread, "lp-clock", dpdk, oneway_thread, o);
	if (ret != 0)
		return ret;
	o->running = true;
	o->resampled = true;
	return 0;
}

/* The run's last sync read, before a report (once). */
static void
finish(struct app_oneway *o)
{
	if (o->finished)
		return;
	app_oneway_resync(o);
	o->finished = true;
}

void
app_oneway_stop(struct app_oneway *o)
{
	if (!o->running)
		return;
	atomic_store_explicit(&o->stop, true, memory_order_relaxed);
	app_thread_join(&o->thread);
	o->running = false;
}

void
app_oneway_fill(struct app_oneway *o, struct report_one_way *ow)
{
	struct clock_verdict v;

	pthread_mutex_lock(&o->mu);
	clock_run_verdict(&o->run, &v);
	ow->map_unknown = !o->resampled;
	ow->map_resamples = o->sync.updates;
	ow->map_steps = o->sync.steps;
	ow->map_step_max_ns = o->sync.step_max_ns;
	ow->map_residual_max_ns = o->sync.residual_max_ns;
	ow->map_slew_max_ppm = o->sync.slew_max_ppm;
	if (o->sync.err_max_ns > ow->map_err_max_ns)
		ow->map_err_max_ns = o->sync.err_max_ns;
	ow->local_synced = v.synced;
	ow->local_source = o->test_sync ? "test"
			   : v.synced	? clock_src_name(v.src)
					: clock_src_name(o->verdict.src);
	ow->local_sync_unknown = v.synced && !v.err_known;
	ow->local_sync_err_ns = v.sync_err_ns;
	ow->local_reads = o->run.reads;
	ow->local_unsynced_reads = o->run.unsynced;
	ow->kernel_read = o->kernel.read;
	ow->kernel_synced = o->kernel.synced;
	ow->kernel_status = o->kernel.status;
	ow->kernel_esterror_ns = o->kernel.esterror_ns;
	ow->kernel_maxerror_ns = o->kernel.maxerror_ns;
	ow->chrony = o->have_chrony;
	if (o->have_chrony) {
		ow->chrony_ref = o->chrony_ref;
		ow->chrony_stratum = o->chrony.stratum;
		ow->chrony_synced = o->chrony.synced;
		ow->chrony_phc = o->chrony.phc;
		ow->chrony_offset_s = o->chrony.offset_s;
		ow->chrony_root_delay_s = o->chrony.root_delay_s;
		ow->chrony_root_dispersion_s = o->chrony.root_dispersion_s;
		ow->chrony_bound_ns = o->chrony.bound_ns;
	}
	pthread_mutex_unlock(&o->mu);
}

void
app_oneway_describe(struct app_oneway *o, char *buf, size_t cap)
{
	struct stamp_error_estimate e;

	pthread_mutex_lock(&o->mu);
	stamp_ee_decode(o->ee, &e);
	if (o->verdict.synced && !o->verdict.err_known)
		snprintf(buf, cap,
			 "clock synchronised (%s) but its source gives no "
			 "error figure (adjtimex esterror 0): one-way bound "
			 "unknown; Error Estimate %.0f ns (S clear: against "
			 "this host's clock only)",
			 o->test_sync ? "test hook"
				      : clock_src_name(o->verdict.src),
			 stamp_ee_to_ns(&e));
	else if (o->verdict.synced)
		snprintf(buf, cap,
			 "clock synchronised (%s, sync error %.0f ns), "
			 "Error Estimate %.0f ns",
			 o->test_sync ? "test hook"
				      : clock_src_name(o->verdict.src),
			 (double)o->verdict.sync_err_ns, stamp_ee_to_ns(&e));
	else
		snprintf(buf, cap,
			 "clock not synchronised (%s), Error Estimate %.0f ns "
			 "(S clear: against this host's clock only)",
			 o->have_chrony	  ? "chrony says so"
			 : o->kernel.read ? "adjtimex: STA_UNSYNC"
					  : "adjtimex did not answer",
			 stamp_ee_to_ns(&e));
	if (o->test_offset_ns != 0) {
		size_t n = strlen(buf);

		snprintf(buf + n, cap - n,
			 "; TEST HOOK: clock shifted by %lld ns",
			 (long long)o->test_offset_ns);
	}
	pthread_mutex_unlock(&o->mu);
}

void
app_oneway_gone_init(struct prober_worker *g)
{
	histogram_init(&g->forward);
	histogram_init(&g->reverse);
	memset(&g->ow, 0, sizeof(g->ow));
	g->ow.fwd_min_ns = INT64_MAX;
	g->ow.rev_min_ns = INT64_MAX;
}

static void
ow_add(struct prober_oneway *d, const struct prober_oneway *v)
{
	d->answers += v->answers;
	d->fwd_nonpos += v->fwd_nonpos;
	d->rev_nonpos += v->rev_nonpos;
	if (v->answers != 0 && v->fwd_min_ns < d->fwd_min_ns)
		d->fwd_min_ns = v->fwd_min_ns;
	if (v->answers != 0 && v->rev_min_ns < d->rev_min_ns)
		d->rev_min_ns = v->rev_min_ns;
	d->ee_s_clear += v->ee_s_clear;
	d->ee_none += v->ee_none;
	d->ee_unknown += v->ee_unknown;
	if (v->ee_max_ns > d->ee_max_ns)
		d->ee_max_ns = v->ee_max_ns;
	if (v->own_err_max_ns > d->own_err_max_ns)
		d->own_err_max_ns = v->own_err_max_ns;
}

void
app_oneway_fold(struct prober_worker *g, const struct prober_worker *w)
{
	histogram_merge(&g->forward, &w->forward);
	histogram_merge(&g->reverse, &w->reverse);
	ow_add(&g->ow, &w->ow);
}

/* The report's one_way from the summed counters and merged series; final:
 * take the run's last sync read first (the report, not a scrape). */
static void
judge(struct app_oneway *o, const struct prober_oneway *sum, bool same_clock,
      const struct histogram *fwd, const struct histogram *rev, bool final,
      struct report_one_way *ow)
{
	memset(ow, 0, sizeof(*ow));
	ow->forward = fwd;
	ow->reverse = rev;
	ow->answers = sum->answers;
	ow->fwd_nonpos = sum->fwd_nonpos;
	ow->rev_nonpos = sum->rev_nonpos;
	ow->fwd_min_ns = sum->answers != 0 ? sum->fwd_min_ns : 0;
	ow->rev_min_ns = sum->answers != 0 ? sum->rev_min_ns : 0;
	ow->same_clock = same_clock;
	ow->refl_ee_max_ns = sum->ee_max_ns;
	ow->refl_s_clear = sum->ee_s_clear;
	ow->refl_no_ee = sum->ee_none;
	ow->refl_ee_unknown = sum->ee_unknown;
	/* The workers saw the feed's error (mapping + sync when synced):
	 * the mapping's part is what the bound adds here; the sync part is
	 * added by the judgement (not with --same-clock). */
	ow->map_err_max_ns = 0;
	if (o != NULL && o->inited) {
		if (final)
			finish(o);
		app_oneway_fill(o, ow);
		if (ow->map_unknown) /* the start's, for what it is worth */
			ow->map_err_max_ns = sum->own_err_max_ns;
	} else {
		ow->local_source = "none";
		ow->map_unknown = true;
		ow->map_err_max_ns = sum->own_err_max_ns;
	}
	report_one_way_judge(ow);
}

void
app_oneway_probe_report(struct app_oneway *o, const struct prober_worker *w,
			unsigned n, const struct prober_worker *gone,
			bool same_clock, struct histogram *fwd,
			struct histogram *rev, struct report_one_way *ow)
{
	struct prober_oneway sum = {.fwd_min_ns = INT64_MAX,
				    .rev_min_ns = INT64_MAX};

	for (unsigned i = 0; i <= n; i++) {
		const struct prober_worker *x = i < n ? &w[i] : gone;

		if (x == NULL)
			break;
		histogram_merge(fwd, &x->forward);
		histogram_merge(rev, &x->reverse);
		ow_add(&sum, &x->ow);
	}
	judge(o, &sum, same_clock, fwd, rev, true, ow);
}

/* w's counters as another thread sees them (single writer: relaxed). */
static void
ow_read(struct prober_oneway *d, const struct prober_oneway *w)
{
	d->answers = util_relaxed_read(&w->answers);
	d->fwd_nonpos = util_relaxed_read(&w->fwd_nonpos);
	d->rev_nonpos = util_relaxed_read(&w->rev_nonpos);
	d->fwd_min_ns = __atomic_load_n(&w->fwd_min_ns, __ATOMIC_RELAXED);
	d->rev_min_ns = __atomic_load_n(&w->rev_min_ns, __ATOMIC_RELAXED);
	d->ee_s_clear = util_relaxed_read(&w->ee_s_clear);
	d->ee_none = util_relaxed_read(&w->ee_none);
	d->ee_unknown = util_relaxed_read(&w->ee_unknown);
	d->ee_max_ns = util_relaxed_read(&w->ee_max_ns);
	d->own_err_max_ns = util_relaxed_read(&w->own_err_max_ns);
}

void
app_oneway_live(struct app_oneway *o, const struct prober_worker *const *w,
		unsigned n, bool same_clock, const struct histogram *fwd,
		const struct histogram *rev, struct report_one_way *ow)
{
	struct prober_oneway sum = {.fwd_min_ns = INT64_MAX,
				    .rev_min_ns = INT64_MAX};

	for (unsigned i = 0; i < n; i++) {
		struct prober_oneway v;

		ow_read(&v, &w[i]->ow);
		ow_add(&sum, &v);
	}
	judge(o, &sum, same_clock, fwd, rev, false, ow);
}

unsigned
app_oneway_doctor(struct host_result *r)
{
	struct host_clock_input in;
	struct clock_kernel k;
	struct clock_chrony c;

	memset(&in, 0, sizeof(in));
	if (clock_kernel_read(&k) == 0) {
		in.kernel_read = true;
		in.kernel_synced = k.synced;
		in.kernel_status = k.status;
		in.kernel_esterror_ns = k.esterror_ns;
		in.kernel_maxerror_ns = k.maxerror_ns;
	}
	if (read_chrony(NULL, &c)) {
		in.chrony = true;
		in.chrony_synced = c.synced;
		in.chrony_phc = c.phc;
		in.chrony_stratum = c.stratum;
		in.chrony_bound_ns = c.bound_ns;
		snprintf(in.chrony_ref, sizeof(in.chrony_ref), "%s",
			 c.ref_name[0] != '\0' ? c.ref_name : c.ref_id);
	}
	return host_clock_checks("/", &in, r);
}

void
app_oneway_clock(struct app_oneway *o, struct report_clock *c)
{
	struct stamp_error_estimate e;
	struct clock_verdict v;

	memset(c, 0, sizeof(*c));
	if (!o->inited)
		return;
	finish(o);
	pthread_mutex_lock(&o->mu);
	clock_run_verdict(&o->run, &v);
	c->not_resampled = !o->resampled;
	c->mapping_error_max_ns = o->sync.err_max_ns;
	c->residual_max_ns = o->sync.residual_max_ns;
	c->resamples = o->sync.updates;
	c->steps = o->sync.steps;
	c->step_max_ns = o->sync.step_max_ns;
	c->slew_max_ppm = o->sync.slew_max_ppm;
	c->synchronised = v.synced;
	c->source = o->test_sync ? "test"
		    : v.synced	 ? clock_src_name(v.src)
				 : clock_src_name(o->verdict.src);
	c->sync_error_unknown = v.synced && !v.err_known;
	c->sync_error_ns = v.sync_err_ns;
	c->sync_reads = o->run.reads;
	c->unsynchronised_reads = o->run.unsynced;
	/* What the answers carried last: without the thread, the unknown
	 * estimate the reflector was given (reflect_setup.c). */
	c->error_estimate = o->resampled ? o->ee : app_oneway_unknown_ee();
	stamp_ee_decode(c->error_estimate, &e);
	c->error_estimate_ns = stamp_ee_to_ns(&e);
	pthread_mutex_unlock(&o->mu);
}
