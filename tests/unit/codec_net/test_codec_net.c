/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/codec.h"
#include "latprobe/frag.h"
#include "latprobe/nd.h"
#include "vectors/net_vectors.h"

#define NVEC (sizeof(golden_net_vecs) / sizeof(golden_net_vecs[0]))
#define IP_A 0xc6120001 /* 198.18.0.1 */
#define IP_B 0xc6120002 /* 198.18.0.2 */

static const struct codec_mac mac_a = {{0x02, 0x00, 0x5e, 0x10, 0x00, 0x01}};
static const struct codec_mac mac_b = {{0x02, 0x00, 0x5e, 0x10, 0x00, 0x02}};
static const struct codec_mac mac_c = {{0x02, 0x00, 0x5e, 0x10, 0x00, 0x03}};

/* An exactly sized heap copy: ASan flags any read past len. */
static uint8_t *
dup_exact(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len != 0 ? len : 1);

	assert_non_null(p);
	if (len != 0)
		memcpy(p, src, len);
	return p;
}

static uint32_t rng_state = 12345;

static uint32_t
rng(void)
{
	/* xorshift32: reproducible garbage without libc rand() state. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static struct codec_flow
flow4(bool vlan)
{
	struct codec_flow fl = {
		.src_mac = mac_a,
		.dst_mac = mac_b,
		.vlan = vlan,
		.vlan_tci = 0xa064,
		.ip_version = 4,
		.src4 = IP_A,
		.dst4 = IP_B,
		.sport = 40000,
		.dport = 862,
	};
	return fl;
}

static struct codec_flow
flow6(bool vlan)
{
	struct codec_flow fl = flow4(vlan);
	static const uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t b6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

	fl.ip_version = 6;
	memcpy(fl.src6, a6, 16);
	memcpy(fl.dst6, b6, 16);
	return fl;
}

static void
check_frame(const struct codec_frame *w, const struct codec_frame *g)
{
	assert_memory_equal(w->dst.b, g->dst.b, CODEC_ETH_ALEN);
	assert_memory_equal(w->src.b, g->src.b, CODEC_ETH_ALEN);
	assert_int_equal(w->has_vlan, g->has_vlan);
	assert_int_equal(w->vlan_tci, g->vlan_tci);
	assert_int_equal(w->ethertype, g->ethertype);
	assert_int_equal(w->l3_off, g->l3_off);
	assert_int_equal(w->arp_op, g->arp_op);
	assert_memory_equal(w->arp_sha.b, g->arp_sha.b, CODEC_ETH_ALEN);
	assert_memory_equal(w->arp_tha.b, g->arp_tha.b, CODEC_ETH_ALEN);
	assert_int_equal(w->arp_spa, g->arp_spa);
	assert_int_equal(w->arp_tpa, g->arp_tpa);
	assert_int_equal(w->ip_version, g->ip_version);
	assert_int_equal(w->ip_proto, g->ip_proto);
	assert_int_equal(w->ttl, g->ttl);
	assert_int_equal(w->tos, g->tos);
	assert_int_equal(w->l3_hlen, g->l3_hlen);
	assert_int_equal(w->ip_len, g->ip_len);
	assert_int_equal(w->src4, g->src4);
	assert_int_equal(w->dst4, g->dst4);
	assert_memory_equal(w->src6, g->src6, 16);
	assert_memory_equal(w->dst6, g->dst6, 16);
	assert_int_equal(w->ip_id, g->ip_id);
	assert_int_equal(w->is_fragment, g->is_fragment);
	assert_int_equal(w->more_fragments, g->more_fragments);
	assert_int_equal(w->frag_off, g->frag_off);
	assert_int_equal(w->frag_hdr_off, g->frag_hdr_off);
	assert_int_equal(w->frag_id, g->frag_id);
	assert_int_equal(w->ip6_ext_refused, g->ip6_ext_refused);
	assert_int_equal(w->l4_off, g->l4_off);
	assert_int_equal(w->l4_len, g->l4_len);
	assert_int_equal(w->sport, g->sport);
	assert_int_equal(w->dport, g->dport);
	assert_int_equal(w->payload_off, g->payload_off);
	assert_int_equal(w->payload_len, g->payload_len);
	assert_int_equal(w->icmp_type, g->icmp_type);
	assert_int_equal(w->icmp_code, g->icmp_code);
	assert_int_equal(w->icmp_id, g->icmp_id);
	assert_int_equal(w->icmp_seq, g->icmp_seq);
	assert_int_equal(w->tcp_seq, g->tcp_seq);
	assert_int_equal(w->tcp_ack, g->tcp_ack);
	assert_int_equal(w->tcp_flags, g->tcp_flags);
	assert_int_equal(w->tcp_window, g->tcp_window);
	assert_int_equal(w->tcp_mss, g->tcp_mss);
}

/* Structural promises of a successful parse, whatever the input. */
static void
check_invariants(const struct codec_frame *f, size_t len)
{
	assert_true(f->l3_off <= len);
	if (f->ip_version != 0) {
		assert_true(f->ip_version == 4 || f->ip_version == 6);
		assert_true((size_t)f->l3_off + f->ip_len <= len);
		assert_int_equal(f->l4_off, f->l3_off + f->l3_hlen);
		assert_true((size_t)f->l4_off + f->l4_len <= len);
		assert_true(f->l4_len <= f->ip_len - f->l3_hlen);
	}
	if (f->payload_off != 0) {
		assert_false(f->is_fragment);
		assert_true(f->payload_off >= f->l4_off + 8);
		assert_int_equal(f->payload_off + f->payload_len,
				 f->l4_off + f->l4_len);
	}
	if (f->is_fragment)
		assert_int_equal(f->payload_off, 0);
}

/* The NA flow.src sends when flow.dst solicits it: our NS, parsed and
 * validated, answered by codec_build_na. */
static int
build_na_vec(const struct golden_net_vec *v, uint8_t *buf, size_t cap)
{
	uint8_t ns[128];
	struct codec_frame f;
	struct codec_nd nd;
	int len = codec_build_ns(ns, sizeof(ns), &v->flow.dst_mac, v->flow.dst6,
				 v->flow.src6, 0);

	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(ns, (size_t)len, &f), 0);
	assert_int_equal(codec_nd_parse(ns, &f, &nd), 0);
	return codec_build_na(buf, cap, &f, &nd, &v->flow.src_mac);
}

/* Fragment frag_index of the UDP datagram (flow, payload) cut at frag_mtu. */
static int
build_frag6_vec(const struct golden_net_vec *v, uint8_t *buf, size_t cap)
{
	static uint8_t whole[8192], tmp[2048];
	struct codec_frame f;
	size_t off = 0;
	int len;

	len = codec_build_udp(whole, sizeof(whole), &v->flow, 0, v->payload,
			      v->plen);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(whole, (size_t)len, &f), 0);
	for (unsigned i = 0; i < v->frag_index; i++) {
		assert_true(codec_ipv6_fragment(whole, &f, v->frag_mtu,
						v->frag_id, &off, tmp,
						sizeof(tmp)) > 0);
		assert_true(off != 0);
	}
	return codec_ipv6_fragment(whole, &f, v->frag_mtu, v->frag_id, &off,
				   buf, cap);
}

/* Builds vector v with our builder into buf; returns the builder's result. */
static int
build_vec(const struct golden_net_vec *v, uint8_t *buf, size_t cap)
{
	const uint8_t *pay = v->frame + v->len - v->plen;

	switch (v->kind) {
	case GOLDEN_UDP:
		return codec_build_udp(buf, cap, &v->flow, v->ip_id, pay,
				       v->plen);
	case GOLDEN_ICMP:
		return codec_build_icmp_echo(buf, cap, &v->flow, v->icmp_type,
					     v->icmp_id, v->icmp_seq, pay,
					     v->plen);
	case GOLDEN_TCP:
		return codec_build_tcp(buf, cap, &v->flow, v->tcp_seq,
				       v->tcp_ack, v->tcp_flags, v->tcp_window,
				       v->tcp_mss);
	case GOLDEN_ARP:
		return codec_build_arp(
			buf, cap, v->arp_op, &v->arp_sha, v->arp_spa,
			v->arp_op == CODEC_ARP_REPLY ? &v->arp_tha : NULL,
			v->arp_tpa);
	case GOLDEN_NS:
		/* flow.src solicits flow.dst. */
		return codec_build_ns(buf, cap, &v->flow.src_mac, v->flow.src6,
				      v->flow.dst6, 0);
	case GOLDEN_NA:
		return build_na_vec(v, buf, cap);
	case GOLDEN_FRAG6:
		return build_frag6_vec(v, buf, cap);
	default:
		fail();
	}
	return -1;
}

