/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stall detection and attribution (issue 29) on the fake wire with its
 * fake clock: stalls injected at known times on either side
 * (io_fake_stall(): a clock read of that side jumps the clock) are found
 * with their lengths, and exactly the probes whose T1..T4 they overlap
 * are marked host-affected (prober), or, through the stall TLV, the
 * answers of a reflector that stalled before T2 or inside T2..T3 are
 * marked host-affected (reflector).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/stall.h"
#include "latprobe/stamp.h"
#include "engine_wire.h"

#define N_MBUFS	  256
#define SPORT	  40000
#define N_PROBES  50
/* 2 us at the fake 2 GHz TSC; a gap between two polls here is a few clock
 * reads of 100 cycles. */
#define THR_NS	  2000
#define STALL_LEN 200000u /* cycles: 100 us */

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	/* reflector_hook(): the reflector's own (pinned) clock, and the
	 * probes (by order of arrival) whose answer it stalls before T2 or
	 * inside T2..T3 */
	uint64_t vclock;
	unsigned n_hooks;
	uint64_t before_mask, inside_mask;
};

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, N_MBUFS) != 0) {
		tw_fixture_free(w, w->f, NULL, NULL);
		return -1;
	}
	tw_reflector_conf(&w->rc, &w->clock);
	tw_prober_conf_stamp(&w->pc, &w->clock, SPORT);
	w->pc.count = N_PROBES;
	w->pc.timeout_cycles = TW_TSC_HZ; /* 1 s: nothing is lost */
	w->pc.stall_threshold_ns = THR_NS;
	w->rc.stall_threshold_ns = THR_NS;
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct wire *w = *state;

	tw_fixture_free(w, w->f, w->prober_ready ? &w->pw : NULL, &w->rw);
	return 0;
}

static uint64_t
ns_of(const struct wire *w, uint64_t cycles)
{
	return tsc_to_ns(&w->clock, cycles);
}

/* Probes of h above ns (whole counters above the one holding ns). */
static uint64_t
count_above(const struct histogram *h, uint64_t ns)
{
	uint64_t n = 0;

	for (unsigned i = histogram_index(ns) + 1; i < HISTOGRAM_COUNTERS; i++)
		n += h->counts[i];
	return n + h->overflow;
}

/* w's unaffected round trips (rtt less the host-affected ones). */
static const struct histogram *
unaffected(const struct wire *w)
{
	static struct histogram u;

	assert_int_equal(prober_rtt_unaffected(&w->pw, &u), 0);
	return &u;
}

static void
run_prober(struct wire *w)
{
	static const atomic_bool no_stop;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.received, N_PROBES);
}

/*
 * Prober stalls at known times, probes paced (-i) so that some land while
 * the worker waits to send (not on any probe's wire time) and some while a
 * probe is in flight: every stall is found, with its length, and the
 * probes marked host-affected (prober) are exactly those it lengthened.
 */
static void
prober_stalls(void **state, bool generic)
{
	struct wire *w = *state;
	const uint64_t len_ns = ns_of(w, STALL_LEN);
	unsigned taken;
	uint64_t marked, slow;

	/* The answer comes 10,000 cycles after the probe: many empty polls
	 * in flight, and about 10,000 cycles of pacing between probes. */
	io_fake_set_delay(w->f, 1, 10000);
	w->pc.interval_cycles = 20000;
	w->pc.keep_samples = generic; /* the generic loop, not the lean */
	w->pc.max_samples = N_PROBES;
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	/* Further apart than a stall is long: each is one gap. */
	for (unsigned k = 0; k < 8; k++)
		assert_int_equal(io_fake_stall(w->f, 0, 23456 + k * 297531ull,
					       STALL_LEN),
				 0);
	run_prober(w);
	taken = io_fake_stalls_taken(w->f, 0);
	assert_int_equal(taken, 8);
	/* Found, each with its length (plus the read or two around it). */
	assert_int_equal(w->pw.stall.st.count, taken);
	assert_true(w->pw.stall.st.longest_ns >= len_ns);
	assert_true(w->pw.stall.st.longest_ns <= len_ns + 1000);
	assert_true(w->pw.stall.st.total_ns >= taken * len_ns);
	assert_true(w->pw.stall.st.total_ns <= taken * (len_ns + 1000));
	assert_int_equal(w->pw.stall.st.hist[stall_bucket(len_ns + 500)],
			 taken);
	/* Exactly the probes a stall lengthened: the round trip of any other
	 * is a few microseconds. */
	marked = histogram_count(&w->pw.rtt_host_prober);
	slow = count_above(&w->pw.rtt, len_ns / 2);
	assert_int_equal(marked, slow);
	assert_true(marked > 0);     /* some overlapped a probe ... */
	assert_true(marked < taken); /* ... and some came between probes */
	assert_true(histogram_max(unaffected(w)) < len_ns / 2);
	assert_true(histogram_min(&w->pw.rtt_host_prober) >= len_ns);
	assert_int_equal(histogram_count(unaffected(w)) + marked, N_PROBES);
	assert_int_equal(histogram_count(&w->pw.rtt_host_reflector), 0);
	assert_int_equal(histogram_count(&w->pw.rtt_host_both), 0);
}

