/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_IO_LINK_H
#define LATPROBE_IO_LINK_H

/*
 * The link state of a port as the engines see it: written by one
 * control thread (the side thread, or a PMD's link-state callback through
 * it), read relaxed by the workers when a probe is lost (never on the
 * per-probe path). Times are the io table's clock (the TSC on DPDK), so a
 * worker compares them with its probe's T1 directly.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct io_link {
	/* Clock when the link was seen down, 0 while it is up. */
	_Atomic uint64_t down_since;
	/* Clock of the latest down and up transitions (0: none yet). */
	_Atomic uint64_t last_down, last_up;
	/* The device is being removed: stop using the queue at once. */
	atomic_bool removed;
};

/* Writer: the link went down at clock now (now > 0). */
static inline void
io_link_set_down(struct io_link *l, uint64_t now)
{
	atomic_store_explicit(&l->last_down, now, memory_order_relaxed);
	atomic_store_explicit(&l->down_since, now, memory_order_relaxed);
}

/* Writer: the link is up again at clock now. */
static inline void
io_link_set_up(struct io_link *l, uint64_t now)
{
	atomic_store_explicit(&l->last_up, now, memory_order_relaxed);
	atomic_store_explicit(&l->down_since, 0, memory_order_relaxed);
}

/*
 * A probe that left at t1 and was lost: was the link down at some time in
 * its flight? It is down now, or went down after t1, or came up after t1
 * (so it was down at t1). Only the latest down period matters: any earlier
 * one ended before it began. Then the loss is the link's, not the path's.
 * l may be NULL (no link state: never).
 */
static inline bool
io_link_lost(const struct io_link *l, uint64_t t1)
{
	uint64_t last;

	if (l == NULL)
		return false;
	if (atomic_load_explicit(&l->down_since, memory_order_relaxed) != 0)
		return true;
	last = atomic_load_explicit(&l->last_down, memory_order_relaxed);
	if (last != 0 && last >= t1)
		return true;
	last = atomic_load_explicit(&l->last_up, memory_order_relaxed);
	return last != 0 && last >= t1;
}

#endif /* LATPROBE_IO_LINK_H */
