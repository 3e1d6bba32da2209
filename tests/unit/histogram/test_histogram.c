/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "latprobe/histogram.h"
#include "latprobe/util.h"

#define N_SAMPLES 200000

static double
rng_normal(uint64_t *s)
{
	double u1 = util_rng_unit(s), u2 = util_rng_unit(s);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Log-normal in ns with the given median (ns) and shape sigma. */
static uint64_t
rng_lognormal(uint64_t *s, double median_ns, double sigma)
{
	double v = median_ns * exp(sigma * rng_normal(s));

	if (v < 1.0)
		return 1;
	if (v > (double)HISTOGRAM_HIGHEST_NS)
		return HISTOGRAM_HIGHEST_NS;
	return (uint64_t)v;
}

static void
gen_lognormal(uint64_t *v, size_t n, uint64_t seed)
{
	size_t i;

	/* A 20 µs floor-ish median with a long right tail. */
	for (i = 0; i < n; i++)
		v[i] = rng_lognormal(&seed, 20000.0, 0.6);
}

static void
gen_bimodal(uint64_t *v, size_t n, uint64_t seed)
{
	size_t i;

	/* 70 % fast path around 15 µs, 30 % slow path around 120 µs. */
	for (i = 0; i < n; i++) {
		if (util_rng_unit(&seed) < 0.7)
			v[i] = rng_lognormal(&seed, 15000.0, 0.1);
		else
			v[i] = rng_lognormal(&seed, 120000.0, 0.2);
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void
record_all(struct histogram *h, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		histogram_record(h, v[i]);
}

/*
 * Hand-computed with b = 64 - clz(v | 255) - 8, idx = (b << 7) + (v >> b):
 *   v < 256:   v | 255 = 255, clz = 56, b = 0, idx = v (identity).
 *   256, 257:  highest bit 8, clz = 55, b = 1: 128 + (256 >> 1 = 128) = 256,
 *              257 >> 1 = 128 too, so 256 and 257 share counter 256.
 *   511:       b = 1: 128 + 255 = 383 (last counter of step 2).
 *   512:       highest bit 9, b = 2: 256 + 128 = 384.
 *   1023:      b = 2: 256 + 255 = 511.   1024: b = 3: 384 + 128 = 512.
 *   10^10 ns:  2^33 = 8.59e9 <= 10^10 < 2^34, so highest bit 33, clz = 30,
 *              b = 64 - 30 - 8 = 26; 10^10 >> 26 = floor(149.01) = 149;
 *              idx = 26 * 128 + 149 = 3328 + 149 = 3477 (not 3583: the
 *              last 106 counters cover 10 s .. 2^34 - 1 ns and exist only
 *              for HdrHistogram's counts_len).
 *   2^34 - 1:  b = 26, (2^34 - 1) >> 26 = 255, idx = 3328 + 255 = 3583.
 */
static void
test_index_known(void **state)
{
	uint64_t v;

	(void)state;
	for (v = 0; v < 256; v++)
		assert_int_equal(histogram_index(v), (unsigned)v);
	assert_int_equal(histogram_index(256), 256);
	assert_int_equal(histogram_index(257), 256);
	assert_int_equal(histogram_index(258), 257);
	assert_int_equal(histogram_index(511), 383);
	assert_int_equal(histogram_index(512), 384);
	assert_int_equal(histogram_index(1023), 511);
	assert_int_equal(histogram_index(1024), 512);
	assert_int_equal(histogram_index(HISTOGRAM_HIGHEST_NS), 3477);
	assert_int_equal(histogram_index((1ull << 34) - 1),
			 HISTOGRAM_COUNTERS - 1);
	/* Counter 506: b = 2, 1000 >> 2 = 250, so it spans 1000..1003. */
	assert_int_equal(histogram_index(1000), 506);
	assert_int_equal(histogram_index_lowest(506), 1000);
	assert_int_equal(histogram_index_highest(506), 1003);
}

static void
test_index_round_trip(void **state)
{
	unsigned idx;

	(void)state;
	assert_int_equal(histogram_index_lowest(0), 0);
	assert_int_equal(histogram_index_highest(0), 0);
	for (idx = 1; idx < HISTOGRAM_COUNTERS; idx++) {
		uint64_t lo = histogram_index_lowest(idx);
		uint64_t hi = histogram_index_highest(idx);

		assert_true(lo <= hi);
		assert_int_equal(histogram_index(lo), idx);
		assert_int_equal(histogram_index(hi), idx);
		/* Counters tile the value range with no gap or overlap. */
		assert_int_equal(histogram_index_lowest(idx - 1) <= lo, 1);
		assert_int_equal(histogram_index_highest(idx - 1) + 1, lo);
		/* 2 significant digits: width <= 1/128 of the lowest value. */
		if (idx >= 256)
			assert_true((hi - lo + 1) * 128 <= lo);
		else
			assert_int_equal(hi, lo);
	}
	assert_int_equal(histogram_index_highest(HISTOGRAM_COUNTERS - 1),
			 (1ull << 34) - 1);
	assert_int_equal(histogram_index_lowest(HISTOGRAM_COUNTERS), 0);
	assert_int_equal(histogram_index_highest(HISTOGRAM_COUNTERS), 0);
}

static void
test_edge_values(void **state)
{
	struct histogram *h = histogram_create();

	(void)state;
	assert_non_null(h);
	assert_false(histogram_record(h, 0));
	assert_int_equal(h->underflow, 1);
	assert_int_equal(histogram_count(h), 0);

	assert_true(histogram_record(h, 1));
	assert_int_equal(h->counts[1], 1);
	assert_true(histogram_record(h, HISTOGRAM_HIGHEST_NS));
	assert_int_equal(h->counts[3477], 1);

	assert_false(histogram_record(h, HISTOGRAM_HIGHEST_NS + 1));
	assert_false(histogram_record(h, UINT64_MAX));
	assert_int_equal(h->overflow, 2);

	assert_int_equal(histogram_count(h), 2);
	assert_int_equal(histogram_min(h), 1);
	assert_int_equal(histogram_max(h), HISTOGRAM_HIGHEST_NS);
	assert_int_equal(h->sum, HISTOGRAM_HIGHEST_NS + 1);
	assert_int_equal(histogram_percentile(h, 50.0), 1);
	assert_int_equal(histogram_percentile(h, 100.0), HISTOGRAM_HIGHEST_NS);
	histogram_destroy(h);
}

static void
test_empty(void **state)
{
	struct histogram h;
	struct histogram_row rows[4];
	uint64_t edges[1] = {1000};
	unsigned i;

	(void)state;
	histogram_init(&h);
	assert_int_equal(h.min, UINT64_MAX);
	assert_int_equal(histogram_count(&h), 0);
	assert_int_equal(histogram_min(&h), 0);
	assert_int_equal(histogram_max(&h), 0);
	assert_true(histogram_mean(&h) == 0.0);
	assert_true(histogram_stddev(&h) == 0.0);
	assert_int_equal(histogram_percentile(&h, 99.0), 0);

	memset(rows, 0xff, sizeof(rows));
	assert_int_equal(histogram_table_linear(&h, 4, rows), 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(rows[i].count, 0);
	memset(rows, 0xff, sizeof(rows));
	assert_int_equal(histogram_table_edges(&h, edges, 1, rows), 2);
	assert_int_equal(rows[0].count, 0);
	assert_int_equal(rows[1].count, 0);
	assert_int_equal(rows[1].upper_ns, UINT64_MAX);
}

static void
test_mean_stddev(void **state)
{
	/* Textbook set: mean 5, population stddev 2. */
	static const uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct histogram h;

	(void)state;
	histogram_init(&h);
	record_all(&h, v, sizeof(v) / sizeof(v[0]));
	assert_int_equal(histogram_count(&h), 8);
	assert_true(fabs(histogram_mean(&h) - 5.0) < 1e-12);
	assert_true(fabs(histogram_stddev(&h) - 2.0) < 1e-12);

	/* A constant series has no spread, whatever the rounding. */
	histogram_init(&h);
	for (unsigned i = 0; i < 1000; i++)
		histogram_record(&h, 123456789);
	assert_true(histogram_stddev(&h) < 1e-3);
}

static void
test_percentile_by_hand(void **state)
{
	struct histogram h;
	uint64_t v;

	(void)state;
	histogram_init(&h);
	for (v = 1; v <= 100; v++)
		histogram_record(&h, v);
	assert_int_equal(histogram_percentile(&h, 50.0), 50);
	assert_int_equal(histogram_percentile(&h, 99.0), 99);
	assert_int_equal(histogram_percentile(&h, 99.5), 100); /* ceil 99.5 */
	assert_int_equal(histogram_percentile(&h, 100.0), 100);
	assert_int_equal(histogram_percentile(&h, 0.5), 1);
	assert_int_equal(histogram_percentile(&h, 0.0), 1);
	assert_int_equal(histogram_percentile(&h, 250.0), 100);
	assert_int_equal(histogram_percentile(&h, NAN), 0);

	/*
	 * 999 x 1000 ns and one 5000 ns. 1000 sits in counter 506
	 * (1000..1003), 5000 in counter b = 5, 5000 >> 5 = 156, spanning
	 * 4992..5023. p99.9 -> rank ceil(999) = 999 -> 1003 (the highest
	 * equivalent value, not clipped: max is 5000). p100 -> 5023 clipped
	 * to max = 5000. p99.9 must not round up to rank 1000 although
	 * 99.9 / 100 * 1000 is 999.0000000000001 in binary.
	 */
	histogram_init(&h);
	for (v = 0; v < 999; v++)
		histogram_record(&h, 1000);
	histogram_record(&h, 5000);
	assert_int_equal(histogram_percentile(&h, 50.0), 1003);
	assert_int_equal(histogram_percentile(&h, 99.9), 1003);
	assert_int_equal(histogram_percentile(&h, 99.95), 5000);
	assert_int_equal(histogram_percentile(&h, 100.0), 5000);

	/* Only 1000s: 1003 is clipped to max = 1000. */
	histogram_init(&h);
	for (v = 0; v < 10; v++)
		histogram_record(&h, 1000);
	assert_int_equal(histogram_percentile(&h, 50.0), 1000);
	assert_int_equal(histogram_percentile(&h, 99.999), 1000);
}

static void
check_percentiles(uint64_t *v, size_t n)
{
	/* p in thousandths of a percent, so the exact rank is integral. */
	static const uint64_t p_milli[] = {1,	  10000, 25000, 50000,
					   75000, 90000, 99000, 99900,
					   99990, 99999, 100000};
	struct histogram *h = histogram_create();
	size_t i;

	assert_non_null(h);
	record_all(h, v, n);
	qsort(v, n, sizeof(v[0]), cmp_u64);
	assert_int_equal(histogram_min(h), v[0]);
	assert_int_equal(histogram_max(h), v[n - 1]);
	for (i = 0; i < sizeof(p_milli) / sizeof(p_milli[0]); i++) {
		uint64_t rank = (p_milli[i] * n + 99999) / 100000;
		uint64_t exact = v[rank - 1];
		uint64_t got =
			histogram_percentile(h, (double)p_milli[i] / 1000);
		uint64_t want = histogram_index_highest(histogram_index(exact));

		if (want > v[n - 1])
			want = v[n - 1];
		/* HdrHistogram's definition, to the ns ... */
		assert_int_equal(got, want);
		/* ... which is within 1 % (in fact 1/128) of the exact one. */
		assert_true(got >= exact);
		assert_true((double)(got - exact) <= 0.01 * (double)exact);
	}
	histogram_destroy(h);
}

/* check_percentiles() on N_SAMPLES values drawn by gen. */
static void
check_generated(void (*gen)(uint64_t *v, size_t n, uint64_t seed),
		uint64_t seed)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));

	assert_non_null(v);
	gen(v, N_SAMPLES, seed);
	check_percentiles(v, N_SAMPLES);
	free(v);
}

static void
test_percentile_lognormal(void **state)
{
	(void)state;
	check_generated(gen_lognormal, 42);
}

static void
test_percentile_bimodal(void **state)
{
	(void)state;
	check_generated(gen_bimodal, 7);
}

static void
assert_same(const struct histogram *a, const struct histogram *b)
{
	unsigned i;

	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		assert_int_equal(a->counts[i], b->counts[i]);
	assert_int_equal(a->total, b->total);
	assert_int_equal(a->underflow, b->underflow);
	assert_int_equal(a->overflow, b->overflow);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->sum, b->sum);
	/* Summation order differs, so only to rounding. */
	assert_true(fabs(a->sum_sq - b->sum_sq) <= 1e-12 * b->sum_sq);
}

