/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/metrics.h"

/* cmocka 1.1 has no assert_double_equal. */
#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* The value of the line that starts with prefix (first one), or -1. */
static double
value_of(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = text; p != NULL && *p != '\0';) {
		if (strncmp(p, prefix, n) == 0 && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -1;
}

static void
test_counter_gauge_labels(void **state)
{
	struct metrics_buf b;
	const struct metrics_label l[] = {
		{"target", "198.18.0.2:862"},
		{"proto", "stamp"},
		{"label", "a\"b\\c\nd"},
	};

	(void)state;
	metrics_buf_init(&b);
	assert_int_equal(metrics_family(&b, "latprobe_probes_sent_total",
					"counter", "Probes sent\nand done"),
			 0);
	assert_int_equal(metrics_counter(&b, "latprobe_probes_sent_total", l, 3,
					 18446744073709551615ull),
			 0);
	assert_int_equal(
		metrics_family(&b, "latprobe_tsc_hertz", "gauge", "TSC rate"),
		0);
	assert_int_equal(
		metrics_gauge(&b, "latprobe_tsc_hertz", NULL, 0, 2096000123.0),
		0);
	assert_string_equal(
		b.p,
		"# HELP latprobe_probes_sent_total Probes sent\\nand done\n"
		"# TYPE latprobe_probes_sent_total counter\n"
		"latprobe_probes_sent_total{target=\"198.18.0.2:862\","
		"proto=\"stamp\",label=\"a\\\"b\\\\c\\nd\"} "
		"18446744073709551615\n"
		"# HELP latprobe_tsc_hertz TSC rate\n"
		"# TYPE latprobe_tsc_hertz gauge\n"
		"latprobe_tsc_hertz 2096000123\n");
	metrics_buf_fini(&b);
}

static void
test_bad_names(void **state)
{
	struct metrics_buf b;
	const struct metrics_label bad[] = {{"9x", "v"}};
	const struct metrics_label reserved[] = {{"__name__", "v"}};

	(void)state;
	assert_true(metrics_name_ok("latprobe_rtt_seconds"));
	assert_true(metrics_name_ok("a:b_c9"));
	assert_false(metrics_name_ok("9a"));
	assert_false(metrics_name_ok("a-b"));
	assert_false(metrics_name_ok(""));
	metrics_buf_init(&b);
	assert_int_equal(metrics_family(&b, "x", "summary", "h"), -EINVAL);
	metrics_buf_reset(&b);
	assert_int_equal(metrics_counter(&b, "x_total", bad, 1, 1), -EINVAL);
	metrics_buf_reset(&b);
	assert_int_equal(metrics_counter(&b, "x_total", reserved, 1, 1),
			 -EINVAL);
	/* The first error sticks. */
	assert_int_equal(metrics_gauge(&b, "ok", NULL, 0, 1), -EINVAL);
	metrics_buf_reset(&b);
	assert_int_equal(metrics_gauge(&b, "ok", NULL, 0, 1), 0);
	metrics_buf_fini(&b);
}

static void
test_histogram_buckets(void **state)
{
	struct histogram *h = histogram_create();
	struct metrics_buf b;
	const struct metrics_label l[] = {{"target", "t"}};
	double prev = -1;
	char key[96];

	(void)state;
	assert_non_null(h);
	/* 0 ns (underflow), 1.5 us x3, 40 us, 700 ms, 20 s (overflow). */
	histogram_record(h, 0);
	for (int i = 0; i < 3; i++)
		histogram_record(h, 1500);
	histogram_record(h, 40000);
	histogram_record(h, 700000000);
	histogram_record(h, 20000000000ull);
	metrics_buf_init(&b);
	assert_int_equal(
		metrics_family(&b, "latprobe_rtt_seconds", "histogram", "RTT"),
		0);
	assert_int_equal(metrics_histogram(&b, "latprobe_rtt_seconds", l, 1, h),
			 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_bucket{target=\"t\","
				  "le=\"1e-06\"}"),
		    1, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_bucket{target=\"t\","
				  "le=\"2e-06\"}"),
		    4, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_bucket{target=\"t\","
				  "le=\"2e-05\"}"),
		    4, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_bucket{target=\"t\","
				  "le=\"5e-05\"}"),
		    5, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_bucket{target=\"t\","
				  "le=\"0.5\"}"),
		    5, 0);
	assert_near(
		value_of(b.p,
			 "latprobe_rtt_seconds_bucket{target=\"t\",le=\"1\"}"),
		6, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_bucket{target=\"t\","
				  "le=\"+Inf\"}"),
		    7, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_count{target=\"t\"}"),
		    7, 0);
	assert_near(value_of(b.p, "latprobe_rtt_seconds_sum{target=\"t\"}"),
		    (3 * 1500 + 40000 + 700000000) / 1e9, 1e-12);
	/* Every bound, ascending and cumulative. */
	for (unsigned k = 0; k < METRICS_N_LE; k++) {
		double v;

		snprintf(key, sizeof(key),
			 "latprobe_rtt_seconds_bucket{target=\"t\",le=\"%g\"}",
			 (double)metrics_le_ns[k] / 1e9);
		v = value_of(b.p, key);
		assert_true(v >= prev);
		prev = v;
		if (k > 0)
			assert_true(metrics_le_ns[k] > metrics_le_ns[k - 1]);
	}
	assert_int_equal(metrics_le_ns[0], 1000);
	assert_int_equal(metrics_le_ns[METRICS_N_LE - 1], 1000000000);
	metrics_buf_fini(&b);
	histogram_destroy(h);
}

static void
test_http_route(void **state)
{
	(void)state;
	assert_int_equal(metrics_http_route("GET", "/metrics", false),
			 METRICS_HTTP_OK);
	assert_int_equal(metrics_http_route("HEAD", "/metrics", false),
			 METRICS_HTTP_OK);
	assert_int_equal(metrics_http_route("GET", "/metrics?x=1", false),
			 METRICS_HTTP_OK);
	/* Not ours. */
	assert_int_equal(metrics_http_route("GET", "/", false),
			 METRICS_HTTP_NOT_FOUND);
	assert_int_equal(metrics_http_route("GET", "/metricsx", false),
			 METRICS_HTTP_NOT_FOUND);
	assert_int_equal(metrics_http_route("GET", "/metric", false),
			 METRICS_HTTP_NOT_FOUND);
	assert_int_equal(metrics_http_route("POST", "/metrics", false),
			 METRICS_HTTP_BAD_METHOD);
	assert_int_equal(metrics_http_route("get", "/metrics", false),
			 METRICS_HTTP_BAD_METHOD);
	/* A body: refused before the method or path is looked at. */
	assert_int_equal(metrics_http_route("GET", "/metrics", true),
			 METRICS_HTTP_BAD_REQUEST);
	assert_int_equal(metrics_http_route("POST", "/x", true),
			 METRICS_HTTP_BAD_REQUEST);
	assert_false(metrics_http_has_body(NULL, NULL));
	assert_false(metrics_http_has_body("0", NULL));
	assert_false(metrics_http_has_body(" 00 ", NULL));
	assert_true(metrics_http_has_body("5", NULL));
	assert_true(metrics_http_has_body("10", NULL));
	assert_true(metrics_http_has_body(NULL, "chunked"));
	assert_true(metrics_http_has_body("0", "chunked"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_gauge_labels),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_histogram_buckets),
		cmocka_unit_test(test_http_route),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
