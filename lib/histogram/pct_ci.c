/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Percentile intervals from order statistics and the exact binomial tail
 * (see latprobe/pct_ci.h for the rule and its cost).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/pct_ci.h"

#define LN_SQRT_2PI 0.918938533204672741780329736406 /* log(sqrt(2 pi)) */
/* A tail's sum stops when its next term is below this share of it. */
#define TAIL_EPS    0x1p-60

/*
 * log(x!) - log(sqrt(2 pi x) (x/e)^x): Stirling's error, by its series
 * above 15 (the next term, 1/(1188 x^9), is below 2e-14 there) and from
 * lgamma below, where lgamma is small and exact enough.
 */
static double
stirlerr(double x)
{
	double x2;

	if (x <= 15.0)
		return lgamma(x + 1.0) - (x + 0.5) * log(x) + x - LN_SQRT_2PI;
	x2 = x * x;
	return (1.0 / 12.0 -
		(1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * x2)) / x2) /
			x2) /
	       x;
}

/*
 * x log(x / m) + m - x, the deviance term, without the cancellation of
 * the direct form when x is near m: with v = (x - m) / (x + m) it is
 * (x - m) v + 2 x (v^3/3 + v^5/5 + ...).
 */
static double
bd0(double x, double m)
{
	double v, s, ej, s1;

	if (fabs(x - m) >= 0.1 * (x + m))
		return x * log(x / m) + m - x;
	v = (x - m) / (x + m);
	s = (x - m) * v;
	ej = 2.0 * x * v;
	v *= v;
	for (int j = 1; j < 1000; j++) {
		ej *= v;
		s1 = s + ej / (2 * j + 1);
		if (s1 == s)
			break;
		s = s1;
	}
	return s;
}

static double
pmf(uint64_t k, uint64_t n, double p)
{
	double dk = (double)k, dn = (double)n, dnk = (double)(n - k), lc;

	if (k > n)
		return 0.0;
	if (k == 0)
		return exp(dn * log1p(-p));
	if (k == n)
		return exp(dn * log(p));
	lc = stirlerr(dn) - stirlerr(dk) - stirlerr(dnk) - bd0(dk, dn * p) -
	     bd0(dnk, dn * (1.0 - p));
	return exp(lc) * sqrt(dn / (2.0 * M_PI * dk * dnk));
}

/* P(X <= k) summed from k down, for k at or below the mean: every term
 * is smaller than the one before. */
static double
sum_down(uint64_t k, uint64_t n, double p)
{
	double term = pmf(k, n, p), s = term;

	for (uint64_t j = k; j > 0; j--) {
		term *= (double)j * (1.0 - p) / ((double)(n - j + 1) * p);
		s += term;
		if (term <= s * TAIL_EPS)
			break;
	}
	return s;
}

/* P(X >= k) summed from k up, for k at or above the mean. */
static double
sum_up(uint64_t k, uint64_t n, double p)
{
	double term = pmf(k, n, p), s = term;

	for (uint64_t j = k; j < n; j++) {
		term *= (double)(n - j) * p / ((double)(j + 1) * (1.0 - p));
		s += term;
		if (term <= s * TAIL_EPS)
			break;
	}
	return s;
}

