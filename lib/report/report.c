/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report.h"

const double report_pcts[REPORT_N_PCTS] = {50, 90, 99, 99.9, 99.99, 99.999};

/* Text labels and JSON keys for report_pcts[], same order. */
static const char *const pct_label[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99.9", "p99.99", "p99.999",
};
static const char *const pct_key[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99_9", "p99_99", "p99_999",
};

/* Stands in for a NULL histogram: reports of nothing show zeros. */
static const struct histogram empty_histogram = {.min = UINT64_MAX};

static const struct histogram *
hist_or_empty(const struct histogram *h)
{
	return h != NULL ? h : &empty_histogram;
}

void
report_summarise(const struct histogram *h, struct report_summary *s)
{
	unsigned i;

	if (s == NULL)
		return;
	memset(s, 0, sizeof(*s));
	if (h == NULL || histogram_count(h) == 0)
		return;
	s->count = histogram_count(h);
	s->min = histogram_min(h);
	s->max = histogram_max(h);
	s->mean = histogram_mean(h);
	s->stddev = histogram_stddev(h);
	for (i = 0; i < REPORT_N_PCTS; i++)
		s->pct[i] = histogram_percentile(h, report_pcts[i]);
}

const char *
report_fmt_ns(uint64_t ns, char *buf, size_t cap)
{
	if (buf == NULL || cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	/*
	 * Switch unit where rounding would print "1000.00us": each unit shows
	 * at most three integer digits.
	 */
	if (ns < 1000)
		snprintf(buf, cap, "%" PRIu64 "ns", ns);
	else if (ns < 999995)
		snprintf(buf, cap, "%.2fus", (double)ns / 1e3);
	else if (ns < 999999500)
		snprintf(buf, cap, "%.3fms", (double)ns / 1e6);
	else if (ns < 999999500000ull)
		snprintf(buf, cap, "%.3fs", (double)ns / 1e9);
	else
		snprintf(buf, cap, "%" PRIu64 "s",
			 ns / 1000000000 + (ns % 1000000000 >= 500000000));
	return buf;
}

/* report_fmt_ns() for use inside one printf: each call owns its buffer. */
struct ns_str {
	char s[24];
};

static struct ns_str
fmt_ns(uint64_t ns)
{
	struct ns_str r;

	report_fmt_ns(ns, r.s, sizeof(r.s));
	return r;
}

static uint64_t
round_ns(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

/* Rows of the -h table for h, malloc'd into *rows; 0 when none asked for. */
static int
bucket_rows(const struct histogram *h, const struct report_buckets *b,
	    struct histogram_row **rows)
{
	unsigned n;
	int ret;

	*rows = NULL;
	if (b->n_buckets != 0)
		n = b->n_buckets;
	else if (b->n_edges != 0 && b->edges_ns != NULL)
		n = b->n_edges + 1;
	else
		return 0;
	*rows = calloc(n, sizeof(**rows));
	if (*rows == NULL)
		return -ENOMEM;
	if (b->n_buckets != 0)
		ret = histogram_table_linear(h, b->n_buckets, *rows);
	else
		ret = histogram_table_edges(h, b->edges_ns, b->n_edges, *rows);
	if (ret < 0) {
		free(*rows);
		*rows = NULL;
	}
	return ret;
}

static int
stream_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------------------- text */

static void
text_pct_line(FILE *out, const char *title, const struct histogram *h)
{
	struct report_summary s;
	unsigned i;

	report_summarise(h, &s);
	fprintf(out, "%s: count %" PRIu64 ", min %s", title, s.count,
		fmt_ns(s.min).s);
	for (i = 0; i < REPORT_N_PCTS; i++)
		fprintf(out, ", %s %s", pct_label[i], fmt_ns(s.pct[i]).s);
	fprintf(out, ", max %s\n", fmt_ns(s.max).s);
}

static void
text_tsc(FILE *out, const struct report_tsc *t)
{
	fprintf(out, "TSC: %" PRIu64 " Hz (%.6f GHz), %s", t->hz,
		(double)t->hz / 1e9,
		t->invariant ? "invariant"
			     : "NOT invariant (latencies may be wrong)");
	if (t->dpdk_hz != 0)
		fprintf(out, "; DPDK says %" PRIu64 " Hz, %+.1f ppm",
			t->dpdk_hz, t->calib_ppm);
	if (t->read_cost_cycles > 0)
		fprintf(out, "; ordered read %.1f cycles", t->read_cost_cycles);
	fputc('\n', out);
}

static void
text_buckets(FILE *out, const struct histogram_row *rows, int n)
{
	int i;

	/* PsPing -h: two columns, the upper edge of each bucket and its count.
	 */
	fprintf(out, "%12s  %s\n", "Latency", "Count");
	for (i = 0; i < n; i++) {
		if (rows[i].upper_ns == UINT64_MAX) {
			char edge[32];

			snprintf(edge, sizeof(edge), "> %s",
				 i > 0 ? fmt_ns(rows[i - 1].upper_ns).s
				       : "0ns");
			fprintf(out, "%12s  %" PRIu64 "\n", edge,
				rows[i].count);
		} else {
			fprintf(out, "%12s  %" PRIu64 "\n",
				fmt_ns(rows[i].upper_ns).s, rows[i].count);
		}
	}
}

static const char *
str_or(const char *s, const char *dflt)
{
	return s != NULL ? s : dflt;
}

int
report_probe_text(const struct report_probe *r, FILE *out)
{
	const struct histogram *rtt;
	struct histogram_row *rows;
	struct report_summary s;
	double loss_pct;
	unsigned i;
	int n;

	if (r == NULL || out == NULL)
		return -EINVAL;
	rtt = hist_or_empty(r->rtt);
	n = bucket_rows(rtt, &r->buckets, &rows);
	if (n < 0)
		return n;
	report_summarise(rtt, &s);
	loss_pct =
		r->sent != 0 ? 100.0 * (double)r->lost / (double)r->sent : 0.0;

	fprintf(out,
		"%s round trips to %s (%s%s%s, %u lcore%s, %u bytes, "
		"%.2f s%s):\n",
		str_or(r->proto, "?"), str_or(r->target, "?"),
		str_or(r->backend, "?"), r->port_driver != NULL ? " " : "",
		str_or(r->port_driver, ""), r->lcores,
		r->lcores == 1 ? "" : "s", r->size, r->duration_s,
		r->interrupted ? ", interrupted" : "");
	fprintf(out,
		"  Sent = %" PRIu64 ", Received = %" PRIu64 ", Lost = %" PRIu64
		" (%.2f%%),\n",
		r->sent, r->received, r->lost, loss_pct);
	fprintf(out,
		"  Duplicated = %" PRIu64 ", Reordered = %" PRIu64
		", Timeouts = %" PRIu64 ", Ignored = %" PRIu64
		", Warm-up = %" PRIu64 "\n",
		r->duplicated, r->reordered, r->timeouts, r->rx_ignored,
		r->warmup);
	if (r->authenticated)
		fprintf(out,
			"  Authenticated (HMAC-SHA-256): %" PRIu64
			" answers failed verification\n",
			r->auth_failed);
	if (r->reasm_failed != 0)
		fprintf(out,
			"  Fragmented answers not reassembled = %" PRIu64 "\n",
			r->reasm_failed);
	if (r->late != 0 || r->resets != 0)
		fprintf(out,
			"  Late answers = %" PRIu64 ", RST answers = %" PRIu64
			"%s\n",
			r->late, r->resets,
			r->resets ? " (the port is closed: RST counted as the "
				    "answer)"
				  : "");
	fprintf(out,
		"  Minimum = %s, Maximum = %s, Average = %s, Stddev = %s\n",
		fmt_ns(s.min).s, fmt_ns(s.max).s, fmt_ns(round_ns(s.mean)).s,
		fmt_ns(round_ns(s.stddev)).s);
	if (rtt->underflow != 0 || rtt->overflow != 0)
		fprintf(out,
			"  Out of range: %" PRIu64 " below 1ns, %" PRIu64
			" above 10s (not in the figures above)\n",
			rtt->underflow, rtt->overflow);

	fprintf(out, "\nPercentiles:\n");
	for (i = 0; i < REPORT_N_PCTS; i++)
		fprintf(out, "  %-8s %s\n", pct_label[i], fmt_ns(s.pct[i]).s);

	if (n > 0) {
		fputc('\n', out);
		text_buckets(out, rows, n);
	}
	free(rows);

	fputc('\n', out);
	if (r->network_rtt != NULL)
		text_pct_line(out, "Network RTT (T4-T1)-(T3-T2)",
			      r->network_rtt);
	if (r->turnaround != NULL)
		text_pct_line(out, "Turnaround (T3-T2)", r->turnaround);
	text_tsc(out, &r->tsc);
	return stream_status(out);
}

int
report_reflect_text(const struct report_reflect *r, FILE *out)
{
	size_t width = 8;
	unsigned i;

	if (r == NULL || out == NULL ||
	    (r->n_counters != 0 && r->counters == NULL))
		return -EINVAL;
	for (i = 0; i < r->n_counters; i++) {
		const char *name = str_or(r->counters[i].name, "?");

		if (strlen(name) > width)
			width = strlen(name);
	}
	fprintf(out, "Reflector on %s (%s), %.2f s%s:\n", str_or(r->addr, "?"),
		str_or(r->backend, "?"), r->duration_s,
		r->interrupted ? ", interrupted" : "");
	for (i = 0; i < r->n_counters; i++)
		fprintf(out, "  %-*s %12" PRIu64 "\n", (int)width,
			str_or(r->counters[i].name, "?"), r->counters[i].value);
	if (r->turnaround != NULL)
		text_pct_line(out, "Turnaround (T3-T2)", r->turnaround);
	text_tsc(out, &r->tsc);
	return stream_status(out);
}

/* ---------------------------------------------------------------- json */

/*
 * json-c setters that remember the first allocation failure in *err, so
 * that building a report is straight-line code checked once at the end.
 */
static void
jset(struct json_object *o, const char *key, struct json_object *v, int *err)
{
	if (o == NULL || v == NULL || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		*err = -ENOMEM;
	}
}

static void
jset_u64(struct json_object *o, const char *key, uint64_t v, int *err)
{
	jset(o, key, json_object_new_uint64(v), err);
}

static void
jset_bool(struct json_object *o, const char *key, bool v, int *err)
{
	jset(o, key, json_object_new_boolean(v), err);
}

/*
 * json-c prints doubles with %.17g ("36.799999999999997"); use the shortest
 * precision that parses back to the same double instead, and keep a ".0"
 * so that a float field never turns into an integer from one run to the
 * next.
 */
static struct json_object *
json_double(double v)
{
	char buf[40];
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	if (strpbrk(buf, ".e") == NULL) {
		size_t len = strlen(buf);

		snprintf(buf + len, sizeof(buf) - len, ".0");
	}
	return json_object_new_double_s(v, buf);
}

/* NaN and infinities are not JSON: they become null. */
static void
jset_double(struct json_object *o, const char *key, double v, int *err)
{
	if (!isfinite(v)) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset(o, key, json_double(v), err);
}

static void
jset_str(struct json_object *o, const char *key, const char *v, int *err)
{
	if (v == NULL) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset(o, key, json_object_new_string(v), err);
}

static struct json_object *
json_summary(const struct histogram *h, int *err)
{
	struct json_object *o = json_object_new_object();
	struct report_summary s;
	unsigned i;

	report_summarise(h, &s);
	jset_u64(o, "count", s.count, err);
	jset_u64(o, "min", s.min, err);
	jset_double(o, "mean", s.mean, err);
	jset_double(o, "stddev", s.stddev, err);
	jset_u64(o, "max", s.max, err);
	for (i = 0; i < REPORT_N_PCTS; i++)
		jset_u64(o, pct_key[i], s.pct[i], err);
	jset_u64(o, "underflow", h->underflow, err);
	jset_u64(o, "overflow", h->overflow, err);
	return o;
}

static struct json_object *
json_tsc(const struct report_tsc *t, int *err)
{
	struct json_object *o = json_object_new_object();

	jset_u64(o, "hz", t->hz, err);
	jset_bool(o, "invariant", t->invariant, err);
	jset_u64(o, "dpdk_hz", t->dpdk_hz, err);
	jset_double(o, "calib_ppm", t->calib_ppm, err);
	jset_double(o, "read_cost_cycles", t->read_cost_cycles, err);
	return o;
}

static struct json_object *
json_buckets(const struct histogram_row *rows, int n, int *err)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n && a != NULL; i++) {
		struct json_object *row = json_object_new_object();

		/* The open-ended last row of an edge list: no upper edge. */
		if (rows[i].upper_ns == UINT64_MAX) {
			if (row == NULL ||
			    json_object_object_add(row, "upper_ns", NULL) != 0)
				*err = -ENOMEM;
		} else {
			jset_u64(row, "upper_ns", rows[i].upper_ns, err);
		}
		jset_u64(row, "count", rows[i].count, err);
		if (row == NULL || json_object_array_add(a, row) != 0) {
			json_object_put(row);
			*err = -ENOMEM;
		}
	}
	return a;
}

