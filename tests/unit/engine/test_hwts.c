/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --hw-timestamps on the fake wire (tests/support/io_fake.c): the NIC of
 * each side stamps the frames it receives with a clock of its own, skewed
 * and offset against the fake TSC (io_fake_set_nic_clock). The NIC clock
 * mapping (lib/timing/nic_clock.c) recovers, from those stamps, the
 * moment the answer reached the prober's NIC: the NIC-clock RTT and the
 * TSC - NIC difference are checked against what the fake wire knows,
 * within HW_BOUND_NS, also across a change of the NIC's rate during the
 * run (re-sampling follows it; without re-sampling the mapping drifts).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/nic_clock.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/stamp.h"
#include "engine_wire.h"

#define N_MBUFS	 256
#define SPORT	 40000
#define N_PROBES 50

/* The NIC-clock figures are exact to this (a NIC tick is 1 ns here; the
 * fixed-point conversions add < 1 ns; histograms are exact below 256 ns). */
#define HW_BOUND_NS 3

/* NIC ticks per fake TSC cycle: a 1 GHz NIC against the 2 GHz TSC, 100 ppm
 * fast, its clock far from the TSC's. */
#define NIC_TPC	   (0.5 * (1.0 + 100e-6))
#define NIC_OFFSET 123456789012345ull

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	/* What the wire saw of each probe: fake TSC when the probe went out
	 * and when the answer reached the prober's NIC. */
	uint64_t probe_at[N_PROBES + 8], answer_at[N_PROBES + 8];
	unsigned n_seen;
	unsigned skew_at; /* probe at which the prober NIC's rate changes */
	double tpc;
	uint64_t offset;
	unsigned stop_at; /* test_hw_resume: the device goes after this probe */
	/* test_reflector_hw_rebase: the reflector's device is replaced (a
	 * new NIC clock) before this probe; rebase: and it is told so. */
	unsigned jump_at;
	bool rebase;
	atomic_bool stop;
};

static void
reflector_hook(void *arg)
{
	struct wire *w = arg;
	uint64_t now = io_fake_now(w->f);

	/* A continuous change of rate: the NIC clock does not jump. */
	if (w->skew_at != 0 && w->n_seen == w->skew_at) {
		double tpc2 = w->tpc * (1.0 + 300e-6);

		w->offset = w->offset + (uint64_t)((double)now * w->tpc) -
			    (uint64_t)((double)now * tpc2);
		w->tpc = tpc2;
		io_fake_set_nic_clock(w->f, 0, w->tpc, w->offset);
	}
	if (w->stop_at != 0 && w->n_seen == w->stop_at)
		atomic_store(&w->stop, true);
	if (w->jump_at != 0 && w->n_seen == w->jump_at) {
		io_fake_set_nic_clock(w->f, 1, 0.125 * (1.0 + 40e-6),
				      12345678901234ull);
		if (w->rebase)
			reflector_hw_rebase(&w->rw);
	}
	if (w->n_seen < N_PROBES + 8)
		w->probe_at[w->n_seen] = now; /* = T1: tx reads no clock */
	reflector_poll(&w->rw);
	/* The answer was stamped for side 0 on its way out, at this now. */
	if (w->n_seen < N_PROBES + 8)
		w->answer_at[w->n_seen] = io_fake_now(w->f);
	w->n_seen++;
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
	if (tw_reflector_start(w->f, &w->rw, &w->rc, reflector_hook, w) != 0)
		goto fail;
	w->tpc = NIC_TPC;
	w->offset = NIC_OFFSET;
	io_fake_set_nic_clock(w->f, 0, w->tpc, w->offset);

	tw_prober_conf_stamp(&w->pc, &w->clock, SPORT);
	w->pc.count = N_PROBES;
	w->pc.timeout_cycles = 10000;
	/* Probes 5 ms apart: a long run's worth of drift in 50 probes. */
	w->pc.interval_cycles = 10000000;
	w->pc.hw_ts = true;
	w->pc.hw_calib_cycles = 2000000;    /* 1 ms */
	w->pc.hw_resample_cycles = 2000000; /* 1 ms */
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
	static const atomic_bool no_stop;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.received, N_PROBES);
	assert_int_equal(w->n_seen, N_PROBES);
}

/* The fake wire's view: the NIC-clock RTT of every probe, min and max. */
static void
expected_rtt(const struct wire *w, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (unsigned i = 0; i < N_PROBES; i++) {
		uint64_t ns =
			tsc_to_ns(&w->clock, w->answer_at[i] - w->probe_at[i]);

		*lo = ns < *lo ? ns : *lo;
		*hi = ns > *hi ? ns : *hi;
	}
}

