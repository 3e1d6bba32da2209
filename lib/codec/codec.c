/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet/VLAN/ARP/IPv4/IPv6/UDP/ICMP/TCP: checksums, the one parser
 * (codec_parse_frame and its helpers), the builders (UDP, ICMP echo, TCP,
 * ARP, ICMP errors, VLAN insertion), turning a request into its answer in
 * place (codec_turn_around) and MAC text.
 *
 * Over 1,000 lines with a reason: parser, builders and turn-around share
 * the static helpers of this file (the unaligned loads and stores ld16,
 * ld32, st16 at the top, pseudo_sum, put_eth, check_fit), which the
 * compiler inlines into both engines' per-packet path only within one
 * translation unit (no LTO in this build);
 * the protocols above IP have their own files (stamp.c, stamp_auth.c,
 * sockperf.c, frag.c, nd.c).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_arp.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_tcp.h>
#include <rte_icmp.h>

#include "latprobe/codec.h"

/*
 * Frames may start at any byte offset (mbuf headroom, VLAN tags, IPv4
 * options), so every multi-byte field goes through memcpy; compilers turn
 * these into single unaligned loads/stores on x86 and arm64.
 */
#define OFF(type, field) offsetof(struct type, field)

_Static_assert(sizeof(struct rte_ether_hdr) == CODEC_ETH_HLEN, "eth");
_Static_assert(sizeof(struct rte_vlan_hdr) == CODEC_VLAN_HLEN, "vlan");
_Static_assert(sizeof(struct rte_ipv4_hdr) == CODEC_IPV4_HLEN, "ipv4");
_Static_assert(sizeof(struct rte_ipv6_hdr) == CODEC_IPV6_HLEN, "ipv6");
_Static_assert(sizeof(struct rte_udp_hdr) == CODEC_UDP_HLEN, "udp");
_Static_assert(sizeof(struct rte_icmp_hdr) == CODEC_ICMP_HLEN, "icmp");
_Static_assert(sizeof(struct rte_tcp_hdr) == CODEC_TCP_HLEN, "tcp");
_Static_assert(sizeof(struct rte_arp_hdr) == CODEC_ARP_LEN, "arp");

/* IPv4 flags/fragment offset field, RFC 791 §3.1. */
#define IPV4_DF	      0x4000
#define IPV4_MF	      0x2000
#define IPV4_OFF_MASK 0x1fff

/* TCP option kinds, RFC 9293 §3.2. */
#define TCPOPT_EOL  0
#define TCPOPT_NOP  1
#define TCPOPT_MSS  2
#define TCPOLEN_MSS 4

#define DEFAULT_TTL 64

static inline uint16_t
ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline uint32_t
ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

static inline void
st16(uint8_t *p, uint16_t v)
{
	uint16_t be = rte_cpu_to_be_16(v);

	memcpy(p, &be, sizeof(be));
}

static inline void
st32(uint8_t *p, uint32_t v)
{
	uint32_t be = rte_cpu_to_be_32(v);

	memcpy(p, &be, sizeof(be));
}

/* ---- checksums (RFC 1071) ---- */

/*
 * Sums 16-bit words as they lie in memory (native order): the one's
 * complement sum is byte-order independent (RFC 1071 §2(B)), so the folded
 * result stored back with memcpy lands in network order on any host.
 * Only the last chunk of a chained sum may have an odd length.
 */
uint32_t
codec_csum_partial(const void *data, size_t len, uint32_t sum)
{
	const uint8_t *p = data;
	uint64_t acc = sum;
	uint32_t w32;
	uint16_t w16;

	/* 8 bytes a step as two 32-bit halves: the 64-bit accumulator cannot
	 * overflow below 2^32 steps, and the one's-complement sum does not
	 * care how the words are grouped. */
	while (len >= 8) {
		uint64_t w64;

		memcpy(&w64, p, sizeof(w64));
		acc += (w64 & 0xffffffffu) + (w64 >> 32);
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		memcpy(&w32, p, sizeof(w32));
		acc += w32;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&w16, p, sizeof(w16));
		acc += w16;
		p += 2;
		len -= 2;
	}
	if (len == 1) {
		uint8_t last[2] = {*p, 0};

		memcpy(&w16, last, sizeof(w16));
		acc += w16;
	}
	while (acc >> 32)
		acc = (acc & 0xffffffff) + (acc >> 32);
	return (uint32_t)acc;
}

/* Folds to 16 bits and complements: the value to store in the header. */
uint16_t
codec_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ---- parser ---- */

static int
parse_arp(const uint8_t *p, size_t avail, struct codec_frame *f)
{
	if (avail < CODEC_ARP_LEN)
		return -EINVAL;
	/* Only Ethernet/IPv4 ARP exists on our links (RFC 826). */
	if (ld16(p + OFF(rte_arp_hdr, arp_hardware)) != RTE_ARP_HRD_ETHER ||
	    ld16(p + OFF(rte_arp_hdr, arp_protocol)) != CODEC_ETHERTYPE_IPV4 ||
	    p[OFF(rte_arp_hdr, arp_hlen)] != CODEC_ETH_ALEN ||
	    p[OFF(rte_arp_hdr, arp_plen)] != 4)
		return -EINVAL;
	f->arp_op = ld16(p + OFF(rte_arp_hdr, arp_opcode));
	memcpy(f->arp_sha.b, p + OFF(rte_arp_hdr, arp_data.arp_sha),
	       CODEC_ETH_ALEN);
	f->arp_spa = ld32(p + OFF(rte_arp_hdr, arp_data.arp_sip));
	memcpy(f->arp_tha.b, p + OFF(rte_arp_hdr, arp_data.arp_tha),
	       CODEC_ETH_ALEN);
	f->arp_tpa = ld32(p + OFF(rte_arp_hdr, arp_data.arp_tip));
	return 0;
}

static int
parse_tcp_options(const uint8_t *opt, size_t olen, struct codec_frame *f)
{
	size_t i = 0;

	/*
	 * RFC 9293 §3.1: an illegal option length must not crash us; like
	 * Linux (tcp_parse_options) we stop at the first malformed option
	 * and keep what was read before it.
	 */
	while (i < olen) {
		uint8_t kind = opt[i];
		uint8_t l;

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= olen)
			break;
		l = opt[i + 1];
		if (l < 2 || l > olen - i)
			break;
		if (kind == TCPOPT_MSS && l == TCPOLEN_MSS)
			f->tcp_mss = ld16(opt + i + 2);
		i += l;
	}
	return 0;
}

