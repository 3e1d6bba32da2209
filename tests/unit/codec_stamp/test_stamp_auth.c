/* SPDX-License-Identifier: BSD-3-Clause */
/* STAMP authenticated mode: HMAC wrapper, layouts, verification. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "latprobe/stamp_auth.h"

#include "vectors/stamp_auth_golden.h"

/* Same inputs as tools/golden/stamp_auth_gen.c */
#define T1_NS 1700000000123456789ULL
#define T2_NS 1700000000123500000ULL
#define T3_NS 1700000000123600001ULL

/* RFC 4231 §4.2-4.6: HMAC-SHA-256 test cases 1-5 (5 truncated to 128 bits) */
struct rfc4231 {
	uint8_t key[25];
	size_t key_len;
	const char *data; /* NULL: data_byte x data_len */
	uint8_t data_byte;
	size_t data_len;
	const char *hmac_hex;
};

static void
unhex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void
test_rfc4231(void **state)
{
	static const struct rfc4231 tc[] = {
		{{0},
		 20,
		 "Hi There",
		 0,
		 0,
		 "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32c"
		 "ff7"},
		{"Jefe", 4, "what do ya want for nothing?", 0, 0,
		 "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3"
		 "843"},
		{{0},
		 20,
		 NULL,
		 0xdd,
		 50,
		 "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced56"
		 "5fe"},
		{{0},
		 25,
		 NULL,
		 0xcd,
		 50,
		 "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff467296"
		 "65b"},
		{{0},
		 20,
		 "Test With Truncation",
		 0,
		 0,
		 "a3b6167473100ee06e0c796c2955552b"},
	};
	static const uint8_t key_fill[] = {0x0b, 0, 0xaa, 0, 0x0c};
	(void)state;

	for (size_t i = 0; i < sizeof(tc) / sizeof(tc[0]); i++) {
		uint8_t key[25], data[64], want[SHA256_LEN], got[SHA256_LEN];
		size_t dlen, wlen = strlen(tc[i].hmac_hex) / 2;
		struct stamp_auth *a;

		memcpy(key, tc[i].key, sizeof(key));
		if (i == 3) /* 0x01..0x19 */
			for (unsigned k = 0; k < 25; k++)
				key[k] = (uint8_t)(k + 1);
		else if (key_fill[i] != 0)
			memset(key, key_fill[i], tc[i].key_len);
		if (tc[i].data != NULL) {
			dlen = strlen(tc[i].data);
			memcpy(data, tc[i].data, dlen);
		} else {
			dlen = tc[i].data_len;
			memset(data, tc[i].data_byte, dlen);
		}
		unhex(tc[i].hmac_hex, want, wlen);
		a = stamp_auth_create(key, tc[i].key_len);
		assert_non_null(a);
		assert_int_equal(stamp_auth_hmac(a, data, dlen, got), 0);
		assert_memory_equal(got, want, wlen);
		/* the context restarts with the same key every time */
		memset(got, 0, sizeof(got));
		assert_int_equal(stamp_auth_hmac(a, data, dlen, got), 0);
		assert_memory_equal(got, want, wlen);
		stamp_auth_destroy(a);
	}
}

