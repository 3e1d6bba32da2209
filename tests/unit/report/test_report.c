/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "latprobe/report.h"

#define N_LINEAR 10

struct fixture {
	struct histogram *rtt, *net, *turn, *empty;
};

static int
teardown(void **state)
{
	struct fixture *f = *state;

	histogram_destroy(f->rtt);
	histogram_destroy(f->net);
	histogram_destroy(f->turn);
	histogram_destroy(f->empty);
	free(f);
	return 0;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t v;

	if (f == NULL)
		return -1;
	f->rtt = histogram_create();
	f->net = histogram_create();
	f->turn = histogram_create();
	f->empty = histogram_create();
	*state = f;
	if (f->rtt == NULL || f->net == NULL || f->turn == NULL ||
	    f->empty == NULL) {
		teardown(state);
		return -1;
	}
	/* 1000 values 100..1099 ns, two outliers, one of each out of range */
	for (v = 100; v < 1100; v++)
		histogram_record(f->rtt, v);
	histogram_record(f->rtt, 50000);
	histogram_record(f->rtt, 2000000);
	histogram_record(f->rtt, 0);
	histogram_record(f->rtt, 20000000000ull);
	for (v = 0; v < 500; v++) {
		histogram_record(f->net, 80 + v % 37);
		histogram_record(f->turn, 300 + v * 3);
	}
	return 0;
}

static struct report_probe
probe_of(const struct fixture *f)
{
	struct report_probe r = {
		.proto = "stamp",
		.backend = "dpdk",
		.target = "198.18.0.2:862",
		.port_driver = "net_af_xdp",
		.size = 8192,
		.lcores = 1,
		.duration_s = 10.5,
		.interrupted = true,
		.sent = 1010,
		.received = 1004,
		.lost = 8,
		.duplicated = 1,
		.reordered = 2,
		.timeouts = 8,
		.rx_ignored = 3,
		.warmup = 100,
		.rtt = f->rtt,
		.network_rtt = f->net,
		.turnaround = f->turn,
		.buckets = {.n_buckets = N_LINEAR},
		.tsc = {.hz = 2595123456ull,
			.dpdk_hz = 2600000000ull,
			.calib_ppm = 1879.0,
			.invariant = true,
			.read_cost_cycles = 36.8},
	};

	return r;
}

/* Run a writer into memory; returns the malloc'd text. */
#define CAPTURE(call, text_out)                                                \
	do {                                                                   \
		size_t len_;                                                   \
		FILE *m_ = open_memstream(&(text_out), &len_);                 \
		assert_non_null(m_);                                           \
		assert_int_equal((call), 0);                                   \
		assert_int_equal(fclose(m_), 0);                               \
	} while (0)

/* CAPTURE, then the text parsed into root_out (json_object_put() frees). */
#define CAPTURE_JSON(call, text_out, root_out)                                 \
	do {                                                                   \
		CAPTURE(call, text_out);                                       \
		(root_out) = json_tokener_parse(text_out);                     \
		assert_non_null(root_out);                                     \
	} while (0)

static struct json_object *
jget(struct json_object *root, const char *path)
{
	char buf[128], *tok, *save = NULL;
	struct json_object *o = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok != NULL;
	     tok = strtok_r(NULL, ".", &save)) {
		if (!json_object_object_get_ex(o, tok, &o))
			fail_msg("missing key %s", path);
	}
	return o;
}

static uint64_t
jget_u64(struct json_object *root, const char *path)
{
	struct json_object *o = jget(root, path);

	assert_true(json_object_is_type(o, json_type_int));
	return json_object_get_uint64(o);
}

static bool
jhas(struct json_object *root, const char *key)
{
	return json_object_object_get_ex(root, key, NULL);
}

static const char *const pct_key[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99_9", "p99_99", "p99_999",
};

/*
 * Percentile p of h under key in the series o: the value with its "ci95"
 * pair around it when h has enough samples for p, else null, a null
 * interval and the key in "too_few_samples".
 */
static void
check_pct(struct json_object *o, const char *key, const struct histogram *h,
	  double p)
{
	struct json_object *v = jget(o, key), *ci = jget(jget(o, "ci95"), key);
	struct json_object *few = jget(o, "too_few_samples");
	bool listed = false;

	for (size_t k = 0; k < json_object_array_length(few); k++)
		if (strcmp(json_object_get_string(
				   json_object_array_get_idx(few, k)),
			   key) == 0)
			listed = true;
	if (!report_pct_enough(histogram_count(h), p)) {
		assert_true(json_object_is_type(v, json_type_null));
		assert_true(json_object_is_type(ci, json_type_null));
		assert_true(listed);
		return;
	}
	assert_false(listed);
	assert_int_equal(json_object_get_uint64(v), histogram_percentile(h, p));
	assert_int_equal(json_object_array_length(ci), 2);
	assert_true(json_object_get_uint64(json_object_array_get_idx(ci, 0)) <=
		    json_object_get_uint64(v));
	assert_true(json_object_get_uint64(v) <=
		    json_object_get_uint64(json_object_array_get_idx(ci, 1)));
}

static void
check_summary(struct json_object *root, const char *name,
	      const struct histogram *h)
{
	char path[64];
	unsigned i;

#define KEY(k) (snprintf(path, sizeof(path), "%s.%s", name, k), path)
	assert_int_equal(jget_u64(root, KEY("count")), histogram_count(h));
	assert_int_equal(jget_u64(root, KEY("min")), histogram_min(h));
	assert_int_equal(jget_u64(root, KEY("max")), histogram_max(h));
	/* Doubles are written so that they parse back bit for bit. */
	assert_true(json_object_get_double(jget(root, KEY("mean"))) ==
		    histogram_mean(h));
	assert_true(json_object_get_double(jget(root, KEY("stddev"))) ==
		    histogram_stddev(h));
	for (i = 0; i < REPORT_N_PCTS; i++)
		check_pct(jget(root, name), pct_key[i], h, report_pcts[i]);
	assert_int_equal(jget_u64(root, KEY("underflow")), h->underflow);
	assert_int_equal(jget_u64(root, KEY("overflow")), h->overflow);
#undef KEY
}

/*
 * The JSON percentile keys are written from a table parallel to
 * report_pcts[]: each "pA_B" key must hold the percentile A.B of the data,
 * there must be one key for each report_pcts[] entry, in the same order.
 * Fails if the two tables drift apart (e.g. 99.5 under "p99_9").
 */
static void
test_pcts_table(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct json_object *root, *rtt;
	char *text = NULL;
	unsigned n = 0;

	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	rtt = jget(root, "rtt_ns");
	/* The iterator API: json_object_object_foreach is a GNU statement
	 * expression, which clang's -Wpedantic refuses. */
	for (struct json_object_iterator it = json_object_iter_begin(rtt),
					 end = json_object_iter_end(rtt);
	     !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		struct json_object *val = json_object_iter_peek_value(&it);
		char num[32];
		double pct;
		size_t k;

		if (key[0] != 'p' || strlen(key) >= sizeof(num))
			continue;
		/* "p99_99" -> 99.99 */
		for (k = 1; key[k] != '\0'; k++)
			num[k - 1] = key[k] == '_' ? '.' : key[k];
		num[k - 1] = '\0';
		pct = strtod(num, NULL);
		assert_true(n < REPORT_N_PCTS);
		assert_true(pct == report_pcts[n]);
		(void)val;
		check_pct(rtt, key, f->rtt, pct);
		n++;
	}
	assert_int_equal(n, REPORT_N_PCTS);
	json_object_put(root);
	free(text);
}

static void
test_summarise(void **state)
{
	struct fixture *f = *state;
	struct report_summary s;
	unsigned i;

	report_summarise(f->rtt, &s);
	assert_int_equal(s.count, 1002);
	assert_int_equal(s.min, 100);
	assert_int_equal(s.max, 2000000);
	assert_true(s.mean == histogram_mean(f->rtt));
	assert_true(s.stddev == histogram_stddev(f->rtt));
	for (i = 0; i < REPORT_N_PCTS; i++)
		assert_int_equal(s.pct[i],
				 histogram_percentile(f->rtt, report_pcts[i]));
	/* p50 of 100..1099 lies near 600 (bucket width 4 ns there) */
	assert_in_range(s.pct[0], 596, 604);
	assert_int_equal(s.pct[5], 2000000);

	memset(&s, 0xff, sizeof(s));
	report_summarise(f->empty, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.min, 0);
	assert_int_equal(s.max, 0);
	assert_true(s.mean == 0 && s.stddev == 0);
	for (i = 0; i < REPORT_N_PCTS; i++)
		assert_int_equal(s.pct[i], 0);
	memset(&s, 0xff, sizeof(s));
	report_summarise(NULL, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.max, 0);
}

