/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct stamp_reflect_opts o = {.seq = 1, .sender_ttl = 64};
	struct stamp_sender s;
	struct stamp_tlv t;
	size_t off = STAMP_BASE_LEN;
	uint8_t *copy;

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
