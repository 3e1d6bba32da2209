/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --interval-report's intervals (text lines, JSON "intervals") and the
 * live progress line.
 */
#include "latprobe/report_internal.h"

/* An interval's p50 or p99: "-" when it has too few samples for it. */
static struct ns_str
iv_pct(const struct report_iv_stat *st, double p, uint64_t v)
{
	return rpt_fmt_ns_of(report_pct_enough(st->count, p) ? st->count : 0,
			     v);
}

/* The same in the one-target line's short form (rpt_fmt_ns3). */
static struct ns_str
iv_pct3(const struct report_iv_stat *st, double p, uint64_t v)
{
	struct ns_str r;

	if (st->count == 0 || !report_pct_enough(st->count, p))
		snprintf(r.s, sizeof(r.s), "-");
	else
		r = rpt_fmt_ns3(v);
	return r;
}

int
report_iv_line(char *buf, size_t cap, const struct report_interval *iv,
	       const struct report_iv_row *row)
{
	int n;

	/* One target: no target column (the start line names it), counts and
	 * latencies in short forms, so that the line keeps to 80 columns. */
	if (iv->one_target)
		n = snprintf(buf, cap,
			     "interval %6.1fs sent %s lost %s p50 %s p99 %s "
			     "max %s",
			     iv->t_s, rpt_fmt_count_short(row->sent).s,
			     rpt_fmt_count_short(row->lost).s,
			     iv_pct3(&row->rtt, 50, row->rtt.p50).s,
			     iv_pct3(&row->rtt, 99, row->rtt.p99).s,
			     row->rtt.count != 0 ? rpt_fmt_ns3(row->rtt.max).s
						 : "-");
	else
		n = snprintf(buf, cap,
			     "interval %8.3fs  %-21s sent %" PRIu64
			     " lost %" PRIu64 "  p50 %s p99 %s max %s",
			     iv->t_s, rpt_str_or(row->target, "?"), row->sent,
			     row->lost, iv_pct(&row->rtt, 50, row->rtt.p50).s,
			     iv_pct(&row->rtt, 99, row->rtt.p99).s,
			     rpt_fmt_ns_of(row->rtt.count, row->rtt.max).s);

	if (n >= 0)
		n += rpt_iv_link_mark((size_t)n < cap ? buf + n : NULL,
				      (size_t)n < cap ? cap - (size_t)n : 0,
				      iv);
	if (n < 0 || !row->has_intended)
		return n;
	return n +
	       snprintf(
		       (size_t)n < cap ? buf + n : NULL,
		       (size_t)n < cap ? cap - (size_t)n : 0,
		       "  intended p50 %s p99 %s max %s",
		       iv_pct(&row->intended, 50, row->intended.p50).s,
		       iv_pct(&row->intended, 99, row->intended.p99).s,
		       rpt_fmt_ns_of(row->intended.count, row->intended.max).s);
}

/* One series of an interval row: count, p50, p99 (null when too few
 * samples for them, listed in too_few_samples), max. */
static struct json_object *
json_iv_stat(const struct report_iv_stat *st, int *err)
{
	struct json_object *o = json_object_new_object();
	struct json_object *few = json_object_new_array();
	bool ok50 = report_pct_enough(st->count, 50);
	bool ok99 = report_pct_enough(st->count, 99);

	rpt_jset_u64(o, "count", st->count, err);
	rpt_jset_u64_or_null(o, "p50", ok50, st->p50, err);
	rpt_jset_u64_or_null(o, "p99", ok99, st->p99, err);
	rpt_jset_u64(o, "max", st->max, err);
	if (!ok50)
		rpt_jadd(few, json_object_new_string("p50"), err);
	if (!ok99)
		rpt_jadd(few, json_object_new_string("p99"), err);
	rpt_jset(o, "too_few_samples", few, err);
	return o;
}