static void
test_probe_json_stable_keys(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct histogram_row rows[N_LINEAR];
	struct json_object *root, *b;
	uint64_t sum = 0;
	char *text = NULL;
	size_t i;

	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	/* NOSLASHESCAPE: the target's "/" would be fine, "\/" would not. */
	assert_null(strstr(text, "\\/"));

	assert_int_equal(jget_u64(root, "probes.sent"), 1010);
	assert_int_equal(jget_u64(root, "probes.received"), 1004);
	assert_int_equal(jget_u64(root, "probes.lost"), 8);
	assert_int_equal(jget_u64(root, "probes.duplicated"), 1);
	assert_int_equal(jget_u64(root, "probes.reordered"), 2);
	assert_int_equal(jget_u64(root, "probes.timeouts"), 8);
	assert_int_equal(jget_u64(root, "probes.rx_ignored"), 3);
	assert_int_equal(jget_u64(root, "probes.warmup"), 100);

	check_summary(root, "rtt_ns", f->rtt);
	assert_int_equal(jget_u64(root, "rtt_ns.count"), 1002);
	assert_int_equal(jget_u64(root, "rtt_ns.min"), 100);
	assert_int_equal(jget_u64(root, "rtt_ns.max"), 2000000);
	assert_int_equal(jget_u64(root, "rtt_ns.underflow"), 1);
	assert_int_equal(jget_u64(root, "rtt_ns.overflow"), 1);
	check_summary(root, "network_rtt_ns", f->net);
	check_summary(root, "turnaround_ns", f->turn);

	assert_int_equal(histogram_table_linear(f->rtt, N_LINEAR, rows),
			 N_LINEAR);
	b = jget(root, "buckets");
	assert_true(json_object_is_type(b, json_type_array));
	assert_int_equal(json_object_array_length(b), N_LINEAR);
	for (i = 0; i < N_LINEAR; i++) {
		struct json_object *row = json_object_array_get_idx(b, i);

		assert_int_equal(jget_u64(row, "upper_ns"), rows[i].upper_ns);
		assert_int_equal(jget_u64(row, "count"), rows[i].count);
		sum += rows[i].count;
	}
	assert_int_equal(sum, 1002);

	assert_int_equal(jget_u64(root, "tsc.hz"), 2595123456ull);
	assert_true(json_object_get_boolean(jget(root, "tsc.invariant")));
	assert_int_equal(jget_u64(root, "tsc.dpdk_hz"), 2600000000ull);
	assert_true(json_object_get_double(jget(root, "tsc.calib_ppm")) ==
		    1879.0);
	assert_true(json_object_get_double(
			    jget(root, "tsc.read_cost_cycles")) == 36.8);
	/* Shortest round-trip form, not %.17g's 36.799999999999997 */
	assert_non_null(strstr(text, "\"read_cost_cycles\":36.8\n"));
	assert_non_null(strstr(text, "\"calib_ppm\":1879.0,"));

	assert_string_equal(json_object_get_string(jget(root, "proto")),
			    "stamp");
	assert_string_equal(json_object_get_string(jget(root, "backend")),
			    "dpdk");
	assert_string_equal(json_object_get_string(jget(root, "target")),
			    "198.18.0.2:862");
	assert_int_equal(jget_u64(root, "size"), 8192);
	assert_int_equal(jget_u64(root, "lcores"), 1);
	assert_true(json_object_get_double(jget(root, "duration_s")) == 10.5);
	assert_true(json_object_get_boolean(jget(root, "interrupted")));

	json_object_put(root);
	free(text);
}

static void
test_probe_json_edges_and_absent(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	static const uint64_t edges[] = {200, 500, 1000};
	struct histogram_row rows[4];
	struct json_object *root, *b, *last;
	char *text = NULL;
	size_t i;

	r.network_rtt = NULL;
	r.turnaround = NULL;
	r.port_driver = NULL;
	r.tsc.calib_ppm = NAN; /* not measured: null, never a bare NaN */
	r.buckets = (struct report_buckets){.edges_ns = edges, .n_edges = 3};
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);

	assert_false(jhas(root, "network_rtt_ns"));
	assert_false(jhas(root, "turnaround_ns"));
	assert_true(
		json_object_is_type(jget(root, "port_driver"), json_type_null));
	assert_true(json_object_is_type(jget(root, "tsc.calib_ppm"),
					json_type_null));

	assert_int_equal(histogram_table_edges(f->rtt, edges, 3, rows), 4);
	b = jget(root, "buckets");
	assert_int_equal(json_object_array_length(b), 4);
	for (i = 0; i < 3; i++) {
		struct json_object *row = json_object_array_get_idx(b, i);

		assert_int_equal(jget_u64(row, "upper_ns"), edges[i]);
		assert_int_equal(jget_u64(row, "count"), rows[i].count);
	}
	assert_int_equal(rows[0].count, 101); /* 100..200 */
	last = json_object_array_get_idx(b, 3);
	assert_true(jhas(last, "upper_ns"));
	assert_true(
		json_object_is_type(jget(last, "upper_ns"), json_type_null));
	assert_int_equal(jget_u64(last, "count"), rows[3].count);
	assert_int_equal(rows[0].count + rows[1].count + rows[2].count +
				 rows[3].count,
			 1002);

	json_object_put(root);
	free(text);

	/* No -h at all: the default table, every in-range value in it. */
	r.buckets = (struct report_buckets){0};
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_string_equal(
		json_object_get_string(jget(root, "buckets_layout")), "auto");
	b = jget(root, "buckets");
	assert_true(json_object_array_length(b) > 1);
	{
		uint64_t sum = 0;

		for (i = 0; i < json_object_array_length(b); i++)
			sum += jget_u64(json_object_array_get_idx(b, i),
					"count");
		assert_int_equal(sum, 1002);
		last = json_object_array_get_idx(b, i - 1);
		assert_int_equal(jget_u64(last, "upper_ns"), 2000000);
		assert_true(json_object_get_double(jget(last, "cum_pct")) ==
			    100.0);
	}
	json_object_put(root);
	free(text);
}

static void
test_probe_empty(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = {.buckets = {.n_buckets = 5}};
	struct json_object *root, *b;
	char *text = NULL;
	unsigned i, k;

	for (k = 0; k < 2; k++) {
		/* Once with a NULL histogram, once with an empty one. */
		r.rtt = k == 0 ? NULL : f->empty;
		CAPTURE_JSON(report_probe_json(&r, m_), text, root);
		assert_int_equal(jget_u64(root, "probes.sent"), 0);
		assert_int_equal(jget_u64(root, "rtt_ns.count"), 0);
		assert_int_equal(jget_u64(root, "rtt_ns.min"), 0);
		assert_int_equal(jget_u64(root, "rtt_ns.max"), 0);
		assert_true(json_object_get_double(jget(root, "rtt_ns.mean")) ==
			    0);
		for (i = 0; i < REPORT_N_PCTS; i++) {
			char path[32];

			/* No sample: no percentile, not 0. */
			snprintf(path, sizeof(path), "rtt_ns.%s", pct_key[i]);
			assert_true(json_object_is_type(jget(root, path),
							json_type_null));
		}
		b = jget(root, "buckets");
		assert_int_equal(json_object_array_length(b), 5);
		for (i = 0; i < 5; i++)
			assert_int_equal(
				jget_u64(json_object_array_get_idx(b, i),
					 "count"),
				0);
		assert_true(json_object_is_type(jget(root, "proto"),
						json_type_null));
		json_object_put(root);
		free(text);

		CAPTURE(report_probe_text(&r, m_), text);
		assert_non_null(strstr(
			text, "Sent = 0, Received = 0, Lost = 0 (0.00%)"));
		/* No sample: no figure, not 0ns. */
		assert_non_null(strstr(text, "Minimum = -, Maximum = -, "
					     "Average = -, Stddev = -"));
		assert_non_null(strstr(text, "  p50      -\n"));
		assert_null(strstr(text, "0ns"));
		free(text);
	}
}

/* An empty network RTT series (no STAMP answer) prints "-", not 0ns. */
static void
test_empty_series_dash(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	char *text = NULL;

	r.network_rtt = f->empty;
	r.turnaround = f->empty;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "Network RTT (T4-T1)-(T3-T2): count 0, "
				     "min -, p50 -, p90 -, p99 -, p99.9 -, "
				     "p99.99 -, p99.999 -, max -\n"));
	assert_non_null(strstr(text, "Turnaround (T3-T2): count 0, min -,"));
	/* The RTT series has samples: figures as usual. */
	assert_non_null(strstr(text, "Minimum = "));
	assert_null(strstr(text, "Minimum = -"));
	free(text);
}

/* probes.ignored is an object of reasons summing to rx_ignored; the text
 * names the biggest reason with its hint. */
static void
test_ignored_reasons(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct json_object *root, *ign;
	uint64_t sum = 0;
	char *text = NULL;

	r.ignored[REPORT_IGN_CHECKSUM] = 5;
	r.ignored[REPORT_IGN_OTHER_FLOW] = 2;
	r.ignored[REPORT_IGN_LATE] = 1;
	r.late = 1;
	r.rx_ignored = 8;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	ign = jget(root, "probes.ignored");
	assert_true(json_object_is_type(ign, json_type_object));
	assert_int_equal(json_object_object_length(ign), REPORT_IGN__COUNT);
	for (unsigned i = 0; i < REPORT_IGN__COUNT; i++) {
		char path[64];

		snprintf(path, sizeof(path), "probes.ignored.%s",
			 report_ignored_name[i]);
		assert_int_equal(jget_u64(root, path), r.ignored[i]);
		sum += jget_u64(root, path);
	}
	assert_int_equal(sum, jget_u64(root, "probes.rx_ignored"));
	assert_int_equal(jget_u64(root, "probes.ignored.checksum"), 5);
	assert_int_equal(jget_u64(root, "probes.ignored.too_short"), 0);
	assert_int_equal(jget_u64(root, "probes.ignored.never_sent"), 0);
	assert_int_equal(jget_u64(root, "probes.unreachable"), 0);
	json_object_put(root);
	free(text);

	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "  Ignored: checksum 5, other_flow 2, "
				     "late 1\n"));
	assert_non_null(strstr(text, "mostly checksum: "));
	assert_non_null(strstr(text, "partial ones, from a peer's tx"));
	assert_null(strstr(text, "Answers with a partial L4 checksum"));
	free(text);
	/* Partial sums used: the count, in the JSON and with its meaning. */
	r.l4_partial = 9;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "Answers with a partial L4 checksum = 9 "
				     "(used: the peer left its sum to a tx"));
	free(text);
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_int_equal(jget_u64(root, "probes.l4_partial"), 9);
	json_object_put(root);
	free(text);
}

/* ICMP port unreachable: reported as a closed port, by code in JSON. */
static void
test_unreachable(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct json_object *root;
	char *text = NULL;

	r.unreachable[REPORT_UNREACH_PORT] = 7;
	r.unreachable[REPORT_UNREACH_HOST] = 1;
	r.ignored[REPORT_IGN_UNREACHABLE] = 8;
	r.rx_ignored = 8;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_int_equal(jget_u64(root, "probes.unreachable"), 8);
	assert_int_equal(jget_u64(root, "probes.unreachable_port"), 7);
	assert_int_equal(jget_u64(root, "probes.unreachable_host"), 1);
	assert_int_equal(jget_u64(root, "probes.unreachable_net"), 0);
	assert_int_equal(jget_u64(root, "probes.unreachable_admin"), 0);
	assert_int_equal(jget_u64(root, "probes.unreachable_other"), 0);
	json_object_put(root);
	free(text);

	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "198.18.0.2:862 answered ICMP port "
				     "unreachable: nothing listens there (7 "
				     "times)"));
	assert_non_null(strstr(text, "ICMP host unreachable"));
	free(text);
}

