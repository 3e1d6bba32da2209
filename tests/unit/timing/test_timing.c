/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "latprobe/timing.h"
#include "latprobe/util.h"

#define NS_PER_S 1000000000ull

/* Round numbers, DPDK's 10 MHz-rounded figures and odd measured ones. */
static const uint64_t fixed_hz[] = {
	1000000ull,    1000003ull,    25000000ull,   100000000ull,
	999999999ull,  1000000000ull, 1999999937ull, 2000000000ull,
	2595123456ull, 2600000000ull, 2999999999ull, 3300000000ull,
	4000000000ull, 4294967296ull, 4999999999ull, 5000000000ull,
};

/* Spans in ns: 1 ns .. 1 h, plus awkward ones. */
static const uint64_t spans_ns[] = {
	1ull,	       999ull,		1000ull,  123457ull,
	1000000ull,    33333333ull,	NS_PER_S, 7 * NS_PER_S + 123456789ull,
	10 * NS_PER_S, 3600 * NS_PER_S,
};

/* Seeded: every run checks the same spans. */
static uint64_t rng_state = 42;

static uint64_t
rng_next(void)
{
	return util_splitmix64(&rng_state) >> 11;
}

/* |got - exact| must stay within 1 ppm of exact plus 1 unit of truncation. */
static void
assert_close(uint64_t got, tsc_u128 exact_num, uint64_t den)
{
	tsc_u128 exact = exact_num / den;
	uint64_t ref = (uint64_t)exact;
	uint64_t diff = got > ref ? got - ref : ref - got;

	if ((double)diff > (double)ref * 1e-6 + 1.0)
		fail_msg("got %llu, exact %llu", (unsigned long long)got,
			 (unsigned long long)ref);
}

static void
check_hz(uint64_t hz)
{
	struct tsc_clock c;
	size_t i;

	assert_int_equal(tsc_clock_init(&c, hz), 0);
	assert_int_equal(c.hz, hz);
	/* Shift as large as possible: one more bit would overflow mult. */
	assert_true(c.mult >= (1ull << 63) - 1);
	assert_true(c.ns_mult >= (1ull << 63) - 1);

	for (i = 0; i < sizeof(spans_ns) / sizeof(spans_ns[0]); i++) {
		uint64_t ns = spans_ns[i];
		uint64_t cycles = (uint64_t)((tsc_u128)ns * hz / NS_PER_S);
		uint64_t rt, step;

		/* cycles -> ns against the exact 128-bit quotient */
		assert_close(tsc_to_ns(&c, cycles), (tsc_u128)cycles * NS_PER_S,
			     hz);
		assert_close(tsc_to_ns(&c, cycles + 1),
			     (tsc_u128)(cycles + 1) * NS_PER_S, hz);
		/* ns -> cycles likewise */
		assert_close(tsc_from_ns(&c, ns), (tsc_u128)ns * hz, NS_PER_S);

		/* ns -> cycles -> ns loses at most one cycle's worth of ns. */
		step = (NS_PER_S + hz - 1) / hz + 1;
		rt = tsc_to_ns(&c, tsc_from_ns(&c, ns));
		assert_true(rt <= ns + 1 + ns / 1000000);
		assert_true(rt + step + ns / 1000000 >= ns);
	}
	/* Exact multiples: one second of cycles is one second. */
	assert_close(tsc_to_ns(&c, hz), (tsc_u128)hz * NS_PER_S, hz);
	assert_close(tsc_to_ns(&c, 10 * hz), (tsc_u128)10 * hz * NS_PER_S, hz);
}

static void
test_clock_init_rejects(void **state)
{
	struct tsc_clock c;

	(void)state;
	assert_int_equal(tsc_clock_init(&c, 0), -EINVAL);
	assert_int_equal(tsc_clock_init(&c, 999999), -EINVAL);
	assert_int_equal(tsc_clock_init(&c, 100000000001ull), -EINVAL);
	assert_int_equal(tsc_clock_init(&c, UINT64_MAX), -EINVAL);
	assert_int_equal(tsc_clock_init(NULL, 2000000000ull), -EINVAL);
	assert_int_equal(tsc_clock_init(&c, 1000000ull), 0);
	assert_int_equal(tsc_clock_init(&c, 100000000000ull), 0);
}

static void
test_conversion_fixed_hz(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fixed_hz) / sizeof(fixed_hz[0]); i++)
		check_hz(fixed_hz[i]);
}

static void
test_conversion_random_hz(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < 2000; i++)
		check_hz(1000000ull +
			 rng_next() % (5000000000ull - 1000000ull));
}