static void
check_recovered(const struct wire *w)
{
	uint64_t lo, hi, tick_ns = tsc_to_ns(&w->clock, 100);

	expected_rtt(w, &lo, &hi);
	assert_int_equal(w->pw.hw.stamped, N_PROBES);
	assert_int_equal(w->pw.hw.unstamped, 0);
	assert_int_equal(w->pw.hw.outside, 0);
	assert_int_equal(histogram_count(&w->pw.hw_rtt), N_PROBES);
	assert_true(histogram_min(&w->pw.hw_rtt) + HW_BOUND_NS >= lo);
	assert_true(histogram_max(&w->pw.hw_rtt) <= hi + HW_BOUND_NS);
	/* The NIC saw the answer before the TSC did (one fake clock read,
	 * 100 cycles: the rx burst, then T4). */
	assert_true(histogram_min(&w->pw.hw_rx_delay) + HW_BOUND_NS >= tick_ns);
	assert_true(histogram_max(&w->pw.hw_rx_delay) <= tick_ns + HW_BOUND_NS);
	/* And the TSC RTT is the sum of the two. */
	assert_true(histogram_min(&w->pw.rtt) >= lo);
}

static void
test_hw_rtt_recovered(void **state)
{
	struct wire *w = *state;

	run(w);
	check_recovered(w);
	assert_true(w->pw.hw.samples >= N_PROBES);
}

/* The NIC's rate changes by 300 ppm mid-run: re-sampling follows it. */
static void
test_hw_rate_change_followed(void **state)
{
	struct wire *w = *state;

	w->skew_at = N_PROBES / 2;
	run(w);
	check_recovered(w);
}

/* Without re-sampling, the same change leaves the mapping 300 ppm off:
 * over 125 ms that is 37 us, and answers fall outside [T1, T4]. */
static void
test_hw_no_resample_drifts(void **state)
{
	struct wire *w = *state;

	w->skew_at = N_PROBES / 2;
	w->pc.hw_resample_cycles = UINT64_MAX;
	run(w);
	assert_int_equal(w->pw.hw.samples, 2);
	assert_true(w->pw.hw.outside > 0);
}

/*
 * The reflector's T2 from its own NIC (another clock: 250 MHz, 70 ppm
 * slow): the turnaround starts when the request reached the NIC (the
 * moment the probe was sent, on the fake wire), and TSC T2 - NIC T2 is
 * one fake clock read (the rx burst, then T2).
 */
static void
test_reflector_hw_t2(void **state)
{
	struct wire *w = *state;
	uint64_t tick_ns = tsc_to_ns(&w->clock, 100);

	io_fake_set_nic_clock(w->f, 1, 0.125 * (1.0 - 70e-6),
			      98765432109876ull);
	w->rc.hw_ts = true;
	w->rc.hw_calib_cycles = 2000000;
	w->rc.hw_resample_cycles = 2000000;
	w->pc.hw_ts = false;
	run(w);
	/* Two requests while the NIC clock was being calibrated. */
	assert_int_equal(w->rw.hw.unstamped, 2);
	assert_int_equal(w->rw.hw.stamped, N_PROBES - 2);
	assert_int_equal(w->rw.hw.outside, 0);
	assert_true(w->rw.hw.samples >= N_PROBES - 1);
	assert_int_equal(histogram_count(&w->rw.hw_rx_delay), N_PROBES - 2);
	assert_true(histogram_min(&w->rw.hw_rx_delay) + HW_BOUND_NS >= tick_ns);
	assert_true(histogram_max(&w->rw.hw_rx_delay) <= tick_ns + HW_BOUND_NS);
	/* T3 - T2: one read (T2) after the NIC's T2, then T3: 2 reads. */
	assert_true(histogram_max(&w->rw.turnaround) + HW_BOUND_NS >=
		    2 * tick_ns);
	assert_true(histogram_max(&w->rw.turnaround) <=
		    2 * tick_ns + HW_BOUND_NS);
}

/*
 * --forever --hw-timestamps across a re-attach: the device goes
 * after probe 25 and comes back with another NIC clock (a jump of its
 * offset, another rate); resumed, the prober matches the new clock from
 * scratch: every probe stamped, none outside the TSC's bounds, the NIC-clock
 * RTT still the wire's. (Without the match the old mapping would place the
 * new clock's stamps far away: outside.)
 */