static void
test_probe_text(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct histogram_row rows[N_LINEAR];
	struct report_summary s;
	char line[128], a[24], b[24];
	char *text = NULL;
	unsigned i;

	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "stamp round trips to 198.18.0.2:862"));
	assert_non_null(strstr(
		text, "  Sent = 1010, Received = 1004, Lost = 8 (0.79%)"));
	assert_non_null(strstr(text, "Duplicated = 1, Reordered = 2"));
	report_summarise(f->rtt, &s);
	snprintf(line, sizeof(line),
		 "  Minimum = 100ns, Maximum = 2.000ms, Average = %s",
		 report_fmt_ns((uint64_t)(s.mean + 0.5), a, sizeof(a)));
	assert_non_null(strstr(text, line));
	assert_non_null(strstr(text, "Out of range: 1 below 1ns, 1 above 10s"));

	/* Percentile lines, in order. */
	{
		static const char *const label[REPORT_N_PCTS] = {
			"p50", "p90", "p99", "p99.9", "p99.99", "p99.999"};
		const char *prev = text;

		for (i = 0; i < REPORT_N_PCTS; i++) {
			const char *at;

			/* 1002 round trips: a figure and its interval up
			 * to p99, "-" and the count needed from p99.9. */
			if (report_pct_enough(s.count, report_pcts[i]))
				snprintf(line, sizeof(line), "\n  %-8s %s [",
					 label[i],
					 report_fmt_ns(s.pct[i], a, sizeof(a)));
			else
				snprintf(line, sizeof(line),
					 "\n  %-8s -  (too few: needs ",
					 label[i]);
			at = strstr(prev, line);
			assert_non_null(at);
			prev = at;
		}
	}

	/* Bucket table: header, then "edge  count  cum %" per bucket. */
	assert_non_null(strstr(text, "     Latency       Count    Cum %\n"));
	assert_int_equal(histogram_table_linear(f->rtt, N_LINEAR, rows),
			 N_LINEAR);
	{
		uint64_t cum = 0;

		for (i = 0; i < N_LINEAR; i++) {
			cum += rows[i].count;
			snprintf(line, sizeof(line), "\n%12s  %10llu  %7.2f\n",
				 report_fmt_ns(rows[i].upper_ns, a, sizeof(a)),
				 (unsigned long long)rows[i].count,
				 100.0 * (double)cum / 1002.0);
			assert_non_null(strstr(text, line));
		}
	}
	assert_non_null(strstr(text, "  100.00\n"));

	report_summarise(f->net, &s);
	snprintf(line, sizeof(line),
		 "Network RTT (T4-T1)-(T3-T2): count 500, min %s, p50 %s",
		 report_fmt_ns(s.min, a, sizeof(a)),
		 report_fmt_ns(s.pct[0], b, sizeof(b)));
	assert_non_null(strstr(text, line));
	assert_non_null(
		strstr(text, "Turnaround (T3-T2): count 500, min 300ns"));
	assert_non_null(strstr(text,
			       "TSC: 2595123456 Hz (2.595123 GHz), "
			       "invariant; DPDK says 2600000000 Hz, "
			       "+1879.0 ppm; ordered read 36.8 cycles\n"));
	free(text);

	/* Edge table: the open-ended last row reads "> last edge". */
	{
		static const uint64_t edges[] = {200, 500, 1000};
		struct histogram_row erows[4];

		assert_int_equal(histogram_table_edges(f->rtt, edges, 3, erows),
				 4);
		r.buckets = (struct report_buckets){.edges_ns = edges,
						    .n_edges = 3};
		r.network_rtt = NULL;
		r.turnaround = NULL;
		r.tsc.invariant = false;
		CAPTURE(report_probe_text(&r, m_), text);
		assert_non_null(
			strstr(text, "\n       200ns         101    10.08\n"));
		snprintf(line, sizeof(line), "\n      1.00us  %10llu  ",
			 (unsigned long long)erows[2].count);
		assert_non_null(strstr(text, line));
		snprintf(line, sizeof(line),
			 "\n    > 1.00us  %10llu   100.00\n",
			 (unsigned long long)erows[3].count);
		assert_non_null(strstr(text, line));
		assert_null(strstr(text, "Network RTT"));
		assert_null(strstr(text, "Turnaround"));
		assert_non_null(strstr(text, "NOT invariant"));
		free(text);
	}
}

static void
test_probe_errors(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	static const uint64_t bad_edges[] = {500, 200};
	FILE *ro;

	assert_int_equal(report_probe_json(NULL, stdout), -EINVAL);
	assert_int_equal(report_probe_json(&r, NULL), -EINVAL);
	assert_int_equal(report_probe_text(NULL, stdout), -EINVAL);

	r.buckets =
		(struct report_buckets){.edges_ns = bad_edges, .n_edges = 2};
	assert_int_equal(report_probe_json(&r, stdout), -EINVAL);
	assert_int_equal(report_probe_text(&r, stdout), -EINVAL);

	/* A stream that cannot be written: -EIO, not silence. */
	r.buckets = (struct report_buckets){.n_buckets = 3};
	ro = fopen("/dev/null", "r");
	assert_non_null(ro);
	assert_int_equal(report_probe_json(&r, ro), -EIO);
	assert_int_equal(report_probe_text(&r, ro), -EIO);
	assert_int_equal(report_samples_header(ro), -EIO);
	fclose(ro);
}

/* Several targets: rows worst p99 first, JSON "targets" in list order. */
static void
test_probe_targets(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct histogram *fast = histogram_create(), *slow = histogram_create();
	struct report_target t[3];
	const uint16_t sports[2] = {40000, 40002};
	struct json_object *root, *a, *o, *jv;
	char *text = NULL;
	const char *pf, *ps, *pe;

	assert_non_null(fast);
	assert_non_null(slow);
	/* 1000 each: enough for a p99 to sort by. */
	for (uint64_t v = 1000; v < 2000; v++)
		histogram_record(fast, v);
	for (uint64_t v = 50000; v < 90000; v += 40)
		histogram_record(slow, v);
	t[0] = (struct report_target){"198.18.0.2:862",
				      "stamp",
				      "",
				      100,
				      100,
				      0,
				      fast,
				      fast,
				      false,
				      40000};
	t[1] = (struct report_target){"198.18.0.3:862",
				      "stamp",
				      "rack-2",
				      104,
				      100,
				      4,
				      slow,
				      slow,
				      false,
				      40002};
	t[2] = (struct report_target){
		"198.18.0.4:862", "stamp", "", 5, 0, 5, NULL, NULL, true, 0};
	r.targets = t;
	r.n_targets = 3;
	r.sports = sports;
	r.n_sports = 2;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "Targets (3, worst p99 first; * removed "
				     "on SIGHUP):"));
	assert_non_null(strstr(text, "* 198.18.0.4:862"));
	assert_non_null(strstr(text, "  198.18.0.3:862"));
	pf = strstr(text, "  198.18.0.2:862");
	ps = strstr(text, "  198.18.0.3:862");
	pe = strstr(text, "* 198.18.0.4:862");
	assert_non_null(pf);
	assert_non_null(ps);
	assert_non_null(pe);
	assert_true(ps < pf && pf < pe); /* slow, fast, then no answer */
	assert_non_null(strstr(ps, "rack-2"));
	assert_non_null(strstr(ps, "3.85%"));
	assert_non_null(strstr(pe, "100.00%"));
	free(text);

	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_true(json_object_object_get_ex(root, "targets", &a));
	assert_int_equal(json_object_array_length(a), 3);
	o = json_object_array_get_idx(a, 1);
	assert_string_equal(json_object_get_string(jget(o, "target")),
			    "198.18.0.3:862");
	assert_string_equal(json_object_get_string(jget(o, "label")), "rack-2");
	assert_int_equal(jget_u64(o, "probes.sent"), 104);
	assert_int_equal(jget_u64(o, "probes.lost"), 4);
	check_summary(o, "rtt_ns", slow);
	check_summary(o, "network_rtt_ns", slow);
	assert_false(json_object_get_boolean(jget(o, "removed")));
	assert_int_equal(jget_u64(o, "source_port"), 40002);
	o = json_object_array_get_idx(a, 2);
	assert_true(json_object_get_boolean(jget(o, "removed")));
	/* No port (ICMP): null. */
	assert_true(json_object_object_get_ex(o, "source_port", &jv));
	assert_null(jv);
	/* The run's: the first worker's, and each one's. */
	assert_int_equal(jget_u64(root, "source_port"), 40000);
	assert_true(json_object_object_get_ex(root, "source_ports", &jv));
	assert_int_equal(json_object_array_length(jv), 2);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(jv, 1)),
			 40002);
	assert_int_equal(jget_u64(o, "rtt_ns.count"), 0);
	assert_false(json_object_object_get_ex(o, "network_rtt_ns", NULL));
	json_object_put(root);
	free(text);

	/* One target: no table, no key. */
	r.n_targets = 0;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_false(json_object_object_get_ex(root, "targets", NULL));
	json_object_put(root);
	free(text);
	histogram_destroy(fast);
	histogram_destroy(slow);
}

/* --flows: every flow in JSON with its keys, the text's top 10 worst p99
 * first, and the spread verdict. */
