/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/plot.h"
#include "latprobe/report.h"

/* Chart geometry (SVG user units). */
#define W	 880.0
#define H	 330.0
#define ML	 78.0 /* left margin: tick labels */
#define MR	 44.0 /* room for the last x tick label */
#define MT	 16.0
#define MB	 52.0 /* bottom: tick labels + axis label */
#define PW	 (W - ML - MR)
#define PH	 (H - MT - MB)
#define N_SPEC	 400 /* points per spectrum line */
#define BINS_DEC 20  /* histogram bins per decade */

/* Tableau 10: tell-apart colours; past ten, dashes tell runs apart. */
static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define N_COLOURS (sizeof(palette) / sizeof(palette[0]))

static const char *
colour(unsigned k)
{
	return palette[k % N_COLOURS];
}

static const char *
dash(unsigned k)
{
	static const char *const d[] = {"", " stroke-dasharray=\"6 3\"",
					" stroke-dasharray=\"2 2\"",
					" stroke-dasharray=\"8 2 2 2\""};

	return d[(k / N_COLOURS) % 4];
}

/* Text for XML content and attribute values. */
static void
put_esc(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc(c < 0x20 && c != '\t' ? '?' : c, f);
		}
	}
}

/* "1 ns", "2.5 µs", "10 ms", "1.2 s": for ticks and the table. */
static void
fmt_lat(double ns, char *buf, size_t cap)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = {{1, "ns"}, {1e3, "\xc2\xb5s"}, {1e6, "ms"}, {1e9, "s"}};
	unsigned i = 0;

	while (i + 1 < sizeof(u) / sizeof(u[0]) && ns >= u[i + 1].div * 0.9995)
		i++;
	snprintf(buf, cap, "%.3g %s", ns / u[i].div, u[i].unit);
}

struct axis {
	double lo, hi; /* data range (log10 of it when log) */
	bool log;
	double px0, px1; /* pixel range */
};

static double
ax_map(const struct axis *a, double v)
{
	double x = a->log ? log10(v > 0 ? v : 1e-300) : v;
	double t = (x - a->lo) / (a->hi - a->lo);

	if (t < -0.02)
		t = -0.02;
	if (t > 1.02)
		t = 1.02;
	return a->px0 + t * (a->px1 - a->px0);
}

/* A log latency axis from decade to decade around [lo, hi] ns. */
static void
lat_axis(struct axis *a, uint64_t lo, uint64_t hi, double px0, double px1)
{
	double l = floor(log10(lo > 0 ? (double)lo : 1.0));
	double h = ceil(log10(hi > 0 ? (double)hi : 1.0));

	if (h <= l)
		h = l + 1;
	a->lo = l;
	a->hi = h;
	a->log = true;
	a->px0 = px0;
	a->px1 = px1;
}

static void
svg_open(FILE *f, const char *id, const char *title)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" "
		"class=\"chart\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
		"height=\"%.0f\" role=\"img\">\n<title>",
		id, W, H, W, H);
	put_esc(f, title);
	fprintf(f,
		"</title>\n<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\"/>\n",
		ML, MT, PW, PH);
}

static void
svg_axis_labels(FILE *f, const char *xlabel, const char *ylabel)
{
	fprintf(f,
		"<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">",
		ML + PW / 2, H - 8);
	put_esc(f, xlabel);
	fprintf(f,
		"</text>\n<text class=\"axis-label\" x=\"14\" y=\"%.1f\" "
		"text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">",
		MT + PH / 2, MT + PH / 2);
	put_esc(f, ylabel);
	fputs("</text>\n", f);
}

static void
xtick(FILE *f, double x, const char *label)
{
	fprintf(f,
		"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">",
		x, MT, x, MT + PH, x, MT + PH + 16);
	put_esc(f, label);
	fputs("</text>\n", f);
}

static void
ytick(FILE *f, double y, const char *label)
{
	fprintf(f,
		"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">",
		ML, y, ML + PW, y, ML - 6, y + 4);
	put_esc(f, label);
	fputs("</text>\n", f);
}

