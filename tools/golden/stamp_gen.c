/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prints the STAMP payloads latprobe's codec builds for the golden cases,
 * one "name hex" line each; tools/golden/stamp_vectors.py compiles it and
 * checks every payload with tshark's independent TWAMP-Test dissector.
 */
#include <stdio.h>
#include <string.h>

#include "golden_gen.h"
#include "latprobe/stamp.h"

static size_t
sender(uint8_t *p, uint16_t ee, bool tlvs, size_t len)
{
	struct stamp_sender_opts o = {
		.seq = 7,
		.timestamp = stamp_ts_from_ns(T1_NS, ee),
		.error_estimate = ee,
		.ssid = 0xbeef,
		.tlv_timestamp_info = tlvs,
		.tlv_class_of_service = tlvs,
		.cos_dscp = 46,
		.len = len,
	};

	return (size_t)stamp_sender_build(p, 1500, &o);
}

static void
reflector(const char *name, uint8_t *p, size_t len, uint16_t ee)
{
	struct stamp_reflect_opts o = {
		.seq = 1000,
		.rx_timestamp = stamp_ts_from_ns(T2_NS, ee),
		.error_estimate = ee,
		.sender_ttl = 63,
		.rx_tos = 0xb9, /* DSCP 46, ECN 1 */
		.sync_src = STAMP_SYNC_NTP,
		.ts_method = STAMP_TS_METHOD_SW,
	};

	stamp_reflect(p, len, &o);
	stamp_reflector_stamp(p, len, stamp_ts_from_ns(T3_NS, ee));
	dump(name, p, len);
}

int
main(void)
{
	/* S=1, scale 10, multiplier 3: 3 * 2^-22 s, about 715 ns */
	const uint16_t ntp_ee = STAMP_EE_S | 10 << 8 | 3;
	/* Z=1 (PTP), S=0, scale 0, multiplier 1 */
	const uint16_t ptp_ee = STAMP_EE_Z | 1;
	uint8_t p[1500];
	size_t n;

	n = sender(p, ntp_ee, false, 44);
	dump("sender_ntp_44", p, n);
	reflector("reflector_ntp_44", p, n, ntp_ee);

	n = sender(p, ptp_ee, false, 44);
	dump("sender_ptp_44", p, n);
	reflector("reflector_ptp_44", p, n, ptp_ee);

	n = sender(p, ntp_ee, true, 80);
	dump("sender_tlv_80", p, n);
	reflector("reflector_tlv_80", p, n, ntp_ee);

	/* TWAMP-Light sender: 14 bytes + 27 bytes zero padding (RFC 6038) */
	n = sender(p, ntp_ee, false, 44);
	dump("sender_light_41", p, 41);
	reflector("reflector_light_41", p, 41, ntp_ee);
	return 0;
}
