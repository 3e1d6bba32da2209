/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sockperf 3.7 message header (src/message.h, MsgHeader): sequence u64,
 * flags u16, length u32, each converted with hton*() before sendto(), so
 * big-endian and packed to 14 bytes on the wire. Checked against the bytes
 * of a real `sockperf ping-pong` exchange (tests/unit/codec_stamp/).
 */
#include <errno.h>

#include "latprobe/sockperf.h"

/* sockperf's MAX_PAYLOAD_SIZE default: largest IPv4 UDP payload. */
#define SOCKPERF_MAX_LEN 65507

int
sockperf_parse(const uint8_t *p, size_t len, struct sockperf_hdr *h)
{
	uint64_t seq = 0;
	int i;

	if (len < SOCKPERF_HDR_LEN)
		return -EINVAL;
	for (i = 0; i < 8; i++)
		seq = seq << 8 | p[i];
	h->seq = seq;
	h->flags = (uint16_t)((unsigned int)p[8] << 8 | p[9]);
	h->length = (uint32_t)p[10] << 24 | (uint32_t)p[11] << 16 |
		    (uint32_t)p[12] << 8 | p[13];
	/* length counts the header too; more than the datagram means a
	 * message sockperf itself would not answer. */
	if (h->length < SOCKPERF_HDR_LEN || h->length > SOCKPERF_MAX_LEN ||
	    h->length > len)
		return -EINVAL;
	return 0;
}

int
sockperf_build(uint8_t *p, size_t cap, const struct sockperf_hdr *h)
{
	int i;

	if (cap < SOCKPERF_HDR_LEN)
		return -EMSGSIZE;
	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(h->seq >> (56 - 8 * i));
	p[8] = (uint8_t)(h->flags >> 8);
	p[9] = (uint8_t)h->flags;
	p[10] = (uint8_t)(h->length >> 24);
	p[11] = (uint8_t)(h->length >> 16);
	p[12] = (uint8_t)(h->length >> 8);
	p[13] = (uint8_t)h->length;
	return SOCKPERF_HDR_LEN;
}

int
sockperf_reflect(uint8_t *p, size_t len)
{
	struct sockperf_hdr h;

	if (sockperf_parse(p, len, &h) < 0)
		return -EINVAL;
	/* sockperf's server ignores server messages (a reflection loop) */
	if (!(h.flags & SOCKPERF_F_CLIENT))
		return -EINVAL;
	/* warm-up messages and those without pong request get no answer */
	if ((h.flags & SOCKPERF_F_WARMUP) ||
	    !(h.flags & SOCKPERF_F_PONG_REQUEST))
		return 0;
	/* Only the client bit changes; seq, length, payload are echoed. */
	p[9] &= (uint8_t)~SOCKPERF_F_CLIENT;
	return 1;
}
