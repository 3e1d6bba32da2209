/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latprobe/compare.h"
#include "latprobe/pct_ci.h"
#include "latprobe/hdr_codec.h"
#include "latprobe/report_json.h"

const char *const compare_series_key[CMP__SERIES] = {
	[CMP_RTT] = "rtt_ns",
	[CMP_NETWORK_RTT] = "network_rtt_ns",
	[CMP_TURNAROUND] = "turnaround_ns",
	[CMP_FORWARD] = "forward_ns",
	[CMP_REVERSE] = "reverse_ns",
	[CMP_RTT_UNAFFECTED] = "rtt_ns_unaffected",
};

const char *const compare_stat_name[CMP__STATS] = {
	"min", "mean", "p50", "p90", "p99", "p99.9", "p99.99",
};
const char *const compare_stat_key[CMP__STATS] = {
	"min", "mean", "p50", "p90", "p99", "p99_9", "p99_99",
};
static const double stat_pct[CMP__STATS] = {0, 0, 50, 90, 99, 99.9, 99.99};

/* ------------------------------------------------------------ reading */

int
compare_series_from_json(struct json_object *o, struct histogram *h)
{
	uint64_t v, count, mn, mx;
	double mean, sd;

	histogram_init(h);
	if (o == NULL || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	if (!report_json_u64(o, "hdr_lowest", &v) || v != HDR_CODEC_LOWEST ||
	    !report_json_u64(o, "hdr_highest", &v) || v != HDR_CODEC_HIGHEST ||
	    !report_json_u64(o, "hdr_sigfigs", &v) || v != HDR_CODEC_SIGFIGS)
		return -EINVAL;
	/* The figures report_json_hdr() takes when present are required. */
	if (!report_json_u64(o, "count", &count) ||
	    !report_json_u64(o, "underflow", &v) ||
	    !report_json_u64(o, "overflow", &v))
		return -EINVAL;
	if (count != 0 &&
	    (!report_json_u64(o, "min", &mn) ||
	     !report_json_u64(o, "max", &mx) || mn < HISTOGRAM_LOWEST_NS ||
	     mx > HISTOGRAM_HIGHEST_NS || mn > mx ||
	     !report_json_double(o, "mean", &mean)))
		return -EINVAL;
	if (report_json_hdr(o, "", h, NULL, 0) != 0 || h->underflow != 0)
		goto bad;
	report_json_u64(o, "underflow", &h->underflow);
	report_json_u64(o, "overflow", &h->overflow);
	if (count == 0)
		return 0;
	if (!report_json_u64(o, "sum", &h->sum))
		h->sum = (uint64_t)llround(mean * (double)count);
	if (report_json_double(o, "stddev", &sd)) {
		double m2 = (double)h->sum / (double)count;

		h->sum_sq = (double)count * (sd * sd + m2 * m2);
	}
	return 0;
bad:
	histogram_init(h);
	return -EINVAL;
}

void
compare_run_fini(struct compare_run *run)
{
	unsigned s;

	if (run == NULL)
		return;
	for (s = 0; s < CMP__SERIES; s++) {
		histogram_destroy(run->h[s]);
		run->h[s] = NULL;
		run->has[s] = false;
	}
}

int
compare_run_parse(const char *text, size_t len, struct compare_run *run,
		  char *why, size_t why_cap)
{
	struct json_object *root, *m;
	unsigned s, n_has = 0;
	uint64_t v;
	int ret;

	memset(run, 0, sizeof(*run));
	ret = report_json_parse(text, len, &root, why, why_cap);
	if (ret != 0)
		return ret;
	ret = -EINVAL;
	if (!json_object_is_type(root, json_type_object)) {
		report_why(why, why_cap,
			   "not a latprobe report (not an object)");
		goto out;
	}
	if (json_object_object_get_ex(root, "format_version", &m) &&
	    json_object_is_type(m, json_type_int))
		run->format_version = json_object_get_int(m);
	snprintf(run->kind, sizeof(run->kind), "%s",
		 json_object_object_get_ex(root, "probes", &m) ? "probe"
							       : "reflect");
	report_json_str(root, "proto", run->proto, sizeof(run->proto));
	if (report_json_u64(root, "size", &v) && v <= UINT32_MAX)
		run->size = (unsigned)v;
	report_json_str(root, "port_driver", run->nic_driver,
			sizeof(run->nic_driver));
	report_json_str(root, "host", run->host, sizeof(run->host));
	if (json_object_object_get_ex(root, "machine", &m) &&
	    json_object_is_type(m, json_type_object)) {
		report_json_str(m, "cpu_model", run->cpu_model,
				sizeof(run->cpu_model));
		if (run->nic_driver[0] == '\0')
			report_json_str(m, "nic_driver", run->nic_driver,
					sizeof(run->nic_driver));
	}
	for (s = 0; s < CMP__SERIES; s++) {
		if (!json_object_object_get_ex(root, compare_series_key[s],
					       &m) ||
		    json_object_is_type(m, json_type_null))
			continue;
		run->h[s] = histogram_create();
		if (run->h[s] == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		if (compare_series_from_json(m, run->h[s]) != 0) {
			if (!json_object_is_type(m, json_type_object) ||
			    !json_object_object_get_ex(m, "hdr", NULL))
				report_why(why, why_cap,
					   "%s has no histogram (written by a "
					   "latprobe before format_version 1?)",
					   compare_series_key[s]);
			else
				report_why(why, why_cap,
					   "%s: histogram unreadable or "
					   "inconsistent with its figures",
					   compare_series_key[s]);
			goto out;
		}
		run->has[s] = true;
		n_has++;
	}
	if (n_has == 0) {
		report_why(why, why_cap, "no latency series (rtt_ns, ...)");
		goto out;
	}
	ret = 0;
out:
	json_object_put(root);
	if (ret != 0)
		compare_run_fini(run);
	return ret;
}

/* ---------------------------------------------------------- statistics */

static uint64_t
fmin_u64(uint64_t x, uint64_t y)
{
	return x < y ? x : y;
}

double
compare_stat_value(const struct histogram *h, enum compare_stat s)
{
	switch (s) {
	case CMP_MIN:
		return (double)histogram_min(h);
	case CMP_MEAN:
		return histogram_mean(h);
	default:
		return (double)histogram_percentile(h, stat_pct[s]);
	}
}

/* xoshiro256** seeded by splitmix64: fast, and the same on every host. */
struct rng {
	uint64_t s[4];
};

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(struct rng *r)
{
	uint64_t res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return res;
}

static void
rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		r->s[i] = z ^ (z >> 31);
	}
}