/* Our builders write exactly the bytes scapy writes for the same frame. */
static void
test_golden_build(void **state)
{
	size_t i, nb = 0;

	(void)state;
	for (i = 0; i < NVEC; i++) {
		const struct golden_net_vec *v = &golden_net_vecs[i];
		uint8_t big[2048];
		uint8_t *exact;

		if (v->kind == GOLDEN_PARSE)
			continue;
		print_message("# build %s\n", v->name);
		/* Odd start: frames need no alignment. */
		memset(big, 0xee, sizeof(big));
		assert_int_equal(build_vec(v, big + 1, sizeof(big) - 1),
				 (int)v->len);
		assert_memory_equal(big + 1, v->frame, v->len);
		assert_int_equal(big[1 + v->len], 0xee);

		exact = dup_exact(big, v->len);
		assert_int_equal(build_vec(v, exact, v->len), (int)v->len);
		assert_memory_equal(exact, v->frame, v->len);
		assert_int_equal(build_vec(v, exact, v->len - 1), -EMSGSIZE);
		free(exact);
		nb++;
	}
	assert_true(nb >= 15);
}

/* Our parser and checksum checks agree with tshark's decoding. */
static void
test_golden_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NVEC; i++) {
		const struct golden_net_vec *v = &golden_net_vecs[i];
		uint8_t *odd = malloc(v->len + 1);
		struct codec_frame f;

		print_message("# parse %s\n", v->name);
		assert_non_null(odd);
		memcpy(odd + 1, v->frame, v->len);
		assert_int_equal(codec_parse_frame(odd + 1, v->len, &f), 0);
		check_frame(&v->expect, &f);
		check_invariants(&f, v->len);
		if (v->ipv4_csum_ok >= 0)
			assert_int_equal(codec_ipv4_csum_ok(odd + 1, &f),
					 v->ipv4_csum_ok);
		if (v->l4_csum_ok >= 0)
			assert_int_equal(codec_l4_csum_ok(odd + 1, &f),
					 v->l4_csum_ok);
		free(odd);
	}
}

/* Every prefix shorter than the headers + IP length is -EINVAL. */
static void
test_truncated(void **state)
{
	size_t i, n;

	(void)state;
	for (i = 0; i < NVEC; i++) {
		const struct golden_net_vec *v = &golden_net_vecs[i];
		const struct codec_frame *e = &v->expect;
		size_t need = (size_t)e->l3_off;
		struct codec_frame f;

		if (e->ip_version != 0)
			need += e->ip_len;
		else if (e->ethertype == CODEC_ETHERTYPE_ARP)
			need += CODEC_ARP_LEN;
		for (n = 0; n <= v->len; n++) {
			uint8_t *p = dup_exact(v->frame, n);
			int rc = codec_parse_frame(p, n, &f);

			if (n < need) {
				assert_int_equal(rc, -EINVAL);
			} else {
				assert_int_equal(rc, 0);
				check_frame(e, &f);
			}
			free(p);
		}
	}
}

/* Trailing bytes (Ethernet padding, FCS) never change what L4 sees. */
static void
test_oversized(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NVEC; i++) {
		const struct golden_net_vec *v = &golden_net_vecs[i];
		uint8_t buf[2048];
		struct codec_frame f;

		memcpy(buf, v->frame, v->len);
		memset(buf + v->len, 0x5a, 100);
		assert_int_equal(codec_parse_frame(buf, v->len + 100, &f), 0);
		check_frame(&v->expect, &f);
		if (v->l4_csum_ok >= 0)
			assert_int_equal(codec_l4_csum_ok(buf, &f),
					 v->l4_csum_ok);
	}
}

static void
mutate_and_parse(const uint8_t *frame, size_t len, unsigned int rounds)
{
	unsigned int r;

	for (r = 0; r < rounds; r++) {
		uint8_t *p = dup_exact(frame, len);
		unsigned int k, flips = 1 + rng() % 4;
		struct codec_frame f;

		for (k = 0; k < flips && len != 0; k++)
			p[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
		if (codec_parse_frame(p, len, &f) == 0) {
			check_invariants(&f, len);
			(void)codec_ipv4_csum_ok(p, &f);
			(void)codec_l4_csum_ok(p, &f);
			codec_turn_around(p, &f, &mac_c, 9);
			codec_ipv4_csum_set(p, &f);
			codec_l4_csum_set(p, &f);
		}
		free(p);
	}
}

static void
test_garbage(void **state)
{
	uint8_t buf[256];
	struct codec_frame f;
	unsigned int r, ok = 0;
	size_t i;

	(void)state;
	assert_int_equal(codec_parse_frame(NULL, 0, &f), -EINVAL);
	assert_int_equal(codec_parse_frame(buf, 0, NULL), -EINVAL);
	for (r = 0; r < 20000; r++) {
		size_t len = rng() % sizeof(buf);
		uint8_t *p;

		for (i = 0; i < len; i++)
			buf[i] = (uint8_t)rng();
		/* Steer most into the ARP/IP parsers. */
		if (len >= 15 && (r & 3) != 0) {
			static const uint8_t et[3][3] = {
				{0x08, 0x00, 0x45},
				{0x86, 0xdd, 0x60},
				{0x08, 0x06, 0x00},
			};

			memcpy(buf + 12, et[(r & 3) - 1], 3);
		}
		p = dup_exact(buf, len);
		if (codec_parse_frame(p, len, &f) == 0) {
			check_invariants(&f, len);
			ok++;
		}
		free(p);
	}
	assert_true(ok > 0);
	for (i = 0; i < NVEC; i++)
		mutate_and_parse(golden_net_vecs[i].frame,
				 golden_net_vecs[i].len, 300);
}

/* RFC 1071 §3 numerical example, and a textbook IPv4 header. */
static void
test_csum_known(void **state)
{
	static const uint8_t rfc1071[8] = {0x00, 0x01, 0xf2, 0x03,
					   0xf4, 0xf5, 0xf6, 0xf7};
	uint8_t ip[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
			  0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
			  0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	uint8_t frame[14 + 20] = {0};
	struct codec_frame f = {0};
	uint16_t c;
	uint8_t b[2];
	uint32_t s;

	(void)state;
	/* Sum ddf2 (RFC 1071 §3), checksum 220d, in any chunking. */
	c = codec_csum_fold(codec_csum_partial(rfc1071, 8, 0));
	memcpy(b, &c, 2);
	assert_int_equal(b[0], 0x22);
	assert_int_equal(b[1], 0x0d);
	s = codec_csum_partial(rfc1071, 2, 0);
	s = codec_csum_partial(rfc1071 + 2, 4, s);
	assert_int_equal(codec_csum_fold(codec_csum_partial(rfc1071 + 6, 2, s)),
			 c);
	/* Odd length: the last byte is padded with a zero (RFC 1071 §4.1). */
	/* 0001 + f203 + f4f5 + f600 = 2dcf9 -> dcfb -> 2304 */
	c = codec_csum_fold(codec_csum_partial(rfc1071, 7, 0));
	memcpy(b, &c, 2);
	assert_int_equal(b[0], 0x23);
	assert_int_equal(b[1], 0x04);
	assert_int_equal(codec_csum_fold(0xffffffff), 0);

	memcpy(frame + 14, ip, sizeof(ip));
	f.ip_version = 4;
	f.l3_off = 14;
	f.l3_hlen = 20;
	assert_false(codec_ipv4_csum_ok(frame, &f));
	codec_ipv4_csum_set(frame, &f);
	assert_int_equal(frame[14 + 10], 0xb8);
	assert_int_equal(frame[14 + 11], 0x61);
	assert_true(codec_ipv4_csum_ok(frame, &f));
	frame[14 + 8] ^= 1;
	assert_false(codec_ipv4_csum_ok(frame, &f));
	f.ip_version = 6;
	assert_false(codec_ipv4_csum_ok(frame, &f));
}

static void
roundtrip_udp(const struct codec_flow *fl, size_t plen)
{
	uint8_t buf[1600], pay[1500];
	struct codec_frame f;
	size_t hl = codec_udp_header_len(fl), i;
	int n;

	for (i = 0; i < plen; i++)
		pay[i] = (uint8_t)(i * 31 + plen);
	n = codec_build_udp(buf, sizeof(buf), fl, 0x4242, pay, plen);
	assert_int_equal(n, (int)(hl + plen));
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	check_invariants(&f, (size_t)n);
	assert_memory_equal(f.src.b, fl->src_mac.b, 6);
	assert_memory_equal(f.dst.b, fl->dst_mac.b, 6);
	assert_int_equal(f.has_vlan, fl->vlan);
	assert_int_equal(f.vlan_tci, fl->vlan ? fl->vlan_tci : 0);
	assert_int_equal(f.ip_version, fl->ip_version);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_UDP);
	assert_int_equal(f.ttl, fl->ttl != 0 ? fl->ttl : 64);
	assert_int_equal(f.tos, fl->tos);
	if (fl->ip_version == 4) {
		assert_int_equal(f.src4, fl->src4);
		assert_int_equal(f.dst4, fl->dst4);
		assert_int_equal(f.ip_id, 0x4242);
		assert_true(codec_ipv4_csum_ok(buf, &f));
	} else {
		assert_memory_equal(f.src6, fl->src6, 16);
		assert_memory_equal(f.dst6, fl->dst6, 16);
	}
	assert_false(f.is_fragment);
	assert_int_equal(f.sport, fl->sport);
	assert_int_equal(f.dport, fl->dport);
	assert_int_equal(f.payload_off, hl);
	assert_int_equal(f.payload_len, plen);
	assert_memory_equal(buf + f.payload_off, pay, plen);
	assert_true(codec_l4_csum_ok(buf, &f));
	/* Any single bit flip in the payload is caught. */
	if (plen != 0) {
		buf[f.payload_off + plen / 2] ^= 0x10;
		assert_false(codec_l4_csum_ok(buf, &f));
	}
}

static void
test_roundtrip_udp(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 13, 14, 44, 45, 1000, 1472};
	size_t i;
	int v;

	(void)state;
	for (v = 0; v < 4; v++) {
		struct codec_flow fl = v & 1 ? flow6(v & 2) : flow4(v & 2);

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			fl.ttl = (uint8_t)(i * 40);
			fl.tos = (uint8_t)(i * 7);
			roundtrip_udp(&fl, sizes[i]);
		}
	}
}

