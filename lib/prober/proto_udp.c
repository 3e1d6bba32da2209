/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Probe engines over UDP: STAMP (RFC 8762), sockperf ping-pong, and UDP
 * echo (RFC 862). Each is a payload builder and matcher, private to this
 * file; the generic udp_frame_* wrappers put Ethernet/IPv4/UDP around them
 * and check the answer's addressing (the kernel backend runs the same
 * frames through its synthetic-frame io table).
 */
#include <errno.h>
#include <string.h>

#include "latprobe/byteorder.h"
#include "latprobe/prober.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"

/* What a payload builder/matcher needs to know about the worker. */
struct probe_payload_ctx {
	unsigned size;		 /* payload bytes (-l) */
	uint16_t ssid;		 /* STAMP Session-Sender Identifier */
	uint64_t near_seq;	 /* for widening 32-bit wire sequence numbers */
	struct stamp_auth *auth; /* STAMP authenticated mode, else NULL */
	bool stall_tlv;		 /* --stall-tlv */
};

/*
 * Build the payload of probe seq (t1_unix_ns goes into it if the protocol
 * carries a send time); returns its length or -errno. Match: 1 when the
 * payload answers one of our probes (fills r), 0 when not, -EBADMSG when it
 * is an answer on our flow whose authentication failed (STAMP with a key).
 */
struct udp_payload_ops {
	int (*build)(const struct probe_payload_ctx *c, uint8_t *p, size_t cap,
		     uint64_t seq, uint64_t t1_unix_ns);
	int (*match)(const struct probe_payload_ctx *c, const uint8_t *p,
		     size_t len, struct probe_reply *r);
};

/* Is f a UDP answer to w's flow (addresses and ports the other way)? */
static bool
is_our_udp_answer(const struct prober_worker *w, const struct codec_frame *f)
{
	return f->ip_proto == CODEC_IPPROTO_UDP && !f->is_fragment &&
	       codec_frame_from_peer(f, &w->flow) &&
	       codec_frame_to_us(f, &w->flow) && f->sport == w->flow.dport &&
	       prober_flow_port_ok(w, f->dport);
}

static void
payload_ctx(const struct prober_worker *w, struct probe_payload_ctx *c)
{
	c->size = w->conf->size;
	c->ssid = (uint16_t)(w->index + 1);
	/* The newest sent, not the highest answered: after 2^31 unanswered
	 * probes every answer would widen against a stale number. */
	c->near_seq = w->step_seq;
	c->auth = w->auth;
	c->stall_tlv = w->conf->stall_tlv;
}

/* --stall-tlv: the answer's stall TLV into r. */
static void
peer_stall(const uint8_t *p, size_t len, struct probe_reply *r)
{
	int rc = stamp_lp_stalls_find(p, len, &r->peer_stall);

	r->has_peer_stall = 0;
	if (rc == 1)
		r->has_peer_stall = 1;
	else if (rc == -ENOTSUP)
		r->has_peer_stall = -1;
}

static int
udp_frame_build(const struct udp_payload_ops *ops, struct prober_worker *w,
		uint8_t *buf, size_t cap, uint64_t seq, uint64_t t1_unix_ns)
{
	size_t h = codec_udp_header_len(&w->flow);
	struct probe_payload_ctx c;
	int len;

	if (cap <= h)
		return -EMSGSIZE;
	payload_ctx(w, &c);
	len = ops->build(&c, buf + h, cap - h, seq, t1_unix_ns);
	if (len < 0)
		return len;
	return codec_build_udp(buf, cap, &w->flow, (uint16_t)seq, buf + h,
			       (size_t)len);
}

static int
udp_payload_match(const struct udp_payload_ops *ops, struct prober_worker *w,
		  const uint8_t *p, size_t len, struct probe_reply *r)
{
	struct probe_payload_ctx c;

	payload_ctx(w, &c);
	return ops->match(&c, p, len, r);
}

static int
udp_frame_match(const struct udp_payload_ops *ops, struct prober_worker *w,
		const uint8_t *buf, const struct codec_frame *f,
		struct probe_reply *r)
{
	struct probe_payload_ctx c;

	if (!is_our_udp_answer(w, f))
		return 0;
	payload_ctx(w, &c);
	return ops->match(&c, buf + f->payload_off, f->payload_len, r);
}

