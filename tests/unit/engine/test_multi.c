/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several targets on one lcore (prober_multi_run()), on the fake wire: the
 * workers take turns on one queue, each keeps its own counters and
 * histograms, and a target that never answers rests between tries so that
 * the live one is not held back by its timeouts.
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

#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/stamp.h"
#include "engine_wire.h"

#define TIMEOUT 10000 /* cycles: 100 fake clock reads */

struct wire {
	/* test_set_changes: what the "control thread" does from the hook */
	struct prober_set *set;
	atomic_bool stop;
	uint64_t sent0_at_retire;
	unsigned phase;
	uint64_t stop_after; /* test_set_resume: sends of both, then stop */
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc[2];
	struct prober_worker pw[2];
};

static void
reflector_hook(void *arg)
{
	struct wire *w = arg;

	reflector_poll(&w->rw);
	if (w->stop_after != 0 &&
	    w->pw[0].st.sent + w->pw[1].st.sent >= w->stop_after)
		atomic_store(&w->stop, true);
	if (w->set == NULL)
		return;
	/* Between probes, as the control thread would: add worker 1 after
	 * 20 answers of worker 0, retire worker 0 after 20 more, stop once
	 * worker 1 has 30. */
	if (w->phase == 0 && w->pw[0].st.received >= 20) {
		assert_int_equal(prober_set_add(w->set, &w->pw[1]), 0);
		w->phase = 1;
	} else if (w->phase == 1 && w->pw[0].st.received >= 40) {
		prober_set_retire(w->set, 0);
		w->sent0_at_retire = w->pw[0].st.sent;
		w->phase = 2;
	} else if (w->phase == 2 && w->pw[1].st.received >= 30) {
		atomic_store(&w->stop, true);
		w->phase = 3;
	}
}

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, 256) != 0)
		goto fail;
	tw_reflector_conf(&w->rc, &w->clock);
	if (tw_reflector_start(w->f, &w->rw, &w->rc, reflector_hook, w) != 0)
		goto fail;
	for (unsigned i = 0; i < 2; i++) {
		struct prober_conf *c = &w->pc[i];

		tw_prober_conf_stamp(c, &w->clock, (uint16_t)(40000 + i));
		c->flow.ttl = 64;
		c->timeout_cycles = TIMEOUT;
	}
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

	tw_fixture_free(w, w->f, NULL, &w->rw);
	return 0;
}

static void
start(struct wire *w)
{
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(prober_worker_init(&w->pw[i], &w->pc[i],
						    io_fake_queue(w->f, 0), i),
				 0);
}

static void
stop(struct wire *w)
{
	for (unsigned i = 0; i < 2; i++)
		prober_worker_fini(&w->pw[i]);
}

/* An open set, empty, for workers of both flows started without a count
 * (the tests add them); close_set() frees it. */
static struct prober_set *
open_set(struct wire *w)
{
	struct prober_set *s = malloc(sizeof(*s));

	assert_non_null(s);
	prober_set_init(s, true);
	w->pc[0].count = 0;
	w->pc[1].count = 0;
	start(w);
	return s;
}

static void
close_set(struct wire *w, struct prober_set *s)
{
	w->set = NULL;
	free(s);
	stop(w);
}

/* Two live targets (two flows to the reflector): each its own answers. */
static void
test_two_live(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	struct prober_worker *ws[] = {&w->pw[0], &w->pw[1]};

	w->pc[0].count = 30;
	w->pc[0].warmup = 3;
	w->pc[1].count = 50;
	start(w);
	assert_int_equal(prober_multi_run(ws, 2, 0, &no_stop), 0);
	assert_int_equal(w->pw[0].st.sent, 30);
	assert_int_equal(w->pw[0].st.received, 30);
	assert_int_equal(w->pw[0].st.warmup, 3);
	assert_int_equal(histogram_count(&w->pw[0].rtt), 30);
	assert_int_equal(w->pw[1].st.sent, 50);
	assert_int_equal(w->pw[1].st.received, 50);
	assert_int_equal(histogram_count(&w->pw[1].rtt), 50);
	/* The other worker's answers are not taken as this one's. */
	assert_int_equal(w->pw[0].st.lost + w->pw[1].st.lost, 0);
	assert_true(w->pw[0].done && w->pw[1].done);
	assert_int_equal(w->rw.counters[RC_STAMP], 83);
	stop(w);
}

/*
 * Target 1 never answers (an address nobody has). Within one deadline the
 * live target finishes its 200 probes when the dead one rests, and does
 * not when the dead one takes a timeout every round (no backoff).
 */
