/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prober's engine: worker init/fini, ARP and neighbour answers, the rx
 * path (take_burst -> take_rx -> take_frame/take_fast -> take_reply ->
 * record_answer: classify a frame, match it to its probe, record its
 * latencies), the tx path (templates, build_probe, send_probe) and the
 * closed loop (prober_worker_begin/_step/_run, run_lean).
 *
 * Over 1,000 lines on purpose: the rx and tx helpers are PROBER_INLINE
 * (always_inline) and static, so that the per-frame chain compiles into one
 * loop per entry point with no call between classification, matching and
 * recording; split over translation units they would be calls (no LTO in
 * this build), on the path whose cost is the floor the tool measures. What
 * is not on that path already lives beside it: flows.c, multi.c,
 * openloop.c/openwin.c, nd.c, proto_udp.c, proto_tcp.c, prober_hwts.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "latprobe/nd.h"
#include "latprobe/byteorder.h"
#include "latprobe/prober.h"
#include "latprobe/stamp_auth.h"

#include "latprobe/prober_oneway.h"

enum prober_unreach
prober_unreach_of_code(uint8_t code)
{
	switch (code) {
	case 0:
	case 6:
	case 11:
		return PROBER_UNREACH_NET;
	case 1:
	case 7:
	case 12:
		return PROBER_UNREACH_HOST;
	case 3:
		return PROBER_UNREACH_PORT;
	case 9:
	case 10:
	case 13:
		return PROBER_UNREACH_ADMIN;
	default:
		return PROBER_UNREACH_OTHER;
	}
}

enum prober_unreach
prober_unreach_of_code6(uint8_t code)
{
	/* RFC 4443 3.1. */
	switch (code) {
	case 0:
		return PROBER_UNREACH_NET; /* no route */
	case 3:
		return PROBER_UNREACH_HOST; /* address unreachable */
	case 4:
		return PROBER_UNREACH_PORT;
	case 1: /* administratively prohibited */
	case 5: /* source address failed policy */
	case 6: /* reject route */
		return PROBER_UNREACH_ADMIN;
	default:
		return PROBER_UNREACH_OTHER;
	}
}

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

#define STAT_ADD(w, field, n) util_relaxed_add(&(w)->st.field, (n))

/* Bytes of Ethernet [+ 802.1Q] header in front of our IP packets. */
static size_t
l2_len(const struct codec_flow *fl)
{
	return CODEC_ETH_HLEN + (fl->vlan ? CODEC_VLAN_HLEN : 0);
}

/*
 * The largest L3 packet one mbuf of q takes after the L2 header (the port
 * MTU may be larger: a 9000-byte MTU with 2 KiB mbufs); 0 when the pool is
 * empty (then the MTU is taken as it is).
 */
static size_t
mbuf_l3_room(struct io_queue *q, const struct codec_flow *fl)
{
	struct rte_mbuf *m = io_alloc(q);
	size_t room;

	if (m == NULL)
		return 0;
	room = rte_pktmbuf_tailroom(m);
	io_free(q, m);
	return room > l2_len(fl) ? room - l2_len(fl) : 0;
}

