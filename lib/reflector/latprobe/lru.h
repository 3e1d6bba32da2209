/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_LRU_H
#define LATPROBE_LRU_H

/*
 * A bounded table of 128-bit keys with a 64-bit value each, kept in least
 * recently used order: when full, a new key takes the place of the one seen
 * longest ago. The hash is keyed by a seed (chosen at run time by the
 * caller) so that a peer cannot aim its keys at one chain. Single-threaded;
 * no allocation after lru_create().
 */

#include <stdbool.h>
#include <stdint.h>

struct lru;

/* capacity >= 1; NULL with errno = ENOMEM or EINVAL. */
struct lru *lru_create(unsigned capacity, uint64_t seed);
void lru_destroy(struct lru *l);

/* What lru_get() found. */
struct lru_hit {
	uint64_t *val;	    /* the key's value: 0 for a new key */
	bool found;	    /* the key was there */
	uint64_t last_seen; /* found: the `now` of its previous lru_get() */
	bool evicted;	    /* a new key pushed the oldest one out */
	uint64_t evicted_last_seen;
};

/* Find the key, or insert it; it becomes the most recently seen at now. */
void lru_get(struct lru *l, uint64_t k0, uint64_t k1, uint64_t now,
	     struct lru_hit *h);

/* Drop up to max entries last seen before `before`, oldest first; returns
 * how many went. */
unsigned lru_expire(struct lru *l, uint64_t before, unsigned max);

unsigned lru_count(const struct lru *l);

/* The seed the table's hash is keyed with (tests, diagnostics). */
uint64_t lru_seed(const struct lru *l);

#endif /* LATPROBE_LRU_H */