static unsigned
live_done_within(struct wire *w, uint64_t backoff, uint64_t *dead_lost)
{
	static const atomic_bool no_stop;
	struct prober_worker *ws[] = {&w->pw[0], &w->pw[1]};
	unsigned got;

	w->pc[0].count = 200;
	w->pc[1].count = 0;
	/* A silent target leaves its warm-up when it starts resting. */
	w->pc[1].warmup = 50;
	w->pc[1].flow.dst4 = TW_OTHER_IP;
	for (unsigned i = 0; i < 2; i++)
		w->pc[i].duration_cycles = 1000000;
	start(w);
	assert_int_equal(prober_multi_run(ws, 2, backoff, &no_stop), 0);
	got = (unsigned)w->pw[0].st.received;
	*dead_lost = w->pw[1].st.lost;
	assert_int_equal(w->pw[1].st.received, 0);
	assert_int_equal(w->pw[0].st.lost, 0);
	stop(w);
	return got;
}

static void
test_dead_target_rests(void **state)
{
	struct wire *w = *state;
	uint64_t lost_rest, lost_busy;
	unsigned with_rest = live_done_within(w, 300000, &lost_rest);
	unsigned without = live_done_within(w, 0, &lost_busy);

	assert_int_equal(with_rest, 200);
	assert_true(without < 200);
	/* Resting: a few tries per backoff, not one per round; counted as
	 * lost although -w 50 was not done. */
	assert_true(lost_rest > 0);
	assert_true(lost_rest <= 4 * PROBER_MULTI_DEAD);
	assert_true(lost_busy > lost_rest);
	printf("# live target: %u/200 answered with rests, %u without; dead "
	       "target lost %llu vs %llu\n",
	       with_rest, without, (unsigned long long)lost_rest,
	       (unsigned long long)lost_busy);
}

/* A set that changes while it runs: an addition is picked up, a retired
 * worker stops (keeping its figures), and an open set waits for more. */
static void
test_set_changes(void **state)
{
	struct wire *w = *state;
	struct prober_set *s = open_set(w);

	assert_int_equal(prober_set_add(s, &w->pw[0]), 0);
	w->set = s;
	assert_int_equal(prober_set_run(s, 0, &w->stop), 0);
	assert_int_equal(w->phase, 3);
	assert_true(w->pw[1].st.received >= 30);
	/* Retired: at most the probe in flight then was completed. */
	assert_true(w->pw[0].st.sent <= w->sent0_at_retire + 1);
	assert_true(w->pw[0].st.received >= 40);
	assert_true(histogram_count(&w->pw[0].rtt) >= 40);
	assert_true(w->pw[0].done && w->pw[1].done);
	/* Full: -ENOSPC. */
	s->n = PROBER_SET_MAX;
	assert_int_equal(prober_set_add(s, &w->pw[0]), -ENOSPC);
	close_set(w, s);
}

/* Workers added without the peer's MAC: their lcore resolves it by ARP
 * when it begins them; one nobody answers is done, unresolved. */
static void
test_set_arp(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	struct prober_set *s = malloc(sizeof(*s));

	assert_non_null(s);
	prober_set_init(s, false);
	s->arp_timeout_ms = 1;
	w->pc[0].count = 20;
	w->pc[1].count = 20;
	memset(&w->pc[0].flow.dst_mac, 0, sizeof(w->pc[0].flow.dst_mac));
	memset(&w->pc[1].flow.dst_mac, 0, sizeof(w->pc[1].flow.dst_mac));
	w->pc[1].flow.dst4 = TW_OTHER_IP;
	start(w);
	assert_int_equal(prober_set_add(s, &w->pw[0]), 0);
	assert_int_equal(prober_set_add(s, &w->pw[1]), 0);
	assert_int_equal(prober_set_run(s, 0, &no_stop), 0);
	assert_memory_equal(&w->pw[0].flow.dst_mac, &tw_refl_mac,
			    sizeof(tw_refl_mac));
	assert_false(w->pw[0].unresolved);
	assert_int_equal(w->pw[0].st.received, 20);
	assert_true(w->pw[1].unresolved);
	assert_int_equal(w->pw[1].st.sent + w->pw[1].st.warmup, 0);
	assert_true(w->pw[1].done);
	free(s);
	stop(w);
}

/* A retired place taken by a new worker (prober_set_reuse()): the lcore
 * begins it afresh, the other worker going on meanwhile. */