/* Ticks at 1, 2, 5 x each decade (1 only when the axis spans > 3). */
static void
lat_ticks(FILE *f, const struct axis *a, bool vertical)
{
	static const double m[] = {1, 2, 5};
	unsigned nm = a->hi - a->lo > 3 ? 1 : 3;
	char buf[32];

	for (int dk = 0; a->lo + dk <= a->hi + 1e-9; dk++) {
		double d = a->lo + dk;

		for (unsigned k = 0; k < nm; k++) {
			double v = m[k] * pow(10, d);

			if (log10(v) > a->hi + 1e-9)
				break;
			fmt_lat(v, buf, sizeof(buf));
			if (vertical)
				ytick(f, ax_map(a, v), buf);
			else
				xtick(f, ax_map(a, v), buf);
		}
	}
}

static void
lin_yticks(FILE *f, const struct axis *a, double step, const char *unit)
{
	char buf[32];

	for (unsigned k = 0; a->lo + k * step <= a->hi + 1e-9; k++) {
		double v = a->lo + k * step;

		snprintf(buf, sizeof(buf), "%g%s", v, unit);
		ytick(f, ax_map(a, v), buf);
	}
}

/* Where a chart's legend sits: the corner its lines usually leave empty. */
enum corner { TOP_LEFT, TOP_RIGHT, BOTTOM_RIGHT };

/* UTF-8 characters of s (for the legend box's width). */
static size_t
u8_len(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * Legend inside the plot area on a light box; only runs with a line. At
 * most 30 characters of a label count for the box (a longer one overflows
 * it rather than covering the chart).
 */
static void
svg_legend(FILE *f, const struct plot_run *runs, unsigned n, const bool *drawn,
	   enum corner at)
{
	double w = 0, h = 6, x0, y0, y;

	for (unsigned k = 0; k < n; k++) {
		double lw = 52 + 6.8 * fmin((double)u8_len(runs[k].label), 30);

		if (!drawn[k])
			continue;
		w = fmax(w, lw);
		h += 15;
	}
	if (w == 0)
		return;
	x0 = at == TOP_LEFT ? ML + 6 : ML + PW - 6 - w;
	y0 = at == BOTTOM_RIGHT ? MT + PH - 6 - h : MT + 6;
	fprintf(f,
		"<g class=\"legend\">\n<rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
		"fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n",
		x0, y0, w, h);
	y = y0 + 15;
	for (unsigned k = 0; k < n; k++) {
		if (!drawn[k])
			continue;
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2.5\"%s/>\n"
			"<text class=\"legend-label\" x=\"%.1f\" y=\"%.1f\">",
			x0 + 8, y - 4, x0 + 32, y - 4, colour(k), dash(k),
			x0 + 40, y);
		put_esc(f, runs[k].label);
		fputs("</text>\n", f);
		y += 15;
	}
	fputs("</g>\n", f);
}

static void
path_open(FILE *f, unsigned k)
{
	fprintf(f,
		"<path class=\"series\" data-run=\"%u\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"1.8\"%s d=\"",
		k, colour(k), dash(k));
}

static void
path_pt(FILE *f, bool *first, double x, double y)
{
	fprintf(f, "%s%.1f %.1f", *first ? "M" : " L", x, y);
	*first = false;
}

static void
path_close(FILE *f)
{
	fputs("\"/>\n", f);
}

/* Latency range over the runs that have values. */
static bool
runs_range(const struct plot_run *runs, unsigned n, uint64_t *lo, uint64_t *hi)
{
	bool any = false;

	*lo = UINT64_MAX;
	*hi = 0;
	for (unsigned k = 0; k < n; k++) {
		if (histogram_count(runs[k].h) == 0)
			continue;
		any = true;
		if (histogram_min(runs[k].h) < *lo)
			*lo = histogram_min(runs[k].h);
		if (histogram_max(runs[k].h) > *hi)
			*hi = histogram_max(runs[k].h);
	}
	return any;
}

