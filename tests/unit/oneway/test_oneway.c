/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/oneway.c with a fake time source and a stubbed app_thread_start():
 * whatever this host's clock did, the one-way report never shows a valid
 * figure with a finite bound it does not have.
 *
 * - a clock unsynchronised at one read in the middle of a run (synchronised
 *   at the start and at the end);
 * - a source that is synchronised but gives no error figure (adjtimex
 *   esterror 0, as systemd-timesyncd leaves it);
 * - a clock thread that cannot start: the prober's mapping error is not
 *   known, and the reflector's Error Estimate says unknown, which the
 *   prober reads as such.
 *
 * No time is asserted: the mapping's own error (real TSC and clock reads)
 * only ever appears as "some figure", never compared with one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

#include <cmocka.h>

#include "oneway.h"
#include "latprobe/histogram.h"
#include "latprobe/prober.h"
#include "latprobe/prober_oneway.h"
#include "latprobe/report_internal.h"
#include "latprobe/stamp.h"

/* ---- The stubs app/oneway.c links against ---------------------------- */

/* What app_thread_start() returns: 0 (started; the thread is not run, the
 * test calls app_oneway_resync() for its periodic reads) or -errno. */
static int thread_start_ret;

int
app_thread_start(struct app_thread *t, const char *name, bool dpdk,
		 void *(*fn)(void *arg), void *arg)
{
	(void)name;
	(void)dpdk;
	t->fn = fn;
	t->arg = arg;
	t->started = false; /* nothing to join */
	return thread_start_ret;
}

void
app_thread_join(struct app_thread *t)
{
	(void)t;
}

/* ---- A fake time source ---------------------------------------------- */

#define MAX_READS 8

struct fake_source {
	struct clock_kernel k[MAX_READS]; /* one per read; the last repeats */
	unsigned n, next;
	bool chrony; /* chronyc answers with c */
	struct clock_chrony c;
	unsigned reads;
};

static int
fake_kernel(void *ctx, struct clock_kernel *out)
{
	struct fake_source *f = ctx;

	*out = f->k[f->next < f->n ? f->next : f->n - 1];
	f->next++;
	f->reads++;
	return 0;
}

static bool
fake_chrony(void *ctx, struct clock_chrony *out)
{
	struct fake_source *f = ctx;

	if (f->chrony)
		*out = f->c;
	return f->chrony;
}

/* adjtimex as ntpd leaves it: synchronised, esterror est_us. */
static void
k_synced(struct clock_kernel *k, long est_us)
{
	clock_kernel_interpret(TIME_OK, STA_PLL, est_us, 100000, 0, 0, k);
}

/* adjtimex on a clock nobody disciplines. */
static void
k_unsynced(struct clock_kernel *k)
{
	clock_kernel_interpret(TIME_ERROR, STA_UNSYNC, 16000000, 16000000, 0, 0,
			       k);
}

/* ---- The run ----------------------------------------------------------- */

struct fix {
	struct app_clock clk;
	struct app_oneway o;
	struct fake_source src;
	struct app_clock_source ops;
	struct prober_worker *w;
	struct histogram *fwd, *rev;
	struct report_one_way ow;
};

static int
setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	f->w = calloc(1, sizeof(*f->w));
	f->fwd = histogram_create();
	f->rev = histogram_create();
	if (f->w == NULL || f->fwd == NULL || f->rev == NULL)
		return -1;
	/* The mapping's rate: any the TSC code accepts; its figure is not
	 * asserted. */
	if (tsc_clock_init(&f->clk.clock, 2000000000ull) != 0)
		return -1;
	f->ops = (struct app_clock_source){
		.kernel = fake_kernel,
		.chrony = fake_chrony,
		.ctx = &f->src,
	};
	/* One worker's answers: forward and reverse 10 ms each, every
	 * answer's Error Estimate 1 us with S set (a synchronised
	 * reflector): only this host's clock can spoil the figures. */
	app_oneway_gone_init(f->w);
	for (unsigned i = 0; i < 1000; i++) {
		histogram_record(&f->w->forward, 10000000);
		histogram_record(&f->w->reverse, 10000000);
	}
	f->w->ow.answers = 1000;
	f->w->ow.fwd_min_ns = 10000000;
	f->w->ow.rev_min_ns = 10000000;
	f->w->ow.ee_max_ns = 1000;
	thread_start_ret = 0;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fix *f = *state;

	app_oneway_stop(&f->o);
	histogram_destroy(f->fwd);
	histogram_destroy(f->rev);
	free(f->w);
	free(f);
	return 0;
}

/* Start, then resyncs more periodic reads, then the report (whose own
 * final read is the run's last). */