static void
test_merge(void **state)
{
	uint64_t *v = malloc(2 * N_SAMPLES * sizeof(*v));
	struct histogram *a = histogram_create(), *b = histogram_create();
	struct histogram *all = histogram_create(), *sum = histogram_create();

	(void)state;
	assert_non_null(v);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(all);
	assert_non_null(sum);
	gen_lognormal(v, N_SAMPLES, 1);
	gen_bimodal(v + N_SAMPLES, N_SAMPLES, 2);
	v[3] = 0;		       /* underflow in a */
	v[N_SAMPLES + 5] = UINT64_MAX; /* overflow in b */
	record_all(a, v, N_SAMPLES);
	record_all(b, v + N_SAMPLES, N_SAMPLES);
	record_all(all, v, 2 * N_SAMPLES);

	histogram_merge(sum, a);
	histogram_merge(sum, b);
	assert_same(sum, all);
	assert_int_equal(sum->underflow, 1);
	assert_int_equal(sum->overflow, 1);
	assert_int_equal(histogram_count(sum), 2 * N_SAMPLES - 2);

	/* Merging an empty histogram changes nothing (min stays put). */
	histogram_init(a);
	histogram_merge(sum, a);
	assert_same(sum, all);

	free(v);
	histogram_destroy(a);
	histogram_destroy(b);
	histogram_destroy(all);
	histogram_destroy(sum);
}