static void
chart_spectrum(FILE *f, const struct plot_run *runs, unsigned n,
	       const bool *drawn, uint64_t lo, uint64_t hi)
{
	static const char *const pl[] = {
		"0%",	      "90%",	    "99%",	"99.9%",
		"99.99%",     "99.999%",    "99.9999%", "99.99999%",
		"99.999999%", "99.9999999%"};
	struct axis xa = {0, 5, false, ML, ML + PW}, ya;
	uint64_t most = 0;

	for (unsigned k = 0; k < n; k++)
		if (histogram_count(runs[k].h) > most)
			most = histogram_count(runs[k].h);
	/* Ticks to 99.999 % at least; more nines when there are samples. */
	if (most > 0 && ceil(log10((double)most)) > xa.hi)
		xa.hi = fmin(ceil(log10((double)most)), 9);
	lat_axis(&ya, lo, hi, MT + PH, MT);

	svg_open(f, "spectrum", "Latency by percentile");
	for (unsigned d = 0; d <= (unsigned)xa.hi; d++)
		xtick(f, ax_map(&xa, d), pl[d]);
	lat_ticks(f, &ya, true);
	svg_axis_labels(f, "percentile (log scale of 1/(1\xe2\x88\x92p))",
			"round-trip time");
	for (unsigned k = 0; k < n; k++) {
		const struct histogram *h = runs[k].h;
		double cnt = (double)histogram_count(h);
		bool first = true;

		if (!drawn[k])
			continue;
		path_open(f, k);
		for (unsigned i = 0; i <= N_SPEC; i++) {
			double x = xa.hi * i / N_SPEC;
			double q = pow(10, -x); /* 1 - p */
			uint64_t v;

			/* A percentile the run has too few samples for is
			 * not drawn: the curve starts and ends where its
			 * figures rest on enough. */
			if (i != 0 && !report_pct_enough(histogram_count(h),
							 (1 - q) * 100))
				continue;
			/* Past the last sample everything is the max. */
			if (q * cnt < 1 || i == N_SPEC) {
				v = histogram_max(h);
				path_pt(f, &first, ax_map(&xa, x),
					ax_map(&ya, (double)v));
				path_pt(f, &first, ax_map(&xa, xa.hi),
					ax_map(&ya, (double)v));
				break;
			}
			v = histogram_percentile(h, (1 - q) * 100);
			path_pt(f, &first, ax_map(&xa, x),
				ax_map(&ya, (double)v));
		}
		path_close(f);
	}
	svg_legend(f, runs, n, drawn, TOP_LEFT);
	fputs("</svg>\n", f);
}

