/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by every section: the percentiles, a histogram's summary, the
 * ns and count formatters, the bucket table's rows.
 */
#include "latprobe/report_internal.h"

const double report_pcts[REPORT_N_PCTS] = {50, 90, 99, 99.9, 99.99, 99.999};

/* Text labels and JSON keys for report_pcts[], same order. */
const char *const rpt_pct_label[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99.9", "p99.99", "p99.999",
};

const char *const rpt_pct_key[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99_9", "p99_99", "p99_999",
};

/* Stands in for a NULL histogram: reports of nothing show zeros. */
static const struct histogram empty_histogram = {.min = UINT64_MAX};

const struct histogram *
rpt_hist_or_empty(const struct histogram *h)
{
	return h != NULL ? h : &empty_histogram;
}

void
report_summarise(const struct histogram *h, struct report_summary *s)
{
	unsigned i;

	if (s == NULL)
		return;
	memset(s, 0, sizeof(*s));
	if (h == NULL || histogram_count(h) == 0)
		return;
	s->count = histogram_count(h);
	s->min = histogram_min(h);
	s->max = histogram_max(h);
	s->mean = histogram_mean(h);
	s->stddev = histogram_stddev(h);
	for (i = 0; i < REPORT_N_PCTS; i++) {
		s->pct[i] = histogram_percentile(h, report_pcts[i]);
		s->pct_ok[i] = histogram_percentile_ci(
				       h, report_pcts[i], PCT_CI_CONF,
				       &s->ci_lo[i], &s->ci_hi[i]) == 0;
	}
}

bool
report_pct_enough(uint64_t count, double p)
{
	uint64_t m = report_pct_min_count(p);

	return m != 0 && count >= m;
}

uint64_t
report_pct_min_count(double p)
{
	return pct_min_samples(p / 100.0, PCT_CI_CONF);
}

struct ns_str
rpt_fmt_pct(const struct report_summary *s, unsigned i)
{
	struct ns_str r;

	if (s->count == 0 || !s->pct_ok[i])
		snprintf(r.s, sizeof(r.s), "-");
	else
		report_fmt_ns(s->pct[i], r.s, sizeof(r.s));
	return r;
}

/* The unit report_fmt_ns() would print v in. */
static const char *
ns_unit(uint64_t v)
{
	return v < 1000 ? "ns" : v < 999995 ? "us" : v < 999999500 ? "ms" : "s";
}

/* v without its unit, in the unit report_fmt_ns() prints v in. */
static void
fmt_bare(char *buf, size_t cap, uint64_t v)
{
	char t[24];
	size_t n;

	report_fmt_ns(v, t, sizeof(t));
	n = strspn(t, "0123456789.");
	snprintf(buf, cap, "%.*s", (int)n, t);
}

struct ci_str
rpt_fmt_pct_ci(const struct report_summary *s, unsigned i)
{
	struct ci_str r;
	char lo[24], hi[24];

	if (s->count == 0 || !s->pct_ok[i]) {
		snprintf(r.s, sizeof(r.s), "-");
		return r;
	}
	/* "135.17us [98.10-240.30]": the bounds in the figure's unit when
	 * they share it, each with its own otherwise. */
	if (strcmp(ns_unit(s->ci_lo[i]), ns_unit(s->pct[i])) == 0 &&
	    strcmp(ns_unit(s->ci_hi[i]), ns_unit(s->pct[i])) == 0) {
		fmt_bare(lo, sizeof(lo), s->ci_lo[i]);
		fmt_bare(hi, sizeof(hi), s->ci_hi[i]);
	} else {
		report_fmt_ns(s->ci_lo[i], lo, sizeof(lo));
		report_fmt_ns(s->ci_hi[i], hi, sizeof(hi));
	}
	snprintf(r.s, sizeof(r.s), "%s [%s-%s]", rpt_fmt_ns(s->pct[i]).s, lo,
		 hi);
	return r;
}

