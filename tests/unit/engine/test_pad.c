/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runt frames: every frame either engine transmits on the fake wire is at
 * least the Ethernet minimum (60 bytes without the FCS), its padding zero
 * and after the IP packet (or the ARP message), and it parses with its
 * checksums right (so every parser reads the IP lengths, not the frame's):
 * the prober's probes of every protocol over IPv4 and IPv6, from the
 * template (lean loop or not) and from build(), IPv4 fragments, ARP and
 * ND both ways, the TCP RST after a SYN-ACK; the reflector's answers of
 * every protocol, to requests that came unpadded (a kernel over a veth
 * sends runts), ARP with and without a VLAN tag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

#define N_MBUFS 512
#define COUNT	20

static const uint8_t ip6_prober[16] = {0x20, 0x01, 0x00, 0x02, [15] = 1};
static const uint8_t ip6_refl[16] = {0x20, 0x01, 0x00, 0x02, [15] = 2};

/* What one side put on the wire. */
struct watch {
	uint64_t frames, runts, unparsed, bad_csum, dirty_pad;
	size_t min_len;
	char first_bad[96];
};

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct reflector_conf rc;
	struct reflector_worker rw;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready, refl_ready;
	struct watch tx[2];
};

static void
bad(struct watch *wt, const char *what, size_t len)
{
	if (wt->first_bad[0] == '\0')
		snprintf(wt->first_bad, sizeof(wt->first_bad),
			 "%s (a %zu-byte frame)", what, len);
}

static void
watch_fn(void *arg, const uint8_t *b, size_t len)
{
	struct watch *wt = arg;
	struct codec_frame f;
	size_t end;

	wt->frames++;
	if (wt->min_len == 0 || len < wt->min_len)
		wt->min_len = len;
	if (len < IO_ETH_MIN_LEN) {
		wt->runts++;
		bad(wt, "runt", len);
	}
	if (codec_parse_frame(b, len, &f) != 0) {
		wt->unparsed++;
		bad(wt, "does not parse", len);
		return;
	}
	if (f.ethertype == CODEC_ETHERTYPE_ARP) {
		end = f.l3_off + 28u;
	} else if (f.ethertype == CODEC_ETHERTYPE_IPV4 ||
		   f.ethertype == CODEC_ETHERTYPE_IPV6) {
		end = (size_t)f.l3_off + f.ip_len;
		if ((f.ip_version == 4 && !codec_ipv4_csum_ok(b, &f)) ||
		    (!f.is_fragment && f.payload_off != 0 &&
		     !codec_l4_csum_ok(b, &f))) {
			wt->bad_csum++;
			bad(wt, "bad checksum", len);
		}
	} else {
		wt->unparsed++;
		bad(wt, "unexpected ethertype", len);
		return;
	}
	for (size_t i = end; i < len; i++) {
		if (b[i] != 0) {
			wt->dirty_pad++;
			bad(wt, "padding not zero", len);
			break;
		}
	}
}

static void
check_watch(const struct watch *wt, const char *who)
{
	if (wt->frames == 0)
		fail_msg("%s sent nothing", who);
	if (wt->runts + wt->unparsed + wt->bad_csum + wt->dirty_pad != 0)
		fail_msg("%s: %llu of %llu frames wrong (runts %llu, unparsed "
			 "%llu, bad checksums %llu, padding not zero %llu; "
			 "shortest %zu bytes); first: %s",
			 who,
			 (unsigned long long)(wt->runts + wt->unparsed +
					      wt->bad_csum + wt->dirty_pad),
			 (unsigned long long)wt->frames,
			 (unsigned long long)wt->runts,
			 (unsigned long long)wt->unparsed,
			 (unsigned long long)wt->bad_csum,
			 (unsigned long long)wt->dirty_pad, wt->min_len,
			 wt->first_bad);
}

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, N_MBUFS) != 0) {
		tw_fixture_free(w, w->f, NULL, NULL);
		return -1;
	}
	tw_reflector_conf(&w->rc, &w->clock);
	w->rc.addr6 = codec_ip_from_v6(ip6_refl);
	w->rc.allow_low_sport = true;
	if (tw_reflector_start(w->f, &w->rw, &w->rc, NULL, NULL) != 0) {
		tw_fixture_free(w, w->f, NULL, NULL);
		return -1;
	}
	w->refl_ready = true;
	tw_prober_conf_stamp(&w->pc, &w->clock, 40000);
	w->pc.count = COUNT;
	w->pc.timeout_cycles = 100000;
	w->pc.icmp_id = 0x4200;
	w->pc.tcp_isn_base = 0x12345678;
	memcpy(w->pc.flow.src6, ip6_prober, 16);
	memcpy(w->pc.flow.dst6, ip6_refl, 16);
	for (unsigned s = 0; s < 2; s++)
		io_fake_set_tx_watch(w->f, s, watch_fn, &w->tx[s]);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct wire *w = *state;

	tw_fixture_free(w, w->f, w->prober_ready ? &w->pw : NULL,
			w->refl_ready ? &w->rw : NULL);
	return 0;
}

