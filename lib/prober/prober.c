/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "prober.h"
#include "stamp_auth.h"

static const struct probe_proto *const protos[] = {
	&probe_proto_stamp, &probe_proto_sockperf, &probe_proto_udp_echo,
	&probe_proto_icmp,  &probe_proto_tcp_syn,
};

const struct probe_proto *
probe_proto_find(const char *name)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (strcmp(protos[i]->name, name) == 0)
			return protos[i];
	return NULL;
}

#define STAT_ADD(w, field, n) HISTOGRAM_RELAXED_ADD(&(w)->st.field, (n))

int
prober_worker_init(struct prober_worker *w, const struct prober_conf *c,
		   struct io_queue *q, unsigned index)
{
	memset(w, 0, sizeof(*w));
	w->conf = c;
	w->q = q;
	w->index = index;
	/* Each worker has its own flow (the caller picks its source port so
	 * that the answers come back on this worker's queue). */
	w->flow = c->flow;
	histogram_init(&w->rtt);
	histogram_init(&w->network_rtt);
	histogram_init(&w->turnaround);
	/* IPv4 (20) + UDP or ICMP (8) around the payload. */
	if (c->size + 28 > q->mtu) {
		w->fragmented = true;
		w->scratch = malloc(PROBER_SCRATCH);
		w->reasm = codec_reasm_create();
		if (w->scratch == NULL || w->reasm == NULL) {
			prober_worker_fini(w);
			return -ENOMEM;
		}
	}
	if (c->auth_key_len != 0) {
		w->auth = stamp_auth_create(c->auth_key, c->auth_key_len);
		if (w->auth == NULL) {
			int err = errno;

			prober_worker_fini(w);
			return -err;
		}
	}
	if (c->keep_samples) {
		/* Never more than max_samples, even at first. */
		w->cap_samples = c->max_samples < 4096 ? c->max_samples : 4096;
		if (w->cap_samples != 0) {
			w->samples =
				malloc(w->cap_samples * sizeof(*w->samples));
			if (w->samples == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

void
prober_worker_fini(struct prober_worker *w)
{
	free(w->samples);
	w->samples = NULL;
	free(w->scratch);
	w->scratch = NULL;
	codec_reasm_destroy(w->reasm);
	w->reasm = NULL;
	stamp_auth_destroy(w->auth);
	w->auth = NULL;
}

bool
prober_answer_arp(struct io_queue *q, const struct codec_frame *f,
		  const struct codec_mac *my_mac, uint32_t my_ip)
{
	struct rte_mbuf *m;
	int len;

	if (f->ethertype != CODEC_ETHERTYPE_ARP ||
	    f->arp_op != CODEC_ARP_REQUEST || f->arp_tpa != my_ip)
		return false;
	m = q->ops->alloc(q);
	if (m == NULL)
		return false;
	len = codec_build_arp(rte_pktmbuf_mtod(m, uint8_t *),
			      rte_pktmbuf_tailroom(m), CODEC_ARP_REPLY, my_mac,
			      my_ip, &f->arp_sha, f->arp_spa);
	if (len < 0) {
		q->ops->free(q, m);
		return false;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	return io_tx_all(q, &m, 1) == 1;
}

int
prober_arp_resolve(struct io_queue *q, const struct codec_mac *my_mac,
		   uint32_t my_ip, uint32_t ip, unsigned timeout_ms,
		   const struct tsc_clock *clock, struct codec_mac *out,
		   const volatile bool *stop)
{
	static const struct codec_mac zero;
	uint64_t start = q->ops->clock(q);
	uint64_t every = tsc_from_ns(clock, 200 * 1000000ull);
	uint64_t limit = tsc_from_ns(clock, (uint64_t)timeout_ms * 1000000ull);
	uint64_t next = start;

	for (;;) {
		struct rte_mbuf *pkts[PROBER_BURST];
		uint64_t now = q->ops->clock(q);
		uint16_t n;

		if (*stop)
			return -EINTR;
		if (now - start > limit)
			return -EHOSTUNREACH;
		if (now >= next) {
			struct rte_mbuf *m = q->ops->alloc(q);

			if (m != NULL) {
				int len = codec_build_arp(
					rte_pktmbuf_mtod(m, uint8_t *),
					rte_pktmbuf_tailroom(m),
					CODEC_ARP_REQUEST, my_mac, my_ip, &zero,
					ip);

				if (len > 0) {
					m->data_len = (uint16_t)len;
					m->pkt_len = (uint32_t)len;
					io_tx_all(q, &m, 1);
				} else {
					q->ops->free(q, m);
				}
			}
			next = now + every;
		}
		n = io_rx(q, pkts, PROBER_BURST);
		for (uint16_t i = 0; i < n; i++) {
			struct codec_frame f;
			const uint8_t *buf =
				rte_pktmbuf_mtod(pkts[i], uint8_t *);
			bool found = false;

			if (codec_parse_frame(buf, pkts[i]->data_len, &f) ==
				    0 &&
			    f.ethertype == CODEC_ETHERTYPE_ARP) {
				if (f.arp_op == CODEC_ARP_REPLY &&
				    f.arp_spa == ip) {
					*out = f.arp_sha;
					found = true;
				} else {
					prober_answer_arp(q, &f, my_mac, my_ip);
				}
			}
			q->ops->free(q, pkts[i]);
			if (found) {
				for (uint16_t j = i + 1; j < n; j++)
					q->ops->free(q, pkts[j]);
				return 0;
			}
		}
	}
}

/* Duplicate window: one bit per recent sequence number. */
static bool
seen_test_and_set(struct prober_worker *w, uint64_t seq)
{
	uint64_t bit;

	if (seq < w->seen_base)
		return true; /* older than the window: treat as seen */
	while (seq >= w->seen_base + PROBER_DUP_WINDOW) {
		/* Slide by half a window. */
		const unsigned half = PROBER_DUP_WINDOW / 64 / 2;

		memmove(w->seen, w->seen + half, half * sizeof(w->seen[0]));
		memset(w->seen + half, 0, half * sizeof(w->seen[0]));
		w->seen_base += PROBER_DUP_WINDOW / 2;
	}
	bit = seq - w->seen_base;
	if (w->seen[bit / 64] & (1ull << (bit % 64)))
		return true;
	w->seen[bit / 64] |= 1ull << (bit % 64);
	return false;
}

static void
keep_sample(struct prober_worker *w, uint64_t seq, uint64_t t1, uint64_t rtt,
	    int64_t net)
{
	const struct prober_conf *c = w->conf;
	struct report_sample *s;

	if (w->n_samples == w->cap_samples) {
		size_t cap = w->cap_samples * 2;
		struct report_sample *n;

		if (cap > c->max_samples || cap < w->cap_samples)
			cap = c->max_samples;
		if (cap <= w->cap_samples) {
			w->samples_dropped++;
			return;
		}
		n = realloc(w->samples, cap * sizeof(*n));
		if (n == NULL) {
			w->samples_dropped++;
			return;
		}
		w->samples = n;
		w->cap_samples = cap;
	}
	s = &w->samples[w->n_samples++];
	s->seq = seq;
	s->lcore = w->lcore;
	s->t1_ns = tsc_to_ns(&c->clock, t1 - w->t_start);
	s->rtt_ns = rtt;
	s->network_rtt_ns = net;
}

/*
 * One answer of ours: record it if it is the probe in flight (seq;
 * UINT64_MAX when none). Only seqs below next were ever sent.
 */
static bool
take_reply(struct prober_worker *w, const struct probe_reply *r, uint64_t seq,
	   uint64_t next, uint64_t t1, uint64_t t4, bool measured)
{
	const struct prober_conf *c = w->conf;
	uint64_t rtt, turn, net;
	int64_t net_sample = -1;

	if (r->seq >= next) {
		STAT_ADD(w, rx_ignored, 1); /* we never sent it */
		return false;
	}
	if (seen_test_and_set(w, r->seq)) {
		STAT_ADD(w, duplicated, 1);
		return false;
	}
	if (w->any_seen && r->seq < w->max_seq_seen)
		STAT_ADD(w, reordered, 1);
	if (!w->any_seen || r->seq > w->max_seq_seen)
		w->max_seq_seen = r->seq;
	w->any_seen = true;
	if (r->seq != seq) {
		STAT_ADD(w, late, 1); /* its probe was already given up */
		return false;
	}
	if (!measured)
		return true;
	rtt = tsc_to_ns(&c->clock, t4 - t1);
	histogram_record(&w->rtt, rtt);
	if (r->has_remote_ts && r->t3_ns >= r->t2_ns) {
		turn = r->t3_ns - r->t2_ns;
		net = rtt > turn ? rtt - turn : 0;
		histogram_record(&w->turnaround, turn);
		histogram_record(&w->network_rtt, net);
		net_sample = (int64_t)net;
	}
	if (r->is_reset)
		STAT_ADD(w, resets, 1);
	if (c->keep_samples)
		keep_sample(w, seq, t1, rtt, net_sample);
	return true;
}

/*
 * A fragment from our peer into reassembly; when it completes an answer,
 * that answer is taken like an unfragmented one. True when it answered
 * the probe in flight.
 */
static bool
take_fragment(struct prober_worker *w, const uint8_t *buf,
	      const struct codec_frame *f, uint64_t t4, uint64_t seq,
	      uint64_t next, uint64_t t1, bool measured)
{
	struct codec_frame whole_f;
	struct probe_reply r;
	uint8_t *whole;
	size_t whole_len;
	bool got = false;
	int rc;

	if (w->reasm == NULL || f->src4 != w->flow.dst4 ||
	    f->dst4 != w->flow.src4) {
		STAT_ADD(w, rx_ignored, 1); /* not from our peer */
		return false;
	}
	rc = codec_reasm_add(w->reasm, buf, f, t4, &whole, &whole_len);
	if (rc == 0)
		return false;
	if (rc < 0) {
		/* -ESTALE: an unfinished answer gave way to a newer one;
		 * -EINVAL: an answer that cannot be reassembled. */
		STAT_ADD(w, reasm_failed, 1);
		return false;
	}
	memset(&r, 0, sizeof(r));
	rc = codec_parse_frame(whole, whole_len, &whole_f) == 0
		     ? w->conf->proto->match(w, whole, &whole_f, &r)
		     : 0;
	if (rc == 1)
		got = take_reply(w, &r, seq, next, t1, t4, measured);
	else if (rc == -EBADMSG)
		STAT_ADD(w, auth_failed, 1);
	else
		STAT_ADD(w, rx_ignored, 1);
	codec_reasm_reset(w->reasm);
	return got;
}

/* Drain the rx queue; true when the probe in flight (seq) was answered. */
static bool
poll_replies(struct prober_worker *w, uint64_t seq, uint64_t next, uint64_t t1,
	     bool measured)
{
	struct rte_mbuf *pkts[PROBER_BURST];
	struct io_queue *q = w->q;
	const struct probe_proto *p = w->conf->proto;
	bool got = false;
	uint64_t t4;
	uint16_t n;

	n = io_rx(q, pkts, PROBER_BURST);
	if (n == 0)
		return false;
	/* T4 right after the burst that brought the answer. */
	t4 = q->ops->clock_end(q);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *buf = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		struct codec_frame f;
		struct probe_reply r;
		int rc = 0;

		memset(&r, 0, sizeof(r));
		if (w->conf->capture.fn != NULL)
			w->conf->capture.fn(w->conf->capture.arg, w->index,
					    pkts[i], t4, false);
		if (pkts[i]->nb_segs != 1 ||
		    codec_parse_frame(buf, pkts[i]->data_len, &f) != 0) {
			STAT_ADD(w, rx_ignored, 1);
		} else if (f.ethertype == CODEC_ETHERTYPE_ARP) {
			if (!prober_answer_arp(q, &f, &w->flow.src_mac,
					       w->flow.src4))
				STAT_ADD(w, rx_ignored, 1);
		} else if (f.is_fragment) {
			if (take_fragment(w, buf, &f, t4, seq, next, t1,
					  measured))
				got = true;
		} else if ((rc = p->match(w, buf, &f, &r)) == 1) {
			if (take_reply(w, &r, seq, next, t1, t4, measured))
				got = true;
			if (p->on_reply != NULL)
				p->on_reply(w, buf, &f);
		} else if (rc == -EBADMSG) {
			/* not an answer: its probe stays in flight (lost) */
			STAT_ADD(w, auth_failed, 1);
		} else {
			STAT_ADD(w, rx_ignored, 1);
		}
		q->ops->free(q, pkts[i]);
	}
	return got;
}

/*
 * The frame(s) of probe seq into tx[]: one mbuf, or, for a probe larger
 * than the MTU, the datagram built whole in scratch and cut into IPv4
 * fragments. Returns how many, or -errno.
 */
static int
build_probe(struct prober_worker *w, struct rte_mbuf **tx, uint64_t seq,
	    uint64_t t1_unix_ns)
{
	const struct probe_proto *p = w->conf->proto;
	struct io_queue *q = w->q;
	struct codec_frame f;
	size_t off = 0;
	int len, n = 0;

	if (!w->fragmented) {
		tx[0] = q->ops->alloc(q);
		if (tx[0] == NULL)
			return -ENOBUFS;
		len = p->build(w, rte_pktmbuf_mtod(tx[0], uint8_t *),
			       rte_pktmbuf_tailroom(tx[0]), seq, t1_unix_ns);
		if (len < 0) {
			q->ops->free(q, tx[0]);
			return len;
		}
		tx[0]->data_len = (uint16_t)len;
		tx[0]->pkt_len = (uint32_t)len;
		return 1;
	}
	len = p->build(w, w->scratch, PROBER_SCRATCH, seq, t1_unix_ns);
	if (len < 0)
		return len;
	if (codec_parse_frame(w->scratch, (size_t)len, &f) != 0)
		return -EINVAL;
	do {
		struct rte_mbuf *m;

		if (n == PROBER_MAX_FRAGS) {
			len = -EMSGSIZE;
			goto fail;
		}
		m = q->ops->alloc(q);
		if (m == NULL) {
			len = -ENOBUFS;
			goto fail;
		}
		len = codec_ipv4_fragment(w->scratch, &f, q->mtu, &off,
					  rte_pktmbuf_mtod(m, uint8_t *),
					  rte_pktmbuf_tailroom(m));
		if (len < 0) {
			q->ops->free(q, m);
			goto fail;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		tx[n++] = m;
	} while (off != 0);
	return n;
fail:
	while (n > 0)
		q->ops->free(q, tx[--n]);
	return len;
}

int
prober_worker_run(struct prober_worker *w, const volatile bool *stop)
{
	const struct prober_conf *c = w->conf;
	struct io_queue *q = w->q;
	uint64_t seq = 0, next_send = 0, deadline = 0;
	int ret = 0;

	w->t_start = q->ops->clock(q);
	for (;;) {
		bool measured = seq >= c->warmup;
		bool got = false, abandoned = false;
		struct rte_mbuf *tx[PROBER_MAX_FRAGS];
		uint64_t t1, now;
		int n_tx;

		if (*stop)
			break;
		if (measured && c->count != 0 && seq - c->warmup >= c->count)
			break;
		if (measured && seq == c->warmup) {
			w->t_start = q->ops->clock(q);
			if (c->duration_cycles != 0)
				deadline = w->t_start + c->duration_cycles;
		}
		if (deadline != 0 && q->ops->clock(q) >= deadline)
			break;
		/* Pacing: keep draining (late answers, ARP) while we wait. */
		while (c->interval_cycles != 0 && !*stop &&
		       q->ops->clock(q) < next_send)
			poll_replies(w, UINT64_MAX, seq, 0, false);

		now = q->ops->clock(q);
		n_tx = build_probe(
			w, tx, seq,
			tsc_anchor_to_realtime_ns(&c->anchor, &c->clock, now));
		if (n_tx < 0) {
			ret = n_tx;
			break;
		}
		if (c->capture.fn != NULL) {
			for (int i = 0; i < n_tx; i++)
				c->capture.fn(c->capture.arg, w->index, tx[i],
					      q->ops->clock(q), true);
		}

		t1 = q->ops->clock_start(q);
		if (io_tx_all(q, tx, (uint16_t)n_tx) != n_tx) {
			/* A probe missing a fragment is no probe. */
			STAT_ADD(w, tx_fail, 1);
			seq++;
			continue;
		}
		next_send = t1 + c->interval_cycles;
		for (;;) {
			if (poll_replies(w, seq, seq + 1, t1, measured)) {
				got = true;
				break;
			}
			if (q->ops->clock(q) - t1 > c->timeout_cycles)
				break;
			if (*stop) {
				abandoned = true;
				break;
			}
		}
		if (abandoned)
			break; /* in flight at stop: neither sent nor lost */
		if (!measured) {
			STAT_ADD(w, warmup, 1);
		} else {
			STAT_ADD(w, sent, 1);
			if (got)
				STAT_ADD(w, received, 1);
			else
				STAT_ADD(w, lost, 1);
		}
		seq++;
	}
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return ret;
}