static void
test_conversion_random_spans(void **state)
{
	struct tsc_clock c;
	unsigned i;

	(void)state;
	assert_int_equal(tsc_clock_init(&c, 2595123456ull), 0);
	for (i = 0; i < 100000; i++) {
		/* up to ~2^43 cycles: about an hour at 2.6 GHz */
		uint64_t cycles = rng_next() >> (rng_next() % 53 + 10);

		assert_close(tsc_to_ns(&c, cycles), (tsc_u128)cycles * NS_PER_S,
			     c.hz);
	}
}

/*
 * The bound over the range the prober converts (an RTT, turnaround or
 * network RTT: 0 to the histogram's 10 s; a T1 from the anchor: up to a
 * day): tsc_to_ns() is one 64x64-bit multiply and a shift, mult is
 * round(1e9 * 2^shift / hz), so result = floor(exact + cycles * d / 2^shift)
 * with |d| <= 1/2. Checked here: that rounding (|mult * hz - 1e9 * 2^shift|
 * <= hz / 2), that the error term cycles / 2^(shift + 1) stays below 2^-20
 * ns up to 10 s (below 2^-10 ns up to a day) at every rate from 1 MHz to
 * 5 GHz, and so that the result is the exact quotient truncated, or one
 * less when the exact value sits within that term above an integer.
 */
static void
check_bound(uint64_t hz)
{
	struct tsc_clock c;
	tsc_u128 num, got_num;
	uint64_t span10 = 10 * hz, day = 86400 * hz;

	assert_int_equal(tsc_clock_init(&c, hz), 0);
	num = (tsc_u128)NS_PER_S << c.shift;
	got_num = (tsc_u128)c.mult * hz;
	assert_true((got_num > num ? got_num - num : num - got_num) <=
		    hz / 2 + 1);
	/* cycles / 2^(shift + 1) < 2^-20 for cycles <= 10 s worth */
	assert_true((int)c.shift + 1 >= 20 + 64 - __builtin_clzll(span10));
	assert_true((int)c.shift + 1 >= 10 + 64 - __builtin_clzll(day));
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t cycles = i == 0 ? span10 : rng_next() % (span10 + 1);
		tsc_u128 exact = (tsc_u128)cycles * NS_PER_S;
		uint64_t q = (uint64_t)(exact / hz),
			 got = tsc_to_ns(&c, cycles);

		/* The bits of (cycles * mult) >> shift in 128 bits. */
		assert_true(got ==
			    (uint64_t)(((tsc_u128)cycles * c.mult) >> c.shift));

		/* One less only within 2^-20 ns above an integer. */
		if (got != q && !(got + 1 == q && (exact % hz) << 20 < hz))
			fail_msg("hz %llu cycles %llu: %llu, exact %llu",
				 (unsigned long long)hz,
				 (unsigned long long)cycles,
				 (unsigned long long)got,
				 (unsigned long long)q);
	}
}

static void
test_conversion_bound(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixed_hz) / sizeof(fixed_hz[0]); i++)
		check_bound(fixed_hz[i]);
	for (unsigned i = 0; i < 200; i++)
		check_bound(1000000ull +
			    rng_next() % (5000000000ull - 1000000ull));
}

static void
test_calibrate_short_window(void **state)
{
	struct timespec a, b;
	struct tsc_calibration cal;
	uint64_t t0, t1, ns;
	double indep, ppm;

	(void)state;
	/*
	 * Independent estimate: plain reads around CLOCK_MONOTONIC (not the
	 * _RAW clock the library uses) over a separate ~50 ms sleep.
	 */
	t0 = tsc_read();
	clock_gettime(CLOCK_MONOTONIC, &a);
	nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
	t1 = tsc_read();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (uint64_t)(b.tv_sec - a.tv_sec) * NS_PER_S + (uint64_t)b.tv_nsec -
	     (uint64_t)a.tv_nsec;
	indep = (double)(t1 - t0) * 1e9 / (double)ns;

	assert_int_equal(tsc_calibrate(100000000ull, (uint64_t)indep, &cal), 0);
	assert_true(fabs((double)cal.hz - indep) < indep * 0.01);
	assert_true(cal.window_ns >= 100000000ull);
	assert_int_equal(cal.reference_hz, (uint64_t)indep);
	ppm = ((double)(uint64_t)indep - (double)cal.hz) / (double)cal.hz * 1e6;
	assert_true(fabs(cal.ppm_vs_reference - ppm) < 1.0);
	assert_true(cal.spread_ppm >= 0.0);
	assert_true(isfinite(cal.spread_ppm));

	/* No reference: nothing to compare with. */
	assert_int_equal(tsc_calibrate(10000000ull, 0, &cal), 0);
	assert_int_equal(cal.reference_hz, 0);
	assert_true(cal.ppm_vs_reference == 0.0);
	assert_true(fabs((double)cal.hz - indep) < indep * 0.01);

	assert_int_equal(tsc_calibrate(1000, 0, &cal), -EINVAL);
	assert_int_equal(tsc_calibrate(0, 0, NULL), -EINVAL);
}

