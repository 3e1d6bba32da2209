/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAMP test packets, RFC 8762 §4.2 (unauthenticated) with the RFC 8972
 * extensions. Everything is big-endian on the wire and read byte by byte, so
 * no alignment is assumed for p.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latprobe/byteorder.h"
#include "latprobe/stamp.h"

#define NS_PER_S 1000000000ULL

/* Session-Reflector field offsets, RFC 8762 §4.3.1 */
#define R_SEQ	     0
#define R_TS	     4
#define R_EE	     12
#define R_SSID	     14
#define R_RX_TS	     16
#define R_SENDER_SEQ 24
#define R_SENDER_TS  28
#define R_SENDER_EE  36
#define R_SENDER_TTL 40

/*
 * The first STAMP_BASE_LEN bytes of p with the bytes beyond len read as
 * zero: TWAMP-Light senders may send less than the STAMP base packet.
 */
static void
load_base(uint8_t base[STAMP_BASE_LEN], const uint8_t *p, size_t len)
{
	size_t n = len < STAMP_BASE_LEN ? len : STAMP_BASE_LEN;

	memset(base, 0, STAMP_BASE_LEN);
	memcpy(base, p, n);
}

uint16_t
stamp_ee_encode(const struct stamp_error_estimate *ee)
{
	uint16_t v = (uint16_t)((ee->scale & 0x3f) << 8 | ee->multiplier);

	if (ee->sync)
		v |= STAMP_EE_S;
	if (ee->ptp)
		v |= STAMP_EE_Z;
	return v;
}

void
stamp_ee_decode(uint16_t v, struct stamp_error_estimate *ee)
{
	ee->sync = (v & STAMP_EE_S) != 0;
	ee->ptp = (v & STAMP_EE_Z) != 0;
	ee->scale = (uint8_t)((v >> 8) & 0x3f);
	ee->multiplier = (uint8_t)v;
}

double
stamp_ee_to_ns(const struct stamp_error_estimate *ee)
{
	/* RFC 4656 §4.1.2: Multiplier * 2^(-32) * 2^Scale seconds */
	return ldexp((double)ee->multiplier, (int)ee->scale - 32) * 1e9;
}

void
stamp_ee_from_ns(double ns, bool sync, bool ptp,
		 struct stamp_error_estimate *ee)
{
	ee->sync = sync;
	ee->ptp = ptp;
	ee->scale = 0;
	ee->multiplier = 1;
	if (!(ns > 0)) /* also NaN */
		return;
	for (unsigned scale = 0; scale < 64; scale++) {
		/* ns in units of 2^(scale - 32) s, rounded up */
		double m = ceil(ldexp(ns / 1e9, 32 - (int)scale));

		if (m <= 255) {
			ee->scale = (uint8_t)scale;
			ee->multiplier = (uint8_t)(m < 1 ? 1 : m);
			return;
		}
	}
	ee->scale = 63; /* beyond 255 x 2^31 s: the largest there is */
	ee->multiplier = 255;
}

void
stamp_ee_unknown(bool sync, bool ptp, struct stamp_error_estimate *ee)
{
	ee->sync = sync;
	ee->ptp = ptp;
	ee->scale = 63;
	ee->multiplier = 255;
}

bool
stamp_ee_is_unknown(const struct stamp_error_estimate *ee)
{
	return stamp_ee_to_ns(ee) >= 0x1p64;
}

int
stamp_ntp_clock_init(struct stamp_ntp_clock *k, uint64_t tsc0,
		     uint64_t unix_ns0, uint64_t hz)
{
	unsigned lg = 63u - (unsigned)__builtin_clzll(hz | 1);

	if (hz < 1000000 || hz >= (1ull << 33))
		return -EINVAL;
	/* 2^(96 - pre) / hz = 2^(63 + lg) / hz, rounded, with 2^lg <= hz <
	 * 2^(lg + 1): in [2^62, 2^63]. */
	k->pre = 33 - lg;
	k->mult = (uint64_t)((((stamp_u128)1 << (96 - k->pre)) + hz / 2) / hz);
	k->tsc0 = tsc0;
	k->ntp0 = stamp_ntp_from_ns(unix_ns0);
	return 0;
}