/* Uniform in (0, 1): never 0, so log() is finite. */
static double
rng_unit(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double
rng_normal(struct rng *r)
{
	return sqrt(-2.0 * log(rng_unit(r))) * cos(2.0 * M_PI * rng_unit(r));
}

/*
 * Binomial(n, p): by geometric waiting times when n p is small (exact,
 * O(n p)), by the normal approximation when n p (1 - p) is large enough
 * that its error is far below the bootstrap's own.
 */
static uint64_t
rng_binomial(struct rng *r, uint64_t n, double p)
{
	uint64_t x = 0, pos = 0;
	double lq;

	if (n == 0 || p <= 0.0)
		return 0;
	if (p >= 1.0)
		return n;
	if (p > 0.5)
		return n - rng_binomial(r, n, 1.0 - p);
	if ((double)n * p < 30.0) {
		lq = log1p(-p);
		for (;;) {
			double g = floor(log(rng_unit(r)) / lq);

			if (g >= (double)(n - pos))
				return x;
			pos += (uint64_t)g + 1;
			x++;
			if (pos >= n)
				return x;
		}
	}
	{
		double mu = (double)n * p, sd = sqrt(mu * (1.0 - p));
		double v = floor(mu + sd * rng_normal(r) + 0.5);

		if (v < 0)
			return 0;
		if (v > (double)n)
			return n;
		return (uint64_t)v;
	}
}

/* A run's non-empty counters, compact. */
struct sparse {
	unsigned n;
	unsigned *idx;
	uint64_t *cnt;
	uint64_t total;
};

static int
sparse_of(const struct histogram *h, struct sparse *sp)
{
	unsigned i, k = 0;

	sp->n = 0;
	sp->total = 0;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		if (h->counts[i] != 0)
			sp->n++;
	sp->idx = calloc(sp->n + 1, sizeof(*sp->idx));
	sp->cnt = calloc(sp->n + 1, sizeof(*sp->cnt));
	if (sp->idx == NULL || sp->cnt == NULL)
		return -ENOMEM;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		if (h->counts[i] != 0) {
			sp->idx[k] = i;
			sp->cnt[k] = h->counts[i];
			sp->total += h->counts[i];
			k++;
		}
	return 0;
}

/* Add a multinomial resample of sp (same total) into out->counts. */
static void
resample_into(struct rng *r, const struct sparse *sp, struct histogram *out)
{
	uint64_t left = sp->total, mass = sp->total;
	unsigned k;

	for (k = 0; k < sp->n && left > 0; k++) {
		uint64_t x = k + 1 == sp->n
				     ? left
				     : rng_binomial(r, left,
						    (double)sp->cnt[k] /
							    (double)mass);

		out->counts[sp->idx[k]] += x;
		out->total += x;
		left -= x;
		mass -= sp->cnt[k];
	}
}

/* Counter middle, as the decoder and HdrHistogram's mean use it. */
static double
mid_of(unsigned idx)
{
	uint64_t lo = histogram_index_lowest(idx);

	return (double)(lo + ((histogram_index_highest(idx) - lo + 1) >> 1));
}

static double
mid_mean(const struct histogram *h)
{
	double s = 0;
	unsigned i;

	if (h->total == 0)
		return 0;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++)
		if (h->counts[i] != 0)
			s += mid_of(i) * (double)h->counts[i];
	return s / (double)h->total;
}

