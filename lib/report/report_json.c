/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/report_json.h"

int
report_why(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && cap > 0) {
		va_start(ap, fmt);
		vsnprintf(why, cap, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int
report_json_parse(const char *text, size_t len, struct json_object **root,
		  char *why, size_t why_cap)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	size_t end;

	*root = NULL;
	if (text == NULL || len > INT32_MAX)
		return report_why(why, why_cap, "no input");
	tok = json_tokener_new();
	if (tok == NULL)
		return -ENOMEM;
	*root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (*root == NULL || jerr != json_tokener_success) {
		report_why(why, why_cap, "not JSON (%s)",
			   jerr == json_tokener_continue
				   ? "it ends in the middle"
				   : json_tokener_error_desc(jerr));
		goto bad;
	}
	/* strchr() finds the terminator too: a NUL is not white space. */
	while (end < len && text[end] != '\0' &&
	       strchr(" \t\r\n", text[end]) != NULL)
		end++;
	if (end < len) {
		report_why(
			why, why_cap,
			"not JSON (something follows the report at byte %zu)",
			end);
		goto bad;
	}
	return 0;
bad:
	json_object_put(*root);
	*root = NULL;
	return -EINVAL;
}

bool
report_json_u64(struct json_object *o, const char *key, uint64_t *v)
{
	struct json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_int))
		return false;
	/* json-c keeps values above INT64_MAX as unsigned. */
	if (json_object_get_int64(m) < 0)
		return false;
	*v = json_object_get_uint64(m);
	return true;
}

bool
report_json_double(struct json_object *o, const char *key, double *v)
{
	struct json_object *m;
	double d;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !(json_object_is_type(m, json_type_double) ||
	      json_object_is_type(m, json_type_int)))
		return false;
	d = json_object_get_double(m);
	if (!isfinite(d))
		return false;
	*v = d;
	return true;
}

void
report_json_str(struct json_object *o, const char *key, char *out, size_t cap)
{
	struct json_object *m;

	out[0] = '\0';
	if (json_object_object_get_ex(o, key, &m) &&
	    json_object_is_type(m, json_type_string))
		snprintf(out, cap, "%s", json_object_get_string(m));
}

int
report_json_hdr(struct json_object *o, const char *name, struct histogram *h,
		char *why, size_t why_cap)
{
	struct json_object *hdr;
	uint64_t v, lo, hi;
	size_t len;

	histogram_init(h);
	if (!json_object_object_get_ex(o, "hdr", &hdr) ||
	    !json_object_is_type(hdr, json_type_string))
		return report_why(why, why_cap, "%s.hdr is not a string", name);
	len = (size_t)json_object_get_string_len(hdr);
	if (len > HDR_CODEC_MAX_B64 ||
	    hdr_codec_decode(json_object_get_string(hdr), len, h) != 0)
		return report_why(why, why_cap,
				  "%s.hdr is not an HdrHistogram V2 compressed "
				  "histogram with latprobe's layout",
				  name);
	if (report_json_u64(o, "count", &v) && v != histogram_count(h))
		return report_why(
			why, why_cap,
			"%s.hdr holds %llu round trips but %s.count says "
			"%llu",
			name, (unsigned long long)histogram_count(h), name,
			(unsigned long long)v);
	if (histogram_count(h) == 0)
		return 0;
	/* Exact extremes, when they fall in the first/last counter. */
	if (report_json_u64(o, "min", &v)) {
		lo = histogram_min(h);
		if (v < lo || v > histogram_index_highest(histogram_index(lo)))
			return report_why(
				why, why_cap,
				"%s.min is not in %s.hdr's lowest bucket", name,
				name);
		h->min = v;
	}
	if (report_json_u64(o, "max", &v)) {
		hi = histogram_max(h);
		if (v < histogram_index_lowest(histogram_index(hi)) || v > hi)
			return report_why(
				why, why_cap,
				"%s.max is not in %s.hdr's highest bucket",
				name, name);
		h->max = v;
	}
	if (report_json_u64(o, "sum", &v))
		h->sum = v;
	return 0;
}
