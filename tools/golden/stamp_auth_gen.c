/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prints the authenticated STAMP payloads latprobe's codec builds for the
 * golden cases, one "name hex" line each; tools/golden/stamp_auth_vectors.py
 * compiles it and compares every payload with the one it builds itself
 * (struct.pack from the RFC 8762 layouts, Python's hmac).
 */
#include <stdio.h>
#include <string.h>

#include "golden_gen.h"
#include "latprobe/stamp_auth.h"

static int
pair(struct stamp_auth *a, const char *sname, const char *rname, uint16_t ee,
     size_t len)
{
	struct stamp_sender_opts so = {
		.seq = 7,
		.timestamp = stamp_ts_from_ns(T1_NS, ee),
		.error_estimate = ee,
		.ssid = 0xbeef,
		.len = len,
	};
	struct stamp_reflect_opts ro = {
		.seq = 1000,
		.rx_timestamp = stamp_ts_from_ns(T2_NS, ee),
		.error_estimate = ee,
		.sender_ttl = 63,
	};
	uint8_t p[256];

	if (stamp_auth_sender_build(a, p, sizeof(p), &so) != (int)len)
		return -1;
	dump(sname, p, len);
	if (stamp_auth_reflect(p, len, &ro) != (int)len ||
	    stamp_auth_reflector_stamp(a, p, len,
				       stamp_ts_from_ns(T3_NS, ee)) != 0)
		return -1;
	dump(rname, p, len);
	return 0;
}

int
main(void)
{
	static const char key1[] = "latprobe golden key";
	uint8_t key2[STAMP_AUTH_KEY_MAX];
	const uint16_t ntp_ee = STAMP_EE_S | 10 << 8 | 3;
	const uint16_t ptp_ee = STAMP_EE_Z | 1;
	struct stamp_auth *a, *b;
	int rc = 0;

	/* the longest key we take: 64 bytes 0x00..0x3f */
	for (unsigned i = 0; i < sizeof(key2); i++)
		key2[i] = (uint8_t)i;
	a = stamp_auth_create((const uint8_t *)key1, strlen(key1));
	b = stamp_auth_create(key2, sizeof(key2));
	if (a == NULL || b == NULL)
		return 1;
	rc |= pair(a, "auth_sender_ntp_112", "auth_reflector_ntp_112", ntp_ee,
		   112);
	rc |= pair(a, "auth_sender_ptp_112", "auth_reflector_ptp_112", ptp_ee,
		   112);
	rc |= pair(b, "auth_sender_key64_128", "auth_reflector_key64_128",
		   ntp_ee, 128);
	stamp_auth_destroy(a);
	stamp_auth_destroy(b);
	return rc == 0 ? 0 : 1;
}
