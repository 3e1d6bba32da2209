/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock_sync: the TSC -> UTC mapping on synthetic pairs (rate, residual,
 * steps, slew), the feed, adjtimex results and chronyc output.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

#include <cmocka.h>

#include "latprobe/clock_sync.h"

#define HZ 2000000000ull	  /* 2 GHz */
#define T0 1764633600000000000ull /* 2025-12-02 00:00 UTC, ns */
#define C0 1000000000000ull

/* A wall clock running at (1 + ppm) of the TSC's calibrated rate, read at
 * TSC tsc; width cycles of bracket. */
static struct clock_pair
pair_at(uint64_t tsc, double ppm, int64_t offset_ns, uint64_t width)
{
	double el = (double)(tsc - C0) / (double)HZ * 1e9;
	struct clock_pair p = {
		.tsc = tsc,
		.utc_ns = T0 + (uint64_t)llround(el * (1 + ppm * 1e-6)) +
			  (uint64_t)offset_ns,
		.width = width,
	};

	return p;
}

static void
test_steady(void **state)
{
	struct clock_sync s;
	struct clock_pair p = pair_at(C0, 0, 0, 200);

	(void)state;
	assert_int_equal(clock_sync_init(&s, HZ, &p), 0);
	/* 200 cycles of bracket at 2 GHz: 50 ns either side. */
	assert_int_equal(s.pair_err_ns, 50);
	for (unsigned i = 1; i <= 30; i++) {
		p = pair_at(C0 + i * HZ / 10, 0, 0, 200);
		assert_int_equal(clock_sync_update(&s, &p), 0);
		assert_true(llabs(s.residual_ns) <= 1);
	}
	assert_int_equal(s.steps, 0);
	assert_true(s.err_ns <= 51);
	assert_true(fabs(s.slew_ppm) < 0.01);
	/* The mapping reads the pair back. */
	assert_true(llabs((int64_t)(clock_map_utc(&s.map, p.tsc) - p.utc_ns)) <=
		    1);
}

/*
 * A wall clock 50 ppm fast of the TSC's calibration: the first second
 * extrapolates with the calibrated rate (residuals of 5 us per 100 ms),
 * then the rate comes from a pair 1 s back and the residual falls to
 * nothing; the slew is seen.
 */
static void
test_slew(void **state)
{
	struct clock_sync s;
	struct clock_pair p = pair_at(C0, 50, 0, 100);
	int64_t early = 0;

	(void)state;
	assert_int_equal(clock_sync_init(&s, HZ, &p), 0);
	for (unsigned i = 1; i <= 40; i++) {
		p = pair_at(C0 + i * HZ / 10, 50, 0, 100);
		assert_int_equal(clock_sync_update(&s, &p), 0);
		if (i == 2)
			early = s.residual_ns;
	}
	/* Predicted with the calibrated rate: behind by 50 ppm x 100 ms. */
	assert_true(early <= -4990 && early >= -5010);
	assert_true(llabs(s.residual_ns) <= 2);
	assert_true(fabs(s.slew_ppm - 50) < 0.1);
	assert_true(s.slew_max_ppm > 49.9);
	assert_true(s.residual_max_ns >= 4990);
	/* The last 16 residuals are small again: so is the error. */
	assert_true(s.err_ns <= 30);
	assert_true(s.err_max_ns >= 4990);
}

/* The wall clock steps 2 ms forward: a step, and the bound holds it for
 * CLOCK_SYNC_ERR_KEEP updates. */