/* histogram_take_interval(): each call adds what was recorded since the
 * last one, and moves prev on. */
static void
test_take_interval(void **state)
{
	struct histogram *h = histogram_create(), *prev = histogram_create();
	struct histogram *snap = histogram_create(), *iv = histogram_create();
	struct histogram *sum = histogram_create();

	(void)state;
	assert_non_null(h);
	assert_non_null(prev);
	assert_non_null(snap);
	assert_non_null(iv);
	assert_non_null(sum);
	histogram_record(h, 100);
	histogram_take_interval(sum, h, prev, snap, iv);
	assert_int_equal(histogram_count(sum), 1);
	assert_int_equal(histogram_count(prev), 1);
	histogram_record(h, 300);
	histogram_record(h, 600);
	histogram_init(sum);
	histogram_take_interval(sum, h, prev, snap, iv);
	assert_int_equal(histogram_count(sum), 2);
	assert_int_equal(sum->sum, 900);
	assert_int_equal(sum->counts[histogram_index(100)], 0);
	assert_int_equal(histogram_count(prev), 3);
	histogram_take_interval(sum, h, prev, snap, iv);
	assert_int_equal(histogram_count(sum), 2); /* nothing new */
	histogram_destroy(h);
	histogram_destroy(prev);
	histogram_destroy(snap);
	histogram_destroy(iv);
	histogram_destroy(sum);
}

