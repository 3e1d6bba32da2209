/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HLOG_OUT_H
#define LATPROBE_HLOG_OUT_H

/*
 * --hlog FILE: interval histograms of every series, one tagged line per
 * series per --hlog-interval, from the workers' live histograms (relaxed
 * snapshots, side thread only; the final call runs after the workers
 * stopped).
 */

#include <stdbool.h>
#include <stdint.h>

#include "app.h"
#include "latprobe/histogram.h"

/* rtt, network_rtt, turnaround, intended, forward, reverse, and room */
#define APP_HLOG_MAX_SERIES 8
/* APP_HLOG_DEFAULT_INTERVAL_NS: app.h (the shared options' default). */

/* The live histogram of series s of worker w. */
typedef const struct histogram *(*app_hlog_get_fn)(void *ctx, unsigned s,
						   unsigned w);

struct app_hlog {
	struct app_out out;
	unsigned n_series, n_workers;
	const char *tag[APP_HLOG_MAX_SERIES];
	struct histogram *prev; /* [s * n_workers + w] */
	struct histogram *snap, *iv, *sum;
	bool started;
	bool broken; /* out of memory or a write failed: said once */
	int err;     /* -errno of the first write failure */
	double last_el;
};

/* Open FILE before the first probe: EXIT_OK or EXIT_USAGE (printed). */
int app_hlog_open(struct app_hlog *h, const char *path);
/* Tags (e.g. "rtt") of the series and the worker count; before the run. */
void app_hlog_series(struct app_hlog *h, unsigned n_series,
		     const char *const *tags, unsigned n_workers);
/* One interval ending at el seconds since the run started. */
void app_hlog_tick(struct app_hlog *h, double el, app_hlog_get_fn get,
		   void *ctx);
/* Worker w starts again from nothing (its place taken by a new one): its
 * next interval counts from zero. */
void app_hlog_forget(struct app_hlog *h, unsigned w);
/* Flush and close: EXIT_OK, or EXIT_RUNTIME when writing failed (printed).
 * Nothing when not opened. */
int app_hlog_close(struct app_hlog *h);

#endif /* LATPROBE_HLOG_OUT_H */