static void
test_probe_flows(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct report_flow fl[12];
	struct report_flows_spread sp;
	struct json_object *root, *a, *o;
	char *text = NULL;
	const char *p3, *p7;

	/* 12 flows, p50 about 1000 ns, p99 1500 ns; flow 7 a slow path (p50
	 * 5000), flow 3 a bad tail only, flow 11 never answered. */
	for (unsigned i = 0; i < 12; i++)
		fl[i] = (struct report_flow){.flow = i,
					     .lcore = 0,
					     .sport = (uint16_t)(40000 + i),
					     .count = 1000,
					     .lost = 0,
					     .p50 = 1000 + i,
					     .p99 = 1500 + i,
					     .max = 2000 + i};
	fl[7].p50 = 5000;
	fl[7].p99 = 6000;
	fl[7].max = 7000;
	fl[3].p99 = 9000;
	fl[3].max = 9500;
	fl[11].count = 0;
	fl[11].lost = 100;
	fl[11].p50 = fl[11].p99 = fl[11].max = 0;
	r.flows = fl;
	r.n_flows = 12;
	report_flows_spread(fl, 12, &sp);
	assert_true(sp.valid);
	assert_int_equal(sp.flows, 11);
	assert_int_equal(sp.worst_p50, 5000);
	assert_int_equal(sp.worst_sport, 40007);
	assert_int_equal(sp.median_p50, 1005); /* lower median of 11 */
	assert_int_equal(sp.median_p99, 1505);
	assert_true(sp.differ);

	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "Flows (12, worst p99 first; the top 10, "
				     "all in the JSON):"));
	p3 = strstr(text, " 40003 ");
	p7 = strstr(text, " 40007 ");
	assert_non_null(p3);
	assert_non_null(p7);
	assert_true(p3 < p7);
	/* 10 shown: flow 0 (the best p99) and 11 (no answer) are not. */
	assert_null(strstr(text, " 40000 "));
	assert_null(strstr(text, " 40011 "));
	assert_non_null(strstr(text, "the flows DIFFER more than their own "
				     "spread explains"));
	free(text);

	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_true(json_object_object_get_ex(root, "flows", &a));
	assert_int_equal(json_object_array_length(a), 12);
	o = json_object_array_get_idx(a, 7);
	assert_int_equal(jget_u64(o, "sport"), 40007);
	assert_int_equal(jget_u64(o, "count"), 1000);
	assert_int_equal(jget_u64(o, "lost"), 0);
	assert_int_equal(jget_u64(o, "p50"), 5000);
	assert_int_equal(jget_u64(o, "p99"), 6000);
	assert_int_equal(jget_u64(o, "max"), 7000);
	assert_int_equal(jget_u64(json_object_array_get_idx(a, 11), "lost"),
			 100);
	assert_true(json_object_get_boolean(jget(root, "flows_spread.differ")));
	assert_int_equal(jget_u64(root, "flows_spread.worst_p50_ns"), 5000);
	assert_false(jhas(root, "first_packet_rtt_ns"));
	json_object_put(root);
	free(text);

	/* Flow 7 like the others: no difference. */
	fl[7].p50 = 1007;
	fl[7].p99 = 1507;
	report_flows_spread(fl, 12, &sp);
	assert_true(sp.valid);
	assert_false(sp.differ);
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "the flows do not differ more than "
				     "their own spread explains"));
	free(text);
	/* A worst p50 above the median flow's own (tight) spread but within
	 * two steps of the per-flow histogram: no difference either. */
	for (unsigned i = 0; i < 12; i++)
		fl[i].p99 = fl[i].p50 + 10;
	fl[7].p50 = 1100;
	report_flows_spread(fl, 12, &sp);
	assert_true(sp.ratio > sp.own);
	assert_false(sp.differ);
	/* One flow answered: no verdict. */
	report_flows_spread(fl, 1, &sp);
	assert_false(sp.valid);
	r.n_flows = 1;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_false(json_object_get_boolean(jget(root, "flows_spread.valid")));
	assert_true(json_object_is_type(jget(root, "flows_spread.differ"),
					json_type_null));
	json_object_put(root);
	free(text);
}

/* --new-flow-every: first_packet_rtt_ns with rtt_ns's keys, its counters,
 * and the text line. */
static void
test_probe_first_packet(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct histogram *first = histogram_create();
	struct json_object *root;
	char *text = NULL;

	assert_non_null(first);
	for (uint64_t v = 2000000; v < 2100000; v += 1000)
		histogram_record(first, v);
	r.first_packet = first;
	r.new_flow_every = 10;
	r.new_flows = 101;
	r.fresh_ports = 200;
	r.fresh_reused = 0;
	r.first_lost = 1;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	check_summary(root, "first_packet_rtt_ns", first);
	check_summary(root, "rtt_ns", f->rtt);
	assert_int_equal(jget_u64(root, "first_packet.every"), 10);
	assert_int_equal(jget_u64(root, "first_packet.new_flows"), 101);
	assert_int_equal(jget_u64(root, "first_packet.fresh_ports"), 200);
	assert_int_equal(jget_u64(root, "first_packet.fresh_reused"), 0);
	assert_int_equal(jget_u64(root, "first_packet.lost"), 1);
	assert_false(jhas(root, "flows"));
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "First packet of each new flow (every 10 "
				     "probes; 101 flows, 1 lost):"));
	assert_non_null(strstr(text, "first-packet p50 / steady-state p50 = "));
	free(text);
	histogram_destroy(first);
}

static void
test_reflect(void **state)
{
	struct fixture *f = *state;
	static const struct report_counter counters[] = {
		{"answered.stamp", 1234},
		{"answered.sockperf", 0},
		{"dropped.bad_len", 7},
	};
	struct report_reflect r = {
		.backend = "kernel",
		.addr = "198.18.0.2/24",
		.duration_s = 2.5,
		.counters = counters,
		.n_counters = 3,
		.turnaround = f->turn,
		.tsc = {.hz = 2000000000ull, .invariant = true},
	};
	struct json_object *root, *c, *o;
	char *text = NULL;

	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	c = jget(root, "counters");
	assert_true(json_object_is_type(c, json_type_object));
	assert_int_equal(json_object_object_length(c), 3);
	/* Counter names contain dots: look them up whole. */
	assert_true(json_object_object_get_ex(c, "answered.stamp", &o));
	assert_int_equal(json_object_get_uint64(o), 1234);
	assert_true(json_object_object_get_ex(c, "dropped.bad_len", &o));
	assert_int_equal(json_object_get_uint64(o), 7);
	check_summary(root, "turnaround_ns", f->turn);
	assert_string_equal(json_object_get_string(jget(root, "addr")),
			    "198.18.0.2/24");
	assert_int_equal(jget_u64(root, "tsc.hz"), 2000000000ull);
	assert_false(json_object_get_boolean(jget(root, "interrupted")));
	json_object_put(root);
	free(text);

	CAPTURE(report_reflect_text(&r, m_), text);
	assert_non_null(strstr(text, "Reflector on 198.18.0.2/24 (kernel)"));
	assert_non_null(strstr(text, "  answered.stamp            1234\n"));
	assert_non_null(strstr(text, "  dropped.bad_len              7\n"));
	/* Zero counters: in the JSON (above), not in the text. */
	assert_null(strstr(text, "answered.sockperf"));
	assert_non_null(
		strstr(text, "Turnaround (T3-T2): count 500, min 300ns"));
	assert_non_null(strstr(text, "TSC: 2000000000 Hz"));
	assert_null(strstr(text, "rx.l4_partial"));
	free(text);

	/* Partial sums completed: the counter and one line of meaning. */
	{
		struct report_counter pc[] = {{"rx.l4_partial", 12}};
		struct report_reflect rp = r;

		rp.counters = pc;
		rp.n_counters = 1;
		CAPTURE(report_reflect_text(&rp, m_), text);
		assert_non_null(strstr(text, "  rx.l4_partial"));
		assert_non_null(strstr(text, "rx.l4_partial: requests whose L4 "
					     "checksum was partial"));
		free(text);
		CAPTURE_JSON(report_reflect_json(&rp, m_), text, root);
		assert_true(json_object_object_get_ex(jget(root, "counters"),
						      "rx.l4_partial", &o));
		assert_int_equal(json_object_get_uint64(o), 12);
		json_object_put(root);
		free(text);
	}

	/* Without turnaround or counters. */
	r.turnaround = NULL;
	r.n_counters = 0;
	r.counters = NULL;
	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	assert_false(jhas(root, "turnaround_ns"));
	assert_int_equal(json_object_object_length(jget(root, "counters")), 0);
	json_object_put(root);
	free(text);

	r.n_counters = 1; /* counters NULL */
	assert_int_equal(report_reflect_json(&r, stdout), -EINVAL);
	assert_int_equal(report_reflect_text(&r, stdout), -EINVAL);
}

/*
 * workers[]: one object per worker with lcore, queue (null when -1), its
 * counters, answered_by and the PMD's queue counters (null when unknown);
 * the text table only with several workers, and a line naming a worker
 * that answered nothing while the others answered.
 */
static void
test_reflect_workers(void **state)
{
	static const struct report_counter by0[] = {{"stamp", 900}, {"arp", 1}};
	static const struct report_counter by1[] = {{"stamp", 0}, {"arp", 0}};
	struct report_reflect_worker w[2] = {
		{.lcore = 3,
		 .queue = 0,
		 .rx = 905,
		 .tx = 899,
		 .answered = 901,
		 .answered_by = by0,
		 .n_answered_by = 2,
		 .ignored = 4,
		 .tx_dropped = 2,
		 .have_queue_stats = true,
		 .queue_rx_packets = 905,
		 .queue_rx_errors = 6},
		{.lcore = 5,
		 .queue = 1,
		 .answered_by = by1,
		 .n_answered_by = 2},
	};
	struct report_reflect r = {
		.backend = "dpdk",
		.addr = "198.18.0.2/24",
		.workers = w,
		.n_workers = 2,
	};
	struct json_object *root, *a, *o;
	char *text = NULL;

	(void)state;
	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	a = jget(root, "workers");
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), 2);
	o = json_object_array_get_idx(a, 0);
	assert_int_equal(jget_u64(o, "lcore"), 3);
	assert_int_equal(jget_u64(o, "queue"), 0);
	assert_int_equal(jget_u64(o, "rx"), 905);
	assert_int_equal(jget_u64(o, "tx"), 899);
	assert_int_equal(jget_u64(o, "answered"), 901);
	assert_int_equal(jget_u64(o, "answered_by.stamp"), 900);
	assert_int_equal(jget_u64(o, "answered_by.arp"), 1);
	assert_int_equal(jget_u64(o, "ignored"), 4);
	assert_int_equal(jget_u64(o, "tx_dropped"), 2);
	assert_int_equal(jget_u64(o, "queue_rx_packets"), 905);
	assert_int_equal(jget_u64(o, "queue_rx_errors"), 6);
	o = json_object_array_get_idx(a, 1);
	assert_int_equal(jget_u64(o, "lcore"), 5);
	assert_int_equal(jget_u64(o, "answered"), 0);
	/* The PMD did not count this queue: null, not 0. */
	assert_true(jhas(o, "queue_rx_packets"));
	assert_null(jget(o, "queue_rx_packets"));
	assert_null(jget(o, "queue_rx_errors"));
	json_object_put(root);
	free(text);

	CAPTURE(report_reflect_text(&r, m_), text);
	assert_non_null(strstr(text, "Per lcore (2 workers"));
	assert_non_null(strstr(text,
			       "      3     0          905          901 "
			       "100.0%          4          2          905 "
			       "         6\n"));
	assert_non_null(strstr(text,
			       "      5     1            0            0 "
			       "  0.0%          0          0            - "
			       "         -\n"));
	assert_non_null(strstr(text, "lcore 5 (queue 1) answered nothing "
				     "while the others answered 901"));
	free(text);

	/* Both answered: no such line. One worker: no table. */
	w[1].answered = 1;
	CAPTURE(report_reflect_text(&r, m_), text);
	assert_null(strstr(text, "answered nothing"));
	free(text);
	r.n_workers = 1;
	CAPTURE(report_reflect_text(&r, m_), text);
	assert_null(strstr(text, "Per lcore"));
	free(text);

	/* The kernel backend: no lcore, no queue. */
	w[0].lcore = -1;
	w[0].queue = -1;
	w[0].have_queue_stats = false;
	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	o = json_object_array_get_idx(jget(root, "workers"), 0);
	assert_true(jhas(o, "lcore") && jhas(o, "queue"));
	assert_null(jget(o, "lcore"));
	assert_null(jget(o, "queue"));
	json_object_put(root);
	free(text);

	r.workers = NULL;
	assert_int_equal(report_reflect_json(&r, stdout), -EINVAL);
	assert_int_equal(report_reflect_text(&r, stdout), -EINVAL);
	/* No workers at all: an empty array. */
	r.n_workers = 0;
	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	assert_int_equal(json_object_array_length(jget(root, "workers")), 0);
	json_object_put(root);
	free(text);
}

