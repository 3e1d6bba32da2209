/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/frag.h"

/* IPv4 header fields used here, RFC 791 §3.1 (offsets in the header). */
#define IP_TOTLEN_OFF 2
#define IP_FRAG_OFF   6
#define IP_CSUM_OFF   10
#define IPV4_RF	      0x8000 /* reserved flag: kept as found */
#define IPV4_DF	      0x4000
#define IPV4_MF	      0x2000
#define IPV4_OFF_MASK 0x1fff

#define IPV4_MIN_MTU	   68 /* RFC 791: every host must forward 68 bytes */
#define IPV4_MAX_HLEN	   60
#define L2_MAX_HLEN	   (CODEC_ETH_HLEN + CODEC_VLAN_HLEN)
#define REASM_HDR_ROOM	   (L2_MAX_HLEN + IPV4_MAX_HLEN)
/* 8-byte blocks (RFC 791 fragment offset unit) of the largest payload. */
#define REASM_BLOCKS	   8192
#define REASM_BITMAP_WORDS (REASM_BLOCKS / 64)

struct codec_reasm {
	bool active;
	bool have_first; /* the offset-0 fragment, whose headers we keep */
	bool have_last;	 /* the MF=0 fragment: total is known */
	uint8_t version; /* 4 or 6 */
	uint32_t src4, dst4;
	uint8_t src6[16], dst6[16];
	uint8_t proto;
	uint32_t id; /* IPv4: 16 bits */
	uint64_t started;
	uint32_t total;	  /* payload bytes, once have_last */
	uint32_t max_end; /* highest payload byte end seen + 1 */
	uint32_t blocks;  /* distinct 8-byte blocks received */
	uint16_t hdr_len; /* L2 + IPv4 header of the first fragment */
	uint16_t ip_hlen; /* its IHL * 4 */
	uint8_t hdr[REASM_HDR_ROOM];
	uint64_t bitmap[REASM_BITMAP_WORDS];
	/*
	 * Headers go right before the payload at completion, so the output
	 * frame is contiguous: payload at buf + REASM_HDR_ROOM.
	 */
	uint8_t buf[REASM_HDR_ROOM + CODEC_IPV4_MAX_DATAGRAM];
};

static inline uint16_t
ld16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void
st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
ipv4_csum_fix(uint8_t *ip, size_t hlen)
{
	uint16_t c = 0;

	memcpy(ip + IP_CSUM_OFF, &c, sizeof(c));
	c = codec_csum_fold(codec_csum_partial(ip, hlen, 0));
	memcpy(ip + IP_CSUM_OFF, &c, sizeof(c));
}

/* Data bytes per non-final fragment: a multiple of 8 (RFC 791 §2.3). */
static inline size_t
frag_data_size(uint16_t mtu)
{
	return (size_t)(mtu - CODEC_IPV4_HLEN) / 8 * 8;
}

/* A packet that fits the MTU: the frame itself, unchanged (IPv4's DF and
 * options kept), as the one "fragment" at offset 0. */
static int
frag_whole(const uint8_t *frame, const struct codec_frame *f, size_t off,
	   uint8_t *out, size_t cap)
{
	size_t len = (size_t)f->l3_off + f->ip_len;

	if (off != 0)
		return -EINVAL;
	if (cap < len)
		return -EMSGSIZE;
	memmove(out, frame, len);
	return (int)len;
}

