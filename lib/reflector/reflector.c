/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflector's engine: counters, worker init/fini, source policy (ACL,
 * rate limit, bad sources, low and loop ports, the stateful session
 * table), and the per-burst path: the fast
 * STAMP/UDP answer in place (stamp_fast, handle_one_fast), the general one
 * (reflector_handle: ARP, ICMP, ND, STAMP, sockperf, UDP echo, fragments)
 * and reflector_poll/reflector_run.
 *
 * Over 1,000 lines on purpose: the per-packet helpers are static and
 * always_inline so that a burst is answered in one loop without calls (no
 * LTO in this build); the turnaround T3 - T2 that every STAMP answer
 * reports is this code's cost. What is off that path lives beside it:
 * lru.c (the tables), loopback.c, reflector_hwts.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rte_mbuf.h>

#include "latprobe/lru.h"
#include "latprobe/nd.h"
#include "latprobe/reflector.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"

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
	[RC_DROP_LOW_PORT] = "dropped.low_port",
	[RC_DROP_ACL] = "dropped.acl",
	[RC_DROP_RATE] = "dropped.rate_limited",
	[RC_SESSION_EXPIRED] = "sessions_expired",
	[RC_DROP_AUTH] = "dropped.auth",
	[RC_ND] = "answered.nd",
	[RC_DROP_ND] = "dropped.nd",
	[RC_DROP_UDP6_ZERO_CSUM] = "dropped.udp6_zero_checksum",
	[RC_DROP_IPV6_EXT] = "dropped.ipv6_ext_header",
	[RC_RX_L4_PARTIAL] = "rx.l4_partial",
	[RC_RX_L4_CSUM_NIC] = "rx.l4_csum_nic",
	[RC_RX_L4_CSUM_SW] = "rx.l4_csum_software",
};

const char *
reflector_counter_name(enum reflector_counter c)
{
	if ((unsigned)c >= RC__COUNT)
		return "unknown";
	return counter_names[c];
}

/* The frame the STAMP fast path answers (stamp_fast()). */
#define FAST_UDP_LEN  (CODEC_UDP_HLEN + STAMP_BASE_LEN)
#define FAST_IP_LEN   (CODEC_IPV4_HLEN + FAST_UDP_LEN)
/* IPv4 header bytes 0-7 loaded little-endian: version/IHL (byte 0), total
 * length (2-3), flags/fragment offset without DF (6-7). */
#define FAST_IP0_MASK 0xff3f0000ffff00ffull
#define FAST_IP0      ((uint64_t)FAST_IP_LEN << 24 | 0x45u)

static inline __attribute__((always_inline)) void
count(struct reflector_worker *w, enum reflector_counter c, uint64_t n)
{
	util_relaxed_add(&w->counters[c], n);
}

void
reflector_conf_default(struct reflector_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->stamp_port = STAMP_PORT;
	c->sockperf_port = SOCKPERF_PORT;
	c->echo_port = 7;
	c->error_estimate = REFLECTOR_ERROR_ESTIMATE;
	/* Probes larger than the MTU (-l 8k) arrive as fragments. */
	c->n_reasm = 4;
	c->reasm_timeout_ns = 1000000000ull;
	c->session_idle_s = 300;
	c->stall_threshold_ns = STALL_DEFAULT_THRESHOLD_NS;
	c->stall_calib_ns = STALL_CALIB_NS;
}

/* The tables' hash seed: unpredictable to a peer, so it cannot aim at one
 * chain. */
static uint64_t
hash_seed(const void *salt)
{
	uint64_t seed;
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) ==
	    (ssize_t)sizeof(seed))
		return seed;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
	       (uint64_t)(uintptr_t)salt;
}

/* Our timestamps' mapping and Error Estimate from w->map and ee. */
static void
clock_take(struct reflector_worker *w, uint16_t ee)
{
	w->ee = ee;
	w->fast_ee_be = rte_cpu_to_be_16(ee);
	w->ntp_direct = (ee & STAMP_EE_Z) == 0 &&
			stamp_ntp_clock_init(&w->ntp, w->map.anchor.tsc,
					     w->map.anchor.realtime_ns,
					     w->map.clock.hz) == 0;
	w->fast_one = w->fast_ok && w->ntp_direct;
}

/* After a burst: the feed's new mapping, if it has one. */
static inline void
clock_refresh(struct reflector_worker *w)
{
	const struct clock_feed *f = w->conf->utc_feed;
	uint64_t err;
	uint16_t ee;

	if (f == NULL || clock_feed_gen(f) == w->feed_gen)
		return;
	if (clock_feed_read(f, &w->feed_gen, &w->map, &err, &ee))
		clock_take(w, ee);
}

