/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HISTOGRAM_H
#define LATPROBE_HISTOGRAM_H

/*
 * Per-lcore latency histogram with the HdrHistogram bucket layout for
 * lowest = 1 ns, highest = 10 s, 2 significant digits: 256 sub-buckets per
 * power of two (relative error <= 1/128 = 0.78 %), 3,584 counters.
 *
 * One writer per histogram. The writer increments its counters with a
 * relaxed load + relaxed store (no lock prefix, no fence). Readers on other
 * cores take snapshots with relaxed loads; because every counter only grows,
 * the difference of two snapshots is an exact interval.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HISTOGRAM_SUB_BITS 8 /* 2^8 = 256 sub-buckets: 2 significant digits */
#define HISTOGRAM_HALF_SUB (1u << (HISTOGRAM_SUB_BITS - 1))
#define HISTOGRAM_LOWEST_NS 1ull
#define HISTOGRAM_HIGHEST_NS 10000000000ull /* 10 s */
#define HISTOGRAM_COUNTERS 3584

struct histogram {
	/* Ever-growing counters; only the owning writer stores to them. */
	uint64_t counts[HISTOGRAM_COUNTERS];
	uint64_t total;      /* recorded in range (sum of counts[]) */
	uint64_t underflow;  /* values < HISTOGRAM_LOWEST_NS (i.e. 0) */
	uint64_t overflow;   /* values > HISTOGRAM_HIGHEST_NS */
	uint64_t min;        /* UINT64_MAX while empty */
	uint64_t max;        /* 0 while empty */
	uint64_t sum;        /* sum of in-range values, ns */
	double sum_sq;       /* sum of squares of in-range values, ns^2 */
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
	unsigned b = 64u - (unsigned)__builtin_clzll(v | 255u) - HISTOGRAM_SUB_BITS;

	return (b << (HISTOGRAM_SUB_BITS - 1)) + (unsigned)(v >> b);
}

/* Lowest and highest value that map to counter idx. */
uint64_t histogram_index_lowest(unsigned idx);
uint64_t histogram_index_highest(unsigned idx);

#define HISTOGRAM_RELAXED_ADD(p, n)                                            \
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + (n),    \
			 __ATOMIC_RELAXED)

/*
 * Record one value in ns. Returns false (and counts it in underflow or
 * overflow) when it is outside [1 ns, 10 s]; never clamps silently.
 * Single writer only.
 */
static inline bool
histogram_record(struct histogram *h, uint64_t v)
{
	if (v < HISTOGRAM_LOWEST_NS || v > HISTOGRAM_HIGHEST_NS) {
		if (v < HISTOGRAM_LOWEST_NS)
			HISTOGRAM_RELAXED_ADD(&h->underflow, 1);
		else
			HISTOGRAM_RELAXED_ADD(&h->overflow, 1);
		return false;
	}
	HISTOGRAM_RELAXED_ADD(&h->counts[histogram_index(v)], 1);
	HISTOGRAM_RELAXED_ADD(&h->total, 1);
	HISTOGRAM_RELAXED_ADD(&h->sum, v);
	{
		double sq;

		__atomic_load(&h->sum_sq, &sq, __ATOMIC_RELAXED);
		sq += (double)v * (double)v;
		__atomic_store(&h->sum_sq, &sq, __ATOMIC_RELAXED);
	}
	if (v < __atomic_load_n(&h->min, __ATOMIC_RELAXED))
		__atomic_store_n(&h->min, v, __ATOMIC_RELAXED);
	if (v > __atomic_load_n(&h->max, __ATOMIC_RELAXED))
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
	return true;
}

/* Copy h into out with relaxed loads; safe while the writer records. */
void histogram_snapshot(const struct histogram *h, struct histogram *out);

/*
 * out = now - prev for every counter (an interval). min/max of the interval
 * are derived from its lowest/highest non-empty bucket (within 0.78 %).
 */
void histogram_interval(struct histogram *out, const struct histogram *now,
			const struct histogram *prev);

/* dst += src (element-wise; min/max combined). */
void histogram_merge(struct histogram *dst, const struct histogram *src);

uint64_t histogram_count(const struct histogram *h);
uint64_t histogram_min(const struct histogram *h); /* 0 when empty */
uint64_t histogram_max(const struct histogram *h); /* 0 when empty */
double histogram_mean(const struct histogram *h);  /* 0 when empty */
double histogram_stddev(const struct histogram *h); /* population; 0 when empty */

/*
 * Value at percentile p (0 < p <= 100), as HdrHistogram reports it: the
 * highest equivalent value of the bucket holding the ceil(p/100 * count)-th
 * value, clipped to [min, max]. 0 when empty.
 */
uint64_t histogram_percentile(const struct histogram *h, double p);

/*
 * PsPing "-h N": n equal-width buckets between min and max (the last upper
 * edge is max). Fills rows[0..n-1]; returns n, or -EINVAL (n == 0 or
 * n > 10000). An empty histogram yields n rows of zero count.
 */
int histogram_table_linear(const struct histogram *h, unsigned n,
			   struct histogram_row *rows);

/*
 * PsPing "-h 10,20,50": explicit ascending upper edges in ns; a last row
 * with upper_ns = UINT64_MAX holds everything above the last edge. rows must
 * have n_edges + 1 entries; returns n_edges + 1 or -EINVAL (not ascending,
 * n_edges == 0).
 */
int histogram_table_edges(const struct histogram *h, const uint64_t *edges_ns,
			  unsigned n_edges, struct histogram_row *rows);

/*
 * Parse a -h argument: "N" (bucket count) or "e1,e2,..." (edges in µs,
 * decimals allowed). On success returns 0 and sets either *n_buckets (> 0,
 * *n_edges = 0) or edges_ns[0..*n_edges-1]. -EINVAL on bad syntax, a
 * non-ascending list or more than max_edges edges.
 */
int histogram_parse_spec(const char *arg, unsigned *n_buckets,
			 uint64_t *edges_ns, unsigned max_edges,
			 unsigned *n_edges);

#endif /* LATPROBE_HISTOGRAM_H */
