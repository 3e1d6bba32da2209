/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 fragmentation/reassembly (lib/codec/frag.c): scapy vectors from
 * tools/golden/frag_check.py, round trips over sizes, MTUs and arrival
 * orders, and every rejection the contract names.
 *
 * What "the same datagram" means after a round trip: the original frame
 * with DF cleared (its fragments had it cleared, and the reassembled header
 * is the first fragment's) and the IPv4 header checksum recomputed for that;
 * every other byte, L2 header and VLAN tag included, is equal.
 *
 * LATPROBE_FRAG_PCAP=FILE makes test_pcap_export write originals and our
 * shuffled fragments to FILE for `tools/golden/frag_check.py --pcap FILE`
 * (scapy's defragment() must rebuild each original).
 */
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
#include "vectors/frag_vectors.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#define BIG_CAP	  (CODEC_ETH_HLEN + CODEC_VLAN_HLEN + CODEC_IPV4_MAX_DATAGRAM)
#define FRAG_CAP  9100 /* a 9000-byte MTU fragment with a VLAN tag */
#define MAX_FRAGS 240u /* 65,515 / 552 at MTU 576, and the duplicates */

struct fixture {
	uint8_t *orig;
	uint8_t *want;
	uint8_t (*frag)[FRAG_CAP];
	size_t frag_len[MAX_FRAGS];
	struct codec_reasm *r;
};

static int teardown(void **state);

static int
setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (fx == NULL)
		return -1;
	fx->orig = malloc(BIG_CAP);
	fx->want = malloc(BIG_CAP);
	fx->frag = calloc(MAX_FRAGS, sizeof(*fx->frag));
	fx->r = codec_reasm_create();
	*state = fx;
	if (fx->orig == NULL || fx->want == NULL || fx->frag == NULL ||
	    fx->r == NULL) {
		teardown(state);
		return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	codec_reasm_destroy(fx->r);
	free(fx->frag);
	free(fx->want);
	free(fx->orig);
	free(fx);
	return 0;
}

/* xorshift32: the same shuffles on every run. */
static uint32_t
rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static const struct codec_flow base_flow = {
	.src_mac = {{0x02, 0x00, 0x5e, 0x10, 0x00, 0x01}},
	.dst_mac = {{0x02, 0x00, 0x5e, 0x10, 0x00, 0x02}},
	.ip_version = 4,
	.src4 = 0xc6120001, /* 198.18.0.1 */
	.dst4 = 0xc6120002,
	.sport = 40000,
	.dport = 862,
	.tos = 0x10,
};

static size_t
build_udp(uint8_t *buf, bool vlan, uint16_t id, size_t plen)
{
	struct codec_flow fl = base_flow;
	size_t hlen, i;
	int n;

	fl.vlan = vlan;
	fl.vlan_tci = 0xa064;
	hlen = codec_udp_header_len(&fl);
	for (i = 0; i < plen; i++)
		buf[hlen + i] = (uint8_t)(i * 131 + id);
	n = codec_build_udp(buf, BIG_CAP, &fl, id, buf + hlen, plen);
	assert_int_equal(n, (int)(hlen + plen));
	return (size_t)n;
}

/* The original as reassembly must return it: DF clear, checksum fixed. */
static void
expected_reasm(uint8_t *want, const uint8_t *orig, size_t len)
{
	struct codec_frame f;

	memcpy(want, orig, len);
	assert_int_equal(codec_parse_frame(want, len, &f), 0);
	want[f.l3_off + 6] &= (uint8_t)~0x40;
	codec_ipv4_csum_set(want, &f);
}

/* Fragments orig into fx->frag; returns their number. */
static unsigned
fragment_all(struct fixture *fx, const uint8_t *orig, size_t len, uint16_t mtu)
{
	struct codec_frame f, g;
	size_t off = 0, expect_off = 0;
	unsigned n = 0, count;
	int rc;

	assert_int_equal(codec_parse_frame(orig, len, &f), 0);
	count = codec_ipv4_frag_count(&f, mtu);
	assert_true(count >= 1);
	do {
		assert_true(n < count);
		rc = codec_ipv4_fragment(orig, &f, mtu, &off, fx->frag[n],
					 FRAG_CAP);
		assert_true(rc > 0);
		fx->frag_len[n] = (size_t)rc;
		assert_true((size_t)rc <= (size_t)f.l3_off + mtu);
		assert_int_equal(codec_parse_frame(fx->frag[n], (size_t)rc, &g),
				 0);
		assert_true(codec_ipv4_csum_ok(fx->frag[n], &g));
		assert_int_equal(g.has_vlan, f.has_vlan);
		assert_int_equal(g.vlan_tci, f.vlan_tci);
		assert_int_equal(g.ip_id, f.ip_id);
		if (count > 1) {
			assert_true(g.is_fragment);
			assert_int_equal(g.frag_off, expect_off);
			assert_int_equal(g.more_fragments, n + 1 < count);
			assert_int_equal(fx->frag[n][g.l3_off + 6] & 0x40, 0);
			if (g.more_fragments)
				assert_int_equal(g.l4_len,
						 (mtu - CODEC_IPV4_HLEN) / 8 *
							 8);
			if (g.l4_len != 0)
				assert_memory_equal(
					fx->frag[n] + g.l4_off,
					orig + f.l4_off + expect_off, g.l4_len);
			expect_off += g.l4_len;
		} else {
			assert_int_equal(rc, len);
			assert_memory_equal(fx->frag[n], orig, len);
		}
		n++;
	} while (off != 0);
	assert_int_equal(n, count);
	if (count > 1)
		assert_int_equal(expect_off, f.l4_len);
	return n;
}

static void
feed_check(struct fixture *fx, const unsigned *order, unsigned n,
	   const uint8_t *want, size_t want_len)
{
	struct codec_frame g, o;
	uint8_t *out = NULL;
	size_t out_len = 0;
	unsigned i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		assert_int_equal(codec_parse_frame(fx->frag[order[i]],
						   fx->frag_len[order[i]], &g),
				 0);
		rc = codec_reasm_add(fx->r, fx->frag[order[i]], &g, 1000 + i,
				     &out, &out_len);
		if (rc == 1) {
			/* Only the last arrival completes the datagram. */
			assert_int_equal(i, n - 1);
			break;
		}
		assert_int_equal(rc, 0);
		assert_true(codec_reasm_active(fx->r, NULL));
	}
	assert_int_equal(rc, 1);
	assert_false(codec_reasm_active(fx->r, NULL));
	assert_int_equal(out_len, want_len);
	assert_int_equal(codec_parse_frame(out, out_len, &o), 0);
	assert_false(o.is_fragment);
	assert_true(codec_ipv4_csum_ok(out, &o));
	assert_true(codec_l4_csum_ok(out, &o));
	assert_memory_equal(out, want, want_len);
	codec_reasm_reset(fx->r);
}

enum order { IN_ORDER, REVERSED, SHUFFLED, DUPLICATES };

static unsigned
make_order(unsigned *order, unsigned n, enum order how, uint32_t *seed)
{
	unsigned i, j, t, m = n;

	if (n < 2)
		return n;
	for (i = 0; i < n; i++)
		order[i] = how == REVERSED ? n - 1 - i : i;
	if (how == SHUFFLED || how == DUPLICATES) {
		for (i = n - 1; i > 0; i--) {
			j = rnd(seed) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	if (how == DUPLICATES) {
		/*
		 * Every fragment but the one that arrives last twice, all in
		 * a random order, then that one: only it completes.
		 */
		order[2 * n - 2] = order[n - 1];
		for (i = 0; i + 1 < n; i++)
			order[n - 1 + i] = order[i];
		m = 2 * n - 1;
		for (i = m - 2; i > 0; i--) {
			j = rnd(seed) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	return m;
}

static void
test_roundtrip_sweep(void **state)
{
	static const size_t sizes[] = {0,     1,     7,	    8,	  100,	548,
				       549,   1464,  1472,  1473, 1480, 2952,
				       2953,  4000,  8192,  8972, 8973, 16384,
				       32768, 65000, 65506, 65507};
	static const uint16_t mtus[] = {576, 1500, 9000};
	struct fixture *fx = *state;
	unsigned order[MAX_FRAGS];
	uint32_t seed = 0x5eed;
	size_t s, len;
	unsigned m, n, k, how, i, seen;
	uint16_t id = 1;

	for (s = 0; s < NELEM(sizes); s++) {
		for (m = 0; m < NELEM(mtus); m++) {
			len = build_udp(fx->orig, (s + m) % 2 == 1, id++,
					sizes[s]);
			n = fragment_all(fx, fx->orig, len, mtus[m]);
			if (n == 1)
				continue; /* fits: checked unchanged above */
			assert_true(2 * n <= MAX_FRAGS);
			expected_reasm(fx->want, fx->orig, len);
			for (how = IN_ORDER; how <= DUPLICATES; how++) {
				k = make_order(order, n, (enum order)how,
					       &seed);
				assert_int_equal(
					k, how == DUPLICATES ? 2 * n - 1 : n);
				/* Every fragment is in the order at least
				 * once. */
				for (i = 0; i < n; i++) {
					unsigned j;

					seen = 0;
					for (j = 0; j < k; j++)
						seen += order[j] == i;
					assert_true(seen >= 1);
				}
				feed_check(fx, order, k, fx->want, len);
			}
		}
	}
}

static void
test_roundtrip_icmp(void **state)
{
	struct fixture *fx = *state;
	struct codec_flow fl = base_flow;
	unsigned order[MAX_FRAGS];
	uint32_t seed = 7;
	size_t i;
	unsigned n, k;
	int len;

	for (i = 0; i < 6000; i++)
		fx->orig[100 + i] = (uint8_t)i;
	len = codec_build_icmp_echo(fx->orig, BIG_CAP, &fl,
				    CODEC_ICMP_ECHO_REQUEST, 7, 9,
				    fx->orig + 100, 6000);
	assert_true(len > 0);
	n = fragment_all(fx, fx->orig, (size_t)len, 1500);
	assert_int_equal(n, 5);
	expected_reasm(fx->want, fx->orig, (size_t)len);
	k = make_order(order, n, SHUFFLED, &seed);
	feed_check(fx, order, k, fx->want, (size_t)len);
}

static void
test_golden_fragment(void **state)
{
	struct fixture *fx = *state;
	struct codec_frame f;
	size_t v, off;
	unsigned i;
	int rc;

	for (v = 0; v < NELEM(golden_frag); v++) {
		const struct golden_frag_vec *g = &golden_frag[v];

		assert_int_equal(codec_parse_frame(g->orig, g->orig_len, &f),
				 0);
		assert_int_equal(codec_ipv4_frag_count(&f, g->mtu), g->nfrags);
		off = 0;
		for (i = 0; i < g->nfrags; i++) {
			rc = codec_ipv4_fragment(g->orig, &f, g->mtu, &off,
						 fx->frag[0], FRAG_CAP);
			assert_int_equal(rc, (int)g->frag_lens[i]);
			assert_memory_equal(fx->frag[0], g->frags[i],
					    g->frag_lens[i]);
			assert_int_equal(off == 0, i + 1 == g->nfrags);
		}
	}
}

static void
test_golden_reassemble(void **state)
{
	struct fixture *fx = *state;
	struct codec_frame f;
	uint8_t *out = NULL;
	size_t v, out_len = 0;
	unsigned i;
	int rc = 0;

	for (v = 0; v < NELEM(golden_frag); v++) {
		const struct golden_frag_vec *g = &golden_frag[v];

		/* scapy's reassembly is what we call "expected". */
		assert_int_equal(g->reasm_len, g->orig_len);
		expected_reasm(fx->want, g->orig, g->orig_len);
		assert_memory_equal(fx->want, g->reasm, g->reasm_len);
		/* Reversed: the last fragment, with the length, first. */
		for (i = g->nfrags; i-- > 0;) {
			assert_int_equal(codec_parse_frame(g->frags[i],
							   g->frag_lens[i], &f),
					 0);
			rc = codec_reasm_add(fx->r, g->frags[i], &f, 1, &out,
					     &out_len);
			assert_int_equal(rc, i == 0 ? 1 : 0);
		}
		assert_int_equal(out_len, g->reasm_len);
		assert_memory_equal(out, g->reasm, g->reasm_len);
	}
}

static void
test_fits_unchanged(void **state)
{
	struct fixture *fx = *state;
	struct codec_frame f;
	uint8_t *out = NULL;
	size_t len, off = 0, out_len;
	int rc;

	len = build_udp(fx->orig, false, 5, 1472);
	assert_int_equal(codec_parse_frame(fx->orig, len, &f), 0);
	assert_int_equal(codec_ipv4_frag_count(&f, 1500), 1);
	assert_int_equal(codec_ipv4_frag_count(&f, 1499), 2);
	rc = codec_ipv4_fragment(fx->orig, &f, 1500, &off, fx->frag[0],
				 FRAG_CAP);
	assert_int_equal(rc, len);
	assert_int_equal(off, 0);
	/* DF stays: nothing was fragmented. */
	assert_memory_equal(fx->frag[0], fx->orig, len);
	/* Trailing Ethernet padding is not part of the packet. */
	memset(fx->orig + len, 0, 4);
	assert_int_equal(codec_parse_frame(fx->orig, len + 4, &f), 0);
	rc = codec_ipv4_fragment(fx->orig, &f, 1500, &off, fx->frag[0],
				 FRAG_CAP);
	assert_int_equal(rc, len);
	rc = codec_ipv4_fragment(fx->orig, &f, 1500, &off, fx->frag[0],
				 len - 1);
	assert_int_equal(rc, -EMSGSIZE);
	/* Not a fragment: reassembly refuses it and stays idle. */
	rc = codec_reasm_add(fx->r, fx->orig, &f, 0, &out, &out_len);
	assert_int_equal(rc, -EINVAL);
	assert_false(codec_reasm_active(fx->r, NULL));
}

/* A frame with 4 bytes of IPv4 options (NOP NOP NOP EOL) after the header. */
static size_t
add_ipv4_options(uint8_t *buf, size_t len)
{
	static const uint8_t nop3_eol[4] = {1, 1, 1, 0};
	struct codec_frame f;
	uint8_t *ip;
	uint16_t tl;

	assert_int_equal(codec_parse_frame(buf, len, &f), 0);
	ip = buf + f.l3_off;
	memmove(ip + 24, ip + 20, len - f.l3_off - 20);
	memcpy(ip + 20, nop3_eol, sizeof(nop3_eol));
	ip[0] = 0x46;
	tl = (uint16_t)(f.ip_len + 4);
	ip[2] = (uint8_t)(tl >> 8);
	ip[3] = (uint8_t)tl;
	assert_int_equal(codec_parse_frame(buf, len + 4, &f), 0);
	codec_ipv4_csum_set(buf, &f);
	return len + 4;
}

static void
test_fragment_errors(void **state)
{
	struct fixture *fx = *state;
	struct codec_flow fl6 = base_flow;
	struct codec_frame f;
	size_t len, off;
	int n;

	len = build_udp(fx->orig, false, 9, 3000);
	assert_int_equal(codec_parse_frame(fx->orig, len, &f), 0);
	off = 0;
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 67, &off,
					     fx->frag[0], FRAG_CAP),
			 -EINVAL);
	assert_int_equal(codec_ipv4_frag_count(&f, 67), 0);
	off = 4;
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 1500, &off,
					     fx->frag[0], FRAG_CAP),
			 -EINVAL);
	off = 3008; /* the UDP segment is 3008 bytes: past the end */
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 1500, &off,
					     fx->frag[0], FRAG_CAP),
			 -EINVAL);
	off = 0;
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 1500, &off,
					     fx->frag[0], 1513),
			 -EMSGSIZE);
	assert_int_equal(off, 0);
	/* mtu 68: 48 data bytes a fragment, the smallest there is. */
	assert_int_equal(codec_ipv4_frag_count(&f, 68), (3008 + 47) / 48);
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 68, &off,
					     fx->frag[0], FRAG_CAP),
			 14 + 68);
	assert_int_equal(off, 48);

	/* Fragmenting a fragment. */
	assert_int_equal(codec_parse_frame(fx->frag[0], 14 + 68, &f), 0);
	off = 0;
	assert_int_equal(codec_ipv4_fragment(fx->frag[0], &f, 68, &off,
					     fx->frag[1], FRAG_CAP),
			 -EINVAL);
	assert_int_equal(codec_ipv4_frag_count(&f, 68), 0);

	/* Options: only fragmented when it must be. */
	len = add_ipv4_options(fx->orig, len);
	assert_int_equal(codec_parse_frame(fx->orig, len, &f), 0);
	assert_int_equal(f.l3_hlen, 24);
	assert_int_equal(codec_ipv4_frag_count(&f, 1500), 0);
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 1500, &off,
					     fx->frag[0], FRAG_CAP),
			 -EINVAL);
	assert_int_equal(codec_ipv4_frag_count(&f, 9000), 1);

	/* IPv6. */
	fl6.ip_version = 6;
	memset(fx->orig, 0x3c, 62 + 3000);
	n = codec_build_udp(fx->orig, BIG_CAP, &fl6, 0, fx->orig + 62, 3000);
	assert_true(n > 0);
	assert_int_equal(codec_parse_frame(fx->orig, (size_t)n, &f), 0);
	assert_int_equal(codec_ipv4_frag_count(&f, 1500), 0);
	assert_int_equal(codec_ipv4_fragment(fx->orig, &f, 1500, &off,
					     fx->frag[0], FRAG_CAP),
			 -EINVAL);
}