int
reflector_worker_init(struct reflector_worker *w,
		      const struct reflector_conf *conf, struct io_queue *q)
{
	memset(w, 0, sizeof(*w));
	w->conf = conf;
	w->q = q;
	histogram_init(&w->turnaround);
	stall_init(&w->stall, &conf->clock, conf->stall_threshold_ns,
		   q->path_calls);
	w->stall_watch = stall_on(&w->stall);
	if (conf->hw_ts)
		w->idle = REFLECTOR_IDLE_REST;
	else if (!w->stall_watch)
		w->idle = REFLECTOR_IDLE_NONE;
	else if (q->ops->clock_tsc)
		w->idle = REFLECTOR_IDLE_TICK_TSC;
	else
		w->idle = REFLECTOR_IDLE_TICK;
	reflector_hw_init(w);
	codec_ipv6_link_local(&conf->mac, w->ll6);
	if (conf->n_reasm > REFLECTOR_MAX_REASM ||
	    conf->n_allow > REFLECTOR_MAX_ALLOW ||
	    (conf->rate_limit_pps != 0 && conf->clock.hz == 0))
		return -EINVAL;
	w->reasm_timeout_cycles =
		tsc_from_ns(&conf->clock, conf->reasm_timeout_ns);
	w->session_idle_cycles = conf->clock.hz * conf->session_idle_s;
	if (conf->stateful) {
		w->sessions = lru_create(REFLECTOR_SESSIONS, hash_seed(w));
		if (w->sessions == NULL)
			return -ENOMEM;
	}
	if (conf->rate_limit_pps != 0) {
		uint64_t burst = REFLECTOR_RATE_BURST(conf->rate_limit_pps);

		w->rate_interval = conf->clock.hz / conf->rate_limit_pps;
		if (w->rate_interval == 0)
			w->rate_interval = 1;
		w->rate_tolerance = (burst - 1) * w->rate_interval;
		w->rate =
			lru_create(REFLECTOR_RATE_SOURCES, hash_seed(&w->rate));
		if (w->rate == NULL) {
			reflector_worker_fini(w);
			return -ENOMEM;
		}
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
	/* Stateful sessions, keys and rate limits take the generic path. */
	w->fast_ok = !conf->no_fast_path && !conf->stateful &&
		     w->auth == NULL && w->rate == NULL && conf->addr != 0 &&
		     conf->stamp_port != 0;
	/* 0 and 0x100 match no source (0/8 is refused before). */
	w->fast_self = (conf->addr >> 24) != 127 ? conf->addr : 0;
	w->fast_lo_net = (conf->addr >> 24) != 127 ? 127 : 0x100;
	w->fast_mac64 = 0;
	memcpy(&w->fast_mac64, conf->mac.b, CODEC_ETH_ALEN);
	w->fast_bcast = 0;
	if (conf->prefix_len > 0 && conf->prefix_len < 31)
		w->fast_bcast = conf->addr | UINT32_MAX >> conf->prefix_len;
	w->fast_addr_be = rte_cpu_to_be_32(conf->addr);
	w->fast_port_be = rte_cpu_to_be_16(conf->stamp_port);
	w->fast_udp = (uint64_t)RTE_BE16(FAST_UDP_LEN) << 32 |
		      (uint64_t)w->fast_port_be << 16;
	w->map.anchor = conf->anchor;
	w->map.clock = conf->clock;
	w->feed_gen = 0;
	clock_take(w, conf->error_estimate);
	clock_refresh(w); /* the feed's mapping from the first answer on */

	return 0;
}

void
reflector_worker_fini(struct reflector_worker *w)
{
	lru_destroy(w->sessions);
	w->sessions = NULL;
	lru_destroy(w->rate);
	w->rate = NULL;
	stamp_auth_destroy(w->auth);
	w->auth = NULL;
	for (unsigned i = 0; i < REFLECTOR_MAX_REASM; i++) {
		codec_reasm_destroy(w->reasm[i]);
		w->reasm[i] = NULL;
	}
}

/*
 * The source address of f as a 64-bit table key: the IPv4 address itself,
 * or an IPv6 address folded (the tables hash their keys with a secret seed,
 * so a peer cannot aim two sources at one key on purpose more easily than
 * at one chain).
 */
static uint64_t
src_key(const struct codec_frame *f)
{
	uint64_t hi, lo;

	if (f->ip_version != 6)
		return f->src4;
	memcpy(&hi, f->src6, 8);
	memcpy(&lo, f->src6 + 8, 8);
	hi ^= lo * 0x9e3779b97f4a7c15ull;
	return hi ^ (hi >> 29);
}

/*
 * RFC 8972 §4: a stateful reflector numbers each session's answers itself,
 * from 0. A session idle for longer than the timeout starts again at 0; when
 * the table is full the least recently seen session makes room.
 */
static uint32_t
session_next_seq(struct reflector_worker *w, const struct codec_frame *f,
		 uint16_t ssid, uint64_t now)
{
	uint64_t idle = w->session_idle_cycles;
	struct lru_hit h;
	uint32_t seq;

	if (idle != 0 && now > idle)
		count(w, RC_SESSION_EXPIRED,
		      lru_expire(w->sessions, now - idle, 4));
	lru_get(w->sessions,
		f->ip_version == 6
			? src_key(f) ^ ((uint32_t)f->sport << 16 | f->dport)
			: (uint64_t)f->src4 << 32 | (uint32_t)f->sport << 16 |
				  f->dport,
		ssid, now, &h);
	if (h.evicted)
		count(w,
		      idle != 0 && now - h.evicted_last_seen > idle
			      ? RC_SESSION_EXPIRED
			      : RC_STATEFUL_FULL,
		      1);
	if (h.found && idle != 0 && now - h.last_seen > idle) {
		count(w, RC_SESSION_EXPIRED, 1);
		*h.val = 0;
	}
	seq = (uint32_t)*h.val;
	*h.val = (uint32_t)(seq + 1);
	w->n_sessions = lru_count(w->sessions);
	return seq;
}

/*
 * Token bucket per source address as a GCRA (virtual scheduling): a request
 * conforms while its source's theoretical arrival time is at most the burst
 * tolerance ahead of now.
 */
static bool
rate_ok(struct reflector_worker *w, uint64_t src, uint64_t now)
{
	struct lru_hit h;
	uint64_t tat;

	if (w->rate == NULL)
		return true;
	lru_get(w->rate, src, 0, now, &h);
	tat = h.found && *h.val > now ? *h.val : now;
	if (tat - now > w->rate_tolerance) {
		count(w, RC_DROP_RATE, 1);
		return false;
	}
	*h.val = tat + w->rate_interval;
	return true;
}

static bool
is_for_us_mac(const struct reflector_worker *w, const struct codec_frame *f)
{
	static const struct codec_mac bcast = {
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

	return memcmp(&f->dst, &w->conf->mac, sizeof(f->dst)) == 0 ||
	       memcmp(&f->dst, &bcast, sizeof(f->dst)) == 0;
}

/* A STAMP answer waiting for its transmit timestamp (the answer, or its
 * first fragment, is burst_out.stamped[] at the same index). */
struct pending_stamp {
	/* From stamp_fast(): where T3 goes, and the UDP checksum to patch
	 * (NULL: sent without one); ts NULL: stamp_t3() does it. */
	uint8_t *ts;
	uint8_t *cs;
	/* stamp_fast(): ~UDP sum + the words it added, all but T3's */
	uint64_t sum;
	uint16_t l4_off, payload_off;
	/* Generic path: the UDP checksum is the NIC's (tx offload); the
	 * field gets tx_pseudo after T3 (stamp_t3()). */
	bool tx_l4;
	uint16_t tx_pseudo;
	/* Generic path: offset of the STAMP_TLV_LP_STALLS value in the
	 * payload (0: none), whose flags get STAMP_STALL_IN_TURNAROUND at T3
	 * when a stall came between T2 and T3. */
	uint16_t lp_off;
};

/* Answers of one burst; a fragmented answer can outgrow a burst. */
#define REFLECTOR_TX_MAX 128

/*
 * Finished answers go to `ready` (flushed whenever it fills up: nothing in
 * it is written again); STAMP answers wait in `stamps` until T3 is written,
 * then leave first.
 */
struct burst_out {
	struct rte_mbuf *ready[REFLECTOR_TX_MAX];
	unsigned n_ready;
	struct rte_mbuf *stamped[REFLECTOR_BURST];
	struct pending_stamp stamps[REFLECTOR_BURST];
	unsigned n_stamp;
};

/* The clock the stall detector reads between PMD calls: the TSC inline on
 * a queue whose clock is the TSC, else the queue's op. */
static inline __attribute__((always_inline)) uint64_t
loop_clock(struct reflector_worker *w)
{
	return w->q->ops->clock_tsc ? tsc_read() : io_clock(w->q);
}

/* tx_all() after stall_enter_tx() at T3 (read right before the call). */
static inline __attribute__((always_inline)) void
tx_entered(struct reflector_worker *w, struct rte_mbuf **m, unsigned n)
{
	uint16_t sent;

	if (n == 0)
		return;
	/* io_tx_all(), inline: one call less per burst. */
	sent = io_tx(w->q, m, (uint16_t)n);
	if (w->stall_watch)
		stall_leave(&w->stall, loop_clock(w), STALL_CALL_TX);
	count(w, RC_TX, sent);
	if (sent < n) {
		count(w, RC_DROP_TX, n - sent);
		for (unsigned i = sent; i < n; i++)
			io_free(w->q, m[i]);
	}
}

static inline __attribute__((always_inline)) void
tx_all(struct reflector_worker *w, struct rte_mbuf **m, unsigned n)
{
	if (n == 0)
		return;
	if (w->stall_watch)
		stall_enter_tx(&w->stall, loop_clock(w));
	tx_entered(w, m, n);
}

static void
ready_add(struct reflector_worker *w, struct burst_out *o, struct rte_mbuf *m)
{
	if (o->n_ready == REFLECTOR_TX_MAX) {
		tx_all(w, o->ready, o->n_ready);
		o->n_ready = 0;
	}
	o->ready[o->n_ready++] = m;
}

static void
stamp_add(struct burst_out *o, struct rte_mbuf *m, const struct codec_frame *f)
{
	struct pending_stamp *p = &o->stamps[o->n_stamp];

	o->stamped[o->n_stamp++] = m;
	p->l4_off = f->l4_off;
	p->payload_off = f->payload_off;
	p->ts = NULL;
	p->tx_l4 = false;
	p->lp_off = 0;
}

/* What handle_ipv4() made of a frame. */
enum answer {
	ANSWER_NONE,  /* dropped (counted) */
	ANSWER_DONE,  /* answer in place, checksums right */
	ANSWER_STAMP, /* STAMP answer in place, T3 still to be written */
};

/*
 * An answer built whole in a reassembly buffer goes out as fragments; the
 * first one carries the UDP header and the STAMP T3 field.
 */
static void
tx_fragments(struct reflector_worker *w, struct burst_out *o,
	     const uint8_t *buf, const struct codec_frame *f, bool stamp)
{
	struct io_queue *q = w->q;
	size_t off = 0;
	bool first = true;

	do {
		struct rte_mbuf *m = io_alloc(q);
		int len;

		if (m == NULL) {
			count(w, RC_DROP_NOMBUF, 1);
			return;
		}
		len = f->ip_version == 6
			      ? codec_ipv6_fragment(
					buf, f, q->mtu, w->frag_id6, &off,
					rte_pktmbuf_mtod(m, uint8_t *),
					rte_pktmbuf_tailroom(m))
			      : codec_ipv4_fragment(
					buf, f, q->mtu, &off,
					rte_pktmbuf_mtod(m, uint8_t *),
					rte_pktmbuf_tailroom(m));
		if (len < 0) {
			io_free(q, m);
			count(w, RC_DROP_TX, 1);
			return;
		}
		/* The last fragment may be short. */
		io_mbuf_set_tx_len(m, (uint16_t)len);
		/* IPv4 fragments carry no options: offsets as in the
		 * datagram; IPv6 ones have a Fragment header more. */
		if (first && stamp) {
			struct codec_frame ff = *f;

			if (f->ip_version == 6 && off != 0) {
				ff.l4_off += CODEC_IPV6_FRAG_HLEN;
				ff.payload_off += CODEC_IPV6_FRAG_HLEN;
			}
			stamp_add(o, m, &ff);
		} else {
			ready_add(w, o, m);
		}
		first = false;
	} while (off != 0);
	w->frag_id6++;
}

/*
 * The reassembly context for fragment f: the one collecting its datagram,
 * else a free or timed-out one, else the oldest (its datagram is given up).
 */
static int
reasm_pick(struct reflector_worker *w, const struct codec_frame *f)
{
	const struct reflector_conf *c = w->conf;
	int best = -1;
	uint64_t best_started = UINT64_MAX;

	for (unsigned i = 0; i < c->n_reasm; i++)
		if (codec_reasm_matches(w->reasm[i], f))
			return (int)i;
	for (unsigned i = 0; i < c->n_reasm; i++) {
		uint64_t started;

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
	}
	return best;
}

/*
 * A datagram from a port that itself answers everything (another reflector,
 * echo, chargen, daytime, quote, time) would start an endless exchange
 * (the classic echo/chargen loop, CVE-1999-0103): never answer one, whether
 * or not that protocol is on here.
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
	case STAMP_PORT:
	case SOCKPERF_PORT:
		return true;
	default:
		return sport == c->stamp_port || sport == c->sockperf_port ||
		       sport == c->echo_port;
	}
}

/* source_check() of an IPv4 source s (host order) from a frame whose
 * Ethernet source address starts with byte mac0. */
static inline enum reflector_counter
source_check4(const struct reflector_conf *c, uint8_t mac0, uint32_t s)
{
	if ((mac0 & 1) != 0 || (s >> 24) == 0 || s >= 0xe0000000u)
		return RC_DROP_SOURCE;
	if ((c->addr >> 24) != 127 && ((s >> 24) == 127 || s == c->addr))
		return RC_DROP_SOURCE;
	if (c->prefix_len > 0 && c->prefix_len < 31) {
		uint32_t host = UINT32_MAX >> c->prefix_len;

		if ((s & host) == host && (s & ~host) == (c->addr & ~host))
			return RC_DROP_SOURCE;
	}
	if (c->n_allow == 0)
		return RC__COUNT;
	for (unsigned i = 0; i < c->n_allow; i++)
		if ((s & c->allow[i].mask) == c->allow[i].addr)
			return RC__COUNT;
	return RC_DROP_ACL;
}

/*
 * Sources never answered (RFC 1812 §5.3.7 martians, and what would make us
 * answer ourselves or flood): a group MAC, 0/8, 127/8, our own address, the
 * subnet broadcast of --addr, multicast 224/4 and class E 240/4 (with
 * 255.255.255.255). A reflector whose own address is loopback (the kernel
 * backend on lo) can only hear local peers: 127/8 and itself are fine there.
 * Then --allow.
 */
static enum reflector_counter
source_check(const struct reflector_conf *c, const struct codec_frame *f)
{
	uint32_t s = f->src4;

	/* IPv6: unspecified, multicast, loopback, ours; --allow is IPv4
	 * prefixes, so with an --allow list no IPv6 source is allowed. */
	if (f->ip_version == 6) {
		/* On ::1 (kernel backend) only local peers can reach us. */
		bool lo = codec_ipv6_is_loopback(c->addr6.a);

		if ((f->src.b[0] & 1) != 0 ||
		    codec_ipv6_is_unspecified(f->src6) ||
		    codec_ipv6_is_multicast(f->src6) ||
		    (!lo && (codec_ipv6_is_loopback(f->src6) ||
			     memcmp(f->src6, c->addr6.a, 16) == 0)))
			return RC_DROP_SOURCE;
		return c->n_allow == 0 ? RC__COUNT : RC_DROP_ACL;
	}

	return source_check4(c, f->src.b[0], s);
}

static inline uint16_t
ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * Partial sum over the bytes of a STAMP payload that stamp_reflect() may
 * change: the base packet, and per TLV its header (flags) plus the value of
 * a Timestamp Information or Class of Service TLV. Ranges are widened to
 * even offsets and never overlap, so the sums before and after the change
 * give the checksum update (RFC 1624) without reading an Extra Padding
 * TLV's kilobytes twice.
 */
static uint32_t
stamp_mod_sum(const struct reflector_worker *w, const uint8_t *p, size_t len)
{
	size_t base = len < STAMP_BASE_LEN ? len : STAMP_BASE_LEN;

	/* Authenticated: the 112-byte base packet is all that changes (no
	 * TLVs in this mode). */
	if (w->auth != NULL)
		return codec_csum_partial(
			p,
			len < STAMP_AUTH_BASE_LEN ? len : STAMP_AUTH_BASE_LEN,
			0);
	size_t off = STAMP_BASE_LEN, done = base;
	uint32_t sum = codec_csum_partial(p, base, 0);

	while (off < len && len - off >= STAMP_TLV_HDR_LEN) {
		struct stamp_tlv t;
		size_t at = off, ext = STAMP_TLV_HDR_LEN, s, e;
		int r = stamp_tlv_next(p, len, &off, &t);

		if (r == 1 &&
		    (t.type == STAMP_TLV_TIMESTAMP_INFO ||
		     t.type == STAMP_TLV_CLASS_OF_SERVICE) &&
		    t.length == 4)
			ext += 4;
		if (r == 1 && t.type == STAMP_TLV_LP_STALLS &&
		    t.length == STAMP_TLV_LP_STALLS_LEN)
			ext += STAMP_TLV_LP_STALLS_LEN;
		s = at & ~(size_t)1;
		if (s < done)
			s = done;
		e = (at + ext + 1) & ~(size_t)1;
		if (e > len)
			e = len;
		if (e > s)
			sum = codec_csum_partial(p + s, e - s, sum);
		done = e;
		if (r != 1)
			break;
	}
	return sum;
}

/* UDP checksum field of a parsed frame; 0 over IPv4 means none. */
#define UDP_CSUM_OFF  6
#define ICMP_CSUM_OFF 2

/* The L4 checksum updated for a change of bytes with these sums. */
static void
csum_update(uint8_t *buf, const struct codec_frame *f, uint32_t old_sum,
	    uint32_t new_sum)
{
	uint8_t *cs = buf + f->l4_off +
		      (f->ip_proto == CODEC_IPPROTO_UDP ? UDP_CSUM_OFF
							: ICMP_CSUM_OFF);
	uint16_t hc = ld16(cs);

	/* RFC 768: a UDP datagram sent without a checksum is answered
	 * without one. */
	if (hc == 0 && f->ip_proto == CODEC_IPPROTO_UDP)
		return;
	st16(cs, codec_csum_adjust(hc, old_sum, new_sum));
}

/* Can the NIC compute the answer's L4 checksum of f (the port's tx
 * offloads, lib/port)? */
static inline bool
tx_l4_offload_ok(const struct reflector_worker *w, const struct codec_frame *f)
{
	return f->ip_proto == CODEC_IPPROTO_UDP &&
	       (w->q->tx_csum & IO_TX_UDP_CKSUM) != 0;
}

/*
 * The L4 checksum of a request for us, before it is answered in place:
 * false (counted) when it is wrong. The NIC's verdict when it gave one;
 * else verified here (nothing checked it on af_xdp, af_packet, memif).
 * A partial sum (a local sender's tx checksum offload: a kernel on a
 * veth, in a container; or the NIC's RX_L4_CKSUM_NONE) is completed in the
 * request first, so that the answer's update (RFC 1624) starts from a
 * right sum; with RX_L4_CKSUM_NONE on a port that has the tx offload, the
 * answer's sum is left to the NIC instead (w->tx_l4_offload).
 */
static bool
l4_csum_take(struct reflector_worker *w, uint8_t *buf, struct codec_frame *f,
	     enum io_csum l4)
{
	uint8_t *cs = buf + f->l4_off +
		      (f->ip_proto == CODEC_IPPROTO_UDP ? UDP_CSUM_OFF
							: ICMP_CSUM_OFF);
	uint16_t complete;

	if (l4 == IO_CSUM_GOOD) {
		/* (A UDP datagram over IPv4 without a sum has nothing to
		 * verify, as in stamp_fast().) */
		if (f->ip_proto != CODEC_IPPROTO_UDP || ld16(cs) != 0)
			count(w, RC_RX_L4_CSUM_NIC, 1);
		return true;
	}
	if (l4 == IO_CSUM_NONE) {
		/* RFC 768: no checksum is answered without one. */
		if (f->ip_proto == CODEC_IPPROTO_UDP && ld16(cs) == 0)
			return true;
		count(w, RC_RX_L4_PARTIAL, 1);
		if (tx_l4_offload_ok(w, f)) {
			w->tx_l4_offload = true;
			w->tx_l4_pseudo = codec_l4_pseudo_csum(buf, f);
		} else {
			codec_l4_csum_set(buf, f);
		}
		return true;
	}
	if (l4 != IO_CSUM_BAD) {
		switch (codec_l4_csum_check(buf, f, &complete)) {
		case CODEC_L4_CSUM_OK:
			/* A UDP datagram over IPv4 without a sum: nothing
			 * was verified. */
			if (f->ip_proto != CODEC_IPPROTO_UDP || ld16(cs) != 0)
				count(w, RC_RX_L4_CSUM_SW, 1);
			return true;
		case CODEC_L4_CSUM_PARTIAL:
			count(w, RC_RX_L4_PARTIAL, 1);
			st16(cs, complete);
			return true;
		default:
			break;
		}
	}
	count(w, RC_DROP_L4_CSUM, 1);
	return false;
}

/* The answer m (parsed as f) leaves with its L4 checksum to the NIC, as
 * DPDK's tx checksum offload wants it: the pseudo-header sum in the field,
 * the IP version and L4 type in ol_flags, l2_len and l3_len. */
static void
tx_l4_offload_set(struct rte_mbuf *m, const struct codec_frame *f,
		  uint16_t pseudo)
{
	st16(rte_pktmbuf_mtod(m, uint8_t *) + f->l4_off + UDP_CSUM_OFF, pseudo);
	m->l2_len = f->l3_off;
	m->l3_len = (uint16_t)(f->l4_off - f->l3_off);
	m->ol_flags =
		(f->ip_version == 6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4) |
		RTE_MBUF_F_TX_UDP_CKSUM;
}

/*
 * A UDP request for us, turned into its answer in place. Its checksum
 * verified (l4_csum_take()), the answer's is updated for what changes
 * (RFC 1624), not recomputed.
 */
/*
 * The stall TLV of an answer to a request of the latest rx burst: what the
 * worker's stall detector knows (a stall that ended since the call before
 * that one held the burst in the rx ring, or the poll that took it:
 * stall_before_rx()).
 */
static void
lp_stalls_opts(const struct reflector_worker *w, struct stamp_reflect_opts *o)
{
	const struct stall_det *d = &w->stall;
	uint64_t ns = 0;

	o->lp_stalls = true;
	if (stall_before_rx(d)) {
		o->stall_flags = STAMP_STALL_BEFORE_T2;
		ns = tsc_to_ns(&w->conf->clock, d->last_len);
	}
	o->stall_ns = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	o->stall_worker = (uint16_t)(w->q->queue_id + 1);
	o->stall_count = (uint32_t)d->st.count;
	o->stall_total_us = (uint32_t)(d->st.total_ns / 1000);
}

/* Offset of the STAMP_TLV_LP_STALLS value in a reflected payload, 0 when
 * it has none (or one flagged U or M). */
static uint16_t
lp_stalls_off(const uint8_t *pl, size_t len)
{
	size_t off = STAMP_BASE_LEN;
	struct stamp_tlv t;

	while (stamp_tlv_next(pl, len, &off, &t) == 1)
		if (t.type == STAMP_TLV_LP_STALLS &&
		    t.length == STAMP_TLV_LP_STALLS_LEN &&
		    (t.flags & (STAMP_TLV_U | STAMP_TLV_M)) == 0 &&
		    off <= UINT16_MAX)
			return (uint16_t)(t.value - pl);
	return 0;
}

/* STAMP_STALL_IN_TURNAROUND into an answer's stall TLV, its UDP sum
 * updated (RFC 1624). */
static void
lp_stalls_mark(struct rte_mbuf *m, const struct pending_stamp *p)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *pl = buf + p->payload_off;
	uint8_t *cs = buf + p->l4_off + 6;
	size_t at = p->lp_off & ~(size_t)1; /* payload at an even offset */
	uint32_t old_sum = codec_csum_partial(pl + at, 2, 0);
	uint16_t hc = ld16(cs);

	pl[p->lp_off] |= STAMP_STALL_IN_TURNAROUND;
	if (hc != 0)
		st16(cs, codec_csum_adjust(hc, old_sum,
					   codec_csum_partial(pl + at, 2, 0)));
}

static enum answer
handle_udp(struct reflector_worker *w, uint8_t *buf, struct codec_frame *f,
	   enum io_csum l4, uint64_t t2, uint64_t t2_wire)
{
	const struct reflector_conf *c = w->conf;
	uint8_t *pl = buf + f->payload_off;

	if (!l4_csum_take(w, buf, f, l4))
		return ANSWER_NONE;
	if (is_loop_port(c, f->sport)) {
		count(w, RC_DROP_LOOP_PORT, 1);
		return ANSWER_NONE;
	}
	if (f->sport < 1024 && !c->allow_low_sport) {
		count(w, RC_DROP_LOW_PORT, 1);
		return ANSWER_NONE;
	}
	if (c->stamp_port != 0 && f->dport == c->stamp_port) {
		struct stamp_sender s;
		struct stamp_reflect_opts o;
		uint32_t old_sum;
		int rc;

		/* With a key, only a request whose HMAC verifies is answered
		 * (and makes a stateful session). */
		if (w->auth != NULL &&
		    (stamp_auth_verify(w->auth, pl, f->payload_len) != 0 ||
		     stamp_auth_sender_parse(pl, f->payload_len, &s) != 0)) {
			count(w, RC_DROP_AUTH, 1);
			return ANSWER_NONE;
		}
		/* RFC 5357 §4.1.2: the smallest unauthenticated test packet
		 * is seq, timestamp and error estimate, 14 bytes. */
		if (w->auth == NULL &&
		    (f->payload_len < 14 ||
		     stamp_sender_parse(pl, f->payload_len, &s) != 0)) {
			count(w, RC_DROP_PROBE, 1);
			return ANSWER_NONE;
		}
		if (!rate_ok(w, src_key(f), t2))
			return ANSWER_NONE;
		memset(&o, 0, sizeof(o));
		/* A TWAMP-Light sender has no SSID: its session is its
		 * addresses and ports alone. */
		o.seq = c->stateful ? session_next_seq(w, f,
						       s.stamp ? s.ssid : 0, t2)
				    : s.seq;
		o.rx_timestamp = t2_wire;
		o.error_estimate = w->ee;
		o.sender_ttl = f->ttl;
		o.rx_tos = f->tos;
		lp_stalls_opts(w, &o);
		old_sum = stamp_mod_sum(w, pl, f->payload_len);
		rc = w->auth != NULL
			     ? stamp_auth_reflect(pl, f->payload_len, &o)
			     : stamp_reflect(pl, f->payload_len, &o);
		if (rc < 0) {
			count(w, RC_DROP_PROBE, 1);
			return ANSWER_NONE;
		}
		codec_turn_around(buf, f, &c->mac, 255);
		csum_update(buf, f, old_sum,
			    stamp_mod_sum(w, pl, f->payload_len));
		if (f->payload_len > STAMP_BASE_LEN && w->auth == NULL)
			w->lp_off = lp_stalls_off(pl, f->payload_len);
		count(w, RC_STAMP, 1);
		return ANSWER_STAMP;
	}
	if (c->sockperf_port != 0 && f->dport == c->sockperf_port) {
		/* The flags word (payload bytes 8-9) is all that changes. */
		uint32_t old_sum = f->payload_len >= SOCKPERF_HDR_LEN
					   ? codec_csum_partial(pl + 8, 2, 0)
					   : 0;
		int r = sockperf_reflect(pl, f->payload_len);

		if (r < 0) {
			count(w, RC_DROP_PROBE, 1);
			return ANSWER_NONE;
		}
		if (r == 0) {
			count(w, RC_SOCKPERF_NOREPLY, 1);
			return ANSWER_NONE;
		}
		if (!rate_ok(w, src_key(f), t2))
			return ANSWER_NONE;
		codec_turn_around(buf, f, &c->mac, 64);
		csum_update(buf, f, old_sum, codec_csum_partial(pl + 8, 2, 0));
		count(w, RC_SOCKPERF, 1);
		return ANSWER_DONE;
	}
	if (c->echo_port != 0 && f->dport == c->echo_port) {
		if (!rate_ok(w, src_key(f), t2))
			return ANSWER_NONE;
		/* Swapped addresses and ports leave the UDP sum as it is. */
		codec_turn_around(buf, f, &c->mac, 64);
		count(w, RC_ECHO, 1);
		return ANSWER_DONE;
	}
	count(w, RC_DROP_PORT, 1);
	return ANSWER_NONE;
}

static enum answer
handle_ipv4(struct reflector_worker *w, uint8_t *buf, struct codec_frame *f,
	    enum io_csum ip, enum io_csum l4, uint64_t t2, uint64_t t2_wire)
{
	enum reflector_counter bad;

	if (w->conf->addr == 0 || f->dst4 != w->conf->addr ||
	    !is_for_us_mac(w, f)) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return ANSWER_NONE;
	}
	if (ip == IO_CSUM_BAD ||
	    (ip == IO_CSUM_UNKNOWN && !codec_ipv4_csum_ok(buf, f))) {
		count(w, RC_DROP_IP_CSUM, 1);
		return ANSWER_NONE;
	}
	/* RX_IP_CKSUM_NONE: verified, but the header's sum is not right:
	 * made right before the answer updates it. */
	if (ip == IO_CSUM_NONE)
		codec_ipv4_csum_set(buf, f);
	bad = source_check(w->conf, f);
	if (bad != RC__COUNT) {
		count(w, bad, 1);
		return ANSWER_NONE;
	}
	if (f->ip_proto == CODEC_IPPROTO_UDP)
		return handle_udp(w, buf, f, l4, t2, t2_wire);
	if (f->ip_proto == CODEC_IPPROTO_ICMP) {
		uint32_t old_sum;

		if (f->icmp_type != CODEC_ICMP_ECHO_REQUEST ||
		    f->icmp_code != 0) {
			count(w, RC_DROP_ICMP_OTHER, 1);
			return ANSWER_NONE;
		}
		/* Software: ICMP is not in the NIC's L4 verdict. */
		if (!l4_csum_take(w, buf, f, IO_CSUM_UNKNOWN))
			return ANSWER_NONE;
		if (!rate_ok(w, src_key(f), t2))
			return ANSWER_NONE;
		codec_turn_around(buf, f, &w->conf->mac, 64);
		old_sum = codec_csum_partial(buf + f->l4_off, 2, 0);
		buf[f->l4_off] = CODEC_ICMP_ECHO_REPLY;
		csum_update(buf, f, old_sum,
			    codec_csum_partial(buf + f->l4_off, 2, 0));
		count(w, RC_ICMP, 1);
		return ANSWER_DONE;
	}
	count(w, RC_DROP_PROTO, 1);
	return ANSWER_NONE;
}

