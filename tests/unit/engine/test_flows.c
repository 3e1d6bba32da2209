/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many flows (--flows N) and the first packet of a flow (--new-flow-every
 * K) on the fake wire, against a hand-written UDP echo peer on side 1 that
 * answers on the probe's own tuple (or on another, when told), drops the
 * probes it is told to, and can hold the answer to the first probe of each
 * new source port (a virtual switch setting a flow up in software).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/byteorder.h"
#include "latprobe/prober.h"
#include "engine_wire.h"

#define ECHO_PORT 7
#define TIMEOUT	  100000 /* cycles: 50 us at 2 GHz */
#define MAX_SEQ	  1024
#define MAX_PORTS 64

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct prober_conf pc;
	struct prober_worker pw;
	uint16_t sports[MAX_PORTS];
	/* what the peer saw: the source port of each probe */
	uint16_t seen_sport[MAX_SEQ];
	unsigned n_seen;
	/* what the peer does */
	unsigned drop_mod, drop_rem; /* drop seq % mod == rem (mod 0: none) */
	uint64_t wrong_seq;	     /* answer this one on wrong_port */
	uint16_t wrong_port;
	uint64_t first_delay; /* cycles before answering a new port's first */
	uint16_t ports_used[MAX_SEQ];
	unsigned n_ports_used;
};

static bool
port_used(struct wire *w, uint16_t port)
{
	for (unsigned i = 0; i < w->n_ports_used; i++)
		if (w->ports_used[i] == port)
			return true;
	if (w->n_ports_used < MAX_SEQ)
		w->ports_used[w->n_ports_used++] = port;
	return false;
}

static void
echo_peer(void *arg)
{
	struct wire *w = arg;
	uint8_t buf[2048], out[2048];
	struct codec_flow back;
	struct codec_frame f;
	size_t len = tw_take_one(w->f, 1, buf, sizeof(buf));
	uint64_t seq;

	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_UDP);
	assert_true(f.payload_len >= 8);
	seq = util_get_be64(buf + f.payload_off);
	if (seq < MAX_SEQ) {
		w->seen_sport[seq] = f.sport;
		w->n_seen++;
	}
	if (!port_used(w, f.sport) && w->first_delay != 0)
		io_fake_advance(w->f, w->first_delay);
	if (w->drop_mod != 0 && seq % w->drop_mod == w->drop_rem)
		return;
	back = tw_flow4(&tw_refl_mac, &tw_prober_mac, TW_REFL_IP, TW_PROBER_IP,
			ECHO_PORT,
			seq == w->wrong_seq ? w->wrong_port : f.sport);
	back.ttl = 64;
	len = tw_build_udp(out, sizeof(out), &back, buf + f.payload_off,
			   f.payload_len);
	tw_inject(w->f, 0, out, len);
}

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, 256) != 0)
		goto fail;
	io_fake_set_peer(w->f, 0, echo_peer, w);
	w->wrong_seq = UINT64_MAX;
	for (unsigned i = 0; i < MAX_PORTS; i++)
		w->sports[i] = (uint16_t)(40000 + 3 * i); /* any distinct */
	w->pc.proto = &probe_proto_udp_echo;
	w->pc.flow = tw_flow4(&tw_prober_mac, &tw_refl_mac, TW_PROBER_IP,
			      TW_REFL_IP, 39999, ECHO_PORT);
	w->pc.flow.ttl = 64;
	w->pc.size = 16;
	w->pc.timeout_cycles = TIMEOUT;
	w->pc.clock = w->clock;
	w->pc.anchor.realtime_ns = TW_ANCHOR_NS;
	w->pc.sports = w->sports;
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

	tw_fixture_free(w, w->f, &w->pw, NULL);
	return 0;
}

static void
run(struct wire *w)
{
	static const atomic_bool no_stop;

	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
}

/* --flows 4: probe k on sports[k % 4], each flow a quarter of the
 * answers, the per-flow counts summing to received. */
