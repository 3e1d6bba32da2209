/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_RSS_H
#define LATPROBE_RSS_H

/*
 * Which rx queue a NIC's RSS sends a UDP/IPv4 datagram to: the Toeplitz hash
 * of (source, destination, source port, destination port) with the port's
 * key, then the redirection table. Pure computation (DPDK's inline
 * rte_softrss), so it is unit-tested against the published test vectors.
 */

#include <stdint.h>

#define RSS_KEY_MAX  64
#define RSS_RETA_MAX 2048

struct rss_state {
	uint8_t key[RSS_KEY_MAX];
	uint8_t key_len;
	uint16_t reta_size;	     /* power of two */
	uint16_t reta[RSS_RETA_MAX]; /* hash bucket -> queue */
};

/* Toeplitz hash of an IPv4 4-tuple (host byte order) with key (>= 16 bytes). */
uint32_t rss_hash_ipv4_l4(const uint8_t *key, uint32_t src, uint32_t dst,
			  uint16_t sport, uint16_t dport);

/* The queue a datagram src:sport -> dst:dport lands on. */
uint16_t rss_queue_ipv4_udp(const struct rss_state *r, uint32_t src,
			    uint32_t dst, uint16_t sport, uint16_t dport);

/*
 * The first UDP source port at or after `first` for which the answer to a
 * probe (peer:peer_port -> ours:sport) lands on queue q. 0 when none of
 * 4096 candidates does (e.g. the table never names q).
 */
uint16_t rss_pick_sport(const struct rss_state *r, uint16_t q, uint32_t ours,
			uint32_t peer, uint16_t peer_port, uint16_t first);

#endif /* LATPROBE_RSS_H */