static enum answer handle_ipv6_l4(struct reflector_worker *w, uint8_t *buf,
				  struct codec_frame *f, enum io_csum l4,
				  uint64_t t2, uint64_t t2_wire);

/*
 * A Neighbor Solicitation for our address or our link-local address: the
 * Neighbor Advertisement in place (RFC 4861 7.2.4). It may be longer than
 * the request (one without a source link-layer option), so it uses the
 * mbuf's tailroom too.
 */
static enum answer
handle_ns(struct reflector_worker *w, struct rte_mbuf *m, uint8_t *buf,
	  const struct codec_frame *f)
{
	const struct reflector_conf *c = w->conf;
	struct codec_mac sn_mac;
	struct codec_nd nd;
	uint8_t sn[16];
	int len;

	if (codec_nd_parse(buf, f, &nd) != 0) {
		count(w, RC_DROP_ND, 1);
		return ANSWER_NONE;
	}
	if (nd.type != CODEC_ICMP6_NS) {
		count(w, RC_DROP_ICMP_OTHER, 1);
		return ANSWER_NONE;
	}
	if (memcmp(nd.target, c->addr6.a, 16) != 0 &&
	    memcmp(nd.target, w->ll6, 16) != 0) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return ANSWER_NONE;
	}
	/* To our MAC, or to the target's solicited-node group. */
	codec_ipv6_solicited_node(nd.target, sn);
	codec_ipv6_mcast_mac(sn, &sn_mac);
	if ((!is_for_us_mac(w, f) &&
	     memcmp(f->dst.b, sn_mac.b, CODEC_ETH_ALEN) != 0) ||
	    (memcmp(f->dst6, sn, 16) != 0 &&
	     memcmp(f->dst6, nd.target, 16) != 0)) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return ANSWER_NONE;
	}
	if ((f->src.b[0] & 1) != 0 || codec_ipv6_is_multicast(f->src6)) {
		count(w, RC_DROP_SOURCE, 1);
		return ANSWER_NONE;
	}
	len = codec_build_na(buf, (size_t)m->data_len + rte_pktmbuf_tailroom(m),
			     f, &nd, &c->mac);
	if (len < 0) {
		count(w, RC_DROP_NOMBUF, 1);
		return ANSWER_NONE;
	}
	io_mbuf_set_len(m, (uint16_t)len);
	count(w, RC_ND, 1);
	return ANSWER_DONE;
}

