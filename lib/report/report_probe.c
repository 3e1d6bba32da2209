/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A probe run's report, text and JSON: the header, the RTT series, its
 * percentiles and buckets, the summary line, and each section in order.
 */
#include "latprobe/report_internal.h"

/*
 * One line to paste next to another run's: "summary: 198.18.0.2:862 stamp
 * 44B  min 5.10us p50 6.00us p99 9.80us p99.9 40.00us max 80.00us  loss
 * 0.00% (0/10000)".
 */
static void
text_summary_line(char *buf, size_t cap, const struct report_probe *r,
		  const struct report_summary *s)
{
	double loss = rpt_pct(r->lost, r->sent);

	snprintf(buf, cap,
		 "summary: %s %s %uB  min %s p50 %s p99 %s p99.9 %s max %s  "
		 "loss %.2f%% (%" PRIu64 "/%" PRIu64 ")",
		 rpt_str_or(r->target, "?"), rpt_str_or(r->proto, "?"), r->size,
		 rpt_fmt_ns_of(s->count, s->min).s, rpt_fmt_pct(s, 0).s,
		 rpt_fmt_pct(s, 2).s, rpt_fmt_pct(s, 3).s,
		 rpt_fmt_ns_of(s->count, s->max).s, loss, r->lost, r->sent);
}

/*
 * The brief view's one line for the series beyond the round trip: "Network
 * RTT (T4-T1)-(T3-T2): p50 x, p99 x, max x; turnaround (T3-T2) p50 x, p99
 * x" (either part alone when the other is absent).
 */
static void
text_series_brief(FILE *out, const struct report_probe *r)
{
	struct report_summary s;

	if (r->network_rtt != NULL) {
		report_summarise(r->network_rtt, &s);
		fprintf(out,
			"Network RTT (T4-T1)-(T3-T2): p50 %s, p99 %s, max %s",
			rpt_fmt_pct(&s, 0).s, rpt_fmt_pct(&s, 2).s,
			rpt_fmt_ns_of(s.count, s.max).s);
	}
	if (r->turnaround != NULL) {
		report_summarise(r->turnaround, &s);
		fprintf(out, "%s (T3-T2) p50 %s, p99 %s",
			r->network_rtt != NULL ? "; turnaround" : "Turnaround",
			rpt_fmt_pct(&s, 0).s, rpt_fmt_pct(&s, 2).s);
	}
	if (r->network_rtt != NULL || r->turnaround != NULL)
		fputc('\n', out);
}

/* The port and TSC sections: all of them, or in the brief view the ones
 * that found something. */
static void
text_port_tsc(FILE *out, const struct report_probe *r)
{
	const struct report_port_path *p = r->port.path;
	const struct report_port_events *e = r->port.events;

	if (!r->brief || r->port.n_delta != 0)
		rpt_text_xstats(out, &r->port);
	if (!r->brief || (p != NULL && (p->split || p->n_shifts != 0)))
		rpt_text_path(out, p);
	if (!r->brief || (e != NULL && (e->n != 0 || e->removed)))
		rpt_text_port_events(out, e);
	if (!r->brief || !r->tsc.invariant)
		rpt_text_tsc(out, &r->tsc);
}

/*
 * What both forms of a probe report start from: the RTT histogram (an empty
 * one when there is none), its bucket rows (malloc'd into *rows) and their
 * layout, its summary. The number of rows or a negative errno.
 */
static int
probe_rtt(const struct report_probe *r, const struct histogram **rtt,
	  struct histogram_row **rows, const char **layout,
	  struct report_summary *s)
{
	int n;

	*rtt = rpt_hist_or_empty(r->rtt);
	n = rpt_bucket_rows(*rtt, &r->buckets, rows, layout);
	if (n >= 0)
		report_summarise(*rtt, s);
	return n;
}