static void
test_prober_stalls_lean(void **state)
{
	prober_stalls(state, false);
}

static void
test_prober_stalls_generic(void **state)
{
	prober_stalls(state, true);
}

/* Threshold 0: nothing watched, nothing found, every probe unaffected. */
static void
test_prober_off(void **state)
{
	struct wire *w = *state;

	w->pc.stall_threshold_ns = 0;
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	assert_int_equal(io_fake_stall(w->f, 0, 5000, STALL_LEN), 0);
	run_prober(w);
	assert_int_equal(io_fake_stalls_taken(w->f, 0), 1);
	assert_int_equal(w->pw.stall.st.count, 0);
	assert_int_equal(histogram_count(unaffected(w)), N_PROBES);
}

/*
 * The reflector on a clock of its own (pinned per answer, so that its
 * stalls do not move the prober's clock: on the fake wire the reflector
 * runs inside the prober's tx). Answer k: T2 1,000 cycles after the last
 * one's T3 (STALL_LEN after it when before_mask has bit k), T3 100 cycles
 * after T2 (STALL_LEN when inside_mask has it).
 */
static void
reflector_hook(void *arg)
{
	struct wire *w = arg;
	unsigned k = w->n_hooks++;
	uint64_t t2, t3;

	t2 = w->vclock + 1000 + ((w->before_mask >> k & 1) ? STALL_LEN : 0);
	t3 = t2 + ((w->inside_mask >> k & 1) ? STALL_LEN : 100);
	w->vclock = t3;
	io_fake_pin_clock(w->f, 1, t2, t3);
	reflector_poll(&w->rw);
}

static void
test_reflector_stalls_told(void **state)
{
	struct wire *w = *state;

	w->pc.stall_tlv = true;
	w->pc.size = 64; /* room for the TLV */
	w->before_mask = 1ull << 3 | 1ull << 17 | 1ull << 40;
	w->inside_mask = 1ull << 9 | 1ull << 40;
	assert_int_equal(
		tw_reflector_start(w->f, &w->rw, &w->rc, reflector_hook, w), 0);
	w->vclock = 1000000;
	stall_rebase(&w->rw.stall, w->vclock); /* as reflector_run() does */
	run_prober(w);
	/* The reflector found them: 3 before T2, 2 inside T2..T3 (answer 40
	 * had both). */
	assert_int_equal(w->rw.stall.st.count, 5);
	assert_int_equal(w->pw.st.peer_stall_answers, N_PROBES);
	assert_int_equal(w->pw.st.peer_stall_unknown, 0);
	assert_int_equal(w->pw.st.peer_stall_count, 5);
	/* Exactly those 4 answers marked, none by the prober's own side. */
	assert_int_equal(histogram_count(&w->pw.rtt_host_reflector), 4);
	assert_int_equal(histogram_count(&w->pw.rtt_host_prober), 0);
	assert_int_equal(histogram_count(&w->pw.rtt_host_both), 0);
	assert_int_equal(histogram_count(unaffected(w)), N_PROBES - 4);
	assert_int_equal(w->pw.stall.st.count, 0);
}

