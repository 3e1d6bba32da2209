/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_RSS_H
#define LATPROBE_RSS_H

/*
 * Which rx queue a NIC's RSS sends a UDP datagram (IPv4 or IPv6) to: the
 * Toeplitz hash of (source, destination, source port, destination port) with
 * the port's key, then the redirection table. Pure computation (DPDK's inline
 * rte_softrss), so it is unit-tested against the published test vectors
 * (Microsoft's "Verifying the RSS Hash Calculation", IPv4 and IPv6 tables).
 */

#include <stdint.h>

#define RSS_KEY_MAX	 64
#define RSS_RETA_MAX	 2048
/* Key bytes a Toeplitz hash reads: input length + 4 (IPv4 4-tuple: 12,
 * IPv6 4-tuple: 36). */
#define RSS_KEY_LEN_IPV4 16
#define RSS_KEY_LEN_IPV6 40

struct rss_state {
	uint8_t key[RSS_KEY_MAX];
	uint8_t key_len;
	uint16_t reta_size;	     /* power of two */
	uint16_t reta[RSS_RETA_MAX]; /* hash bucket -> queue */
};

/* Toeplitz hash of an IPv4 4-tuple (host byte order) with key (>= 16 bytes). */
uint32_t rss_hash_ipv4_l4(const uint8_t *key, uint32_t src, uint32_t dst,
			  uint16_t sport, uint16_t dport);

/*
 * Toeplitz hash of an IPv6 4-tuple, and of the address pair alone (what a
 * NIC hashes when it does not parse L4), addresses in network byte order,
 * ports in host order, with key (>= 40 bytes).
 */
uint32_t rss_hash_ipv6_l4(const uint8_t *key, const uint8_t src[16],
			  const uint8_t dst[16], uint16_t sport,
			  uint16_t dport);
uint32_t rss_hash_ipv6(const uint8_t *key, const uint8_t src[16],
		       const uint8_t dst[16]);

/* The queue a datagram src:sport -> dst:dport lands on. */
uint16_t rss_queue_ipv4_udp(const struct rss_state *r, uint32_t src,
			    uint32_t dst, uint16_t sport, uint16_t dport);
uint16_t rss_queue_ipv6_udp(const struct rss_state *r, const uint8_t src[16],
			    const uint8_t dst[16], uint16_t sport,
			    uint16_t dport);

/* An address of either family, for the family-generic calls below. */
#define RSS_AF_IPV4 4
#define RSS_AF_IPV6 6
struct rss_addr {
	uint8_t family; /* RSS_AF_IPV4 or RSS_AF_IPV6 */
	uint32_t v4;	/* host byte order */
	uint8_t v6[16]; /* network byte order */
};

uint16_t rss_queue_udp(const struct rss_state *r, const struct rss_addr *src,
		       const struct rss_addr *dst, uint16_t sport,
		       uint16_t dport);

/*
 * The first UDP source port at or after `first` for which the answer to a
 * probe (peer:peer_port -> ours:sport) lands on queue q. 0 when none of
 * 4096 candidates does (e.g. the table never names q).
 */
uint16_t rss_pick_sport(const struct rss_state *r, uint16_t q, uint32_t ours,
			uint32_t peer, uint16_t peer_port, uint16_t first);
/* The same for IPv6 (0 also when the key is shorter than 40 bytes). */
uint16_t rss_pick_sport_ipv6(const struct rss_state *r, uint16_t q,
			     const uint8_t ours[16], const uint8_t peer[16],
			     uint16_t peer_port, uint16_t first);
/* Either family (0 also when ours and peer differ in family). */
uint16_t rss_pick_sport_addr(const struct rss_state *r, uint16_t q,
			     const struct rss_addr *ours,
			     const struct rss_addr *peer, uint16_t peer_port,
			     uint16_t first);

/*
 * Up to n source ports (--flows, --new-flow-every) from `first` up to 65535,
 * ascending, each one whose answer lands on queue q (so all differ, and
 * differ from every other queue's). Returns how many were found: fewer than
 * n when the ports run out, 0 also when the family or key does not fit.
 */
unsigned rss_pick_sports(const struct rss_state *r, uint16_t q,
			 const struct rss_addr *ours,
			 const struct rss_addr *peer, uint16_t peer_port,
			 uint16_t first, uint16_t *out, unsigned n);

#endif /* LATPROBE_RSS_H */