static int
parse_l4(const uint8_t *buf, struct codec_frame *f)
{
	const uint8_t *p = buf + f->l4_off;
	size_t avail = f->l4_len;
	size_t hlen;

	switch (f->ip_proto) {
	case CODEC_IPPROTO_UDP: {
		uint16_t ulen;

		if (avail < CODEC_UDP_HLEN)
			return -EINVAL;
		ulen = ld16(p + OFF(rte_udp_hdr, dgram_len));
		/* No jumbograms (RFC 2675): length 0 is an error too. */
		if (ulen < CODEC_UDP_HLEN || ulen > avail)
			return -EINVAL;
		f->sport = ld16(p + OFF(rte_udp_hdr, src_port));
		f->dport = ld16(p + OFF(rte_udp_hdr, dst_port));
		f->l4_len = ulen;
		hlen = CODEC_UDP_HLEN;
		break;
	}
	case CODEC_IPPROTO_TCP: {
		uint8_t doff;

		if (avail < CODEC_TCP_HLEN)
			return -EINVAL;
		doff = p[OFF(rte_tcp_hdr, data_off)] >> 4;
		hlen = (size_t)doff * 4;
		if (doff < 5 || hlen > avail)
			return -EINVAL;
		f->sport = ld16(p + OFF(rte_tcp_hdr, src_port));
		f->dport = ld16(p + OFF(rte_tcp_hdr, dst_port));
		f->tcp_seq = ld32(p + OFF(rte_tcp_hdr, sent_seq));
		f->tcp_ack = ld32(p + OFF(rte_tcp_hdr, recv_ack));
		f->tcp_flags = p[OFF(rte_tcp_hdr, tcp_flags)];
		f->tcp_window = ld16(p + OFF(rte_tcp_hdr, rx_win));
		parse_tcp_options(p + CODEC_TCP_HLEN, hlen - CODEC_TCP_HLEN, f);
		break;
	}
	case CODEC_IPPROTO_ICMP:
	case CODEC_IPPROTO_ICMPV6: {
		uint8_t type;

		/* ICMPv4 only over IPv4, ICMPv6 only over IPv6. */
		if ((f->ip_proto == CODEC_IPPROTO_ICMP) != (f->ip_version == 4))
			return 0;
		if (avail < CODEC_ICMP_HLEN)
			return -EINVAL;
		type = p[OFF(rte_icmp_hdr, icmp_type)];
		f->icmp_type = type;
		f->icmp_code = p[OFF(rte_icmp_hdr, icmp_code)];
		/* Only echo has id/seq in the 4 rest-of-header bytes. */
		if (f->ip_version == 4 ? (type == CODEC_ICMP_ECHO_REQUEST ||
					  type == CODEC_ICMP_ECHO_REPLY)
				       : (type == CODEC_ICMP6_ECHO_REQUEST ||
					  type == CODEC_ICMP6_ECHO_REPLY)) {
			f->icmp_id = ld16(p + OFF(rte_icmp_hdr, icmp_ident));
			f->icmp_seq = ld16(p + OFF(rte_icmp_hdr, icmp_seq_nb));
		}
		hlen = CODEC_ICMP_HLEN;
		break;
	}
	default:
		return 0;
	}
	f->payload_off = (uint16_t)(f->l4_off + hlen);
	f->payload_len = (uint16_t)(f->l4_len - hlen);
	return 0;
}

static int
parse_ipv4(const uint8_t *buf, size_t avail, struct codec_frame *f)
{
	const uint8_t *p = buf + f->l3_off;
	size_t hlen, tlen;
	uint16_t frag;

	if (avail < CODEC_IPV4_HLEN)
		return -EINVAL;
	if ((p[0] >> 4) != 4)
		return -EINVAL;
	hlen = (size_t)(p[0] & 0x0f) * 4;
	tlen = ld16(p + OFF(rte_ipv4_hdr, total_length));
	if (hlen < CODEC_IPV4_HLEN || hlen > tlen || tlen > avail)
		return -EINVAL;
	f->ip_version = 4;
	f->tos = p[OFF(rte_ipv4_hdr, type_of_service)];
	f->ip_len = (uint16_t)tlen;
	f->ip_id = ld16(p + OFF(rte_ipv4_hdr, packet_id));
	frag = ld16(p + OFF(rte_ipv4_hdr, fragment_offset));
	f->ttl = p[OFF(rte_ipv4_hdr, time_to_live)];
	f->ip_proto = p[OFF(rte_ipv4_hdr, next_proto_id)];
	f->src4 = ld32(p + OFF(rte_ipv4_hdr, src_addr));
	f->dst4 = ld32(p + OFF(rte_ipv4_hdr, dst_addr));
	f->l3_hlen = (uint16_t)hlen;
	f->more_fragments = (frag & IPV4_MF) != 0;
	/* Offset in 8-byte units (RFC 791): at most 65528 bytes. */
	f->frag_off = (uint16_t)((frag & IPV4_OFF_MASK) * 8);
	f->is_fragment = f->more_fragments || f->frag_off != 0;
	f->l4_off = (uint16_t)(f->l3_off + hlen);
	f->l4_len = (uint16_t)(tlen - hlen);
	/*
	 * Even the first fragment is not parsed: its UDP length and L4
	 * checksum cover the whole datagram, which we never reassemble.
	 */
	if (f->is_fragment)
		return 0;
	return parse_l4(buf, f);
}

/*
 * Options of a hop-by-hop or destination options header of len bytes (RFC
 * 8200 4.2): *refuse set when one says "discard" (an unknown type whose
 * two high bits are not 00; we know only Pad1 and PadN). 0, or -EINVAL when
 * an option runs past the header.
 */
static int
ipv6_options(const uint8_t *p, size_t len, bool *refuse)
{
	size_t i = 2;

	while (i < len) {
		uint8_t t = p[i];

		if (t == 0) { /* Pad1 */
			i++;
			continue;
		}
		if (i + 2 > len || (size_t)p[i + 1] + 2 > len - i)
			return -EINVAL;
		if (t != 1 && (t >> 6) != 0)
			*refuse = true;
		i += (size_t)p[i + 1] + 2;
	}
	return 0;
}