/* Without --stall-tlv the probes carry no TLV: the reflector's stalls
 * are its own, the prober knows nothing of them. */
static void
test_reflector_stalls_not_asked(void **state)
{
	struct wire *w = *state;

	w->before_mask = 1ull << 3;
	assert_int_equal(
		tw_reflector_start(w->f, &w->rw, &w->rc, reflector_hook, w), 0);
	w->vclock = 1000000;
	stall_rebase(&w->rw.stall, w->vclock); /* as reflector_run() does */
	run_prober(w);
	assert_int_equal(w->rw.stall.st.count, 1);
	assert_int_equal(w->pw.st.peer_stall_answers, 0);
	assert_int_equal(histogram_count(unaffected(w)), N_PROBES);
}

/* A reflector that does not know the TLV (U flag, RFC 8972 §4.2): the
 * prober counts it unknown and marks nothing. */
static void
test_reflector_tlv_unknown(void **state)
{
	uint8_t p[64];
	struct stamp_sender_opts o = {
		.seq = 1, .len = sizeof(p), .tlv_lp_stalls = true};
	struct stamp_reflect_opts ro = {.seq = 1};
	struct stamp_lp_stalls ls;

	(void)state;
	assert_int_equal(stamp_sender_build(p, sizeof(p), &o), 64);
	assert_int_equal(p[44], 0);
	assert_int_equal(p[45], STAMP_TLV_LP_STALLS);
	assert_int_equal(p[47], STAMP_TLV_LP_STALLS_LEN);
	assert_int_equal(stamp_reflect(p, sizeof(p), &ro), 64);
	assert_int_equal(p[44], STAMP_TLV_U);
	assert_int_equal(stamp_lp_stalls_find(p, sizeof(p), &ls), -ENOTSUP);
	/* One that echoes it as it came (no U flag: scapy's layers): still
	 * not filled in. */
	assert_int_equal(stamp_sender_build(p, sizeof(p), &o), 64);
	assert_int_equal(stamp_lp_stalls_find(p, sizeof(p), &ls), -ENOTSUP);
	/* And a latprobe reflector fills it in. */
	assert_int_equal(stamp_sender_build(p, sizeof(p), &o), 64);
	ro.lp_stalls = true;
	ro.stall_flags = STAMP_STALL_BEFORE_T2;
	ro.stall_ns = 123456;
	ro.stall_count = 7;
	ro.stall_total_us = 999;
	assert_int_equal(stamp_reflect(p, sizeof(p), &ro), 64);
	assert_int_equal(p[44], 0);
	assert_int_equal(p[49], STAMP_LP_STALLS_FILLED);
	assert_int_equal(stamp_lp_stalls_find(p, sizeof(p), &ls), 1);
	assert_int_equal(ls.flags, STAMP_STALL_BEFORE_T2);
	assert_int_equal(ls.stall_ns, 123456);
	assert_int_equal(ls.stall_count, 7);
	assert_int_equal(ls.stall_total_us, 999);
}

/* Both sides stalled during a probe: the one with more than twice the
 * other's stall time is charged, else both. */
static void
test_stall_side(void **state)
{
	(void)state;
	assert_int_equal(prober_stall_side(150000000, 8000), 1);
	assert_int_equal(prober_stall_side(8000, 150000000), 2);
	assert_int_equal(prober_stall_side(100000, 60000), 3);
	assert_int_equal(prober_stall_side(60000, 100000), 3);
	assert_int_equal(prober_stall_side(200002, 100000), 1);
	assert_int_equal(prober_stall_side(200000, 100000),
			 3); /* twice: both */
	assert_int_equal(prober_stall_side(0, 0), 3);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_prober_stalls_lean),
		T(test_prober_stalls_generic),
		T(test_prober_off),
		T(test_reflector_stalls_told),
		T(test_reflector_stalls_not_asked),
		cmocka_unit_test(test_reflector_tlv_unknown),
		cmocka_unit_test(test_stall_side),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
