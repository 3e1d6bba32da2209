/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stall detection and attribution on the fake wire with its
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

/*
 * The worker's context switches as stall_det reads them: the real thread's
 * would move with the machine's load, so a test counts one per stall the
 * fake injected inside a call when switches_in_calls is set (the thread
 * was off its CPU there), none otherwise.
 */
static struct io_fake *switches_fake;
static bool switches_in_calls;

static uint64_t
fake_switches(void)
{
	return switches_in_calls ? io_fake_call_stalls_taken(switches_fake, 0)
				 : 0;
}

static void
run_prober(struct wire *w)
{
	static const atomic_bool no_stop;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	switches_fake = w->f;
	w->pw.stall.read_switches = fake_switches;
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
	w->rw.stall.st.count = UINT32_MAX - 1;
	run_prober(w);
	/* The reflector found them: 3 before T2, 2 inside T2..T3 (answer 40
	 * had both). */
	assert_int_equal(w->rw.stall.st.count, UINT32_MAX - 1 + 5ull);
	assert_int_equal(w->pw.st.peer_stall_answers, N_PROBES);
	assert_int_equal(w->pw.st.peer_stall_unknown, 0);
	/* Its counters wrapped at 2^32 on the way (they started 2 short):
	 * the differences are what counts. */
	assert_int_equal(w->pw.peer_rw[0].worker, 1);
	assert_int_equal(w->pw.peer_rw[0].count, 5);
	assert_int_equal(w->pw.peer_rw[1].worker, 0);
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

/*
 * A PMD whose calls enter the kernel and run the packet's path (af_xdp's
 * send()/recvfrom() on a veth): every call here takes 15 us inside, far
 * above the threshold. None of it is a stall (a quiet run finds none),
 * and the time inside the calls is its own series, per kind. The same
 * calls on a PMD that cannot wait (path_calls false: memif, a NIC) are
 * judged: each is a stall.
 */
#define CALL_LEN 30000u /* cycles: 15 us */

static void
path_calls(void **state, bool path, bool generic)
{
	struct wire *w = *state;
	const struct stall_call_stats *c = w->pw.stall.calls;

	io_fake_set_delay(w->f, 1, 10000);
	io_fake_set_call_time(w->f, 0, CALL_LEN, CALL_LEN, path);
	w->pc.keep_samples = generic;
	w->pc.max_samples = N_PROBES;
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	run_prober(w);
	assert_int_equal(c[STALL_CALL_TX].count, N_PROBES);
	assert_true(c[STALL_CALL_RX].count >= N_PROBES);
	assert_true(c[STALL_CALL_TX].max_cycles >= CALL_LEN);
	assert_true(c[STALL_CALL_TX].cycles >= N_PROBES * (uint64_t)CALL_LEN);
	assert_int_equal(c[STALL_CALL_TX].log2[stall_log2(CALL_LEN)], N_PROBES);
	if (path) {
		assert_int_equal(w->pw.stall.st.count, 0);
		assert_int_equal(histogram_count(&w->pw.rtt_host_prober), 0);
	} else {
		/* Every call (tx, rx, empty rx) was one. */
		assert_int_equal(w->pw.stall.st.count,
				 c[STALL_CALL_TX].count +
					 c[STALL_CALL_RX].count +
					 c[STALL_CALL_RX_EMPTY].count);
		assert_int_equal(histogram_count(&w->pw.rtt_host_prober),
				 N_PROBES);
	}
}

static void
test_path_calls_quiet_lean(void **state)
{
	path_calls(state, true, false);
}

static void
test_path_calls_quiet_generic(void **state)
{
	path_calls(state, true, true);
}

static void
test_poll_calls_judged(void **state)
{
	path_calls(state, false, false);
}

/*
 * On a path-calls PMD, stalls between the calls (the loop's own time)
 * are each found with their length and mark exactly the probes they
 * lengthened. A long call (above STALL_PATH_CHECK_NS) is a stall only when
 * the thread switched inside it (off_cpu): then each is found too
 * (stall_stats.in_call); while the thread stayed on its CPU it is the
 * path's time and not counted.
 */
static void
path_calls_stalls(void **state, bool off_cpu)
{
	struct wire *w = *state;
	const uint64_t len_ns = ns_of(w, STALL_LEN);
	const unsigned n = off_cpu ? 16 : 8;

	assert_true(len_ns > STALL_PATH_CHECK_NS);
	switches_in_calls = off_cpu;

	io_fake_set_delay(w->f, 1, 10000);
	io_fake_set_call_time(w->f, 0, 2000, 2000, true);
	w->pc.interval_cycles = 40000;
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	for (unsigned k = 0; k < 8; k++) {
		assert_int_equal(io_fake_stall(w->f, 0, 23456 + k * 400000ull,
					       STALL_LEN),
				 0);
		assert_int_equal(io_fake_call_stall(w->f, 0,
						    250000 + k * 400000ull,
						    STALL_LEN),
				 0);
	}
	run_prober(w);
	assert_int_equal(io_fake_stalls_taken(w->f, 0), 8);
	assert_int_equal(io_fake_call_stalls_taken(w->f, 0), 8);
	assert_int_equal(w->pw.stall.st.count, n);
	assert_int_equal(w->pw.stall.st.in_call, off_cpu ? 8 : 0);
	assert_true(w->pw.stall.st.total_ns >= n * len_ns);
	assert_true(w->pw.stall.st.total_ns <= n * (len_ns + 3000));
	switches_in_calls = false;
	/* The calls that held one are in the series' tail. */
	assert_true(w->pw.stall.calls[STALL_CALL_RX_EMPTY].max_cycles +
			    w->pw.stall.calls[STALL_CALL_TX].max_cycles +
			    w->pw.stall.calls[STALL_CALL_RX].max_cycles >=
		    STALL_LEN);
}

static void
test_path_calls_stalls(void **state)
{
	path_calls_stalls(state, false);
}

static void
test_path_calls_off_cpu(void **state)
{
	path_calls_stalls(state, true);
}

/*
 * Calibration: a loop whose own gaps are long (every clock read takes
 * 1.5 us: a slow, emulated CPU) would count one stall a gap at the 2 us
 * floor; calibrated, the threshold becomes 4 x the gaps' p99.9, a quiet
 * run has none, and 100 us stalls are still each found.
 */
static void
calibrated(void **state, bool calib, unsigned n_stalls)
{
	struct wire *w = *state;

	io_fake_set_tick(w->f, 3000);
	io_fake_set_delay(w->f, 1, 10000);
	/* 10 ms: about 2,000 polls of 3 reads at this clock. */
	w->pc.stall_calib_ns = calib ? 10000000 : 0;
	w->pc.interval_cycles = 400000;
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	for (unsigned k = 0; k < n_stalls; k++)
		assert_int_equal(io_fake_stall(w->f, 0,
					       22000000 + k * 2000000ull,
					       STALL_LEN),
				 0);
	run_prober(w);
	assert_true(w->pw.stall.calib.done);
}

static void
test_calibrated_quiet(void **state)
{
	struct wire *w = *state;

	calibrated(state, true, 0);
	assert_true(w->pw.stall.calib.gaps >= STALL_CALIB_MIN_GAPS);
	assert_true(w->pw.stall.calib.thr_cycles >
		    w->pw.stall.calib.floor_cycles);
	assert_int_equal(w->pw.stall.calib.thr_cycles,
			 STALL_CALIB_MULT * w->pw.stall.calib.p999_cycles);
	assert_int_equal(w->pw.stall.st.count, 0);
}

static void
test_uncalibrated_false_stalls(void **state)
{
	struct wire *w = *state;

	calibrated(state, false, 0);
	assert_int_equal(w->pw.stall.calib.thr_cycles,
			 w->pw.stall.calib.floor_cycles);
	assert_true(w->pw.stall.st.count > N_PROBES);
}

static void
test_calibrated_finds(void **state)
{
	struct wire *w = *state;

	calibrated(state, true, 8);
	assert_int_equal(io_fake_stalls_taken(w->f, 0), 8);
	assert_int_equal(w->pw.stall.st.count, 8);
}

/* The closed loop after a re-attach: the time without a port is not a
 * stall of the loop. */
static void
test_resume_no_stall(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;

	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	run_prober(w);
	assert_int_equal(w->pw.stall.st.count, 0);
	io_fake_advance(w->f, TW_TSC_HZ); /* a second without a port */
	w->pc.count = 2 * N_PROBES;
	assert_int_equal(prober_worker_resume(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.received, 2 * N_PROBES);
	assert_int_equal(w->pw.stall.st.count, 0);
}

/*
 * The TLV's counts of one reflector worker heard by several prober
 * workers are taken once (the largest), per target; distinct reflector
 * workers add up.
 */
static void
test_peer_merge(void **state)
{
	static struct prober_worker pw[3];
	const unsigned same[3] = {0, 0, 0}, apart[3] = {0, 1, 1};
	uint64_t c, us;

	(void)state;
	memset(pw, 0, sizeof(pw));
	pw[0].peer_rw[0] = (struct prober_peer_rw){
		.worker = 1, .count = 7, .total_us = 70};
	pw[1].peer_rw[0] = (struct prober_peer_rw){
		.worker = 1, .count = 9, .total_us = 90};
	pw[1].peer_rw[1] = (struct prober_peer_rw){
		.worker = 2, .count = 4, .total_us = 40};
	pw[2].peer_rw[0] = (struct prober_peer_rw){
		.worker = 1, .count = 9, .total_us = 90};
	prober_peer_stalls_merge(pw, 3, same, &c, &us);
	assert_int_equal(c, 9 + 4);
	assert_int_equal(us, 90 + 40);
	prober_peer_stalls_merge(pw, 3, NULL, &c, &us);
	assert_int_equal(c, 9 + 4);
	/* Worker 0 probes another target: its reflector worker 1 is
	 * another reflector's. */
	prober_peer_stalls_merge(pw, 3, apart, &c, &us);
	assert_int_equal(c, 7 + 9 + 4);
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
		T(test_path_calls_quiet_lean),
		T(test_path_calls_quiet_generic),
		T(test_poll_calls_judged),
		T(test_path_calls_stalls),
		T(test_path_calls_off_cpu),
		T(test_calibrated_quiet),
		T(test_uncalibrated_false_stalls),
		T(test_calibrated_finds),
		T(test_resume_no_stall),
		cmocka_unit_test(test_peer_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