static void
test_interval(void **state)
{
	struct histogram *h = histogram_create();
	struct histogram *s0 = histogram_create(), *s1 = histogram_create();
	struct histogram *iv = histogram_create();

	(void)state;
	assert_non_null(h);
	assert_non_null(s0);
	assert_non_null(s1);
	assert_non_null(iv);
	histogram_record(h, 1000);
	histogram_record(h, 100);
	histogram_snapshot(h, s0);
	histogram_record(h, 300);
	histogram_record(h, 600);
	histogram_record(h, 0);
	histogram_snapshot(h, s1);

	histogram_interval(iv, s1, s0);
	assert_int_equal(histogram_count(iv), 2);
	assert_int_equal(iv->underflow, 1);
	assert_int_equal(iv->sum, 900);
	assert_int_equal(iv->counts[histogram_index(300)], 1);
	assert_int_equal(iv->counts[histogram_index(600)], 1);
	assert_int_equal(iv->counts[histogram_index(1000)], 0);
	/*
	 * 300 is counter 278 (300..301), 600 is counter 406 (600..603). The
	 * cumulative min 100 does not tighten 300; the cumulative max 1000
	 * does not tighten 603.
	 */
	assert_int_equal(histogram_min(iv), 300);
	assert_int_equal(histogram_max(iv), 603);

	/*
	 * 1001 and 1002 share counter 506 (1000..1003); the cumulative
	 * min/max (this is the first interval) pull the bounds in to them.
	 */
	histogram_init(h);
	histogram_snapshot(h, s0);
	histogram_record(h, 1001);
	histogram_record(h, 1002);
	histogram_snapshot(h, s1);
	histogram_interval(iv, s1, s0);
	assert_int_equal(histogram_min(iv), 1001);
	assert_int_equal(histogram_max(iv), 1002);

	/* In place (out aliases now), and an empty interval. */
	histogram_interval(s1, s1, s1);
	assert_int_equal(histogram_count(s1), 0);
	assert_int_equal(histogram_min(s1), 0);
	assert_int_equal(histogram_max(s1), 0);
	assert_int_equal(s1->min, UINT64_MAX);

	histogram_destroy(h);
	histogram_destroy(s0);
	histogram_destroy(s1);
	histogram_destroy(iv);
}

