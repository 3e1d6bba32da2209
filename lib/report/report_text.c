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
	/* "-" for a percentile the count is too small for. */
	for (i = 0; i < REPORT_N_PCTS; i++)
		fprintf(out, ", %s %s", rpt_pct_label[i], rpt_fmt_pct(&s, i).s);
	fprintf(out, ", max %s\n", rpt_fmt_ns_of(s.count, s.max).s);
}

/* One cell of the percentile table: the figure with its interval, "-"
 * for an empty series, "-" with the count it needs when too few. */
static void
pct_cell(char *buf, size_t cap, const struct report_summary *s, unsigned i)
{
	if (s->count == 0 || s->pct_ok[i])
		snprintf(buf, cap, "%s", rpt_fmt_pct_ci(s, i).s);
	else
		snprintf(buf, cap, "-  (too few: needs %s)",
			 rpt_fmt_count(report_pct_min_count(report_pcts[i])).s);
}

/* Whether some column has a figure for percentile i (an empty series
 * shows "-" as a figure). */
static bool
pct_row_shown(const struct report_summary *const *cols, unsigned n_cols,
	      unsigned i)
{
	for (unsigned c = 0; c < n_cols; c++)
		if (cols[c]->count == 0 || cols[c]->pct_ok[i])
			return true;
	return false;
}

void
rpt_text_pct_table(FILE *out, const struct report_summary *const *cols,
		   const char *const *titles, unsigned n_cols, bool brief)
{
	unsigned i, c, first_few = REPORT_N_PCTS;
	char cell[96];

	if (n_cols == 1) {
		fprintf(out,
			"Percentiles (n=%s; 95 %% interval in brackets):\n",
			rpt_fmt_count(cols[0]->count).s);
	} else {
		fprintf(out, "Percentiles (95 %% interval in brackets):\n");
		fprintf(out, "  %-8s", "");
		for (c = 0; c < n_cols; c++) {
			snprintf(cell, sizeof(cell), "%s (n=%s)", titles[c],
				 rpt_fmt_count(cols[c]->count).s);
			fprintf(out, c + 1 < n_cols ? " %-30s" : " %s", cell);
		}
		fputc('\n', out);
	}
	for (i = 0; i < REPORT_N_PCTS; i++) {
		if (brief && !pct_row_shown(cols, n_cols, i)) {
			if (first_few == REPORT_N_PCTS)
				first_few = i;
			continue;
		}
		fprintf(out, "  %-8s", rpt_pct_label[i]);
		for (c = 0; c < n_cols; c++) {
			pct_cell(cell, sizeof(cell), cols[c], i);
			fprintf(out, c + 1 < n_cols ? " %-30s" : " %s", cell);
		}
		fputc('\n', out);
	}
	if (first_few < REPORT_N_PCTS)
		fprintf(out, "  %s and up: too few round trips (%s needs %s)\n",
			rpt_pct_label[first_few], rpt_pct_label[first_few],
			rpt_fmt_count(
				report_pct_min_count(report_pcts[first_few]))
				.s);
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
