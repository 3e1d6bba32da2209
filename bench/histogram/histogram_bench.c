/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro-benchmark of lib/histogram: what one record costs on the data path
 * next to an empty loop over the same values, and what the reporter pays
 * for a snapshot, a merge and a percentile. Runs in well under 5 s.
 *
 * Usage: histogram_bench [--json]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "latprobe/histogram.h"
#include "latprobe/util.h"

#define N_VALUES      (1u << 16) /* 512 KiB of values: L2-resident, as a burst */
#define RECORD_PASSES 64	 /* 4 Mi records per measurement */
#define REPEATS	      5		 /* median of 5 measurements */

/* Round trips between two VMs: median 25 µs, long right tail. */
static void
gen_values(uint64_t *v, size_t n)
{
	uint64_t seed = 12345;
	size_t i;

	for (i = 0; i < n; i++) {
		double z = sqrt(-2.0 * log(util_rng_unit(&seed))) *
			   cos(2.0 * M_PI * util_rng_unit(&seed));
		double x = 25000.0 * exp(0.5 * z);

		v[i] = x < 1.0 ? 1 : (uint64_t)x;
	}
}

struct result {
	double ns;     /* per operation */
	double cycles; /* TSC ticks per operation */
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of REPEATS, per-op, so one preemption does not skew it. */
static struct result
median(double *ns, double *cy)
{
	struct result r;

	qsort(ns, REPEATS, sizeof(*ns), cmp_double);
	qsort(cy, REPEATS, sizeof(*cy), cmp_double);
	r.ns = ns[REPEATS / 2];
	r.cycles = cy[REPEATS / 2];
	return r;
}

/* Results land here so the compiler cannot drop the work. */
static volatile uint64_t sink;

static struct result
bench_record(struct histogram *h, const uint64_t *v)
{
	double ns[REPEATS], cy[REPEATS];
	unsigned r, p, i;

	for (r = 0; r < REPEATS; r++) {
		uint64_t t0 = bench_mono_ns(), c0 = bench_rdtsc();

		for (p = 0; p < RECORD_PASSES; p++)
			for (i = 0; i < N_VALUES; i++)
				histogram_record(h, v[i]);
		cy[r] = (double)(bench_rdtsc() - c0) /
			(N_VALUES * RECORD_PASSES);
		ns[r] = (double)(bench_mono_ns() - t0) /
			(N_VALUES * RECORD_PASSES);
	}
	return median(ns, cy);
}

static struct result
bench_baseline(const uint64_t *v)
{
	double ns[REPEATS], cy[REPEATS];
	unsigned r, p, i;

	for (r = 0; r < REPEATS; r++) {
		uint64_t t0 = bench_mono_ns(), c0 = bench_rdtsc(), sum = 0;

		for (p = 0; p < RECORD_PASSES; p++)
			for (i = 0; i < N_VALUES; i++) {
				sum += v[i];
				/* Keep it one scalar add per value, like
				 * the record loop (no vectorising). */
				__asm__ volatile("" : "+r"(sum));
			}
		cy[r] = (double)(bench_rdtsc() - c0) /
			(N_VALUES * RECORD_PASSES);
		ns[r] = (double)(bench_mono_ns() - t0) /
			(N_VALUES * RECORD_PASSES);
		sink += sum;
	}
	return median(ns, cy);
}

enum op { OP_SNAPSHOT, OP_MERGE, OP_PERCENTILE, OP_INTERVAL };

static struct result
bench_op(enum op op, unsigned iters, const struct histogram *h,
	 struct histogram *a, struct histogram *b)
{
	static const double pcts[] = {50, 90, 99, 99.9, 99.99, 99.999};
	double ns[REPEATS], cy[REPEATS];
	unsigned r, i, k;

