/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_REPORT_INTERNAL_H
#define LATPROBE_REPORT_INTERNAL_H

/*
 * What lib/report's writers share; not installed, not for other modules.
 * Each section of the two reports owns its text and its JSON writer in one
 * file (report_<section>.c); report_probe.c and report_reflect.c put them
 * in order. Adding a section: a file with rpt_text_<x>() and
 * rpt_json_<x>(), declared here, called from the report that shows it.
 * Names are rpt_* (global in the static library, never in report.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latprobe/pct_ci.h"
#include "latprobe/report.h"

/* ---- report.c: summaries, formatting, the bucket table's rows */

/* Text labels and JSON keys for report_pcts[], same order. */
extern const char *const rpt_pct_label[REPORT_N_PCTS];
extern const char *const rpt_pct_key[REPORT_N_PCTS];

/* h, or an empty histogram for NULL: reports of nothing show zeros. */
const struct histogram *rpt_hist_or_empty(const struct histogram *h);

/* report_fmt_ns() for use inside one printf: each call owns its buffer. */
struct ns_str {
	char s[24];
};

struct ns_str rpt_fmt_ns(uint64_t ns);
/* rpt_fmt_ns(), or "-" when the series has no sample (count 0). */
struct ns_str rpt_fmt_ns_of(uint64_t count, uint64_t ns);
/* Percentile i of s: "-" when the series has too few samples for it
 * (or none), else its value; with its 95 % interval, "135.17us
 * [98.10-240.30]". */
struct ns_str rpt_fmt_pct(const struct report_summary *s, unsigned i);
struct ci_str {
	char s[80];
};
struct ci_str rpt_fmt_pct_ci(const struct report_summary *s, unsigned i);
/* 1234567 -> "1,234,567" */
struct ns_str rpt_fmt_count(uint64_t v);
/* The live and interval lines' forms: ns in at most 6 characters (three
 * significant digits), a count in at most 5 ("1.23M"). */
struct ns_str rpt_fmt_ns3(uint64_t ns);
struct ns_str rpt_fmt_count_short(uint64_t v);
/* A mean or stddev to whole ns (0 for <= 0 or NaN, saturated). */
uint64_t rpt_round_ns(double v);

/* Rows of the bucket table for h, malloc'd into *rows; *layout names it
 * ("linear", "edges", "auto"). The number of rows or a negative errno. */
int rpt_bucket_rows(const struct histogram *h, const struct report_buckets *b,
		    struct histogram_row **rows, const char **layout);
/* Cumulative % of the table's total at row upto (0 when empty). */
double rpt_cum_pct(const struct histogram_row *rows, int n, int upto);

/* part as a % of whole, 0 when whole is 0 (loss, shares). */
double rpt_pct(uint64_t part, uint64_t whole);
const char *rpt_str_or(const char *s, const char *dflt);
/* Not NULL and not empty. */
bool rpt_set(const char *s);
/* 0, or -EIO when writing out failed. */
int rpt_stream_status(FILE *out);

/* ---- report_text.c */

/* "title: count N, min x, p50 x, ..., max x" */
void rpt_text_pct_line(FILE *out, const char *title, const struct histogram *h);
/*
 * "Percentiles ...:" and one row per percentile, a column per series
 * (titles[c] above each when there are several): the figure and its 95 %
 * interval, or "-" with the count it needs. brief: the rows no column has
 * enough samples for share one line.
 */
void rpt_text_pct_table(FILE *out, const struct report_summary *const *cols,
			const char *const *titles, unsigned n_cols, bool brief);
/* PsPing's -h table: upper edge, count, cumulative %. */
void rpt_text_buckets(FILE *out, const struct histogram_row *rows, int n);

/* ---- report_json_write.c */

/*
 * json-c setters that remember the first allocation failure in *err, so
 * that building a report is straight-line code checked once at the end.
 * rpt_jset() takes v (puts it on failure).
 */
void rpt_jset(struct json_object *o, const char *key, struct json_object *v,
	      int *err);
/* A null member. */
void rpt_jset_null(struct json_object *o, const char *key, int *err);
/* v appended to the array a (v is put on failure). */
void rpt_jadd(struct json_object *a, struct json_object *v, int *err);
/* rpt_json_summary(h) under key, when h is not NULL (else nothing). */
void rpt_jset_series(struct json_object *o, const char *key,
		     const struct histogram *h, int *err);
void rpt_jset_u64(struct json_object *o, const char *key, uint64_t v, int *err);
void rpt_jset_bool(struct json_object *o, const char *key, bool v, int *err);
/* NaN and infinities are not JSON: they become null. */
void rpt_jset_double(struct json_object *o, const char *key, double v,
		     int *err);
/* NULL: null. */
void rpt_jset_str(struct json_object *o, const char *key, const char *v,
		  int *err);
/* A UDP/TCP port, null when 0 (none). */
void rpt_jset_port(struct json_object *o, const char *key, uint16_t port,
		   int *err);
/* An integer, or null when negative (unknown). */
void rpt_jset_int_or_null(struct json_object *o, const char *key, int v,
			  int *err);
void rpt_jset_u64_or_null(struct json_object *o, const char *key, bool known,
			  uint64_t v, int *err);
/*
 * The percentiles of s into o: pN (null when too few samples for it, or
 * none), "ci95" {pN: [lo, hi] or null} and "too_few_samples" [the pN keys
 * that are null].
 */