static double
clamp01(double x)
{
	return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

double
binom_pmf(uint64_t k, uint64_t n, double p)
{
	if (!(p > 0.0 && p < 1.0))
		return NAN;
	return pmf(k, n, p);
}

double
binom_cdf(uint64_t k, uint64_t n, double p)
{
	if (!(p > 0.0 && p < 1.0))
		return NAN;
	if (k >= n)
		return 1.0;
	/* Sum the side that shrinks away from k; the other is 1 - it. */
	if ((double)k > (double)n * p)
		return clamp01(1.0 - sum_up(k + 1, n, p));
	return clamp01(sum_down(k, n, p));
}

double
binom_sf(uint64_t k, uint64_t n, double p)
{
	if (!(p > 0.0 && p < 1.0))
		return NAN;
	if (k == 0)
		return 1.0;
	if (k > n)
		return 0.0;
	if ((double)k < (double)n * p)
		return clamp01(1.0 - sum_down(k - 1, n, p));
	return clamp01(sum_up(k, n, p));
}

double
binom_test_greater(uint64_t k, uint64_t m, double p0)
{
	if (isnan(p0))
		return NAN;
	if (k == 0 || p0 >= 1.0)
		return 1.0;
	if (p0 <= 0.0 || k > m)
		return 0.0;
	return binom_sf(k, m, p0);
}

/* The standard normal's upper quantile: z with P(Z > z) = a (0 < a <=
 * 0.5), by bisection on erfc; only a starting point for the rank search. */
static double
z_upper(double a)
{
	double lo = 0.0, hi = 40.0;

	for (int i = 0; i < 60; i++) {
		double mid = 0.5 * (lo + hi);

		if (0.5 * erfc(mid / M_SQRT2) > a)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* max(q, 1 - q)^n <= a: both extreme ranks are inside the data. */
static bool
enough(uint64_t n, double q, double a)
{
	double m = q < 0.5 ? q : 1.0 - q; /* the smaller of q and 1 - q */

	return n != 0 && (double)n * log1p(-m) <= log(a);
}

uint64_t
pct_min_samples(double q, double conf)
{
	double a = (1.0 - conf) / 2.0, m;
	uint64_t n;

	if (!(q > 0.0 && q < 1.0 && conf > 0.0 && conf < 1.0))
		return 0;
	m = q < 0.5 ? q : 1.0 - q;
	n = (uint64_t)ceil(log(a) / log1p(-m));
	/* The ceil of a rounded quotient may be one off either way. */
	while (n > 1 && enough(n - 1, q, a))
		n--;
	while (!enough(n, q, a))
		n++;
	return n;
}

int
pct_interval(uint64_t n, double q, double conf, uint64_t *lo_rank,
	     uint64_t *hi_rank)
{
	double a, z, sd, mean, f, g, t;
	uint64_t k;

	if (lo_rank == NULL || hi_rank == NULL ||
	    !(q > 0.0 && q < 1.0 && conf > 0.0 && conf < 1.0))
		return -EINVAL;
	a = (1.0 - conf) / 2.0;
	if (!enough(n, q, a))
		return -ERANGE;
	mean = (double)n * q;
	sd = sqrt(mean * (1.0 - q));
	z = z_upper(a);

	/*
	 * Lower rank: the largest k with F(k) <= a, then l = k + 1. Start
	 * from the normal guess and walk one rank at a time, adding or
	 * taking off one point mass (the guess is within a few ranks).
	 * enough() made F(0) = (1 - q)^n <= a, so the walk ends at k >= 0.
	 */
	f = floor(mean - z * sd);
	k = f < 0.0 ? 0 : f > (double)(n - 1) ? n - 1 : (uint64_t)f;
	f = binom_cdf(k, n, q);
	if (f <= a) {
		while (k + 1 < n) {
			t = f + pmf(k + 1, n, q);
			if (t > a)
				break;
			f = t;
			k++;
		}
	} else {
		while (k > 0 && f > a) {
			f -= pmf(k, n, q);
			k--;
		}
	}
	*lo_rank = k + 1;

	/* Upper rank: the smallest u with P(B >= u) <= a; q^n <= a. */
	g = ceil(mean + z * sd);
	k = g < 1.0 ? 1 : g > (double)n ? n : (uint64_t)g;
	g = binom_sf(k, n, q);
	if (g <= a) {
		while (k > 1) {
			t = g + pmf(k - 1, n, q);
			if (t > a)
				break;
			g = t;
			k--;
		}
	} else {
		while (k < n && g > a) {
			g -= pmf(k, n, q);
			k++;
		}
	}
	*hi_rank = k;
	/* Only a rounding tie at a tiny n could cross them; no interval. */
	if (*lo_rank >= *hi_rank)
		return -ERANGE;
	return 0;
}

/* The counter holding the rank-th in-range value (1-based). */
static unsigned
counter_of_rank(const struct histogram *h, uint64_t rank)
{
	uint64_t seen = 0;
	unsigned i;

	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return i;
	}
	return HISTOGRAM_COUNTERS - 1;
}

static uint64_t
clip(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int
histogram_percentile_ci(const struct histogram *h, double p, double conf,
			uint64_t *lo_ns, uint64_t *hi_ns)
{
	uint64_t l, u;
	int ret;

	if (h == NULL || lo_ns == NULL || hi_ns == NULL)
		return -EINVAL;
	ret = pct_interval(h->total, p / 100.0, conf, &l, &u);
	if (ret != 0)
		return ret;
	*lo_ns = clip(histogram_index_lowest(counter_of_rank(h, l)), h->min,
		      h->max);
	*hi_ns = clip(histogram_index_highest(counter_of_rank(h, u)), h->min,
		      h->max);
	return 0;
}
