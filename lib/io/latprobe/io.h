/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_IO_H
#define LATPROBE_IO_H

/*
 * The burst I/O and clock table the engines run on. rte_eth_rx_burst(),
 * rte_eth_tx_burst() and rte_rdtsc() are static inline, so neither linker
 * --wrap nor symbol interposition can replace them in tests; the engines
 * reach them through this table instead. Implementations: DPDK ethdev
 * (lib/port), kernel sockets (lib/sockio), the loopback reflector
 * (lib/reflector/loopback.c), an in-memory fake for tests
 * (tests/support/io_fake.c).
 *
 * Packets are rte_mbufs; the engines only use the inline accessors
 * (rte_pktmbuf_mtod, data_len, pkt_len) and allocate/free through the
 * table, so a fake can hand out hand-made single-segment mbufs without EAL.
 */

#include <stdbool.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf_core.h>
#include <rte_mbuf_dyn.h>

struct io_queue;

struct io_ops {
	const char *name;
	uint16_t (*rx_burst)(struct io_queue *q, struct rte_mbuf **pkts,
			     uint16_t n);
	/* Takes ownership of the packets it accepts (returns how many). */
	uint16_t (*tx_burst)(struct io_queue *q, struct rte_mbuf **pkts,
			     uint16_t n);
	/* A reset single-segment mbuf, or NULL when the pool is empty. */
	struct rte_mbuf *(*alloc)(struct io_queue *q);
	void (*free)(struct io_queue *q, struct rte_mbuf *m);
	/* Timestamp clock in cycles: ordered reads around the measured section.
	 */
	uint64_t (*clock_start)(struct io_queue *q);
	uint64_t (*clock_end)(struct io_queue *q);
	/* Unordered read for loop bookkeeping (timeouts, pacing). */
	uint64_t (*clock)(struct io_queue *q);
	/* clock is tsc_read() (timing.h): a caller may read the TSC itself
	 * instead of calling it (a stall tick per empty poll). */
	bool clock_tsc;
	/* The NIC's clock in its ticks (rte_eth_read_clock): 0 or -errno.
	 * Optional (NULL: no NIC clock). */
	int (*read_nic_clock)(struct io_queue *q, uint64_t *ticks);
};

/* One rx/tx queue pair, owned by one lcore. */
struct io_queue {
	const struct io_ops *ops;
	uint16_t port_id;
	uint16_t queue_id;
	uint16_t mtu; /* largest L3 packet the port takes */
	void *pool;   /* struct rte_mempool * for DPDK */
	void *priv;   /* implementation state (fake) */
	/* NIC rx timestamps (--hw-timestamps): the dynamic field's offset and
	 * the ol_flags bit saying a frame has one; flag 0 = none. */
	int rx_ts_off;
	uint64_t rx_ts_flag;
	uint32_t tx_csum; /* IO_TX_*_CKSUM: offloads the port does; 0 = none */
	/* Its rx/tx calls enter the kernel and may run the packet's path
	 * there (af_xdp, af_packet, kernel sockets): their time is not the
	 * poll loop's own (stall.h). */
	bool path_calls;
};

static inline uint16_t
io_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return q->ops->rx_burst(q, pkts, n);
}

static inline uint16_t
io_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return q->ops->tx_burst(q, pkts, n);
}

/* A reset single-segment mbuf from q's pool, or NULL when it is empty. */
static inline struct rte_mbuf *
io_alloc(struct io_queue *q)
{
	return q->ops->alloc(q);
}

static inline void
io_free(struct io_queue *q, struct rte_mbuf *m)
{
	q->ops->free(q, m);
}

/* Ordered clock reads around the measured section (T1, T4), in cycles. */
static inline uint64_t
io_clock_start(struct io_queue *q)
{
	return q->ops->clock_start(q);
}

static inline uint64_t
io_clock_end(struct io_queue *q)
{
	return q->ops->clock_end(q);
}

/* Unordered read for loop bookkeeping (timeouts, pacing). */
static inline uint64_t
io_clock(struct io_queue *q)
{
	return q->ops->clock(q);
}

/*
 * nic_clock_sample()'s readers for a queue (arg: the struct io_queue *):
 * the NIC's clock in ticks (0, -ENOTSUP without the op, or the op's
 * -errno), and the TSC read that pairs with it.
 */
static inline int
io_nic_clock_cb(void *arg, uint64_t *ticks)
{
	struct io_queue *q = arg;

	if (q->ops->read_nic_clock == NULL)
		return -ENOTSUP;
	return q->ops->read_nic_clock(q, ticks);
}

static inline uint64_t
io_tsc_cb(void *arg)
{
	return io_clock_start(arg);
}

