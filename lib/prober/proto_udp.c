/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Probe engines over UDP: STAMP (RFC 8762), sockperf ping-pong, and UDP
 * echo (RFC 862). Each builds a whole frame with codec_build_udp() around
 * its payload and recognises its answers.
 */
#include <errno.h>
#include <string.h>

#include "prober.h"
#include "sockperf.h"
#include "stamp.h"

/* Is f a UDP answer to w's flow (addresses and ports the other way)? */
static bool
is_our_udp_answer(const struct prober_worker *w, const struct codec_frame *f)
{
	return f->ip_version == 4 && f->ip_proto == CODEC_IPPROTO_UDP &&
	       !f->is_fragment && f->src4 == w->flow.dst4 &&
	       f->dst4 == w->flow.src4 && f->sport == w->flow.dport &&
	       f->dport == w->flow.sport;
}

static int
build_udp(struct prober_worker *w, uint8_t *buf, size_t cap, size_t plen,
	  uint64_t seq)
{
	return codec_build_udp(buf, cap, &w->flow, (uint16_t)seq,
			       buf + codec_udp_header_len(&w->flow), plen);
}

static size_t
payload_room(const struct prober_worker *w, size_t cap)
{
	size_t h = codec_udp_header_len(&w->flow);

	return cap > h ? cap - h : 0;
}

/* A 32-bit sequence number on the wire back to our 64-bit counter. */
static uint64_t
widen_seq32(uint32_t s, uint64_t near)
{
	uint64_t v = (near & ~0xffffffffull) | s;

	if (v > near + 0x80000000ull && v >= 0x100000000ull)
		v -= 0x100000000ull;
	return v;
}

/* STAMP ------------------------------------------------------------------ */

/* The reflector's clock is not ours: NTP format, error estimate "unsynced". */
#define PROBER_STAMP_EE 0x0001 /* S=0 Z=0 scale 0 multiplier 1 */

static int
stamp_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	    uint64_t t1_unix_ns)
{
	size_t h = codec_udp_header_len(&w->flow);
	struct stamp_sender_opts o;
	int len;

	memset(&o, 0, sizeof(o));
	o.seq = (uint32_t)seq;
	o.error_estimate = PROBER_STAMP_EE;
	o.timestamp = stamp_ts_from_ns(t1_unix_ns, o.error_estimate);
	o.ssid = (uint16_t)(w->index + 1);
	o.len = w->conf->size;
	len = stamp_sender_build(buf + h, payload_room(w, cap), &o);
	if (len < 0)
		return len;
	return build_udp(w, buf, cap, (size_t)len, seq);
}

static int
stamp_match(struct prober_worker *w, const uint8_t *buf,
	    const struct codec_frame *f, struct probe_reply *r)
{
	struct stamp_reflector s;

	if (!is_our_udp_answer(w, f))
		return 0;
	if (f->payload_len < STAMP_BASE_LEN ||
	    stamp_reflector_parse(buf + f->payload_off, f->payload_len, &s) != 0)
		return 0;
	r->seq = widen_seq32(s.sender_seq, w->max_seq_seen + 1);
	r->has_remote_ts = true;
	r->t2_ns = stamp_ts_to_ns(s.rx_timestamp, s.error_estimate);
	r->t3_ns = stamp_ts_to_ns(s.timestamp, s.error_estimate);
	return 1;
}

const struct probe_proto probe_proto_stamp = {
	.name = "stamp",
	.default_port = STAMP_PORT,
	.has_remote_ts = true,
	.min_size = STAMP_BASE_LEN,
	.build = stamp_build,
	.match = stamp_match,
};

/* sockperf ---------------------------------------------------------------- */