/* port.xstats_delta: present with a port (probe and reflect), absent
 * without one; the text names what moved or says nothing did. */
static void
test_port_xstats(void **state)
{
	static const struct report_counter moved[] = {
		{"rx_missed_errors", 12},
		{"rx_q0_drop", 3},
	};
	struct report_reflect r = {
		.backend = "dpdk",
		.addr = "198.18.0.2/24",
		.tsc = {.hz = 2000000000ull, .invariant = true},
		.port = {.present = true, .delta = moved, .n_delta = 2},
	};
	struct report_probe p = {.proto = "stamp", .backend = "dpdk"};
	struct json_object *root, *d;
	char *text = NULL;

	(void)state;
	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	d = jget(root, "port.xstats_delta");
	assert_int_equal(json_object_object_length(d), 2);
	assert_int_equal(jget_u64(d, "rx_missed_errors"), 12);
	assert_int_equal(jget_u64(d, "rx_q0_drop"), 3);
	json_object_put(root);
	free(text);
	CAPTURE(report_reflect_text(&r, m_), text);
	assert_non_null(strstr(text, "Port xstats that moved: rx_missed_errors "
				     "+12, rx_q0_drop +3\n"));
	free(text);

	/* A probe report with a port where nothing moved: an empty object. */
	p.port.present = true;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_int_equal(
		json_object_object_length(jget(root, "port.xstats_delta")), 0);
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_non_null(strstr(
		text, "Port xstats: no drop, error or missed counter moved\n"));
	free(text);

	/* The kernel backend has no port: no key, no line. */
	p.port.present = false;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_false(jhas(root, "port"));
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_null(strstr(text, "Port xstats"));
	free(text);
}

/* port.path: the VF/synthetic split with vf_share and a warning when the
 * synthetic path carried packets; the driver's counters that moved. */
static void
test_port_path(void **state)
{
	static const struct report_counter drv[] = {
		{"rx_q0_good_packets", 10},
		{"vf_rx_good_packets", 990},
	};
	struct report_port_path path = {
		.kind = "netvsc",
		.split = true,
		.vf_rx = 990,
		.vf_tx = 990,
		.synthetic_rx = 10,
		.synthetic_tx = 10,
		.vf_share = 0.99,
		.driver = drv,
		.n_driver = 2,
	};
	struct report_probe p = {.proto = "stamp", .backend = "dpdk"};
	struct json_object *root, *o;
	char *text = NULL;

	(void)state;
	p.port.present = true;
	p.port.path = &path;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	o = jget(root, "port.path");
	assert_string_equal(json_object_get_string(jget(o, "kind")), "netvsc");
	assert_int_equal(jget_u64(o, "vf_rx_packets"), 990);
	assert_int_equal(jget_u64(o, "synthetic_tx_packets"), 10);
	assert_true(json_object_get_double(jget(o, "vf_share")) == 0.99);
	assert_int_equal(
		jget_u64(jget(o, "driver_delta"), "rx_q0_good_packets"), 10);
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_non_null(strstr(text, "Port path (netvsc): VF rx 990 tx 990, "
				     "synthetic rx 10 tx 10 (VF share "
				     "99.00%)\n"));
	assert_non_null(strstr(text, "WARNING: 20 packet(s) took the "
				     "synthetic path"));
	free(text);
	/* A MANA VF behind netvsc: named, with what it includes. */
	path.vf_driver = "net_mana";
	path.includes = "a MANA VF (Azure Boost)";
	CAPTURE(report_probe_text(&p, m_), text);
	assert_non_null(strstr(text, "Port path (netvsc, VF net_mana): VF rx "
				     "990"));
	assert_non_null(strstr(text, "\n  a latency here includes: a MANA VF "
				     "(Azure Boost)\n"));
	free(text);
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	o = jget(root, "port.path");
	assert_string_equal(json_object_get_string(jget(o, "vf_driver")),
			    "net_mana");
	assert_string_equal(json_object_get_string(jget(o, "includes")),
			    "a MANA VF (Azure Boost)");
	json_object_put(root);
	free(text);
	path.vf_driver = NULL;
	path.includes = NULL;

	/* All on the VF: no warning. Nothing counted: vf_share null. */
	path.synthetic_rx = path.synthetic_tx = 0;
	path.vf_share = 1.0;
	CAPTURE(report_probe_text(&p, m_), text);
	assert_null(strstr(text, "WARNING"));
	free(text);
	path.vf_rx = path.vf_tx = 0;
	path.vf_share = -1;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_true(json_object_is_type(jget(root, "port.path.vf_share"),
					json_type_null));
	json_object_put(root);
	free(text);

	/* The live line's form. */
	{
		char line[256];
		int n;

		path.synthetic_rx = 3;
		path.vf_rx = 5;
		n = report_live_path(line, sizeof(line), &path);
		assert_true(n > 0);
		assert_non_null(strstr(line, "path (netvsc): VF rx +5 tx +0, "
					     "synthetic rx +3 tx +0 "
					     "(SYNTHETIC PATH)"));
		path.split = false;
		path.kind = "mlx";
		n = report_live_path(line, sizeof(line), &path);
		assert_true(n > 0);
		assert_non_null(strstr(line, "path (mlx): rx_q0_good_packets "
					     "+10, vf_rx_good_packets +990"));
		/* Truncated, still terminated. */
		assert_int_equal(report_live_path(line, 12, &path), 11);
		assert_int_equal(strlen(line), 11);
		assert_int_equal(report_live_path(NULL, 1, &path), -EINVAL);
		path.split = true;
		path.kind = "netvsc";
	}

	/* A bare NIC: no split keys, the driver's counters only. */
	path.kind = "mlx";
	path.split = false;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_false(jhas(jget(root, "port.path"), "vf_share"));
	json_object_put(root);
	free(text);
}

/* --hw-timestamps: hw_timestamps.*, hw_rtt_ns, hw_rx_delay_ns and the text
 * lines; none of them without the option. */
static void
test_hw_timestamps(void **state)
{
	struct histogram *a = histogram_create(), *b = histogram_create();
	struct report_hw hw = {
		.stamped = 98,
		.unstamped = 2,
		.outside = 1,
		.clock_samples = 12,
		.nic_hz = 1000050000.0,
		.pair_gap_ns = 3000.0,
		.rtt = a,
		.rx_delay = b,
	};
	struct report_probe p = {.proto = "stamp", .backend = "dpdk"};
	struct report_reflect r = {.backend = "dpdk", .addr = "198.18.0.2/24"};
	struct json_object *root;
	char *text = NULL;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	histogram_record(a, 5000);
	histogram_record(b, 120);
	p.hw = &hw;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_int_equal(jget_u64(root, "hw_timestamps.stamped"), 98);
	assert_int_equal(jget_u64(root, "hw_timestamps.outside"), 1);
	assert_int_equal(jget_u64(root, "hw_timestamps.clock_samples"), 12);
	assert_true(json_object_get_double(jget(
			    root, "hw_timestamps.nic_hz")) == 1000050000.0);
	assert_true(json_object_get_double(
			    jget(root, "hw_timestamps.clock_pair_gap_ns")) ==
		    3000.0);
	assert_int_equal(jget_u64(root, "hw_rtt_ns.count"), 1);
	assert_int_equal(jget_u64(root, "hw_rx_delay_ns.max"), 120);
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_non_null(strstr(text, "NIC-clock RTT (NIC rx - T1)"));
	assert_non_null(strstr(text, "TSC - NIC at rx (T4 - NIC rx)"));
	assert_non_null(
		strstr(text, "NIC timestamps: 98 stamped, 2 unstamped"));
	assert_non_null(strstr(text, "offset +/- 1500 ns"));
	free(text);
	/* Reflector: no RTT series, the rx difference at T2. */
	hw.rtt = NULL;
	r.hw = &hw;
	CAPTURE_JSON(report_reflect_json(&r, m_), text, root);
	assert_false(jhas(root, "hw_rtt_ns"));
	assert_int_equal(jget_u64(root, "hw_rx_delay_ns.count"), 1);
	json_object_put(root);
	free(text);
	CAPTURE(report_reflect_text(&r, m_), text);
	assert_non_null(strstr(text, "TSC - NIC at rx (T2 - NIC rx)"));
	free(text);
	/* Off: no key, no line. */
	p.hw = NULL;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_false(jhas(root, "hw_timestamps"));
	assert_false(jhas(root, "hw_rtt_ns"));
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_null(strstr(text, "NIC"));
	free(text);
	histogram_destroy(a);
	histogram_destroy(b);
}

/* Open loop: intended_latency_ns with rtt_ns's keys, sender, open_loop,
 * and the text lines; none of them in a closed-loop report. */
