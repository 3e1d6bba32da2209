/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_IO_POOL_H
#define LATPROBE_IO_POOL_H

/*
 * A headless mbuf pool: hand-made single-segment rte_mbufs over malloc'd
 * buffers, without EAL or a mempool. The kernel backend (lib/sockio) and
 * the test wire (tests/support/io_fake.c) hand these out. Single-threaded.
 */

#include <stdint.h>

#include <rte_mbuf_core.h>

struct io_pool {
	struct rte_mbuf *mbufs;
	uint8_t *bufs;
	struct rte_mbuf **free_list;
	unsigned n_free, n_mbufs;
	uint16_t buf_len;  /* bytes per buffer, headroom included */
	uint16_t headroom; /* data_off of a fresh mbuf */
};

/* n buffers of buf_len bytes each; 0, -EINVAL or -ENOMEM (then
 * io_pool_fini() frees what was taken). */
int io_pool_init(struct io_pool *p, unsigned n, uint16_t buf_len,
		 uint16_t headroom);
void io_pool_fini(struct io_pool *p);

/* A reset mbuf (no data, one segment, no flags), or NULL when empty. */
static inline struct rte_mbuf *
io_pool_get(struct io_pool *p)
{
	struct rte_mbuf *m;

	if (p->n_free == 0)
		return NULL;
	m = p->free_list[--p->n_free];
	m->data_off = p->headroom;
	m->data_len = 0;
	m->pkt_len = 0;
	m->nb_segs = 1;
	m->next = NULL;
	m->ol_flags = 0;
	return m;
}

static inline void
io_pool_put(struct io_pool *p, struct rte_mbuf *m)
{
	p->free_list[p->n_free++] = m;
}

/* Mbufs handed out and not given back. */
static inline unsigned
io_pool_in_use(const struct io_pool *p)
{
	return p->n_mbufs - p->n_free;
}

#endif /* LATPROBE_IO_POOL_H */