/* The payload may already sit where it goes, or overlap the headers. */
static void
test_udp_payload_in_place(void **state)
{
	struct codec_flow fl = flow4(true);
	size_t hl = codec_udp_header_len(&fl);
	uint8_t buf[256], ref[256];
	int n;

	(void)state;
	assert_int_equal(hl, 14 + 4 + 20 + 8);
	fl.ip_version = 6;
	assert_int_equal(codec_udp_header_len(&fl), 14 + 4 + 40 + 8);
	fl.ip_version = 4;
	memset(buf, 0, sizeof(buf));
	memcpy(buf + hl, "in-place payload", 16);
	n = codec_build_udp(ref, sizeof(ref), &fl, 1,
			    (const uint8_t *)"in-place payload", 16);
	assert_int_equal(
		codec_build_udp(buf, sizeof(buf), &fl, 1, buf + hl, 16), n);
	assert_memory_equal(buf, ref, (size_t)n);
	memcpy(buf, "in-place payload", 16);
	assert_int_equal(codec_build_udp(buf, sizeof(buf), &fl, 1, buf, 16), n);
	assert_memory_equal(buf, ref, (size_t)n);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "in-place", 8);
	n = codec_build_icmp_echo(ref, sizeof(ref), &fl, 8, 1, 2,
				  (const uint8_t *)"in-place", 8);
	assert_int_equal(
		codec_build_icmp_echo(buf, sizeof(buf), &fl, 8, 1, 2, buf, 8),
		n);
	assert_memory_equal(buf, ref, (size_t)n);
}

static void
test_roundtrip_icmp_tcp_arp(void **state)
{
	struct codec_flow fl = flow4(false);
	uint8_t buf[256], pay[64];
	struct codec_frame f;
	int n, v;

	(void)state;
	memset(pay, 0xa5, sizeof(pay));
	n = codec_build_icmp_echo(buf, sizeof(buf), &fl,
				  CODEC_ICMP_ECHO_REQUEST, 0xabcd, 0x1234, pay,
				  sizeof(pay));
	assert_int_equal(n, 14 + 20 + 8 + 64);
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_ICMP);
	assert_int_equal(f.icmp_type, CODEC_ICMP_ECHO_REQUEST);
	assert_int_equal(f.icmp_code, 0);
	assert_int_equal(f.icmp_id, 0xabcd);
	assert_int_equal(f.icmp_seq, 0x1234);
	assert_int_equal(f.payload_len, 64);
	assert_true(codec_ipv4_csum_ok(buf, &f));
	assert_true(codec_l4_csum_ok(buf, &f));

	for (v = 0; v < 4; v++) {
		struct codec_flow tf = v & 1 ? flow6(v & 2) : flow4(v & 2);
		uint16_t mss = v < 2 ? 1460 : 0;
		uint8_t flags = mss ? CODEC_TCP_SYN : CODEC_TCP_RST;

		n = codec_build_tcp(buf, sizeof(buf), &tf, 0x89abcdef,
				    0x01234567, flags, 29200, mss);
		assert_true(n > 0);
		assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
		check_invariants(&f, (size_t)n);
		assert_int_equal(f.ip_proto, CODEC_IPPROTO_TCP);
		assert_int_equal(f.sport, tf.sport);
		assert_int_equal(f.dport, tf.dport);
		assert_int_equal(f.tcp_seq, 0x89abcdef);
		assert_int_equal(f.tcp_ack, 0x01234567);
		assert_int_equal(f.tcp_flags, flags);
		assert_int_equal(f.tcp_window, 29200);
		assert_int_equal(f.tcp_mss, mss);
		assert_int_equal(f.payload_len, 0);
		assert_int_equal(f.l4_len, mss ? 24 : 20);
		assert_true(codec_l4_csum_ok(buf, &f));
	}

	n = codec_build_arp(buf, sizeof(buf), CODEC_ARP_REQUEST, &mac_a, IP_A,
			    &mac_c, IP_B);
	assert_int_equal(n, 42);
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_int_equal(f.ethertype, CODEC_ETHERTYPE_ARP);
	assert_int_equal(f.arp_op, CODEC_ARP_REQUEST);
	assert_memory_equal(f.arp_sha.b, mac_a.b, 6);
	assert_memory_equal(f.arp_tha.b, "\0\0\0\0\0\0", 6);
	assert_memory_equal(f.dst.b, "\xff\xff\xff\xff\xff\xff", 6);
	assert_int_equal(f.arp_spa, IP_A);
	assert_int_equal(f.arp_tpa, IP_B);
	assert_int_equal(f.ip_version, 0);
}

static void
test_builder_errors(void **state)
{
	struct codec_flow fl = flow4(false);
	static uint8_t big[70000];
	uint8_t buf[128];

	(void)state;
	fl.ip_version = 5;
	assert_int_equal(codec_build_udp(buf, sizeof(buf), &fl, 0, NULL, 0),
			 -EINVAL);
	assert_int_equal(codec_build_tcp(buf, sizeof(buf), &fl, 0, 0, 2, 0, 0),
			 -EINVAL);
	fl.ip_version = 6;
	assert_int_equal(
		codec_build_icmp_echo(buf, sizeof(buf), &fl, 8, 0, 0, NULL, 0),
		-EINVAL);
	fl.ip_version = 4;
	assert_int_equal(
		codec_build_icmp_echo(buf, sizeof(buf), &fl, 3, 0, 0, NULL, 0),
		-EINVAL);
	assert_int_equal(codec_build_udp(buf, sizeof(buf), &fl, 0, NULL, 4),
			 -EINVAL);
	assert_int_equal(codec_build_udp(NULL, sizeof(buf), &fl, 0, NULL, 0),
			 -EINVAL);
	assert_int_equal(codec_build_udp(buf, 41, &fl, 0, NULL, 0), -EMSGSIZE);
	assert_int_equal(codec_build_udp(buf, 42, &fl, 0, NULL, 0), 42);
	assert_int_equal(codec_build_udp(buf, 0, &fl, 0, NULL, 0), -EMSGSIZE);
	/* Past the 16-bit IP length fields, whatever cap says. */
	assert_int_equal(
		codec_build_udp(big, sizeof(big), &fl, 0, big + 42, 65535 - 28),
		14 + 65535);
	assert_int_equal(
		codec_build_udp(big, sizeof(big), &fl, 0, big, 65535 - 27),
		-EMSGSIZE);
	fl.ip_version = 6;
	assert_int_equal(
		codec_build_udp(big, sizeof(big), &fl, 0, big, 65535 - 7),
		-EMSGSIZE);
	assert_int_equal(
		codec_build_tcp(buf, 14 + 40 + 23, &fl, 0, 0, 2, 0, 1460),
		-EMSGSIZE);
	assert_int_equal(
		codec_build_arp(buf, 41, CODEC_ARP_REQUEST, &mac_a, 1, NULL, 2),
		-EMSGSIZE);
	assert_int_equal(codec_build_arp(buf, sizeof(buf), CODEC_ARP_REPLY,
					 &mac_a, 1, NULL, 2),
			 -EINVAL);
	assert_int_equal(
		codec_build_arp(buf, sizeof(buf), 3, &mac_a, 1, &mac_b, 2),
		-EINVAL);
	assert_int_equal(codec_build_arp(buf, sizeof(buf), CODEC_ARP_REQUEST,
					 NULL, 1, NULL, 2),
			 -EINVAL);
}

static void
test_vlan(void **state)
{
	struct codec_flow fl = flow4(true);
	uint8_t buf[128], two[132];
	struct codec_frame f;
	int n;

	(void)state;
	fl.vlan_tci = 0xffff; /* PCP 7, DEI 1, VID 4095: all 16 bits kept */
	n = codec_build_udp(buf, sizeof(buf), &fl, 0, (const uint8_t *)"x", 1);
	assert_int_equal(n, 18 + 20 + 8 + 1);
	assert_int_equal(buf[12], 0x81);
	assert_int_equal(buf[13], 0x00);
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_true(f.has_vlan);
	assert_int_equal(f.vlan_tci, 0xffff);
	assert_int_equal(f.ethertype, CODEC_ETHERTYPE_IPV4);
	assert_int_equal(f.l3_off, 18);
	assert_int_equal(f.l4_off, 38);
	/* A tag cut short. */
	assert_int_equal(codec_parse_frame(buf, 17, &f), -EINVAL);
	assert_int_equal(codec_parse_frame(buf, 18, &f), -EINVAL);
	/* QinQ-style second 802.1Q tag: not walked, not an error. */
	memcpy(two, buf, 16);
	memcpy(two + 16, "\x81\x00\x00\x05", 4);
	memcpy(two + 20, buf + 16, (size_t)n - 16);
	assert_int_equal(codec_parse_frame(two, (size_t)n + 4, &f), 0);
	assert_true(f.has_vlan);
	assert_int_equal(f.ethertype, CODEC_ETHERTYPE_VLAN);
	assert_int_equal(f.ip_version, 0);
}