static void
test_hw_resume(void **state)
{
	struct wire *w = *state;
	unsigned samples;

	w->stop_at = 25;
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &w->stop), 0);
	assert_true(w->pw.st.received >= 24 && w->pw.st.received < N_PROBES);
	samples = (unsigned)w->pw.hw.samples;
	w->offset += 987654321ull;
	w->tpc *= 1.0 + 50e-6;
	io_fake_set_nic_clock(w->f, 0, w->tpc, w->offset);
	w->stop_at = 0;
	atomic_store(&w->stop, false);
	assert_int_equal(prober_worker_resume(&w->pw, &w->stop), 0);
	assert_int_equal(w->pw.st.received, N_PROBES);
	assert_true(w->pw.hw.samples >= samples + 2);
	check_recovered(w);
}

/*
 * The reflector's device replaced mid-run (a re-attach): its new
 * NIC clock jumps; told so (reflector_hw_rebase, what app/reflect_report.c
 * does after a re-attach), it calibrates again: a few requests unstamped
 * meanwhile, none outside. Not told, the old mapping places the new
 * clock's stamps outside the TSC's bounds.
 */
static void
reflector_jump(struct wire *w, bool rebase)
{
	io_fake_set_nic_clock(w->f, 1, 0.125 * (1.0 - 70e-6),
			      98765432109876ull);
	w->rc.hw_ts = true;
	w->rc.hw_calib_cycles = 2000000;
	w->rc.hw_resample_cycles = 2000000;
	w->pc.hw_ts = false;
	w->jump_at = 25;
	w->rebase = rebase;
	run(w);
	assert_int_equal(w->rw.hw.stamped + w->rw.hw.unstamped +
				 w->rw.hw.outside,
			 N_PROBES);
}

static void
test_reflector_hw_rebase(void **state)
{
	struct wire *w = *state;

	reflector_jump(w, true);
	assert_int_equal(w->rw.hw.outside, 0);
	assert_true(w->rw.hw.unstamped >= 3 && w->rw.hw.unstamped <= 6);
}

static void
test_reflector_hw_no_rebase(void **state)
{
	struct wire *w = *state;

	reflector_jump(w, false);
	assert_true(w->rw.hw.outside > 0);
}

/* A queue without NIC timestamps: the worker refuses to start. */
static void
test_hw_not_supported(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;

	io_fake_set_nic_clock(w->f, 0, 0, 0);
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), -ENOTSUP);
	assert_int_equal(w->pw.st.sent, 0);
}

/* Frames the NIC did not stamp (injected): counted, not recorded. */
static void
test_hw_off_costs_nothing(void **state)
{
	struct wire *w = *state;

	w->pc.hw_ts = false;
	run(w);
	assert_int_equal(w->pw.hw.stamped + w->pw.hw.unstamped, 0);
	assert_int_equal(histogram_count(&w->pw.hw_rtt), 0);
	assert_int_equal(w->pw.hw.samples, 0);
}

/* The mapping itself: two pairs give rate and offset. */
static void
test_nic_clock_math(void **state)
{
	struct nic_clock c;
	/* TSC 2.5 GHz, NIC 1 GHz, 50 ppm slow, offset 1e15 ticks. */
	const double tpc = 0.4 * (1.0 - 50e-6);
	const uint64_t off = 1000000000000000ull;

	(void)state;
	nic_clock_reset(&c);
	assert_false(nic_clock_ready(&c));
	assert_int_equal(
		nic_clock_add(&c, 1000, off + (uint64_t)(1100 * tpc), 1200), 0);
	assert_false(nic_clock_ready(&c));
	/* Backwards: refused. */
	assert_int_equal(nic_clock_add(&c, 900, off, 950), -EINVAL);
	assert_int_equal(nic_clock_add(&c, 1200, off, 1000), -EINVAL);
	assert_int_equal(nic_clock_add(&c, 2500000000ull,
				       off + (uint64_t)(2500000100.0 * tpc),
				       2500000200ull),
			 0);
	assert_true(nic_clock_ready(&c));
	/* NIC rate: 1 GHz - 50 ppm, from a 2.5 GHz TSC. */
	assert_true(nic_clock_hz(&c, 2500000000ull) > 999949999.0 &&
		    nic_clock_hz(&c, 2500000000ull) < 999950001.0);
	/* A NIC time 1 ms after the anchor maps to the TSC 1 ms after it. */
	{
		uint64_t t = 2500000100ull + 2500000ull;
		uint64_t tsc =
			nic_clock_to_tsc(&c, off + (uint64_t)((double)t * tpc));

		assert_true(tsc + 3 >= t && tsc <= t + 3);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nic_clock_math),
		cmocka_unit_test_setup_teardown(test_hw_rtt_recovered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hw_rate_change_followed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_hw_no_resample_drifts,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_reflector_hw_t2, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reflector_hw_rebase, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reflector_hw_no_rebase,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_hw_resume, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hw_not_supported, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hw_off_costs_nothing,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