const char *
report_fmt_ns(uint64_t ns, char *buf, size_t cap)
{
	if (buf == NULL || cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	/*
	 * Switch unit where rounding would print "1000.00us": each unit shows
	 * at most three integer digits.
	 */
	if (ns < 1000)
		snprintf(buf, cap, "%" PRIu64 "ns", ns);
	else if (ns < 999995)
		snprintf(buf, cap, "%.2fus", (double)ns / 1e3);
	else if (ns < 999999500)
		snprintf(buf, cap, "%.3fms", (double)ns / 1e6);
	else if (ns < 999999500000ull)
		snprintf(buf, cap, "%.3fs", (double)ns / 1e9);
	else
		snprintf(buf, cap, "%" PRIu64 "s",
			 ns / 1000000000 + (ns % 1000000000 >= 500000000));
	return buf;
}

struct ns_str
rpt_fmt_ns(uint64_t ns)
{
	struct ns_str r;

	report_fmt_ns(ns, r.s, sizeof(r.s));
	return r;
}

/* rpt_fmt_ns(), or "-" when the series has no sample (count 0). */
struct ns_str
rpt_fmt_ns_of(uint64_t count, uint64_t ns)
{
	struct ns_str r;

	if (count == 0)
		snprintf(r.s, sizeof(r.s), "-");
	else
		report_fmt_ns(ns, r.s, sizeof(r.s));
	return r;
}

uint64_t
rpt_round_ns(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

/*
 * v >= 1000 in three significant digits, scaled by 1000 up to (n - 1)
 * times with the unit names unit[0..n-1]: "3.21us", "45.2k", "812ms".
 */
static struct ns_str
fmt3(double v, const char *const *unit, unsigned n)
{
	struct ns_str r;
	unsigned u;

	/* The unit that leaves 1 <= v < 1000 once rounded to 3 digits. */
	for (u = 0, v /= 1e3; u + 1 < n && v >= 999.5; u++)
		v /= 1e3;
	if (v < 9.995)
		snprintf(r.s, sizeof(r.s), "%.2f%s", v, unit[u]);
	else if (v < 99.95)
		snprintf(r.s, sizeof(r.s), "%.1f%s", v, unit[u]);
	else
		snprintf(r.s, sizeof(r.s), "%.0f%s", v, unit[u]);
	return r;
}

/*
 * ns in at most 6 characters, three significant digits: "812ns", "3.21us",
 * "45.2us", "812us", "4.57ms", "80.0ms", "1.23s", "1234s": the live and
 * interval lines, which keep to one terminal line.
 */
struct ns_str
rpt_fmt_ns3(uint64_t ns)
{
	static const char *const unit[] = {"us", "ms", "s"};
	struct ns_str r;

	if (ns < 1000) {
		snprintf(r.s, sizeof(r.s), "%" PRIu64 "ns", ns);
		return r;
	}
	return fmt3((double)ns, unit, 3);
}

/* A count in at most 5 characters: "99999", "123k", "1.23M", "45.6G". */
struct ns_str
rpt_fmt_count_short(uint64_t v)
{
	static const char *const sfx[] = {"k", "M", "G", "T", "P", "E"};
	struct ns_str r;

	if (v < 100000) {
		snprintf(r.s, sizeof(r.s), "%" PRIu64, v);
		return r;
	}
	return fmt3((double)v, sfx, 6);
}

/* 1234567 -> "1,234,567" */
struct ns_str
rpt_fmt_count(uint64_t v)
{
	struct ns_str r;
	char digits[24];
	size_t len, i, o = 0;

	snprintf(digits, sizeof(digits), "%" PRIu64, v);
	len = strlen(digits);
	for (i = 0; i < len && o + 2 < sizeof(r.s); i++) {
		if (i != 0 && (len - i) % 3 == 0)
			r.s[o++] = ',';
		r.s[o++] = digits[i];
	}
	r.s[o] = '\0';
	return r;
}

int
report_auto_rows(const struct histogram *h, struct histogram_row *rows,
		 unsigned cap)
{
	uint64_t total, hi, lo, cum = 0, prev = 0;
	double llo, lspan, nines;
	unsigned i, n = 0, k = 1;

	if (h == NULL || rows == NULL || cap < REPORT_AUTO_ROWS + 1)
		return -EINVAL;
	total = h->total;
	if (total == 0)
		return 0;
	lo = histogram_percentile(h, 0.1);
	hi = histogram_max(h);
	if (lo == 0)
		lo = 1;
	llo = log((double)lo);
	lspan = log((double)hi) - llo;
	nines = total > 1 ? log10((double)total) : 1.0;
	for (i = 0; i < HISTOGRAM_COUNTERS && cum < total; i++) {
		uint64_t up;
		double lf, nf, m;

		if (h->counts[i] == 0)
			continue;
		cum += h->counts[i];
		up = histogram_index_highest(i);
		if (up > hi || cum == total)
			up = hi;
		lf = lspan > 0 ? (log((double)up) - llo) / lspan : 1.0;
		lf = lf < 0 ? 0 : lf > 1 ? 1 : lf;
		/* "Nines" of the rank: p90 is 1, p99 2, ... up to the last. */
		nf = cum == total ? 1.0
				  : -log10(1.0 - (double)cum / (double)total) /
					    nines;
		m = ((double)cum / (double)total + nf + lf) / 3.0;
		/*
		 * A row ends where the mix passes the next 1/ROWS step, and
		 * the last one at max. At most ROWS steps, so at most ROWS + 1
		 * rows even when rounding lets the last counter pass one more.
		 */
		if (cum == total || m * REPORT_AUTO_ROWS >= k) {
			rows[n].upper_ns = up;
			rows[n].count = cum - prev;
			n++;
			prev = cum;
			while (k <= REPORT_AUTO_ROWS &&
			       m * REPORT_AUTO_ROWS >= k)
				k++;
		}
	}
	return (int)n;
}

/* Rows of the bucket table for h, malloc'd into *rows; *layout names it. */
int
rpt_bucket_rows(const struct histogram *h, const struct report_buckets *b,
		struct histogram_row **rows, const char **layout)
{
	unsigned n;
	int ret;

	*rows = NULL;
	if (b->n_buckets != 0) {
		n = b->n_buckets;
		*layout = "linear";
	} else if (b->n_edges != 0 && b->edges_ns != NULL) {
		n = b->n_edges + 1;
		*layout = "edges";
	} else {
		n = REPORT_AUTO_ROWS + 1;
		*layout = "auto";
	}
	*rows = calloc(n, sizeof(**rows));
	if (*rows == NULL)
		return -ENOMEM;
	if (b->n_buckets != 0)
		ret = histogram_table_linear(h, b->n_buckets, *rows);
	else if (b->n_edges != 0 && b->edges_ns != NULL)
		ret = histogram_table_edges(h, b->edges_ns, b->n_edges, *rows);
	else
		ret = report_auto_rows(h, *rows, n);
	if (ret < 0) {
		free(*rows);
		*rows = NULL;
	}
	return ret;
}

/* Cumulative % of the table's total at each row (0 when empty). */
double
rpt_cum_pct(const struct histogram_row *rows, int n, int upto)
{
	uint64_t total = 0, cum = 0;
	int i;

	for (i = 0; i < n; i++) {
		total += rows[i].count;
		if (i <= upto)
			cum += rows[i].count;
	}
	return rpt_pct(cum, total);
}

/* part as a % of whole, 0 when whole is 0. */
double
rpt_pct(uint64_t part, uint64_t whole)
{
	return whole != 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *
rpt_str_or(const char *s, const char *dflt)
{
	return s != NULL ? s : dflt;
}

bool
rpt_set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

int
rpt_stream_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}
