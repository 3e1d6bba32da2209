/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The open-loop engine (lib/prober/openloop.c) over the in-memory fake wire:
 * side 0 is the prober, side 1 the reflector, answered from a peer hook on
 * every probe. The fake clock advances one tick (100 cycles, 50 ns at the
 * 2 GHz TW_TSC_HZ) per read; io_fake delays, holds, drops, duplicates and
 * swaps the reflector's answers. Among these, the coordinated-omission
 * test: a path that stalls 1 ms every 25 ms is hidden by closed loop's p99
 * and shown by open loop's intended-latency p99.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/codec.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/stamp.h"
#include "engine_wire.h"

#define N_MBUFS 4096
#define US	(TW_TSC_HZ / 1000000) /* cycles */
#define MS	(TW_TSC_HZ / 1000)

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	/* jump_hook: after the jump_at-th probe, the clock jumps by jump. */
	uint64_t jump_at, jump;
};

static const atomic_bool no_stop;

/* A sender that stalls once: the fake clock jumps after one probe. */
static void
jump_hook(void *arg)
{
	struct wire *w = arg;

	reflector_poll(&w->rw);
	if (io_fake_tx_count(w->f, 0) == w->jump_at)
		io_fake_advance(w->f, w->jump);
}

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, N_MBUFS) != 0)
		goto fail;
	tw_reflector_conf(&w->rc, &w->clock);
	/* The timings checked here count the fake clock's reads of each
	 * side; the stall detector's own reads are test_stall's. */
	w->rc.stall_threshold_ns = 0;
	if (tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL) != 0)
		goto fail;

	tw_prober_conf_stamp(&w->pc, &w->clock, 40000);
	w->pc.count = 1000;
	w->pc.warmup = 0;
	w->pc.timeout_cycles = 1 * MS;
	w->pc.rate_pps = 100000; /* a probe every 10 us */
	w->pc.spacing = PROBER_SPACING_CONSTANT;
	w->pc.seed = PROBER_DEFAULT_SEED;
	w->pc.behind_bound_cycles = 10 * US;
	*state = w;
	return 0;
fail:
	tw_fixture_free(w, w->f, NULL, NULL);
	return -1;
}

static int
teardown(void **state)
{
	struct wire *w = *state;

	tw_fixture_free(w, w->f, w->prober_ready ? &w->pw : NULL, &w->rw);
	return 0;
}

static void
run(struct wire *w)
{
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	if (w->pc.rate_pps != 0)
		assert_int_equal(prober_worker_run_open(&w->pw, &no_stop), 0);
	else
		assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_true(w->pw.done);
}

static uint64_t
ns(uint64_t cycles)
{
	return cycles / (TW_TSC_HZ / 1000000000ull);
}

/* Schedule -------------------------------------------------------------- */

/* Constant spacing carries hz % rate: rate gaps add up to exactly 1 s. */
static void
test_sched_constant(void **state)
{
	struct prober_sched s;
	uint64_t sum = 0;

	(void)state;
	prober_sched_init(&s, PROBER_SPACING_CONSTANT, TW_TSC_HZ, 30000, 0);
	for (unsigned i = 0; i < 30000; i++) {
		uint64_t g = prober_sched_gap(&s);

		assert_true(g == TW_TSC_HZ / 30000 ||
			    g == TW_TSC_HZ / 30000 + 1);
		sum += g;
	}
	assert_int_equal(sum, TW_TSC_HZ);
}