struct side {
	const struct compare_group *g;
	struct sparse *sp;
	struct histogram *merged; /* all runs, exact */
	struct histogram *scratch;
	struct sparse all;	 /* the counters any run uses, ascending */
	double mid_mean;	 /* of merged, from counter middles */
	double stat[CMP__STATS]; /* of the last replicate */
};

static int
side_init(struct side *sd, const struct compare_group *g)
{
	unsigned i;

	memset(sd, 0, sizeof(*sd));
	sd->g = g;
	sd->merged = histogram_create();
	sd->scratch = histogram_create();
	sd->sp = calloc(g->n, sizeof(*sd->sp));
	if (sd->merged == NULL || sd->scratch == NULL || sd->sp == NULL)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		if (histogram_count(g->runs[i]) == 0)
			return -EINVAL;
		histogram_merge(sd->merged, g->runs[i]);
		if (sparse_of(g->runs[i], &sd->sp[i]) != 0)
			return -ENOMEM;
	}
	sd->mid_mean = mid_mean(sd->merged);
	return sparse_of(sd->merged, &sd->all);
}

static void
side_fini(struct side *sd)
{
	unsigned i;

	if (sd->sp != NULL && sd->g != NULL)
		for (i = 0; i < sd->g->n; i++) {
			free(sd->sp[i].idx);
			free(sd->sp[i].cnt);
		}
	free(sd->sp);
	free(sd->all.idx);
	free(sd->all.cnt);
	histogram_destroy(sd->merged);
	histogram_destroy(sd->scratch);
}

/*
 * One bootstrap replicate of a side into sd->scratch, and its figures into
 * sd->stat[] in one pass over the counters the side uses. The percentile
 * rank is histogram_percentile()'s, so that a replicate equal to the data
 * gives the report's figures.
 */
