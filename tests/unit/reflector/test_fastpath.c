/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflector's STAMP fast path against its generic path: two reflectors
 * with the same configuration, one with the fast path (the default), one
 * without (no_fast_path), get the same frames with the same rx offload
 * flags, T2 and T3. Their answers must be the same bytes, in the same
 * order, and every counter must have moved alike (a frame both drop is
 * dropped under the same reason). Frames: the golden STAMP vectors, edge
 * cases (checksums 0 and 0xffff, TTL 0/1/255, padding, VLAN, bad sums,
 * truncation, every reason to leave the fast path) and thousands of random
 * mutations of a valid probe. Each case also says whether the fast path
 * must have answered, so a fast path that never runs fails too.
 */
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

#include "latprobe/byteorder.h"
#include "latprobe/codec.h"
#include "latprobe/reflector.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "test_wire.h"

#include "../codec_stamp/vectors/stamp_golden.h"

#define N_MBUFS	  256
#define FRAME_MAX 256
#define MAX_BURST 8

/* One reflector on side 1 of its own fake wire, its clock pinned to the
 * T2 and T3 the test sets (io_fake_pin_clock). */
struct side {
	struct io_fake *f;
	struct reflector_conf rc;
	struct reflector_worker rw;
	bool ready;
};

struct pair {
	struct side s[2];	 /* 0: fast path on, 1: generic path only */
	uint8_t last[FRAME_MAX]; /* the first answer of the last compare() */
	size_t last_len;	 /* 0: there was none */
};

static void
side_restart(struct side *s)
{
	if (s->ready)
		reflector_worker_fini(&s->rw);
	assert_int_equal(
		reflector_worker_init(&s->rw, &s->rc, io_fake_queue(s->f, 1)),
		0);
	s->ready = true;
}

static int
setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return -1;
	for (unsigned i = 0; i < 2; i++) {
		struct side *s = &p->s[i];

		s->f = io_fake_create(N_MBUFS, 1500);
		if (s->f == NULL)
			return -1;
		io_fake_pin_clock(s->f, 1, 0, 0);
		reflector_conf_default(&s->rc);
		s->rc.addr = TW_REFL_IP;
		s->rc.prefix_len = 24;
		s->rc.mac = tw_refl_mac;
		s->rc.anchor.realtime_ns = TW_ANCHOR_NS;
		s->rc.anchor.tsc = 1000;
		s->rc.no_fast_path = i == 1;
		if (tsc_clock_init(&s->rc.clock, TW_TSC_HZ) != 0)
			return -1;
		if (reflector_worker_init(&s->rw, &s->rc,
					  io_fake_queue(s->f, 1)) != 0)
			return -1;
		s->ready = true;
	}
	*state = p;
	return 0;
}

static int
teardown(void **state)
{
	struct pair *p = *state;

	for (unsigned i = 0; i < 2; i++) {
		if (p->s[i].ready)
			reflector_worker_fini(&p->s[i].rw);
		io_fake_destroy(p->s[i].f);
	}
	free(p);
	return 0;
}

/* The same configuration change on both sides (then a restart). */
#define BOTH(p, ...)                                                           \
	do {                                                                   \
		for (unsigned k_ = 0; k_ < 2; k_++) {                          \
			struct reflector_conf *c_ = &(p)->s[k_].rc;            \
			__VA_ARGS__;                                           \
			side_restart(&(p)->s[k_]);                             \
		}                                                              \
	} while (0)

struct burst {
	uint8_t b[MAX_BURST][FRAME_MAX];
	size_t len[MAX_BURST];
	unsigned n;
};

/*
 * Both reflectors get burst b with rx offload flags ol, T2 t2 and T3 t3;
 * answers and counters must be the same. Returns how many answers the fast
 * path made.
 */
