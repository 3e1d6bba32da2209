/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_UTIL_H
#define LATPROBE_UTIL_H

/*
 * Header-only helpers under every other module (floor 0 of lib/, see
 * docs/design.md): single-writer relaxed counters and a seeded RNG.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * Add n to a counter that one thread writes and others read while it runs:
 * no atomic read-modify-write, no lock prefix, so a reader sees an old or a
 * new value, never a torn one. On x86-64 one add to memory (an aligned
 * 8-byte store), elsewhere a relaxed load and store.
 */
static inline __attribute__((always_inline)) void
util_relaxed_add(uint64_t *p, uint64_t n)
{
#if defined(__x86_64__)
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(n));
#else
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
#endif
}

/* Read such a counter from another thread. */
static inline uint64_t
util_relaxed_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Zero bytes (a multiple of 8) of such counters while others may read. */
static inline void
util_relaxed_zero(void *p, size_t bytes)
{
	uint64_t *w = p;

	for (size_t i = 0; i < bytes / sizeof(*w); i++)
		__atomic_store_n(&w[i], 0, __ATOMIC_RELAXED);
}

/* splitmix64 (Steele, Lea, Flood 2014): a seeded, repeatable sequence for
 * tests and benchmarks; not for anything a peer must not guess. */
static inline uint64_t
util_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1), never 0 or 1 (53 bits of util_splitmix64). */
static inline double
util_rng_unit(uint64_t *state)
{
	return ((double)(util_splitmix64(state) >> 11) + 0.5) /
	       9007199254740992.0;
}

#endif /* LATPROBE_UTIL_H */