static void
side_resample(struct rng *r, struct side *sd)
{
	struct histogram *h = sd->scratch;
	uint64_t rank[CMP__STATS] = {0}, seen = 0;
	unsigned i, s = CMP_P50;
	double sum = 0;

	for (i = 0; i < sd->all.n; i++)
		h->counts[sd->all.idx[i]] = 0;
	h->total = 0;
	for (i = 0; i < sd->g->n; i++) {
		/* runs with replacement first, when there are several */
		unsigned pick =
			sd->g->n == 1 ? 0 : (unsigned)(rng_next(r) % sd->g->n);

		resample_into(r, &sd->sp[pick], h);
	}
	for (i = CMP_P50; i < CMP__STATS; i++) {
		double x = stat_pct[i] / 100.0 * (double)h->total;

		x -= x * 2.0 * DBL_EPSILON;
		rank[i] = x >= (double)h->total ? h->total : (uint64_t)ceil(x);
		if (rank[i] == 0)
			rank[i] = 1;
	}
	for (i = 0; i < sd->all.n; i++) {
		unsigned idx = sd->all.idx[i];
		uint64_t c = h->counts[idx];

		if (c == 0)
			continue;
		seen += c;
		sum += mid_of(idx) * (double)c;
		while (s < CMP__STATS && seen >= rank[s]) {
			/* clipped to the side's real extremes, as reported */
			uint64_t v = histogram_index_highest(idx);

			if (v > sd->merged->max)
				v = sd->merged->max;
			if (v < sd->merged->min)
				v = sd->merged->min;
			sd->stat[s++] = (double)v;
		}
	}
	sd->stat[CMP_MEAN] = h->total != 0 ? sum / (double)h->total : 0;
	sd->stat[CMP_MIN] = 0; /* not bootstrapped */
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Type-7 quantile of sorted v[0..n-1]. */
static double
quantile(const double *v, unsigned n, double q)
{
	double pos = q * (double)(n - 1);
	unsigned i = (unsigned)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

int
compare_bootstrap(const struct compare_group *a, const struct compare_group *b,
		  unsigned n_boot, uint64_t seed,
		  struct compare_diff out[CMP__STATS])
{
	struct side sa, sb;
	double *d = NULL;
	struct rng r;
	unsigned s, k, i;
	int ret;

	if (a == NULL || b == NULL || out == NULL || a->n == 0 || b->n == 0 ||
	    a->runs == NULL || b->runs == NULL || n_boot < 20)
		return -EINVAL;
	ret = side_init(&sa, a);
	if (ret == 0)
		ret = side_init(&sb, b);
	else
		memset(&sb, 0, sizeof(sb));
	if (ret != 0)
		goto out;
	d = malloc(sizeof(*d) * CMP__STATS * n_boot);
	if (d == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	rng_seed(&r, seed);
	for (k = 0; k < n_boot; k++) {
		side_resample(&r, &sa);
		side_resample(&r, &sb);
		for (s = 0; s < CMP__STATS; s++)
			d[s * n_boot + k] = sb.stat[s] - sa.stat[s];
	}
	for (s = 0; s < CMP__STATS; s++) {
		struct compare_diff *o = &out[s];
		double *v = &d[(size_t)s * n_boot];

		o->a = compare_stat_value(sa.merged, s);
		o->b = compare_stat_value(sb.merged, s);
		o->diff = o->b - o->a;
		o->a_lo = o->b_lo = INFINITY;
		o->a_hi = o->b_hi = -INFINITY;
		for (i = 0; i < a->n; i++) {
			double x = compare_stat_value(a->runs[i], s);

			o->a_lo = fmin(o->a_lo, x);
			o->a_hi = fmax(o->a_hi, x);
		}
		for (i = 0; i < b->n; i++) {
			double x = compare_stat_value(b->runs[i], s);

			o->b_lo = fmin(o->b_lo, x);
			o->b_hi = fmax(o->b_hi, x);
		}
		o->verdict = CMP_NO_DIFFERENCE;
		o->too_few = false;
		o->a_ci_lo = o->a_ci_hi = o->b_ci_lo = o->b_ci_hi = NAN;
		if (stat_pct[s] > 0) {
			o->need = pct_min_samples(stat_pct[s] / 100.0,
						  PCT_CI_CONF);
			o->fewest = UINT64_MAX;
			for (i = 0; i < a->n; i++)
				o->fewest = fmin_u64(
					o->fewest, histogram_count(a->runs[i]));
			for (i = 0; i < b->n; i++)
				o->fewest = fmin_u64(
					o->fewest, histogram_count(b->runs[i]));
			o->too_few = o->fewest < o->need;
		}
		if (o->too_few) {
			/* Not a figure on one side at least: nothing to
			 * compare. */
			o->a = o->b = o->diff = o->lo = o->hi = NAN;
			o->a_lo = o->a_hi = o->b_lo = o->b_hi = NAN;
			continue;
		}
		if (stat_pct[s] > 0) {
			uint64_t l, h;

			if (histogram_percentile_ci(sa.merged, stat_pct[s],
						    PCT_CI_CONF, &l, &h) == 0) {
				o->a_ci_lo = (double)l;
				o->a_ci_hi = (double)h;
			}
			if (histogram_percentile_ci(sb.merged, stat_pct[s],
						    PCT_CI_CONF, &l, &h) == 0) {
				o->b_ci_lo = (double)l;
				o->b_ci_hi = (double)h;
			}
		}
		if (s == CMP_MIN) {
			/* the bootstrap cannot say anything about a minimum */
			o->lo = o->hi = NAN;
			continue;
		}
		qsort(v, n_boot, sizeof(*v), cmp_double);
		o->lo = quantile(v, n_boot, 0.025);
		o->hi = quantile(v, n_boot, 0.975);
		if (s == CMP_MEAN) {
			/* replicates use counter middles: centre them on the
			 * exact difference */
			double shift = o->diff - (sb.mid_mean - sa.mid_mean);

			o->lo += shift;
			o->hi += shift;
		}
		if (o->lo > 0)
			o->verdict = CMP_SLOWER;
		else if (o->hi < 0)
			o->verdict = CMP_FASTER;
	}
	ret = 0;
out:
	free(d);
	side_fini(&sa);
	side_fini(&sb);
	return ret;
}

int
compare_mann_whitney(const struct histogram *a, const struct histogram *b,
		     struct compare_mwu *out)
{
	double na, nb, n, below = 0, u = 0, ties = 0, var;
	unsigned i;

	if (a == NULL || b == NULL || out == NULL || a->total == 0 ||
	    b->total == 0)
		return -EINVAL;
	na = (double)a->total;
	nb = (double)b->total;
	n = na + nb;
	for (i = 0; i < HISTOGRAM_COUNTERS; i++) {
		double ca = (double)a->counts[i], cb = (double)b->counts[i];
		double t = ca + cb;

		u += cb * (below + 0.5 * ca);
		below += ca;
		ties += t * t * t - t;
	}
	var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
	out->n_a = a->total;
	out->n_b = b->total;
	out->u_b = u;
	out->prob_b_greater = u / (na * nb);
	if (var <= 0) { /* every value in one counter */
		out->z = 0;
		out->p = 1;
		return 0;
	}
	out->z = (u - na * nb / 2.0) / sqrt(var);
	out->p = erfc(fabs(out->z) / M_SQRT2);
	return 0;
}
