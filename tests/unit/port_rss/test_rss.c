/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RSS steering for multi-lcore probing: the Toeplitz hash must be the one
 * NICs compute (checked against Microsoft's "Verifying the RSS Hash
 * Calculation" vectors, also in the 82599 datasheet 7.1.2.8.3), and the
 * source port picked for a queue must bring the answers to that queue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/rss.h"

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static void
test_ms_vectors(void **state)
{
	static const struct {
		uint32_t src, dst;
		uint16_t sport, dport;
		uint32_t hash;
	} v[] = {
		{IP(66, 9, 149, 187), IP(161, 142, 100, 80), 2794, 1766,
		 0x51ccc178},
		{IP(199, 92, 111, 2), IP(65, 69, 140, 83), 14230, 4739,
		 0xc626b0ea},
		{IP(24, 19, 198, 95), IP(12, 22, 207, 184), 12898, 38024,
		 0x5c2b394a},
		{IP(38, 27, 205, 30), IP(209, 142, 163, 6), 48228, 2217,
		 0xafc7327f},
		{IP(153, 39, 163, 191), IP(202, 188, 127, 2), 44251, 1303,
		 0x10e828a2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(rss_hash_ipv4_l4(ms_key, v[i].src, v[i].dst,
						  v[i].sport, v[i].dport),
				 v[i].hash);
}

static void
fill(struct rss_state *r, unsigned n_queues, uint16_t size)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->key, ms_key, sizeof(ms_key));
	r->key_len = sizeof(ms_key);
	r->reta_size = size;
	for (unsigned i = 0; i < size; i++)
		r->reta[i] = (uint16_t)(i % n_queues);
}

static void
test_queue_is_table_entry_of_low_bits(void **state)
{
	struct rss_state r;
	uint32_t h = 0x51ccc178;

	(void)state;
	fill(&r, 4, 128);
	r.reta[h & 127] = 3; /* make the slot distinctive */
	r.reta[(h & 127) ^ 1] = 0;
	assert_int_equal(rss_queue_ipv4_udp(&r, IP(66, 9, 149, 187),
					    IP(161, 142, 100, 80), 2794, 1766),
			 3);
}

static void
test_pick_lands_on_queue(void **state)
{
	struct rss_state r;
	uint32_t ours = IP(198, 18, 0, 1), peer = IP(198, 18, 0, 2);
	uint16_t seen[8] = {0};

	(void)state;
	fill(&r, 8, 512);
	for (uint16_t q = 0; q < 8; q++) {
		uint16_t sport = rss_pick_sport(&r, q, ours, peer, 862, 40000);

		assert_int_not_equal(sport, 0);
		assert_true(sport >= 40000);
		/* The answer: from the peer's port 862 to our picked port. */
		assert_int_equal(rss_queue_ipv4_udp(&r, peer, ours, 862, sport),
				 q);
		seen[q] = sport;
	}
	/* A port maps to one queue only: all picks differ. */
	for (int i = 0; i < 8; i++)
		for (int j = i + 1; j < 8; j++)
			assert_int_not_equal(seen[i], seen[j]);
}

static void
test_pick_none_when_table_skips_queue(void **state)
{
	struct rss_state r;

	(void)state;
	fill(&r, 2, 64); /* queues 0 and 1 only */
	assert_int_equal(rss_pick_sport(&r, 5, IP(198, 18, 0, 1),
					IP(198, 18, 0, 2), 862, 40000),
			 0);
	/* Port 0 is never picked, even when the scan wraps to it. */
	assert_int_not_equal(rss_pick_sport(&r, 1, IP(198, 18, 0, 1),
					    IP(198, 18, 0, 2), 862, 65535),
			     0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms_vectors),
		cmocka_unit_test(test_queue_is_table_entry_of_low_bits),
		cmocka_unit_test(test_pick_lands_on_queue),
		cmocka_unit_test(test_pick_none_when_table_skips_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
