/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing JSON (json-c): setters that remember the first allocation failure,
 * doubles in their shortest form, a series' summary with its HdrHistogram,
 * the bucket rows, and the document's end. Reading is report_json.c.
 */
#include "latprobe/hdr_codec.h"
#include "latprobe/report_internal.h"

/*
 * json-c setters that remember the first allocation failure in *err, so
 * that building a report is straight-line code checked once at the end.
 */
void
rpt_jset(struct json_object *o, const char *key, struct json_object *v,
	 int *err)
{
	if (o == NULL || v == NULL || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		*err = -ENOMEM;
	}
}

/* A null member. */
void
rpt_jset_null(struct json_object *o, const char *key, int *err)
{
	if (o == NULL || json_object_object_add(o, key, NULL) != 0)
		*err = -ENOMEM;
}

/* v appended to the array a (put on failure). */
void
rpt_jadd(struct json_object *a, struct json_object *v, int *err)
{
	if (a == NULL || v == NULL || json_object_array_add(a, v) != 0) {
		json_object_put(v);
		*err = -ENOMEM;
	}
}

/* A series' summary under key, when there is the series (h not NULL). */
void
rpt_jset_series(struct json_object *o, const char *key,
		const struct histogram *h, int *err)
{
	if (h != NULL)
		rpt_jset(o, key, rpt_json_summary(h, err), err);
}

void
rpt_jset_u64(struct json_object *o, const char *key, uint64_t v, int *err)
{
	rpt_jset(o, key, json_object_new_uint64(v), err);
}

void
rpt_jset_bool(struct json_object *o, const char *key, bool v, int *err)
{
	rpt_jset(o, key, json_object_new_boolean(v), err);
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
void
rpt_jset_double(struct json_object *o, const char *key, double v, int *err)
{
	if (!isfinite(v)) {
		rpt_jset_null(o, key, err);
		return;
	}
	rpt_jset(o, key, json_double(v), err);
}

void
rpt_jset_str(struct json_object *o, const char *key, const char *v, int *err)
{
	if (v == NULL) {
		rpt_jset_null(o, key, err);
		return;
	}
	rpt_jset(o, key, json_object_new_string(v), err);
}

/* A UDP/TCP port, null when 0 (none). */
void
rpt_jset_port(struct json_object *o, const char *key, uint16_t port, int *err)
{
	if (port == 0) {
		rpt_jset_null(o, key, err);
		return;
	}
	rpt_jset_u64(o, key, port, err);
}

/* An integer, or null when negative (unknown). */
void
rpt_jset_int_or_null(struct json_object *o, const char *key, int v, int *err)
{
	if (v < 0) {
		rpt_jset_null(o, key, err);
		return;
	}
	rpt_jset(o, key, json_object_new_int(v), err);
}

void
rpt_jset_u64_or_null(struct json_object *o, const char *key, bool known,
		     uint64_t v, int *err)
{
	if (!known) {
		rpt_jset_null(o, key, err);
		return;
	}
	rpt_jset_u64(o, key, v, err);
}

void
rpt_json_pcts(struct json_object *o, const struct report_summary *s, int *err)
{
	struct json_object *ci = json_object_new_object();
	struct json_object *few = json_object_new_array();
	unsigned i;

	for (i = 0; i < REPORT_N_PCTS; i++) {
		struct json_object *b;

		if (!s->pct_ok[i]) {
			/* Not a figure: too few samples for it (or none). */
			rpt_jset_null(o, rpt_pct_key[i], err);
			rpt_jset_null(ci, rpt_pct_key[i], err);
			rpt_jadd(few, json_object_new_string(rpt_pct_key[i]),
				 err);
			continue;
		}
		rpt_jset_u64(o, rpt_pct_key[i], s->pct[i], err);
		b = json_object_new_array();
		rpt_jadd(b, json_object_new_uint64(s->ci_lo[i]), err);
		rpt_jadd(b, json_object_new_uint64(s->ci_hi[i]), err);
		rpt_jset(ci, rpt_pct_key[i], b, err);
	}
	rpt_jset(o, "ci95", ci, err);
	rpt_jset(o, "too_few_samples", few, err);
}

struct json_object *
rpt_json_summary(const struct histogram *h, int *err)
{
	struct json_object *o = json_object_new_object();
	struct report_summary s;

	report_summarise(h, &s);
	rpt_jset_u64(o, "count", s.count, err);
	rpt_jset_u64(o, "min", s.min, err);
	rpt_jset_double(o, "mean", s.mean, err);
	rpt_jset_double(o, "stddev", s.stddev, err);
	rpt_jset_u64(o, "max", s.max, err);
	rpt_json_pcts(o, &s, err);
	rpt_jset_u64(o, "underflow", h->underflow, err);
	rpt_jset_u64(o, "overflow", h->overflow, err);
	/* The whole histogram, lossless (underflow/overflow are beside it). */
	{
		char *b64 = NULL;
		size_t len;

		if (hdr_codec_encode(h, &b64, &len) != 0) {
			*err = -ENOMEM;
		} else {
			rpt_jset(o, "hdr",
				 json_object_new_string_len(b64, (int)len),
				 err);
			free(b64);
		}
	}
	rpt_jset_u64(o, "hdr_lowest", HDR_CODEC_LOWEST, err);
	rpt_jset_u64(o, "hdr_highest", HDR_CODEC_HIGHEST, err);
	rpt_jset_u64(o, "hdr_sigfigs", HDR_CODEC_SIGFIGS, err);
	rpt_jset_u64(o, "sum", h->sum, err);
	return o;
}

struct json_object *
rpt_json_counters(const struct report_counter *c, unsigned n, int *err)
{
	struct json_object *o = json_object_new_object();

	for (unsigned i = 0; i < n && c != NULL; i++)
		if (c[i].name != NULL)
			rpt_jset_u64(o, c[i].name, c[i].value, err);
	return o;
}

struct json_object *
rpt_json_buckets(const struct histogram_row *rows, int n, int *err)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n && a != NULL; i++) {
		struct json_object *row = json_object_new_object();

		/* The open-ended last row of an edge list: no upper edge. */
		if (rows[i].upper_ns == UINT64_MAX) {
			rpt_jset_null(row, "upper_ns", err);
		} else {
			rpt_jset_u64(row, "upper_ns", rows[i].upper_ns, err);
		}
		rpt_jset_u64(row, "count", rows[i].count, err);
		rpt_jset_double(row, "cum_pct", rpt_cum_pct(rows, n, i), err);
		rpt_jadd(a, row, err);
	}
	return a;
}

/* The members every report ends with ("tsc", "port"), then the document
 * written to out unless building it failed (err); root is freed. */
int
rpt_json_finish(struct json_object *root, const struct report_tsc *tsc,
		const struct report_port_xstats *port, int err, FILE *out)
{
	const char *txt;

	rpt_jset(root, "tsc", rpt_json_tsc(tsc, &err), &err);
	rpt_json_port(root, port, &err);
	if (err == 0) {
		txt = json_object_to_json_string_ext(
			root, JSON_C_TO_STRING_PRETTY |
				      JSON_C_TO_STRING_NOSLASHESCAPE);
		if (txt == NULL)
			err = -ENOMEM;
		else if (fputs(txt, out) == EOF || fputc('\n', out) == EOF)
			err = -EIO;
		else
			err = rpt_stream_status(out);
	}
	json_object_put(root);
	return err;
}
