/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Percentile intervals and the binomial tails they rest on. The expected
 * figures come from scipy.stats.binom (scipy 1.10): binom.pmf/cdf, and
 * binom.sf(k - 1) for our P(X >= k); the ranks from scanning binom.cdf
 * over every k (small n) or from binom.ppf/isf walked to the rule's edge
 * (n = 10^6 .. 10^9).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "latprobe/histogram.h"
#include "latprobe/pct_ci.h"

/* |got - want| within rel of want. */
static void
assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("got %.17g, want %.17g (rel %g)", got, want, rel);
}

static void
test_binom_exact(void **state)
{
	(void)state;
	assert_close(binom_pmf(3, 10, 0.3), 0.26682793199999977, 1e-13);
	assert_close(binom_cdf(3, 10, 0.3), 0.6496107184000002, 1e-13);
	assert_close(binom_sf(8, 10, 0.3), 0.0015903864, 1e-12);
	assert_close(binom_sf(6, 10, 0.1), 0.0001469026, 1e-12);
	assert_close(binom_sf(16, 20, 0.5), 0.005908966064453125, 1e-13);
	assert_close(binom_sf(10, 10, 0.5), 0.0009765625, 1e-13);
	assert_close(binom_sf(61, 100, 0.5), 0.017600100108852428, 1e-12);
	assert_close(binom_sf(4, 1000, 0.001), 0.0189268334503604, 1e-12);
	/* Far in the tail: relative accuracy, not just absolute. */
	assert_close(binom_sf(999, 1000, 0.9), 1.9595578810979983e-44, 1e-11);
	assert_close(binom_pmf(500, 1000, 0.5), 0.025225018178360804, 1e-13);
	/* Large n: the saddle-point form, no lgamma cancellation. */
	assert_close(binom_pmf(1000000, 1000000000, 0.001),
		     0.0003991418680079102, 1e-11);
	/* scipy's figure here is itself 2e-8 off a long-double sum of the
	 * terms from lgammal (0.263554957); both within 1e-7. */
	assert_close(binom_cdf(499990000, 1000000000, 0.5), 0.26355496326838573,
		     1e-7);
	assert_close(binom_sf(999001, 1000000000, 0.001), 0.8413447864086574,
		     1e-10);
	/* The ends. */
	assert_true(binom_cdf(10, 10, 0.3) == 1.0);
	assert_true(binom_sf(0, 10, 0.3) == 1.0);
	assert_true(binom_sf(11, 10, 0.3) == 0.0);
	assert_true(isnan(binom_cdf(1, 10, 0.0)));
	assert_true(isnan(binom_sf(1, 10, 1.0)));
}

static void
test_binom_test_greater(void **state)
{
	(void)state;
	/* 3 of 1000 when 1 in 1000 is expected: p = P(X >= 3). */
	assert_close(binom_test_greater(3, 1000, 0.001), 0.080209342840201,
		     1e-12);
	assert_close(binom_test_greater(4, 1000, 0.001), 0.0189268334503604,
		     1e-12);
	assert_close(binom_test_greater(61, 100, 0.5), 0.017600100108852428,
		     1e-12);
	/* 10 of 10 when 99.97 % are affected: no evidence at all. */
	assert_true(binom_test_greater(10, 10, 0.9997) > 0.99);
	assert_true(binom_test_greater(0, 10, 0.5) == 1.0);
	assert_true(binom_test_greater(1, 10, 0.0) == 0.0);
	assert_true(binom_test_greater(1, 10, 1.0) == 1.0);
	assert_true(binom_test_greater(11, 10, 0.5) == 0.0);
	assert_true(isnan(binom_test_greater(1, 10, NAN)));
}

struct rank_case {
	uint64_t n;
	double q;
	uint64_t lo, hi; /* 0, 0: too few */
};

static void
test_interval_scipy(void **state)
{
	static const struct rank_case c[] = {
		{6, 0.5, 1, 6},
		{5, 0.5, 0, 0},
		{10, 0.5, 2, 9},
		{100, 0.5, 40, 61},
		{1000, 0.5, 469, 532},
		{1000, 0.9, 881, 919},
		{1000, 0.99, 983, 997},
		{367, 0.99, 0, 0},
		{368, 0.99, 360, 368},
		{500, 0.999, 0, 0},
		{3687, 0.999, 0, 0},
		{3688, 0.999, 3680, 3688},
		{10000, 0.999, 9983, 9997},
		{20000, 0.9999, 0, 0},
		{40000, 0.9999, 39992, 40000},
		{100000, 0.9999, 99983, 99997},
		{1000000, 0.99, 989805, 990196},
		{100000000, 0.99999, 99998938, 99999063},
		{1000000000, 0.999, 998998041, 999001960},
		{1000000000, 0.5, 499969010, 500030991},
	};
	uint64_t lo, hi;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int ret = pct_interval(c[i].n, c[i].q, 0.95, &lo, &hi);

		if (c[i].lo == 0) {
			if (ret != -ERANGE)
				fail_msg("n %llu q %g: %d, want -ERANGE",
					 (unsigned long long)c[i].n, c[i].q,
					 ret);
			continue;
		}
		if (ret != 0 || lo != c[i].lo || hi != c[i].hi)
			fail_msg("n %llu q %g: %d [%llu, %llu], want [%llu, "
				 "%llu]",
				 (unsigned long long)c[i].n, c[i].q, ret,
				 (unsigned long long)lo, (unsigned long long)hi,
				 (unsigned long long)c[i].lo,
				 (unsigned long long)c[i].hi);
	}
}

/*
 * Every n up to 400 for a few q against the rule applied by brute force:
 * the CDF built term by term in long double from (1 - q)^n, then the
 * largest l with F(l - 1) <= a and the smallest u with 1 - F(u - 1) <= a.
 */
