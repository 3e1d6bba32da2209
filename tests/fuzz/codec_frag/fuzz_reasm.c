/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/codec.h"
#include "latprobe/frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: frames, each a 2-byte big-endian length then its bytes. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct codec_reasm *r = codec_reasm_create();
	struct codec_frame f, o;
	size_t len, out_len, l3;
	uint8_t *frame, *out;

	while (r != NULL && size >= 2) {
		len = (size_t)data[0] << 8 | data[1];
		len = len < size - 2 ? len : size - 2;
		/* Exact size: ASan reports any read past the frame. */
		frame = malloc(len + 1);
		if (frame == NULL)
			break;
		memcpy(frame, data + 2, len);
		if (codec_parse_frame(frame, len, &f) == 0 && f.is_fragment &&
		    codec_reasm_add(r, frame, &f, 0, &out, &out_len) == 1) {
			l3 = out[12] == 0x81 && out[13] == 0 ? 18 : 14;
			/* The IPv4 total length / IPv6 payload length spans
			 * the whole output. */
			if (f.ip_version == 6 &&
			    (out_len < l3 + 40 ||
			     ((size_t)out[l3 + 4] << 8 | out[l3 + 5]) !=
				     out_len - l3 - 40))
				abort();
			if (f.ip_version == 4 &&
			    (out_len < l3 + 20 ||
			     ((size_t)out[l3 + 2] << 8 | out[l3 + 3]) !=
				     out_len - l3))
				abort();
			if (codec_parse_frame(out, out_len, &o) == 0 &&
			    (o.is_fragment || o.l3_off + o.ip_len != out_len))
				abort();
		}
		free(frame);
		data += 2 + len;
		size -= 2 + len;
	}
	codec_reasm_destroy(r);
	return 0;
}