/* The peer of a tcp-syn prober: each SYN answered with a SYN-ACK (so the
 * prober sends its RST). */
static void
synack_hook(void *arg)
{
	struct wire *w = arg;
	struct io_queue *q = io_fake_queue(w->f, 1);
	struct rte_mbuf *m;

	while (io_rx(q, &m, 1) == 1) {
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
		struct codec_frame f;
		struct codec_flow fl;
		uint8_t out[128];
		int len;

		if (codec_parse_frame(b, m->data_len, &f) == 0 &&
		    f.ip_proto == CODEC_IPPROTO_TCP &&
		    (f.tcp_flags & CODEC_TCP_SYN) != 0) {
			fl = w->pc.flow;
			fl.src_mac = w->pc.flow.dst_mac;
			fl.dst_mac = w->pc.flow.src_mac;
			fl.src4 = w->pc.flow.dst4;
			fl.dst4 = w->pc.flow.src4;
			memcpy(fl.src6, w->pc.flow.dst6, 16);
			memcpy(fl.dst6, w->pc.flow.src6, 16);
			fl.sport = f.dport;
			fl.dport = f.sport;
			len = codec_build_tcp(
				out, sizeof(out), &fl, 777, f.tcp_seq + 1,
				CODEC_TCP_SYN | CODEC_TCP_ACK, 65535, 1460);
			assert_true(len > 0);
			tw_inject(w->f, 0, out, (size_t)len);
		}
		io_free(q, m);
	}
}

static void
run(struct wire *w, const struct probe_proto *p, int family, unsigned size,
    bool lean)
{
	static const atomic_bool no_stop;

	w->pc.proto = p;
	w->pc.flow.ip_version = (uint8_t)family;
	w->pc.flow.dport = p->default_port != 0 ? p->default_port : 7;
	w->pc.size = size;
	w->pc.keep_samples = !lean;
	if (p == &probe_proto_tcp_syn)
		io_fake_set_peer(w->f, 0, synack_hook, w);
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	if (w->pw.st.received != w->pc.count)
		fail_msg("%s over IPv%d, %u bytes: %llu of %llu answered",
			 p->name, family, size,
			 (unsigned long long)w->pw.st.received,
			 (unsigned long long)w->pc.count);
	check_watch(&w->tx[0], "the prober");
	if (p != &probe_proto_tcp_syn)
		check_watch(&w->tx[1], "the reflector");
	tw_drain(w->f, 0);
	tw_drain(w->f, 1);
	assert_int_equal(io_fake_mbufs_in_use(w->f), 0);
}

/* The smallest probe of each protocol (the likeliest runt). */
static const struct {
	const struct probe_proto *p;
	unsigned size;
} smallest[] = {
	{&probe_proto_stamp, STAMP_BASE_LEN},
	{&probe_proto_sockperf, SOCKPERF_HDR_LEN},
	{&probe_proto_udp_echo, 8},
	{&probe_proto_icmp, 8},
	{&probe_proto_tcp_syn, 0},
};
#define N_SMALLEST (sizeof(smallest) / sizeof(smallest[0]))

/* One cmocka case per protocol, family and loop: index = (proto * 2 +
 * (family == 6)) * 2 + lean. */
static void
test_probe_case(void **state, unsigned k)
{
	unsigned pi = k / 4;

	run(*state, smallest[pi].p, (k / 2) % 2 ? 6 : 4, smallest[pi].size,
	    k % 2 != 0);
}

