/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prober and reflector engines end to end over the in-memory fake wire
 * (tests/support/io_fake.c): side 0 is the prober's queue, side 1 the
 * reflector's. A peer hook on side 0 polls the reflector after every probe, so
 * each probe is answered synchronously; the fake clock advances one tick per
 * read, so timeouts fire without real time passing. No EAL: the mbufs are
 * hand-made.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/codec.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"
#include "engine_wire.h"

#define N_MBUFS 256

/*
 * A queue in front of the reflector's side of the wire that holds back every
 * hold_every-th answer and releases it together with the next one (before or
 * after it): a late answer, optionally overtaken.
 */
struct delay_queue {
	struct io_queue q;
	struct io_queue *inner;
	unsigned hold_every;
	bool release_after;
	uint64_t n_tx;
	struct rte_mbuf *held;
};

/* Everything one test needs; 64-byte aligned for the histograms inside. */
struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	struct delay_queue dq;
	struct io_ops dq_ops;
};

/* Peer hook: the reflector answers every probe at once. */
static void
reflector_hook(void *arg)
{
	reflector_poll(arg);
}

static void
stop_hook(void *arg)
{
	atomic_store_explicit((atomic_bool *)arg, true, memory_order_relaxed);
}

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, N_MBUFS) != 0)
		goto fail;

	w->rc.addr = TW_REFL_IP;
	w->rc.mac = tw_refl_mac;
	w->rc.stamp_port = STAMP_PORT;
	w->rc.sockperf_port = SOCKPERF_PORT;
	w->rc.echo_port = 7;
	w->rc.clock = w->clock;
	w->rc.anchor.tsc = 0;
	w->rc.anchor.realtime_ns = TW_ANCHOR_NS;
	if (tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL) != 0)
		goto fail;

	tw_prober_conf_stamp(&w->pc, &w->clock, 40000);
	w->pc.count = 100;
	w->pc.warmup = 5;
	/* 100 fake clock reads: a dropped answer times out in microseconds. */
	w->pc.timeout_cycles = 10000;
	w->pc.icmp_id = 0x4200;
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

	if (w->dq.held != NULL)
		io_free(w->dq.inner, w->dq.held);
	tw_fixture_free(w, w->f, w->prober_ready ? &w->pw : NULL, &w->rw);
	return 0;
}

static void
prober_start(struct wire *w)
{
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
}

static int
prober_run(struct wire *w)
{
	static const atomic_bool no_stop;

	prober_start(w);
	return prober_worker_run(&w->pw, &no_stop);
}

static void
use_proto(struct wire *w, const struct probe_proto *p, unsigned size)
{
	w->pc.proto = p;
	w->pc.flow.dport = p->default_port;
	w->pc.size = size;
}

/* Answers numbered from 1 whose number is a multiple of every, in [lo, hi]. */
static uint64_t
multiples(uint64_t lo, uint64_t hi, uint64_t every)
{
	return hi / every - (lo - 1) / every;
}

static uint64_t
rc(const struct wire *w, enum reflector_counter c)
{
	return reflector_counter_read(&w->rw, c);
}

/* Frames received and not answered (RC_SOCKPERF_NOREPLY included). */
static uint64_t
reflector_drops(const struct wire *w)
{
	uint64_t sum = 0;

	for (unsigned c = RC_DROP_MALFORMED; c < RC__COUNT; c++)
		if (c != RC_STATEFUL_FULL && c != RC_SESSION_EXPIRED &&
		    c != RC_RX_L4_CSUM_NIC && c != RC_RX_L4_CSUM_SW)
			sum += rc(w, c);
	return sum;
}

/* Frames ----------------------------------------------------------------- */

static struct codec_flow
flow_to_reflector(uint16_t sport, uint16_t dport)
{
	return tw_flow4(&tw_prober_mac, &tw_refl_mac, TW_PROBER_IP, TW_REFL_IP,
			sport, dport);
}

/* An answer's flow: from the reflector's port sport to the prober's dport. */
static struct codec_flow
flow_from_reflector(uint16_t sport, uint16_t dport)
{
	return tw_flow4(&tw_refl_mac, &tw_prober_mac, TW_REFL_IP, TW_PROBER_IP,
			sport, dport);
}

/* The reflector again, with w->rc as it is now, on queue 1. */
static int
reflector_reinit(struct wire *w)
{
	reflector_worker_fini(&w->rw);
	return reflector_worker_init(&w->rw, &w->rc, io_fake_queue(w->f, 1));
}

static size_t
build_stamp(uint8_t *buf, size_t cap, const struct codec_flow *fl, uint32_t seq,
	    uint16_t ssid)
{
	uint8_t pl[STAMP_BASE_LEN];

	tw_stamp_payload(pl, sizeof(pl), seq, ssid, TW_ANCHOR_NS);
	return tw_build_udp(buf, cap, fl, pl, sizeof(pl));
}

static size_t
build_sockperf(uint8_t *buf, size_t cap, uint16_t flags)
{
	struct codec_flow fl = flow_to_reflector(40000, SOCKPERF_PORT);
	struct sockperf_hdr h = {.seq = 1, .flags = flags, .length = 64};
	uint8_t pl[64];

	memset(pl, 0, sizeof(pl));
	assert_int_equal(sockperf_build(pl, sizeof(pl), &h), SOCKPERF_HDR_LEN);
	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
build_icmp(uint8_t *buf, size_t cap, uint8_t type)
{
	struct codec_flow fl = flow_to_reflector(0, 0);
	static const uint8_t pl[16] = "0123456789abcdef";
	int len = codec_build_icmp_echo(buf, cap, &fl, type, 0x1234, 1, pl,
					sizeof(pl));

	assert_true(len > 0);
	return (size_t)len;
}

static size_t
build_arp(uint8_t *buf, size_t cap, uint16_t op, const struct codec_mac *tha,
	  uint32_t tpa)
{
	int len = codec_build_arp(buf, cap, op, &tw_prober_mac, TW_PROBER_IP,
				  tha, tpa);

	assert_true(len > 0);
	return (size_t)len;
}

/* End to end --------------------------------------------------------------- */

static void
check_clean_run(struct wire *w, uint64_t n, uint64_t warm)
{
	const struct prober_stats *st = &w->pw.st;

	assert_int_equal(st->sent, n);
	assert_int_equal(st->received, n);
	assert_int_equal(st->lost, 0);
	assert_int_equal(st->duplicated, 0);
	assert_int_equal(st->reordered, 0);
	assert_int_equal(st->late, 0);
	assert_int_equal(st->rx_ignored, 0);
	assert_int_equal(st->tx_fail, 0);
	assert_int_equal(st->warmup, warm);
	assert_int_equal(w->pw.rtt.total, n);
	assert_int_equal(w->pw.rtt.underflow + w->pw.rtt.overflow, 0);
	assert_true(w->pw.rtt.min > 0);
	assert_int_equal(rc(w, RC_RX), n + warm);
	assert_int_equal(rc(w, RC_TX), n + warm);
	assert_int_equal(reflector_drops(w), 0);
	assert_int_equal(io_fake_tx_count(w->f, 0), n + warm);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
	assert_true(w->pw.done);
}

static void
test_stamp_end_to_end(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 100, warm = 5;

	assert_int_equal(prober_run(w), 0);
	check_clean_run(w, n, warm);
	assert_int_equal(rc(w, RC_STAMP), n + warm);
	/* Turnaround and network RTT only for measured probes, and RTT is
	 * their sum, probe by probe (RTT - (T3 - T2)). */
	assert_int_equal(w->pw.turnaround.total, n);
	assert_int_equal(w->pw.network_rtt.total, n);
	assert_true(w->pw.turnaround.min > 0);
	assert_true(w->pw.network_rtt.min > 0);
	assert_int_equal(w->pw.network_rtt.sum + w->pw.turnaround.sum,
			 w->pw.rtt.sum);
	/* The reflector's own view of T3 - T2 (from TSC, not NTP): the same
	 * within the NTP timestamp's 1 ns truncation per probe. */
	assert_int_equal(w->rw.turnaround.total, n + warm);
	{
		uint64_t r = w->rw.turnaround.sum / (n + warm) * n;
		uint64_t p = w->pw.turnaround.sum;

		assert_true(p <= r + n && r <= p + n);
	}
}

/*
 * One-way delays, prober side: on one clock every forward and
 * reverse delay is positive and they add up to the network RTT; answers
 * without an Error Estimate (multiplier 0) are counted. Then the
 * reflector's clock 1 ms ahead, its estimate S set, 2^-20 s: every reverse
 * delay is negative (counted, the most negative kept, none recorded),
 * every forward one carries the millisecond, the estimate is read.
 */
static void
test_stamp_one_way(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 100;
	const struct prober_oneway *o = &w->pw.ow;

	assert_int_equal(prober_run(w), 0);
	assert_int_equal(o->answers, n);
	assert_int_equal(o->fwd_nonpos + o->rev_nonpos, 0);
	assert_int_equal(w->pw.forward.total, n);
	assert_int_equal(w->pw.reverse.total, n);
	assert_true(o->fwd_min_ns > 0 && o->rev_min_ns > 0);
	/* Each T rounds to 2^-32 s on the wire: within 1 ns per timestamp. */
	{
		uint64_t fr = w->pw.forward.sum + w->pw.reverse.sum;
		uint64_t net = w->pw.network_rtt.sum;

		assert_true(fr <= net + 4 * n && net <= fr + 4 * n);
	}
	/* This fixture's reflector sends 0: S clear, multiplier 0. */
	assert_int_equal(o->ee_s_clear, n);
	assert_int_equal(o->ee_none, n);
	assert_int_equal(o->ee_max_ns, 0);

	prober_worker_fini(&w->pw);
	w->prober_ready = false;
	reflector_worker_fini(&w->rw);
	w->rc.anchor.realtime_ns += 1000000;
	w->rc.error_estimate = STAMP_EE_S | 12 << 8 | 1; /* 2^-20 s */
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(o->answers, n);
	assert_int_equal(o->rev_nonpos, n);
	assert_int_equal(w->pw.reverse.total, 0);
	assert_int_equal(o->fwd_nonpos, 0);
	assert_int_equal(w->pw.forward.total, n);
	assert_true(w->pw.forward.min >= 1000000);
	assert_true(o->rev_min_ns < -990000 && o->rev_min_ns > -1000000);
	assert_int_equal(o->ee_s_clear, 0);
	assert_int_equal(o->ee_none, 0);
	assert_int_equal(o->ee_max_ns, 954); /* 953.67 ns, rounded up */
}

/*
 * A reflector whose clock thread could not start sends the estimate that
 * says unknown (stamp_ee_unknown(): S clear, the largest): over the wire
 * the prober counts every answer as such, takes none as a bound (no
 * 17,000-year figure in ee_max_ns, nor a cast of one out of range).
 */
static void
test_stamp_one_way_unknown_ee(void **state)
{
	struct wire *w = *state;
	const struct prober_oneway *o = &w->pw.ow;
	struct stamp_error_estimate e;
	const uint64_t n = 100;

	reflector_worker_fini(&w->rw);
	stamp_ee_unknown(false, false, &e);
	w->rc.error_estimate = stamp_ee_encode(&e);
	assert_int_equal(tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL),
			 0);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(o->answers, n);
	assert_int_equal(o->ee_unknown, n);
	assert_int_equal(o->ee_s_clear, n);
	assert_int_equal(o->ee_none, 0);
	assert_int_equal(o->ee_max_ns, 0);
}

