/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PORT_H
#define LATPROBE_PORT_H

/*
 * ethdev set-up for latprobe: one rx/tx queue pair per worker lcore, RSS
 * when there is more than one queue and the port has it, a mempool on the
 * port's socket, and the DPDK implementation of the io table.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "latprobe/io.h"
#include "latprobe/offload.h"
#include "latprobe/path.h"
#include "latprobe/rss.h"
#include "latprobe/xstats.h"

#define PORT_MAX_QUEUES 16
_Static_assert(PORT_MAX_QUEUES <= PORT_QSTATS_MAX,
	       "port_queue_stats holds every queue");

struct port_conf {
	uint16_t n_queues; /* one per worker lcore */
	uint16_t rx_desc;  /* 0 = 1024 */
	uint16_t tx_desc;  /* 0 = 1024 */
	uint16_t mtu;	   /* 0 = leave the port's */
	unsigned n_mbufs;  /* 0 = sized from queues and descriptors */
	bool promiscuous;
	bool rx_timestamp; /* ask for RTE_ETH_RX_OFFLOAD_TIMESTAMP if offered */
};

struct port {
	uint16_t id;
	uint16_t n_queues;
	uint16_t mtu; /* the port's; q[].mtu is capped at what an mbuf holds */
	bool rss;
	bool started;
	bool hw_rx_timestamp; /* the offload was enabled */
	bool promiscuous;     /* asked for and enabled */
	struct rte_ether_addr mac;
	char name[64];
	char driver[64];
	void *pool; /* struct rte_mempool * */
	struct io_queue q[PORT_MAX_QUEUES];
	bool rss_l4;	/* RSS hashes UDP/TCP ports; key and table known */
	bool rss_l4_v6; /* the same for IPv6 UDP */
	struct rss_state rss_state;
	/* net_memif: queues whose bursts run inside the unmap gate
	 * (latprobe/gate.h); fewer than n_queues when slots ran out. */
	uint16_t memif_gated;
	/* Checksum offloads enabled (port_csum_pick() of what the port
	 * offers; none on af_xdp, af_packet, memif, ring); the queues'
	 * tx_csum says the tx ones to the engines. */
	struct port_csum csum;
};

/* The io table of a gated net_memif queue (q->priv: its gate_slot). */
const struct io_ops *port_memif_ops(void);

/* Configure, set up queues, start. 0 or -errno; the port is left closed on
 * error. */
int port_setup(struct port *p, uint16_t port_id, const struct port_conf *c);

/*
 * A UDP/TCP source port for the flow of queue q, so that the peer's answers
 * (peer:peer_port -> ours:port) come back on queue q: with RSS, the first
 * port from `first` on whose answers the port's Toeplitz hash and
 * redirection table send to q; without RSS (one queue, or a PMD that pairs
 * queues itself, as memif and ring do) simply first + q. 0, or -ENOTSUP when
 * RSS spreads by addresses only (answers from one peer cannot be steered)
 * or -ENOENT when no candidate port lands on q.
 */
int port_pick_sport(const struct port *p, uint16_t q, uint32_t ours,
		    uint32_t peer, uint16_t peer_port, uint16_t first,
		    uint16_t *out);

/*
 * Up to n different source ports for queue q, ascending from first (many
 * flows per lcore): with RSS those whose answers land on q, without it
 * first + q + k * queues. ours/peer: either family (struct rss_addr).
 * Returns how many (fewer than n when the ports run out), -ENOTSUP when RSS
 * spreads by addresses only, -ENOENT when no port lands on q.
 */
int port_pick_sports(const struct port *p, uint16_t q,
		     const struct rss_addr *ours, const struct rss_addr *peer,
		     uint16_t peer_port, uint16_t first, uint16_t *out,
		     unsigned n);

/* The same for an IPv6 flow (addresses in network byte order). */
int port_pick_sport6(const struct port *p, uint16_t q, const uint8_t ours[16],
		     const uint8_t peer[16], uint16_t peer_port, uint16_t first,
		     uint16_t *out);

/*
 * --hw-timestamps can run: the rx timestamp offload is on and the NIC's
 * clock reads. 0, -ENOTSUP (no RTE_ETH_RX_OFFLOAD_TIMESTAMP) or -EIO.
 */
int port_hw_ts_check(const struct port *p);

/* Stop and close (safe on a port that never started). */
void port_close(struct port *p);

/* The link after start: 0 when up (speed in Mb/s), -ENOLINK when it stays down.
 */
int port_wait_link(const struct port *p, unsigned timeout_ms,
		   uint32_t *speed_mbps);

/* Facts for `latprobe info` and the reports. */
struct port_facts {
	char name[64];
	char driver[64];
	struct rte_ether_addr mac;
	bool link_up;
	uint32_t link_speed_mbps;
	uint16_t max_rx_queues, max_tx_queues;
	uint16_t min_mtu, max_mtu, mtu;
	uint64_t rx_offload_capa, tx_offload_capa;
	uint64_t rss_offloads;
	bool rx_timestamp_capa;
	int socket_id;
};

int port_facts_get(uint16_t port_id, struct port_facts *f);

/*
 * The VF behind a netvsc or failsafe port (port_path_owned_vf() among the
 * owned ports): its port id and driver. 0, or -ENOENT when none is attached.
 */
int port_vf_get(uint16_t port_id, uint16_t *vf_port, char *vf_driver,
		size_t cap);

/*
 * Which sub-devices of a failsafe port are the VF, from its devargs
 * (port_path_failsafe_vf_subs); PORT_PATH_FAILSAFE_VF_SUBS (vdev_netvsc's
 * layout) when they cannot be read. Any other port: that default too.
 */
uint32_t port_failsafe_vf_subs(uint16_t port_id);

/*
 * The port's per-queue counters now (rte_eth_stats q_ipackets, q_errors,
 * q_opackets of its first n queues; struct in xstats.h) and its totals, to
 * be compared with a later read by port_queue_stats_delta().
 */
/* 0 or -errno (-EINVAL: n above PORT_QSTATS_MAX). */
int port_queue_stats_read(uint16_t port_id, uint16_t n,
			  struct port_queue_stats *s);

/* Every extended stat of the port now (allocates); 0 or -errno. */
int port_xstats_read(uint16_t port_id, struct port_xstats *x);

/* Count of extended stats that are non-zero; fills names/values up to n. */
int port_xstats_nonzero(uint16_t port_id, char (*names)[64], uint64_t *values,
			unsigned n);

#endif /* LATPROBE_PORT_H */
