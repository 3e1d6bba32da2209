/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "reflector.h"
#include "sockperf.h"
#include "stamp.h"
#include "stamp_auth.h"

static const char *const counter_names[RC__COUNT] = {
	[RC_RX] = "rx",
	[RC_TX] = "tx",
	[RC_ARP] = "answered.arp",
	[RC_ICMP] = "answered.icmp_echo",
	[RC_STAMP] = "answered.stamp",
	[RC_SOCKPERF] = "answered.sockperf",
	[RC_ECHO] = "answered.udp_echo",
	[RC_DROP_MALFORMED] = "dropped.malformed",
	[RC_DROP_NOT_FOR_US] = "dropped.not_for_us",
	[RC_DROP_ETHERTYPE] = "dropped.ethertype",
	[RC_DROP_ARP_OTHER] = "dropped.arp_other",
	[RC_DROP_IP_CSUM] = "dropped.ip_checksum",
	[RC_DROP_L4_CSUM] = "dropped.l4_checksum",
	[RC_DROP_FRAGMENT] = "dropped.fragment",
	[RC_DROP_PROTO] = "dropped.ip_proto",
	[RC_DROP_ICMP_OTHER] = "dropped.icmp_other",
	[RC_DROP_PORT] = "dropped.udp_port",
	[RC_DROP_PROBE] = "dropped.bad_probe",
	[RC_SOCKPERF_NOREPLY] = "sockperf_no_reply",
	[RC_DROP_TX] = "dropped.tx_full",
	[RC_DROP_NOMBUF] = "dropped.no_mbuf",
	[RC_STATEFUL_FULL] = "stateful_table_full",
	[RC_DROP_SOURCE] = "dropped.bad_source",
	[RC_DROP_LOOP_PORT] = "dropped.loop_port",
	[RC_FRAGMENTS] = "fragments",
	[RC_REASSEMBLED] = "reassembled",
	[RC_DROP_REASM] = "dropped.reassembly",
	[RC_DROP_AUTH] = "dropped.auth",
};

const char *
reflector_counter_name(enum reflector_counter c)
{
	if ((unsigned)c >= RC__COUNT)
		return "unknown";
	return counter_names[c];
}

static inline void
count(struct reflector_worker *w, enum reflector_counter c, uint64_t n)
{
	HISTOGRAM_RELAXED_ADD(&w->counters[c], n);
}

int
reflector_worker_init(struct reflector_worker *w,
		      const struct reflector_conf *conf, struct io_queue *q)
{
	memset(w, 0, sizeof(*w));
	w->conf = conf;
	w->q = q;
	histogram_init(&w->turnaround);
	if (conf->n_reasm > REFLECTOR_MAX_REASM)
		return -EINVAL;
	if (conf->stateful) {
		w->sessions = calloc(REFLECTOR_SESSIONS, sizeof(*w->sessions));
		if (w->sessions == NULL)
			return -ENOMEM;
	}
	if (conf->auth_key_len != 0) {
		w->auth = stamp_auth_create(conf->auth_key, conf->auth_key_len);
		if (w->auth == NULL) {
			int err = errno;

			reflector_worker_fini(w);
			return -err;
		}
	}
	for (unsigned i = 0; i < conf->n_reasm; i++) {
		w->reasm[i] = codec_reasm_create();
		if (w->reasm[i] == NULL) {
			reflector_worker_fini(w);
			return -ENOMEM;
		}
	}
	return 0;
}

void
reflector_worker_fini(struct reflector_worker *w)
{
	free(w->sessions);
	w->sessions = NULL;
	stamp_auth_destroy(w->auth);
	w->auth = NULL;
	for (unsigned i = 0; i < REFLECTOR_MAX_REASM; i++) {
		codec_reasm_destroy(w->reasm[i]);
		w->reasm[i] = NULL;
	}
}