static unsigned
compare(struct pair *p, const struct burst *b, uint64_t ol, uint64_t t2,
	uint64_t t3, const char *what)
{
	uint8_t out[2][MAX_BURST][FRAME_MAX];
	size_t olen[2][MAX_BURST];
	unsigned nout[2];
	uint64_t fast_before = p->s[0].rw.fast_answers;

	assert_int_equal(p->s[1].rw.fast_answers, 0);
	for (unsigned i = 0; i < 2; i++) {
		struct side *s = &p->s[i];

		io_fake_pin_clock(s->f, 1, t2, t3);
		io_fake_set_rx_ol_flags(s->f, 1, ol);
		for (unsigned j = 0; j < b->n; j++)
			tw_inject(s->f, 1, b->b[j], b->len[j]);
		assert_int_equal(reflector_poll(&s->rw), b->n);
		nout[i] = 0;
		for (;;) {
			struct io_queue *peer = io_fake_queue(s->f, 0);
			struct rte_mbuf *m;

			if (io_rx(peer, &m, 1) != 1)
				break;
			assert_true(nout[i] < MAX_BURST);
			assert_true(m->data_len <= FRAME_MAX);
			memcpy(out[i][nout[i]], rte_pktmbuf_mtod(m, uint8_t *),
			       m->data_len);
			olen[i][nout[i]++] = m->data_len;
			io_free(peer, m);
		}
		assert_int_equal(io_fake_mbufs_in_use(s->f), 0);
	}
	if (nout[0] != nout[1])
		fail_msg("%s: %u answers with the fast path, %u without", what,
			 nout[0], nout[1]);
	for (unsigned j = 0; j < nout[0]; j++) {
		if (olen[0][j] != olen[1][j])
			fail_msg("%s: answer %u: %zu bytes vs %zu", what, j,
				 olen[0][j], olen[1][j]);
		for (size_t k = 0; k < olen[0][j]; k++)
			if (out[0][j][k] != out[1][j][k])
				fail_msg("%s: answer %u differs at byte %zu: "
					 "0x%02x with the fast path, 0x%02x "
					 "without",
					 what, j, k, out[0][j][k],
					 out[1][j][k]);
	}
	p->last_len = nout[0] > 0 ? olen[0][0] : 0;
	if (nout[0] > 0)
		memcpy(p->last, out[0][0], olen[0][0]);
	for (unsigned c = 0; c < RC__COUNT; c++)
		if (reflector_counter_read(&p->s[0].rw, c) !=
		    reflector_counter_read(&p->s[1].rw, c))
			fail_msg("%s: counter %s: %llu vs %llu", what,
				 reflector_counter_name(c),
				 (unsigned long long)reflector_counter_read(
					 &p->s[0].rw, c),
				 (unsigned long long)reflector_counter_read(
					 &p->s[1].rw, c));
	if (p->s[0].rw.turnaround.total != p->s[1].rw.turnaround.total ||
	    p->s[0].rw.turnaround.sum != p->s[1].rw.turnaround.sum)
		fail_msg("%s: turnaround histograms differ", what);
	return (unsigned)(p->s[0].rw.fast_answers - fast_before);
}

/* One frame; want_fast: whether the fast path must have answered it. */
static void
compare_one(struct pair *p, const uint8_t *frame, size_t len, uint64_t ol,
	    bool want_fast, const char *what)
{
	struct burst b;
	unsigned fast;

	assert_true(len <= FRAME_MAX);
	b.n = 1;
	memcpy(b.b[0], frame, len);
	b.len[0] = len;
	fast = compare(p, &b, ol, 123456789, 123459999, what);
	if (fast != (want_fast ? 1u : 0u))
		fail_msg("%s: the fast path %s", what,
			 want_fast ? "did not answer" : "answered");
}

static struct codec_flow
flow(uint16_t sport, uint16_t dport)
{
	return tw_flow4(&tw_prober_mac, &tw_refl_mac, TW_PROBER_IP, TW_REFL_IP,
			sport, dport);
}

/* A STAMP request from the prober with payload pl (both checksums set). */
static size_t
build(uint8_t *buf, const struct codec_flow *fl, const uint8_t *pl, size_t plen)
{
	return tw_build_udp(buf, FRAME_MAX, fl, pl, plen);
}

/* Offsets in an untagged IPv4/UDP frame. */
#define IP  14
#define UDP 34
#define PL  42

static void
fix_ip_sum(uint8_t *frame, size_t l3)
{
	uint16_t c = 0;

	memcpy(frame + l3 + 10, &c, 2);
	c = codec_csum_fold(codec_csum_partial(frame + l3, 20, 0));
	memcpy(frame + l3 + 10, &c, 2);
}

static void
fix_udp_sum(uint8_t *frame, size_t len)
{
	struct codec_frame f;

	if (codec_parse_frame(frame, len, &f) == 0 && f.payload_off != 0 &&
	    f.ip_proto == CODEC_IPPROTO_UDP && !f.is_fragment)
		codec_l4_csum_set(frame, &f);
}

