/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAMP authenticated mode (RFC 8762 §4.2.2, §4.3.2, §4.4): the layouts and
 * their HMAC-SHA-256/128, computed by libcrypto. Big-endian fields are read
 * byte by byte: no alignment assumed for p.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "latprobe/byteorder.h"
#include "latprobe/codec.h"
#include "latprobe/stamp_auth.h"

/* Session-Sender, RFC 8762 Figure 4 (+ RFC 8972 SSID) */
#define AS_SEQ	      0
#define AS_TS	      16
#define AS_EE	      24
#define AS_SSID	      26
/* Session-Reflector, RFC 8762 Figure 6 (+ RFC 8972 SSID) */
#define AR_SEQ	      0
#define AR_TS	      16
#define AR_EE	      24
#define AR_SSID	      26
#define AR_RX_TS      32
#define AR_SENDER_SEQ 48
#define AR_SENDER_TS  64
#define AR_SENDER_EE  72
#define AR_SENDER_TTL 80

struct stamp_auth {
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;
};

struct stamp_auth *
stamp_auth_create(const uint8_t *key, size_t len)
{
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest,
						 0),
		OSSL_PARAM_construct_end(),
	};
	struct stamp_auth *a;

	if (key == NULL || len == 0 || len > STAMP_AUTH_KEY_MAX) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (a->mac != NULL)
		a->ctx = EVP_MAC_CTX_new(a->mac);
	if (a->ctx == NULL || EVP_MAC_init(a->ctx, key, len, params) != 1) {
		stamp_auth_destroy(a);
		errno = EIO;
		return NULL;
	}
	return a;
}