/*
 * Walk the extension headers after the IPv6 header (RFC 8200 4.1 order
 * not enforced except hop-by-hop first), at most CODEC_IPV6_MAX_EXT, each
 * inside the payload; stops at the first header that is not an extension
 * header, or after a Fragment header of a real fragment (its data is not
 * walked). Sets ip_proto, l3_hlen, l4_off/l4_len and the fragment fields.
 */
static int
ipv6_walk(const uint8_t *buf, struct codec_frame *f, size_t plen)
{
	const uint8_t *p = buf + f->l3_off + CODEC_IPV6_HLEN;
	uint8_t nh = f->ip_proto;
	size_t used = 0;

	for (unsigned n = 0;; n++) {
		size_t hl;

		if (nh != CODEC_IPPROTO_HOPOPTS &&
		    nh != CODEC_IPPROTO_ROUTING &&
		    nh != CODEC_IPPROTO_FRAGMENT && nh != CODEC_IPPROTO_DSTOPTS)
			break;
		if (n == CODEC_IPV6_MAX_EXT || plen - used < 8 ||
		    (nh == CODEC_IPPROTO_HOPOPTS && n != 0))
			return -EINVAL;
		if (nh == CODEC_IPPROTO_FRAGMENT) {
			uint16_t w = ld16(p + used + 2);

			f->frag_hdr_off = (uint16_t)(p + used - buf);
			f->frag_off = (uint16_t)(w & 0xfff8);
			f->more_fragments = (w & 1) != 0;
			f->frag_id = ld32(p + used + 4);
			f->ip_id = (uint16_t)f->frag_id;
			hl = CODEC_IPV6_FRAG_HLEN;
			nh = p[used];
			used += hl;
			/* RFC 6946: an atomic fragment is a whole packet. */
			f->is_fragment = f->more_fragments || f->frag_off != 0;
			if (f->is_fragment)
				break;
			continue;
		}
		hl = ((size_t)p[used + 1] + 1) * 8;
		if (hl > plen - used)
			return -EINVAL;
		if (nh == CODEC_IPPROTO_ROUTING) {
			/* Segments left: we are not the last hop. */
			if (p[used + 3] != 0)
				f->ip6_ext_refused = true;
		} else if (ipv6_options(p + used, hl, &f->ip6_ext_refused) !=
			   0) {
			return -EINVAL;
		}
		nh = p[used];
		used += hl;
	}
	f->ip_proto = nh;
	f->l3_hlen = (uint16_t)(CODEC_IPV6_HLEN + used);
	f->l4_off = (uint16_t)(f->l3_off + f->l3_hlen);
	f->l4_len = (uint16_t)(plen - used);
	return 0;
}

static int
parse_ipv6(const uint8_t *buf, size_t avail, struct codec_frame *f)
{
	const uint8_t *p = buf + f->l3_off;
	uint32_t vtc;
	size_t plen;

	if (avail < CODEC_IPV6_HLEN)
		return -EINVAL;
	vtc = ld32(p + OFF(rte_ipv6_hdr, vtc_flow));
	if ((vtc >> 28) != 6)
		return -EINVAL;
	plen = ld16(p + OFF(rte_ipv6_hdr, payload_len));
	/* ip_len is 16 bits wide: 64 KiB IPv6 packets never fit a frame. */
	if (plen > avail - CODEC_IPV6_HLEN ||
	    plen > UINT16_MAX - CODEC_IPV6_HLEN)
		return -EINVAL;
	f->ip_version = 6;
	f->tos = (uint8_t)(vtc >> 20);
	f->ip_len = (uint16_t)(CODEC_IPV6_HLEN + plen);
	f->ip_proto = p[OFF(rte_ipv6_hdr, proto)];
	f->ttl = p[OFF(rte_ipv6_hdr, hop_limits)];
	memcpy(f->src6, p + OFF(rte_ipv6_hdr, src_addr), 16);
	memcpy(f->dst6, p + OFF(rte_ipv6_hdr, dst_addr), 16);
	if (ipv6_walk(buf, f, plen) != 0)
		return -EINVAL;
	/* As over IPv4: a fragment's L4 is not parsed. */
	if (f->is_fragment)
		return 0;
	return parse_l4(buf, f);
}

int
codec_parse_frame(const uint8_t *buf, size_t len, struct codec_frame *f)
{
	size_t off = CODEC_ETH_HLEN;
	uint16_t et;

	if (buf == NULL || f == NULL)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	if (len < CODEC_ETH_HLEN)
		return -EINVAL;
	memcpy(f->dst.b, buf + OFF(rte_ether_hdr, dst_addr), CODEC_ETH_ALEN);
	memcpy(f->src.b, buf + OFF(rte_ether_hdr, src_addr), CODEC_ETH_ALEN);
	et = ld16(buf + OFF(rte_ether_hdr, ether_type));
	if (et == CODEC_ETHERTYPE_VLAN) {
		if (len < off + CODEC_VLAN_HLEN)
			return -EINVAL;
		f->has_vlan = true;
		f->vlan_tci = ld16(buf + off + OFF(rte_vlan_hdr, vlan_tci));
		et = ld16(buf + off + OFF(rte_vlan_hdr, eth_proto));
		off += CODEC_VLAN_HLEN;
	}
	f->ethertype = et;
	f->l3_off = (uint16_t)off;

	switch (et) {
	case CODEC_ETHERTYPE_ARP:
		return parse_arp(buf + off, len - off, f);
	case CODEC_ETHERTYPE_IPV4:
		return parse_ipv4(buf, len - off, f);
	case CODEC_ETHERTYPE_IPV6:
		return parse_ipv6(buf, len - off, f);
	default:
		return 0;
	}
}

uint16_t
codec_csum_adjust(uint16_t hc, uint32_t old_sum, uint32_t new_sum)
{
	/* codec_csum_fold() gives ~m; ~codec_csum_fold() gives m'. */
	uint32_t sum = (uint32_t)(uint16_t)~hc + codec_csum_fold(old_sum) +
		       (uint16_t)~codec_csum_fold(new_sum);
	uint16_t r;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	r = (uint16_t)~sum;
	return r == 0 && hc != 0 ? 0xffff : r;
}

/* ---- checksum check/set on parsed frames ---- */