static void
reuse_hook(void *arg)
{
	struct wire *w = arg;

	reflector_poll(&w->rw);
	if (w->phase == 0 && w->pw[0].st.received >= 20) {
		prober_set_retire(w->set, 0);
		w->phase = 1;
	} else if (w->phase == 1 && prober_set_reusable(w->set, 0)) {
		w->sent0_at_retire = w->pw[0].st.sent;
		prober_worker_fini(&w->pw[0]);
		w->pc[0].flow.sport = 40007;
		assert_int_equal(prober_worker_init(&w->pw[0], &w->pc[0],
						    io_fake_queue(w->f, 0), 0),
				 0);
		assert_int_equal(prober_set_reuse(w->set, 0, &w->pw[0]), 0);
		w->phase = 2;
	} else if (w->phase == 2 && w->pw[0].st.received >= 10) {
		atomic_store(&w->stop, true);
		w->phase = 3;
	}
}

static void
test_set_reuse(void **state)
{
	struct wire *w = *state;
	struct prober_set *s = open_set(w);

	assert_false(prober_set_reusable(s, 0)); /* no such place */
	assert_int_equal(prober_set_reuse(s, 0, &w->pw[0]), -EINVAL);
	assert_int_equal(prober_set_add(s, &w->pw[0]), 0);
	assert_int_equal(prober_set_add(s, &w->pw[1]), 0);
	assert_false(prober_set_reusable(s, 0)); /* not retired */
	w->set = s;
	io_fake_set_peer(w->f, 0, reuse_hook, w);
	assert_int_equal(prober_set_run(s, 0, &w->stop), 0);
	assert_int_equal(w->phase, 3);
	assert_true(w->sent0_at_retire >= 20);
	/* The new worker started from nothing, on its own port, with all
	 * its answers (none taken as another's). */
	assert_true(w->pw[0].st.received >= 10);
	assert_true(w->pw[0].st.sent <= w->pw[0].st.received + 1);
	assert_int_equal(w->pw[0].st.lost + w->pw[1].st.lost, 0);
	assert_true(w->pw[1].st.received > 0);
	assert_true(w->pw[0].done && w->pw[1].done);
	assert_int_equal(s->n, 2);
	close_set(w, s);
}

/*
 * ARP for our address while no worker probes. What side 0 sends is looked
 * at after each frame: ARP replies for TW_PROBER_IP are counted (and stop
 * the run when stop_on_reply), and once the dead target's second probe went
 * out, a request comes from side 1 that arrives after that probe's timeout,
 * so while the worker rests.
 */
struct arp_watch {
	struct wire *w;
	unsigned probes, replies;
	uint64_t reply_at;
	bool stop_on_reply;
};

static void
arp_watch_hook(void *arg)
{
	struct arp_watch *a = arg;
	struct io_queue *q1 = io_fake_queue(a->w->f, 1);
	struct rte_mbuf *pkts[8];
	uint16_t n = io_rx(q1, pkts, 8);

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *buf = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		struct codec_frame f;

		if (codec_parse_frame(buf, pkts[i]->data_len, &f) == 0 &&
		    f.ethertype == CODEC_ETHERTYPE_ARP) {
			if (f.arp_op == CODEC_ARP_REPLY &&
			    f.arp_spa == TW_PROBER_IP) {
				a->replies++;
				a->reply_at = io_fake_now(a->w->f);
				if (a->stop_on_reply)
					atomic_store(&a->w->stop, true);
			}
		} else if (++a->probes == PROBER_MULTI_DEAD) {
			struct rte_mbuf *m = io_alloc(q1);
			int len;

			assert_non_null(m);
			len = codec_build_arp(rte_pktmbuf_mtod(m, uint8_t *),
					      64, CODEC_ARP_REQUEST,
					      &tw_other_mac, TW_OTHER_IP, NULL,
					      TW_PROBER_IP);
			assert_true(len > 0);
			io_mbuf_set_len(m, (uint16_t)len);
			assert_int_equal(io_tx_all(q1, &m, 1), 1);
		}
		io_free(q1, pkts[i]);
	}
}

/* The one target is silent: it rests (backoff far beyond -t), and an ARP
 * request that comes then is answered at once, not after the rest. */
