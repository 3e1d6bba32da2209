/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_BENCH_SORTED_H
#define LATPROBE_BENCH_SORTED_H

/*
 * Exact percentiles of a sorted sample array, shared by the standalone
 * benchmark programs (floor, rawping), which link no project library.
 */

#include <stdint.h>

static inline int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static inline uint64_t
pct(const uint64_t *v, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)((p / 100.0) * (double)n + 0.999999);

	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

#endif /* LATPROBE_BENCH_SORTED_H */
