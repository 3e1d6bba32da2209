/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/histogram.h"

/*
 * HdrHistogram's value_from_index for unit magnitude 0: counters
 * [0, 256) are exact; after that each group of 128 counters covers one
 * power of two with a step of 2^b.
 */
static inline unsigned
index_shift(unsigned idx)
{
	unsigned group = idx >> (HISTOGRAM_SUB_BITS - 1);

	return group == 0 ? 0 : group - 1;
}

uint64_t
histogram_index_lowest(unsigned idx)
{
	unsigned b;
	uint64_t sub;

	if (idx >= HISTOGRAM_COUNTERS)
		return 0;
	b = index_shift(idx);
	sub = b == 0 ? idx
		     : (idx & (HISTOGRAM_HALF_SUB - 1)) + HISTOGRAM_HALF_SUB;
	return sub << b;
}

uint64_t
histogram_index_highest(unsigned idx)
{
	if (idx >= HISTOGRAM_COUNTERS)
		return 0;
	return histogram_index_lowest(idx) + (1ull << index_shift(idx)) - 1;
}

/* HdrHistogram's "median equivalent value": the middle of the counter. */
static uint64_t
index_median(unsigned idx)
{
	return histogram_index_lowest(idx) + ((1ull << index_shift(idx)) >> 1);
}

void
histogram_init(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

struct histogram *
histogram_create(void)
{
	struct histogram *h;

	/* sizeof is a multiple of 64 thanks to the aligned attribute. */
	h = aligned_alloc(64, sizeof(*h));
	if (h == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	histogram_init(h);
	return h;
}

void
histogram_destroy(struct histogram *h)
{
	free(h);
}

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

static double
load_double(const double *p)
{
	double d;

	__atomic_load(p, &d, __ATOMIC_RELAXED);
	return d;
}

void
histogram_snapshot(const struct histogram *h, struct histogram *out)
{
	uint64_t total = 0;
	unsigned i;

	/*
	 * The writer bumps a counter before total, so a loaded total may lag
	 * or lead the loaded counters by the values in flight. Deriving total
	 * from the counters keeps every snapshot self-consistent (percentile
	 * ranks never run past the last counter) and intervals still telescope
	 * to exactly the final total.
	 */
	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		out->counts[i] = LOAD(&h->counts[i]);
		total += out->counts[i];
	}
	out->total = total;
	out->underflow = LOAD(&h->underflow);
	out->overflow = LOAD(&h->overflow);
	out->min = LOAD(&h->min);
	out->max = LOAD(&h->max);
	out->sum = LOAD(&h->sum);
	out->sum_sq = load_double(&h->sum_sq);
}

void
histogram_interval(struct histogram *out, const struct histogram *now,
		   const struct histogram *prev)
{
	/* Saved first: out may alias now or prev. */
	uint64_t now_min = now->min, now_max = now->max;
	unsigned i, lo = HISTOGRAM_COUNTERS, hi = 0;

	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		out->counts[i] = now->counts[i] - prev->counts[i];
		if (out->counts[i] != 0) {
			if (lo == HISTOGRAM_COUNTERS)
				lo = i;
			hi = i;
		}
	}
	out->total = now->total - prev->total;
	out->underflow = now->underflow - prev->underflow;
	out->overflow = now->overflow - prev->overflow;
	out->sum = now->sum - prev->sum;
	out->sum_sq = now->sum_sq - prev->sum_sq;
	if (lo == HISTOGRAM_COUNTERS) {
		out->min = UINT64_MAX;
		out->max = 0;
		return;
	}
	/*
	 * Nothing records the extremes per interval; the cumulative min/max
	 * can only tighten the bucket bounds (the cumulative min is <= every
	 * value of the interval, the cumulative max >= every value).
	 */
	out->min = histogram_index_lowest(lo);
	if (now_min != UINT64_MAX && now_min > out->min)
		out->min = now_min;
	out->max = histogram_index_highest(hi);
	if (now_max != 0 && now_max < out->max)
		out->max = now_max;
}

void
histogram_take_interval(struct histogram *sum, const struct histogram *h,
			struct histogram *prev, struct histogram *snap,
			struct histogram *iv)
{
	histogram_snapshot(h, snap);
	histogram_interval(iv, snap, prev);
	histogram_merge(sum, iv);
	*prev = *snap;
}

