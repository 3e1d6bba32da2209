/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unmap gate (lib/port/gate.c, the memif disconnect race): a gated
 * munmap() waits for a burst in flight, a burst does not begin while one
 * runs, and a net_memif queue's bursts run inside the gate. Only the
 * racer's (the EAL interrupt thread's) munmap() calls are gated, never on
 * the caller's own burst; every call reaches the next munmap() in the
 * lookup order (munmap_spy.c, as ASan's would); a child of fork() is not
 * held up by the parent's bursts nor by its unmaps. No EAL: the bursts are
 * fakes put in DPDK's public fast-path table.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_ethdev.h>

#include "latprobe/gate.h"
#include "latprobe/port.h"

/* munmap_spy.c's count of the calls that reached it. */
extern atomic_uint munmap_spy_calls;

/* A burst that lasts 50 ms (ms: 0) or ms, as one whose lcore was
 * preempted inside it. */
struct slow_burst {
	struct gate_slot *slot;
	long ms;
	atomic_int inside;
	atomic_int done;
};

static void *
slow_burst_thread(void *arg)
{
	struct slow_burst *b = arg;
	struct timespec d = {.tv_nsec = (b->ms != 0 ? b->ms : 50) * 1000000};

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
	assert_int_equal(atomic_load(&s->busy), gate_self());
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
	fake_inside += atomic_load(&fake_slot->busy) == gate_self();
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

static void *
map_page(void)
{
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(page != MAP_FAILED);
	return page;
}

/*
 * A thread inside a burst that unmaps (a signal handler on a lcore, a PMD's
 * own unmap on the burst path) does not wait for its own slot: before, it
 * waited the whole GATE_WAIT_LIMIT_NS (1 s) for itself.
 */
static void
test_own_slot_no_wait(void **state)
{
	struct gate_slot *s = gate_slot_get();
	uint64_t waited = gate_waited();

	(void)state;
	assert_non_null(s);
	assert_true(gate_enter(s));
	assert_int_equal(munmap(map_page(), 4096), 0);
	assert_int_equal(gate_waited(), waited);
	gate_leave(s);
}

/* The racer of these tests: the thread that set its flag. */
static __thread int test_racer_me;

static int
test_is_racer(void)
{
	return test_racer_me;
}

/*
 * Only the racer's (the EAL interrupt thread's) munmap() waits for a burst
 * in flight; any other thread's goes straight through, also while a burst
 * is in flight.
 */
static void
test_only_racer_gated(void **state)
{
	struct slow_burst b = {.slot = gate_slot_get(), .ms = 200};
	uint64_t waited = gate_waited();
	pthread_t t;

	(void)state;
	assert_non_null(b.slot);
	gate_set_racer(test_is_racer);
	assert_int_equal(pthread_create(&t, NULL, slow_burst_thread, &b), 0);
	while (atomic_load(&b.inside) == 0)
		usleep(100);
	/* Not the racer: no wait, the burst is still in flight. */
	assert_int_equal(munmap(map_page(), 4096), 0);
	assert_int_equal(atomic_load(&b.done), 0);
	assert_int_equal(gate_waited(), waited);
	/* The racer: after the burst. */
	test_racer_me = 1;
	assert_int_equal(munmap(map_page(), 4096), 0);
	assert_int_equal(atomic_load(&b.done), 1);
	assert_int_equal(gate_waited(), waited + 1);
	test_racer_me = 0;
	pthread_join(t, NULL);
	gate_set_racer(NULL);
}

/*
 * Every munmap() reaches the next definition in the lookup order (here
 * munmap_spy.c's; in an ASan build ASan's, with a preload the preload's),
 * gated or not, with the slots in use or not: none is a bare system call.
 */
static void
test_next_munmap_called(void **state)
{
	unsigned calls = atomic_load(&munmap_spy_calls);
	struct gate_slot *s = gate_slot_get();

	(void)state;
	assert_non_null(s);
	assert_int_equal(munmap(map_page(), 4096), 0); /* gated */
	assert_int_equal(atomic_load(&munmap_spy_calls), calls + 1);
	gate_set_racer(test_is_racer);
	assert_int_equal(munmap(map_page(), 4096), 0); /* not gated */
	assert_int_equal(atomic_load(&munmap_spy_calls), calls + 2);
	gate_set_racer(NULL);
	/* Its failures too, errno included. */
	errno = 0;
	assert_int_equal(munmap((void *)1, 4096), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(atomic_load(&munmap_spy_calls), calls + 3);
}

/* A gated munmap() that waits on a burst in flight (it holds the gate). */
static void *
unmap_thread(void *arg)
{
	assert_int_equal(munmap(arg, 4096), 0);
	return NULL;
}

/*
 * fork() while a burst is in flight and a gated munmap() waits for it: the
 * child (only the forking thread lives there) unmaps at once, neither
 * waiting for a burst that cannot end nor for a lock held by a thread that
 * is gone (before: a global mutex, and the child hung on it).
 */
static void
test_fork_child_unmaps(void **state)
{
	struct slow_burst b = {.slot = gate_slot_get(), .ms = 500};
	pthread_t t, u;
	pid_t pid;
	int st = 0;

	(void)state;
	assert_non_null(b.slot);
	assert_int_equal(pthread_create(&t, NULL, slow_burst_thread, &b), 0);
	while (atomic_load(&b.inside) == 0)
		usleep(100);
	assert_int_equal(pthread_create(&u, NULL, unmap_thread, map_page()), 0);
	while (atomic_load(&gate_closed) == 0)
		usleep(100);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint64_t waited = gate_waited();
		struct timespec t0, t1;
		int rc;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = munmap(map_page(), 4096);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* 100 ms: far less than the 500 ms burst or the 1 s limit. */
		_exit(rc == 0 && gate_waited() == waited &&
				      (t1.tv_sec - t0.tv_sec) * 1000000000l +
						      (t1.tv_nsec -
						       t0.tv_nsec) <
					      100000000l
			      ? 0
			      : 1);
	}
	/* The child gets 3 s (a busy machine), then it is taken as hung. */
	for (int i = 0; i < 300 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fail_msg("the child of fork() hung in munmap()");
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	pthread_join(u, NULL);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&b.done), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_munmap_waits_for_burst),
		cmocka_unit_test(test_munmap_waits_unfenced),
		cmocka_unit_test(test_no_burst_while_closed),
		cmocka_unit_test(test_memif_queue_in_gate),
		cmocka_unit_test(test_own_slot_no_wait),
		cmocka_unit_test(test_only_racer_gated),
		cmocka_unit_test(test_next_munmap_called),
		cmocka_unit_test(test_fork_child_unmaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