static struct json_object *
json_intervals(const struct report_probe *r, int *err)
{
	/* NULL: the rpt_jadd()s below and the caller's rpt_jset() say so. */
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_intervals; i++) {
		const struct report_interval *iv = &r->intervals[i];
		struct json_object *o = json_object_new_object();
		struct json_object *rows = json_object_new_array();

		rpt_jset_double(o, "t_s", iv->t_s, err);
		rpt_jset_double(o, "len_s", iv->len_s, err);
		for (unsigned k = 0; rows != NULL && k < iv->n_rows; k++) {
			const struct report_iv_row *w = &iv->rows[k];
			struct json_object *x = json_object_new_object();

			rpt_jset_str(x, "target", w->target, err);
			rpt_jset_u64(x, "sent", w->sent, err);
			rpt_jset_u64(x, "received", w->received, err);
			rpt_jset_u64(x, "lost", w->lost, err);
			rpt_jset(x, "rtt_ns", json_iv_stat(&w->rtt, err), err);
			if (w->has_intended)
				rpt_jset(x, "intended_latency_ns",
					 json_iv_stat(&w->intended, err), err);
			rpt_jadd(rows, x, err);
		}
		rpt_jset(o, "targets", rows, err);
		rpt_json_iv_link(o, iv, err);
		rpt_json_iv_path(o, iv, err);
		rpt_jadd(a, o, err);
	}
	return a;
}

int
report_live_line(char *buf, size_t cap, double t_s, uint64_t sent,
		 uint64_t received, uint64_t lost,
		 const struct histogram *interval)
{
	struct report_summary s;
	int n;

	if (buf == NULL || cap == 0)
		return -EINVAL;
	report_summarise(interval, &s);
	/* An empty interval: "p50 - p99 - max -"; a percentile the
	 * interval has too few samples for is "-" too. sent = received +
	 * lost, so received is left out: with short forms of the counts and
	 * latencies the line and a mark (report_live_mark()) keep to 80
	 * columns. */
	(void)received;
	n = snprintf(
		buf, cap, "%6.1fs sent %s lost %s p50 %s p99 %s max %s", t_s,
		rpt_fmt_count_short(sent).s, rpt_fmt_count_short(lost).s,
		s.count != 0 && s.pct_ok[0] ? rpt_fmt_ns3(s.pct[0]).s : "-",
		s.count != 0 && s.pct_ok[2] ? rpt_fmt_ns3(s.pct[2]).s : "-",
		s.count != 0 ? rpt_fmt_ns3(s.max).s : "-");
	if (n < 0)
		return -EINVAL;
	return (size_t)n < cap ? n : (int)(cap - 1);
}

int
report_live_mark(char *buf, size_t cap, enum report_live_state st,
		 double down_s)
{
	char d[16];
	int n;

	if (buf == NULL || cap == 0)
		return -EINVAL;
	/* At most 5 characters: "99.9s", whole seconds, then hours. */
	if (down_s < 99.95)
		snprintf(d, sizeof(d), "%.1fs", down_s);
	else if (down_s < 9999.5)
		snprintf(d, sizeof(d), "%.0fs", down_s);
	else
		snprintf(d, sizeof(d), "%.0fh",
			 down_s / 3600 < 9999 ? down_s / 3600 : 9999.0);
	switch (st) {
	case REPORT_LIVE_REMOVED:
		n = snprintf(buf, cap, " [REMOVED]");
		break;
	case REPORT_LIVE_DOWN:
		n = snprintf(buf, cap, " [LINK DOWN %s]", d);
		break;
	case REPORT_LIVE_FLAPPED:
		n = snprintf(buf, cap, " [FLAP down %s]", d);
		break;
	default:
		buf[0] = '\0';
		n = 0;
	}
	if (n < 0)
		return -EINVAL;
	return (size_t)n < cap ? n : (int)(cap - 1);
}

/* JSON "intervals" and "intervals_dropped", with --interval-report. */
void
rpt_json_intervals(struct json_object *root, const struct report_probe *r,
		   int *err)
{
	if (r->n_intervals != 0 || r->intervals_dropped != 0) {
		rpt_jset(root, "intervals", json_intervals(r, err), err);
		rpt_jset_u64(root, "intervals_dropped", r->intervals_dropped,
			     err);
	}
}