static void
test_open_loop(void **state)
{
	struct histogram *il = histogram_create(), *bh = histogram_create();
	struct report_open o = {
		.rate_pps = 20000,
		.spacing = "poisson",
		.seed = 7,
		.window_slots = 16384,
		.late_sends = 3,
		.behind_max_ns = 45000,
		.bound_ns = 10000,
		.intended = il,
		.behind = bh,
	};
	struct report_probe p = {.proto = "stamp", .backend = "dpdk"};
	struct report_iv_row row = {.target = "198.18.0.2:862",
				    .rtt = {400, 900, 900, 900},
				    .has_intended = true,
				    .intended = {400, 1500, 2500, 2500}};
	struct report_interval iv = {
		.t_s = 1, .len_s = 1, .rows = &row, .n_rows = 1};
	struct json_object *root;
	char *text = NULL, line[256];

	(void)state;
	assert_non_null(il);
	assert_non_null(bh);
	for (uint64_t v = 1000; v <= 100000; v += 1000)
		histogram_record(il, v);
	for (uint64_t v = 1; v <= 100; v++)
		histogram_record(bh, v * 450);
	p.open = &o;
	p.intervals = &iv;
	p.n_intervals = 1;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	check_summary(root, "intended_latency_ns", il);
	assert_true(jhas(jget(root, "intended_latency_ns"), "hdr"));
	assert_int_equal(jget_u64(root, "sender.late_sends"), 3);
	assert_int_equal(jget_u64(root, "sender.behind_max_ns"), 45000);
	assert_int_equal(jget_u64(root, "sender.bound_ns"), 10000);
	/* 100 sends measured: too few for a p99 (368). */
	assert_true(json_object_is_type(jget(root, "sender.behind_p99_ns"),
					json_type_null));
	assert_int_equal(jget_u64(root, "sender.behind_p50_ns"),
			 histogram_percentile(bh, 50.0));
	assert_int_equal(jget_u64(root, "open_loop.rate_pps"), 20000);
	assert_int_equal(jget_u64(root, "open_loop.seed"), 7);
	assert_int_equal(jget_u64(root, "open_loop.window_slots"), 16384);
	assert_string_equal(
		json_object_get_string(jget(root, "open_loop.spacing")),
		"poisson");
	{
		struct json_object *i0 =
			json_object_array_get_idx(jget(root, "intervals"), 0);
		struct json_object *r0;

		assert_non_null(i0);
		r0 = json_object_array_get_idx(jget(i0, "targets"), 0);
		assert_non_null(r0);
		assert_int_equal(jget_u64(r0, "intended_latency_ns.p99"), 2500);
		assert_int_equal(jget_u64(r0, "intended_latency_ns.count"),
				 400);
	}
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_non_null(strstr(text, "Intended latency (T4-scheduled): count "
				     "100, min 1.00us"));
	assert_non_null(strstr(text, "Open loop: 20000 probes/s per lcore, "
				     "poisson spacing (seed 7)"));
	assert_non_null(strstr(text, "max 45.00us; 3 sends (3.00%) later "
				     "than 10.00us"));
	assert_non_null(strstr(text, "the sender did not keep the rate"));
	free(text);
	assert_true(report_iv_line(line, sizeof(line), &iv, &row) > 0);
	assert_non_null(strstr(line, "intended p50 1.50us p99 2.50us"));
	/* A line cut short still says how long it would be. */
	assert_int_equal(report_iv_line(line, 20, &iv, &row),
			 report_iv_line(NULL, 0, &iv, &row));
	/* 1 late send in 100: no warning. */
	o.late_sends = 1;
	CAPTURE(report_probe_text(&p, m_), text);
	assert_non_null(strstr(text, "1 sends (1.00%) later than 10.00us"));
	assert_null(strstr(text, "did not keep the rate"));
	free(text);
	/* Closed loop: none of it. */
	p.open = NULL;
	row.has_intended = false;
	CAPTURE_JSON(report_probe_json(&p, m_), text, root);
	assert_false(jhas(root, "intended_latency_ns"));
	assert_false(jhas(root, "sender"));
	assert_false(jhas(root, "open_loop"));
	json_object_put(root);
	free(text);
	CAPTURE(report_probe_text(&p, m_), text);
	assert_null(strstr(text, "Intended"));
	assert_null(strstr(text, "Open loop"));
	free(text);
	assert_true(report_iv_line(line, sizeof(line), &iv, &row) > 0);
	assert_null(strstr(line, "intended"));
	histogram_destroy(il);
	histogram_destroy(bh);
}

/*
 * The stall verdict's gate: enough samples in both series for p99.9, and
 * a host-affected share in the tail significantly above all probes'.
 * A 500-probe run's report shows no p99.9 and no verdict.
 */
static void
test_stall_verdict_gate(void **state)
{
	struct histogram *all = histogram_create(), *u = histogram_create(),
			 *hp = histogram_create(), *none = histogram_create();
	struct report_stalls st = {.threshold_ns = 5000,
				   .prober = {.known = true, .count = 1}};
	struct report_probe r = {.proto = "stamp", .backend = "kernel"};
	struct report_stall_tail t;
	char why[256], *text = NULL;
	bool ok;

	(void)state;
	assert_non_null(all);
	assert_non_null(u);
	assert_non_null(hp);
	assert_non_null(none);
	st.unaffected = u;
	st.host_prober = hp;
	st.host_reflector = none;
	st.host_both = none;
	/* 500 round trips, 10 host-affected and the slowest. */
	for (uint64_t v = 0; v < 490; v++)
		histogram_record(u, 1000 + v);
	for (uint64_t v = 0; v < 10; v++)
		histogram_record(hp, 100000 + v * 1000);
	histogram_merge(all, u);
	histogram_merge(all, hp);
	report_stalls_tail(&st, all, 99.9, &t);
	assert_false(t.enough);
	assert_false(
		report_stalls_verdict_gate(&st, all, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "p99.9 needs 3,688 round trips, the run "
				    "has 500"));
	r.rtt = all;
	r.stalls = &st;
	r.sent = r.received = 500;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "\n  p99.9    -  (too few: needs 3,688)"));
	assert_non_null(strstr(text, "\nno verdict: p99.9 needs 3,688"));
	assert_null(strstr(text, "\nverdict:"));
	assert_non_null(strstr(text, " p99.9 - max "));
	free(text);

	/* 10,000 more, unaffected: the tail above p99.9 is the 10 affected
	 * ones (0.1 % of all): a verdict. */
	for (uint64_t v = 0; v < 10000; v++)
		histogram_record(u, 1000 + v % 500);
	histogram_init(all);
	histogram_merge(all, u);
	histogram_merge(all, hp);
	report_stalls_tail(&st, all, 99.9, &t);
	assert_true(t.enough);
	assert_int_equal(t.above, 10);
	assert_int_equal(t.prober, 10);
	assert_true(report_stalls_verdict_gate(&st, all, &t, why, sizeof(why)));
	report_stalls_verdict(why, sizeof(why), &st, all, &ok);
	assert_true(ok);
	assert_non_null(strstr(why, "100 % of the probes above it overlapped "
				    "a stall of this host"));

	/* The same tail, but 20 % of all probes affected and spread like
	 * the rest: the tail's share is no evidence. */
	histogram_init(hp);
	for (uint64_t v = 0; v < 2625; v++)
		histogram_record(hp, 1000 + v % 500);
	for (uint64_t v = 0; v < 2; v++)
		histogram_record(hp, 100000 + v * 1000);
	histogram_init(u);
	for (uint64_t v = 0; v < 10490; v++)
		histogram_record(u, 1000 + v % 500);
	for (uint64_t v = 0; v < 8; v++)
		histogram_record(u, 100000 + v * 1000);
	histogram_init(all);
	histogram_merge(all, u);
	histogram_merge(all, hp);
	report_stalls_tail(&st, all, 99.9, &t);
	assert_true(t.enough);
	assert_int_equal(t.above, 10);
	assert_false(
		report_stalls_verdict_gate(&st, all, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "no more often than all probes (2 of 10"));

	/* Enough in all, too few without the host-affected ones. */
	histogram_init(u);
	for (uint64_t v = 0; v < 100; v++)
		histogram_record(u, 1000 + v);
	histogram_init(hp);
	for (uint64_t v = 0; v < 5000; v++)
		histogram_record(hp, 1000 + v);
	histogram_init(all);
	histogram_merge(all, u);
	histogram_merge(all, hp);
	report_stalls_tail(&st, all, 99.9, &t);
	assert_false(
		report_stalls_verdict_gate(&st, all, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "100 are without host-affected ones"));
	histogram_destroy(all);
	histogram_destroy(u);
	histogram_destroy(hp);
	histogram_destroy(none);
}

static void
test_live_line(void **state)
{
	struct fixture *f = *state;
	struct histogram *h = histogram_create();
	char buf[160];
	int n;

	(void)f;
	assert_non_null(h);
	histogram_record(h, 3210);
	/* One answer: too few for a p50 (6) or a p99 (368). */
	n = report_live_line(buf, sizeof(buf), 12.0, 1000, 999, 1, h);
	assert_string_equal(buf, "  12.0s sent 1000 lost 1 "
				 "p50 - p99 - max 3.21us");
	assert_int_equal(n, (int)strlen(buf));
	for (unsigned i = 1; i < 367; i++)
		histogram_record(h, 3210);
	n = report_live_line(buf, sizeof(buf), 12.0, 367, 367, 0, h);
	assert_string_equal(buf, "  12.0s sent 367 lost 0 "
				 "p50 3.21us p99 - max 3.21us");
	histogram_record(h, 3210);
	n = report_live_line(buf, sizeof(buf), 12.0, 368, 368, 0, h);
	assert_string_equal(buf, "  12.0s sent 368 lost 0 "
				 "p50 3.21us p99 3.21us max 3.21us");
	assert_int_equal(n, (int)strlen(buf));

	for (unsigned i = 0; i < 10; i++)
		histogram_record(h, 9870);
	n = report_live_line(buf, sizeof(buf), 1234.56, 378, 378, 0, h);
	assert_string_equal(buf, "1234.6s sent 378 lost 0 "
				 "p50 3.21us p99 9.87us max 9.87us");
	assert_int_equal(n, (int)strlen(buf));

	/* Nothing received in the interval: no made-up figures. */
	n = report_live_line(buf, sizeof(buf), 0.5, 3, 0, 0, f->empty);
	assert_string_equal(buf, "   0.5s sent 3 lost 0 p50 - p99 - max -");
	assert_int_equal(n, (int)strlen(buf));

	/* Truncated: still NUL-terminated, length of what is there. */
	n = report_live_line(buf, 10, 12.0, 1000, 999, 1, h);
	assert_int_equal(n, 9);
	assert_string_equal(buf, "  12.0s s");
	assert_int_equal(report_live_line(NULL, 10, 0, 0, 0, 0, h), -EINVAL);
	assert_int_equal(report_live_line(buf, 0, 0, 0, 0, 0, h), -EINVAL);
	histogram_destroy(h);
}

