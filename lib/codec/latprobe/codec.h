/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_CODEC_H
#define LATPROBE_CODEC_H

/*
 * Frame codec: Ethernet II (+802.1Q), ARP, IPv4, IPv6, UDP, ICMPv4 echo, TCP.
 * Works on (buf, len) only: no EAL or ethdev call. Parsers never read past
 * len and return 0 or a negative errno; builders return the number of bytes
 * written or a negative errno (-EMSGSIZE when cap is too small).
 * Addresses and ports in these structs are in host byte order unless the
 * field name ends in _be. Frames may start at any byte offset (no alignment
 * is assumed). Builders write minimal frames (no padding to 60 bytes).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CODEC_ETH_ALEN	6
#define CODEC_ETH_HLEN	14
#define CODEC_VLAN_HLEN 4
#define CODEC_IPV4_HLEN 20
#define CODEC_IPV6_HLEN 40
#define CODEC_UDP_HLEN	8
#define CODEC_ICMP_HLEN 8
#define CODEC_TCP_HLEN	20
#define CODEC_ARP_LEN	28 /* Ethernet/IPv4 ARP body */

#define CODEC_ETHERTYPE_IPV4 0x0800
#define CODEC_ETHERTYPE_ARP  0x0806
#define CODEC_ETHERTYPE_VLAN 0x8100
#define CODEC_ETHERTYPE_IPV6 0x86dd

#define CODEC_IPPROTO_ICMP     1
#define CODEC_IPPROTO_TCP      6
#define CODEC_IPPROTO_UDP      17
#define CODEC_IPPROTO_ICMPV6   58
/* IPv6 extension headers walked by codec_parse_frame() (RFC 8200 4). */
#define CODEC_IPPROTO_HOPOPTS  0
#define CODEC_IPPROTO_ROUTING  43
#define CODEC_IPPROTO_FRAGMENT 44
#define CODEC_IPPROTO_DSTOPTS  60
#define CODEC_IPV6_FRAG_HLEN   8
#define CODEC_IPV6_MAX_EXT     8 /* more headers than this: -EINVAL */

#define CODEC_TCP_FIN 0x01
#define CODEC_TCP_SYN 0x02
#define CODEC_TCP_RST 0x04
#define CODEC_TCP_PSH 0x08
#define CODEC_TCP_ACK 0x10

#define CODEC_ARP_REQUEST 1
#define CODEC_ARP_REPLY	  2

#define CODEC_ICMP_ECHO_REPLY	 0
#define CODEC_ICMP_DEST_UNREACH	 3
#define CODEC_ICMP_ECHO_REQUEST	 8
#define CODEC_ICMP6_ECHO_REQUEST 128
#define CODEC_ICMP6_ECHO_REPLY	 129

struct codec_mac {
	uint8_t b[CODEC_ETH_ALEN];
};

/*
 * An IPv4 or IPv6 address, tagged with its family (4 or 6; 0 = none). An
 * IPv4 address is a[0..3] in network order, the rest zero, so two addresses
 * compare with memcmp.
 */
struct codec_ip {
	uint8_t family;
	uint8_t a[16];
};

/* The IPv4 address v4 (host order) as a struct codec_ip. */
struct codec_ip codec_ip_from_v4(uint32_t v4);
/* The IPv4 address of ip in host order (0 when ip is not IPv4). */
uint32_t codec_ip_v4(const struct codec_ip *ip);
/* The IPv6 address a as a struct codec_ip. */
struct codec_ip codec_ip_from_v6(const uint8_t a[16]);
/* Same family and address. */
bool codec_ip_equal(const struct codec_ip *x, const struct codec_ip *y);

/* What codec_parse_frame() found; offsets are from the frame start. */
struct codec_frame {
	struct codec_mac dst, src;
	bool has_vlan;
	uint16_t vlan_tci;
	uint16_t ethertype; /* after the VLAN tag, if any */
	uint16_t l3_off;

	/* ARP (ethertype 0x0806; any other ARP format is -EINVAL) */
	uint16_t arp_op;
	struct codec_mac arp_sha, arp_tha;
	uint32_t arp_spa, arp_tpa;