#define CONC_N 3000000u

struct conc {
	struct histogram *h;
	const uint64_t *v;
	int done;
};

static void *
writer(void *arg)
{
	struct conc *c = arg;
	unsigned i;

	for (i = 0; i < CONC_N; i++)
		histogram_record(c->h, c->v[i]);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
test_concurrent_intervals(void **state)
{
	uint64_t *v = malloc(CONC_N * sizeof(*v));
	struct histogram *h = histogram_create();
	struct histogram *prev = histogram_create(), *now = histogram_create();
	struct histogram *iv = histogram_create(), *acc = histogram_create();
	struct conc c;
	pthread_t t;
	uint64_t total = 0, over = 0, loops = 0;
	unsigned i;
	int last = 0;

	(void)state;
	assert_non_null(v);
	assert_non_null(h);
	assert_non_null(prev);
	assert_non_null(now);
	assert_non_null(iv);
	assert_non_null(acc);
	gen_lognormal(v, CONC_N, 99);
	for (i = 0; i < CONC_N; i += 1000)
		v[i] = HISTOGRAM_HIGHEST_NS + 1; /* 3000 overflows */
	c.h = h;
	c.v = v;
	c.done = 0;
	histogram_snapshot(h, prev);
	assert_int_equal(pthread_create(&t, NULL, writer, &c), 0);
	while (!last) {
		/* Seen before the snapshot: that snapshot is then the final. */
		last = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE);
		histogram_snapshot(h, now);
		histogram_interval(iv, now, prev);
		{
			uint64_t s = 0;

			for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
				/* A counter never goes backwards. */
				assert_true(iv->counts[i] <= CONC_N);
				s += iv->counts[i];
			}
			assert_int_equal(s, histogram_count(iv));
		}
		total += histogram_count(iv);
		over += iv->overflow;
		histogram_merge(acc, iv);
		memcpy(prev, now, sizeof(*now));
		loops++;
	}
	assert_int_equal(pthread_join(t, NULL), 0);

	assert_int_equal(total + over, CONC_N);
	assert_int_equal(over, CONC_N / 1000);
	assert_int_equal(total, h->total);
	assert_int_equal(total, histogram_count(now));
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		assert_int_equal(acc->counts[i], h->counts[i]);
	assert_int_equal(acc->sum, h->sum);
	assert_true(loops >= 1);

	free(v);
	histogram_destroy(h);
	histogram_destroy(prev);
	histogram_destroy(now);
	histogram_destroy(iv);
	histogram_destroy(acc);
}