/*
 * An engine's probe_proto.build and .match: the generic wrappers above bound
 * to its NAME##_payload ops (static, so the compiler calls them directly).
 */
#define UDP_FRAME_OPS(NAME)                                                    \
	static int NAME##_frame_build(struct prober_worker *w, uint8_t *buf,   \
				      size_t cap, uint64_t seq,                \
				      uint64_t t1_unix_ns)                     \
	{                                                                      \
		return udp_frame_build(&NAME##_payload, w, buf, cap, seq,      \
				       t1_unix_ns);                            \
	}                                                                      \
	static int NAME##_frame_match(                                         \
		struct prober_worker *w, const uint8_t *buf,                   \
		const struct codec_frame *f, struct probe_reply *r)            \
	{                                                                      \
		return udp_frame_match(&NAME##_payload, w, buf, f, r);         \
	}

/* And .match_payload, for an engine without a fast matcher of its own. */
#define UDP_PAYLOAD_MATCH_OP(NAME)                                             \
	static int NAME##_match_payload(struct prober_worker *w,               \
					const uint8_t *p, size_t len,          \
					struct probe_reply *r)                 \
	{                                                                      \
		return udp_payload_match(&NAME##_payload, w, p, len, r);       \
	}

/* STAMP ------------------------------------------------------------------ */

/* Our clock is not synchronised to UTC: S=0, NTP format (Z=0), and an
 * estimate of 1 * 2^(12-32) s, about 1 us (RFC 4656 §4.1.2). */
#define PROBER_STAMP_EE ((uint16_t)(12u << 8 | 1u))

static int
stamp_payload_build(const struct probe_payload_ctx *c, uint8_t *p, size_t cap,
		    uint64_t seq, uint64_t t1_unix_ns)
{
	struct stamp_sender_opts o;

	memset(&o, 0, sizeof(o));
	o.seq = (uint32_t)seq;
	o.error_estimate = PROBER_STAMP_EE;
	o.timestamp = stamp_ts_from_ns(t1_unix_ns, o.error_estimate);
	o.ssid = c->ssid;
	o.len = c->size;
	/* No TLV in authenticated mode (its layout has none). */
	o.tlv_lp_stalls = c->stall_tlv && c->auth == NULL &&
			  c->size >= STAMP_BASE_LEN + STAMP_TLV_HDR_LEN +
					     STAMP_TLV_LP_STALLS_LEN;
	if (c->auth != NULL)
		return stamp_auth_sender_build(c->auth, p, cap, &o);
	return stamp_sender_build(p, cap, &o);
}

static int
stamp_payload_match(const struct probe_payload_ctx *c, const uint8_t *p,
		    size_t len, struct probe_reply *r)
{
	struct stamp_reflector s;
	struct stamp_answer a;

	/* With a key every answer on our flow must verify before any field
	 * of it is believed (RFC 8762 §4.4). */
	if (c->auth != NULL) {
		if (stamp_auth_verify(c->auth, p, len) != 0 ||
		    stamp_auth_reflector_parse(p, len, &s) != 0)
			return -EBADMSG;
		r->seq = codec_widen_seq32(s.sender_seq, c->near_seq);
		r->has_remote_ts = true;
		r->t2_ns = stamp_ts_to_ns(s.rx_timestamp, s.error_estimate);
		r->t3_ns = stamp_ts_to_ns(s.timestamp, s.error_estimate);
		r->has_ee = true;
		r->error_estimate = s.error_estimate;
		return 1;
	}
	/* Any reflector's answer that holds our sequence number, whatever
	 * its length and padding (TWAMP-Light, STAMP stateless/stateful). */
	if (stamp_answer_parse(p, len, &a) != 0)
		return 0;
	r->seq = codec_widen_seq32(a.sender_seq, c->near_seq);
	r->has_remote_ts = true;
	r->t2_ns = a.t2_ns;
	r->t3_ns = a.t3_ns;
	r->has_ee = true;
	r->error_estimate = a.error_estimate;
	if (c->stall_tlv)
		peer_stall(p, len, r);
	return 1;
}

/* Bytes of the UDP header in front of the payload, from l4. */
#define PL CODEC_UDP_HLEN

static int
stamp_patch(struct prober_worker *w, uint8_t *l4, uint64_t seq,
	    uint64_t t1_unix_ns, uint64_t *sum)
{
	uint32_t s32 = __builtin_bswap32((uint32_t)seq);
	/* PROBER_STAMP_EE: NTP format, stamp_ts_from_ns()'s. */
	uint64_t ts = __builtin_bswap64(stamp_ntp_from_ns(t1_unix_ns));

	if (w->auth != NULL)
		return -ENOTSUP; /* the HMAC covers the whole packet */
	/* stamp_payload_build()'s sequence number and timestamp. */
	memcpy(l4 + PL, &s32, sizeof(s32));
	memcpy(l4 + PL + 4, &ts, sizeof(ts));
	*sum = codec_csum_add(*sum, l4 + PL, 12);
	return 0;
}

static const struct udp_payload_ops stamp_payload = {
	.build = stamp_payload_build,
	.match = stamp_payload_match,
};

UDP_FRAME_OPS(stamp)

/*
 * stamp_payload_match() without the context (the fast path's): the answer
 * fields read straight off the payload (RFC 8762 §4.3.1 offsets, as
 * stamp_answer_parse() reads them); with a key, the generic matcher.
 */
static int
stamp_match_payload(struct prober_worker *w, const uint8_t *p, size_t len,
		    struct probe_reply *r)
{
	uint64_t t3, t2;
	uint32_t s32;
	uint16_t ee;

	if (w->auth != NULL)
		return udp_payload_match(&stamp_payload, w, p, len, r);
	if (len < STAMP_ANSWER_MIN_LEN)
		return 0;
	memcpy(&s32, p + 24, sizeof(s32));
	memcpy(&ee, p + 12, sizeof(ee));
	memcpy(&t3, p + 4, sizeof(t3));
	memcpy(&t2, p + 16, sizeof(t2));
	ee = __builtin_bswap16(ee);
	r->seq = codec_widen_seq32(__builtin_bswap32(s32), w->step_seq);
	r->has_remote_ts = true;
	r->t3_ns = stamp_ts_to_ns(__builtin_bswap64(t3), ee);
	r->t2_ns = stamp_ts_to_ns(__builtin_bswap64(t2), ee);
	r->has_ee = true;
	r->error_estimate = ee;
	if (w->conf->stall_tlv)
		peer_stall(p, len, r);
	return 1;
}

const struct probe_proto probe_proto_stamp = {
	.name = "stamp",
	.default_port = STAMP_PORT,
	.has_remote_ts = true,
	.udp = true,
	.min_size = STAMP_BASE_LEN,
	.build = stamp_frame_build,
	.match = stamp_frame_match,
	.patch = stamp_patch,
	.match_payload = stamp_match_payload,
};

/* sockperf ---------------------------------------------------------------- */

static int
sockperf_payload_build(const struct probe_payload_ctx *c, uint8_t *p,
		       size_t cap, uint64_t seq, uint64_t t1_unix_ns)
{
	struct sockperf_hdr sh = {
		.seq = seq,
		.flags = SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST,
		.length = (uint32_t)c->size,
	};
	int ret;

	if (c->size > cap)
		return -EMSGSIZE;
	memset(p, 0, c->size);
	ret = sockperf_build(p, c->size, &sh);
	return ret < 0 ? ret : (int)c->size;
}

static int
sockperf_payload_match(const struct probe_payload_ctx *c, const uint8_t *p,
		       size_t len, struct probe_reply *r)
{
	struct sockperf_hdr sh;

	if (sockperf_parse(p, len, &sh) != 0)
		return 0;
	if (sh.flags & SOCKPERF_F_CLIENT)
		return 0; /* a request (ours looped back), not an answer */
	r->seq = sh.seq;
	return 1;
}

/* sockperf and UDP echo: the 64-bit sequence number opens the payload. */
static int
seq64_patch(struct prober_worker *w, uint8_t *l4, uint64_t seq,
	    uint64_t t1_unix_ns, uint64_t *sum)
{
	uint64_t s64 = __builtin_bswap64(seq);

	memcpy(l4 + PL, &s64, sizeof(s64));
	*sum = codec_csum_add(*sum, l4 + PL, 8);
	return 0;
}

static const struct udp_payload_ops sockperf_payload = {
	.build = sockperf_payload_build,
	.match = sockperf_payload_match,
};

UDP_FRAME_OPS(sockperf)
UDP_PAYLOAD_MATCH_OP(sockperf)

const struct probe_proto probe_proto_sockperf = {
	.name = "sockperf",
	.default_port = SOCKPERF_PORT,
	.udp = true,
	.min_size = SOCKPERF_HDR_LEN,
	.build = sockperf_frame_build,
	.match = sockperf_frame_match,
	.patch = seq64_patch,
	.match_payload = sockperf_match_payload,
};

/* UDP echo: the payload starts with our 64-bit sequence number. ------------ */

#define ECHO_PORT 7
#define ECHO_MIN  8

static int
echo_payload_build(const struct probe_payload_ctx *c, uint8_t *p, size_t cap,
		   uint64_t seq, uint64_t t1_unix_ns)
{
	if (c->size > cap || c->size < ECHO_MIN)
		return -EMSGSIZE;
	memset(p, 0, c->size);
	util_put_be64(p, seq);
	return (int)c->size;
}

static int
echo_payload_match(const struct probe_payload_ctx *c, const uint8_t *p,
		   size_t len, struct probe_reply *r)
{
	if (len < ECHO_MIN)
		return 0;
	r->seq = util_get_be64(p);
	return 1;
}

static const struct udp_payload_ops echo_payload = {
	.build = echo_payload_build,
	.match = echo_payload_match,
};

UDP_FRAME_OPS(echo)
UDP_PAYLOAD_MATCH_OP(echo)

const struct probe_proto probe_proto_udp_echo = {
	.name = "udp-echo",
	.default_port = ECHO_PORT,
	.udp = true,
	.min_size = ECHO_MIN,
	.build = echo_frame_build,
	.match = echo_frame_match,
	.patch = seq64_patch,
	.match_payload = echo_match_payload,
};

/* ICMP echo: id per worker, payload starts with the 64-bit sequence. ----- */

static int
icmp_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	   uint64_t t1_unix_ns)
{
	size_t plen = w->conf->size;
	size_t h = codec_udp_header_len(&w->flow) - CODEC_UDP_HLEN +
		   CODEC_ICMP_HLEN;

	if (plen < ECHO_MIN || cap < h || plen > cap - h)
		return -EMSGSIZE;
	/* The payload is built in place after the ICMP header. */
	memset(buf + h, 0, plen);
	util_put_be64(buf + h, seq);
	return codec_build_icmp_echo(buf, cap, &w->flow,
				     w->flow.ip_version == 6
					     ? CODEC_ICMP6_ECHO_REQUEST
					     : CODEC_ICMP_ECHO_REQUEST,
				     (uint16_t)(w->conf->icmp_id + w->index),
				     (uint16_t)seq, buf + h, plen);
}

