/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_ND_H
#define LATPROBE_ND_H

/*
 * IPv6 Neighbor Discovery (RFC 4861) as far as a prober and a reflector
 * need it: Neighbor Solicitation to find a peer's MAC, Neighbor
 * Advertisement to answer for our addresses. Ethernet only; no router
 * discovery, redirects or DAD of our own.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/codec.h"

#define CODEC_ICMP6_DEST_UNREACH 1
#define CODEC_ICMP6_NS		 135
#define CODEC_ICMP6_NA		 136
/* RFC 4861 7.1: ND is link-local; a hop limit below 255 came via a router. */
#define CODEC_ND_HOP_LIMIT	 255

#define CODEC_ND_NA_ROUTER    0x80
#define CODEC_ND_NA_SOLICITED 0x40
#define CODEC_ND_NA_OVERRIDE  0x20

/* ff02::1:ffXX:XXXX, the solicited-node multicast address of addr. */
void codec_ipv6_solicited_node(const uint8_t addr[16], uint8_t out[16]);
/* 33:33 + the low 32 bits of an IPv6 multicast address (RFC 2464 7). */
void codec_ipv6_mcast_mac(const uint8_t addr[16], struct codec_mac *mac);
/* fe80::/64 with the modified EUI-64 of mac (RFC 4291 2.5.1, App. A). */
void codec_ipv6_link_local(const struct codec_mac *mac, uint8_t out[16]);
/* ::, multicast (ff00::/8), loopback ::1, link-local fe80::/10. */
bool codec_ipv6_is_unspecified(const uint8_t a[16]);
bool codec_ipv6_is_multicast(const uint8_t a[16]);
bool codec_ipv6_is_loopback(const uint8_t a[16]);

/* A validated NS or NA. */
struct codec_nd {
	uint8_t type;  /* CODEC_ICMP6_NS or CODEC_ICMP6_NA */
	uint8_t flags; /* NA: CODEC_ND_NA_* */
	uint8_t target[16];
	bool has_lladdr; /* source (NS) / target (NA) link-layer address */
	struct codec_mac lladdr;
};

/*
 * Validate a parsed ICMPv6 frame as an NS or NA (RFC 4861 7.1.1, 7.1.2):
 * hop limit 255, code 0, ICMPv6 checksum right, at least 24 bytes, target
 * not multicast, every option of non-zero length and inside the message;
 * an NS from :: goes to a solicited-node address and has no source
 * link-layer option; an NA to a multicast address is not solicited.
 * 0, -ENOENT (not NS/NA), or -EINVAL (an NS/NA that fails a check).
 */
int codec_nd_parse(const uint8_t *buf, const struct codec_frame *f,
		   struct codec_nd *nd);

/*
 * A Neighbor Solicitation from src (our MAC and address) for target: to its
 * solicited-node address and MAC, hop limit 255, with our link-layer
 * address; tagged vlan when vlan != 0. The frame length, -EINVAL/-EMSGSIZE.
 */
int codec_build_ns(uint8_t *buf, size_t cap, const struct codec_mac *src_mac,
		   const uint8_t src[16], const uint8_t target[16],
		   uint16_t vlan);

/*
 * The Neighbor Advertisement answering a parsed, validated NS req/nd for an
 * address of ours (nd->target, checked by the caller): from that address
 * and my_mac, to the soliciting node (or to ff02::1, unsolicited, when it
 * asked from ::), on its VLAN, Solicited and Override set, with our
 * link-layer address. buf may hold req itself. The frame length, or
 * -EINVAL/-EMSGSIZE.
 */
int codec_build_na(uint8_t *buf, size_t cap, const struct codec_frame *req,
		   const struct codec_nd *nd, const struct codec_mac *my_mac);

#endif /* LATPROBE_ND_H */
