/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_pause.h>

#include "latprobe/gate.h"

/* A burst is a few hundred ns; a preempted lcore comes back within a
 * scheduler slice. Past this, munmap() goes ahead (it cannot fail). */
#define GATE_WAIT_LIMIT_NS 1000000000ll

typedef int (*munmap_fn)(void *, size_t);

atomic_int gate_closed;
atomic_bool gate_fenced;
__thread char gate_tls;
static struct gate_slot slots[GATE_MAX_SLOTS];
static atomic_uint n_slots;
static atomic_uint_fast64_t n_waited;
static int (*_Atomic racer)(void);
static _Atomic munmap_fn next_munmap;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/*
 * Only until next_munmap is known: the system call itself. This project's
 * own code never unmaps that early; a library's constructor might, and
 * would then bypass an interposer such as ASan's (which, run from
 * .preinit_array, is up by then) for that one call.
 */
static int
raw_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

/*
 * The munmap() this one stands in front of: the next definition after the
 * executable's in the lookup order (an LD_PRELOAD library, ASan's
 * interceptor, or libc's), so that theirs still sees every call. Resolved
 * before main() (the executable's constructors run after the libraries'),
 * so that munmap() never calls dlsym() (not async-signal-safe) once main()
 * runs.
 */
static void __attribute__((constructor)) resolve_next(void)
{
	void *p = dlsym(RTLD_NEXT, "munmap");
	munmap_fn f = NULL;

	/* POSIX: what dlsym() returns may be a function's address. */
	if (p != NULL)
		memcpy(&f, &p, sizeof(f));
	if (f == NULL || f == munmap)
		f = raw_munmap;
	atomic_store_explicit(&next_munmap, f, memory_order_relaxed);
}

/* In a child of fork() only the forking thread lives: no burst runs, and
 * a slot marked busy by a thread that is gone must not hold it up. */
static void
child_after_fork(void)
{
	atomic_store_explicit(&n_slots, 0, memory_order_relaxed);
	atomic_store_explicit(&gate_closed, 0, memory_order_relaxed);
	for (unsigned i = 0; i < GATE_MAX_SLOTS; i++)
		atomic_store_explicit(&slots[i].busy, 0, memory_order_relaxed);
}

static void
gate_init(void)
{
	/* Registered before any slot counts (so before any burst): an
	 * munmap() that sees a slot sees gate_fenced as it will stay. */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		atomic_store(&gate_fenced, true);
	(void)pthread_atfork(NULL, NULL, child_after_fork);
}

struct gate_slot *
gate_slot_get(void)
{
	unsigned i;

	(void)pthread_once(&init_once, gate_init);
	/* seq_cst: after gate_fenced, for munmap()'s acquire load. */
	i = atomic_fetch_add(&n_slots, 1);
	if (i >= GATE_MAX_SLOTS) {
		atomic_fetch_sub(&n_slots, 1);
		return NULL;
	}
	return &slots[i];
}

void
gate_set_racer(int (*is_racer)(void))
{
	atomic_store(&racer, is_racer);
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

/* Wait until no other thread's slot is inside a burst (the gate is
 * closed: none begins). */
static void
drain(unsigned n)
{
	uintptr_t me = gate_self();
	long long t0 = 0;
	bool waited = false;

	for (unsigned i = 0; i < n; i++) {
		unsigned spins = 0;
		uintptr_t b;

		while ((b = atomic_load_explicit(&slots[i].busy,
						 memory_order_seq_cst)) != 0 &&
		       b != me) {
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
 * global scope; glibc's own calls do not come here). No lock: lock-free
 * atomics, system calls and the racer test only, so it may run in a signal
 * handler or a child of fork() like the system call it wraps.
 */
int
munmap(void *addr, size_t len)
{
	munmap_fn next =
		atomic_load_explicit(&next_munmap, memory_order_relaxed);
	unsigned n = atomic_load_explicit(&n_slots, memory_order_acquire);
	int (*is_racer)(void);
	int ret;

	if (next == NULL)
		next = raw_munmap; /* before resolve_next() ran */
	if (n == 0)
		return next(addr, len);
	is_racer = atomic_load_explicit(&racer, memory_order_relaxed);
	if (is_racer != NULL && is_racer() == 0)
		return next(addr, len); /* cannot race a burst */
	if (n > GATE_MAX_SLOTS)
		n = GATE_MAX_SLOTS;
	atomic_fetch_add(&gate_closed, 1);
	/*
	 * Every thread runs a full barrier: a burst whose "busy" store is not
	 * visible to drain() yet reads gate_closed after it, and stays out.
	 * Registered before the first slot, so this cannot fail with EPERM.
	 */
	if (atomic_load_explicit(&gate_fenced, memory_order_relaxed))
		(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
			      0, 0);
	drain(n);
	ret = next(addr, len);
	atomic_fetch_sub_explicit(&gate_closed, 1, memory_order_release);
	return ret;
}