/* h holds 1, 2, ..., 100 ns once each. */
static void
record_1_to_100(struct histogram *h)
{
	histogram_init(h);
	for (uint64_t v = 1; v <= 100; v++)
		histogram_record(h, v);
}

static void
test_table_linear(void **state)
{
	struct histogram h;
	struct histogram_row rows[HISTOGRAM_MAX_LINEAR_BUCKETS];
	uint64_t *v, sum;
	unsigned i;

	(void)state;
	record_1_to_100(&h);
	/* min 1, max 100: edges 1 + 99 * (i+1) / 10 = 10, 20, ..., 100. */
	assert_int_equal(histogram_table_linear(&h, 10, rows), 10);
	for (i = 0; i < 10; i++) {
		assert_int_equal(rows[i].upper_ns, 10 * (i + 1));
		assert_int_equal(rows[i].count, 10);
	}
	assert_int_equal(histogram_table_linear(&h, 0, rows), -EINVAL);
	assert_int_equal(histogram_table_linear(&h, 10001, rows), -EINVAL);

	/* One distinct value: everything in the first row. */
	histogram_init(&h);
	histogram_record(&h, 7777);
	histogram_record(&h, 7777);
	assert_int_equal(histogram_table_linear(&h, 3, rows), 3);
	assert_int_equal(rows[0].count, 2);
	assert_int_equal(rows[2].upper_ns, 7777);

	v = malloc(N_SAMPLES * sizeof(*v));
	assert_non_null(v);
	gen_bimodal(v, N_SAMPLES, 3);
	histogram_init(&h);
	record_all(&h, v, N_SAMPLES);
	for (unsigned n = 1; n <= HISTOGRAM_MAX_LINEAR_BUCKETS; n *= 10) {
		assert_int_equal(histogram_table_linear(&h, n, rows), (int)n);
		sum = 0;
		for (i = 0; i < n; i++) {
			sum += rows[i].count;
			if (i > 0)
				assert_true(rows[i].upper_ns >=
					    rows[i - 1].upper_ns);
		}
		assert_int_equal(sum, N_SAMPLES);
		assert_int_equal(rows[n - 1].upper_ns, histogram_max(&h));
	}
	free(v);
}

static void
test_table_edges(void **state)
{
	static const uint64_t e3[] = {10, 50, 99};
	static const uint64_t bad[] = {10, 50, 50};
	static const uint64_t e_us[] = {10000, 15000, 20000, 50000, 100000};
	struct histogram h;
	struct histogram_row rows[8];
	uint64_t *v, sum;
	unsigned i;

	(void)state;
	record_1_to_100(&h);
	assert_int_equal(histogram_table_edges(&h, e3, 3, rows), 4);
	assert_int_equal(rows[0].count, 10);
	assert_int_equal(rows[1].count, 40);
	assert_int_equal(rows[2].count, 49);
	assert_int_equal(rows[3].count, 1);
	assert_int_equal(rows[3].upper_ns, UINT64_MAX);
	assert_int_equal(histogram_table_edges(&h, bad, 3, rows), -EINVAL);
	assert_int_equal(histogram_table_edges(&h, e3, 0, rows), -EINVAL);

	/*
	 * 10000 ns sits in counter 9984..10047; with max = 10000 it must
	 * count as <= 10000, not in the overflow row.
	 */
	histogram_init(&h);
	for (i = 0; i < 5; i++)
		histogram_record(&h, 10000);
	assert_int_equal(histogram_table_edges(&h, e_us, 1, rows), 2);
	assert_int_equal(rows[0].count, 5);
	assert_int_equal(rows[1].count, 0);

	v = malloc(N_SAMPLES * sizeof(*v));
	assert_non_null(v);
	gen_bimodal(v, N_SAMPLES, 4);
	v[0] = 0;			 /* not tabulated */
	v[1] = HISTOGRAM_HIGHEST_NS + 5; /* not tabulated */
	histogram_init(&h);
	record_all(&h, v, N_SAMPLES);
	assert_int_equal(histogram_table_edges(&h, e_us, 5, rows), 6);
	sum = 0;
	for (i = 0; i < 6; i++)
		sum += rows[i].count;
	assert_int_equal(sum, histogram_count(&h));
	assert_int_equal(sum, N_SAMPLES - 2);
	/* Bimodal at 15 and 120 µs: both ranges are populated. */
	assert_true(rows[1].count > 0);
	assert_true(rows[5].count > 0);
	free(v);
}

