/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/io_pool.h"

int
io_pool_init(struct io_pool *p, unsigned n, uint16_t buf_len, uint16_t headroom)
{
	/* Rows 64 bytes apart, so every buffer starts on a cache line. */
	size_t stride = ((size_t)buf_len + 63) & ~(size_t)63;

	memset(p, 0, sizeof(*p));
	if (headroom >= buf_len)
		return -EINVAL;
	if (n == 0 || stride > SIZE_MAX / n)
		return -EINVAL;
	/*
	 * struct rte_mbuf is cache-line aligned, and so are the rows: calloc
	 * promises only alignof(max_align_t) (16 on x86-64), which held 64
	 * on glibc 2.36 by the luck of the heap layout, not on 2.41.
	 * aligned_alloc(64, size) with size a multiple of 64 (C11).
	 */
	p->mbufs = aligned_alloc(64, n * sizeof(*p->mbufs));
	p->bufs = aligned_alloc(64, n * stride);
	p->free_list = calloc(n, sizeof(struct rte_mbuf *));
	if (p->mbufs == NULL || p->bufs == NULL || p->free_list == NULL) {
		io_pool_fini(p);
		return -ENOMEM;
	}
	memset(p->mbufs, 0, n * sizeof(*p->mbufs));
	memset(p->bufs, 0, n * stride);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = &p->mbufs[i];

		m->buf_addr = p->bufs + i * stride;
		m->buf_len = buf_len;
		p->free_list[i] = m;
	}
	p->n_free = n;
	p->n_mbufs = n;
	p->buf_len = buf_len;
	p->headroom = headroom;
	return 0;
}

void
io_pool_fini(struct io_pool *p)
{
	free(p->mbufs);
	free(p->bufs);
	free(p->free_list);
	memset(p, 0, sizeof(*p));
}
