/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 in both engines over the in-memory fake wire: every protocol end to
 * end, Neighbor Discovery both ways, and what the reflector must drop (an
 * NS that came through a router, UDP without a checksum). Side 0 is the
 * prober's queue, side 1 the reflector's, as in test_engine.c.
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
#include "latprobe/nd.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "engine_wire.h"

#define N_MBUFS 256

/* 2001:2::1 (prober), 2001:2::2 (reflector), 2001:2::3 (nobody). */
static const uint8_t ip6_prober[16] = {0x20, 0x01, 0x00, 0x02, [15] = 1};
static const uint8_t ip6_refl[16] = {0x20, 0x01, 0x00, 0x02, [15] = 2};
static const uint8_t ip6_other[16] = {0x20, 0x01, 0x00, 0x02, [15] = 3};

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
};

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, N_MBUFS) != 0)
		goto fail;
	tw_reflector_conf(&w->rc, &w->clock);
	w->rc.addr = 0; /* IPv6 only */
	w->rc.addr6 = codec_ip_from_v6(ip6_refl);
	if (tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL) != 0)
		goto fail;

	/* The shared STAMP prober, its flow moved to IPv6. */
	tw_prober_conf_stamp(&w->pc, &w->clock, 40000);
	w->pc.flow.ip_version = 6;
	w->pc.flow.src4 = 0;
	w->pc.flow.dst4 = 0;
	memcpy(w->pc.flow.src6, ip6_prober, 16);
	memcpy(w->pc.flow.dst6, ip6_refl, 16);
	w->pc.count = 100;
	w->pc.warmup = 5;
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

	tw_fixture_free(w, w->f, w->prober_ready ? &w->pw : NULL, &w->rw);
	return 0;
}

static uint64_t
rc(const struct wire *w, enum reflector_counter c)
{
	return reflector_counter_read(&w->rw, c);
}

static void
run_proto(struct wire *w, const struct probe_proto *p, unsigned size)
{
	static const atomic_bool no_stop;

	w->pc.proto = p;
	w->pc.flow.dport = p->default_port;
	w->pc.size = size;
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.sent, 100);
	assert_int_equal(w->pw.st.received, 100);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.rx_ignored, 0);
	assert_int_equal(w->pw.rtt.total, 100);
	assert_int_equal(rc(w, RC_RX), 105);
	assert_int_equal(rc(w, RC_TX), 105);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

static void
test_v6_stamp(void **state)
{
	struct wire *w = *state;

	run_proto(w, &probe_proto_stamp, STAMP_BASE_LEN);
	assert_int_equal(rc(w, RC_STAMP), 105);
	assert_int_equal(w->pw.network_rtt.total, 100);
}

static void
test_v6_sockperf(void **state)
{
	struct wire *w = *state;

	run_proto(w, &probe_proto_sockperf, 64);
	assert_int_equal(rc(w, RC_SOCKPERF), 105);
}

static void
test_v6_udp_echo(void **state)
{
	struct wire *w = *state;

	w->rc.allow_low_sport = true;
	run_proto(w, &probe_proto_udp_echo, 32);
	assert_int_equal(rc(w, RC_ECHO), 105);
}

static void
test_v6_icmp(void **state)
{
	struct wire *w = *state;

	run_proto(w, &probe_proto_icmp, 56);
	assert_int_equal(rc(w, RC_ICMP), 105);
}

