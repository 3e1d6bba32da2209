/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"

#include "vectors/stamp_golden.h"

/* Same inputs as tools/golden/stamp_gen.c */
#define T1_NS  1700000000123456789ULL
#define T2_NS  1700000000123500000ULL
#define T3_NS  1700000000123600001ULL
#define NTP_EE (STAMP_EE_S | 10 << 8 | 3)
#define PTP_EE (STAMP_EE_Z | 1)

/*
 * First request and its reply of `sockperf ping-pong -i 127.0.0.1 -p 11111
 * -t 1 -m 64` against `sockperf server -i 127.0.0.1 -p 11111` (Debian
 * sockperf 3.7-1), captured with `tshark -i lo -f 'udp port 11111' -c 20 -x`;
 * UDP payloads (64 bytes) only.
 */
static const uint8_t sockperf_req[64] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00,
	0x00, 0x00, 0x40, 0x96, 0x8f, 0x38, 0x5c, 0x2a, 0xec, 0xb0, 0x3b,
	0xfb, 0x32, 0xaf, 0x3c, 0x54, 0xec, 0x18, 0xdb, 0x5c, 0x02, 0x1a,
	0xfe, 0x43, 0xfb, 0xfa, 0xaa, 0x3a, 0xfb, 0x29, 0xd1, 0xe6, 0x05,
	0x3c, 0x7c, 0x94, 0x75, 0xd8, 0xbe, 0x61, 0x89, 0xf9, 0x5c, 0xbb,
	0xa8, 0x99, 0x0f, 0x95, 0xb1, 0xeb, 0xf1, 0xb3, 0x05,
};
static const uint8_t sockperf_reply[64] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00,
	0x00, 0x00, 0x40, 0x96, 0x8f, 0x38, 0x5c, 0x2a, 0xec, 0xb0, 0x3b,
	0xfb, 0x32, 0xaf, 0x3c, 0x54, 0xec, 0x18, 0xdb, 0x5c, 0x02, 0x1a,
	0xfe, 0x43, 0xfb, 0xfa, 0xaa, 0x3a, 0xfb, 0x29, 0xd1, 0xe6, 0x05,
	0x3c, 0x7c, 0x94, 0x75, 0xd8, 0xbe, 0x61, 0x89, 0xf9, 0x5c, 0xbb,
	0xa8, 0x99, 0x0f, 0x95, 0xb1, 0xeb, 0xf1, 0xb3, 0x05,
};

static uint64_t
be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void
assert_near(uint64_t a, uint64_t b, uint64_t tol)
{
	uint64_t d = a > b ? a - b : b - a;

	assert_true(d <= tol);
}

static const struct stamp_reflect_opts refl_opts = {
	.seq = 1000,
	.error_estimate = NTP_EE,
	.sender_ttl = 63,
	.rx_tos = 0xb9, /* DSCP 46, ECN 1 */
	.sync_src = STAMP_SYNC_NTP,
	.ts_method = STAMP_TS_METHOD_SW,
};

static int
build_sender(uint8_t *p, size_t cap, uint16_t ee, bool tlvs, size_t len)
{
	struct stamp_sender_opts o = {
		.seq = 7,
		.timestamp = stamp_ts_from_ns(T1_NS, ee),
		.error_estimate = ee,
		.ssid = 0xbeef,
		.tlv_timestamp_info = tlvs,
		.tlv_class_of_service = tlvs,
		.cos_dscp = 46,
		.len = len,
	};

	return stamp_sender_build(p, cap, &o);
}

/*
 * An error in ns to an Error Estimate: never below the error,
 * less than 1 % above it from 2^-32 s * 100 on, the smallest scale that
 * holds it, S and Z as asked; 0, NaN and negative give the smallest.
 */
static void
test_ee_from_ns(void **state)
{
	static const double ns[] = {1,	 37,  100,  1000,    2121,
				    5e4, 1e6, 16e9, 86400e9, 1e18};
	struct stamp_error_estimate e;

	(void)state;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		double got;

		stamp_ee_from_ns(ns[i], true, false, &e);
		got = stamp_ee_to_ns(&e);
		assert_true(e.sync);
		assert_false(e.ptp);
		assert_true(e.multiplier >= 1);
		if (got < ns[i])
			fail_msg("%g ns encoded as %g ns", ns[i], got);
		/* A multiplier of 128 or more (else the scale below would
		 * hold it): at most 1/128 over, above 2^-32 s x 128. */
		if (ns[i] >= 100 && got > ns[i] * (1 + 1.0 / 128))
			fail_msg("%g ns encoded as %g ns (too coarse)", ns[i],
				 got);
		if (e.scale > 0)
			assert_true(e.multiplier > 127);
	}
	/* 37 ns: 2^-32 s = 0.2328 ns, 159 of them (scale 0). */
	stamp_ee_from_ns(37, false, true, &e);
	assert_int_equal(e.scale, 0);
	assert_int_equal(e.multiplier, 159);
	assert_int_equal(stamp_ee_encode(&e), STAMP_EE_Z | 159);
	stamp_ee_from_ns(0, false, false, &e);
	assert_int_equal(stamp_ee_encode(&e), 1);
	stamp_ee_from_ns(-5, false, false, &e);
	assert_int_equal(stamp_ee_encode(&e), 1);
	stamp_ee_from_ns(__builtin_nan(""), true, false, &e);
	assert_int_equal(stamp_ee_encode(&e), STAMP_EE_S | 1);
	/* Beyond what the field holds: the largest. */
	stamp_ee_from_ns(1e30, false, false, &e);
	assert_int_equal(stamp_ee_encode(&e), 0x3fff);
}