void
histogram_merge(struct histogram *dst, const struct histogram *src)
{
	uint64_t v;
	unsigned i;

	/* Relaxed loads: src may be a live per-lcore histogram. */
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		dst->counts[i] += LOAD(&src->counts[i]);
	dst->total += LOAD(&src->total);
	dst->underflow += LOAD(&src->underflow);
	dst->overflow += LOAD(&src->overflow);
	dst->sum += LOAD(&src->sum);
	dst->sum_sq += load_double(&src->sum_sq);
	v = LOAD(&src->min);
	if (v < dst->min)
		dst->min = v;
	v = LOAD(&src->max);
	if (v > dst->max)
		dst->max = v;
}

int
histogram_subtract(struct histogram *dst, const struct histogram *part)
{
	unsigned i, lo = HISTOGRAM_COUNTERS, hi = 0;

	if (part->total > dst->total || part->underflow > dst->underflow ||
	    part->overflow > dst->overflow || part->sum > dst->sum)
		return -EINVAL;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		if (part->counts[i] > dst->counts[i])
			return -EINVAL;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		dst->counts[i] -= part->counts[i];
		if (dst->counts[i] != 0) {
			if (lo == HISTOGRAM_COUNTERS)
				lo = i;
			hi = i;
		}
	}
	dst->total -= part->total;
	dst->underflow -= part->underflow;
	dst->overflow -= part->overflow;
	dst->sum -= part->sum;
	dst->sum_sq =
		dst->sum_sq > part->sum_sq ? dst->sum_sq - part->sum_sq : 0.0;
	if (dst->total == 0) {
		dst->min = UINT64_MAX;
		dst->max = 0;
		return 0;
	}
	if (histogram_index(dst->min) != lo)
		dst->min = histogram_index_lowest(lo);
	if (histogram_index(dst->max) != hi)
		dst->max = histogram_index_highest(hi);
	return 0;
}

uint64_t
histogram_count(const struct histogram *h)
{
	return h->total;
}

uint64_t
histogram_min(const struct histogram *h)
{
	return h->total == 0 ? 0 : h->min;
}

uint64_t
histogram_max(const struct histogram *h)
{
	return h->total == 0 ? 0 : h->max;
}

double
histogram_mean(const struct histogram *h)
{
	if (h->total == 0)
		return 0.0;
	return (double)h->sum / (double)h->total;
}

double
histogram_stddev(const struct histogram *h)
{
	double n, mean, var;

	if (h->total == 0)
		return 0.0;
	n = (double)h->total;
	mean = (double)h->sum / n;
	var = h->sum_sq / n - mean * mean;
	/* Rounding can push a zero variance slightly negative. */
	return var > 0.0 ? sqrt(var) : 0.0;
}

static uint64_t
clip(uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

uint64_t
histogram_rank(double p, uint64_t count)
{
	/*
	 * ceil(p/100 * count) as HdrHistogram (Java) does. p/100 is inexact
	 * (99.9 is not a binary fraction), so x may sit a few ulps above an
	 * integer it really equals; shave 2 ulps before the ceil so that
	 * p = 99.9, count = 1000 gives rank 999, not 1000.
	 */
	double x = p / 100.0 * (double)count;
	uint64_t rank;

	x -= x * 2.0 * DBL_EPSILON;
	rank = x >= (double)count ? count : (uint64_t)ceil(x);
	return rank == 0 ? 1 : rank;
}

uint64_t
histogram_percentile(const struct histogram *h, double p)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (h->total == 0 || isnan(p))
		return 0;
	if (p <= 0.0)
		return histogram_min(h);
	if (p > 100.0)
		p = 100.0;
	rank = histogram_rank(p, h->total);
	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return clip(histogram_index_highest(i), h->min, h->max);
	}
	/* Only when total disagrees with the counters (a torn copy). */
	return h->max;
}

/*
 * The value a counter stands for when it must go into one row: its middle,
 * pulled inside [min, max] so that a bucket straddling an edge but holding
 * only values at the known extreme lands on the right side.
 */
static uint64_t
row_value(const struct histogram *h, unsigned idx)
{
	return clip(index_median(idx), h->min, h->max);
}

int
histogram_table_linear(const struct histogram *h, unsigned n,
		       struct histogram_row *rows)
{
	uint64_t lo, range;
	unsigned i, r = 0;

	if (n == 0 || n > HISTOGRAM_MAX_LINEAR_BUCKETS || rows == NULL)
		return -EINVAL;
	lo = histogram_min(h);
	range = histogram_max(h) - lo;
	/* range <= 10^10 and n <= 10^4: the product fits in 64 bits. */
	for (i = 0; i < n; i++) {
		rows[i].upper_ns = lo + range * (i + 1) / n;
		rows[i].count = 0;
	}
	if (h->total == 0)
		return (int)n;
	/* Counters and row edges both ascend: one merge pass. */
	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		uint64_t v;

