/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_BENCH_CLOCK_H
#define LATPROBE_BENCH_CLOCK_H

/*
 * The clocks the benchmark programs time their loops with (bench/tools,
 * bench/histogram): header-only, no project library, no DPDK.
 */

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t
bench_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC_RAW in ns (not slewed by NTP): what TSC rates are
 * measured against. */
static inline uint64_t
bench_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Plain rdtsc, unordered: for loops long enough that ordering at the edges
 * is noise; 0 off x86. */
static inline uint64_t
bench_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return 0;
#endif
}

#endif /* LATPROBE_BENCH_CLOCK_H */
