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

static int
parse(const char *s, struct metrics_http_req *r)
{
	return metrics_http_parse(s, strlen(s), r);
}

static void
test_http_parse(void **state)
{
	struct metrics_http_req r;
	char big[METRICS_HTTP_MAX_REQUEST + 16];

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r),
			 0);
	assert_int_equal(r.status, METRICS_HTTP_OK);
	assert_false(r.head);
	assert_int_equal(r.used, strlen("GET /metrics HTTP/1.1\r\nHost: "
					"x\r\n\r\n"));
	/* Prometheus' own request, bare LF, query string, HEAD. */
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9\r\n"
		      "User-Agent: Prometheus/2.42.0\r\nAccept: "
		      "application/openmetrics-text;version=1.0.0,text/"
		      "plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
		      "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-"
		      "Seconds: 10\r\n\r\n",
		      &r),
		0);
	assert_int_equal(r.status, METRICS_HTTP_OK);
	assert_int_equal(parse("GET /metrics?x=1 HTTP/1.0\n\n", &r), 0);
	assert_int_equal(r.status, METRICS_HTTP_OK);
	assert_int_equal(parse("HEAD /metrics HTTP/1.0\r\n\r\n", &r), 0);
	assert_int_equal(r.status, METRICS_HTTP_OK);
	assert_true(r.head);
	/* Incomplete. */
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r),
			 -EAGAIN);
	assert_int_equal(parse("", &r), -EAGAIN);
	/* Not ours. */
	assert_int_equal(parse("GET / HTTP/1.1\r\n\r\n", &r), 0);
	assert_int_equal(r.status, METRICS_HTTP_NOT_FOUND);
	assert_int_equal(parse("GET /metricsx HTTP/1.1\r\n\r\n", &r), 0);
	assert_int_equal(r.status, METRICS_HTTP_NOT_FOUND);
	assert_int_equal(parse("POST /metrics HTTP/1.1\r\n\r\n", &r), 0);
	assert_int_equal(r.status, METRICS_HTTP_BAD_METHOD);
	assert_false(r.head);
	/* Malformed. */
	const char *bad[] = {
		"GET /metrics\r\n\r\n",
		"GET /metrics HTTP/2.0\r\n\r\n",
		"GET  /metrics HTTP/1.1\r\n\r\n",
		"get /metrics HTTP/1.1\r\n\r\n",
		"GET metrics HTTP/1.1\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nNoColon\r\n\r\n",
		"GET /metrics HTTP/1.1\r\n: empty\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nX: a\x01z\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
		"GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], &r), 0);
		assert_int_equal(r.status, METRICS_HTTP_BAD_REQUEST);
	}
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nContent-Length: "
			       "0\r\n\r\n",
			       &r),
			 0);
	assert_int_equal(r.status, METRICS_HTTP_OK);
	/* Too large: no end within the limit. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	assert_int_equal(
		metrics_http_parse(big, METRICS_HTTP_MAX_REQUEST - 1, &r),
		-EAGAIN);
	assert_int_equal(metrics_http_parse(big, METRICS_HTTP_MAX_REQUEST, &r),
			 0);
	assert_int_equal(r.status, METRICS_HTTP_TOO_LARGE);
}

static void
test_http_head(void **state)
{
	char out[256];
	int n;

	(void)state;
	n = metrics_http_head(out, sizeof(out), METRICS_HTTP_OK, 123);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(out));
	assert_non_null(strstr(out, "HTTP/1.0 200 OK\r\n"));
	assert_non_null(strstr(out, "Content-Type: text/plain; "
				    "version=0.0.4; charset=utf-8\r\n"));
	assert_non_null(strstr(out, "Content-Length: 123\r\n"));
	assert_string_equal(out + n - 4, "\r\n\r\n");
	n = metrics_http_head(out, sizeof(out), METRICS_HTTP_BAD_METHOD, 0);
	assert_non_null(strstr(out, "405 Method Not Allowed"));
	assert_non_null(strstr(out, "Allow: GET, HEAD\r\n"));
	assert_int_equal(metrics_http_head(out, 20, METRICS_HTTP_OK, 0),
			 -ENOSPC);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_gauge_labels),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_histogram_buckets),
		cmocka_unit_test(test_http_parse),
		cmocka_unit_test(test_http_head),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
