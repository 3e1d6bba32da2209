/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "latprobe/nd.h"

/* ND option types and the one length we send (in 8-byte units). */
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_OPT_LEN  8
/* Reserved/flags word + target address (RFC 4861 4.3, 4.4). */
#define ND_BODY	    20
#define ND_MIN	    24 /* ICMPv6 length of an NS/NA without options */

void
codec_ipv6_solicited_node(const uint8_t addr[16], uint8_t out[16])
{
	static const uint8_t pfx[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};

	memcpy(out, pfx, 13);
	memcpy(out + 13, addr + 13, 3);
}

void
codec_ipv6_mcast_mac(const uint8_t addr[16], struct codec_mac *mac)
{
	mac->b[0] = 0x33;
	mac->b[1] = 0x33;
	memcpy(mac->b + 2, addr + 12, 4);
}

void
codec_ipv6_link_local(const struct codec_mac *mac, uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	/* Modified EUI-64: universal/local bit inverted, ff:fe inserted. */
	out[8] = mac->b[0] ^ 0x02;
	out[9] = mac->b[1];
	out[10] = mac->b[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = mac->b[3];
	out[14] = mac->b[4];
	out[15] = mac->b[5];
}

bool
codec_ipv6_is_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

bool
codec_ipv6_is_multicast(const uint8_t a[16])
{
	return a[0] == 0xff;
}

bool
codec_ipv6_is_loopback(const uint8_t a[16])
{
	static const uint8_t lo[16] = {[15] = 1};

	return memcmp(a, lo, 16) == 0;
}

int
codec_nd_parse(const uint8_t *buf, const struct codec_frame *f,
	       struct codec_nd *nd)
{
	const uint8_t *icmp, *opt;
	uint8_t sn[16];
	size_t len, off;

	if (buf == NULL || f == NULL || nd == NULL || f->ip_version != 6 ||
	    f->ip_proto != CODEC_IPPROTO_ICMPV6 || f->payload_off == 0 ||
	    (f->icmp_type != CODEC_ICMP6_NS && f->icmp_type != CODEC_ICMP6_NA))
		return -ENOENT;
	memset(nd, 0, sizeof(*nd));
	icmp = buf + f->l4_off;
	len = f->l4_len;
	if (f->ttl != CODEC_ND_HOP_LIMIT || f->icmp_code != 0 || len < ND_MIN ||
	    !codec_l4_csum_ok(buf, f))
		return -EINVAL;
	nd->type = f->icmp_type;
	nd->flags = icmp[4];
	memcpy(nd->target, icmp + 8, 16);
	if (codec_ipv6_is_multicast(nd->target))
		return -EINVAL;
	for (off = ND_MIN; off < len;) {
		size_t olen;

		if (len - off < 2)
			return -EINVAL;
		opt = icmp + off;
		olen = (size_t)opt[1] * 8;
		if (olen == 0 || olen > len - off)
			return -EINVAL;
		if (olen == ND_OPT_LEN &&
		    opt[0] == (nd->type == CODEC_ICMP6_NS ? ND_OPT_SLLA
							  : ND_OPT_TLLA)) {
			nd->has_lladdr = true;
			memcpy(nd->lladdr.b, opt + 2, CODEC_ETH_ALEN);
		}
		off += olen;
	}
	if (nd->type == CODEC_ICMP6_NS && codec_ipv6_is_unspecified(f->src6)) {
		codec_ipv6_solicited_node(nd->target, sn);
		if (memcmp(f->dst6, sn, 16) != 0 || nd->has_lladdr)
			return -EINVAL;
	}
	if (nd->type == CODEC_ICMP6_NA && codec_ipv6_is_multicast(f->dst6) &&
	    (nd->flags & CODEC_ND_NA_SOLICITED) != 0)
		return -EINVAL;
	return 0;
}

/* Reserved/flags, target, one link-layer address option: 28 bytes. */
static void
nd_body(uint8_t *b, uint8_t flags, const uint8_t target[16], uint8_t opt,
	const struct codec_mac *mac)
{
	memset(b, 0, 4);
	b[0] = flags;
	memcpy(b + 4, target, 16);
	b[ND_BODY] = opt;
	b[ND_BODY + 1] = 1;
	memcpy(b + ND_BODY + 2, mac->b, CODEC_ETH_ALEN);
}

int
codec_build_ns(uint8_t *buf, size_t cap, const struct codec_mac *src_mac,
	       const uint8_t src[16], const uint8_t target[16], uint16_t vlan)
{
	uint8_t body[ND_BODY + ND_OPT_LEN];
	struct codec_flow fl;

	if (buf == NULL || src_mac == NULL || src == NULL || target == NULL)
		return -EINVAL;
	memset(&fl, 0, sizeof(fl));
	fl.src_mac = *src_mac;
	fl.vlan = vlan != 0;
	fl.vlan_tci = vlan;
	fl.ip_version = 6;
	fl.ttl = CODEC_ND_HOP_LIMIT;
	memcpy(fl.src6, src, 16);
	codec_ipv6_solicited_node(target, fl.dst6);
	codec_ipv6_mcast_mac(fl.dst6, &fl.dst_mac);
	nd_body(body, 0, target, ND_OPT_SLLA, src_mac);
	return codec_build_icmp6(buf, cap, &fl, CODEC_ICMP6_NS, 0, body,
				 sizeof(body));
}

int
codec_build_na(uint8_t *buf, size_t cap, const struct codec_frame *req,
	       const struct codec_nd *nd, const struct codec_mac *my_mac)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	uint8_t body[ND_BODY + ND_OPT_LEN];
	struct codec_flow fl;
	uint8_t flags = CODEC_ND_NA_OVERRIDE;

	if (buf == NULL || req == NULL || nd == NULL || my_mac == NULL ||
	    req->ip_version != 6 || nd->type != CODEC_ICMP6_NS)
		return -EINVAL;
	memset(&fl, 0, sizeof(fl));
	fl.src_mac = *my_mac;
	fl.vlan = req->has_vlan;
	fl.vlan_tci = req->vlan_tci;
	fl.ip_version = 6;
	fl.ttl = CODEC_ND_HOP_LIMIT;
	memcpy(fl.src6, nd->target, 16);
	/* RFC 4861 7.2.4: to the solicitation's source, solicited; from ::
	 * (DAD) to all nodes, not solicited. */
	if (codec_ipv6_is_unspecified(req->src6)) {
		memcpy(fl.dst6, all_nodes, 16);
		codec_ipv6_mcast_mac(all_nodes, &fl.dst_mac);
	} else {
		memcpy(fl.dst6, req->src6, 16);
		fl.dst_mac = nd->has_lladdr ? nd->lladdr : req->src;
		flags |= CODEC_ND_NA_SOLICITED;
	}
	nd_body(body, flags, nd->target, ND_OPT_TLLA, my_mac);
	return codec_build_icmp6(buf, cap, &fl, CODEC_ICMP6_NA, 0, body,
				 sizeof(body));
}
