/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pcapng.h>
#include <rte_version.h>

#include "capture.h"

#define CAPTURE_BATCH 64
#define CAPTURE_SNAP  256 /* bytes kept per packet: all headers + STAMP */

struct capture_batch {
	struct rte_mbuf *m[CAPTURE_BATCH];
	unsigned n;
	uint64_t dropped;
} __attribute__((aligned(64)));

struct capture {
	rte_pcapng_t *pcap;
	struct rte_mempool *pool;
	uint16_t port_id;
	unsigned n_workers;
	pthread_mutex_t lock; /* one file, several workers */
	int64_t written;
	int error;
	struct capture_batch b[];
};

struct capture *
capture_open(int fd, const char *path, uint16_t port_id, unsigned n_workers,
	     char *err, unsigned err_len)
{
	struct capture *c;
	char name[RTE_MEMPOOL_NAMESIZE];

	c = calloc(1, sizeof(*c) + n_workers * sizeof(c->b[0]));
	if (c == NULL) {
		snprintf(err, err_len, "out of memory");
		close(fd);
		return NULL;
	}
	c->port_id = port_id;
	c->n_workers = n_workers;
	pthread_mutex_init(&c->lock, NULL);
	snprintf(name, sizeof(name), "lp_pcap_%u", port_id);
	c->pool = rte_pktmbuf_pool_create(
		name, 4096 * n_workers, 0, 0,
		(uint16_t)rte_pcapng_mbuf_size(CAPTURE_SNAP),
		(int)rte_socket_id());
	if (c->pool == NULL) {
		snprintf(err, err_len, "no memory for the capture pool: %s",
			 rte_strerror(rte_errno));
		close(fd);
		free(c);
		return NULL;
	}
	c->pcap = rte_pcapng_fdopen(fd, NULL, NULL,
				    "latprobe " LATPROBE_VERSION, NULL);
	if (c->pcap == NULL) {
		snprintf(err, err_len, "rte_pcapng_fdopen(%s): %s", path,
			 rte_strerror(rte_errno));
		close(fd);
		rte_mempool_free(c->pool);
		free(c);
		return NULL;
	}
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	/* From 23.03 interfaces are added explicitly. */
	rte_pcapng_add_interface(c->pcap, port_id, NULL, NULL, NULL);
#endif
	return c;
}

static void
flush(struct capture *c, struct capture_batch *b)
{
	ssize_t r;

	if (b->n == 0)
		return;
	pthread_mutex_lock(&c->lock);
	r = rte_pcapng_write_packets(c->pcap, b->m, (uint16_t)b->n);
	if (r < 0)
		c->error = errno ? errno : EIO;
	else
		c->written += b->n;
	pthread_mutex_unlock(&c->lock);
	for (unsigned i = 0; i < b->n; i++)
		rte_pktmbuf_free(b->m[i]);
	b->n = 0;
}

void
capture_packet(void *arg, unsigned worker, const struct rte_mbuf *m,
	       uint64_t tsc, bool tx)
{
	struct capture *c = arg;
	struct capture_batch *b = &c->b[worker];
	struct rte_mbuf *copy;

#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	/* 23.11 takes the timestamp itself (now); ours is a few ns earlier. */
	(void)tsc;
	copy = rte_pcapng_copy(
		c->port_id, worker, m, c->pool, CAPTURE_SNAP,
		tx ? RTE_PCAPNG_DIRECTION_OUT : RTE_PCAPNG_DIRECTION_IN, NULL);
#else
	copy = rte_pcapng_copy(
		c->port_id, worker, m, c->pool, CAPTURE_SNAP, tsc,
		tx ? RTE_PCAPNG_DIRECTION_OUT : RTE_PCAPNG_DIRECTION_IN);
#endif
	if (copy == NULL) {
		b->dropped++;
		return;
	}
	b->m[b->n++] = copy;
	if (b->n == CAPTURE_BATCH)
		flush(c, b);
}

int64_t
capture_close(struct capture *c, uint64_t *dropped)
{
	int64_t ret;

	*dropped = 0;
	for (unsigned i = 0; i < c->n_workers; i++) {
		flush(c, &c->b[i]);
		*dropped += c->b[i].dropped;
	}
	ret = c->error ? -c->error : c->written;
	rte_pcapng_close(c->pcap);
	rte_mempool_free(c->pool);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return ret;
}