int
prober_worker_init(struct prober_worker *w, const struct prober_conf *c,
		   struct io_queue *q, unsigned index)
{
	size_t room;
	int ret;

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
	histogram_init(&w->intended);
	histogram_init(&w->behind);
	prober_oneway_init(w);
	histogram_init(&w->rtt_host_prober);
	histogram_init(&w->rtt_host_reflector);
	histogram_init(&w->rtt_host_both);
	stall_init(&w->stall, &c->clock, c->stall_threshold_ns, q->path_calls);
	prober_hw_init(w);
	ret = prober_flows_init(w);
	if (ret != 0) {
		prober_worker_fini(w);
		return ret;
	}
	w->mtu = q->mtu;
	room = mbuf_l3_room(q, &w->flow);
	if (room != 0 && room < w->mtu)
		w->mtu = (uint16_t)room;
	/* IPv4 (20) or IPv6 (40) + UDP or ICMP (8) around the payload. */
	if (c->size + (c->flow.ip_version == 6 ? 48u : 28u) > w->mtu) {
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
	if (c->rate_pps != 0) {
		ret = prober_open_init(w);
		if (ret != 0) {
			prober_worker_fini(w);
			return ret;
		}
	}
	if (c->keep_samples) {
		/* Never more than max_samples, even at first. */
		w->cap_samples = c->max_samples < 4096 ? c->max_samples : 4096;
		if (w->cap_samples != 0) {
			w->samples =
				malloc(w->cap_samples * sizeof(*w->samples));
			if (w->samples == NULL) {
				prober_worker_fini(w);
				return -ENOMEM;
			}
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
	free(w->tmpl.buf);
	w->tmpl.buf = NULL;
	w->tmpl.len = 0;
	stamp_auth_destroy(w->auth);
	w->auth = NULL;
	prober_flows_fini(w);
	prober_open_fini(w);
}

/* An ARP frame of ours into m, tagged when vlan != 0. */
static int
arp_frame(struct rte_mbuf *m, uint16_t op, const struct codec_mac *sha,
	  uint32_t spa, const struct codec_mac *tha, uint32_t tpa,
	  uint16_t vlan)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	size_t cap = rte_pktmbuf_tailroom(m);
	int len = codec_build_arp(buf, cap, op, sha, spa, tha, tpa);

	if (len > 0 && vlan != 0)
		len = codec_vlan_insert(buf, (size_t)len, cap, vlan);
	if (len > 0)
		io_mbuf_set_tx_len(m, (uint16_t)len);
	return len;
}

bool
prober_answer_arp_vlan(struct io_queue *q, const struct codec_frame *f,
		       const struct codec_mac *my_mac, uint32_t my_ip,
		       uint16_t vlan)
{
	struct rte_mbuf *m;
	int len;

	if (f->ethertype != CODEC_ETHERTYPE_ARP ||
	    f->arp_op != CODEC_ARP_REQUEST || f->arp_tpa != my_ip ||
	    !codec_frame_on_vlan(f, vlan))
		return false;
	m = io_alloc(q);
	if (m == NULL)
		return false;
	len = codec_build_arp_reply(rte_pktmbuf_mtod(m, uint8_t *),
				    rte_pktmbuf_tailroom(m), f, my_mac);
	if (len < 0) {
		io_free(q, m);
		return false;
	}
	io_mbuf_set_tx_len(m, (uint16_t)len);
	return io_tx_all(q, &m, 1) == 1;
}

bool
prober_answer_arp(struct io_queue *q, const struct codec_frame *f,
		  const struct codec_mac *my_mac, uint32_t my_ip)
{
	return prober_answer_arp_vlan(q, f, my_mac, my_ip, 0);
}

int
prober_announce(struct io_queue *q, const struct codec_mac *my_mac,
		uint32_t my_ip, uint16_t vlan)
{
	struct rte_mbuf *m = io_alloc(q);

	if (m == NULL)
		return -ENOBUFS;
	/* RFC 5227 2.3: an ARP request with our address as both sender and
	 * target, to the broadcast address. */
	if (arp_frame(m, CODEC_ARP_REQUEST, my_mac, my_ip, NULL, my_ip, vlan) <
	    0) {
		io_free(q, m);
		return -EINVAL;
	}
	return io_tx_all(q, &m, 1) == 1 ? 0 : -EAGAIN;
}

int
prober_arp_resolve(struct io_queue *q, const struct codec_mac *my_mac,
		   uint32_t my_ip, uint32_t ip, unsigned timeout_ms,
		   const struct tsc_clock *clock, struct codec_mac *out,
		   const atomic_bool *stop)
{
	return prober_arp_resolve_vlan(q, my_mac, my_ip, 0, ip, timeout_ms,
				       clock, out, stop);
}

int
prober_arp_resolve_vlan(struct io_queue *q, const struct codec_mac *my_mac,
			uint32_t my_ip, uint16_t vlan, uint32_t ip,
			unsigned timeout_ms, const struct tsc_clock *clock,
			struct codec_mac *out, const atomic_bool *stop)
{
	static const struct codec_mac zero;
	uint64_t start = io_clock(q);
	uint64_t every = tsc_from_ns(clock, 200 * 1000000ull);
	uint64_t limit = tsc_from_ns(clock, (uint64_t)timeout_ms * 1000000ull);
	uint64_t next = start;

	for (;;) {
		struct rte_mbuf *pkts[PROBER_BURST];
		uint64_t now = io_clock(q);
		uint16_t n;

		if (atomic_load_explicit(stop, memory_order_relaxed))
			return -EINTR;
		if (now - start > limit)
			return -EHOSTUNREACH;
		if (now >= next) {
			struct rte_mbuf *m = io_alloc(q);

			if (m != NULL) {
				if (arp_frame(m, CODEC_ARP_REQUEST, my_mac,
					      my_ip, &zero, ip, vlan) > 0)
					io_tx_all(q, &m, 1);
				else
					io_free(q, m);
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
			    f.ethertype == CODEC_ETHERTYPE_ARP &&
			    codec_frame_on_vlan(&f, vlan)) {
				if (f.arp_op == CODEC_ARP_REPLY &&
				    f.arp_spa == ip) {
					*out = f.arp_sha;
					found = true;
				} else {
					prober_answer_arp_vlan(q, &f, my_mac,
							       my_ip, vlan);
				}
			}
			io_free(q, pkts[i]);
			if (found) {
				for (uint16_t j = i + 1; j < n; j++)
					io_free(q, pkts[j]);
				return 0;
			}
		}
	}
}

enum seen {
	SEEN_NEW,
	SEEN_AGAIN,
	SEEN_TOO_OLD, /* older than the window: cannot tell, so late */
};

/* The window slid until seq is in it (half a window at a time). */
static __attribute__((noinline)) void
seen_slide(struct prober_worker *w, uint64_t seq)
{
	while (seq >= w->seen_base + PROBER_DUP_WINDOW) {
		const unsigned half = PROBER_DUP_WINDOW / 64 / 2;

		memmove(w->seen, w->seen + half, half * sizeof(w->seen[0]));
		memset(w->seen + half, 0, half * sizeof(w->seen[0]));
		w->seen_base += PROBER_DUP_WINDOW / 2;
	}
}

/* Duplicate window: one bit per recent sequence number. */
static inline enum seen
seen_test_and_set(struct prober_worker *w, uint64_t seq)
{
	uint64_t bit, mask;

	if (seq < w->seen_base)
		return SEEN_TOO_OLD;
	if (seq - w->seen_base >= PROBER_DUP_WINDOW)
		seen_slide(w, seq);
	bit = seq - w->seen_base;
	mask = 1ull << (bit % 64);
	if (w->seen[bit / 64] & mask)
		return SEEN_AGAIN;
	w->seen[bit / 64] |= mask;
	return SEEN_NEW;
}

void
prober_ignore(struct prober_worker *w, enum prober_ignored why)
{
	STAT_ADD(w, ignored[why], 1);
	STAT_ADD(w, rx_ignored, 1);
}

static void
keep_sample(struct prober_worker *w, uint64_t seq, uint64_t t1, uint64_t rtt,
	    int64_t net, bool ow, int64_t fwd, int64_t rev)
{
	const struct prober_conf *c = w->conf;
	struct prober_sample *s;

	if (w->n_samples == w->cap_samples) {
		size_t cap = w->cap_samples * 2;
		struct prober_sample *n;

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
	s->has_one_way = ow;
	s->forward_ns = fwd;
	s->reverse_ns = rev;
}

/* Answers that come back in a lower sequence number than one seen before
 * are reordered. */
static inline void
note_order(struct prober_worker *w, uint64_t seq)
{
	if (w->any_seen && seq < w->max_seq_seen)
		STAT_ADD(w, reordered, 1);
	if (!w->any_seen || seq > w->max_seq_seen)
		w->max_seq_seen = seq;
	w->any_seen = true;
}

void
prober_note_order(struct prober_worker *w, uint64_t seq)
{
	note_order(w, seq);
}

/* The reflector worker's counters in a TLV into its slot (modulo 2^32
 * differences: the TLV's counters wrap). */
static void
note_peer_rw(struct prober_worker *w, const struct stamp_lp_stalls *t)
{
	uint16_t id = t->worker != 0 ? t->worker : UINT16_MAX;

	for (unsigned i = 0; i < PROBER_PEER_RW; i++) {
		struct prober_peer_rw *p = &w->peer_rw[i];

		if (p->worker == 0) {
			/* First answer of it: the counts start here. */
			p->last_count = t->stall_count;
			p->last_total_us = t->stall_total_us;
			__atomic_store_n(&p->worker, id, __ATOMIC_RELEASE);
			return;
		}
		if (p->worker != id)
			continue;
		util_relaxed_add(&p->count,
				 (uint32_t)(t->stall_count - p->last_count));
		util_relaxed_add(&p->total_us, (uint32_t)(t->stall_total_us -
							  p->last_total_us));
		p->last_count = t->stall_count;
		p->last_total_us = t->stall_total_us;
		return;
	}
	STAT_ADD(w, peer_stall_untracked, 1);
}

/* Does a worker before i, or one with a larger count, of w[i]'s target
 * hold reflector worker id (count c)? Then w[i]'s is not the one taken. */
static bool
peer_rw_taken_elsewhere(const struct prober_worker *w, unsigned n,
			const unsigned *target, unsigned i, uint16_t id,
			uint64_t c)
{
	for (unsigned j = 0; j < n; j++) {
		if (j == i || (target != NULL && target[j] != target[i]))
			continue;
		for (unsigned m = 0; m < PROBER_PEER_RW; m++) {
			const struct prober_peer_rw *q = &w[j].peer_rw[m];
			uint64_t qc;

			if (__atomic_load_n(&q->worker, __ATOMIC_ACQUIRE) != id)
				continue;
			qc = util_relaxed_read(&q->count);
			if (qc > c || (qc == c && j < i))
				return true;
		}
	}
	return false;
}

void
prober_peer_stalls_merge(const struct prober_worker *w, unsigned n,
			 const unsigned *target, uint64_t *count,
			 uint64_t *total_us)
{
	*count = 0;
	*total_us = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < PROBER_PEER_RW; k++) {
			const struct prober_peer_rw *p = &w[i].peer_rw[k];
			uint16_t id =
				__atomic_load_n(&p->worker, __ATOMIC_ACQUIRE);
			uint64_t c = util_relaxed_read(&p->count);

			if (id == 0 ||
			    peer_rw_taken_elsewhere(w, n, target, i, id, c))
				continue;
			*count += c;
			*total_us += util_relaxed_read(&p->total_us);
		}
}

/* --stall-tlv: what the answer's stall TLV said (out of line: only with
 * the option). */
static __attribute__((noinline)) void
note_peer_stall(struct prober_worker *w, const struct probe_reply *r)
{
	if (r->has_peer_stall < 0) {
		STAT_ADD(w, peer_stall_unknown, 1);
		return;
	}
	STAT_ADD(w, peer_stall_answers, 1);
	note_peer_rw(w, &r->peer_stall);
	if (r->peer_stall.stall_ns > w->st.peer_stall_longest_ns)
		__atomic_store_n(&w->st.peer_stall_longest_ns,
				 r->peer_stall.stall_ns, __ATOMIC_RELAXED);
}

/* Inlined where `lean` is a constant: a lean caller (prober_worker_run()
 * with every hook off, see lean_ok()) compiles the hooks' tests away. */
#define PROBER_INLINE static inline __attribute__((always_inline))

/*
 * Both sides stalled during this probe: which one held it (out of line,
 * rare). This side's delay is the stall that ended at T4 (the answer came
 * during it; a stall earlier in the wait delayed nothing), the
 * reflector's the TLV's stall before T2, or its turnaround when the stall
 * was inside T2..T3 (the TLV is written before T3).
 */
static __attribute__((noinline)) unsigned
both_sides(const struct prober_worker *w, const struct probe_reply *r,
	   uint64_t t4)
{
	uint64_t p_ns = w->stall.last_end == t4
				? tsc_to_ns(&w->conf->clock, w->stall.last_len)
				: 0;
	uint64_t r_ns = r->peer_stall.stall_ns;

	if ((r->peer_stall.flags & STAMP_STALL_IN_TURNAROUND) != 0 &&
	    r->has_remote_ts && r->t3_ns >= r->t2_ns &&
	    r->t3_ns - r->t2_ns > r_ns)
		r_ns = r->t3_ns - r->t2_ns;
	return prober_stall_side(p_ns, r_ns);
}

/*
 * Which host the probe's round trip (T1..T4, rtt ns) may have
 * waited for. A stall of this worker that ended after T1 started before
 * the T4 just read (stall_since()); the reflector's side is its stall TLV.
 */
PROBER_INLINE void
attribute(struct prober_worker *w, const struct probe_reply *r, uint64_t t1,
	  uint64_t t4, uint64_t rtt)
{
	bool hp = stall_since(&w->stall, t1);
	bool hr = r->has_peer_stall > 0 && r->peer_stall.flags != 0;

	if (__builtin_expect(!hp && !hr, 1))
		return; /* unaffected: rtt less the others */
	if (hp && hr) {
		unsigned side = both_sides(w, r, t4);

		hp = (side & 1) != 0;
		hr = (side & 2) != 0;
	}
	if (!hr)
		histogram_record(&w->rtt_host_prober, rtt);
	else if (!hp)
		histogram_record(&w->rtt_host_reflector, rtt);
	else
		histogram_record(&w->rtt_host_both, rtt);
}

/*
 * THE record of an answered, measured probe: every series it feeds. sched
 * is the probe's scheduled send time (open loop: intended latency T4 -
 * sched); unused in closed loop. lean: no flows, no open loop, no samples,
 * no NIC timestamps (the caller knows).
 */
PROBER_INLINE void
record_answer(struct prober_worker *w, const struct probe_reply *r,
	      uint64_t seq, uint64_t t1, uint64_t t4, uint64_t sched, bool lean)
{
	const struct prober_conf *c = w->conf;
	uint64_t rtt, turn, net;
	int64_t net_sample = -1, fwd = 0, rev = 0;
	bool ow = false;

	rtt = tsc_to_ns(&c->clock, t4 - t1);
	/* The first packet of a tuple is its own series, nothing else. */
	if (!lean && prober_flow_take(w, seq, rtt))
		return;
	histogram_record(&w->rtt, rtt);
	attribute(w, r, t1, t4, rtt);
	if (!lean && w->open != NULL)
		histogram_record(&w->intended,
				 tsc_to_ns(&c->clock, t4 - sched));
	if (r->has_remote_ts && r->t3_ns >= r->t2_ns) {
		turn = r->t3_ns - r->t2_ns;
		net = rtt > turn ? rtt - turn : 0;
		histogram_record(&w->turnaround, turn);
		histogram_record(&w->network_rtt, net);
		net_sample = (int64_t)net;
		prober_oneway_record(w, r, t1, t4, &fwd, &rev);
		ow = true;
	}
	if (r->is_reset)
		STAT_ADD(w, resets, 1);
	if (r->has_peer_stall != 0)
		note_peer_stall(w, r);
	if (lean)
		return;
	if (c->keep_samples)
		keep_sample(w, seq, t1, rtt, net_sample, ow, fwd, rev);
	if (c->hw_ts)
		prober_hw_record(w, t1, t4);
}

int
prober_rtt_unaffected(const struct prober_worker *w, struct histogram *out)
{
	int ret;

	histogram_init(out);
	histogram_merge(out, &w->rtt);
	ret = histogram_subtract(out, &w->rtt_host_prober);
	if (ret == 0)
		ret = histogram_subtract(out, &w->rtt_host_reflector);
	if (ret == 0)
		ret = histogram_subtract(out, &w->rtt_host_both);
	return ret;
}

void
prober_record_answer(struct prober_worker *w, const struct probe_reply *r,
		     uint64_t seq, uint64_t t1, uint64_t t4, uint64_t sched)
{
	record_answer(w, r, seq, t1, t4, sched, false);
}

/*
 * One answer of ours: record it if it is the probe in flight (seq;
 * UINT64_MAX when none). Only seqs below next were ever sent. Open loop
 * (w->open): the answer's own sequence number finds its probe in the
 * window (openloop.c).
 */
PROBER_INLINE bool
take_reply(struct prober_worker *w, const struct probe_reply *r, uint64_t seq,
	   uint64_t next, uint64_t t1, uint64_t t4, bool measured, bool lean)
{
	if (r->seq >= next) {
		prober_ignore(w, PROBER_IGN_NEVER_SENT);
		return false;
	}
	if (!lean && w->open != NULL)
		return w->open->take(w, r, t4);
	switch (seen_test_and_set(w, r->seq)) {
	case SEEN_NEW:
		break;
	case SEEN_AGAIN:
		STAT_ADD(w, duplicated, 1);
		prober_ignore(w, PROBER_IGN_DUPLICATE);
		return false;
	case SEEN_TOO_OLD:
		STAT_ADD(w, late, 1);
		prober_ignore(w, PROBER_IGN_LATE);
		return false;
	}
	note_order(w, r->seq);
	if (r->seq != seq) {
		STAT_ADD(w, late, 1); /* its probe was already given up */
		prober_ignore(w, PROBER_IGN_LATE);
		return false;
	}
	STAT_ADD(w, answered, 1);
	if (!measured)
		return true;
	record_answer(w, r, seq, t1, t4, t1, lean);
	return true;
}

/* The IP protocol w's probes go over. */
static uint8_t
probe_ip_proto(const struct prober_worker *w)
{
	const struct probe_proto *p = w->conf->proto;

	if (p->udp)
		return CODEC_IPPROTO_UDP;
	if (p == &probe_proto_tcp_syn)
		return CODEC_IPPROTO_TCP;
	return w->flow.ip_version == 6 ? CODEC_IPPROTO_ICMPV6
				       : CODEC_IPPROTO_ICMP;
}

/* Is f addressed like an answer to w (peer to us, the probe's protocol and
 * ports)? Used to tell a short answer from someone else's frame. */
static bool
on_our_flow(const struct prober_worker *w, const struct codec_frame *f)
{
	uint8_t proto = probe_ip_proto(w);

	if (!codec_frame_from_peer(f, &w->flow) || f->ip_proto != proto)
		return false;
	if (proto == CODEC_IPPROTO_ICMP || proto == CODEC_IPPROTO_ICMPV6)
		return true;
	return f->sport == w->flow.dport && prober_flow_port_ok(w, f->dport);
}

/* Does an ICMP error's quote name a probe of w? */
static bool
quotes_our_probe(const struct prober_worker *w,
		 const struct codec_icmp_quote *qt)
{
	uint8_t proto = probe_ip_proto(w);

	if (qt->ip_version != w->flow.ip_version || qt->proto != proto)
		return false;
	if (qt->ip_version == 6
		    ? memcmp(qt->src6, w->flow.src6, 16) != 0 ||
			      memcmp(qt->dst6, w->flow.dst6, 16) != 0
		    : qt->src4 != w->flow.src4 || qt->dst4 != w->flow.dst4)
		return false;
	if (!qt->has_l4) /* a later fragment: only the IP ID tells */
		return qt->ip_version == 6
			       ? qt->frag_id >> 24 == (w->index & 0xff)
			       : qt->ip_id >> 10 == (w->index & 0x3f);
	if (proto == CODEC_IPPROTO_ICMP || proto == CODEC_IPPROTO_ICMPV6)
		return qt->icmp_type == (proto == CODEC_IPPROTO_ICMPV6
						 ? CODEC_ICMP6_ECHO_REQUEST
						 : CODEC_ICMP_ECHO_REQUEST) &&
		       qt->icmp_id == (uint16_t)(w->conf->icmp_id + w->index);
	return prober_flow_port_ok(w, qt->sport) && qt->dport == w->flow.dport;
}

enum rx_outcome {
	RX_NONE,
	RX_ANSWERED,	/* the probe in flight was answered */
	RX_UNREACHABLE, /* an ICMP error quotes the probe in flight */
};

/*
 * An ICMP destination unreachable for us (checksums verified): counted by
 * code when it quotes one of our probes; RX_UNREACHABLE when it quotes
 * the one in flight (seq; UINT64_MAX for none).
 */
static enum rx_outcome
take_unreachable(struct prober_worker *w, const uint8_t *buf,
		 const struct codec_frame *f, uint64_t seq)
{
	struct codec_icmp_quote qt;

	if (codec_parse_icmp_quote(buf, f, &qt) != 0) {
		prober_ignore(w, PROBER_IGN_TOO_SHORT);
		return RX_NONE;
	}
	if (!quotes_our_probe(w, &qt)) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	STAT_ADD(w,
		 unreachable[f->ip_version == 6
				     ? prober_unreach_of_code6(f->icmp_code)
				     : prober_unreach_of_code(f->icmp_code)],
		 1);
	prober_ignore(w, PROBER_IGN_UNREACHABLE);
	if (w->open != NULL) {
		/* Open loop: the ID's sequence bits name a probe in flight
		 * (IPv4, or IPv6 fragments); else it times out. */
		if (qt.ip_version == 4)
			w->open->unreachable(w, qt.ip_id & 0x3ff, 10);
		else if (w->fragmented)
			w->open->unreachable(w, qt.frag_id & 0xffffff, 24);
		return RX_NONE;
	}
	if (seq == UINT64_MAX)
		return RX_NONE;
	/*
	 * IPv4: the quoted IP ID names the probe. IPv6 has no ID outside a
	 * Fragment header: a quote of our flow while a probe is in flight
	 * ends it (one probe in flight per worker; an error that comes later
	 * than the probe's timeout ends the next one).
	 */
	if (qt.ip_version == 6)
		return w->fragmented && qt.frag_id !=
						prober_frag_id6(w->index, seq)
			       ? RX_NONE
			       : RX_UNREACHABLE;
	if (qt.ip_id == prober_ip_id(w->index, seq))
		return RX_UNREACHABLE;
	return RX_NONE;
}

/* The reflector's Error Estimate, for the report (stamp.*). */
static void
note_ee(struct prober_worker *w, uint16_t ee)
{
	if (w->st.reflector_ee_answers != 0 && w->st.reflector_ee != ee)
		STAT_ADD(w, reflector_ee_changes, 1);
	__atomic_store_n(&w->st.reflector_ee, ee, __ATOMIC_RELAXED);
	STAT_ADD(w, reflector_ee_answers, 1);
}

/*
 * What the protocol's match said (rc, r) of a frame on our flow or not:
 * too_short when it was ours but too short for an answer.
 */
PROBER_INLINE enum rx_outcome
take_matched(struct prober_worker *w, int rc, const struct probe_reply *r,
	     bool too_short, uint16_t dport, uint64_t t4, uint64_t seq,
	     uint64_t next, uint64_t t1, bool measured, bool lean)
{
	if (rc == -EBADMSG) {
		/* Ours, but its HMAC does not verify: not an answer, so its
		 * probe stays in flight (and is lost). */
		STAT_ADD(w, auth_failed, 1);
		prober_ignore(w, PROBER_IGN_AUTH);
		return RX_NONE;
	}
	if (rc != 1) {
		prober_ignore(w, too_short ? PROBER_IGN_TOO_SHORT
					   : PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	/* Many flows: the answer must come on its probe's flow (a sequence
	 * number not sent yet is take_reply()'s to count). */
	if (!lean && w->flow_ports != NULL && r->seq < next &&
	    dport != prober_flow_sport(w, r->seq)) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	if (r->has_ee)
		note_ee(w, r->error_estimate);
	return take_reply(w, r, seq, next, t1, t4, measured, lean) ? RX_ANSWERED
								   : RX_NONE;
}

/*
 * Match a whole (unfragmented or reassembled) IPv4 frame from our peer; l4
 * is the NIC's verdict on its L4 checksum (UNKNOWN: checked here).
 */
static enum rx_outcome
take_frame(struct prober_worker *w, const uint8_t *buf,
	   const struct codec_frame *f, enum io_csum l4, uint64_t t4,
	   uint64_t seq, uint64_t next, uint64_t t1, bool measured)
{
	const struct probe_proto *p = w->conf->proto;
	enum rx_outcome got;
	struct probe_reply r;
	int rc;

	if (f->payload_off != 0 && l4 != IO_CSUM_GOOD) {
		enum codec_l4_csum v =
			l4 == IO_CSUM_BAD ? CODEC_L4_CSUM_BAD
			: l4 == IO_CSUM_NONE
				? CODEC_L4_CSUM_PARTIAL
				: codec_l4_csum_check(buf, f, NULL);

		if (v == CODEC_L4_CSUM_BAD) {
			prober_ignore(w, PROBER_IGN_CHECKSUM);
			return RX_NONE;
		}
		if (v == CODEC_L4_CSUM_PARTIAL)
			STAT_ADD(w, l4_partial, 1);
	}
	memset(&r, 0, sizeof(r));
	rc = p->match(w, buf, f, &r);
	got = take_matched(
		w, rc, &r,
		rc != 1 && rc != -EBADMSG && on_our_flow(w, f) &&
			(f->payload_off == 0 || f->payload_len < p->min_size),
		f->dport, t4, seq, next, t1, measured, false);
	if (rc == 1 && p->on_reply != NULL)
		p->on_reply(w, buf, f);
	return got;
}

/*
 * The answer of a UDP protocol, the shape it has almost always taken off
 * the frame without codec_parse_frame(): Ethernet (on our VLAN), IPv4
 * without options or IPv6 without extension headers, not a fragment, UDP
 * from the peer's port to ours. Every check of the generic path is made:
 * lengths, addresses, ports, the IPv4 header checksum and the UDP one
 * (unless the NIC's rx flags say good). -1 for any frame of another shape
 * or that fails a check: the generic path takes it (and counts why).
 */
PROBER_INLINE int
take_fast(struct prober_worker *w, const struct rte_mbuf *m, uint64_t t4,
	  uint64_t seq, uint64_t next, uint64_t t1, bool measured, bool lean)
{
	const struct probe_proto *p = w->conf->proto;
	const struct codec_flow *fl = &w->flow;
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t len = m->data_len, l3 = CODEC_ETH_HLEN, avail;
	const uint8_t *ip, *udp;
	struct probe_reply r;
	uint64_t sum;
	uint16_t et = util_get_be16(b + 12), ulen;
	/* The NIC's verdicts (io_rx_ip_csum(), io_rx_l4_csum()) read off
	 * the flags directly: good skips the check, bad fails it, anything
	 * else is checked here. */
	uint64_t ipf = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

	if (m->nb_segs != 1 ||
	    len < CODEC_ETH_HLEN + CODEC_VLAN_HLEN + CODEC_IPV4_HLEN +
			    CODEC_UDP_HLEN ||
	    l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return -1;
	if (fl->vlan) {
		if (et != CODEC_ETHERTYPE_VLAN ||
		    ((util_get_be16(b + 14) ^ fl->vlan_tci) & 0xfff) != 0)
			return -1;
		et = util_get_be16(b + 16);
		l3 += CODEC_VLAN_HLEN;
	}
	ip = b + l3;
	avail = len - l3;
	if (fl->ip_version == 4 && et == CODEC_ETHERTYPE_IPV4) {
		size_t tlen = util_get_be16(ip + 2);

		/* IHL 5, not a fragment (MF, offset), UDP, peer to us. */
		if (avail < CODEC_IPV4_HLEN + CODEC_UDP_HLEN || ip[0] != 0x45 ||
		    tlen < CODEC_IPV4_HLEN + CODEC_UDP_HLEN || tlen > avail ||
		    (util_get_be16(ip + 6) & 0x3fff) != 0 ||
		    ip[9] != CODEC_IPPROTO_UDP ||
		    util_get_be32(ip + 12) != fl->dst4 ||
		    util_get_be32(ip + 16) != fl->src4 ||
		    ipf == RTE_MBUF_F_RX_IP_CKSUM_BAD)
			return -1;
		if (ipf != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
		    codec_csum_fold16(codec_csum_add(0, ip, 20)) != 0xffff)
			return -1;
		udp = ip + CODEC_IPV4_HLEN;
		avail = tlen - CODEC_IPV4_HLEN;
		/* Pseudo-header: addresses, protocol, UDP length (below). */
		sum = codec_csum_add(0, ip + 12, 8) +
		      rte_cpu_to_be_16(CODEC_IPPROTO_UDP);
	} else if (fl->ip_version == 6 && et == CODEC_ETHERTYPE_IPV6) {
		if (avail < CODEC_IPV6_HLEN + CODEC_UDP_HLEN)
			return -1;
		avail = util_get_be16(ip + 4);
		if ((ip[0] >> 4) != 6 || avail > len - l3 - CODEC_IPV6_HLEN ||
		    ip[6] != CODEC_IPPROTO_UDP ||
		    memcmp(ip + 8, fl->dst6, 16) != 0 ||
		    memcmp(ip + 24, fl->src6, 16) != 0)
			return -1;
		udp = ip + CODEC_IPV6_HLEN;
		sum = codec_csum_add(0, ip + 8, 32) +
		      rte_cpu_to_be_16(CODEC_IPPROTO_UDP);
	} else {
		return -1;
	}
	ulen = util_get_be16(udp + 4);
	if (ulen < CODEC_UDP_HLEN || ulen > avail ||
	    util_get_be16(udp) != fl->dport ||
	    (lean ? util_get_be16(udp + 2) != fl->sport
		  : !prober_flow_port_ok(w, util_get_be16(udp + 2))))
		return -1;
	if (l4f != RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
		uint16_t stored;

		memcpy(&stored, udp + 6, sizeof(stored));
		/* 0: none over IPv4 (RFC 768), wrong over IPv6 (RFC 8200);
		 * NONE: the NIC verified it, the sum is left partial. */
		if (l4f == RTE_MBUF_F_RX_L4_CKSUM_NONE && stored != 0) {
			STAT_ADD(w, l4_partial, 1);
		} else if (stored != 0 || fl->ip_version == 6) {
			uint64_t ps = sum + rte_cpu_to_be_16(ulen);

			sum = codec_csum_add(ps, udp, ulen & ~1u);
			if (ulen & 1) {
				const uint8_t last[2] = {udp[ulen - 1], 0};

				sum = codec_csum_add(sum, last, 2);
			}
			if (stored == 0)
				return -1;
			if (codec_csum_fold16(sum) != 0xffff) {
				/* Partial: the folded pseudo-header sum
				 * alone (a peer's tx offload); else wrong. */
				if (stored != codec_csum_fold16(ps))
					return -1;
				STAT_ADD(w, l4_partial, 1);
			}
		}
	}
	memset(&r, 0, sizeof(r));
	return (int)take_matched(w,
				 p->match_payload(w, udp + CODEC_UDP_HLEN,
						  ulen - CODEC_UDP_HLEN, &r),
				 &r, ulen - CODEC_UDP_HLEN < (int)p->min_size,
				 util_get_be16(udp + 2), t4, seq, next, t1,
				 measured, lean);
}

/*
 * A fragment from our peer into reassembly; when it completes an answer,
 * that answer is taken like an unfragmented one.
 */
static enum rx_outcome
take_fragment(struct prober_worker *w, const uint8_t *buf,
	      const struct codec_frame *f, uint64_t t4, uint64_t seq,
	      uint64_t next, uint64_t t1, bool measured)
{
	struct codec_frame whole_f;
	enum rx_outcome got = RX_NONE;
	uint8_t *whole;
	size_t whole_len;
	int rc;

	if (w->reasm == NULL || !codec_frame_from_peer(f, &w->flow)) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW); /* not from our peer */
		return RX_NONE;
	}
	rc = codec_reasm_add(w->reasm, buf, f, t4, &whole, &whole_len);
	if (rc == 0)
		return RX_NONE;
	if (rc < 0) {
		/* -ESTALE: an unfinished answer gave way to a newer one;
		 * -EINVAL: an answer that cannot be reassembled. */
		STAT_ADD(w, reasm_failed, 1);
		return RX_NONE;
	}
	if (codec_parse_frame(whole, whole_len, &whole_f) == 0)
		got = take_frame(w, whole, &whole_f, IO_CSUM_UNKNOWN, t4, seq,
				 next, t1, measured);
	else
		prober_ignore(w, PROBER_IGN_TOO_SHORT);
	codec_reasm_reset(w->reasm);
	return got;
}

/*
 * An IPv6 frame: Neighbor Discovery (an NS for our address is answered,
 * the rest counted with ARP), then to our address from our peer, then the
 * L4 checksum and the protocol's match as over IPv4 (a zero UDP checksum
 * is a wrong one over IPv6). No header checksum in IPv6.
 */
static enum rx_outcome
take_rx6(struct prober_worker *w, const struct rte_mbuf *m,
	 const struct codec_frame *f, uint64_t t4, uint64_t seq, uint64_t next,
	 uint64_t t1, bool measured)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t vlan = w->flow.vlan ? w->flow.vlan_tci : 0;

	if (f->ip_proto == CODEC_IPPROTO_ICMPV6 &&
	    (f->icmp_type == CODEC_ICMP6_NS ||
	     f->icmp_type == CODEC_ICMP6_NA)) {
		if (w->flow.ip_version != 6 ||
		    !prober_answer_ns(w->q, buf, f, &w->flow.src_mac,
				      w->flow.src6, vlan))
			prober_ignore(w, PROBER_IGN_ARP);
		return RX_NONE;
	}
	if (!codec_frame_to_us(f, &w->flow)) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	/* From the peer or from any router on the way. */
	if (!f->is_fragment && f->ip_proto == CODEC_IPPROTO_ICMPV6 &&
	    f->icmp_type == CODEC_ICMP6_DEST_UNREACH) {
		if (!codec_l4_csum_ok(buf, f)) {
			prober_ignore(w, PROBER_IGN_CHECKSUM);
			return RX_NONE;
		}
		return take_unreachable(w, buf, f, seq);
	}
	if (!codec_frame_from_peer(f, &w->flow) || f->ip6_ext_refused) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	if (f->is_fragment)
		return take_fragment(w, buf, f, t4, seq, next, t1, measured);
	return take_frame(w, buf, f, io_rx_l4_csum(m), t4, seq, next, t1,
			  measured);
}

/* One received frame, parsed and classified: an answer, an ICMP error, or
 * ignored. Apart from the fast path (its frame on the stack). */
static __attribute__((noinline)) enum rx_outcome
take_rx_parsed(struct prober_worker *w, const struct rte_mbuf *m, uint64_t t4,
	       uint64_t seq, uint64_t next, uint64_t t1, bool measured)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t vlan = w->flow.vlan ? w->flow.vlan_tci : 0;
	struct codec_frame f;
	enum io_csum ip;

	/* A frame in several segments is none of our answers' shape. */
	if (m->nb_segs != 1 || codec_parse_frame(buf, m->data_len, &f) != 0) {
		prober_ignore(w, PROBER_IGN_TOO_SHORT);
		return RX_NONE;
	}
	if (f.ethertype != CODEC_ETHERTYPE_ARP &&
	    f.ethertype != CODEC_ETHERTYPE_IPV4 &&
	    f.ethertype != CODEC_ETHERTYPE_IPV6) {
		prober_ignore(w, PROBER_IGN_NOT_IP);
		return RX_NONE;
	}
	if (!codec_frame_on_vlan(&f, vlan)) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	if (f.ethertype == CODEC_ETHERTYPE_ARP) {
		if (!prober_answer_arp_vlan(w->q, &f, &w->flow.src_mac,
					    w->flow.src4, vlan))
			prober_ignore(w, PROBER_IGN_ARP);
		return RX_NONE;
	}
	if (f.ip_version == 6)
		return take_rx6(w, m, &f, t4, seq, next, t1, measured);
	if (f.ip_version != 4 || f.dst4 != w->flow.src4) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	ip = io_rx_ip_csum(m);
	if (ip == IO_CSUM_BAD ||
	    (ip == IO_CSUM_UNKNOWN && !codec_ipv4_csum_ok(buf, &f))) {
		prober_ignore(w, PROBER_IGN_CHECKSUM);
		return RX_NONE;
	}
	if (f.is_fragment)
		return take_fragment(w, buf, &f, t4, seq, next, t1, measured);
	if (f.ip_proto == CODEC_IPPROTO_ICMP &&
	    f.icmp_type == CODEC_ICMP_DEST_UNREACH) {
		if (!codec_l4_csum_ok(buf, &f)) {
			prober_ignore(w, PROBER_IGN_CHECKSUM);
			return RX_NONE;
		}
		return take_unreachable(w, buf, &f, seq);
	}
	if (f.src4 != w->flow.dst4) {
		prober_ignore(w, PROBER_IGN_OTHER_FLOW);
		return RX_NONE;
	}
	return take_frame(w, buf, &f, io_rx_l4_csum(m), t4, seq, next, t1,
			  measured);
}

/* One received frame: the UDP fast path, else parsed. */
PROBER_INLINE enum rx_outcome
take_rx(struct prober_worker *w, const struct rte_mbuf *m, uint64_t t4,
	uint64_t seq, uint64_t next, uint64_t t1, bool measured, bool lean)
{
	if (lean || w->conf->proto->match_payload != NULL) {
		int o = take_fast(w, m, t4, seq, next, t1, measured, lean);

		if (o >= 0)
			return (enum rx_outcome)o;
	}
	return take_rx_parsed(w, m, t4, seq, next, t1, measured);
}

/*
 * Can the answer m carry the next probe (lean loop)? A direct mbuf in one
 * segment that nobody else holds (refcnt 0: a headless io_pool's), with
 * room for the template after its data offset.
 */
PROBER_INLINE bool
recyclable(const struct prober_worker *w, const struct rte_mbuf *m)
{
	return w->tmpl.len != 0 && m->nb_segs == 1 && RTE_MBUF_DIRECT(m) &&
	       rte_mbuf_refcnt_read(m) <= 1 &&
	       m->buf_len - m->data_off >= w->tmpl.len;
}

/*
 * Take the burst pkts[0..n-1] (T4 read right after it came): did it answer
 * (or make unreachable) the probe in flight (seq)? Lean: no hooks, and the
 * mbuf of the answer is kept as w->spare for the next probe.
 */
PROBER_INLINE enum rx_outcome
take_burst_impl(struct prober_worker *w, struct rte_mbuf **pkts, uint16_t n,
		uint64_t t4, uint64_t seq, uint64_t next, uint64_t t1,
		bool measured, bool lean)
{
	struct io_queue *q = w->q;
	enum rx_outcome got = RX_NONE;

	for (uint16_t i = 0; i < n; i++) {
		enum rx_outcome o;

		if (!lean && w->conf->hw_ts)
			prober_hw_rx(w, pkts[i]);
		if (!lean && w->conf->capture.fn != NULL)
			w->conf->capture.fn(w->conf->capture.arg, w->index,
					    pkts[i], t4, false);
		o = take_rx(w, pkts[i], t4, seq, next, t1, measured, lean);
		/* An answer wins over an ICMP error in the same burst. */
		if (o == RX_ANSWERED || (o == RX_UNREACHABLE && got == RX_NONE))
			got = o;
		if (lean && o == RX_ANSWERED && w->spare == NULL &&
		    recyclable(w, pkts[i]))
			w->spare = pkts[i];
		else
			io_free(q, pkts[i]);
	}
	return got;
}

static __attribute__((noinline)) enum rx_outcome
take_burst(struct prober_worker *w, struct rte_mbuf **pkts, uint16_t n,
	   uint64_t seq, uint64_t next, uint64_t t1, bool measured)
{
	/* T4 right after the burst that brought the answer. */
	uint64_t t4 = io_clock_end(w->q);

	if (stall_on(&w->stall))
		stall_leave(&w->stall, t4, STALL_CALL_RX);
	return take_burst_impl(w, pkts, n, t4, seq, next, t1, measured, false);
}

/* An empty poll costs the rx call and a test: the burst's work is apart. */
static inline enum rx_outcome
poll_replies(struct prober_worker *w, uint64_t seq, uint64_t next, uint64_t t1,
	     bool measured)
{
	struct rte_mbuf *pkts[PROBER_BURST];
	bool watch = stall_on(&w->stall);
	uint16_t n;

	if (watch)
		stall_enter(&w->stall, io_clock(w->q));
	n = io_rx(w->q, pkts, PROBER_BURST);
	if (n == 0) {
		if (watch)
			stall_leave(&w->stall, io_clock(w->q),
				    STALL_CALL_RX_EMPTY);
		return RX_NONE;
	}
	return take_burst(w, pkts, n, seq, next, t1, measured);
}

/* Our IP ID for probe seq into the IPv4 header after the L2 header. */
static void
set_ip_id(const struct prober_worker *w, uint8_t *buf, uint64_t seq)
{
	struct codec_frame f;
	uint16_t id = rte_cpu_to_be_16(prober_ip_id(w->index, seq));

	if (w->flow.ip_version != 4)
		return; /* no IPv6 header field for it */
	memset(&f, 0, sizeof(f));
	f.l3_off = (uint16_t)l2_len(&w->flow);
	f.ip_version = 4;
	f.l3_hlen = CODEC_IPV4_HLEN;
	memcpy(buf + f.l3_off + 4, &id, sizeof(id));
	codec_ipv4_csum_set(buf, &f);
}

/* The L4 checksum field's offset in the L4 header of w's probes. */
static uint16_t
l4_csum_field(uint8_t proto)
{
	switch (proto) {
	case CODEC_IPPROTO_UDP:
		return 6;
	case CODEC_IPPROTO_TCP:
		return 16;
	default: /* ICMP, ICMPv6 */
		return 2;
	}
}

/* ~a in one's complement, folded: the partial sum that takes a away. */
static uint16_t
csum_base(uint16_t stored, uint64_t taken)
{
	uint16_t b = codec_csum_fold16(
		(uint16_t)~stored +
		(uint64_t)(uint16_t)~codec_csum_fold16(taken));

	/* 0 and 0xffff are the same number; 0xffff keeps base + x != 0. */
	return b == 0 ? 0xffff : b;
}

void
prober_tmpl_reset(struct prober_worker *w)
{
	w->tmpl.len = 0;
}

/*
 * Make w's template from probe seq as build() makes it: its length, or
 * -ENOTSUP when w's probes cannot come from one (then tmpl.off is set, or
 * build() failed).
 */
/* Bytes copied whole from a template that short (tmpl_frame()): a
 * minimal STAMP probe is 86 bytes, 90 with a VLAN tag. */
#define PROBER_TMPL_COPY 96

/* A frame of len bytes in buf (cap bytes) zero-padded to the Ethernet
 * minimum (io_mbuf_pad()): its length. A template is padded once, so its
 * probes come out padded at no cost. */
static inline int
pad_frame(uint8_t *buf, int len, size_t cap)
{
	if (len >= 0 && len < IO_ETH_MIN_LEN && cap >= IO_ETH_MIN_LEN) {
		memset(buf + len, 0, (size_t)(IO_ETH_MIN_LEN - len));
		len = IO_ETH_MIN_LEN;
	}
	return len;
}

static __attribute__((noinline, cold)) int
tmpl_make(struct prober_worker *w, uint64_t seq, uint64_t t1_unix_ns)
{
	const struct probe_proto *p = w->conf->proto;
	struct prober_tmpl *t = &w->tmpl;
	size_t cap = l2_len(&w->flow) + w->mtu;
	struct codec_frame f;
	uint8_t proto = probe_ip_proto(w);
	uint64_t sum = 0;
	uint16_t stored;
	int len;

	if (p->patch == NULL || w->fragmented)
		goto off;
	if (t->buf == NULL) {
		/* At least PROBER_TMPL_COPY bytes: tmpl_frame() copies that
		 * many whatever the frame's length below it. */
		if (cap < PROBER_TMPL_COPY)
			cap = PROBER_TMPL_COPY;
		t->buf = malloc(cap);
		if (t->buf == NULL)
			goto off;
		memset(t->buf, 0, cap);
	}
	t->len = 0;
	len = p->build(w, t->buf, cap, seq, t1_unix_ns);
	if (len < 0)
		return -ENOTSUP; /* build() says why, this time */
	set_ip_id(w, t->buf, seq);
	len = pad_frame(t->buf, len, cap);
	if (codec_parse_frame(t->buf, (size_t)len, &f) != 0 ||
	    f.payload_off == 0 || f.is_fragment || f.ip_proto != proto)
		goto off;
	t->l4_off = f.l4_off;
	t->csum_off = (uint16_t)(f.l4_off + l4_csum_field(proto));
	t->ports = proto == CODEC_IPPROTO_UDP || proto == CODEC_IPPROTO_TCP;
	t->udp = proto == CODEC_IPPROTO_UDP;
	t->v4 = f.ip_version == 4;
	t->dport = w->flow.dport;
	/* What patch() rewrites, as it is in the template: the same bytes. */
	if (p->patch(w, t->buf + t->l4_off, seq, t1_unix_ns, &sum) != 0)
		goto off;
	if (t->ports)
		sum = codec_csum_add(sum, t->buf + t->l4_off, 2);
	memcpy(&stored, t->buf + t->csum_off, sizeof(stored));
	t->l4_base = csum_base(stored, sum);
	if (t->v4) {
		uint8_t *ip = t->buf + f.l3_off;

		memcpy(&stored, ip + 10, sizeof(stored));
		t->ip_base = csum_base(stored, codec_csum_add(0, ip + 4, 2));
	}
	t->len = (uint16_t)len;
	return len;
off:
	t->off = true;
	return -ENOTSUP;
}

/*
 * Probe seq from w's template into buf (room bytes, at least tmpl.len):
 * the template copied, then what changes patched, checksums by RFC 1624
 * (the partial sum without the changed bytes plus theirs). A frame of up
 * to PROBER_TMPL_COPY bytes is copied as that many (a copy of constant
 * length, inlined) when buf has the room.
 */
PROBER_INLINE int
tmpl_frame(struct prober_worker *w, uint8_t *buf, size_t room, uint64_t seq,
	   uint64_t t1_unix_ns)
{
	const struct prober_tmpl *t = &w->tmpl;
	uint8_t *l4 = buf + t->l4_off;
	uint64_t sum = 0;
	uint16_t c;
	int rc;

	if (t->len <= PROBER_TMPL_COPY && room >= PROBER_TMPL_COPY)
		memcpy(buf, t->buf, PROBER_TMPL_COPY);
	else
		memcpy(buf, t->buf, t->len);
	rc = w->conf->proto->patch(w, l4, seq, t1_unix_ns, &sum);
	if (rc != 0)
		return rc;
	if (t->ports) {
		uint16_t sport = __builtin_bswap16(w->flow.sport);

		memcpy(l4, &sport, sizeof(sport));
		sum += sport;
	}
	c = (uint16_t)~codec_csum_fold16(t->l4_base + sum);
	if (c == 0 && t->udp)
		c = 0xffff; /* RFC 768: 0 would mean "no checksum" */
	memcpy(buf + t->csum_off, &c, sizeof(c));
	if (t->v4) {
		uint8_t *ip = buf + l2_len(&w->flow);
		uint16_t id = __builtin_bswap16(prober_ip_id(w->index, seq));

		memcpy(ip + 4, &id, sizeof(id));
		c = (uint16_t)~codec_csum_fold16((uint64_t)t->ip_base + id);
		memcpy(ip + 10, &c, sizeof(c));
	}
	return t->len;
}

/*
 * Probe seq from the template into buf (cap bytes); the template is made
 * first when w has none, or none for this destination port. -ENOTSUP:
 * build() it.
 */
PROBER_INLINE int
tmpl_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	   uint64_t t1_unix_ns)
{
	struct prober_tmpl *t = &w->tmpl;

	if (t->off)
		return -ENOTSUP;
	if (t->len == 0 || t->dport != w->flow.dport) {
		int rc = tmpl_make(w, seq, t1_unix_ns);

		if (rc < 0)
			return rc;
	}
	if (cap < t->len)
		return -EMSGSIZE;
	return tmpl_frame(w, buf, cap, seq, t1_unix_ns);
}