#define CASE(k)                                                                \
	static void test_probe_##k(void **state)                               \
	{                                                                      \
		test_probe_case(state, k);                                     \
	}
CASE(0)
CASE(1)
CASE(2)
CASE(3)
CASE(4)
CASE(5)
CASE(6)
CASE(7)
CASE(8)
CASE(9)
CASE(10)
CASE(11)
CASE(12)
CASE(13)
CASE(14)
CASE(15)
CASE(16)
CASE(17)
CASE(18)
CASE(19)

/* Frames from build() (no template) and from the template: padded alike,
 * the same bytes. */
static void
test_build_and_template(void **state)
{
	struct wire *w = *state;

	for (size_t pi = 0; pi < N_SMALLEST; pi++) {
		for (int fam = 4; fam <= 6; fam += 2) {
			uint8_t a[256], g[256];
			int la, lg;

			memset(a, 0xa5, sizeof(a));
			memset(g, 0x5a, sizeof(g));
			w->pc.proto = smallest[pi].p;
			w->pc.flow.ip_version = (uint8_t)fam;
			w->pc.flow.dport =
				smallest[pi].p->default_port != 0
					? smallest[pi].p->default_port
					: 7;
			w->pc.size = smallest[pi].size;
			if (w->prober_ready)
				prober_worker_fini(&w->pw);
			assert_int_equal(
				prober_worker_init(&w->pw, &w->pc,
						   io_fake_queue(w->f, 0), 0),
				0);
			w->prober_ready = true;
			for (uint64_t seq = 0; seq < 3; seq++) {
				la = prober_probe_frame(&w->pw, a, sizeof(a),
							seq, TW_ANCHOR_NS,
							false);
				lg = prober_probe_frame(&w->pw, g, sizeof(g),
							seq, TW_ANCHOR_NS,
							true);
				assert_int_equal(la, lg);
				assert_memory_equal(a, g, (size_t)la);
				watch_fn(&w->tx[0], a, (size_t)la);
			}
		}
	}
	check_watch(&w->tx[0], "prober_probe_frame()");
}

/* A probe whose last IPv4 fragment carries 8 bytes (a 42-byte frame
 * unpadded), both ways: the reflector reassembles the padded fragments
 * and the prober its answer's. */
static void
test_fragments(void **state)
{
	struct wire *w = *state;

	/* 1480 bytes of IP payload per fragment at MTU 1500: UDP 8 + 1480
	 * = 1488 = 1480 + 8. */
	w->pc.count = 5;
	run(w, &probe_proto_stamp, 4, 1480, false);
	assert_int_equal(reflector_counter_read(&w->rw, RC_REASSEMBLED), 5);
	assert_true(w->tx[0].frames >= 10);
}

static void
test_arp_nd(void **state)
{
	struct wire *w = *state;
	static const atomic_bool no_stop;
	struct io_queue *q0 = io_fake_queue(w->f, 0);
	uint8_t req[128];
	struct codec_frame f;
	struct codec_mac out;
	int len;

	io_fake_set_tick(w->f, TW_TSC_HZ / 1000);
	/* Our ARP request and the reflector's reply; our NS and its NA. */
	assert_int_equal(prober_arp_resolve(q0, &tw_prober_mac, TW_PROBER_IP,
					    TW_REFL_IP, 1000, &w->clock, &out,
					    &no_stop),
			 0);
	assert_int_equal(prober_nd_resolve(q0, &tw_prober_mac, ip6_prober, 0,
					   ip6_refl, 1000, &w->clock, &out,
					   &no_stop),
			 0);
	tw_drain(w->f, 0);
	/* The prober's answers: to an ARP request, untagged and tagged, and
	 * to an NS. */
	len = codec_build_arp(req, sizeof(req), CODEC_ARP_REQUEST, &tw_refl_mac,
			      TW_REFL_IP, &tw_prober_mac, TW_PROBER_IP);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(req, (size_t)len, &f), 0);
	assert_true(prober_answer_arp(q0, &f, &tw_prober_mac, TW_PROBER_IP));
	len = codec_vlan_insert(req, (size_t)len, sizeof(req), 100);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(req, (size_t)len, &f), 0);
	assert_true(prober_answer_arp_vlan(q0, &f, &tw_prober_mac, TW_PROBER_IP,
					   100));
	len = codec_build_ns(req, sizeof(req), &tw_refl_mac, ip6_refl,
			     ip6_prober, 0);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(req, (size_t)len, &f), 0);
	assert_true(
		prober_answer_ns(q0, req, &f, &tw_prober_mac, ip6_prober, 0));
	assert_int_equal(w->tx[0].frames, 5);
	check_watch(&w->tx[0], "the prober (ARP, ND)");
	check_watch(&w->tx[1], "the reflector (ARP, ND)");
	tw_drain(w->f, 1);
}