/*
 * The live line and a one-target --interval-report line keep to
 * 80 columns with the worst figures: counts in the billions, latencies of
 * tens of ms (the widest three-digit form, "99.9ms"), a run of hours; the
 * live line with each of its marks.
 */
static void
test_line_width(void **state)
{
	static const struct {
		enum report_live_state st;
		double down_s;
	} marks[] = {
		{REPORT_LIVE_OK, 0},	    {REPORT_LIVE_REMOVED, 0},
		{REPORT_LIVE_DOWN, 99.94},  {REPORT_LIVE_DOWN, 86399.0},
		{REPORT_LIVE_FLAPPED, 9.9}, {REPORT_LIVE_FLAPPED, 12345.6},
	};
	struct histogram *h = histogram_create();
	struct report_iv_row row = {
		.target = "[2001:2::2]:862",
		.sent = 12345678901ull,
		.received = 12345678901ull,
		.lost = 98765432109ull,
		.rtt = {.count = 12345678901ull,
			.p50 = 99940000,
			.p99 = 99940000,
			.max = 99940000},
	};
	struct report_interval iv = {
		.t_s = 9999.94, .rows = &row, .n_rows = 1, .one_target = true};
	char line[256];
	int n, k;

	(void)state;
	assert_non_null(h);
	for (unsigned i = 0; i < 400; i++)
		histogram_record(h, 99940000 - i * 1000);
	for (unsigned i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		n = report_live_line(line, sizeof(line), 9999.94,
				     12345678901ull, 2345678901ull,
				     98765432109ull, h);
		assert_true(n > 0);
		k = report_live_mark(line + n, sizeof(line) - (size_t)n,
				     marks[i].st, marks[i].down_s);
		assert_true(k >= 0 && k <= 18);
		print_message("%s\n", line);
		assert_true(strlen(line) <= 80);
	}
	assert_non_null(strstr(line, "9999.9s sent 12.3G lost 98.8G p50 "));
	assert_non_null(strstr(line, "max 99.9ms [FLAP down 3h]"));
	n = report_iv_line(line, sizeof(line), &iv, &row);
	print_message("%s\n", line);
	assert_int_equal(n, (int)strlen(line));
	assert_true(n <= 80);
	assert_string_equal(line, "interval 9999.9s sent 12.3G lost 98.8G "
				  "p50 99.9ms p99 99.9ms max 99.9ms");
	/* Several targets keep their column and the exact figures. */
	iv.one_target = false;
	assert_true(report_iv_line(line, sizeof(line), &iv, &row) > 0);
	assert_non_null(strstr(line, "[2001:2::2]:862       sent 12345678901"));
	assert_int_equal(report_live_mark(NULL, 1, REPORT_LIVE_DOWN, 1),
			 -EINVAL);
	histogram_destroy(h);
}

static void
test_fmt_ns(void **state)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{0, "0ns"},
		{1, "1ns"},
		{812, "812ns"},
		{999, "999ns"},
		{1000, "1.00us"},
		{3210, "3.21us"},
		{999994, "999.99us"},
		{999995, "1.000ms"},
		{1000000, "1.000ms"},
		{4567000, "4.567ms"},
		{999999499, "999.999ms"},
		{999999500, "1.000s"},
		{1000000000, "1.000s"},
		{1234000000, "1.234s"},
		{999999499999ull, "999.999s"},
		{999999500000ull, "1000s"},
		{UINT64_MAX, "18446744074s"},
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_ptr_equal(report_fmt_ns(cases[i].ns, buf, sizeof(buf)),
				 buf);
		assert_string_equal(buf, cases[i].want);
	}
	errno = 0;
	assert_null(report_fmt_ns(1, NULL, 16));
	assert_int_equal(errno, EINVAL);
	assert_null(report_fmt_ns(1, buf, 0));
	/* A short buffer truncates but stays a string. */
	assert_string_equal(report_fmt_ns(3210, buf, 4), "3.2");
}

static void
test_samples_csv(void **state)
{
	static const struct report_sample s[] = {
		{.seq = 0,
		 .lcore = 1,
		 .t1_ns = 0,
		 .rtt_ns = 3210,
		 .network_rtt_ns = 2900},
		{.seq = 1,
		 .lcore = 1,
		 .t1_ns = 1000000,
		 .rtt_ns = 4100,
		 .network_rtt_ns = -1},
		{.seq = UINT64_MAX,
		 .lcore = UINT32_MAX,
		 .t1_ns = 1,
		 .rtt_ns = 9999999999ull,
		 .network_rtt_ns = 0,
		 .has_one_way = true,
		 .forward_ns = INT64_MIN,
		 .reverse_ns = INT64_MAX},
	};
	char *text = NULL;

	(void)state;
	CAPTURE(report_samples_header(m_), text);
	assert_string_equal(text,
			    "seq,lcore,t1_ns,rtt_ns,network_rtt_ns,forward_ns,"
			    "reverse_ns\n");
	free(text);

	CAPTURE(report_samples_write(m_, s, 3), text);
	assert_string_equal(text, "0,1,0,3210,2900,,\n"
				  "1,1,1000000,4100,,,\n"
				  "18446744073709551615,4294967295,1,"
				  "9999999999,0,-9223372036854775808,"
				  "9223372036854775807\n");
	free(text);

	CAPTURE(report_samples_write(m_, NULL, 0), text);
	assert_string_equal(text, "");
	free(text);
	assert_int_equal(report_samples_write(stdout, NULL, 1), -EINVAL);
	assert_int_equal(report_samples_header(NULL), -EINVAL);
}