static int
run(struct fix *f, unsigned resyncs, bool same_clock)
{
	int ret = app_oneway_start_from(&f->o, &f->clk, false, &f->ops);

	for (unsigned i = 0; ret == 0 && i < resyncs; i++)
		app_oneway_resync(&f->o);
	app_oneway_probe_report(&f->o, f->w, 1, NULL, same_clock, f->fwd,
				f->rev, &f->ow);
	return ret;
}

/* The report's one-way text, for what it says of the bound. */
static char *
text_of(const struct report_one_way *ow)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	rpt_text_one_way(m, ow);
	fclose(m);
	return buf;
}

static bool
has_reason(const struct report_one_way *ow, enum report_ow_reason r)
{
	return (ow->reasons & (1u << r)) != 0;
}

/*
 * Synchronised with a 5 us error at the start, not at the 2nd periodic
 * read, synchronised again with 2 us at the 3rd and at the end: the run
 * is not synchronised, the bound unknown, the figures not valid. The
 * latest read alone (synchronised) would have said valid.
 */
static void
test_unsynced_mid_run(void **state)
{
	struct fix *f = *state;
	char *t;

	k_synced(&f->src.k[0], 5);
	k_synced(&f->src.k[1], 5);
	k_unsynced(&f->src.k[2]);
	k_synced(&f->src.k[3], 2);
	f->src.n = 4;
	assert_int_equal(run(f, 3, false), 0);
	assert_int_equal(f->src.reads, 5); /* start, 3 periodic, the end */
	assert_int_equal(f->ow.local_reads, 5);
	assert_int_equal(f->ow.local_unsynced_reads, 1);
	assert_false(f->ow.local_synced);
	assert_false(f->ow.bound_known);
	assert_int_equal(f->ow.bound_why, REPORT_OW_LOCAL_UNSYNC);
	assert_true(has_reason(&f->ow, REPORT_OW_LOCAL_UNSYNC));
	assert_false(f->ow.valid);
	t = text_of(&f->ow);
	assert_non_null(strstr(t, "One-way bound: unknown (this host's clock "
				  "was not synchronised during the run)"));
	assert_non_null(strstr(t, "not synchronised at 1 of 5 reads"));
	assert_null(strstr(t, "One-way: forward p50"));
	free(t);
}

/* The same source synchronised at every read: the largest error read is
 * the sync part of a known bound (the control: the fixture itself is
 * not what refuses the runs above and below). */
static void
test_synced_whole_run(void **state)
{
	struct fix *f = *state;

	k_synced(&f->src.k[0], 5);
	k_synced(&f->src.k[1], 9);
	k_synced(&f->src.k[2], 2);
	f->src.n = 3;
	assert_int_equal(run(f, 2, false), 0);
	assert_true(f->ow.local_synced);
	assert_false(f->ow.local_sync_unknown);
	assert_int_equal(f->ow.local_sync_err_ns, 9000);
	assert_true(f->ow.bound_known);
	assert_true(f->ow.bound_ns >= 1000 + 9000);
	/* Valid, or refused for the bound alone (the real mapping's error
	 * is not this test's to assert). */
	assert_int_equal(f->ow.reasons & ~(1u << REPORT_OW_BOUND), 0);
}

/*
 * Synchronised (no STA_UNSYNC) with esterror 0 and no chrony: the error is
 * not zero but unknown. Not valid, the bound unknown; the reflector's
 * Error Estimate from such a clock has S clear.
 */
static void
test_zero_esterror(void **state)
{
	struct fix *f = *state;
	struct report_clock c;
	char *t;

	k_synced(&f->src.k[0], 0);
	f->src.n = 1;
	assert_int_equal(run(f, 2, false), 0);
	assert_true(f->ow.local_synced);
	assert_true(f->ow.local_sync_unknown);
	assert_false(f->ow.bound_known);
	assert_int_equal(f->ow.bound_why, REPORT_OW_LOCAL_ERR_UNKNOWN);
	assert_true(has_reason(&f->ow, REPORT_OW_LOCAL_ERR_UNKNOWN));
	assert_false(f->ow.valid);
	t = text_of(&f->ow);
	assert_non_null(strstr(t, "One-way bound: unknown (this host's time "
				  "source gives no error figure)"));
	assert_non_null(strstr(t, "its sync unknown"));
	free(t);
	/* As a reflector: no S on a clock whose error against UTC is
	 * unknown. */
	app_oneway_clock(&f->o, &c);
	assert_true(c.synchronised);
	assert_true(c.sync_error_unknown);
	assert_int_equal(c.error_estimate & STAMP_EE_S, 0);
}

