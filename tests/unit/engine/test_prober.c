/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prober against hostile peers and failures, on the in-memory fake wire
 * (tests/support/io_fake.c): side 0 is the prober, side 1 the reflector or a
 * hand-written peer. Frames that answer nothing are classified
 * (probes.ignored.*), ICMP destination unreachable quoting a probe ends it,
 * IPv4 IDs differ per worker, answers older than the duplicate window are
 * late, the MTU is capped at what an mbuf holds, VLAN tags go out and are
 * checked, and prober_worker_init frees what it took when an allocation
 * fails (malloc/calloc are wrapped in this binary: see meson.build).
 */
#include <errno.h>
#include <limits.h>
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
#include "latprobe/stamp.h"
#include "test_wire.h"

#define N_MBUFS 256
#define SPORT	40000

/* malloc/calloc wrappers: fail the n-th call once armed, and keep the
 * pointers they handed out so a test can see what was not freed. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void __wrap_free(void *p);

#define MAX_LIVE 256
static void *live[MAX_LIVE];
static unsigned fail_in; /* 0: never; n: the n-th call from now fails */

static void *
track(void *p)
{
	if (p == NULL)
		return NULL;
	for (unsigned i = 0; i < MAX_LIVE; i++) {
		if (live[i] == NULL) {
			live[i] = p;
			break;
		}
	}
	return p;
}

static bool
should_fail(void)
{
	if (fail_in == 0)
		return false;
	return --fail_in == 0;
}

void *
__wrap_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return track(__real_malloc(size));
}

void *
__wrap_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return track(__real_calloc(n, size));
}

void
__wrap_free(void *p)
{
	for (unsigned i = 0; p != NULL && i < MAX_LIVE; i++) {
		if (live[i] == p) {
			live[i] = NULL;
			break;
		}
	}
	__real_free(p);
}

static unsigned
n_live(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < MAX_LIVE; i++)
		n += live[i] != NULL;
	return n;
}

/* The wire ---------------------------------------------------------------- */

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	bool refl_ready;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	/* what the prober sent, for the tests that look at it */
	uint16_t ip_ids[64];
	unsigned n_ids;
	unsigned n_tagged, n_untagged;
	size_t max_frame;
	/* peer hooks' state */
	uint64_t inject_at; /* tx count at which old_answer goes in */
	uint8_t old_answer[128];
	size_t old_answer_len;
};

static void
reflector_hook(void *arg)
{
	struct wire *w = arg;

	reflector_poll(&w->rw);
	if (w->inject_at != 0 && io_fake_tx_count(w->f, 0) == w->inject_at)
		assert_int_equal(io_fake_inject(w->f, 0, w->old_answer,
						w->old_answer_len),
				 0);
}

/* capture.fn: record the IP ID, VLAN tag and size of every probe frame. */
static void
record_tx(void *arg, unsigned worker, const struct rte_mbuf *m, uint64_t tsc,
	  bool tx)
{
	struct wire *w = arg;
	struct codec_frame f;

	(void)worker;
	(void)tsc;
	if (!tx)
		return;
	assert_int_equal(codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					   m->data_len, &f),
			 0);
	if (w->n_ids < 64)
		w->ip_ids[w->n_ids++] = f.ip_id;
	if (f.has_vlan)
		w->n_tagged++;
	else
		w->n_untagged++;
	if (m->data_len > w->max_frame)
		w->max_frame = m->data_len;
}

static int
setup_mtu(void **state, uint16_t mtu)
{
	struct wire *w = aligned_alloc(64, sizeof(*w));

	if (w == NULL)
		return -1;
	memset(w, 0, sizeof(*w));
	w->f = io_fake_create(N_MBUFS, mtu);
	if (w->f == NULL || tsc_clock_init(&w->clock, TW_TSC_HZ) != 0) {
		io_fake_destroy(w->f);
		free(w);
		return -1;
	}
	w->rc.addr = TW_REFL_IP;
	w->rc.mac = tw_refl_mac;
	w->rc.stamp_port = STAMP_PORT;
	w->rc.clock = w->clock;
	w->rc.anchor.realtime_ns = TW_ANCHOR_NS;
	w->rc.n_reasm = 4;
	if (reflector_worker_init(&w->rw, &w->rc, io_fake_queue(w->f, 1)) !=
	    0) {
		io_fake_destroy(w->f);
		free(w);
		return -1;
	}
	w->refl_ready = true;
	io_fake_set_peer(w->f, 0, reflector_hook, w);

	w->pc.proto = &probe_proto_stamp;
	w->pc.flow.src_mac = tw_prober_mac;
	w->pc.flow.dst_mac = tw_refl_mac;
	w->pc.flow.ip_version = 4;
	w->pc.flow.src4 = TW_PROBER_IP;
	w->pc.flow.dst4 = TW_REFL_IP;
	w->pc.flow.sport = SPORT;
	w->pc.flow.dport = STAMP_PORT;
	w->pc.size = STAMP_BASE_LEN;
	w->pc.count = 10;
	w->pc.timeout_cycles = 10000; /* 100 fake clock reads */
	w->pc.clock = w->clock;
	w->pc.anchor = w->rc.anchor;
	w->pc.icmp_id = 0x4200;
	w->pc.capture.fn = record_tx;
	w->pc.capture.arg = w;
	*state = w;
	return 0;
}