int
codec_ipv4_fragment(const uint8_t *frame, const struct codec_frame *f,
		    uint16_t mtu, size_t *off, uint8_t *out, size_t cap)
{
	const uint8_t *ip;
	size_t plen, per, dlen, hlen;
	uint16_t frag;
	bool last;
	uint8_t *oip;

	if (frame == NULL || f == NULL || off == NULL || out == NULL)
		return -EINVAL;
	if (f->ip_version != 4 || f->is_fragment || mtu < IPV4_MIN_MTU)
		return -EINVAL;
	ip = frame + f->l3_off;
	if (f->ip_len <= mtu)
		return frag_whole(frame, f, *off, out, cap);
	if (f->l3_hlen != CODEC_IPV4_HLEN)
		return -EINVAL;
	plen = (size_t)f->ip_len - CODEC_IPV4_HLEN;
	if (*off % 8 != 0 || *off >= plen)
		return -EINVAL;
	per = frag_data_size(mtu);
	last = plen - *off <= per;
	dlen = last ? plen - *off : per;
	hlen = (size_t)f->l3_off + CODEC_IPV4_HLEN;
	if (cap < hlen + dlen)
		return -EMSGSIZE;
	memcpy(out, frame, hlen);
	memcpy(out + hlen, ip + CODEC_IPV4_HLEN + *off, dlen);
	oip = out + f->l3_off;
	st16(oip + IP_TOTLEN_OFF, (uint16_t)(CODEC_IPV4_HLEN + dlen));
	/* DF cleared: we are the source, allowed to fragment (RFC 791). */
	frag = (uint16_t)((ld16(ip + IP_FRAG_OFF) & IPV4_RF) | (*off / 8));
	if (!last)
		frag |= IPV4_MF;
	st16(oip + IP_FRAG_OFF, frag);
	ipv4_csum_fix(oip, CODEC_IPV4_HLEN);
	*off = last ? 0 : *off + dlen;
	return (int)(hlen + dlen);
}

#define IPV6_MIN_MTU 1280 /* RFC 8200 5 */
#define IP6_PLEN_OFF 4
#define IP6_NH_OFF   6

int
codec_ipv6_fragment(const uint8_t *frame, const struct codec_frame *f,
		    uint16_t mtu, uint32_t id, size_t *off, uint8_t *out,
		    size_t cap)
{
	size_t plen, per, dlen, hlen;
	uint8_t *fh;
	bool last;

	if (frame == NULL || f == NULL || off == NULL || out == NULL)
		return -EINVAL;
	if (f->ip_version != 6 || f->is_fragment || mtu < IPV6_MIN_MTU ||
	    f->l3_hlen != CODEC_IPV6_HLEN)
		return -EINVAL;
	if (f->ip_len <= mtu)
		return frag_whole(frame, f, *off, out, cap);
	plen = (size_t)f->ip_len - CODEC_IPV6_HLEN;
	if (*off % 8 != 0 || *off >= plen)
		return -EINVAL;
	per = (size_t)(mtu - CODEC_IPV6_HLEN - CODEC_IPV6_FRAG_HLEN) / 8 * 8;
	last = plen - *off <= per;
	dlen = last ? plen - *off : per;
	hlen = (size_t)f->l3_off + CODEC_IPV6_HLEN;
	if (cap < hlen + CODEC_IPV6_FRAG_HLEN + dlen)
		return -EMSGSIZE;
	memcpy(out, frame, hlen);
	st16(out + f->l3_off + IP6_PLEN_OFF,
	     (uint16_t)(CODEC_IPV6_FRAG_HLEN + dlen));
	out[f->l3_off + IP6_NH_OFF] = CODEC_IPPROTO_FRAGMENT;
	fh = out + hlen;
	fh[0] = f->ip_proto;
	fh[1] = 0;
	st16(fh + 2, (uint16_t)(*off | (last ? 0 : 1)));
	st16(fh + 4, (uint16_t)(id >> 16));
	st16(fh + 6, (uint16_t)id);
	memcpy(fh + CODEC_IPV6_FRAG_HLEN, frame + f->l4_off + *off, dlen);
	*off = last ? 0 : *off + dlen;
	return (int)(hlen + CODEC_IPV6_FRAG_HLEN + dlen);
}

unsigned
codec_ipv4_frag_count(const struct codec_frame *f, uint16_t mtu)
{
	size_t plen, per;

	if (f == NULL || f->ip_version != 4 || f->is_fragment ||
	    mtu < IPV4_MIN_MTU)
		return 0;
	if (f->ip_len <= mtu)
		return 1;
	if (f->l3_hlen != CODEC_IPV4_HLEN)
		return 0;
	plen = (size_t)f->ip_len - CODEC_IPV4_HLEN;
	per = frag_data_size(mtu);
	return (unsigned)((plen + per - 1) / per);
}

struct codec_reasm *
codec_reasm_create(void)
{
	struct codec_reasm *r = malloc(sizeof(*r));

	if (r == NULL)
		return NULL;
	/* The first reset clears the whole bitmap. */
	r->max_end = REASM_BLOCKS * 8;
	codec_reasm_reset(r);
	return r;
}

