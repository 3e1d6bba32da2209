/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The base64 + zlib + V2 decoder on any bytes; what decodes must encode
 * and decode back to the same counters, and write as an .hlog line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/hlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct histogram h, back;
	char *b64;
	size_t len;
	FILE *f;

	if (hdr_codec_decode((const char *)data, size, &h) != 0)
		return 0;
	if (hdr_codec_encode(&h, &b64, &len) != 0)
		abort();
	if (hdr_codec_decode(b64, len, &back) != 0)
		abort();
	/* the underflow counter (value 0) is not re-encoded: by design */
	if (memcmp(h.counts + 1, back.counts + 1,
		   sizeof(h.counts) - sizeof(h.counts[0])) != 0 ||
	    h.total != back.total)
		abort();
	free(b64);
	f = fopen("/dev/null", "w");
	if (f != NULL) {
		(void)hlog_write_interval(f, "rtt", 0.0, 1.0, &h);
		fclose(f);
	}
	return 0;
}