	/* IP: ip_version is 0 when the frame carries no IP */
	uint8_t ip_version;
	uint8_t ip_proto; /* L4 protocol (IPv6: the next header after the
			     extension headers; of a fragment: the fragment
			     header's next header) */
	uint8_t ttl;	  /* TTL / hop limit */
	uint8_t tos;	  /* IPv4 TOS / IPv6 traffic class */
	uint16_t l3_hlen; /* IPv4 IHL*4 (options skipped); IPv6: 40 + the
			     extension headers walked (up to and including
			     a fragment header) */
	uint16_t ip_len;  /* IPv4 total length / 40 + IPv6 payload length
			   * (IPv6 payload > 65495 bytes is -EINVAL) */
	uint32_t src4, dst4;
	uint8_t src6[16], dst6[16];
	uint16_t ip_id;
	bool is_fragment; /* MF set or offset != 0: L4 is not parsed, even
			   * for offset 0 (its UDP length and checksum
			   * cover the unreassembled datagram); l4_off and
			   * l4_len still span this fragment's IP payload */
	bool more_fragments;
	uint16_t frag_off; /* in bytes */
	/* IPv6: the Fragment header's offset in the frame (0: none) and
	 * 32-bit identification (ip_id holds its low 16 bits). */
	uint16_t frag_hdr_off;
	uint32_t frag_id;
	/* IPv6 extension headers we must not answer past (RFC 8200 4): a
	 * routing header with segments left (type 0 included, RFC 5095),
	 * or an option whose unknown type says discard (4.2). */
	bool ip6_ext_refused;

	/*
	 * L4, bounded by the IP length (not by trailing Ethernet padding).
	 * l4_off/l4_len are set for every IP frame; the fields below only for
	 * UDP, TCP, ICMP (over IPv4) and ICMPv6 (over IPv6). payload_off is 0
	 * when the L4 header was not parsed.
	 */
	uint16_t l4_off;
	uint16_t l4_len; /* L4 header + payload (UDP: the UDP length) */
	uint16_t sport, dport;
	uint16_t payload_off; /* after the UDP/TCP/ICMP header */
	uint16_t payload_len;

	uint8_t icmp_type, icmp_code;
	uint16_t icmp_id, icmp_seq; /* echo request/reply only (v4 and v6) */

	uint32_t tcp_seq, tcp_ack;
	uint8_t tcp_flags;
	uint16_t tcp_window;
	uint16_t tcp_mss; /* 0 when the MSS option is absent; options are
			   * read up to the first malformed one, which is
			   * not an error (as Linux does) */
};

/*
 * Parse Ethernet [802.1Q] then ARP | IPv4 | IPv6, then UDP | TCP | ICMP.
 * 0 on success (fields filled as deep as the frame goes: an unknown
 * ethertype or L4 protocol is not an error), -EINVAL for a malformed or
 * truncated header at any layer (short frame, bad IHL, IP length > frame,
 * UDP length inconsistent, TCP data offset < 5, ...).
 */
int codec_parse_frame(const uint8_t *buf, size_t len, struct codec_frame *f);

/*
 * Internet checksum helpers (RFC 1071). The sum is over 16-bit words in
 * memory order, so the value fold returns (already complemented) is stored
 * with memcpy as is: it is "in network byte order" as bytes. In a chained
 * sum only the last chunk may have an odd length. A buffer that includes a
 * correct checksum folds to 0.
 */
uint32_t codec_csum_partial(const void *data, size_t len, uint32_t sum);
uint16_t codec_csum_fold(uint32_t sum);

/*
 * RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'): the checksum hc (as stored)
 * updated for a change of covered bytes whose partial sums
 * (codec_csum_partial, over the same even-aligned ranges) were old_sum
 * before and new_sum after. A wrong checksum stays wrong by as much. The
 * result is never 0 when hc was not (0xffff, the other zero), so a UDP
 * checksum stays present.
 */
uint16_t codec_csum_adjust(uint16_t hc, uint32_t old_sum, uint32_t new_sum);

/*
 * One's-complement partial sum, in memory order, of n bytes at p (n even,
 * small and constant where it is inlined): 64-bit accumulation, fold with
 * codec_csum_fold16(). The same congruence class as codec_csum_partial(),
 * inlined where the caller's ranges are few and of constant length (the
 * prober's probe template).
 */