static int
icmp_match(struct prober_worker *w, const uint8_t *buf,
	   const struct codec_frame *f, struct probe_reply *r)
{
	bool v6 = w->flow.ip_version == 6;

	if (f->ip_proto != (v6 ? CODEC_IPPROTO_ICMPV6 : CODEC_IPPROTO_ICMP) ||
	    f->is_fragment || !codec_frame_from_peer(f, &w->flow) ||
	    !codec_frame_to_us(f, &w->flow) ||
	    f->icmp_type !=
		    (v6 ? CODEC_ICMP6_ECHO_REPLY : CODEC_ICMP_ECHO_REPLY) ||
	    f->icmp_id != (uint16_t)(w->conf->icmp_id + w->index) ||
	    f->payload_len < ECHO_MIN)
		return 0;
	r->seq = util_get_be64(buf + f->payload_off);
	return 1;
}

/* The echo header's sequence number and the payload's 64-bit one, 10
 * bytes from offset 6 of the ICMP header. */
static int
icmp_patch(struct prober_worker *w, uint8_t *l4, uint64_t seq,
	   uint64_t t1_unix_ns, uint64_t *sum)
{
	uint16_t s16 = __builtin_bswap16((uint16_t)seq);
	uint64_t s64 = __builtin_bswap64(seq);

	memcpy(l4 + 6, &s16, sizeof(s16));
	memcpy(l4 + CODEC_ICMP_HLEN, &s64, sizeof(s64));
	*sum = codec_csum_add(*sum, l4 + 6, 10);
	return 0;
}

const struct probe_proto probe_proto_icmp = {
	.name = "icmp",
	.default_port = 0,
	.min_size = ECHO_MIN,
	.build = icmp_build,
	.match = icmp_match,
	.patch = icmp_patch,
};
