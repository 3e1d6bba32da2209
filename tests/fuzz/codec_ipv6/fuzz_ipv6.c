/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 parser: data is what follows an Ethernet header of ethertype
 * 0x86dd (the IPv6 header and on). What it accepts must lie inside the
 * frame; ND validation, checksums and turn-around run on it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/codec.h"
#include "latprobe/nd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct codec_mac me = {{0x02, 0, 0, 0, 0, 1}};
	size_t len = CODEC_ETH_HLEN + size;
	uint8_t *frame = malloc(len);
	struct codec_frame f;
	struct codec_nd nd;

	if (frame == NULL)
		return 0;
	memset(frame, 0x02, 12);
	frame[12] = 0x86;
	frame[13] = 0xdd;
	memcpy(frame + CODEC_ETH_HLEN, data, size);
	if (codec_parse_frame(frame, len, &f) == 0 && f.ip_version == 6) {
		if ((size_t)f.l3_off + f.ip_len > len ||
		    (size_t)f.l4_off + f.l4_len > len ||
		    f.l3_hlen < CODEC_IPV6_HLEN || f.l3_hlen > f.ip_len ||
		    (f.payload_off != 0 &&
		     (size_t)f.payload_off + f.payload_len > len))
			abort();
		(void)codec_l4_csum_ok(frame, &f);
		if (codec_nd_parse(frame, &f, &nd) == 0 &&
		    nd.type == CODEC_ICMP6_NS) {
			uint8_t out[128];

			(void)codec_build_na(out, sizeof(out), &f, &nd, &me);
		}
		codec_l4_csum_set(frame, &f);
		codec_turn_around(frame, &f, &me, 64);
	}
	free(frame);
	return 0;
}