void rpt_json_pcts(struct json_object *o, const struct report_summary *s,
		   int *err);
/* A series: count, min, mean, ..., percentiles, hdr, sum. */
struct json_object *rpt_json_summary(const struct histogram *h, int *err);
/* {name: value} of the counters with a name (c may be NULL). */
struct json_object *rpt_json_counters(const struct report_counter *c,
				      unsigned n, int *err);
/* "buckets": [{upper_ns, count, cum_pct}] */
struct json_object *rpt_json_buckets(const struct histogram_row *rows, int n,
				     int *err);
/* The members every report ends with ("tsc", "port"), then the document
 * written to out unless building it failed (err); root is freed. */
int rpt_json_finish(struct json_object *root, const struct report_tsc *tsc,
		    const struct report_port_xstats *port, int err, FILE *out);

/* ---- the sections, each file its text and JSON */

/* report_meta.c: "Measured ..." and "Command: ..."; JSON format_version,
 * machine, start_utc, ..., checksum_offloads. The TSC line and "tsc". */
void rpt_text_meta(FILE *out, const struct report_meta *m, const char *target);
void rpt_json_meta(struct json_object *root, const struct report_meta *m,
		   int *err);
void rpt_text_tsc(FILE *out, const struct report_tsc *t);
struct json_object *rpt_json_tsc(const struct report_tsc *t, int *err);

/* report_port.c: xstats and path ("port"), NIC timestamps. t names the
 * TSC timestamp the NIC's is compared with ("T4", "T2"). */
void rpt_text_xstats(FILE *out, const struct report_port_xstats *x);
void rpt_text_path(FILE *out, const struct report_port_path *p);
void rpt_json_port(struct json_object *root, const struct report_port_xstats *x,
		   int *err);
void rpt_text_hw(FILE *out, const struct report_hw *hw, const char *t);
void rpt_json_hw(struct json_object *root, const struct report_hw *hw,
		 int *err);

/* report_port_events.c: link events and removal, inside
 * "port"; the probes lost while the link was down; an interval's marks. */
void rpt_text_port_events(FILE *out, const struct report_port_events *e);
void rpt_json_port_events(struct json_object *port,
			  const struct report_port_events *e, int *err);
void rpt_text_link_loss(FILE *out, const struct report_probe *r);
void rpt_json_link_loss(struct json_object *probes,
			const struct report_probe *r, int *err);
int rpt_iv_link_mark(char *buf, size_t cap, const struct report_interval *iv);
void rpt_json_iv_link(struct json_object *o, const struct report_interval *iv,
		      int *err);
/* The interval's "path" {now, shifts} (off the VF or shifted in it). */
void rpt_json_iv_path(struct json_object *o, const struct report_interval *iv,
		      int *err);

/* report_probes.c: the counters, ignored frames, ICMP, error estimate. */
void rpt_text_probes(FILE *out, const struct report_probe *r);
void rpt_json_probes(struct json_object *root, const struct report_probe *r,
		     int *err);

/* report_targets.c: several targets; source ports. The text returns 0 or
 * -ENOMEM. */
int rpt_text_targets(FILE *out, const struct report_probe *r);
void rpt_json_targets(struct json_object *root, const struct report_probe *r,
		      int *err);
void rpt_json_sports(struct json_object *root, const struct report_probe *r,
		     int *err);

/* report_flows.c: --flows (text 0 or -ENOMEM); --new-flow-every's first
 * packets, next to the steady state's summary. */
int rpt_text_flows(FILE *out, const struct report_probe *r);
void rpt_json_flows(struct json_object *root, const struct report_probe *r,
		    int *err);
void rpt_text_first_packet(FILE *out, const struct report_probe *r,
			   const struct report_summary *steady);
void rpt_json_first_packet(struct json_object *root,
			   const struct report_probe *r, int *err);

/* report_open.c: open loop. */
void rpt_text_open(FILE *out, const struct report_open *o);
void rpt_json_open(struct json_object *root, const struct report_open *o,
		   int *err);

/* report_intervals.c: --interval-report (text: report_iv_line()). */
void rpt_json_intervals(struct json_object *root, const struct report_probe *r,
			int *err);

/* report_oneway.c (also the reflector's clock) */
void rpt_text_clock(FILE *out, const struct report_clock *c);
void rpt_json_clock(struct json_object *root, const struct report_clock *c,
		    int *err);
void rpt_text_one_way(FILE *out, const struct report_one_way *ow);
/* The brief view's: the one-way line when the figures are valid, else
 * nothing. */
void rpt_text_one_way_brief(FILE *out, const struct report_one_way *ow);
void rpt_json_one_way(struct json_object *root, const struct report_one_way *ow,
		      int *err);

/* report_stalls.c */
void rpt_text_stalls_pcts(FILE *out, const struct report_probe *r,
			  const struct report_summary *all);
void rpt_text_stalls(FILE *out, const struct report_probe *r);
/* The brief view's: the verdict's line when there is one, "no verdict: ..."
 * when host-affected probes were seen without one, else nothing. */
void rpt_text_stalls_brief(FILE *out, const struct report_probe *r);
void rpt_json_stalls(struct json_object *root, const struct report_probe *r,
		     int *err);
void rpt_text_reflect_stalls(FILE *out, const struct report_reflect *r);
void rpt_json_reflect_stalls(struct json_object *root,
			     const struct report_reflect *r, int *err);

#endif /* LATPROBE_REPORT_INTERNAL_H */