/* A frame the reflector answers; the answer, parsed, into buf/af. */
static size_t
answer_of(struct wire *w, const uint8_t *frame, size_t len, uint8_t *buf,
	  size_t cap, struct codec_frame *af)
{
	size_t n;

	tw_inject(w->f, 1, frame, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	n = tw_take_one(w->f, 0, buf, cap);
	assert_int_equal(tw_drain(w->f, 0), 0);
	assert_int_equal(codec_parse_frame(buf, n, af), 0);
	return n;
}

/* The prober resolves the reflector (and its link-local address) by NS;
 * an address nobody has stays unresolved. */
static void
test_v6_nd_resolve(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct codec_mac out;
	uint8_t ll[16];

	io_fake_set_tick(w->f, TW_TSC_HZ / 1000);
	memset(&out, 0, sizeof(out));
	assert_int_equal(prober_nd_resolve(io_fake_queue(w->f, 0),
					   &tw_prober_mac, ip6_prober, 0,
					   ip6_refl, 1000, &w->clock, &out,
					   &no_stop),
			 0);
	assert_memory_equal(&out, &tw_refl_mac, sizeof(out));
	assert_int_equal(rc(w, RC_ND), 1);
	codec_ipv6_link_local(&tw_refl_mac, ll);
	memset(&out, 0, sizeof(out));
	assert_int_equal(prober_nd_resolve(io_fake_queue(w->f, 0),
					   &tw_prober_mac, ip6_prober, 0, ll,
					   1000, &w->clock, &out, &no_stop),
			 0);
	assert_memory_equal(&out, &tw_refl_mac, sizeof(out));
	assert_int_equal(rc(w, RC_ND), 2);
	assert_int_equal(prober_nd_resolve(io_fake_queue(w->f, 0),
					   &tw_prober_mac, ip6_prober, 0,
					   ip6_other, 500, &w->clock, &out,
					   &no_stop),
			 -EHOSTUNREACH);
	assert_int_equal(rc(w, RC_ND), 2);
	assert_true(rc(w, RC_DROP_NOT_FOR_US) >= 2);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* The prober answers an NS for its own address, not for another. */
static void
test_v6_prober_answers_ns(void **state)
{
	struct wire *w = *state;
	uint8_t ns[128], na[128];
	struct codec_frame f, g;
	struct codec_nd nd;
	int len;
	size_t n;

	len = codec_build_ns(ns, sizeof(ns), &tw_refl_mac, ip6_refl, ip6_prober,
			     0);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(ns, (size_t)len, &f), 0);
	assert_true(prober_answer_ns(io_fake_queue(w->f, 1), ns, &f,
				     &tw_prober_mac, ip6_prober, 0));
	n = tw_take_one(w->f, 0, na, sizeof(na));
	assert_int_equal(codec_parse_frame(na, n, &g), 0);
	assert_int_equal(codec_nd_parse(na, &g, &nd), 0);
	assert_int_equal(nd.type, CODEC_ICMP6_NA);
	assert_memory_equal(nd.lladdr.b, tw_prober_mac.b, 6);
	assert_memory_equal(g.dst.b, tw_refl_mac.b, 6);
	assert_false(prober_answer_ns(io_fake_queue(w->f, 1), ns, &f,
				      &tw_prober_mac, ip6_other, 0));
	assert_int_equal(tw_drain(w->f, 0), 0);
}

/* What the reflector must not answer over IPv6, each counted. */
static void
test_v6_reflector_drops(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = {.src_mac = tw_prober_mac,
				.dst_mac = tw_refl_mac,
				.ip_version = 6,
				.sport = 40000,
				.dport = SOCKPERF_PORT};
	struct sockperf_hdr h = {.seq = 1,
				 .flags = SOCKPERF_F_CLIENT |
					  SOCKPERF_F_PONG_REQUEST,
				 .length = 64};
	uint8_t pl[64], buf[256], ans[256];
	struct codec_frame f, af;
	size_t len;
	int l;

	memcpy(fl.src6, ip6_prober, 16);
	memcpy(fl.dst6, ip6_refl, 16);
	memset(pl, 0, sizeof(pl));
	assert_int_equal(sockperf_build(pl, sizeof(pl), &h), SOCKPERF_HDR_LEN);
	len = tw_build_udp(buf, sizeof(buf), &fl, pl, sizeof(pl));
	/* Answered, with a right checksum ... */
	answer_of(w, buf, len, ans, sizeof(ans), &af);
	assert_true(codec_l4_csum_ok(ans, &af));
	assert_memory_equal(af.dst6, ip6_prober, 16);
	assert_int_equal(rc(w, RC_SOCKPERF), 1);
	/* ... but not without one (RFC 8200 8.1). */
	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	memset(buf + f.l4_off + 6, 0, 2);
	tw_inject(w->f, 1, buf, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	assert_int_equal(rc(w, RC_DROP_UDP6_ZERO_CSUM), 1);
	assert_int_equal(tw_drain(w->f, 0), 0);

	/* An NS through a router (hop limit 254) is not answered. */
	l = codec_build_ns(buf, sizeof(buf), &tw_prober_mac, ip6_prober,
			   ip6_refl, 0);
	assert_true(l > 0);
	buf[14 + 7] = 254;
	tw_inject(w->f, 1, buf, (size_t)l);
	assert_int_equal(reflector_poll(&w->rw), 1);
	assert_int_equal(rc(w, RC_DROP_ND), 1);
	assert_int_equal(rc(w, RC_ND), 0);
	assert_int_equal(tw_drain(w->f, 0), 0);

	/* From a multicast source, from our own address: martians. */
	fl.src6[0] = 0xff;
	len = tw_build_udp(buf, sizeof(buf), &fl, pl, sizeof(pl));
	tw_inject(w->f, 1, buf, len);
	memcpy(fl.src6, ip6_refl, 16);
	len = tw_build_udp(buf, sizeof(buf), &fl, pl, sizeof(pl));
	tw_inject(w->f, 1, buf, len);
	assert_int_equal(reflector_poll(&w->rw), 2);
	assert_int_equal(rc(w, RC_DROP_SOURCE), 2);
	assert_int_equal(tw_drain(w->f, 0), 0);

	/* Without an IPv6 address, nothing IPv6 is for us. */
	w->rc.addr6.family = 0;
	memcpy(fl.src6, ip6_prober, 16);
	len = tw_build_udp(buf, sizeof(buf), &fl, pl, sizeof(pl));
	tw_inject(w->f, 1, buf, len);
	assert_int_equal(reflector_poll(&w->rw), 1);
	assert_int_equal(rc(w, RC_DROP_NOT_FOR_US), 1);
	assert_int_equal(tw_drain(w->f, 0), 0);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* ping -6: an ICMPv6 echo reply with the request's id, seq and data, and
 * a right checksum. */
static void
test_v6_ping(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = {.src_mac = tw_prober_mac,
				.dst_mac = tw_refl_mac,
				.ip_version = 6};
	static const uint8_t pl[24] = "abcdefghijklmnopqrstuvw";
	uint8_t buf[256], ans[256];
	struct codec_frame af;
	int len;

	memcpy(fl.src6, ip6_prober, 16);
	memcpy(fl.dst6, ip6_refl, 16);
	len = codec_build_icmp_echo(buf, sizeof(buf), &fl,
				    CODEC_ICMP6_ECHO_REQUEST, 0x77, 9, pl,
				    sizeof(pl));
	assert_true(len > 0);
	answer_of(w, buf, (size_t)len, ans, sizeof(ans), &af);
	assert_int_equal(af.icmp_type, CODEC_ICMP6_ECHO_REPLY);
	assert_int_equal(af.icmp_id, 0x77);
	assert_int_equal(af.icmp_seq, 9);
	assert_true(codec_l4_csum_ok(ans, &af));
	assert_memory_equal(ans + af.payload_off, pl, sizeof(pl));
	assert_memory_equal(af.src6, ip6_refl, 16);
	assert_int_equal(rc(w, RC_ICMP), 1);
}

/* Probes above the MTU go as IPv6 fragments, the reflector reassembles,
 * answers in fragments, the prober reassembles. */
static void
test_v6_large(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;

	w->pc.proto = &probe_proto_stamp;
	w->pc.size = 8000;
	w->pc.count = 20;
	w->pc.warmup = 2;
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_true(w->pw.fragmented);
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.sent, 20);
	assert_int_equal(w->pw.st.received, 20);
	assert_int_equal(w->pw.st.reasm_failed, 0);
	assert_int_equal(w->pw.st.rx_ignored, 0);
	assert_int_equal(rc(w, RC_STAMP), 22);
	assert_int_equal(rc(w, RC_REASSEMBLED), 22);
	/* 8000 + 8 bytes of UDP at 1448 data bytes a fragment: 6. */
	assert_int_equal(rc(w, RC_FRAGMENTS), 22 * 6);
	assert_int_equal(rc(w, RC_DROP_REASM), 0);
	assert_int_equal(w->pw.network_rtt.total, 20);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* A routing header with segments left is not answered. */
static void
test_v6_routing_header_refused(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = {.src_mac = tw_prober_mac,
				.dst_mac = tw_refl_mac,
				.ip_version = 6};
	static const uint8_t pl[8] = "ping6";
	uint8_t buf[256], out[256];
	int len;

	memcpy(fl.src6, ip6_prober, 16);
	memcpy(fl.dst6, ip6_refl, 16);
	len = codec_build_icmp_echo(buf, sizeof(buf), &fl,
				    CODEC_ICMP6_ECHO_REQUEST, 1, 1, pl,
				    sizeof(pl));
	assert_true(len > 0);
	/* Routing header (type 0, segments left 1) before the ICMPv6. */
	memcpy(out, buf, 54);
	memset(out + 54, 0, 8);
	out[54] = CODEC_IPPROTO_ICMPV6;
	out[57] = 1;
	memcpy(out + 62, buf + 54, (size_t)len - 54);
	out[14 + 6] = CODEC_IPPROTO_ROUTING;
	out[14 + 5] = (uint8_t)(out[14 + 5] + 8);
	tw_inject(w->f, 1, out, (size_t)len + 8);
	assert_int_equal(reflector_poll(&w->rw), 1);
	assert_int_equal(rc(w, RC_DROP_IPV6_EXT), 1);
	assert_int_equal(rc(w, RC_ICMP), 0);
	assert_int_equal(tw_drain(w->f, 0), 0);
}

/* Peer hook: every probe answered by an ICMPv6 port unreachable quoting it
 * (RFC 4443 3.1, code 4), from the reflector's address. */
static void
unreach_hook(void *arg)
{
	struct wire *w = arg;
	struct io_queue *q = io_fake_queue(w->f, 1);
	struct rte_mbuf *m;

	while (io_rx(q, &m, 1) == 1) {
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
		struct codec_flow fl = {.src_mac = tw_refl_mac,
					.dst_mac = tw_prober_mac,
					.ip_version = 6};
		uint8_t body[4 + 256], out[512];
		struct codec_frame f;
		size_t ql;
		int len;

		assert_int_equal(codec_parse_frame(b, m->data_len, &f), 0);
		ql = f.ip_len < 256 ? f.ip_len : 256;
		memset(body, 0, 4);
		memcpy(body + 4, b + f.l3_off, ql);
		memcpy(fl.src6, ip6_refl, 16);
		memcpy(fl.dst6, ip6_prober, 16);
		len = codec_build_icmp6(out, sizeof(out), &fl,
					CODEC_ICMP6_DEST_UNREACH, 4, body,
					4 + ql);
		assert_true(len > 0);
		tw_inject(w->f, 0, out, (size_t)len);
		io_free(q, m);
	}
}

/* A closed port over IPv6: each probe ends at once as lost by an ICMPv6
 * port unreachable, counted by class, without waiting for its timeout. */
static void
test_v6_port_unreachable(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct codec_icmp_quote qt;
	uint8_t probe[128], err[256], body[4 + 128];
	struct codec_frame f;
	struct codec_flow fl = w->pc.flow;
	int len;

	io_fake_set_peer(w->f, 0, unreach_hook, w);
	w->pc.proto = &probe_proto_udp_echo;
	w->pc.flow.dport = 7;
	w->pc.size = 16;
	w->pc.count = 50;
	w->pc.warmup = 0;
	w->pc.timeout_cycles = TW_TSC_HZ; /* 1 s: a timeout would show */
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->pw.st.sent, 50);
	assert_int_equal(w->pw.st.received, 0);
	assert_int_equal(w->pw.st.lost, 50);
	assert_int_equal(w->pw.st.lost_unreachable, 50);
	assert_int_equal(w->pw.st.unreachable[PROBER_UNREACH_PORT], 50);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_UNREACHABLE], 50);
	assert_true(io_fake_now(w->f) < TW_TSC_HZ);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);

	/* The quote as the codec reads it; an ICMPv4-only type refused. */
	fl.dport = 7;
	len = codec_build_udp(probe, sizeof(probe), &fl, 0,
			      (const uint8_t *)"12345678", 8);
	assert_true(len > 0);
	memset(body, 0, 4);
	memcpy(body + 4, probe + 14, (size_t)len - 14);
	fl = w->pc.flow;
	memcpy(fl.src6, ip6_refl, 16);
	memcpy(fl.dst6, ip6_prober, 16);
	len = codec_build_icmp6(err, sizeof(err), &fl, CODEC_ICMP6_DEST_UNREACH,
				4, body, 4 + (size_t)len - 14);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(err, (size_t)len, &f), 0);
	assert_int_equal(codec_parse_icmp_quote(err, &f, &qt), 0);
	assert_int_equal(qt.ip_version, 6);
	assert_memory_equal(qt.src6, ip6_prober, 16);
	assert_memory_equal(qt.dst6, ip6_refl, 16);
	assert_int_equal(qt.proto, CODEC_IPPROTO_UDP);
	assert_true(qt.has_l4);
	assert_int_equal(qt.sport, 40000);
	assert_int_equal(qt.dport, 7);
	err[f.l4_off] = 128; /* echo request: not an error */
	assert_int_equal(codec_parse_frame(err, (size_t)len, &f), 0);
	assert_int_equal(codec_parse_icmp_quote(err, &f, &qt), -EINVAL);
	assert_int_equal(prober_unreach_of_code6(1), PROBER_UNREACH_ADMIN);
	assert_int_equal(prober_unreach_of_code6(0), PROBER_UNREACH_NET);
	assert_int_equal(prober_unreach_of_code6(3), PROBER_UNREACH_HOST);
}

int
main(void)
{
	static const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_v6_stamp),
		T(test_v6_sockperf),
		T(test_v6_udp_echo),
		T(test_v6_icmp),
		T(test_v6_nd_resolve),
		T(test_v6_prober_answers_ns),
		T(test_v6_reflector_drops),
		T(test_v6_ping),
		T(test_v6_large),
		T(test_v6_routing_header_refused),
		T(test_v6_port_unreachable),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
