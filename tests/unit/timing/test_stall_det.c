/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stall detector driven by hand: the clock values and the thread's
 * context switches are the test's, so what counts as a stall on a queue
 * whose calls enter the kernel (path_calls), and which stalls can have
 * delayed the frames an rx call brought (stall_before_rx()), are checked
 * case by case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "latprobe/stall.h"
#include "latprobe/timing.h"

#define HZ   1000000000ull /* 1 cycle = 1 ns */
#define US   1000ull
#define THR  (5 * US)
#define LONG (100 * US) /* above STALL_PATH_CHECK_NS */

static uint64_t switches;

static uint64_t
fake_switches(void)
{
	return switches;
}

struct rig {
	struct tsc_clock clock;
	struct stall_det d;
	uint64_t now;
};

static void
rig_init(struct rig *r, bool path)
{
	assert_int_equal(tsc_clock_init(&r->clock, HZ), 0);
	stall_init(&r->d, &r->clock, THR, path);
	r->d.read_switches = fake_switches;
	switches = 0;
	r->now = 1000000;
	stall_restart(&r->d, r->now); /* the worker's baseline */
}

/* One PMD call of kind k: gap ns of the loop's own, then in ns inside,
 * with sw context switches while inside. */
static void
call(struct rig *r, uint64_t gap, uint64_t in, enum stall_call k, unsigned sw)
{
	r->now += gap;
	stall_enter(&r->d, r->now);
	r->now += in;
	switches += sw;
	stall_leave(&r->d, r->now, k);
}

static void
test_path_call_on_cpu(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, true);
	/* Long calls with no switch: the kernel's path, never a stall. */
	for (unsigned i = 0; i < 10; i++)
		call(&r, 100, LONG, STALL_CALL_TX, 0);
	assert_int_equal(r.d.st.count, 0);
	assert_int_equal(r.d.st.in_call, 0);
	assert_int_equal(r.d.calls[STALL_CALL_TX].count, 10);
}

static void
test_path_call_off_cpu(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, true);
	call(&r, 100, LONG, STALL_CALL_RX_EMPTY, 1);
	assert_int_equal(r.d.st.count, 1);
	assert_int_equal(r.d.st.in_call, 1);
	assert_int_equal(r.d.st.total_ns, LONG);
	/* A switch in a short call is not looked at there; the next long
	 * call's look sees it (the thread did lose its CPU since). */
	call(&r, 100, 3 * US, STALL_CALL_RX_EMPTY, 1);
	assert_int_equal(r.d.st.count, 1);
	/* A switch during a gap stall is that stall's: the long call after
	 * it, on its CPU, is not one. */
	call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
	r.now += LONG; /* the gap */
	switches++;
	stall_enter(&r.d, r.now);
	r.now += LONG;
	stall_leave(&r.d, r.now, STALL_CALL_TX);
	assert_int_equal(r.d.st.count, 2);
	assert_int_equal(r.d.st.in_call, 1);
}

/* On a poll-mode queue a long call is a stall, switch or not. */
static void
test_poll_call(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, false);
	call(&r, 100, 2 * THR, STALL_CALL_RX_EMPTY, 0);
	assert_int_equal(r.d.st.count, 1);
	assert_int_equal(r.d.st.in_call, 0);
}