/* Poisson: one seed, one schedule; exponential gaps of mean 1/rate. */
static void
test_sched_poisson(void **state)
{
	struct prober_sched a, b, c;
	const unsigned n = 200000;
	double mean = (double)TW_TSC_HZ / 20000, sum = 0;
	unsigned below_mean = 0, differ = 0;

	(void)state;
	prober_sched_init(&a, PROBER_SPACING_POISSON, TW_TSC_HZ, 20000, 42);
	prober_sched_init(&b, PROBER_SPACING_POISSON, TW_TSC_HZ, 20000, 42);
	prober_sched_init(&c, PROBER_SPACING_POISSON, TW_TSC_HZ, 20000, 43);
	for (unsigned i = 0; i < n; i++) {
		uint64_t g = prober_sched_gap(&a);

		assert_int_equal(g, prober_sched_gap(&b));
		differ += g != prober_sched_gap(&c);
		sum += (double)g;
		below_mean += (double)g < mean;
	}
	assert_true(differ > n * 99 / 100);
	/* Mean within 1 % (its standard error is 0.22 %); P(gap < mean) =
	 * 1 - 1/e = 0.632 for an exponential, a constant gives 0 or 1. */
	assert_true(sum / n > mean * 0.99 && sum / n < mean * 1.01);
	assert_true(below_mean > n * 0.622 && below_mean < n * 0.642);
}

static void
test_window_size(void **state)
{
	size_t slots = 0;

	(void)state;
	/* 1000 pps x 200 ms = 200 (+1) in flight: 512 slots. */
	assert_int_equal(prober_open_window_size(1000, 200000000ull, &slots),
			 0);
	assert_int_equal(slots, 512);
	assert_int_equal(prober_open_window_size(1, 1000, &slots), 0);
	assert_int_equal(slots, 64);
	assert_int_equal(prober_open_window_size(PROBER_OPEN_MAX_INFLIGHT - 1,
						 1000000000ull, &slots),
			 0);
	assert_int_equal(slots, 2 * (size_t)PROBER_OPEN_MAX_INFLIGHT);
	assert_int_equal(prober_open_window_size(PROBER_OPEN_MAX_INFLIGHT,
						 1000000000ull, &slots),
			 -E2BIG);
	assert_int_equal(
		prober_open_window_size(100000000, 60000000000ull, &slots),
		-E2BIG);
	assert_int_equal(prober_open_window_size(0, 1000, &slots), -EINVAL);
}

/* The engine ----------------------------------------------------------- */

/*
 * Answers take 50 us, probes leave every 10 us: five in flight, and the
 * run takes the schedule's 10 ms, not 1000 round trips (50 ms) as closed
 * loop would.
 */
static void
test_many_in_flight(void **state)
{
	struct wire *w = *state;
	uint64_t t0 = io_fake_now(w->f);

	io_fake_set_delay(w->f, 1, 50 * US);
	run(w);
	assert_int_equal(w->pw.st.sent, 1000);
	assert_int_equal(w->pw.st.received, 1000);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.duplicated, 0);
	assert_int_equal(w->pw.st.reordered, 0);
	assert_int_equal(histogram_count(&w->pw.rtt), 1000);
	assert_int_equal(histogram_count(&w->pw.intended), 1000);
	assert_int_equal(histogram_count(&w->pw.behind), 1000);
	assert_true(histogram_min(&w->pw.rtt) >= 50000);
	assert_true(histogram_min(&w->pw.intended) >=
		    histogram_min(&w->pw.rtt));
	assert_true(io_fake_now(w->f) - t0 < 11 * MS);
	assert_int_equal(w->pw.st.late_sends, 0);
	assert_true(w->pw.st.behind_max_ns < 1000);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* -t: the sent count over the fake duration is the rate (probes in flight
 * at the end are abandoned: at most the last 5 us of sends). */
static void
test_rate_accuracy(void **state)
{
	struct wire *w = *state;

	w->pc.count = 0;
	w->pc.duration_cycles = 100 * MS; /* 10000 probes at 100 kpps */
	io_fake_set_delay(w->f, 1, 5 * US);
	run(w);
	assert_true(io_fake_tx_count(w->f, 0) >= 9999 &&
		    io_fake_tx_count(w->f, 0) <= 10001);
	assert_true(w->pw.st.sent >= 9998 && w->pw.st.sent <= 10001);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.sent, w->pw.st.received);
}

