/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/histogram.h"

static struct histogram a, b;

static uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
round_trip(const struct histogram *in, struct histogram *out)
{
	char *s = NULL;
	size_t len = 0;

	assert_int_equal(hdr_codec_encode(in, &s, &len), 0);
	assert_non_null(s);
	assert_int_equal(strlen(s), len);
	assert_int_equal(hdr_codec_decode(s, len, out), 0);
	free(s);
}

static void
assert_same_counts(const struct histogram *x, const struct histogram *y)
{
	unsigned i;

	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		if (x->counts[i] != y->counts[i])
			fail_msg("counter %u: %llu != %llu", i,
				 (unsigned long long)x->counts[i],
				 (unsigned long long)y->counts[i]);
	assert_int_equal(x->total, y->total);
}

static void
test_empty(void **state)
{
	(void)state;
	histogram_init(&a);
	round_trip(&a, &b);
	assert_int_equal(histogram_count(&b), 0);
	assert_int_equal(histogram_min(&b), 0);
	assert_int_equal(histogram_max(&b), 0);
	assert_int_equal(b.underflow, 0);
}

static void
test_one_value(void **state)
{
	(void)state;
	histogram_init(&a);
	histogram_record(&a, 12345);
	round_trip(&a, &b);
	assert_same_counts(&a, &b);
	/* min/max come back as the bucket's edges: 12345 is in [12288+..] */
	assert_int_equal(histogram_min(&b),
			 histogram_index_lowest(histogram_index(12345)));
	assert_int_equal(histogram_max(&b),
			 histogram_index_highest(histogram_index(12345)));
	assert_int_equal(histogram_percentile(&b, 50),
			 histogram_index_highest(histogram_index(12345)));
}

static void
test_extremes(void **state)
{
	(void)state;
	histogram_init(&a);
	histogram_record(&a, 1);
	histogram_record(&a, HISTOGRAM_HIGHEST_NS);
	/* the counter above 10 s that only decoded Java data can fill */
	a.counts[HISTOGRAM_COUNTERS - 1] = 5;
	a.total += 5;
	a.counts[2] = (uint64_t)1 << 62; /* huge count */
	a.total += (uint64_t)1 << 62;
	round_trip(&a, &b);
	assert_same_counts(&a, &b);
	assert_int_equal(histogram_min(&b), 1);
}

static void
test_under_overflow_not_encoded(void **state)
{
	(void)state;
	histogram_init(&a);
	histogram_record(&a, 0);
	histogram_record(&a, HISTOGRAM_HIGHEST_NS + 1);
	histogram_record(&a, 500);
	assert_int_equal(a.underflow, 1);
	assert_int_equal(a.overflow, 1);
	round_trip(&a, &b);
	assert_same_counts(&a, &b);
	/* documented: the string carries in-range counters only */
	assert_int_equal(b.underflow, 0);
	assert_int_equal(b.overflow, 0);
}

static void
test_random_round_trips(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int r;

	(void)state;
	for (r = 0; r < 200; r++) {
		unsigned n = (unsigned)(rng_next(&seed) % 5000), k;

		histogram_init(&a);
		for (k = 0; k < n; k++) {
			/* log-uniform-ish: a random magnitude, a random value
			 */
			unsigned bits = (unsigned)(rng_next(&seed) % 34);
			uint64_t v = rng_next(&seed) & ((1ull << bits) - 1);

			histogram_record(&a, v);
		}
		round_trip(&a, &b);
		assert_same_counts(&a, &b);
		if (a.total > 0) {
			/* percentiles are the buckets' highest values, the
			 * same on both once min/max are the exact ones */
			b.min = a.min;
			b.max = a.max;
			assert_int_equal(histogram_percentile(&a, 99.9),
					 histogram_percentile(&b, 99.9));
			assert_int_equal(histogram_percentile(&a, 50),
					 histogram_percentile(&b, 50));
		}
	}
}

/* Produced by HdrHistogram 2.1.11 (Java): values 1000 x5, 5000 x2,
 * 10^10 x1, 0 x3 in a Histogram(1, 10^10, 2). */
static const char java_vector[] =
	"HISTFAAAACp4nJNpmSzMwMDAxQABTFCaEcQO4X7CYP8BIsD2kZ3rIAvLe00mAH+DBrM=";

static void
test_java_vector(void **state)
{
	(void)state;
	assert_int_equal(hdr_codec_decode(java_vector, strlen(java_vector), &b),
			 0);
	assert_int_equal(b.underflow, 3); /* Java's zeros */
	assert_int_equal(histogram_count(&b), 8);
	assert_int_equal(b.counts[histogram_index(1000)], 5);
	assert_int_equal(b.counts[histogram_index(5000)], 2);
	assert_int_equal(b.counts[histogram_index(HISTOGRAM_HIGHEST_NS)], 1);
}

static void
test_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"A",
		"====",
		"HISTFAAAACp4nJNpmSzMwMDAxQABTFCaEcQO4X7CYP8BIsD2kZ3rIAvLe00mAH"
		"+DBrM",
		"HISTFAAAACp4nJNpmSzMwMDAxQABTFCaEcQO4X7CYP8BIsD2kZ3rIAvLe00mAH"
		"+DBr==",
		"HISTFAAAACp4nJNpmSzM!"
		"MDAxQABTFCaEcQO4X7CYP8BIsD2kZ3rIAvLe00mAH+DBrM=",
		"AAAAAAAAAAAAAAAA",
	};
	char *s;
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b.total = 42;
		assert_int_equal(hdr_codec_decode(bad[i], strlen(bad[i]), &b),
				 -EINVAL);
		assert_int_equal(histogram_count(&b), 0);
	}
	assert_int_equal(hdr_codec_decode(NULL, 0, &b), -EINVAL);

	/* every single-character change of a valid string either fails
	 * cleanly or decodes to something (never crashes: ASan checks) */
	histogram_init(&a);
	histogram_record(&a, 777);
	histogram_record(&a, 123456);
	assert_int_equal(hdr_codec_encode(&a, &s, &len), 0);
	for (i = 0; i < len; i++) {
		char keep = s[i];

		s[i] = keep == 'A' ? 'B' : 'A';
		(void)hdr_codec_decode(s, len, &b);
		s[i] = keep;
	}
	for (i = 0; i < len; i++)
		assert_int_not_equal(hdr_codec_decode(s, i, &b), 0);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one_value),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_under_overflow_not_encoded),
		cmocka_unit_test(test_random_round_trips),
		cmocka_unit_test(test_java_vector),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