/* Rewrites a built UDP/IPv4 frame with IHL 6..15 (NOP options). */
static void
test_ipv4_options(void **state)
{
	struct codec_flow fl = flow4(false);
	uint8_t base[128], buf[192];
	struct codec_frame f;
	unsigned int ihl;
	int n;

	(void)state;
	n = codec_build_udp(base, sizeof(base), &fl, 7,
			    (const uint8_t *)"options!", 8);
	assert_true(n > 0);
	for (ihl = 5; ihl <= 15; ihl++) {
		size_t opt = (ihl - 5) * 4, len = (size_t)n + opt;

		memcpy(buf, base, 34);
		memset(buf + 34, 0x01, opt); /* NOP */
		memcpy(buf + 34 + opt, base + 34, (size_t)n - 34);
		buf[14] = (uint8_t)(0x40 | ihl);
		buf[17] = (uint8_t)(len - 14);
		assert_int_equal(codec_parse_frame(buf, len, &f), 0);
		assert_int_equal(f.l3_hlen, ihl * 4);
		assert_int_equal(f.l4_off, 14 + ihl * 4);
		assert_int_equal(f.sport, 40000);
		assert_int_equal(f.payload_len, 8);
		assert_memory_equal(buf + f.payload_off, "options!", 8);
		assert_false(ihl > 5 && codec_ipv4_csum_ok(buf, &f));
		codec_ipv4_csum_set(buf, &f);
		assert_true(codec_ipv4_csum_ok(buf, &f));
		/* The UDP pseudo-header does not include options. */
		assert_true(codec_l4_csum_ok(buf, &f));
	}
	/* IHL < 5, IHL past total length, total length past the frame. */
	memcpy(buf, base, (size_t)n);
	buf[14] = 0x44;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	buf[14] = 0x4f; /* 60-byte header, 36-byte packet */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	memcpy(buf, base, (size_t)n);
	buf[17]++;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	memcpy(buf, base, (size_t)n);
	buf[14] = 0x65; /* version 6 under ethertype IPv4 */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
}

static void
test_fragments(void **state)
{
	struct codec_flow fl = flow4(false);
	uint8_t buf[128], before[128];
	struct codec_frame f;
	int n;

	(void)state;
	n = codec_build_udp(buf, sizeof(buf), &fl, 9, (const uint8_t *)"abc",
			    3);
	assert_true(n > 0);
	/* MF with offset 0: the first fragment. */
	buf[20] = 0x20, buf[21] = 0x00;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_true(f.is_fragment);
	assert_true(f.more_fragments);
	assert_int_equal(f.frag_off, 0);
	assert_int_equal(f.sport, 0);
	assert_int_equal(f.payload_off, 0);
	assert_int_equal(f.l4_off, 34);
	assert_int_equal(f.l4_len, 11);
	assert_false(codec_l4_csum_ok(buf, &f));
	/* Offset 8191 * 8 bytes, no MF: the last fragment. */
	buf[20] = 0x1f, buf[21] = 0xff;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_true(f.is_fragment);
	assert_false(f.more_fragments);
	assert_int_equal(f.frag_off, 65528);
	/* A UDP length that would be wrong is not looked at in a fragment. */
	buf[38] = 0xff;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	/* Ports stay, checksum setters leave the fragment alone. */
	memcpy(before, buf, (size_t)n);
	codec_turn_around(buf, &f, &mac_c, 64);
	codec_l4_csum_set(buf, &f);
	assert_memory_equal(buf + 34, before + 34, (size_t)n - 34);
	/* DF alone is not a fragment. */
	buf[20] = 0x40, buf[21] = 0x00, buf[38] = 0;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_false(f.is_fragment);
}

static void
test_l4_malformed(void **state)
{
	struct codec_flow fl = flow4(false);
	uint8_t buf[128];
	struct codec_frame f;
	int n;

	(void)state;
	n = codec_build_udp(buf, sizeof(buf), &fl, 9, (const uint8_t *)"abc",
			    3);
	buf[39] = 7; /* UDP length < 8 */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	buf[39] = 12; /* past the IP payload */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	buf[39] = 10; /* shorter than the IP payload: allowed, bounds L4 */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_int_equal(f.l4_len, 10);
	assert_int_equal(f.payload_len, 2);

	n = codec_build_tcp(buf, sizeof(buf), &fl, 1, 0, CODEC_TCP_SYN, 1,
			    1460);
	buf[46] = 0x40; /* data offset 4 */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	buf[46] = 0x70; /* 28 bytes, only 24 there */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);

	n = codec_build_icmp_echo(buf, sizeof(buf), &fl, 8, 1, 1, NULL, 0);
	buf[17] = 20 + 7; /* 7 bytes of ICMP */
	assert_int_equal(codec_parse_frame(buf, (size_t)n - 1, &f), -EINVAL);

	fl = flow6(false);
	n = codec_build_udp(buf, sizeof(buf), &fl, 0, (const uint8_t *)"ab", 2);
	buf[19]++; /* IPv6 payload length past the frame */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	buf[19] = 0; /* payload 0: no room for UDP */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	buf[19] = 10;
	buf[14] = 0x40; /* version 4 under ethertype IPv6 */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
	/* ARP that is not Ethernet/IPv4 */
	n = codec_build_arp(buf, sizeof(buf), 1, &mac_a, 1, NULL, 2);
	buf[15] = 6; /* hardware type 6 (IEEE 802) */
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), -EINVAL);
}

/* Puts opts into a built SYN's option space (rounded up to 4 bytes). */
static int
tcp_with_options(uint8_t *buf, const uint8_t *opts, size_t olen,
		 struct codec_frame *f)
{
	struct codec_flow fl = flow4(false);
	size_t padded = (olen + 3) & ~(size_t)3;
	int n = codec_build_tcp(buf, 256, &fl, 1, 0, CODEC_TCP_SYN, 100, 0);
	uint8_t *exact;
	int rc;

	memset(buf + n, 0, padded);
	memcpy(buf + n, opts, olen);
	buf[17] = (uint8_t)(40 + padded);
	buf[46] = (uint8_t)(((20 + padded) / 4) << 4);
	/* Parse an exact copy so that ASan sees reads past the frame. */
	exact = dup_exact(buf, (size_t)n + padded);
	rc = codec_parse_frame(exact, (size_t)n + padded, f);
	free(exact);
	return rc;
}

static void
test_tcp_options(void **state)
{
	static const uint8_t after_nops[] = {1, 1, 1, 3,    3,
					     7, 2, 4, 0x23, 0x28};
	static const uint8_t after_sack[] = {4, 2, 8, 10, 1, 2, 3, 4,	 5,
					     6, 7, 8, 1,  1, 2, 4, 0x05, 0xb4};
	static const uint8_t eol_first[] = {0, 2, 4, 0x05, 0xb4};
	static const uint8_t zero_len[] = {30, 0, 2, 4, 0x05, 0xb4};
	static const uint8_t past_end[] = {2, 4, 0x05, 0xb4, 8, 40};
	static const uint8_t bad_mss_len[] = {2, 3, 0x05, 1, 2, 6, 0x05, 0xb4};
	static const uint8_t cut_mss[] = {1, 1, 1, 1, 1, 1, 1, 1,
					  1, 1, 1, 1, 1, 1, 2};
	/* MSS whose length runs one byte past the option space. */
	static const uint8_t mss_overrun[] = {1, 1, 1, 1, 1, 1,
					      1, 1, 1, 2, 4, 0x05};
	uint8_t buf[256];
	struct codec_frame f;

	(void)state;
	assert_int_equal(
		tcp_with_options(buf, after_nops, sizeof(after_nops), &f), 0);
	assert_int_equal(f.tcp_mss, 9000);
	assert_int_equal(f.payload_len, 0);
	assert_true(codec_l4_csum_ok(buf, &f) == false);
	codec_l4_csum_set(buf, &f);
	assert_true(codec_l4_csum_ok(buf, &f));
	assert_int_equal(
		tcp_with_options(buf, after_sack, sizeof(after_sack), &f), 0);
	assert_int_equal(f.tcp_mss, 1460);
	/* Malformed options end the walk but are not an error. */
	assert_int_equal(
		tcp_with_options(buf, eol_first, sizeof(eol_first), &f), 0);
	assert_int_equal(f.tcp_mss, 0);
	assert_int_equal(tcp_with_options(buf, zero_len, sizeof(zero_len), &f),
			 0);
	assert_int_equal(f.tcp_mss, 0);
	assert_int_equal(tcp_with_options(buf, past_end, sizeof(past_end), &f),
			 0);
	assert_int_equal(f.tcp_mss, 1460);
	assert_int_equal(
		tcp_with_options(buf, bad_mss_len, sizeof(bad_mss_len), &f), 0);
	assert_int_equal(f.tcp_mss, 0);
	assert_int_equal(tcp_with_options(buf, cut_mss, sizeof(cut_mss), &f),
			 0);
	assert_int_equal(f.tcp_mss, 0);
	buf[54 + sizeof(mss_overrun)] = 0xb4;
	assert_int_equal(
		tcp_with_options(buf, mss_overrun, sizeof(mss_overrun), &f), 0);
	assert_int_equal(f.tcp_mss, 0);
}