/* RFC 8972 §4: a stateful reflector numbers each session's answers itself. */
static uint32_t
session_next_seq(struct reflector_worker *w, const struct codec_frame *f,
		 uint16_t ssid, uint32_t fallback)
{
	uint32_t h = f->src4 * 2654435761u ^
		     ((uint32_t)f->sport << 16 | f->dport) * 40503u ^ ssid;

	for (unsigned i = 0; i < 16; i++) {
		struct reflector_session *s =
			&w->sessions[(h + i) & (REFLECTOR_SESSIONS - 1)];

		if (!s->used) {
			s->used = true;
			s->src_addr = f->src4;
			s->src_port = f->sport;
			s->dst_port = f->dport;
			s->ssid = ssid;
			s->next_seq = 0;
			w->n_sessions++;
		} else if (s->src_addr != f->src4 || s->src_port != f->sport ||
			   s->dst_port != f->dport || s->ssid != ssid) {
			continue;
		}
		return s->next_seq++;
	}
	count(w, RC_STATEFUL_FULL, 1);
	return fallback;
}

/* The ARP answer goes out in a new mbuf; the request is freed. */
static struct rte_mbuf *
answer_arp(struct reflector_worker *w, const struct codec_frame *f)
{
	struct rte_mbuf *m;
	int len;

	if (f->arp_op != CODEC_ARP_REQUEST || f->arp_tpa != w->conf->addr) {
		count(w, RC_DROP_ARP_OTHER, 1);
		return NULL;
	}
	m = w->q->ops->alloc(w->q);
	if (m == NULL) {
		count(w, RC_DROP_NOMBUF, 1);
		return NULL;
	}
	len = codec_build_arp(rte_pktmbuf_mtod(m, uint8_t *),
			      rte_pktmbuf_tailroom(m), CODEC_ARP_REPLY,
			      &w->conf->mac, w->conf->addr, &f->arp_sha,
			      f->arp_spa);
	if (len < 0) {
		w->q->ops->free(w->q, m);
		count(w, RC_DROP_NOMBUF, 1);
		return NULL;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	count(w, RC_ARP, 1);
	return m;
}

static bool
is_for_us_mac(const struct reflector_worker *w, const struct codec_frame *f)
{
	static const struct codec_mac bcast = {
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

	return memcmp(&f->dst, &w->conf->mac, sizeof(f->dst)) == 0 ||
	       memcmp(&f->dst, &bcast, sizeof(f->dst)) == 0;
}

/* A STAMP answer waiting for its transmit timestamp. */
struct pending_stamp {
	uint8_t *buf;
	struct codec_frame f;
	int reasm; /* >= 0: a reassembled datagram, to fragment */
};

/* Answers of one burst; a fragmented answer can outgrow a burst. */
#define REFLECTOR_TX_MAX 128

struct tx_batch {
	struct rte_mbuf *m[REFLECTOR_TX_MAX];
	unsigned n;
};

static void
tx_flush(struct reflector_worker *w, struct tx_batch *b)
{
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = io_tx_all(w->q, b->m, (uint16_t)b->n);
	count(w, RC_TX, sent);
	if (sent < b->n)
		count(w, RC_DROP_TX, b->n - sent);
	b->n = 0;
}

static void
tx_add(struct reflector_worker *w, struct tx_batch *b, struct rte_mbuf *m)
{
	if (b->n == REFLECTOR_TX_MAX)
		tx_flush(w, b);
	b->m[b->n++] = m;
}

/* An answer built whole in a reassembly buffer goes out as fragments. */
static void
tx_fragments(struct reflector_worker *w, struct tx_batch *b, const uint8_t *buf,
	     const struct codec_frame *f)
{
	struct io_queue *q = w->q;
	size_t off = 0;

	do {
		struct rte_mbuf *m = q->ops->alloc(q);
		int len;

		if (m == NULL) {
			count(w, RC_DROP_NOMBUF, 1);
			return;
		}
		len = codec_ipv4_fragment(buf, f, q->mtu, &off,
					  rte_pktmbuf_mtod(m, uint8_t *),
					  rte_pktmbuf_tailroom(m));
		if (len < 0) {
			q->ops->free(q, m);
			count(w, RC_DROP_TX, 1);
			return;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		tx_add(w, b, m);
	} while (off != 0);
}

/*
 * The reassembly context for fragment f: the one collecting its datagram,
 * else a free or timed-out one, else the oldest not holding an answer of
 * this burst (its datagram is given up). -1 when every one is busy.
 */
static int
reasm_pick(struct reflector_worker *w, const struct codec_frame *f,
	   uint64_t now)
{
	const struct reflector_conf *c = w->conf;
	int best = -1;
	uint64_t best_started = UINT64_MAX;

	for (unsigned i = 0; i < c->n_reasm; i++)
		if (!w->reasm_busy[i] && codec_reasm_matches(w->reasm[i], f))
			return (int)i;
	for (unsigned i = 0; i < c->n_reasm; i++) {
		uint64_t started;

		if (w->reasm_busy[i])
			continue;
		if (!codec_reasm_active(w->reasm[i], &started))
			return (int)i;
		if (started < best_started) {
			best_started = started;
			best = (int)i;
		}
	}
	if (best >= 0) {
		/* Given up: timed out, or evicted by a newer datagram. */
		codec_reasm_reset(w->reasm[best]);
		count(w, RC_DROP_REASM, 1);
		(void)now;
	}
	return best;
}

/*
 * A datagram from a port that itself answers everything (another reflector,
 * echo, chargen, daytime, quote, time) would start an endless exchange
 * (the classic echo/chargen loop, CVE-1999-0103): never answer one.
 */
static bool
is_loop_port(const struct reflector_conf *c, uint16_t sport)
{
	switch (sport) {
	case 7:
	case 13:
	case 17:
	case 19:
	case 37:
		return true;
	default:
		return sport == c->stamp_port || sport == c->sockperf_port ||
		       sport == c->echo_port;
	}
}

/* Multicast and broadcast sources (MAC group bit, IPv4 class D/E or
 * limited broadcast) are never answered. */
static bool
is_bad_source(const struct codec_frame *f)
{
	return (f->src.b[0] & 1) != 0 || f->src4 >= 0xe0000000u || f->src4 == 0;
}

/*
 * Decide what to do with one received frame: returns true when buf was
 * turned into an answer in place (its checksums still to be set by the
 * caller for STAMP), false when the frame is to be dropped.
 */
static bool
handle_udp(struct reflector_worker *w, uint8_t *buf, struct codec_frame *f,
	   uint64_t t2_wire, bool *is_stamp)
{
	const struct reflector_conf *c = w->conf;
	uint8_t *pl = buf + f->payload_off;

	*is_stamp = false;
	if (is_loop_port(c, f->sport)) {
		count(w, RC_DROP_LOOP_PORT, 1);
		return false;
	}
	if (c->stamp_port != 0 && f->dport == c->stamp_port) {
		struct stamp_sender s;
		struct stamp_reflect_opts o;
		int rc;

		/* With a key, only a request whose HMAC verifies is answered
		 * (and makes a stateful session). */
		if (w->auth != NULL &&
		    (stamp_auth_verify(w->auth, pl, f->payload_len) != 0 ||
		     stamp_auth_sender_parse(pl, f->payload_len, &s) != 0)) {
			count(w, RC_DROP_AUTH, 1);
			return false;
		}
		if (w->auth == NULL &&
		    stamp_sender_parse(pl, f->payload_len, &s) != 0) {
			count(w, RC_DROP_PROBE, 1);
			return false;
		}
		memset(&o, 0, sizeof(o));
		o.seq = c->stateful ? session_next_seq(w, f, s.ssid, s.seq)
				    : s.seq;
		o.rx_timestamp = t2_wire;
		o.error_estimate = c->error_estimate;
		o.sender_ttl = f->ttl;
		o.rx_tos = f->tos;
		rc = w->auth != NULL
			     ? stamp_auth_reflect(pl, f->payload_len, &o)
			     : stamp_reflect(pl, f->payload_len, &o);
		if (rc < 0) {
			count(w, RC_DROP_PROBE, 1);
			return false;
		}
		*is_stamp = true;
		count(w, RC_STAMP, 1);
		return true;
	}
	if (c->sockperf_port != 0 && f->dport == c->sockperf_port) {
		int r = sockperf_reflect(pl, f->payload_len);

		if (r < 0) {
			count(w, RC_DROP_PROBE, 1);
			return false;
		}
		if (r == 0) {
			count(w, RC_SOCKPERF_NOREPLY, 1);
			return false;
		}
		count(w, RC_SOCKPERF, 1);
		return true;
	}
	if (c->echo_port != 0 && f->dport == c->echo_port) {
		count(w, RC_ECHO, 1);
		return true;
	}
	count(w, RC_DROP_PORT, 1);
	return false;
}

static bool
handle_ipv4(struct reflector_worker *w, uint8_t *buf, struct codec_frame *f,
	    bool ip_csum_good, uint64_t t2_wire, bool *is_stamp)
{
	*is_stamp = false;
	if (f->dst4 != w->conf->addr || !is_for_us_mac(w, f)) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return false;
	}
	if (!ip_csum_good && !codec_ipv4_csum_ok(buf, f)) {
		count(w, RC_DROP_IP_CSUM, 1);
		return false;
	}
	if (is_bad_source(f)) {
		count(w, RC_DROP_SOURCE, 1);
		return false;
	}
	if (f->ip_proto == CODEC_IPPROTO_UDP) {
		if (w->conf->verify_l4_csum && !codec_l4_csum_ok(buf, f)) {
			count(w, RC_DROP_L4_CSUM, 1);
			return false;
		}
		return handle_udp(w, buf, f, t2_wire, is_stamp);
	}
	if (f->ip_proto == CODEC_IPPROTO_ICMP) {
		if (f->icmp_type != CODEC_ICMP_ECHO_REQUEST ||
		    f->icmp_code != 0) {
			count(w, RC_DROP_ICMP_OTHER, 1);
			return false;
		}
		if (!codec_l4_csum_ok(buf, f)) {
			count(w, RC_DROP_L4_CSUM, 1);
			return false;
		}
		buf[f->l4_off] = CODEC_ICMP_ECHO_REPLY;
		count(w, RC_ICMP, 1);
		return true;
	}
	count(w, RC_DROP_PROTO, 1);
	return false;
}

static inline uint64_t
wire_ts(const struct reflector_conf *c, uint64_t tsc)
{
	return stamp_ts_from_ns(
		tsc_anchor_to_realtime_ns(&c->anchor, &c->clock, tsc),
		c->error_estimate);
}

unsigned
reflector_poll(struct reflector_worker *w)
{
	struct rte_mbuf *rx[REFLECTOR_BURST];
	struct io_queue *q = w->q;
	uint16_t n;

	n = io_rx(q, rx, REFLECTOR_BURST);
	if (n == 0)
		return 0;
	/* T2 as early as possible after the frames left the rx ring. */
	reflector_handle(w, rx, n, q->ops->clock_end(q));
	return n;
}

/*
 * A fragment for us: into reassembly; when it completes a datagram, that
 * datagram is answered like any frame (in its reassembly buffer), and the
 * answer leaves as fragments. Returns true when *pending got a STAMP answer.
 */
static bool
handle_fragment(struct reflector_worker *w, struct tx_batch *b,
		const uint8_t *buf, const struct codec_frame *f, uint64_t t2,
		uint64_t t2_wire, struct pending_stamp *pending)
{
	const struct reflector_conf *c = w->conf;
	struct codec_frame *whole_f = &pending->f;
	uint8_t *whole;
	size_t whole_len;
	bool is_stamp = false;
	int i, rc;

	if (f->dst4 != c->addr || !is_for_us_mac(w, f)) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return false;
	}
	if (c->n_reasm == 0 || !codec_ipv4_csum_ok(buf, f)) {
		count(w, c->n_reasm == 0 ? RC_DROP_FRAGMENT : RC_DROP_IP_CSUM,
		      1);
		return false;
	}
	i = reasm_pick(w, f, t2);
	if (i < 0) {
		count(w, RC_DROP_REASM, 1);
		return false;
	}
	if (c->reasm_timeout_cycles != 0) {
		uint64_t started;

		if (codec_reasm_active(w->reasm[i], &started) &&
		    t2 - started > c->reasm_timeout_cycles) {
			codec_reasm_reset(w->reasm[i]);
			count(w, RC_DROP_REASM, 1);
		}
	}
	count(w, RC_FRAGMENTS, 1);
	rc = codec_reasm_add(w->reasm[i], buf, f, t2, &whole, &whole_len);
	if (rc == -ESTALE || rc == -EINVAL)
		count(w, RC_DROP_REASM, 1);
	if (rc != 1)
		return false;
	count(w, RC_REASSEMBLED, 1);
	if (codec_parse_frame(whole, whole_len, whole_f) != 0 ||
	    whole_f->is_fragment) {
		count(w, RC_DROP_MALFORMED, 1);
		codec_reasm_reset(w->reasm[i]);
		return false;
	}
	/* Each fragment's header was checked; the rebuilt one is ours. */
	if (!handle_ipv4(w, whole, whole_f, true, t2_wire, &is_stamp)) {
		codec_reasm_reset(w->reasm[i]);
		return false;
	}
	codec_turn_around(whole, whole_f, &c->mac, is_stamp ? 255 : 64);
	if (is_stamp) {
		pending->buf = whole;
		pending->reasm = i;
		w->reasm_busy[i] = true;
		return true;
	}
	codec_l4_csum_set(whole, whole_f);
	tx_fragments(w, b, whole, whole_f);
	codec_reasm_reset(w->reasm[i]);
	return false;
}

void
reflector_handle(struct reflector_worker *w, struct rte_mbuf **rx, uint16_t n,
		 uint64_t t2)
{
	struct pending_stamp stamps[REFLECTOR_BURST];
	struct tx_batch b;
	struct io_queue *q = w->q;
	const struct reflector_conf *c = w->conf;
	unsigned n_stamp = 0;
	uint64_t t2_wire, t3 = t2, t3_wire;

	if (n > REFLECTOR_BURST) {
		reflector_handle(w, rx, REFLECTOR_BURST, t2);
		reflector_handle(w, rx + REFLECTOR_BURST,
				 (uint16_t)(n - REFLECTOR_BURST), t2);
		return;
	}
	b.n = 0;
	t2_wire = wire_ts(c, t2);
	count(w, RC_RX, n);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
		struct pending_stamp *p = &stamps[n_stamp];
		struct codec_frame *f = &p->f;
		bool answer = false, is_stamp = false;

		p->reasm = -1;
		if (m->nb_segs != 1 ||
		    codec_parse_frame(buf, m->data_len, f) != 0) {
			count(w, RC_DROP_MALFORMED, 1);
		} else if (f->ethertype == CODEC_ETHERTYPE_ARP) {
			struct rte_mbuf *r =
				is_for_us_mac(w, f) ? answer_arp(w, f) : NULL;

			if (r != NULL)
				tx_add(w, &b, r);
			else if (!is_for_us_mac(w, f))
				count(w, RC_DROP_NOT_FOR_US, 1);
		} else if (f->ethertype != CODEC_ETHERTYPE_IPV4) {
			count(w, RC_DROP_ETHERTYPE, 1);
		} else if (f->is_fragment) {
			if (handle_fragment(w, &b, buf, f, t2, t2_wire, p))
				n_stamp++;
		} else {
			/* A NIC that checked the IPv4 header saves us the sum.
			 */
			answer = handle_ipv4(
				w, buf, f,
				(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
					RTE_MBUF_F_RX_IP_CKSUM_GOOD,
				t2_wire, &is_stamp);
		}
		if (!answer) {
			q->ops->free(q, m);
			continue;
		}
		/* The header checksum was verified: turn_around keeps it right.
		 */
		codec_turn_around(buf, f, &c->mac, is_stamp ? 255 : 64);
		if (is_stamp) {
			/* T3 and the L4 checksum wait until just before tx. */
			p->buf = buf;
			n_stamp++;
		} else {
			codec_l4_csum_set(buf, f);
		}
		tx_add(w, &b, m);
	}
	if (n_stamp > 0) {
		t3 = q->ops->clock_start(q);
		t3_wire = wire_ts(c, t3);
		for (unsigned i = 0; i < n_stamp; i++) {
			struct pending_stamp *p = &stamps[i];

			/* Authenticated: the HMAC covers T3, so it is
			 * computed here, per answer, right after T3. */
			if (w->auth != NULL)
				stamp_auth_reflector_stamp(
					w->auth, p->buf + p->f.payload_off,
					p->f.payload_len, t3_wire);
			else
				stamp_reflector_stamp(p->buf + p->f.payload_off,
						      p->f.payload_len,
						      t3_wire);
			codec_l4_csum_set(p->buf, &p->f);
			if (p->reasm >= 0) {
				tx_fragments(w, &b, p->buf, &p->f);
				codec_reasm_reset(w->reasm[p->reasm]);
				w->reasm_busy[p->reasm] = false;
			}
		}
	}
	tx_flush(w, &b);
	/* After tx: the turnaround record is not on the probe's path. */
	for (unsigned i = 0; i < n_stamp; i++)
		histogram_record(&w->turnaround, tsc_to_ns(&c->clock, t3 - t2));
}

void
reflector_run(struct reflector_worker *w, const volatile bool *stop)
{
	while (!*stop)
		reflector_poll(w);
}
