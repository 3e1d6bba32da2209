/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <stdint.h>

#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stamp_reflector r;
	struct stamp_error_estimate ee;
	struct stamp_tlv t;
	size_t off;

	static struct stamp_auth *a;
	int rc;

	/* Authenticated answers, as a keyed prober checks them. */
	if (a == NULL)
		a = stamp_auth_create((const uint8_t *)"fuzz", 4);
	assert(a != NULL);
	rc = stamp_auth_verify(a, data, size);
	assert(rc == -EINVAL || rc == -EBADMSG || rc == 0);
	rc = stamp_auth_reflector_parse(data, size, &r);
	assert(rc == (size < STAMP_AUTH_BASE_LEN ? -EINVAL : 0));
	if (rc == 0)
		(void)stamp_ts_to_ns(r.timestamp, r.error_estimate);

	/* The stall TLV, as a --stall-tlv prober reads it: found
	 * only in a well-formed TLV of its type, length and fill mark. */
	{
		struct stamp_lp_stalls ls;

		rc = stamp_lp_stalls_find(data, size, &ls);
		assert(rc == 1 || rc == 0 || rc == -ENOTSUP || rc == -EINVAL);
		assert(rc != 1 || size >= STAMP_BASE_LEN + STAMP_TLV_HDR_LEN +
						  STAMP_TLV_LP_STALLS_LEN);
	}

	/* Any reflector's answer, as the unkeyed prober reads it. */
	{
		struct stamp_answer an;

		rc = stamp_answer_parse(data, size, &an);
		assert(rc == (size < STAMP_ANSWER_MIN_LEN ? -EINVAL : 0));
		if (rc == 0 && stamp_reflector_parse(data, size, &r) == 0) {
			assert(an.sender_seq == r.sender_seq);
			assert(an.seq == r.seq);
			assert(an.error_estimate == r.error_estimate);
			assert(an.t3_ns ==
			       stamp_ts_to_ns(r.timestamp, r.error_estimate));
			assert(an.t2_ns == stamp_ts_to_ns(r.rx_timestamp,
							  r.error_estimate));
		}
	}

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