/*
 * An IPv6 frame: ND for our addresses, else to our address and MAC from an
 * acceptable source; then UDP (a zero checksum, forbidden over IPv6 by RFC
 * 8200 8.1, is dropped and counted) and ICMPv6 echo as over IPv4.
 */
static enum answer
handle_ipv6(struct reflector_worker *w, struct rte_mbuf *m,
	    struct codec_frame *f, uint64_t t2, uint64_t t2_wire)
{
	const struct reflector_conf *c = w->conf;
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);

	if (c->addr6.family != 6) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return ANSWER_NONE;
	}
	if (f->ip_proto == CODEC_IPPROTO_ICMPV6 && f->payload_off != 0 &&
	    (f->icmp_type == CODEC_ICMP6_NS || f->icmp_type == CODEC_ICMP6_NA))
		return handle_ns(w, m, buf, f);
	return handle_ipv6_l4(w, buf, f, io_rx_l4_csum(m), t2, t2_wire);
}

/* A whole IPv6 packet (not ND; received or reassembled) for us, answered
 * in place. */
static enum answer
handle_ipv6_l4(struct reflector_worker *w, uint8_t *buf, struct codec_frame *f,
	       enum io_csum l4, uint64_t t2, uint64_t t2_wire)
{
	const struct reflector_conf *c = w->conf;
	enum reflector_counter bad;

