/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stall: how often a busy-polling CPU loses the CPU, and for how long.
 *
 * Pinned to one CPU, reads the TSC back to back for a given time and counts
 * the gaps between two reads above 10 us, 100 us and 1 ms (timer ticks,
 * interrupts, the hypervisor, other tasks on that CPU). An open-loop sender
 * on that CPU is behind its schedule by at least such a gap whenever a send
 * falls in it: tools/bench prints this next to the open-loop search, whose
 * strict criterion (never more than 10 us behind) no sender can meet on a
 * machine that stalls a busy CPU for longer than that.
 *
 * Self-contained on purpose (no project library), as floor.
 */

/* sched_setaffinity, CPU_SET: also set by the project's meson. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"

#define STALL_DEFAULT_MS 1000u
#define STALL_MAX_MS	 60000u

static inline uint64_t
tsc_read(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* TSC ticks per second, measured against CLOCK_MONOTONIC_RAW over ~100 ms. */
static double
tsc_hz_measure(void)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = 100000000L};
	uint64_t t0, t1, c0, c1;

	t0 = bench_raw_ns();
	c0 = tsc_read();
	nanosleep(&nap, NULL);
	t1 = bench_raw_ns();
	c1 = tsc_read();
	if (t1 <= t0 || c1 <= c0)
		return 0.0;
	return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--cpu N] [--ms T] [--threshold-ns N] [--json]\n"
		"  spin on CPU N (default 0) for T ms (default %u, max %u) "
		"and\n"
		"  count the gaps between two TSC reads above 10 us, 100 us, "
		"1 ms\n",
		prog, STALL_DEFAULT_MS, STALL_MAX_MS);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"cpu", required_argument, NULL, 'c'},
		{"ms", required_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},
		{"threshold-ns", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t n10 = 0, n100 = 0, n1000 = 0, lost = 0, max = 0, nthr = 0;
	uint64_t c10, c100, c1000, cthr, prev, now, gap, end;
	unsigned long thr_ns = 5000;
	unsigned long ms = STALL_DEFAULT_MS, cpu = 0;
	bool json = false;
	cpu_set_t set;
	double hz, secs;
	char *tail;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			errno = 0;
			cpu = strtoul(optarg, &tail, 10);
			if (errno != 0 || *tail != '\0' || cpu >= CPU_SETSIZE) {
				fprintf(stderr, "stall: bad --cpu %s\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			errno = 0;
			ms = strtoul(optarg, &tail, 10);
			if (errno != 0 || *tail != '\0' || ms == 0 ||
			    ms > STALL_MAX_MS) {
				fprintf(stderr, "stall: bad --ms %s\n", optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		case 't':
			errno = 0;
			thr_ns = strtoul(optarg, &tail, 10);
			if (errno != 0 || *tail != '\0' || thr_ns == 0 ||
			    thr_ns > 1000000000ul) {
				fprintf(stderr,
					"stall: bad --threshold-ns %s\n",
					optarg);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "stall: cannot pin to CPU %lu\n", cpu);
		return 1;
	}
	hz = tsc_hz_measure();
	if (hz <= 0.0) {
		fprintf(stderr, "stall: cannot measure the TSC rate\n");
		return 1;
	}
	c10 = (uint64_t)(hz * 10e-6);
	c100 = (uint64_t)(hz * 100e-6);
	c1000 = (uint64_t)(hz * 1e-3);
	cthr = (uint64_t)(hz * (double)thr_ns * 1e-9);
	prev = tsc_read();
	end = prev + (uint64_t)(hz * (double)ms / 1000.0);
	do {
		now = tsc_read();
		gap = now - prev;
		prev = now;
		if (gap > max)
			max = gap;
		nthr += gap > cthr;
		if (gap > c10) {
			n10++;
			lost += gap;
			n100 += gap > c100;
			n1000 += gap > c1000;
		}
	} while (now < end);

	secs = (double)ms / 1000.0;
	if (json) {
		printf("{\"tool\":\"stall\",\"cpu\":%lu,\"seconds\":%.3f,"
		       "\"tsc_hz\":%.0f,\"over_10us\":%" PRIu64
		       ",\"over_100us\":%" PRIu64 ",\"over_1ms\":%" PRIu64
		       ",\"over_10us_per_s\":%.1f,\"max_us\":%.1f,"
		       "\"lost_share\":%.6f,\"threshold_ns\":%lu,"
		       "\"over_threshold\":%" PRIu64 "}\n",
		       cpu, secs, hz, n10, n100, n1000, (double)n10 / secs,
		       (double)max / hz * 1e6, (double)lost / hz / secs, thr_ns,
		       nthr);
	} else {
		printf("stall: CPU %lu, %.3f s busy: %" PRIu64
		       " gaps > 10 us (%.1f/s), %" PRIu64 " > 100 us, %" PRIu64
		       " > 1 ms; longest %.1f us; %.2f %% of the time lost\n",
		       cpu, secs, n10, (double)n10 / secs, n100, n1000,
		       (double)max / hz * 1e6,
		       100.0 * (double)lost / hz / secs);
	}
	return 0;
}
