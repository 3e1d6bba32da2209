/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 extension-header walk: data[0] is the IPv6 header's next header,
 * the rest its payload (headers, then whatever follows), inside a valid
 * IPv6 header whose payload length is the rest's size. A walk that
 * succeeds ends on a header that is not an extension one (or a fragment)
 * and inside the packet (a UDP length may end before it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t plen, len;
	struct codec_frame f;
	uint8_t *frame;

	if (size < 1 || size - 1 > UINT16_MAX - CODEC_IPV6_HLEN)
		return 0;
	plen = size - 1;
	len = CODEC_ETH_HLEN + CODEC_IPV6_HLEN + plen;
	frame = malloc(len);
	if (frame == NULL)
		return 0;
	memset(frame, 0, CODEC_ETH_HLEN + CODEC_IPV6_HLEN);
	frame[12] = 0x86;
	frame[13] = 0xdd;
	frame[14] = 0x60;
	frame[18] = (uint8_t)(plen >> 8);
	frame[19] = (uint8_t)plen;
	frame[20] = data[0];
	frame[21] = 64;
	frame[22] = 0x20; /* 2001:2::1 -> 2001:2::2 */
	frame[23] = 0x01;
	frame[25] = 0x02;
	frame[37] = 1;
	memcpy(frame + 38, frame + 22, 16);
	frame[53] = 2;
	memcpy(frame + 54, data + 1, plen);
	if (codec_parse_frame(frame, len, &f) == 0) {
		if (f.l3_hlen < CODEC_IPV6_HLEN ||
		    f.l3_hlen > CODEC_IPV6_HLEN + plen ||
		    (size_t)f.l4_off + f.l4_len > len)
			abort();
		if (!f.is_fragment && (f.ip_proto == CODEC_IPPROTO_HOPOPTS ||
				       f.ip_proto == CODEC_IPPROTO_ROUTING ||
				       f.ip_proto == CODEC_IPPROTO_FRAGMENT ||
				       f.ip_proto == CODEC_IPPROTO_DSTOPTS))
			abort();
		if (f.frag_hdr_off != 0 &&
		    ((size_t)f.frag_hdr_off + CODEC_IPV6_FRAG_HLEN > f.l4_off))
			abort();
	}
	free(frame);
	return 0;
}
