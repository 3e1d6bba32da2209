/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open loop (--rate): the intended latency, the sender's lag, the rate.
 */
#include "latprobe/report_internal.h"

/* Open loop: the rate, the intended latency, how the sender kept up. */
void
rpt_text_open(FILE *out, const struct report_open *o)
{
	const struct histogram *b;
	uint64_t n;

	if (o == NULL)
		return;
	b = rpt_hist_or_empty(o->behind);
	n = histogram_count(b); /* measured sends */
	rpt_text_pct_line(out, "Intended latency (T4-scheduled)",
			  rpt_hist_or_empty(o->intended));
	fprintf(out,
		"Open loop: %" PRIu64 " probes/s per lcore, %s spacing "
		"(seed %" PRIu64 "); sender behind schedule: p50 %s, p99 %s, "
		"max %s; %" PRIu64 " sends (%.2f%%) later than %s\n",
		o->rate_pps, rpt_str_or(o->spacing, "?"), o->seed,
		rpt_fmt_ns_of(report_pct_enough(n, 50) ? n : 0,
			      histogram_percentile(b, 50.0))
			.s,
		rpt_fmt_ns_of(report_pct_enough(n, 99) ? n : 0,
			      histogram_percentile(b, 99.0))
			.s,
		rpt_fmt_ns(o->behind_max_ns).s, o->late_sends,
		rpt_pct(o->late_sends, n), rpt_fmt_ns(o->bound_ns).s);
	/* More than 1 %: the intended latency is mostly the sender's. */
	if (n != 0 && o->late_sends * 100 > n)
		fprintf(out, "  the sender did not keep the rate (busy or "
			     "shared CPU, or a rate above what one lcore "
			     "sends): the intended latency includes its lag\n");
}

/* Open loop: intended_latency_ns (rtt_ns's keys), sender, open_loop. */
void
rpt_json_open(struct json_object *root, const struct report_open *o, int *err)
{
	struct json_object *snd, *ol;
	const struct histogram *b;

	if (o == NULL)
		return;
	b = rpt_hist_or_empty(o->behind);
	rpt_jset(root, "intended_latency_ns",
		 rpt_json_summary(rpt_hist_or_empty(o->intended), err), err);
	snd = json_object_new_object();
	rpt_jset_u64(snd, "late_sends", o->late_sends, err);
	rpt_jset_u64(snd, "behind_max_ns", o->behind_max_ns, err);
	rpt_jset_u64(snd, "bound_ns", o->bound_ns, err);
	/* null when too few sends were measured for them. */
	rpt_jset_u64_or_null(snd, "behind_p50_ns",
			     report_pct_enough(histogram_count(b), 50),
			     histogram_percentile(b, 50.0), err);
	rpt_jset_u64_or_null(snd, "behind_p99_ns",
			     report_pct_enough(histogram_count(b), 99),
			     histogram_percentile(b, 99.0), err);
	rpt_jset(root, "sender", snd, err);
	ol = json_object_new_object();
	rpt_jset_u64(ol, "rate_pps", o->rate_pps, err);
	rpt_jset_str(ol, "spacing", o->spacing, err);
	rpt_jset_u64(ol, "seed", o->seed, err);
	rpt_jset_u64(ol, "window_slots", o->window_slots, err);
	rpt_jset(root, "open_loop", ol, err);
}