static int
chart_histogram(FILE *f, const struct plot_run *runs, unsigned n,
		const bool *drawn, uint64_t lo, uint64_t hi)
{
	struct axis xa, ya = {0, 0, false, MT + PH, MT};
	unsigned nb;
	double *pct, top = 0, step;

	lat_axis(&xa, lo, hi, ML, ML + PW);
	nb = (unsigned)lround((xa.hi - xa.lo) * BINS_DEC);
	pct = calloc((size_t)nb * n, sizeof(*pct));
	if (pct == NULL)
		return -ENOMEM;
	for (unsigned k = 0; k < n; k++) {
		const struct histogram *h = runs[k].h;
		double cnt = (double)histogram_count(h);

		if (!drawn[k])
			continue;
		for (unsigned i = 0; i < HISTOGRAM_COUNTERS; i++) {
			double mid;
			long b;

			if (h->counts[i] == 0)
				continue;
			mid = ((double)histogram_index_lowest(i) +
			       (double)histogram_index_highest(i)) /
			      2;
			b = lround(floor((log10(mid) - xa.lo) * BINS_DEC));
			if (b < 0)
				b = 0;
			if (b >= (long)nb)
				b = (long)nb - 1;
			pct[(size_t)k * nb + (size_t)b] +=
				100.0 * (double)h->counts[i] / cnt;
		}
		for (unsigned b = 0; b < nb; b++)
			if (pct[(size_t)k * nb + b] > top)
				top = pct[(size_t)k * nb + b];
	}
	/* A round top: 10, 20, 50 % ... with steps of a fifth of it. */
	step = top <= 1	   ? 0.2
	       : top <= 2  ? 0.5
	       : top <= 5  ? 1
	       : top <= 10 ? 2
	       : top <= 20 ? 5
	       : top <= 50 ? 10
			   : 20;
	ya.hi = ceil(top / step) * step;
	if (ya.hi <= 0)
		ya.hi = 1;

	svg_open(f, "histogram",
		 "Histogram (share of round trips per log-spaced bin)");
	lat_ticks(f, &xa, false);
	lin_yticks(f, &ya, step, "%");
	{
		char xl[64];

		snprintf(xl, sizeof(xl),
			 "round-trip time (log scale, %d bins per decade)",
			 BINS_DEC);
		svg_axis_labels(f, xl, "share of round trips");
	}
	for (unsigned k = 0; k < n; k++) {
		const double *p = pct + (size_t)k * nb;
		unsigned b0 = 0, b1 = nb;
		bool first = true;

		if (!drawn[k])
			continue;
		while (b0 < nb && p[b0] == 0)
			b0++;
		while (b1 > b0 && p[b1 - 1] == 0)
			b1--;
		path_open(f, k);
		path_pt(f, &first,
			ax_map(&xa, pow(10, xa.lo + (double)b0 / BINS_DEC)),
			ax_map(&ya, 0));
		for (unsigned b = b0; b < b1; b++) {
			double x0 = pow(10, xa.lo + (double)b / BINS_DEC);
			double x1 = pow(10, xa.lo + (double)(b + 1) / BINS_DEC);

			path_pt(f, &first, ax_map(&xa, x0), ax_map(&ya, p[b]));
			path_pt(f, &first, ax_map(&xa, x1), ax_map(&ya, p[b]));
		}
		path_pt(f, &first,
			ax_map(&xa, pow(10, xa.lo + (double)b1 / BINS_DEC)),
			ax_map(&ya, 0));
		path_close(f);
	}
	free(pct);
	svg_legend(f, runs, n, drawn, TOP_RIGHT);
	fputs("</svg>\n", f);
	return 0;
}

static void
chart_cdf(FILE *f, const struct plot_run *runs, unsigned n, const bool *drawn,
	  uint64_t lo, uint64_t hi)
{
	struct axis xa, ya = {0, 100, false, MT + PH, MT};

	lat_axis(&xa, lo, hi, ML, ML + PW);
	svg_open(f, "cdf", "Cumulative distribution");
	lat_ticks(f, &xa, false);
	lin_yticks(f, &ya, 20, "%");
	svg_axis_labels(f, "round-trip time (log scale)",
			"round trips at or below");
	for (unsigned k = 0; k < n; k++) {
		const struct histogram *h = runs[k].h;
		double cnt = (double)histogram_count(h), cum = 0;
		bool first = true;

		if (!drawn[k])
			continue;
		path_open(f, k);
		path_pt(f, &first, ax_map(&xa, (double)histogram_min(h)),
			ax_map(&ya, 0));
		for (unsigned i = 0; i < HISTOGRAM_COUNTERS; i++) {
			uint64_t top;

			if (h->counts[i] == 0)
				continue;
			cum += (double)h->counts[i];
			top = histogram_index_highest(i);
			if (top > histogram_max(h))
				top = histogram_max(h);
			path_pt(f, &first, ax_map(&xa, (double)top),
				ax_map(&ya, 100 * cum / cnt));
		}
		path_close(f);
	}
	svg_legend(f, runs, n, drawn, BOTTOM_RIGHT);
	fputs("</svg>\n", f);
}