static void
test_udp_zero_csum(void **state)
{
	struct codec_flow fl = flow4(false);
	uint8_t buf[128];
	struct codec_frame f;
	int n;

	(void)state;
	n = codec_build_udp(buf, sizeof(buf), &fl, 0, (const uint8_t *)"z", 1);
	buf[40] = buf[41] = 0;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_true(codec_l4_csum_ok(buf, &f)); /* "no checksum" */
	buf[41] = 1;
	assert_false(codec_l4_csum_ok(buf, &f));
	fl = flow6(false);
	n = codec_build_udp(buf, sizeof(buf), &fl, 0, (const uint8_t *)"z", 1);
	buf[60] = buf[61] = 0;
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	assert_false(codec_l4_csum_ok(buf, &f)); /* RFC 8200 §8.1 */
	codec_l4_csum_set(buf, &f);
	assert_true(codec_l4_csum_ok(buf, &f));
	assert_false(buf[60] == 0 && buf[61] == 0);
}

static void
turn_check(const struct codec_flow *fl, uint8_t proto)
{
	uint8_t buf[256];
	struct codec_frame f, g;
	int n;

	if (proto == CODEC_IPPROTO_UDP)
		n = codec_build_udp(buf, sizeof(buf), fl, 5,
				    (const uint8_t *)"echo me", 7);
	else if (proto == CODEC_IPPROTO_TCP)
		n = codec_build_tcp(buf, sizeof(buf), fl, 100, 0, CODEC_TCP_SYN,
				    512, 1460);
	else
		n = codec_build_icmp_echo(buf, sizeof(buf), fl,
					  CODEC_ICMP_ECHO_REQUEST, 3, 4,
					  (const uint8_t *)"ping", 4);
	assert_true(n > 0);
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &f), 0);
	codec_turn_around(buf, &f, &mac_c, 33);
	if (proto == CODEC_IPPROTO_ICMP)
		buf[f.l4_off] = CODEC_ICMP_ECHO_REPLY;
	codec_ipv4_csum_set(buf, &f);
	codec_l4_csum_set(buf, &f);
	assert_int_equal(codec_parse_frame(buf, (size_t)n, &g), 0);
	assert_memory_equal(g.dst.b, fl->src_mac.b, 6);
	assert_memory_equal(g.src.b, mac_c.b, 6);
	assert_int_equal(g.has_vlan, fl->vlan);
	assert_int_equal(g.vlan_tci, f.vlan_tci);
	assert_int_equal(g.ttl, 33);
	assert_int_equal(g.ip_len, f.ip_len);
	assert_int_equal(g.src4, f.dst4);
	assert_int_equal(g.dst4, f.src4);
	assert_memory_equal(g.src6, f.dst6, 16);
	assert_memory_equal(g.dst6, f.src6, 16);
	assert_int_equal(g.sport, f.dport);
	assert_int_equal(g.dport, f.sport);
	assert_memory_equal(buf + g.payload_off, buf + f.payload_off,
			    g.payload_len);
	if (g.ip_version == 4)
		assert_true(codec_ipv4_csum_ok(buf, &g));
	assert_true(codec_l4_csum_ok(buf, &g));
	if (proto == CODEC_IPPROTO_ICMP) {
		assert_int_equal(g.icmp_type, CODEC_ICMP_ECHO_REPLY);
		assert_int_equal(g.icmp_id, 3);
		assert_int_equal(g.icmp_seq, 4);
	}
}

static void
test_turn_around(void **state)
{
	uint8_t req[64], rep[64];
	struct codec_frame f;
	int v, n;

	(void)state;
	for (v = 0; v < 4; v++) {
		struct codec_flow fl = v & 1 ? flow6(v & 2) : flow4(v & 2);

		turn_check(&fl, CODEC_IPPROTO_UDP);
		turn_check(&fl, CODEC_IPPROTO_TCP);
		if (fl.ip_version == 4)
			turn_check(&fl, CODEC_IPPROTO_ICMP);
	}
	/* An ARP request turned around is the reply our builder writes. */
	n = codec_build_arp(req, sizeof(req), CODEC_ARP_REQUEST, &mac_a, IP_A,
			    NULL, IP_B);
	assert_int_equal(codec_parse_frame(req, (size_t)n, &f), 0);
	codec_turn_around(req, &f, &mac_b, 0);
	assert_int_equal(codec_build_arp(rep, sizeof(rep), CODEC_ARP_REPLY,
					 &mac_b, IP_B, &mac_a, IP_A),
			 n);
	assert_memory_equal(req, rep, (size_t)n);
}

/* codec_turn_around() keeps a right IPv4 header checksum right for every
 * TTL change (RFC 1624 incremental update), equal to a full recompute. */
static void
test_turn_around_ipv4_csum(void **state)
{
	static const uint8_t ttls[] = {0, 1, 63, 64, 128, 254, 255};
	uint8_t buf[128], again[128];
	struct codec_frame f;

	(void)state;
	for (size_t a = 0; a < sizeof(ttls); a++) {
		for (size_t b = 0; b < sizeof(ttls); b++) {
			struct codec_flow fl = flow4(b & 1);
			int n;

			fl.ttl = ttls[a];
			fl.tos = (uint8_t)(a * 37);
			n = codec_build_udp(buf, sizeof(buf), &fl,
					    (uint16_t)(a * 7919 + b), NULL, 0);
			assert_true(n > 0);
			assert_int_equal(codec_parse_frame(buf, (size_t)n, &f),
					 0);
			assert_true(codec_ipv4_csum_ok(buf, &f));
			codec_turn_around(buf, &f, &mac_b, ttls[b]);
			assert_int_equal(codec_parse_frame(buf, (size_t)n, &f),
					 0);
			assert_int_equal(f.ttl, ttls[b]);
			assert_true(codec_ipv4_csum_ok(buf, &f));
			memcpy(again, buf, (size_t)n);
			codec_ipv4_csum_set(again, &f);
			assert_memory_equal(again, buf, (size_t)n);
		}
	}
}

static void
test_mac(void **state)
{
	static const char *const bad[] = {
		"",
		"aa:bb:cc:dd:ee",
		"aa:bb:cc:dd:ee:ff:",
		"aa:bb:cc:dd:ee:fg",
		"aa:bb-cc:dd:ee:ff",
		"aabbccddeeff",
		"a:bb:cc:dd:ee:ff",
		"aa:bb:cc:dd:ee:f",
		" aa:bb:cc:dd:ee:ff",
		"aa::bb:cc:dd:ee:ff",
	};
	struct codec_mac m, m2;
	char out[18];
	size_t i;

	(void)state;
	assert_int_equal(codec_mac_parse("02:00:5E:10:0a:FF", &m), 0);
	assert_memory_equal(m.b, "\x02\x00\x5e\x10\x0a\xff", 6);
	codec_mac_format(&m, out);
	assert_string_equal(out, "02:00:5e:10:0a:ff");
	assert_int_equal(codec_mac_parse("00-11-22-33-44-55", &m2), 0);
	assert_memory_equal(m2.b, "\x00\x11\x22\x33\x44\x55", 6);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m2 = m;
		assert_int_equal(codec_mac_parse(bad[i], &m2), -EINVAL);
		assert_memory_equal(m2.b, m.b, 6); /* untouched */
	}
	assert_int_equal(codec_mac_parse(NULL, &m), -EINVAL);
}