	if (memcmp(f->dst6, c->addr6.a, 16) != 0 || !is_for_us_mac(w, f)) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return ANSWER_NONE;
	}
	bad = source_check(c, f);
	if (bad != RC__COUNT) {
		count(w, bad, 1);
		return ANSWER_NONE;
	}
	if (f->ip6_ext_refused) {
		count(w, RC_DROP_IPV6_EXT, 1);
		return ANSWER_NONE;
	}
	if (f->ip_proto == CODEC_IPPROTO_UDP) {
		uint16_t hc;

		memcpy(&hc, buf + f->l4_off + UDP_CSUM_OFF, sizeof(hc));
		if (hc == 0) {
			count(w, RC_DROP_UDP6_ZERO_CSUM, 1);
			return ANSWER_NONE;
		}
		return handle_udp(w, buf, f, l4, t2, t2_wire);
	}
	if (f->ip_proto == CODEC_IPPROTO_ICMPV6) {
		uint32_t old_sum;

		if (f->payload_off == 0 ||
		    f->icmp_type != CODEC_ICMP6_ECHO_REQUEST ||
		    f->icmp_code != 0) {
			count(w, RC_DROP_ICMP_OTHER, 1);
			return ANSWER_NONE;
		}
		if (!l4_csum_take(w, buf, f, IO_CSUM_UNKNOWN))
			return ANSWER_NONE;
		if (!rate_ok(w, src_key(f), t2))
			return ANSWER_NONE;
		/* Swapped addresses leave the pseudo-header sum as it is. */
		codec_turn_around(buf, f, &c->mac, 64);
		old_sum = codec_csum_partial(buf + f->l4_off, 2, 0);
		buf[f->l4_off] = CODEC_ICMP6_ECHO_REPLY;
		csum_update(buf, f, old_sum,
			    codec_csum_partial(buf + f->l4_off, 2, 0));
		count(w, RC_ICMP, 1);
		return ANSWER_DONE;
	}
	count(w, RC_DROP_PROTO, 1);
	return ANSWER_NONE;
}

/* A TSC reading as a STAMP timestamp in our format (host order). */
static inline uint64_t
wire_ts(const struct reflector_worker *w, uint64_t tsc)
{
	if (likely(w->ntp_direct))
		return stamp_ntp_from_tsc(&w->ntp, tsc);
	return stamp_ts_from_ns(clock_map_utc(&w->map, tsc), w->ee);
}

/* reflector_poll() with frames in w->rx, or with --hw-timestamps. */
static unsigned __attribute__((noinline))
poll_rest(struct reflector_worker *w, uint16_t n)
{
	struct io_queue *q = w->q;
	uint64_t t2;

	if (n == 0) {
		if (w->stall_watch)
			stall_leave(&w->stall, io_clock(q),
				    STALL_CALL_RX_EMPTY);
		reflector_hw_after(w);
		return 0;
	}
	/* T2 as early as possible after the frames left the rx ring. */
	t2 = io_clock_end(q);
	if (w->stall_watch)
		stall_leave(&w->stall, t2, STALL_CALL_RX);
	if (w->conf->hw_ts) {
		reflector_handle(w, w->rx, n, reflector_hw_t2(w, w->rx, n, t2));
		reflector_hw_after(w);
		clock_refresh(w);
		return n;
	}
	reflector_handle(w, w->rx, n, t2);
	clock_refresh(w);
	return n;
}

/*
 * An empty poll is the rx call, one test of what it does (w->idle) and,
 * stalls watched, the clock read on each side of the call (stall.h): its
 * length is part of every round trip (a frame waits for the poll in
 * progress to end). On a queue whose clock is the TSC the reads are
 * inline, not through the queue's op.
 */