/* Which stalls can have held the frames an rx call brought. */
static void
test_before_rx(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, true);
	call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
	call(&r, 100, 100, STALL_CALL_RX, 0);
	assert_false(stall_before_rx(&r.d)); /* none */

	/* A gap stall right before the rx call. */
	call(&r, LONG, 100, STALL_CALL_RX, 0);
	assert_true(stall_before_rx(&r.d));

	/* Stopped inside the rx call that brought them. */
	call(&r, 100, LONG, STALL_CALL_RX, 1);
	assert_true(stall_before_rx(&r.d));

	/* Stopped on the way out of the empty poll right before. */
	call(&r, 100, LONG, STALL_CALL_RX_EMPTY, 1);
	call(&r, 100, 100, STALL_CALL_RX, 0);
	assert_true(stall_before_rx(&r.d));

	/* ... but not two polls before: the empty one between would have
	 * brought them. */
	call(&r, 100, LONG, STALL_CALL_RX_EMPTY, 1);
	call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
	call(&r, 100, 100, STALL_CALL_RX, 0);
	assert_false(stall_before_rx(&r.d));

	/* A stop inside the tx call right before (the last answer's send,
	 * after which a closed loop's next request comes). */
	call(&r, 100, LONG, STALL_CALL_TX, 1);
	call(&r, 100, 100, STALL_CALL_RX, 0);
	assert_true(stall_before_rx(&r.d));

	/* Not a gap stall before that tx (the answer was not sent yet). */
	call(&r, 100, 100, STALL_CALL_RX, 0);
	call(&r, LONG, 100, STALL_CALL_TX, 0);
	call(&r, 100, 100, STALL_CALL_RX, 0);
	assert_false(stall_before_rx(&r.d));
	assert_int_equal(r.d.st.count, 6);
}

/* A tx call after gap ns of the loop's own (the probe's or answer's
 * work: stall_enter_tx()), in ns inside it. */
static void
call_tx(struct rig *r, uint64_t gap, uint64_t in)
{
	r->now += gap;
	stall_enter_tx(&r->d, r->now);
	r->now += in;
	stall_leave(&r->d, r->now, STALL_CALL_TX);
}

/*
 * A CPU on which a frame's work takes longer than the threshold (8 us
 * against 5: an emulated CPU): until STALL_WORK_EVERY work gaps are seen
 * they are judged against the threshold, then against their own level;
 * the idle polls' gaps stay judged against the threshold, and a work gap
 * far above its level is still a stall.
 */
static void
test_work_gaps(void **state)
{
	const uint64_t work = 8 * US;
	struct rig r;
	uint64_t n;

	(void)state;
	rig_init(&r, false);
	assert_int_equal(r.d.work_thr, THR);
	for (unsigned i = 0; i < STALL_WORK_EVERY / 2; i++) {
		call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
		call(&r, 100, 100, STALL_CALL_RX, 0); /* an answer */
		call_tx(&r, work, 100);		      /* the next probe */
	}
	/* Not learnt yet: each was over the threshold. */
	assert_int_equal(r.d.st.count, STALL_WORK_EVERY / 2);
	assert_int_equal(r.d.work_thr, THR);
	/* Two work gaps per round (after the rx and before the tx; after
	 * the tx too): the level is learnt within the next rounds. */
	for (unsigned i = 0; i < STALL_WORK_EVERY; i++) {
		call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
		call(&r, 100, 100, STALL_CALL_RX, 0);
		call_tx(&r, work, 100);
	}
	assert_true(r.d.work_n >= STALL_WORK_EVERY);
	/* p90 in the bin [4096, 8192) ns: its edge 8191 times the multiple
	 * (half the work gaps are the short ones after the tx). */
	assert_int_equal(r.d.work_thr, 8191 * STALL_WORK_MULT);
	n = r.d.st.count;
	for (unsigned i = 0; i < 1000; i++) {
		call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
		call(&r, 100, 100, STALL_CALL_RX, 0);
		call_tx(&r, work, 100);
	}
	assert_int_equal(r.d.st.count, n); /* the work itself: no stall */
	assert_int_equal(r.d.work_thr, 8191 * STALL_WORK_MULT);

	/* A stall inside a frame's work, well above its level: found. */
	call(&r, 100, 100, STALL_CALL_RX, 0);
	call_tx(&r, LONG, 100);
	assert_int_equal(r.d.st.count, n + 1);
	/* Between two empty polls the threshold holds: 8 us is a stall. */
	call(&r, 100, 100, STALL_CALL_RX_EMPTY, 0);
	call(&r, work, 100, STALL_CALL_RX_EMPTY, 0);
	assert_int_equal(r.d.st.count, n + 2);
	/* A restart (warm-up's end) keeps the level: it is calibration. */
	stall_restart(&r.d, r.now);
	assert_int_equal(r.d.work_thr, 8191 * STALL_WORK_MULT);
	assert_int_equal(r.d.st.count, 0);
}

