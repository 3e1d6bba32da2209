/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prober's fast paths against its generic ones, byte for byte and count
 * for count:
 * - probe frames from the worker's template (copy, then sequence number,
 *   send time, IP ID and source port patched, checksums by RFC 1624) are
 *   the frames the protocol's build() makes, for every protocol that has a
 *   template, IPv4 and IPv6, tagged or not, many sequence numbers, send
 *   times and source ports, every IPv4 ID, and the checksum edge cases
 *   (a UDP checksum computed as 0 goes out as 0xffff);
 * - answers taken by the UDP fast path (no codec_parse_frame) end exactly
 *   as the generic path ends them (the same protocol without
 *   match_payload): every byte of an answer flipped, cut short, padded,
 *   with and without the NIC's checksum verdicts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/byteorder.h"
#include "latprobe/codec.h"
#include "latprobe/prober.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "test_wire.h"

#define N_MBUFS 64
#define SPORT	40000
#define VLAN_ID 100

static const uint8_t prober_ip6[16] = {0x20, 0x01, 0, 2, [15] = 1};
static const uint8_t refl_ip6[16] = {0x20, 0x01, 0, 2, [15] = 2};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64*: the same sequence on every run. */
static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

struct bench {
	struct io_fake *f;
	struct prober_conf pc;
	struct prober_worker pw;
	bool ready;
};

static void
conf_init(struct prober_conf *pc, const struct probe_proto *p, int family,
	  bool vlan, unsigned size)
{
	memset(pc, 0, sizeof(*pc));
	pc->proto = p;
	pc->flow.src_mac = tw_prober_mac;
	pc->flow.dst_mac = tw_refl_mac;
	pc->flow.ip_version = (uint8_t)family;
	pc->flow.src4 = TW_PROBER_IP;
	pc->flow.dst4 = TW_REFL_IP;
	memcpy(pc->flow.src6, prober_ip6, 16);
	memcpy(pc->flow.dst6, refl_ip6, 16);
	pc->flow.vlan = vlan;
	pc->flow.vlan_tci = vlan ? VLAN_ID : 0;
	pc->flow.sport = SPORT;
	pc->flow.dport = p->default_port != 0 ? p->default_port : 7;
	pc->size = size;
	pc->count = 1;
	pc->timeout_cycles = 10000;
	assert_int_equal(tsc_clock_init(&pc->clock, TW_TSC_HZ), 0);
	pc->anchor.realtime_ns = TW_ANCHOR_NS;
	pc->icmp_id = 0x4200;
	pc->tcp_isn_base = 0x12345678;
}

static void
bench_start(struct bench *b, unsigned index)
{
	if (b->ready)
		prober_worker_fini(&b->pw);
	assert_int_equal(prober_worker_init(&b->pw, &b->pc,
					    io_fake_queue(b->f, 0), index),
			 0);
	b->ready = true;
}

static int
setup(void **state)
{
	struct bench *b = aligned_alloc(64, sizeof(*b) * 2);

	if (b == NULL)
		return -1;
	memset(b, 0, sizeof(*b) * 2);
	b[0].f = io_fake_create(N_MBUFS, 1500);
	b[1].f = io_fake_create(N_MBUFS, 1500);
	if (b[0].f == NULL || b[1].f == NULL) {
		io_fake_destroy(b[0].f);
		io_fake_destroy(b[1].f);
		free(b);
		return -1;
	}
	*state = b;
	return 0;
}

static int
teardown(void **state)
{
	struct bench *b = *state;

	for (unsigned i = 0; i < 2; i++) {
		if (b[i].ready)
			prober_worker_fini(&b[i].pw);
		io_fake_destroy(b[i].f);
	}
	free(b);
	return 0;
}

/* 1. Template frames ------------------------------------------------------ */

/* Probe seq from the template and from build(): the same bytes, and a
 * frame whose checksums verify. */