/*
 * A hand-made fragment of the IPv4 frame orig (no options): L2 + header of
 * orig with the given offset/length/MF, data from data (or orig's).
 */
static size_t
craft(uint8_t *out, const uint8_t *orig, uint16_t id, size_t off, size_t len,
      bool mf, const uint8_t *data)
{
	struct codec_frame f, g;
	size_t hl;
	uint16_t v;

	assert_int_equal(codec_parse_frame(orig, BIG_CAP, &f), 0);
	hl = (size_t)f.l3_off + f.l3_hlen;
	memcpy(out, orig, hl);
	if (data == NULL)
		data = orig + hl + off;
	memcpy(out + hl, data, len);
	v = (uint16_t)(f.l3_hlen + len);
	out[f.l3_off + 2] = (uint8_t)(v >> 8);
	out[f.l3_off + 3] = (uint8_t)v;
	v = (uint16_t)((mf ? 0x2000 : 0) | (off / 8));
	out[f.l3_off + 4] = (uint8_t)(id >> 8);
	out[f.l3_off + 5] = (uint8_t)id;
	out[f.l3_off + 6] = (uint8_t)(v >> 8);
	out[f.l3_off + 7] = (uint8_t)v;
	assert_int_equal(codec_parse_frame(out, hl + len, &g), 0);
	codec_ipv4_csum_set(out, &g);
	return hl + len;
}