/* Sum of the RFC 768 / RFC 8200 §8.1 pseudo-header for this frame. */
static uint32_t
pseudo_sum(const uint8_t *buf, const struct codec_frame *f)
{
	const uint8_t *ip = buf + f->l3_off;
	uint8_t tail[8] = {0};
	uint32_t sum;

	if (f->ip_version == 4) {
		sum = codec_csum_partial(ip + OFF(rte_ipv4_hdr, src_addr), 8,
					 0);
		tail[1] = f->ip_proto;
		st16(tail + 2, f->l4_len);
		return codec_csum_partial(tail, 4, sum);
	}
	sum = codec_csum_partial(ip + OFF(rte_ipv6_hdr, src_addr), 32, 0);
	st32(tail, f->l4_len);
	tail[7] = f->ip_proto;
	return codec_csum_partial(tail, 8, sum);
}

/* Offset of the checksum field inside the L4 header, or -1. */
static int
l4_csum_field(const struct codec_frame *f)
{
	if (f->ip_version != 4 && f->ip_version != 6)
		return -1;
	if (f->is_fragment || f->payload_off == 0)
		return -1;
	switch (f->ip_proto) {
	case CODEC_IPPROTO_UDP:
		return OFF(rte_udp_hdr, dgram_cksum);
	case CODEC_IPPROTO_TCP:
		return OFF(rte_tcp_hdr, cksum);
	case CODEC_IPPROTO_ICMP:
	case CODEC_IPPROTO_ICMPV6:
		return OFF(rte_icmp_hdr, icmp_cksum);
	default:
		return -1;
	}
}

static uint16_t
l4_csum(const uint8_t *buf, const struct codec_frame *f)
{
	uint32_t sum = 0;

	/* ICMPv4 has no pseudo-header (RFC 792); ICMPv6 has (RFC 4443 §2.3). */
	if (f->ip_proto != CODEC_IPPROTO_ICMP)
		sum = pseudo_sum(buf, f);
	return codec_csum_fold(
		codec_csum_partial(buf + f->l4_off, f->l4_len, sum));
}

bool
codec_ipv4_csum_ok(const uint8_t *buf, const struct codec_frame *f)
{
	if (f->ip_version != 4)
		return false;
	return codec_csum_fold(
		       codec_csum_partial(buf + f->l3_off, f->l3_hlen, 0)) == 0;
}

bool
codec_l4_csum_ok(const uint8_t *buf, const struct codec_frame *f)
{
	int field = l4_csum_field(f);
	uint16_t stored;

	if (field < 0)
		return false;
	memcpy(&stored, buf + f->l4_off + field, sizeof(stored));
	/* RFC 768: zero means "no checksum" over IPv4; RFC 8200 §8.1 forbids
	 * it over IPv6. */
	if (f->ip_proto == CODEC_IPPROTO_UDP && stored == 0)
		return f->ip_version == 4;
	return l4_csum(buf, f) == 0;
}

enum codec_l4_csum
codec_l4_csum_check(const uint8_t *buf, const struct codec_frame *f,
		    uint16_t *complete)
{
	int field = l4_csum_field(f);
	uint16_t stored, pseudo, c;
	uint32_t ps, sum;

	if (field < 0)
		return CODEC_L4_CSUM_BAD;
	memcpy(&stored, buf + f->l4_off + field, sizeof(stored));
	if (f->ip_proto == CODEC_IPPROTO_UDP && stored == 0)
		return f->ip_version == 4 ? CODEC_L4_CSUM_OK
					  : CODEC_L4_CSUM_BAD;
	if (f->ip_proto == CODEC_IPPROTO_ICMP)
		return l4_csum(buf, f) == 0 ? CODEC_L4_CSUM_OK
					    : CODEC_L4_CSUM_BAD;
	ps = pseudo_sum(buf, f);
	sum = codec_csum_partial(buf + f->l4_off, f->l4_len, ps);
	if (codec_csum_fold(sum) == 0)
		return CODEC_L4_CSUM_OK;
	/* The folded sum of a pseudo-header is never 0 (its protocol word
	 * is not), so it has one representation, the kernel's. */
	pseudo = (uint16_t)~codec_csum_fold(ps);
	if (stored != pseudo)
		return CODEC_L4_CSUM_BAD;
	if (complete != NULL) {
		/* The sum without the field (one's complement: + ~stored),
		 * complemented; UDP sends a computed 0 as 0xffff. */
		c = codec_csum_fold(codec_csum_partial(
			&(uint16_t){(uint16_t)~stored}, 2, sum));
		if (c == 0 && f->ip_proto == CODEC_IPPROTO_UDP)
			c = 0xffff;
		*complete = c;
	}
	return CODEC_L4_CSUM_PARTIAL;
}

uint16_t
codec_l4_pseudo_csum(const uint8_t *buf, const struct codec_frame *f)
{
	if (l4_csum_field(f) < 0 || f->ip_proto == CODEC_IPPROTO_ICMP)
		return 0;
	return (uint16_t)~codec_csum_fold(pseudo_sum(buf, f));
}

void
codec_ipv4_csum_set(uint8_t *buf, const struct codec_frame *f)
{
	uint8_t *ip = buf + f->l3_off;
	uint16_t c = 0;

	if (f->ip_version != 4)
		return;
	memcpy(ip + OFF(rte_ipv4_hdr, hdr_checksum), &c, sizeof(c));
	c = codec_csum_fold(codec_csum_partial(ip, f->l3_hlen, 0));
	memcpy(ip + OFF(rte_ipv4_hdr, hdr_checksum), &c, sizeof(c));
}

void
codec_l4_csum_set(uint8_t *buf, const struct codec_frame *f)
{
	int field = l4_csum_field(f);
	uint16_t c = 0;

	if (field < 0)
		return;
	memcpy(buf + f->l4_off + field, &c, sizeof(c));
	c = l4_csum(buf, f);
	/* RFC 768: a computed zero goes out as all ones for UDP. */
	if (c == 0 && f->ip_proto == CODEC_IPPROTO_UDP)
		c = 0xffff;
	memcpy(buf + f->l4_off + field, &c, sizeof(c));
}

/* ---- builders ---- */

static size_t
l2_len(const struct codec_flow *fl)
{
	return CODEC_ETH_HLEN + (fl->vlan ? CODEC_VLAN_HLEN : 0);
}

static size_t
l3_len(const struct codec_flow *fl)
{
	return fl->ip_version == 6 ? CODEC_IPV6_HLEN : CODEC_IPV4_HLEN;
}