unsigned
reflector_poll(struct reflector_worker *w)
{
	uint16_t n;

	if (w->idle == REFLECTOR_IDLE_TICK_TSC) {
		stall_enter(&w->stall, tsc_read());
		n = io_rx(w->q, w->rx, REFLECTOR_BURST);
		if (n == 0) {
			stall_leave(&w->stall, tsc_read(), STALL_CALL_RX_EMPTY);
			return 0;
		}
		return poll_rest(w, n);
	}
	if (w->stall_watch)
		stall_enter(&w->stall, io_clock(w->q));
	n = io_rx(w->q, w->rx, REFLECTOR_BURST);
	if (n == 0 && w->idle == REFLECTOR_IDLE_NONE)
		return 0;
	return poll_rest(w, n);
}

/*
 * A fragment for us: into reassembly; when it completes a datagram, that
 * datagram is answered like any frame (in its reassembly buffer), and the
 * answer is cut into fragments at once, so the buffer is free again.
 */
static void
handle_fragment(struct reflector_worker *w, struct burst_out *o,
		const uint8_t *buf, const struct codec_frame *f,
		enum io_csum ip, uint64_t t2, uint64_t t2_wire)
{
	const struct reflector_conf *c = w->conf;
	enum reflector_counter bad;
	struct codec_frame whole_f;
	enum answer a;
	uint8_t *whole;
	size_t whole_len;
	int i, rc;

	if ((f->ip_version == 6 ? c->addr6.family != 6 ||
					  memcmp(f->dst6, c->addr6.a, 16) != 0
				: c->addr == 0 || f->dst4 != c->addr) ||
	    !is_for_us_mac(w, f)) {
		count(w, RC_DROP_NOT_FOR_US, 1);
		return;
	}
	if (c->n_reasm == 0) {
		count(w, RC_DROP_FRAGMENT, 1);
		return;
	}
	/* The NIC's verdict on the header (NONE: verified; the rebuilt
	 * header is ours anyway), else checked here. */
	if (f->ip_version == 4 &&
	    (ip == IO_CSUM_BAD ||
	     (ip == IO_CSUM_UNKNOWN && !codec_ipv4_csum_ok(buf, f)))) {
		count(w, RC_DROP_IP_CSUM, 1);
		return;
	}
	/* Sources we would not answer take no reassembly buffer either. */
	bad = source_check(c, f);
	if (bad != RC__COUNT) {
		count(w, bad, 1);
		return;
	}
	i = reasm_pick(w, f);
	if (i < 0) {
		count(w, RC_DROP_REASM, 1);
		return;
	}
	if (w->reasm_timeout_cycles != 0) {
		uint64_t started;

		if (codec_reasm_active(w->reasm[i], &started) &&
		    t2 - started > w->reasm_timeout_cycles) {
			codec_reasm_reset(w->reasm[i]);
			count(w, RC_DROP_REASM, 1);
		}
	}
	count(w, RC_FRAGMENTS, 1);
	rc = codec_reasm_add(w->reasm[i], buf, f, t2, &whole, &whole_len);
	if (rc == -ESTALE || rc == -EINVAL)
		count(w, RC_DROP_REASM, 1);
	if (rc != 1)
		return;
	count(w, RC_REASSEMBLED, 1);
	if (codec_parse_frame(whole, whole_len, &whole_f) != 0 ||
	    whole_f.is_fragment) {
		count(w, RC_DROP_MALFORMED, 1);
		codec_reasm_reset(w->reasm[i]);
		return;
	}
	/* Each fragment's header was checked; the rebuilt one is ours. */
	if (whole_f.ip_version == 6)
		a = handle_ipv6_l4(w, whole, &whole_f, IO_CSUM_UNKNOWN, t2,
				   t2_wire);
	else
		a = handle_ipv4(w, whole, &whole_f, IO_CSUM_GOOD,
				IO_CSUM_UNKNOWN, t2, t2_wire);
	if (a != ANSWER_NONE)
		tx_fragments(w, o, whole, &whole_f, a == ANSWER_STAMP);
	codec_reasm_reset(w->reasm[i]);
}

/*
 * The STAMP fast path: the one request that matters for latency, an
 * unauthenticated 44-byte STAMP base packet (no TLVs) in UDP in IPv4
 * without options or fragmentation, in Ethernet with or without an 802.1Q
 * tag, to our MAC, address and STAMP port, recognised with a few loads
 * and compares on the frame itself (no codec_parse_frame()) and answered
 * in place as handle_ipv4() + handle_udp() + stamp_reflect() would: the
 * same checks (IPv4 header checksum and UDP checksum unless the NIC
 * checked them, lengths, sources, ports), the same bytes.
 * The UDP checksum is patched for the words that change (RFC 1624) once,
 * with T3, in reflector_handle(). Anything else (and a stateful, keyed or
 * rate-limited reflector) returns false with nothing written or counted,
 * for the generic path. tests/unit/reflector/test_fastpath.c compares the
 * two paths byte for byte.
 */

/* What the fast path adds, per burst (what it compares with is in the
 * worker, from init). */
struct fast_burst {
	uint64_t t2_be; /* T2, wire format, as stored */
	uint64_t sum;	/* its words and our Error Estimate's, summed */
};

/* Sum of the 8 bytes of v as they lie in memory. */
static inline uint64_t
sum64(uint64_t v)
{
	return (v & 0xffffffffu) + (v >> 32);
}

/* a + v with the carry out added back in (end-around carry, RFC 1071):
 * congruent modulo 2^64 - 1, which 0xffff divides; add, adc. */
static inline uint64_t
add_ec(uint64_t a, uint64_t v)
{
	uint64_t r = a + v;

	return r + (r < v);
}

/*
 * codec_l4_csum_ok() of the datagram (non-zero checksum), inline: the
 * pseudo-header (the addresses src and dst as loaded, protocol and length:
 * constant words in memory order), the UDP header (u, as loaded) and
 * payload bytes 0-15. Bytes 16-43 are zero (stamp_fast() checked them
 * before), so they add nothing. Right when the sum is a multiple of
 * 0xffff (it is not 0: the protocol word is not), tested as the IPv4
 * header's is, by a multiplication.
 */
static inline __attribute__((always_inline)) bool
fast_udp_sum_ok(uint32_t src, uint32_t dst, uint64_t u, const uint8_t *pl)
{
	uint64_t a = (uint64_t)src + dst + RTE_BE16(CODEC_IPPROTO_UDP) +
		     RTE_BE16(FAST_UDP_LEN),
		 v;

	a = add_ec(a, u);
	memcpy(&v, pl, sizeof(v));
	a = add_ec(a, v);
	memcpy(&v, pl + 8, sizeof(v));
	a = add_ec(a, v);
	return a * 0xfffefffefffeffffull <= 0x1000100010001ull;
}

static inline __attribute__((always_inline)) bool
stamp_fast(struct reflector_worker *w, struct pending_stamp *p,
	   struct rte_mbuf *m, const struct fast_burst *fb)
{
	const struct reflector_conf *c = w->conf;
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t l3 = CODEC_ETH_HLEN, et, sport_be, sport, hc;
	uint8_t *ip, *udp, *pl, ttl;
	uint64_t a, b, u, z0, z1, z2;
	uint32_t src, dst, w32, s, sum;
	enum io_csum ip_cs, l4;