static int
setup(void **state)
{
	return setup_mtu(state, 1500);
}

/* A port whose MTU (9000) is more than its 2 KiB mbufs hold. */
static int
setup_jumbo(void **state)
{
	return setup_mtu(state, 9000);
}

static int
teardown(void **state)
{
	struct wire *w = *state;

	if (w->prober_ready)
		prober_worker_fini(&w->pw);
	if (w->refl_ready)
		reflector_worker_fini(&w->rw);
	io_fake_destroy(w->f);
	free(w);
	return 0;
}

static void
prober_start(struct wire *w, unsigned index)
{
	if (w->prober_ready)
		prober_worker_fini(&w->pw);
	assert_int_equal(prober_worker_init(&w->pw, &w->pc,
					    io_fake_queue(w->f, 0), index),
			 0);
	w->prober_ready = true;
}

static int
prober_go(struct wire *w)
{
	static const atomic_bool no_stop;

	return prober_worker_run(&w->pw, &no_stop);
}

static int
prober_run(struct wire *w, unsigned index)
{
	prober_start(w, index);
	return prober_go(w);
}

static uint64_t
sum_ignored(const struct prober_stats *st)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < PROBER_IGN__COUNT; i++)
		s += st->ignored[i];
	return s;
}

/* The reflector's addressing back to the prober's flow. */
static struct codec_flow
flow_to_prober(void)
{
	return tw_flow4(&tw_refl_mac, &tw_prober_mac, TW_REFL_IP, TW_PROBER_IP,
			STAMP_PORT, SPORT);
}

/* A STAMP answer for wire seq with plen payload bytes (>= 44: reflected;
 * less: cut short). */
static size_t
build_answer(uint8_t *buf, size_t cap, const struct codec_flow *fl,
	     uint32_t seq, size_t plen)
{
	uint8_t pl[STAMP_BASE_LEN];
	struct stamp_sender_opts so;
	struct stamp_reflect_opts ro;
	int len;

	memset(&so, 0, sizeof(so));
	so.seq = seq;
	so.len = sizeof(pl);
	assert_int_equal(stamp_sender_build(pl, sizeof(pl), &so), sizeof(pl));
	memset(&ro, 0, sizeof(ro));
	assert_int_equal(stamp_reflect(pl, sizeof(pl), &ro), sizeof(pl));
	len = codec_build_udp(buf, cap, fl, 1, pl,
			      plen < sizeof(pl) ? plen : sizeof(pl));
	assert_true(len > 0);
	return (size_t)len;
}

/* 1. Ignored frames, by reason ------------------------------------------- */

static void
test_ignored_reasons(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	const struct prober_stats *st = &w->pw.st;
	uint8_t frame[256];
	size_t len;
	int l;

	prober_start(w, 0);
	/* An answer to probe 0 with a broken UDP checksum: not the answer. */
	len = build_answer(frame, sizeof(frame), &fl, 0, STAMP_BASE_LEN);
	frame[len - 1] ^= 0x5a;
	tw_inject(w->f, 0, frame, len);
	/* Our flow, 20 bytes of STAMP: too short to carry T2/T3. */
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 0, 20));
	/* From another host; to another port; with a VLAN tag. */
	fl.src4 = TW_OTHER_IP;
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 0, 44));
	fl = flow_to_prober();
	fl.dport = SPORT + 1;
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 0, 44));
	fl = flow_to_prober();
	fl.vlan = true;
	fl.vlan_tci = 7;
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 0, 44));
	/* An answer to a probe never sent. */
	fl = flow_to_prober();
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 1000, 44));
	/* LLDP: not IP. */
	memset(frame, 0, 60);
	frame[12] = 0x88;
	frame[13] = 0xcc;
	tw_inject(w->f, 0, frame, 60);
	/* ARP asking for someone else. */
	l = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			    &tw_refl_mac, TW_REFL_IP, NULL, TW_OTHER_IP);
	assert_true(l > 0);
	tw_inject(w->f, 0, frame, (size_t)l);
	/* A frame cut inside its IPv4 header. */
	len = build_answer(frame, sizeof(frame), &fl, 0, 44);
	tw_inject(w->f, 0, frame, 20);

	w->pc.count = 3;
	assert_int_equal(prober_go(w), 0);
	assert_int_equal(st->sent, 3);
	assert_int_equal(st->received, 3);
	assert_int_equal(st->duplicated, 0);
	assert_int_equal(st->ignored[PROBER_IGN_CHECKSUM], 1);
	assert_int_equal(st->ignored[PROBER_IGN_TOO_SHORT], 2);
	assert_int_equal(st->ignored[PROBER_IGN_OTHER_FLOW], 3);
	assert_int_equal(st->ignored[PROBER_IGN_NEVER_SENT], 1);
	assert_int_equal(st->ignored[PROBER_IGN_NOT_IP], 1);
	assert_int_equal(st->ignored[PROBER_IGN_ARP], 1);
	assert_int_equal(st->ignored[PROBER_IGN_LATE], 0);
	assert_int_equal(st->rx_ignored, 9);
	assert_int_equal(sum_ignored(st), st->rx_ignored);
	assert_int_equal(st->answered, 3);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * A NIC that checked the checksums is taken at its word (no sum computed
 * again): an answer whose UDP sum is wrong but that the NIC flagged good
 * counts, and good answers the NIC flagged bad do not.
 */