static size_t
put_eth(uint8_t *buf, const struct codec_mac *dst, const struct codec_mac *src,
	bool vlan, uint16_t tci, uint16_t ethertype)
{
	size_t off = CODEC_ETH_HLEN;

	memcpy(buf + OFF(rte_ether_hdr, dst_addr), dst->b, CODEC_ETH_ALEN);
	memcpy(buf + OFF(rte_ether_hdr, src_addr), src->b, CODEC_ETH_ALEN);
	if (vlan) {
		st16(buf + OFF(rte_ether_hdr, ether_type),
		     CODEC_ETHERTYPE_VLAN);
		st16(buf + off + OFF(rte_vlan_hdr, vlan_tci), tci);
		off += CODEC_VLAN_HLEN;
		st16(buf + off - 2, ethertype);
	} else {
		st16(buf + OFF(rte_ether_hdr, ether_type), ethertype);
	}
	return off;
}

/*
 * Writes L2 + L3 for an L4 segment of l4len bytes and fills f the way the
 * parser would, so the checksum setters can run on it.
 */
static void
put_l2_l3(uint8_t *buf, const struct codec_flow *fl, uint8_t proto,
	  uint16_t ip_id, size_t l4len, struct codec_frame *f)
{
	uint8_t ttl = fl->ttl != 0 ? fl->ttl : DEFAULT_TTL;
	size_t off;
	uint8_t *ip;

	memset(f, 0, sizeof(*f));
	off = put_eth(buf, &fl->dst_mac, &fl->src_mac, fl->vlan, fl->vlan_tci,
		      fl->ip_version == 6 ? CODEC_ETHERTYPE_IPV6
					  : CODEC_ETHERTYPE_IPV4);
	ip = buf + off;
	f->l3_off = (uint16_t)off;
	f->ip_version = fl->ip_version;
	f->ip_proto = proto;
	f->l3_hlen = (uint16_t)l3_len(fl);
	f->l4_off = (uint16_t)(off + f->l3_hlen);
	f->l4_len = (uint16_t)l4len;
	if (fl->ip_version == 6) {
		/* Version 6, traffic class, flow label 0 (RFC 8200 §3). */
		st32(ip + OFF(rte_ipv6_hdr, vtc_flow),
		     (6u << 28) | ((uint32_t)fl->tos << 20));
		st16(ip + OFF(rte_ipv6_hdr, payload_len), (uint16_t)l4len);
		ip[OFF(rte_ipv6_hdr, proto)] = proto;
		ip[OFF(rte_ipv6_hdr, hop_limits)] = ttl;
		memcpy(ip + OFF(rte_ipv6_hdr, src_addr), fl->src6, 16);
		memcpy(ip + OFF(rte_ipv6_hdr, dst_addr), fl->dst6, 16);
		f->ip_len = (uint16_t)(CODEC_IPV6_HLEN + l4len);
		return;
	}
	ip[0] = 0x45;
	ip[OFF(rte_ipv4_hdr, type_of_service)] = fl->tos;
	st16(ip + OFF(rte_ipv4_hdr, total_length),
	     (uint16_t)(CODEC_IPV4_HLEN + l4len));
	st16(ip + OFF(rte_ipv4_hdr, packet_id), ip_id);
	/*
	 * DF: a fragmented probe would measure reassembly, not the path;
	 * better dropped (and seen as loss) than silently split.
	 */
	st16(ip + OFF(rte_ipv4_hdr, fragment_offset), IPV4_DF);
	ip[OFF(rte_ipv4_hdr, time_to_live)] = ttl;
	ip[OFF(rte_ipv4_hdr, next_proto_id)] = proto;
	st32(ip + OFF(rte_ipv4_hdr, src_addr), fl->src4);
	st32(ip + OFF(rte_ipv4_hdr, dst_addr), fl->dst4);
	f->ip_len = (uint16_t)(CODEC_IPV4_HLEN + l4len);
	codec_ipv4_csum_set(buf, f);
}

/* -EINVAL / -EMSGSIZE, or 0 when a frame of l4len L4 bytes fits in cap. */
static int
check_fit(const struct codec_flow *fl, size_t cap, size_t l4len)
{
	size_t max_l4;

	if (fl->ip_version != 4 && fl->ip_version != 6)
		return -EINVAL;
	/* IPv4 total length and IPv6 payload length are 16-bit fields. */
	max_l4 = fl->ip_version == 4 ? UINT16_MAX - CODEC_IPV4_HLEN
				     : UINT16_MAX - CODEC_IPV6_HLEN;
	if (l4len > max_l4)
		return -EMSGSIZE;
	if (cap < l2_len(fl) + l3_len(fl) + l4len)
		return -EMSGSIZE;
	return 0;
}

size_t
codec_udp_header_len(const struct codec_flow *fl)
{
	return l2_len(fl) + l3_len(fl) + CODEC_UDP_HLEN;
}

int
codec_build_udp(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		uint16_t ip_id, const uint8_t *payload, size_t plen)
{
	struct codec_frame f;
	size_t hlen;
	uint8_t *udp;
	int rc;

	if (buf == NULL || fl == NULL || (payload == NULL && plen != 0))
		return -EINVAL;
	rc = check_fit(fl, cap, CODEC_UDP_HLEN + plen);
	if (rc < 0)
		return rc;
	hlen = codec_udp_header_len(fl);
	/* memmove: the payload may overlap where it is going. */
	if (plen != 0 && payload != buf + hlen)
		memmove(buf + hlen, payload, plen);
	put_l2_l3(buf, fl, CODEC_IPPROTO_UDP, ip_id, CODEC_UDP_HLEN + plen, &f);
	udp = buf + f.l4_off;
	st16(udp + OFF(rte_udp_hdr, src_port), fl->sport);
	st16(udp + OFF(rte_udp_hdr, dst_port), fl->dport);
	st16(udp + OFF(rte_udp_hdr, dgram_len), (uint16_t)f.l4_len);
	f.payload_off = (uint16_t)hlen;
	codec_l4_csum_set(buf, &f);
	return (int)(hlen + plen);
}

