/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link down during a run on the fake wire: the prober on side
 * 0, the reflector on side 1, a peer hook that takes the link down after
 * the down_at-th frame the prober sent and up again after the up_at-th
 * (struct io_link, as app/link_events.c sets it from the side thread);
 * while it is down, nothing reaches the reflector. Besides that the wire
 * loses every drop_every-th answer (path loss). Each lost probe is lost;
 * those whose flight saw the link down are lost_link_down as well, the
 * others are the path's. Closed loop (lean and generic) and open loop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/io_link.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "engine_wire.h"

#define N_MBUFS 4096
#define MS	(TW_TSC_HZ / 1000)

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	struct io_link link;
	/* Down for prober tx counts [down_at, up_at) (0 = never); down and
	 * up again right after the blip_at-th. */
	uint64_t down_at, up_at, blip_at;
	uint64_t in_down; /* frames sent while down (swallowed) */
	uint64_t stop_at; /* stop set after that many frames */
	atomic_bool stop;
};

static const atomic_bool no_stop;

/* After every frame the prober sends: the link's changes, then either the
 * reflector answers or (link down) the frame is swallowed. */
static void
link_hook(void *arg)
{
	struct wire *w = arg;
	uint64_t k = io_fake_tx_count(w->f, 0);

	bool down = w->down_at != 0 && k >= w->down_at && k < w->up_at;

	/* The open loop sends bursts: a tx count may step over down_at. */
	if (down && atomic_load(&w->link.down_since) == 0)
		io_link_set_down(&w->link, io_fake_now(w->f));
	if (!down && atomic_load(&w->link.down_since) != 0)
		io_link_set_up(&w->link, io_fake_now(w->f));
	if (w->stop_at != 0 && k == w->stop_at) /* the device goes away */
		atomic_store(&w->stop, true);
	if (k == w->blip_at) { /* down and up at once */
		io_link_set_down(&w->link, io_fake_now(w->f));
		io_link_set_up(&w->link, io_fake_now(w->f));
	}
	if (down) {
		struct io_queue *q = io_fake_queue(w->f, 1);
		struct rte_mbuf *m[32];
		uint16_t n;

		while ((n = io_rx(q, m, 32)) != 0) {
			for (uint16_t i = 0; i < n; i++)
				io_free(q, m[i]);
			w->in_down += n;
		}
		return;
	}
	reflector_poll(&w->rw);
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
	if (tw_reflector_start(w->f, &w->rw, &w->rc, link_hook, w) != 0)
		goto fail;
	tw_prober_conf_stamp(&w->pc, &w->clock, 40000);
	w->pc.count = 300;
	w->pc.warmup = 0;
	w->pc.timeout_cycles = 1 * MS;
	w->pc.link = &w->link;
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

/* Closed loop: probes 101..160 go out while the link is down. */
static void
closed_loop(struct wire *w)
{
	const uint64_t n = 300, every = 7;
	uint64_t path;

	w->down_at = 101;
	w->up_at = 161; /* probe 161 leaves, then the link is up: answered */
	io_fake_set_drop_every(w->f, 1, every);
	run(w);
	assert_int_equal(w->in_down, 60);
	assert_int_equal(w->pw.st.sent, n);
	assert_int_equal(w->pw.st.lost_link_down, 60);
	path = w->pw.st.lost - w->pw.st.lost_link_down;
	assert_true(path > 0);
	/* Every 7th answer the reflector sent (n - 60 of them) was lost. */
	assert_int_equal(path, (n - 60) / every);
	assert_int_equal(w->pw.st.received + w->pw.st.lost, w->pw.st.sent);
	assert_int_equal(w->pw.st.received, n - 60 - path);
}

static void
test_closed_lean(void **state)
{
	closed_loop(*state);
}

/* --samples forces the generic loop: the same counts. */
static void
test_closed_generic(void **state)
{
	struct wire *w = *state;

	w->pc.keep_samples = true;
	w->pc.max_samples = 1000;
	closed_loop(w);
}

/* Without the link state every loss is the path's (the counter stays 0,
 * and the losses are the same). */
static void
test_no_link_state(void **state)
{
	struct wire *w = *state;

	w->pc.link = NULL;
	w->down_at = 101;
	w->up_at = 161;
	run(w);
	assert_int_equal(w->pw.st.lost, 60);
	assert_int_equal(w->pw.st.lost_link_down, 0);
}

/* A link that went down and came back during probe 50's flight makes its
 * loss the link's, and no later probe's. */
static void
test_down_before_t1(void **state)
{
	struct wire *w = *state;

	w->blip_at = 50; /* nothing swallowed */
	io_fake_set_drop_every(w->f, 1, 10);
	run(w);
	assert_int_equal(w->in_down, 0);
	assert_int_equal(w->pw.st.lost, w->pc.count / 10);
	/* Probe 50 left before the down (T1 < last_down), its answer is one
	 * of those dropped: the link's; 60, 70, ... left after it: the
	 * path's. */
	assert_int_equal(w->pw.st.lost_link_down, 1);
}

/* Open loop: the probes in flight when the link went down and those sent
 * while it was down are the link's. */
static void
test_open_loop(void **state)
{
	struct wire *w = *state;

	w->pc.rate_pps = 100000;
	w->pc.spacing = PROBER_SPACING_CONSTANT;
	w->pc.seed = PROBER_DEFAULT_SEED;
	w->pc.behind_bound_cycles = MS;
	w->down_at = 101;
	w->up_at = 161;
	run(w);
	assert_int_equal(w->pw.st.sent, w->pc.count);
	assert_int_equal(w->in_down, 60);
	assert_int_equal(w->pw.st.lost, 60);
	assert_int_equal(w->pw.st.lost_link_down, 60);
}

/* A tx queue that refuses every frame (memif with its link down). */
static const struct io_ops *fake_ops;

static uint16_t
refuse_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

/* Refused probes are tried again at -i's pace, not back to back: over 1 ms
 * at -i 10 us, about 100 tries (several thousand unpaced). */
static void
test_refused_paced(void **state)
{
	struct wire *w = *state;
	struct io_queue q = *io_fake_queue(w->f, 0);
	struct io_ops ops;

	fake_ops = q.ops;
	ops = *fake_ops;
	ops.tx_burst = refuse_tx;
	q.ops = &ops;
	w->pc.count = 0;
	w->pc.interval_cycles = 10 * (MS / 1000);
	w->pc.duration_cycles = MS;
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, &q, 0), 0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.sent, 0);
	assert_true(w->pw.st.tx_fail >= 90);
	assert_true(w->pw.st.tx_fail <= 101);
}