/* 100 probes (5 warm-up) of protocol p answered as counter c, without
 * remote timestamps. */
static void
check_proto_end_to_end(struct wire *w, const struct probe_proto *p,
		       unsigned size, enum reflector_counter c)
{
	use_proto(w, p, size);
	assert_int_equal(prober_run(w), 0);
	check_clean_run(w, 100, 5);
	assert_int_equal(rc(w, c), 105);
	assert_int_equal(w->pw.turnaround.total, 0);
	assert_int_equal(w->pw.network_rtt.total, 0);
}

static void
test_sockperf_end_to_end(void **state)
{
	struct wire *w = *state;

	check_proto_end_to_end(w, &probe_proto_sockperf, 64, RC_SOCKPERF);
	assert_int_equal(rc(w, RC_SOCKPERF_NOREPLY), 0);
}

static void
test_udp_echo_end_to_end(void **state)
{
	check_proto_end_to_end(*state, &probe_proto_udp_echo, 32, RC_ECHO);
}

static void
test_icmp_end_to_end(void **state)
{
	check_proto_end_to_end(*state, &probe_proto_icmp, 56, RC_ICMP);
}

/* The echo payload carries the probe's size through the reflector as is. */
static void
test_large_probe(void **state)
{
	struct wire *w = *state;

	use_proto(w, &probe_proto_stamp, 1400);
	w->pc.count = 10;
	w->pc.warmup = 0;
	assert_int_equal(prober_run(w), 0);
	check_clean_run(w, 10, 0);
	assert_int_equal(w->pw.network_rtt.total, 10);
}

/*
 * An 8 KiB probe (PsPing's -l 8k): the prober sends IPv4 fragments, the
 * reflector reassembles, answers and fragments the answer, the prober
 * reassembles it. A lone fragment from another host, waiting on the
 * prober's rx ring, is ignored and disturbs nothing.
 */
static void
test_fragmented_probes(void **state)
{
	struct wire *w = *state;
	struct codec_flow other = {
		.src_mac = tw_other_mac,
		.dst_mac = tw_prober_mac,
		.ip_version = 4,
		.src4 = TW_OTHER_IP,
		.dst4 = TW_PROBER_IP,
		.sport = STAMP_PORT,
		.dport = 40000,
	};
	static uint8_t big[4096], frag[2048];
	struct codec_frame f;
	size_t off = 0;
	/* 8192 + 8 bytes of UDP in 1480-byte pieces (MTU 1500). */
	const uint64_t n = 20, warm = 2, pieces = (8200 + 1479) / 1480;
	int len;

	w->rc.n_reasm = 4;
	assert_int_equal(reflector_reinit(w), 0);
	len = codec_build_udp(big, sizeof(big), &other, 7,
			      big + codec_udp_header_len(&other), 3000);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(big, (size_t)len, &f), 0);
	len = codec_ipv4_fragment(big, &f, 1500, &off, frag, sizeof(frag));
	assert_true(len > 0 && off != 0);
	assert_int_equal(io_fake_inject(w->f, 0, frag, (size_t)len), 0);

	use_proto(w, &probe_proto_stamp, 8192);
	w->pc.count = n;
	w->pc.warmup = warm;
	assert_int_equal(prober_run(w), 0);
	assert_true(w->pw.fragmented);
	assert_int_equal(w->pw.st.sent, n);
	assert_int_equal(w->pw.st.received, n);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.reasm_failed, 0);
	assert_int_equal(w->pw.st.rx_ignored, 1); /* the stray fragment */
	assert_int_equal(w->pw.rtt.total, n);
	assert_int_equal(w->pw.network_rtt.total, n);
	assert_int_equal(rc(w, RC_FRAGMENTS), (n + warm) * pieces);
	assert_int_equal(rc(w, RC_REASSEMBLED), n + warm);
	assert_int_equal(rc(w, RC_STAMP), n + warm);
	assert_int_equal(rc(w, RC_DROP_REASM), 0);
	assert_int_equal(rc(w, RC_TX), (n + warm) * pieces);
	assert_int_equal(io_fake_tx_count(w->f, 0), (n + warm) * pieces);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* The lean closed loop (prober_worker_run() with no hook on) -------------- */

/* A queue in front of the prober's side of the wire that counts allocs. */
struct count_queue {
	struct io_queue q;
	struct io_queue *inner;
	uint64_t allocs, empty_polls, clock_reads;
};

static uint16_t
cq_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct count_queue *c = q->priv;
	uint16_t got = io_rx(c->inner, pkts, n);

	if (got == 0)
		c->empty_polls++;
	return got;
}

static uint16_t
cq_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return io_tx(((struct count_queue *)q->priv)->inner, pkts, n);
}

static struct rte_mbuf *
cq_alloc(struct io_queue *q)
{
	struct count_queue *c = q->priv;

	c->allocs++;
	return io_alloc(c->inner);
}

static void
cq_free(struct io_queue *q, struct rte_mbuf *m)
{
	io_free(((struct count_queue *)q->priv)->inner, m);
}

static uint64_t
cq_clock(struct io_queue *q)
{
	struct count_queue *c = q->priv;

	c->clock_reads++;
	return io_clock(c->inner);
}

static uint64_t
cq_clock_start(struct io_queue *q)
{
	return io_clock_start(((struct count_queue *)q->priv)->inner);
}

static uint64_t
cq_clock_end(struct io_queue *q)
{
	return io_clock_end(((struct count_queue *)q->priv)->inner);
}

/* cq in front of inner, with ops (the caller's storage). */
static void
count_queue_init(struct count_queue *cq, struct io_ops *ops,
		 struct io_queue *inner)
{
	memset(cq, 0, sizeof(*cq));
	*ops = *inner->ops;
	ops->name = "count";
	ops->rx_burst = cq_rx;
	ops->tx_burst = cq_tx;
	ops->alloc = cq_alloc;
	ops->free = cq_free;
	ops->clock = cq_clock;
	ops->clock_start = cq_clock_start;
	ops->clock_end = cq_clock_end;
	cq->inner = inner;
	cq->q = *inner;
	cq->q.ops = ops;
	cq->q.priv = cq;
}

/*
 * While it waits for an answer the loop polls and nothing else: the clock
 * (timeout, deadline) is read once every PROBER_POLL_CHECK (16) empty
 * polls. Answers come 2,000 cycles late (20 clock reads of the fake wire),
 * so each probe waits through many empty polls; still every probe is
 * answered, none times out.
 */
static void
test_wait_loop_polls_only(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	struct io_ops ops;
	struct count_queue cq;

	count_queue_init(&cq, &ops, io_fake_queue(w->f, 0));
	io_fake_set_delay(w->f, 1, 2000);
	w->pc.count = 20;
	w->pc.warmup = 0;
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, &cq.q, 0), 0);
	w->prober_ready = true;
	cq.empty_polls = 0;
	cq.clock_reads = 0;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.received, 20);
	assert_int_equal(w->pw.st.lost, 0);
	assert_true(cq.empty_polls >= 20 * 16);
	/* One clock read per 16 empty polls, plus the send time's, T1's,
	 * T4's (clock_start/end are not counted here) and the run's. */
	assert_true(cq.clock_reads <= cq.empty_polls / 16 + 2 * 20 + 2);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * The lean loop sends each probe in the mbuf of the answer before it: over
 * a wire whose reflector answers in place, one alloc for the whole run
 * (the first probe), one more per lost answer (the wire freed it), and no
 * mbuf left over (the kept one is freed when the run ends).
 */
static void
test_lean_recycles_answer_mbuf(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	const uint64_t n = 60, warm = 4, every = 9;
	uint64_t lost = multiples(warm + 1, warm + n, every);
	struct io_ops ops;
	struct count_queue cq;

	count_queue_init(&cq, &ops, io_fake_queue(w->f, 0));
	io_fake_set_drop_every(w->f, 1, every);
	w->pc.count = n;
	w->pc.warmup = warm;
	assert_int_equal(prober_worker_init(&w->pw, &w->pc, &cq.q, 0), 0);
	w->prober_ready = true;
	cq.allocs = 0; /* init sized the mbufs with one */
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.sent, n);
	assert_int_equal(w->pw.st.lost, lost);
	assert_int_equal(w->pw.st.received, n - lost);
	/* The first probe, and the probe after each answer the wire dropped
	 * (every 9th it sent, warm-up included; none after the last). */
	assert_int_equal(cq.allocs, 1 + multiples(1, warm + n - 1, every));
	assert_null(w->pw.spare);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Every counter and histogram of a run with w's conf (with lost,
 * duplicated and late answers), on a fresh wire: lean or not. */