uint64_t
stamp_ptp_from_ns(uint64_t unix_ns)
{
	return (unix_ns / NS_PER_S & 0xffffffffULL) << 32 | unix_ns % NS_PER_S;
}

uint64_t
stamp_ptp_to_ns(uint64_t ptp)
{
	return (ptp >> 32) * NS_PER_S + (ptp & 0xffffffffULL);
}

uint64_t
stamp_ts_from_ns(uint64_t unix_ns, uint16_t error_estimate)
{
	if (error_estimate & STAMP_EE_Z)
		return stamp_ptp_from_ns(unix_ns);
	return stamp_ntp_from_ns(unix_ns);
}

int
stamp_tlv_next(const uint8_t *p, size_t len, size_t *off, struct stamp_tlv *tlv)
{
	size_t o = *off;
	uint16_t vlen;

	if (o >= len)
		return 0;
	if (len - o < STAMP_TLV_HDR_LEN)
		return -EINVAL;
	vlen = util_get_be16(p + o + 2);
	if (len - o - STAMP_TLV_HDR_LEN < vlen)
		return -EINVAL;
	tlv->flags = p[o];
	tlv->type = p[o + 1];
	tlv->length = vlen;
	tlv->value = p + o + STAMP_TLV_HDR_LEN;
	*off = o + STAMP_TLV_HDR_LEN + vlen;
	return 1;
}

/*
 * What a sender and a reflector packet both start with (RFC 8762 §4.2.1,
 * §4.3.1; the SSID of RFC 8972 §3), at the same offsets in both, read from
 * p's base loaded into b (load_base()). Returns how many bytes of the base p
 * holds (where its TLVs start), or -EINVAL for less than a sequence number.
 */
/* Inlined: the reflector parses every unauthenticated request with it. */
static inline __attribute__((always_inline)) int
load_head(uint8_t b[STAMP_BASE_LEN], const uint8_t *p, size_t len,
	  uint32_t *seq, uint64_t *ts, uint16_t *ee, uint16_t *ssid)
{
	if (len < 4)
		return -EINVAL;
	load_base(b, p, len);
	*seq = util_get_be32(b + R_SEQ);
	*ts = util_get_be64(b + R_TS);
	*ee = util_get_be16(b + R_EE);
	*ssid = util_get_be16(b + R_SSID);
	return len > STAMP_BASE_LEN ? STAMP_BASE_LEN : (int)len;
}

/*
 * An RFC 8762 Session-Sender packet has its base length and bytes 16-43
 * MBZ; an RFC 5357 TWAMP-Light sender pads from byte 14 on, and RFC 4656
 * §4.1.2 (which RFC 5357 follows) asks for pseudo-random padding. More
 * than half of those 28 bytes non-zero is taken for such padding (random
 * bytes are zero 1 time in 256); a STAMP sender that leaves a few MBZ
 * bytes dirty is still STAMP (RFC 8762: MBZ is ignored on receipt).
 */
static bool
stamp_shaped(const uint8_t *p, size_t len)
{
	unsigned dirty = 0;

	if (len < STAMP_BASE_LEN)
		return false;
	for (size_t i = 16; i < STAMP_BASE_LEN; i++)
		dirty += p[i] != 0;
	return dirty <= (STAMP_BASE_LEN - 16) / 2;
}

int
stamp_sender_parse(const uint8_t *p, size_t len, struct stamp_sender *s)
{
	uint8_t b[STAMP_BASE_LEN];
	int base = load_head(b, p, len, &s->seq, &s->timestamp,
			     &s->error_estimate, &s->ssid);

	if (base < 0)
		return base;
	s->len = len;
	s->tlv_off = (size_t)base;
	s->stamp = stamp_shaped(p, len);
	return 0;
}

