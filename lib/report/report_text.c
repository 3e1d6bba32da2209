/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text report's shared pieces: the one-line percentile summary of a
 * series and the PsPing bucket table.
 */
#include "latprobe/report_internal.h"

void
rpt_text_pct_line(FILE *out, const char *title, const struct histogram *h)
{
	struct report_summary s;
	unsigned i;

	report_summarise(h, &s);
	fprintf(out, "%s: count %" PRIu64 ", min %s", title, s.count,
		rpt_fmt_ns_of(s.count, s.min).s);
	for (i = 0; i < REPORT_N_PCTS; i++)
		fprintf(out, ", %s %s", rpt_pct_label[i],
			rpt_fmt_ns_of(s.count, s.pct[i]).s);
	fprintf(out, ", max %s\n", rpt_fmt_ns_of(s.count, s.max).s);
}

void
rpt_text_buckets(FILE *out, const struct histogram_row *rows, int n)
{
	int i;

	/* PsPing -h: the upper edge of each bucket and its count; then the
	 * share of round trips up to that edge. */
	fprintf(out, "%12s  %10s  %7s\n", "Latency", "Count", "Cum %");
	for (i = 0; i < n; i++) {
		char edge[32];

		if (rows[i].upper_ns == UINT64_MAX)
			snprintf(edge, sizeof(edge), "> %s",
				 i > 0 ? rpt_fmt_ns(rows[i - 1].upper_ns).s
				       : "0ns");
		else
			snprintf(edge, sizeof(edge), "%s",
				 rpt_fmt_ns(rows[i].upper_ns).s);
		fprintf(out, "%12s  %10" PRIu64 "  %7.2f\n", edge,
			rows[i].count, rpt_cum_pct(rows, n, i));
	}
}