static void
lean_run(struct wire **out, bool lean)
{
	struct wire *w;

	assert_int_equal(setup((void **)&w), 0);
	io_fake_set_drop_every(w->f, 1, 11);
	io_fake_set_dup_every(w->f, 1, 7);
	w->pc.count = 200;
	w->pc.warmup = 3;
	/* --samples is a hook: the generic loop. */
	w->pc.keep_samples = !lean;
	w->pc.max_samples = 1000;
	assert_int_equal(prober_run(w), 0);
	*out = w;
}

/* The lean loop and the generic one count and record the same run the
 * same way, byte for byte. */
static void
test_lean_same_as_generic(void **state)
{
	struct wire *a, *b;

	(void)state;
	lean_run(&a, true);
	lean_run(&b, false);
	assert_null(a->pw.samples);
	assert_int_equal(b->pw.n_samples, b->pw.st.received);
	assert_true(a->pw.st.lost > 0 && a->pw.st.duplicated > 0);
	assert_memory_equal(&a->pw.st, &b->pw.st, sizeof(a->pw.st));
	assert_memory_equal(&a->pw.rtt, &b->pw.rtt, sizeof(a->pw.rtt));
	assert_memory_equal(&a->pw.network_rtt, &b->pw.network_rtt,
			    sizeof(a->pw.network_rtt));
	assert_memory_equal(&a->pw.turnaround, &b->pw.turnaround,
			    sizeof(a->pw.turnaround));
	assert_int_equal(io_fake_tx_count(a->f, 0), io_fake_tx_count(b->f, 0));
	assert_int_equal(io_fake_mbufs_in_use(a->f), 0);
	assert_int_equal(io_fake_mbufs_in_use(b->f), 0);
	teardown((void **)&a);
	teardown((void **)&b);
}

/* Loss, duplicates, late answers ----------------------------------------- */

static void
test_loss(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 50, warm = 3, every = 7;
	uint64_t lost = multiples(warm + 1, warm + n, every);

	io_fake_set_drop_every(w->f, 1, every);
	w->pc.count = n;
	w->pc.warmup = warm;
	assert_int_equal(prober_run(w), 0);
	assert_true(lost > 0);
	assert_int_equal(w->pw.st.sent, n);
	assert_int_equal(w->pw.st.lost, lost);
	assert_int_equal(w->pw.st.received, n - lost);
	assert_int_equal(w->pw.st.received + w->pw.st.lost, w->pw.st.sent);
	assert_int_equal(w->pw.rtt.total, n - lost);
	assert_int_equal(w->pw.st.late, 0);
	assert_int_equal(w->pw.st.duplicated, 0);
	/* The reflector answered everything; the wire lost the answers. */
	assert_int_equal(rc(w, RC_STAMP), n + warm);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Probes lost on the way out, not answers: the reflector never sees them. */
static void
test_loss_of_probes(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 40, every = 4;

	io_fake_set_drop_every(w->f, 0, every);
	use_proto(w, &probe_proto_udp_echo, 16);
	w->pc.count = n;
	w->pc.warmup = 0;
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.lost, n / every);
	assert_int_equal(w->pw.st.received, n - n / every);
	assert_int_equal(rc(w, RC_ECHO), n - n / every);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_duplicates(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 50, every = 5;

	io_fake_set_dup_every(w->f, 1, every);
	w->pc.count = n;
	w->pc.warmup = 0;
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.duplicated, n / every);
	assert_int_equal(w->pw.st.received, n);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.reordered, 0);
	assert_int_equal(w->pw.st.late, 0);
	/* Recorded once each. */
	assert_int_equal(w->pw.rtt.total, n);
	assert_int_equal(w->pw.network_rtt.total, n);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Duplicated probes: the reflector answers both copies. */
static void
test_duplicated_probes(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 30, every = 3;

	io_fake_set_dup_every(w->f, 0, every);
	use_proto(w, &probe_proto_sockperf, 14);
	w->pc.count = n;
	w->pc.warmup = 0;
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(rc(w, RC_SOCKPERF), n + n / every);
	assert_int_equal(w->pw.st.duplicated, n / every);
	assert_int_equal(w->pw.st.received, n);
	assert_int_equal(w->pw.rtt.total, n);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static struct delay_queue *
dq_of(struct io_queue *q)
{
	return q->priv;
}

static uint16_t
dq_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return io_rx(dq_of(q)->inner, pkts, n);
}

static uint16_t
dq_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct delay_queue *d = dq_of(q);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *held = d->held;

		d->n_tx++;
		if (held == NULL && d->n_tx % d->hold_every == 0) {
			d->held = pkts[i];
			continue;
		}
		d->held = NULL;
		if (held != NULL && !d->release_after)
			io_tx_all(d->inner, &held, 1);
		io_tx_all(d->inner, &pkts[i], 1);
		if (held != NULL && d->release_after)
			io_tx_all(d->inner, &held, 1);
	}
	return n;
}

static struct rte_mbuf *
dq_alloc(struct io_queue *q)
{
	return io_alloc(dq_of(q)->inner);
}

static void
dq_free(struct io_queue *q, struct rte_mbuf *m)
{
	io_free(dq_of(q)->inner, m);
}

static uint64_t
dq_clock(struct io_queue *q)
{
	return io_clock(dq_of(q)->inner);
}

/* Put the delaying queue between the reflector and its side of the wire. */
static void
use_delay_queue(struct wire *w, unsigned hold_every, bool release_after)
{
	struct io_queue *inner = io_fake_queue(w->f, 1);

	w->dq_ops = *inner->ops;
	w->dq_ops.name = "delay";
	w->dq_ops.rx_burst = dq_rx;
	w->dq_ops.tx_burst = dq_tx;
	w->dq_ops.alloc = dq_alloc;
	w->dq_ops.free = dq_free;
	w->dq_ops.clock = dq_clock;
	w->dq_ops.clock_start = dq_clock;
	w->dq_ops.clock_end = dq_clock;
	w->dq.q = *inner;
	w->dq.q.ops = &w->dq_ops;
	w->dq.q.priv = &w->dq;
	w->dq.inner = inner;
	w->dq.hold_every = hold_every;
	w->dq.release_after = release_after;
	reflector_worker_fini(&w->rw);
	assert_int_equal(reflector_worker_init(&w->rw, &w->rc, &w->dq.q), 0);
}

/*
 * Every 4th answer comes after its probe timed out, in the same burst as
 * the next answer. prober.c: such an answer is "late" (its probe was already
 * counted lost), and "reordered" only when it arrives after an answer with a
 * higher sequence number.
 */
static void
late_answers(struct wire *w, bool overtaken)
{
	const uint64_t n = 22, every = 4;
	const uint64_t held =
		n / every; /* the last answer (22nd) is not held */

	use_delay_queue(w, every, overtaken);
	w->pc.count = n;
	w->pc.warmup = 0;
	assert_int_equal(prober_run(w), 0);
	assert_null(w->dq.held);
	assert_int_equal(w->pw.st.sent, n);
	assert_int_equal(w->pw.st.lost, held);
	assert_int_equal(w->pw.st.received, n - held);
	assert_int_equal(w->pw.st.late, held);
	assert_int_equal(w->pw.st.reordered, overtaken ? held : 0);
	assert_int_equal(w->pw.st.duplicated, 0);
	/* Late answers are ignored answers too (probes.ignored.late). */
	assert_int_equal(w->pw.st.rx_ignored, held);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_LATE], held);
	assert_int_equal(w->pw.rtt.total, n - held);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_late_in_order(void **state)
{
	late_answers(*state, false);
}

static void
test_late_overtaken(void **state)
{
	late_answers(*state, true);
}