	if (m->nb_segs != 1 || m->data_len < CODEC_ETH_HLEN + FAST_IP_LEN)
		return false;
	et = ld16(buf + 12);
	if (et == RTE_BE16(CODEC_ETHERTYPE_VLAN)) {
		l3 += CODEC_VLAN_HLEN;
		et = ld16(buf + 16);
		if (m->data_len < l3 + FAST_IP_LEN)
			return false;
	}
	ip = buf + l3;
	/* Version 4, IHL 5, exactly the datagram below (Ethernet padding
	 * may follow it), MF clear and offset 0 (bytes 0-7, as they lie in
	 * memory), UDP; to our address and MAC. */
	memcpy(&a, ip, sizeof(a));
	memcpy(&b, ip + 8, sizeof(b));
	memcpy(&dst, ip + 16, sizeof(dst));
	memcpy(&u, buf, sizeof(u));
	if (et != RTE_BE16(CODEC_ETHERTYPE_IPV4) ||
	    (a & FAST_IP0_MASK) != FAST_IP0 ||
	    (uint8_t)(b >> 8) != CODEC_IPPROTO_UDP || dst != w->fast_addr_be ||
	    (u & 0xffffffffffffull) != w->fast_mac64)
		return false;
	/* What the NIC said of the checksums: nothing on most PMDs (memif,
	 * af_xdp), so one test; a bad one, and NONE (a sum to complete),
	 * are the generic path's. */
	ip_cs = l4 = IO_CSUM_UNKNOWN;
	if ((m->ol_flags & (RTE_MBUF_F_RX_IP_CKSUM_MASK |
			    RTE_MBUF_F_RX_L4_CKSUM_MASK)) != 0) {
		ip_cs = io_rx_ip_csum(m);
		l4 = io_rx_l4_csum(m);
		if (ip_cs == IO_CSUM_BAD || l4 == IO_CSUM_BAD ||
		    ip_cs == IO_CSUM_NONE || l4 == IO_CSUM_NONE)
			return false;
	}
	if (ip_cs == IO_CSUM_UNKNOWN) {
		/* Folding is modulo 0xffff (2^16 = 1), and the sum of a
		 * header that starts 0x45 is not 0: it folds to 0xffff
		 * exactly when it is a multiple of 0xffff, i.e. when it
		 * times 0xffff's inverse modulo 2^64 is at most
		 * (2^64 - 1) / 0xffff (Granlund & Montgomery; no division). */
		if ((sum64(a) + sum64(b) + dst) * 0xfffefffefffeffffull >
		    0x1000100010001ull)
			return false;
	}
	memcpy(&src, ip + 12, sizeof(src));
	/* source_check4(), its martians from init. */
	s = rte_be_to_cpu_32(src);
	if ((buf[6] & 1) != 0 || s - 0x01000000u >= 0xdf000000u ||
	    s == w->fast_bcast || s == w->fast_self ||
	    (s >> 24) == w->fast_lo_net ||
	    (c->n_allow != 0 && source_check4(c, 0, s) != RC__COUNT))
		return false;
	udp = ip + CODEC_IPV4_HLEN;
	pl = udp + CODEC_UDP_HLEN;
	memcpy(&u, udp, sizeof(u));
	sport_be = (uint16_t)u;
	sport = rte_be_to_cpu_16(sport_be);
	/* To our STAMP port, exactly the datagram. A source port below 1024
	 * (low, or one of is_loop_port()'s fixed ones) is left to the
	 * generic path; above, the loop ports are sockperf's and the ones
	 * configured. */
	if ((u & 0xffffffff0000ull) != w->fast_udp || sport < 1024 ||
	    sport == SOCKPERF_PORT || sport == c->stamp_port ||
	    sport == c->sockperf_port || sport == c->echo_port)
		return false;
	hc = (uint16_t)(u >> 48);
	/* Bytes 16-43 all zero (MBZ): RFC 8762-shaped for stamp_reflect()
	 * with no TLVs, and they are all the answer rewrites there. */
	memcpy(&z0, pl + 16, sizeof(z0));
	memcpy(&z1, pl + 24, sizeof(z1));
	memcpy(&z2, pl + 32, sizeof(z2));
	memcpy(&w32, pl + 40, sizeof(w32));
	if ((z0 | z1 | z2 | w32) != 0)
		return false;
	/* Not verified by the NIC: here (a wrong or partial sum is the
	 * generic path's to count). */
	if (l4 == IO_CSUM_UNKNOWN && hc != 0 &&
	    !fast_udp_sum_ok(src, dst, u, pl))
		return false;

	/* The answer, as codec_turn_around(..., 255) and stamp_reflect(). */
	ttl = (uint8_t)b;
	/* The source MAC (and the 2 bytes after it) to the front, then
	 * ours over it; the frame is longer than 8 + 6 bytes. */
	memcpy(&u, buf + 6, sizeof(u));
	memcpy(buf, &u, sizeof(u));
	memcpy(buf + 6, &w->fast_mac64, CODEC_ETH_ALEN);
	/* Swapped addresses leave the header sum as it is. */
	memcpy(&u, ip + 12, sizeof(u));
	u = u >> 32 | u << 32;
	memcpy(ip + 12, &u, sizeof(u));
	/* codec_ipv4_set_ttl(ip, 255): ~HC + ~m + m' (RFC 1624 eqn. 3)
	 * with m' - m = 255 - ttl in the byte order of memory, the TTL
	 * being the first byte of its word. */
	ip[8] = 255;
	sum = (uint32_t)(uint16_t) ~(uint16_t)(b >> 16) + 0xffffu + 255u - ttl;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	st16(ip + 10, (uint16_t)~sum);
	memcpy(&w32, udp, sizeof(w32));
	w32 = w32 >> 16 | w32 << 16;
	memcpy(udp, &w32, sizeof(w32));
	/* Sequence number (stateless: the sender's) and SSID stay; T3
	 * comes with the burst's transmit time. */
	/* Session-Sender Sequence Number, Timestamp and Error Estimate
	 * (bytes 0-13 to 24-37) in two 8-byte moves. */
	memcpy(&z0, pl, sizeof(z0));
	memcpy(&z1, pl + 6, sizeof(z1));
	memcpy(pl + 24, &z0, sizeof(z0));
	memcpy(pl + 30, &z1, sizeof(z1));
	st16(pl + 12, w->fast_ee_be);
	memcpy(pl + 16, &fb->t2_be, sizeof(fb->t2_be));
	pl[40] = ttl; /* Session-Sender TTL */

	p->ts = pl + 4;
	/* RFC 768: a request without a UDP checksum is answered without. */
	p->cs = hc == 0 ? NULL : udp + UDP_CSUM_OFF;
	/* The sender's timestamp and error estimate only moved; what is new:
	 * the sequence number again, T2, our error estimate, the TTL (and
	 * T3, later). ~HC + m' (RFC 1624 eqn. 3, m = 0). */
	memcpy(&w32, pl, sizeof(w32));
	p->sum = (uint64_t)(uint16_t)~hc + fb->sum + w32 + ld16(pl + 40);
	/* How its L4 checksum was taken, as l4_csum_take() counts it. */
	if (hc != 0)
		count(w,
		      l4 == IO_CSUM_GOOD ? RC_RX_L4_CSUM_NIC : RC_RX_L4_CSUM_SW,
		      1);
	count(w, RC_STAMP, 1);
	w->fast_answers++;
	return true;
}

/* T3 into a fast-path answer, and its UDP checksum. */
static inline void
stamp_fast_t3(const struct pending_stamp *p, uint64_t t3_be, uint64_t t3_sum)
{
	uint16_t hc;

	memcpy(p->ts, &t3_be, sizeof(t3_be));
	if (p->cs == NULL)
		return;
	hc = (uint16_t)~codec_csum_fold16(p->sum + t3_sum);
	/* As codec_csum_adjust(): a UDP checksum stays present. */
	st16(p->cs, hc == 0 ? 0xffff : hc);
}

/*
 * T3 into a STAMP answer (or its first fragment), its UDP sum updated.
 * Authenticated: T3, then the HMAC over the answer (it covers T3), both in
 * the first 112 payload bytes, which the first fragment always holds.
 */
static void
stamp_t3(const struct reflector_worker *w, const struct pending_stamp *p,
	 struct rte_mbuf *m, uint64_t t3_wire)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *pl = buf + p->payload_off;
	uint8_t *cs = buf + p->l4_off + UDP_CSUM_OFF;
	uint16_t hc = ld16(cs);
	uint32_t old_sum;

	if (w->auth != NULL) {
		size_t have = m->data_len - p->payload_off;

		old_sum = codec_csum_partial(pl, STAMP_AUTH_BASE_LEN, 0);
		(void)stamp_auth_reflector_stamp(w->auth, pl, have, t3_wire);
		if (hc != 0)
			st16(cs, codec_csum_adjust(
					 hc, old_sum,
					 codec_csum_partial(
						 pl, STAMP_AUTH_BASE_LEN, 0)));
		return;
	}
	/* T3 is payload bytes 4-11: even offsets from the UDP header. */
	old_sum = codec_csum_partial(pl + 4, 8, 0);
	stamp_reflector_stamp(pl, 12, t3_wire);
	if (hc != 0)
		st16(cs, codec_csum_adjust(hc, old_sum,
					   codec_csum_partial(pl + 4, 8, 0)));
}