/* A valid 44-byte request (seq, timestamp, error estimate 1, SSID). */
static size_t
probe(uint8_t *buf, uint32_t seq, uint16_t ssid)
{
	struct codec_flow fl = flow(40000, STAMP_PORT);
	uint8_t pl[STAMP_BASE_LEN];

	tw_stamp_payload(pl, sizeof(pl), seq, ssid, TW_ANCHOR_NS + seq);
	return build(buf, &fl, pl, sizeof(pl));
}

/* The golden Session-Sender packets of tests/unit/codec_stamp/vectors: the
 * 44-byte ones take the fast path, TLVs and TWAMP-Light do not. */
static void
test_golden(void **state)
{
	struct pair *p = *state;
	uint8_t frame[FRAME_MAX];
	unsigned n_fast = 0;

	for (size_t i = 0; i < sizeof(stamp_golden) / sizeof(stamp_golden[0]);
	     i++) {
		const struct stamp_golden *g = &stamp_golden[i];
		struct codec_flow fl = flow(40000, STAMP_PORT);
		bool fast;

		if (strncmp(g->name, "sender_", 7) != 0)
			continue;
		fast = g->len == STAMP_BASE_LEN;
		n_fast += fast;
		compare_one(p, frame, build(frame, &fl, g->bytes, g->len), 0,
			    fast, g->name);
		/* The same with a TTL of 1 and a TOS */
		fl.ttl = 1;
		fl.tos = 0xb8;
		compare_one(p, frame, build(frame, &fl, g->bytes, g->len), 0,
			    fast, g->name);
	}
	assert_int_equal(n_fast, 2);
}

/* The answer's UDP checksum of a request (answered by the fast path). */
static uint16_t
answer_sum(struct pair *p, const uint8_t *frame, size_t len)
{
	uint16_t c;

	compare_one(p, frame, len, 0, true, "answer_sum");
	assert_int_equal(p->last_len, len);
	memcpy(&c, p->last + UDP + 6, 2);
	return c;
}

/* Add v to the SSID (payload bytes 14-15) in one's complement. */
static void
ssid_add(uint8_t *frame, uint16_t v)
{
	uint16_t s;
	uint32_t sum;

	memcpy(&s, frame + PL + 14, 2);
	sum = (uint32_t)s + v;
	sum = (sum & 0xffff) + (sum >> 16);
	s = (uint16_t)sum;
	memcpy(frame + PL + 14, &s, 2);
}