static size_t
put_tlv_hdr(uint8_t *p, uint8_t type, uint16_t vlen)
{
	p[0] = 0;
	p[1] = type;
	util_put_be16(p + 2, vlen);
	return STAMP_TLV_HDR_LEN;
}

int
stamp_sender_build(uint8_t *p, size_t cap, const struct stamp_sender_opts *o)
{
	size_t need = STAMP_BASE_LEN;
	size_t off = STAMP_BASE_LEN;
	size_t rest;

	if (o->tlv_timestamp_info)
		need += STAMP_TLV_HDR_LEN + STAMP_TLV_TIMESTAMP_INFO_LEN;
	if (o->tlv_class_of_service)
		need += STAMP_TLV_HDR_LEN + STAMP_TLV_CLASS_OF_SERVICE_LEN;
	if (o->tlv_lp_stalls)
		need += STAMP_TLV_HDR_LEN + STAMP_TLV_LP_STALLS_LEN;
	/* The int return value caps the length; UDP caps it lower anyway. */
	if (o->len < need || o->len > 65535)
		return -EINVAL;
	if (cap < o->len)
		return -EMSGSIZE;

	/* RFC 8762 §4.2.1: MBZ, and RFC 8972 TLV values the reflector fills */
	memset(p, 0, o->len);
	util_put_be32(p, o->seq);
	util_put_be64(p + 4, o->timestamp);
	util_put_be16(p + 12, o->error_estimate);
	util_put_be16(p + 14, o->ssid);

	if (o->tlv_timestamp_info) {
		off += put_tlv_hdr(p + off, STAMP_TLV_TIMESTAMP_INFO,
				   STAMP_TLV_TIMESTAMP_INFO_LEN);
		off += STAMP_TLV_TIMESTAMP_INFO_LEN;
	}
	if (o->tlv_class_of_service) {
		off += put_tlv_hdr(p + off, STAMP_TLV_CLASS_OF_SERVICE,
				   STAMP_TLV_CLASS_OF_SERVICE_LEN);
		/* RFC 8972 §4.4: DSCP1 in the 6 high bits, the rest zero */
		p[off] = (uint8_t)(o->cos_dscp << 2);
		off += STAMP_TLV_CLASS_OF_SERVICE_LEN;
	}
	if (o->tlv_lp_stalls) {
		/* Value zero: the reflector fills it in. */
		off += put_tlv_hdr(p + off, STAMP_TLV_LP_STALLS,
				   STAMP_TLV_LP_STALLS_LEN);
		off += STAMP_TLV_LP_STALLS_LEN;
	}
	rest = o->len - off;
	/* RFC 8972 §4.1: Extra Padding makes up the symmetric size; 1-3 bytes
	 * cannot hold a TLV header and stay plain zero padding. */
	if (rest >= STAMP_TLV_HDR_LEN)
		put_tlv_hdr(p + off, STAMP_TLV_EXTRA_PADDING,
			    (uint16_t)(rest - STAMP_TLV_HDR_LEN));
	return (int)o->len;
}

void
stamp_sender_stamp(uint8_t *p, uint32_t seq, uint64_t timestamp)
{
	util_put_be32(p, seq);
	util_put_be64(p + 4, timestamp);
}

int
stamp_sender_cos_dscp(const uint8_t *p, size_t len)
{
	struct stamp_tlv t;
	size_t off = STAMP_BASE_LEN;

	while (stamp_tlv_next(p, len, &off, &t) == 1) {
		if (t.type == STAMP_TLV_CLASS_OF_SERVICE &&
		    t.length == STAMP_TLV_CLASS_OF_SERVICE_LEN)
			return t.value[0] >> 2;
	}
	return -ENOENT;
}

