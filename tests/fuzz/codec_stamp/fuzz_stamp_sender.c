/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Authenticated mode, as a keyed reflector runs it: verify, then (whatever
 * the verdict, to reach the layout code) parse and answer in place; an
 * answer sealed with our key must verify. The input as key file text too.
 */
static void
fuzz_auth(const uint8_t *data, size_t size)
{
	static struct stamp_auth *a;
	const struct stamp_reflect_opts o = {.seq = 1, .sender_ttl = 64};
	uint8_t key[STAMP_AUTH_KEY_MAX];
	struct stamp_sender s;
	size_t key_len;
	uint8_t *copy;
	int rc;

	if (stamp_auth_key_parse((const char *)data, size, key, &key_len) == 0)
		assert(key_len >= 1 && key_len <= STAMP_AUTH_KEY_MAX);
	if (a == NULL)
		a = stamp_auth_create((const uint8_t *)"fuzz", 4);
	assert(a != NULL);
	rc = stamp_auth_verify(a, data, size);
	assert(rc == -EINVAL || rc == -EBADMSG || rc == 0);
	if (stamp_auth_sender_parse(data, size, &s) != 0) {
		assert(size < STAMP_AUTH_BASE_LEN);
		assert(stamp_auth_reflect(NULL, size, &o) == -EINVAL);
		return;
	}
	copy = malloc(size);
	if (copy == NULL)
		return;
	memcpy(copy, data, size);
	assert(stamp_auth_reflect(copy, size, &o) == (int)size);
	assert(stamp_auth_reflector_stamp(a, copy, size, 1) == 0);
	assert(stamp_auth_verify(a, copy, size) == 0);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct stamp_reflect_opts o = {.seq = 1, .sender_ttl = 64};
	struct stamp_sender s;
	struct stamp_tlv t;
	size_t off = STAMP_BASE_LEN;
	uint8_t *copy;

	fuzz_auth(data, size);
	if (stamp_sender_parse(data, size, &s) < 0)
		return 0;
	while (stamp_tlv_next(data, size, &off, &t) == 1)
		assert(t.value + t.length <= data + size);
	(void)stamp_sender_cos_dscp(data, size);
	/* exact-size copy: ASan sees any write past the request */
	copy = malloc(size);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	assert(stamp_reflect(copy, size, &o) == (int)size);
	stamp_reflector_stamp(copy, size, 1);
	free(copy);
	return 0;
}
