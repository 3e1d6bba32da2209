/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_SOCKPERF_H
#define LATPROBE_SOCKPERF_H

/*
 * sockperf message header, as sockperf 3.7 puts it at the start of every UDP
 * payload: sequence (u64), flags (u16), length (u32) = 14 bytes. Byte order
 * and flag bits as verified against sockperf 3.7's own traffic (see
 * tests/unit/codec_stamp/).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SOCKPERF_PORT		11111
#define SOCKPERF_HDR_LEN	14
#define SOCKPERF_F_CLIENT	0x1
#define SOCKPERF_F_PONG_REQUEST 0x2
#define SOCKPERF_F_WARMUP	0x4

struct sockperf_hdr {
	uint64_t seq;
	uint16_t flags;
	uint32_t length; /* whole message length as sockperf fills it */
};

/*
 * 0, or -EINVAL when len < SOCKPERF_HDR_LEN or the length field is absurd:
 * below SOCKPERF_HDR_LEN, above 65507 (sockperf's limit) or above len (a
 * truncated message). A length below len is valid: sockperf reads the rest
 * of the datagram as the next message.
 */
int sockperf_parse(const uint8_t *p, size_t len, struct sockperf_hdr *h);

/* Write the header at p; returns SOCKPERF_HDR_LEN or -EMSGSIZE. */
int sockperf_build(uint8_t *p, size_t cap, const struct sockperf_hdr *h);

/*
 * Server side, in place, as sockperf 3.7's server does: when a reply is due
 * (client and pong-request set, warm-up clear) clear the client flag and
 * return 1; the reply is the first hdr.length bytes, everything but the
 * client bit unchanged. 0 when the message needs no answer (buffer left
 * untouched), -EINVAL when it is not a valid sockperf client message.
 */
int sockperf_reflect(uint8_t *p, size_t len);

#endif /* LATPROBE_SOCKPERF_H */