static void
test_checksum_edges(void **state)
{
	struct pair *p = *state;
	uint8_t frame[FRAME_MAX];
	size_t len = probe(frame, 7, 0x1234);
	uint16_t c, zero = 0;
	bool found;

	compare_one(p, frame, len, 0, true, "plain");

	/* No UDP checksum (RFC 768): answered without one. */
	memcpy(frame + UDP + 6, &zero, 2);
	compare_one(p, frame, len, 0, true, "udp checksum 0");

	/* A request whose checksum is 0xffff (its sum is zero). */
	len = probe(frame, 7, 0x1234);
	memcpy(&c, frame + UDP + 6, 2);
	ssid_add(frame, c);
	fix_udp_sum(frame, len);
	memcpy(&c, frame + UDP + 6, 2);
	assert_int_equal(c, 0xffff);
	compare_one(p, frame, len, 0, true, "request checksum 0xffff");

	/* An answer whose checksum comes out as zero, sent as 0xffff: move
	 * the request's sum (SSID, echoed unchanged) by what the answer's
	 * checksum was. */
	len = probe(frame, 9, 0x4321);
	c = answer_sum(p, frame, len);
	ssid_add(frame, c);
	fix_udp_sum(frame, len);
	c = answer_sum(p, frame, len);
	assert_int_equal(c, 0xffff);
	compare_one(p, frame, len, 0, true, "answer checksum 0xffff");

	/* IPv4 header checksum 0 in the request: vary the IP ID. */
	found = false;
	for (unsigned id = 0; id < 65536 && !found; id++) {
		len = probe(frame, 11, 1);
		frame[IP + 4] = (uint8_t)(id >> 8);
		frame[IP + 5] = (uint8_t)id;
		fix_ip_sum(frame, IP);
		found = frame[IP + 10] == 0 && frame[IP + 11] == 0;
	}
	assert_true(found);
	compare_one(p, frame, len, 0, true, "ip checksum 0");

	/* A wrong UDP checksum: verified unless the NIC says good, so
	 * dropped (the fast path leaves it to the generic one, which counts
	 * it); a partial one (the pseudo-header sum alone) and the NIC's
	 * NONE are the generic path's too, answered with a complete sum. */
	len = probe(frame, 13, 2);
	frame[UDP + 6] ^= 0x40;
	compare_one(p, frame, len, 0, false, "bad udp checksum");
	compare_one(p, frame, len, RTE_MBUF_F_RX_L4_CKSUM_BAD, false,
		    "bad udp checksum, NIC says bad");
	compare_one(p, frame, len, RTE_MBUF_F_RX_L4_CKSUM_GOOD, true,
		    "bad udp checksum, NIC says good");
	compare_one(p, frame, len, RTE_MBUF_F_RX_L4_CKSUM_NONE, false,
		    "bad udp checksum, NIC says none");
	len = probe(frame, 13, 2);
	compare_one(p, frame, len, 0, true, "good udp checksum");
	compare_one(p, frame, len, RTE_MBUF_F_RX_IP_CKSUM_NONE, false,
		    "good udp checksum, NIC says ip none");
	{
		/* Folded pseudo-header sum: addresses, protocol, length. */
		const uint8_t tail[4] = {0, CODEC_IPPROTO_UDP, 0, 52};
		uint16_t ps = (uint16_t)~codec_csum_fold(codec_csum_partial(
			tail, 4, codec_csum_partial(frame + IP + 12, 8, 0)));

		memcpy(frame + UDP + 6, &ps, 2);
		compare_one(p, frame, len, 0, false, "partial udp checksum");
	}
	memcpy(frame + UDP + 6, &zero, 2);
	compare_one(p, frame, len, 0, true, "udp checksum 0");

	/* A wrong IPv4 header checksum: dropped, unless the NIC says good. */
	len = probe(frame, 15, 3);
	frame[IP + 10] ^= 1;
	compare_one(p, frame, len, 0, false, "bad ip checksum");
	compare_one(p, frame, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true,
		    "bad ip checksum, NIC says good");
	len = probe(frame, 15, 3);
	compare_one(p, frame, len, RTE_MBUF_F_RX_IP_CKSUM_BAD, false,
		    "good ip checksum, NIC says bad");
	compare_one(p, frame, len,
		    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		    true, "NIC says both good");
}

static void
test_shapes(void **state)
{
	struct pair *p = *state;
	uint8_t frame[FRAME_MAX], pl[64];
	size_t len;
	struct codec_flow fl;

	/* TTL 0, 1, 255 */
	for (unsigned ttl = 0; ttl < 256; ttl += 1 + (ttl == 1) * 253) {
		char what[32];

		len = probe(frame, 21, 5);
		frame[IP + 8] = (uint8_t)ttl;
		fix_ip_sum(frame, IP);
		snprintf(what, sizeof(what), "ttl %u", ttl);
		compare_one(p, frame, len, 0, true, what);
	}
	/* Ethernet padding after the datagram, odd and even, kept as is. */
	for (size_t pad = 1; pad <= 18; pad += 5) {
		len = probe(frame, 23, 6);
		for (size_t i = 0; i < pad; i++)
			frame[len + i] = (uint8_t)(0xa0 + i);
		compare_one(p, frame, len + pad, 0, true, "padding");
	}
	/* 802.1Q tag */
	fl = flow(40000, STAMP_PORT);
	fl.vlan = true;
	fl.vlan_tci = 0x2064;
	tw_stamp_payload(pl, STAMP_BASE_LEN, 25, 7, TW_ANCHOR_NS);
	len = build(frame, &fl, pl, STAMP_BASE_LEN);
	compare_one(p, frame, len, 0, true, "vlan");
	/* Truncated: every length short of the whole frame, and a UDP length
	 * shorter than the IP payload. */
	len = probe(frame, 27, 8);
	for (size_t cut = 0; cut < len; cut++)
		compare_one(p, frame, cut, 0, false, "truncated");
	frame[UDP + 5] -= 2;
	fix_udp_sum(frame, len);
	compare_one(p, frame, len, 0, false, "udp length < ip payload");
	/* Payload sizes other than 44: TWAMP-Light, TLVs, odd lengths */
	for (size_t plen = 40; plen <= 61; plen++) {
		fl = flow(40000, STAMP_PORT);
		tw_stamp_payload(pl,
				 plen < STAMP_BASE_LEN ? STAMP_BASE_LEN : plen,
				 29, 9, TW_ANCHOR_NS);
		len = build(frame, &fl, pl, plen);
		compare_one(p, frame, len, 0, plen == STAMP_BASE_LEN,
			    "payload length");
	}
	/* MBZ not zero: a dirty STAMP byte, and TWAMP-Light padding */
	for (unsigned dirty = 1; dirty <= 28; dirty += 13) {
		len = probe(frame, 31, 10);
		for (unsigned i = 0; i < dirty; i++)
			frame[PL + 16 + i] = (uint8_t)(i + 1);
		fix_udp_sum(frame, len);
		compare_one(p, frame, len, 0, false, "mbz");
	}
	/* IP options, fragments, DF (fast), the reserved flag (fast) */
	len = probe(frame, 33, 11);
	frame[IP + 6] = 0x40;
	fix_ip_sum(frame, IP);
	compare_one(p, frame, len, 0, true, "DF");
	frame[IP + 6] = 0x80;
	fix_ip_sum(frame, IP);
	compare_one(p, frame, len, 0, true, "reserved flag");
	frame[IP + 6] = 0x20;
	fix_ip_sum(frame, IP);
	compare_one(p, frame, len, 0, false, "MF");
	frame[IP + 6] = 0;
	frame[IP + 7] = 1;
	fix_ip_sum(frame, IP);
	compare_one(p, frame, len, 0, false, "fragment offset");
	len = probe(frame, 33, 11);
	frame[IP] = 0x46;
	fix_ip_sum(frame, IP);
	compare_one(p, frame, len, 0, false, "ihl 6");
}

