/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prober's side of IPv6 Neighbor Discovery (RFC 4861): resolve the peer
 * with Neighbor Solicitations, and answer those for our own address, as
 * prober.c does with ARP for IPv4.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "latprobe/nd.h"
#include "latprobe/prober.h"

bool
prober_answer_ns(struct io_queue *q, const uint8_t *buf,
		 const struct codec_frame *f, const struct codec_mac *my_mac,
		 const uint8_t my_ip6[16], uint16_t vlan)
{
	struct codec_nd nd;
	struct rte_mbuf *m;
	int len;

	if (f->ip_version != 6 || !codec_frame_on_vlan(f, vlan) ||
	    codec_nd_parse(buf, f, &nd) != 0 || nd.type != CODEC_ICMP6_NS ||
	    memcmp(nd.target, my_ip6, 16) != 0)
		return false;
	m = io_alloc(q);
	if (m == NULL)
		return false;
	len = codec_build_na(rte_pktmbuf_mtod(m, uint8_t *),
			     rte_pktmbuf_tailroom(m), f, &nd, my_mac);
	if (len < 0) {
		io_free(q, m);
		return false;
	}
	io_mbuf_set_tx_len(m, (uint16_t)len);
	return io_tx_all(q, &m, 1) == 1;
}

static void
send_ns(struct io_queue *q, const struct codec_mac *my_mac,
	const uint8_t my_ip6[16], uint16_t vlan, const uint8_t ip6[16])
{
	struct rte_mbuf *m = io_alloc(q);
	int len;

	if (m == NULL)
		return;
	len = codec_build_ns(rte_pktmbuf_mtod(m, uint8_t *),
			     rte_pktmbuf_tailroom(m), my_mac, my_ip6, ip6,
			     vlan);
	if (len < 0) {
		io_free(q, m);
		return;
	}
	io_mbuf_set_tx_len(m, (uint16_t)len);
	io_tx_all(q, &m, 1);
}

int
prober_nd_resolve(struct io_queue *q, const struct codec_mac *my_mac,
		  const uint8_t my_ip6[16], uint16_t vlan,
		  const uint8_t ip6[16], unsigned timeout_ms,
		  const struct tsc_clock *clock, struct codec_mac *out,
		  const atomic_bool *stop)
{
	uint64_t start = io_clock(q);
	uint64_t every = tsc_from_ns(clock, 200 * 1000000ull);
	uint64_t limit = tsc_from_ns(clock, (uint64_t)timeout_ms * 1000000ull);
	uint64_t next = start;

	for (;;) {
		struct rte_mbuf *pkts[PROBER_BURST];
		uint64_t now = io_clock(q);
		bool found = false;
		uint16_t n;

		if (atomic_load_explicit(stop, memory_order_relaxed))
			return -EINTR;
		if (now - start > limit)
			return -EHOSTUNREACH;
		if (now >= next) {
			send_ns(q, my_mac, my_ip6, vlan, ip6);
			next = now + every;
		}
		n = io_rx(q, pkts, PROBER_BURST);
		for (uint16_t i = 0; i < n; i++) {
			const uint8_t *buf =
				rte_pktmbuf_mtod(pkts[i], uint8_t *);
			struct codec_frame f;
			struct codec_nd nd;

			if (!found &&
			    codec_parse_frame(buf, pkts[i]->data_len, &f) ==
				    0 &&
			    f.ip_version == 6 &&
			    codec_frame_on_vlan(&f, vlan) &&
			    codec_nd_parse(buf, &f, &nd) == 0) {
				/* RFC 4861 7.2.5: an NA for the address we
				 * asked about; its target link-layer option,
				 * else the frame's source. */
				if (nd.type == CODEC_ICMP6_NA &&
				    memcmp(nd.target, ip6, 16) == 0) {
					*out = nd.has_lladdr ? nd.lladdr
							     : f.src;
					found = true;
				} else {
					prober_answer_ns(q, buf, &f, my_mac,
							 my_ip6, vlan);
				}
			}
			io_free(q, pkts[i]);
		}
		if (found)
			return 0;
	}
}