static inline uint64_t
codec_csum_add(uint64_t sum, const uint8_t *p, size_t n)
{
	/* Whole 64-bit words, their carries counted apart (2^64 = 1 modulo
	 * 0xffff): the result stays below sum + 2^34. */
	uint64_t acc = 0, carry = 0, v8;
	uint32_t v4;
	uint16_t v2;

	for (; n >= 8; n -= 8, p += 8) {
		__builtin_memcpy(&v8, p, 8);
		acc += v8;
		carry += acc < v8;
	}
	sum += (acc & 0xffffffffu) + (acc >> 32) + carry;
	if (n >= 4) {
		__builtin_memcpy(&v4, p, 4);
		sum += v4;
		p += 4;
		n -= 4;
	}
	if (n >= 2) {
		__builtin_memcpy(&v2, p, 2);
		sum += v2;
	}
	return sum;
}

/* sum folded to 16 bits, not complemented: 0 only when sum is 0. */
static inline uint16_t
codec_csum_fold16(uint64_t sum)
{
	/* Each halving adds the value to itself rotated by half its width:
	 * the high half gets both halves plus the carry out of the low half,
	 * the end-around carry (RFC 1071), in 8 instructions. */
	uint64_t t = sum + (sum >> 32 | sum << 32);
	uint32_t u = (uint32_t)(t >> 32);

	u += u >> 16 | u << 16;
	return (uint16_t)(u >> 16);
}

/*
 * true when the IPv4 header checksum / the L4 checksum of a parsed frame is
 * right. UDP checksum 0 is right over IPv4 (none, RFC 768), wrong over IPv6
 * (RFC 8200 §8.1). False for fragments and L4 protocols not parsed.
 */
bool codec_ipv4_csum_ok(const uint8_t *buf, const struct codec_frame *f);
bool codec_l4_csum_ok(const uint8_t *buf, const struct codec_frame *f);

/*
 * The L4 checksum of a parsed frame checked in software, a partial one
 * told apart from a wrong one. PARTIAL: the field holds the folded
 * pseudo-header sum alone (RFC 768 / RFC 8200 8.1, not complemented), which
 * is what a sender that leaves its checksum to the NIC writes there (Linux
 * with tx checksum offload on a veth, in a container or a pod: the frame
 * reaches af_xdp / af_packet as it was handed to the "NIC"). Only for UDP,
 * TCP and ICMPv6 (ICMPv4 has no pseudo-header). For PARTIAL, *complete (if
 * not NULL) gets the checksum the field should hold, from the same pass
 * over the data. UDP checksum 0 is OK over IPv4 (none), BAD over IPv6; BAD
 * too for fragments and L4 protocols not parsed.
 */
enum codec_l4_csum {
	CODEC_L4_CSUM_OK,
	CODEC_L4_CSUM_PARTIAL,
	CODEC_L4_CSUM_BAD,
};
enum codec_l4_csum codec_l4_csum_check(const uint8_t *buf,
				       const struct codec_frame *f,
				       uint16_t *complete);

/*
 * The folded pseudo-header sum of a parsed UDP/TCP/ICMPv6 frame, as a
 * partial checksum holds it and as a NIC's tx checksum offload wants it
 * in the field (DPDK's rte_ipv4_phdr_cksum() / rte_ipv6_phdr_cksum()); in
 * memory order. 0 where the frame has no L4 checksum with a pseudo-header.
 */
uint16_t codec_l4_pseudo_csum(const uint8_t *buf, const struct codec_frame *f);

/*
 * Recompute and store the IPv4 header checksum / the UDP, TCP, ICMP or
 * ICMPv6 checksum (a computed UDP 0 is sent as 0xffff). No-op where the
 * matching _ok() function would return false for lack of a header.
 */
void codec_ipv4_csum_set(uint8_t *buf, const struct codec_frame *f);
void codec_l4_csum_set(uint8_t *buf, const struct codec_frame *f);

/* The L2/L3/L4 addressing of frames we build. */
struct codec_flow {
	struct codec_mac src_mac, dst_mac;
	bool vlan;
	uint16_t vlan_tci;
	uint8_t ip_version; /* 4 or 6 */
	uint32_t src4, dst4;
	uint8_t src6[16], dst6[16];
	uint16_t sport, dport;
	uint8_t ttl; /* 0 means 64 */
	uint8_t tos;
};

/*
 * Is f an IP frame of fl's version from fl's destination address (the
 * peer)? To fl's source address (us)? Addresses only: no port or protocol.
 */
bool codec_frame_from_peer(const struct codec_frame *f,
			   const struct codec_flow *fl);