/*
 * Every 10th answer dropped, 1 ms timeout: 100 lost, and the sender never
 * waits for them (the run takes the schedule's 10 ms plus one timeout, not
 * 100 timeouts).
 */
static void
test_loss_does_not_stall(void **state)
{
	struct wire *w = *state;
	uint64_t t0 = io_fake_now(w->f);

	io_fake_set_delay(w->f, 1, 20 * US);
	io_fake_set_drop_every(w->f, 1, 10);
	run(w);
	assert_int_equal(w->pw.st.sent, 1000);
	assert_int_equal(w->pw.st.lost, 100);
	assert_int_equal(w->pw.st.received, 900);
	assert_int_equal(histogram_count(&w->pw.intended), 900);
	assert_int_equal(w->pw.st.late_sends, 0);
	assert_true(io_fake_now(w->f) - t0 < 12 * MS);
}

/* Every 7th answer twice: counted as a duplicate, recorded once. */
static void
test_duplicates(void **state)
{
	struct wire *w = *state;

	io_fake_set_delay(w->f, 1, 20 * US);
	io_fake_set_dup_every(w->f, 1, 7);
	run(w);
	assert_int_equal(w->pw.st.received, 1000);
	assert_int_equal(w->pw.st.duplicated, 1000 / 7);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_DUPLICATE], 1000 / 7);
	assert_int_equal(histogram_count(&w->pw.rtt), 1000);
	assert_int_equal(w->pw.st.lost, 0);
}

/* Every 5th answer overtaken by the next: reordered, neither lost nor
 * late. */
static void
test_reordering(void **state)
{
	struct wire *w = *state;

	w->pc.count = 1001; /* the 1000th answer is released by the 1001st */
	io_fake_set_delay(w->f, 1, 20 * US);
	io_fake_set_swap_every(w->f, 1, 5);
	run(w);
	assert_int_equal(w->pw.st.received, 1001);
	assert_int_equal(w->pw.st.reordered, 200);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.late, 0);
	assert_int_equal(w->pw.st.duplicated, 0);
}

/*
 * Answers held 3 ms every 10 ms with a 1 ms timeout: probes sent early in
 * a hold are lost, and their answers, when they come, are late (not
 * answered, not duplicates); the run goes on.
 */
static void
test_late_answers(void **state)
{
	struct wire *w = *state;

	w->pc.count = 2000;
	io_fake_set_delay(w->f, 1, 5 * US);
	io_fake_set_hold(w->f, 1, 10 * MS, 3 * MS);
	run(w);
	assert_int_equal(w->pw.st.sent, 2000);
	assert_true(w->pw.st.lost > 100);
	assert_true(w->pw.st.late > 100);
	assert_true(w->pw.st.late <= w->pw.st.lost);
	assert_int_equal(w->pw.st.late, w->pw.st.ignored[PROBER_IGN_LATE]);
	assert_int_equal(w->pw.st.received + w->pw.st.lost, 2000);
	assert_int_equal(w->pw.st.duplicated, 0);
}

/*
 * The sender stalls 1 ms after its 300th probe (the fake clock jumps):
 * the next 100 sends are late by up to 1 ms (and the probe in flight
 * then has a 1 ms wire RTT). Their intended latency says
 * so; the wire RTT (T4 - T1) cannot, which is the reason for two series.
 */
static void
test_sender_lag(void **state)
{
	struct wire *w = *state;

	w->jump_at = 300;
	w->jump = 1 * MS;
	w->pc.timeout_cycles = 5 * MS;
	io_fake_set_peer(w->f, 0, jump_hook, w);
	io_fake_set_delay(w->f, 1, 5 * US);
	run(w);
	assert_int_equal(w->pw.st.received, 1000);
	/* 1 ms at 10 us a probe: ~100 sends behind by more than 10 us. */
	assert_true(w->pw.st.late_sends >= 95 && w->pw.st.late_sends <= 101);
	assert_true(w->pw.st.behind_max_ns >= 990000 &&
		    w->pw.st.behind_max_ns <= 1010000);
	assert_true(histogram_percentile(&w->pw.intended, 99.0) >= 900000);
	/* Only the probe in flight during the jump has a long wire RTT. */
	assert_true(histogram_percentile(&w->pw.rtt, 99.0) < 20000);
	assert_true(histogram_percentile(&w->pw.behind, 99.0) >= 800000);
}