static void
test_not_answered_fast(void **state)
{
	struct pair *p = *state;
	static const uint16_t sports[] = {7,   13,    17,   19,	   37,
					  862, 1023,  1024, 11111, 7777,
					  0,   65535, 40000};
	static const uint32_t srcs[] = {0x00000001, 0x7f000001, 0xc61200ff,
					0xc6120002, 0xe0000001, 0xf0000001,
					0xffffffff, 0xc6130001};
	uint8_t frame[FRAME_MAX], pl[STAMP_BASE_LEN];
	struct codec_flow fl;

	tw_stamp_payload(pl, sizeof(pl), 41, 12, TW_ANCHOR_NS);
	for (size_t i = 0; i < sizeof(sports) / sizeof(sports[0]); i++) {
		bool fast = sports[i] >= 1024 && sports[i] != SOCKPERF_PORT;

		fl = flow(sports[i], STAMP_PORT);
		compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0,
			    fast, "source port");
	}
	BOTH(p, c_->allow_low_sport = true; c_->echo_port = 7777);
	for (size_t i = 0; i < sizeof(sports) / sizeof(sports[0]); i++) {
		fl = flow(sports[i], STAMP_PORT);
		compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0,
			    sports[i] == 1024 || sports[i] == 65535 ||
				    sports[i] == 40000,
			    "source port, low ports allowed");
	}
	BOTH(p, c_->allow_low_sport = false; c_->echo_port = 7);
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		fl = flow(40000, STAMP_PORT);
		fl.src4 = srcs[i];
		compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0,
			    srcs[i] == 0xc6130001, "source address");
	}
	/* --allow */
	BOTH(p, c_->n_allow = 1;
	     c_->allow[0] = (struct reflector_prefix){0xc6130000, 0xffff0000});
	fl = flow(40000, STAMP_PORT);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "outside --allow");
	fl.src4 = 0xc6130001;
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, true,
		    "inside --allow");
	BOTH(p, c_->n_allow = 0);
	/* Not for us: MAC (broadcast: generic path), address, port */
	fl = flow(40000, STAMP_PORT);
	fl.dst_mac = tw_other_mac;
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "other mac");
	memset(fl.dst_mac.b, 0xff, 6);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "broadcast mac");
	fl = flow(40000, STAMP_PORT);
	fl.dst4 = TW_OTHER_IP;
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "other address");
	fl = flow(40000, 863);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "other port");
	fl = flow(40000, STAMP_PORT);
	fl.src_mac.b[0] |= 1;
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "group source mac");
	/* Another STAMP port, another error estimate (PTP) */
	BOTH(p, c_->stamp_port = 8620; c_->error_estimate = 0x4001);
	fl = flow(40000, 8620);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, true,
		    "port 8620, PTP");
	fl = flow(40000, STAMP_PORT);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "port 862 when STAMP is on 8620");
	/* Configurations the fast path leaves to the generic one */
	BOTH(p, c_->stamp_port = STAMP_PORT;
	     c_->error_estimate = REFLECTOR_ERROR_ESTIMATE;
	     c_->stateful = true);
	fl = flow(40000, STAMP_PORT);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "stateful");
	BOTH(p, c_->stateful = false; c_->rate_limit_pps = 1000);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "rate limited");
	BOTH(p, c_->rate_limit_pps = 0; c_->stamp_port = 0);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, false,
		    "STAMP off");
	BOTH(p, c_->stamp_port = STAMP_PORT);
	compare_one(p, frame, build(frame, &fl, pl, sizeof(pl)), 0, true,
		    "STAMP on again");
}