/* "Unknown" is the largest estimate, never multiplier 0 (RFC 4656 §4.1.2:
 * a receiver discards that as corrupt); anything of 2^64 ns or more reads
 * as unknown, a year does not. */
static void
test_ee_unknown(void **state)
{
	struct stamp_error_estimate e;

	(void)state;
	stamp_ee_unknown(false, false, &e);
	assert_int_equal(stamp_ee_encode(&e), 0x3fff);
	assert_true(stamp_ee_is_unknown(&e));
	stamp_ee_unknown(true, true, &e);
	assert_int_equal(stamp_ee_encode(&e), 0xffff);
	assert_true(stamp_ee_is_unknown(&e));
	stamp_ee_from_ns(365 * 86400e9, true, false, &e);
	assert_false(stamp_ee_is_unknown(&e));
	stamp_ee_decode(12u << 8 | 1u, &e);
	assert_false(stamp_ee_is_unknown(&e));
	stamp_ee_decode(0, &e); /* multiplier 0: no estimate, not unknown */
	assert_false(stamp_ee_is_unknown(&e));
}

static void
test_ee(void **state)
{
	struct stamp_error_estimate ee = {
		.sync = true, .ptp = false, .scale = 10, .multiplier = 3};
	struct stamp_error_estimate d;
	uint16_t v;

	(void)state;
	v = stamp_ee_encode(&ee);
	assert_int_equal(v, 0x8a03);
	stamp_ee_decode(0x7fff, &d);
	assert_false(d.sync);
	assert_true(d.ptp);
	assert_int_equal(d.scale, 63);
	assert_int_equal(d.multiplier, 255);
	assert_int_equal(stamp_ee_encode(&d), 0x7fff);
	for (v = 0; v < 0xffff; v += 0x0101) {
		stamp_ee_decode(v, &d);
		assert_int_equal(stamp_ee_encode(&d), v);
	}
	/* out-of-range scale is masked to 6 bits */
	ee.scale = 0xff;
	assert_int_equal(stamp_ee_encode(&ee) & 0x3f00, 0x3f00);
	assert_int_equal(stamp_ee_encode(&ee) & STAMP_EE_Z, 0);
	/* 1 * 2^(32-32) s = 1 s; 3 * 2^-22 s = 715.255737... ns */
	stamp_ee_decode(32 << 8 | 1, &d);
	assert_true(stamp_ee_to_ns(&d) == 1e9);
	stamp_ee_decode(0x8a03, &d);
	assert_true(stamp_ee_to_ns(&d) > 715.25 && stamp_ee_to_ns(&d) < 715.26);
	stamp_ee_decode(0, &d);
	assert_true(stamp_ee_to_ns(&d) == 0.0);
}

static void
test_ntp_known(void **state)
{
	(void)state;
	assert_int_equal(stamp_ntp_from_ns(0), 2208988800ULL << 32);
	assert_int_equal(stamp_ntp_from_ns(500000000ULL),
			 2208988800ULL << 32 | 0x80000000ULL);
	/* 1 ns = 4.294967296 units of 2^-32 s, rounded to 4 */
	assert_int_equal(stamp_ntp_from_ns(1) & 0xffffffff, 4);
	/* 0.999999999 s = 4294967291.705 units */
	assert_int_equal(stamp_ntp_from_ns(999999999) & 0xffffffff,
			 0xfffffffcULL);
	assert_int_equal(stamp_ntp_to_ns(2208988800ULL << 32 | 0x80000000ULL),
			 500000000ULL);
	assert_int_equal(stamp_ntp_to_ns(2208988800ULL << 32), 0);
	/* 2036-02-07T06:28:16Z: NTP seconds wrap to 0 (era 1) */
	assert_int_equal(stamp_ntp_from_ns(2085978496ULL * 1000000000ULL), 0);
	assert_int_equal(stamp_ntp_to_ns(0), 2085978496ULL * 1000000000ULL);
	assert_int_equal(stamp_ts_from_ns(T1_NS, NTP_EE),
			 stamp_ntp_from_ns(T1_NS));
	assert_int_equal(stamp_ts_to_ns(stamp_ntp_from_ns(T1_NS), 0), T1_NS);
}

/* |a - b| modulo 2^64 (NTP timestamps wrap). */
static uint64_t
ntp_dist(uint64_t a, uint64_t b)
{
	return a - b < b - a ? a - b : b - a;
}

/*
 * stamp_ntp_from_tsc(): the anchor's NTP time plus cycles * 2^32 / hz
 * (exactly, in 128 bits, floored: the converter may be one unit off for its
 * rounded factor), and within 1 ns (5 units) of the conversion through ns
 * it replaces, after and before the anchor, at rates from 1 MHz to 8.6 GHz
 * and spans from 0 to decades.
 */
