/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor: cache-line ping-pong between two pinned threads.
 *
 * One message in flight: the pinger writes an odd token into a shared cache
 * line, the ponger answers with token + 1. A round trip is two cache-line
 * transfers between the two cores, which is the physical floor of any
 * inter-core (and so any inter-process) hand-off on this machine: no
 * latprobe RTT between two lcores can go below it.
 *
 * Self-contained on purpose (no project library): it is the yardstick the
 * rest is compared against.
 */

/* pthread_setaffinity_np, CPU_SET: also set by the project's meson. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "sorted.h"

#define FLOOR_DEFAULT_COUNT 1000000u
#define FLOOR_MAX_COUNT	    100000000u
#define FLOOR_WARMUP	    10000u
#define CACHE_LINE	    64
/* Sanity bound so a descheduled ponger cannot hang the run (seconds). */
#define FLOOR_MAX_SECONDS   60

/* Alone in its line so that only the token moves between the cores. */
struct shared_line {
	_Alignas(CACHE_LINE) _Atomic uint64_t token;
	char pad[CACHE_LINE - sizeof(uint64_t)];
};

static struct shared_line line;
static _Atomic bool abort_run;

static inline void
cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#endif
}

static inline uint64_t
tsc_start(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	/* lfence keeps rdtsc from running ahead of earlier loads. */
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline uint64_t
tsc_stop(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi, aux;

	/* rdtscp waits for earlier instructions; lfence for later ones. */
	__asm__ volatile("rdtscp\n\tlfence"
			 : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return tsc_start();
#endif
}

/* TSC ticks per second, measured against CLOCK_MONOTONIC_RAW over ~200 ms. */
static double
tsc_hz_measure(void)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = 200 * 1000 * 1000};
	uint64_t t0, t1, c0, c1;

	t0 = bench_raw_ns();
	c0 = tsc_start();
	nanosleep(&nap, NULL);
	t1 = bench_raw_ns();
	c1 = tsc_stop();
	if (t1 <= t0)
		return 0.0;
	return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

static int
pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct ponger_arg {
	int cpu;
	uint64_t rounds;
	int err;
};

static void *
ponger(void *p)
{
	struct ponger_arg *arg = p;
	uint64_t i, want;

	arg->err = pin_self(arg->cpu);
	if (arg->err != 0)
		return NULL;
	for (i = 0; i < arg->rounds; i++) {
		want = 2 * i + 1;
		while (atomic_load_explicit(&line.token,
					    memory_order_acquire) != want) {
			if (atomic_load_explicit(&abort_run,
						 memory_order_relaxed))
				return NULL;
			cpu_relax();
		}
		atomic_store_explicit(&line.token, want + 1,
				      memory_order_release);
	}
	return NULL;
}

/* Cost of an empty lfence;rdtsc ... rdtscp;lfence pair, minimum of many. */
static uint64_t
tsc_pair_overhead(void)
{
	uint64_t best = UINT64_MAX, a, b;
	int i;

	for (i = 0; i < 100000; i++) {
		a = tsc_start();
		b = tsc_stop();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n COUNT] [-w WARMUP] [--cpus A,B] [--json]\n"
		"  cache-line ping-pong between two pinned threads;\n"
		"  COUNT round trips (default %u, max %u)\n",
		prog, FLOOR_DEFAULT_COUNT, FLOOR_MAX_COUNT);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"cpus", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	uint64_t count = FLOOR_DEFAULT_COUNT, warmup = FLOOR_WARMUP;
	uint64_t i, t0, t1, total0, total1, deadline, overhead, *rtt;
	struct ponger_arg parg;
	int cpu_a = 0, cpu_b = 1, opt, rc;
	bool json = false;
	pthread_t thr;
	double hz, ns;
	char *end;

	while ((opt = getopt_long(argc, argv, "n:w:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			count = strtoull(optarg, &end, 0);
			if (errno != 0 || *end != '\0' || count == 0 ||
			    count > FLOOR_MAX_COUNT) {
				fprintf(stderr, "bad -n %s\n", optarg);
				return 2;
			}
			break;
		case 'w':
			errno = 0;
			warmup = strtoull(optarg, &end, 0);
			if (errno != 0 || *end != '\0' ||
			    warmup > FLOOR_MAX_COUNT) {
				fprintf(stderr, "bad -w %s\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (sscanf(optarg, "%d,%d", &cpu_a, &cpu_b) != 2 ||
			    cpu_a < 0 || cpu_b < 0 || cpu_a == cpu_b) {
				fprintf(stderr, "bad --cpus %s\n", optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		default:
			usage(argv[0]);
			return opt == 'H' || opt == 'h' ? 0 : 2;
		}
	}

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		/* 77: meson's "skipped". */
		fprintf(stderr, "floor: needs two CPUs, skipping\n");
		return 77;
	}

	rtt = calloc(count, sizeof(*rtt));
	if (rtt == NULL) {
		perror("calloc");
		return 1;
	}
	if (pin_self(cpu_a) != 0) {
		fprintf(stderr, "floor: cannot pin to CPU %d\n", cpu_a);
		free(rtt);
		return 1;
	}

	hz = tsc_hz_measure();
	overhead = tsc_pair_overhead();

	parg.cpu = cpu_b;
	parg.rounds = warmup + count;
	parg.err = 0;
	atomic_store(&line.token, 0);
	rc = pthread_create(&thr, NULL, ponger, &parg);
	if (rc != 0) {
		fprintf(stderr, "pthread_create: %s\n", strerror(rc));
		free(rtt);
		return 1;
	}

	deadline = bench_raw_ns() + (uint64_t)FLOOR_MAX_SECONDS * 1000000000u;
	total0 = 0;
	for (i = 0; i < warmup + count; i++) {
		uint64_t want = 2 * i + 2;

		if (i == warmup)
			total0 = tsc_start();
		t0 = tsc_start();
		atomic_store_explicit(&line.token, want - 1,
				      memory_order_release);
		while (atomic_load_explicit(&line.token,
					    memory_order_acquire) != want) {
			cpu_relax();
		}
		t1 = tsc_stop();
		if (i >= warmup)
			rtt[i - warmup] = t1 - t0;
		/* Clock read off the hot path: only every 64 Ki rounds. */
		if ((i & 0xffff) == 0 && bench_raw_ns() > deadline) {
			atomic_store(&abort_run, true);
			break;
		}
	}
	total1 = tsc_stop();
	pthread_join(thr, NULL);
	if (parg.err != 0) {
		fprintf(stderr, "floor: cannot pin to CPU %d: %s\n", cpu_b,
			strerror(parg.err));
		free(rtt);
		return 1;
	}
	if (i < warmup + count) {
		fprintf(stderr, "floor: stopped after %d s\n",
			FLOOR_MAX_SECONDS);
		count = i > warmup ? i - warmup : 0;
		if (count == 0) {
			free(rtt);
			return 1;
		}
	}

	qsort(rtt, count, sizeof(*rtt), cmp_u64);
	ns = hz > 0 ? 1e9 / hz : 0.0;

	if (json) {
		printf("{\"tool\":\"floor\",\"cpus\":[%d,%d],"
		       "\"count\":%" PRIu64 ",\"tsc_hz\":%.0f,"
		       "\"tsc_pair_overhead_cycles\":%" PRIu64 ","
		       "\"rtt_cycles\":{\"min\":%" PRIu64 ",\"p50\":%" PRIu64
		       ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 ","
		       "\"mean\":%.1f},"
		       "\"rtt_ns\":{\"min\":%.1f,\"p50\":%.1f,\"p99\":%.1f,"
		       "\"max\":%.1f,\"mean\":%.1f}}\n",
		       cpu_a, cpu_b, count, hz, overhead, rtt[0],
		       pct(rtt, count, 50), pct(rtt, count, 99), rtt[count - 1],
		       (double)(total1 - total0) / (double)count,
		       (double)rtt[0] * ns, (double)pct(rtt, count, 50) * ns,
		       (double)pct(rtt, count, 99) * ns,
		       (double)rtt[count - 1] * ns,
		       (double)(total1 - total0) / (double)count * ns);
	} else {
		printf("floor: cache-line ping-pong CPU %d <-> CPU %d, "
		       "%" PRIu64 " round trips\n",
		       cpu_a, cpu_b, count);
		printf("  TSC %.3f MHz (vs CLOCK_MONOTONIC_RAW, 200 ms); "
		       "timestamp pair overhead %" PRIu64 " cycles\n",
		       hz / 1e6, overhead);
		printf("  %-6s %10s %10s\n", "", "cycles", "ns");
		printf("  %-6s %10" PRIu64 " %10.1f\n", "min", rtt[0],
		       (double)rtt[0] * ns);
		printf("  %-6s %10" PRIu64 " %10.1f\n", "p50",
		       pct(rtt, count, 50), (double)pct(rtt, count, 50) * ns);
		printf("  %-6s %10" PRIu64 " %10.1f\n", "p99",
		       pct(rtt, count, 99), (double)pct(rtt, count, 99) * ns);
		printf("  %-6s %10" PRIu64 " %10.1f\n", "max", rtt[count - 1],
		       (double)rtt[count - 1] * ns);
		printf("  %-6s %10.1f %10.1f  (total / count, no per-trip "
		       "timestamps)\n",
		       "mean", (double)(total1 - total0) / (double)count,
		       (double)(total1 - total0) / (double)count * ns);
	}
	free(rtt);
	return 0;
}
