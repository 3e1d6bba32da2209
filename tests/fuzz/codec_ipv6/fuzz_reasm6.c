/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 reassembly: records of [offset/8 (2 bytes, big-endian), flags (1:
 * bit 0 = M, bit 1 = another identification), length (2), data], each made
 * into an IPv6 fragment (Fragment header right after the IPv6 header, UDP
 * next) and fed to one reassembler. A completed datagram is one frame
 * whose payload length spans it, and parses as a whole (not a fragment).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/codec.h"
#include "latprobe/frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR (CODEC_ETH_HLEN + CODEC_IPV6_HLEN + CODEC_IPV6_FRAG_HLEN)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct codec_reasm *r = codec_reasm_create();
	struct codec_frame f, o;
	size_t out_len;
	uint8_t *out;

	while (r != NULL && size >= 5) {
		uint16_t off = (uint16_t)(data[0] << 8 | data[1]);
		uint8_t flags = data[2];
		size_t dlen = (size_t)data[3] << 8 | data[4];
		uint8_t *frame;

		data += 5;
		size -= 5;
		dlen = dlen < size ? dlen : size;
		frame = malloc(HDR + dlen);
		if (frame == NULL)
			break;
		memset(frame, 0, HDR);
		frame[12] = 0x86;
		frame[13] = 0xdd;
		frame[14] = 0x60;
		frame[18] = (uint8_t)((dlen + 8) >> 8);
		frame[19] = (uint8_t)(dlen + 8);
		frame[20] = CODEC_IPPROTO_FRAGMENT;
		frame[21] = 64;
		frame[22] = 0x20;
		frame[23] = 0x01;
		frame[25] = 0x02;
		frame[37] = 1;
		memcpy(frame + 38, frame + 22, 16);
		frame[53] = 2;
		frame[54] = CODEC_IPPROTO_UDP;
		frame[56] = (uint8_t)(off >> 5);
		frame[57] = (uint8_t)((off << 3) | (flags & 1));
		frame[61] = (flags & 2) ? 2 : 1;
		memcpy(frame + HDR, data, dlen);
		if (codec_parse_frame(frame, HDR + dlen, &f) == 0 &&
		    f.is_fragment &&
		    codec_reasm_add(r, frame, &f, 0, &out, &out_len) == 1) {
			if (out_len < CODEC_ETH_HLEN + CODEC_IPV6_HLEN ||
			    ((size_t)out[18] << 8 | out[19]) !=
				    out_len - CODEC_ETH_HLEN -
					    CODEC_IPV6_HLEN ||
			    out[20] != CODEC_IPPROTO_UDP)
				abort();
			if (codec_parse_frame(out, out_len, &o) == 0 &&
			    (o.is_fragment || o.l3_off + o.ip_len != out_len))
				abort();
		}
		free(frame);
		data += dlen;
		size -= dlen;
	}
	codec_reasm_destroy(r);
	return 0;
}
