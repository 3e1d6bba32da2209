/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <stdint.h>

#include "stamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stamp_reflector r;
	struct stamp_error_estimate ee;
	struct stamp_tlv t;
	size_t off;

	if (stamp_reflector_parse(data, size, &r) < 0)
		return 0;
	assert(r.tlv_off <= size);
	off = r.tlv_off < STAMP_BASE_LEN ? STAMP_BASE_LEN : r.tlv_off;
	while (stamp_tlv_next(data, size, &off, &t) == 1)
		assert(off <= size);
	stamp_ee_decode(r.error_estimate, &ee);
	assert(stamp_ee_encode(&ee) == r.error_estimate);
	(void)stamp_ee_to_ns(&ee);
	(void)stamp_ts_to_ns(r.timestamp, r.error_estimate);
	(void)stamp_ts_to_ns(r.sender_timestamp, r.sender_error_estimate);
	return 0;
}