int
report_probe_text(const struct report_probe *r, FILE *out)
{
	const struct histogram *rtt;
	struct histogram_row *rows;
	struct report_summary s;
	struct report_meta meta;
	const char *layout;
	char summary[256];
	int n;

	if (r == NULL || out == NULL)
		return -EINVAL;
	n = probe_rtt(r, &rtt, &rows, &layout, &s);
	if (n < 0)
		return n;
	if (r->brief && r->meta != NULL) {
		/* The command line is the JSON's "command" (--details). */
		meta = *r->meta;
		meta.command = NULL;
		rpt_text_meta(out, &meta, r->target);
	} else {
		rpt_text_meta(out, r->meta, r->target);
	}

	fprintf(out,
		"%s round trips to %s (%s%s%s, %u lcore%s, %u bytes, "
		"%.2f s%s):\n",
		rpt_str_or(r->proto, "?"), rpt_str_or(r->target, "?"),
		rpt_str_or(r->backend, "?"), r->port_driver != NULL ? " " : "",
		rpt_str_or(r->port_driver, ""), r->lcores,
		r->lcores == 1 ? "" : "s", r->size, r->duration_s,
		r->interrupted ? ", interrupted" : "");
	rpt_text_probes(out, r);
	fprintf(out,
		"  Minimum = %s, Maximum = %s, Average = %s, Stddev = "
		"%s\n",
		rpt_fmt_ns_of(s.count, s.min).s,
		rpt_fmt_ns_of(s.count, s.max).s,
		rpt_fmt_ns_of(s.count, rpt_round_ns(s.mean)).s,
		rpt_fmt_ns_of(s.count, rpt_round_ns(s.stddev)).s);
	if (rtt->underflow != 0 || rtt->overflow != 0)
		fprintf(out,
			"  Out of range: %" PRIu64 " below 1ns, %" PRIu64
			" above 10s (not in the figures above)\n",
			rtt->underflow, rtt->overflow);

	/* The brief view keeps the percentiles within the first ten lines. */
	if (!r->brief)
		fputc('\n', out);
	if (r->stalls != NULL &&
	    report_stalls_separable(r->stalls, rtt, NULL)) {
		rpt_text_stalls_pcts(out, r, &s);
	} else {
		const struct report_summary *col = &s;

		rpt_text_pct_table(out, &col, NULL, 1, r->brief);
	}
	if (r->brief)
		rpt_text_stalls_brief(out, r);

	/* Without a sample the rows would all be "0ns 0". PsPing's -h: in
	 * the brief view only when asked for. */
	if (n > 0 && s.count != 0 &&
	    (!r->brief || r->buckets.n_buckets != 0 ||
	     r->buckets.n_edges != 0)) {
		fputc('\n', out);
		rpt_text_buckets(out, rows, n);
	}
	free(rows);

	fputc('\n', out);
	if (r->brief) {
		text_series_brief(out, r);
		rpt_text_one_way_brief(out, r->one_way);
	} else {
		if (r->network_rtt != NULL)
			rpt_text_pct_line(out, "Network RTT (T4-T1)-(T3-T2)",
					  r->network_rtt);
		if (r->turnaround != NULL)
			rpt_text_pct_line(out, "Turnaround (T3-T2)",
					  r->turnaround);
		rpt_text_one_way(out, r->one_way);
	}
	rpt_text_open(out, r->open);
	if (!r->brief)
		rpt_text_stalls(out, r);
	rpt_text_hw(out, r->hw, "T4");
	rpt_text_first_packet(out, r, &s);
	if (rpt_text_targets(out, r) != 0 || rpt_text_flows(out, r) != 0)
		return -ENOMEM;
	text_port_tsc(out, r);
	text_summary_line(summary, sizeof(summary), r, &s);
	fprintf(out, "%s\n", summary);
	return rpt_stream_status(out);
}

int
report_probe_json(const struct report_probe *r, FILE *out)
{
	struct json_object *root;
	const struct histogram *rtt;
	struct histogram_row *rows;
	struct report_summary s;
	const char *layout;
	char summary[256];
	int err = 0, n;

	if (r == NULL || out == NULL)
		return -EINVAL;
	n = probe_rtt(r, &rtt, &rows, &layout, &s);
	if (n < 0)
		return n;
	text_summary_line(summary, sizeof(summary), r, &s);

	root = json_object_new_object();
	rpt_json_meta(root, r->meta, &err);
	rpt_jset_str(root, "proto", r->proto, &err);
	rpt_jset_str(root, "backend", r->backend, &err);
	rpt_jset_str(root, "target", r->target, &err);
	rpt_jset_str(root, "port_driver", r->port_driver, &err);
	rpt_json_sports(root, r, &err);
	rpt_jset_u64(root, "size", r->size, &err);
	rpt_jset_u64(root, "lcores", r->lcores, &err);
	rpt_jset_double(root, "duration_s", r->duration_s, &err);
	rpt_jset_bool(root, "interrupted", r->interrupted, &err);
	rpt_jset_u64(root, "interval_ns", r->interval_ns, &err);
	rpt_jset_u64(root, "timeout_ns", r->timeout_ns, &err);
	rpt_jset_str(root, "summary", summary, &err);
	rpt_jset_bool(root, "authenticated", r->authenticated, &err);

	rpt_json_probes(root, r, &err);

	rpt_jset(root, "rtt_ns", rpt_json_summary(rtt, &err), &err);
	rpt_jset_series(root, "network_rtt_ns", r->network_rtt, &err);
	rpt_jset_series(root, "turnaround_ns", r->turnaround, &err);
	rpt_json_one_way(root, r->one_way, &err);
	rpt_json_open(root, r->open, &err);
	rpt_json_stalls(root, r, &err);
	rpt_json_hw(root, r->hw, &err);
	rpt_jset_str(root, "buckets_layout", layout, &err);
	rpt_jset(root, "buckets", rpt_json_buckets(rows, n, &err), &err);
	rpt_json_targets(root, r, &err);
	rpt_json_flows(root, r, &err);
	rpt_json_first_packet(root, r, &err);
	rpt_json_intervals(root, r, &err);
	free(rows);
	return rpt_json_finish(root, &r->tsc, &r->port, err, out);
}
