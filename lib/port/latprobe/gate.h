/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_GATE_H
#define LATPROBE_GATE_H

/*
 * The unmap gate around memif bursts. DPDK's memif PMD (22.11 and still in
 * 26.07) unmaps a port's shared rings from the EAL interrupt thread when the
 * peer goes away (memif_disconnect()), with nothing to keep out a lcore
 * that passed the PMD's "connected" check and was preempted inside its rx
 * or tx burst: that lcore resumes on an unmapped ring and dies of SIGSEGV.
 * This library defines munmap() for the process: an munmap() by a thread
 * that can race a burst (gate_set_racer(): the EAL interrupt thread) waits
 * until no other thread is inside a burst, and a burst that would begin
 * while it runs is skipped (0 packets). memif_disconnect() clears the flag
 * before it unmaps, so the bursts after it return without touching the
 * rings. Every other munmap() is the next one in the symbol lookup order
 * (libc's, or an interposer's: ASan, a preload) after three loads and the
 * racer test. docs/design.md, "memif disconnect", has the evidence.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define GATE_MAX_SLOTS 64

/* One queue's bursts (the queue has one lcore). */
struct gate_slot {
	/* 0, or the thread inside a burst (gate_self()): munmap() does not
	 * wait for a burst of its own caller. */
	atomic_uintptr_t busy;
	char pad[64 - sizeof(atomic_uintptr_t)];
};

/*
 * The two flags every burst reads: hidden (this project's executables and
 * tests link the library statically), so a burst loads them straight,
 * without a GOT indirection.
 */
#define GATE_HIDDEN __attribute__((visibility("hidden")))

/* The number of gated munmap() calls running (0: the gate is open). */
extern atomic_int gate_closed GATE_HIDDEN;
/*
 * True when munmap() fences every thread of the process itself
 * (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED, registered before the
 * first slot is counted): a burst then needs no fence of its own between
 * saying it is busy and reading gate_closed, only plain stores and a load.
 * False (no membarrier): that store and that load are sequentially
 * consistent (the Dekker pattern C11 needs both for).
 */
extern atomic_bool gate_fenced GATE_HIDDEN;
/* A byte per thread whose address names the thread (initial-exec TLS:
 * no call to reach it, also from a signal handler). */
extern __thread char gate_tls GATE_HIDDEN
	__attribute__((tls_model("initial-exec")));

static inline uintptr_t
gate_self(void)
{
	return (uintptr_t)&gate_tls;
}

/* A slot, or NULL when all GATE_MAX_SLOTS are taken (slots are never given
 * back: a slot of a closed port stays idle). */
struct gate_slot *gate_slot_get(void);

/*
 * Which threads' munmap() calls are gated: those for which is_racer()
 * returns non-zero (rte_thread_is_intr: memif_disconnect() runs on the EAL
 * interrupt thread; the other memif unmaps, at port stop or close, come
 * after the lcores stopped). NULL (the default): every thread's. It must
 * be async-signal-safe: munmap() calls it.
 */
void gate_set_racer(int (*is_racer)(void));

/* Enter a burst: false (do not burst) while a gated munmap() runs. */
static inline bool
gate_enter(struct gate_slot *s)
{
	if (atomic_load_explicit(&gate_fenced, memory_order_relaxed)) {
		atomic_store_explicit(&s->busy, gate_self(),
				      memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		if (atomic_load_explicit(&gate_closed, memory_order_acquire) ==
		    0)
			return true;
	} else {
		atomic_store_explicit(&s->busy, gate_self(),
				      memory_order_seq_cst);
		if (atomic_load_explicit(&gate_closed, memory_order_seq_cst) ==
		    0)
			return true;
	}
	atomic_store_explicit(&s->busy, 0, memory_order_release);
	return false;
}

static inline void
gate_leave(struct gate_slot *s)
{
	atomic_store_explicit(&s->busy, 0, memory_order_release);
}

/* How many gated munmap() calls found a burst in flight and waited. */
uint64_t gate_waited(void);

#endif