		if (h->counts[i] == 0)
			continue;
		v = row_value(h, i);
		while (r < n - 1 && v > rows[r].upper_ns)
			r++;
		rows[r].count += h->counts[i];
	}
	return (int)n;
}

int
histogram_table_edges(const struct histogram *h, const uint64_t *edges_ns,
		      unsigned n_edges, struct histogram_row *rows)
{
	unsigned i, r = 0;

	if (n_edges == 0 || n_edges > HISTOGRAM_MAX_EDGES || edges_ns == NULL ||
	    rows == NULL)
		return -EINVAL;
	for (i = 1; i < n_edges; i++)
		if (edges_ns[i] <= edges_ns[i - 1])
			return -EINVAL;
	for (i = 0; i < n_edges; i++) {
		rows[i].upper_ns = edges_ns[i];
		rows[i].count = 0;
	}
	rows[n_edges].upper_ns = UINT64_MAX;
	rows[n_edges].count = 0;
	if (h->total == 0)
		return (int)n_edges + 1;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		uint64_t v;

		if (h->counts[i] == 0)
			continue;
		v = row_value(h, i);
		while (r < n_edges && v > rows[r].upper_ns)
			r++;
		rows[r].count += h->counts[i];
	}
	return (int)n_edges + 1;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * One edge in µs with at most 3 decimals (1 ns resolution): "50", "0.25",
 * "10.125". Exponents, signs, blanks and sub-ns digits are refused rather
 * than rounded, so what the user typed is exactly what is reported.
 */
static int
parse_edge_us(const char **sp, uint64_t *ns)
{
	const char *s = *sp;
	uint64_t ip = 0, frac = 0;
	unsigned nd = 0, nf = 0;

	while (is_digit(*s)) {
		if (ip > HISTOGRAM_HIGHEST_NS / 1000)
			return -EINVAL;
		ip = ip * 10 + (uint64_t)(*s - '0');
		s++;
		nd++;
	}
	if (nd == 0)
		return -EINVAL;
	if (*s == '.') {
		s++;
		while (is_digit(*s)) {
			if (nf == 3)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*s - '0');
			s++;
			nf++;
		}
		if (nf == 0)
			return -EINVAL;
		for (; nf < 3; nf++)
			frac *= 10;
	}
	if (ip > HISTOGRAM_HIGHEST_NS / 1000)
		return -EINVAL;
	*ns = ip * 1000 + frac;
	if (*ns < HISTOGRAM_LOWEST_NS || *ns > HISTOGRAM_HIGHEST_NS)
		return -EINVAL;
	*sp = s;
	return 0;
}

int
histogram_parse_spec(const char *arg, unsigned *n_buckets, uint64_t *edges_ns,
		     unsigned max_edges, unsigned *n_edges)
{
	const char *s;
	size_t len;
	unsigned n = 0;

	if (arg == NULL || n_buckets == NULL || n_edges == NULL)
		return -EINVAL;
	len = strnlen(arg, HISTOGRAM_SPEC_MAX_LEN + 1);
	if (len == 0 || len > HISTOGRAM_SPEC_MAX_LEN)
		return -EINVAL;

	/* A lone integer is a bucket count (PsPing: "-h 100"). */
	if (strspn(arg, "0123456789") == len) {
		unsigned long c = 0;

		for (s = arg; *s != '\0'; s++) {
			c = c * 10 + (unsigned long)(*s - '0');
			if (c > HISTOGRAM_MAX_LINEAR_BUCKETS)
				return -EINVAL;
		}
		if (c == 0)
			return -EINVAL;
		*n_buckets = (unsigned)c;
		*n_edges = 0;
		return 0;
	}

	/* Otherwise ascending upper edges in µs: "10,20,50.5" or "50.5". */
	if (edges_ns == NULL)
		return -EINVAL;
	s = arg;
	for (;;) {
		uint64_t v;

		if (n == max_edges)
			return -EINVAL;
		if (parse_edge_us(&s, &v) != 0)
			return -EINVAL;
		if (n > 0 && v <= edges_ns[n - 1])
			return -EINVAL;
		edges_ns[n++] = v;
		if (*s == '\0')
			break;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
	*n_buckets = 0;
	*n_edges = n;
	return 0;
}