/* Deterministic normal deviates (xorshift64 + Box-Muller). */
static double
gauss(uint64_t *st)
{
	double u1, u2;

	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	u1 = ((double)(*st >> 11) + 1.0) / 9007199254740993.0;
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	u2 = (double)(*st >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Largest row as a share of the table's total. */
static double
max_row_share(const struct histogram_row *rows, int n)
{
	uint64_t total = 0, big = 0;

	for (int i = 0; i < n; i++) {
		total += rows[i].count;
		if (rows[i].count > big)
			big = rows[i].count;
	}
	return total != 0 ? (double)big / (double)total : 0;
}

/*
 * What a real run looks like: a log-normal bulk (median 8 us, sigma 0.08)
 * and a far tail up to 5 ms. PsPing's 20 equal-width rows put nearly all of
 * it in the first row; the default table must spread it (no row above
 * 3/20 of the total here, where no single counter holds that much), give
 * the tail rows of its own, and still end at max.
 */
static void
test_auto_table_lognormal(void **state)
{
	struct histogram *h = histogram_create();
	struct histogram_row rows[REPORT_AUTO_ROWS + 1], lin[20];
	uint64_t st = 0x9e3779b97f4a7c15ull, sum = 0, big_counter = 0;
	int n, i;

	(void)state;
	assert_non_null(h);
	for (i = 0; i < 100000; i++)
		histogram_record(h,
				 (uint64_t)(8000.0 * exp(0.08 * gauss(&st))));
	for (i = 0; i < 50; i++)
		histogram_record(h, 100000 + (uint64_t)i * 98000);
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		if (h->counts[i] > big_counter)
			big_counter = h->counts[i];

	assert_int_equal(histogram_table_linear(h, 20, lin), 20);
	assert_true(max_row_share(lin, 20) > 0.5); /* the problem */

	n = report_auto_rows(h, rows, REPORT_AUTO_ROWS + 1);
	assert_true(n >= REPORT_AUTO_ROWS / 2);
	assert_true(n <= REPORT_AUTO_ROWS + 1);
	for (i = 0; i < n; i++) {
		sum += rows[i].count;
		if (i > 0)
			assert_true(rows[i].upper_ns > rows[i - 1].upper_ns);
	}
	assert_int_equal(sum, histogram_count(h));
	assert_int_equal(rows[n - 1].upper_ns, histogram_max(h));
	assert_true(rows[0].upper_ns >= histogram_percentile(h, 0.1));
	assert_true(max_row_share(rows, n) <=
		    3.0 / REPORT_AUTO_ROWS +
			    (double)big_counter / (double)histogram_count(h));
	assert_true(max_row_share(rows, n) < 0.5);
	/* The tail gets rows of its own: some row ends between 100us and max.
	 */
	for (i = 0; i < n && rows[i].upper_ns < 100000; i++)
		;
	assert_true(n - i >= 2);
	histogram_destroy(h);
}

/* One value only: one row holds it all, because the data has it. */
static void
test_auto_table_one_value(void **state)
{
	struct histogram *h = histogram_create();
	struct histogram_row rows[REPORT_AUTO_ROWS + 1];

	(void)state;
	assert_non_null(h);
	for (int i = 0; i < 1000; i++)
		histogram_record(h, 5000);
	assert_int_equal(report_auto_rows(h, rows, REPORT_AUTO_ROWS + 1), 1);
	assert_int_equal(rows[0].count, 1000);
	assert_int_equal(rows[0].upper_ns, histogram_max(h));
	histogram_init(h);
	assert_int_equal(report_auto_rows(h, rows, REPORT_AUTO_ROWS + 1), 0);
	assert_int_equal(report_auto_rows(h, rows, REPORT_AUTO_ROWS), -EINVAL);
	assert_int_equal(report_auto_rows(NULL, rows, REPORT_AUTO_ROWS + 1),
			 -EINVAL);
	histogram_destroy(h);
}

/* When, where, what; the stretched interval; the summary line. */
static void
test_probe_meta_summary(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct report_meta m;
	char *const argv[] = {"--addr", "198.18.0.1/24", "-n", "10",
			      "a b",	"it's",		 NULL};
	struct json_object *root;
	char *text = NULL, line[512], host[256];

	/* 2026-11-30T15:04:21Z */
	assert_int_equal(
		report_meta_init(&m, 1796051061, "latprobe probe", 6, argv), 0);
	assert_string_equal(m.start_utc, "2026-11-30T15:04:21Z");
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(m.host, host);
	assert_string_equal(m.command, "latprobe probe --addr 198.18.0.1/24 "
				       "-n 10 'a b' 'it'\\''s'");
	m.source = "198.18.0.1";
	m.interface = "net_af_xdp0 (net_af_xdp)";
	r.meta = &m;
	r.interval_ns = 10000000;
	r.timeout_ns = 200000000;
	r.interval_stretched = 1234;
	r.nombuf = 17;

	CAPTURE(report_probe_text(&r, m_), text);
	snprintf(line, sizeof(line),
		 "Measured 2026-11-30T15:04:21Z on %s, 198.18.0.1 -> "
		 "198.18.0.2:862 via net_af_xdp0 (net_af_xdp)\n",
		 host);
	assert_true(strncmp(text, line, strlen(line)) == 0);
	assert_non_null(strstr(text, "\nCommand: latprobe probe --addr "));
	assert_non_null(strstr(text, "  Interval 10.000ms stretched to "
				     "200.000ms by 1,234 timeouts"));
	assert_non_null(strstr(text, "\n  No mbuf = 17 (sends that found the "
				     "pool empty, tried again)\n"));
	/* Last line: min p50 p99 p99.9 max of the fixture, loss 8/1010. */
	assert_non_null(strstr(
		text, "\nsummary: 198.18.0.2:862 stamp 8192B  min 100ns p50 "));
	assert_non_null(strstr(text, " max 2.000ms  loss 0.79% (8/1010)\n"));
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);

	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_string_equal(json_object_get_string(jget(root, "start_utc")),
			    "2026-11-30T15:04:21Z");
	assert_string_equal(json_object_get_string(jget(root, "host")), host);
	assert_string_equal(json_object_get_string(jget(root, "source")),
			    "198.18.0.1");
	assert_string_equal(json_object_get_string(jget(root, "interface")),
			    "net_af_xdp0 (net_af_xdp)");
	assert_string_equal(json_object_get_string(jget(root, "command")),
			    m.command);
	assert_int_equal(jget_u64(root, "probes.interval_stretched"), 1234);
	assert_int_equal(jget_u64(root, "probes.nombuf"), 17);
	assert_int_equal(jget_u64(root, "interval_ns"), 10000000);
	assert_int_equal(jget_u64(root, "timeout_ns"), 200000000);
	assert_non_null(strstr(json_object_get_string(jget(root, "summary")),
			       "loss 0.79% (8/1010)"));
	/* No port named: checksum_offloads null. */
	assert_true(json_object_is_type(jget(root, "checksum_offloads"),
					json_type_null));
	json_object_put(root);
	free(text);
	m.csum_rx = "ipv4,udp,tcp";
	m.csum_tx = "";
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_string_equal(
		json_object_get_string(jget(root, "checksum_offloads.rx")),
		"ipv4,udp,tcp");
	assert_string_equal(
		json_object_get_string(jget(root, "checksum_offloads.tx")), "");
	json_object_put(root);
	free(text);

	/* Not stretched, no mbuf shortage, no meta: no such lines, null
	 * keys. */
	r.interval_stretched = 0;
	r.nombuf = 0;
	r.meta = NULL;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_null(strstr(text, "stretched"));
	assert_null(strstr(text, "No mbuf"));
	assert_null(strstr(text, "Measured"));
	free(text);
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_true(
		json_object_is_type(jget(root, "start_utc"), json_type_null));
	json_object_put(root);
	free(text);
	report_meta_fini(&m);
	assert_null(m.command);
}

/*
 * report_one_way_judge(): the bound's sum, --same-clock's
 * leniency on synchronisation (not on a missing estimate, a negative delay
 * or the bound), each reason on its own.
 */
static void
test_one_way_judge(void **state)
{
	struct histogram *f = histogram_create(), *r = histogram_create();
	struct report_one_way ow;

	(void)state;
	for (unsigned i = 0; i < 100; i++) {
		histogram_record(f, 5000 + i);
		histogram_record(r, 4000 + i);
	}
	memset(&ow, 0, sizeof(ow));
	ow.forward = f;
	ow.reverse = r;
	ow.answers = 100;
	ow.fwd_min_ns = 5000;
	ow.rev_min_ns = 4000;
	ow.refl_ee_max_ns = 100;
	ow.map_err_max_ns = 40;
	ow.local_sync_err_ns = 300;
	ow.local_synced = true;
	report_one_way_judge(&ow);
	assert_true(ow.valid);
	assert_int_equal(ow.bound_ns, 440);
	/* Unsynchronised on both sides: refused, unless one clock. */
	ow.refl_s_clear = 3;
	ow.local_synced = false;
	report_one_way_judge(&ow);
	assert_false(ow.valid);
	assert_int_equal(ow.reasons, 1u << REPORT_OW_REFLECTOR_UNSYNC |
					     1u << REPORT_OW_LOCAL_UNSYNC);
	ow.same_clock = true;
	report_one_way_judge(&ow);
	assert_true(ow.valid);
	assert_int_equal(ow.bound_ns, 140); /* no sync error on one clock */
	/* A missing estimate is not excused. */
	ow.refl_no_ee = 1;
	report_one_way_judge(&ow);
	assert_int_equal(ow.reasons, 1u << REPORT_OW_NO_ESTIMATE);
	ow.refl_no_ee = 0;
	/* Negative: refused, the disagreement its size. */
	ow.rev_nonpos = 2;
	ow.rev_min_ns = -777;
	report_one_way_judge(&ow);
	assert_int_equal(ow.reasons, 1u << REPORT_OW_NEGATIVE);
	assert_int_equal(ow.disagree_ns, 777);
	ow.rev_nonpos = 0;
	ow.rev_min_ns = 4000;
	/* The bound above reverse's median (about 4050), below forward's. */
	ow.refl_ee_max_ns = 4200 - 40;
	report_one_way_judge(&ow);
	assert_int_equal(ow.reasons, 1u << REPORT_OW_BOUND);
	ow.refl_ee_max_ns = 100;
	/* Nothing answered. */
	ow.answers = 0;
	report_one_way_judge(&ow);
	assert_true((ow.reasons & 1u << REPORT_OW_NO_ANSWERS) != 0);
	assert_string_equal(report_ow_reason_key(REPORT_OW_BOUND),
			    "bound_exceeds_delay");
	assert_string_equal(report_ow_reason_key(REPORT_OW__COUNT), "?");
	histogram_destroy(f);
	histogram_destroy(r);
}

/*
 * stamp.reflector_error_estimate: S, Z, scale and multiplier as the
 * reflector sent them, the estimate in seconds; absent when no answer
 * carried one. And the line saying the reflector answered but too short.
 */
static void
test_probe_reflector_ee(void **state)
{
	struct fixture *f = *state;
	struct report_probe r = probe_of(f);
	struct json_object *root, *ee;
	char *text = NULL;

	/* absent */
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_false(jhas(root, "stamp"));
	assert_false(
		json_object_get_boolean(jget(root, "probes.answers_unusable")));
	json_object_put(root);
	free(text);
	text = NULL;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_null(strstr(text, "error estimate"));
	assert_null(strstr(text, "not usable"));
	free(text);
	text = NULL;

	/* S=1, Z=1, scale 12, multiplier 3: 3 * 2^-20 s */
	r.reflector_ee = (struct report_error_estimate){
		.present = true,
		.raw = 0xcc03,
		.sync = true,
		.ptp = true,
		.scale = 12,
		.multiplier = 3,
		.seconds = 3.0 / 1048576.0,
		.answers = 1104,
		.changes = 1,
	};
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	ee = jget(root, "stamp.reflector_error_estimate");
	assert_int_equal(jget_u64(ee, "raw"), 0xcc03);
	assert_true(json_object_get_boolean(jget(ee, "synchronized")));
	assert_string_equal(
		json_object_get_string(jget(ee, "timestamp_format")), "ptp");
	assert_int_equal(jget_u64(ee, "scale"), 12);
	assert_int_equal(jget_u64(ee, "multiplier"), 3);
	assert_true(json_object_get_double(jget(ee, "seconds")) ==
		    3.0 / 1048576.0);
	assert_true(json_object_get_boolean(jget(ee, "valid")));
	assert_int_equal(jget_u64(ee, "answers"), 1104);
	assert_int_equal(jget_u64(ee, "changes"), 1);
	json_object_put(root);
	free(text);
	text = NULL;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "Reflector error estimate: 2.86e-06 s "
				     "(S=1: synchronised to UTC; Z=1: PTP "
				     "timestamps; scale 12, multiplier 3), "
				     "changed 1 times\n"));
	free(text);
	text = NULL;

	/* multiplier 0 is no estimate (RFC 4656 §4.1.2) */
	r.reflector_ee.multiplier = 0;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_false(json_object_get_boolean(
		jget(root, "stamp.reflector_error_estimate.valid")));
	json_object_put(root);
	free(text);
	text = NULL;

	/* nothing received, answers too short: said so */
	r.received = 0;
	r.ignored[REPORT_IGN_TOO_SHORT] = 1010;
	r.rx_ignored = 1010;
	CAPTURE_JSON(report_probe_json(&r, m_), text, root);
	assert_true(
		json_object_get_boolean(jget(root, "probes.answers_unusable")));
	json_object_put(root);
	free(text);
	text = NULL;
	CAPTURE(report_probe_text(&r, m_), text);
	assert_non_null(strstr(text, "The reflector answered (1010 too_short) "
				     "but its answers were not usable: too "
				     "short to hold the Session-Sender "
				     "sequence number (28 bytes)\n"));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcts_table),
		cmocka_unit_test(test_summarise),
		cmocka_unit_test(test_probe_json_stable_keys),
		cmocka_unit_test(test_probe_json_edges_and_absent),
		cmocka_unit_test(test_probe_empty),
		cmocka_unit_test(test_probe_reflector_ee),
		cmocka_unit_test(test_one_way_judge),
		cmocka_unit_test(test_probe_text),
		cmocka_unit_test(test_empty_series_dash),
		cmocka_unit_test(test_ignored_reasons),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_probe_errors),
		cmocka_unit_test(test_reflect),
		cmocka_unit_test(test_reflect_workers),
		cmocka_unit_test(test_probe_targets),
		cmocka_unit_test(test_probe_flows),
		cmocka_unit_test(test_probe_first_packet),
		cmocka_unit_test(test_port_xstats),
		cmocka_unit_test(test_port_path),
		cmocka_unit_test(test_hw_timestamps),
		cmocka_unit_test(test_live_line),
		cmocka_unit_test(test_line_width),
		cmocka_unit_test(test_stall_verdict_gate),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_samples_csv),
		cmocka_unit_test(test_auto_table_lognormal),
		cmocka_unit_test(test_auto_table_one_value),
		cmocka_unit_test(test_probe_meta_summary),
		cmocka_unit_test(test_open_loop),
	};

	return cmocka_run_group_tests_name("report", tests, setup, teardown);
}