/* build() and the IP ID: the frame of probe seq without a template. */
static int
generic_build(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	      uint64_t t1_unix_ns)
{
	int len = w->conf->proto->build(w, buf, cap, seq, t1_unix_ns);

	if (len >= 0)
		set_ip_id(w, buf, seq);
	return pad_frame(buf, len, cap);
}

PROBER_INLINE int
probe_frame(struct prober_worker *w, uint8_t *buf, size_t cap, uint64_t seq,
	    uint64_t t1_unix_ns, bool generic)
{
	int len = -ENOTSUP;

	if (w->fragmented)
		return -EMSGSIZE;
	if (!generic)
		len = tmpl_build(w, buf, cap, seq, t1_unix_ns);
	if (len == -ENOTSUP)
		len = generic_build(w, buf, cap, seq, t1_unix_ns);
	return len;
}

int
prober_probe_frame(struct prober_worker *w, uint8_t *buf, size_t cap,
		   uint64_t seq, uint64_t t1_unix_ns, bool generic)
{
	return probe_frame(w, buf, cap, seq, t1_unix_ns, generic);
}

/* The one frame of probe seq into m (from the template when there is
 * one): its length, or -errno (m untouched but for its data). */
PROBER_INLINE int
frame_into(struct prober_worker *w, struct rte_mbuf *m, uint64_t seq,
	   uint64_t t1_unix_ns)
{
	int len = probe_frame(w, rte_pktmbuf_mtod(m, uint8_t *),
			      rte_pktmbuf_tailroom(m), seq, t1_unix_ns, false);

	if (len >= 0)
		io_mbuf_set_len(m, (uint16_t)len);
	return len;
}