static void
test_step(void **state)
{
	struct clock_sync s;
	struct clock_pair p = pair_at(C0, 0, 0, 100);
	unsigned i;

	(void)state;
	assert_int_equal(clock_sync_init(&s, HZ, &p), 0);
	for (i = 1; i <= 20; i++) {
		p = pair_at(C0 + i * HZ / 10, 0, 0, 100);
		clock_sync_update(&s, &p);
	}
	p = pair_at(C0 + i * HZ / 10, 0, 2000000, 100);
	clock_sync_update(&s, &p);
	assert_int_equal(s.steps, 1);
	assert_true(s.step_max_ns >= 1999990 && s.step_max_ns <= 2000010);
	assert_true(s.err_ns >= 2000000);
	for (unsigned k = 1; k <= CLOCK_SYNC_ERR_KEEP; k++) {
		p = pair_at(C0 + (i + k) * HZ / 10, 0, 2000000, 100);
		clock_sync_update(&s, &p);
	}
	assert_int_equal(s.steps, 1);
	assert_true(s.err_ns < 1000);
	/* The rate did not take the step in (history restarted). */
	assert_true(fabs(s.slew_ppm) < 0.01);
	/* A pair that goes back in TSC is refused. */
	assert_int_equal(clock_sync_update(&s, &p), -EINVAL);
}

static void
test_feed(void **state)
{
	struct clock_feed f;
	struct clock_map m = {0}, got;
	uint32_t gen = 0;
	uint64_t err;
	uint16_t ee;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_false(clock_feed_read(&f, &gen, &got, &err, &ee));
	m.anchor.tsc = 42;
	m.anchor.realtime_ns = T0;
	assert_int_equal(tsc_clock_init(&m.clock, HZ), 0);
	clock_feed_publish(&f, &m, 123, 0x8c01);
	assert_true(clock_feed_read(&f, &gen, &got, &err, &ee));
	assert_memory_equal(&got, &m, sizeof(m));
	assert_int_equal(err, 123);
	assert_int_equal(ee, 0x8c01);
	assert_int_equal(gen, 2);
	/* Nothing new: false. */
	assert_false(clock_feed_read(&f, &gen, &got, &err, &ee));
	clock_feed_publish(&f, &m, 7, 1);
	assert_true(clock_feed_read(&f, &gen, &got, &err, &ee));
	assert_int_equal(err, 7);
}

static void
test_kernel(void **state)
{
	struct clock_kernel k;

	(void)state;
	/* This machine's own: TIME_ERROR, STA_UNSYNC, 16 s errors. */
	clock_kernel_interpret(TIME_ERROR, STA_UNSYNC, 16000000, 16000000, 0, 0,
			       &k);
	assert_true(k.read);
	assert_false(k.synced);
	assert_int_equal(k.maxerror_ns, 16000000000ull);
	/* chrony or ntpd in charge: TIME_OK, PLL, errors in us. */
	clock_kernel_interpret(TIME_OK, STA_PLL | STA_NANO, 12, 1500, -340,
			       (long)(-12.5 * 65536), &k);
	assert_true(k.synced);
	assert_true(k.pll);
	assert_true(k.nano);
	assert_int_equal(k.esterror_ns, 12000);
	assert_int_equal(k.maxerror_ns, 1500000);
	assert_int_equal(k.offset_ns, -340);
	assert_true(fabs(k.freq_ppm + 12.5) < 1e-9);
	/* Without STA_NANO the offset is in us. */
	clock_kernel_interpret(TIME_OK, STA_PLL, 1, 2, -3, 0, &k);
	assert_int_equal(k.offset_ns, -3000);
	/* TIME_OK but STA_UNSYNC: not synchronised. */
	clock_kernel_interpret(TIME_OK, STA_UNSYNC, 1, 2, 0, 0, &k);
	assert_false(k.synced);
	/* TIME_ERROR alone (leap handling gone wrong): not either. */
	clock_kernel_interpret(TIME_ERROR, 0, 1, 2, 0, 0, &k);
	assert_false(k.synced);
	clock_kernel_interpret(-1, 0, 1, 2, 0, 0, &k);
	assert_false(k.read);
	/* The real call answers (modes 0 needs no privilege). */
	assert_int_equal(clock_kernel_read(&k), 0);
	assert_true(k.read);
}

/* Fixtures: what chronyc -c tracking prints (also the fuzz seeds,
 * tests/fuzz/clock/corpus_clock). */