static void
test_parse_good(void **state)
{
	uint64_t e[8];
	unsigned nb = 77, ne = 77;

	(void)state;
	assert_int_equal(histogram_parse_spec("100", &nb, e, 8, &ne), 0);
	assert_int_equal(nb, 100);
	assert_int_equal(ne, 0);
	assert_int_equal(histogram_parse_spec("1", &nb, e, 8, &ne), 0);
	assert_int_equal(nb, 1);
	assert_int_equal(histogram_parse_spec("010000", &nb, e, 8, &ne), 0);
	assert_int_equal(nb, 10000);

	assert_int_equal(histogram_parse_spec("10,20,50.5", &nb, e, 8, &ne), 0);
	assert_int_equal(nb, 0);
	assert_int_equal(ne, 3);
	assert_int_equal(e[0], 10000);
	assert_int_equal(e[1], 20000);
	assert_int_equal(e[2], 50500);

	/* PsPing's own example list, read as µs. */
	assert_int_equal(
		histogram_parse_spec("0.01,0.05,1,5,10", &nb, e, 8, &ne), 0);
	assert_int_equal(ne, 5);
	assert_int_equal(e[0], 10);
	assert_int_equal(e[1], 50);
	assert_int_equal(e[2], 1000);
	assert_int_equal(e[3], 5000);
	assert_int_equal(e[4], 10000);

	assert_int_equal(histogram_parse_spec("50.5", &nb, e, 8, &ne), 0);
	assert_int_equal(ne, 1);
	assert_int_equal(e[0], 50500);
	assert_int_equal(histogram_parse_spec("0.001,10000000", &nb, e, 2, &ne),
			 0);
	assert_int_equal(ne, 2);
	assert_int_equal(e[0], 1);
	assert_int_equal(e[1], HISTOGRAM_HIGHEST_NS);
}

static void
test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"abc",
		"10a",
		"-5",
		"+5",
		"10,-20",
		"20,10",
		"10,10",
		"10,,20",
		",10",
		"10,",
		"0",
		"0.0",
		"1.2345",
		"1e3",
		" 10",
		"10 ",
		"10001",
		"5.",
		".5",
		"10;20",
		"0x10",
		"1,2,3,4",
		"10000000.001",
		"99999999999999999999",
		"18446744073709551616,1",
	};
	uint64_t e[3];
	unsigned nb = 77, ne = 77, i;
	char *big;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = histogram_parse_spec(bad[i], &nb, e, 3, &ne);

		if (rc != -EINVAL)
			fail_msg("\"%s\" gave %d", bad[i], rc);
		assert_int_equal(nb, 77);
		assert_int_equal(ne, 77);
	}
	assert_int_equal(histogram_parse_spec(NULL, &nb, e, 3, &ne), -EINVAL);
	assert_int_equal(histogram_parse_spec("1,2", &nb, NULL, 0, &ne),
			 -EINVAL);

	/* Overlong, even though every character is valid. */
	big = malloc(HISTOGRAM_SPEC_MAX_LEN + 2);
	assert_non_null(big);
	memset(big, '0', HISTOGRAM_SPEC_MAX_LEN + 1);
	big[HISTOGRAM_SPEC_MAX_LEN] = '1';
	big[HISTOGRAM_SPEC_MAX_LEN + 1] = '\0';
	assert_int_equal(histogram_parse_spec(big, &nb, e, 3, &ne), -EINVAL);
	/* One character shorter it is a valid count of 1. */
	assert_int_equal(histogram_parse_spec(big + 1, &nb, e, 3, &ne), 0);
	assert_int_equal(nb, 1);
	free(big);
}

