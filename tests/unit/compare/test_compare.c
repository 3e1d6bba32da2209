/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/compare.h"
#include "latprobe/hdr_codec.h"
#include "latprobe/hlog.h"
#include "latprobe/histogram.h"
#include "latprobe/report.h"

/* A test-side generator, independent of compare.c's. */
static uint64_t
xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double
unit(uint64_t *s)
{
	return ((double)(xs(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double
gauss(uint64_t *s)
{
	return sqrt(-2.0 * log(unit(s))) * cos(2.0 * M_PI * unit(s));
}

/* n values from a log-normal with median med and log-sd sigma. */
static void
fill_lognormal(struct histogram *h, uint64_t *seed, unsigned n, double med,
	       double sigma)
{
	for (unsigned i = 0; i < n; i++)
		histogram_record(
			h, (uint64_t)llround(med * exp(sigma * gauss(seed))));
}

static char *
probe_json(const struct histogram *rtt, const struct histogram *net,
	   const struct histogram *turn, size_t *len)
{
	struct report_probe r;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	memset(&r, 0, sizeof(r));
	r.proto = "stamp";
	r.backend = "dpdk";
	r.target = "198.18.0.2:862";
	r.port_driver = "net_memif";
	r.size = 44;
	r.lcores = 1;
	r.sent = r.received = histogram_count(rtt);
	r.rtt = rtt;
	r.network_rtt = net;
	r.turnaround = turn;
	assert_int_equal(report_probe_json(&r, f), 0);
	fclose(f);
	return buf;
}

static void
assert_same_report_figures(const struct histogram *x, const struct histogram *y)
{
	struct report_summary a, b;

	report_summarise(x, &a);
	report_summarise(y, &b);
	assert_int_equal(a.count, b.count);
	assert_int_equal(a.min, b.min);
	assert_int_equal(a.max, b.max);
	for (unsigned i = 0; i < REPORT_N_PCTS; i++)
		assert_int_equal(a.pct[i], b.pct[i]);
	assert_true(a.mean == b.mean);
	assert_true(fabs(a.stddev - b.stddev) <= 1e-6 * (a.stddev + 1));
	assert_int_equal(x->underflow, y->underflow);
	assert_int_equal(x->overflow, y->overflow);
	/* and every other percentile, too */
	for (double p = 0.5; p <= 100.0; p += 0.5)
		assert_int_equal(histogram_percentile(x, p),
				 histogram_percentile(y, p));
}

/* Item 1: every percentile of the report from the JSON's histogram. */
static void
test_json_reconstructs_report(void **state)
{
	struct histogram *h[3];
	struct compare_run run;
	uint64_t seed = 42;
	char why[200] = "", *txt;
	size_t len;

	(void)state;
	for (int s = 0; s < 3; s++) {
		h[s] = histogram_create();
		assert_non_null(h[s]);
		fill_lognormal(h[s], &seed, 20000 + 1000 * (unsigned)s,
			       5000.0 * (s + 1), 0.4 + 0.3 * s);
	}
	histogram_record(h[0], 0);			  /* underflow */
	histogram_record(h[0], HISTOGRAM_HIGHEST_NS + 1); /* overflow */
	txt = probe_json(h[0], h[1], h[2], &len);
	assert_non_null(strstr(txt, "\"format_version\""));
	assert_non_null(strstr(txt, "\"machine\""));
	assert_int_equal(compare_run_parse(txt, len, &run, why, sizeof(why)),
			 0);
	assert_string_equal(run.proto, "stamp");
	assert_int_equal(run.size, 44);
	assert_string_equal(run.kind, "probe");
	for (int s = 0; s < 3; s++) {
		assert_true(run.has[s]);
		assert_same_report_figures(h[s], run.h[s]);
	}
	compare_run_fini(&run);
	free(txt);
	for (int s = 0; s < 3; s++)
		histogram_destroy(h[s]);
}

static void
test_reflect_json_reconstructs(void **state)
{
	struct histogram *t = histogram_create();
	struct report_reflect r;
	struct compare_run run;
	uint64_t seed = 7;
	char *buf = NULL, why[200];
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	fill_lognormal(t, &seed, 5000, 300, 0.2);
	memset(&r, 0, sizeof(r));
	r.backend = "dpdk";
	r.addr = "198.18.0.2";
	r.turnaround = t;
	assert_int_equal(report_reflect_json(&r, f), 0);
	fclose(f);
	assert_int_equal(compare_run_parse(buf, len, &run, why, sizeof(why)),
			 0);
	assert_string_equal(run.kind, "reflect");
	assert_false(run.has[CMP_RTT]);
	assert_true(run.has[CMP_TURNAROUND]);
	assert_same_report_figures(t, run.h[CMP_TURNAROUND]);
	compare_run_fini(&run);
	free(buf);
	histogram_destroy(t);
}

static void
test_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"{",
		"[1,2]",
		"{} x",
		"{\"rtt_ns\": {\"count\": 1, \"min\": 5, \"max\": 5}}",
		"{\"rtt_ns\": {\"count\": 1, \"hdr\": \"AAAA\", "
		"\"hdr_lowest\": "
		"1, \"hdr_highest\": 10000000000, \"hdr_sigfigs\": 2}}",
		"{\"proto\": \"stamp\"}",
	};
	struct histogram *h = histogram_create();
	struct compare_run run;
	uint64_t seed = 3;
	char why[200], *txt, *p;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(compare_run_parse(bad[i], strlen(bad[i]), &run,
						   why, sizeof(why)),
				 -EINVAL);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(compare_run_parse(bad[4], strlen(bad[4]), &run, why,
					   sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "format_version"));

	/* a min that is not in the lowest counter: inconsistent */
	fill_lognormal(h, &seed, 1000, 10000, 0.3);
	txt = probe_json(h, NULL, NULL, &len);
	p = strstr(txt, "\"min\":");
	assert_non_null(p);
	p += 6;
	while (*p == ' ')
		p++;
	*p = *p == '1' ? '2' : '1'; /* first digit changed: another counter */
	assert_int_equal(compare_run_parse(txt, len, &run, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "inconsistent"));
	free(txt);

	/* a NUL after the report is data, not white space (the shared
	 * report_json_parse(): compare took it for a terminator) */
	txt = probe_json(h, NULL, NULL, &len);
	assert_int_equal(compare_run_parse(txt, len, &run, why, sizeof(why)),
			 0);
	compare_run_fini(&run);
	assert_int_equal(
		compare_run_parse(txt, len + 1, &run, why, sizeof(why)),
		-EINVAL);
	assert_non_null(strstr(why, "something follows"));
	free(txt);
	histogram_destroy(h);
}

/* Figures from SciPy 1.10 on the raw samples (mwu_scipy.py). */
static void
test_mann_whitney_against_scipy(void **state)
{
	struct histogram *a = histogram_create(), *b = histogram_create();
	struct compare_mwu m;
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++)
		histogram_record(a, 100);
	for (i = 0; i < 5; i++)
		histogram_record(a, 200);
	for (i = 0; i < 2; i++)
		histogram_record(a, 300);
	histogram_record(a, 1000);
	for (i = 0; i < 2; i++)
		histogram_record(b, 200);
	for (i = 0; i < 4; i++)
		histogram_record(b, 300);
	for (i = 0; i < 3; i++)
		histogram_record(b, 400);
	for (i = 0; i < 2; i++)
		histogram_record(b, 5000);
	assert_int_equal(compare_mann_whitney(a, b, &m), 0);
	assert_true(m.u_b == 99.0);
	assert_true(fabs(m.p - 0.009250627982291364) < 1e-12);
	assert_true(m.z > 0); /* B higher */
	assert_true(fabs(m.prob_b_greater - 99.0 / (11 * 11)) < 1e-15);

	histogram_init(a);
	histogram_init(b);
	for (i = 0; i < 500; i++)
		histogram_record(a, 1 + (i * 7919u) % 200);
	for (i = 0; i < 400; i++)
		histogram_record(b, 20 + (i * 104729u) % 220);
	assert_int_equal(compare_mann_whitney(a, b, &m), 0);
	assert_true(m.u_b == 123997.5);
	assert_true(fabs(m.p - 5.912223302901201e-10) < 1e-18);

	histogram_init(b);
	assert_int_equal(compare_mann_whitney(a, b, &m), -EINVAL);
	histogram_destroy(a);
	histogram_destroy(b);
}

/*
 * The 95 % interval covers the true difference about 95 % of the time:
 * 200 independent pairs of runs from two known log-normals.
 */
static void
test_bootstrap_coverage(void **state)
{
	const double sigma = 0.3, med_a = 10000, med_b = 10300;
	const unsigned trials = 200, n = 2000;
	/* the truth as the report measures it: the true quantile's counter */
	double truth[CMP__STATS];
	unsigned covered[CMP__STATS] = {0};
	struct histogram *a = histogram_create(), *b = histogram_create();
	uint64_t seed = 12345;

	(void)state;
	truth[CMP_MEAN] = (med_b - med_a) * exp(sigma * sigma / 2);
	truth[CMP_P50] =
		(double)histogram_index_highest(histogram_index(10300)) -
		(double)histogram_index_highest(histogram_index(10000));
	truth[CMP_P90] =
		(double)histogram_index_highest(histogram_index(
			(uint64_t)(med_b * exp(sigma * 1.2815515655)))) -
		(double)histogram_index_highest(histogram_index(
			(uint64_t)(med_a * exp(sigma * 1.2815515655))));
	for (unsigned t = 0; t < trials; t++) {
		const struct histogram *ra[1] = {a}, *rb[1] = {b};
		struct compare_group ga = {ra, 1}, gb = {rb, 1};
		struct compare_diff d[CMP__STATS];

		histogram_init(a);
		histogram_init(b);
		fill_lognormal(a, &seed, n, med_a, sigma);
		fill_lognormal(b, &seed, n, med_b, sigma);
		assert_int_equal(compare_bootstrap(&ga, &gb, 200, t, d), 0);
		assert_true(isnan(d[CMP_MIN].lo));
		for (int s = CMP_MEAN; s <= CMP_P90; s++)
			if (d[s].lo <= truth[s] && truth[s] <= d[s].hi)
				covered[s]++;
	}
	for (int s = CMP_MEAN; s <= CMP_P90; s++) {
		double c = (double)covered[s] / trials;

		print_message("# coverage %s: %.3f\n", compare_stat_name[s], c);
		/* 95 % nominal; 200 trials: +-3 % is one binomial sd x2 */
		assert_true(c >= 0.88 && c <= 0.99);
	}
	histogram_destroy(a);
	histogram_destroy(b);
}

/* Identical runs: no difference; a clear shift: slower / faster. */
static void
test_bootstrap_verdicts(void **state)
{
	struct histogram *a = histogram_create(), *b = histogram_create();
	const struct histogram *ra[1] = {a}, *rb[1] = {b};
	struct compare_group ga = {ra, 1}, gb = {rb, 1};
	struct compare_diff d[CMP__STATS];
	uint64_t seed = 99;

	(void)state;
	fill_lognormal(a, &seed, 20000, 10000, 0.3);
	histogram_merge(b, a);
	assert_int_equal(compare_bootstrap(&ga, &gb, 500, 1, d), 0);
	for (int s = CMP_MEAN; s < CMP_P99_99; s++) {
		assert_false(d[s].too_few);
		assert_int_equal(d[s].verdict, CMP_NO_DIFFERENCE);
		assert_true(d[s].diff == 0);
		assert_true(d[s].lo <= 0 && d[s].hi >= 0);
	}
	/* Each side's own order-statistic interval holds its figure. */
	for (int s = CMP_P50; s < CMP_P99_99; s++) {
		assert_true(d[s].a_ci_lo <= d[s].a && d[s].a <= d[s].a_ci_hi);
		assert_true(d[s].b_ci_lo <= d[s].b && d[s].b <= d[s].b_ci_hi);
	}
	assert_true(isnan(d[CMP_MEAN].a_ci_lo) && isnan(d[CMP_MIN].b_ci_hi));
	assert_true(isnan(d[CMP_P99_99].a_ci_lo));
	/* 20,000 samples a side: p99.99 needs 36,887, not compared. */
	assert_true(d[CMP_P99_99].too_few);
	assert_int_equal(d[CMP_P99_99].need, 36887);
	assert_int_equal(d[CMP_P99_99].fewest, 20000);
	assert_int_equal(d[CMP_P99_99].verdict, CMP_NO_DIFFERENCE);
	assert_true(isnan(d[CMP_P99_99].a) && isnan(d[CMP_P99_99].diff));
	histogram_init(b);
	fill_lognormal(b, &seed, 20000, 12000, 0.3);
	assert_int_equal(compare_bootstrap(&ga, &gb, 500, 1, d), 0);
	assert_int_equal(d[CMP_P50].verdict, CMP_SLOWER);
	assert_int_equal(d[CMP_MEAN].verdict, CMP_SLOWER);
	assert_true(d[CMP_P50].lo > 0);
	assert_int_equal(compare_bootstrap(&gb, &ga, 500, 1, d), 0);
	assert_int_equal(d[CMP_P50].verdict, CMP_FASTER);
	/* seeded: the same seed gives the same interval */
	{
		struct compare_diff e[CMP__STATS];

		assert_int_equal(compare_bootstrap(&gb, &ga, 500, 1, e), 0);
		assert_true(e[CMP_P99].lo == d[CMP_P99].lo &&
			    e[CMP_P99].hi == d[CMP_P99].hi);
	}
	assert_int_equal(compare_bootstrap(&ga, &gb, 10, 1, d), -EINVAL);
	histogram_destroy(a);
	histogram_destroy(b);
}

/*
 * Runs that differ from each other (a per-run offset): pooling them as one
 * run calls the difference significant, the hierarchical bootstrap over
 * the runs does not, and its interval is much wider.
 */
static void
test_bootstrap_hierarchical(void **state)
{
	struct histogram *runs[6], *pool_a = histogram_create(),
				   *pool_b = histogram_create();
	const struct histogram *ra[3], *rb[3], *pa[1] = {pool_a},
					       *pb[1] = {pool_b};
	struct compare_group ga = {ra, 3}, gb = {rb, 3}, gpa = {pa, 1},
			     gpb = {pb, 1};
	struct compare_diff flat[CMP__STATS], hier[CMP__STATS];
	/* run medians: the two conditions overlap from run to run */
	static const double med[6] = {10000, 11500, 9000, 10800, 9500, 11900};
	uint64_t seed = 5;

	(void)state;
	for (int i = 0; i < 6; i++) {
		runs[i] = histogram_create();
		fill_lognormal(runs[i], &seed, 20000, med[i], 0.2);
	}
	for (int i = 0; i < 3; i++) {
		ra[i] = runs[i];
		rb[i] = runs[3 + i];
		histogram_merge(pool_a, runs[i]);
		histogram_merge(pool_b, runs[3 + i]);
	}
	assert_int_equal(compare_bootstrap(&gpa, &gpb, 400, 2, flat), 0);
	assert_int_equal(compare_bootstrap(&ga, &gb, 400, 2, hier), 0);
	/* same point estimate: both merge all runs */
	assert_true(flat[CMP_P50].diff == hier[CMP_P50].diff);
	assert_int_not_equal(flat[CMP_P50].verdict, CMP_NO_DIFFERENCE);
	assert_int_equal(hier[CMP_P50].verdict, CMP_NO_DIFFERENCE);
	assert_true(hier[CMP_P50].hi - hier[CMP_P50].lo >
		    5 * (flat[CMP_P50].hi - flat[CMP_P50].lo));
	/* the run-to-run spread is reported */
	assert_true(hier[CMP_P50].a_hi - hier[CMP_P50].a_lo > 1500);
	for (int i = 0; i < 6; i++)
		histogram_destroy(runs[i]);
	histogram_destroy(pool_a);
	histogram_destroy(pool_b);
}

/* The interval log layout HdrHistogram's reader expects. */
static void
test_hlog_layout(void **state)
{
	struct histogram *h = histogram_create(), *back = histogram_create();
	char *buf = NULL, *line, *save = NULL, *b64;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	uint64_t seed = 11;
	unsigned n = 0;

	(void)state;
	fill_lognormal(h, &seed, 3000, 20000, 0.5);
	assert_int_equal(hlog_write_header(f, "latprobe test", 1764515061.5),
			 0);
	assert_int_equal(hlog_write_interval(f, "rtt", 0.0, 1.0, h), 0);
	assert_int_equal(hlog_write_interval(f, "network_rtt", 1.0, 0.25, h),
			 0);
	assert_int_equal(hlog_write_interval(f, "bad,tag", 1, 1, h), -EINVAL);
	assert_int_equal(hlog_write_interval(f, "", 1, 1, h), -EINVAL);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save), n++) {
		switch (n) {
		case 0:
			assert_string_equal(line,
					    "#[Written by latprobe test]");
			break;
		case 1:
			assert_string_equal(
				line, "#[Histogram log format version 1.3]");
			break;
		case 2:
			assert_string_equal(line, "#[StartTime: 1764515061.500 "
						  "(seconds since epoch), "
						  "2025-11-30T15:04:21Z]");
			break;
		case 3:
			assert_string_equal(line, "#[BaseTime: 1764515061.500 "
						  "(seconds since epoch)]");
			break;
		case 4:
			assert_string_equal(
				line, "\"StartTimestamp\",\"Interval_Length\","
				      "\"Interval_Max\","
				      "\"Interval_Compressed_Histogram\"");
			break;
		case 5:
		case 6: {
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "%s,%s,%.3f,",
				 n == 5 ? "Tag=rtt" : "Tag=network_rtt",
				 n == 5 ? "0.000,1.000" : "1.000,0.250",
				 (double)histogram_max(h) / 1e6);
			assert_memory_equal(line, prefix, strlen(prefix));
			b64 = line + strlen(prefix);
			assert_int_equal(
				hdr_codec_decode(b64, strlen(b64), back), 0);
			assert_memory_equal(back->counts, h->counts,
					    sizeof(h->counts));
			break;
		}
		default:
			fail_msg("extra line: %s", line);
		}
	}
	assert_int_equal(n, 7);
	free(buf);
	histogram_destroy(h);
	histogram_destroy(back);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_reconstructs_report),
		cmocka_unit_test(test_reflect_json_reconstructs),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_mann_whitney_against_scipy),
		cmocka_unit_test(test_bootstrap_coverage),
		cmocka_unit_test(test_bootstrap_verdicts),
		cmocka_unit_test(test_bootstrap_hierarchical),
		cmocka_unit_test(test_hlog_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