	for (r = 0; r < REPEATS; r++) {
		uint64_t t0 = bench_mono_ns(), c0 = bench_rdtsc();

		for (i = 0; i < iters; i++) {
			switch (op) {
			case OP_SNAPSHOT:
				histogram_snapshot(h, a);
				break;
			case OP_MERGE:
				histogram_merge(a, h);
				break;
			case OP_INTERVAL:
				histogram_interval(b, h, a);
				break;
			case OP_PERCENTILE:
				for (k = 0; k < 6; k++)
					sink += histogram_percentile(h,
								     pcts[k]);
				break;
			}
			__asm__ volatile("" ::: "memory");
		}
		cy[r] = (double)(bench_rdtsc() - c0) / iters;
		ns[r] = (double)(bench_mono_ns() - t0) / iters;
	}
	if (op == OP_PERCENTILE) {
		for (r = 0; r < REPEATS; r++) {
			ns[r] /= 6;
			cy[r] /= 6;
		}
	}
	return median(ns, cy);
}

int
main(int argc, char **argv)
{
	struct histogram *h, *a, *b;
	struct result rec, base, snap, merge, ival, pct;
	uint64_t *v, t0, c0;
	double ticks_per_ns, p99;
	int json = argc > 1 && strcmp(argv[1], "--json") == 0;

	if (argc > 1 && !json) {
		fprintf(stderr, "usage: %s [--json]\n", argv[0]);
		return 2;
	}
	v = malloc(N_VALUES * sizeof(*v));
	h = histogram_create();
	a = histogram_create();
	b = histogram_create();
	if (v == NULL || h == NULL || a == NULL || b == NULL) {
		perror("histogram_bench");
		free(v);
		histogram_destroy(h);
		histogram_destroy(a);
		histogram_destroy(b);
		return 1;
	}
	gen_values(v, N_VALUES);

	t0 = bench_mono_ns();
	c0 = bench_rdtsc();
	/* Warm the counters and the value array first. */
	for (unsigned i = 0; i < N_VALUES; i++)
		histogram_record(h, v[i]);
	base = bench_baseline(v);
	rec = bench_record(h, v);
	snap = bench_op(OP_SNAPSHOT, 20000, h, a, b);
	merge = bench_op(OP_MERGE, 20000, h, a, b);
	histogram_snapshot(h, a);
	ival = bench_op(OP_INTERVAL, 20000, h, a, b);
	pct = bench_op(OP_PERCENTILE, 20000, h, a, b);
	ticks_per_ns =
		(double)(bench_rdtsc() - c0) / (double)(bench_mono_ns() - t0);
	p99 = (double)histogram_percentile(h, 99.0);

	if (json) {
		printf("{\"record_ns\": %.3f, \"record_cycles\": %.2f, "
		       "\"baseline_ns\": %.3f, \"baseline_cycles\": %.2f, "
		       "\"record_over_baseline\": %.2f, "
		       "\"snapshot_ns\": %.1f, \"merge_ns\": %.1f, "
		       "\"interval_ns\": %.1f, \"percentile_ns\": %.1f, "
		       "\"tsc_ticks_per_ns\": %.4f, \"records\": %llu, "
		       "\"p99_ns\": %.0f}\n",
		       rec.ns, rec.cycles, base.ns, base.cycles,
		       rec.ns / base.ns, snap.ns, merge.ns, ival.ns, pct.ns,
		       ticks_per_ns, (unsigned long long)histogram_count(h),
		       p99);
	} else {
		printf("histogram_bench: %u log-normal values (median 25 us), "
		       "median of %d runs, TSC %.3f ticks/ns\n",
		       N_VALUES, REPEATS, ticks_per_ns);
		printf("  record     %8.2f ns  %8.2f ticks  (%.1fx baseline)\n",
		       rec.ns, rec.cycles, rec.ns / base.ns);
		printf("  baseline   %8.2f ns  %8.2f ticks  (sum of values)\n",
		       base.ns, base.cycles);
		printf("  snapshot   %8.1f ns  %8.0f ticks\n", snap.ns,
		       snap.cycles);
		printf("  merge      %8.1f ns  %8.0f ticks\n", merge.ns,
		       merge.cycles);
		printf("  interval   %8.1f ns  %8.0f ticks\n", ival.ns,
		       ival.cycles);
		printf("  percentile %8.1f ns  %8.0f ticks  (mean of 6 "
		       "percentiles, full scan)\n",
		       pct.ns, pct.cycles);
		printf("  (%llu values recorded, p99 %.1f us)\n",
		       (unsigned long long)histogram_count(h), p99 / 1000.0);
	}
	free(v);
	histogram_destroy(h);
	histogram_destroy(a);
	histogram_destroy(b);
	return 0;
}