static const char chrony_ntp[] =
	"C6120035,198.18.0.53,3,1764633512.123456789,0.000012345,"
	"-0.000001234,0.000045678,-12.345,0.001,0.023,0.012345678,"
	"0.001234567,64.3,Normal\n";
static const char chrony_phc[] =
	"50484330,PHC0,1,1764633590.500000000,-0.000000120,0.000000030,"
	"0.000000250,1.234,-0.000,0.010,0.000000001,0.000002000,8.0,Normal\n";
static const char chrony_unsync[] =
	"00000000,,0,0.000000000,0.000000000,0.000000000,0.000000000,"
	"0.000,0.000,0.000,1.000000000,1.000000000,0.0,Not synchronised\n";

static void
test_chrony(void **state)
{
	struct clock_chrony c;
	struct clock_verdict v;
	struct clock_kernel k;

	(void)state;
	assert_int_equal(
		clock_chrony_parse(chrony_ntp, sizeof(chrony_ntp) - 1, &c), 0);
	assert_string_equal(c.ref_id, "C6120035");
	assert_string_equal(c.ref_name, "198.18.0.53");
	assert_int_equal(c.stratum, 3);
	assert_true(c.synced);
	assert_false(c.phc);
	assert_true(fabs(c.offset_s - 12.345e-6) < 1e-15);
	assert_true(fabs(c.freq_ppm + 12.345) < 1e-9);
	/* 12.345 us + 1234.567 us + 12345.678 / 2 us */
	assert_int_equal(c.bound_ns, 12345 + 1234567 + 6172839);
	assert_string_equal(c.leap, "Normal");

	assert_int_equal(
		clock_chrony_parse(chrony_phc, sizeof(chrony_phc) - 1, &c), 0);
	assert_true(c.phc);
	assert_true(c.synced);
	assert_int_equal(c.stratum, 1);
	assert_int_equal(c.bound_ns, 120 + 2000 + 1); /* 0.5 ns rounds up */

	assert_int_equal(clock_chrony_parse(chrony_unsync,
					    sizeof(chrony_unsync) - 1, &c),
			 0);
	assert_false(c.synced);

	/* chrony's word wins over the kernel's: not synchronised. */
	clock_kernel_interpret(TIME_OK, STA_PLL, 5, 10, 0, 0, &k);
	clock_verdict_of(&k, &c, &v);
	assert_false(v.synced);
	assert_int_equal(v.sync_err_ns, 0);
	clock_verdict_of(&k, NULL, &v);
	assert_true(v.synced);
	assert_int_equal(v.src, CLOCK_SRC_KERNEL);
	assert_int_equal(v.sync_err_ns, 5000);
	assert_string_equal(clock_src_name(v.src), "kernel");
	clock_chrony_parse(chrony_phc, sizeof(chrony_phc) - 1, &c);
	clock_verdict_of(&k, &c, &v);
	assert_int_equal(v.src, CLOCK_SRC_CHRONY);
	assert_int_equal(v.sync_err_ns, 2121);
}

static const char chrony_zero[] =
	"50484330,PHC0,1,1.0,0,0,0,0,0,0,0,0,8.0,Normal\n";

/* A source that states no error is not a zero error: timesyncd leaves the
 * kernel's esterror at 0 (synchronised, no STA_UNSYNC). */
static void
test_verdict_zero_error(void **state)
{
	struct clock_kernel k;
	struct clock_chrony c;
	struct clock_verdict v;

	(void)state;
	clock_kernel_interpret(TIME_OK, 0, 0, 0, 0, 0, &k);
	clock_verdict_of(&k, NULL, &v);
	assert_true(v.synced);
	assert_false(v.err_known);
	assert_int_equal(v.sync_err_ns, 0);
	clock_kernel_interpret(TIME_OK, STA_PLL, 7, 100, 0, 0, &k);
	clock_verdict_of(&k, NULL, &v);
	assert_true(v.err_known);
	assert_int_equal(v.sync_err_ns, 7000);
	/* chrony with every error field 0: no bound either. */
	assert_int_equal(
		clock_chrony_parse(chrony_zero, sizeof(chrony_zero) - 1, &c),
		0);
	assert_true(c.synced);
	assert_int_equal(c.bound_ns, 0);
	clock_verdict_of(&k, &c, &v);
	assert_true(v.synced);
	assert_false(v.err_known);
}

