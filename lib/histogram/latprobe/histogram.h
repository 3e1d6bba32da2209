/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HISTOGRAM_H
#define LATPROBE_HISTOGRAM_H

/*
 * Per-lcore latency histogram with the HdrHistogram bucket layout for
 * lowest = 1 ns, highest = 10 s, 2 significant digits: 256 sub-buckets per
 * power of two (relative error <= 1/128 = 0.78 %), 3,584 counters.
 *
 * One writer per histogram. The writer increments its counters with
 * util_relaxed_add() (no lock prefix, no fence). Readers on other
 * cores take snapshots with relaxed loads; because every counter only grows,
 * the difference of two snapshots is an exact interval.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/util.h"

#define HISTOGRAM_SUB_BITS   8 /* 2^8 = 256 sub-buckets: 2 significant digits */
#define HISTOGRAM_HALF_SUB   (1u << (HISTOGRAM_SUB_BITS - 1))
#define HISTOGRAM_LOWEST_NS  1ull
#define HISTOGRAM_HIGHEST_NS 10000000000ull /* 10 s */
/*
 * HdrHistogram's counts_len for these parameters, (27 buckets + 1) * 128:
 * counters 0..255 are exact, then each run of 128 covers one power of two
 * in steps of 2^b. 10 s itself maps to counter 3477; 3478..3583 (up to
 * 2^34 - 1 ns) exist only so that the array has HdrHistogram's exact
 * length and an .hlog export is pure encoding.
 */
#define HISTOGRAM_COUNTERS   3584

#define HISTOGRAM_DEFAULT_BUCKETS    20	   /* PsPing's -h default */
#define HISTOGRAM_MAX_LINEAR_BUCKETS 10000 /* histogram_table_linear() */
#define HISTOGRAM_MAX_EDGES	     10000 /* histogram_table_edges() */
#define HISTOGRAM_SPEC_MAX_LEN	     4096  /* histogram_parse_spec() input */

struct histogram {
	/* Ever-growing counters; only the owning writer stores to them. */
	uint64_t counts[HISTOGRAM_COUNTERS];
	uint64_t total;	    /* recorded in range (sum of counts[]) */
	uint64_t underflow; /* values < HISTOGRAM_LOWEST_NS (i.e. 0) */
	uint64_t overflow;  /* values > HISTOGRAM_HIGHEST_NS */
	uint64_t min;	    /* UINT64_MAX while empty */
	uint64_t max;	    /* 0 while empty */
	uint64_t sum;	    /* sum of in-range values, ns */
	double sum_sq;	    /* sum of squares of in-range values, ns^2 */
} __attribute__((aligned(64)));

/* One row of a PsPing-style bucket table. */
struct histogram_row {
	uint64_t upper_ns; /* inclusive upper edge of the bucket */
	uint64_t count;
};

/* Zero everything (min = UINT64_MAX). Cannot fail. */
void histogram_init(struct histogram *h);

/* Heap-allocated, cache-aligned, initialised; NULL with errno on failure. */
struct histogram *histogram_create(void);
void histogram_destroy(struct histogram *h);

/* Counter index of value v (v >= 1, v <= HISTOGRAM_HIGHEST_NS). */
static inline unsigned
histogram_index(uint64_t v)
{
	unsigned b =
		64u - (unsigned)__builtin_clzll(v | 255u) - HISTOGRAM_SUB_BITS;

	return (b << (HISTOGRAM_SUB_BITS - 1)) + (unsigned)(v >> b);
}

/*
 * Lowest and highest value that map to counter idx (equal below 256,
 * 2^b - 1 apart above). 0 when idx >= HISTOGRAM_COUNTERS.
 */
uint64_t histogram_index_lowest(unsigned idx);
uint64_t histogram_index_highest(unsigned idx);

/*
 * Record one value in ns. Returns false (and counts it in underflow or
 * overflow) when it is outside [1 ns, 10 s]; never clamps silently.
 * Single writer only.
 */
static inline __attribute__((always_inline)) bool
histogram_record(struct histogram *h, uint64_t v)
{
	/* One compare for both ends: v = 0 wraps to the top. */
	if (v - HISTOGRAM_LOWEST_NS >
	    HISTOGRAM_HIGHEST_NS - HISTOGRAM_LOWEST_NS) {
		if (v < HISTOGRAM_LOWEST_NS)
			util_relaxed_add(&h->underflow, 1);
		else
			util_relaxed_add(&h->overflow, 1);
		return false;
	}
	util_relaxed_add(&h->counts[histogram_index(v)], 1);
	util_relaxed_add(&h->total, 1);
	util_relaxed_add(&h->sum, v);
	{
		double sq;

		/* v <= 10 s in ns < 2^63: the signed conversion is one
		 * instruction, the unsigned one a branchy sequence. */
		double d = (double)(int64_t)v;

		__atomic_load(&h->sum_sq, &sq, __ATOMIC_RELAXED);
		sq += d * d;
		__atomic_store(&h->sum_sq, &sq, __ATOMIC_RELAXED);
	}
	if (v < __atomic_load_n(&h->min, __ATOMIC_RELAXED))
		__atomic_store_n(&h->min, v, __ATOMIC_RELAXED);
	if (v > __atomic_load_n(&h->max, __ATOMIC_RELAXED))
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
	return true;
}