static void
check_same(struct prober_worker *w, uint64_t seq, uint64_t t1)
{
	uint8_t a[1600], g[1600];
	struct codec_frame f;
	int la, lg;

	memset(a, 0xa5, sizeof(a));
	memset(g, 0x5a, sizeof(g));
	la = prober_probe_frame(w, a, sizeof(a), seq, t1, false);
	lg = prober_probe_frame(w, g, sizeof(g), seq, t1, true);
	assert_true(lg > 0);
	assert_int_equal(la, lg);
	if (memcmp(a, g, (size_t)lg) != 0) {
		for (int i = 0; i < lg; i++)
			if (a[i] != g[i])
				print_error("seq %llu sport %u: byte %d is "
					    "%02x, build() says %02x\n",
					    (unsigned long long)seq,
					    w->flow.sport, i, a[i], g[i]);
		fail();
	}
	assert_int_equal(codec_parse_frame(a, (size_t)la, &f), 0);
	assert_true(codec_l4_csum_ok(a, &f));
	if (f.ip_version == 4)
		assert_true(codec_ipv4_csum_ok(a, &f));
}

struct tcase {
	const struct probe_proto *p;
	unsigned sizes[4];
};

static const struct tcase tcases[] = {
	{&probe_proto_stamp, {44, 45, 101, 1400}},
	{&probe_proto_sockperf, {14, 15, 64, 1001}},
	{&probe_proto_udp_echo, {8, 9, 64, 1400}},
	{&probe_proto_icmp, {8, 9, 64, 1001}},
	{&probe_proto_tcp_syn, {0, 0, 0, 0}},
};

static void
test_template_equals_build(void **state)
{
	struct bench *b = *state;
	static const uint64_t seqs[] = {0,
					1,
					1023,
					1024,
					0xffff,
					0x10000,
					0xffffffffull,
					0x100000000ull,
					UINT64_MAX - 1,
					UINT64_MAX};
	static const uint64_t t1s[] = {
		0,
		1,
		TW_ANCHOR_NS,
		TW_ANCHOR_NS + 999999999ull,
		2085978496ull * 1000000000ull, /* NTP era 1 begins */
		UINT64_MAX / 2};
	unsigned frames = 0;

	for (size_t c = 0; c < sizeof(tcases) / sizeof(tcases[0]); c++) {
		for (unsigned si = 0; si < 4; si++) {
			for (unsigned v = 0; v < 4; v++) {
				int family = v & 1 ? 6 : 4;
				bool vlan = v & 2;
				unsigned index = (unsigned)(rnd() % 64);

				if (si > 0 && tcases[c].sizes[si] ==
						      tcases[c].sizes[si - 1])
					continue;
				conf_init(&b->pc, tcases[c].p, family, vlan,
					  tcases[c].sizes[si]);
				bench_start(b, index);
				for (size_t i = 0; i < sizeof(seqs) / 8; i++)
					for (size_t j = 0; j < sizeof(t1s) / 8;
					     j++, frames++)
						check_same(&b->pw, seqs[i],
							   t1s[j]);
				for (unsigned i = 0; i < 400; i++, frames++) {
					/* --flows: another source port per
					 * probe; now and then another
					 * destination port (template
					 * remade). */
					b->pw.flow.sport =
						(uint16_t)(rnd() % 65535 + 1);
					if (i % 100 == 99)
						b->pw.flow.dport =
							(uint16_t)(rnd() % 65535 +
								   1);
					check_same(
						&b->pw, rnd(),
						TW_ANCHOR_NS +
							rnd() % (1ull << 50));
				}
				/* The template path was taken. */
				assert_false(b->pw.tmpl.off);
				assert_non_null(b->pw.tmpl.buf);
			}
		}
	}
	assert_true(frames > 20000);
}

/* Every IPv4 ID (64 workers x 1024 sequence numbers): every value of the
 * IPv4 header checksum, its 0 included. */