/*
 * The frame(s) of probe seq into tx[]: one mbuf (from the template when
 * the protocol has one), or, for a probe larger than the MTU, the datagram
 * built whole in scratch and cut into IPv4 fragments. Returns how many, or
 * -errno.
 */
static int
build_probe(struct prober_worker *w, struct rte_mbuf **tx, uint64_t seq,
	    uint64_t t1_unix_ns)
{
	struct io_queue *q = w->q;
	struct codec_frame f;
	size_t off = 0;
	int len, n = 0;

	/* The flow of probe seq (--flows, --new-flow-every). */
	if (w->flow_ports != NULL)
		w->flow.sport = prober_flow_select(w, seq);
	if (!w->fragmented) {
		tx[0] = io_alloc(q);
		if (tx[0] == NULL)
			return -ENOBUFS;
		len = frame_into(w, tx[0], seq, t1_unix_ns);
		if (len < 0) {
			io_free(q, tx[0]);
			return len;
		}
		return 1;
	}
	len = generic_build(w, w->scratch, PROBER_SCRATCH, seq, t1_unix_ns);
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
		m = io_alloc(q);
		if (m == NULL) {
			len = -ENOBUFS;
			goto fail;
		}
		len = f.ip_version == 6
			      ? codec_ipv6_fragment(
					w->scratch, &f, w->mtu,
					prober_frag_id6(w->index, seq), &off,
					rte_pktmbuf_mtod(m, uint8_t *),
					rte_pktmbuf_tailroom(m))
			      : codec_ipv4_fragment(
					w->scratch, &f, w->mtu, &off,
					rte_pktmbuf_mtod(m, uint8_t *),
					rte_pktmbuf_tailroom(m));
		if (len < 0) {
			io_free(q, m);
			goto fail;
		}
		/* The last fragment may be short. */
		io_mbuf_set_tx_len(m, (uint16_t)len);
		tx[n++] = m;
	} while (off != 0);
	return n;
