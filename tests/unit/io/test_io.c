/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The io floor's helpers: the headless mbuf pool (io_pool), the length
 * setter and the io_* wrappers over the table; the util floor's relaxed
 * counter and seeded RNG. No EAL.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/io.h"
#include "latprobe/io_pool.h"
#include "latprobe/util.h"

static void
test_pool(void **state)
{
	struct io_pool p;
	struct rte_mbuf *m[4];

	(void)state;
	assert_int_equal(io_pool_init(&p, 3, 100, 100), -EINVAL);
	io_pool_fini(&p);
	assert_int_equal(io_pool_init(&p, 3, 1000, 128), 0);
	assert_int_equal(io_pool_in_use(&p), 0);
	for (unsigned i = 0; i < 3; i++) {
		m[i] = io_pool_get(&p);
		assert_non_null(m[i]);
		assert_int_equal(m[i]->buf_len, 1000);
		assert_int_equal(m[i]->data_off, 128);
		assert_int_equal(rte_pktmbuf_tailroom(m[i]), 1000 - 128);
		/* every buffer on a cache line of its own */
		assert_int_equal((uintptr_t)m[i]->buf_addr % 64, 0);
		assert_int_equal((uintptr_t)&m[i][0] % 64, 0);
	}
	assert_ptr_not_equal(m[0]->buf_addr, m[1]->buf_addr);
	assert_null(io_pool_get(&p));
	assert_int_equal(io_pool_in_use(&p), 3);

	/* A mbuf comes back reset, whatever was done to it. */
	io_mbuf_set_len(m[1], 77);
	m[1]->data_off = 0;
	m[1]->nb_segs = 2;
	m[1]->ol_flags = 1;
	io_pool_put(&p, m[1]);
	assert_int_equal(io_pool_in_use(&p), 2);
	m[3] = io_pool_get(&p);
	assert_ptr_equal(m[3], m[1]);
	assert_int_equal(m[3]->data_len, 0);
	assert_int_equal(m[3]->pkt_len, 0);
	assert_int_equal(m[3]->data_off, 128);
	assert_int_equal(m[3]->nb_segs, 1);
	assert_int_equal(m[3]->ol_flags, 0);
	assert_null(m[3]->next);
	io_pool_fini(&p);
}

/*
 * Every buffer 64-byte aligned whatever the heap looks like: pools of
 * several sizes, taken while small blocks of odd sizes lie around (calloc's
 * 16-byte promise held 64 on glibc 2.36 by luck for one pool on a fresh
 * heap, not here and not on 2.41).
 */
static void
test_pool_align(void **state)
{
	static const uint16_t lens[] = {64, 100, 1000, 2048, 9018};
	void *junk[40];

	(void)state;
	for (unsigned j = 0; j < 40; j++) {
		junk[j] = malloc(16 + 16 * j);
		assert_non_null(junk[j]);
	}
	for (unsigned l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		for (unsigned n = 1; n <= 9; n++) {
			struct io_pool p;

			assert_int_equal(io_pool_init(&p, n, lens[l], 0), 0);
			for (unsigned i = 0; i < n; i++) {
				struct rte_mbuf *m = io_pool_get(&p);

				assert_non_null(m);
				assert_int_equal((uintptr_t)m % 64, 0);
				assert_int_equal((uintptr_t)m->buf_addr % 64,
						 0);
				/* zeroed, as calloc's were */
				assert_int_equal(((uint8_t *)m->buf_addr)[0],
						 0);
			}
			io_pool_fini(&p);
		}
		free(junk[l]);
		junk[l] = NULL;
	}
	for (unsigned j = 0; j < 40; j++)
		free(junk[j]);
	/* an empty pool: refused */
	{
		struct io_pool p;

		assert_int_equal(io_pool_init(&p, 0, 100, 0), -EINVAL);
		io_pool_fini(&p);
	}
}

static void
test_set_len(void **state)
{
	struct rte_mbuf m;

	(void)state;
	memset(&m, 0xff, sizeof(m));
	io_mbuf_set_len(&m, 1514);
	assert_int_equal(m.data_len, 1514);
	assert_int_equal(m.pkt_len, 1514);
}

/* A table that records which entry was called. */
static unsigned called;

static uint16_t
t_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	called = 1;
	return 0;
}

static uint16_t
t_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	called = 2;
	return (uint16_t)(n - 1); /* leaves the last one */
}

static struct io_pool tpool;

static struct rte_mbuf *
t_alloc(struct io_queue *q)
{
	called = 3;
	return io_pool_get(&tpool);
}

static void
t_free(struct io_queue *q, struct rte_mbuf *m)
{
	called = 4;
	io_pool_put(&tpool, m);
}

static uint64_t
t_start(struct io_queue *q)
{
	return 10;
}

static uint64_t
t_end(struct io_queue *q)
{
	return 20;
}

static uint64_t
t_clock(struct io_queue *q)
{
	return 30;
}

static void
test_wrappers(void **state)
{
	static const struct io_ops ops = {
		.name = "t",
		.rx_burst = t_rx,
		.tx_burst = t_tx,
		.alloc = t_alloc,
		.free = t_free,
		.clock_start = t_start,
		.clock_end = t_end,
		.clock = t_clock,
	};
	struct io_queue q = {.ops = &ops};
	struct rte_mbuf *m[2];

	(void)state;
	assert_int_equal(io_pool_init(&tpool, 2, 256, 0), 0);
	m[0] = io_alloc(&q);
	assert_int_equal(called, 3);
	m[1] = io_alloc(&q);
	assert_non_null(m[0]);
	assert_non_null(m[1]);
	assert_int_equal(io_rx(&q, m, 2), 0);
	assert_int_equal(called, 1);
	/* io_tx_all frees what tx did not take. */
	assert_int_equal(io_tx_all(&q, m, 2), 1);
	assert_int_equal(called, 4);
	assert_int_equal(io_pool_in_use(&tpool), 1);
	io_free(&q, m[0]);
	assert_int_equal(io_pool_in_use(&tpool), 0);
	assert_int_equal(io_clock_start(&q), 10);
	assert_int_equal(io_clock_end(&q), 20);
	assert_int_equal(io_clock(&q), 30);
	io_pool_fini(&tpool);
}

static void
test_util(void **state)
{
	uint64_t c = 5, s = 0, s2 = 0;

	(void)state;
	util_relaxed_add(&c, 7);
	assert_int_equal(util_relaxed_read(&c), 12);
	/* splitmix64 from seed 0: the reference sequence (Vigna's
	 * splitmix64.c). */
	assert_int_equal(util_splitmix64(&s), 0xe220a8397b1dcdafull);
	assert_int_equal(util_splitmix64(&s), 0x6e789e6aa1b965f4ull);
	assert_int_equal(util_splitmix64(&s), 0x06c45d188009454full);
	for (int i = 0; i < 1000; i++) {
		double u = util_rng_unit(&s2);

		assert_true(u > 0.0 && u < 1.0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_pool_align),
		cmocka_unit_test(test_set_len),
		cmocka_unit_test(test_wrappers),
		cmocka_unit_test(test_util),
	};

	return cmocka_run_group_tests_name("io", tests, NULL, NULL);
}