static void
test_nic_checksum_verdict(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	const struct prober_stats *st = &w->pw.st;
	uint8_t frame[256];
	size_t len;

	io_fake_set_rx_ol_flags(w->f, 0,
				RTE_MBUF_F_RX_IP_CKSUM_GOOD |
					RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	prober_start(w, 0);
	len = build_answer(frame, sizeof(frame), &fl, 0, STAMP_BASE_LEN);
	frame[len - 1] ^= 0x5a; /* the UDP sum no longer matches */
	tw_inject(w->f, 0, frame, len);
	w->pc.count = 1;
	assert_int_equal(prober_go(w), 0);
	assert_int_equal(st->received, 1);
	assert_int_equal(st->ignored[PROBER_IGN_CHECKSUM], 0);
	/* The reflector's own answer to probe 0 came second. */
	assert_int_equal(st->duplicated, 1);

	io_fake_set_rx_ol_flags(w->f, 0, RTE_MBUF_F_RX_L4_CKSUM_BAD);
	prober_start(w, 0);
	w->pc.count = 2;
	assert_int_equal(prober_go(w), 0);
	assert_int_equal(st->received, 0);
	assert_int_equal(st->lost, 2);
	assert_true(st->ignored[PROBER_IGN_CHECKSUM] >= 2);
	assert_int_equal(sum_ignored(st), st->rx_ignored);
	io_fake_set_rx_ol_flags(w->f, 0, 0);
}

/*
 * An answer to probe 0 whose UDP sum is right, wrong or partial (the folded
 * pseudo-header sum alone: a kernel peer with tx offload on a veth), under
 * each rx verdict (none, GOOD, BAD, NONE): BAD is never an answer; without
 * a verdict a wrong sum is ignored as checksum (the reflector's own answer
 * then ends the probe) and a partial one is used and counted
 * (l4_partial); GOOD is taken at its word; NONE is used and counted.
 */
static void
test_answer_sums(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	const struct prober_stats *st = &w->pw.st;
	static const uint64_t verdicts[] = {0, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
					    RTE_MBUF_F_RX_L4_CKSUM_BAD,
					    RTE_MBUF_F_RX_L4_CKSUM_NONE};

	for (unsigned k = 0; k < 3; k++) {
		for (unsigned v = 0; v < 4; v++) {
			uint8_t frame[256], t[4] = {0, CODEC_IPPROTO_UDP};
			size_t len = build_answer(frame, sizeof(frame), &fl, 0,
						  STAMP_BASE_LEN);
			uint16_t l4len = (uint16_t)(len - 34);
			uint32_t sum;

			if (k == 1)
				frame[len - 1] ^= 0x5a;
			if (k == 2) {
				t[2] = (uint8_t)(l4len >> 8);
				t[3] = (uint8_t)l4len;
				sum = codec_csum_partial(
					t, 4,
					codec_csum_partial(frame + 26, 8, 0));
				while (sum >> 16)
					sum = (sum & 0xffff) + (sum >> 16);
				memcpy(frame + 40, &(uint16_t){(uint16_t)sum},
				       2);
			}
			io_fake_set_rx_ol_flags(w->f, 0, verdicts[v]);
			prober_start(w, 0);
			tw_inject(w->f, 0, frame, len);
			w->pc.count = 1;
			assert_int_equal(prober_go(w), 0);
			if (st->received != (v == 2 ? 0u : 1u) ||
			    st->ignored[PROBER_IGN_CHECKSUM] !=
				    (v == 2 ? st->rx_ignored
					    : (v == 0 && k == 1 ? 1u : 0u)) ||
			    (v == 0 && st->l4_partial != (k == 2)) ||
			    (v == 3 && st->l4_partial == 0) ||
			    ((v == 1 || v == 2) && st->l4_partial != 0))
				fail_msg("sum %u, verdict %#llx: received %llu "
					 "checksum %llu partial %llu",
					 k, (unsigned long long)verdicts[v],
					 (unsigned long long)st->received,
					 (unsigned long long)st
						 ->ignored[PROBER_IGN_CHECKSUM],
					 (unsigned long long)st->l4_partial);
			assert_int_equal(sum_ignored(st), st->rx_ignored);
		}
	}
	/* The IPv4 header: a wrong sum is ignored unless the NIC said NONE
	 * (verified, the sum left wrong) or GOOD. */
	for (unsigned v = 0; v < 3; v++) {
		static const uint64_t ipv[] = {0, RTE_MBUF_F_RX_IP_CKSUM_NONE,
					       RTE_MBUF_F_RX_IP_CKSUM_GOOD};
		uint8_t frame[256];
		size_t len = build_answer(frame, sizeof(frame), &fl, 0,
					  STAMP_BASE_LEN);

		frame[14 + 10] ^= 0x21;
		io_fake_set_rx_ol_flags(w->f, 0, ipv[v]);
		prober_start(w, 0);
		tw_inject(w->f, 0, frame, len);
		w->pc.count = 1;
		assert_int_equal(prober_go(w), 0);
		assert_int_equal(st->received, 1);
		/* Without a verdict the reflector's own answer ended it. */
		assert_int_equal(st->ignored[PROBER_IGN_CHECKSUM], v == 0);
		assert_int_equal(st->duplicated, v != 0);
	}
	io_fake_set_rx_ol_flags(w->f, 0, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* 2. ICMP destination unreachable ---------------------------------------- */

/* Peer hook: no reflector, every probe answered by ICMP `code` quoting it
 * (the IP header and the first 8 bytes of UDP), as a kernel would. */
static uint8_t unreach_code = 3;

static void
unreachable_hook(void *arg)
{
	struct wire *w = arg;
	struct io_queue *q = io_fake_queue(w->f, 1);
	struct codec_flow fl = flow_to_prober();
	struct rte_mbuf *m;
	uint8_t frame[256];

	while (io_rx(q, &m, 1) == 1) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		int len = codec_build_icmp_error(
			frame, sizeof(frame), &fl, CODEC_ICMP_DEST_UNREACH,
			unreach_code, p + CODEC_ETH_HLEN, 28);

		assert_true(len > 0);
		assert_int_equal(io_fake_inject(w->f, 0, frame, (size_t)len),
				 0);
		io_free(q, m);
	}
}

static void
test_icmp_port_unreachable(void **state)
{
	struct wire *w = *state;
	const struct prober_stats *st = &w->pw.st;
	uint64_t t0;

	io_fake_set_peer(w->f, 0, unreachable_hook, w);
	unreach_code = 3;
	w->pc.count = 10;
	w->pc.warmup = 2;
	/* A long timeout: the ICMP error must end each probe, not it. */
	w->pc.timeout_cycles = 1000000000ull;
	t0 = io_fake_now(w->f);
	assert_int_equal(prober_run(w, 0), 0);
	assert_true(io_fake_now(w->f) - t0 < w->pc.timeout_cycles);
	assert_int_equal(st->sent, 10);
	assert_int_equal(st->received, 0);
	assert_int_equal(st->lost, 10);
	assert_int_equal(st->lost_unreachable, 10);
	assert_int_equal(st->unreachable[PROBER_UNREACH_PORT], 12);
	assert_int_equal(st->unreachable[PROBER_UNREACH_HOST], 0);
	assert_int_equal(st->ignored[PROBER_IGN_UNREACHABLE], 12);
	assert_int_equal(sum_ignored(st), st->rx_ignored);
	assert_int_equal(st->answered, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* Host unreachable (code 1) for tcp-syn probes: the quote names TCP. */
static void
test_icmp_host_unreachable_tcp(void **state)
{
	struct wire *w = *state;
	const struct prober_stats *st = &w->pw.st;

	io_fake_set_peer(w->f, 0, unreachable_hook, w);
	unreach_code = 1;
	w->pc.proto = &probe_proto_tcp_syn;
	w->pc.flow.dport = 80;
	w->pc.size = 0;
	w->pc.count = 4;
	w->pc.timeout_cycles = 1000000000ull;
	assert_int_equal(prober_run(w, 0), 0);
	assert_int_equal(st->lost, 4);
	assert_int_equal(st->unreachable[PROBER_UNREACH_HOST], 4);
	assert_int_equal(st->unreachable[PROBER_UNREACH_PORT], 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* ICMP errors that are not about our probes, or are broken. */
static void
test_icmp_unreachable_not_ours(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	const struct prober_stats *st = &w->pw.st;
	struct codec_flow probe = w->pc.flow;
	uint8_t quoted[128], frame[256];
	int len, qlen;

	/* A probe of another flow (source port) quoted. */
	probe.sport = SPORT + 9;
	qlen = codec_build_udp(quoted, sizeof(quoted), &probe, 0, NULL, 0);
	assert_true(qlen > 0);
	len = codec_build_icmp_error(frame, sizeof(frame), &fl, 3, 3,
				     quoted + CODEC_ETH_HLEN, 28);
	assert_true(len > 0);
	tw_inject(w->f, 0, frame, (size_t)len);
	/* Ours, but the ICMP checksum is wrong. */
	probe.sport = SPORT;
	qlen = codec_build_udp(quoted, sizeof(quoted), &probe, 0, NULL, 0);
	len = codec_build_icmp_error(frame, sizeof(frame), &fl, 3, 3,
				     quoted + CODEC_ETH_HLEN, 28);
	frame[len - 1] ^= 1;
	tw_inject(w->f, 0, frame, (size_t)len);
	/* Ours, the quote cut to 12 bytes. */
	len = codec_build_icmp_error(frame, sizeof(frame), &fl, 3, 3,
				     quoted + CODEC_ETH_HLEN, 12);
	tw_inject(w->f, 0, frame, (size_t)len);

	w->pc.count = 2;
	assert_int_equal(prober_run(w, 0), 0);
	assert_int_equal(st->received, 2);
	assert_int_equal(st->unreachable[PROBER_UNREACH_PORT], 0);
	assert_int_equal(st->ignored[PROBER_IGN_OTHER_FLOW], 1);
	assert_int_equal(st->ignored[PROBER_IGN_CHECKSUM], 1);
	assert_int_equal(st->ignored[PROBER_IGN_TOO_SHORT], 1);
	assert_int_equal(st->rx_ignored, 3);
}

/* 3. IPv4 ID and ICMP id per worker -------------------------------------- */

static void
ids_of_worker(struct wire *w, unsigned index, uint16_t *ids, unsigned *n)
{
	w->n_ids = 0;
	assert_int_equal(prober_run(w, index), 0);
	assert_int_equal(w->pw.st.received, w->pc.count);
	memcpy(ids, w->ip_ids, w->n_ids * sizeof(ids[0]));
	*n = w->n_ids;
}

/*
 * Two workers probing at once must not share IPv4 IDs: the peer reassembles
 * fragments by (source, destination, protocol, ID), so probe k of worker 0
 * and probe k of worker 1 would mix. Fragments of one probe share one ID.
 */
static void
test_ip_id_per_worker(void **state)
{
	struct wire *w = *state;
	uint16_t a[64], b[64];
	unsigned na, nb;
	/* 3000 + 8 bytes of UDP in 1480-byte pieces. */
	const unsigned pieces = 3;

	w->pc.size = 3000;
	w->pc.count = 4;
	ids_of_worker(w, 0, a, &na);
	w->pc.flow.sport = SPORT; /* same flow: only the worker differs */
	ids_of_worker(w, 1, b, &nb);
	assert_int_equal(na, 4 * pieces);
	assert_int_equal(nb, 4 * pieces);
	for (unsigned i = 0; i < na; i++) {
		assert_int_equal(a[i], a[i - i % pieces]);
		for (unsigned j = 0; j < nb; j++)
			assert_int_not_equal(a[i], b[j]);
	}
	for (unsigned i = pieces; i < na; i += pieces)
		assert_int_not_equal(a[i], a[i - pieces]);
}

static void
test_icmp_id_per_worker(void **state)
{
	struct wire *w = *state;
	struct io_queue *q = io_fake_queue(w->f, 1);
	struct codec_frame f;
	struct rte_mbuf *m;
	uint16_t id[2];

	io_fake_set_peer(w->f, 0, NULL, NULL);
	w->pc.proto = &probe_proto_icmp;
	w->pc.size = 16;
	w->pc.count = 1;
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(prober_run(w, i), 0);
		assert_int_equal(io_rx(q, &m, 1), 1);
		assert_int_equal(
			codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					  m->data_len, &f),
			0);
		id[i] = f.icmp_id;
		io_free(q, m);
	}
	assert_int_not_equal(id[0], id[1]);
}

/* 4. 32-bit sequence numbers across the wrap, TCP ------------------------- */

static size_t
build_tcp_answer(uint8_t *buf, size_t cap, uint32_t isn_base, uint64_t seq)
{
	struct codec_flow fl = flow_to_prober();
	int len;

	fl.sport = 80;
	len = codec_build_tcp(buf, cap, &fl, 12345,
			      (isn_base ^ (uint32_t)seq) + 1,
			      CODEC_TCP_SYN | CODEC_TCP_ACK, 1000, 0);
	assert_true(len > 0);
	return (size_t)len;
}

/*
 * tcp-syn carries the probe number in the ISN and reads it back from the
 * ACK: 32 bits, widened around the newest sent, both ways across 2^32.
 */
static void
test_tcp_seq_widen_across_wrap(void **state)
{
	struct wire *w = *state;
	struct codec_frame f;
	struct probe_reply r;
	uint8_t frame[128];
	size_t len;

	w->pc.proto = &probe_proto_tcp_syn;
	w->pc.flow.dport = 80;
	w->pc.tcp_isn_base = 0x9e3779b9u;
	prober_start(w, 0);
	w->pw.any_seen = true;

	/* Newest sent 2^32 - 2: the answer for 2^32 (wire 0) widens up. */
	w->pw.step_seq = 0xfffffffeull;
	len = build_tcp_answer(frame, sizeof(frame), w->pc.tcp_isn_base,
			       0x100000000ull);
	assert_int_equal(codec_parse_frame(frame, len, &f), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(probe_proto_tcp_syn.match(&w->pw, frame, &f, &r), 1);
	assert_int_equal(r.seq, 0x100000000ull);

	/* Newest sent 2^32 + 1: a late answer for 2^32 - 1 widens down. */
	w->pw.step_seq = 0x100000001ull;
	len = build_tcp_answer(frame, sizeof(frame), w->pc.tcp_isn_base,
			       0xffffffffull);
	assert_int_equal(codec_parse_frame(frame, len, &f), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(probe_proto_tcp_syn.match(&w->pw, frame, &f, &r), 1);
	assert_int_equal(r.seq, 0xffffffffull);
}

/*
 * STAMP widens its 32-bit sequence numbers against the newest probe sent,
 * not the highest answered: 2^32 + 2^31 probes after the last answer (an
 * open loop against a dead reflector for minutes), the answers count again
 * at once. The sent counter jumps instead of sending them all.
 */
static void
test_stamp_seq_widen_newest_sent(void **state)
{
	static const atomic_bool no_stop;
	const uint64_t seq = 0x180000007ull, last_seen = 5;
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	struct codec_frame f;
	struct probe_reply r;
	uint8_t frame[128];
	size_t len;

	w->pc.count = 0;
	prober_start(w, 0);
	assert_int_equal(prober_worker_begin(&w->pw), 0);
	w->pw.any_seen = true;
	w->pw.max_seq_seen = last_seen;
	w->pw.step_seq = seq;
	/* The probe in flight, answered by the reflector (the fast path). */
	assert_int_equal(prober_worker_step(&w->pw, &no_stop), 1);
	assert_int_equal(w->pw.st.sent, 1);
	assert_int_equal(w->pw.st.received, 1);
	assert_int_equal(w->pw.st.rx_ignored, 0);
	/* A late answer to seq - 3, through both matchers. */
	w->pw.max_seq_seen = last_seen;
	len = build_answer(frame, sizeof(frame), &fl, (uint32_t)(seq - 3),
			   STAMP_BASE_LEN);
	assert_int_equal(codec_parse_frame(frame, len, &f), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(probe_proto_stamp.match(&w->pw, frame, &f, &r), 1);
	assert_int_equal(r.seq, seq - 3);
	memset(&r, 0, sizeof(r));
	assert_int_equal(probe_proto_stamp.match_payload(&w->pw,
							 frame + f.payload_off,
							 f.payload_len, &r),
			 1);
	assert_int_equal(r.seq, seq - 3);
}

/*
 * A pool that runs dry for a moment (io_alloc NULL): counted in nombuf and
 * the probe tried again, as testpmd does; the run goes on and sends all.
 * Closed loop, the generic and the lean loop (no capture hook).
 */
static void
test_nombuf_goes_on(void **state)
{
	struct wire *w = *state;

	w->pc.count = 20;
	prober_start(w, 0); /* its own io_alloc (the MTU check) succeeds */
	io_fake_fail_alloc(w->f, 0, 7);
	assert_int_equal(prober_go(w), 0);
	assert_int_equal(w->pw.st.nombuf, 7);
	assert_int_equal(w->pw.st.sent, 20);
	assert_int_equal(w->pw.st.received, 20);
	assert_int_equal(w->pw.st.lost, 0);

	w->pc.capture.fn = NULL; /* the lean loop */
	prober_start(w, 0);
	io_fake_fail_alloc(w->f, 0, 3);
	assert_int_equal(prober_go(w), 0);
	assert_int_equal(w->pw.st.nombuf, 3);
	assert_int_equal(w->pw.st.received, 20);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * A pool that stays dry (a leak, or a pool too small): the same probe is
 * retried until the shortage has lasted the probe timeout, then the run
 * ends with -ENOBUFS instead of waiting for ever (-n without -t).
 */
static void
test_nombuf_lasting_ends_run(void **state)
{
	struct wire *w = *state;

	w->pc.count = 20;
	prober_start(w, 0);
	io_fake_fail_alloc(w->f, 0, UINT_MAX);
	assert_int_equal(prober_go(w), -ENOBUFS);
	assert_true(w->pw.st.nombuf > 1);
	assert_int_equal(w->pw.st.sent, 0);
}

/* 5. Older than the duplicate window: late, not duplicated ----------------- */

static void
test_older_than_window_is_late(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	const struct prober_stats *st = &w->pw.st;
	const uint64_t n = PROBER_DUP_WINDOW + 200;

	/* After n - 10 probes, the answer to probe 1 comes again: far
	 * behind the window, which slid past it. */
	w->old_answer_len = build_answer(w->old_answer, sizeof(w->old_answer),
					 &fl, 1, STAMP_BASE_LEN);
	w->inject_at = n - 10;
	w->pc.count = n;
	assert_int_equal(prober_run(w, 0), 0);
	assert_true(w->pw.seen_base > 1);
	assert_int_equal(st->received, n);
	assert_int_equal(st->duplicated, 0);
	assert_int_equal(st->late, 1);
	assert_int_equal(st->ignored[PROBER_IGN_LATE], 1);
	assert_int_equal(st->rx_ignored, 1);
}

/* 6. MTU capped at what an mbuf holds -------------------------------------- */

/* Peer hook: swallow what the prober sends. */
static void
sink_hook(void *arg)
{
	struct wire *w = arg;

	tw_drain(w->f, 1);
}

static void
test_mtu_capped_by_mbuf(void **state)
{
	struct wire *w = *state;
	const uint64_t count = 3;

	io_fake_set_peer(w->f, 0, sink_hook, w);
	/* More than a 2 KiB mbuf, less than the 9000-byte MTU. */
	w->pc.size = 3000;
	w->pc.count = count;
	assert_int_equal(prober_run(w, 0), 0);
	assert_true(w->pw.fragmented);
	assert_true(w->pw.mtu < 2048);
	assert_true(w->max_frame <= 2048);
	assert_int_equal(w->n_ids, count * 2); /* two fragments each */
	assert_int_equal(w->pw.st.sent, count);
	assert_int_equal(w->pw.st.tx_fail, 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* 7. prober_worker_init frees what it took when an allocation fails ------- */

static void
test_init_alloc_failure_frees(void **state)
{
	struct wire *w = *state;
	unsigned failed = 0;

	/* Fragmented (scratch + reassembly) and samples: three allocations. */
	w->pc.size = 3000;
	w->pc.keep_samples = true;
	w->pc.max_samples = 100;
	for (unsigned k = 1; k <= 4; k++) {
		unsigned before = n_live();
		int rc;

		fail_in = k;
		rc = prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0),
					0);
		fail_in = 0;
		if (rc == 0) {
			prober_worker_fini(&w->pw);
		} else {
			assert_int_equal(rc, -ENOMEM);
			failed++;
		}
		assert_int_equal(n_live(), before);
	}
	assert_int_equal(failed, 3);
}

/* 8. VLAN ------------------------------------------------------------------ */

/*
 * --vlan 100: probes carry the tag, the reflector's answers keep it and are
 * taken; the same answers untagged or on another VLAN are other_flow.
 */
static void
test_vlan_probes(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = flow_to_prober();
	const struct prober_stats *st = &w->pw.st;
	uint8_t frame[256];

	w->pc.flow.vlan = true;
	w->pc.flow.vlan_tci = 100;
	prober_start(w, 0);
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 0, 44));
	fl.vlan = true;
	fl.vlan_tci = 101;
	tw_inject(w->f, 0, frame,
		  build_answer(frame, sizeof(frame), &fl, 0, 44));
	w->pc.count = 5;
	assert_int_equal(prober_go(w), 0);
	assert_int_equal(w->n_tagged, 5);
	assert_int_equal(w->n_untagged, 0);
	assert_int_equal(st->received, 5);
	assert_int_equal(st->ignored[PROBER_IGN_OTHER_FLOW], 2);
	assert_int_equal(st->rx_ignored, 2);
	assert_int_equal(st->duplicated, 0);
}

/* ARP on the VLAN: requests go out tagged, only a tagged answer counts, and
 * the prober answers a tagged request for its address with a tagged reply.
 */
static void
test_vlan_arp(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct io_queue *q0 = io_fake_queue(w->f, 0);
	struct io_queue *q1 = io_fake_queue(w->f, 1);
	struct codec_mac out;
	struct codec_frame f;
	struct rte_mbuf *m;
	uint8_t frame[128];
	int len;

	io_fake_set_peer(w->f, 0, NULL, NULL);
	io_fake_set_tick(w->f, TW_TSC_HZ / 1000);
	/* An untagged answer waits: not ours, so nobody answers in time. */
	len = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REPLY,
			      &tw_refl_mac, TW_REFL_IP, &tw_prober_mac,
			      TW_PROBER_IP);
	tw_inject(w->f, 0, frame, (size_t)len);
	assert_int_equal(prober_arp_resolve_vlan(
				 q0, &tw_prober_mac, TW_PROBER_IP, 100,
				 TW_REFL_IP, 300, &w->clock, &out, &no_stop),
			 -EHOSTUNREACH);
	/* Its requests were tagged. */
	assert_int_equal(io_rx(q1, &m, 1), 1);
	assert_int_equal(codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					   m->data_len, &f),
			 0);
	assert_true(f.has_vlan);
	assert_int_equal(f.vlan_tci & 0xfff, 100);
	assert_int_equal(f.ethertype, CODEC_ETHERTYPE_ARP);
	assert_int_equal(f.arp_tpa, TW_REFL_IP);
	io_free(q1, m);
	tw_drain(w->f, 1);

	/* The tagged answer resolves. */
	len = codec_vlan_insert(frame, (size_t)len, sizeof(frame), 100);
	assert_true(len > 0);
	tw_inject(w->f, 0, frame, (size_t)len);
	assert_int_equal(prober_arp_resolve_vlan(
				 q0, &tw_prober_mac, TW_PROBER_IP, 100,
				 TW_REFL_IP, 300, &w->clock, &out, &no_stop),
			 0);
	assert_memory_equal(&out, &tw_refl_mac, sizeof(out));
	tw_drain(w->f, 1);

	/* A tagged request for us gets a tagged reply. */
	len = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			      &tw_refl_mac, TW_REFL_IP, NULL, TW_PROBER_IP);
	len = codec_vlan_insert(frame, (size_t)len, sizeof(frame), 100);
	assert_int_equal(codec_parse_frame(frame, (size_t)len, &f), 0);
	assert_true(prober_answer_arp_vlan(q0, &f, &tw_prober_mac, TW_PROBER_IP,
					   100));
	assert_false(prober_answer_arp_vlan(q0, &f, &tw_prober_mac,
					    TW_PROBER_IP, 0));
	assert_int_equal(io_rx(q1, &m, 1), 1);
	assert_int_equal(codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					   m->data_len, &f),
			 0);
	assert_true(f.has_vlan);
	assert_int_equal(f.vlan_tci, 100);
	assert_int_equal(f.arp_op, CODEC_ARP_REPLY);
	io_free(q1, m);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/*
 * The announcement after a port was made again (app_link_announce):
 * a gratuitous ARP, RFC 5227 2.3: an ARP request from our MAC with our
 * address as sender and target, broadcast, padded to 60 bytes; on a VLAN,
 * tagged.
 */
static void
test_announce(void **state)
{
	struct wire *w = *state;
	struct io_queue *q0 = io_fake_queue(w->f, 0);
	struct io_queue *q1 = io_fake_queue(w->f, 1);
	static const struct codec_mac bcast = {
		.b = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	struct codec_frame f;
	struct rte_mbuf *m;

	io_fake_set_peer(w->f, 0, NULL, NULL);
	for (unsigned vlan = 0; vlan <= 100; vlan += 100) {
		assert_int_equal(prober_announce(q0, &tw_prober_mac,
						 TW_PROBER_IP, (uint16_t)vlan),
				 0);
		assert_int_equal(io_rx(q1, &m, 1), 1);
		assert_true(m->data_len >= 60);
		assert_int_equal(
			codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					  m->data_len, &f),
			0);
		assert_int_equal(f.ethertype, CODEC_ETHERTYPE_ARP);
		assert_int_equal(f.arp_op, CODEC_ARP_REQUEST);
		assert_int_equal(f.arp_spa, TW_PROBER_IP);
		assert_int_equal(f.arp_tpa, TW_PROBER_IP);
		assert_memory_equal(&f.arp_sha, &tw_prober_mac,
				    sizeof(tw_prober_mac));
		assert_memory_equal(&f.dst, &bcast, sizeof(bcast));
		assert_memory_equal(&f.src, &tw_prober_mac,
				    sizeof(tw_prober_mac));
		assert_int_equal(f.has_vlan, vlan != 0);
		if (vlan != 0)
			assert_int_equal(f.vlan_tci & 0xfff, vlan);
		io_free(q1, m);
	}
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* ICMP destination-unreachable codes by class (RFC 792, RFC 1812). */
static void
test_unreach_of_code(void **state)
{
	static const uint8_t net[] = {0, 6, 11}, host[] = {1, 7, 12},
			     admin[] = {9, 10, 13}, other[] = {2, 4, 5, 8, 14};

	(void)state;
	for (size_t i = 0; i < sizeof(net); i++)
		assert_int_equal(prober_unreach_of_code(net[i]),
				 PROBER_UNREACH_NET);
	for (size_t i = 0; i < sizeof(host); i++)
		assert_int_equal(prober_unreach_of_code(host[i]),
				 PROBER_UNREACH_HOST);
	assert_int_equal(prober_unreach_of_code(3), PROBER_UNREACH_PORT);
	for (size_t i = 0; i < sizeof(admin); i++)
		assert_int_equal(prober_unreach_of_code(admin[i]),
				 PROBER_UNREACH_ADMIN);
	for (size_t i = 0; i < sizeof(other); i++)
		assert_int_equal(prober_unreach_of_code(other[i]),
				 PROBER_UNREACH_OTHER);
}

int
main(void)
{
#define T(fn)  cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define TJ(fn) cmocka_unit_test_setup_teardown(fn, setup_jumbo, teardown)
	const struct CMUnitTest tests[] = {
		T(test_ignored_reasons),
		T(test_nic_checksum_verdict),
		T(test_answer_sums),
		T(test_icmp_port_unreachable),
		T(test_icmp_host_unreachable_tcp),
		T(test_icmp_unreachable_not_ours),
		T(test_ip_id_per_worker),
		T(test_icmp_id_per_worker),
		T(test_tcp_seq_widen_across_wrap),
		T(test_stamp_seq_widen_newest_sent),
		T(test_nombuf_goes_on),
		T(test_nombuf_lasting_ends_run),
		T(test_older_than_window_is_late),
		TJ(test_mtu_capped_by_mbuf),
		T(test_init_alloc_failure_frees),
		T(test_vlan_probes),
		T(test_vlan_arp),
		T(test_announce),
		cmocka_unit_test(test_unreach_of_code),
	};

	return cmocka_run_group_tests_name("prober", tests, NULL, NULL);
}