fail:
	while (n > 0)
		io_free(q, tx[--n]);
	return len;
}

/*
 * The answer kept by the lean loop (w->spare) made ready to carry a probe,
 * as io_alloc() hands out a reset mbuf: none of the rx path's flags, no
 * offload requests. Its data offset stays (recyclable() checked the room).
 */
PROBER_INLINE void
mbuf_recycle(struct rte_mbuf *m)
{
	m->next = NULL;
	m->ol_flags = 0;
	m->packet_type = 0;
	m->tx_offload = 0;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
	io_mbuf_set_len(m, 0);
}

/*
 * Build probe seq (timestamped for now), show it to the capture hook, and
 * send it: T1 into *t1 right before the tx. 1 when it went out, 0 when the
 * tx queue did not take it whole (tx_fail counted), or -errno. Lean: one
 * frame (not fragmented), into the kept answer's mbuf when there is one,
 * no hooks.
 */
PROBER_INLINE int
send_probe(struct prober_worker *w, uint64_t seq, uint64_t now, uint64_t *t1,
	   bool lean, bool watch)
{
	const struct prober_conf *c = w->conf;
	struct rte_mbuf *tx[PROBER_MAX_FRAGS];
	struct io_queue *q = w->q;
	uint64_t ts = tsc_anchor_to_realtime_ns(&c->anchor, &c->clock, now);
	int n_tx;

	if (lean) {
		struct rte_mbuf *m = w->spare;
		int len;

		if (m != NULL) {
			w->spare = NULL;
			mbuf_recycle(m);
		} else {
			m = io_alloc(q);
			if (m == NULL)
				return -ENOBUFS;
		}
		len = frame_into(w, m, seq, ts);
		if (len < 0) {
			io_free(q, m);
			return len;
		}
		*t1 = io_clock_start(q);
		/* A stall that ends at T1 came before the probe left: not
		 * its (stall_since() is strict). */
		if (watch)
			stall_enter_tx(&w->stall, *t1);
		n_tx = io_tx(q, &m, 1);
		if (watch)
			stall_leave(&w->stall, io_clock(q), STALL_CALL_TX);
		if (n_tx == 1)
			return 1;
		io_free(q, m);
		STAT_ADD(w, tx_fail, 1);
		return 0;
	}
	if (c->hw_ts)
		prober_hw_resample(w, now);
	n_tx = build_probe(w, tx, seq, ts);
	if (n_tx < 0)
		return n_tx;
	if (c->capture.fn != NULL) {
		for (int i = 0; i < n_tx; i++)
			c->capture.fn(c->capture.arg, w->index, tx[i],
				      io_clock(q), true);
	}
	*t1 = io_clock_start(q);
	/* A probe cut into fragments goes out in calls whose length grows
	 * with it (several us for 8 KiB): the detector looks again after
	 * them instead of judging them. */
	if (watch && n_tx == 1)
		stall_enter_tx(&w->stall, *t1);
	if (io_tx_all(q, tx, (uint16_t)n_tx) != n_tx) {
		if (watch)
			stall_rebase(&w->stall, io_clock(q));
		/* A probe missing a fragment is no probe. */
		STAT_ADD(w, tx_fail, 1);
		return 0;
	}
	if (watch && n_tx == 1)
		stall_leave(&w->stall, io_clock(q), STALL_CALL_TX);
	else if (watch)
		stall_rebase(&w->stall, io_clock(q));
	return 1;
}