bool codec_frame_to_us(const struct codec_frame *f,
		       const struct codec_flow *fl);

/* Is f on VLAN vlan (0: untagged)? Only the VLAN ID counts, not the
 * priority bits. */
static inline bool
codec_frame_on_vlan(const struct codec_frame *f, uint16_t vlan)
{
	if (vlan == 0)
		return !f->has_vlan;
	return f->has_vlan && (f->vlan_tci & 0xfff) == (vlan & 0xfff);
}

/* Bytes of Ethernet [+VLAN] + IP + UDP headers a flow puts before the payload.
 */
size_t codec_udp_header_len(const struct codec_flow *fl);

/*
 * Ethernet [+VLAN] + IPv4|IPv6 + UDP around payload, both checksums set.
 * payload may already sit at buf + codec_udp_header_len(fl) (then it is not
 * copied). Returns the frame length or -EMSGSIZE / -EINVAL.
 */
int codec_build_udp(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		    uint16_t ip_id, const uint8_t *payload, size_t plen);

/*
 * Every IPv4 frame built has DF set; the builders that take no ip_id use 0.
 * fl->ip_version other than 4 or 6 is -EINVAL.
 */

/* ICMP echo request/reply, sport/dport unused: over IPv4 (type
 * CODEC_ICMP_ECHO_*) or IPv6 (type CODEC_ICMP6_ECHO_*, ICMPv6 with its
 * pseudo-header checksum, RFC 4443 4.1); a type of the other family is
 * -EINVAL. payload may overlap buf. */
int codec_build_icmp_echo(uint8_t *buf, size_t cap, const struct codec_flow *fl,
			  uint8_t type, uint16_t id, uint16_t seq,
			  const uint8_t *payload, size_t plen);

/*
 * An ICMPv6 message from fl (ip_version 6): type, code, checksum, then body
 * (blen >= 4 bytes, the 4 bytes after the checksum included; may overlap
 * buf), checksum set. The frame length or -EINVAL / -EMSGSIZE.
 */
int codec_build_icmp6(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		      uint8_t type, uint8_t code, const uint8_t *body,
		      size_t blen);

/* TCP segment without payload; mss != 0 adds the MSS option (SYN). */
int codec_build_tcp(uint8_t *buf, size_t cap, const struct codec_flow *fl,
		    uint32_t seq, uint32_t ack, uint8_t flags, uint16_t window,
		    uint16_t mss);

/*
 * ARP over Ethernet/IPv4, no VLAN tag, 42 bytes. A request goes to the
 * broadcast MAC with a zero target hardware address (tha may be NULL); a
 * reply goes to tha. Other op values are -EINVAL.
 */
int codec_build_arp(uint8_t *buf, size_t cap, uint16_t op,
		    const struct codec_mac *sha, uint32_t spa,
		    const struct codec_mac *tha, uint32_t tpa);

/*
 * The ARP reply to a parsed request req (RFC 826): to req's Ethernet source,
 * with req's VLAN tag if it had one, sender = my_mac and the address req
 * asked for. buf may hold req itself (everything comes from req). The
 * frame's length, -EINVAL or -EMSGSIZE. The prober and the reflector both
 * answer with it (the caller checks the target address is its own).
 */
int codec_build_arp_reply(uint8_t *buf, size_t cap,
			  const struct codec_frame *req,
			  const struct codec_mac *my_mac);

/*
 * Turn a parsed IPv4/IPv6 frame around in place for a reply: Ethernet
 * destination = old source, Ethernet source = my_mac, IP addresses swapped,
 * UDP/TCP ports swapped, TTL/hop limit = ttl. The IPv4 header checksum
 * is updated for the TTL change (RFC 1624 eqn. 3; swapping addresses leaves
 * the sum alone), so a header whose checksum was right stays right without
 * a full recompute. L4 checksums are NOT updated (the caller changes the
 * payload, then calls codec_l4_csum_set()). The frame keeps its length. A
 * VLAN tag is kept.
 * Also turns a parsed ARP frame (arp_op != 0) into the reply in place:
 * op = reply, target = old sender, sender = my_mac and old target address
 * (ttl unused); the caller checks that the target address is its own.
 */
void codec_turn_around(uint8_t *buf, const struct codec_frame *f,
		       const struct codec_mac *my_mac, uint8_t ttl);