static void
test_template_every_ip_id(void **state)
{
	struct bench *b = *state;

	conf_init(&b->pc, &probe_proto_udp_echo, 4, false, 8);
	bench_start(b, 0);
	for (unsigned index = 0; index < 64; index++) {
		b->pw.index = index;
		prober_tmpl_reset(&b->pw);
		for (uint64_t seq = 0; seq < 1024; seq++)
			check_same(&b->pw, seq, TW_ANCHOR_NS);
	}
}

/*
 * The L4 checksum's edges: a sequence number whose UDP checksum computes
 * as 0 (sent as 0xffff, RFC 768) over IPv4 and IPv6, and ICMP/TCP ones
 * whose checksum is 0 (sent as 0).
 */
static void
check_csum_edge(struct bench *b, const struct probe_proto *p, int family,
		unsigned size, uint16_t csum_off, uint16_t want)
{
	uint8_t g[256];
	uint64_t seq;
	uint16_t c = 0;

	conf_init(&b->pc, p, family, false, size);
	bench_start(b, 3);
	for (seq = 0; seq < (1u << 22); seq++) {
		assert_true(prober_probe_frame(&b->pw, g, sizeof(g), seq,
					       TW_ANCHOR_NS, true) > 0);
		memcpy(&c, g + csum_off, 2);
		if (c == want)
			break;
	}
	assert_int_equal(c, want);
	check_same(&b->pw, seq, TW_ANCHOR_NS);
}

static void
test_template_csum_edges(void **state)
{
	struct bench *b = *state;

	check_csum_edge(b, &probe_proto_udp_echo, 4, 8, 14 + 20 + 6, 0xffff);
	check_csum_edge(b, &probe_proto_udp_echo, 6, 8, 14 + 40 + 6, 0xffff);
	check_csum_edge(b, &probe_proto_sockperf, 4, 14, 14 + 20 + 6, 0xffff);
	check_csum_edge(b, &probe_proto_icmp, 4, 8, 14 + 20 + 2, 0);
	check_csum_edge(b, &probe_proto_icmp, 6, 8, 14 + 40 + 2, 0);
	check_csum_edge(b, &probe_proto_tcp_syn, 4, 0, 14 + 20 + 16, 0);
}

/* STAMP with a key: no template (the HMAC covers the packet), build() every
 * time, the same frames. */
static void
test_template_not_with_auth(void **state)
{
	struct bench *b = *state;
	static const uint8_t key[16] = "0123456789abcdef";

	conf_init(&b->pc, &probe_proto_stamp, 4, false, 112);
	b->pc.auth_key = key;
	b->pc.auth_key_len = sizeof(key);
	bench_start(b, 1);
	for (uint64_t seq = 0; seq < 50; seq++)
		check_same(&b->pw, seq, TW_ANCHOR_NS + seq * 1000);
	assert_true(b->pw.tmpl.off);
}

/* 2. The UDP answer fast path --------------------------------------------- */