int
prober_send_probe(struct prober_worker *w, uint64_t seq, uint64_t now,
		  uint64_t *t1)
{
	return send_probe(w, seq, now, t1, false, stall_on(&w->stall));
}

/*
 * The send of probe seq found the pool empty (io_alloc NULL): a moment's
 * shortage while answers and the PMD's tx completions give mbufs back, so
 * it is counted (probes.nombuf) and the same probe tried again, as testpmd
 * does. A shortage that outlasts the probe timeout is a leak or a pool too
 * small for the rate, not a moment: -ENOBUFS ends the run (with -n and no
 * -t it would otherwise wait for ever). A send only moves on to the next
 * sequence number once it went, so another seq means the pool came back in
 * between: nothing to clear on the send path.
 */
int
prober_nombuf(struct prober_worker *w, uint64_t seq, uint64_t now)
{
	STAT_ADD(w, nombuf, 1);
	if (w->nombuf_since == 0 || w->nombuf_seq != seq) {
		w->nombuf_since = now | 1;
		w->nombuf_seq = seq;
		return 0;
	}
	return now - w->nombuf_since > w->conf->timeout_cycles ? -ENOBUFS : 0;
}

/* Drain the rx queue for the open loop: answers find their probe by their
 * own sequence number (below next). */
void
prober_poll_open(struct prober_worker *w, uint64_t next)
{
	poll_replies(w, UINT64_MAX, next, 0, true);
}

