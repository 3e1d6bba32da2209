/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_thash.h>

#include "latprobe/rss.h"

uint32_t
rss_hash_ipv4_l4(const uint8_t *key, uint32_t src, uint32_t dst, uint16_t sport,
		 uint16_t dport)
{
	union rte_thash_tuple t;

	memset(&t, 0, sizeof(t));
	t.v4.src_addr = src;
	t.v4.dst_addr = dst;
	t.v4.sport = sport;
	t.v4.dport = dport;
	return rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, key);
}

/*
 * rte_softrss() takes the input as host-order 32-bit words, the first byte on
 * the wire the most significant: the IPv6 addresses (network order bytes) go
 * in word by word, then sport << 16 | dport (RFC order: source port first).
 */
static uint32_t
hash_ipv6(const uint8_t *key, const uint8_t src[16], const uint8_t dst[16],
	  uint16_t sport, uint16_t dport, uint32_t n_words)
{
	uint32_t w[RTE_THASH_V6_L4_LEN];

	for (size_t i = 0; i < 4; i++) {
		const uint8_t *s = src + 4 * i;
		const uint8_t *d = dst + 4 * i;

		w[i] = (uint32_t)s[0] << 24 | (uint32_t)s[1] << 16 |
		       (uint32_t)s[2] << 8 | s[3];
		w[4 + i] = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
			   (uint32_t)d[2] << 8 | d[3];
	}
	w[8] = (uint32_t)sport << 16 | dport;
	return rte_softrss(w, n_words, key);
}

uint32_t
rss_hash_ipv6_l4(const uint8_t *key, const uint8_t src[16],
		 const uint8_t dst[16], uint16_t sport, uint16_t dport)
{
	return hash_ipv6(key, src, dst, sport, dport, RTE_THASH_V6_L4_LEN);
}

uint32_t
rss_hash_ipv6(const uint8_t *key, const uint8_t src[16], const uint8_t dst[16])
{
	return hash_ipv6(key, src, dst, 0, 0, RTE_THASH_V6_L3_LEN);
}

/* NICs index the table with the hash's low bits. */
static uint16_t
reta_lookup(const struct rss_state *r, uint32_t h)
{
	return r->reta[h & (uint32_t)(r->reta_size - 1)];
}

uint16_t
rss_queue_ipv4_udp(const struct rss_state *r, uint32_t src, uint32_t dst,
		   uint16_t sport, uint16_t dport)
{
	return reta_lookup(r, rss_hash_ipv4_l4(r->key, src, dst, sport, dport));
}

uint16_t
rss_queue_ipv6_udp(const struct rss_state *r, const uint8_t src[16],
		   const uint8_t dst[16], uint16_t sport, uint16_t dport)
{
	return reta_lookup(r, rss_hash_ipv6_l4(r->key, src, dst, sport, dport));
}

uint16_t
rss_queue_udp(const struct rss_state *r, const struct rss_addr *src,
	      const struct rss_addr *dst, uint16_t sport, uint16_t dport)
{
	if (src->family == RSS_AF_IPV6)
		return rss_queue_ipv6_udp(r, src->v6, dst->v6, sport, dport);
	return rss_queue_ipv4_udp(r, src->v4, dst->v4, sport, dport);
}

/* Can ours and peer be one hashed flow? Mixed families cannot; an IPv6
 * 4-tuple reads 36 + 4 key bytes. */
static bool
pick_fits(const struct rss_state *r, const struct rss_addr *ours,
	  const struct rss_addr *peer)
{
	return ours->family == peer->family &&
	       (ours->family == RSS_AF_IPV4 ||
		(ours->family == RSS_AF_IPV6 &&
		 r->key_len >= RSS_KEY_LEN_IPV6));
}

uint16_t
rss_pick_sport_addr(const struct rss_state *r, uint16_t q,
		    const struct rss_addr *ours, const struct rss_addr *peer,
		    uint16_t peer_port, uint16_t first)
{
	if (!pick_fits(r, ours, peer))
		return 0;
	for (unsigned i = 0; i < 4096; i++) {
		uint16_t sport = (uint16_t)(first + i);

		if (sport == 0)
			continue;
		/* The answer: peer:peer_port -> ours:sport. */
		if (rss_queue_udp(r, peer, ours, peer_port, sport) == q)
			return sport;
	}
	return 0;
}

uint16_t
rss_pick_sport(const struct rss_state *r, uint16_t q, uint32_t ours,
	       uint32_t peer, uint16_t peer_port, uint16_t first)
{
	struct rss_addr o = {.family = RSS_AF_IPV4, .v4 = ours};
	struct rss_addr p = {.family = RSS_AF_IPV4, .v4 = peer};

	return rss_pick_sport_addr(r, q, &o, &p, peer_port, first);
}

uint16_t
rss_pick_sport_ipv6(const struct rss_state *r, uint16_t q,
		    const uint8_t ours[16], const uint8_t peer[16],
		    uint16_t peer_port, uint16_t first)
{
	struct rss_addr o = {.family = RSS_AF_IPV6};
	struct rss_addr p = {.family = RSS_AF_IPV6};

	memcpy(o.v6, ours, 16);
	memcpy(p.v6, peer, 16);
	return rss_pick_sport_addr(r, q, &o, &p, peer_port, first);
}

unsigned
rss_pick_sports(const struct rss_state *r, uint16_t q,
		const struct rss_addr *ours, const struct rss_addr *peer,
		uint16_t peer_port, uint16_t first, uint16_t *out, unsigned n)
{
	unsigned k = 0;

	if (!pick_fits(r, ours, peer))
		return 0;
	for (uint32_t sport = first == 0 ? 1 : first; sport <= 65535 && k < n;
	     sport++)
		if (rss_queue_udp(r, peer, ours, peer_port, (uint16_t)sport) ==
		    q)
			out[k++] = (uint16_t)sport;
	return k;
}
