/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_mbuf.h>

#include "latprobe/loopback.h"

static struct loopback_io *
lo_of(struct io_queue *q)
{
	return q->priv;
}

static bool
for_reflector(const struct loopback_io *l, const struct rte_mbuf *m)
{
	struct codec_frame f;

	if (codec_parse_frame(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len,
			      &f) != 0)
		return false;
	if (f.ethertype == CODEC_ETHERTYPE_ARP)
		return f.arp_op == CODEC_ARP_REQUEST &&
		       f.arp_tpa == l->conf.addr;
	if (f.ip_version == 6)
		return l->conf.addr6.family == 6 &&
		       memcmp(f.dst6, l->conf.addr6.a, 16) == 0;
	return f.ip_version == 4 && f.dst4 == l->conf.addr;
}

static uint16_t
lo_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct loopback_io *l = lo_of(q);
	struct rte_mbuf *refl[64];
	uint16_t got, kept = 0, nr = 0;
	uint64_t t2;

	if (n > 64)
		n = 64;
	got = io_rx(l->lower, pkts, n);
	if (got == 0)
		return 0;
	t2 = io_clock_end(l->lower);
	for (uint16_t i = 0; i < got; i++) {
		if (for_reflector(l, pkts[i]))
			refl[nr++] = pkts[i];
		else
			pkts[kept++] = pkts[i];
	}
	if (nr != 0)
		reflector_handle(&l->refl, refl, nr, t2);
	return kept;
}

static uint16_t
lo_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return io_tx(lo_of(q)->lower, pkts, n);
}

static struct rte_mbuf *
lo_alloc(struct io_queue *q)
{
	struct io_queue *lower = lo_of(q)->lower;

	return io_alloc(lower);
}

static void
lo_free(struct io_queue *q, struct rte_mbuf *m)
{
	struct io_queue *lower = lo_of(q)->lower;

	io_free(lower, m);
}

static uint64_t
lo_clock_start(struct io_queue *q)
{
	struct io_queue *lower = lo_of(q)->lower;

	return io_clock_start(lower);
}

static uint64_t
lo_clock_end(struct io_queue *q)
{
	struct io_queue *lower = lo_of(q)->lower;

	return io_clock_end(lower);
}

static uint64_t
lo_clock(struct io_queue *q)
{
	struct io_queue *lower = lo_of(q)->lower;

	return io_clock(lower);
}

static const struct io_ops loopback_ops = {
	.name = "loopback",
	.rx_burst = lo_rx,
	.tx_burst = lo_tx,
	.alloc = lo_alloc,
	.free = lo_free,
	.clock_start = lo_clock_start,
	.clock_end = lo_clock_end,
	.clock = lo_clock,
};

int
loopback_io_init(struct loopback_io *l, struct io_queue *lower,
		 const struct reflector_conf *conf)
{
	memset(l, 0, sizeof(*l));
	l->lower = lower;
	l->conf = *conf;
	l->q = *lower;
	l->q.ops = &loopback_ops;
	l->q.priv = l;
	return reflector_worker_init(&l->refl, &l->conf, lower);
}

void
loopback_io_fini(struct loopback_io *l)
{
	reflector_worker_fini(&l->refl);
}