/* On a fast CPU the work gaps' level stays below the threshold: the
 * threshold judges them. */
static void
test_work_gaps_fast(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, false);
	for (unsigned i = 0; i < 4 * STALL_WORK_EVERY; i++) {
		call(&r, 100, 100, STALL_CALL_RX, 0);
		call_tx(&r, 300, 100);
	}
	assert_int_equal(r.d.work_thr, THR);
	call(&r, 100, 100, STALL_CALL_RX, 0);
	call_tx(&r, 2 * THR, 100);
	assert_int_equal(r.d.st.count, 1);
	/* Ticks (a reflector's burst, answer by answer) are work gaps. */
	r.now += 2 * THR;
	stall_tick(&r.d, r.now);
	assert_int_equal(r.d.st.count, 2);
}

/*
 * A poll-mode queue whose tx call is slow on every call (an emulated NIC's
 * doorbell: 15 us) learns that kind's level; the other kinds keep the
 * threshold, and a tx call far above its level is still a stall. On a
 * kernel-entering queue nothing is learnt (its calls are judged by their
 * context switches).
 */
static void
test_call_levels(void **state)
{
	const uint64_t slow = 15 * US;
	struct rig r;
	uint64_t n;

	(void)state;
	rig_init(&r, false);
	for (unsigned i = 0; i < STALL_WORK_EVERY; i++) {
		call(&r, 100, 100, STALL_CALL_RX, 0);
		call_tx(&r, 100, slow);
	}
	assert_int_equal(r.d.st.count, STALL_WORK_EVERY - 1);
	/* p90 in [8192, 16384) ns. */
	assert_int_equal(r.d.kind_thr[STALL_CALL_TX], 16383 * STALL_WORK_MULT);
	assert_int_equal(r.d.kind_thr[STALL_CALL_RX], THR);
	assert_int_equal(r.d.kind_thr[STALL_CALL_RX_EMPTY], THR);
	n = r.d.st.count;
	for (unsigned i = 0; i < 1000; i++) {
		call(&r, 100, 100, STALL_CALL_RX, 0);
		call_tx(&r, 100, slow);
	}
	assert_int_equal(r.d.st.count, n);
	call_tx(&r, 100, LONG);
	assert_int_equal(r.d.st.count, n + 1);
	call(&r, 100, 2 * THR, STALL_CALL_RX_EMPTY, 0);
	assert_int_equal(r.d.st.count, n + 2);

	/* A kernel-entering queue: the check level stays, whatever the
	 * calls' times. */
	rig_init(&r, true);
	for (unsigned i = 0; i < 4 * STALL_WORK_EVERY; i++)
		call_tx(&r, 100, LONG);
	assert_int_equal(r.d.kind_thr[STALL_CALL_TX], r.d.call_thr);
	assert_int_equal(r.d.st.count, 0); /* on CPU throughout */
}

/* Calibration ends after its span with enough polls, or after
 * STALL_CALIB_MORE spans whatever it has (a thread paused in it). */
static void
test_calib_over(void **state)
{
	(void)state;
	assert_false(stall_calib_over(1000, 2000, 5000));
	assert_true(stall_calib_over(2001, 2000, STALL_CALIB_MIN_GAPS));
	assert_false(stall_calib_over(2001, 2000, 1));
	assert_false(stall_calib_over(2000 * STALL_CALIB_MORE, 2000, 1));
	assert_true(stall_calib_over(2000 * STALL_CALIB_MORE + STALL_CALIB_MORE,
				     2000, 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_call_on_cpu),
		cmocka_unit_test(test_path_call_off_cpu),
		cmocka_unit_test(test_poll_call),
		cmocka_unit_test(test_before_rx),
		cmocka_unit_test(test_work_gaps),
		cmocka_unit_test(test_work_gaps_fast),
		cmocka_unit_test(test_call_levels),
		cmocka_unit_test(test_calib_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