/* The reflector's answers to requests that came unpadded. */
static void
test_reflector_unpadded_requests(void **state)
{
	struct wire *w = *state;
	struct codec_flow fl = tw_flow4(&tw_prober_mac, &tw_refl_mac,
					TW_PROBER_IP, TW_REFL_IP, 40000, 0);
	uint8_t frame[256], pl[64];
	struct sockperf_hdr h = {.seq = 1,
				 .flags = SOCKPERF_F_CLIENT |
					  SOCKPERF_F_PONG_REQUEST,
				 .length = SOCKPERF_HDR_LEN};
	unsigned sent = 0;
	size_t len;
	int l;

	/* sockperf, 56 bytes. */
	fl.dport = SOCKPERF_PORT;
	assert_int_equal(sockperf_build(pl, sizeof(pl), &h), SOCKPERF_HDR_LEN);
	len = tw_build_udp(frame, sizeof(frame), &fl, pl, SOCKPERF_HDR_LEN);
	assert_true(len < IO_ETH_MIN_LEN);
	tw_inject(w->f, 1, frame, len);
	sent++;
	/* A TWAMP-Light sender's 14-byte test packet, 56 bytes. */
	fl.dport = STAMP_PORT;
	tw_stamp_payload(pl, STAMP_BASE_LEN, 1, 0, TW_ANCHOR_NS);
	len = tw_build_udp(frame, sizeof(frame), &fl, pl, 14);
	tw_inject(w->f, 1, frame, len);
	sent++;
	/* UDP echo of 1 byte, 43. */
	fl.dport = 7;
	len = tw_build_udp(frame, sizeof(frame), &fl, pl, 1);
	tw_inject(w->f, 1, frame, len);
	sent++;
	/* ICMP echo without data, 42. */
	l = codec_build_icmp_echo(frame, sizeof(frame), &fl,
				  CODEC_ICMP_ECHO_REQUEST, 1, 1, NULL, 0);
	assert_true(l > 0 && l < IO_ETH_MIN_LEN);
	tw_inject(w->f, 1, frame, (size_t)l);
	sent++;
	/* ARP, 42 bytes, and tagged, 46. */
	l = codec_build_arp(frame, sizeof(frame), CODEC_ARP_REQUEST,
			    &tw_prober_mac, TW_PROBER_IP, &tw_refl_mac,
			    TW_REFL_IP);
	assert_true(l > 0);
	tw_inject(w->f, 1, frame, (size_t)l);
	sent++;
	l = codec_vlan_insert(frame, (size_t)l, sizeof(frame), 100);
	assert_true(l > 0);
	tw_inject(w->f, 1, frame, (size_t)l);
	sent++;
	assert_int_equal(reflector_poll(&w->rw), sent);
	assert_int_equal(reflector_counter_read(&w->rw, RC_TX), sent);
	assert_int_equal(w->tx[1].frames, sent);
	check_watch(&w->tx[1], "the reflector");
	assert_int_equal(tw_drain(w->f, 0), sent);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_probe_0),
		T(test_probe_1),
		T(test_probe_2),
		T(test_probe_3),
		T(test_probe_4),
		T(test_probe_5),
		T(test_probe_6),
		T(test_probe_7),
		T(test_probe_8),
		T(test_probe_9),
		T(test_probe_10),
		T(test_probe_11),
		T(test_probe_12),
		T(test_probe_13),
		T(test_probe_14),
		T(test_probe_15),
		T(test_probe_16),
		T(test_probe_17),
		T(test_probe_18),
		T(test_probe_19),
		T(test_build_and_template),
		T(test_fragments),
		T(test_arp_nd),
		T(test_reflector_unpadded_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