/* chrony answering with a zero bound is no better than esterror 0. */
static void
test_zero_chrony_bound(void **state)
{
	struct fix *f = *state;
	static const char line[] =
		"50484330,PHC0,1,1764633590.5,0.0,0.0,0.0,0.0,0.0,0.0,0.0,"
		"0.0,8.0,Normal\n";

	k_synced(&f->src.k[0], 3);
	f->src.n = 1;
	assert_int_equal(clock_chrony_parse(line, sizeof(line) - 1, &f->src.c),
			 0);
	assert_true(f->src.c.synced);
	f->src.chrony = true;
	assert_int_equal(run(f, 1, false), 0);
	assert_true(f->ow.local_sync_unknown);
	assert_false(f->ow.bound_known);
	assert_false(f->ow.valid);
}

/*
 * The clock thread cannot start. The prober: its mapping is the start's,
 * its error unknown: not valid even with --same-clock (where sync errors
 * do not count), the bound unknown.
 */
static void
test_thread_fails_prober(void **state)
{
	struct fix *f = *state;
	char *t;

	k_synced(&f->src.k[0], 5);
	f->src.n = 1;
	thread_start_ret = -EAGAIN;
	assert_int_equal(run(f, 0, true), -EAGAIN);
	assert_true(f->ow.map_unknown);
	assert_false(f->ow.bound_known);
	assert_int_equal(f->ow.bound_why, REPORT_OW_LOCAL_NO_MAPPING);
	assert_true(has_reason(&f->ow, REPORT_OW_LOCAL_NO_MAPPING));
	assert_false(f->ow.valid);
	t = text_of(&f->ow);
	assert_non_null(strstr(t, "One-way bound: unknown (this host's clock "
				  "thread did not run)"));
	assert_non_null(strstr(t, "mapping unknown (not re-sampled)"));
	free(t);
}

/*
 * The clock thread cannot start on the reflector: its answers' Error
 * Estimate says unknown (S clear, the largest), its report says so, and
 * a prober reading that estimate counts it as unknown: no valid figure,
 * no bound, even with --same-clock.
 */
static void
test_thread_fails_reflector(void **state)
{
	struct fix *f = *state;
	struct stamp_error_estimate e;
	struct report_clock c;
	uint16_t raw = app_oneway_unknown_ee();
	struct probe_reply r;
	int64_t fwd, rev;

	k_synced(&f->src.k[0], 5);
	f->src.n = 1;
	thread_start_ret = -EAGAIN;
	assert_int_equal(app_oneway_start_from(&f->o, &f->clk, false, &f->ops),
			 -EAGAIN);
	app_oneway_clock(&f->o, &c);
	assert_true(c.not_resampled);
	assert_int_equal(c.error_estimate, raw);
	stamp_ee_decode(raw, &e);
	assert_false(e.sync);
	assert_int_not_equal(e.multiplier, 0); /* RFC 4656: never 0 */
	assert_true(stamp_ee_is_unknown(&e));

	/* The prober's side: 10 answers carrying it, on one clock. */
	{
		struct prober_conf pc;

		memset(&pc, 0, sizeof(pc));
		assert_int_equal(tsc_clock_init(&pc.clock, 2000000000ull), 0);
		f->w->conf = &pc;
		memset(&f->w->ow, 0, sizeof(f->w->ow));
		prober_oneway_init(f->w);
		memset(&r, 0, sizeof(r));
		r.has_ee = true;
		r.error_estimate = raw;
		for (unsigned i = 0; i < 10; i++) {
			/* T4 100 us after T1; T2 and T3 between. */
			uint64_t t1 = 1000000, t4 = t1 + 200000;

			r.t2_ns = clock_map_utc(&f->w->ow_map, t1) + 40000;
			r.t3_ns = r.t2_ns + 1000;
			prober_oneway_record(f->w, &r, t1, t4, &fwd, &rev);
		}
		f->w->conf = NULL;
	}
	assert_int_equal(f->w->ow.ee_unknown, 10);
	assert_int_equal(f->w->ow.ee_none, 0);
	assert_int_equal(f->w->ow.ee_max_ns, 0);
	/* This side's own clock is fine (a fresh start with the thread). */
	app_oneway_stop(&f->o);
	thread_start_ret = 0;
	assert_int_equal(run(f, 0, true), 0);
	assert_int_equal(f->ow.refl_ee_unknown, 10);
	assert_false(f->ow.bound_known);
	assert_int_equal(f->ow.bound_why, REPORT_OW_REFLECTOR_UNKNOWN);
	assert_true(has_reason(&f->ow, REPORT_OW_REFLECTOR_UNKNOWN));
	assert_false(f->ow.valid);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unsynced_mid_run, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_synced_whole_run, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_zero_esterror, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_zero_chrony_bound, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_thread_fails_prober, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_thread_fails_reflector,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
