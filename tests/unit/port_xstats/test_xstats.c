/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which port xstats a run reports as moved: drops, errors, missed and
 * no-mbuf counters that grew, matched by name, nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>

#include "latprobe/offload.h"

#include "latprobe/xstats.h"

static void
fill(struct port_xstats *x, const char *const *names, const uint64_t *values,
     unsigned n)
{
	assert_int_equal(port_xstats_alloc(x, n), 0);
	for (unsigned i = 0; i < n; i++) {
		snprintf(x->names[i], PORT_XSTAT_NAME, "%s", names[i]);
		x->values[i] = values[i];
	}
}

static void
test_watched(void **state)
{
	(void)state;
	assert_true(port_xstat_watched("imissed"));
	assert_true(port_xstat_watched("rx_nombuf"));
	assert_true(port_xstat_watched("rx_missed_errors"));
	assert_true(port_xstat_watched("rx_mbuf_allocation_errors"));
	assert_true(port_xstat_watched("tx_errors"));
	assert_true(port_xstat_watched("rx_q0_drop"));
	assert_true(port_xstat_watched("rx_xdp_ring_dropped"));
	assert_false(port_xstat_watched("rx_good_packets"));
	assert_false(port_xstat_watched("tx_q0_bytes"));
	assert_false(port_xstat_watched(""));
}

static void
test_moved(void **state)
{
	static const char *const nb[] = {"rx_good_packets", "rx_missed_errors",
					 "tx_errors", "rx_q0_drop"};
	static const uint64_t vb[] = {10, 5, 7, 0};
	/* Another order, one stat more: matched by name, not position. */
	static const char *const na[] = {"rx_q0_drop", "rx_good_packets",
					 "tx_errors", "rx_missed_errors",
					 "rx_nombuf"};
	static const uint64_t va[] = {3, 1000, 7, 9, 2};
	struct port_xstats b, a;
	unsigned idx[8];

	(void)state;
	fill(&b, nb, vb, 4);
	fill(&a, na, va, 5);
	/* Moved: rx_q0_drop (0 -> 3), rx_missed_errors (5 -> 9), rx_nombuf
	 * (new, 2); not rx_good_packets (not watched) nor tx_errors (same). */
	assert_int_equal(port_xstats_moved(&b, &a, idx, 8), 3);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 4);
	/* cap limits what is written, not the count. */
	idx[1] = 99;
	assert_int_equal(port_xstats_moved(&b, &a, idx, 1), 3);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 99);
	/* Nothing moved between equal snapshots. */
	assert_int_equal(port_xstats_moved(&a, &a, idx, 8), 0);
	port_xstats_free(&a);
	port_xstats_free(&b);
	assert_null(a.names);
	assert_int_equal(a.n, 0);
}

/* Per-queue deltas, and whether the PMD counted per queue at all. */
static void
test_queue_delta(void **state)
{
	struct port_queue_stats b, a, d;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&a, 0, sizeof(a));
	b.n = a.n = 2;
	b.ipackets = 100;
	b.q_ipackets[0] = 60;
	b.q_ipackets[1] = 40;
	b.q_errors[1] = 3;
	a.ipackets = 190;
	a.imissed = 4;
	a.q_ipackets[0] = 110;
	a.q_ipackets[1] = 80;
	a.q_errors[1] = 5;
	a.q_opackets[0] = 7;
	assert_true(port_queue_stats_delta(&b, &a, &d));
	assert_int_equal(d.n, 2);
	assert_int_equal(d.ipackets, 90);
	assert_int_equal(d.imissed, 4);
	assert_int_equal(d.q_ipackets[0], 50);
	assert_int_equal(d.q_ipackets[1], 40);
	assert_int_equal(d.q_errors[0], 0);
	assert_int_equal(d.q_errors[1], 2);
	assert_int_equal(d.q_opackets[0], 7);

	/* A PMD that fills no q_ipackets: the port's frames grew, the
	 * queues' did not: not per queue. */
	memset(a.q_ipackets, 0, sizeof(a.q_ipackets));
	memset(b.q_ipackets, 0, sizeof(b.q_ipackets));
	assert_false(port_queue_stats_delta(&b, &a, &d));
	/* Nothing counted at all (memif after its peer left): unknown. */
	assert_false(port_queue_stats_delta(&b, &b, &d));
	/* A counter that went down (a reset) counts 0, not 2^64 - n. */
	a.ipackets = 10;
	assert_false(port_queue_stats_delta(&b, &a, &d));
	assert_int_equal(d.ipackets, 0);
	/* More queues than the struct holds: cut at PORT_QSTATS_MAX. */
	a.n = PORT_QSTATS_MAX + 4;
	(void)port_queue_stats_delta(&b, &a, &d);
	assert_int_equal(d.n, PORT_QSTATS_MAX);
}