static int
add(struct fixture *fx, const uint8_t *frame, size_t len, uint64_t now,
    uint8_t **out, size_t *out_len)
{
	struct codec_frame f;

	assert_int_equal(codec_parse_frame(frame, len, &f), 0);
	assert_true(f.is_fragment);
	return codec_reasm_add(fx->r, frame, &f, now, out, out_len);
}

static void
test_interleave_estale(void **state)
{
	struct fixture *fx = *state;
	uint8_t *a = fx->frag[0], *b = fx->frag[2], *out;
	struct codec_frame fa, fb;
	size_t la0, la1, lb0, lb1, len, out_len;
	uint64_t started = 0;

	/* Two datagrams, same flow, different ids, 2 fragments each. */
	len = build_udp(fx->orig, false, 100, 2000);
	la0 = craft(a, fx->orig, 100, 0, 1480, true, NULL);
	la1 = craft(fx->frag[1], fx->orig, 100, 1480, 528, false, NULL);
	lb0 = craft(b, fx->orig, 101, 0, 1480, true, NULL);
	lb1 = craft(fx->frag[3], fx->orig, 101, 1480, 528, false, NULL);
	assert_int_equal(codec_parse_frame(a, la0, &fa), 0);
	assert_int_equal(codec_parse_frame(b, lb0, &fb), 0);

	assert_false(codec_reasm_matches(fx->r, &fa));
	assert_int_equal(add(fx, a, la0, 10, &out, &out_len), 0);
	assert_true(codec_reasm_active(fx->r, &started));
	assert_int_equal(started, 10);
	assert_true(codec_reasm_matches(fx->r, &fa));
	assert_false(codec_reasm_matches(fx->r, &fb));
	/* B replaces A: A is reported lost, B's fragment is kept. */
	assert_int_equal(add(fx, b, lb0, 20, &out, &out_len), -ESTALE);
	assert_true(codec_reasm_active(fx->r, &started));
	assert_int_equal(started, 20);
	assert_true(codec_reasm_matches(fx->r, &fb));
	assert_int_equal(add(fx, fx->frag[3], lb1, 30, &out, &out_len), 1);
	assert_int_equal(out_len, len);
	expected_reasm(fx->want, fx->orig, len);
	fx->want[CODEC_ETH_HLEN + 5] = 101;
	assert_int_equal(codec_parse_frame(fx->want, len, &fa), 0);
	codec_ipv4_csum_set(fx->want, &fa);
	assert_memory_equal(out, fx->want, len);
	/* After completion A's last fragment starts afresh: no -ESTALE. */
	assert_int_equal(add(fx, fx->frag[1], la1, 40, &out, &out_len), 0);
	assert_true(codec_reasm_active(fx->r, &started));
	assert_int_equal(started, 40);
	/* Then B's again: A (half) is lost. */
	assert_int_equal(add(fx, b, lb0, 50, &out, &out_len), -ESTALE);
	codec_reasm_reset(fx->r);
	assert_false(codec_reasm_active(fx->r, NULL));
	assert_false(codec_reasm_matches(fx->r, &fb));
}

