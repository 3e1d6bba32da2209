/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * histinsn: a driver for counting the instructions of histogram_record()
 * under `valgrind --tool=callgrind` where hardware counters are not
 * available (perf stat -e instructions says "not supported" in most VMs).
 *
 *   valgrind --tool=callgrind --callgrind-out-file=F histinsn [N]
 *   callgrind_annotate F | grep -E 'record_loop|baseline_loop'
 *
 * histogram_record() is static inline, so callgrind cannot see it as a
 * function: it is inlined into record_loop(), which is noinline, and
 * baseline_loop() runs the same loop over the same values without recording
 * (one add each). (Ir(record_loop) - Ir(baseline_loop)) / N is the cost of a
 * record; Ir(record_loop) / N includes the loop. tools/bench does that.
 *
 * The values are round trips as on a VM pair (median 25 us, long tail), so
 * that the counter index, min and max branches behave as in a real run.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "latprobe/histogram.h"
#include "latprobe/util.h"

#define DEFAULT_N 1000000u
#define MAX_N	  100000000u

static volatile uint64_t sink;

__attribute__((noinline)) void record_loop(struct histogram *h,
					   const uint64_t *v, size_t n);
__attribute__((noinline)) uint64_t baseline_loop(const uint64_t *v, size_t n);

__attribute__((noinline)) void
record_loop(struct histogram *h, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		histogram_record(h, v[i]);
}

__attribute__((noinline)) uint64_t
baseline_loop(const uint64_t *v, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		/* One scalar add per value: no vectorising. */
		__asm__ volatile("" : "+r"(sum));
	}
	return sum;
}

int
main(int argc, char **argv)
{
	struct histogram *h;
	uint64_t *v, seed = 12345, n = DEFAULT_N;
	char *end;

	if (argc > 1) {
		errno = 0;
		n = strtoull(argv[1], &end, 0);
		if (errno != 0 || *end != '\0' || n == 0 || n > MAX_N) {
			fprintf(stderr, "usage: %s [N (1..%u)]\n", argv[0],
				MAX_N);
			return 2;
		}
	}
	v = malloc(n * sizeof(*v));
	h = histogram_create();
	if (v == NULL || h == NULL) {
		perror("histinsn");
		free(v);
		histogram_destroy(h);
		return 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		double z = sqrt(-2.0 * log(util_rng_unit(&seed))) *
			   cos(2.0 * M_PI * util_rng_unit(&seed));
		double x = 25000.0 * exp(0.5 * z);

		v[i] = x < 1.0 ? 1 : (uint64_t)x;
	}
	record_loop(h, v, n);
	sink += baseline_loop(v, n);
	printf("{\"tool\":\"histinsn\",\"records\":%" PRIu64
	       ",\"total\":%" PRIu64 "}\n",
	       n, h->total);
	free(v);
	histogram_destroy(h);
	return 0;
}