void
prober_worker_poll(struct prober_worker *w)
{
	poll_replies(w, UINT64_MAX, w->step_seq, 0, false);
}

void
prober_answer_neighbours(struct io_queue *q, const struct codec_flow *fl)
{
	struct rte_mbuf *pkts[PROBER_BURST];
	uint16_t n = io_rx(q, pkts, PROBER_BURST);
	uint16_t vlan = fl->vlan ? fl->vlan_tci : 0;

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *buf = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		struct codec_frame f;

		if (pkts[i]->nb_segs == 1 &&
		    codec_parse_frame(buf, pkts[i]->data_len, &f) == 0) {
			if (f.ethertype == CODEC_ETHERTYPE_ARP)
				(void)prober_answer_arp_vlan(
					q, &f, &fl->src_mac, fl->src4, vlan);
			else if (fl->ip_version == 6 &&
				 f.ethertype == CODEC_ETHERTYPE_IPV6 &&
				 f.ip_proto == CODEC_IPPROTO_ICMPV6 &&
				 f.icmp_type == CODEC_ICMP6_NS)
				(void)prober_answer_ns(q, buf, &f, &fl->src_mac,
						       fl->src6, vlan);
		}
		io_free(q, pkts[i]);
	}
}

/*
 * The loop's own gaps on the real queue before the first probe (the empty
 * polls the prober spends most of a round trip in), then the stall
 * threshold from them (stall_calibrate()). Frames that come meanwhile
 * (ARP, a late answer of another run) are taken as always.
 */