/*
 * Set the TTL of the IPv4 header at l3 and update its header checksum for
 * the change (RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), on the 16-bit word
 * holding TTL and protocol, in memory order as the sum is kept, see
 * codec_csum_partial), so a right checksum stays right and a wrong one
 * wrong. codec_turn_around() and the reflector's STAMP fast path both use
 * it, so their answers are the same bytes.
 */
static inline void
codec_ipv4_set_ttl(uint8_t *l3, uint8_t ttl)
{
	uint16_t old_w, new_w, hc;
	uint32_t sum;

	/* TTL at byte 8, header checksum at 10 (RFC 791). */
	memcpy(&old_w, l3 + 8, sizeof(old_w));
	l3[8] = ttl;
	memcpy(&new_w, l3 + 8, sizeof(new_w));
	memcpy(&hc, l3 + 10, sizeof(hc));
	sum = (uint16_t)~hc + (uint32_t)(uint16_t)~old_w + new_w;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	hc = (uint16_t)~sum;
	memcpy(l3 + 10, &hc, sizeof(hc));
}

/* What an ICMPv4 error (destination unreachable, time exceeded, ...) quotes
 * of the datagram that caused it (RFC 792: its IP header + 8 bytes). */
struct codec_icmp_quote {
	uint8_t ip_version;  /* of the quoted packet: 4, or 6 (ICMPv6) */
	uint32_t src4, dst4; /* the quoted datagram's addresses */
	uint8_t src6[16], dst6[16];
	uint8_t proto;
	uint16_t ip_id;
	uint32_t frag_id; /* IPv6: the quoted Fragment header's id (0: none) */
	bool has_l4;	  /* the first 8 L4 bytes are there (not a
			   * non-first fragment) */
	uint16_t sport, dport; /* UDP/TCP */
	uint8_t icmp_type;     /* ICMP/ICMPv6: the quoted message's type, id,
				* seq */
	uint16_t icmp_id, icmp_seq;
};

/*
 * Parse the datagram an ICMPv4 error quotes. f must be a parsed IPv4 ICMP
 * frame (not a fragment) of a type that quotes (3 destination unreachable,
 * 4 source quench, 5 redirect, 11 time exceeded, 12 parameter problem).
 * 0, or -EINVAL (not such a frame, the quote is not IPv4, or shorter than
 * its header + 8 bytes).
 * Or an ICMPv6 error (RFC 4443: 1 destination unreachable, 2 packet too
 * big, 3 time exceeded, 4 parameter problem) quoting an IPv6 packet: its
 * addresses and next header (past a Fragment header: ip_id is then the low
 * 16 bits of its identification, and a non-first fragment has no L4);
 * other extension headers are not walked (has_l4 false).
 */
int codec_parse_icmp_quote(const uint8_t *buf, const struct codec_frame *f,
			   struct codec_icmp_quote *q);

/*
 * An ICMPv4 error of type/code from fl (ip_version 4) quoting qlen bytes of
 * quote (the offending IP header and what follows), checksums set. Returns
 * the frame length or -EMSGSIZE / -EINVAL.
 */
int codec_build_icmp_error(uint8_t *buf, size_t cap,
			   const struct codec_flow *fl, uint8_t type,
			   uint8_t code, const uint8_t *quote, size_t qlen);

/*
 * Insert an 802.1Q tag (TPID 0x8100, tci) after the MAC addresses of the
 * untagged frame of len bytes in buf. Returns the new length, or -EMSGSIZE
 * (cap < len + 4) / -EINVAL (len < 14).
 */
int codec_vlan_insert(uint8_t *buf, size_t len, size_t cap, uint16_t tci);

/*
 * A 32-bit sequence number from the wire back to a 64-bit counter: the
 * value with these low 32 bits nearest to near (never below 0), so that an
 * answer just below a 2^32 wrap widens down when near is just above it,
 * and one just above widens up when near is just below.
 */
uint64_t codec_widen_seq32(uint32_t s, uint64_t near);

/* The value of hex digit c (either case), or -1. */
int codec_hex_digit(char c);

/* "aa:bb:cc:dd:ee:ff" <-> struct; parse also takes upper case and '-' as
 * separator, returns 0 or -EINVAL; format writes lower case + NUL. */
int codec_mac_parse(const char *s, struct codec_mac *mac);
void codec_mac_format(const struct codec_mac *mac, char *out /* >= 18 */);

#endif /* LATPROBE_CODEC_H */