static void
test_key_limits(void **state)
{
	uint8_t key[STAMP_AUTH_KEY_MAX + 1];
	struct stamp_auth *a;
	(void)state;

	memset(key, 0x5a, sizeof(key));
	errno = 0;
	assert_null(stamp_auth_create(key, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(stamp_auth_create(key, sizeof(key)));
	assert_int_equal(errno, EINVAL);
	assert_null(stamp_auth_create(NULL, 4));
	a = stamp_auth_create(key, STAMP_AUTH_KEY_MAX);
	assert_non_null(a);
	stamp_auth_destroy(a);
	stamp_auth_destroy(NULL);
}

/* Our builders produce the packets Python built from the RFC layouts. */
static void
test_golden(void **state)
{
	(void)state;

	for (size_t i = 0;
	     i < sizeof(stamp_auth_golden) / sizeof(stamp_auth_golden[0]);
	     i += 2) {
		const struct stamp_auth_golden *gs = &stamp_auth_golden[i];
		const struct stamp_auth_golden *gr = &stamp_auth_golden[i + 1];
		uint16_t ee = gs->ee;
		struct stamp_sender_opts so = {
			.seq = 7,
			.timestamp = stamp_ts_from_ns(T1_NS, ee),
			.error_estimate = ee,
			.ssid = 0xbeef,
			.len = gs->len,
		};
		struct stamp_reflect_opts ro = {
			.seq = 1000,
			.rx_timestamp = stamp_ts_from_ns(T2_NS, ee),
			.error_estimate = ee,
			.sender_ttl = 63,
		};
		struct stamp_auth *a = stamp_auth_create(gs->key, gs->key_len);
		struct stamp_sender s;
		struct stamp_reflector r;
		uint8_t p[256];

		print_message("# %s / %s\n", gs->name, gr->name);
		assert_false(gs->reflector);
		assert_true(gr->reflector);
		assert_non_null(a);
		assert_int_equal(stamp_auth_sender_build(a, p, sizeof(p), &so),
				 (int)gs->len);
		assert_memory_equal(p, gs->bytes, gs->len);
		assert_int_equal(stamp_auth_verify(a, gs->bytes, gs->len), 0);
		assert_int_equal(
			stamp_auth_sender_parse(gs->bytes, gs->len, &s), 0);
		assert_int_equal(s.seq, 7);
		assert_int_equal(s.timestamp, so.timestamp);
		assert_int_equal(s.error_estimate, ee);
		assert_int_equal(s.ssid, 0xbeef);

		assert_int_equal(stamp_auth_reflect(p, gs->len, &ro),
				 (int)gs->len);
		assert_int_equal(
			stamp_auth_reflector_stamp(a, p, gs->len,
						   stamp_ts_from_ns(T3_NS, ee)),
			0);
		assert_memory_equal(p, gr->bytes, gr->len);
		assert_int_equal(stamp_auth_verify(a, gr->bytes, gr->len), 0);
		assert_int_equal(
			stamp_auth_reflector_parse(gr->bytes, gr->len, &r), 0);
		assert_int_equal(r.seq, 1000);
		assert_int_equal(r.timestamp, stamp_ts_from_ns(T3_NS, ee));
		assert_int_equal(r.error_estimate, ee);
		assert_int_equal(r.ssid, 0xbeef);
		assert_int_equal(r.rx_timestamp, stamp_ts_from_ns(T2_NS, ee));
		assert_int_equal(r.sender_seq, 7);
		assert_int_equal(r.sender_timestamp, so.timestamp);
		assert_int_equal(r.sender_error_estimate, ee);
		assert_int_equal(r.sender_ttl, 63);
		stamp_auth_destroy(a);
	}
}

/* Every covered byte counts; the padding after the HMAC does not. */
static void
test_verify(void **state)
{
	const struct stamp_auth_golden *g = &stamp_auth_golden[5];
	struct stamp_auth *a = stamp_auth_create(g->key, g->key_len);
	struct stamp_auth *other =
		stamp_auth_create((const uint8_t *)"not the key", 11);
	uint8_t p[256];
	(void)state;

	assert_int_equal(g->len, 128);
	assert_non_null(a);
	assert_non_null(other);
	memcpy(p, g->bytes, g->len);
	for (size_t i = 0; i < g->len; i++) {
		p[i] ^= 0x01;
		assert_int_equal(stamp_auth_verify(a, p, g->len),
				 i < STAMP_AUTH_BASE_LEN ? -EBADMSG : 0);
		p[i] ^= 0x01;
	}
	assert_int_equal(stamp_auth_verify(a, p, g->len), 0);
	assert_int_equal(stamp_auth_verify(other, p, g->len), -EBADMSG);
	assert_int_equal(stamp_auth_verify(a, p, STAMP_AUTH_BASE_LEN), 0);
	assert_int_equal(stamp_auth_verify(a, p, STAMP_AUTH_BASE_LEN - 1),
			 -EINVAL);
	/* an unauthenticated 44-byte packet is not an authenticated one */
	assert_int_equal(stamp_auth_verify(a, p, 44), -EINVAL);
	stamp_auth_destroy(a);
	stamp_auth_destroy(other);
}

/* The answer's HMAC covers T3: it is only valid once T3 is written. */
static void
test_reflect_hmac_after_t3(void **state)
{
	const struct stamp_auth_golden *g = &stamp_auth_golden[0];
	struct stamp_auth *a = stamp_auth_create(g->key, g->key_len);
	struct stamp_reflect_opts ro = {.seq = 1, .rx_timestamp = 42};
	struct stamp_sender_opts so = {.len = 100};
	uint8_t p[STAMP_AUTH_BASE_LEN];
	(void)state;

	assert_non_null(a);
	memcpy(p, g->bytes, sizeof(p));
	assert_int_equal(stamp_auth_reflect(p, sizeof(p), &ro), 112);
	/* not sealed yet: HMAC zero */
	assert_int_equal(stamp_auth_verify(a, p, sizeof(p)), -EBADMSG);
	assert_int_equal(stamp_auth_reflector_stamp(a, p, sizeof(p), 43), 0);
	assert_int_equal(stamp_auth_verify(a, p, sizeof(p)), 0);
	p[16 + 7] ^= 1; /* T3 changed after sealing */
	assert_int_equal(stamp_auth_verify(a, p, sizeof(p)), -EBADMSG);

	assert_int_equal(stamp_auth_reflect(p, 111, &ro), -EINVAL);
	assert_int_equal(stamp_auth_reflector_stamp(a, p, 111, 43), -EINVAL);
	assert_int_equal(stamp_auth_sender_build(a, p, sizeof(p), &so),
			 -EINVAL);
	so.len = 112;
	so.tlv_class_of_service = true;
	assert_int_equal(stamp_auth_sender_build(a, p, sizeof(p), &so),
			 -EINVAL);
	so.tlv_class_of_service = false;
	assert_int_equal(stamp_auth_sender_build(a, p, 111, &so), -EMSGSIZE);
	stamp_auth_destroy(a);
}

static void
test_key_parse(void **state)
{
	static const struct {
		const char *text;
		int rc;
		size_t len;
	} tc[] = {
		{"00ff", 0, 2},
		{"  0A1b2C\n", 0, 3},
		{"\r\n\tdeadBEEF \n\n", 0, 4},
		{"", -ENODATA, 0},
		{" \n\n", -ENODATA, 0},
		{"abc", -EINVAL, 0},   /* odd */
		{"zz", -EINVAL, 0},    /* not hex */
		{"00 11", -EINVAL, 0}, /* inner space */
		{"0x11", -EINVAL, 0},
		{"secret\n", -EINVAL, 0},
	};
	uint8_t key[STAMP_AUTH_KEY_MAX];
	char big[2 * STAMP_AUTH_KEY_MAX + 3];
	size_t len;
	(void)state;

	for (size_t i = 0; i < sizeof(tc) / sizeof(tc[0]); i++) {
		len = 999;
		print_message("# '%s'\n", tc[i].text);
		assert_int_equal(stamp_auth_key_parse(tc[i].text,
						      strlen(tc[i].text), key,
						      &len),
				 tc[i].rc);
		if (tc[i].rc == 0)
			assert_int_equal(len, tc[i].len);
	}
	assert_int_equal(stamp_auth_key_parse("0A1b2C", 6, key, &len), 0);
	assert_int_equal(key[0], 0x0a);
	assert_int_equal(key[1], 0x1b);
	assert_int_equal(key[2], 0x2c);
	/* 64 bytes is the most */
	memset(big, 'f', sizeof(big));
	assert_int_equal(
		stamp_auth_key_parse(big, 2 * STAMP_AUTH_KEY_MAX, key, &len),
		0);
	assert_int_equal(len, STAMP_AUTH_KEY_MAX);
	assert_int_equal(stamp_auth_key_parse(big, 2 * STAMP_AUTH_KEY_MAX + 2,
					      key, &len),
			 -E2BIG);
}

static void
write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void
test_key_load(void **state)
{
	char dir[] = "/tmp/lp-stamp-auth-XXXXXX";
	char path[64];
	uint8_t key[STAMP_AUTH_KEY_MAX];
	char big[4096];
	size_t len = 0;
	unsigned mode = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	assert_int_equal(stamp_auth_key_load(path, key, &len, NULL), -ENOENT);
	write_file(path, "0102030405060708\n", 17);
	assert_int_equal(stamp_auth_key_load(path, key, &len, NULL), 0);
	assert_int_equal(len, 8);
	assert_int_equal(key[7], 8);
	/* The file's mode, for the caller's warning (group/others). */
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(stamp_auth_key_load(path, key, &len, &mode), 0);
	assert_int_equal(mode, 0640);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(stamp_auth_key_load(path, key, &len, &mode), 0);
	assert_int_equal(mode, 0600);
	/* A failed load leaves no key bytes behind. */
	write_file(path, "01020304zz\n", 11);
	assert_int_equal(stamp_auth_key_load(path, key, &len, NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(key); i++)
		assert_int_equal(key[i], 0);
	write_file(path, "", 0);
	assert_int_equal(stamp_auth_key_load(path, key, &len, NULL), -ENODATA);
	memset(big, '0', sizeof(big));
	write_file(path, big, sizeof(big));
	assert_int_equal(stamp_auth_key_load(path, key, &len, NULL), -E2BIG);
	/* raw binary bytes are not a key file */
	write_file(path, "\x01\x02\x03\x04", 4);
	assert_int_equal(stamp_auth_key_load(path, key, &len, NULL), -EINVAL);
	assert_int_equal(stamp_auth_key_load(dir, key, &len, NULL), -EISDIR);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4231),
		cmocka_unit_test(test_key_limits),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_reflect_hmac_after_t3),
		cmocka_unit_test(test_key_parse),
		cmocka_unit_test(test_key_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