static void
test_invariance(void **state)
{
	struct tsc_invariance inv;
	char want[64] = "";
	char line[4096];
	FILE *f;

	(void)state;
	memset(&inv, 0x5a, sizeof(inv));
	tsc_check_invariance(&inv);
	assert_true(inv.invariant == (inv.cpuid_invariant ||
				      (inv.constant_tsc && inv.nonstop_tsc)));
	assert_true(memchr(inv.clocksource, '\0', sizeof(inv.clocksource)) !=
		    NULL);

	f = fopen("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource",
		  "r");
	if (f != NULL) {
		if (fgets(want, sizeof(want), f) != NULL)
			want[strcspn(want, "\n")] = '\0';
		fclose(f);
		assert_true(inv.clocksource[0] != '\0');
		assert_string_equal(inv.clocksource, want);
	}

	/* Cross-check one flag with a plain substring search. */
	f = fopen("/proc/cpuinfo", "r");
	if (f != NULL) {
		bool seen = false;

		while (fgets(line, sizeof(line), f) != NULL) {
			if (strncmp(line, "flags", 5) != 0)
				continue;
			seen = strstr(line, " constant_tsc") != NULL;
			break;
		}
		fclose(f);
		assert_true(inv.constant_tsc == seen);
	}
	tsc_check_invariance(NULL); /* must not crash */
}

static void
test_read_cost(void **state)
{
	struct tsc_read_cost cost;

	(void)state;
	memset(&cost, 0xff, sizeof(cost)); /* NaN everywhere */
	tsc_measure_read_cost(&cost);
	/*
	 * Back-to-back reads of a TSC that ticks at >= 1 GHz advance it, so
	 * no flavour can cost 0 cycles (a 0 means the batch was not timed);
	 * a median of 100,000 cycles would mean every read traps (a TSC the
	 * hypervisor emulates is ~1-2 k), so the figure would be meaningless.
	 */
	assert_true(isfinite(cost.plain_cycles));
	assert_true(isfinite(cost.start_cycles));
	assert_true(isfinite(cost.end_cycles));
	assert_true(cost.plain_cycles > 0 && cost.plain_cycles < 1e5);
	assert_true(cost.start_cycles > 0 && cost.start_cycles < 1e5);
	assert_true(cost.end_cycles > 0 && cost.end_cycles < 1e5);
}

static void
test_ordered_reads_advance(void **state)
{
	uint64_t a, b, c;

	(void)state;
	a = tsc_read_start();
	b = tsc_read();
	c = tsc_read_end();
	assert_true(b >= a);
	assert_true(c >= b);
}

static void
test_anchor(void **state)
{
	struct tsc_anchor a, b;
	struct tsc_clock c;
	uint64_t prev, t;
	int i;

	(void)state;
	assert_int_equal(tsc_clock_init(&c, 2595123456ull), 0);
	tsc_anchor_now(&a);
	tsc_anchor_now(&b);
	assert_true(a.realtime_ns > 1500000000ull * NS_PER_S); /* after 2017 */
	assert_true(b.tsc > a.tsc);

	assert_int_equal(tsc_anchor_to_realtime_ns(&a, &c, a.tsc),
			 a.realtime_ns);
	/* Monotonic across the anchor, before and after it. */
	prev = tsc_anchor_to_realtime_ns(&a, &c, a.tsc - 1000000000ull);
	for (i = -999; i <= 1000; i++) {
		t = a.tsc + (uint64_t)((int64_t)i * 1000003);
		uint64_t ns = tsc_anchor_to_realtime_ns(&a, &c, t);

		assert_true(ns >= prev);
		prev = ns;
	}
	/* One second of cycles later is one second later (1 ns truncation). */
	t = tsc_anchor_to_realtime_ns(&a, &c, a.tsc + c.hz);
	assert_in_range(t - a.realtime_ns, NS_PER_S - 1, NS_PER_S);
	t = tsc_anchor_to_realtime_ns(&a, &c, a.tsc - c.hz);
	assert_in_range(a.realtime_ns - t, NS_PER_S - 1, NS_PER_S);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_init_rejects),
		cmocka_unit_test(test_conversion_fixed_hz),
		cmocka_unit_test(test_conversion_random_hz),
		cmocka_unit_test(test_conversion_random_spans),
		cmocka_unit_test(test_conversion_bound),
		cmocka_unit_test(test_calibrate_short_window),
		cmocka_unit_test(test_invariance),
		cmocka_unit_test(test_read_cost),
		cmocka_unit_test(test_ordered_reads_advance),
		cmocka_unit_test(test_anchor),
	};

	return cmocka_run_group_tests_name("timing", tests, NULL, NULL);
}