void
codec_reasm_destroy(struct codec_reasm *r)
{
	free(r);
}

void
codec_reasm_reset(struct codec_reasm *r)
{
	if (r == NULL)
		return;
	/* Only the words that can hold a bit: no block lies past max_end. */
	memset(r->bitmap, 0, ((size_t)r->max_end + 511) / 512 * 8);
	r->active = false;
	r->have_first = false;
	r->have_last = false;
	r->total = 0;
	r->max_end = 0;
	r->blocks = 0;
	r->hdr_len = 0;
	r->ip_hlen = 0;
}

bool
codec_reasm_active(const struct codec_reasm *r, uint64_t *started)
{
	if (r == NULL || !r->active)
		return false;
	if (started != NULL)
		*started = r->started;
	return true;
}

bool
codec_reasm_matches(const struct codec_reasm *r, const struct codec_frame *f)
{
	if (r == NULL || f == NULL || !r->active ||
	    f->ip_version != r->version || r->proto != f->ip_proto)
		return false;
	if (f->ip_version == 6)
		return r->id == f->frag_id &&
		       memcmp(r->src6, f->src6, 16) == 0 &&
		       memcmp(r->dst6, f->dst6, 16) == 0;
	return r->src4 == f->src4 && r->dst4 == f->dst4 && r->id == f->ip_id;
}

static inline bool
block_test(const struct codec_reasm *r, uint32_t b)
{
	return (r->bitmap[b / 64] >> (b % 64)) & 1;
}

/*
 * Bytes of [off, end) that land on blocks already received must equal what
 * is there (RFC 791 leaves overlaps open; a re-sent fragment is identical,
 * anything else is corruption or an attack, cf. RFC 5722 for IPv6). Every
 * received block holds its bytes up to min(block end, total), and the
 * caller has checked end against total, so comparing the new bytes is
 * enough.
 */
static bool
overlap_consistent(const struct codec_reasm *r, const uint8_t *data,
		   uint32_t off, uint32_t end)
{
	const uint8_t *have = r->buf + REASM_HDR_ROOM;
	uint32_t b, s, e;

	for (b = off / 8; b * 8 < end; b++) {
		if (!block_test(r, b))
			continue;
		s = b * 8;
		e = s + 8 < end ? s + 8 : end;
		if (memcmp(have + s, data + (s - off), e - s) != 0)
			return false;
	}
	return true;
}

static void
blocks_mark(struct codec_reasm *r, uint32_t off, uint32_t end)
{
	uint32_t b;
	uint64_t bit;

	for (b = off / 8; b * 8 < end; b++) {
		bit = (uint64_t)1 << (b % 64);
		if ((r->bitmap[b / 64] & bit) == 0) {
			r->bitmap[b / 64] |= bit;
			r->blocks++;
		}
	}
}

static void
reasm_start(struct codec_reasm *r, const struct codec_frame *f, uint64_t now)
{
	r->active = true;
	r->version = f->ip_version;
	r->src4 = f->src4;
	r->dst4 = f->dst4;
	memcpy(r->src6, f->src6, 16);
	memcpy(r->dst6, f->dst6, 16);
	r->proto = f->ip_proto;
	r->id = f->ip_version == 6 ? f->frag_id : f->ip_id;
	r->started = now;
}

/* Lays the kept headers before the payload; returns the frame start. */
static uint8_t *
reasm_finish(struct codec_reasm *r, size_t *len)
{
	uint8_t *out = r->buf + REASM_HDR_ROOM - r->hdr_len;
	uint8_t *ip = out + (r->hdr_len - r->ip_hlen);

	memcpy(out, r->hdr, r->hdr_len);
	if (r->version == 6) {
		st16(ip + IP6_PLEN_OFF, (uint16_t)r->total);
		ip[IP6_NH_OFF] = r->proto;
		*len = (size_t)r->hdr_len + r->total;
		r->active = false;
		return out;
	}
	st16(ip + IP_TOTLEN_OFF, (uint16_t)(r->ip_hlen + r->total));
	/* DF and the reserved bit as the first fragment had them. */
	st16(ip + IP_FRAG_OFF,
	     (uint16_t)(ld16(ip + IP_FRAG_OFF) & (IPV4_RF | IPV4_DF)));
	ipv4_csum_fix(ip, r->ip_hlen);
	*len = (size_t)r->hdr_len + r->total;
	/* Done: the next fragment starts a new datagram, without -ESTALE. */
	r->active = false;
	return out;
}

