/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_FRAG_H
#define LATPROBE_FRAG_H

/*
 * IPv4 fragmentation and reassembly for probes larger than the MTU
 * (PsPing's "-l 8k"), up to the largest UDP datagram (65,507 bytes).
 *
 * Own code rather than DPDK's rte_ip_frag: Debian's DPDK 22.11 is built
 * with RTE_LIBRTE_IP_FRAG_MAX_FRAG 8, so it reassembles at most 8 fragments
 * (11,840 bytes at MTU 1500); a 64 KiB probe needs 45. Pure C on (buf, len)
 * like the rest of the codec, so it is unit-tested, fuzzed and runs on every
 * io backend.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/codec.h"

#define CODEC_IPV4_MAX_DATAGRAM 65535 /* IPv4 total length limit */

/*
 * Fragment an IPv4 frame (Ethernet [+VLAN] + IPv4 without options + L4)
 * whose IP packet is larger than mtu. Writes the fragment whose data starts
 * at IP-payload offset *off (a multiple of 8; start with 0) into out: the
 * frame's L2 header, its IPv4 header with total length, fragment offset, MF
 * and header checksum set and DF cleared, then the data. Advances *off; it
 * is 0 again after the last fragment. Returns the fragment's frame length,
 * -EINVAL (not IPv4, f already a fragment, options present, mtu < 68, *off
 * not a multiple of 8 or past the end), -EMSGSIZE (cap too small).
 *
 * Every fragment but the last carries floor((mtu - 20) / 8) * 8 data bytes
 * (RFC 791 §2.3: offsets count 8-byte blocks); the L4 header is plain data
 * of the first one. The reserved flag bit is copied. A frame whose IP packet
 * fits in mtu is its own single fragment: copied to out unchanged (DF,
 * options and all, without trailing Ethernet padding), *off stays 0, so a
 * caller can always loop "do ... while (off != 0)".
 */
int codec_ipv4_fragment(const uint8_t *frame, const struct codec_frame *f,
			uint16_t mtu, size_t *off, uint8_t *out, size_t cap);

/* Fragments codec_ipv4_fragment() makes of f at mtu (1 when it fits, 0 when
 * it returns -EINVAL for f and mtu). */
unsigned codec_ipv4_frag_count(const struct codec_frame *f, uint16_t mtu);

/*
 * IPv6 (RFC 8200 4.5): the same for a frame of Ethernet [+VLAN] + IPv6
 * without extension headers + L4: each fragment is the L2 header, the IPv6
 * header (payload length set, next header 44) and a Fragment header (next
 * header = f->ip_proto, offset, M, identification id), then the data:
 * floor((mtu - 48) / 8) * 8 bytes but for the last. mtu below 1280 (the
 * IPv6 minimum), extension headers present or f a fragment: -EINVAL. A
 * frame that fits is copied whole, *off stays 0.
 */
int codec_ipv6_fragment(const uint8_t *frame, const struct codec_frame *f,
			uint16_t mtu, uint32_t id, size_t *off, uint8_t *out,
			size_t cap);

/*
 * One datagram being reassembled (RFC 791 §3.2, RFC 815 hole tracking by
 * 8-byte block). Key: source, destination, protocol, identification. IPv4,
 * or IPv6 (RFC 8200 4.5) when the Fragment header directly follows the IPv6
 * header (other layouts are -EINVAL): the output is then the first
 * fragment's L2 and IPv6 headers, payload length and next header fixed,
 * without the Fragment header; an overlap that is not a plain re-send is
 * refused as for IPv4 (RFC 5722). Same 65,535-byte bound.
 * About 66 KiB; create/destroy pair.
 */
struct codec_reasm;

struct codec_reasm *codec_reasm_create(void);
void codec_reasm_destroy(struct codec_reasm *r);
void codec_reasm_reset(struct codec_reasm *r);

/* Is r collecting a datagram, and since when (the `now` of its first fragment)?
 */
bool codec_reasm_active(const struct codec_reasm *r, uint64_t *started);
/* Does fragment f belong to the datagram r is collecting? */
bool codec_reasm_matches(const struct codec_reasm *r,
			 const struct codec_frame *f);

/*
 * Add fragment f (parsed from frame; f->is_fragment must be set). A
 * fragment of another datagram replaces the one in progress (the old one
 * is lost: returns it as -ESTALE after taking the new fragment in).
 * Returns 1 when the datagram is complete: *out then points at one
 * contiguous frame inside r (the first fragment's L2 header, its IPv4
 * header with MF/offset cleared, total length and checksum fixed, then the
 * whole payload) of *out_len bytes, valid until the next call; the caller
 * may modify it in place (e.g. reflect it) and should codec_reasm_reset()
 * when done. 0 when more fragments are needed; -EINVAL for a fragment that
 * cannot be part of a valid datagram (beyond 65,535 bytes, data after the
 * last fragment, an inconsistent overlap, a non-final fragment whose size
 * is not a multiple of 8): r is reset.
 *
 * Details: the output keeps the first fragment's L2 header (a VLAN tag
 * included) and IPv4 header with its IHL and options, its DF and reserved
 * bits (fragments we make have DF clear), with MF and the offset 0. A
 * duplicate fragment with the same bytes is accepted and changes nothing.
 * After returning 1, r is no longer active: the next fragment starts a new
 * datagram (no -ESTALE), so reuse of an IP id is harmless once complete.
 * A frame that is not an IPv4 fragment is -EINVAL with r left as it was.
 * When a fragment of another datagram is itself invalid, the result is
 * -EINVAL (the old datagram is lost all the same).
 */
int codec_reasm_add(struct codec_reasm *r, const uint8_t *frame,
		    const struct codec_frame *f, uint64_t now, uint8_t **out,
		    size_t *out_len);

#endif /* LATPROBE_FRAG_H */
