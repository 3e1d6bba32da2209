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

/* Microsoft's IPv6 table: hash of the addresses alone and of the 4-tuple. */
static const struct {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t hash_l3, hash_l4;
} v6[] = {
	/* 3ffe:2501:200:1fff::7 (2794) -> 3ffe:2501:200:3::1 (1766) */
	{{0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0,
	  0x07},
	 {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0,
	  0x01},
	 2794,
	 1766,
	 0x2cc18cd5,
	 0x40207d3d},
	/* 3ffe:501:8::260:97ff:fe40:efab (14230) -> ff02::1 (4739) */
	{{0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0x00, 0x00, 0x02, 0x60, 0x97,
	  0xff, 0xfe, 0x40, 0xef, 0xab},
	 {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01},
	 14230,
	 4739,
	 0x0f0c461c,
	 0xdde51bbf},
	/* 3ffe:1900:4545:3:200:f8ff:fe21:67cf (44251)
	 * -> fe80::200:f8ff:fe21:67cf (38024) */
	{{0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03, 0x02, 0x00, 0xf8,
	  0xff, 0xfe, 0x21, 0x67, 0xcf},
	 {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21,
	  0x67, 0xcf},
	 44251,
	 38024,
	 0x4b61e985,
	 0x02d1feef},
};

static void
test_ms_vectors_ipv6(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		assert_int_equal(rss_hash_ipv6(ms_key, v6[i].src, v6[i].dst),
				 v6[i].hash_l3);
		assert_int_equal(rss_hash_ipv6_l4(ms_key, v6[i].src, v6[i].dst,
						  v6[i].sport, v6[i].dport),
				 v6[i].hash_l4);
	}
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

static void
test_pick_ipv6_lands_on_queue(void **state)
{
	struct rss_state r;
	/* 2001:2::1 and 2001:2::2 (RFC 5180 benchmarking prefix) */
	const uint8_t ours[16] = {0x20, 0x01, 0, 0x02, 0, 0, 0, 0,
				  0,	0,    0, 0,    0, 0, 0, 0x01};
	const uint8_t peer[16] = {0x20, 0x01, 0, 0x02, 0, 0, 0, 0,
				  0,	0,    0, 0,    0, 0, 0, 0x02};
	struct rss_addr o = {.family = RSS_AF_IPV6};
	struct rss_addr p = {.family = RSS_AF_IPV6};
	uint16_t seen[8] = {0};

	(void)state;
	memcpy(o.v6, ours, 16);
	memcpy(p.v6, peer, 16);
	fill(&r, 8, 512);
	for (uint16_t q = 0; q < 8; q++) {
		uint16_t sport =
			rss_pick_sport_ipv6(&r, q, ours, peer, 862, 40000);

		assert_int_not_equal(sport, 0);
		assert_int_equal(rss_queue_ipv6_udp(&r, peer, ours, 862, sport),
				 q);
		/* The table slot is the low bits of the 4-tuple hash. */
		assert_int_equal(r.reta[rss_hash_ipv6_l4(ms_key, peer, ours,
							 862, sport) &
					511],
				 q);
		/* The family-generic call agrees. */
		assert_int_equal(rss_pick_sport_addr(&r, q, &o, &p, 862, 40000),
				 sport);
		assert_int_equal(rss_queue_udp(&r, &p, &o, 862, sport), q);
		seen[q] = sport;
	}
	for (int i = 0; i < 8; i++)
		for (int j = i + 1; j < 8; j++)
			assert_int_not_equal(seen[i], seen[j]);
	/* The IPv4 picker through the generic call gives the same ports. */
	o.family = p.family = RSS_AF_IPV4;
	o.v4 = IP(198, 18, 0, 1);
	p.v4 = IP(198, 18, 0, 2);
	assert_int_equal(rss_pick_sport_addr(&r, 3, &o, &p, 862, 40000),
			 rss_pick_sport(&r, 3, o.v4, p.v4, 862, 40000));
	/* Mixed families are no flow. */
	p.family = RSS_AF_IPV6;
	assert_int_equal(rss_pick_sport_addr(&r, 3, &o, &p, 862, 40000), 0);
	/* An IPv6 4-tuple needs a 40-byte key. */
	r.key_len = 16;
	assert_int_equal(rss_pick_sport_ipv6(&r, 3, ours, peer, 862, 40000), 0);
}

/* Many flows: each queue's ports differ from each other and from every
 * other queue's, all land on their queue, ascending from first. */
static void
test_pick_many(void **state)
{
	enum { NQ = 4, N = 512 };
	static uint16_t ports[NQ][N];
	struct rss_state r;
	struct rss_addr o = {.family = RSS_AF_IPV4, .v4 = IP(198, 18, 0, 1)};
	struct rss_addr p = {.family = RSS_AF_IPV4, .v4 = IP(198, 18, 0, 2)};
	unsigned total = 0;
	uint16_t few[8];

	(void)state;
	fill(&r, NQ, 128);
	for (uint16_t q = 0; q < NQ; q++) {
		assert_int_equal(
			rss_pick_sports(&r, q, &o, &p, 7, 40000, ports[q], N),
			N);
		assert_int_equal(ports[q][0],
				 rss_pick_sport(&r, q, o.v4, p.v4, 7, 40000));
		for (unsigned k = 0; k < N; k++) {
			assert_int_equal(
				rss_queue_udp(&r, &p, &o, 7, ports[q][k]), q);
			if (k > 0)
				assert_true(ports[q][k] > ports[q][k - 1]);
		}
	}
	for (uint16_t a = 0; a < NQ; a++)
		for (uint16_t b = (uint16_t)(a + 1); b < NQ; b++)
			for (unsigned i = 0; i < N; i++)
				for (unsigned j = 0; j < N; j++)
					assert_int_not_equal(ports[a][i],
							     ports[b][j]);
	/* Near the top the ports run out: fewer than asked, none wraps. */
	for (uint16_t q = 0; q < NQ; q++) {
		unsigned k =
			rss_pick_sports(&r, q, &o, &p, 7, 65500, ports[q], N);

		assert_true(k < 36);
		for (unsigned i = 0; i < k; i++)
			assert_true(ports[q][i] >= 65500);
		total += k;
	}
	assert_int_equal(total, 36); /* 65500..65535, each on one queue */
	/* Mixed families: none. */
	p.family = RSS_AF_IPV6;
	assert_int_equal(rss_pick_sports(&r, 0, &o, &p, 7, 40000, few, 8), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms_vectors),
		cmocka_unit_test(test_pick_many),
		cmocka_unit_test(test_ms_vectors_ipv6),
		cmocka_unit_test(test_pick_ipv6_lands_on_queue),
		cmocka_unit_test(test_queue_is_table_entry_of_low_bits),
		cmocka_unit_test(test_pick_lands_on_queue),
		cmocka_unit_test(test_pick_none_when_table_skips_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
