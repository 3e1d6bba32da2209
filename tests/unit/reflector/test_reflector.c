/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflector under hostile or unlucky peers, over the in-memory fake wire
 * (tests/support/io_fake.c): side 1 is the reflector's queue, side 0 the
 * peer's. Frames are injected on side 1 and the answers read back on side 0. A
 * tx hook keeps a copy of every frame as it was when tx_burst took it, so a
 * write into an mbuf after tx shows as a difference. No EAL.
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

#include "latprobe/codec.h"
#include "latprobe/frag.h"
#include "latprobe/loopback.h"
#include "latprobe/lru.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "test_wire.h"

#define N_MBUFS 1024

/* Copies of the frames the reflector handed to tx, as they were then. */
#define SNAP_MAX 1024
#define SNAP_LEN 1600

struct snap {
	uint8_t b[SNAP_LEN];
	uint16_t len;
	uint64_t ol_flags; /* the tx mbuf's, and its offload lengths */
	uint16_t l2_len, l3_len;
};

struct fx {
	struct io_fake *f;
	struct io_queue q; /* side 1 with the snapshotting tx */
	struct io_ops ops;
	struct reflector_conf rc;
	struct reflector_worker rw;
	bool rw_ready;
	uint64_t rx_ol_flags; /* set on every received mbuf */
	struct snap *snaps;
	unsigned n_snaps;
	unsigned n_tx_calls; /* tx bursts handed to the queue */
	unsigned tx_room;    /* frames a tx burst takes; 0 = all */
};

static struct fx *cur;

static uint16_t
snap_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct io_queue *inner = io_fake_queue(cur->f, 1);

	cur->n_tx_calls++;
	if (cur->tx_room != 0 && n > cur->tx_room)
		n = (uint16_t)cur->tx_room;
	for (uint16_t i = 0; i < n; i++) {
		struct snap *s = &cur->snaps[cur->n_snaps % SNAP_MAX];

		assert_true(pkts[i]->data_len <= SNAP_LEN);
		memcpy(s->b, rte_pktmbuf_mtod(pkts[i], const uint8_t *),
		       pkts[i]->data_len);
		s->len = pkts[i]->data_len;
		s->ol_flags = pkts[i]->ol_flags;
		s->l2_len = (uint16_t)pkts[i]->l2_len;
		s->l3_len = (uint16_t)pkts[i]->l3_len;
		cur->n_snaps++;
	}
	return io_tx(inner, pkts, n);
}

static uint16_t
flag_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct io_queue *inner = io_fake_queue(cur->f, 1);
	uint16_t got = io_rx(inner, pkts, n);

	for (uint16_t i = 0; i < got; i++)
		pkts[i]->ol_flags = cur->rx_ol_flags;
	return got;
}

static void
refl_restart(struct fx *x)
{
	if (x->rw_ready)
		reflector_worker_fini(&x->rw);
	assert_int_equal(reflector_worker_init(&x->rw, &x->rc, &x->q), 0);
	x->rw_ready = true;
}

static int
setup(void **state)
{
	struct fx *x = aligned_alloc(64, sizeof(*x));

	if (x == NULL)
		return -1;
	memset(x, 0, sizeof(*x));
	x->snaps = calloc(SNAP_MAX, sizeof(*x->snaps));
	x->f = io_fake_create(N_MBUFS, 1500);
	if (x->f == NULL || x->snaps == NULL)
		return -1;
	x->q = *io_fake_queue(x->f, 1);
	x->ops = *x->q.ops;
	x->ops.tx_burst = snap_tx;
	x->ops.rx_burst = flag_rx;
	x->q.ops = &x->ops;
	reflector_conf_default(&x->rc);
	x->rc.addr = TW_REFL_IP;
	x->rc.prefix_len = 24;
	x->rc.mac = tw_refl_mac;
	x->rc.anchor.realtime_ns = TW_ANCHOR_NS;
	if (tsc_clock_init(&x->rc.clock, TW_TSC_HZ) != 0)
		return -1;
	cur = x;
	if (reflector_worker_init(&x->rw, &x->rc, &x->q) != 0)
		return -1;
	x->rw_ready = true;
	*state = x;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *x = *state;

	if (x->rw_ready)
		reflector_worker_fini(&x->rw);
	io_fake_destroy(x->f);
	free(x->snaps);
	free(x);
	return 0;
}

static uint64_t
rc(const struct fx *x, enum reflector_counter c)
{
	return reflector_counter_read(&x->rw, c);
}

/* Take the single frame waiting for the peer into buf. */
static size_t
take_one(struct fx *x, uint8_t *buf, size_t cap)
{
	size_t len = tw_take_one(x->f, 0, buf, cap);

	assert_int_equal(tw_drain(x->f, 0), 0);
	return len;
}

static struct codec_flow
flow(uint32_t src, uint16_t sport, uint16_t dport)
{
	return tw_flow4(&tw_prober_mac, &tw_refl_mac, src, TW_REFL_IP, sport,
			dport);
}

static size_t
build_stamp(uint8_t *buf, size_t cap, const struct codec_flow *fl, uint32_t seq,
	    uint16_t ssid)
{
	uint8_t pl[STAMP_BASE_LEN];

	return tw_build_udp(
		buf, cap, fl, pl,
		tw_stamp_payload(pl, sizeof(pl), seq, ssid, TW_ANCHOR_NS));
}

static size_t
build_icmp(uint8_t *buf, size_t cap, uint32_t src)
{
	struct codec_flow fl = flow(src, 0, 0);
	static const uint8_t pl[16] = "0123456789abcdef";
	int len = codec_build_icmp_echo(buf, cap, &fl, CODEC_ICMP_ECHO_REQUEST,
					0x1234, 1, pl, sizeof(pl));

	assert_true(len > 0);
	return (size_t)len;
}

/* The one counter (besides rx) that moved when frame went in. */
static void
expect_counter(struct fx *x, const uint8_t *frame, size_t len,
	       enum reflector_counter want, const char *what)
{
	uint64_t before[RC__COUNT];