/* Bursts that mix fast answers, generic answers and drops: same order. */
static void
test_mixed_bursts(void **state)
{
	struct pair *p = *state;
	struct burst b;
	struct codec_flow fl;
	uint8_t pl[64];
	unsigned fast;

	b.n = 0;
	b.len[b.n++] = probe(b.b[0], 51, 1);
	fl = flow(40000, STAMP_PORT);
	tw_stamp_payload(pl, 56, 52, 2, TW_ANCHOR_NS);
	b.len[b.n] = build(b.b[b.n], &fl, pl, 56); /* TLVs: generic */
	b.n++;
	fl = flow(40000, SOCKPERF_PORT);
	memset(pl, 0, sizeof(pl));
	assert_int_equal(
		sockperf_build(
			pl, sizeof(pl),
			&(struct sockperf_hdr){.seq = 7,
					       .flags = SOCKPERF_F_CLIENT |
							SOCKPERF_F_PONG_REQUEST,
					       .length = SOCKPERF_HDR_LEN}),
		SOCKPERF_HDR_LEN);
	b.len[b.n] = build(b.b[b.n], &fl, pl, SOCKPERF_HDR_LEN);
	b.n++;
	b.len[b.n] = probe(b.b[b.n], 53, 3);
	b.b[b.n][IP + 10] ^= 0xff; /* bad IP sum: dropped */
	b.n++;
	b.len[b.n] = probe(b.b[b.n], 54, 4);
	b.n++;
	fast = compare(p, &b, 0, 5000000, 5003000, "mixed burst");
	assert_int_equal(fast, 2);
}

