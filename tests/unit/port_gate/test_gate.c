/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unmap gate (lib/port/gate.c, the memif disconnect race): munmap()
 * waits for a burst in flight, a burst does not begin while an munmap()
 * runs, and a net_memif queue's bursts run inside the gate. No EAL: the
 * bursts are fakes put in DPDK's public fast-path table.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_ethdev.h>

#include "latprobe/gate.h"
#include "latprobe/port.h"

/* A burst that lasts 50 ms, as one whose lcore was preempted inside it. */
struct slow_burst {
	struct gate_slot *slot;
	atomic_int inside;
	atomic_int done;
};

static void *
slow_burst_thread(void *arg)
{
	struct slow_burst *b = arg;
	struct timespec d = {.tv_nsec = 50 * 1000 * 1000};

	while (!gate_enter(b->slot))
		;
	atomic_store(&b->inside, 1);
	nanosleep(&d, NULL);
	atomic_store(&b->done, 1);
	gate_leave(b->slot);
	return NULL;
}

static void
munmap_waits_for_burst(void)
{
	struct slow_burst b = {.slot = gate_slot_get()};
	uint64_t waited = gate_waited();
	pthread_t t;
	void *page;

	assert_non_null(b.slot);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	assert_int_equal(pthread_create(&t, NULL, slow_burst_thread, &b), 0);
	while (atomic_load(&b.inside) == 0)
		usleep(100);
	/* The burst is in flight: the unmap comes after it, not under it. */
	assert_int_equal(munmap(page, 4096), 0);
	assert_int_equal(atomic_load(&b.done), 1);
	assert_int_equal(gate_waited(), waited + 1);
	pthread_join(t, NULL);
	/* Nothing in flight: no wait. */
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	assert_int_equal(munmap(page, 4096), 0);
	assert_int_equal(gate_waited(), waited + 1);
	/* Still the system call: a bad address fails as it should. */
	assert_int_equal(munmap((void *)1, 4096), -1);
}

/* With membarrier where the kernel has it (it does on Linux >= 4.14). */
static void
test_munmap_waits_for_burst(void **state)
{
	(void)state;
	munmap_waits_for_burst();
}

/* Without: the bursts' own sequentially consistent store. */
static void
test_munmap_waits_unfenced(void **state)
{
	bool fenced = atomic_load(&gate_fenced);

	(void)state;
	atomic_store(&gate_fenced, false);
	munmap_waits_for_burst();
	atomic_store(&gate_fenced, fenced);
}

static void
test_no_burst_while_closed(void **state)
{
	struct gate_slot *s = gate_slot_get();

	(void)state;
	assert_non_null(s);
	atomic_store(&gate_closed, 1); /* as during an munmap() */
	assert_false(gate_enter(s));
	assert_int_equal(atomic_load(&s->busy), 0);
	atomic_store(&gate_closed, 0);
	assert_true(gate_enter(s));
	assert_int_equal(atomic_load(&s->busy), 1);
	gate_leave(s);
	assert_int_equal(atomic_load(&s->busy), 0);
}

/* Fake PMD bursts on port 0, queue 0: they record whether they ran inside
 * the gate. */
static struct gate_slot *fake_slot;
static int fake_calls, fake_inside;
static void *fake_rxq[1] = {&fake_calls}, *fake_txq[1] = {&fake_calls};
static void *fake_clbk[1];

static uint16_t
fake_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	fake_calls++;
	fake_inside += atomic_load(&fake_slot->busy);
	return n;
}

static void
test_memif_queue_in_gate(void **state)
{
	struct io_queue q;
	struct rte_mbuf *pkts[4];

	(void)state;
	fake_slot = gate_slot_get();
	assert_non_null(fake_slot);
	rte_eth_fp_ops[0].rx_pkt_burst = fake_burst;
	rte_eth_fp_ops[0].tx_pkt_burst = fake_burst;
	rte_eth_fp_ops[0].rxq.data = fake_rxq;
	rte_eth_fp_ops[0].rxq.clbk = fake_clbk;
	rte_eth_fp_ops[0].txq.data = fake_txq;
	rte_eth_fp_ops[0].txq.clbk = fake_clbk;
	memset(&q, 0, sizeof(q));
	q.ops = port_memif_ops();
	q.priv = fake_slot;
	assert_int_equal(io_rx(&q, pkts, 4), 4);
	assert_int_equal(io_tx(&q, pkts, 3), 3);
	assert_int_equal(fake_calls, 2);
	assert_int_equal(fake_inside, 2);
	assert_int_equal(atomic_load(&fake_slot->busy), 0);
	/* While an munmap() runs, neither burst reaches the PMD. */
	atomic_store(&gate_closed, 1);
	assert_int_equal(io_rx(&q, pkts, 4), 0);
	assert_int_equal(io_tx(&q, pkts, 3), 0);
	atomic_store(&gate_closed, 0);
	assert_int_equal(fake_calls, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_munmap_waits_for_burst),
		cmocka_unit_test(test_munmap_waits_unfenced),
		cmocka_unit_test(test_no_burst_while_closed),
		cmocka_unit_test(test_memif_queue_in_gate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