void
stamp_auth_destroy(struct stamp_auth *a)
{
	if (a == NULL)
		return;
	EVP_MAC_CTX_free(a->ctx);
	EVP_MAC_free(a->mac);
	free(a);
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int
stamp_auth_key_parse(const char *text, size_t len,
		     uint8_t key[STAMP_AUTH_KEY_MAX], size_t *key_len)
{
	size_t b = 0, e = len, n;

	while (b < e && is_space(text[b]))
		b++;
	while (e > b && is_space(text[e - 1]))
		e--;
	n = e - b;
	if (n == 0)
		return -ENODATA;
	if (n > (size_t)2 * STAMP_AUTH_KEY_MAX)
		return -E2BIG;
	if (n % 2 != 0)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = codec_hex_digit(text[b + 2 * i]);
		int lo = codec_hex_digit(text[b + 2 * i + 1]);

		if (hi < 0 || lo < 0) {
			OPENSSL_cleanse(key, STAMP_AUTH_KEY_MAX);
			return -EINVAL;
		}
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	*key_len = n / 2;
	return 0;
}

int
stamp_auth_key_load(const char *path, uint8_t key[STAMP_AUTH_KEY_MAX],
		    size_t *key_len, unsigned *mode)
{
	/* room for the longest key, whitespace, and one byte to see more */
	char buf[2 * STAMP_AUTH_KEY_MAX + 64];
	struct stat st;
	size_t n = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The mode of the file read, not of whatever has the name later. */
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (n < sizeof(buf)) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			close(fd);
			OPENSSL_cleanse(buf, sizeof(buf));
			return rc;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	rc = n == sizeof(buf) ? -E2BIG
			      : stamp_auth_key_parse(buf, n, key, key_len);
	OPENSSL_cleanse(buf, sizeof(buf));
	if (rc != 0)
		OPENSSL_cleanse(key, STAMP_AUTH_KEY_MAX);
	else if (mode != NULL)
		*mode = (unsigned)st.st_mode & 07777u;
	return rc;
}

const char *
stamp_auth_key_error(int rc)
{
	switch (rc) {
	case -ENODATA:
		return "empty (want the key as hex digits, e.g. from 'openssl "
		       "rand -hex 32')";
	case -EINVAL:
		return "not a key: want hex digits only, 2 per byte, on one "
		       "line";
	case -E2BIG:
		return "key longer than 64 bytes (128 hex digits)";
	default:
		return strerror(-rc);
	}
}

int
stamp_auth_hmac(struct stamp_auth *a, const uint8_t *msg, size_t len,
		uint8_t out[SHA256_LEN])
{
	size_t n = 0;

	/* A NULL key restarts with the key given at create time. */
	if (EVP_MAC_init(a->ctx, NULL, 0, NULL) != 1 ||
	    EVP_MAC_update(a->ctx, msg, len) != 1 ||
	    EVP_MAC_final(a->ctx, out, &n, SHA256_LEN) != 1 || n != SHA256_LEN)
		return -EIO;
	return 0;
}

int
stamp_auth_seal(struct stamp_auth *a, uint8_t *p, size_t len)
{
	uint8_t h[SHA256_LEN];

	if (len < STAMP_AUTH_BASE_LEN)
		return -EINVAL;
	if (stamp_auth_hmac(a, p, STAMP_AUTH_HMAC_OFF, h) != 0)
		return -EIO;
	/* RFC 8762 §4.4: truncated to 128 bits, as RFC 4868 does */
	memcpy(p + STAMP_AUTH_HMAC_OFF, h, STAMP_AUTH_HMAC_LEN);
	return 0;
}

int
stamp_auth_verify(struct stamp_auth *a, const uint8_t *p, size_t len)
{
	uint8_t h[SHA256_LEN];

	if (len < STAMP_AUTH_BASE_LEN)
		return -EINVAL;
	if (stamp_auth_hmac(a, p, STAMP_AUTH_HMAC_OFF, h) != 0)
		return -EIO;
	if (CRYPTO_memcmp(h, p + STAMP_AUTH_HMAC_OFF, STAMP_AUTH_HMAC_LEN) != 0)
		return -EBADMSG;
	return 0;
}

int
stamp_auth_sender_build(struct stamp_auth *a, uint8_t *p, size_t cap,
			const struct stamp_sender_opts *o)
{
	if (o->len < STAMP_AUTH_BASE_LEN || o->len > 65535 ||
	    o->tlv_timestamp_info || o->tlv_class_of_service)
		return -EINVAL;
	if (cap < o->len)
		return -EMSGSIZE;
	/* MBZ fields, and the padding after the HMAC */
	memset(p, 0, o->len);
	util_put_be32(p + AS_SEQ, o->seq);
	util_put_be64(p + AS_TS, o->timestamp);
	util_put_be16(p + AS_EE, o->error_estimate);
	util_put_be16(p + AS_SSID, o->ssid);
	if (stamp_auth_seal(a, p, o->len) != 0)
		return -EIO;
	return (int)o->len;
}

/*
 * What an authenticated sender and reflector packet both start with (RFC
 * 8762 §4.2.2, §4.3.2), at the same offsets in both.
 */
static void
get_head(const uint8_t *p, uint32_t *seq, uint64_t *ts, uint16_t *ee,
	 uint16_t *ssid)
{
	_Static_assert(AS_SEQ == AR_SEQ && AS_TS == AR_TS && AS_EE == AR_EE &&
			       AS_SSID == AR_SSID,
		       "one head for both authenticated layouts");
	*seq = util_get_be32(p + AS_SEQ);
	*ts = util_get_be64(p + AS_TS);
	*ee = util_get_be16(p + AS_EE);
	*ssid = util_get_be16(p + AS_SSID);
}

int
stamp_auth_sender_parse(const uint8_t *p, size_t len, struct stamp_sender *s)
{
	if (len < STAMP_AUTH_BASE_LEN)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	get_head(p, &s->seq, &s->timestamp, &s->error_estimate, &s->ssid);
	s->len = len;
	s->tlv_off = len;
	s->stamp = true; /* RFC 8762 §4.2.2: the SSID is there */
	return 0;
}

int
stamp_auth_reflector_parse(const uint8_t *p, size_t len,
			   struct stamp_reflector *r)
{
	if (len < STAMP_AUTH_BASE_LEN)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	get_head(p, &r->seq, &r->timestamp, &r->error_estimate, &r->ssid);
	r->rx_timestamp = util_get_be64(p + AR_RX_TS);
	r->sender_seq = util_get_be32(p + AR_SENDER_SEQ);
	r->sender_timestamp = util_get_be64(p + AR_SENDER_TS);
	r->sender_error_estimate = util_get_be16(p + AR_SENDER_EE);
	r->sender_ttl = p[AR_SENDER_TTL];
	r->len = len;
	r->tlv_off = len;
	return 0;
}

int
stamp_auth_reflect(uint8_t *p, size_t len, const struct stamp_reflect_opts *o)
{
	uint8_t out[STAMP_AUTH_BASE_LEN];

	if (len < STAMP_AUTH_BASE_LEN || len > 65535)
		return -EINVAL;
	/* Built aside: the sender's fields sit where the answer's go. */
	memset(out, 0, sizeof(out));
	util_put_be32(out + AR_SEQ, o->seq);
	/* T3 placeholder until stamp_auth_reflector_stamp(): T2, never T1 */
	util_put_be64(out + AR_TS, o->rx_timestamp);
	util_put_be16(out + AR_EE, o->error_estimate);
	memcpy(out + AR_SSID, p + AS_SSID, 2);
	util_put_be64(out + AR_RX_TS, o->rx_timestamp);
	memcpy(out + AR_SENDER_SEQ, p + AS_SEQ, 4);
	memcpy(out + AR_SENDER_TS, p + AS_TS, 8);
	memcpy(out + AR_SENDER_EE, p + AS_EE, 2);
	out[AR_SENDER_TTL] = o->sender_ttl;
	/* The HMAC (zero here) is computed after T3 is written. */
	memcpy(p, out, sizeof(out));
	return (int)len;
}

int
stamp_auth_reflector_stamp(struct stamp_auth *a, uint8_t *p, size_t len,
			   uint64_t tx_timestamp)
{
	if (len < STAMP_AUTH_BASE_LEN)
		return -EINVAL;
	util_put_be64(p + AR_TS, tx_timestamp);
	return stamp_auth_seal(a, p, len);
}