static void
test_overlaps(void **state)
{
	struct fixture *fx = *state;
	uint8_t bad[16], *out = NULL;
	size_t len, l0, l1, l2, l3, out_len = 0;

	len = build_udp(fx->orig, true, 7, 3000);
	expected_reasm(fx->want, fx->orig, len);
	l0 = craft(fx->frag[0], fx->orig, 7, 0, 1480, true, NULL);
	/* Straddles the first fragment's end with the same bytes. */
	l1 = craft(fx->frag[1], fx->orig, 7, 1000, 1480, true, NULL);
	l2 = craft(fx->frag[2], fx->orig, 7, 2480, 528, false, NULL);
	assert_int_equal(add(fx, fx->frag[0], l0, 0, &out, &out_len), 0);
	assert_int_equal(add(fx, fx->frag[1], l1, 0, &out, &out_len), 0);
	assert_int_equal(add(fx, fx->frag[2], l2, 0, &out, &out_len), 1);
	assert_int_equal(out_len, len);
	assert_memory_equal(out, fx->want, len);

	/* The same overlap with one byte different. */
	assert_int_equal(add(fx, fx->frag[0], l0, 0, &out, &out_len), 0);
	fx->frag[1][18 + 20 + 100] ^= 1; /* datagram byte 1100 */
	{
		struct codec_frame g;

		assert_int_equal(codec_parse_frame(fx->frag[1], l1, &g), 0);
		codec_ipv4_csum_set(fx->frag[1], &g);
	}
	assert_int_equal(add(fx, fx->frag[1], l1, 0, &out, &out_len), -EINVAL);
	assert_false(codec_reasm_active(fx->r, NULL));
	/* r was reset: the last fragment alone does not complete. */
	assert_int_equal(add(fx, fx->frag[2], l2, 0, &out, &out_len), 0);
	codec_reasm_reset(fx->r);

	/* A different byte in a non-overlapping place is not an overlap. */
	memcpy(bad, fx->orig + 18 + 20 + 1480, 16);
	bad[3] ^= 0x80;
	l3 = craft(fx->frag[3], fx->orig, 7, 1480, 16, true, bad);
	assert_int_equal(add(fx, fx->frag[3], l3, 0, &out, &out_len), 0);
	assert_int_equal(add(fx, fx->frag[3], l3, 0, &out, &out_len), 0);
	/* ...but the original bytes there now are. */
	l1 = craft(fx->frag[1], fx->orig, 7, 1480, 1000, true, NULL);
	assert_int_equal(add(fx, fx->frag[1], l1, 0, &out, &out_len), -EINVAL);
}