static void
test_interval_brute(void **state)
{
	static const double qs[] = {0.5, 0.9, 0.95, 0.99, 0.999};
	static long double cdf[402];
	const long double a = 0.025L;

	(void)state;
	for (size_t iq = 0; iq < sizeof(qs) / sizeof(qs[0]); iq++) {
		long double q = qs[iq];

		for (uint64_t n = 1; n <= 400; n++) {
			long double term = powl(1.0L - q, (long double)n);
			uint64_t l = 0, u = 0, lo = 0, hi = 0;
			int ret;

			cdf[0] = term;
			for (uint64_t k = 1; k <= n; k++) {
				term *= (long double)(n - k + 1) /
					(long double)k * q / (1.0L - q);
				cdf[k] = cdf[k - 1] + term;
			}
			for (uint64_t k = 0; k < n; k++)
				if (cdf[k] <= a)
					l = k + 1;
			for (uint64_t k = n; k >= 1; k--)
				if (1.0L - cdf[k - 1] <= a)
					u = k;
			ret = pct_interval(n, qs[iq], 0.95, &lo, &hi);
			if (l == 0 || u == 0) {
				if (ret != -ERANGE)
					fail_msg("n %llu q %g: %d",
						 (unsigned long long)n, qs[iq],
						 ret);
				continue;
			}
			if (ret != 0 || lo != l || hi != u)
				fail_msg("n %llu q %g: %d [%llu, %llu], want "
					 "[%llu, %llu]",
					 (unsigned long long)n, qs[iq], ret,
					 (unsigned long long)lo,
					 (unsigned long long)hi,
					 (unsigned long long)l,
					 (unsigned long long)u);
		}
	}
}

static void
test_min_samples(void **state)
{
	uint64_t lo, hi;

	(void)state;
	/* The smallest n with max(q, 1 - q)^n <= 0.025. */
	assert_int_equal(pct_min_samples(0.5, 0.95), 6);
	assert_int_equal(pct_min_samples(0.9, 0.95), 36);
	assert_int_equal(pct_min_samples(0.99, 0.95), 368);
	assert_int_equal(pct_min_samples(0.999, 0.95), 3688);
	assert_int_equal(pct_min_samples(0.9999, 0.95), 36887);
	assert_int_equal(pct_min_samples(0.99999, 0.95), 368887);
	assert_int_equal(pct_min_samples(1.0, 0.95), 0);
	assert_int_equal(pct_min_samples(0.5, 1.0), 0);
	/* The rule and pct_interval() agree at the edge. */
	for (unsigned i = 0; i < 5; i++) {
		double q = 1.0 - pow(10.0, -(double)(i + 1));
		uint64_t m = pct_min_samples(q, 0.95);

		assert_int_equal(pct_interval(m - 1, q, 0.95, &lo, &hi),
				 -ERANGE);
		assert_int_equal(pct_interval(m, q, 0.95, &lo, &hi), 0);
		assert_int_equal(hi, m);
	}
	assert_int_equal(pct_interval(0, 0.5, 0.95, &lo, &hi), -ERANGE);
	assert_int_equal(pct_interval(10, 0.0, 0.95, &lo, &hi), -EINVAL);
	assert_int_equal(pct_interval(10, 0.5, 1.0, &lo, &hi), -EINVAL);
	assert_int_equal(pct_interval(10, 0.5, 0.95, NULL, &hi), -EINVAL);
}

static void
test_histogram_ci(void **state)
{
	static struct histogram h;
	uint64_t lo = 0, hi = 0;

	(void)state;
	/* 1..200 ns once each: counters below 256 are exact, so the ranks
	 * are the values: n 200, p50 [86, 115], p90 [171, 189]. */
	histogram_init(&h);
	for (uint64_t v = 1; v <= 200; v++)
		histogram_record(&h, v);
	assert_int_equal(histogram_percentile_ci(&h, 50, 0.95, &lo, &hi), 0);
	assert_int_equal(lo, 86);
	assert_int_equal(hi, 115);
	assert_int_equal(histogram_percentile_ci(&h, 90, 0.95, &lo, &hi), 0);
	assert_int_equal(lo, 171);
	assert_int_equal(hi, 189);
	/* p99 needs 368. */
	assert_int_equal(histogram_percentile_ci(&h, 99, 0.95, &lo, &hi),
			 -ERANGE);

	/* Wide counters: the interval takes their edges, clipped to the
	 * data. 1000 values of 1000 ns (counter 1000..1003). */
	histogram_init(&h);
	for (unsigned i = 0; i < 1000; i++)
		histogram_record(&h, 1000);
	assert_int_equal(histogram_percentile_ci(&h, 99, 0.95, &lo, &hi), 0);
	assert_int_equal(lo, 1000);
	assert_int_equal(hi, 1000);
	histogram_record(&h, 5000);
	histogram_record(&h, 1001);
	assert_int_equal(histogram_percentile_ci(&h, 50, 0.95, &lo, &hi), 0);
	assert_int_equal(lo, 1000);
	assert_int_equal(hi, histogram_index_highest(histogram_index(1000)));

	histogram_init(&h);
	assert_int_equal(histogram_percentile_ci(&h, 50, 0.95, &lo, &hi),
			 -ERANGE);
	assert_int_equal(histogram_percentile_ci(NULL, 50, 0.95, &lo, &hi),
			 -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binom_exact),
		cmocka_unit_test(test_binom_test_greater),
		cmocka_unit_test(test_interval_scipy),
		cmocka_unit_test(test_interval_brute),
		cmocka_unit_test(test_min_samples),
		cmocka_unit_test(test_histogram_ci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