/* A burst on the prober's queue with stale answers for seqs never sent. */
static void
test_unsent_seq_ignored(void **state)
{
	struct wire *w = *state;
	uint8_t frame[128], pl[16];
	struct codec_flow fl;

	use_proto(w, &probe_proto_udp_echo, sizeof(pl));
	w->pc.count = 10;
	w->pc.warmup = 0;
	/* Turned around: from the reflector's echo port to our flow. */
	fl = flow_from_reflector(7, 40000);
	memset(pl, 0, sizeof(pl));
	pl[7] = 200; /* seq 200 */
	tw_inject(w->f, 0, frame,
		  tw_build_udp(frame, sizeof(frame), &fl, pl, 16));
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.rx_ignored, 1);
	assert_int_equal(w->pw.st.received, 10);
	assert_int_equal(w->pw.st.late, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * Paced probes (-i): between probes the prober drains its queue with no
 * probe in flight. A stale answer there whose sequence number was never sent
 * (an earlier run on the same flow, a spoofed frame) must be ignored too;
 * it must not move the duplicate window past the probes still to come.
 */
struct stale_rx {
	struct io_fake *f;
	uint16_t (*rx_burst)(struct io_queue *q, struct rte_mbuf **pkts,
			     uint16_t n);
	const uint8_t *frame;
	size_t len;
	unsigned rx_calls_with_frames;
	bool injected;
};

/* The fake's ops use q->priv, so the wrapper's state cannot live there. */
static struct stale_rx *stale;

static uint16_t
stale_rx_burst(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got;

	/* After the first answer was taken, i.e. during the first pacing
	 * wait, the stale frame shows up. */
	if (!stale->injected && stale->rx_calls_with_frames == 1) {
		stale->injected = true;
		assert_int_equal(
			io_fake_inject(stale->f, 0, stale->frame, stale->len),
			0);
	}
	got = stale->rx_burst(q, pkts, n);
	if (got > 0)
		stale->rx_calls_with_frames++;
	return got;
}

static void
test_paced_stale_answer_ignored(void **state)
{
	struct wire *w = *state;
	uint8_t frame[128], pl[16];
	struct codec_flow fl;
	struct stale_rx s;
	struct io_queue q;
	struct io_ops ops;
	static const atomic_bool no_stop;
	const uint64_t n = 10;

	use_proto(w, &probe_proto_udp_echo, sizeof(pl));
	w->pc.count = n;
	w->pc.warmup = 0;
	w->pc.interval_cycles = 5000;
	fl = flow_from_reflector(7, 40000);
	memset(pl, 0, sizeof(pl));
	pl[6] = 0x13;
	pl[7] = 0x88; /* seq 5000: never sent in a run of 10 */

	memset(&s, 0, sizeof(s));
	s.f = w->f;
	s.frame = frame;
	s.len = tw_build_udp(frame, sizeof(frame), &fl, pl, sizeof(pl));
	q = *io_fake_queue(w->f, 0);
	ops = *q.ops;
	s.rx_burst = ops.rx_burst;
	ops.rx_burst = stale_rx_burst;
	q.ops = &ops;
	stale = &s;

	assert_int_equal(prober_worker_init(&w->pw, &w->pc, &q, 0), 0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_true(s.injected);
	assert_int_equal(w->pw.st.sent, n);
	assert_int_equal(w->pw.st.received, n);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.duplicated, 0);
	assert_int_equal(w->pw.st.late, 0);
	assert_int_equal(w->pw.st.rx_ignored, 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * STAMP carries 32-bit sequence numbers; the prober widens them to its
 * 64-bit counter around the newest sent. Across the 2^32 wrap an answer
 * may come when that is still below 2^32: seq 2^32 is on the wire as 0 and
 * must widen up, not down to 0.
 */
static void
test_stamp_seq_widen_across_wrap(void **state)
{
	struct wire *w = *state;
	struct codec_frame f;
	struct probe_reply r;
	struct codec_flow fl;
	uint8_t frame[128], pl[STAMP_BASE_LEN];
	struct stamp_sender_opts so;
	struct stamp_reflect_opts ro;
	size_t len;

	prober_start(w);
	/* A reflector answer to our flow for wire seq 0. */
	memset(&so, 0, sizeof(so));
	so.seq = 0;
	so.len = sizeof(pl);
	assert_int_equal(stamp_sender_build(pl, sizeof(pl), &so), sizeof(pl));
	memset(&ro, 0, sizeof(ro));
	assert_int_equal(stamp_reflect(pl, sizeof(pl), &ro), sizeof(pl));
	fl = flow_from_reflector(STAMP_PORT, w->pw.flow.sport);
	len = tw_build_udp(frame, sizeof(frame), &fl, pl, sizeof(pl));
	assert_int_equal(codec_parse_frame(frame, len, &f), 0);

	/* Far from the wrap: plain. */
	w->pw.step_seq = 0x100000005ull; /* the newest sent */
	memset(&r, 0, sizeof(r));
	assert_int_equal(probe_proto_stamp.match(&w->pw, frame, &f, &r), 1);
	assert_int_equal(r.seq, 0x100000000ull);
	assert_true(r.has_remote_ts);

	/* Newest sent 2^32 - 2 (2^32 - 1, 2^32 on the way), the answer is for
	 * 2^32. */
	w->pw.step_seq = 0xfffffffeull;
	memset(&r, 0, sizeof(r));
	assert_int_equal(probe_proto_stamp.match(&w->pw, frame, &f, &r), 1);
	assert_int_equal(r.seq, 0x100000000ull);
}

/* Samples kept: at most max_samples per worker, the rest counted dropped. */
static void
test_samples_capped(void **state)
{
	struct wire *w = *state;

	w->pc.count = 20;
	w->pc.warmup = 2;
	w->pc.keep_samples = true;
	w->pc.max_samples = 10;
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.received, 20);
	assert_int_equal(w->pw.n_samples, 10);
	assert_int_equal(w->pw.samples_dropped, 10);
	for (size_t i = 0; i < w->pw.n_samples && i < 10; i++) {
		assert_int_equal(w->pw.samples[i].seq, i + 2);
		assert_true(w->pw.samples[i].network_rtt_ns >= 0);
	}
}

static void
test_samples_kept(void **state)
{
	struct wire *w = *state;

	w->pc.count = 5000; /* past the first allocation of 4096 */
	w->pc.warmup = 0;
	w->pc.keep_samples = true;
	w->pc.max_samples = 1u << 20;
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.n_samples, 5000);
	assert_int_equal(w->pw.samples_dropped, 0);
	assert_int_equal(w->pw.samples[4999].seq, 4999);
	assert_true(w->pw.samples[4999].t1_ns > w->pw.samples[0].t1_ns);
}

/* The stop flag: a probe in flight at stop is neither sent nor lost. */
static void
test_stop_in_flight(void **state)
{
	struct wire *w = *state;
	atomic_bool stop = false;

	/* Nobody answers; the first tx sets the flag. */
	io_fake_set_peer(w->f, 0, stop_hook, (void *)&stop);
	w->pc.timeout_cycles = UINT64_MAX / 2;
	prober_start(w);
	assert_int_equal(prober_worker_run(&w->pw, &stop), 0);
	assert_int_equal(w->pw.st.sent + w->pw.st.warmup, 0);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(io_fake_tx_count(w->f, 0), 1);
	assert_int_equal(tw_drain(w->f, 1), 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * -t bounds the whole run, warm-up included: with a warm-up far longer
 * than the duration the run still ends at the deadline (it used to start
 * counting only after the warm-up).
 */
static void
test_duration_includes_warmup(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	const uint64_t dur = 200000; /* cycles: ~2000 fake clock reads */
	uint64_t t0;

	w->pc.count = 0;
	w->pc.warmup = 1000000;
	w->pc.duration_cycles = dur;
	prober_start(w);
	t0 = io_fake_now(w->f);
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_true(w->pw.st.warmup > 0);
	assert_true(w->pw.st.warmup < w->pc.warmup);
	assert_int_equal(w->pw.st.sent, 0);
	/* A few clock reads past the deadline at most. */
	assert_true(io_fake_now(w->f) - t0 <= dur + 1000);
	assert_int_equal(tw_drain(w->f, 0) + tw_drain(w->f, 1), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* A probe still waiting for its answer at the deadline is abandoned. */
static void
test_duration_cuts_timeout(void **state)
{
	static const atomic_bool no_stop;
	struct wire *w = *state;
	const uint64_t dur = 50000;
	uint64_t t0;

	io_fake_set_drop_every(w->f, 1, 1); /* no answer ever comes back */
	w->pc.count = 0;
	w->pc.warmup = 0;
	w->pc.timeout_cycles = 100 * dur;
	w->pc.duration_cycles = dur;
	prober_start(w);
	t0 = io_fake_now(w->f);
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_true(io_fake_now(w->f) - t0 <= dur + 1000);
	assert_int_equal(io_fake_tx_count(w->f, 0), 1);
	assert_int_equal(w->pw.st.sent + w->pw.st.lost, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * 40 probes -i interval --timeout 20000 cycles, every 4th answer lost;
 * returns interval_stretched. -i shorter than --timeout: every lost probe
 * delays the next one to its timeout, and is counted in interval_stretched;
 * answered probes and lost ones whose timeout ends before the next start
 * are not.
 */
static uint64_t
paced_with_loss(struct wire *w, uint64_t interval)
{
	const uint64_t n = 40, every = 4;

	io_fake_set_drop_every(w->f, 1, every);
	w->pc.count = n;
	w->pc.warmup = 0;
	w->pc.interval_cycles = interval;
	w->pc.timeout_cycles = 20000;
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.lost, n / every);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
	return w->pw.st.interval_stretched;
}

static void
test_interval_stretched(void **state)
{
	assert_int_equal(paced_with_loss(*state, 5000), 10);
}

static void
test_interval_not_stretched(void **state)
{
	assert_int_equal(paced_with_loss(*state, 50000), 0);
}

/* The prober answers ARP for its own address while it probes. */
static void
test_prober_answers_arp(void **state)
{
	struct wire *w = *state;
	uint8_t frame[64];
	int len;

	len = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			      &tw_refl_mac, TW_REFL_IP, NULL, TW_PROBER_IP);
	assert_true(len > 0);
	tw_inject(w->f, 0, frame, (size_t)len);
	w->pc.count = 3;
	w->pc.warmup = 0;
	/* The reflector (peer of side 0) takes the ARP answer as well. */
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.received, 3);
	assert_int_equal(w->pw.st.rx_ignored, 0);
	assert_int_equal(io_fake_tx_count(w->f, 0), 4);
	assert_int_equal(rc(w, RC_DROP_ARP_OTHER), 1); /* our reply, to it */
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* ARP ------------------------------------------------------------------------
 */

static void
fast_clock(struct wire *w)
{
	/* 1 ms per clock read at 2 GHz: a 1 s ARP timeout in ~1000 reads. */
	io_fake_set_tick(w->f, TW_TSC_HZ / 1000);
}

/* The prober's ARP for target over queue 0, timeout in ms. */
static int
arp_resolve(struct wire *w, uint32_t target, unsigned timeout_ms,
	    struct codec_mac *out, const atomic_bool *stop)
{
	return prober_arp_resolve(io_fake_queue(w->f, 0), &tw_prober_mac,
				  TW_PROBER_IP, target, timeout_ms, &w->clock,
				  out, stop);
}

static void
test_arp_resolve(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct codec_mac out;

	fast_clock(w);
	memset(&out, 0, sizeof(out));
	assert_int_equal(arp_resolve(w, TW_REFL_IP, 1000, &out, &no_stop), 0);
	assert_memory_equal(&out, &tw_refl_mac, sizeof(out));
	assert_int_equal(rc(w, RC_ARP), 1);
	assert_int_equal(rc(w, RC_TX), 1);
	assert_int_equal(io_fake_tx_count(w->f, 0), 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_arp_unreachable(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct codec_mac out;
	uint64_t t0, sent;

	fast_clock(w);
	t0 = io_fake_now(w->f);
	/* The reflector is there but has another address. */
	assert_int_equal(arp_resolve(w, TW_OTHER_IP, 1000, &out, &no_stop),
			 -EHOSTUNREACH);
	assert_true(io_fake_now(w->f) - t0 >= TW_TSC_HZ);
	/* A request every 200 ms over 1 s. */
	sent = io_fake_tx_count(w->f, 0);
	assert_true(sent >= 5 && sent <= 6);
	assert_int_equal(rc(w, RC_DROP_ARP_OTHER), sent);
	assert_int_equal(rc(w, RC_TX), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_arp_nobody(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct codec_mac out;

	fast_clock(w);
	io_fake_set_peer(w->f, 0, NULL, NULL);
	assert_int_equal(arp_resolve(w, TW_REFL_IP, 500, &out, &no_stop),
			 -EHOSTUNREACH);
	assert_int_equal(tw_drain(w->f, 1), io_fake_tx_count(w->f, 0));
	assert_true(io_fake_tx_count(w->f, 0) >= 2);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_arp_stop(void **state)
{
	struct wire *w = *state;
	atomic_bool stop = true;
	struct codec_mac out;

	fast_clock(w);
	io_fake_set_peer(w->f, 0, NULL, NULL);
	assert_int_equal(arp_resolve(w, TW_REFL_IP, 1000, &out, &stop), -EINTR);
	assert_int_equal(io_fake_tx_count(w->f, 0), 0);

	/* Set while waiting: after the first request. */
	atomic_store_explicit(&stop, false, memory_order_relaxed);
	io_fake_set_peer(w->f, 0, stop_hook, (void *)&stop);
	assert_int_equal(arp_resolve(w, TW_REFL_IP, 1000, &out, &stop), -EINTR);
	assert_int_equal(io_fake_tx_count(w->f, 0), 1);
	assert_int_equal(tw_drain(w->f, 1), 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* While resolving, the prober answers an ARP request for its own address. */
static void
test_arp_resolve_answers_requests(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	uint8_t frame[64];
	struct codec_frame f;
	struct codec_mac out;
	int len;

	fast_clock(w);
	io_fake_set_peer(w->f, 0, NULL, NULL);
	len = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			      &tw_other_mac, TW_OTHER_IP, NULL, TW_PROBER_IP);
	assert_true(len > 0);
	tw_inject(w->f, 0, frame, (size_t)len);
	assert_int_equal(arp_resolve(w, TW_REFL_IP, 300, &out, &no_stop),
			 -EHOSTUNREACH);
	/* Our request(s), and one reply to tw_other_mac. */
	{
		struct io_queue *q = io_fake_queue(w->f, 1);
		struct rte_mbuf *pkts[32];
		uint16_t n = io_rx(q, pkts, 32);
		unsigned replies = 0, requests = 0;

		assert_int_equal(n, io_fake_tx_count(w->f, 0));
		for (uint16_t i = 0; i < n; i++) {
			assert_int_equal(
				codec_parse_frame(
					rte_pktmbuf_mtod(pkts[i], uint8_t *),
					pkts[i]->data_len, &f),
				0);
			assert_int_equal(f.ethertype, CODEC_ETHERTYPE_ARP);
			if (f.arp_op == CODEC_ARP_REPLY) {
				replies++;
				assert_memory_equal(&f.dst, &tw_other_mac, 6);
				assert_memory_equal(&f.arp_sha, &tw_prober_mac,
						    6);
				assert_int_equal(f.arp_spa, TW_PROBER_IP);
				assert_int_equal(f.arp_tpa, TW_OTHER_IP);
			} else {
				requests++;
				assert_int_equal(f.arp_tpa, TW_REFL_IP);
			}
			io_free(q, pkts[i]);
		}
		assert_int_equal(replies, 1);
		assert_true(requests >= 1);
	}
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Reflector: what it drops, and why --------------------------------------- */

struct bad_frame {
	const char *what;
	enum reflector_counter counter;
	size_t (*build)(uint8_t *buf, size_t cap);
};

static size_t
bf_short(uint8_t *buf, size_t cap)
{
	memset(buf, 0xa5, 10);
	return 10;
}

/* Pseudo-random bytes, but IPv4 with an IHL of 3 words: a bad header. */
static size_t
bf_random(uint8_t *buf, size_t cap)
{
	uint32_t x = 12345;

	for (size_t i = 0; i < 80; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	memcpy(buf, &tw_refl_mac, 6);
	buf[12] = 0x08;
	buf[13] = 0x00;
	buf[14] = 0x43;
	return 80;
}

static size_t
bf_truncated_ipv4(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
	return CODEC_ETH_HLEN + 16;
}

/* IP total length says more than the frame holds. */
static size_t
bf_ipv4_cut_payload(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl)) - 10;
}

static size_t
bf_bad_ip_csum(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};
	size_t len = tw_build_udp(buf, cap, &fl, pl, sizeof(pl));

	buf[CODEC_ETH_HLEN + 10] ^= 0x5a;
	return len;
}

static size_t
bf_closed_port(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 9999);
	uint8_t pl[32] = {0};

	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
bf_wrong_ip(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	fl.dst4 = TW_OTHER_IP;
	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
bf_wrong_mac(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	fl.dst_mac = tw_other_mac;
	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
bf_ipv6(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	fl.ip_version = 6;
	fl.src6[0] = 0xfd;
	fl.src6[15] = 1;
	fl.dst6[0] = 0xfd;
	fl.dst6[15] = 2;
	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
bf_tcp(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	int len = codec_build_tcp(buf, cap, &fl, 1, 0, CODEC_TCP_SYN, 65535,
				  1460);

	assert_true(len > 0);
	return (size_t)len;
}

static size_t
bf_icmp_reply(uint8_t *buf, size_t cap)
{
	return build_icmp(buf, cap, CODEC_ICMP_ECHO_REPLY);
}

static size_t
bf_icmp_bad_csum(uint8_t *buf, size_t cap)
{
	size_t len = build_icmp(buf, cap, CODEC_ICMP_ECHO_REQUEST);

	buf[len - 1] ^= 0xff;
	return len;
}

static size_t
bf_fragment(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};
	size_t len = tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
	struct codec_frame f;

	/* MF set, DF cleared; header checksum fixed up. */
	buf[CODEC_ETH_HLEN + 6] = 0x20;
	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_true(f.is_fragment);
	codec_ipv4_csum_set(buf, &f);
	return len;
}

static size_t
bf_arp_reply(uint8_t *buf, size_t cap)
{
	return build_arp(buf, cap, CODEC_ARP_REPLY, &tw_refl_mac, TW_REFL_IP);
}

static size_t
bf_arp_other_ip(uint8_t *buf, size_t cap)
{
	return build_arp(buf, cap, CODEC_ARP_REQUEST, NULL, TW_OTHER_IP);
}

static size_t
bf_arp_other_mac(uint8_t *buf, size_t cap)
{
	size_t len = build_arp(buf, cap, CODEC_ARP_REQUEST, NULL, TW_REFL_IP);

	memcpy(buf, &tw_other_mac, 6); /* unicast to someone else */
	return len;
}

static size_t
bf_stamp_short(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, STAMP_PORT);
	static const uint8_t pl[3] = {0, 0, 1};

	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
bf_sockperf_no_pong(uint8_t *buf, size_t cap)
{
	return build_sockperf(buf, cap, SOCKPERF_F_CLIENT);
}

static size_t
bf_sockperf_short(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, SOCKPERF_PORT);
	static const uint8_t pl[10] = {0};

	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static size_t
bf_lldp(uint8_t *buf, size_t cap)
{
	size_t len = bf_closed_port(buf, cap);

	buf[12] = 0x88; /* LLDP */
	buf[13] = 0xcc;
	return len;
}

/* Echo from another echo server's port 7: answering would loop forever. */
static size_t
bf_from_echo_port(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(7, 7);
	uint8_t pl[32] = {0};

	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

/* STAMP from another reflector's port 862. */
static size_t
bf_stamp_from_stamp_port(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(STAMP_PORT, STAMP_PORT);
	uint8_t pl[STAMP_BASE_LEN] = {0};

	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

/* A broadcast source MAC: an answer would go to everyone. */
static size_t
bf_broadcast_source(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	memset(fl.src_mac.b, 0xff, sizeof(fl.src_mac.b));
	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

/* A multicast source IP (224.0.0.1). */
static size_t
bf_multicast_source_ip(uint8_t *buf, size_t cap)
{
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t pl[32] = {0};

	fl.src4 = 0xe0000001u;
	return tw_build_udp(buf, cap, &fl, pl, sizeof(pl));
}

static const struct bad_frame bad_frames[] = {
	{"UDP echo from port 7 (echo loop)", RC_DROP_LOOP_PORT,
	 bf_from_echo_port},
	{"STAMP from port 862 (reflector loop)", RC_DROP_LOOP_PORT,
	 bf_stamp_from_stamp_port},
	{"broadcast source MAC", RC_DROP_SOURCE, bf_broadcast_source},
	{"multicast source IP", RC_DROP_SOURCE, bf_multicast_source_ip},
	{"random bytes, short", RC_DROP_MALFORMED, bf_short},
	{"random bytes, bad IHL", RC_DROP_MALFORMED, bf_random},
	{"truncated IPv4 header", RC_DROP_MALFORMED, bf_truncated_ipv4},
	{"IPv4 length past the frame", RC_DROP_MALFORMED, bf_ipv4_cut_payload},
	{"bad IPv4 checksum", RC_DROP_IP_CSUM, bf_bad_ip_csum},
	{"UDP to a closed port", RC_DROP_PORT, bf_closed_port},
	{"wrong destination IP", RC_DROP_NOT_FOR_US, bf_wrong_ip},
	{"wrong destination MAC", RC_DROP_NOT_FOR_US, bf_wrong_mac},
	{"IPv6 without --addr for it", RC_DROP_NOT_FOR_US, bf_ipv6},
	{"LLDP ethertype", RC_DROP_ETHERTYPE, bf_lldp},
	{"TCP SYN", RC_DROP_PROTO, bf_tcp},
	{"ICMP echo reply", RC_DROP_ICMP_OTHER, bf_icmp_reply},
	{"ICMP echo request, bad checksum", RC_DROP_L4_CSUM, bf_icmp_bad_csum},
	{"IPv4 fragment", RC_DROP_FRAGMENT, bf_fragment},
	{"ARP reply", RC_DROP_ARP_OTHER, bf_arp_reply},
	{"ARP request for another IP", RC_DROP_ARP_OTHER, bf_arp_other_ip},
	{"ARP request to another MAC", RC_DROP_NOT_FOR_US, bf_arp_other_mac},
	{"STAMP payload of 3 bytes", RC_DROP_PROBE, bf_stamp_short},
	{"sockperf without pong request", RC_SOCKPERF_NOREPLY,
	 bf_sockperf_no_pong},
	{"sockperf payload of 10 bytes", RC_DROP_PROBE, bf_sockperf_short},
};

static void
test_reflector_drops(void **state)
{
	struct wire *w = *state;
	const size_t n = sizeof(bad_frames) / sizeof(bad_frames[0]);
	uint64_t before[RC__COUNT];
	uint8_t frame[256];

	for (size_t i = 0; i < n; i++) {
		size_t len = bad_frames[i].build(frame, sizeof(frame));

		for (unsigned c = 0; c < RC__COUNT; c++)
			before[c] = rc(w, c);
		tw_inject(w->f, 1, frame, len);
		assert_int_equal(reflector_poll(&w->rw), 1);
		for (unsigned c = 0; c < RC__COUNT; c++) {
			uint64_t want = before[c];

			/* How the L4 sum was verified, not why it was
			 * dropped. */
			if (c == RC_RX_L4_CSUM_NIC || c == RC_RX_L4_CSUM_SW)
				continue;
			if (c == RC_RX || c == bad_frames[i].counter)
				want++;
			if (rc(w, c) != want)
				fail_msg("%s: counter %s is %llu, want %llu",
					 bad_frames[i].what,
					 reflector_counter_name(c),
					 (unsigned long long)rc(w, c),
					 (unsigned long long)want);
		}
		assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
	}
	/* All at once, in one burst: the same totals, still nothing sent. */
	for (size_t i = 0; i < n; i++)
		tw_inject(w->f, 1, frame,
			  bad_frames[i].build(frame, sizeof(frame)));
	assert_int_equal(reflector_poll(&w->rw), n);
	assert_int_equal(rc(w, RC_RX), 2 * n);
	assert_int_equal(reflector_drops(w), 2 * n);
	assert_int_equal(rc(w, RC_TX), 0);
	assert_int_equal(io_fake_tx_count(w->f, 1), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* A wrong UDP checksum is verified in software (the fake's NIC checks
 * nothing) and dropped, never answered. */
static void
test_reflector_udp_csum(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_reflector(40000, 7);
	uint8_t frame[128], pl[32] = {0};
	size_t len = tw_build_udp(frame, sizeof(frame), &fl, pl, sizeof(pl));

	tw_inject(w->f, 1, frame, len);
	reflector_poll(&w->rw);
	assert_int_equal(rc(w, RC_ECHO), 1);
	assert_int_equal(tw_drain(w->f, 0), 1);

	frame[len - 1] ^= 0xff;
	tw_inject(w->f, 1, frame, len);
	reflector_poll(&w->rw);
	assert_int_equal(rc(w, RC_DROP_L4_CSUM), 1);
	assert_int_equal(rc(w, RC_ECHO), 1);
	assert_int_equal(tw_drain(w->f, 0), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* The ARP answer is the request turned around in place: no mbuf needed. */
static void
test_reflector_arp_no_mbuf(void **state)
{
	struct wire *w = *state;
	uint8_t frame[64];
	size_t len = build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST, NULL,
			       TW_REFL_IP);
	struct io_fake *small = io_fake_create(1, 1500);
	struct reflector_worker *rw = &w->rw;

	assert_non_null(small);
	reflector_worker_fini(rw);
	assert_int_equal(
		reflector_worker_init(rw, &w->rc, io_fake_queue(small, 1)), 0);
	assert_int_equal(io_fake_inject(small, 1, frame, len), 0);
	assert_int_equal(reflector_poll(rw), 1);
	assert_int_equal(rc(w, RC_DROP_NOMBUF), 0);
	assert_int_equal(rc(w, RC_ARP), 1);
	assert_int_equal(io_fake_tx_count(small, 1), 1);
	assert_int_equal(io_fake_mbufs_in_use(small), 1);
	reflector_worker_fini(rw);
	io_fake_destroy(small);
	/* teardown's fini of the same worker is harmless */
	assert_int_equal(
		reflector_worker_init(rw, &w->rc, io_fake_queue(w->f, 1)), 0);
}

/* A tx queue that takes nothing: answers counted as tx drops and freed. */
static uint16_t
tx_none(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return 0;
}

static void
test_reflector_tx_full(void **state)
{
	struct wire *w = *state;
	struct io_queue q = *io_fake_queue(w->f, 1);
	struct io_ops ops = *q.ops;
	uint8_t frame[128];

	ops.tx_burst = tx_none;
	q.ops = &ops;
	reflector_worker_fini(&w->rw);
	assert_int_equal(reflector_worker_init(&w->rw, &w->rc, &q), 0);
	tw_inject(w->f, 1, frame,
		  build_icmp(frame, sizeof(frame), CODEC_ICMP_ECHO_REQUEST));
	tw_inject(w->f, 1, frame,
		  build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST, NULL,
			    TW_REFL_IP));
	assert_int_equal(reflector_poll(&w->rw), 2);
	assert_int_equal(rc(w, RC_ICMP), 1);
	assert_int_equal(rc(w, RC_ARP), 1);
	assert_int_equal(rc(w, RC_TX), 0);
	assert_int_equal(rc(w, RC_DROP_TX), 2);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Reflector: what it answers ---------------------------------------------- */

static void
parse_answer(const uint8_t *buf, size_t len, struct codec_frame *f)
{
	assert_int_equal(codec_parse_frame(buf, len, f), 0);
	assert_int_equal(f->ethertype, CODEC_ETHERTYPE_IPV4);
	assert_memory_equal(&f->dst, &tw_prober_mac, 6);
	assert_memory_equal(&f->src, &tw_refl_mac, 6);
	assert_int_equal(f->src4, TW_REFL_IP);
	assert_int_equal(f->dst4, TW_PROBER_IP);
	assert_true(codec_ipv4_csum_ok(buf, f));
	assert_true(codec_l4_csum_ok(buf, f));
}

static void
test_stamp_answer(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_reflector(40001, STAMP_PORT);
	struct stamp_reflector s;
	struct codec_frame f;
	uint8_t frame[256];
	size_t len, rlen;
	uint64_t t2, t3;

	io_fake_advance(w->f, 123456789);
	len = build_stamp(frame, sizeof(frame), &fl, 77, 5);
	tw_inject(w->f, 1, frame, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	rlen = tw_take_one(w->f, 0, frame, sizeof(frame));
	assert_int_equal(rlen, len); /* symmetric size, RFC 8762 §4.3 */
	parse_answer(frame, rlen, &f);
	assert_int_equal(f.sport, STAMP_PORT);
	assert_int_equal(f.dport, 40001);
	assert_int_equal(f.ttl, 255); /* RFC 8762 §4.3 */
	assert_int_equal(
		stamp_reflector_parse(frame + f.payload_off, f.payload_len, &s),
		0);
	assert_int_equal(s.seq, 77); /* stateless: the sender's */
	assert_int_equal(s.sender_seq, 77);
	assert_int_equal(s.ssid, 5);
	assert_int_equal(s.sender_ttl, 64);
	assert_int_equal(s.sender_timestamp, stamp_ntp_from_ns(TW_ANCHOR_NS));
	t2 = stamp_ts_to_ns(s.rx_timestamp, s.error_estimate);
	t3 = stamp_ts_to_ns(s.timestamp, s.error_estimate);
	/* T2 after the clock moved on; T3 not before T2. */
	assert_true(t2 > TW_ANCHOR_NS + 123456789 / 2 - 1);
	assert_true(t3 >= t2);
	assert_true(t3 - t2 <= w->rw.turnaround.max + 1);
	assert_int_equal(w->rw.turnaround.total, 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
stamp_seq_exchange(struct wire *w, const uint32_t *want_refl_seq)
{
	struct codec_flow a = flow_to_reflector(5000, STAMP_PORT);
	struct codec_flow b = flow_to_reflector(5001, STAMP_PORT);
	static const uint32_t sender_seq[5] = {100, 7, 101, 8, 102};
	struct io_queue *q = io_fake_queue(w->f, 0);
	struct rte_mbuf *pkts[8];
	uint8_t frame[256];
	uint16_t n;

	for (unsigned i = 0; i < 5; i++)
		tw_inject(w->f, 1, frame,
			  build_stamp(frame, sizeof(frame), i % 2 ? &b : &a,
				      sender_seq[i], 1));
	assert_int_equal(reflector_poll(&w->rw), 5);
	n = io_rx(q, pkts, 8);
	assert_int_equal(n, 5);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *buf = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		struct stamp_reflector s;
		struct codec_frame f;

		parse_answer(buf, pkts[i]->data_len, &f);
		assert_int_equal(f.dport, i % 2 ? 5001 : 5000);
		assert_int_equal(stamp_reflector_parse(buf + f.payload_off,
						       f.payload_len, &s),
				 0);
		assert_int_equal(s.sender_seq, sender_seq[i]);
		assert_int_equal(s.seq, want_refl_seq[i]);
		io_free(q, pkts[i]);
	}
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* RFC 8972 §4: stateful, each session counts from 0 on its own. */
static void
test_stamp_stateful(void **state)
{
	struct wire *w = *state;
	static const uint32_t want[5] = {0, 0, 1, 1, 2};

	w->rc.stateful = true;
	assert_int_equal(reflector_reinit(w), 0);
	stamp_seq_exchange(w, want);
	assert_int_equal(w->rw.n_sessions, 2);
	assert_int_equal(rc(w, RC_STATEFUL_FULL), 0);
}

static void
test_stamp_stateless(void **state)
{
	static const uint32_t want[5] = {100, 7, 101, 8, 102};

	stamp_seq_exchange(*state, want);
}

/* More sessions than the table holds: the least recently seen make room
 * (stateful_table_full counts them). */
static void
test_stamp_stateful_full(void **state)
{
	struct wire *w = *state;
	const unsigned n = REFLECTOR_SESSIONS + 200;
	uint8_t frame[256];

	w->rc.stateful = true;
	assert_int_equal(reflector_reinit(w), 0);
	for (unsigned i = 0; i < n; i++) {
		struct codec_flow fl =
			flow_to_reflector((uint16_t)(1024 + i), STAMP_PORT);

		tw_inject(w->f, 1, frame,
			  build_stamp(frame, sizeof(frame), &fl, 9, 1));
		if (i % 32 == 31 || i == n - 1) {
			reflector_poll(&w->rw);
			tw_drain(w->f, 0);
		}
	}
	assert_int_equal(rc(w, RC_STAMP), n);
	assert_true(w->rw.n_sessions <= REFLECTOR_SESSIONS);
	assert_true(rc(w, RC_STATEFUL_FULL) >= n - REFLECTOR_SESSIONS);
	assert_int_equal(w->rw.n_sessions + rc(w, RC_STATEFUL_FULL), n);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_icmp_answer(void **state)
{
	struct wire *w = *state;
	uint8_t frame[256], req[256];
	struct codec_frame f, fq;
	size_t len, rlen;

	len = build_icmp(req, sizeof(req), CODEC_ICMP_ECHO_REQUEST);
	tw_inject(w->f, 1, req, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	rlen = tw_take_one(w->f, 0, frame, sizeof(frame));
	/* A short request's answer is padded to the Ethernet minimum. */
	assert_true(len < IO_ETH_MIN_LEN);
	assert_int_equal(rlen, IO_ETH_MIN_LEN);
	for (size_t i = len; i < rlen; i++)
		assert_int_equal(frame[i], 0);
	parse_answer(frame, rlen, &f);
	assert_int_equal(codec_parse_frame(req, len, &fq), 0);
	assert_int_equal(f.icmp_type, CODEC_ICMP_ECHO_REPLY);
	assert_int_equal(f.icmp_id, 0x1234);
	assert_int_equal(f.icmp_seq, 1);
	assert_memory_equal(frame + f.payload_off, req + fq.payload_off,
			    fq.payload_len);
	assert_int_equal(rc(w, RC_ICMP), 1);
}

static void
test_sockperf_answer(void **state)
{
	struct wire *w = *state;
	uint8_t frame[256];
	struct sockperf_hdr h;
	struct codec_frame f;
	size_t len, rlen;

	len = build_sockperf(frame, sizeof(frame),
			     SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST);
	tw_inject(w->f, 1, frame, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	rlen = tw_take_one(w->f, 0, frame, sizeof(frame));
	assert_int_equal(rlen, len);
	parse_answer(frame, rlen, &f);
	assert_int_equal(f.sport, SOCKPERF_PORT);
	assert_int_equal(
		sockperf_parse(frame + f.payload_off, f.payload_len, &h), 0);
	assert_int_equal(h.flags, SOCKPERF_F_PONG_REQUEST);
	assert_int_equal(h.seq, 1);
}

/* ARP request for our address, broadcast: answered with a 42-byte ARP
 * padded with zeros to the Ethernet minimum, 60 bytes. */
static void
test_arp_answer(void **state)
{
	struct wire *w = *state;
	uint8_t frame[64];
	struct codec_frame f;
	size_t rlen;

	tw_inject(w->f, 1, frame,
		  build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST, NULL,
			    TW_REFL_IP));
	assert_int_equal(reflector_poll(&w->rw), 1);
	rlen = tw_take_one(w->f, 0, frame, sizeof(frame));
	assert_int_equal(rlen, IO_ETH_MIN_LEN);
	for (size_t i = 42; i < rlen; i++)
		assert_int_equal(frame[i], 0);
	assert_int_equal(codec_parse_frame(frame, rlen, &f), 0);
	assert_int_equal(f.arp_op, CODEC_ARP_REPLY);
	assert_memory_equal(&f.dst, &tw_prober_mac, 6);
	assert_memory_equal(&f.arp_sha, &tw_refl_mac, 6);
	assert_memory_equal(&f.arp_tha, &tw_prober_mac, 6);
	assert_int_equal(f.arp_spa, TW_REFL_IP);
	assert_int_equal(f.arp_tpa, TW_PROBER_IP);
	assert_int_equal(rc(w, RC_ARP), 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * The fuzz seeds (tests/fuzz/engine/make_corpus.py, built with scapy, not
 * with our codec): each is one valid frame the reflector answers, with an
 * answer of the same length (42 bytes for ARP) padded to 60, checksums
 * right.
 */
static const struct {
	const char *file;
	enum reflector_counter counter;
} seeds[] = {
	{"arp_request.bin", RC_ARP},   {"icmp_echo.bin", RC_ICMP},
	{"sockperf.bin", RC_SOCKPERF}, {"stamp.bin", RC_STAMP},
	{"stamp_tlvs.bin", RC_STAMP},  {"stamp_twamp_light.bin", RC_STAMP},
	{"stamp_vlan.bin", RC_STAMP},  {"udp_echo.bin", RC_ECHO},
};

static void
test_fuzz_seeds_answered(void **state)
{
	struct wire *w = *state;
	uint8_t frame[2048], answer[2048];

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[512];
		struct codec_frame f;
		uint64_t before = rc(w, seeds[i].counter);
		size_t len, rlen;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%s", ENGINE_CORPUS_DIR,
			 seeds[i].file);
		fp = fopen(path, "rb");
		if (fp == NULL)
			fail_msg("%s: cannot open", path);
		len = fread(frame, 1, sizeof(frame), fp);
		fclose(fp);
		tw_inject(w->f, 1, frame, len);
		assert_int_equal(reflector_poll(&w->rw), 1);
		if (rc(w, seeds[i].counter) != before + 1)
			fail_msg("%s: not answered as %s", seeds[i].file,
				 reflector_counter_name(seeds[i].counter));
		rlen = tw_take_one(w->f, 0, answer, sizeof(answer));
		len = seeds[i].counter == RC_ARP ? 42 : len;
		assert_int_equal(rlen,
				 len < IO_ETH_MIN_LEN ? IO_ETH_MIN_LEN : len);
		assert_int_equal(codec_parse_frame(answer, rlen, &f), 0);
		assert_memory_equal(&f.src, &tw_refl_mac, 6);
		if (f.ethertype == CODEC_ETHERTYPE_IPV4) {
			assert_int_equal(f.src4, TW_REFL_IP);
			assert_true(codec_ipv4_csum_ok(answer, &f));
			assert_true(codec_l4_csum_ok(answer, &f));
		}
	}
	assert_int_equal(reflector_drops(w), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* A port of 0 turns that protocol off. */
static void
test_ports_off(void **state)
{
	struct wire *w = *state;
	uint8_t frame[256];
	struct codec_flow fl = flow_to_reflector(40000, STAMP_PORT);

	w->rc.stamp_port = 0;
	w->rc.sockperf_port = 0;
	/* The fast path's ports come from the configuration at init. */
	assert_int_equal(reflector_reinit(w), 0);
	tw_inject(w->f, 1, frame, build_stamp(frame, sizeof(frame), &fl, 1, 1));
	tw_inject(w->f, 1, frame,
		  build_sockperf(frame, sizeof(frame),
				 SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST));
	assert_int_equal(reflector_poll(&w->rw), 2);
	assert_int_equal(rc(w, RC_DROP_PORT), 2);
	assert_int_equal(rc(w, RC_TX), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* STAMP authenticated mode (RFC 8762 §4.4) ------------------------------ */

static const uint8_t auth_key[] = "engine test key";
static const uint8_t auth_other_key[] = "not the same key";

/* The reflector again, this time with a key (NULL: none). */
static void
reflector_with_key(struct wire *w, const uint8_t *key, size_t len)
{
	w->rc.auth_key = key;
	w->rc.auth_key_len = len;
	assert_int_equal(reflector_reinit(w), 0);
	io_fake_set_peer(w->f, 0, reflector_hook, &w->rw);
}

static void
prober_with_key(struct wire *w, const uint8_t *key, size_t len)
{
	w->pc.auth_key = key;
	w->pc.auth_key_len = len;
	w->pc.size = STAMP_AUTH_BASE_LEN;
}

static void
test_stamp_auth_end_to_end(void **state)
{
	struct wire *w = *state;

	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	prober_with_key(w, auth_key, sizeof(auth_key) - 1);
	assert_int_equal(prober_run(w), 0);
	check_clean_run(w, 100, 5);
	assert_int_equal(rc(w, RC_STAMP), 105);
	assert_int_equal(rc(w, RC_DROP_AUTH), 0);
	assert_int_equal(w->pw.st.auth_failed, 0);
	/* T2/T3 read from the authenticated layout */
	assert_int_equal(w->pw.turnaround.total, 100);
	assert_int_equal(w->pw.network_rtt.sum + w->pw.turnaround.sum,
			 w->pw.rtt.sum);
}

/*
 * A burst of authenticated requests: each answer's T3 is read right before
 * its own HMAC, not once for the burst before all of them. The fake clock
 * moves on at every read, so each T3 is later than the one before.
 */
static void
test_stamp_auth_t3_per_answer(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_reflector(40000, STAMP_PORT);
	struct stamp_auth *a =
		stamp_auth_create(auth_key, sizeof(auth_key) - 1);
	const unsigned n = 4;
	uint64_t prev_t3 = 0;

	assert_non_null(a);
	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	for (unsigned i = 0; i < n; i++) {
		struct stamp_sender_opts o;
		uint8_t pl[STAMP_AUTH_BASE_LEN], frame[256];

		memset(&o, 0, sizeof(o));
		o.seq = i;
		o.len = sizeof(pl);
		assert_int_equal(stamp_auth_sender_build(a, pl, sizeof(pl), &o),
				 sizeof(pl));
		tw_inject(w->f, 1, frame,
			  tw_build_udp(frame, sizeof(frame), &fl, pl,
				       sizeof(pl)));
	}
	assert_int_equal(reflector_poll(&w->rw), n);
	assert_int_equal(rc(w, RC_STAMP), n);
	for (unsigned i = 0; i < n; i++) {
		uint8_t frame[256];
		size_t len = tw_take_one(w->f, 0, frame, sizeof(frame));
		struct codec_frame f;
		struct stamp_reflector r;
		const uint8_t *pl;

		assert_true(len > 0);
		assert_int_equal(codec_parse_frame(frame, len, &f), 0);
		pl = frame + f.payload_off;
		assert_int_equal(stamp_auth_verify(a, pl, f.payload_len), 0);
		assert_int_equal(
			stamp_auth_reflector_parse(pl, f.payload_len, &r), 0);
		assert_int_equal(r.sender_seq, i);
		assert_true(r.timestamp > r.rx_timestamp);
		assert_true(r.timestamp > prev_t3);
		prev_t3 = r.timestamp;
	}
	assert_int_equal(w->rw.turnaround.total, n);
	stamp_auth_destroy(a);
}

/* Wrong key: the reflector answers nothing; every probe is lost. */
static void
test_stamp_auth_wrong_key(void **state)
{
	struct wire *w = *state;

	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	prober_with_key(w, auth_other_key, sizeof(auth_other_key) - 1);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.received, 0);
	assert_int_equal(w->pw.st.lost, 100);
	assert_int_equal(rc(w, RC_DROP_AUTH), 105);
	assert_int_equal(rc(w, RC_STAMP), 0);
	assert_int_equal(rc(w, RC_TX), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* A keyed reflector drops unauthenticated (44-byte) requests too. */
static void
test_stamp_auth_reflector_drops_plain(void **state)
{
	struct wire *w = *state;

	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->pw.st.received, 0);
	assert_int_equal(rc(w, RC_DROP_AUTH), 105);
	assert_int_equal(rc(w, RC_DROP_PROBE), 0);
}

/* A reflector without the key answers in the unauthenticated layout: the
 * prober counts every answer as auth_failed and records none. */
static void
test_stamp_auth_prober_rejects_plain(void **state)
{
	struct wire *w = *state;

	prober_with_key(w, auth_key, sizeof(auth_key) - 1);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(rc(w, RC_STAMP), 105);
	assert_int_equal(w->pw.st.auth_failed, 105);
	assert_int_equal(w->pw.st.received, 0);
	assert_int_equal(w->pw.st.lost, 100);
	assert_int_equal(w->pw.rtt.total, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Stateful with a key: only verified requests make sessions. */
static void
test_stamp_auth_stateful(void **state)
{
	struct wire *w = *state;

	w->rc.stateful = true;
	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	prober_with_key(w, auth_other_key, sizeof(auth_other_key) - 1);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(w->rw.n_sessions, 0);
	assert_int_equal(rc(w, RC_DROP_AUTH), 105);
}

/* 8 KiB authenticated probes as fragments: the reassembled request is
 * verified, the answer sealed after T3 and fragmented again. Against a
 * reflector without the key every reassembled answer fails verification. */
static void
test_stamp_auth_fragmented(void **state)
{
	struct wire *w = *state;
	const uint64_t n = 10, warm = 2;

	w->rc.n_reasm = 4;
	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	prober_with_key(w, auth_key, sizeof(auth_key) - 1);
	w->pc.size = 8192;
	w->pc.count = n;
	w->pc.warmup = warm;
	assert_int_equal(prober_run(w), 0);
	assert_true(w->pw.fragmented);
	assert_int_equal(w->pw.st.received, n);
	assert_int_equal(w->pw.st.auth_failed, 0);
	assert_int_equal(w->pw.turnaround.total, n);
	assert_int_equal(rc(w, RC_REASSEMBLED), n + warm);
	assert_int_equal(rc(w, RC_STAMP), n + warm);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);

	/* A reflector without the key answers unauthenticated. */
	prober_worker_fini(&w->pw);
	w->prober_ready = false;
	reflector_with_key(w, NULL, 0);
	assert_int_equal(prober_run(w), 0);
	assert_int_equal(rc(w, RC_STAMP), n + warm);
	assert_int_equal(w->pw.st.auth_failed, n + warm);
	assert_int_equal(w->pw.st.received, 0);
	assert_int_equal(w->pw.st.reasm_failed, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* The fuzz seed stamp_auth.bin (built by Python: hmac over the RFC 8762
 * layout, key "fuzz") is answered by a reflector with that key, and the
 * answer verifies; with another key it is dropped. */
static void
test_stamp_auth_seed(void **state)
{
	struct wire *w = *state;
	uint8_t frame[2048], answer[2048];
	struct stamp_auth *a = stamp_auth_create((const uint8_t *)"fuzz", 4);
	struct stamp_reflector r;
	struct codec_frame f;
	size_t len, rlen;
	FILE *fp;

	assert_non_null(a);
	fp = fopen(ENGINE_CORPUS_DIR "/stamp_auth.bin", "rb");
	assert_non_null(fp);
	len = fread(frame, 1, sizeof(frame), fp);
	fclose(fp);
	reflector_with_key(w, (const uint8_t *)"fuzz", 4);
	tw_inject(w->f, 1, frame, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	assert_int_equal(rc(w, RC_STAMP), 1);
	rlen = tw_take_one(w->f, 0, answer, sizeof(answer));
	assert_int_equal(rlen, len);
	assert_int_equal(codec_parse_frame(answer, rlen, &f), 0);
	assert_true(codec_l4_csum_ok(answer, &f));
	assert_int_equal(f.payload_len, STAMP_AUTH_BASE_LEN);
	assert_int_equal(
		stamp_auth_verify(a, answer + f.payload_off, f.payload_len), 0);
	assert_int_equal(stamp_auth_reflector_parse(answer + f.payload_off,
						    f.payload_len, &r),
			 0);
	assert_int_equal(r.sender_seq, 1);
	assert_int_equal(r.ssid, 1);

	reflector_with_key(w, auth_key, sizeof(auth_key) - 1);
	tw_inject(w->f, 1, frame, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	assert_int_equal(rc(w, RC_DROP_AUTH), 1);
	assert_int_equal(tw_drain(w->f, 0), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
	stamp_auth_destroy(a);
}

static void
test_stamp_auth_bad_key_len(void **state)
{
	struct wire *w = *state;
	uint8_t big[STAMP_AUTH_KEY_MAX + 1] = {0};

	w->rc.auth_key = big;
	w->rc.auth_key_len = sizeof(big);
	assert_int_equal(reflector_reinit(w), -EINVAL);
	w->pc.auth_key = big;
	w->pc.auth_key_len = sizeof(big);
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		-EINVAL);
}

int
main(void)
{
	static const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_stamp_end_to_end),
		T(test_stamp_one_way),
		T(test_stamp_one_way_unknown_ee),
		T(test_sockperf_end_to_end),
		T(test_udp_echo_end_to_end),
		T(test_icmp_end_to_end),
		T(test_large_probe),
		T(test_fragmented_probes),
		T(test_lean_recycles_answer_mbuf),
		T(test_wait_loop_polls_only),
		cmocka_unit_test(test_lean_same_as_generic),
		T(test_loss),
		T(test_loss_of_probes),
		T(test_duplicates),
		T(test_duplicated_probes),
		T(test_late_in_order),
		T(test_late_overtaken),
		T(test_unsent_seq_ignored),
		T(test_paced_stale_answer_ignored),
		T(test_stamp_seq_widen_across_wrap),
		T(test_samples_capped),
		T(test_samples_kept),
		T(test_stop_in_flight),
		T(test_duration_includes_warmup),
		T(test_duration_cuts_timeout),
		T(test_interval_stretched),
		T(test_interval_not_stretched),
		T(test_prober_answers_arp),
		T(test_arp_resolve),
		T(test_arp_unreachable),
		T(test_arp_nobody),
		T(test_arp_stop),
		T(test_arp_resolve_answers_requests),
		T(test_reflector_drops),
		T(test_reflector_udp_csum),
		T(test_reflector_arp_no_mbuf),
		T(test_reflector_tx_full),
		T(test_stamp_answer),
		T(test_stamp_stateful),
		T(test_stamp_stateless),
		T(test_stamp_stateful_full),
		T(test_icmp_answer),
		T(test_sockperf_answer),
		T(test_arp_answer),
		T(test_ports_off),
		T(test_fuzz_seeds_answered),
		T(test_stamp_auth_end_to_end),
		T(test_stamp_auth_t3_per_answer),
		T(test_stamp_auth_wrong_key),
		T(test_stamp_auth_reflector_drops_plain),
		T(test_stamp_auth_prober_rejects_plain),
		T(test_stamp_auth_stateful),
		T(test_stamp_auth_bad_key_len),
		T(test_stamp_auth_fragmented),
		T(test_stamp_auth_seed),
#undef T
	};

	return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