int
stamp_reflector_parse(const uint8_t *p, size_t len, struct stamp_reflector *r)
{
	uint8_t b[STAMP_BASE_LEN];
	int base = load_head(b, p, len, &r->seq, &r->timestamp,
			     &r->error_estimate, &r->ssid);

	if (base < 0)
		return base;
	r->rx_timestamp = util_get_be64(b + R_RX_TS);
	r->sender_seq = util_get_be32(b + R_SENDER_SEQ);
	r->sender_timestamp = util_get_be64(b + R_SENDER_TS);
	r->sender_error_estimate = util_get_be16(b + R_SENDER_EE);
	r->sender_ttl = b[R_SENDER_TTL];
	r->len = len;
	r->tlv_off = (size_t)base;
	return 0;
}

int
stamp_answer_parse(const uint8_t *p, size_t len, struct stamp_answer *a)
{
	if (len < STAMP_ANSWER_MIN_LEN)
		return -EINVAL;
	a->seq = util_get_be32(p + R_SEQ);
	a->sender_seq = util_get_be32(p + R_SENDER_SEQ);
	a->error_estimate = util_get_be16(p + R_EE);
	/* RFC 4656 §4.1.2 (RFC 8186 for PTP): the one Error Estimate of the
	 * answer goes with both of its timestamps. */
	a->t3_ns = stamp_ts_to_ns(util_get_be64(p + R_TS), a->error_estimate);
	a->t2_ns =
		stamp_ts_to_ns(util_get_be64(p + R_RX_TS), a->error_estimate);
	return 0;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/*
 * RFC 8972 §4: answer each TLV in place. A TLV that runs past the packet or
 * whose length is wrong for its type is malformed: flag it M and leave it and
 * everything after it as received. Bytes too few for a TLV header are left
 * alone (nothing to flag).
 */
static void
reflect_tlvs(uint8_t *p, size_t len, const struct stamp_reflect_opts *o)
{
	size_t off = STAMP_BASE_LEN;

	/* RFC 5357/6038 TWAMP-Light padding is zeros, not TLVs: keep it. */
	if (all_zero(p + off, len - off))
		return;
	while (off < len) {
		struct stamp_tlv t;
		uint8_t *v;
		size_t at = off;

		if (len - at < STAMP_TLV_HDR_LEN)
			return;
		if (stamp_tlv_next(p, len, &off, &t) != 1) {
			p[at] |= STAMP_TLV_M;
			return;
		}
		v = p + at + STAMP_TLV_HDR_LEN;
		switch (t.type) {
		case STAMP_TLV_EXTRA_PADDING:
			break;
		case STAMP_TLV_TIMESTAMP_INFO:
			if (t.length != STAMP_TLV_TIMESTAMP_INFO_LEN) {
				p[at] |= STAMP_TLV_M;
				return;
			}
			/* One clock and method stamp both T2 (in) and T3
			 * (out) here. */
			v[0] = o->sync_src;
			v[1] = o->ts_method;
			v[2] = o->sync_src;
			v[3] = o->ts_method;
			break;
		case STAMP_TLV_CLASS_OF_SERVICE:
			if (t.length != STAMP_TLV_CLASS_OF_SERVICE_LEN) {
				p[at] |= STAMP_TLV_M;
				return;
			}
			/* DSCP1(6) DSCP2(6) ECN(2) RP(2) Reserved(16): keep
			 * DSCP1, report the received DSCP and ECN. */
			v[0] = (uint8_t)((v[0] & 0xfc) | (o->rx_tos >> 6));
			v[1] = (uint8_t)(((o->rx_tos >> 2) & 0x0f) << 4 |
					 (o->rx_tos & 0x03) << 2 |
					 (o->cos_rp & 0x03));
			v[2] = 0;
			v[3] = 0;
			break;
		case STAMP_TLV_LP_STALLS:
			if (!o->lp_stalls) {
				p[at] |= STAMP_TLV_U;
				continue;
			}
			if (t.length != STAMP_TLV_LP_STALLS_LEN) {
				p[at] |= STAMP_TLV_M;
				return;
			}
			v[0] = o->stall_flags;
			v[1] = STAMP_LP_STALLS_FILLED;
			v[2] = (uint8_t)(o->stall_worker >> 8);
			v[3] = (uint8_t)o->stall_worker;
			util_put_be32(v + 4, o->stall_ns);
			util_put_be32(v + 8, o->stall_count);
			util_put_be32(v + 12, o->stall_total_us);
			break;
		default:
			/* Location needs the IP/UDP headers: not answered. */
			p[at] |= STAMP_TLV_U;
			continue;
		}
		p[at] &= (uint8_t) ~(STAMP_TLV_U | STAMP_TLV_M);
	}
}

int
stamp_reflect(uint8_t *p, size_t len, const struct stamp_reflect_opts *o)
{
	uint8_t in[STAMP_BASE_LEN];
	uint8_t out[STAMP_BASE_LEN];
	bool tlvs;

	if (len < 4)
		return -EINVAL;
	if (len > 65535)
		return -EINVAL;
	/* TWAMP-Light padding is not TLVs: answered as it came. */
	tlvs = stamp_shaped(p, len);
	/* Read every sender field before the first write: they overlap. */
	load_base(in, p, len);
	memset(out, 0, sizeof(out));
	util_put_be32(out + R_SEQ, o->seq);
	/* T3 placeholder until stamp_reflector_stamp(): T2, never T1. */
	util_put_be64(out + R_TS, o->rx_timestamp);
	util_put_be16(out + R_EE, o->error_estimate);
	/* RFC 8972 §3 SSID; in a TWAMP-Light request bytes 14-15 are
	 * padding and the RFC 5357 §4.2.1 answer has MBZ there. */
	if (tlvs)
		memcpy(out + R_SSID, in + 14, 2);
	util_put_be64(out + R_RX_TS, o->rx_timestamp);
	memcpy(out + R_SENDER_SEQ, in, 4);
	memcpy(out + R_SENDER_TS, in + 4, 8);
	memcpy(out + R_SENDER_EE, in + 12, 2);
	out[R_SENDER_TTL] = o->sender_ttl;
	/* Same length as the request (RFC 8762 §4.3): a short TWAMP-Light
	 * packet gets the fields that fit, cut at len. */
	memcpy(p, out, len < STAMP_BASE_LEN ? len : STAMP_BASE_LEN);
	if (len > STAMP_BASE_LEN && tlvs)
		reflect_tlvs(p, len, o);
	return (int)len;
}

void
stamp_reflector_stamp(uint8_t *p, size_t len, uint64_t tx_timestamp)
{
	if (len >= R_TS + 8)
		util_put_be64(p + R_TS, tx_timestamp);
}

int
stamp_lp_stalls_find(const uint8_t *p, size_t len, struct stamp_lp_stalls *out)
{
	size_t off = STAMP_BASE_LEN;
	struct stamp_tlv t;
	int r;

	while ((r = stamp_tlv_next(p, len, &off, &t)) == 1) {
		if (t.type != STAMP_TLV_LP_STALLS)
			continue;
		if ((t.flags & (STAMP_TLV_U | STAMP_TLV_M)) != 0 ||
		    t.length != STAMP_TLV_LP_STALLS_LEN ||
		    t.value[1] != STAMP_LP_STALLS_FILLED)
			return -ENOTSUP;
		out->flags = t.value[0];
		out->worker = (uint16_t)(t.value[2] << 8 | t.value[3]);
		out->stall_ns = util_get_be32(t.value + 4);
		out->stall_count = util_get_be32(t.value + 8);
		out->stall_total_us = util_get_be32(t.value + 12);
		return 1;
	}
	return r;
}