/*
 * Coordinated omission: the reflector's answers are held 1 ms once every
 * 25 ms (4 % of the time) over 250 ms. Closed loop sends nothing while it
 * waits, so the stall costs it one probe per period: its p99 stays at the
 * base RTT (the stall shows only in its max). Open loop at 100 kpps keeps
 * sending: 4 % of its probes wait, up to 1 ms, and the intended p99 (the
 * worst quarter of those) is more than half the stall.
 */
static void
test_coordinated_omission(void **state)
{
	struct wire *w = *state;
	uint64_t closed_p99, closed_max, open_p99, base;

	io_fake_set_delay(w->f, 1, 2 * US);
	io_fake_set_hold(w->f, 1, 25 * MS, 1 * MS);
	w->pc.count = 0;
	w->pc.duration_cycles = 250 * MS;
	w->pc.timeout_cycles = 10 * MS;

	w->pc.rate_pps = 0; /* closed loop */
	run(w);
	closed_p99 = histogram_percentile(&w->pw.rtt, 99.0);
	closed_max = histogram_max(&w->pw.rtt);
	base = histogram_percentile(&w->pw.rtt, 50.0);
	assert_true(w->pw.st.received > 10000);
	assert_int_equal(w->pw.st.lost, 0);
	assert_true(closed_max >= ns(900 * US)); /* the stall happened */
	assert_true(closed_p99 < 2 * base);	 /* and p99 hides it */
	prober_worker_fini(&w->pw);
	w->prober_ready = false;

	w->pc.rate_pps = 100000;
	run(w);
	open_p99 = histogram_percentile(&w->pw.intended, 99.0);
	assert_true(w->pw.st.received > 24000);
	assert_int_equal(w->pw.st.lost, 0);
	assert_true(open_p99 >= ns(500 * US));
	assert_true(open_p99 > 100 * closed_p99);
	print_message(
		"# closed loop p50 %llu p99 %llu max %llu ns; open loop "
		"intended p99 %llu ns, wire p99 %llu ns\n",
		(unsigned long long)base, (unsigned long long)closed_p99,
		(unsigned long long)closed_max, (unsigned long long)open_p99,
		(unsigned long long)histogram_percentile(&w->pw.rtt, 99.0));
}

/* Peer hook: no reflector; every probe answered by an ICMP port
 * unreachable quoting it (IP header and 8 bytes of UDP), as a kernel
 * would. */
static void
unreachable_hook(void *arg)
{
	struct wire *w = arg;
	struct io_queue *q = io_fake_queue(w->f, 1);
	struct codec_flow fl = tw_flow4(&tw_refl_mac, &tw_prober_mac,
					TW_REFL_IP, TW_PROBER_IP, 0, 0);
	struct rte_mbuf *m;
	uint8_t frame[256];

	while (io_rx(q, &m, 1) == 1) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		int len = codec_build_icmp_error(frame, sizeof(frame), &fl,
						 CODEC_ICMP_DEST_UNREACH, 3,
						 p + CODEC_ETH_HLEN, 28);

		assert_true(len > 0);
		assert_int_equal(io_fake_inject(w->f, 0, frame, (size_t)len),
				 0);
		io_free(q, m);
	}
}

/* ICMP errors end their probes at once (by the quoted IP ID), not after
 * the 100 ms timeout; 2000 probes: the ID's 10 bits wrap. */