/* A burst of any size and content (reflector_handle()). */
static void __attribute__((noinline))
handle_burst(struct reflector_worker *w, struct rte_mbuf **rx, uint16_t n,
	     uint64_t t2)
{
	struct burst_out o;
	struct fast_burst fb;
	struct io_queue *q = w->q;
	const struct reflector_conf *c = w->conf;
	uint64_t t2_wire, t3, t3_wire;

	o.n_ready = 0;
	o.n_stamp = 0;
	t2_wire = wire_ts(w, t2);
	count(w, RC_RX, n);
	fb.t2_be = rte_cpu_to_be_64(t2_wire);
	fb.sum = sum64(fb.t2_be) + w->fast_ee_be;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
		struct codec_frame f;
		enum answer a = ANSWER_NONE;

		if (w->fast_ok && stamp_fast(w, &o.stamps[o.n_stamp], m, &fb)) {
			o.stamped[o.n_stamp++] = m;
			continue;
		}
		w->tx_l4_offload = false;
		w->lp_off = 0;
		if (m->nb_segs != 1 ||
		    codec_parse_frame(buf, m->data_len, &f) != 0) {
			count(w, RC_DROP_MALFORMED, 1);
		} else if (f.ethertype == CODEC_ETHERTYPE_ARP) {
			if (!is_for_us_mac(w, &f)) {
				count(w, RC_DROP_NOT_FOR_US, 1);
			} else if (f.arp_op != CODEC_ARP_REQUEST ||
				   c->addr == 0 || f.arp_tpa != c->addr) {
				count(w, RC_DROP_ARP_OTHER, 1);
			} else if ((f.src.b[0] & 1) != 0) {
				count(w, RC_DROP_SOURCE, 1);
			} else {
				/* In place, over the request it answers (the
				 * parser checked it holds a whole ARP). */
				int alen = codec_build_arp_reply(
					buf, m->data_len, &f, &c->mac);

				io_mbuf_set_len(m, (uint16_t)alen);
				count(w, RC_ARP, 1);
				a = ANSWER_DONE;
			}
		} else if (f.ethertype != CODEC_ETHERTYPE_IPV4 &&
			   f.ethertype != CODEC_ETHERTYPE_IPV6) {
			count(w, RC_DROP_ETHERTYPE, 1);
		} else if (f.is_fragment) {
			/* IPv4 or IPv6: one reassembly path. */
			handle_fragment(w, &o, buf, &f, io_rx_ip_csum(m), t2,
					t2_wire);
		} else if (f.ethertype == CODEC_ETHERTYPE_IPV6) {
			a = handle_ipv6(w, m, &f, t2, t2_wire);
		} else {
			/* A NIC that checked the sums saves us them. */
			a = handle_ipv4(w, buf, &f, io_rx_ip_csum(m),
					io_rx_l4_csum(m), t2, t2_wire);
		}
		if (a == ANSWER_NONE) {
			io_free(q, m);
			continue;
		}
		/* An answer made in place is as long as its request, which
		 * may have come unpadded (a kernel over a veth sends runts),
		 * or shorter (ARP): padded to the Ethernet minimum. */
		io_mbuf_pad(m);
		if (w->tx_l4_offload)
			tx_l4_offload_set(m, &f, w->tx_l4_pseudo);
		if (a == ANSWER_STAMP) {
			stamp_add(&o, m, &f);
			o.stamps[o.n_stamp - 1].lp_off = w->lp_off;
			if (w->tx_l4_offload) {
				o.stamps[o.n_stamp - 1].tx_l4 = true;
				o.stamps[o.n_stamp - 1].tx_pseudo =
					w->tx_l4_pseudo;
			}
		} else {
			ready_add(w, &o, m);
		}
	}
	/* T3 after all other work on the answers, just before they leave. */
	if (o.n_stamp > 0 && w->auth != NULL) {
		unsigned ns = o.n_stamp;
		uint64_t t3s[REFLECTOR_BURST];

		/*
		 * Each answer's own T3, read right before its HMAC: one T3
		 * for the burst would be early by the HMACs after it (tens
		 * of us for a full burst).
		 */
		for (unsigned i = 0; i < ns; i++) {
			t3s[i] = io_clock_start(q);
			stall_tick(&w->stall, t3s[i]);
			stamp_t3(w, &o.stamps[i], o.stamped[i],
				 wire_ts(w, t3s[i]));
		}
		tx_all(w, o.stamped, ns);
		tx_all(w, o.ready, o.n_ready);
		for (unsigned i = 0; i < ns; i++)
			histogram_record(&w->turnaround,
					 tsc_to_ns(&c->clock, t3s[i] - t2));
		return;
	}
	if (o.n_stamp > 0) {
		unsigned ns = o.n_stamp;
		uint64_t t3_be, t3_sum, turnaround;
		bool in_turn;

		t3 = io_clock_start(q);
		/* T2..T3 is one gap of the poll loop's own work: a stall in it
		 * is the answers' (STAMP_STALL_IN_TURNAROUND). The tx call
		 * starts there. */
		stall_enter_tx(&w->stall, t3);
		in_turn = w->stall.last_end == t3;
		t3_wire = wire_ts(w, t3);
		t3_be = rte_cpu_to_be_64(t3_wire);
		t3_sum = sum64(t3_be);
		for (unsigned i = 0; i < ns; i++) {
			const struct pending_stamp *p = &o.stamps[i];

			if (p->ts != NULL) {
				stamp_fast_t3(p, t3_be, t3_sum);
			} else {
				if (in_turn && p->lp_off != 0)
					lp_stalls_mark(o.stamped[i], p);
				stamp_t3(w, p, o.stamped[i], t3_wire);
				if (p->tx_l4)
					st16(rte_pktmbuf_mtod(o.stamped[i],
							      uint8_t *) +
						     p->l4_off + UDP_CSUM_OFF,
					     p->tx_pseudo);
			}
		}
		tx_entered(w, o.stamped, ns);
		tx_all(w, o.ready, o.n_ready);
		/* After tx: the turnaround record is not on the probe's
		 * path. */
		turnaround = tsc_to_ns(&c->clock, t3 - t2);
		for (unsigned i = 0; i < ns; i++)
			histogram_record(&w->turnaround, turnaround);
		return;
	}
	tx_all(w, o.ready, o.n_ready);
}

/*
 * One frame that the fast path answers (every burst of a closed loop): the
 * same as handle_burst() does with it, without the burst's bookkeeping
 * (w->fast_one: the fast path, NTP timestamps).
 * False when the fast path does not take it (nothing written or counted).
 */
static inline __attribute__((always_inline)) bool
handle_one_fast(struct reflector_worker *w, struct rte_mbuf **rx, uint64_t t2)
{
	struct pending_stamp p;
	struct fast_burst fb;
	uint64_t t3, t3_be;

	fb.t2_be = rte_cpu_to_be_64(stamp_ntp_from_tsc(&w->ntp, t2));
	fb.sum = sum64(fb.t2_be) + w->fast_ee_be;
	if (!stamp_fast(w, &p, rx[0], &fb))
		return false;
	count(w, RC_RX, 1);
	/* T3 after all other work on the answer, just before it leaves. */
	t3 = io_clock_start(w->q);
	/* A fast-path answer carries no stall TLV: a stall inside T2..T3 is
	 * only counted, by the tx call's entry at T3 (its gap runs from T2). */
	t3_be = rte_cpu_to_be_64(stamp_ntp_from_tsc(&w->ntp, t3));
	stamp_fast_t3(&p, t3_be, sum64(t3_be));
	if (w->stall_watch)
		stall_enter_tx(&w->stall, t3);
	tx_entered(w, rx, 1);
	/* After tx: the turnaround record is not on the probe's path. */
	histogram_record(&w->turnaround, tsc_to_ns(&w->conf->clock, t3 - t2));
	return true;
}

void
reflector_handle(struct reflector_worker *w, struct rte_mbuf **rx, uint16_t n,
		 uint64_t t2)
{
	if (n == 1 && w->fast_one && handle_one_fast(w, rx, t2))
		return;
	if (n > REFLECTOR_BURST) {
		reflector_handle(w, rx, REFLECTOR_BURST, t2);
		reflector_handle(w, rx + REFLECTOR_BURST,
				 (uint16_t)(n - REFLECTOR_BURST), t2);
		return;
	}
	handle_burst(w, rx, n, t2);
}

/*
 * The loop's own gaps on the real queue, for STALL_CALIB_NS or
 * STALL_CALIB_GAPS polls, then the threshold (stall_calibrate()). Frames
 * that come meanwhile are answered as always.
 */
void
reflector_calibrate(struct reflector_worker *w, const atomic_bool *stop)
{
	uint64_t t0, span;

	if (!w->stall_watch || w->stall.calib.done)
		return;
	t0 = io_clock(w->q);
	span = tsc_from_ns(&w->conf->clock, w->conf->stall_calib_ns);
	stall_rebase(&w->stall, t0);
	for (unsigned i = 0; span != 0 && i < STALL_CALIB_GAPS &&
			     !atomic_load_explicit(stop, memory_order_relaxed);
	     i++) {
		reflector_poll(w);
		if ((i & 63) == 0 &&
		    stall_calib_over(io_clock(w->q) - t0, span, i))
			break;
	}
	stall_calibrate(&w->stall);
}

void
reflector_run(struct reflector_worker *w, const atomic_bool *stop)
{
	reflector_calibrate(w, stop);
	/* The first gap runs from here, not from the clock's zero. */
	stall_rebase(&w->stall, io_clock(w->q));
	while (!atomic_load_explicit(stop, memory_order_relaxed))
		reflector_poll(w);
}