static void
test_resting_answers_arp(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	struct prober_worker *ws[] = {&w->pw[0]};
	struct arp_watch a = {.w = w};
	const uint64_t backoff = 1000000000000ull, duration = 100000000ull;

	io_fake_set_peer(w->f, 0, arp_watch_hook, &a);
	io_fake_set_delay(w->f, 1, 3 * TIMEOUT);
	w->pc[0].count = 0;
	w->pc[0].warmup = 0;
	w->pc[0].flow.dst4 = TW_OTHER_IP;
	w->pc[0].duration_cycles = duration;
	start(w);
	assert_int_equal(prober_multi_run(ws, 1, backoff, &no_stop), 0);
	/* Two probes, then a rest until -t: nothing more was sent but the
	 * ARP answer, which went out well before -t ended the run. */
	assert_int_equal(a.probes, PROBER_MULTI_DEAD);
	assert_int_equal(w->pw[0].st.lost, PROBER_MULTI_DEAD);
	assert_int_equal(a.replies, 1);
	assert_true(a.reply_at < w->pw[0].t_run + duration / 2);
	stop(w);
}

/* An open set with no worker left (SIGHUP emptied the pinglist) still
 * answers ARP for our address on its idle queue. */
static void
test_empty_set_answers_arp(void **state)
{
	struct wire *w = *state;
	struct prober_set *s = malloc(sizeof(*s));
	struct arp_watch a = {.w = w, .stop_on_reply = true};
	uint8_t frame[64];
	int len;

	assert_non_null(s);
	prober_set_init(s, true);
	s->idle_q = io_fake_queue(w->f, 0);
	s->idle_flow = w->pc[0].flow;
	io_fake_set_peer(w->f, 0, arp_watch_hook, &a);
	len = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			      &tw_other_mac, TW_OTHER_IP, NULL, TW_PROBER_IP);
	assert_true(len > 0);
	assert_int_equal(io_fake_inject(w->f, 0, frame, (size_t)len), 0);
	/* One for another address: not answered. */
	len = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			      &tw_other_mac, TW_OTHER_IP, NULL, TW_REFL_IP);
	assert_int_equal(io_fake_inject(w->f, 0, frame, (size_t)len), 0);
	assert_int_equal(prober_set_run(s, 0, &w->stop), 0);
	assert_int_equal(a.replies, 1);
	assert_int_equal(io_fake_tx_count(w->f, 0), 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
	free(s);
}

static void
test_stop(void **state)
{
	static atomic_bool stopped = true;
	struct wire *w = *state;
	struct prober_worker *ws[] = {&w->pw[0], &w->pw[1]};

	w->pc[0].count = 10;
	w->pc[1].count = 10;
	start(w);
	assert_int_equal(prober_multi_run(ws, 2, 0, &stopped), 0);
	assert_int_equal(w->pw[0].st.sent + w->pw[1].st.sent, 0);
	assert_true(w->pw[0].done && w->pw[1].done);
	stop(w);
}

/*
 * A set stopped (its device removed) and run again with resume set (it
 * came back, --forever with several targets): each worker goes
 * on where it was, its sequence numbers, counters and histograms kept, and
 * ends at its -n as if nothing had happened.
 */
static void
test_set_resume(void **state)
{
	struct wire *w = *state;
	struct prober_set *s = malloc(sizeof(*s));
	uint64_t before[2];

	assert_non_null(s);
	prober_set_init(s, false);
	w->pc[0].count = w->pc[1].count = 100;
	w->pc[0].warmup = w->pc[1].warmup = 5;
	start(w);
	assert_int_equal(prober_set_add(s, &w->pw[0]), 0);
	assert_int_equal(prober_set_add(s, &w->pw[1]), 0);
	w->stop_after = 60;
	assert_int_equal(prober_set_run(s, 0, &w->stop), 0);
	for (unsigned i = 0; i < 2; i++) {
		before[i] = w->pw[i].step_seq;
		assert_true(w->pw[i].done);
		assert_true(before[i] > 0 && before[i] < 105);
	}
	w->stop_after = 0;
	atomic_store(&w->stop, false);
	s->resume = true;
	assert_int_equal(prober_set_run(s, 0, &w->stop), 0);
	for (unsigned i = 0; i < 2; i++) {
		const struct prober_worker *pw = &w->pw[i];

		assert_true(pw->done);
		/* Warm-up once, then -n: no second warm-up, no probe twice. */
		assert_int_equal(pw->step_seq, 105);
		assert_int_equal(pw->st.sent, 100);
		assert_int_equal(pw->st.received + pw->st.lost, 100);
		assert_int_equal(pw->st.duplicated, 0);
		assert_int_equal(pw->st.ignored[PROBER_IGN_NEVER_SENT], 0);
		assert_int_equal(pw->rtt.total, pw->st.received);
	}
	free(s);
	stop(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_set_resume, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_target_rests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_changes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_arp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_reuse, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resting_answers_arp, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_empty_set_answers_arp,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("multi", tests, NULL, NULL);
}