static void
test_rotation(void **state)
{
	struct wire *w = *state;
	uint64_t sum = 0;

	w->pc.n_flows = 4;
	w->pc.n_sports = 4;
	w->pc.count = 40;
	w->pc.warmup = 2;
	run(w);
	assert_int_equal(w->pw.st.received, 40);
	assert_int_equal(w->n_seen, 42);
	for (unsigned k = 0; k < 42; k++)
		assert_int_equal(w->seen_sport[k], w->sports[k % 4]);
	assert_non_null(w->pw.flows);
	for (unsigned i = 0; i < 4; i++) {
		const struct prober_flow *fl = &w->pw.flows[i];

		assert_int_equal(fl->sport, w->sports[i]);
		assert_int_equal(fl->count, 10);
		assert_int_equal(fl->lost, 0);
		assert_true(prober_flow_percentile(fl, 50) > 0);
		assert_true(fl->max >= prober_flow_percentile(fl, 99));
		sum += fl->count;
	}
	assert_int_equal(sum, w->pw.st.received);
	assert_int_equal(histogram_count(&w->pw.rtt), 40);
}

/* One flow whose probes all go missing shows up as that flow's loss. */
static void
test_per_flow_loss(void **state)
{
	struct wire *w = *state;

	w->pc.n_flows = 5;
	w->pc.n_sports = 5;
	w->pc.count = 50;
	w->drop_mod = 5;
	w->drop_rem = 3; /* every probe of flow 3 */
	run(w);
	assert_int_equal(w->pw.st.received, 40);
	assert_int_equal(w->pw.st.lost, 10);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(w->pw.flows[i].count, i == 3 ? 0 : 10);
		assert_int_equal(w->pw.flows[i].lost, i == 3 ? 10 : 0);
	}
	assert_int_equal(prober_flow_percentile(&w->pw.flows[3], 99), 0);
}

/* An answer that comes back on another of our flows than its probe's is
 * not that probe's answer (ignored other_flow; the probe times out), and
 * one to a port that is none of ours likewise. */
static void
test_wrong_flow_ignored(void **state)
{
	struct wire *w = *state;

	w->pc.n_flows = 4;
	w->pc.n_sports = 4;
	w->pc.count = 20;
	w->wrong_seq = 5; /* flow 1's probe, answered on flow 2 */
	w->wrong_port = w->sports[2];
	run(w);
	assert_int_equal(w->pw.st.received, 19);
	assert_int_equal(w->pw.st.lost, 1);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_OTHER_FLOW], 1);
	assert_int_equal(w->pw.flows[1].lost, 1);
	assert_int_equal(w->pw.flows[1].count, 4);
	assert_int_equal(w->pw.flows[2].count, 5);

	/* Not one of our ports at all. */
	teardown(state);
	setup(state);
	w = *state;
	w->pc.n_flows = 4;
	w->pc.n_sports = 4;
	w->pc.count = 20;
	w->wrong_seq = 7;
	w->wrong_port = 12345;
	run(w);
	assert_int_equal(w->pw.st.received, 19);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_OTHER_FLOW], 1);
}

/* --new-flow-every 10: a fresh source port every 10 probes, the first
 * probe of each in first_rtt and not in rtt; a peer that holds each new
 * tuple's first answer 1 ms shows in first_rtt only. */
static void
test_first_packet(void **state)
{
	struct wire *w = *state;
	const uint64_t delay_ns = 1000000;

	w->pc.new_flow_every = 10;
	w->pc.n_sports = 20;
	w->pc.count = 100;
	w->pc.timeout_cycles = 20000000; /* 10 ms */
	w->first_delay = delay_ns * 2;	 /* cycles at 2 GHz */
	run(w);
	assert_int_equal(w->pw.st.received, 100);
	assert_int_equal(w->pw.st.new_flows, 10);
	assert_int_equal(w->pw.st.fresh_reused, 0);
	assert_non_null(w->pw.first_rtt);
	assert_int_equal(histogram_count(w->pw.first_rtt), 100 / 10);
	assert_int_equal(histogram_count(&w->pw.rtt), 90);
	assert_true(histogram_min(w->pw.first_rtt) >= delay_ns);
	assert_true(histogram_max(&w->pw.rtt) < delay_ns);
	/* Ten tuples, each on its own port, ten probes each. */
	assert_int_equal(w->n_ports_used, 10);
	for (unsigned k = 0; k < 100; k++)
		assert_int_equal(w->seen_sport[k], w->sports[k / 10]);
}