static void
calibrate(struct prober_worker *w, const atomic_bool *stop)
{
	uint64_t t0, span;

	if (!stall_on(&w->stall) || w->stall.calib.done)
		return;
	t0 = io_clock(w->q);
	span = tsc_from_ns(&w->conf->clock, w->conf->stall_calib_ns);
	stall_rebase(&w->stall, t0);
	for (unsigned i = 0;
	     span != 0 && i < STALL_CALIB_GAPS &&
	     (stop == NULL ||
	      !atomic_load_explicit(stop, memory_order_relaxed));
	     i++) {
		poll_replies(w, UINT64_MAX, 0, 0, false);
		if ((i & 63) == 0 &&
		    stall_calib_over(io_clock(w->q) - t0, span, i))
			break;
	}
	stall_calibrate(&w->stall);
}

int
prober_worker_begin(struct prober_worker *w)
{
	const struct prober_conf *c = w->conf;

	calibrate(w, NULL);
	w->t_start = io_clock(w->q);
	w->t_run = w->t_start;
	w->step_seq = 0;
	w->nombuf_since = 0;
	w->step_next_send = 0;
	w->step_deadline = 0;
	stall_rebase(&w->stall, w->t_start);
	/* -t bounds the whole run, warm-up included. */
	if (c->duration_cycles != 0)
		w->step_deadline = w->t_run + c->duration_cycles;
	return c->hw_ts ? prober_hw_start(w) : 0;
}

/*
 * One probe (prober_worker_step()). Lean (lean_ok(): closed loop, no
 * hooks): the answer's mbuf carries the next probe. Between two empty rx
 * polls nothing but the poll: the clock (timeout, -t) and the stop flag
 * are read every PROBER_POLL_CHECK empty polls, and after a burst.
 */
#define PROBER_POLL_CHECK 16

PROBER_INLINE int
step_impl(struct prober_worker *w, const atomic_bool *stop, bool lean,
	  bool watch)
{
	const struct prober_conf *c = w->conf;
	struct io_queue *q = w->q;
	uint64_t seq = w->step_seq, deadline = w->step_deadline;
	bool measured = seq >= c->warmup;
	bool got = false, abandoned = false, unreachable = false;
	uint64_t t1, now;
	int n_tx;

	if (atomic_load_explicit(stop, memory_order_relaxed))
		return 0;
	if (measured && c->count != 0 && seq - c->warmup >= c->count)
		return 0;
	if (measured && seq == c->warmup) {
		w->t_start = io_clock(q);
		/* The run's stalls are the measured part's. */
		if (watch && seq != 0)
			stall_restart(&w->stall, w->t_start);
	}
	if (deadline != 0 && io_clock(q) >= deadline)
		return 0;
	/* Pacing: keep draining (late answers, ARP) while we wait. */
	while (c->interval_cycles != 0 &&
	       !atomic_load_explicit(stop, memory_order_relaxed) &&
	       io_clock(q) < w->step_next_send &&
	       (deadline == 0 || io_clock(q) < deadline))
		poll_replies(w, UINT64_MAX, seq, 0, false);
	if (deadline != 0 && io_clock(q) >= deadline)
		return 0;

	now = io_clock(q);
	n_tx = send_probe(w, seq, now, &t1, lean, watch);
	if (n_tx < 0) {
		if (n_tx != -ENOBUFS)
			return n_tx;
		/* No mbuf for now: counted, the rx queue drained (late
		 * answers give theirs back), and the same probe tried at the
		 * next step. */
		if (prober_nombuf(w, seq, now) != 0)
			return -ENOBUFS;
		poll_replies(w, UINT64_MAX, seq, 0, false);
		return 1;
	}
	if (n_tx == 0) {
		/* Refused (a port whose link is down refuses them all, memif
		 * does): the next try waits for -i too, rather than spinning
		 * through sequence numbers. */
		w->step_seq = seq + 1;
		w->step_next_send = now + c->interval_cycles;
		return 1;
	}
	w->step_next_send = t1 + c->interval_cycles;
	for (unsigned polls = 1;; polls++) {
		struct rte_mbuf *pkts[PROBER_BURST];
		uint16_t n;

		/* Not watched (watch false, a constant in the lean loop), no
		 * clock read for the detector. */
		if (watch)
			stall_enter(&w->stall, io_clock(q));
		n = io_rx(q, pkts, PROBER_BURST);
		if (n != 0) {
			enum rx_outcome o;

			if (lean) {
				/* T4 right after the burst that brought the
				 * answer. */
				uint64_t t4 = io_clock_end(q);

				if (watch)
					stall_leave(&w->stall, t4,
						    STALL_CALL_RX);
				o = take_burst_impl(w, pkts, n, t4, seq,
						    seq + 1, t1, measured,
						    true);
			} else
				o = take_burst(w, pkts, n, seq, seq + 1, t1,
					       measured);
			if (o == RX_ANSWERED) {
				got = true;
				break;
			}
			if (o == RX_UNREACHABLE) {
				unreachable = true;
				break; /* nobody will answer it: lost */
			}
		} else {
			if (watch)
				stall_leave(&w->stall, io_clock(q),
					    STALL_CALL_RX_EMPTY);
			if (polls % PROBER_POLL_CHECK != 0)
				continue;
		}
		now = io_clock(q);
		if (now - t1 > c->timeout_cycles)
			break;
		if (atomic_load_explicit(stop, memory_order_relaxed) ||
		    (deadline != 0 && now >= deadline)) {
			abandoned = true;
			break;
		}
	}
	if (abandoned)
		return 0; /* in flight at stop: neither sent nor lost */
	if (!measured) {
		STAT_ADD(w, warmup, 1);
	} else {
		STAT_ADD(w, sent, 1);
		if (got) {
			STAT_ADD(w, received, 1);
		} else {
			STAT_ADD(w, lost, 1);
			if (!lean)
				prober_flow_lost(w, seq);
			if (io_link_lost(c->link, t1))
				STAT_ADD(w, lost_link_down, 1);
		}
		/* The timeout ran past the next probe's start. */
		if (!got && !unreachable && c->interval_cycles != 0 &&
		    now > w->step_next_send)
			STAT_ADD(w, interval_stretched, 1);
		if (unreachable)
			STAT_ADD(w, lost_unreachable, 1);
	}
	w->step_seq = seq + 1;
	return 1;
}

int
prober_worker_step(struct prober_worker *w, const atomic_bool *stop)
{
	return step_impl(w, stop, false, stall_on(&w->stall));
}

/*
 * Can w run the lean loop? Closed loop, one frame per probe, a UDP answer
 * fast path, and none of the hooks: NIC timestamps, capture, flows,
 * samples.
 */
static bool
lean_ok(const struct prober_worker *w)
{
	const struct prober_conf *c = w->conf;

	return w->open == NULL && !w->fragmented && !c->hw_ts &&
	       c->capture.fn == NULL && w->flow_ports == NULL &&
	       !c->keep_samples && c->proto->match_payload != NULL;
}

static __attribute__((noinline)) int
run_lean(struct prober_worker *w, const atomic_bool *stop)
{
	int ret;

	if (stall_on(&w->stall))
		while ((ret = step_impl(w, stop, true, true)) > 0)
			;
	else
		while ((ret = step_impl(w, stop, true, false)) > 0)
			;
	if (w->spare != NULL) {
		io_free(w->q, w->spare);
		w->spare = NULL;
	}
	return ret;
}

int
prober_worker_run(struct prober_worker *w, const atomic_bool *stop)
{
	int ret;

	ret = prober_worker_begin(w);
	if (ret == 0 && lean_ok(w))
		ret = run_lean(w, stop);
	else if (ret == 0)
		while ((ret = prober_worker_step(w, stop)) > 0)
			;
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return ret < 0 ? ret : 0;
}

int
prober_worker_resume(struct prober_worker *w, const atomic_bool *stop)
{
	int ret;

	if (w->conf->hw_ts) {
		/* The device back is a new NIC clock: matched again from
		 * scratch (-ENOTSUP: it has none). */
		nic_clock_reset(&w->nic);
		ret = prober_hw_start(w);
		if (ret != 0)
			return ret;
	}
	if (w->open != NULL)
		return prober_worker_resume_open(w, stop);
	w->step_next_send = 0;
	w->nombuf_since = 0;
	/* The time without a port was not the loop's: not a stall. */
	stall_rebase(&w->stall, io_clock(w->q));
	__atomic_store_n(&w->done, false, __ATOMIC_RELEASE);
	if (lean_ok(w))
		ret = run_lean(w, stop);
	else
		while ((ret = prober_worker_step(w, stop)) > 0)
			;
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return ret < 0 ? ret : 0;
}