static void
test_bounds(void **state)
{
	struct fixture *fx = *state;
	uint8_t *out = NULL, *big;
	size_t len, l, out_len = 0;

	big = fx->want; /* any 64 KiB of data */
	memset(big, 0xab, BIG_CAP);
	len = build_udp(fx->orig, false, 3, 100);
	(void)len;
	/* Beyond 65,535 bytes: offset 65,512 + 8 > 65,515. */
	l = craft(fx->frag[0], fx->orig, 3, 65512, 8, true, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), -EINVAL);
	l = craft(fx->frag[0], fx->orig, 3, 65504, 12, false, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), -EINVAL);
	l = craft(fx->frag[0], fx->orig, 3, 65528, 0, false, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), -EINVAL);
	/* Exactly 65,535: accepted. */
	l = craft(fx->frag[0], fx->orig, 3, 65504, 11, false, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), 0);
	codec_reasm_reset(fx->r);

	/* A non-final fragment whose size is not a multiple of 8. */
	l = craft(fx->frag[0], fx->orig, 3, 8, 12, true, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), -EINVAL);

	/* Data after the last fragment, either order. */
	l = craft(fx->frag[0], fx->orig, 3, 64, 36, false, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), 0);
	l = craft(fx->frag[1], fx->orig, 3, 96, 8, true, big);
	assert_int_equal(add(fx, fx->frag[1], l, 0, &out, &out_len), -EINVAL);
	assert_int_equal(add(fx, fx->frag[1], l, 0, &out, &out_len), 0);
	l = craft(fx->frag[0], fx->orig, 3, 64, 36, false, big);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), -EINVAL);
	/* Two different ends. */
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), 0);
	l = craft(fx->frag[1], fx->orig, 3, 64, 37, false, big);
	assert_int_equal(add(fx, fx->frag[1], l, 0, &out, &out_len), -EINVAL);
	/* A last fragment with no data: total is its offset. */
	l = craft(fx->frag[0], fx->orig, 3, 0, 64, true, NULL);
	assert_int_equal(add(fx, fx->frag[0], l, 0, &out, &out_len), 0);
	l = craft(fx->frag[1], fx->orig, 3, 64, 0, false, NULL);
	assert_int_equal(add(fx, fx->frag[1], l, 0, &out, &out_len), 1);
	assert_int_equal(out_len, 14 + 20 + 64);
}

