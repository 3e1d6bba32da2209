/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HdrHistogram V2 compressed encoding, written from the format's
 * description (HdrHistogram's AbstractHistogram encoding notes and
 * ZigZagEncoding docs); checked against the Java implementation by
 * tests/unit/hdr_codec.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "latprobe/byteorder.h"
#include "latprobe/hdr_codec.h"

/* Cookies: base | 0x10 (HdrHistogram sets bit 4 on V2 cookies). The low
 * nibble of the compressed cookie is the base's; bits 4..7 vary by word
 * size in older versions, so a reader masks them off. */
#define V2_ENCODING_COOKIE_BASE	  0x1c849303u
#define V2_COMPRESSED_COOKIE_BASE 0x1c849304u
#define COOKIE_FLAGS_MASK	  0xf0u
#define V2_ENCODING_COOKIE	  (V2_ENCODING_COOKIE_BASE | 0x10u)
#define V2_COMPRESSED_COOKIE	  (V2_COMPRESSED_COOKIE_BASE | 0x10u)

#define ENCODING_HEADER_SIZE   40u
#define COMPRESSED_HEADER_SIZE 8u
#define LEB128_MAX	       9u /* 64-bit ZigZag LEB128, 9-byte variant */
#define MAX_RAW_SIZE	       (ENCODING_HEADER_SIZE + HISTOGRAM_COUNTERS * LEB128_MAX)

/*
 * ZigZag then LEB128, 7 bits a byte low first, except that a 9th byte
 * carries the last 8 bits whole (so 64 bits never need a 10th byte).
 */
static size_t
zigzag_put(uint8_t *p, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;

	while (n < LEB128_MAX - 1) {
		if ((z >> 7) == 0) {
			p[n++] = (uint8_t)z;
			return n;
		}
		p[n++] = (uint8_t)((z & 0x7f) | 0x80);
		z >>= 7;
	}
	p[n++] = (uint8_t)z; /* the remaining 8 bits */
	return n;
}

/* Returns bytes consumed, 0 when the input ends inside a value. */
static size_t
zigzag_get(const uint8_t *p, size_t avail, int64_t *out)
{
	uint64_t z = 0;
	size_t n;

	for (n = 0; n < LEB128_MAX; n++) {
		if (n >= avail)
			return 0;
		if (n == LEB128_MAX - 1) {
			z |= (uint64_t)p[n] << 56;
			break;
		}
		z |= (uint64_t)(p[n] & 0x7f) << (7 * n);
		if ((p[n] & 0x80) == 0)
			break;
	}
	*out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return n + 1;
}

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t
b64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t w = ((uint32_t)in[i] << 16) |
			     ((uint32_t)in[i + 1] << 8) | in[i + 2];

		out[o++] = b64_alphabet[(w >> 18) & 63];
		out[o++] = b64_alphabet[(w >> 12) & 63];
		out[o++] = b64_alphabet[(w >> 6) & 63];
		out[o++] = b64_alphabet[w & 63];
	}
	if (i < n) {
		uint32_t w = (uint32_t)in[i] << 16;

		if (i + 1 < n)
			w |= (uint32_t)in[i + 1] << 8;
		out[o++] = b64_alphabet[(w >> 18) & 63];
		out[o++] = b64_alphabet[(w >> 12) & 63];
		out[o++] =
			(char)(i + 1 < n ? b64_alphabet[(w >> 6) & 63] : '=');
		out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Strict: length a multiple of 4, padding only at the end. Returns the
 * decoded length or -EINVAL. out must hold len / 4 * 3 bytes. */
static long
b64_decode(const char *in, size_t len, uint8_t *out)
{
	size_t i, o = 0;

	if (len == 0 || len % 4 != 0)
		return -EINVAL;
	for (i = 0; i < len; i += 4) {
		int v[4];
		unsigned pad = 0, k;

		for (k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == len && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad > 0)
				return -EINVAL; /* data after '=' */
			v[k] = b64_value(in[i + k]);
			if (v[k] < 0)
				return -EINVAL;
		}
		{
			uint32_t w = ((uint32_t)v[0] << 18) |
				     ((uint32_t)v[1] << 12) |
				     ((uint32_t)v[2] << 6) | (uint32_t)v[3];

			out[o++] = (uint8_t)(w >> 16);
			if (pad < 2)
				out[o++] = (uint8_t)(w >> 8);
			if (pad < 1)
				out[o++] = (uint8_t)w;
		}
	}
	return (long)o;
}