/* The writer's counter add, util_relaxed_add() (one add to memory on
 * x86-64): n added, carries across 32 bits, and histogram_record()
 * counting with it. */
static void
test_counter_add(void **state)
{
	struct histogram *h = histogram_create();
	uint64_t c = 0xfffffffeull;

	(void)state;
	assert_non_null(h);
	util_relaxed_add(&c, 3);
	assert_int_equal(c, 0x100000001ull);
	util_relaxed_add(&c, 0);
	assert_int_equal(c, 0x100000001ull);
	util_relaxed_add(&c, 1ull << 40);
	assert_int_equal(c, (1ull << 40) + 0x100000001ull);
	for (uint64_t v = 0; v < 1000; v++)
		histogram_record(h, v * 997);
	histogram_record(h, HISTOGRAM_HIGHEST_NS + 1);
	assert_int_equal(h->total, 999);
	assert_int_equal(h->underflow, 1);
	assert_int_equal(h->overflow, 1);
	assert_int_equal(h->sum, 997ull * 999 * 1000 / 2);
	assert_int_equal(h->counts[histogram_index(997)], 1);
	assert_int_equal(h->min, 997);
	assert_int_equal(h->max, 997ull * 999);
	histogram_destroy(h);
}

/*
 * histogram_subtract() (the unaffected round trips are rtt less
 * the host-affected ones): the rest's counters, count, sum exactly; min and
 * max exact while their counters keep values, else that counter's edge;
 * a part that is no subset changes nothing.
 */
static void
test_subtract(void **state)
{
	struct histogram *all = histogram_create(), *part = histogram_create();
	struct histogram *rest = histogram_create();
	uint64_t sum = 0;

	(void)state;
	assert_non_null(all);
	assert_non_null(part);
	assert_non_null(rest);
	for (uint64_t v = 1000; v < 200000; v += 37) {
		histogram_record(all, v);
		/* The smallest and the largest few go to part. */
		if (v < 1100 || v > 199000 || v % 5 == 0) {
			histogram_record(part, v);
		} else {
			histogram_record(rest, v);
			sum += v;
		}
	}
	histogram_record(all, 0); /* underflow, kept */
	assert_int_equal(histogram_subtract(all, part), 0);
	assert_int_equal(histogram_count(all), histogram_count(rest));
	assert_int_equal(all->sum, sum);
	assert_int_equal(all->underflow, 1);
	assert_memory_equal(all->counts, rest->counts, sizeof(all->counts));
	assert_true(all->min <= rest->min);
	assert_int_equal(histogram_index(all->min), histogram_index(rest->min));
	assert_true(all->max >= rest->max);
	assert_int_equal(histogram_index(all->max), histogram_index(rest->max));
	assert_true(fabs(histogram_mean(all) - histogram_mean(rest)) < 1e-6);
	/* Not a subset: refused, nothing changed. */
	histogram_record(part, 5);
	assert_int_equal(histogram_subtract(all, part), -EINVAL);
	assert_int_equal(histogram_count(all), histogram_count(rest));
	/* All of it: empty. */
	assert_int_equal(histogram_subtract(rest, rest), 0);
	assert_int_equal(histogram_count(rest), 0);
	assert_int_equal(histogram_min(rest), 0);
	histogram_destroy(all);
	histogram_destroy(part);
	histogram_destroy(rest);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_known),
		cmocka_unit_test(test_index_round_trip),
		cmocka_unit_test(test_edge_values),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_mean_stddev),
		cmocka_unit_test(test_percentile_by_hand),
		cmocka_unit_test(test_percentile_lognormal),
		cmocka_unit_test(test_percentile_bimodal),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_take_interval),
		cmocka_unit_test(test_concurrent_intervals),
		cmocka_unit_test(test_table_linear),
		cmocka_unit_test(test_table_edges),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_counter_add),
		cmocka_unit_test(test_subtract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