static int
json_write(struct json_object *root, FILE *out)
{
	const char *txt = json_object_to_json_string_ext(
		root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (txt == NULL)
		return -ENOMEM;
	if (fputs(txt, out) == EOF || fputc('\n', out) == EOF)
		return -EIO;
	return stream_status(out);
}

int
report_probe_json(const struct report_probe *r, FILE *out)
{
	struct json_object *root, *probes;
	const struct histogram *rtt;
	struct histogram_row *rows;
	int err = 0, n;

	if (r == NULL || out == NULL)
		return -EINVAL;
	rtt = hist_or_empty(r->rtt);
	n = bucket_rows(rtt, &r->buckets, &rows);
	if (n < 0)
		return n;

	root = json_object_new_object();
	jset_str(root, "proto", r->proto, &err);
	jset_str(root, "backend", r->backend, &err);
	jset_str(root, "target", r->target, &err);
	jset_str(root, "port_driver", r->port_driver, &err);
	jset_u64(root, "size", r->size, &err);
	jset_u64(root, "lcores", r->lcores, &err);
	jset_double(root, "duration_s", r->duration_s, &err);
	jset_bool(root, "interrupted", r->interrupted, &err);
	jset_bool(root, "authenticated", r->authenticated, &err);

	probes = json_object_new_object();
	jset_u64(probes, "sent", r->sent, &err);
	jset_u64(probes, "received", r->received, &err);
	jset_u64(probes, "lost", r->lost, &err);
	jset_u64(probes, "duplicated", r->duplicated, &err);
	jset_u64(probes, "reordered", r->reordered, &err);
	jset_u64(probes, "timeouts", r->timeouts, &err);
	jset_u64(probes, "rx_ignored", r->rx_ignored, &err);
	jset_u64(probes, "late", r->late, &err);
	jset_u64(probes, "resets", r->resets, &err);
	jset_u64(probes, "reassembly_failed", r->reasm_failed, &err);
	jset_u64(probes, "auth_failed", r->auth_failed, &err);
	jset_u64(probes, "warmup", r->warmup, &err);
	jset(root, "probes", probes, &err);

	jset(root, "rtt_ns", json_summary(rtt, &err), &err);
	if (r->network_rtt != NULL)
		jset(root, "network_rtt_ns", json_summary(r->network_rtt, &err),
		     &err);
	if (r->turnaround != NULL)
		jset(root, "turnaround_ns", json_summary(r->turnaround, &err),
		     &err);
	jset(root, "buckets", json_buckets(rows, n, &err), &err);
	free(rows);
	jset(root, "tsc", json_tsc(&r->tsc, &err), &err);

	if (err == 0)
		err = json_write(root, out);
	json_object_put(root);
	return err;
}

int
report_reflect_json(const struct report_reflect *r, FILE *out)
{
	struct json_object *root, *counters;
	int err = 0;
	unsigned i;

	if (r == NULL || out == NULL ||
	    (r->n_counters != 0 && r->counters == NULL))
		return -EINVAL;
	for (i = 0; i < r->n_counters; i++)
		if (r->counters[i].name == NULL)
			return -EINVAL;

	root = json_object_new_object();
	jset_str(root, "backend", r->backend, &err);
	jset_str(root, "addr", r->addr, &err);
	jset_double(root, "duration_s", r->duration_s, &err);
	jset_bool(root, "interrupted", r->interrupted, &err);
	counters = json_object_new_object();
	for (i = 0; i < r->n_counters; i++)
		jset_u64(counters, r->counters[i].name, r->counters[i].value,
			 &err);
	jset(root, "counters", counters, &err);
	if (r->turnaround != NULL)
		jset(root, "turnaround_ns", json_summary(r->turnaround, &err),
		     &err);
	jset(root, "tsc", json_tsc(&r->tsc, &err), &err);

	if (err == 0)
		err = json_write(root, out);
	json_object_put(root);
	return err;
}

/* ---------------------------------------------------------------- live */

int
report_live_line(char *buf, size_t cap, double t_s, uint64_t sent,
		 uint64_t received, uint64_t lost,
		 const struct histogram *interval)
{
	struct report_summary s;
	int n;

	if (buf == NULL || cap == 0)
		return -EINVAL;
	report_summarise(interval, &s);
	if (s.count == 0)
		n = snprintf(buf, cap,
			     "%6.1fs  sent %" PRIu64 " recv %" PRIu64
			     " lost %" PRIu64 " p50 - p99 - max -",
			     t_s, sent, received, lost);
	else
		n = snprintf(buf, cap,
			     "%6.1fs  sent %" PRIu64 " recv %" PRIu64
			     " lost %" PRIu64 " p50 %s p99 %s max %s",
			     t_s, sent, received, lost, fmt_ns(s.pct[0]).s,
			     fmt_ns(s.pct[2]).s, fmt_ns(s.max).s);
	if (n < 0)
		return -EINVAL;
	return (size_t)n < cap ? n : (int)(cap - 1);
}

/* ---------------------------------------------------------------- CSV */

int
report_samples_header(FILE *out)
{
	if (out == NULL)
		return -EINVAL;
	if (fputs("seq,lcore,t1_ns,rtt_ns,network_rtt_ns\n", out) == EOF)
		return -EIO;
	return 0;
}

int
report_samples_write(FILE *out, const struct report_sample *s, size_t n)
{
	size_t i;

	if (out == NULL || (n != 0 && s == NULL))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int ret;

		/* No network RTT for this proto: an empty field (CSV "NA"). */
		if (s[i].network_rtt_ns < 0)
			ret = fprintf(out,
				      "%" PRIu64 ",%" PRIu32 ",%" PRIu64
				      ",%" PRIu64 ",\n",
				      s[i].seq, s[i].lcore, s[i].t1_ns,
				      s[i].rtt_ns);
		else
			ret = fprintf(out,
				      "%" PRIu64 ",%" PRIu32 ",%" PRIu64
				      ",%" PRIu64 ",%" PRId64 "\n",
				      s[i].seq, s[i].lcore, s[i].t1_ns,
				      s[i].rtt_ns, s[i].network_rtt_ns);
		if (ret < 0)
			return -EIO;
	}
	return 0;
}
