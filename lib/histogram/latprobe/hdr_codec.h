/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HDR_CODEC_H
#define LATPROBE_HDR_CODEC_H

/*
 * HdrHistogram "compressed histogram" text: the V2 encoding (big-endian
 * 40-byte header, counts as ZigZag LEB128 with runs of zeros as negative
 * counts), DEFLATE'd (zlib stream) behind an 8-byte compressed header, then
 * base64 (standard alphabet, padded). This is what HdrHistogram's
 * encodeIntoCompressedByteBuffer + base64 writes, what .hlog lines carry and
 * what the self-contained JSON report's "hdr" keys hold.
 *
 * Our struct histogram has HdrHistogram's layout for lowest = 1 ns,
 * highest = 10 s, 2 significant digits, so encoding is pure: counter i is
 * HdrHistogram's counts index i.
 *
 * What the string holds: the in-range counters only. HdrHistogram has no
 * underflow/overflow counters; ours are reported beside the string
 * ("underflow"/"overflow" keys in the JSON) and are not in it. On decode,
 * HdrHistogram's counter 0 (value 0, below our lowest 1 ns) is counted as
 * underflow, as our recorder would have counted a 0.
 */

#include <stddef.h>

#include "latprobe/histogram.h"

#define HDR_CODEC_LOWEST  1ll
#define HDR_CODEC_HIGHEST 10000000000ll
#define HDR_CODEC_SIGFIGS 2

/* Upper bound of an accepted base64 string (the largest valid V2 payload
 * is ~32 KiB before compression; zlib can expand it a little). */
#define HDR_CODEC_MAX_B64 65536

/*
 * Encode h (a snapshot or a quiescent histogram). On success *b64 is a
 * malloc'd NUL-terminated string of *len characters (free() it) and 0 is
 * returned; -ENOMEM, or -EIO when zlib fails.
 */
int hdr_codec_encode(const struct histogram *h, char **b64, size_t *len);

/*
 * Decode len characters of b64 into h (initialised here). Accepts any V2
 * compressed histogram whose layout equals ours: lowest discernible value
 * 1, 2 significant digits, no normalising offset, counts within our 3,584
 * counters (so highest trackable values up to 2^34 - 1 are fine). min and
 * max are the lowest/highest equivalent values of the lowest/highest
 * non-empty counters; sum and sum_sq use each counter's middle value as
 * HdrHistogram's getMean() does (lowest + width / 2; sum saturates at
 * UINT64_MAX), and the caller overrides them with exact figures when it
 * has them.
 * Returns 0, or -EINVAL for anything else (bad base64, bad cookie, bad
 * zlib stream, lengths that disagree, a different layout, negative or
 * overflowing counts); h is then empty.
 */
int hdr_codec_decode(const char *b64, size_t len, struct histogram *h);

#endif /* LATPROBE_HDR_CODEC_H */
