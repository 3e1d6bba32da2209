/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_TEST_WIRE_H
#define LATPROBE_TEST_WIRE_H

/*
 * Helpers the engine, prober, reflector and sockio unit tests share: frame
 * builders and the fake wire's rx side. They assert with cmocka (a builder
 * that fails fails the test), so only cmocka binaries link them; the fuzz
 * targets link io_fake alone (io_fake_dep).
 */

#include <stddef.h>
#include <stdint.h>

#include "latprobe/codec.h"
#include "io_fake.h"

/* The cast on the fake wire (RFC 2544 addresses): side 0's prober (the
 * reflector tests' peer), side 1's reflector, and a third party. */
#define TW_PROBER_IP 0xc6120001u /* 198.18.0.1 */
#define TW_REFL_IP   0xc6120002u /* 198.18.0.2 */
#define TW_OTHER_IP  0xc6120003u /* 198.18.0.3 */
extern const struct codec_mac tw_prober_mac, tw_refl_mac, tw_other_mac;

/* The clock: a 2 GHz TSC anchored at 2023-11-14T22:13:20Z (any plausible
 * wall clock for the NTP timestamps). */
#define TW_TSC_HZ    2000000000ull
#define TW_ANCHOR_NS 1700000000000000000ull

/* An IPv4 flow from src to dst (TTL, TOS and VLAN zero). */
struct codec_flow tw_flow4(const struct codec_mac *src_mac,
			   const struct codec_mac *dst_mac, uint32_t src,
			   uint32_t dst, uint16_t sport, uint16_t dport);

/* A whole UDP frame (IP ID 1) carrying pl; its length. */
size_t tw_build_udp(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		    const uint8_t *pl, size_t plen);

/* A STAMP Session-Sender packet of len bytes (>= 44: Extra Padding), NTP
 * timestamp of t_ns, error estimate 1; returns len. */
size_t tw_stamp_payload(uint8_t *pl, size_t len, uint32_t seq, uint16_t ssid,
			uint64_t t_ns);

/* Put frame on side's rx ring (asserts it fits). */
void tw_inject(struct io_fake *f, unsigned side, const void *frame, size_t len);

/* Free whatever waits on the rx ring of side; returns how many frames. */
unsigned tw_drain(struct io_fake *f, unsigned side);

/* Take the next frame waiting on side's rx ring into buf; its length. */
size_t tw_take_one(struct io_fake *f, unsigned side, uint8_t *buf, size_t cap);

#endif /* LATPROBE_TEST_WIRE_H */