static int
sockperf_probe_build(struct prober_worker *w, uint8_t *buf, size_t cap,
		     uint64_t seq, uint64_t t1_unix_ns)
{
	size_t h = codec_udp_header_len(&w->flow);
	size_t plen = w->conf->size;
	struct sockperf_hdr sh = {
		.seq = seq,
		.flags = SOCKPERF_F_CLIENT | SOCKPERF_F_PONG_REQUEST,
		.length = (uint32_t)plen,
	};
	int ret;

	if (plen > payload_room(w, cap))
		return -EMSGSIZE;
	memset(buf + h, 0, plen);
	ret = sockperf_build(buf + h, plen, &sh);
	if (ret < 0)
		return ret;
	return build_udp(w, buf, cap, plen, seq);
}

static int
sockperf_probe_match(struct prober_worker *w, const uint8_t *buf,
		     const struct codec_frame *f, struct probe_reply *r)
{
	struct sockperf_hdr sh;

	if (!is_our_udp_answer(w, f))
		return 0;
	if (sockperf_parse(buf + f->payload_off, f->payload_len, &sh) != 0)
		return 0;
	if (sh.flags & SOCKPERF_F_CLIENT)
		return 0; /* our own request looped back, not an answer */
	r->seq = sh.seq;
	return 1;
}

const struct probe_proto probe_proto_sockperf = {
	.name = "sockperf",
	.default_port = SOCKPERF_PORT,
	.min_size = SOCKPERF_HDR_LEN,
	.build = sockperf_probe_build,
	.match = sockperf_probe_match,
};

/* UDP echo: the payload starts with our 64-bit sequence number. ------------ */

#define ECHO_PORT 7
#define ECHO_MIN 8

static void
put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t
get_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static int
echo_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	   uint64_t t1_unix_ns)
{
	size_t h = codec_udp_header_len(&w->flow);
	size_t plen = w->conf->size;

	if (plen > payload_room(w, cap))
		return -EMSGSIZE;
	memset(buf + h, 0, plen);
	put_be64(buf + h, seq);
	return build_udp(w, buf, cap, plen, seq);
}

static int
echo_match(struct prober_worker *w, const uint8_t *buf,
	   const struct codec_frame *f, struct probe_reply *r)
{
	if (!is_our_udp_answer(w, f) || f->payload_len < ECHO_MIN)
		return 0;
	r->seq = get_be64(buf + f->payload_off);
	return 1;
}

const struct probe_proto probe_proto_udp_echo = {
	.name = "udp-echo",
	.default_port = ECHO_PORT,
	.min_size = ECHO_MIN,
	.build = echo_build,
	.match = echo_match,
};

/* ICMP echo: id per worker, payload starts with the 64-bit sequence. ----- */

static int
icmp_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	   uint64_t t1_unix_ns)
{
	uint8_t payload[ECHO_MIN];
	size_t plen = w->conf->size;
	size_t h = codec_udp_header_len(&w->flow) - CODEC_UDP_HLEN +
		   CODEC_ICMP_HLEN;

	if (plen > (cap > h ? cap - h : 0))
		return -EMSGSIZE;
	/* The payload is built in place after the ICMP header. */
	memset(buf + h, 0, plen);
	put_be64(payload, seq);
	memcpy(buf + h, payload, sizeof(payload));
	return codec_build_icmp_echo(buf, cap, &w->flow,
				     CODEC_ICMP_ECHO_REQUEST,
				     (uint16_t)(w->conf->icmp_id + w->index),
				     (uint16_t)seq, buf + h, plen);
}

static int
icmp_match(struct prober_worker *w, const uint8_t *buf,
	   const struct codec_frame *f, struct probe_reply *r)
{
	if (f->ip_version != 4 || f->ip_proto != CODEC_IPPROTO_ICMP ||
	    f->is_fragment || f->src4 != w->flow.dst4 ||
	    f->dst4 != w->flow.src4 || f->icmp_type != CODEC_ICMP_ECHO_REPLY ||
	    f->icmp_id != (uint16_t)(w->conf->icmp_id + w->index) ||
	    f->payload_len < ECHO_MIN)
		return 0;
	r->seq = get_be64(buf + f->payload_off);
	return 1;
}

const struct probe_proto probe_proto_icmp = {
	.name = "icmp",
	.default_port = 0,
	.min_size = ECHO_MIN,
	.build = icmp_build,
	.match = icmp_match,
};
