/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readers for `latprobe plot`: a probe report (JSON) and a --samples CSV.
 * Input is untrusted (any file a user names): every field is checked for
 * type and range, and a report that contradicts itself is refused.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/plot.h"
#include "latprobe/report.h"
#include "latprobe/report_json.h"

/* Larger inputs are refused rather than parsed (a run's JSON is KiBs). */
#define PLOT_JSON_MAX_LEN (64u << 20)

/* n values at v, as if recorded (sum and sum_sq included). */
static void
hist_add(struct histogram *h, uint64_t v, uint64_t n)
{
	h->counts[histogram_index(v)] += n;
	h->total += n;
	h->sum += v * n;
	h->sum_sq += (double)v * (double)v * (double)n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/*
 * Today's reports carry no full histogram: rebuild one from the bucket
 * table, each row's count at its upper edge, clipped to [min, max].
 */
static int
hist_from_buckets(struct json_object *root, struct json_object *rtt,
		  struct histogram *h, char *err, size_t cap)
{
	struct json_object *rows;
	uint64_t count, min, max, sum = 0;
	size_t n;

	if (!report_json_u64(rtt, "count", &count))
		return report_why(err, cap,
				  "rtt_ns.count is missing or not a count");
	if (count == 0)
		return 0;
	if (!report_json_u64(rtt, "min", &min) ||
	    !report_json_u64(rtt, "max", &max) || min < HISTOGRAM_LOWEST_NS ||
	    max > HISTOGRAM_HIGHEST_NS || min > max)
		return report_why(err, cap,
				  "rtt_ns.min/max are missing or out of range "
				  "(1 ns .. 10 s, min <= max)");
	if (!json_object_object_get_ex(root, "buckets", &rows) ||
	    !json_object_is_type(rows, json_type_array))
		return report_why(
			err, cap,
			"neither rtt_ns.hdr nor a buckets[] table to read "
			"the histogram from");
	n = json_object_array_length(rows);
	for (size_t i = 0; i < n; i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		struct json_object *up;
		uint64_t c, u = max;

		if (!json_object_is_type(row, json_type_object) ||
		    !report_json_u64(row, "count", &c))
			return report_why(err, cap, "buckets[%zu] has no count",
					  i);
		if (c > count - sum)
			return report_why(
				err, cap,
				"buckets[] hold more round trips than "
				"rtt_ns.count (%llu)",
				(unsigned long long)count);
		sum += c;
		if (c == 0)
			continue;
		if (json_object_object_get_ex(row, "upper_ns", &up) &&
		    up != NULL && !report_json_u64(row, "upper_ns", &u))
			return report_why(
				err, cap,
				"buckets[%zu].upper_ns is not a count", i);
		if (u > max)
			u = max;
		if (u < min)
			u = min;
		hist_add(h, u, c);
	}
	if (sum != count)
		return report_why(
			err, cap,
			"buckets[] hold %llu round trips but rtt_ns.count "
			"says %llu",
			(unsigned long long)sum, (unsigned long long)count);
	h->min = min;
	h->max = max;
	return 0;
}

/* A series' counts below and above the histogram's range, beside its hdr
 * (which holds neither); a report without them leaves h's as they are. */
static void
read_out_of_range(struct json_object *o, struct histogram *h)
{
	uint64_t v;

	if (report_json_u64(o, "underflow", &v))
		h->underflow = v;
	if (report_json_u64(o, "overflow", &v))
		h->overflow = v;
}

/*
 * Another series than rtt_ns (plot --series): its full histogram, nothing
 * approximated (reports with forward_ns and the like all carry hdr).
 */
static int
read_series(struct json_object *root, const char *key, struct plot_input *in,
	    char *err, size_t cap)
{
	struct json_object *o, *x;
	int ret;

	if (!json_object_object_get_ex(root, key, &o) ||
	    !json_object_is_type(o, json_type_object))
		return report_why(err, cap, "no %s series in this report", key);
	if (!json_object_object_get_ex(o, "hdr", &x) ||
	    !json_object_is_type(x, json_type_string))
		return report_why(err, cap, "%s has no histogram (hdr)", key);
	ret = report_json_hdr(o, key, &in->h, err, cap);
	if (ret != 0)
		return ret;
	read_out_of_range(o, &in->h);
	return 0;
}

static int
read_root(struct json_object *root, struct plot_input *in, char *err,
	  size_t cap, const char *key)
{
	struct json_object *rtt, *probes, *x;
	int ret;

	if (!json_object_is_type(root, json_type_object))
		return report_why(err, cap,
				  "not a latprobe report (no JSON object)");
	if (!json_object_object_get_ex(root, "rtt_ns", &rtt) ||
	    !json_object_is_type(rtt, json_type_object)) {
		if (json_object_object_get_ex(root, "counters", &x))
			return report_why(
				err, cap,
				"a reflector's report; plot draws probe "
				"reports (latprobe probe --json)");
		return report_why(
			err, cap,
			"not a latprobe probe report (no rtt_ns object)");
	}
	if (json_object_object_get_ex(root, "proto", &x) &&
	    json_object_is_type(x, json_type_string))
		snprintf(in->proto, sizeof(in->proto), "%s",
			 json_object_get_string(x));
	if (json_object_object_get_ex(root, "probes", &probes) &&
	    json_object_is_type(probes, json_type_object) &&
	    report_json_u64(probes, "sent", &in->sent) &&
	    report_json_u64(probes, "received", &in->received) &&
	    report_json_u64(probes, "lost", &in->lost))
		in->has_probes = in->lost <= in->sent;
	if (key != NULL && strcmp(key, "rtt_ns") != 0)
		return read_series(root, key, in, err, cap);
	if (json_object_object_get_ex(rtt, "hdr", &x) && x != NULL) {
		if (!json_object_is_type(x, json_type_string))
			return report_why(err, cap,
					  "rtt_ns.hdr is not a string");
		ret = report_json_hdr(rtt, "rtt_ns", &in->h, err, cap);
		if (ret != 0 || histogram_count(&in->h) == 0)
			return ret;
		read_out_of_range(rtt, &in->h);
		return 0;
	}
	/* Reports written before the histogram was in them. */
	in->approximate = true;
	return hist_from_buckets(root, rtt, &in->h, err, cap);
}

int
plot_json_read(const char *text, size_t len, struct plot_input *in, char *err,
	       size_t err_cap)
{
	return plot_json_read_series(text, len, "rtt_ns", in, err, err_cap);
}

int
plot_json_read_series(const char *text, size_t len, const char *key,
		      struct plot_input *in, char *err, size_t err_cap)
{
	struct json_object *root;
	int ret;

	if (err != NULL && err_cap > 0)
		err[0] = '\0';
	if (in == NULL || (text == NULL && len != 0))
		return report_why(err, err_cap, "no input");
	memset(in, 0, sizeof(*in));
	histogram_init(&in->h);
	if (len == 0)
		return report_why(err, err_cap, "empty file");
	if (len > PLOT_JSON_MAX_LEN)
		return report_why(err, err_cap,
				  "larger than %u MiB: not a latprobe report",
				  PLOT_JSON_MAX_LEN >> 20);
	ret = report_json_parse(text, len, &root, err, err_cap);
	if (ret != 0)
		return ret;
	ret = read_root(root, in, err, err_cap, key);
	json_object_put(root);
	if (ret != 0)
		histogram_init(&in->h);
	return ret;
}

/* Median of n values (sorted in place). */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct sample {
	uint64_t t1, rtt;
};

static int
cmp_t1(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

/*
 * Fields 3 and 4 of "seq,lcore,t1_ns,rtt_ns,..." as numbers. The text is
 * not NUL-terminated: digits are read by hand up to eol.
 */
static bool
parse_row(const char *p, const char *eol, uint64_t *t1, uint64_t *rtt)
{
	uint64_t f[4];

	for (unsigned k = 0; k < 4; k++) {
		uint64_t v = 0;
		const char *d = p;

		for (; p < eol && *p >= '0' && *p <= '9'; p++) {
			unsigned digit = (unsigned)(*p - '0');

			if (v > (UINT64_MAX - digit) / 10)
				return false;
			v = v * 10 + digit;
		}
		if (p == d || (k < 3 && (p == eol || *p != ',')) ||
		    (k == 3 && p != eol && *p != ','))
			return false;
		f[k] = v;
		p++;
	}
	*t1 = f[2];
	*rtt = f[3];
	return true;
}

int
plot_samples_read(const char *text, size_t len, unsigned max_points,
		  struct plot_tpoint **pts, size_t *n_pts, char *err,
		  size_t err_cap)
{
	static const char head[] = "seq,lcore,t1_ns,rtt_ns";
	struct sample *s = NULL;
	struct plot_tpoint *out = NULL;
	uint64_t *bin = NULL;
	size_t n = 0, cap = 0, line = 1, no = 0;
	const char *p, *end;
	uint64_t t_last;
	double width;

	if (err != NULL && err_cap > 0)
		err[0] = '\0';
	if (pts == NULL || n_pts == NULL || max_points == 0 ||
	    (text == NULL && len != 0))
		return report_why(err, err_cap, "no input");
	*pts = NULL;
	*n_pts = 0;
	if (len < sizeof(head) - 1 || memcmp(text, head, sizeof(head) - 1) != 0)
		return report_why(
			err, err_cap,
			"not a latprobe --samples CSV (no '%s' header)", head);
	end = text + len;
	p = memchr(text, '\n', len);
	p = p == NULL ? end : p + 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;
		const char *next = nl != NULL ? nl + 1 : end;
		uint64_t t1, rtt;

		line++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (eol == p) {
			p = next;
			continue;
		}
		if (!parse_row(p, eol, &t1, &rtt)) {
			free(s);
			return report_why(
				err, err_cap,
				"line %zu is not 'seq,lcore,t1_ns,rtt_ns,...' "
				"numbers",
				line);
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct sample *ns = realloc(s, nc * sizeof(*s));

			if (ns == NULL) {
				free(s);
				return -ENOMEM;
			}
			s = ns;
			cap = nc;
		}
		s[n].t1 = t1;
		s[n].rtt = rtt;
		n++;
		p = next;
	}
	if (n == 0)
		return 0;
	/* Rows come per lcore; time order is what is drawn. */
	qsort(s, n, sizeof(*s), cmp_t1);
	t_last = s[n - 1].t1;
	width = ((double)t_last + 1.0) / max_points;
	out = calloc(max_points, sizeof(*out));
	bin = malloc(n * sizeof(*bin));
	if (out == NULL || bin == NULL) {
		free(s);
		free(out);
		free(bin);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		unsigned b =
			(unsigned)fmin((double)s[i].t1 / width, max_points - 1);
		size_t j = i, m = 0;

		while (j < n && (unsigned)fmin((double)s[j].t1 / width,
					       max_points - 1) == b) {
			bin[m++] = s[j].rtt;
			j++;
		}
		qsort(bin, m, sizeof(*bin), cmp_u64);
		out[no].t_s = ((double)b + 0.5) * width / 1e9;
		/* Too few in the bin for a median: not drawn (0). */
		out[no].p50_ns =
			report_pct_enough(m, 50) ? bin[(m - 1) / 2] : 0;
		out[no].max_ns = bin[m - 1];
		no++;
		i = j;
	}
	free(s);
	free(bin);
	*pts = out;
	*n_pts = no;
	return 0;
}

/* Within [p, eol): a double, then ','; false otherwise. */
static bool
field_double(const char **p, const char *eol, double *v)
{
	char buf[40], *end;
	const char *c = memchr(*p, ',', (size_t)(eol - *p));
	size_t n;

	if (c == NULL || (n = (size_t)(c - *p)) == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*v = strtod(buf, &end);
	if (*end != '\0' || !isfinite(*v) || *v < 0)
		return false;
	*p = c + 1;
	return true;
}

int
plot_hlog_read(const char *text, size_t len, const char *tag,
	       struct plot_tpoint **pts, size_t *n_pts, char *err,
	       size_t err_cap)
{
	static struct histogram iv; /* 28 KiB: not on the stack */
	struct plot_tpoint *out = NULL;
	size_t n = 0, cap = 0, line = 0, tlen;
	const char *p = text, *end = text + len;
	bool seen_header = false;

	if (err != NULL && err_cap > 0)
		err[0] = '\0';
	if (pts == NULL || n_pts == NULL || tag == NULL ||
	    (text == NULL && len != 0))
		return report_why(err, err_cap, "no input");
	*pts = NULL;
	*n_pts = 0;
	tlen = strlen(tag);
	while (p != NULL && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;
		const char *next = nl != NULL ? nl + 1 : end;
		double start, length, max_ms;

		line++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (eol == p || *p == '#' || *p == '"') {
			seen_header |= eol > p;
			p = next;
			continue;
		}
		if ((size_t)(eol - p) > 4 && memcmp(p, "Tag=", 4) == 0) {
			const char *c = memchr(p, ',', (size_t)(eol - p));

			/* Another series of the same log (network_rtt, ...). */
			if (c == NULL || (size_t)(c - p - 4) != tlen ||
			    memcmp(p + 4, tag, tlen) != 0) {
				p = next;
				continue;
			}
			p = c + 1;
		}
		if (!field_double(&p, eol, &start) ||
		    !field_double(&p, eol, &length) ||
		    !field_double(&p, eol, &max_ms) ||
		    (size_t)(eol - p) > HDR_CODEC_MAX_B64 ||
		    hdr_codec_decode(p, (size_t)(eol - p), &iv) != 0) {
			free(out);
			return report_why(
				err, err_cap,
				"line %zu is not an HdrHistogram interval "
				"(start,length,max,V2 histogram)",
				line);
		}
		p = next;
		if (histogram_count(&iv) == 0)
			continue;
		if (n == PLOT_HLOG_MAX_INTERVALS) {
			free(out);
			return report_why(err, err_cap,
					  "more than %u intervals",
					  PLOT_HLOG_MAX_INTERVALS);
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct plot_tpoint *no =
				realloc(out, nc * sizeof(*out));

			if (no == NULL) {
				free(out);
				return -ENOMEM;
			}
			out = no;
			cap = nc;
		}
		out[n].t_s = start + length / 2;
		out[n].p50_ns = report_pct_enough(histogram_count(&iv), 50)
					? histogram_percentile(&iv, 50)
					: 0;
		out[n].max_ns = histogram_max(&iv);
		n++;
	}
	if (n == 0 && !seen_header) {
		free(out);
		return report_why(
			err, err_cap,
			"not an HdrHistogram interval log (no header, no "
			"interval)");
	}
	*pts = out;
	*n_pts = n;
	return 0;
}