/* Checksum offloads: of what a port offers, rx IPv4/UDP/TCP and tx UDP. */
static void
test_csum_pick(void **state)
{
	struct port_csum c;
	char buf[32];

	(void)state;
	/* af_xdp, memif, ring: none. */
	port_csum_pick(RTE_ETH_RX_OFFLOAD_TIMESTAMP,
		       RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, &c);
	assert_int_equal(c.rx, 0);
	assert_int_equal(c.tx, 0);
	assert_int_equal(port_csum_names(&c, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* virtio-like: rx UDP/TCP, tx UDP/TCP: tx TCP left off. */
	port_csum_pick(
		RTE_ETH_RX_OFFLOAD_UDP_CKSUM | RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
			RTE_ETH_RX_OFFLOAD_TCP_LRO,
		RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
			RTE_ETH_TX_OFFLOAD_TCP_TSO,
		&c);
	assert_int_equal(c.rx, RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
				       RTE_ETH_RX_OFFLOAD_TCP_CKSUM);
	assert_int_equal(c.tx, RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	assert_int_equal(port_csum_names(&c, 1, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "udp,tcp");
	assert_int_equal(port_csum_names(&c, 0, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "udp");
	/* igb/mlx5-like: all three on rx. */
	port_csum_pick(RTE_ETH_RX_OFFLOAD_CHECKSUM,
		       RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, &c);
	assert_int_equal(port_csum_names(&c, 1, buf, sizeof(buf)), 12);
	assert_string_equal(buf, "ipv4,udp,tcp");
	assert_int_equal(c.tx, 0);
	/* Too small a buffer: cut, the full length returned. */
	assert_int_equal(port_csum_names(&c, 1, buf, 5), 12);
	assert_string_equal(buf, "ipv4");
}

/*
 * A run across a port made again: port A's counts until its
 * removal are carried, port B's start from 0 and are added at the end; a
 * stat only one of them has is kept; what moved on the whole run is then
 * read as from an empty "before".
 */
static void
test_carry(void **state)
{
	static const char *const a_names[] = {
		"rx_missed_errors", "tx_sub0_good_packets", "rx_good_packets"};
	static const uint64_t a0[] = {1, 10, 100}, a1[] = {4, 50, 900};
	static const char *const b_names[] = {
		"rx_good_packets", "rx_missed_errors", "tx_sub1_good_packets"};
	static const uint64_t b0[] = {0, 0, 0}, b1[] = {300, 2, 70};
	struct port_xstats before, after, carry = {0}, empty = {0};
	unsigned idx[8], n;

	(void)state;
	fill(&before, a_names, a0, 3);
	fill(&after, a_names, a1, 3);
	assert_int_equal(port_xstats_carry(&carry, &before, &after), 0);
	assert_int_equal(carry.n, 3);
	assert_int_equal(carry.values[0], 3);
	assert_int_equal(carry.values[1], 40);
	assert_int_equal(carry.values[2], 800);
	port_xstats_free(&before);
	port_xstats_free(&after);
	/* Port B, its counters from 0, then the end of the run. */
	fill(&before, b_names, b0, 3);
	fill(&after, b_names, b1, 3);
	assert_int_equal(port_xstats_add(&after, &carry), 0);
	assert_int_equal(after.n, 4);
	assert_string_equal(after.names[0], "rx_good_packets");
	assert_int_equal(after.values[0], 1100);
	assert_int_equal(after.values[1], 5);  /* rx_missed_errors */
	assert_int_equal(after.values[2], 70); /* only B's */
	assert_string_equal(after.names[3], "tx_sub0_good_packets");
	assert_int_equal(after.values[3], 40); /* only A's */
	/* The watched ones that moved over the whole run. */
	n = port_xstats_moved(&before, &after, idx, 8);
	assert_int_equal(n, 1);
	assert_string_equal(after.names[idx[0]], "rx_missed_errors");
	/* A second carry of the same names adds up. */
	assert_int_equal(port_xstats_carry(&carry, &empty, &after), 0);
	assert_int_equal(carry.n, 4);
	assert_int_equal(carry.values[2], 800 + 1100);
	port_xstats_free(&before);
	port_xstats_free(&after);
	port_xstats_free(&carry);
	{
		/* Per queue: two ports' deltas, the second with more queues. */
		struct port_queue_stats acc = {0}, d1 = {0}, d2 = {0};

		d1.n = 1;
		d1.ipackets = d1.q_ipackets[0] = 40;
		d1.q_opackets[0] = 39;
		d2.n = 2;
		d2.ipackets = 30;
		d2.q_ipackets[0] = 10;
		d2.q_ipackets[1] = 20;
		d2.q_errors[1] = 1;
		port_queue_stats_add(&acc, &d1);
		port_queue_stats_add(&acc, &d2);
		assert_int_equal(acc.n, 2);
		assert_int_equal(acc.ipackets, 70);
		assert_int_equal(acc.q_ipackets[0], 50);
		assert_int_equal(acc.q_ipackets[1], 20);
		assert_int_equal(acc.q_errors[1], 1);
		assert_int_equal(acc.q_opackets[0], 39);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_pick),
		cmocka_unit_test(test_watched),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_queue_delta),
		cmocka_unit_test(test_carry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
