/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct codec_mac me = {{2, 0, 0, 0, 0, 9}};
	struct codec_icmp_quote q;
	struct codec_frame f;
	uint8_t *copy;

	if (codec_parse_frame(data, size, &f) != 0)
		return 0;
	(void)codec_ipv4_csum_ok(data, &f);
	(void)codec_l4_csum_ok(data, &f);
	/* ICMP errors: the quoted datagram of ours, if any. */
	if (codec_parse_icmp_quote(data, &f, &q) == 0 && q.has_l4 &&
	    q.proto != CODEC_IPPROTO_UDP && q.proto != CODEC_IPPROTO_TCP &&
	    q.proto != CODEC_IPPROTO_ICMP && (q.sport | q.dport) != 0)
		abort(); /* ports read for a protocol that has none */
	/* Exact size: ASan reports any write past the frame. */
	copy = malloc(size);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	codec_turn_around(copy, &f, &me, 64);
	codec_ipv4_csum_set(copy, &f);
	codec_l4_csum_set(copy, &f);
	/* What the setters wrote, the checkers must accept. */
	if (f.ip_version == 4 && !codec_ipv4_csum_ok(copy, &f))
		abort();
	if (f.payload_off != 0 && !codec_l4_csum_ok(copy, &f))
		abort();
	free(copy);
	return 0;
}