/* A valid answer of proto p to probe 0 of w's flow; its length. */
static size_t
answer_for(const struct prober_conf *pc, uint8_t *buf, size_t cap)
{
	struct codec_flow fl = pc->flow;
	uint8_t pl[256];
	size_t plen = pc->size;
	int len;

	fl.src_mac = pc->flow.dst_mac;
	fl.dst_mac = pc->flow.src_mac;
	fl.src4 = pc->flow.dst4;
	fl.dst4 = pc->flow.src4;
	memcpy(fl.src6, pc->flow.dst6, 16);
	memcpy(fl.dst6, pc->flow.src6, 16);
	fl.sport = pc->flow.dport;
	fl.dport = pc->flow.sport;
	memset(pl, 0, sizeof(pl));
	if (pc->proto == &probe_proto_stamp) {
		struct stamp_sender_opts so;
		struct stamp_reflect_opts ro;

		memset(&so, 0, sizeof(so));
		so.seq = 0;
		so.len = plen;
		so.timestamp = stamp_ntp_from_ns(TW_ANCHOR_NS);
		assert_int_equal(stamp_sender_build(pl, sizeof(pl), &so),
				 (int)plen);
		memset(&ro, 0, sizeof(ro));
		ro.rx_timestamp = stamp_ntp_from_ns(TW_ANCHOR_NS + 100);
		assert_int_equal(stamp_reflect(pl, plen, &ro), (int)plen);
		/* T3 after T2: a turnaround to record. */
		util_put_be64(pl + 4, stamp_ntp_from_ns(TW_ANCHOR_NS + 300));
	} else if (pc->proto == &probe_proto_sockperf) {
		struct sockperf_hdr sh = {.seq = 0, .length = (uint32_t)plen};

		assert_int_equal(sockperf_build(pl, plen, &sh),
				 SOCKPERF_HDR_LEN);
	}
	len = codec_build_udp(buf, cap, &fl, 7, pl, plen);
	assert_true(len > 0);
	return (size_t)len;
}

/* Run b for one probe with frame waiting on its rx ring (rx flags ol). */
static void
run_with(struct bench *b, const uint8_t *frame, size_t len, uint64_t ol)
{
	static const atomic_bool no_stop;

	bench_start(b, 0);
	io_fake_set_rx_ol_flags(b->f, 0, ol);
	tw_inject(b->f, 0, frame, len);
	assert_int_equal(prober_worker_run(&b->pw, &no_stop), 0);
	tw_drain(b->f, 1);
	tw_drain(b->f, 0);
}

/* The frame through the fast path (b[0]) and the generic one (b[1]): the
 * same counters, the same records. */
static void
check_equal_outcome(struct bench *b, const uint8_t *frame, size_t len,
		    uint64_t ol, unsigned *answered)
{
	struct probe_proto slow = *b[0].pc.proto;

	assert_non_null(slow.match_payload);
	slow.match_payload = NULL;
	b[1].pc.proto = &slow;
	run_with(&b[0], frame, len, ol);
	run_with(&b[1], frame, len, ol);
	b[1].pc.proto = b[0].pc.proto;
	if (memcmp(&b[0].pw.st, &b[1].pw.st, sizeof(b[0].pw.st)) != 0) {
		for (unsigned i = 0; i < PROBER_IGN__COUNT; i++)
			print_error("ignored[%u]: fast %llu generic %llu\n", i,
				    (unsigned long long)b[0].pw.st.ignored[i],
				    (unsigned long long)b[1].pw.st.ignored[i]);
		print_error("received: fast %llu generic %llu\n",
			    (unsigned long long)b[0].pw.st.received,
			    (unsigned long long)b[1].pw.st.received);
		fail();
	}
	assert_int_equal(b[0].pw.rtt.total, b[1].pw.rtt.total);
	assert_int_equal(b[0].pw.rtt.sum, b[1].pw.rtt.sum);
	assert_int_equal(b[0].pw.turnaround.total, b[1].pw.turnaround.total);
	assert_int_equal(b[0].pw.turnaround.sum, b[1].pw.turnaround.sum);
	assert_int_equal(b[0].pw.network_rtt.sum, b[1].pw.network_rtt.sum);
	*answered += (unsigned)b[0].pw.st.received;
}