/* 32-bit wire sequence numbers widened around near, at the 2^32 edges. */
static void
test_widen_seq32(void **state)
{
	(void)state;
	/* Plain: same epoch. */
	assert_int_equal(codec_widen_seq32(5, 1), 5);
	assert_int_equal(codec_widen_seq32(0, 0), 0);
	/* Never below 0: 0xffffffff near 1 stays in epoch 0. */
	assert_int_equal(codec_widen_seq32(0xffffffffu, 1), 0xffffffffull);
	/* Just below a wrap, near just above it: widens down. */
	assert_int_equal(codec_widen_seq32(0xfffffffeu, 0x100000002ull),
			 0xfffffffeull);
	assert_int_equal(codec_widen_seq32(0xffffffffu, 0x100000000ull),
			 0xffffffffull);
	/* Just above a wrap, near just below it: widens up. */
	assert_int_equal(codec_widen_seq32(1, 0xfffffffeull), 0x100000001ull);
	assert_int_equal(codec_widen_seq32(0, 0xffffffffull), 0x100000000ull);
	/* Second wrap, both ways. */
	assert_int_equal(codec_widen_seq32(0xfffffff0u, 0x200000003ull),
			 0x1fffffff0ull);
	assert_int_equal(codec_widen_seq32(3, 0x1fffffff0ull), 0x200000003ull);
	/* Half a wrap away is the edge: within it, the same epoch. */
	assert_int_equal(codec_widen_seq32(0x80000000u, 0x100000000ull),
			 0x180000000ull);
	assert_int_equal(codec_widen_seq32(0x80000001u, 0x100000000ull),
			 0x080000001ull);
	/* At the top of the 64-bit range nothing wraps past it. */
	assert_int_equal(codec_widen_seq32(0, UINT64_MAX),
			 0xffffffff00000000ull);
}

/* ICMP errors: built with a quote, and the quote parsed back. */
static void
test_icmp_quote(void **state)
{
	struct codec_flow probe = {.src_mac = mac_a,
				   .dst_mac = mac_b,
				   .ip_version = 4,
				   .src4 = IP_A,
				   .dst4 = IP_B,
				   .sport = 40000,
				   .dport = 862};
	struct codec_flow back = probe;
	struct codec_icmp_quote q;
	struct codec_frame f, pf;
	uint8_t p[128], e[256];
	int plen, len;

	(void)state;
	back.src4 = IP_B;
	back.dst4 = IP_A;
	plen = codec_build_udp(p, sizeof(p), &probe, 0x1234, NULL, 0);
	assert_true(plen > 0);
	len = codec_build_icmp_error(e, sizeof(e), &back,
				     CODEC_ICMP_DEST_UNREACH, 3,
				     p + CODEC_ETH_HLEN, 28);
	assert_int_equal(len, CODEC_ETH_HLEN + 20 + 8 + 28);
	assert_int_equal(codec_parse_frame(e, (size_t)len, &f), 0);
	assert_true(codec_ipv4_csum_ok(e, &f));
	assert_true(codec_l4_csum_ok(e, &f));
	assert_int_equal(f.icmp_type, 3);
	assert_int_equal(f.icmp_code, 3);
	assert_int_equal(codec_parse_icmp_quote(e, &f, &q), 0);
	assert_int_equal(q.src4, IP_A);
	assert_int_equal(q.dst4, IP_B);
	assert_int_equal(q.proto, CODEC_IPPROTO_UDP);
	assert_int_equal(q.ip_id, 0x1234);
	assert_true(q.has_l4);
	assert_int_equal(q.sport, 40000);
	assert_int_equal(q.dport, 862);
	/* A quote shorter than IP header + 8: -EINVAL. */
	len = codec_build_icmp_error(e, sizeof(e), &back, 3, 3,
				     p + CODEC_ETH_HLEN, 27);
	assert_int_equal(codec_parse_frame(e, (size_t)len, &f), 0);
	assert_int_equal(codec_parse_icmp_quote(e, &f, &q), -EINVAL);
	/* Not an error type (echo reply): -EINVAL. */
	len = codec_build_icmp_echo(e, sizeof(e), &back, CODEC_ICMP_ECHO_REPLY,
				    1, 1, p + CODEC_ETH_HLEN, 28);
	assert_int_equal(codec_parse_frame(e, (size_t)len, &f), 0);
	assert_int_equal(codec_parse_icmp_quote(e, &f, &q), -EINVAL);
	/* A non-first fragment quoted: no L4 fields. */
	assert_int_equal(codec_parse_frame(p, (size_t)plen, &pf), 0);
	p[CODEC_ETH_HLEN + 6] = 0x00;
	p[CODEC_ETH_HLEN + 7] = 0x10;
	len = codec_build_icmp_error(e, sizeof(e), &back, 11, 1,
				     p + CODEC_ETH_HLEN, 28);
	assert_int_equal(codec_parse_frame(e, (size_t)len, &f), 0);
	assert_int_equal(codec_parse_icmp_quote(e, &f, &q), 0);
	assert_false(q.has_l4);
	assert_int_equal(q.ip_id, 0x1234);
	/* IPv6 flows cannot carry ICMPv4 errors. */
	back.ip_version = 6;
	assert_int_equal(
		codec_build_icmp_error(e, sizeof(e), &back, 3, 3, p, 28),
		-EINVAL);
	assert_int_equal(codec_parse_icmp_quote(NULL, &f, &q), -EINVAL);
}

static void
test_vlan_insert(void **state)
{
	struct codec_frame f;
	uint8_t b[64];
	int len;

	(void)state;
	len = codec_build_arp(b, sizeof(b), CODEC_ARP_REQUEST, &mac_a, IP_A,
			      NULL, IP_B);
	assert_int_equal(len, 42);
	assert_int_equal(codec_vlan_insert(b, 42, 45, 100), -EMSGSIZE);
	assert_int_equal(codec_vlan_insert(b, 13, sizeof(b), 100), -EINVAL);
	len = codec_vlan_insert(b, 42, sizeof(b), 0x2064);
	assert_int_equal(len, 46);
	assert_int_equal(codec_parse_frame(b, (size_t)len, &f), 0);
	assert_true(f.has_vlan);
	assert_int_equal(f.vlan_tci, 0x2064);
	assert_int_equal(f.ethertype, CODEC_ETHERTYPE_ARP);
	assert_int_equal(f.arp_spa, IP_A);
	assert_int_equal(f.arp_tpa, IP_B);
}

/* The ARP reply both engines send: built from the parsed request, into
 * another buffer or over the request, equal to turning it around. */
static void
test_arp_reply(void **state)
{
	static const struct codec_mac asker = {{0x02, 0, 0, 0, 0, 0x0a}};
	static const struct codec_mac me = {{0x02, 0, 0, 0, 0, 0x0b}};
	uint8_t req[64], out[64], inplace[64], turned[64];
	struct codec_frame f, r;
	int len, rlen;

	(void)state;
	len = codec_build_arp(req, sizeof(req), CODEC_ARP_REQUEST, &asker,
			      0xc6120001u, NULL, 0xc6120002u);
	assert_int_equal(len, CODEC_ETH_HLEN + CODEC_ARP_LEN);
	/* PCP 3, VLAN 100: the reply keeps the whole tag. */
	len = codec_vlan_insert(req, (size_t)len, sizeof(req), 0x6064);
	assert_int_equal(len, CODEC_ETH_HLEN + CODEC_VLAN_HLEN + CODEC_ARP_LEN);
	assert_int_equal(codec_parse_frame(req, (size_t)len, &f), 0);

	rlen = codec_build_arp_reply(out, sizeof(out), &f, &me);
	assert_int_equal(rlen, len);
	assert_int_equal(codec_parse_frame(out, (size_t)rlen, &r), 0);
	assert_int_equal(r.ethertype, CODEC_ETHERTYPE_ARP);
	assert_int_equal(r.arp_op, CODEC_ARP_REPLY);
	assert_memory_equal(r.dst.b, asker.b, CODEC_ETH_ALEN);
	assert_memory_equal(r.src.b, me.b, CODEC_ETH_ALEN);
	assert_true(r.has_vlan);
	assert_int_equal(r.vlan_tci, 0x6064);
	assert_memory_equal(r.arp_sha.b, me.b, CODEC_ETH_ALEN);
	assert_int_equal(r.arp_spa, 0xc6120002u);
	assert_memory_equal(r.arp_tha.b, asker.b, CODEC_ETH_ALEN);
	assert_int_equal(r.arp_tpa, 0xc6120001u);

	memcpy(inplace, req, (size_t)len);
	assert_int_equal(codec_build_arp_reply(inplace, (size_t)len, &f, &me),
			 len);
	assert_memory_equal(inplace, out, (size_t)len);
	memcpy(turned, req, (size_t)len);
	codec_turn_around(turned, &f, &me, 0);
	assert_memory_equal(turned, out, (size_t)len);

	assert_int_equal(codec_build_arp_reply(out, (size_t)len - 1, &f, &me),
			 -EMSGSIZE);
	f.ethertype = CODEC_ETHERTYPE_IPV4;
	assert_int_equal(codec_build_arp_reply(out, sizeof(out), &f, &me),
			 -EINVAL);
}

/* IPv6 addresses of the benchmarking prefix (RFC 5180). */
static const uint8_t v6_a[16] = {0x20, 0x01, 0x00, 0x02, [15] = 1};
static const uint8_t v6_b[16] = {0x20, 0x01, 0x00, 0x02, [15] = 2};

