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

uint16_t
rss_queue_ipv4_udp(const struct rss_state *r, uint32_t src, uint32_t dst,
		   uint16_t sport, uint16_t dport)
{
	uint32_t h = rss_hash_ipv4_l4(r->key, src, dst, sport, dport);

	/* NICs index the table with the hash's low bits. */
	return r->reta[h & (uint32_t)(r->reta_size - 1)];
}

uint16_t
rss_pick_sport(const struct rss_state *r, uint16_t q, uint32_t ours,
	       uint32_t peer, uint16_t peer_port, uint16_t first)
{
	for (unsigned i = 0; i < 4096; i++) {
		uint16_t sport = (uint16_t)(first + i);

		if (sport == 0)
			continue;
		if (rss_queue_ipv4_udp(r, peer, ours, peer_port, sport) == q)
			return sport;
	}
	return 0;
}