static void
test_ntp_from_tsc(void **state)
{
	static const uint64_t hzs[] = {
		1000000,    999999999,	   1000000000,	  2000000000,
		2596122140, 4294967295ull, 4294967296ull, 8589934591ull};
	static const uint64_t spans[] = {0,
					 1,
					 7,
					 999,
					 1000000,
					 123456789,
					 2596122140ull,
					 3600ull * 2596122140ull,
					 1ull << 40,
					 1ull << 45,
					 1ull << 48,
					 (1ull << 50) + 12345};
	const uint64_t tsc0 = 1ull << 52, ns0 = T1_NS;
	struct stamp_ntp_clock k;

	(void)state;
	assert_int_equal(stamp_ntp_clock_init(&k, 0, 0, 999999), -EINVAL);
	assert_int_equal(stamp_ntp_clock_init(&k, 0, 0, 1ull << 33), -EINVAL);
	for (size_t h = 0; h < sizeof(hzs) / sizeof(hzs[0]); h++) {
		uint64_t hz = hzs[h];

		assert_int_equal(stamp_ntp_clock_init(&k, tsc0, ns0, hz), 0);
		assert_int_equal(stamp_ntp_from_tsc(&k, tsc0),
				 stamp_ntp_from_ns(ns0));
		for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
			uint64_t d = spans[i];
			/* 34 years at the lowest rate of this power of 2 */
			if (d / hz > 34ull * 365 * 86400)
				continue;
			uint64_t units = (uint64_t)(((stamp_u128)d << 32) / hz);
			uint64_t ns =
				(uint64_t)((stamp_u128)d * 1000000000u / hz);
			uint64_t after = stamp_ntp_from_tsc(&k, tsc0 + d);
			uint64_t before = stamp_ntp_from_tsc(&k, tsc0 - d);

			if (ntp_dist(after, stamp_ntp_from_ns(ns0) + units) >
				    1 ||
			    ntp_dist(before, stamp_ntp_from_ns(ns0) - units) >
				    1)
				fail_msg("hz %llu, span %llu: %llx / %llx, "
					 "want %llx / %llx",
					 (unsigned long long)hz,
					 (unsigned long long)d,
					 (unsigned long long)after,
					 (unsigned long long)before,
					 (unsigned long long)(stamp_ntp_from_ns(
								      ns0) +
							      units),
					 (unsigned long long)(stamp_ntp_from_ns(
								      ns0) -
							      units));
			assert_true(ntp_dist(after,
					     stamp_ntp_from_ns(ns0 + ns)) <= 5);
			assert_true(ntp_dist(before,
					     stamp_ntp_from_ns(ns0 - ns)) <= 5);
		}
	}
}

static void
test_ptp_known(void **state)
{
	(void)state;
	assert_int_equal(stamp_ptp_from_ns(0), 0);
	assert_int_equal(stamp_ptp_from_ns(T1_NS),
			 1700000000ULL << 32 | 123456789ULL);
	assert_int_equal(stamp_ptp_to_ns(1700000000ULL << 32 | 123456789ULL),
			 T1_NS);
	assert_int_equal(stamp_ts_from_ns(T1_NS, PTP_EE),
			 stamp_ptp_from_ns(T1_NS));
	assert_int_equal(stamp_ts_to_ns(stamp_ptp_from_ns(T1_NS), PTP_EE),
			 T1_NS);
}

static void
test_ts_round_trip(void **state)
{
	uint64_t ns = 1;
	int i;

	(void)state;
	/* exact to the ns both ways, across sub-second values and years */
	for (i = 0; i < 200000; i++) {
		ns = ns * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t t = (ns >> 8) % (4000000000ULL * 1000000000ULL);

		assert_int_equal(stamp_ntp_to_ns(stamp_ntp_from_ns(t)), t);
		assert_int_equal(stamp_ptp_to_ns(stamp_ptp_from_ns(t)), t);
	}
	for (ns = 0; ns < 1000000000ULL; ns += 999983)
		assert_int_equal(stamp_ntp_to_ns(stamp_ntp_from_ns(ns)), ns);
}

static void
test_sender_layout(void **state)
{
	uint8_t p[128];
	struct stamp_sender s;
	uint64_t ts = stamp_ntp_from_ns(T1_NS);
	int i;

	(void)state;
	memset(p, 0xaa, sizeof(p));
	assert_int_equal(build_sender(p, sizeof(p), NTP_EE, false, 44), 44);
	assert_int_equal(be(p, 4), 7);
	assert_int_equal(be(p + 4, 8), ts);
	assert_int_equal(be(p + 12, 2), NTP_EE);
	assert_int_equal(be(p + 14, 2), 0xbeef);
	for (i = 16; i < 44; i++)
		assert_int_equal(p[i], 0);
	assert_int_equal(p[44], 0xaa); /* nothing written past len */
	assert_int_equal(stamp_sender_parse(p, 44, &s), 0);
	assert_int_equal(s.seq, 7);
	assert_int_equal(s.timestamp, ts);
	assert_int_equal(s.error_estimate, NTP_EE);
	assert_int_equal(s.ssid, 0xbeef);
	assert_int_equal(s.len, 44);
	assert_int_equal(s.tlv_off, 44);

	stamp_sender_stamp(p, 0x01020304, 0x1112131415161718ULL);
	assert_int_equal(be(p, 4), 0x01020304);
	assert_int_equal(be(p + 4, 8), 0x1112131415161718ULL);
	assert_int_equal(be(p + 12, 2), NTP_EE);
}

