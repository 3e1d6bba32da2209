/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_METRICS_H
#define LATPROBE_METRICS_H

/*
 * --metrics: the Prometheus text exposition format (version 0.0.4, which
 * OpenMetrics parsers read too) written into a growing memory buffer, and
 * the HTTP request parser of the /metrics endpoint. Pure: no socket, no
 * thread; app/metrics_srv.c serves what this writes.
 *
 * A family is its # HELP and # TYPE lines followed by all its samples, one
 * set of labels each: the caller writes metrics_family() once, then one
 * metrics_counter()/metrics_gauge()/metrics_histogram() per label set.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/histogram.h"

/*
 * Fixed `le` bounds of every latency histogram: 1-2-5 steps per decade from
 * 1 us to 1 s (19 bounds, then +Inf), the same on every host, so that
 * Prometheus can add the buckets of many probers and take
 * histogram_quantile() of the sum.
 */
#define METRICS_N_LE 19
extern const uint64_t metrics_le_ns[METRICS_N_LE];

struct metrics_buf {
	char *p;
	size_t len, cap;
	int err; /* first error (-ENOMEM, -EINVAL); 0 while all went well */
};

struct metrics_label {
	const char *name;
	const char *value; /* escaped as the format asks (\\, \", \n) */
};

void metrics_buf_init(struct metrics_buf *b);
void metrics_buf_fini(struct metrics_buf *b);
/* Empty it again, keeping the memory. */
void metrics_buf_reset(struct metrics_buf *b);

/*
 * # HELP and # TYPE of a family; type is "counter", "gauge" or
 * "histogram". Names must be [a-zA-Z_:][a-zA-Z0-9_:]*; counters end in
 * _total. 0 or -errno (also kept in b->err).
 */
int metrics_family(struct metrics_buf *b, const char *name, const char *type,
		   const char *help);

/* One sample `name{labels} value`; labels may be NULL when n is 0. */
int metrics_counter(struct metrics_buf *b, const char *name,
		    const struct metrics_label *l, unsigned n, uint64_t v);
int metrics_gauge(struct metrics_buf *b, const char *name,
		  const struct metrics_label *l, unsigned n, double v);

/*
 * A histogram of nanoseconds exposed in seconds: name_bucket{le=...} for
 * metrics_le_ns[] and +Inf, name_sum, name_count. h is a snapshot (not a
 * live histogram): the buckets are cumulative sums of its counters, a
 * counter counting under a bound when its upper edge is at or below it
 * (HdrHistogram counters are at most 0.78 % wide); underflow (0 ns) is in
 * every bucket, overflow only in +Inf, and _count is the +Inf bucket, so
 * one exposition is consistent however the counters moved while it was
 * copied.
 */
int metrics_histogram(struct metrics_buf *b, const char *name,
		      const struct metrics_label *l, unsigned n,
		      const struct histogram *h);

/* A valid metric or label name (the format's grammar). */
bool metrics_name_ok(const char *name);

/* ---- The HTTP request of a scrape ---- */

#define METRICS_HTTP_MAX_REQUEST 8192 /* bytes, request line + headers */

enum metrics_http_status {
	METRICS_HTTP_OK = 200,		/* GET or HEAD of /metrics */
	METRICS_HTTP_BAD_REQUEST = 400, /* not HTTP/1.0 or 1.1 syntax */
	METRICS_HTTP_NOT_FOUND = 404,	/* another path */
	METRICS_HTTP_BAD_METHOD = 405,	/* not GET or HEAD */
	METRICS_HTTP_TOO_LARGE = 431,	/* over METRICS_HTTP_MAX_REQUEST */
};

struct metrics_http_req {
	enum metrics_http_status status;
	bool head;   /* HEAD: headers only */
	size_t used; /* bytes of buf the request took (through the blank line)
		      */
};

/*
 * Parse the first len bytes received on a connection (not
 * NUL-terminated). 0 with req filled when the request is complete (its
 * status says what to answer; a request with a body is refused as 400:
 * a scrape has none), -EAGAIN when more bytes are needed (and len is below
 * METRICS_HTTP_MAX_REQUEST; at or above it: 0 with status 431).
 */
int metrics_http_parse(const char *buf, size_t len,
		       struct metrics_http_req *req);

/*
 * The response head for status with a body of body_len bytes
 * (Content-Type of the exposition format for 200, text/plain otherwise;
 * Connection: close). Returns its length, or -ENOSPC when cap is too small.
 */
int metrics_http_head(char *out, size_t cap, enum metrics_http_status status,
		      size_t body_len);

#endif /* LATPROBE_METRICS_H */
