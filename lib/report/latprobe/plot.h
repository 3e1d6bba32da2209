/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PLOT_H
#define LATPROBE_PLOT_H

/*
 * `latprobe plot`: one self-contained HTML page (inline SVG and CSS, no
 * script, nothing fetched) drawing one or more runs: the percentile
 * spectrum (x on HdrHistogram's log 1/(1-p) scale), a histogram in
 * log-spaced bins, the CDF, latency over time where a run has it, and a
 * table of each run's key figures. Everything but the time chart is
 * computed from the run's full histogram.
 *
 * The page is well-formed XML (XHTML served as HTML), so the tests parse
 * it with an XML parser. Each run's line in each chart is one
 * <path class="series" data-run="K">.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latprobe/histogram.h"

/* More runs than this on one page is refused (-E2BIG). */
#define PLOT_MAX_RUNS 32

/* Latency over time: one point per time bin. */
struct plot_tpoint {
	double t_s;	 /* middle of the bin, seconds since the run's start */
	uint64_t p50_ns; /* median of the bin; 0: too few in it, not drawn */
	uint64_t max_ns; /* highest of the bin */
};

struct plot_run {
	const char *label;	   /* legend and table name */
	const struct histogram *h; /* round-trip times, ns */
	bool has_probes;	   /* sent/received/lost are known */
	uint64_t sent, received, lost;
	const struct plot_tpoint *time; /* NULL/0: the run has none */
	size_t n_time;
	const char *note; /* shown under the table (e.g. approximations) */
};

/*
 * Write the page for runs[0..n-1] to out. A run whose histogram is empty
 * gets a row in the table and no line. title may be NULL.
 * 0, -EINVAL (n == 0, a NULL run field), -E2BIG (n > PLOT_MAX_RUNS),
 * -ENOMEM or -EIO.
 */
int plot_write_html(const struct plot_run *runs, unsigned n, const char *title,
		    FILE *out);

/*
 * What the JSON reader takes from a probe report (`latprobe probe
 * --json`): the round-trip histogram, the probe counters, the protocol.
 */
struct plot_input {
	struct histogram h;
	bool has_probes;
	uint64_t sent, received, lost;
	char proto[16];
	/*
	 * true: the report carried no full histogram (rtt_ns.hdr) and h was
	 * rebuilt from its bucket table and percentiles (approximate).
	 */
	bool approximate;
};

/*
 * Parse a probe report of len bytes (need not be NUL-terminated) into in.
 * 0, or -EINVAL with one line in err (not JSON, not a probe report, a
 * histogram that does not decode or disagrees with its own count).
 */
int plot_json_read(const char *text, size_t len, struct plot_input *in,
		   char *err, size_t err_cap);
/* The same for the series under key ("rtt_ns", "forward_ns", ...): any
 * other than rtt_ns must carry its full histogram (hdr). */
int plot_json_read_series(const char *text, size_t len, const char *key,
			  struct plot_input *in, char *err, size_t err_cap);

/*
 * Latency over time from a --samples CSV (header
 * "seq,lcore,t1_ns,rtt_ns,..."): the run cut into at most max_points bins
 * of equal time, the median and max of each. *pts is malloc'd (free()),
 * *n_pts may be 0 (no sample rows). 0, -EINVAL with one line in err, or
 * -ENOMEM.
 */
int plot_samples_read(const char *text, size_t len, unsigned max_points,
		      struct plot_tpoint **pts, size_t *n_pts, char *err,
		      size_t err_cap);

/* A longer interval log is refused (a day of 1 s intervals fits). */
#define PLOT_HLOG_MAX_INTERVALS 100000u

/*
 * Latency over time from an HdrHistogram interval log (latprobe probe
 * --hlog; format 1.3, V2 compressed histograms in ns): one point per
 * non-empty interval of the series tag (lines "Tag=<tag>,..." and untagged
 * lines; other tags are skipped), at the interval's middle, with its median
 * and max. *pts is malloc'd (free()), *n_pts may be 0. 0, -EINVAL with one
 * line in err, or -ENOMEM.
 */
int plot_hlog_read(const char *text, size_t len, const char *tag,
		   struct plot_tpoint **pts, size_t *n_pts, char *err,
		   size_t err_cap);

#endif /* LATPROBE_PLOT_H */
