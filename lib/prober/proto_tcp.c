/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp-syn: the latency from a SYN to the SYN-ACK (or RST, when the port is
 * closed) of any TCP listener, as PsPing's TCP mode measures; then a RST
 * closes the half-open connection so the peer keeps no state. The probe's
 * sequence number rides in the ISN (base ^ seq) and comes back as ack - 1.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "latprobe/prober.h"

#define TCP_PROBE_WINDOW 64240
#define TCP_PROBE_MSS	 1460

static uint32_t
isn_of(const struct prober_worker *w, uint64_t seq)
{
	return w->conf->tcp_isn_base ^ (uint32_t)seq;
}

static int
tcp_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	  uint64_t t1_unix_ns)
{
	return codec_build_tcp(buf, cap, &w->flow, isn_of(w, seq), 0,
			       CODEC_TCP_SYN, TCP_PROBE_WINDOW, TCP_PROBE_MSS);
}

/* The ISN (offset 4 of the TCP header): everything else is the same. */
static int
tcp_patch(struct prober_worker *w, uint8_t *l4, uint64_t seq,
	  uint64_t t1_unix_ns, uint64_t *sum)
{
	uint32_t isn = __builtin_bswap32(isn_of(w, seq));

	memcpy(l4 + 4, &isn, sizeof(isn));
	*sum = codec_csum_add(*sum, l4 + 4, 4);
	return 0;
}

static int
tcp_match(struct prober_worker *w, const uint8_t *buf,
	  const struct codec_frame *f, struct probe_reply *r)
{
	uint32_t s32;

	if (f->ip_proto != CODEC_IPPROTO_TCP || f->is_fragment ||
	    !codec_frame_from_peer(f, &w->flow) ||
	    !codec_frame_to_us(f, &w->flow) || f->sport != w->flow.dport ||
	    !prober_flow_port_ok(w, f->dport) ||
	    !(f->tcp_flags & CODEC_TCP_ACK))
		return 0;
	if ((f->tcp_flags & (CODEC_TCP_SYN | CODEC_TCP_RST)) == 0)
		return 0;
	s32 = (f->tcp_ack - 1) ^ w->conf->tcp_isn_base;
	r->seq = codec_widen_seq32(s32, w->step_seq); /* newest sent */
	r->is_reset = (f->tcp_flags & CODEC_TCP_RST) != 0;
	return 1;
}

/* RFC 793: a RST whose sequence number is the ACK we got resets the peer's
 * half-open connection. */
static void
tcp_on_reply(struct prober_worker *w, const uint8_t *buf,
	     const struct codec_frame *f)
{
	struct io_queue *q = w->q;
	struct codec_flow fl = w->flow;
	struct rte_mbuf *m;
	int len;

	if (!(f->tcp_flags & CODEC_TCP_SYN) || (f->tcp_flags & CODEC_TCP_RST))
		return;
	/* The answer's own tuple: with many flows it is not always the one
	 * the latest probe went on. */
	fl.sport = f->dport;
	m = io_alloc(q);
	if (m == NULL)
		return;
	len = codec_build_tcp(rte_pktmbuf_mtod(m, uint8_t *),
			      rte_pktmbuf_tailroom(m), &fl, f->tcp_ack, 0,
			      CODEC_TCP_RST, 0, 0);
	if (len < 0) {
		io_free(q, m);
		return;
	}
	io_mbuf_set_tx_len(m, (uint16_t)len);
	io_tx_all(q, &m, 1);
}

const struct probe_proto probe_proto_tcp_syn = {
	.name = "tcp-syn",
	.default_port = 80,
	.min_size = 0,
	.build = tcp_build,
	.match = tcp_match,
	.on_reply = tcp_on_reply,
	.patch = tcp_patch,
};