	for (unsigned c = 0; c < RC__COUNT; c++)
		before[c] = rc(x, c);
	tw_inject(x->f, 1, frame, len);
	assert_int_equal(reflector_poll(&x->rw), 1);
	for (unsigned c = 0; c < RC__COUNT; c++) {
		uint64_t w = before[c] + (c == RC_RX || c == want);

		/* How the L4 sum was verified (test_udp_sums()), not why
		 * the frame was answered or dropped. */
		if (c == RC_RX_L4_CSUM_NIC || c == RC_RX_L4_CSUM_SW)
			continue;

		/* An answer also counts as tx. */
		if (c == RC_TX && want < RC_DROP_MALFORMED)
			w++;
		if (rc(x, c) != w)
			fail_msg("%s: counter %s is %llu, want %llu", what,
				 reflector_counter_name(c),
				 (unsigned long long)rc(x, c),
				 (unsigned long long)w);
	}
	assert_int_equal(tw_drain(x->f, 0), want < RC_DROP_MALFORMED ? 1 : 0);
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/* Item: nothing leaves before it is finished ----------------------------- */

/* Fragments of a whole UDP frame at MTU 1500, into frags[]. */
static unsigned
fragment(const uint8_t *frame, size_t len, uint8_t (*frags)[1600], size_t *flen,
	 unsigned max)
{
	struct codec_frame f;
	size_t off = 0;
	unsigned n = 0;

	assert_int_equal(codec_parse_frame(frame, len, &f), 0);
	do {
		int l;

		assert_true(n < max);
		l = codec_ipv4_fragment(frame, &f, 1500, &off, frags[n], 1600);
		assert_true(l > 0);
		flen[n++] = (size_t)l;
	} while (off != 0);
	return n;
}

/* A STAMP answer as it went on the wire: T3 after T2, UDP sum right. */
static void
check_stamp_answer(const uint8_t *b, size_t len)
{
	struct stamp_reflector s;
	struct codec_frame f;

	assert_int_equal(codec_parse_frame(b, len, &f), 0);
	assert_false(f.is_fragment);
	assert_true(codec_ipv4_csum_ok(b, &f));
	if (!codec_l4_csum_ok(b, &f))
		fail_msg("STAMP answer (%zu bytes) left with a wrong UDP sum",
			 len);
	assert_int_equal(
		stamp_reflector_parse(b + f.payload_off, f.payload_len, &s), 0);
	/* The fake clock moves on every read: T3, read after T2, is later. */
	if (!(stamp_ts_to_ns(s.timestamp, s.error_estimate) >
	      stamp_ts_to_ns(s.rx_timestamp, s.error_estimate)))
		fail_msg("STAMP answer left with T3 %llx not after T2 %llx",
			 (unsigned long long)s.timestamp,
			 (unsigned long long)s.rx_timestamp);
}

/*
 * One burst whose answers are more than the 128 frames of a tx batch: the
 * last fragments of four 60,000-byte datagrams (three UDP echo, one STAMP)
 * amid 28 STAMP probes. Every STAMP answer, as tx_burst took it (the
 * snapshot), has its T3 and a right checksum; the fragmented STAMP answer
 * reassembles into one that has too.
 */
static void
test_big_burst_answers_finished(void **state)
{
	struct fx *x = *state;
	static uint8_t big[65600], frags[4][48][1600], whole[65600];
	static uint8_t pl[60000];
	size_t flen[4][48];
	unsigned nf[4], n_stamp_seen = 0, n_frag_seen = 0;
	struct codec_reasm *r = codec_reasm_create();
	uint8_t frame[256];
	bool big_stamp_ok = false;

	assert_non_null(r);
	x->rc.n_reasm = 4;
	refl_restart(x);
	for (unsigned d = 0; d < 4; d++) {
		struct codec_flow fl = flow(TW_PROBER_IP, (uint16_t)(40000 + d),
					    d == 3 ? 862 : 7);
		int len;

		if (d == 3)
			tw_stamp_payload(pl, sizeof(pl), 4242, 3, TW_ANCHOR_NS);
		else
			memset(pl, 0x40 + (int)d, sizeof(pl));
		len = codec_build_udp(big, sizeof(big), &fl,
				      (uint16_t)(0x5000 + d), pl, sizeof(pl));
		assert_true(len > 0);
		nf[d] = fragment(big, (size_t)len, frags[d], flen[d], 48);
		/* Everything but the last fragment, in earlier bursts. */
		for (unsigned i = 0; i + 1 < nf[d]; i++) {
			tw_inject(x->f, 1, frags[d][i], flen[d][i]);
			reflector_poll(&x->rw);
		}
	}
	assert_int_equal(rc(x, RC_TX), 0);
	x->n_snaps = 0;
	for (unsigned i = 0; i < 32; i++) {
		struct codec_flow fl =
			flow(TW_PROBER_IP, (uint16_t)(30000 + i), 862);

		if (i >= 14 && i < 18) {
			unsigned d = i - 14;

			tw_inject(x->f, 1, frags[d][nf[d] - 1],
				  flen[d][nf[d] - 1]);
		} else {
			tw_inject(x->f, 1, frame,
				  build_stamp(frame, sizeof(frame), &fl, i, 1));
		}
	}
	assert_int_equal(reflector_poll(&x->rw), 32);
	assert_int_equal(rc(x, RC_REASSEMBLED), 4);
	assert_int_equal(x->n_snaps, 28 + nf[0] + nf[1] + nf[2] + nf[3]);
	assert_true(x->n_snaps > 128);
	for (unsigned i = 0; i < x->n_snaps; i++) {
		const struct snap *s = &x->snaps[i];
		struct codec_frame f;
		uint8_t *out;
		size_t out_len;

		assert_int_equal(codec_parse_frame(s->b, s->len, &f), 0);
		if (f.is_fragment) {
			int ret;

			if (f.ip_id != 0x5003)
				continue;
			n_frag_seen++;
			ret = codec_reasm_add(r, s->b, &f, i, &out, &out_len);
			assert_true(ret >= 0);
			if (ret == 1) {
				assert_true(out_len <= sizeof(whole));
				memcpy(whole, out, out_len);
				check_stamp_answer(whole, out_len);
				big_stamp_ok = true;
			}
			continue;
		}
		assert_int_equal(f.sport, 862);
		check_stamp_answer(s->b, s->len);
		n_stamp_seen++;
	}
	assert_int_equal(n_stamp_seen, 28);
	assert_int_equal(n_frag_seen, nf[3]);
	assert_true(big_stamp_ok);
	/* What reached the peer is what was handed to tx, byte for byte. */
	{
		struct io_queue *q = io_fake_queue(x->f, 0);
		struct rte_mbuf *m;
		unsigned i = 0;

		while (io_rx(q, &m, 1) == 1) {
			assert_true(i < x->n_snaps);
			assert_int_equal(m->data_len, x->snaps[i].len);
			if (memcmp(rte_pktmbuf_mtod(m, const uint8_t *),
				   x->snaps[i].b, m->data_len) != 0)
				fail_msg("frame %u was written after tx", i);
			io_free(q, m);
			i++;
		}
		assert_int_equal(i, x->n_snaps);
	}
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
	codec_reasm_destroy(r);
}

/*
 * Answers leave in bursts: a full rx burst of STAMP requests goes out in one
 * tx burst, a mixed one in at most two (STAMP answers after T3, then the
 * rest); what a full tx queue does not take is freed and counted
 * (dropped.tx_full), not retried frame by frame.
 */
static void
test_answers_in_bursts(void **state)
{
	struct fx *x = *state;
	uint8_t frame[256];

	for (unsigned i = 0; i < REFLECTOR_BURST; i++) {
		struct codec_flow fl =
			flow(TW_PROBER_IP, (uint16_t)(30000 + i), 862);

		tw_inject(x->f, 1, frame,
			  build_stamp(frame, sizeof(frame), &fl, i, 1));
	}
	x->n_tx_calls = 0;
	assert_int_equal(reflector_poll(&x->rw), REFLECTOR_BURST);
	assert_int_equal(x->n_tx_calls, 1);
	assert_int_equal(rc(x, RC_TX), REFLECTOR_BURST);
	assert_int_equal(tw_drain(x->f, 0), REFLECTOR_BURST);

	/* Half STAMP, half UDP echo, interleaved. */
	for (unsigned i = 0; i < REFLECTOR_BURST; i++) {
		struct codec_flow fl = flow(TW_PROBER_IP, (uint16_t)(31000 + i),
					    i % 2 ? 7 : 862);
		uint8_t pl[32];

		memset(pl, 0x61, sizeof(pl));
		if (i % 2)
			tw_inject(x->f, 1, frame,
				  tw_build_udp(frame, sizeof(frame), &fl, pl,
					       sizeof(pl)));
		else
			tw_inject(x->f, 1, frame,
				  build_stamp(frame, sizeof(frame), &fl, i, 1));
	}
	x->n_tx_calls = 0;
	assert_int_equal(reflector_poll(&x->rw), REFLECTOR_BURST);
	assert_true(x->n_tx_calls >= 1 && x->n_tx_calls <= 2);
	assert_int_equal(rc(x, RC_TX), 2 * REFLECTOR_BURST);
	assert_int_equal(tw_drain(x->f, 0), REFLECTOR_BURST);

	/* A tx queue with room for 5: the other 27 answers dropped, once. */
	for (unsigned i = 0; i < REFLECTOR_BURST; i++) {
		struct codec_flow fl =
			flow(TW_PROBER_IP, (uint16_t)(32000 + i), 862);

		tw_inject(x->f, 1, frame,
			  build_stamp(frame, sizeof(frame), &fl, i, 1));
	}
	x->n_tx_calls = 0;
	x->tx_room = 5;
	assert_int_equal(reflector_poll(&x->rw), REFLECTOR_BURST);
	x->tx_room = 0;
	assert_int_equal(x->n_tx_calls, 1);
	assert_int_equal(rc(x, RC_TX), 2 * REFLECTOR_BURST + 5);
	assert_int_equal(rc(x, RC_DROP_TX), REFLECTOR_BURST - 5);
	assert_int_equal(tw_drain(x->f, 0), 5);
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/* Item: a bad UDP sum stays bad -------------------------------------------- */

static size_t
build_sockperf(uint8_t *buf, size_t cap, const struct codec_flow *fl)
{
	struct sockperf_hdr h = {.seq = 1,
				 .flags = SOCKPERF_F_CLIENT |
					  SOCKPERF_F_PONG_REQUEST,
				 .length = 64};
	uint8_t pl[64];

	memset(pl, 0x11, sizeof(pl));
	assert_int_equal(sockperf_build(pl, sizeof(pl), &h), SOCKPERF_HDR_LEN);
	return tw_build_udp(buf, cap, fl, pl, sizeof(pl));
}

static size_t
build_stamp_tlvs(uint8_t *buf, size_t cap, const struct codec_flow *fl)
{
	uint8_t pl[200];
	struct stamp_sender_opts o;

	memset(&o, 0, sizeof(o));
	o.seq = 5;
	o.timestamp = stamp_ntp_from_ns(TW_ANCHOR_NS);
	o.error_estimate = 1;
	o.tlv_timestamp_info = true;
	o.tlv_class_of_service = true;
	o.cos_dscp = 46;
	o.len = 121; /* odd: the last checksum word is half padding */
	assert_int_equal(stamp_sender_build(pl, sizeof(pl), &o), 121);
	return tw_build_udp(buf, cap, fl, pl, o.len);
}

/* The folded pseudo-header sum of a parsed UDP/ICMPv6 frame, computed
 * here from the RFC 768 / RFC 8200 layout (what a sender's tx offload
 * leaves in the field). */
static uint16_t
pseudo_of(const uint8_t *frame, const struct codec_frame *f)
{
	uint8_t t[8] = {0};
	uint32_t sum;

	if (f->ip_version == 4) {
		t[1] = f->ip_proto;
		t[2] = (uint8_t)(f->l4_len >> 8);
		t[3] = (uint8_t)f->l4_len;
		sum = codec_csum_partial(frame + f->l3_off + 12, 8, 0);
		sum = codec_csum_partial(t, 4, sum);
	} else {
		t[2] = (uint8_t)(f->l4_len >> 8);
		t[3] = (uint8_t)f->l4_len;
		t[7] = f->ip_proto;
		sum = codec_csum_partial(frame + f->l3_off + 8, 32, 0);
		sum = codec_csum_partial(t, 8, sum);
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

enum sum_state { SUM_RIGHT, SUM_WRONG, SUM_PARTIAL, SUM_ABSENT, SUM__N };

/*
 * Each request kind, its UDP checksum right, wrong (a payload byte flipped
 * in transit), partial (the folded pseudo-header sum, as a kernel sender
 * with tx offload leaves it on a veth) or absent (0 over IPv4), under each
 * rx verdict of the NIC (none given, GOOD, BAD, NONE): a wrong sum the
 * NIC did not vouch for and every BAD is dropped (dropped.l4_checksum); a
 * partial one, and NONE, answered with a complete sum and counted
 * (rx.l4_partial); absent stays absent.
 */
static void
test_udp_sums(void **state)
{
	struct fx *x = *state;
	static const struct {
		const char *what;
		uint16_t dport;
		enum reflector_counter counter;
	} kinds[] = {
		{"UDP echo", 7, RC_ECHO},
		{"sockperf", SOCKPERF_PORT, RC_SOCKPERF},
		{"STAMP", STAMP_PORT, RC_STAMP},
		{"STAMP with TLVs, odd length", STAMP_PORT, RC_STAMP},
	};
	static const uint64_t verdicts[] = {0, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
					    RTE_MBUF_F_RX_L4_CKSUM_BAD,
					    RTE_MBUF_F_RX_L4_CKSUM_NONE};
	static const char *const sn[SUM__N] = {"right", "wrong", "partial",
					       "absent"};

	for (unsigned k = 0; k < 4; k++) {
		for (unsigned st = 0; st < SUM__N; st++) {
			for (unsigned v = 0; v < 4; v++) {
				struct codec_flow fl = flow(TW_PROBER_IP, 40000,
							    kinds[k].dport);
				uint8_t frame[512], ans[512];
				struct codec_frame f;
				uint64_t ans0 = rc(x, kinds[k].counter),
					 drop0 = rc(x, RC_DROP_L4_CSUM),
					 part0 = rc(x, RC_RX_L4_PARTIAL),
					 nic0 = rc(x, RC_RX_L4_CSUM_NIC),
					 sw0 = rc(x, RC_RX_L4_CSUM_SW);
				bool drop, part, nic, sw;
				size_t len, alen;
				uint16_t cs;
				char what[96];

				snprintf(what, sizeof(what),
					 "%s, %s sum, verdict %#llx",
					 kinds[k].what, sn[st],
					 (unsigned long long)verdicts[v]);
				if (k == 1)
					len = build_sockperf(
						frame, sizeof(frame), &fl);
				else if (k == 2)
					len = build_stamp(frame, sizeof(frame),
							  &fl, 1, 1);
				else if (k == 3)
					len = build_stamp_tlvs(
						frame, sizeof(frame), &fl);
				else
					len = tw_build_udp(
						frame, sizeof(frame), &fl,
						(const uint8_t *)"hello, echo",
						11);
				assert_int_equal(
					codec_parse_frame(frame, len, &f), 0);
				if (st == SUM_WRONG)
					frame[len - 1] ^= 0x04;
				cs = st == SUM_PARTIAL ? pseudo_of(frame, &f)
						       : 0;
				if (st == SUM_PARTIAL || st == SUM_ABSENT)
					memcpy(frame + f.l4_off + 6, &cs, 2);
				drop = v == 2 || (v == 0 && st == SUM_WRONG);
				part = !drop && st != SUM_ABSENT &&
				       (v == 3 ||
					(v == 0 && st == SUM_PARTIAL));
				/* How the verdict was taken: the NIC's GOOD
				 * (not checked again), or verified here. */
				nic = v == 1 && st != SUM_ABSENT;
				sw = v == 0 && st == SUM_RIGHT;
				x->rx_ol_flags = verdicts[v];
				tw_inject(x->f, 1, frame, len);
				reflector_poll(&x->rw);
				x->rx_ol_flags = 0;
				if (rc(x, RC_DROP_L4_CSUM) - drop0 != drop ||
				    rc(x, kinds[k].counter) - ans0 != !drop ||
				    rc(x, RC_RX_L4_PARTIAL) - part0 != part)
					fail_msg(
						"%s: dropped %llu answered "
						"%llu partial %llu",
						what,
						(unsigned long long)(rc(x,
									RC_DROP_L4_CSUM) -
								     drop0),
						(unsigned long long)(rc(x,
									kinds[k].counter) -
								     ans0),
						(unsigned long long)(rc(x,
									RC_RX_L4_PARTIAL) -
								     part0));
				if (rc(x, RC_RX_L4_CSUM_NIC) - nic0 != nic ||
				    rc(x, RC_RX_L4_CSUM_SW) - sw0 != sw)
					fail_msg(
						"%s: l4_csum_nic +%llu "
						"l4_csum_software +%llu",
						what,
						(unsigned long long)(rc(x,
									RC_RX_L4_CSUM_NIC) -
								     nic0),
						(unsigned long long)(rc(x,
									RC_RX_L4_CSUM_SW) -
								     sw0));
				if (drop) {
					assert_int_equal(tw_drain(x->f, 0), 0);
					continue;
				}
				alen = take_one(x, ans, sizeof(ans));
				assert_int_equal(
					codec_parse_frame(ans, alen, &f), 0);
				memcpy(&cs, ans + f.l4_off + 6, 2);
				if (st == SUM_ABSENT) {
					if (cs != 0)
						fail_msg("%s: %04x sent", what,
							 cs);
				} else if (v == 1 && st != SUM_RIGHT) {
					/* The NIC vouched for it: updated,
					 * not checked (no NIC says GOOD of
					 * a wrong sum). */
				} else if (!codec_l4_csum_ok(ans, &f)) {
					fail_msg("%s: answered with a wrong "
						 "sum %04x",
						 what, cs);
				}
			}
		}
	}
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/*
 * The answer's checksum left to the NIC: a queue whose port does the tx
 * UDP checksum offload, a request the NIC said RX_L4_CKSUM_NONE of: the
 * field holds the pseudo-header sum, the mbuf asks for the offload (IPv4,
 * UDP, l2/l3 lengths); the bytes are otherwise the software answer's.
 * Without the offload (or with a verdict that needs none), no tx flag.
 */
static void
test_udp_tx_offload(void **state)
{
	struct fx *x = *state;
	static const uint16_t ports[] = {7, SOCKPERF_PORT, STAMP_PORT};

	for (unsigned k = 0; k < 3; k++) {
		for (unsigned off = 0; off < 2; off++) {
			struct codec_flow fl =
				flow(TW_PROBER_IP, 40000, ports[k]);
			uint8_t frame[512];
			struct codec_frame f, af;
			struct rte_mbuf *m;
			size_t len =
				k == 1	 ? build_sockperf(frame, sizeof(frame),
							  &fl)
				: k == 2 ? build_stamp(frame, sizeof(frame),
						       &fl, 1, 1)
					 : tw_build_udp(
						   frame, sizeof(frame), &fl,
						   (const uint8_t *)"echo", 4);
			const struct snap *sn;
			uint16_t cs, want;
			uint8_t *a;

			x->q.tx_csum = off ? IO_TX_UDP_CKSUM : 0;
			refl_restart(x);
			assert_int_equal(codec_parse_frame(frame, len, &f), 0);
			x->rx_ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE |
					 RTE_MBUF_F_RX_IP_CKSUM_GOOD;
			tw_inject(x->f, 1, frame, len);
			reflector_poll(&x->rw);
			x->rx_ol_flags = 0;
			assert_int_equal(io_rx(io_fake_queue(x->f, 0), &m, 1),
					 1);
			sn = &x->snaps[(x->n_snaps - 1) % SNAP_MAX];
			a = rte_pktmbuf_mtod(m, uint8_t *);
			assert_int_equal(codec_parse_frame(a, m->data_len, &af),
					 0);
			memcpy(&cs, a + af.l4_off + 6, 2);
			if (off) {
				want = pseudo_of(a, &af);
				assert_int_equal(cs, want);
				assert_int_equal(
					sn->ol_flags,
					RTE_MBUF_F_TX_IPV4 |
						RTE_MBUF_F_TX_UDP_CKSUM);
				assert_int_equal(sn->l2_len, CODEC_ETH_HLEN);
				assert_int_equal(sn->l3_len, CODEC_IPV4_HLEN);
				/* What the NIC makes of it: right. */
				codec_l4_csum_set(a, &af);
			} else {
				assert_int_equal(
					m->ol_flags &
						RTE_MBUF_F_TX_OFFLOAD_MASK,
					0);
			}
			assert_true(codec_l4_csum_ok(a, &af));
			io_free(io_fake_queue(x->f, 0), m);
			/* A request verified here needs no offload. */
			tw_inject(x->f, 1, frame, len);
			reflector_poll(&x->rw);
			assert_int_equal(io_rx(io_fake_queue(x->f, 0), &m, 1),
					 1);
			assert_int_equal(
				m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK, 0);
			io_free(io_fake_queue(x->f, 0), m);
		}
	}
	x->q.tx_csum = 0;
	refl_restart(x);
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/*
 * A fragmented UDP echo (3,000 bytes at MTU 1500): its sum verified after
 * reassembly (no NIC verdict covers a datagram): wrong dropped, partial
 * completed; a fragment's wrong IPv4 header sum dropped unless the NIC
 * said NONE (or GOOD) of it.
 */
static void
test_fragment_sums(void **state)
{
	struct fx *x = *state;
	static uint8_t pl[3000], frame[3200], frags[4][1600];
	struct codec_flow fl = flow(TW_PROBER_IP, 40000, 7);
	struct codec_frame f;
	size_t flen[4], len;

	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 13 + 1);
	for (unsigned k = 0; k < 5; k++) {
		uint64_t echo0 = rc(x, RC_ECHO), l40 = rc(x, RC_DROP_L4_CSUM),
			 ip0 = rc(x, RC_DROP_IP_CSUM),
			 part0 = rc(x, RC_RX_L4_PARTIAL);
		unsigned n;
		uint16_t cs;

		len = tw_build_udp(frame, sizeof(frame), &fl, pl, sizeof(pl));
		assert_int_equal(codec_parse_frame(frame, len, &f), 0);
		if (k == 1)
			frame[len - 7] ^= 0x10; /* payload: UDP sum wrong */
		if (k == 2) {
			cs = pseudo_of(frame, &f);
			memcpy(frame + f.l4_off + 6, &cs, 2);
		}
		n = fragment(frame, len, frags, flen, 4);
		assert_true(n >= 2);
		if (k >= 3)
			frags[0][CODEC_ETH_HLEN + 10] ^= 0x44;
		x->rx_ol_flags = k == 4 ? RTE_MBUF_F_RX_IP_CKSUM_NONE : 0;
		for (unsigned i = 0; i < n; i++) {
			tw_inject(x->f, 1, frags[i], flen[i]);
			reflector_poll(&x->rw);
		}
		x->rx_ol_flags = 0;
		assert_int_equal(rc(x, RC_DROP_L4_CSUM) - l40, k == 1);
		assert_int_equal(rc(x, RC_DROP_IP_CSUM) - ip0, k == 3);
		assert_int_equal(rc(x, RC_RX_L4_PARTIAL) - part0, k == 2);
		assert_int_equal(rc(x, RC_ECHO) - echo0, k != 1 && k != 3);
		/* The answer, reassembled: its UDP sum right. */
		if (k == 1 || k == 3) {
			assert_int_equal(tw_drain(x->f, 0), 0);
		} else {
			struct codec_reasm *r = codec_reasm_create();
			struct rte_mbuf *m;
			unsigned got = 0;
			int done = 0;

			assert_non_null(r);
			while (io_rx(io_fake_queue(x->f, 0), &m, 1) == 1) {
				uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
				struct codec_frame af;
				uint8_t *whole;
				size_t wlen;

				assert_int_equal(
					codec_parse_frame(b, m->data_len, &af),
					0);
				if (codec_reasm_add(r, b, &af, 1, &whole,
						    &wlen) == 1) {
					assert_int_equal(
						codec_parse_frame(whole, wlen,
								  &af),
						0);
					if (!codec_l4_csum_ok(whole, &af))
						fail_msg(
							"case %u: the answer's "
							"UDP sum is wrong",
							k);
					done++;
				}
				got++;
				io_free(io_fake_queue(x->f, 0), m);
			}
			codec_reasm_destroy(r);
			assert_int_equal(got, n);
			assert_int_equal(done, 1);
		}
		/* A dropped first fragment leaves the rest in reassembly. */
		refl_restart(x);
	}
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/* A wrong IPv4 header checksum the NIC said NONE of (verified, sum left
 * wrong): answered with a right header sum. */
static void
test_ip_csum_none(void **state)
{
	struct fx *x = *state;
	struct codec_flow fl = flow(TW_PROBER_IP, 40000, 7);
	uint8_t frame[128], ans[128];
	struct codec_frame f;
	size_t len = tw_build_udp(frame, sizeof(frame), &fl,
				  (const uint8_t *)"hello", 5),
	       alen;

	frame[CODEC_ETH_HLEN + 10] ^= 0x5a;
	expect_counter(x, frame, len, RC_DROP_IP_CSUM, "bad ip sum");
	x->rx_ol_flags = RTE_MBUF_F_RX_IP_CKSUM_NONE;
	tw_inject(x->f, 1, frame, len);
	reflector_poll(&x->rw);
	x->rx_ol_flags = 0;
	alen = take_one(x, ans, sizeof(ans));
	assert_int_equal(codec_parse_frame(ans, alen, &f), 0);
	assert_true(codec_ipv4_csum_ok(ans, &f));
	assert_true(codec_l4_csum_ok(ans, &f));
}

/* ICMP echo: type changed, checksum updated, still right. */
static void
test_icmp_sum_updated(void **state)
{
	struct fx *x = *state;
	uint8_t frame[128], ans[128];
	struct codec_frame f;
	size_t len = build_icmp(frame, sizeof(frame), TW_PROBER_IP), alen;

	tw_inject(x->f, 1, frame, len);
	reflector_poll(&x->rw);
	alen = take_one(x, ans, sizeof(ans));
	assert_int_equal(codec_parse_frame(ans, alen, &f), 0);
	assert_int_equal(f.icmp_type, CODEC_ICMP_ECHO_REPLY);
	assert_true(codec_l4_csum_ok(ans, &f));
}

/* Item: only valid requests are answered ------------------------------------
 */

static void
test_stamp_shorter_than_14(void **state)
{
	struct fx *x = *state;
	struct codec_flow fl = flow(TW_PROBER_IP, 40000, STAMP_PORT);
	uint8_t pl[STAMP_BASE_LEN], frame[256];

	tw_stamp_payload(pl, sizeof(pl), 7, 1, TW_ANCHOR_NS);
	for (size_t plen = 0; plen <= 14; plen++) {
		char what[32];

		snprintf(what, sizeof(what), "STAMP of %zu bytes", plen);
		expect_counter(
			x, frame,
			tw_build_udp(frame, sizeof(frame), &fl, pl, plen),
			plen < 14 ? RC_DROP_PROBE : RC_STAMP, what);
	}
	/* sockperf: a header of 13 bytes is no header. */
	{
		struct codec_flow sf = flow(TW_PROBER_IP, 40000, SOCKPERF_PORT);
		size_t len = build_sockperf(frame, sizeof(frame), &sf);
		struct codec_frame f;

		assert_int_equal(codec_parse_frame(frame, len, &f), 0);
		expect_counter(x, frame,
			       tw_build_udp(frame, sizeof(frame), &sf,
					    frame + f.payload_off, 13),
			       RC_DROP_PROBE, "sockperf of 13 bytes");
	}
}

/* Item: loop protection and martian sources ----------------------------------
 */

static void
test_loop_and_martians(void **state)
{
	struct fx *x = *state;
	static const struct {
		const char *what;
		uint32_t src;
		uint16_t sport, dport;
		bool icmp;
		enum reflector_counter counter;
	} cases[] = {
		{"sport 1023", TW_PROBER_IP, 1023, 7, false, RC_DROP_LOW_PORT},
		{"sport 1", TW_PROBER_IP, 1, STAMP_PORT, false,
		 RC_DROP_LOW_PORT},
		{"sport 1024", TW_PROBER_IP, 1024, 7, false, RC_ECHO},
		{"sport 862, STAMP off here", TW_PROBER_IP, 862, 7, false,
		 RC_DROP_LOOP_PORT},
		{"sport 11111, sockperf off here", TW_PROBER_IP, 11111, 7,
		 false, RC_DROP_LOOP_PORT},
		{"sport 19 (chargen)", TW_PROBER_IP, 19, 7, false,
		 RC_DROP_LOOP_PORT},
		{"sport 37 (time)", TW_PROBER_IP, 37, 7, false,
		 RC_DROP_LOOP_PORT},
		{"from ourselves", TW_REFL_IP, 40000, 7, false, RC_DROP_SOURCE},
		{"from the subnet broadcast", 0xc61200ffu, 40000, 7, false,
		 RC_DROP_SOURCE},
		{"from 0.1.2.3", 0x00010203u, 40000, 7, false, RC_DROP_SOURCE},
		{"from 127.0.0.1", 0x7f000001u, 40000, 7, false,
		 RC_DROP_SOURCE},
		{"from 224.0.0.1", 0xe0000001u, 40000, 7, false,
		 RC_DROP_SOURCE},
		{"from 240.0.0.1", 0xf0000001u, 40000, 7, false,
		 RC_DROP_SOURCE},
		{"from 255.255.255.255", 0xffffffffu, 40000, 7, false,
		 RC_DROP_SOURCE},
		{"ICMP from 127.0.0.1", 0x7f000001u, 0, 0, true,
		 RC_DROP_SOURCE},
		{"ICMP from the subnet broadcast", 0xc61200ffu, 0, 0, true,
		 RC_DROP_SOURCE},
		{"ICMP from ourselves", TW_REFL_IP, 0, 0, true, RC_DROP_SOURCE},
		{"ICMP from a peer", TW_PROBER_IP, 0, 0, true, RC_ICMP},
	};
	uint8_t frame[256];

	/* Both turned off: their ports still never get an answer. */
	x->rc.stamp_port = 0;
	x->rc.sockperf_port = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct codec_flow fl =
			flow(cases[i].src, cases[i].sport, cases[i].dport);
		size_t len =
			cases[i].icmp
				? build_icmp(frame, sizeof(frame), cases[i].src)
				: tw_build_udp(frame, sizeof(frame), &fl,
					       (const uint8_t *)"0123456789"
								"abcdef",
					       16);

		expect_counter(x, frame, len, cases[i].counter, cases[i].what);
	}
	/* --allow-low-sport opens ports below 1024, not the loop ports. */
	x->rc.allow_low_sport = true;
	{
		struct codec_flow fl = flow(TW_PROBER_IP, 1023, 7);
		struct codec_flow echo = flow(TW_PROBER_IP, 7, 7);

		expect_counter(x, frame,
			       tw_build_udp(frame, sizeof(frame), &fl,
					    (const uint8_t *)"x", 1),
			       RC_ECHO, "sport 1023, allowed");
		expect_counter(x, frame,
			       tw_build_udp(frame, sizeof(frame), &echo,
					    (const uint8_t *)"x", 1),
			       RC_DROP_LOOP_PORT, "sport 7, low ports allowed");
	}
}

/* A reflector on loopback (kernel backend on lo) answers local peers. */
static void
test_loopback_address_answers_local(void **state)
{
	struct fx *x = *state;
	uint8_t frame[256];
	struct codec_flow fl = flow(0x7f000001u, 40000, 7);

	x->rc.addr = 0x7f000001u;
	x->rc.prefix_len = 8;
	fl.dst4 = 0x7f000001u;
	expect_counter(x, frame,
		       tw_build_udp(frame, sizeof(frame), &fl,
				    (const uint8_t *)"x", 1),
		       RC_ECHO, "127.0.0.1 to itself");
}

/* Item: --allow
 * ---------------------------------------------------------------- */

static void
test_allow_list(void **state)
{
	struct fx *x = *state;
	uint8_t frame[256];

	/* 20 entries: 198.19.i.0/24 for i < 19, then 198.18.0.0/30. */
	for (unsigned i = 0; i < 19; i++) {
		x->rc.allow[i].addr = 0xc6130000u | i << 8;
		x->rc.allow[i].mask = 0xffffff00u;
	}
	x->rc.allow[19].addr = 0xc6120000u;
	x->rc.allow[19].mask = 0xfffffffcu;
	x->rc.n_allow = 20;
	{
		struct codec_flow in = flow(TW_PROBER_IP, 40000, 7);
		struct codec_flow out = flow(0xc6120009u, 40000, 7);
		struct codec_flow last = flow(0xc6131205u, 40000, 7);
		struct codec_flow last_out = flow(0xc6131305u, 40000, 7);
		static const uint8_t pl[4] = "abcd";

		expect_counter(x, frame,
			       tw_build_udp(frame, sizeof(frame), &in, pl, 4),
			       RC_ECHO, "198.18.0.1 in 198.18.0.0/30");
		expect_counter(x, frame,
			       tw_build_udp(frame, sizeof(frame), &last, pl, 4),
			       RC_ECHO, "198.19.18.5 in the 19th entry");
		expect_counter(x, frame,
			       tw_build_udp(frame, sizeof(frame), &out, pl, 4),
			       RC_DROP_ACL, "198.18.0.9 outside");
		expect_counter(
			x, frame,
			tw_build_udp(frame, sizeof(frame), &last_out, pl, 4),
			RC_DROP_ACL, "198.19.19.5 outside");
		expect_counter(x, frame,
			       build_icmp(frame, sizeof(frame), 0xc6120009u),
			       RC_DROP_ACL, "ICMP from 198.18.0.9");
	}
	/* A fragment from outside takes no reassembly buffer. */
	{
		struct codec_flow out = flow(0xc6120009u, 40000, 7);
		static uint8_t big[4096], frags[4][1600];
		size_t flen[4];
		int len;

		len = codec_build_udp(big, sizeof(big), &out, 77,
				      big + codec_udp_header_len(&out), 3000);
		assert_true(len > 0);
		assert_int_equal(fragment(big, (size_t)len, frags, flen, 4), 3);
		expect_counter(x, frags[0], flen[0], RC_DROP_ACL,
			       "fragment from 198.18.0.9");
		assert_int_equal(rc(x, RC_FRAGMENTS), 0);
	}
	/* ARP from outside the list is still answered. */
	{
		int len = codec_build_arp(frame, sizeof(frame),
					  CODEC_ARP_REQUEST, &tw_prober_mac,
					  0xc6120009u, NULL, TW_REFL_IP);

		assert_true(len > 0);
		expect_counter(x, frame, (size_t)len, RC_ARP, "ARP, outside");
	}
}

/* Item: --rate-limit
 * ----------------------------------------------------------- */

static void
test_rate_limit(void **state)
{
	struct fx *x = *state;
	uint8_t frame[256];
	const unsigned burst = REFLECTOR_RATE_BURST(100);
	unsigned answered = 0;

	assert_int_equal(burst, 16);
	assert_int_equal(REFLECTOR_RATE_BURST(1000), 100);
	x->rc.rate_limit_pps = 100;
	refl_restart(x);
	/* 40 requests at once from one source: the burst goes through. */
	for (unsigned i = 0; i < 40; i++) {
		tw_inject(x->f, 1, frame,
			  build_icmp(frame, sizeof(frame), TW_PROBER_IP));
		reflector_poll(&x->rw);
		answered += tw_drain(x->f, 0);
	}
	assert_int_equal(answered, burst);
	assert_int_equal(rc(x, RC_DROP_RATE), 40 - burst);
	/* Another source has its own bucket. */
	expect_counter(x, frame, build_icmp(frame, sizeof(frame), TW_OTHER_IP),
		       RC_ICMP, "another source");
	/* 10 ms later: one more request (100/s) for the first source. */
	io_fake_advance(x->f, TW_TSC_HZ / 100);
	expect_counter(x, frame, build_icmp(frame, sizeof(frame), TW_PROBER_IP),
		       RC_ICMP, "after 10 ms");
	expect_counter(x, frame, build_icmp(frame, sizeof(frame), TW_PROBER_IP),
		       RC_DROP_RATE, "right after");
	/* A second later the whole burst is back. */
	io_fake_advance(x->f, TW_TSC_HZ);
	answered = 0;
	for (unsigned i = 0; i < 40; i++) {
		struct codec_flow fl = flow(TW_PROBER_IP, 40000, 7);

		tw_inject(x->f, 1, frame,
			  tw_build_udp(frame, sizeof(frame), &fl,
				       (const uint8_t *)"x", 1));
		reflector_poll(&x->rw);
		answered += tw_drain(x->f, 0);
	}
	assert_int_equal(answered, burst);
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/* The table is bounded: 5000 sources, the least recently seen go. */
static void
test_rate_limit_table_bounded(void **state)
{
	struct fx *x = *state;
	uint8_t frame[256];

	x->rc.rate_limit_pps = 1;
	refl_restart(x);
	/* TW_PROBER_IP uses its whole burst (16). */
	for (unsigned i = 0; i < 17; i++) {
		tw_inject(x->f, 1, frame,
			  build_icmp(frame, sizeof(frame), TW_PROBER_IP));
		reflector_poll(&x->rw);
	}
	assert_int_equal(rc(x, RC_DROP_RATE), 1);
	for (unsigned i = 0; i < 5000; i++) {
		tw_inject(x->f, 1, frame,
			  build_icmp(frame, sizeof(frame), 0xc6130000u + i));
		if (i % 32 == 31 || i == 4999)
			reflector_poll(&x->rw);
		tw_drain(x->f, 0);
	}
	assert_int_equal(rc(x, RC_ICMP), 16 + 5000);
	assert_int_equal(lru_count(x->rw.rate), REFLECTOR_RATE_SOURCES);
	/* TW_PROBER_IP was evicted: it starts again with a full bucket. */
	expect_counter(x, frame, build_icmp(frame, sizeof(frame), TW_PROBER_IP),
		       RC_ICMP, "evicted source");
}

/* Item: stateful session table
 * -------------------------------------------------- */

static uint32_t
stamp_answer_seq(struct fx *x)
{
	uint8_t ans[256];
	struct stamp_reflector s;
	struct codec_frame f;
	size_t len = take_one(x, ans, sizeof(ans));

	assert_int_equal(codec_parse_frame(ans, len, &f), 0);
	assert_int_equal(
		stamp_reflector_parse(ans + f.payload_off, f.payload_len, &s),
		0);
	return s.seq;
}

static uint32_t
one_stamp(struct fx *x, uint32_t src, uint16_t sport, uint32_t sender_seq)
{
	struct codec_flow fl = flow(src, sport, STAMP_PORT);
	uint8_t frame[256];

	tw_inject(x->f, 1, frame,
		  build_stamp(frame, sizeof(frame), &fl, sender_seq, 1));
	assert_int_equal(reflector_poll(&x->rw), 1);
	return stamp_answer_seq(x);
}

/*
 * 100,000 sessions (source address and port), 25 times the table: the
 * least recently seen make room, and every new session still counts its
 * own answers from 0 (RFC 8972 §4), never falls back to the sender's.
 */
static void
test_sessions_100k(void **state)
{
	struct fx *x = *state;
	const unsigned n = 100000;
	struct io_queue *pq = io_fake_queue(x->f, 0);
	uint8_t frame[256];

	x->rc.stateful = true;
	refl_restart(x);
	for (unsigned i = 0; i < n; i++) {
		struct codec_flow fl =
			flow(0xc6130000u + (i >> 12),
			     (uint16_t)(1024 + (i & 4095)), STAMP_PORT);

		tw_inject(x->f, 1, frame,
			  build_stamp(frame, sizeof(frame), &fl, 9, 1));
		if (i % 32 == 31 || i == n - 1) {
			struct rte_mbuf *m[32];
			uint16_t got;

			reflector_poll(&x->rw);
			got = io_rx(pq, m, 32);
			for (uint16_t k = 0; k < got; k++) {
				const uint8_t *b =
					rte_pktmbuf_mtod(m[k], const uint8_t *);
				struct stamp_reflector s;
				struct codec_frame f;

				assert_int_equal(codec_parse_frame(
							 b, m[k]->data_len, &f),
						 0);
				assert_int_equal(stamp_reflector_parse(
							 b + f.payload_off,
							 f.payload_len, &s),
						 0);
				if (s.seq != 0)
					fail_msg("session %u answered with "
						 "seq %u",
						 i, s.seq);
				io_free(pq, m[k]);
			}
		}
	}
	assert_int_equal(rc(x, RC_STAMP), n);
	assert_int_equal(x->rw.n_sessions, REFLECTOR_SESSIONS);
	assert_int_equal(rc(x, RC_STATEFUL_FULL), n - REFLECTOR_SESSIONS);
	/* A new one, then the newest old one goes on counting. */
	assert_int_equal(one_stamp(x, TW_PROBER_IP, 50000, 9), 0);
	assert_int_equal(one_stamp(x, TW_PROBER_IP, 50000, 10), 1);
	assert_int_equal(one_stamp(x, 0xc6130000u + ((n - 1) >> 12),
				   (uint16_t)(1024 + ((n - 1) & 4095)), 10),
			 1);
	/* The oldest was evicted long ago: from 0 again. */
	assert_int_equal(one_stamp(x, 0xc6130000u, 1024, 10), 0);
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
}

/* A session idle for longer than the timeout starts again at 0. */
static void
test_session_ages_out(void **state)
{
	struct fx *x = *state;

	x->rc.stateful = true;
	x->rc.session_idle_s = 300;
	refl_restart(x);
	assert_int_equal(one_stamp(x, TW_PROBER_IP, 40000, 1), 0);
	assert_int_equal(one_stamp(x, TW_PROBER_IP, 40000, 2), 1);
	io_fake_advance(x->f, 299 * TW_TSC_HZ);
	assert_int_equal(one_stamp(x, TW_PROBER_IP, 40000, 3), 2);
	assert_int_equal(rc(x, RC_SESSION_EXPIRED), 0);
	io_fake_advance(x->f, 301 * TW_TSC_HZ);
	assert_int_equal(one_stamp(x, TW_OTHER_IP, 40000, 1), 0);
	/* The idle one went when the other came in (aged out). */
	assert_int_equal(rc(x, RC_SESSION_EXPIRED), 1);
	assert_int_equal(x->rw.n_sessions, 1);
	assert_int_equal(one_stamp(x, TW_PROBER_IP, 40000, 4), 0);
	assert_int_equal(rc(x, RC_STATEFUL_FULL), 0);
}

/* The table's own rules. */
/*
 * The session and rate tables' hashes are keyed by a seed drawn when the
 * worker starts (getrandom): a peer that learnt one reflector's chains
 * cannot aim at another's. Two workers, two tables each: four seeds, all
 * different (a fixed or shared seed would repeat).
 */
static void
test_tables_seeded(void **state)
{
	struct fx *x = *state;
	struct reflector_worker w2;
	uint64_t s[4];

	x->rc.stateful = true;
	x->rc.rate_limit_pps = 1000;
	refl_restart(x);
	assert_int_equal(reflector_worker_init(&w2, &x->rc, &x->q), 0);
	s[0] = lru_seed(x->rw.sessions);
	s[1] = lru_seed(x->rw.rate);
	s[2] = lru_seed(w2.sessions);
	s[3] = lru_seed(w2.rate);
	reflector_worker_fini(&w2);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = i + 1; j < 4; j++)
			if (s[i] == s[j])
				fail_msg("tables %u and %u share seed %llx", i,
					 j, (unsigned long long)s[i]);
}

static void
test_lru(void **state)
{
	struct lru *l = lru_create(3, 12345);
	struct lru_hit h;

	(void)state;
	assert_non_null(l);
	for (uint64_t k = 1; k <= 3; k++) {
		lru_get(l, k, 0, 10 * k, &h);
		assert_false(h.found);
		assert_false(h.evicted);
		*h.val = 100 + k;
	}
	lru_get(l, 1, 0, 40, &h); /* 1 is now the newest */
	assert_true(h.found);
	assert_int_equal(*h.val, 101);
	assert_int_equal(h.last_seen, 10);
	lru_get(l, 4, 0, 50, &h); /* evicts 2, the least recently seen */
	assert_true(h.evicted);
	assert_int_equal(h.evicted_last_seen, 20);
	lru_get(l, 2, 0, 60, &h); /* 2 is gone: new; evicts 3 */
	assert_false(h.found);
	assert_int_equal(*h.val, 0);
	assert_int_equal(h.evicted_last_seen, 30);
	lru_get(l, 1, 1, 60, &h); /* the second key word counts */
	assert_false(h.found);
	assert_true(h.evicted); /* 1, seen at 40 */
	assert_int_equal(h.evicted_last_seen, 40);
	assert_int_equal(lru_count(l), 3);
	/* Only 4 (50) is older than 55. */
	assert_int_equal(lru_expire(l, 55, 8), 1);
	assert_int_equal(lru_expire(l, 55, 8), 0);
	assert_int_equal(lru_count(l), 2);
	/* Both left are older than 61: at most max at a time. */
	assert_int_equal(lru_expire(l, 61, 1), 1);
	assert_int_equal(lru_count(l), 1);
	lru_get(l, 7, 0, 70, &h);
	assert_false(h.evicted);
	lru_get(l, 8, 0, 80, &h);
	assert_false(h.evicted);
	assert_int_equal(lru_count(l), 3);
	lru_destroy(l);
	assert_null(lru_create(0, 1));
}

/* Item: VLAN
 * -------------------------------------------------------------------- */

static void
test_vlan_kept(void **state)
{
	struct fx *x = *state;
	uint8_t frame[256], ans[256];

	for (unsigned k = 0; k < 4; k++) {
		struct codec_flow fl =
			flow(TW_PROBER_IP, 40000, k == 1 ? 7 : 862);
		struct codec_frame f;
		size_t len, alen;

		fl.vlan = true;
		fl.vlan_tci = (uint16_t)(0x2000 | (100 + k));
		if (k == 0) {
			struct codec_frame a;
			int l = codec_build_arp(
				frame + 4, sizeof(frame) - 4, CODEC_ARP_REQUEST,
				&tw_prober_mac, TW_PROBER_IP, NULL, TW_REFL_IP);

			/* codec_build_arp makes no tag: put one in. */
			assert_true(l > 0);
			memmove(frame, frame + 4, 12);
			frame[12] = 0x81;
			frame[13] = 0x00;
			frame[14] = (uint8_t)(fl.vlan_tci >> 8);
			frame[15] = (uint8_t)fl.vlan_tci;
			len = (size_t)l + 4;
			assert_int_equal(codec_parse_frame(frame, len, &a), 0);
			assert_true(a.has_vlan);
		} else if (k == 1) {
			len = tw_build_udp(frame, sizeof(frame), &fl,
					   (const uint8_t *)"vlan", 4);
		} else if (k == 2) {
			len = build_stamp(frame, sizeof(frame), &fl, 1, 1);
		} else {
			int l = codec_build_icmp_echo(
				frame, sizeof(frame), &fl,
				CODEC_ICMP_ECHO_REQUEST, 1, 1,
				(const uint8_t *)"vlan", 4);

			assert_true(l > 0);
			len = (size_t)l;
		}
		tw_inject(x->f, 1, frame, len);
		assert_int_equal(reflector_poll(&x->rw), 1);
		alen = take_one(x, ans, sizeof(ans));
		assert_int_equal(codec_parse_frame(ans, alen, &f), 0);
		if (!f.has_vlan || f.vlan_tci != fl.vlan_tci)
			fail_msg("answer %u lost its VLAN tag %04x", k,
				 fl.vlan_tci);
		assert_memory_equal(&f.dst, &tw_prober_mac, 6);
		assert_memory_equal(&f.src, &tw_refl_mac, 6);
		if (k == 0) {
			assert_int_equal(f.arp_op, CODEC_ARP_REPLY);
			assert_int_equal(f.arp_spa, TW_REFL_IP);
			assert_int_equal(f.arp_tpa, TW_PROBER_IP);
			assert_memory_equal(&f.arp_tha, &tw_prober_mac, 6);
			assert_memory_equal(&f.arp_sha, &tw_refl_mac, 6);
			/* 46 bytes of tagged ARP, padded. */
			assert_int_equal(alen, IO_ETH_MIN_LEN);
		} else {
			assert_true(codec_l4_csum_ok(ans, &f));
		}
	}
}

/* Item: one set of defaults
 * ------------------------------------------------------ */

/*
 * A reflector with a clock feed stamps T2/T3 through the feed's
 * mapping and sends its Error Estimate, from the first answer on; a new
 * mapping published while it runs is taken after the burst in hand, on
 * the fast path (one frame) and the generic one (two) alike.
 */
static void
stamp_ts_of(struct fx *x, uint16_t *ee, uint64_t *t2)
{
	uint8_t buf[256];
	size_t len = tw_take_one(x->f, 0, buf, sizeof(buf));
	struct stamp_reflector s;
	struct codec_frame f;

	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_int_equal(
		stamp_reflector_parse(buf + f.payload_off, f.payload_len, &s),
		0);
	*ee = s.error_estimate;
	*t2 = stamp_ts_to_ns(s.rx_timestamp, s.error_estimate);
}

static void
test_utc_feed(void **state)
{
	struct fx *x = *state;
	struct codec_flow fl = flow(TW_PROBER_IP, 40000, STAMP_PORT);
	struct clock_feed feed;
	struct clock_map m = {0};
	uint8_t frame[256];
	size_t len = build_stamp(frame, sizeof(frame), &fl, 1, 0);
	uint64_t t2;
	uint16_t ee;

	memset(&feed, 0, sizeof(feed));
	m.anchor = x->rc.anchor;
	m.anchor.realtime_ns += 5000000000ull; /* the feed's clock: +5 s */
	assert_int_equal(tsc_clock_init(&m.clock, TW_TSC_HZ), 0);
	clock_feed_publish(&feed, &m, 40, 0x8000 | 1 << 8 | 86);
	x->rc.utc_feed = &feed;
	refl_restart(x);
	tw_inject(x->f, 1, frame, len);
	assert_int_equal(reflector_poll(&x->rw), 1);
	stamp_ts_of(x, &ee, &t2);
	assert_int_equal(ee, 0x8000 | 1 << 8 | 86);
	assert_true(t2 >= TW_ANCHOR_NS + 5000000000ull &&
		    t2 < TW_ANCHOR_NS + 6000000000ull);
	/* Published now: this burst still has the old one, the next the
	 * new (+10 s, S clear). */
	m.anchor.realtime_ns += 5000000000ull;
	clock_feed_publish(&feed, &m, 900, 4 << 8 | 240);
	tw_inject(x->f, 1, frame, len);
	assert_int_equal(reflector_poll(&x->rw), 1);
	stamp_ts_of(x, &ee, &t2);
	assert_int_equal(ee, 0x8000 | 1 << 8 | 86);
	for (unsigned n = 1; n <= 2; n++) {
		for (unsigned k = 0; k < n; k++)
			tw_inject(x->f, 1, frame, len);
		assert_int_equal(reflector_poll(&x->rw), n);
		for (unsigned k = 0; k < n; k++) {
			stamp_ts_of(x, &ee, &t2);
			assert_int_equal(ee, 4 << 8 | 240);
			assert_true(t2 >= TW_ANCHOR_NS + 10000000000ull &&
				    t2 < TW_ANCHOR_NS + 11000000000ull);
		}
	}
	assert_int_equal(tw_drain(x->f, 0), 0);
	x->rc.utc_feed = NULL;
}

static void
test_conf_default(void **state)
{
	struct reflector_conf c;

	(void)state;
	memset(&c, 0xa5, sizeof(c));
	reflector_conf_default(&c);
	assert_int_equal(c.stamp_port, 862);
	assert_int_equal(c.sockperf_port, 11111);
	assert_int_equal(c.echo_port, 7);
	assert_int_equal(c.n_reasm, 4);
	assert_int_equal(c.reasm_timeout_ns, 1000000000ull);
	assert_int_equal(c.error_estimate, REFLECTOR_ERROR_ESTIMATE);
	assert_int_equal(c.session_idle_s, 300);
	assert_false(c.stateful);
	assert_false(c.allow_low_sport);
	assert_int_equal(c.n_allow, 0);
	assert_int_equal(c.rate_limit_pps, 0);
	assert_int_equal(c.addr, 0);
}

/* Item: loopback decorator
 * ------------------------------------------------------- */

/* net_ring: what side 0 sends comes back on side 0's rx. */
static void
mirror_hook(void *arg)
{
	struct io_fake *f = arg;
	struct io_queue *q1 = io_fake_queue(f, 1);
	struct rte_mbuf *m[32];
	uint16_t n;

	while ((n = io_rx(q1, m, 32)) > 0)
		assert_int_equal(io_tx(q1, m, n), n);
}

static void
test_loopback_io(void **state)
{
	struct fx *x = *state;
	static const atomic_bool no_stop;
	struct loopback_io *lo = aligned_alloc(64, sizeof(*lo));
	struct prober_worker *pw = aligned_alloc(64, sizeof(*pw));
	struct prober_conf pc;
	struct reflector_conf rc;
	struct rte_mbuf *m[4];
	uint8_t frame[256];
	struct codec_flow other = flow(TW_OTHER_IP, 40000, 40001);

	assert_non_null(lo);
	assert_non_null(pw);
	io_fake_set_peer(x->f, 0, mirror_hook, x->f);
	reflector_conf_default(&rc);
	rc.addr = TW_REFL_IP;
	rc.mac = tw_prober_mac; /* one port: the prober's MAC */
	rc.clock = x->rc.clock;
	rc.anchor = x->rc.anchor;
	assert_int_equal(loopback_io_init(lo, io_fake_queue(x->f, 0), &rc), 0);

	memset(&pc, 0, sizeof(pc));
	pc.proto = &probe_proto_stamp;
	pc.flow.src_mac = tw_prober_mac;
	pc.flow.dst_mac = tw_prober_mac;
	pc.flow.ip_version = 4;
	pc.flow.src4 = TW_PROBER_IP;
	pc.flow.dst4 = TW_REFL_IP;
	pc.flow.sport = 40000;
	pc.flow.dport = STAMP_PORT;
	pc.size = STAMP_BASE_LEN;
	pc.count = 50;
	pc.warmup = 2;
	pc.timeout_cycles = 10000;
	pc.clock = x->rc.clock;
	pc.anchor = x->rc.anchor;
	assert_int_equal(prober_worker_init(pw, &pc, &lo->q, 0), 0);
	assert_int_equal(prober_worker_run(pw, &no_stop), 0);
	assert_int_equal(pw->st.sent, 50);
	assert_int_equal(pw->st.received, 50);
	assert_int_equal(pw->st.lost, 0);
	assert_int_equal(reflector_counter_read(&lo->refl, RC_STAMP), 52);
	assert_int_equal(pw->turnaround.total, 50);
	prober_worker_fini(pw);

	/* A frame not for the reflector goes up to the prober as it is. */
	other.dst4 = TW_PROBER_IP;
	other.dst_mac = tw_prober_mac;
	assert_int_equal(
		io_fake_inject(x->f, 0, frame,
			       tw_build_udp(frame, sizeof(frame), &other,
					    (const uint8_t *)"up", 2)),
		0);
	assert_int_equal(io_rx(&lo->q, m, 4), 1);
	assert_int_equal(m[0]->data_len,
			 tw_build_udp(frame, sizeof(frame), &other,
				      (const uint8_t *)"up", 2));
	assert_memory_equal(rte_pktmbuf_mtod(m[0], const uint8_t *), frame,
			    m[0]->data_len);
	io_free(&lo->q, m[0]);
	/* An ARP request for the reflector's address is answered below. */
	{
		int len = codec_build_arp(frame, sizeof(frame),
					  CODEC_ARP_REQUEST, &tw_refl_mac,
					  TW_OTHER_IP, NULL, TW_REFL_IP);

		assert_true(len > 0);
		assert_int_equal(io_fake_inject(x->f, 0, frame, (size_t)len),
				 0);
		/* Consumed by the reflector; its answer is mirrored back. */
		assert_int_equal(io_rx(&lo->q, m, 4), 0);
		assert_int_equal(reflector_counter_read(&lo->refl, RC_ARP), 1);
		assert_int_equal(io_rx(&lo->q, m, 4), 1);
		io_free(&lo->q, m[0]);
	}
	io_fake_set_peer(x->f, 0, NULL, NULL);
	loopback_io_fini(lo);
	assert_int_equal(io_fake_mbufs_in_use(x->f), 0);
	free(lo);
	free(pw);
}

/* Every reflector counter is documented in docs/usage.md under its name,
 * in backquotes (the JSON key and the text report's label). */
static void
test_counters_documented(void **state)
{
	FILE *f = fopen(USAGE_MD, "r");
	char *doc;
	long n;

	(void)state;
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	doc = calloc(1, (size_t)n + 1);
	assert_non_null(doc);
	assert_int_equal(fread(doc, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	for (unsigned c = 0; c < RC__COUNT; c++) {
		char want[64];

		snprintf(want, sizeof(want), "`%s`", reflector_counter_name(c));
		if (strstr(doc, want) == NULL)
			fail_msg("counter %s is not in docs/usage.md", want);
	}
	free(doc);
}

int
main(void)
{
	static const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_big_burst_answers_finished),
		T(test_answers_in_bursts),
		T(test_udp_sums),
		T(test_udp_tx_offload),
		T(test_ip_csum_none),
		T(test_fragment_sums),
		T(test_icmp_sum_updated),
		T(test_stamp_shorter_than_14),
		T(test_loop_and_martians),
		T(test_loopback_address_answers_local),
		T(test_allow_list),
		T(test_rate_limit),
		T(test_rate_limit_table_bounded),
		T(test_sessions_100k),
		T(test_tables_seeded),
		T(test_session_ages_out),
		T(test_vlan_kept),
		T(test_loopback_io),
		T(test_utc_feed),
		cmocka_unit_test(test_lru),
		cmocka_unit_test(test_conf_default),
		cmocka_unit_test(test_counters_documented),
#undef T
	};

	return cmocka_run_group_tests_name("reflector", tests, NULL, NULL);
}
