/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_STALL_H
#define LATPROBE_STALL_H

/*
 * Stall detection in a poll loop (issue 29): the loop reads its clock once
 * an iteration (stall_tick()); a gap between two reads above the threshold
 * means the loop was not running for that long (the hypervisor took the
 * vCPU, an interrupt, another task on the CPU) and is a stall: counted, its
 * length added to the total, the longest kept, and its length put in a
 * 1-2-5 histogram. The end of the latest stall (clock) tells a caller
 * whether something it timed overlapped one: a stall that ended after t
 * started before now, so it overlaps [t, now] (stall_since()).
 *
 * Single writer (the worker); counters read relaxed by other threads
 * (util_relaxed_read()). Times in the clock's cycles; the histogram in ns.
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/timing.h"

/* Upper bounds (ns) of the duration histogram's buckets; the last one
 * holds everything longer. */
#define STALL_BUCKETS 19
extern const uint64_t stall_bucket_upper_ns[STALL_BUCKETS];

/* --stall-threshold's default (see docs/usage.md for why 5 us). */
#define STALL_DEFAULT_THRESHOLD_NS 5000u

struct stall_stats {
	uint64_t count;
	uint64_t total_ns;
	uint64_t longest_ns;
	uint64_t hist[STALL_BUCKETS]; /* by duration: stall_bucket_upper_ns */
};

struct stall_det {
	uint64_t last;	   /* clock at the previous iteration */
	uint64_t thr;	   /* cycles; UINT64_MAX = off */
	uint64_t last_end; /* clock when the latest stall ended; 0: none */
	uint64_t last_len; /* its length, cycles */
	const struct tsc_clock *clock;
	struct stall_stats st;
};

/* threshold_ns 0: detection off (no stall ever). */
void stall_init(struct stall_det *d, const struct tsc_clock *clock,
		uint64_t threshold_ns);

/* Out of line: a gap of gap cycles that ended at now was a stall. */
void stall_note(struct stall_det *d, uint64_t now, uint64_t gap);

/* One loop iteration at clock now. */
static inline __attribute__((always_inline)) void
stall_tick(struct stall_det *d, uint64_t now)
{
	uint64_t gap = now - d->last;

	d->last = now;
	if (__builtin_expect(gap > d->thr, 0))
		stall_note(d, now, gap);
}

/* Start watching afresh from now (after work that is not the poll loop:
 * the gap up to now is not looked at). */
static inline void
stall_rebase(struct stall_det *d, uint64_t now)
{
	d->last = now;
}

/* Is anything watched (a threshold set)? */
static inline bool
stall_on(const struct stall_det *d)
{
	return d->thr != UINT64_MAX;
}

/* Did a stall overlap [t, the last tick]? */
static inline bool
stall_since(const struct stall_det *d, uint64_t t)
{
	return d->last_end > t;
}

/* The bucket of a stall of ns. */
unsigned stall_bucket(uint64_t ns);

/* Relaxed copy of d's counters (another thread, while the worker runs). */
void stall_stats_read(const struct stall_stats *s, struct stall_stats *out);
/* dst += src. */
void stall_stats_add(struct stall_stats *dst, const struct stall_stats *src);

#endif /* LATPROBE_STALL_H */