/* First fragment with IPv4 options: the output keeps its header (IHL 6). */
static void
test_first_fragment_options(void **state)
{
	struct fixture *fx = *state;
	struct codec_frame o;
	uint8_t *out = NULL;
	size_t len, l0, l1, out_len = 0;

	len = build_udp(fx->orig, false, 11, 1000);
	l1 = craft(fx->frag[1], fx->orig, 11, 800, 208, false, NULL);
	l0 = craft(fx->frag[0], fx->orig, 11, 0, 800, true, NULL);
	l0 = add_ipv4_options(fx->frag[0], l0);
	assert_int_equal(add(fx, fx->frag[1], l1, 0, &out, &out_len), 0);
	assert_int_equal(add(fx, fx->frag[0], l0, 0, &out, &out_len), 1);
	assert_int_equal(out_len, len + 4);
	assert_int_equal(codec_parse_frame(out, out_len, &o), 0);
	assert_false(o.is_fragment);
	assert_int_equal(o.l3_hlen, 24);
	assert_true(codec_ipv4_csum_ok(out, &o));
	assert_true(codec_l4_csum_ok(out, &o));
	assert_memory_equal(out + 14 + 24, fx->orig + 14 + 20, len - 34);

	/* 24-byte header + 65,512 > 65,535 even though each fragment fits. */
	memset(fx->want, 0x5a, 65536);
	l1 = craft(fx->frag[1], fx->orig, 12, 65504, 8, false, fx->want);
	l0 = craft(fx->frag[0], fx->orig, 12, 0, 800, true, fx->want);
	l0 = add_ipv4_options(fx->frag[0], l0);
	assert_int_equal(add(fx, fx->frag[1], l1, 0, &out, &out_len), 0);
	assert_int_equal(add(fx, fx->frag[0], l0, 0, &out, &out_len), -EINVAL);
}

/* Every prefix of a fragment: the parser refuses it or reasm copes. */
static void
test_prefixes(void **state)
{
	struct fixture *fx = *state;
	struct codec_frame f;
	uint8_t *out = NULL, *p;
	size_t len, l, out_len = 0;
	unsigned n, i;
	int rc = 0;

	len = build_udp(fx->orig, true, 21, 1200);
	n = fragment_all(fx, fx->orig, len, 576);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		for (l = 0; l <= fx->frag_len[i]; l++) {
			/* Exact size: ASan catches any read past it. */
			p = malloc(l + 1);
			assert_non_null(p);
			memcpy(p, fx->frag[i], l);
			rc = codec_parse_frame(p, l, &f);
			assert_int_equal(rc == 0, l == fx->frag_len[i]);
			if (rc == 0) {
				rc = codec_reasm_add(fx->r, p, &f, 0, &out,
						     &out_len);
				assert_true(rc == 0 || rc == 1 ||
					    rc == -EINVAL || rc == -ESTALE);
			}
			free(p);
		}
	}
	/* Only the full-length fragments were taken in: complete. */
	assert_int_equal(rc, 1);
	assert_int_equal(out_len, len);
}