/*
 * Copy h into out with relaxed loads; safe while the writer records.
 * out->total is the sum of the copied counters, so a snapshot is always
 * self-consistent; sum, sum_sq, min and max may include or miss the one
 * value in flight.
 */
void histogram_snapshot(const struct histogram *h, struct histogram *out);

/*
 * out = now - prev for every counter (an interval). min/max of the interval
 * are derived from its lowest/highest non-empty bucket (within 0.78 %),
 * tightened by now's cumulative min/max. now and prev must be snapshots
 * (or quiescent) and prev not newer than now; out may alias either.
 */
void histogram_interval(struct histogram *out, const struct histogram *now,
			const struct histogram *prev);

/* dst += src (element-wise; min/max combined). src may be live. */
void histogram_merge(struct histogram *dst, const struct histogram *src);
/*
 * dst -= part, where part holds a subset of what dst holds (recorded by the
 * same writer, after dst: every counter of part at most dst's). min and max
 * stay when their counters are still non-empty, else become the edges of
 * the new extreme counters (so they are within one counter of the exact
 * ones, and always inside the extreme counters). 0, or -EINVAL (nothing
 * changed) when part is not a subset.
 */
int histogram_subtract(struct histogram *dst, const struct histogram *part);

/*
 * One lcore's share of a periodic report: the interval of the live
 * histogram h since the snapshot *prev merged into sum, and *prev moved on
 * to h's state now. snap and iv are scratch histograms.
 */
void histogram_take_interval(struct histogram *sum, const struct histogram *h,
			     struct histogram *prev, struct histogram *snap,
			     struct histogram *iv);

uint64_t histogram_count(const struct histogram *h);
uint64_t histogram_min(const struct histogram *h); /* 0 when empty */
uint64_t histogram_max(const struct histogram *h); /* 0 when empty */
double histogram_mean(const struct histogram *h);  /* 0 when empty */
double
histogram_stddev(const struct histogram *h); /* population; 0 when empty */

/*
 * Value at percentile p (0 < p <= 100), as HdrHistogram reports it: the
 * highest equivalent value of the bucket holding the ceil(p/100 * count)-th
 * value, clipped to [min, max]. 0 when empty or p is NaN; p <= 0 gives
 * min, p > 100 is taken as 100.
 */
uint64_t histogram_percentile(const struct histogram *h, double p);
/* The rank of percentile p (in (0, 100]) among count values (> 0), as
 * histogram_percentile() takes it: ceil(p/100 * count), at least 1. */
uint64_t histogram_rank(double p, uint64_t count);

/*
 * PsPing "-h N": n equal-width buckets between min and max (the last upper
 * edge is max). Fills rows[0..n-1]; returns n, or -EINVAL (n == 0 or
 * n > HISTOGRAM_MAX_LINEAR_BUCKETS). An empty histogram yields n rows of
 * zero count.
 *
 * Row i holds the values v with upper_ns[i-1] < v <= upper_ns[i] (integer
 * edges min + (i+1)*(max-min)/n, rounded down). A counter wider than 1 ns
 * goes whole into the row of its middle value (clipped to [min, max]), so
 * an edge is exact to within 0.78 %. Only in-range values are tabulated
 * (the rows sum to histogram_count()); underflow and overflow are reported
 * apart by the caller.
 */
int histogram_table_linear(const struct histogram *h, unsigned n,
			   struct histogram_row *rows);

/*
 * PsPing "-h 10,20,50": explicit ascending upper edges in ns; a last row
 * with upper_ns = UINT64_MAX holds everything above the last edge. rows must
 * have n_edges + 1 entries; returns n_edges + 1 or -EINVAL (not strictly
 * ascending, n_edges == 0 or > HISTOGRAM_MAX_EDGES). Same row rule and
 * same in-range-only totals as histogram_table_linear().
 */
int histogram_table_edges(const struct histogram *h, const uint64_t *edges_ns,
			  unsigned n_edges, struct histogram_row *rows);

/*
 * Parse a -h argument: "N" (bucket count) or "e1,e2,..." (edges in µs,
 * decimals allowed). On success returns 0 and sets either *n_buckets (> 0,
 * *n_edges = 0) or edges_ns[0..*n_edges-1] (*n_buckets = 0). -EINVAL on bad
 * syntax, a non-ascending list or more than max_edges edges.
 *
 * A string of digits only is a count, 1..HISTOGRAM_MAX_LINEAR_BUCKETS.
 * Anything else is a list of one or more edges, each digits with at most 3
 * decimals (1 ns resolution, so "50.5" alone is one edge at 50,500 ns),
 * > 0 and <= 10 s, strictly ascending, separated by single commas; no
 * blanks, signs or exponents. Longer than HISTOGRAM_SPEC_MAX_LEN: -EINVAL.
 * edges_ns may be written to even when -EINVAL is returned; the counts are
 * set only on success.
 */
int histogram_parse_spec(const char *arg, unsigned *n_buckets,
			 uint64_t *edges_ns, unsigned max_edges,
			 unsigned *n_edges);

#endif /* LATPROBE_HISTOGRAM_H */