/* The length of a single-segment frame: data_len and pkt_len together. */
static inline void
io_mbuf_set_len(struct rte_mbuf *m, uint16_t len)
{
	m->data_len = len;
	m->pkt_len = len;
}

/*
 * Ethernet's minimum frame without its FCS (IEEE 802.3: 64 bytes with it).
 * A real NIC counts a shorter one as a runt (igb: rx_undersize_errors);
 * virtual devices (af_xdp, memif, veth) pass it on as it is.
 */
#define IO_ETH_MIN_LEN 60

/*
 * A frame to transmit, padded to IO_ETH_MIN_LEN with zeros when it is
 * shorter: the padding follows the IP packet, whose lengths stay (every
 * receiver reads those, not the frame's). The buffer has the room
 * (io_alloc()'s buffers hold far more than 60 bytes); one that had not
 * stays as it is.
 */
static inline void
io_mbuf_pad(struct rte_mbuf *m)
{
	uint16_t len = m->data_len;

	if (len >= IO_ETH_MIN_LEN ||
	    (uint32_t)m->buf_len < (uint32_t)m->data_off + IO_ETH_MIN_LEN)
		return;
	memset((uint8_t *)m->buf_addr + m->data_off + len, 0,
	       IO_ETH_MIN_LEN - len);
	io_mbuf_set_len(m, IO_ETH_MIN_LEN);
}

/* io_mbuf_set_len() of a frame to transmit, then io_mbuf_pad(). */
static inline void
io_mbuf_set_tx_len(struct rte_mbuf *m, uint16_t len)
{
	io_mbuf_set_len(m, len);
	io_mbuf_pad(m);
}

/*
 * What the NIC said of a received frame's checksums (its rx offload
 * flags; every verdict DPDK defines). UNKNOWN (not checked, or a PMD
 * without the offload: af_xdp, memif, the fake) means the engine checks in
 * software. NONE (RTE_MBUF_F_RX_*_CKSUM_NONE): the frame's integrity was
 * verified but the sum in its header is not right, e.g. virtio's
 * VIRTIO_NET_HDR_F_NEEDS_CSUM from a local sender that left it to an
 * offload: trusted, but an answer's sum must be computed in full (or
 * offloaded), never updated from it.
 */
enum io_csum { IO_CSUM_UNKNOWN, IO_CSUM_GOOD, IO_CSUM_BAD, IO_CSUM_NONE };

/* One layer's verdict v (its two flag bits) against DPDK's values. */
static inline enum io_csum
io_rx_csum(uint64_t v, uint64_t good, uint64_t bad, uint64_t none)
{
	return v == good   ? IO_CSUM_GOOD
	       : v == bad  ? IO_CSUM_BAD
	       : v == none ? IO_CSUM_NONE
			   : IO_CSUM_UNKNOWN;
}

static inline enum io_csum
io_rx_ip_csum(const struct rte_mbuf *m)
{
	return io_rx_csum(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
			  RTE_MBUF_F_RX_IP_CKSUM_GOOD,
			  RTE_MBUF_F_RX_IP_CKSUM_BAD,
			  RTE_MBUF_F_RX_IP_CKSUM_NONE);
}

static inline enum io_csum
io_rx_l4_csum(const struct rte_mbuf *m)
{
	return io_rx_csum(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK,
			  RTE_MBUF_F_RX_L4_CKSUM_GOOD,
			  RTE_MBUF_F_RX_L4_CKSUM_BAD,
			  RTE_MBUF_F_RX_L4_CKSUM_NONE);
}

/*
 * Transmit checksum offloads a queue's port was configured with
 * (io_queue.tx_csum; lib/port sets them from what the port offers). With
 * IO_TX_UDP_CKSUM / IO_TX_TCP_CKSUM an engine may leave an L4 checksum
 * to the NIC: the field holds the pseudo-header sum, the mbuf says
 * RTE_MBUF_F_TX_IPV4|IPV6 and the L4 type, with l2_len and l3_len.
 */
#define IO_TX_IPV4_CKSUM (1u << 0)
#define IO_TX_UDP_CKSUM	 (1u << 1)
#define IO_TX_TCP_CKSUM	 (1u << 2)

/* The NIC's rx timestamp of m, in NIC ticks: false when the queue has none
 * or the NIC did not stamp m. */
static inline bool
io_rx_nic_ts(const struct io_queue *q, const struct rte_mbuf *m,
	     uint64_t *ticks)
{
	if ((m->ol_flags & q->rx_ts_flag) == 0)
		return false;
	*ticks = *RTE_MBUF_DYNFIELD(m, q->rx_ts_off, const uint64_t *);
	return true;
}

/* tx that frees what the queue did not take; returns how many were sent. */
uint16_t io_tx_all(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n);

#endif /* LATPROBE_IO_H */