/* The IP header the reassembled datagram keeps: IPv4's with its options,
 * IPv6's 40 bytes (the Fragment header goes). */
static uint16_t
ip_hdr_len(const struct codec_frame *f)
{
	return f->ip_version == 6 ? CODEC_IPV6_HLEN : f->l3_hlen;
}

/* Header bytes counted in the 16-bit length field that bounds the data:
 * IPv4's total length counts its header, IPv6's payload length does not. */
static uint32_t
len_field_hdr(uint8_t version, uint16_t ip_hlen)
{
	return version == 6 ? 0 : ip_hlen;
}

static int
reasm_reject(struct codec_reasm *r)
{
	codec_reasm_reset(r);
	return -EINVAL;
}

int
codec_reasm_add(struct codec_reasm *r, const uint8_t *frame,
		const struct codec_frame *f, uint64_t now, uint8_t **out,
		size_t *out_len)
{
	uint32_t off, end, limit;
	const uint8_t *data;
	bool stale = false;

	if (r == NULL || frame == NULL || f == NULL || out == NULL ||
	    out_len == NULL)
		return -EINVAL;
	if ((f->ip_version != 4 && f->ip_version != 6) || !f->is_fragment)
		return -EINVAL;
	/* IPv6: only a Fragment header right after the IPv6 header. */
	if (f->ip_version == 6 &&
	    (f->frag_hdr_off != f->l3_off + CODEC_IPV6_HLEN ||
	     f->l3_hlen != CODEC_IPV6_HLEN + CODEC_IPV6_FRAG_HLEN))
		return reasm_reject(r);
	off = f->frag_off;
	end = off + f->l4_len;
	data = frame + f->l4_off;
	if (end > CODEC_IPV4_MAX_DATAGRAM -
			  len_field_hdr(f->ip_version, ip_hdr_len(f)))
		return reasm_reject(r);
	if (f->more_fragments && f->l4_len % 8 != 0)
		return reasm_reject(r);
	/* Only Ethernet [+802.1Q] headers, as codec_parse_frame() makes. */
	if ((size_t)f->l3_off + ip_hdr_len(f) > REASM_HDR_ROOM)
		return reasm_reject(r);

	if (r->active && !codec_reasm_matches(r, f)) {
		codec_reasm_reset(r);
		stale = true;
	} else if (!r->active) {
		/* After a completion, or a first use: clear leftovers. */
		if (r->max_end != 0)
			codec_reasm_reset(r);
	}
	if (!r->active)
		reasm_start(r, f, now);

	/* The first fragment's IHL bounds the datagram it heads. */
	limit = CODEC_IPV4_MAX_DATAGRAM -
		len_field_hdr(f->ip_version,
			      r->have_first ? r->ip_hlen : ip_hdr_len(f));
	if (end > limit)
		return reasm_reject(r);
	if (off == 0 && !r->have_first && r->max_end > limit)
		return reasm_reject(r);
	if (r->have_last && end > r->total)
		return reasm_reject(r); /* data after the last fragment */
	if (!f->more_fragments) {
		if (r->have_last && end != r->total)
			return reasm_reject(r); /* two different ends */
		if (r->max_end > end)
			return reasm_reject(r);
	}
	if (!overlap_consistent(r, data, off, end))
		return reasm_reject(r);

	memcpy(r->buf + REASM_HDR_ROOM + off, data, end - off);
	blocks_mark(r, off, end);
	if (end > r->max_end)
		r->max_end = end;
	if (!f->more_fragments && !r->have_last) {
		r->have_last = true;
		r->total = end;
	}
	if (off == 0 && !r->have_first) {
		r->have_first = true;
		r->ip_hlen = ip_hdr_len(f);
		r->hdr_len = (uint16_t)(f->l3_off + r->ip_hlen);
		memcpy(r->hdr, frame, r->hdr_len);
	}
	if (stale)
		return -ESTALE;
	if (r->have_first && r->have_last && r->blocks == (r->total + 7) / 8) {
		*out = reasm_finish(r, out_len);
		return 1;
	}
	return 0;
}
