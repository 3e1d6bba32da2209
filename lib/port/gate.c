/* SPDX-License-Identifier: BSD-3-Clause */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_pause.h>

#include "latprobe/gate.h"

/* A burst is a few hundred ns; a preempted lcore comes back within a
 * scheduler slice. Past this, munmap() goes ahead (it cannot fail). */
#define GATE_WAIT_LIMIT_NS 1000000000ll

atomic_int gate_closed;
atomic_bool gate_fenced;
static struct gate_slot slots[GATE_MAX_SLOTS];
static atomic_uint n_slots;
static atomic_uint_fast64_t n_waited;
static pthread_mutex_t unmap_mu = PTHREAD_MUTEX_INITIALIZER;

struct gate_slot *
gate_slot_get(void)
{
	unsigned i = atomic_fetch_add(&n_slots, 1);

	/* Before any burst: the lcores start after their ports are set up. */
	if (i == 0 &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		atomic_store(&gate_fenced, true);
	if (i >= GATE_MAX_SLOTS) {
		atomic_fetch_sub(&n_slots, 1);
		return NULL;
	}
	return &slots[i];
}

uint64_t
gate_waited(void)
{
	return atomic_load_explicit(&n_waited, memory_order_relaxed);
}

static long long
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* Wait until no slot is inside a burst (the gate is closed: none begins). */
static void
drain(unsigned n)
{
	long long t0 = 0;
	bool waited = false;

	for (unsigned i = 0; i < n; i++) {
		unsigned spins = 0;

		while (atomic_load_explicit(&slots[i].busy,
					    memory_order_seq_cst) != 0) {
			if (!waited) {
				waited = true;
				t0 = now_ns();
				atomic_fetch_add_explicit(&n_waited, 1,
							  memory_order_relaxed);
			}
			if (++spins < 1000) {
				rte_pause();
				continue;
			}
			if (now_ns() - t0 > GATE_WAIT_LIMIT_NS)
				return;
			sched_yield();
		}
	}
}

/*
 * Every munmap() of the process that goes through the PLT (DPDK's shared
 * libraries and PMDs: the executable's definition comes first in the
 * global scope; glibc's own calls do not come here). Without a slot in use
 * it is the system call and nothing more.
 */
int
munmap(void *addr, size_t len)
{
	unsigned n = atomic_load_explicit(&n_slots, memory_order_acquire);
	long ret;

	if (n == 0)
		return (int)syscall(SYS_munmap, addr, len);
	if (n > GATE_MAX_SLOTS)
		n = GATE_MAX_SLOTS;
	pthread_mutex_lock(&unmap_mu);
	atomic_store_explicit(&gate_closed, 1, memory_order_seq_cst);
	/*
	 * Every thread runs a full barrier: a burst whose "busy" store is not
	 * visible to drain() yet reads gate_closed after it, and stays out.
	 * Registered with the first slot, so this cannot fail with EPERM.
	 */
	if (atomic_load_explicit(&gate_fenced, memory_order_relaxed))
		(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
			      0, 0);
	drain(n);
	ret = syscall(SYS_munmap, addr, len);
	atomic_store_explicit(&gate_closed, 0, memory_order_release);
	pthread_mutex_unlock(&unmap_mu);
	return (int)ret;
}