static uint32_t rng = 0x2545f491;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* The NTP timestamp at ts (an answer's T2 or T3, named name) is TSC t on
 * rc's clock and anchor, within 5 units; hz for the message. */
static void
check_ntp(const uint8_t *ts, const struct reflector_conf *rc, uint64_t t,
	  const char *name, uint64_t hz)
{
	uint64_t got = util_get_be64(ts);
	uint64_t want = stamp_ntp_from_ns(
		tsc_anchor_to_realtime_ns(&rc->anchor, &rc->clock, t));

	if (got - want + 5 > 10)
		fail_msg("hz %llu %s %llu: %llx, want %llx",
			 (unsigned long long)hz, name, (unsigned long long)t,
			 (unsigned long long)got, (unsigned long long)want);
}

/*
 * T2, T3 and the turnaround at several TSC rates (tsc_clock_init()'s shift
 * above and below 64), spans and anchors: both paths write T2 and T3 within
 * 1 ns (5 units of 2^-32 s) of the conversion through ns
 * (tsc_anchor_to_realtime_ns(), stamp_ntp_from_ns()), and record
 * tsc_to_ns(T3 - T2) as the turnaround, to the ns.
 */
static void
test_clock_rates(void **state)
{
	static const uint64_t hzs[] = {1000000, 499999999, 1000000000,
				       2596122140ull, 4000000000ull};
	static const uint64_t t2s[] = {1001, 123456789, 1ull << 40,
				       (1ull << 47) + 3};
	static const uint64_t spans[] = {0, 1, 3210, 2596122, 7000000000ull};
	struct pair *p = *state;
	uint8_t frame[FRAME_MAX];

	for (size_t h = 0; h < sizeof(hzs) / sizeof(hzs[0]); h++) {
		for (unsigned i = 0; i < 2; i++) {
			assert_int_equal(
				tsc_clock_init(&p->s[i].rc.clock, hzs[h]), 0);
			side_restart(&p->s[i]);
		}
		for (size_t a = 0; a < sizeof(t2s) / sizeof(t2s[0]); a++) {
			for (size_t d = 0; d < sizeof(spans) / sizeof(spans[0]);
			     d++) {
				const struct reflector_conf *rc = &p->s[0].rc;
				uint64_t t2 = t2s[a], t3 = t2 + spans[d];
				uint64_t sum[2], ta;
				struct burst b;

				b.n = 1;
				b.len[0] = probe(b.b[0], (uint32_t)(a + d), 1);
				for (unsigned i = 0; i < 2; i++)
					sum[i] = p->s[i].rw.turnaround.sum;
				assert_int_equal(compare(p, &b, 0, t2, t3,
							 "clock rates"),
						 1);
				assert_int_equal(p->last_len, b.len[0]);
				memcpy(frame, p->last, p->last_len);
				ta = tsc_to_ns(&rc->clock, t3 - t2);
				for (unsigned i = 0; i < 2; i++)
					if (ta >= 1 &&
					    ta <= HISTOGRAM_HIGHEST_NS)
						assert_int_equal(
							p->s[i].rw.turnaround
									.sum -
								sum[i],
							ta);
				check_ntp(frame + PL + 16, rc, t2, "T2",
					  hzs[h]);
				check_ntp(frame + PL + 4, rc, t3, "T3", hzs[h]);
			}
		}
	}
}

/* Random requests, most of them valid, some mutated anywhere. */
static void
test_random(void **state)
{
	struct pair *p = *state;
	unsigned n_fast = 0, n_runs = 20000;

	for (unsigned r = 0; r < n_runs; r++) {
		struct burst b;
		struct codec_flow fl;
		uint8_t pl[STAMP_BASE_LEN];
		unsigned muts, fast;
		uint64_t t2 = rnd();
		size_t len;
		char what[48];

		fl = flow((uint16_t)(rnd() % 4 == 0 ? rnd() : 40000 + r),
			  STAMP_PORT);
		fl.ttl = (uint8_t)rnd();
		fl.tos = (uint8_t)rnd();
		fl.vlan = rnd() % 4 == 0;
		fl.vlan_tci = (uint16_t)rnd();
		memset(pl, 0, sizeof(pl));
		for (size_t i = 0; i < 16; i++)
			pl[i] = (uint8_t)rnd();
		len = build(b.b[0], &fl, pl, sizeof(pl));
		if (rnd() % 8 == 0)
			memset(b.b[0] + len - sizeof(pl) - 2, 0, 2);
		/* padding */
		if (rnd() % 4 == 0) {
			size_t pad = rnd() % 20;

			for (size_t i = 0; i < pad; i++)
				b.b[0][len + i] = (uint8_t)rnd();
			len += pad;
		}
		muts = rnd() % 3 == 0 ? 1 + rnd() % 3 : 0;
		for (unsigned m = 0; m < muts && len > 0; m++) {
			switch (rnd() % 4) {
			case 0: /* any byte */
				b.b[0][rnd() % len] ^=
					(uint8_t)(1u << (rnd() % 8));
				break;
			case 1: /* any byte, then the sums made right */
				b.b[0][rnd() % len] = (uint8_t)rnd();
				fix_ip_sum(b.b[0], fl.vlan ? IP + 4 : IP);
				fix_udp_sum(b.b[0], len);
				break;
			case 2: /* shorter */
				len = rnd() % (len + 1);
				break;
			default: /* a byte near the end, sums right */
				b.b[0]
				   [len - 1 -
				    rnd() % (len < sizeof(pl) ? len
							      : sizeof(pl))] =
					(uint8_t)rnd();
				fix_udp_sum(b.b[0], len);
				break;
			}
		}
		b.len[0] = len;
		b.n = 1;
		snprintf(what, sizeof(what), "random %u (%u mutations)", r,
			 muts);
		fast = compare(p, &b,
			       io_fake_rx_ol_cases[rnd() % IO_FAKE_RX_OL_CASES],
			       t2, t2 + rnd() % 100000, what);
		n_fast += fast;
	}
	/* Many were valid: the fast path answered them (5 of the 9 rx
	 * verdicts, BAD or NONE, are the generic path's, and a mutated
	 * frame's UDP sum is verified: about a third of the runs). */
	if (n_fast < n_runs / 5 || n_fast == n_runs)
		fail_msg("%u of %u random frames took the fast path", n_fast,
			 n_runs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checksum_edges, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_answered_fast, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mixed_bursts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clock_rates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_random, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
