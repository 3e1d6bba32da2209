/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/metrics.h"

const uint64_t metrics_le_ns[METRICS_N_LE] = {
	1000ull,      2000ull,	    5000ull,	  10000ull,	 20000ull,
	50000ull,     100000ull,    200000ull,	  500000ull,	 1000000ull,
	2000000ull,   5000000ull,   10000000ull,  20000000ull,	 50000000ull,
	100000000ull, 200000000ull, 500000000ull, 1000000000ull,
};

void
metrics_buf_init(struct metrics_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void
metrics_buf_fini(struct metrics_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void
metrics_buf_reset(struct metrics_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

static int
grow(struct metrics_buf *b, size_t need)
{
	size_t cap = b->cap != 0 ? b->cap : 4096;
	char *p;

	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	if (cap == b->cap)
		return 0;
	p = realloc(b->p, cap);
	if (p == NULL)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int
fail(struct metrics_buf *b, int err)
{
	if (b->err == 0)
		b->err = err;
	return err;
}

static int
put(struct metrics_buf *b, const char *s, size_t n)
{
	if (b->err != 0)
		return b->err;
	if (grow(b, b->len + n + 1) != 0)
		return fail(b, -ENOMEM);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int putf(struct metrics_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
putf(struct metrics_buf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return fail(b, -EINVAL);
	return put(b, tmp, (size_t)n);
}

static bool
name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (!first && c >= '0' && c <= '9');
}

bool
metrics_name_ok(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return false;
	for (size_t i = 0; name[i] != '\0'; i++)
		if (!name_char(name[i], i == 0))
			return false;
	return true;
}

/* HELP text escapes \ and newline; label values " too. */
static int
put_escaped(struct metrics_buf *b, const char *s, bool quote)
{
	for (; *s != '\0'; s++) {
		const char *e = NULL;

		if (*s == '\\')
			e = "\\\\";
		else if (*s == '\n')
			e = "\\n";
		else if (quote && *s == '"')
			e = "\\\"";
		if (e != NULL)
			put(b, e, 2);
		else
			put(b, s, 1);
	}
	return b->err;
}

int
metrics_family(struct metrics_buf *b, const char *name, const char *type,
	       const char *help)
{
	if (!metrics_name_ok(name))
		return fail(b, -EINVAL);
	if (strcmp(type, "counter") != 0 && strcmp(type, "gauge") != 0 &&
	    strcmp(type, "histogram") != 0)
		return fail(b, -EINVAL);
	putf(b, "# HELP %s ", name);
	put_escaped(b, help, false);
	putf(b, "\n# TYPE %s %s\n", name, type);
	return b->err;
}

/* name{a="x",b="y"[,extra]} ; extra is an already formatted label. */
static int
put_series(struct metrics_buf *b, const char *name, const char *suffix,
	   const struct metrics_label *l, unsigned n, const char *extra)
{
	if (!metrics_name_ok(name))
		return fail(b, -EINVAL);
	put(b, name, strlen(name));
	put(b, suffix, strlen(suffix));
	if (n == 0 && extra == NULL)
		return put(b, " ", 1);
	put(b, "{", 1);
	for (unsigned i = 0; i < n; i++) {
		if (!metrics_name_ok(l[i].name) || l[i].value == NULL ||
		    strncmp(l[i].name, "__", 2) == 0)
			return fail(b, -EINVAL);
		if (i > 0)
			put(b, ",", 1);
		put(b, l[i].name, strlen(l[i].name));
		put(b, "=\"", 2);
		put_escaped(b, l[i].value, true);
		put(b, "\"", 1);
	}
	if (extra != NULL) {
		if (n > 0)
			put(b, ",", 1);
		put(b, extra, strlen(extra));
	}
	return put(b, "} ", 2);
}

int
metrics_counter(struct metrics_buf *b, const char *name,
		const struct metrics_label *l, unsigned n, uint64_t v)
{
	put_series(b, name, "", l, n, NULL);
	return putf(b, "%llu\n", (unsigned long long)v);
}

static int
put_double(struct metrics_buf *b, double v)
{
	if (isnan(v))
		return put(b, "NaN", 3);
	if (isinf(v))
		return v > 0 ? put(b, "+Inf", 4) : put(b, "-Inf", 4);
	return putf(b, "%.17g", v);
}

int
metrics_gauge(struct metrics_buf *b, const char *name,
	      const struct metrics_label *l, unsigned n, double v)
{
	put_series(b, name, "", l, n, NULL);
	put_double(b, v);
	return put(b, "\n", 1);
}

int
metrics_histogram(struct metrics_buf *b, const char *name,
		  const struct metrics_label *l, unsigned n,
		  const struct histogram *h)
{
	uint64_t cum = h->underflow;
	unsigned idx = 0;
	char le[48];

	for (unsigned k = 0; k < METRICS_N_LE; k++) {
		for (; idx < HISTOGRAM_COUNTERS &&
		       histogram_index_highest(idx) <= metrics_le_ns[k];
		     idx++)
			cum += h->counts[idx];
		snprintf(le, sizeof(le), "le=\"%g\"",
			 (double)metrics_le_ns[k] / 1e9);
		put_series(b, name, "_bucket", l, n, le);
		putf(b, "%llu\n", (unsigned long long)cum);
	}
	for (; idx < HISTOGRAM_COUNTERS; idx++)
		cum += h->counts[idx];
	cum += h->overflow;
	put_series(b, name, "_bucket", l, n, "le=\"+Inf\"");
	putf(b, "%llu\n", (unsigned long long)cum);
	put_series(b, name, "_sum", l, n, NULL);
	put_double(b, (double)h->sum / 1e9);
	put(b, "\n", 1);
	put_series(b, name, "_count", l, n, NULL);
	return putf(b, "%llu\n", (unsigned long long)cum);
}

/* ---- HTTP ---- */

enum metrics_http_status
metrics_http_route(const char *method, const char *path, bool has_body)
{
	if (has_body)
		return METRICS_HTTP_BAD_REQUEST; /* a scrape has none */
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return METRICS_HTTP_BAD_METHOD;
	if (strncmp(path, "/metrics", 8) != 0 ||
	    (path[8] != '\0' && path[8] != '?'))
		return METRICS_HTTP_NOT_FOUND;
	return METRICS_HTTP_OK;
}

bool
metrics_http_has_body(const char *content_length, const char *transfer_enc)
{
	if (transfer_enc != NULL)
		return true;
	if (content_length == NULL)
		return false;
	for (const char *c = content_length; *c != '\0'; c++)
		if (*c != ' ' && *c != '\t' && *c != '0')
			return true;
	return false;
}