/* Solicited-node address/MAC and the EUI-64 link-local (RFC 4291 App. A). */
static void
test_ipv6_addresses(void **state)
{
	static const uint8_t sn[16] = {0xff, 0x02, [11] = 1, 0xff,
				       0x00, 0x00, 0x02};
	static const struct codec_mac m = {
		{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};
	static const uint8_t ll[16] = {0xfe, 0x80, [8] = 0x50, 0x54, 0x00,
				       0xff, 0xfe, 0x12,       0x34, 0x56};
	struct codec_mac mm;
	struct codec_ip x, y;
	uint8_t out[16];

	(void)state;
	codec_ipv6_solicited_node(v6_b, out);
	assert_memory_equal(out, sn, 16);
	codec_ipv6_mcast_mac(sn, &mm);
	assert_memory_equal(mm.b, ((uint8_t[]){0x33, 0x33, 0xff, 0, 0, 2}), 6);
	codec_ipv6_link_local(&m, out);
	assert_memory_equal(out, ll, 16);
	assert_true(codec_ipv6_is_multicast(sn));
	assert_false(codec_ipv6_is_multicast(v6_a));
	x = codec_ip_from_v4(IP_A);
	assert_int_equal(x.family, 4);
	assert_int_equal(codec_ip_v4(&x), IP_A);
	assert_int_equal(x.a[0], 0xc6);
	y = codec_ip_from_v6(v6_a);
	assert_false(codec_ip_equal(&x, &y));
	assert_int_equal(codec_ip_v4(&y), 0);
	x = codec_ip_from_v6(v6_a);
	assert_true(codec_ip_equal(&x, &y));
}

/* NS built, parsed and validated; the NA that answers it; RFC 4861 7.1
 * checks each fail alone. */
static void
test_nd(void **state)
{
	uint8_t ns[128], na[128], bad[128];
	struct codec_frame f, g;
	struct codec_nd nd, nd2;
	int len, nlen;

	(void)state;
	len = codec_build_ns(ns, sizeof(ns), &mac_a, v6_a, v6_b, 0);
	assert_int_equal(len, 14 + 40 + 32);
	assert_int_equal(codec_parse_frame(ns, (size_t)len, &f), 0);
	assert_int_equal(f.ttl, 255);
	assert_int_equal(f.dst.b[0], 0x33);
	assert_int_equal(f.dst.b[2], 0xff);
	assert_int_equal(f.dst.b[5], 0x02);
	assert_true(codec_l4_csum_ok(ns, &f));
	assert_int_equal(codec_nd_parse(ns, &f, &nd), 0);
	assert_int_equal(nd.type, CODEC_ICMP6_NS);
	assert_memory_equal(nd.target, v6_b, 16);
	assert_true(nd.has_lladdr);
	assert_memory_equal(nd.lladdr.b, mac_a.b, 6);

	nlen = codec_build_na(na, sizeof(na), &f, &nd, &mac_b);
	assert_true(nlen > 0);
	assert_int_equal(codec_parse_frame(na, (size_t)nlen, &g), 0);
	assert_memory_equal(g.dst.b, mac_a.b, 6);
	assert_memory_equal(g.src.b, mac_b.b, 6);
	assert_memory_equal(g.src6, v6_b, 16);
	assert_memory_equal(g.dst6, v6_a, 16);
	assert_int_equal(codec_nd_parse(na, &g, &nd2), 0);
	assert_int_equal(nd2.type, CODEC_ICMP6_NA);
	assert_int_equal(nd2.flags,
			 CODEC_ND_NA_SOLICITED | CODEC_ND_NA_OVERRIDE);
	assert_true(nd2.has_lladdr);
	assert_memory_equal(nd2.lladdr.b, mac_b.b, 6);
	/* In place over the request too. */
	memcpy(bad, ns, (size_t)len);
	assert_int_equal(codec_build_na(bad, sizeof(bad), &f, &nd, &mac_b),
			 nlen);
	assert_memory_equal(bad, na, (size_t)nlen);

	/* Hop limit 254: came through a router. */
	memcpy(bad, ns, (size_t)len);
	bad[14 + 7] = 254;
	assert_int_equal(codec_parse_frame(bad, (size_t)len, &g), 0);
	assert_int_equal(codec_nd_parse(bad, &g, &nd2), -EINVAL);
	/* A flipped byte in the target: checksum. */
	memcpy(bad, ns, (size_t)len);
	bad[14 + 40 + 8] ^= 1;
	assert_int_equal(codec_parse_frame(bad, (size_t)len, &g), 0);
	assert_int_equal(codec_nd_parse(bad, &g, &nd2), -EINVAL);
	/* An option of length 0 (checksum fixed). */
	memcpy(bad, ns, (size_t)len);
	bad[14 + 40 + 25] = 0;
	assert_int_equal(codec_parse_frame(bad, (size_t)len, &g), 0);
	codec_l4_csum_set(bad, &g);
	assert_int_equal(codec_nd_parse(bad, &g, &nd2), -EINVAL);
	/* From :: with a source link-layer option (RFC 4861 7.1.1). */
	memcpy(bad, ns, (size_t)len);
	memset(bad + 14 + 8, 0, 16);
	assert_int_equal(codec_parse_frame(bad, (size_t)len, &g), 0);
	codec_l4_csum_set(bad, &g);
	assert_int_equal(codec_nd_parse(bad, &g, &nd2), -EINVAL);
	/* Not ND at all. */
	len = codec_build_icmp6(
		bad, sizeof(bad), &(struct codec_flow){.ip_version = 6},
		CODEC_ICMP6_ECHO_REQUEST, 0, (const uint8_t[8]){0}, 8);
	assert_true(len > 0);
	assert_int_equal(codec_parse_frame(bad, (size_t)len, &g), 0);
	assert_int_equal(codec_nd_parse(bad, &g, &nd2), -ENOENT);
}

/* ICMPv6 echo: built over IPv6 with the pseudo-header sum; types of the
 * other family refused. */
static void
test_icmp6_echo(void **state)
{
	struct codec_flow fl = {
		.src_mac = mac_a, .dst_mac = mac_b, .ip_version = 6};
	static const uint8_t pl[12] = "hello, ipv6";
	uint8_t buf[256];
	struct codec_frame f;
	int len;

	(void)state;
	memcpy(fl.src6, v6_a, 16);
	memcpy(fl.dst6, v6_b, 16);
	len = codec_build_icmp_echo(buf, sizeof(buf), &fl,
				    CODEC_ICMP6_ECHO_REQUEST, 0x1234, 7, pl,
				    sizeof(pl));
	assert_int_equal(len, 14 + 40 + 8 + 12);
	assert_int_equal(codec_parse_frame(buf, (size_t)len, &f), 0);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_ICMPV6);
	assert_int_equal(f.icmp_type, CODEC_ICMP6_ECHO_REQUEST);
	assert_int_equal(f.icmp_id, 0x1234);
	assert_int_equal(f.icmp_seq, 7);
	assert_true(codec_l4_csum_ok(buf, &f));
	buf[14 + 8] ^= 0x80; /* source address: the pseudo-header */
	assert_false(codec_l4_csum_ok(buf, &f));
	assert_int_equal(codec_build_icmp_echo(buf, sizeof(buf), &fl,
					       CODEC_ICMP_ECHO_REQUEST, 1, 1,
					       pl, sizeof(pl)),
			 -EINVAL);
	fl.ip_version = 4;
	assert_int_equal(codec_build_icmp_echo(buf, sizeof(buf), &fl,
					       CODEC_ICMP6_ECHO_REQUEST, 1, 1,
					       pl, sizeof(pl)),
			 -EINVAL);
}

/* An IPv6/UDP frame with ext (a chain of extension headers, next header
 * fields and lengths already right) between the IPv6 header and UDP. */
static size_t
v6_with_ext(uint8_t *buf, const uint8_t *ext, size_t elen, uint8_t first)
{
	struct codec_flow fl = {.src_mac = mac_a,
				.dst_mac = mac_b,
				.ip_version = 6,
				.sport = 1,
				.dport = 2};
	uint8_t tmp[256];
	int len;

	memcpy(fl.src6, v6_a, 16);
	memcpy(fl.dst6, v6_b, 16);
	len = codec_build_udp(tmp, sizeof(tmp), &fl, 0, (const uint8_t *)"abcd",
			      4);
	assert_true(len > 0);
	memcpy(buf, tmp, 54);
	memcpy(buf + 54, ext, elen);
	memcpy(buf + 54 + elen, tmp + 54, (size_t)len - 54);
	buf[14 + 6] = first;
	buf[14 + 4] = (uint8_t)(((size_t)len - 54 + elen) >> 8);
	buf[14 + 5] = (uint8_t)((size_t)len - 54 + elen);
	return (size_t)len + elen;
}

