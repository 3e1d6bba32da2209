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

/*
 * ---- The HTTP request of a scrape ----
 * app/metrics_srv.c serves it with libmicrohttpd, which parses the request
 * (and answers 400, 414 or 431 itself for a malformed or oversized one);
 * what latprobe answers to a well-formed request is decided here.
 */

enum metrics_http_status {
	METRICS_HTTP_OK = 200,		/* GET or HEAD of /metrics */
	METRICS_HTTP_BAD_REQUEST = 400, /* a request with a body */
	METRICS_HTTP_NOT_FOUND = 404,	/* another path */
	METRICS_HTTP_BAD_METHOD = 405,	/* not GET or HEAD */
};

/*
 * The answer to method and path (a query string, "?..." after the path,
 * is ignored); has_body: the request carries a body (a scrape has none:
 * 400, whatever the method).
 */
enum metrics_http_status metrics_http_route(const char *method,
					    const char *path, bool has_body);

/*
 * Whether a request has a body from its Content-Length and
 * Transfer-Encoding headers (each NULL when absent): any Transfer-Encoding,
 * or a Content-Length that is not zero.
 */
bool metrics_http_has_body(const char *content_length,
			   const char *transfer_enc);

#endif /* LATPROBE_METRICS_H */
