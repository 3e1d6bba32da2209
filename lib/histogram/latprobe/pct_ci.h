/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PCT_CI_H
#define LATPROBE_PCT_CI_H

/*
 * Distribution-free confidence intervals of a percentile, and the exact
 * binomial test the stall verdict rests on. Plain functions, no state.
 *
 * For the quantile q of n independent samples, the number B of samples at
 * or below the true quantile is Binomial(n, q). The l-th and u-th order
 * statistics (1-based, l < u) bound the true quantile with probability
 * P(l <= B < u) = F(u - 1) - F(l - 1), whatever the distribution (Hahn &
 * Meeker, "Statistical Intervals", ch. 5).
 *
 * The rule here is the equal-tailed one: with a = (1 - conf) / 2,
 *   l = the largest rank with  P(B <= l - 1) <= a   (lower miss at most a)
 *   u = the smallest rank with P(B >= u)     <= a   (upper miss at most a)
 * so the coverage is at least conf and neither side borrows from the
 * other. Either rank outside 1..n means the interval runs past the data:
 * too few samples for that quantile. This happens exactly when
 * max(q, 1 - q)^n > a, so p99.9 at 95 % needs 3,688 samples, p99 368,
 * p50 6 (pct_min_samples()).
 *
 * Cost: the binomial probabilities are exact in double precision (the
 * point masses by Loader's saddle-point form, "Fast and Accurate
 * Computation of Binomial Probabilities", 2000, with lgamma below 16;
 * tails summed from the point outwards, where the terms only shrink).
 * One tail costs O(sqrt(n q (1 - q))) multiplications (at most ~9 standard
 * deviations of terms before they drop below 2^-60 of the sum), so
 * pct_interval() is ~0.2 ms for p50 of 10^9 samples and microseconds for
 * the tail percentiles or interval-sized series; the ranks are found from
 * a normal-approximation guess by single steps, a handful of them.
 */

#include <stdint.h>

#include "latprobe/histogram.h"

/* The confidence every report uses. */
#define PCT_CI_CONF 0.95

/* P(X = k), P(X <= k) and P(X >= k) for X ~ Binomial(n, p), 0 < p < 1
 * (NaN otherwise). */
double binom_pmf(uint64_t k, uint64_t n, double p);
double binom_cdf(uint64_t k, uint64_t n, double p);
double binom_sf(uint64_t k, uint64_t n, double p);

/*
 * The exact one-sided p-value of k successes in m trials against a success
 * probability p0, the alternative being "greater": P(X >= k), X ~
 * Binomial(m, p0). 1 for k = 0; p0 <= 0 gives 0 for any k > 0, p0 >= 1
 * gives 1. NaN for a NaN p0.
 */
double binom_test_greater(uint64_t k, uint64_t m, double p0);

/*
 * The ranks (1-based order statistics) of the conf interval of quantile q
 * (0 < q < 1) among n samples, by the rule above. 0 with 1 <= *lo_rank <
 * *hi_rank <= n; -ERANGE when n is too few for q (the ranks are then left
 * alone); -EINVAL for q or conf outside (0, 1) or NULL pointers.
 */
int pct_interval(uint64_t n, double q, double conf, uint64_t *lo_rank,
		 uint64_t *hi_rank);

/* The fewest samples for which pct_interval(n, q, conf) succeeds; 0 for
 * q or conf outside (0, 1). */
uint64_t pct_min_samples(double q, double conf);

/*
 * The conf interval of percentile p (0 < p < 100) of h's in-range values,
 * as values: *lo_ns the lowest value of the counter holding the lo_rank-th
 * value, *hi_ns the highest value of the counter holding the hi_rank-th,
 * both clipped to [min, max] (the counters are 0.78 % wide: the interval
 * widens by their width rather than pretend a precision it does not
 * have). 0, -ERANGE (too few samples, an empty h included) or -EINVAL.
 */
int histogram_percentile_ci(const struct histogram *h, double p, double conf,
			    uint64_t *lo_ns, uint64_t *hi_ns);

#endif /* LATPROBE_PCT_CI_H */
