/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_COMPARE_H
#define LATPROBE_COMPARE_H

/*
 * Reading saved JSON reports back (their self-contained histograms) and the
 * statistics of `latprobe compare`: bootstrap confidence intervals of the
 * difference of percentiles/mean between two runs or two groups of runs
 * (hierarchical when groups), and a Mann-Whitney U test on the whole
 * distributions. No EAL, no printing.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "latprobe/histogram.h"

/* CMP_RTT_UNAFFECTED: the round trips without host-affected probes, in
 * reports made with stall detection on. */
enum compare_series {
	CMP_RTT,
	CMP_NETWORK_RTT,
	CMP_TURNAROUND,
	CMP_FORWARD, /* one-way */
	CMP_REVERSE,
	CMP_RTT_UNAFFECTED,
	CMP__SERIES
};

/* JSON keys of the series: "rtt_ns", "network_rtt_ns", "turnaround_ns",
 * "forward_ns", "reverse_ns", "rtt_ns_unaffected". */
extern const char *const compare_series_key[CMP__SERIES];

/* One saved report, as compare needs it. */
struct compare_run {
	char kind[8]; /* "probe" or "reflect" */
	char proto[32];
	unsigned size;
	char cpu_model[128];
	char nic_driver[64];
	char host[256];
	int format_version;
	bool has[CMP__SERIES];
	struct histogram *h[CMP__SERIES]; /* heap; NULL when !has */
};

/*
 * A series object of a report ({"count":..,"min":..,"hdr":..}) into h:
 * the decoded histogram with min, max, sum, underflow and overflow taken
 * from the object, so that every percentile, min, max and mean equal the
 * report's. 0 or -EINVAL (no "hdr", a layout other than 1 ns..10 s with
 * 2 digits, a bad string, count/min/max that disagree with the histogram).
 */
int compare_series_from_json(struct json_object *o, struct histogram *h);

/*
 * Parse a JSON report (len bytes, need not be NUL-terminated). 0, -ENOMEM
 * or -EINVAL with a one-line reason in why (e.g. "no histogram (written by
 * a latprobe before format_version 1)"). compare_run_fini() frees.
 */
int compare_run_parse(const char *text, size_t len, struct compare_run *run,
		      char *why, size_t why_cap);
void compare_run_fini(struct compare_run *run);

/* The figures compared, in this order. */
enum compare_stat {
	CMP_MIN,
	CMP_MEAN,
	CMP_P50,
	CMP_P90,
	CMP_P99,
	CMP_P99_9,
	CMP_P99_99,
	CMP__STATS
};

extern const char *const compare_stat_name[CMP__STATS]; /* "p99.9" */
extern const char *const compare_stat_key[CMP__STATS];	/* "p99_9" */

/* The figure of one histogram (percentiles as histogram_percentile()). */
double compare_stat_value(const struct histogram *h, enum compare_stat s);

/* A side: one or more runs of one condition. */
struct compare_group {
	const struct histogram *const *runs;
	unsigned n;
};

enum compare_verdict {
	CMP_NO_DIFFERENCE = 0,
	CMP_FASTER = -1, /* B's figure significantly lower */
	CMP_SLOWER = 1,	 /* B's figure significantly higher */
};

struct compare_diff {
	double a, b;	   /* on each side's runs merged */
	double diff;	   /* b - a */
	double lo, hi;	   /* 95 % CI of diff; NaN for min (no CI) */
	double a_lo, a_hi; /* run-to-run spread: lowest/highest run of A */
	double b_lo, b_hi;
	enum compare_verdict verdict;
	/* A percentile some run of either side has too few samples for (its
	 * 95 % interval would run past the data, pct_interval()): not
	 * compared; every figure above NaN, verdict CMP_NO_DIFFERENCE.
	 * need: the samples it needs; fewest: the smallest run's. */
	bool too_few;
	uint64_t need, fewest;
	/* Each side's merged percentile's own 95 % interval (order
	 * statistics, histogram_percentile_ci()); NaN for min and mean, and
	 * when too_few. */
	double a_ci_lo, a_ci_hi, b_ci_lo, b_ci_hi;
};

/*
 * Percentile bootstrap of b - a for every figure, n_boot resamples (>= 20)
 * from seed. A resample of a group draws its runs with replacement (when
 * it has more than one), then each drawn run's counts multinomially from
 * its own histogram, and merges them; with one run per side only the
 * samples are resampled, so the interval ignores run-to-run variance.
 * A percentile is compared only when every run of both sides has enough
 * samples for it (too_few).
 * 0, -EINVAL (an empty side, an empty histogram, n_boot < 20) or -ENOMEM.
 */
int compare_bootstrap(const struct compare_group *a,
		      const struct compare_group *b, unsigned n_boot,
		      uint64_t seed, struct compare_diff out[CMP__STATS]);

/*
 * Mann-Whitney U of B against A from the two histograms: values in one
 * counter are ties (HdrHistogram precision), U_B = sum over B's values of
 * (A's values below + half of A's in the same counter). z from the normal
 * approximation with the tie correction (no continuity correction),
 * p two-sided; prob_b_greater = U_B / (n_a n_b) (0.5: no shift).
 * 0 or -EINVAL (an empty side).
 */
struct compare_mwu {
	uint64_t n_a, n_b;
	double u_b;
	double z;
	double p;
	double prob_b_greater;
};

int compare_mann_whitney(const struct histogram *a, const struct histogram *b,
			 struct compare_mwu *out);

#endif /* LATPROBE_COMPARE_H */