int
codec_build_icmp_echo(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		      uint8_t type, uint16_t id, uint16_t seq,
		      const uint8_t *payload, size_t plen)
{
	struct codec_frame f;
	uint8_t *icmp;
	int rc;

	if (buf == NULL || fl == NULL || (payload == NULL && plen != 0))
		return -EINVAL;
	if (fl->ip_version == 4 ? (type != CODEC_ICMP_ECHO_REQUEST &&
				   type != CODEC_ICMP_ECHO_REPLY)
				: (fl->ip_version != 6 ||
				   (type != CODEC_ICMP6_ECHO_REQUEST &&
				    type != CODEC_ICMP6_ECHO_REPLY)))
		return -EINVAL;
	rc = check_fit(fl, cap, CODEC_ICMP_HLEN + plen);
	if (rc < 0)
		return rc;
	/* memmove first: the payload may overlap where the headers go. */
	if (plen != 0 &&
	    payload != buf + l2_len(fl) + l3_len(fl) + CODEC_ICMP_HLEN)
		memmove(buf + l2_len(fl) + l3_len(fl) + CODEC_ICMP_HLEN,
			payload, plen);
	put_l2_l3(buf, fl,
		  fl->ip_version == 6 ? CODEC_IPPROTO_ICMPV6
				      : CODEC_IPPROTO_ICMP,
		  0, CODEC_ICMP_HLEN + plen, &f);
	icmp = buf + f.l4_off;
	icmp[OFF(rte_icmp_hdr, icmp_type)] = type;
	icmp[OFF(rte_icmp_hdr, icmp_code)] = 0;
	st16(icmp + OFF(rte_icmp_hdr, icmp_ident), id);
	st16(icmp + OFF(rte_icmp_hdr, icmp_seq_nb), seq);
	f.payload_off = (uint16_t)(f.l4_off + CODEC_ICMP_HLEN);
	codec_l4_csum_set(buf, &f);
	return (int)(f.l4_off + f.l4_len);
}

int
codec_build_icmp6(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		  uint8_t type, uint8_t code, const uint8_t *body, size_t blen)
{
	struct codec_frame f;
	uint8_t *icmp;
	int rc;

	/* Every ICMPv6 message has 4 bytes after its checksum (RFC 4443 2.1).
	 */
	if (buf == NULL || fl == NULL || body == NULL || blen < 4 ||
	    fl->ip_version != 6)
		return -EINVAL;
	rc = check_fit(fl, cap, 4 + blen);
	if (rc < 0)
		return rc;
	memmove(buf + l2_len(fl) + l3_len(fl) + 4, body, blen);
	put_l2_l3(buf, fl, CODEC_IPPROTO_ICMPV6, 0, 4 + blen, &f);
	icmp = buf + f.l4_off;
	icmp[0] = type;
	icmp[1] = code;
	f.payload_off = (uint16_t)(f.l4_off + CODEC_ICMP_HLEN);
	codec_l4_csum_set(buf, &f);
	return (int)(f.l4_off + f.l4_len);
}

int
codec_build_tcp(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		uint32_t seq, uint32_t ack, uint8_t flags, uint16_t window,
		uint16_t mss)
{
	size_t thlen = CODEC_TCP_HLEN + (mss != 0 ? TCPOLEN_MSS : 0);
	struct codec_frame f;
	uint8_t *tcp;
	int rc;

	if (buf == NULL || fl == NULL)
		return -EINVAL;
	rc = check_fit(fl, cap, thlen);
	if (rc < 0)
		return rc;
	put_l2_l3(buf, fl, CODEC_IPPROTO_TCP, 0, thlen, &f);
	tcp = buf + f.l4_off;
	st16(tcp + OFF(rte_tcp_hdr, src_port), fl->sport);
	st16(tcp + OFF(rte_tcp_hdr, dst_port), fl->dport);
	st32(tcp + OFF(rte_tcp_hdr, sent_seq), seq);
	st32(tcp + OFF(rte_tcp_hdr, recv_ack), ack);
	tcp[OFF(rte_tcp_hdr, data_off)] = (uint8_t)((thlen / 4) << 4);
	tcp[OFF(rte_tcp_hdr, tcp_flags)] = flags;
	st16(tcp + OFF(rte_tcp_hdr, rx_win), window);
	st16(tcp + OFF(rte_tcp_hdr, tcp_urp), 0);
	if (mss != 0) {
		tcp[CODEC_TCP_HLEN] = TCPOPT_MSS;
		tcp[CODEC_TCP_HLEN + 1] = TCPOLEN_MSS;
		st16(tcp + CODEC_TCP_HLEN + 2, mss);
	}
	f.payload_off = (uint16_t)(f.l4_off + thlen);
	codec_l4_csum_set(buf, &f);
	return (int)(f.l4_off + thlen);
}

/* ARP after an Ethernet header (tagged when vlan); the frame's length. */
static int
put_arp(uint8_t *buf, const struct codec_mac *eth_dst, bool vlan, uint16_t tci,
	uint16_t op, const struct codec_mac *sha, uint32_t spa,
	const struct codec_mac *tha, uint32_t tpa)
{
	size_t off = put_eth(buf, eth_dst, sha, vlan, tci, CODEC_ETHERTYPE_ARP);
	uint8_t *arp = buf + off;

	st16(arp + OFF(rte_arp_hdr, arp_hardware), RTE_ARP_HRD_ETHER);
	st16(arp + OFF(rte_arp_hdr, arp_protocol), CODEC_ETHERTYPE_IPV4);
	arp[OFF(rte_arp_hdr, arp_hlen)] = CODEC_ETH_ALEN;
	arp[OFF(rte_arp_hdr, arp_plen)] = 4;
	st16(arp + OFF(rte_arp_hdr, arp_opcode), op);
	memcpy(arp + OFF(rte_arp_hdr, arp_data.arp_sha), sha->b,
	       CODEC_ETH_ALEN);
	st32(arp + OFF(rte_arp_hdr, arp_data.arp_sip), spa);
	memcpy(arp + OFF(rte_arp_hdr, arp_data.arp_tha), tha->b,
	       CODEC_ETH_ALEN);
	st32(arp + OFF(rte_arp_hdr, arp_data.arp_tip), tpa);
	return (int)(off + CODEC_ARP_LEN);
}