/* A run stopped (its device removed) and resumed (it came back, --forever)
 * goes on where it was: the same sequence numbers (no answer taken for
 * another probe's, none never_sent), every probe of -n sent once. */
static void
resume_run(struct wire *w)
{
	w->stop_at = 120;
	io_fake_set_drop_every(w->f, 1, 9);
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &w->stop), 0);
	assert_true(w->pw.st.sent < w->pc.count);
	assert_true(w->pw.st.sent >= 118);
	atomic_store(&w->stop, false);
	assert_int_equal(prober_worker_resume(&w->pw, &w->stop), 0);
	assert_true(w->pw.done);
	assert_int_equal(w->pw.st.sent, w->pc.count);
	assert_int_equal(w->pw.st.received + w->pw.st.lost, w->pc.count);
	assert_true(w->pw.st.lost > 0);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_NEVER_SENT], 0);
	assert_int_equal(w->pw.st.duplicated, 0);
	assert_int_equal(w->pw.rtt.total, w->pw.st.received);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_resume_lean(void **state)
{
	resume_run(*state);
}

static void
test_resume_generic(void **state)
{
	struct wire *w = *state;

	w->pc.keep_samples = true;
	w->pc.max_samples = 1000;
	resume_run(w);
}

/*
 * The open loop resumes too (--forever --rate): stopped after 120
 * frames, 500 ms pass (the device away), then it goes on: every probe of -n
 * sent once, each answered or lost, none for another's sequence number;
 * the schedule goes on from the resume, so no send is late for the gap
 * (no catch-up burst of the 50 it would have sent meanwhile).
 */
static void
test_resume_open(void **state)
{
	struct wire *w = *state;
	uint64_t sent;

	w->pc.rate_pps = 100000;
	w->pc.spacing = PROBER_SPACING_CONSTANT;
	w->pc.seed = PROBER_DEFAULT_SEED;
	w->pc.behind_bound_cycles = 10 * MS;
	w->stop_at = 120;
	io_fake_set_drop_every(w->f, 1, 9);
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run_open(&w->pw, &w->stop), 0);
	sent = w->pw.st.sent;
	assert_true(sent >= 100 && sent < w->pc.count);
	io_fake_advance(w->f, 500 * MS);
	atomic_store(&w->stop, false);
	assert_int_equal(prober_worker_resume(&w->pw, &w->stop), 0);
	assert_true(w->pw.done);
	assert_int_equal(w->pw.st.sent, w->pc.count);
	assert_int_equal(w->pw.st.received + w->pw.st.lost, w->pc.count);
	assert_true(w->pw.st.lost > 0);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_NEVER_SENT], 0);
	assert_int_equal(w->pw.st.duplicated, 0);
	assert_int_equal(w->pw.st.late_sends, 0);
	assert_int_equal(w->pw.rtt.total, w->pw.st.received);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
	/* --hw-timestamps on a queue without NIC timestamps: the new
	 * device's clock cannot be matched (test_hwts.c resumes one that
	 * has them). */
	w->pw.done = false;
	{
		struct prober_conf c = w->pc;

		c.hw_ts = true;
		w->pw.conf = &c;
		assert_int_equal(prober_worker_resume(&w->pw, &no_stop),
				 -ENOTSUP);
		w->pw.conf = &w->pc;
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_closed_lean, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_closed_generic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_link_state, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_down_before_t1, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_open_loop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused_paced, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resume_lean, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resume_generic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resume_open, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