/* The extension-header walk: what is skipped, refused, or malformed. */
static void
test_ipv6_ext_headers(void **state)
{
	/* Hop-by-hop with Router Alert (00 action bits) + PadN, then UDP. */
	static const uint8_t hbh[8] = {17, 0, 5, 2, 0, 0, 1, 0};
	/* Destination options with an unknown option of action 10. */
	static const uint8_t dst_discard[8] = {17, 0, 0x80, 4, 0, 0, 0, 0};
	/* Routing header type 0, segments left 1 (RFC 5095). */
	static const uint8_t rh0[8] = {17, 0, 0, 1, 0, 0, 0, 0};
	/* The same with segments left 0: passed. */
	static const uint8_t rh_done[8] = {17, 0, 4, 0, 0, 0, 0, 0};
	/* An option running past its header. */
	static const uint8_t bad_opt[8] = {17, 0, 1, 9, 0, 0, 0, 0};
	uint8_t buf[512], chain[128];
	struct codec_frame f;
	size_t len;

	(void)state;
	len = v6_with_ext(buf, hbh, sizeof(hbh), CODEC_IPPROTO_HOPOPTS);
	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_UDP);
	assert_int_equal(f.l3_hlen, 48);
	assert_int_equal(f.sport, 1);
	assert_false(f.ip6_ext_refused);
	assert_true(codec_l4_csum_ok(buf, &f));

	len = v6_with_ext(buf, dst_discard, 8, CODEC_IPPROTO_DSTOPTS);
	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_true(f.ip6_ext_refused);
	len = v6_with_ext(buf, rh0, 8, CODEC_IPPROTO_ROUTING);
	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_true(f.ip6_ext_refused);
	len = v6_with_ext(buf, rh_done, 8, CODEC_IPPROTO_ROUTING);
	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	assert_false(f.ip6_ext_refused);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_UDP);
	len = v6_with_ext(buf, bad_opt, 8, CODEC_IPPROTO_DSTOPTS);
	assert_int_equal(codec_parse_frame(buf, len, &f), -EINVAL);

	/* Hop-by-hop anywhere but first. */
	memcpy(chain, rh_done, 8);
	chain[0] = CODEC_IPPROTO_HOPOPTS;
	memcpy(chain + 8, hbh, 8);
	len = v6_with_ext(buf, chain, 16, CODEC_IPPROTO_ROUTING);
	assert_int_equal(codec_parse_frame(buf, len, &f), -EINVAL);
	/* Eight destination options headers pass, nine do not. */
	for (unsigned n = 8; n <= 9; n++) {
		for (unsigned i = 0; i < n; i++) {
			memset(chain + 8 * i, 0, 8);
			chain[8 * i] = i + 1 < n ? CODEC_IPPROTO_DSTOPTS : 17;
			chain[8 * i + 2] = 1; /* PadN */
			chain[8 * i + 3] = 4;
		}
		len = v6_with_ext(buf, chain, 8 * n, CODEC_IPPROTO_DSTOPTS);
		assert_int_equal(codec_parse_frame(buf, len, &f),
				 n == 8 ? 0 : -EINVAL);
	}
	/* A header longer than the packet. */
	memcpy(chain, hbh, 8);
	chain[1] = 10;
	len = v6_with_ext(buf, chain, 8, CODEC_IPPROTO_HOPOPTS);
	assert_int_equal(codec_parse_frame(buf, len, &f), -EINVAL);
}

/* The fold by halvings, step by step (RFC 1071): what codec_csum_fold16()
 * computes by rotations. */
static uint16_t
fold_reference(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)sum;
}

/* codec_csum_fold16() folds every sum as the reference does: the edges of
 * each halving and a stream of pseudo-random sums of every magnitude. */
static void
test_csum_fold16(void **state)
{
	static const uint64_t edges[] = {
		0,
		1,
		0xfffe,
		0xffff,
		0x10000,
		0x1fffe,
		0xffffffffull,
		0x100000000ull,
		0x1fffffffeull,
		0xffff0000ffff0000ull,
		0xffffffff00000001ull,
		0x00000001ffffffffull,
		UINT64_MAX,
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		assert_int_equal(codec_csum_fold16(edges[i]),
				 fold_reference(edges[i]));
	for (unsigned i = 0; i < 1000000; i++) {
		uint64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (i % 64);
		assert_int_equal(codec_csum_fold16(v), fold_reference(v));
	}
}

/* The folded pseudo-header sum of f (RFC 768 / RFC 8200 8.1), in host
 * order, from big-endian 16-bit words added by hand. */
static uint16_t
pseudo_by_hand(const uint8_t *b, const struct codec_frame *f)
{
	const uint8_t *ip = b + f->l3_off;
	size_t aoff = f->ip_version == 4 ? 12 : 8,
	       alen = f->ip_version == 4 ? 8 : 32;
	uint32_t sum = f->ip_proto + (uint32_t)f->l4_len;

	for (size_t i = 0; i < alen; i += 2)
		sum += (uint32_t)ip[aoff + i] << 8 | ip[aoff + i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * codec_l4_csum_check(): a built frame is OK; its field replaced by the
 * pseudo-header sum alone (a sender's tx offload) is PARTIAL, and the
 * complete sum it gives back is the builder's; a flipped bit is BAD; UDP
 * 0 is OK over IPv4 and BAD over IPv6; ICMPv4 (no pseudo-header) has no
 * partial form. UDP, TCP, ICMPv6, both families, odd lengths.
 */
static void
test_l4_csum_check(void **state)
{
	uint8_t pl[301];

	(void)state;
	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 31 + 7);
	for (unsigned v6 = 0; v6 < 2; v6++) {
		for (unsigned kind = 0; kind < 3; kind++) {
			for (size_t plen = 0; plen <= 301; plen += 43) {
				struct codec_flow fl;
				struct codec_frame f;
				uint8_t b[512];
				uint16_t built, cs, complete = 0, want;
				int len, off;

				memset(&fl, 0, sizeof(fl));
				fl.src_mac = mac_a;
				fl.dst_mac = mac_b;
				fl.ip_version = v6 ? 6 : 4;
				fl.src4 = 0xc6120001u;
				fl.dst4 = 0xc6120002u;
				fl.src6[0] = fl.dst6[0] = 0x20;
				fl.src6[1] = fl.dst6[1] = 0x01;
				fl.src6[3] = fl.dst6[3] = 0x02;
				fl.src6[15] = 1;
				fl.dst6[15] = 2;
				fl.sport = 40000;
				fl.dport = 862;
				if (kind == 0)
					len = codec_build_udp(b, sizeof(b), &fl,
							      1, pl, plen);
				else if (kind == 1)
					len = codec_build_tcp(
						b, sizeof(b), &fl, 7, 0,
						CODEC_TCP_SYN, 1024,
						plen % 2 ? 1460 : 0);
				else
					len = codec_build_icmp_echo(
						b, sizeof(b), &fl,
						v6 ? CODEC_ICMP6_ECHO_REQUEST
						   : CODEC_ICMP_ECHO_REQUEST,
						9, 1, pl, plen);
				assert_true(len > 0);
				assert_int_equal(
					codec_parse_frame(b, (size_t)len, &f),
					0);
				off = kind == 0 ? 6 : kind == 1 ? 16 : 2;
				memcpy(&built, b + f.l4_off + off, 2);
				assert_int_equal(
					codec_l4_csum_check(b, &f, NULL),
					CODEC_L4_CSUM_OK);
				/* Partial, where there is a pseudo-header. */
				want = pseudo_by_hand(b, &f);
				cs = (uint16_t)(want >> 8 | want << 8);
				if (kind != 2 || v6) {
					assert_int_equal(
						codec_l4_pseudo_csum(b, &f),
						cs);
					memcpy(b + f.l4_off + off, &cs, 2);
					assert_int_equal(
						codec_l4_csum_check(b, &f,
								    &complete),
						CODEC_L4_CSUM_PARTIAL);
					assert_int_equal(complete, built);
					memcpy(b + f.l4_off + off, &complete,
					       2);
					assert_true(codec_l4_csum_ok(b, &f));
				} else {
					assert_int_equal(
						codec_l4_pseudo_csum(b, &f), 0);
				}
				/* Wrong: a bit flipped in the header after
				 * the checksum or in the payload. */
				b[len - 1] ^= 0x08;
				assert_int_equal(
					codec_l4_csum_check(b, &f, &complete),
					CODEC_L4_CSUM_BAD);
				b[len - 1] ^= 0x08;
				if (kind == 0) {
					memset(b + f.l4_off + 6, 0, 2);
					assert_int_equal(codec_l4_csum_check(
								 b, &f, NULL),
							 v6 ? CODEC_L4_CSUM_BAD
							    : CODEC_L4_CSUM_OK);
				}
			}
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_build),
		cmocka_unit_test(test_golden_parse),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_csum_known),
		cmocka_unit_test(test_csum_fold16),
		cmocka_unit_test(test_roundtrip_udp),
		cmocka_unit_test(test_udp_payload_in_place),
		cmocka_unit_test(test_roundtrip_icmp_tcp_arp),
		cmocka_unit_test(test_builder_errors),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_l4_malformed),
		cmocka_unit_test(test_tcp_options),
		cmocka_unit_test(test_udp_zero_csum),
		cmocka_unit_test(test_turn_around),
		cmocka_unit_test(test_turn_around_ipv4_csum),
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_widen_seq32),
		cmocka_unit_test(test_icmp_quote),
		cmocka_unit_test(test_vlan_insert),
		cmocka_unit_test(test_arp_reply),
		cmocka_unit_test(test_ipv6_addresses),
		cmocka_unit_test(test_nd),
		cmocka_unit_test(test_icmp6_echo),
		cmocka_unit_test(test_ipv6_ext_headers),
		cmocka_unit_test(test_l4_csum_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