static void
test_create_reset(void **state)
{
	struct codec_reasm *r = codec_reasm_create();
	uint64_t t = 77;

	(void)state;
	assert_non_null(r);
	assert_false(codec_reasm_active(r, &t));
	assert_int_equal(t, 77);
	codec_reasm_reset(r);
	codec_reasm_reset(NULL);
	codec_reasm_destroy(r);
	codec_reasm_destroy(NULL);
}

/* pcap (LINKTYPE_ETHERNET) of originals and shuffled fragments. */
static void
pcap_put(FILE *fp, const uint8_t *b, size_t len)
{
	uint32_t rec[4] = {0, 0, (uint32_t)len, (uint32_t)len};

	assert_int_equal(fwrite(rec, sizeof(rec), 1, fp), 1);
	assert_int_equal(fwrite(b, 1, len, fp), len);
}

static void
test_pcap_export(void **state)
{
	static const size_t sizes[] = {0, 1473, 3000, 8192, 65507};
	static const uint16_t mtus[] = {576, 1500, 9000};
	static const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0,
					0,	    65535 + 18, 1};
	struct fixture *fx = *state;
	const char *path = getenv("LATPROBE_FRAG_PCAP");
	unsigned order[MAX_FRAGS], n, k, i;
	uint32_t seed = 99;
	size_t s, m, len;
	FILE *fp;

	/*
	 * Without the variable, an anonymous file: the fragments are still
	 * checked (cmocka 1.1's TAP output reports skip() as "not ok").
	 */
	if (path == NULL || *path == '\0')
		fp = tmpfile();
	else
		fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(hdr, sizeof(hdr), 1, fp), 1);
	for (s = 0; s < NELEM(sizes); s++) {
		for (m = 0; m < NELEM(mtus); m++) {
			len = build_udp(fx->orig, m == 1,
					(uint16_t)(0x100 + s * 4 + m),
					sizes[s]);
			n = fragment_all(fx, fx->orig, len, mtus[m]);
			pcap_put(fp, fx->orig, len);
			if (n == 1)
				continue;
			k = make_order(order, n, SHUFFLED, &seed);
			for (i = 0; i < k; i++)
				pcap_put(fp, fx->frag[order[i]],
					 fx->frag_len[order[i]]);
		}
	}
	assert_int_equal(fclose(fp), 0);
}

/*
 * IPv6 (RFC 8200 4.5): a UDP datagram cut by codec_ipv6_fragment() at
 * several MTUs, fed back in a shuffled order with duplicates, comes back
 * byte for byte; a changed overlap, a Fragment header after another
 * extension header and data past 65,535 bytes are refused.
 */
