/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>

#include "latprobe/lru.h"

#define NIL UINT32_MAX

struct lru_entry {
	uint64_t k0, k1, val, last;
	uint32_t hnext;	     /* hash chain */
	uint32_t prev, next; /* recency list: head = newest */
};

struct lru {
	struct lru_entry *e;
	uint32_t *bucket;
	uint32_t cap, n, n_bucket_mask;
	uint32_t head, tail, free; /* free: chain through hnext */
	uint64_t seed;
};

struct lru *
lru_create(unsigned capacity, uint64_t seed)
{
	struct lru *l;
	uint32_t nb = 1;

	if (capacity == 0 || capacity > (1u << 28)) {
		errno = EINVAL;
		return NULL;
	}
	while (nb < 2 * capacity)
		nb <<= 1;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return NULL;
	l->e = calloc(capacity, sizeof(*l->e));
	l->bucket = malloc(nb * sizeof(*l->bucket));
	if (l->e == NULL || l->bucket == NULL) {
		lru_destroy(l);
		errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < nb; i++)
		l->bucket[i] = NIL;
	for (uint32_t i = 0; i < capacity; i++)
		l->e[i].hnext = i + 1 < capacity ? i + 1 : NIL;
	l->free = 0;
	l->cap = capacity;
	l->n_bucket_mask = nb - 1;
	l->head = l->tail = NIL;
	l->seed = seed;
	return l;
}

void
lru_destroy(struct lru *l)
{
	if (l == NULL)
		return;
	free(l->e);
	free(l->bucket);
	free(l);
}

uint64_t
lru_seed(const struct lru *l)
{
	return l->seed;
}

unsigned
lru_count(const struct lru *l)
{
	return l->n;
}

/* A keyed mix (not cryptographic): the seed decides which keys collide. */
static uint32_t
hash(const struct lru *l, uint64_t k0, uint64_t k1)
{
	uint64_t h = (k0 ^ l->seed) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h = (h ^ k1 ^ (l->seed >> 17)) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (uint32_t)h & l->n_bucket_mask;
}

static void
list_unlink(struct lru *l, uint32_t i)
{
	struct lru_entry *x = &l->e[i];

	if (x->prev != NIL)
		l->e[x->prev].next = x->next;
	else
		l->head = x->next;
	if (x->next != NIL)
		l->e[x->next].prev = x->prev;
	else
		l->tail = x->prev;
}

static void
list_push_head(struct lru *l, uint32_t i)
{
	struct lru_entry *x = &l->e[i];

	x->prev = NIL;
	x->next = l->head;
	if (l->head != NIL)
		l->e[l->head].prev = i;
	l->head = i;
	if (l->tail == NIL)
		l->tail = i;
}

/* Unlink entry i from its hash chain and the list; it is not freed. */
static void
remove_entry(struct lru *l, uint32_t i)
{
	uint32_t *pp = &l->bucket[hash(l, l->e[i].k0, l->e[i].k1)];

	while (*pp != i)
		pp = &l->e[*pp].hnext;
	*pp = l->e[i].hnext;
	list_unlink(l, i);
	l->n--;
}

void
lru_get(struct lru *l, uint64_t k0, uint64_t k1, uint64_t now,
	struct lru_hit *h)
{
	uint32_t b = hash(l, k0, k1);
	uint32_t i;
	struct lru_entry *x;

	h->evicted = false;
	for (i = l->bucket[b]; i != NIL; i = l->e[i].hnext) {
		x = &l->e[i];
		if (x->k0 == k0 && x->k1 == k1) {
			h->found = true;
			h->last_seen = x->last;
			x->last = now;
			if (l->head != i) {
				list_unlink(l, i);
				list_push_head(l, i);
			}
			h->val = &x->val;
			return;
		}
	}
	if (l->free != NIL) {
		i = l->free;
		l->free = l->e[i].hnext;
	} else {
		i = l->tail;
		h->evicted = true;
		h->evicted_last_seen = l->e[i].last;
		remove_entry(l, i);
	}
	x = &l->e[i];
	x->k0 = k0;
	x->k1 = k1;
	x->val = 0;
	x->last = now;
	x->hnext = l->bucket[b];
	l->bucket[b] = i;
	list_push_head(l, i);
	l->n++;
	h->found = false;
	h->last_seen = now;
	h->val = &x->val;
}

unsigned
lru_expire(struct lru *l, uint64_t before, unsigned max)
{
	unsigned k = 0;

	while (k < max && l->tail != NIL && l->e[l->tail].last < before) {
		uint32_t i = l->tail;

		remove_entry(l, i);
		l->e[i].hnext = l->free;
		l->free = i;
		k++;
	}
	return k;
}