int
codec_build_arp(uint8_t *buf, size_t cap, uint16_t op,
		const struct codec_mac *sha, uint32_t spa,
		const struct codec_mac *tha, uint32_t tpa)
{
	static const struct codec_mac bcast = {
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	static const struct codec_mac zero;

	if (buf == NULL || sha == NULL)
		return -EINVAL;
	if (op == CODEC_ARP_REQUEST) {
		if (cap < CODEC_ETH_HLEN + CODEC_ARP_LEN)
			return -EMSGSIZE;
		return put_arp(buf, &bcast, false, 0, op, sha, spa, &zero, tpa);
	}
	if (op != CODEC_ARP_REPLY || tha == NULL)
		return -EINVAL;
	if (cap < CODEC_ETH_HLEN + CODEC_ARP_LEN)
		return -EMSGSIZE;
	return put_arp(buf, tha, false, 0, op, sha, spa, tha, tpa);
}

int
codec_build_arp_reply(uint8_t *buf, size_t cap, const struct codec_frame *req,
		      const struct codec_mac *my_mac)
{
	size_t len;

	if (buf == NULL || req == NULL || my_mac == NULL ||
	    req->ethertype != CODEC_ETHERTYPE_ARP)
		return -EINVAL;
	len = CODEC_ETH_HLEN + (req->has_vlan ? CODEC_VLAN_HLEN : 0) +
	      CODEC_ARP_LEN;
	if (cap < len)
		return -EMSGSIZE;
	/* RFC 826 "Packet Reception": our MAC as sender, the asked-for
	 * address as ours, back to whoever asked, on the request's VLAN. */
	return put_arp(buf, &req->src, req->has_vlan, req->vlan_tci,
		       CODEC_ARP_REPLY, my_mac, req->arp_tpa, &req->arp_sha,
		       req->arp_spa);
}

int
codec_build_icmp_error(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		       uint8_t type, uint8_t code, const uint8_t *quote,
		       size_t qlen)
{
	struct codec_frame f;
	uint8_t *icmp;
	int rc;

	if (buf == NULL || fl == NULL || (quote == NULL && qlen != 0) ||
	    fl->ip_version != 4)
		return -EINVAL;
	rc = check_fit(fl, cap, CODEC_ICMP_HLEN + qlen);
	if (rc < 0)
		return rc;
	if (qlen != 0)
		memmove(buf + l2_len(fl) + l3_len(fl) + CODEC_ICMP_HLEN, quote,
			qlen);
	put_l2_l3(buf, fl, CODEC_IPPROTO_ICMP, 0, CODEC_ICMP_HLEN + qlen, &f);
	icmp = buf + f.l4_off;
	icmp[OFF(rte_icmp_hdr, icmp_type)] = type;
	icmp[OFF(rte_icmp_hdr, icmp_code)] = code;
	/* RFC 792: the 4 bytes after the checksum are unused (0). */
	st32(icmp + 4, 0);
	f.payload_off = (uint16_t)(f.l4_off + CODEC_ICMP_HLEN);
	codec_l4_csum_set(buf, &f);
	return (int)(f.l4_off + f.l4_len);
}

/* The ICMPv6 half of codec_parse_icmp_quote(). */
/*
 * The quoted L4 header's first 8 bytes at p (RFC 792 and RFC 4443 quote at
 * least that much) into q, for q->proto: ports, or the quoted echo's
 * type, id and sequence number (icmp_proto: ICMP or ICMPv6). False for a
 * protocol whose header it does not read.
 */
static bool
quote_l4(struct codec_icmp_quote *q, const uint8_t *p, uint8_t icmp_proto)
{
	if (q->proto == CODEC_IPPROTO_UDP || q->proto == CODEC_IPPROTO_TCP) {
		q->sport = ld16(p);
		q->dport = ld16(p + 2);
		return true;
	}
	if (q->proto == icmp_proto) {
		q->icmp_type = p[0];
		q->icmp_id = ld16(p + 4);
		q->icmp_seq = ld16(p + 6);
		return true;
	}
	return false;
}

static int
parse_icmp6_quote(const uint8_t *buf, const struct codec_frame *f,
		  struct codec_icmp_quote *q)
{
	const uint8_t *p;
	size_t avail;
	uint8_t nh;

	if (f->ip_proto != CODEC_IPPROTO_ICMPV6 || f->is_fragment ||
	    f->payload_off == 0 || f->icmp_type < 1 || f->icmp_type > 4)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->ip_version = 6;
	p = buf + f->payload_off;
	avail = f->payload_len;
	if (avail < CODEC_IPV6_HLEN + 8 || (p[0] >> 4) != 6)
		return -EINVAL;
	memcpy(q->src6, p + OFF(rte_ipv6_hdr, src_addr), 16);
	memcpy(q->dst6, p + OFF(rte_ipv6_hdr, dst_addr), 16);
	nh = p[OFF(rte_ipv6_hdr, proto)];
	p += CODEC_IPV6_HLEN;
	avail -= CODEC_IPV6_HLEN;
	if (nh == CODEC_IPPROTO_FRAGMENT) {
		q->frag_id = ld32(p + 4);
		q->ip_id = (uint16_t)q->frag_id;
		if ((ld16(p + 2) & 0xfff8) != 0 || avail < 16) {
			q->proto = p[0];
			return 0; /* no L4 header in a non-first fragment */
		}
		nh = p[0];
		p += CODEC_IPV6_FRAG_HLEN;
	}
	q->proto = nh;
	q->has_l4 = quote_l4(q, p, CODEC_IPPROTO_ICMPV6);
	return 0;
}

int
codec_parse_icmp_quote(const uint8_t *buf, const struct codec_frame *f,
		       struct codec_icmp_quote *q)
{
	const uint8_t *p;
	size_t avail, hlen;
	uint16_t frag;

	if (buf != NULL && f != NULL && q != NULL && f->ip_version == 6)
		return parse_icmp6_quote(buf, f, q);
	if (buf == NULL || f == NULL || q == NULL || f->ip_version != 4 ||
	    f->ip_proto != CODEC_IPPROTO_ICMP || f->is_fragment ||
	    f->payload_off == 0)
		return -EINVAL;
	switch (f->icmp_type) {
	case 3:
	case 4:
	case 5:
	case 11:
	case 12:
		break;
	default:
		return -EINVAL;
	}
	memset(q, 0, sizeof(*q));
	q->ip_version = 4;
	p = buf + f->payload_off;
	avail = f->payload_len;
	if (avail < CODEC_IPV4_HLEN || (p[0] >> 4) != 4)
		return -EINVAL;
	hlen = (size_t)(p[0] & 0x0f) * 4;
	if (hlen < CODEC_IPV4_HLEN || avail < hlen + 8)
		return -EINVAL;
	q->src4 = ld32(p + OFF(rte_ipv4_hdr, src_addr));
	q->dst4 = ld32(p + OFF(rte_ipv4_hdr, dst_addr));
	q->proto = p[OFF(rte_ipv4_hdr, next_proto_id)];
	q->ip_id = ld16(p + OFF(rte_ipv4_hdr, packet_id));
	frag = ld16(p + OFF(rte_ipv4_hdr, fragment_offset));
	if ((frag & IPV4_OFF_MASK) != 0)
		return 0; /* no L4 header in a non-first fragment */
	/* Any first fragment has its L4 header's place, known or not. */
	q->has_l4 = true;
	quote_l4(q, p + hlen, CODEC_IPPROTO_ICMP);
	return 0;
}

int
codec_vlan_insert(uint8_t *buf, size_t len, size_t cap, uint16_t tci)
{
	const size_t macs = (size_t)2 * CODEC_ETH_ALEN;

	if (buf == NULL || len < CODEC_ETH_HLEN)
		return -EINVAL;
	if (cap < len + CODEC_VLAN_HLEN || len + CODEC_VLAN_HLEN > INT32_MAX)
		return -EMSGSIZE;
	memmove(buf + macs + CODEC_VLAN_HLEN, buf + macs, len - macs);
	st16(buf + macs, CODEC_ETHERTYPE_VLAN);
	st16(buf + macs + 2, tci);
	return (int)(len + CODEC_VLAN_HLEN);
}

uint64_t
codec_widen_seq32(uint32_t s, uint64_t near)
{
	const uint64_t wrap = 0x100000000ull, half = 0x80000000ull;
	uint64_t v = (near & ~(wrap - 1)) | s;

	if (v > near) {
		if (v - near > half && v >= wrap)
			v -= wrap;
	} else if (near - v > half && v <= UINT64_MAX - wrap) {
		v += wrap;
	}
	return v;
}

/* ---- reply in place ---- */

static void
swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	uint8_t t[16];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

void
codec_turn_around(uint8_t *buf, const struct codec_frame *f,
		  const struct codec_mac *my_mac, uint8_t ttl)
{
	uint8_t *l3 = buf + f->l3_off;

	if (f->ethertype == CODEC_ETHERTYPE_ARP && f->arp_op != 0) {
		codec_build_arp_reply(buf, f->l3_off + CODEC_ARP_LEN, f,
				      my_mac);
		return;
	}
	memcpy(buf + OFF(rte_ether_hdr, dst_addr), f->src.b, CODEC_ETH_ALEN);
	memcpy(buf + OFF(rte_ether_hdr, src_addr), my_mac->b, CODEC_ETH_ALEN);
	if (f->ip_version == 4) {
		swap_bytes(l3 + OFF(rte_ipv4_hdr, src_addr),
			   l3 + OFF(rte_ipv4_hdr, dst_addr), 4);
		codec_ipv4_set_ttl(l3, ttl);
	} else if (f->ip_version == 6) {
		swap_bytes(l3 + OFF(rte_ipv6_hdr, src_addr),
			   l3 + OFF(rte_ipv6_hdr, dst_addr), 16);
		l3[OFF(rte_ipv6_hdr, hop_limits)] = ttl;
	} else {
		return;
	}
	/* UDP and TCP both keep their ports in the first 4 bytes. */
	if (!f->is_fragment && f->payload_off != 0 &&
	    (f->ip_proto == CODEC_IPPROTO_UDP ||
	     f->ip_proto == CODEC_IPPROTO_TCP))
		swap_bytes(buf + f->l4_off, buf + f->l4_off + 2, 2);
}

/* ---- addresses ---- */

struct codec_ip
codec_ip_from_v4(uint32_t v4)
{
	struct codec_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.family = 4;
	st32(ip.a, v4);
	return ip;
}

uint32_t
codec_ip_v4(const struct codec_ip *ip)
{
	return ip->family == 4 ? ld32(ip->a) : 0;
}

struct codec_ip
codec_ip_from_v6(const uint8_t a[16])
{
	struct codec_ip ip;

	ip.family = 6;
	memcpy(ip.a, a, 16);
	return ip;
}

bool
codec_ip_equal(const struct codec_ip *x, const struct codec_ip *y)
{
	return x->family == y->family && memcmp(x->a, y->a, 16) == 0;
}

bool
codec_frame_from_peer(const struct codec_frame *f, const struct codec_flow *fl)
{
	if (f->ip_version != fl->ip_version)
		return false;
	if (f->ip_version == 4)
		return f->src4 == fl->dst4;
	return f->ip_version == 6 && memcmp(f->src6, fl->dst6, 16) == 0;
}

bool
codec_frame_to_us(const struct codec_frame *f, const struct codec_flow *fl)
{
	if (f->ip_version != fl->ip_version)
		return false;
	if (f->ip_version == 4)
		return f->dst4 == fl->src4;
	return f->ip_version == 6 && memcmp(f->dst6, fl->src6, 16) == 0;
}

/* ---- MAC text ---- */

int
codec_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
codec_mac_parse(const char *s, struct codec_mac *mac)
{
	struct codec_mac m;
	char sep = 0;
	int i;

	if (s == NULL || mac == NULL)
		return -EINVAL;
	for (i = 0; i < CODEC_ETH_ALEN; i++) {
		int hi = codec_hex_digit(s[0]);
		int lo = hi < 0 ? -1 : codec_hex_digit(s[1]);

		if (lo < 0)
			return -EINVAL;
		m.b[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < CODEC_ETH_ALEN - 1) {
			if (sep == 0 && (*s == ':' || *s == '-'))
				sep = *s;
			if (*s != sep)
				return -EINVAL;
			s++;
		}
	}
	if (*s != '\0')
		return -EINVAL;
	*mac = m;
	return 0;
}

void
codec_mac_format(const struct codec_mac *mac, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < CODEC_ETH_ALEN; i++) {
		out[i * 3] = hex[mac->b[i] >> 4];
		out[i * 3 + 1] = hex[mac->b[i] & 0x0f];
		out[i * 3 + 2] = i < CODEC_ETH_ALEN - 1 ? ':' : '\0';
	}
}
