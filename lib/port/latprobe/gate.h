/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_GATE_H
#define LATPROBE_GATE_H

/*
 * The unmap gate around memif bursts. DPDK's memif PMD (22.11 and still in
 * 25.x) unmaps a port's shared rings from the EAL interrupt thread when the
 * peer goes away (memif_disconnect()), with nothing to keep out a lcore
 * that passed the PMD's "connected" check and was preempted inside its rx
 * or tx burst: that lcore resumes on an unmapped ring and dies of SIGSEGV.
 * This library defines munmap() for the process: while a slot is inside a
 * burst, munmap() waits for it to leave, and a burst that would begin while
 * an munmap() runs is skipped (0 packets). memif_disconnect() clears the
 * flag before it unmaps, so the bursts after it return without touching
 * the rings. docs/design.md, "memif disconnect", has the evidence.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define GATE_MAX_SLOTS 64

/* One queue's bursts (the queue has one lcore). */
struct gate_slot {
	atomic_int busy;
	char pad[64 - sizeof(atomic_int)];
};

/*
 * The two flags every burst reads: hidden (this project's executables and
 * tests link the library statically), so a burst loads them straight,
 * without a GOT indirection.
 */
#define GATE_HIDDEN __attribute__((visibility("hidden")))

/* Non-zero while an munmap() runs. */
extern atomic_int gate_closed GATE_HIDDEN;
/*
 * True when munmap() fences every thread of the process itself
 * (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED, registered with the first
 * slot): a burst then needs no fence of its own between saying it is busy
 * and reading gate_closed, only plain stores and a load. False (no
 * membarrier): that store is sequentially consistent.
 */
extern atomic_bool gate_fenced GATE_HIDDEN;

/* A slot, or NULL when all GATE_MAX_SLOTS are taken (slots are never given
 * back: a slot of a closed port stays idle). */
struct gate_slot *gate_slot_get(void);

/* Enter a burst: false (do not burst) while an munmap() runs. */
static inline bool
gate_enter(struct gate_slot *s)
{
	if (atomic_load_explicit(&gate_fenced, memory_order_relaxed)) {
		atomic_store_explicit(&s->busy, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	} else {
		atomic_store_explicit(&s->busy, 1, memory_order_seq_cst);
	}
	if (atomic_load_explicit(&gate_closed, memory_order_acquire) == 0)
		return true;
	atomic_store_explicit(&s->busy, 0, memory_order_release);
	return false;
}

static inline void
gate_leave(struct gate_slot *s)
{
	atomic_store_explicit(&s->busy, 0, memory_order_release);
}

/* How many munmap() calls found a burst in flight and waited for it. */
uint64_t gate_waited(void);

#endif