/* The warm-up opens tuples too but records nothing; a lost first packet
 * is counted as such. */
static void
test_first_packet_warmup_loss(void **state)
{
	struct wire *w = *state;

	w->pc.new_flow_every = 5;
	w->pc.n_sports = 30;
	w->pc.count = 50;
	w->pc.warmup = 5;
	w->drop_mod = 20;
	w->drop_rem = 10; /* seq 10, 30, 50: first packets */
	run(w);
	assert_int_equal(w->pw.st.new_flows, 11);
	assert_int_equal(w->pw.st.first_lost, 3);
	assert_int_equal(histogram_count(w->pw.first_rtt), 10 - 3);
	assert_int_equal(histogram_count(&w->pw.rtt), 40);
}

/* Out of fresh ports: the oldest is used again, and counted. */
static void
test_fresh_ports_run_out(void **state)
{
	struct wire *w = *state;

	w->pc.new_flow_every = 5;
	w->pc.n_sports = 3;
	w->pc.count = 30;
	run(w);
	assert_int_equal(w->pw.st.new_flows, 6);
	assert_int_equal(w->pw.st.fresh_reused, 3);
	for (unsigned k = 0; k < 30; k++)
		assert_int_equal(w->seen_sport[k], w->sports[k / 5 % 3]);
	assert_int_equal(w->pw.st.received, 30);
}

/* Combinations that make no sense are refused. */
static void
test_conf_refused(void **state)
{
	struct wire *w = *state;
	struct io_queue *q = io_fake_queue(w->f, 0);

	w->pc.n_flows = 4;
	w->pc.n_sports = 4;
	w->pc.new_flow_every = 10;
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, q, 0), -EINVAL);
	w->pc.new_flow_every = 0;
	w->pc.n_sports = 3; /* one port a flow */
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, q, 0), -EINVAL);
	w->pc.n_sports = 4;
	w->sports[3] = w->sports[0]; /* two flows, one port */
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, q, 0), -EINVAL);
	w->sports[3] = 50000;
	w->pc.proto = &probe_proto_icmp;
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, q, 0), -EINVAL);
	w->pc.proto = &probe_proto_udp_echo;
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, q, 0), 0);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The per-flow histogram's stated bound: a percentile is never below the
 * exact one and less than 1/16 above it, from 1 ns to 17 s. */
static void
test_flow_hist_bound(void **state)
{
	static const double pcts[] = {1, 10, 50, 90, 99, 99.9, 100};
	enum { N = 5000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct prober_flow *fl = calloc(1, sizeof(*fl));
	uint64_t x = 88172645463325252ull;
	double worst = 0;

	(void)state;
	assert_non_null(v);
	assert_non_null(fl);
	for (unsigned round = 0; round < 20; round++) {
		memset(fl, 0, sizeof(*fl));
		for (unsigned i = 0; i < N; i++) {
			/* xorshift64: values spread over 2^0..2^34 */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v[i] = (x >> 30) >> (x % (34 - round % 20));
			if (v[i] > PROBER_FLOW_HIGHEST)
				v[i] = PROBER_FLOW_HIGHEST;
			prober_flow_hist_record(fl, v[i]);
		}
		qsort(v, N, sizeof(*v), cmp_u64);
		assert_int_equal(fl->count, N);
		assert_int_equal(fl->min, v[0]);
		assert_int_equal(fl->max, v[N - 1]);
		for (unsigned k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
			uint64_t rank =
				(uint64_t)ceil(pcts[k] / 100.0 * N - 1e-9);
			uint64_t exact = v[rank - 1];
			uint64_t got = prober_flow_percentile(fl, pcts[k]);
			double err;

			assert_true(got >= exact);
			err = exact == 0
				      ? (double)got
				      : (double)(got - exact) / (double)exact;
			assert_true(err < 1.0 / 16);
			if (err > worst)
				worst = err;
		}
	}
	/* The bound is not loose: some percentile came near it. */
	assert_true(worst > 1.0 / 64);
	free(v);
	free(fl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rotation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_flow_loss, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wrong_flow_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_first_packet, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_first_packet_warmup_loss,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fresh_ports_run_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conf_refused, setup,
						teardown),
		cmocka_unit_test(test_flow_hist_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