static void
test_unreachable(void **state)
{
	struct wire *w = *state;
	uint64_t t0 = io_fake_now(w->f);

	io_fake_set_peer(w->f, 0, unreachable_hook, w);
	w->pc.count = 2000;
	w->pc.warmup = 10;
	w->pc.timeout_cycles = 100 * MS;
	run(w);
	assert_true(io_fake_now(w->f) - t0 < 25 * MS);
	assert_int_equal(w->pw.st.sent, 2000);
	assert_int_equal(w->pw.st.lost, 2000);
	assert_int_equal(w->pw.st.lost_unreachable, 2000);
	assert_int_equal(w->pw.st.warmup, 10);
	assert_int_equal(w->pw.st.unreachable[PROBER_UNREACH_PORT], 2010);
	assert_int_equal(w->pw.st.late, 0);
}

/* A stop flag set before the start: nothing sent, nothing counted. */
static void
test_stop(void **state)
{
	struct wire *w = *state;
	atomic_bool stop = true;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run_open(&w->pw, &stop), 0);
	assert_int_equal(io_fake_tx_count(w->f, 0), 0);
	assert_int_equal(w->pw.st.sent, 0);
}

/* Warm-up probes go at the rate too, counted apart and not recorded. */
static void
test_warmup(void **state)
{
	struct wire *w = *state;

	w->pc.warmup = 50;
	io_fake_set_delay(w->f, 1, 20 * US);
	run(w);
	assert_int_equal(w->pw.st.warmup, 50);
	assert_int_equal(w->pw.st.sent, 1000);
	assert_int_equal(histogram_count(&w->pw.intended), 1000);
	assert_int_equal(histogram_count(&w->pw.behind), 1000);
	assert_int_equal(io_fake_tx_count(w->f, 0), 1050);
}

/*
 * The answers widen against the newest probe sent (step_seq, kept by the
 * open loop), not against the highest answered: here a highest answered far
 * ahead of everything sent (as it is far behind after 2^31 unanswered
 * probes) changes nothing.
 */
static void
test_widen_newest_sent(void **state)
{
	struct wire *w = *state;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	w->pw.any_seen = true;
	w->pw.max_seq_seen = 0x180000000ull;
	assert_int_equal(prober_worker_run_open(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.step_seq, 1000);
	assert_int_equal(w->pw.st.sent, 1000);
	assert_int_equal(w->pw.st.received, 1000);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_NEVER_SENT], 0);
}

/* A pool dry for a moment: nombuf counted, every probe still goes (late:
 * the intended latency sees the wait), the run is not ended. */
static void
test_nombuf_goes_on(void **state)
{
	struct wire *w = *state;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	io_fake_fail_alloc(w->f, 0, 25); /* after init's own io_alloc */
	assert_int_equal(prober_worker_run_open(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.nombuf, 25);
	assert_int_equal(w->pw.st.sent, 1000);
	assert_int_equal(w->pw.st.received, 1000);
}

/* A pool that stays dry: the run ends (-ENOBUFS) once the shortage has
 * lasted the probe timeout, rather than wait for ever. */
static void
test_nombuf_lasting_ends_run(void **state)
{
	struct wire *w = *state;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	io_fake_fail_alloc(w->f, 0, UINT_MAX);
	assert_int_equal(prober_worker_run_open(&w->pw, &no_stop), -ENOBUFS);
	assert_true(w->pw.st.nombuf > 1);
	assert_int_equal(w->pw.st.sent, 0);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_constant),
		cmocka_unit_test(test_sched_poisson),
		cmocka_unit_test(test_window_size),
		T(test_many_in_flight),
		T(test_rate_accuracy),
		T(test_loss_does_not_stall),
		T(test_duplicates),
		T(test_reordering),
		T(test_late_answers),
		T(test_sender_lag),
		T(test_coordinated_omission),
		T(test_unreachable),
		T(test_stop),
		T(test_warmup),
		T(test_widen_newest_sent),
		T(test_nombuf_goes_on),
		T(test_nombuf_lasting_ends_run),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