static void
test_sender_build_tlvs(void **state)
{
	uint8_t p[128];
	struct stamp_tlv t;
	size_t off = STAMP_BASE_LEN;

	(void)state;
	assert_int_equal(build_sender(p, sizeof(p), NTP_EE, true, 80), 80);
	assert_int_equal(stamp_tlv_next(p, 80, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_TIMESTAMP_INFO);
	assert_int_equal(t.flags, 0);
	assert_int_equal(t.length, 4);
	assert_int_equal(stamp_tlv_next(p, 80, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_CLASS_OF_SERVICE);
	assert_int_equal(t.length, 4);
	assert_int_equal(t.value[0], 46 << 2);
	assert_int_equal(t.value[1] | t.value[2] | t.value[3], 0);
	assert_int_equal(stamp_tlv_next(p, 80, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_EXTRA_PADDING);
	assert_int_equal(t.length, 80 - 60 - 4);
	assert_int_equal(stamp_tlv_next(p, 80, &off, &t), 0);
	assert_int_equal(off, 80);
	assert_int_equal(stamp_sender_cos_dscp(p, 80), 46);
	assert_int_equal(stamp_sender_cos_dscp(p, 44), -ENOENT);

	/* padding only; exactly a header; 1-3 spare bytes stay zero */
	assert_int_equal(build_sender(p, sizeof(p), NTP_EE, false, 48), 48);
	off = STAMP_BASE_LEN;
	assert_int_equal(stamp_tlv_next(p, 48, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_EXTRA_PADDING);
	assert_int_equal(t.length, 0);
	memset(p, 0xaa, sizeof(p));
	assert_int_equal(build_sender(p, sizeof(p), NTP_EE, false, 47), 47);
	assert_int_equal(p[44] | p[45] | p[46], 0);

	/* errors: too short for base + TLVs, buffer too small */
	assert_int_equal(build_sender(p, sizeof(p), NTP_EE, false, 43),
			 -EINVAL);
	assert_int_equal(build_sender(p, sizeof(p), NTP_EE, true, 59), -EINVAL);
	assert_int_equal(build_sender(p, 60, NTP_EE, true, 61), -EMSGSIZE);
}

static void
test_tlv_walk(void **state)
{
	uint8_t p[64] = {0};
	struct stamp_tlv t;
	size_t off;

	(void)state;
	/* a good list: type 1 len 2, type 200 len 0 (U/M/I flags kept) */
	memcpy(p + 44, (const uint8_t[]){0x00, 1, 0, 2, 0xde, 0xad}, 6);
	memcpy(p + 50, (const uint8_t[]){0xe0, 200, 0, 0}, 4);
	off = 44;
	assert_int_equal(stamp_tlv_next(p, 54, &off, &t), 1);
	assert_int_equal(t.type, 1);
	assert_int_equal(t.length, 2);
	assert_ptr_equal(t.value, p + 48);
	assert_int_equal(off, 50);
	assert_int_equal(stamp_tlv_next(p, 54, &off, &t), 1);
	assert_int_equal(t.flags, 0xe0);
	assert_int_equal(t.type, 200);
	assert_int_equal(t.length, 0);
	assert_int_equal(stamp_tlv_next(p, 54, &off, &t), 0);
	assert_int_equal(off, 54);
	/* truncated header (1-3 bytes left) */
	off = 50;
	assert_int_equal(stamp_tlv_next(p, 53, &off, &t), -EINVAL);
	assert_int_equal(off, 50);
	/* value runs past len */
	off = 44;
	assert_int_equal(stamp_tlv_next(p, 49, &off, &t), -EINVAL);
	p[46] = 0xff; /* length 0xff02 */
	off = 44;
	assert_int_equal(stamp_tlv_next(p, 64, &off, &t), -EINVAL);
	/* nothing at all, and a short packet */
	off = 44;
	assert_int_equal(stamp_tlv_next(p, 44, &off, &t), 0);
	off = 41;
	assert_int_equal(stamp_tlv_next(p, 41, &off, &t), 0);
}

static void
test_reflect_44(void **state)
{
	uint8_t p[44];
	struct stamp_reflect_opts o = refl_opts;
	struct stamp_reflector r;
	uint64_t t1 = stamp_ntp_from_ns(T1_NS);
	uint64_t t2 = stamp_ntp_from_ns(T2_NS);
	int i;

	(void)state;
	o.rx_timestamp = t2;
	build_sender(p, sizeof(p), NTP_EE, false, 44);
	p[20] = 0x55; /* MBZ garbage from a sloppy sender is not echoed */
	assert_int_equal(stamp_reflect(p, 44, &o), 44);
	assert_int_equal(be(p, 4), 1000);
	assert_int_equal(be(p + 4, 8), t2); /* T3 placeholder */
	assert_int_equal(be(p + 12, 2), NTP_EE);
	assert_int_equal(be(p + 14, 2), 0xbeef);
	assert_int_equal(be(p + 16, 8), t2);
	assert_int_equal(be(p + 24, 4), 7);
	assert_int_equal(be(p + 28, 8), t1);
	assert_int_equal(be(p + 36, 2), NTP_EE);
	assert_int_equal(be(p + 38, 2), 0);
	assert_int_equal(p[40], 63);
	for (i = 41; i < 44; i++)
		assert_int_equal(p[i], 0);
	stamp_reflector_stamp(p, 44, 0x0102030405060708ULL);
	assert_int_equal(be(p + 4, 8), 0x0102030405060708ULL);
	assert_int_equal(be(p + 16, 8), t2);

	assert_int_equal(stamp_reflector_parse(p, 44, &r), 0);
	assert_int_equal(r.seq, 1000);
	assert_int_equal(r.timestamp, 0x0102030405060708ULL);
	assert_int_equal(r.error_estimate, NTP_EE);
	assert_int_equal(r.ssid, 0xbeef);
	assert_int_equal(r.rx_timestamp, t2);
	assert_int_equal(r.sender_seq, 7);
	assert_int_equal(r.sender_timestamp, t1);
	assert_int_equal(r.sender_error_estimate, NTP_EE);
	assert_int_equal(r.sender_ttl, 63);
	assert_int_equal(r.len, 44);
	assert_int_equal(r.tlv_off, 44);
	assert_int_equal(stamp_reflect(p, 3, &o), -EINVAL);
}

static void
test_reflect_tlvs(void **state)
{
	uint8_t p[128];
	struct stamp_reflect_opts o = refl_opts;
	struct stamp_tlv t;
	size_t off = STAMP_BASE_LEN;
	int n;

	(void)state;
	n = build_sender(p, sizeof(p), NTP_EE, true, 96);
	/* turn the Extra Padding TLV (at 60, value 32) into 2 TLVs: an
	 * unknown type 99 (len 4), then Extra Padding (len 24) */
	memcpy(p + 60, (const uint8_t[]){0, 99, 0, 4, 1, 2, 3, 4}, 8);
	memcpy(p + 68, (const uint8_t[]){0, 1, 0, 24}, 4);
	assert_int_equal(stamp_reflect(p, (size_t)n, &o), 96);

	assert_int_equal(stamp_tlv_next(p, 96, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_TIMESTAMP_INFO);
	assert_int_equal(t.flags, 0);
	assert_memory_equal(
		t.value,
		((const uint8_t[]){STAMP_SYNC_NTP, STAMP_TS_METHOD_SW,
				   STAMP_SYNC_NTP, STAMP_TS_METHOD_SW}),
		4);
	assert_int_equal(stamp_tlv_next(p, 96, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_CLASS_OF_SERVICE);
	/* DSCP1 46 | DSCP2 46 | ECN 1 | RP 0 | reserved 0 */
	assert_int_equal(be(t.value, 4), (46ULL << 26 | 46ULL << 20 | 1 << 18));
	assert_int_equal(stamp_tlv_next(p, 96, &off, &t), 1);
	assert_int_equal(t.type, 99);
	assert_int_equal(t.flags, STAMP_TLV_U);
	assert_memory_equal(t.value, ((const uint8_t[]){1, 2, 3, 4}), 4);
	assert_int_equal(stamp_tlv_next(p, 96, &off, &t), 1);
	assert_int_equal(t.type, STAMP_TLV_EXTRA_PADDING);
	assert_int_equal(t.flags, 0);
	assert_int_equal(t.length, 24);
	assert_int_equal(stamp_tlv_next(p, 96, &off, &t), 0);

	/* CoS RP from the options */
	build_sender(p, sizeof(p), NTP_EE, true, 68);
	o.cos_rp = 1;
	o.rx_tos = 0x03; /* DSCP 0, ECN CE */
	stamp_reflect(p, 68, &o);
	assert_int_equal(be(p + 56, 4), (46ULL << 26 | 3 << 18 | 1 << 16));
}

static void
test_reflect_malformed(void **state)
{
	uint8_t p[128];
	uint8_t before[128];
	struct stamp_reflect_opts o = refl_opts;

	(void)state;
	/* CoS with length 2: malformed, M set, it and the rest untouched */
	build_sender(p, sizeof(p), NTP_EE, true, 80);
	memcpy(p + 52, (const uint8_t[]){0, 4, 0, 2, 0xb8, 0, 0, 1, 0, 8}, 10);
	memcpy(before, p, sizeof(p));
	stamp_reflect(p, 80, &o);
	assert_int_equal(p[44], 0);
	assert_int_equal(p[48], STAMP_SYNC_NTP); /* answered before it */
	assert_int_equal(p[52], STAMP_TLV_M);
	assert_memory_equal(p + 53, before + 53, 80 - 53);

	/* a TLV running past the packet: M set, value untouched */
	build_sender(p, sizeof(p), NTP_EE, false, 60);
	memcpy(p + 44, (const uint8_t[]){0, 3, 0, 40}, 4);
	memcpy(before, p, sizeof(p));
	stamp_reflect(p, 60, &o);
	assert_int_equal(p[44], STAMP_TLV_M);
	assert_memory_equal(p + 45, before + 45, 60 - 45);

	/* 1-3 trailing bytes after good TLVs are left alone */
	build_sender(p, sizeof(p), NTP_EE, false, 50);
	memcpy(p + 44, (const uint8_t[]){0, 1, 0, 0, 0x77, 0x66}, 6);
	stamp_reflect(p, 50, &o);
	assert_int_equal(p[44], 0);
	assert_int_equal(p[48], 0x77);
	assert_int_equal(p[49], 0x66);

	/* all-zero tail (TWAMP-Light padding) stays zero, no U on type 0 */
	build_sender(p, sizeof(p), NTP_EE, false, 44);
	memset(p + 44, 0, 40);
	stamp_reflect(p, 84, &o);
	assert_true(p[44] == 0 && p[48] == 0 && p[80] == 0);
}

static void
test_reflect_short(void **state)
{
	static const size_t lens[] = {4, 11, 12, 14, 15, 27, 30, 40, 41, 43};
	uint8_t full[44];
	struct stamp_reflect_opts o = refl_opts;
	size_t i;

	(void)state;
	o.rx_timestamp = stamp_ntp_from_ns(T2_NS);
	/* the reply of a short request is the 44-byte reply cut at len */
	build_sender(full, sizeof(full), NTP_EE, false, 44);
	stamp_reflect(full, 44, &o);
	stamp_reflector_stamp(full, 44, T3_NS);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint8_t p[64];
		struct stamp_reflector r;
		struct stamp_sender s;
		size_t len = lens[i];

		memset(p, 0xcc, sizeof(p));
		build_sender(p, sizeof(p), NTP_EE, false, 44);
		memset(p + len, 0xcc, 44 - len);
		assert_int_equal(stamp_sender_parse(p, len, &s), 0);
		assert_int_equal(s.tlv_off, len);
		assert_int_equal(s.seq, 7);
		/* missing bytes read as zero, even inside a field */
		assert_int_equal(s.ssid, len >= 16   ? 0xbeef
					 : len == 15 ? 0xbe00
						     : 0);
		assert_int_equal(stamp_reflect(p, len, &o), (int)len);
		stamp_reflector_stamp(p, len, T3_NS);
		if (len >= 12) {
			uint8_t want[44];

			/* no SSID in a TWAMP-Light answer: MBZ */
			memcpy(want, full, sizeof(want));
			want[14] = want[15] = 0;
			assert_memory_equal(p, want, len);
		} else {
			/* T3 does not fit: the T2 placeholder, cut */
			assert_memory_equal(p, full, 4);
			if (len > 4)
				assert_int_equal(be(p + 4, len - 4),
						 o.rx_timestamp >>
							 (8 * (12 - len)));
		}
		assert_int_equal(p[len], 0xcc); /* length never grows */
		assert_int_equal(stamp_reflector_parse(p, len, &r), 0);
		assert_int_equal(r.seq, 1000);
		assert_int_equal(r.sender_ttl, len > 40 ? 63 : 0);
		assert_int_equal(r.sender_seq, len >= 28 ? 7 : 0);
	}
}

/* A reflector answer laid out by hand as RFC 5357 §4.2.1 / RFC 8762 §4.3.1
 * draw it, len bytes, pad (a value) after the first 41. */
static void
put_answer(uint8_t *p, size_t len, uint32_t seq, uint16_t ee, uint64_t t2,
	   uint64_t t3, uint32_t sender_seq, uint8_t pad)
{
	uint8_t b[41];

	memset(b, 0, sizeof(b));
	b[0] = (uint8_t)(seq >> 24);
	b[1] = (uint8_t)(seq >> 16);
	b[2] = (uint8_t)(seq >> 8);
	b[3] = (uint8_t)seq;
	for (int i = 0; i < 8; i++) {
		b[4 + i] = (uint8_t)(t3 >> (56 - 8 * i));
		b[16 + i] = (uint8_t)(t2 >> (56 - 8 * i));
	}
	b[12] = (uint8_t)(ee >> 8);
	b[13] = (uint8_t)ee;
	b[24] = (uint8_t)(sender_seq >> 24);
	b[25] = (uint8_t)(sender_seq >> 16);
	b[26] = (uint8_t)(sender_seq >> 8);
	b[27] = (uint8_t)sender_seq;
	b[36] = 0x3f; /* sender EE as twampy sends it */
	b[37] = 0xff;
	b[40] = 64; /* sender TTL */
	memset(p, pad, len);
	memcpy(p, b, len < sizeof(b) ? len : sizeof(b));
}

static void
test_answer_parse(void **state)
{
	/* twampy's reflector (38 bytes: no TTL), RFC 5357's minimum (41),
	 * STAMP base (44), padded TWAMP-Light, a long STAMP answer */
	static const size_t lens[] = {28, 38, 41, 44, 45, 100, 1400};
	static uint8_t p[1400];
	struct stamp_answer a;
	uint64_t t2 = stamp_ntp_from_ns(T2_NS), t3 = stamp_ntp_from_ns(T3_NS);

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		/* own sequence numbers, S=0 Z=0 scale 0 mult 1 (twampy) */
		put_answer(p, lens[i], 12345, 0x0001, t2, t3, 77, 0xa5);
		memset(&a, 0xee, sizeof(a));
		assert_int_equal(stamp_answer_parse(p, lens[i], &a), 0);
		assert_int_equal(a.seq, 12345);
		assert_int_equal(a.sender_seq, 77);
		assert_int_equal(a.error_estimate, 0x0001);
		assert_true(a.t2_ns + 1 >= T2_NS && a.t2_ns <= T2_NS + 1);
		assert_true(a.t3_ns + 1 >= T3_NS && a.t3_ns <= T3_NS + 1);
	}
	/* too short for the sender sequence number */
	put_answer(p, 27, 1, 0x0001, t2, t3, 77, 0);
	assert_int_equal(stamp_answer_parse(p, 27, &a), -EINVAL);
	assert_int_equal(stamp_answer_parse(p, 4, &a), -EINVAL);
	assert_int_equal(stamp_answer_parse(p, 0, &a), -EINVAL);

	/* Z bit: T2/T3 are truncated PTPv2, read as such (not NTP) */
	put_answer(p, 44, 1, PTP_EE, stamp_ptp_from_ns(T2_NS),
		   stamp_ptp_from_ns(T3_NS), 9, 0);
	assert_int_equal(stamp_answer_parse(p, 44, &a), 0);
	assert_int_equal(a.t2_ns, T2_NS);
	assert_int_equal(a.t3_ns, T3_NS);
	assert_int_equal(a.t3_ns - a.t2_ns, T3_NS - T2_NS);

	/* S bit and any scale/multiplier are carried as sent */
	put_answer(p, 41, 1, NTP_EE, t2, t3, 9, 0);
	assert_int_equal(stamp_answer_parse(p, 41, &a), 0);
	assert_int_equal(a.error_estimate, NTP_EE);
}

static void
test_prefixes(void **state)
{
	uint8_t p[96];
	struct stamp_sender s;
	struct stamp_reflector r;
	struct sockperf_hdr h;
	struct stamp_reflect_opts o = refl_opts;
	size_t len;

	(void)state;
	build_sender(p, sizeof(p), NTP_EE, true, 96);
	for (len = 0; len <= 96; len++) {
		struct stamp_tlv t;
		size_t off;
		int rc, n = 0;

		/* an exact-size heap copy lets ASan catch any overread */
		uint8_t *q = malloc(len ? len : 1);

		assert_non_null(q);
		memcpy(q, p, len);
		rc = stamp_sender_parse(q, len, &s);
		assert_int_equal(rc, len < 4 ? -EINVAL : 0);
		rc = stamp_reflector_parse(q, len, &r);
		assert_int_equal(rc, len < 4 ? -EINVAL : 0);
		off = STAMP_BASE_LEN;
		while ((rc = stamp_tlv_next(q, len, &off, &t)) == 1)
			n++;
		assert_true(rc == 0 || rc == -EINVAL);
		/* a TLV takes 4 bytes at least: no more than the tail holds */
		assert_true((size_t)n * 4 <=
			    (len > STAMP_BASE_LEN ? len - STAMP_BASE_LEN : 0));
		assert_true(off <= (len > 44 ? len : 44));
		if (len == 52 || len == 60 || len == 96)
			assert_int_equal(rc, 0);
		rc = stamp_reflect(q, len, &o);
		assert_int_equal(rc, len < 4 ? -EINVAL : (int)len);
		stamp_reflector_stamp(q, len, 1);
		rc = sockperf_parse(q, len, &h);
		assert_true(rc == 0 || rc == -EINVAL);
		free(q);
	}
	for (len = 0; len <= sizeof(sockperf_req); len++) {
		uint8_t *q = malloc(len ? len : 1);

		assert_non_null(q);
		memcpy(q, sockperf_req, len);
		assert_int_equal(sockperf_parse(q, len, &h),
				 len < 64 ? -EINVAL : 0);
		assert_int_equal(sockperf_reflect(q, len),
				 len < 64 ? -EINVAL : 1);
		free(q);
	}
}

/* The fields both layouts start with, as tshark read them (it truncates NTP
 * fractions to the ns, we round: 1 ns apart at most). */
static void
check_golden_head(const struct stamp_golden *g, uint32_t seq, uint64_t ts,
		  uint16_t ee, uint16_t ssid)
{
	assert_int_equal(seq, g->seq);
	assert_near(stamp_ts_to_ns(ts, ee), g->ts_ns, 1);
	assert_int_equal(ee, g->ee);
	assert_int_equal(ssid, g->ssid);
}

static void
test_golden(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(stamp_golden) / sizeof(stamp_golden[0]); i++) {
		const struct stamp_golden *g = &stamp_golden[i];
		bool refl = strncmp(g->name, "reflector", 9) == 0;
		uint16_t ee = strstr(g->name, "ptp") ? PTP_EE : NTP_EE;
		bool tlvs = strstr(g->name, "tlv") != NULL;
		uint8_t p[128];
		int n;

		/* our builders make exactly the bytes tshark checked */
		n = build_sender(p, sizeof(p), ee, tlvs,
				 g->len < 44 ? 44 : g->len);
		assert_true(n > 0);
		if (refl) {
			struct stamp_reflect_opts o = refl_opts;

			o.rx_timestamp = stamp_ts_from_ns(T2_NS, ee);
			o.error_estimate = ee;
			stamp_reflect(p, g->len, &o);
			stamp_reflector_stamp(p, g->len,
					      stamp_ts_from_ns(T3_NS, ee));
		}
		assert_memory_equal(p, g->bytes, g->len);

		/* our parsers read what tshark read (tshark truncates NTP
		 * fractions to the ns, we round: 1 ns apart at most) */
		if (refl) {
			struct stamp_reflector r;

			assert_int_equal(
				stamp_reflector_parse(g->bytes, g->len, &r), 0);
			check_golden_head(g, r.seq, r.timestamp,
					  r.error_estimate, r.ssid);
			assert_near(stamp_ts_to_ns(r.rx_timestamp,
						   r.error_estimate),
				    g->rx_ts_ns, 1);
			assert_int_equal(r.sender_seq, g->sender_seq);
			assert_near(
				g->sender_ts_as_ntp
					? stamp_ntp_to_ns(r.sender_timestamp)
					: stamp_ts_to_ns(
						  r.sender_timestamp,
						  r.sender_error_estimate),
				g->sender_ts_ns, 1);
			assert_int_equal(r.sender_error_estimate, g->sender_ee);
			assert_int_equal(r.sender_ttl, g->sender_ttl);
		} else {
			struct stamp_sender s;

			assert_int_equal(
				stamp_sender_parse(g->bytes, g->len, &s), 0);
			check_golden_head(g, s.seq, s.timestamp,
					  s.error_estimate, s.ssid);
		}
	}
}

static void
test_sockperf_captured(void **state)
{
	uint8_t p[64];
	struct sockperf_hdr h;

	(void)state;
	assert_int_equal(sockperf_parse(sockperf_req, 64, &h), 0);
	assert_int_equal(h.seq, 1);
	assert_int_equal(h.flags, SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST);
	assert_int_equal(h.length, 64);
	memcpy(p, sockperf_req, sizeof(p));
	assert_int_equal(sockperf_reflect(p, sizeof(p)), 1);
	assert_memory_equal(p, sockperf_reply, sizeof(p));
	/* the server's reply is not a client message */
	assert_int_equal(sockperf_reflect(p, sizeof(p)), -EINVAL);
	assert_int_equal(sockperf_parse(sockperf_reply, 64, &h), 0);
	assert_int_equal(h.flags, SOCKPERF_F_PONG_REQUEST);
}

static void
test_sockperf_build_reflect(void **state)
{
	uint8_t p[32] = {0};
	uint8_t before[32];
	struct sockperf_hdr h = {
		.seq = 0x0102030405060708ULL, .flags = 0x0005, .length = 32};
	struct sockperf_hdr g;

	(void)state;
	assert_int_equal(sockperf_build(p, 13, &h), -EMSGSIZE);
	assert_int_equal(sockperf_build(p, sizeof(p), &h), SOCKPERF_HDR_LEN);
	assert_memory_equal(
		p,
		((const uint8_t[]){1, 2, 3, 4, 5, 6, 7, 8, 0, 5, 0, 0, 0, 32}),
		14);
	assert_int_equal(sockperf_parse(p, 32, &g), 0);
	assert_int_equal(g.seq, h.seq);
	assert_int_equal(g.flags, h.flags);
	assert_int_equal(g.length, h.length);
	/* warm-up (even with pong request) and no pong request: no answer,
	 * buffer untouched */
	memcpy(before, p, sizeof(p));
	assert_int_equal(sockperf_reflect(p, 32), 0);
	h.flags =
		SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST | SOCKPERF_F_WARMUP;
	sockperf_build(p, sizeof(p), &h);
	memcpy(before, p, sizeof(p));
	assert_int_equal(sockperf_reflect(p, 32), 0);
	assert_memory_equal(p, before, sizeof(p));
	/* length checks: header-only ok; below header, above len: not */
	h.flags = SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST;
	h.length = 14;
	sockperf_build(p, sizeof(p), &h);
	assert_int_equal(sockperf_parse(p, 32, &g), 0);
	assert_int_equal(sockperf_reflect(p, 32), 1);
	assert_int_equal(p[9], SOCKPERF_F_PONG_REQUEST);
	h.length = 13;
	sockperf_build(p, sizeof(p), &h);
	assert_int_equal(sockperf_parse(p, 32, &g), -EINVAL);
	h.length = 33;
	sockperf_build(p, sizeof(p), &h);
	assert_int_equal(sockperf_parse(p, 32, &g), -EINVAL);
	h.length = 0xffffffff;
	sockperf_build(p, sizeof(p), &h);
	assert_int_equal(sockperf_parse(p, 32, &g), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ee),
		cmocka_unit_test(test_ee_from_ns),
		cmocka_unit_test(test_ee_unknown),
		cmocka_unit_test(test_ntp_known),
		cmocka_unit_test(test_ntp_from_tsc),
		cmocka_unit_test(test_ptp_known),
		cmocka_unit_test(test_ts_round_trip),
		cmocka_unit_test(test_sender_layout),
		cmocka_unit_test(test_sender_build_tlvs),
		cmocka_unit_test(test_tlv_walk),
		cmocka_unit_test(test_reflect_44),
		cmocka_unit_test(test_reflect_tlvs),
		cmocka_unit_test(test_reflect_malformed),
		cmocka_unit_test(test_reflect_short),
		cmocka_unit_test(test_answer_parse),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_sockperf_captured),
		cmocka_unit_test(test_sockperf_build_reflect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