/* The run's verdict is the worst of its reads, not the last. */
static void
test_run_worst(void **state)
{
	struct clock_verdict s5 = {.synced = true,
				   .src = CLOCK_SRC_KERNEL,
				   .err_known = true,
				   .sync_err_ns = 5000};
	struct clock_verdict s9 = s5, s2 = s5, none = {0}, zero = s5;
	struct clock_run r;
	struct clock_verdict v;

	(void)state;
	s9.sync_err_ns = 9000;
	s2.sync_err_ns = 2000;
	zero.err_known = false;
	zero.sync_err_ns = 0;
	/* Nothing read: not synchronised. */
	memset(&r, 0, sizeof(r));
	clock_run_verdict(&r, &v);
	assert_false(v.synced);
	/* Synchronised throughout: the largest error read. */
	clock_run_note(&r, &s5);
	clock_run_note(&r, &s9);
	clock_run_note(&r, &s2);
	clock_run_verdict(&r, &v);
	assert_true(v.synced);
	assert_true(v.err_known);
	assert_int_equal(v.sync_err_ns, 9000);
	assert_int_equal(v.src, CLOCK_SRC_KERNEL);
	/* Unsynchronised once, synchronised again after: not synchronised. */
	clock_run_note(&r, &none);
	clock_run_note(&r, &s2);
	clock_run_verdict(&r, &v);
	assert_false(v.synced);
	assert_int_equal(v.sync_err_ns, 0);
	assert_int_equal(r.reads, 5);
	assert_int_equal(r.unsynced, 1);
	/* One read without an error figure: the run's error is unknown. */
	memset(&r, 0, sizeof(r));
	clock_run_note(&r, &s5);
	clock_run_note(&r, &zero);
	clock_run_note(&r, &s2);
	clock_run_verdict(&r, &v);
	assert_true(v.synced);
	assert_false(v.err_known);
	assert_int_equal(r.err_unknown, 1);
}

static void
test_chrony_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		/* 13 fields */
		"C6120035,x,3,1.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,Normal",
		/* 15 fields */
		"C6120035,x,3,1.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal,x",
		/* a number that is not */
		"C6120035,x,3,1.0,abc,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		"C6120035,x,3,1.0,,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		"C6120035,x,3,1.0,nan,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		"C6120035,x,3,1.0,inf,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		/* stratum out of range, not whole */
		"C6120035,x,17,1.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		"C6120035,x,2.5,1.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		/* negative dispersion */
		"C6120035,x,3,1.0,0,0.0,0.0,0.0,0.0,0.0,0.0,-1,1,Normal",
		/* reference ID not hex, empty leap */
		"ZZ,x,3,1.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,Normal",
		"C6120035,x,3,1.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1,",
		/* chronyc's complaint when no daemon answers */
		"506 Cannot talk to daemon",
	};
	struct clock_chrony c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (clock_chrony_parse(bad[i], strlen(bad[i]), &c) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
	}
	/* Not NUL-terminated: only len bytes are read. */
	{
		char buf[sizeof(chrony_ntp) + 8];

		memcpy(buf, chrony_ntp, sizeof(chrony_ntp) - 2);
		memset(buf + sizeof(chrony_ntp) - 2, 'x', 10);
		assert_int_equal(
			clock_chrony_parse(buf, sizeof(chrony_ntp) - 2, &c), 0);
		assert_string_equal(c.leap, "Normal");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_slew),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_feed),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_chrony),
		cmocka_unit_test(test_chrony_bad),
		cmocka_unit_test(test_verdict_zero_error),
		cmocka_unit_test(test_run_worst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