static void
chart_time(FILE *f, const struct plot_run *runs, unsigned n)
{
	struct axis xa = {0, 0, false, ML, ML + PW}, ya;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool has[PLOT_MAX_RUNS] = {false};
	double tmax = 0, step;
	char buf[32];

	for (unsigned k = 0; k < n; k++) {
		for (size_t i = 0; i < runs[k].n_time; i++) {
			const struct plot_tpoint *p = &runs[k].time[i];

			if (p->p50_ns == 0 || !isfinite(p->t_s))
				continue;
			has[k] = true;
			if (p->p50_ns < lo)
				lo = p->p50_ns;
			if (p->max_ns > hi)
				hi = p->max_ns;
			if (p->p50_ns > hi)
				hi = p->p50_ns;
			if (p->t_s > tmax)
				tmax = p->t_s;
		}
	}
	fputs("<h2>Latency over time</h2>\n", f);
	for (unsigned k = 0; k < n; k++) {
		if (has[k])
			continue;
		fputs("<p class=\"note no-time\">", f);
		put_esc(f, runs[k].label);
		fputs(": the run has no intervals or samples, so there is no "
		      "latency over time to draw (record them with latprobe "
		      "probe --hlog FILE or --samples FILE and give that file "
		      "to plot's --hlog or --samples).</p>\n",
		      f);
	}
	if (hi == 0)
		return;
	lat_axis(&ya, lo, hi, MT + PH, MT);
	/* 1, 2 or 5 x 10^k seconds per tick, 4 to 10 ticks. */
	step = pow(10, floor(log10(tmax > 0 ? tmax : 1)));
	if (tmax / step < 2)
		step /= 5;
	else if (tmax / step < 4)
		step /= 2;
	xa.hi = ceil((tmax > 0 ? tmax : 1) / step) * step;

	svg_open(f, "time", "Latency over time");
	for (unsigned k = 0; k * step <= xa.hi + step / 2; k++) {
		double t = k * step;

		fmt_lat(t * 1e9, buf, sizeof(buf));
		xtick(f, ax_map(&xa, t), t == 0 ? "0" : buf);
	}
	lat_ticks(f, &ya, true);
	svg_axis_labels(f, "time since the start of the run",
			"median round trip per interval");
	for (unsigned k = 0; k < n; k++) {
		bool first = true;

		if (!has[k])
			continue;
		path_open(f, k);
		for (size_t i = 0; i < runs[k].n_time; i++) {
			const struct plot_tpoint *p = &runs[k].time[i];

			if (p->p50_ns == 0 || !isfinite(p->t_s))
				continue;
			path_pt(f, &first, ax_map(&xa, p->t_s),
				ax_map(&ya, (double)p->p50_ns));
		}
		path_close(f);
	}
	svg_legend(f, runs, n, has, TOP_RIGHT);
	fputs("</svg>\n", f);
}

static void
td_lat(FILE *f, const struct histogram *h, uint64_t v)
{
	char buf[32];

	if (histogram_count(h) == 0) {
		fputs("<td>-</td>", f);
		return;
	}
	fmt_lat((double)v, buf, sizeof(buf));
	fprintf(f, "<td>%s</td>", buf);
}

/* A percentile cell: "-" when the run has too few samples for it. */
static void
td_pct(FILE *f, const struct histogram *h, double p)
{
	if (!report_pct_enough(histogram_count(h), p)) {
		fputs("<td>-</td>", f);
		return;
	}
	td_lat(f, h, histogram_percentile(h, p));
}