int
hdr_codec_encode(const struct histogram *h, char **b64, size_t *len)
{
	uint8_t *raw = NULL, *comp = NULL;
	char *text = NULL;
	size_t limit = 0, pos = ENCODING_HEADER_SIZE, i;
	uLongf comp_len;
	int ret = -ENOMEM;

	for (i = HISTOGRAM_COUNTERS; i > 0; i--)
		if (h->counts[i - 1] != 0) {
			limit = i;
			break;
		}
	raw = malloc(MAX_RAW_SIZE);
	if (raw == NULL)
		goto out;
	for (i = 0; i < limit;) {
		uint64_t c = h->counts[i++];
		int64_t zeros = 0;

		if (c == 0) {
			zeros = 1;
			while (i < limit && h->counts[i] == 0) {
				zeros++;
				i++;
			}
		}
		if (zeros > 1)
			pos += zigzag_put(raw + pos, -zeros);
		else
			/* counts above INT64_MAX cannot be written by V2 */
			pos += zigzag_put(raw + pos, c > INT64_MAX
							     ? INT64_MAX
							     : (int64_t)c);
	}
	util_put_be32(raw, V2_ENCODING_COOKIE);
	util_put_be32(raw + 4, (uint32_t)(pos - ENCODING_HEADER_SIZE));
	util_put_be32(raw + 8, 0); /* normalizing index offset */
	util_put_be32(raw + 12, HDR_CODEC_SIGFIGS);
	util_put_be64(raw + 16, (uint64_t)HDR_CODEC_LOWEST);
	util_put_be64(raw + 24, (uint64_t)HDR_CODEC_HIGHEST);
	{
		double ratio = 1.0; /* integer to double conversion ratio */
		uint64_t bits;

		memcpy(&bits, &ratio, sizeof(bits));
		util_put_be64(raw + 32, bits);
	}

	comp_len = compressBound((uLong)pos);
	comp = malloc(COMPRESSED_HEADER_SIZE + comp_len);
	if (comp == NULL)
		goto out;
	if (compress2(comp + COMPRESSED_HEADER_SIZE, &comp_len, raw, (uLong)pos,
		      Z_DEFAULT_COMPRESSION) != Z_OK) {
		ret = -EIO;
		goto out;
	}
	util_put_be32(comp, V2_COMPRESSED_COOKIE);
	util_put_be32(comp + 4, (uint32_t)comp_len);

	text = malloc((COMPRESSED_HEADER_SIZE + comp_len + 2) / 3 * 4 + 1);
	if (text == NULL)
		goto out;
	*len = b64_encode(comp, COMPRESSED_HEADER_SIZE + comp_len, text);
	*b64 = text;
	text = NULL;
	ret = 0;
out:
	free(text);
	free(comp);
	free(raw);
	return ret;
}

static int
decode_counts(const uint8_t *p, size_t n, struct histogram *h)
{
	size_t pos = 0, idx = 0;

	while (pos < n) {
		int64_t v;
		size_t used = zigzag_get(p + pos, n - pos, &v);

		if (used == 0)
			return -EINVAL;
		pos += used;
		if (v < 0) {
			if (v == INT64_MIN ||
			    (uint64_t)-v > HISTOGRAM_COUNTERS - idx)
				return -EINVAL;
			idx += (size_t)-v;
			continue;
		}
		if (idx >= HISTOGRAM_COUNTERS)
			return -EINVAL;
		if (v > 0) {
			uint64_t c = (uint64_t)v;

			if (idx == 0) {
				h->underflow = c;
			} else {
				if (h->total + c < h->total)
					return -EINVAL;
				h->counts[idx] = c;
				h->total += c;
			}
		}
		idx++;
	}
	return 0;
}

static void
derive_stats(struct histogram *h)
{
	double sum = 0;
	unsigned i;

	for (i = 1; i < HISTOGRAM_COUNTERS; i++) {
		uint64_t c = h->counts[i], lo, hi;
		double mid;

		if (c == 0)
			continue;
		lo = histogram_index_lowest(i);
		hi = histogram_index_highest(i);
		/* HdrHistogram's "median equivalent value" */
		mid = (double)(lo + ((hi - lo + 1) >> 1));
		if (lo < h->min)
			h->min = lo;
		if (hi > h->max)
			h->max = hi;
		sum += mid * (double)c;
		h->sum_sq += mid * mid * (double)c;
	}
	h->sum = sum < 1.8e19 ? (uint64_t)sum : UINT64_MAX;
}

int
hdr_codec_decode(const char *b64, size_t len, struct histogram *h)
{
	uint8_t *comp = NULL, *raw = NULL;
	long comp_len;
	uLongf raw_len = MAX_RAW_SIZE;
	uint32_t clen, plen;
	int ret = -EINVAL;

	histogram_init(h);
	if (b64 == NULL || len > HDR_CODEC_MAX_B64)
		return -EINVAL;
	comp = malloc(len / 4 * 3 + 1);
	raw = malloc(MAX_RAW_SIZE);
	if (comp == NULL || raw == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	comp_len = b64_decode(b64, len, comp);
	if (comp_len < (long)COMPRESSED_HEADER_SIZE)
		goto out;
	if ((util_get_be32(comp) & ~COOKIE_FLAGS_MASK) !=
	    V2_COMPRESSED_COOKIE_BASE)
		goto out;
	clen = util_get_be32(comp + 4);
	if (clen != (uint64_t)comp_len - COMPRESSED_HEADER_SIZE)
		goto out;
	/* uncompress() fails with Z_BUF_ERROR when the output would exceed
	 * MAX_RAW_SIZE: a valid histogram of our layout never does. */
	if (uncompress(raw, &raw_len, comp + COMPRESSED_HEADER_SIZE, clen) !=
	    Z_OK)
		goto out;
	if (raw_len < ENCODING_HEADER_SIZE)
		goto out;
	if ((util_get_be32(raw) & ~COOKIE_FLAGS_MASK) !=
	    V2_ENCODING_COOKIE_BASE)
		goto out;
	plen = util_get_be32(raw + 4);
	if (plen != raw_len - ENCODING_HEADER_SIZE)
		goto out;
	if (util_get_be32(raw + 8) != 0 || /* normalizing offset */
	    util_get_be32(raw + 12) !=
		    HDR_CODEC_SIGFIGS || /* sub-bucket count */
	    util_get_be64(raw + 16) != (uint64_t)HDR_CODEC_LOWEST)
		goto out;
	/* The highest trackable value only sets the array length; a counter
	 * beyond ours is rejected while decoding the counts. */
	if (util_get_be64(raw + 24) < 2 * (uint64_t)HDR_CODEC_LOWEST ||
	    util_get_be64(raw + 24) > (uint64_t)INT64_MAX)
		goto out;
	if (decode_counts(raw + ENCODING_HEADER_SIZE, plen, h) != 0)
		goto out;
	derive_stats(h);
	ret = 0;
out:
	if (ret != 0)
		histogram_init(h);
	free(raw);
	free(comp);
	return ret;
}
