/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_STAMP_AUTH_H
#define LATPROBE_STAMP_AUTH_H

/*
 * STAMP authenticated mode, RFC 8762 §4.2.2, §4.3.2 and §4.4, with the
 * RFC 8972 §3 Session-Sender Identifier. Works on the UDP payload only.
 *
 * Session-Sender test packet (RFC 8762 Figure 4, RFC 8972 Figure 2):
 *   0 seq(4) | 4 MBZ(12) | 16 timestamp(8) | 24 error estimate(2)
 *   | 26 SSID(2) | 28 MBZ(68) | 96 HMAC(16)                  = 112 bytes
 * Session-Reflector test packet (RFC 8762 Figure 6, RFC 8972 Figure 4):
 *   0 seq(4) | 4 MBZ(12) | 16 timestamp T3(8) | 24 error estimate(2)
 *   | 26 SSID(2) | 28 MBZ(4) | 32 receive timestamp T2(8) | 40 MBZ(8)
 *   | 48 sender seq(4) | 52 MBZ(12) | 64 sender timestamp(8)
 *   | 72 sender error estimate(2) | 74 MBZ(6) | 80 sender TTL(1)
 *   | 81 MBZ(15) | 96 HMAC(16)                                = 112 bytes
 * HMAC: HMAC-SHA-256 truncated to 128 bits over the first 96 octets
 * (RFC 8762 §4.4). Bytes after the 112 are not covered; we send them as
 * zeros and a reflector echoes them unchanged (no RFC 8972 TLVs in this
 * mode: their HMAC TLV is not implemented).
 */

#include <stddef.h>
#include <stdint.h>

#include "latprobe/stamp.h"

#define STAMP_AUTH_BASE_LEN 112
#define STAMP_AUTH_HMAC_OFF 96 /* = the bytes the HMAC covers */
#define STAMP_AUTH_HMAC_LEN 16
#define STAMP_AUTH_KEY_MAX  64u /* one SHA-256 block: no pre-hashing */
#define SHA256_LEN	    32

/*
 * HMAC-SHA-256 keyed once (OpenSSL 3 EVP_MAC). Not thread-safe: one per
 * worker. The key bytes are kept only inside libcrypto's context.
 */
struct stamp_auth;

/* NULL with errno EINVAL (len 0 or > STAMP_AUTH_KEY_MAX), ENOMEM or EIO. */
struct stamp_auth *stamp_auth_create(const uint8_t *key, size_t len);
void stamp_auth_destroy(struct stamp_auth *a);

/*
 * Key file text: the key as hex digits (2 per byte, 1..64 bytes, either
 * case), with optional whitespace around it (a trailing newline). Fills
 * key[0..*key_len). 0, or -ENODATA (nothing but whitespace), -EINVAL (not
 * hex, odd count, inner whitespace), -E2BIG (more than 64 bytes).
 */
int stamp_auth_key_parse(const char *text, size_t len,
			 uint8_t key[STAMP_AUTH_KEY_MAX], size_t *key_len);

/*
 * Read and parse a key file: stamp_auth_key_parse()'s errors, or the
 * -errno of open/fstat/read (-ENOENT, -EACCES, -EISDIR, ...). On 0, *mode
 * (unless NULL) holds the file's permission bits (st_mode & 07777), read
 * off the opened file: the caller warns when group or others may read it.
 * Every copy of the key made here is cleansed; key[] is the caller's to
 * cleanse when done with it (it is on every error).
 */
int stamp_auth_key_load(const char *path, uint8_t key[STAMP_AUTH_KEY_MAX],
			size_t *key_len, unsigned *mode);

/* What is wrong, for an error message, from a key_load/key_parse error. */
const char *stamp_auth_key_error(int rc);

/* The full 32-byte HMAC-SHA-256 of msg; 0 or -EIO. */
int stamp_auth_hmac(struct stamp_auth *a, const uint8_t *msg, size_t len,
		    uint8_t out[SHA256_LEN]);

/* Write the HMAC of p[0..96) at p + 96 (len >= 112); 0, -EINVAL, -EIO. */
int stamp_auth_seal(struct stamp_auth *a, uint8_t *p, size_t len);

/*
 * 0 when p holds a whole authenticated packet (len >= 112) whose HMAC
 * verifies (constant-time compare); -EINVAL when too short, -EBADMSG when
 * the HMAC does not match, -EIO when libcrypto failed.
 */
int stamp_auth_verify(struct stamp_auth *a, const uint8_t *p, size_t len);

/*
 * Build an authenticated Session-Sender packet of o->len bytes (>= 112;
 * TLV options must be off: -EINVAL), HMAC included. Returns len or -errno.
 */
int stamp_auth_sender_build(struct stamp_auth *a, uint8_t *p, size_t cap,
			    const struct stamp_sender_opts *o);

/* Parse the authenticated layouts (no HMAC check): 0, or -EINVAL when
 * len < 112. tlv_off is set to len (no TLVs in this mode). */
int stamp_auth_sender_parse(const uint8_t *p, size_t len,
			    struct stamp_sender *s);
int stamp_auth_reflector_parse(const uint8_t *p, size_t len,
			       struct stamp_reflector *r);

/*
 * Turn a verified authenticated Session-Sender packet into a
 * Session-Reflector packet in place (same length, bytes after 112 kept).
 * T3 holds T2 and the HMAC is not set until stamp_auth_reflector_stamp().
 * Only o->seq, rx_timestamp, error_estimate and sender_ttl are used.
 * Returns len, or -EINVAL (len < 112 or > 65535).
 */
int stamp_auth_reflect(uint8_t *p, size_t len,
		       const struct stamp_reflect_opts *o);

/* Write T3 then the HMAC over the answer (both per answer, just before
 * transmit). 0, -EINVAL (len < 112) or -EIO. */
int stamp_auth_reflector_stamp(struct stamp_auth *a, uint8_t *p, size_t len,
			       uint64_t tx_timestamp);

#endif /* LATPROBE_STAMP_AUTH_H */