static void
test_ipv6_roundtrip(void **state)
{
	struct fixture *fx = *state;
	static const uint16_t mtus[] = {1280, 1500, 9000};
	static const size_t sizes[] = {1300, 8000, 65000};
	struct codec_flow fl = base_flow;
	uint32_t rs = 99;

	fl.ip_version = 6;
	memset(fl.src6, 0, 16);
	memset(fl.dst6, 0, 16);
	fl.src6[0] = fl.dst6[0] = 0x20;
	fl.src6[1] = fl.dst6[1] = 0x01;
	fl.src6[3] = fl.dst6[3] = 0x02;
	fl.src6[15] = 1;
	fl.dst6[15] = 2;
	for (size_t mi = 0; mi < NELEM(mtus); mi++) {
		for (size_t si = 0; si < NELEM(sizes); si++) {
			size_t hlen = codec_udp_header_len(&fl), len, off = 0;
			unsigned n = 0, order[MAX_FRAGS];
			struct codec_frame f, g;
			uint8_t *out = NULL;
			size_t out_len = 0;
			int rc = 0, l;

			for (size_t i = 0; i < sizes[si]; i++)
				fx->orig[hlen + i] = (uint8_t)(i * 7 + si);
			l = codec_build_udp(fx->orig, BIG_CAP, &fl, 0,
					    fx->orig + hlen, sizes[si]);
			assert_true(l > 0);
			len = (size_t)l;
			assert_int_equal(codec_parse_frame(fx->orig, len, &f),
					 0);
			if (f.ip_len <= mtus[mi]) {
				/* Fits: copied whole. */
				l = codec_ipv6_fragment(fx->orig, &f, mtus[mi],
							1, &off, fx->frag[0],
							FRAG_CAP);
				assert_int_equal(l, (int)len);
				assert_int_equal(off, 0);
				assert_memory_equal(fx->frag[0], fx->orig, len);
				continue;
			}
			do {
				assert_true(n < MAX_FRAGS);
				l = codec_ipv6_fragment(
					fx->orig, &f, mtus[mi],
					0xabcd0000u + (uint32_t)si, &off,
					fx->frag[n], FRAG_CAP);
				assert_true(l > 0);
				assert_true((size_t)l - CODEC_ETH_HLEN <=
					    mtus[mi]);
				assert_int_equal(codec_parse_frame(fx->frag[n],
								   (size_t)l,
								   &g),
						 0);
				assert_true(g.is_fragment);
				assert_int_equal(g.frag_id,
						 0xabcd0000u + (uint32_t)si);
				assert_int_equal(g.ip_proto, CODEC_IPPROTO_UDP);
				fx->frag_len[n++] = (size_t)l;
			} while (off != 0);
			for (unsigned i = 0; i < n; i++)
				order[i] = i;
			for (unsigned i = n - 1; i > 0; i--) {
				unsigned j = rnd(&rs) % (i + 1), t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
			codec_reasm_reset(fx->r);
			for (unsigned i = 0; i < n; i++) {
				unsigned k = order[i];

				assert_int_equal(
					codec_parse_frame(fx->frag[k],
							  fx->frag_len[k], &g),
					0);
				rc = codec_reasm_add(fx->r, fx->frag[k], &g, i,
						     &out, &out_len);
				assert_int_equal(rc, i + 1 == n ? 1 : 0);
				/* A re-sent fragment changes nothing. */
				if (i == 0 && n > 2) {
					rc = codec_reasm_add(fx->r, fx->frag[k],
							     &g, i, &out,
							     &out_len);
					assert_int_equal(rc, 0);
				}
			}
			assert_int_equal(out_len, len);
			assert_memory_equal(out, fx->orig, len);
			assert_int_equal(codec_parse_frame(out, out_len, &g),
					 0);
			assert_true(codec_l4_csum_ok(out, &g));
		}
	}
}

static void
test_ipv6_rejects(void **state)
{
	struct fixture *fx = *state;
	struct codec_flow fl = base_flow;
	size_t hlen, off = 0;
	struct codec_frame f, g;
	uint8_t *out;
	size_t out_len;
	int l;

	fl.ip_version = 6;
	memset(fl.src6, 0x20, 16);
	memset(fl.dst6, 0x21, 16);
	hlen = codec_udp_header_len(&fl);
	memset(fx->orig + hlen, 0x5a, 3000);
	l = codec_build_udp(fx->orig, BIG_CAP, &fl, 0, fx->orig + hlen, 3000);
	assert_true(l > 0);
	assert_int_equal(codec_parse_frame(fx->orig, (size_t)l, &f), 0);
	/* Below the IPv6 minimum MTU; not IPv6. */
	assert_int_equal(codec_ipv6_fragment(fx->orig, &f, 1279, 1, &off,
					     fx->frag[0], FRAG_CAP),
			 -EINVAL);
	for (unsigned i = 0; i < 3; i++) {
		l = codec_ipv6_fragment(fx->orig, &f, 1280, 7, &off,
					fx->frag[i], FRAG_CAP);
		assert_true(l > 0);
		fx->frag_len[i] = (size_t)l;
	}
	assert_int_equal(off, 0);
	/* The second fragment again with one byte changed: RFC 5722. */
	codec_reasm_reset(fx->r);
	assert_int_equal(codec_parse_frame(fx->frag[1], fx->frag_len[1], &g),
			 0);
	assert_int_equal(
		codec_reasm_add(fx->r, fx->frag[1], &g, 0, &out, &out_len), 0);
	fx->frag[1][fx->frag_len[1] - 1] ^= 1;
	assert_int_equal(
		codec_reasm_add(fx->r, fx->frag[1], &g, 0, &out, &out_len),
		-EINVAL);
	/* A destination options header before the Fragment header. */
	memcpy(fx->frag[3], fx->frag[0], 14 + 40);
	fx->frag[3][14 + 6] = CODEC_IPPROTO_DSTOPTS;
	memset(fx->frag[3] + 54, 0, 8);
	fx->frag[3][54] = CODEC_IPPROTO_FRAGMENT;
	fx->frag[3][56] = 1; /* PadN of 4 bytes */
	fx->frag[3][57] = 4;
	memcpy(fx->frag[3] + 62, fx->frag[0] + 54, fx->frag_len[0] - 54);
	fx->frag[3][18] = (uint8_t)((fx->frag_len[0] - 54 + 8) >> 8);
	fx->frag[3][19] = (uint8_t)(fx->frag_len[0] - 54 + 8);
	assert_int_equal(
		codec_parse_frame(fx->frag[3], fx->frag_len[0] + 8, &g), 0);
	assert_true(g.is_fragment);
	assert_int_equal(g.frag_hdr_off, 14 + 48);
	assert_int_equal(
		codec_reasm_add(fx->r, fx->frag[3], &g, 0, &out, &out_len),
		-EINVAL);
	/* Data past 65,535 bytes. */
	assert_int_equal(codec_parse_frame(fx->frag[2], fx->frag_len[2], &g),
			 0);
	g.frag_off = 65528;
	assert_int_equal(
		codec_reasm_add(fx->r, fx->frag[2], &g, 0, &out, &out_len),
		-EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_fragment),
		cmocka_unit_test(test_golden_reassemble),
		cmocka_unit_test(test_roundtrip_sweep),
		cmocka_unit_test(test_roundtrip_icmp),
		cmocka_unit_test(test_fits_unchanged),
		cmocka_unit_test(test_fragment_errors),
		cmocka_unit_test(test_interleave_estale),
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_first_fragment_options),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_create_reset),
		cmocka_unit_test(test_pcap_export),
		cmocka_unit_test(test_ipv6_roundtrip),
		cmocka_unit_test(test_ipv6_rejects),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