static void
table(FILE *f, const struct plot_run *runs, unsigned n)
{
	fputs("<table class=\"figures\">\n<thead><tr><th>run</th>"
	      "<th>count</th><th>min</th><th>p50</th><th>p99</th>"
	      "<th>p99.9</th><th>max</th><th>loss</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	for (unsigned k = 0; k < n; k++) {
		const struct histogram *h = runs[k].h;

		fprintf(f,
			"<tr><td><span class=\"swatch\" "
			"style=\"background:%s\"></span>",
			colour(k));
		put_esc(f, runs[k].label);
		fprintf(f, "</td><td>%llu</td>",
			(unsigned long long)histogram_count(h));
		td_lat(f, h, histogram_min(h));
		td_pct(f, h, 50);
		td_pct(f, h, 99);
		td_pct(f, h, 99.9);
		td_lat(f, h, histogram_max(h));
		if (!runs[k].has_probes)
			fputs("<td>-</td>", f);
		else if (runs[k].sent == 0)
			fputs("<td>0 sent</td>", f);
		else
			fprintf(f, "<td>%llu (%.3g%%)</td>",
				(unsigned long long)runs[k].lost,
				100.0 * (double)runs[k].lost /
					(double)runs[k].sent);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	for (unsigned k = 0; k < n; k++) {
		if (runs[k].note == NULL && histogram_count(runs[k].h) != 0)
			continue;
		fputs("<p class=\"note\">", f);
		put_esc(f, runs[k].label);
		fputs(": ", f);
		put_esc(f,
			histogram_count(runs[k].h) == 0
				? "no round trip was recorded; nothing to draw."
				: runs[k].note);
		fputs("</p>\n", f);
	}
}

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;"
	"max-width:920px}\n"
	"h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}\n"
	"table.figures{border-collapse:collapse;font-size:0.9em}\n"
	"table.figures th,table.figures td{border:1px solid #ccc;"
	"padding:3px 8px;text-align:right}\n"
	"table.figures td:first-child{text-align:left}\n"
	".swatch{display:inline-block;width:0.8em;height:0.8em;"
	"margin-right:0.4em}\n"
	".note{color:#555;font-size:0.9em}\n"
	"svg.chart{display:block;font-size:12px}\n"
	"svg .frame{fill:none;stroke:#888}\n"
	"svg .grid{stroke:#e4e4e4}\n"
	"svg .tick{fill:#444;font-size:11px}\n"
	"svg .axis-label{fill:#222;font-size:12px}\n"
	"svg .legend-label{fill:#222;font-size:12px}\n";

int
plot_write_html(const struct plot_run *runs, unsigned n, const char *title,
		FILE *out)
{
	bool drawn[PLOT_MAX_RUNS] = {false};
	uint64_t lo, hi;
	int ret = 0;

	if (runs == NULL || out == NULL || n == 0)
		return -EINVAL;
	if (n > PLOT_MAX_RUNS)
		return -E2BIG;
	for (unsigned k = 0; k < n; k++) {
		if (runs[k].label == NULL || runs[k].h == NULL ||
		    (runs[k].n_time != 0 && runs[k].time == NULL))
			return -EINVAL;
		drawn[k] = histogram_count(runs[k].h) != 0;
	}
	if (title == NULL)
		title = "latprobe plot";

	fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
	      "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>",
	      out);
	put_esc(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
		css);
	put_esc(out, title);
	fputs("</h1>\n", out);
	table(out, runs, n);
	if (runs_range(runs, n, &lo, &hi)) {
		fputs("<h2>Percentile spectrum</h2>\n", out);
		chart_spectrum(out, runs, n, drawn, lo, hi);
		fputs("<h2>Histogram</h2>\n", out);
		ret = chart_histogram(out, runs, n, drawn, lo, hi);
		fputs("<h2>CDF</h2>\n", out);
		chart_cdf(out, runs, n, drawn, lo, hi);
	} else {
		fputs("<p class=\"note\">No run has a round trip to "
		      "draw.</p>\n",
		      out);
	}
	chart_time(out, runs, n);
	fputs("<p class=\"note\">Made by latprobe plot. Percentiles as "
	      "HdrHistogram reports them: the highest value of the bucket "
	      "(relative error at most 0.78 %).</p>\n</body>\n</html>\n",
	      out);
	if (ret != 0)
		return ret;
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