static void
test_fast_match_equals_generic(void **state)
{
	struct bench *b = *state;
	static const uint64_t ols[] = {
		0,
		RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		RTE_MBUF_F_RX_L4_CKSUM_BAD,
		RTE_MBUF_F_RX_IP_CKSUM_BAD,
	};
	static const struct probe_proto *const ps[] = {&probe_proto_stamp,
						       &probe_proto_sockperf,
						       &probe_proto_udp_echo};
	static const unsigned sizes[] = {44, 14, 9};
	unsigned runs = 0, answered = 0;

	for (unsigned pi = 0; pi < 3; pi++) {
		for (unsigned v = 0; v < 4; v++) {
			uint8_t good[512], fr[600];
			size_t len;

			for (unsigned k = 0; k < 2; k++)
				conf_init(&b[k].pc, ps[pi], v & 1 ? 6 : 4,
					  v & 2, sizes[pi]);
			len = answer_for(&b[0].pc, good, sizeof(good));
			for (unsigned o = 0; o < 4; o++, runs++)
				check_equal_outcome(b, good, len, ols[o],
						    &answered);
			/* Every byte, two bit flips each. */
			for (size_t i = 0; i < len; i++) {
				for (unsigned x = 0; x < 2; x++, runs++) {
					memcpy(fr, good, len);
					fr[i] ^= x ? 0x80 : 0x01;
					check_equal_outcome(b, fr, len,
							    ols[i % 2],
							    &answered);
				}
			}
			/* Cut short, and padded after the IP packet. */
			for (size_t l = 1; l < len; l += 3, runs++)
				check_equal_outcome(b, good, l, 0, &answered);
			memcpy(fr, good, len);
			memset(fr + len, 0, 20);
			check_equal_outcome(b, fr, len + 20, 0, &answered);
			runs++;
		}
	}
	/* Both outcomes were seen: answers and ignored frames. */
	assert_true(answered > 12);
	assert_true(answered < runs);
}

/* NTP from ns and back, exactly: seconds since 1900 (modulo 2^32) and
 * the fraction rounded to the nearest 2^-32 s; era 1 below the offset. */
static uint64_t
ntp_from_ns_exact(uint64_t ns)
{
	uint64_t sec = ns / 1000000000ull + STAMP_NTP_UNIX_OFFSET;
	stamp_u128 rem = ns % 1000000000ull;

	return (sec & 0xffffffffull) << 32 |
	       (uint64_t)(((rem << 32) + 500000000) / 1000000000ull);
}

static uint64_t
ntp_to_ns_exact(uint64_t ntp)
{
	uint64_t sec = ntp >> 32;
	stamp_u128 frac = ntp & 0xffffffffull;

	if (sec < STAMP_NTP_UNIX_OFFSET)
		sec += 1ull << 32;
	return (sec - STAMP_NTP_UNIX_OFFSET) * 1000000000ull +
	       (uint64_t)((frac * 1000000000ull + (1ull << 31)) >> 32);
}

/*
 * The STAMP patch's and fast match's NTP conversions (stamp.h's, inlined
 * there) are exact: dates from 1970 to 2104 (both NTP eras), the second
 * boundaries, and fractions that round either way.
 */
static void
test_inline_ntp_equals_stamp(void **state)
{
	static const uint64_t edges[] = {
		0,
		1,
		999999999,
		1000000000,
		TW_ANCHOR_NS,
		2085978495999999999ull, /* last ns of NTP era 0 */
		2085978496000000000ull, /* era 1 starts (2036-02-07) */
		4294967295ull * 1000000000ull,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		uint64_t ntp = ntp_from_ns_exact(edges[i]);

		assert_int_equal(stamp_ntp_from_ns(edges[i]), ntp);
		assert_int_equal(stamp_ntp_to_ns(ntp), ntp_to_ns_exact(ntp));
	}
	for (unsigned i = 0; i < 200000; i++) {
		/* Up to about 2104 (2^62 ns is 2116; NTP era 1 ends 2172). */
		uint64_t ns = rnd() >> 2;
		uint64_t ntp = rnd();

		assert_int_equal(stamp_ntp_from_ns(ns), ntp_from_ns_exact(ns));
		assert_int_equal(stamp_ntp_to_ns(ntp), ntp_to_ns_exact(ntp));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_template_equals_build,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_template_every_ip_id,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_template_csum_edges, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_template_not_with_auth,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_match_equals_generic,
						setup, teardown),
		cmocka_unit_test(test_inline_ntp_equals_stamp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
