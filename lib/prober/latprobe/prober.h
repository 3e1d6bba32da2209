/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PROBER_H
#define LATPROBE_PROBER_H

/*
 * Closed-loop ping-pong prober: one probe in flight per worker lcore, T1
 * read right before tx, T4 right after the rx burst that brought the answer,
 * both on the same lcore. Probe protocols are engines behind struct
 * probe_proto, as testpmd's fwd engines: the UDP ones and ICMP echo in
 * proto_udp.c, tcp-syn in proto_tcp.c.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/clock_sync.h"
#include "latprobe/codec.h"
#include "latprobe/frag.h"
#include "latprobe/histogram.h"
#include "latprobe/io.h"
#include "latprobe/io_link.h"
#include "latprobe/nic_clock.h"
#include "latprobe/stall.h"
#include "latprobe/stamp.h"
#include "latprobe/timing.h"
#include "latprobe/util.h"

struct rte_mbuf;
struct stamp_auth;

#define PROBER_BURST	  32
/* A 65,507-byte UDP payload at the smallest MTU allowed (576). */
#define PROBER_MAX_FRAGS  128
#define PROBER_SCRATCH	  (CODEC_IPV4_MAX_DATAGRAM + 64)
#define PROBER_DUP_WINDOW 4096 /* sequence numbers tracked for duplicates */

struct prober_worker;

/*
 * Why a received frame completed no probe (prober_stats.ignored[]; the
 * report names them, app/ maps them onto its JSON keys). rx_ignored is
 * their sum; late and duplicated answers are in here too.
 */
enum prober_ignored {
	PROBER_IGN_CHECKSUM,	/* IPv4 header or L4 checksum wrong */
	PROBER_IGN_TOO_SHORT,	/* malformed, truncated, or too short for the
				   protocol's answer */
	PROBER_IGN_OTHER_FLOW,	/* other addresses, ports, VLAN, protocol */
	PROBER_IGN_NEVER_SENT,	/* answers a sequence number not sent yet */
	PROBER_IGN_LATE,	/* its probe was already given up */
	PROBER_IGN_DUPLICATE,	/* its probe was already answered */
	PROBER_IGN_NOT_IP,	/* neither IP nor ARP (LLDP, ...) */
	PROBER_IGN_ARP,		/* ARP not asking for our address */
	PROBER_IGN_UNREACHABLE, /* ICMP destination unreachable quoting a
				   probe (also in unreachable[]) */
	PROBER_IGN_AUTH,	/* STAMP answer on our flow whose HMAC does not
				   verify (also in auth_failed) */
	PROBER_IGN__COUNT
};

/* ICMP destination unreachable by code (RFC 792, RFC 1812 §5.2.7.1). */
enum prober_unreach {
	PROBER_UNREACH_NET,   /* codes 0, 6, 11 (kernel: ENETUNREACH) */
	PROBER_UNREACH_HOST,  /* codes 1, 7, 12 (EHOSTUNREACH) */
	PROBER_UNREACH_PORT,  /* code 3 (ECONNREFUSED): nothing listens */
	PROBER_UNREACH_ADMIN, /* codes 9, 10, 13: a filter */
	PROBER_UNREACH_OTHER, /* protocol, fragmentation needed, ... */
	PROBER_UNREACH__COUNT
};

/* The class of an ICMP destination-unreachable code; of an ICMPv6 one
 * (RFC 4443 3.1: 0 no route, 1/5/6 admin, 3 address, 4 port). */
enum prober_unreach prober_unreach_of_code(uint8_t code);
enum prober_unreach prober_unreach_of_code6(uint8_t code);

/* One measured probe, kept when prober_conf.keep_samples (--samples). */
struct prober_sample {
	uint64_t seq;
	uint32_t lcore;
	uint64_t t1_ns; /* since the run's start */
	uint64_t rtt_ns;
	int64_t network_rtt_ns; /* -1 when the proto has none */
	/* One-way (STAMP): T2 - T1 and T4 - T3 on the UTC scale, signed
	 * (a negative one is the clocks' disagreement); has_one_way false
	 * when the answer had no usable T2/T3. */
	bool has_one_way;
	int64_t forward_ns, reverse_ns;
};

/* What an answer told us. */
struct probe_reply {
	uint64_t seq;
	bool has_remote_ts;
	uint64_t t2_ns, t3_ns; /* reflector's receive/transmit, its clock, ns */
	bool is_reset;	       /* tcp-syn: the port answered RST */
	bool has_ee;	       /* STAMP: error_estimate is the answer's */
	uint16_t error_estimate;
	/* --stall-tlv: the answer's STAMP_TLV_LP_STALLS: 1 filled
	 * in by the reflector (peer_stall), -1 flagged U or M (a reflector
	 * that does not know it), 0 none. */
	int8_t has_peer_stall;
	struct stamp_lp_stalls peer_stall;
};

struct probe_proto {
	const char *name;
	uint16_t default_port;
	bool has_remote_ts; /* answers carry T2/T3 */
	bool udp; /* a UDP payload protocol (kernel backend can run it) */
	/* Smallest probe payload (-l) the protocol can carry. */
	unsigned min_size;
	/*
	 * Whole frames. UDP protocols (proto_udp.c) are one generic UDP
	 * wrapper around a payload builder/matcher private to that file.
	 */
	int (*build)(struct prober_worker *w, uint8_t *buf, size_t cap,
		     uint64_t seq, uint64_t t1_unix_ns);
	int (*match)(struct prober_worker *w, const uint8_t *buf,
		     const struct codec_frame *f, struct probe_reply *r);
	/* Optional, after T4: e.g. tcp-syn sends the RST that closes the
	 * half-open connection. Called for every matched answer. */
	void (*on_reply)(struct prober_worker *w, const uint8_t *buf,
			 const struct codec_frame *f);
	/*
	 * Optional template path (build_probe() in prober.c): in a frame that
	 * build() made for this worker, rewrite what differs for probe seq
	 * (sequence number, send time; not the ports, IP ID or checksums:
	 * the caller patches those) in the L4 segment at l4, and add the
	 * memory-order sum of the rewritten bytes (codec_csum_add(); every
	 * range at an even offset from l4) to *sum. 0, or -ENOTSUP when this
	 * worker needs build() every time (STAMP with a key).
	 */
	int (*patch)(struct prober_worker *w, uint8_t *l4, uint64_t seq,
		     uint64_t t1_unix_ns, uint64_t *sum);
	/* Optional, UDP protocols: match() on the UDP payload alone, for an
	 * answer whose addressing the caller has checked (prober.c's fast
	 * path); same return values. */
	int (*match_payload)(struct prober_worker *w, const uint8_t *p,
			     size_t len, struct probe_reply *r);
};

/*
 * A worker's probe template (prober.c): the frame build() made once, and
 * the partial sums of its IPv4 header and of its L4 checksum's coverage
 * without the bytes that change per probe (IP ID; source port; what the
 * protocol's patch() rewrites), so that a probe is a copy and a few
 * patched fields. Remade when the destination port changes; the source
 * port is patched per probe (w->flow.sport at build time). Any other
 * change of w->flow must call prober_tmpl_reset().
 */
struct prober_tmpl {
	uint8_t *buf; /* NULL: not made yet */
	uint16_t len, l4_off, csum_off;
	uint16_t dport;	  /* w->flow.dport it was made for */
	uint16_t l4_base; /* folded, never 0 */
	uint16_t ip_base; /* IPv4; folded, never 0 */
	bool ports;	  /* UDP/TCP: the source port is at l4 */
	bool udp;	  /* a computed UDP checksum 0 goes out as 0xffff */
	bool v4;
	bool off; /* build() every time: no patch(), fragments, a key */
};

extern const struct probe_proto probe_proto_stamp;
extern const struct probe_proto probe_proto_sockperf;
extern const struct probe_proto probe_proto_udp_echo;
extern const struct probe_proto probe_proto_icmp;
extern const struct probe_proto probe_proto_tcp_syn;

/* By name ("stamp", "sockperf", "udp-echo", "icmp", "tcp-syn"); NULL if
 * unknown. */
const struct probe_proto *probe_proto_find(const char *name);

/*
 * Optional capture of every probe and answer (--pcap): called before T1 for
 * a probe (tx = true, the mbuf is about to be sent and must not be kept) and
 * after T4 for an answer. The hook copies what it needs.
 */
struct prober_capture {
	void (*fn)(void *arg, unsigned worker, const struct rte_mbuf *m,
		   uint64_t tsc, bool tx);
	void *arg;
};

/* --spacing: how open-loop send times are laid out. */
enum prober_spacing {
	PROBER_SPACING_CONSTANT, /* every 1/rate exactly */
	PROBER_SPACING_POISSON,	 /* exponential gaps of mean 1/rate, seeded */
};

/* --seed when none is given (the report says the seed used). */
#define PROBER_DEFAULT_SEED 1

/*
 * Open-loop send schedule: the gap before each next send, in cycles.
 * Constant gaps carry the remainder of hz / rate (no drift over a long
 * run); Poisson gaps come from a splitmix64 stream of the seed, so one
 * seed gives one schedule.
 */
struct prober_sched {
	enum prober_spacing spacing;
	uint64_t rate;
	uint64_t gap_q, gap_r, acc; /* constant: hz / rate, hz % rate */
	double mean_gap;	    /* poisson: hz / rate cycles */
	uint64_t rng;
};

void prober_sched_init(struct prober_sched *s, enum prober_spacing spacing,
		       uint64_t hz, uint64_t rate, uint64_t seed);
uint64_t prober_sched_gap(struct prober_sched *s);

/*
 * The sequence window of an open-loop worker: one slot per probe that may
 * still be answered (rate x timeout of them, a power of two, at least twice
 * that for a sender catching up). Probes in [head, next) are in it; the
 * slot of seq is slot[seq & mask].
 */
#define PROBER_OPEN_MAX_INFLIGHT (1u << 18) /* rate x timeout cap */

enum prober_slot_state {
	PROBER_SLOT_TX_FAILED, /* the tx queue did not take it */
	PROBER_SLOT_IN_FLIGHT,
	PROBER_SLOT_ANSWERED,
	PROBER_SLOT_UNREACHABLE, /* an ICMP error ended it: lost */
};

struct prober_slot {
	uint64_t sched; /* when it was meant to leave (cycles) */
	uint64_t t1;	/* when it left */
	uint32_t state; /* enum prober_slot_state */
};

struct prober_worker;
struct probe_reply;

struct prober_open {
	/* openloop.c's handling of an answer (seq below next) and of an ICMP
	 * error quoting the low `bits` bits (low) of a probe's sequence
	 * number (the newest probe in flight that matches ends as lost,
	 * lost_unreachable; true when one did). prober_worker_run_open() sets
	 * them before its loop; prober.c's rx path calls them, so that it
	 * names nothing of openloop.c. */
	bool (*take)(struct prober_worker *w, const struct probe_reply *r,
		     uint64_t t4);
	bool (*unreachable)(struct prober_worker *w, uint64_t low,
			    unsigned bits);
	struct prober_slot *slot;
	uint64_t mask;
	uint64_t head, next; /* oldest probe kept; next to send */
	uint64_t in_flight;
	uint64_t next_sched; /* cycles */
	struct prober_sched sched;
};

/*
 * Slots for rate_pps x timeout_ns probes in flight: 0 and *slots, or
 * -E2BIG when that is more than PROBER_OPEN_MAX_INFLIGHT (-EINVAL for a
 * rate of 0).
 */
int prober_open_window_size(uint64_t rate_pps, uint64_t timeout_ns,
			    size_t *slots);

struct prober_conf {
	const struct probe_proto *proto;
	struct prober_capture capture;
	struct codec_flow flow; /* worker i uses flow.sport + i */
	unsigned size;		/* probe payload bytes (-l) */
	uint64_t count;		/* probes for this worker; 0 = until deadline */
	/* 0 = no time limit; else the whole run, warm-up included (-t) */
	uint64_t duration_cycles;
	uint64_t warmup;	  /* probes sent first and not recorded */
	uint64_t interval_cycles; /* between probe starts; 0 = back to back */
	uint64_t timeout_cycles;  /* a probe not answered by then is lost */
	struct tsc_clock clock;
	struct tsc_anchor anchor;
	bool keep_samples;
	size_t max_samples; /* per worker */
	uint16_t icmp_id;
	uint32_t tcp_isn_base; /* tcp-syn: ISN = base ^ seq */
	/* STAMP authenticated mode (RFC 8762 §4.4) when auth_key_len > 0 */
	const uint8_t *auth_key;
	size_t auth_key_len;
	/* --hw-timestamps: the queue's NIC stamps answers (io_rx_nic_ts) and
	 * reads its clock; the NIC clock is mapped onto the TSC from two
	 * reads hw_calib_cycles apart at the start, then re-read every
	 * hw_resample_cycles (between probes). prober_hwts.c. */
	bool hw_ts;
	uint64_t hw_calib_cycles;
	uint64_t hw_resample_cycles;
	/*
	 * Many flows (flows.c). n_flows > 1 (--flows N): probe seq goes out
	 * on flow seq % n_flows, source port sports[seq % n_flows], each flow
	 * its own record (struct prober_flow). new_flow_every K > 0
	 * (--new-flow-every): probe seq goes out on sports[(seq / K) %
	 * n_sports], and the first probe of each K (seq % K == 0) opens a
	 * tuple: its round trip goes to first_rtt, not to rtt (past
	 * n_sports tuples the oldest port is used again: fresh_reused).
	 * sports: ports whose answers come back to this worker's queue, the
	 * caller's (kept until fini); unused when both are off (flow.sport).
	 * UDP and tcp-syn only (ICMP has no port).
	 */
	uint32_t n_flows;
	uint64_t new_flow_every;
	const uint16_t *sports;
	uint32_t n_sports;
	/* Open loop (--rate): probes leave at their scheduled times whatever
	 * the answers do (prober_worker_run_open()); 0 = closed loop. A send
	 * more than behind_bound_cycles behind its schedule is a late send. */
	uint64_t rate_pps;
	enum prober_spacing spacing;
	uint64_t seed;
	uint64_t behind_bound_cycles;
	/* One-way delays: T1 and T4 go onto the UTC scale through this feed's
	 * latest mapping (app/ re-samples it during the run); NULL: through
	 * anchor and clock above (the start's mapping, never re-sampled). */
	const struct clock_feed *utc_feed;
	/* A gap of the poll loop above stall_threshold_ns is a
	 * stall of this worker (stall.h; 0 = not watched); stall_tlv: STAMP
	 * probes carry STAMP_TLV_LP_STALLS for a latprobe reflector to fill
	 * in (never sent unless asked: --stall-tlv). */
	uint64_t stall_threshold_ns;
	/* How long the worker polls its idle queue before the first probe to
	 * calibrate the threshold (at most STALL_CALIB_GAPS polls); 0: no
	 * such phase, the threshold is the floor (a test's zeroed conf). */
	uint64_t stall_calib_ns;
	bool stall_tlv;
	/* The port's link state: a probe lost while the link was
	 * down is also counted in lost_link_down. NULL: not known. */
	const struct io_link *link;
};

/*
 * One flow's record (--flows): a compact histogram with HdrHistogram's
 * layout at 32 sub-buckets (counters 0..31 exact, then 16 a power of two,
 * steps of 2^b above 2^(b+4)), so a percentile read back (the highest value
 * its counter holds, clipped to max) is never below the exact one and less
 * than 1/16 = 6.25 % above it. 496 counters of 4 bytes up to 2^34 ns:
 * about 2 KiB a flow. Single writer (the worker); read after the run.
 */
#define PROBER_FLOW_SUB_BITS 5
#define PROBER_FLOW_COUNTERS 496
#define PROBER_FLOW_HIGHEST  ((1ull << 34) - 1)

struct prober_flow {
	uint16_t sport;
	uint64_t count; /* measured answers (sums to received) */
	uint64_t lost;	/* measured probes lost */
	uint64_t min, max;
	uint64_t overflow; /* answers above PROBER_FLOW_HIGHEST (in count) */
	uint32_t counts[PROBER_FLOW_COUNTERS]; /* saturate at UINT32_MAX */
};

/* Record v ns in f (count, min, max and a counter). */
void prober_flow_hist_record(struct prober_flow *f, uint64_t v);
/* Percentile p (0 < p <= 100) of f with histogram_percentile()'s rank
 * rule; 0 when empty. */
uint64_t prober_flow_percentile(const struct prober_flow *f, double p);

/*
 * One-way delays of STAMP answers: forward = T2 - T1, reverse =
 * T4 - T3, T1 and T4 mapped onto UTC by our side, T2 and T3 the
 * reflector's. A value <= 0 goes into no histogram: it is counted, and the
 * most negative kept, as evidence that the clocks disagree by at least
 * that much. Single writer (the worker), read after the run or relaxed.
 */
struct prober_oneway {
	uint64_t answers;		 /* measured answers with T2 <= T3 */
	uint64_t fwd_nonpos, rev_nonpos; /* T2 <= T1, T4 <= T3 */
	int64_t fwd_min_ns, rev_min_ns;	 /* the smallest of each, signed */
	uint64_t ee_s_clear; /* answers whose Error Estimate had S clear */
	uint64_t ee_none;    /* answers without one (multiplier 0) */
	uint64_t ee_unknown; /* answers whose estimate said the error is
				unknown (stamp_ee_is_unknown()) */
	uint64_t ee_max_ns;  /* the largest Error Estimate, ns, rounded up */
	uint64_t own_err_max_ns; /* our mapping's error at an answer, max */
};

/* --hw-timestamps counters (single writer: the worker). */
/* Counters: single writer (the worker), read relaxed by the reporter. */
struct prober_stats {
	uint64_t sent; /* completed probes: answered or timed out */
	uint64_t received;
	uint64_t lost;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t late;	     /* answers that came after their timeout, or
				older than the duplicate window */
	uint64_t rx_ignored; /* frames that completed no probe: the sum of
				ignored[] */
	uint64_t ignored[PROBER_IGN__COUNT];
	/* ICMP destination unreachable quoting our probes, by code (each is
	 * in ignored[PROBER_IGN_UNREACHABLE] too); one that quotes the probe
	 * in flight ends it at once (lost). */
	uint64_t unreachable[PROBER_UNREACH__COUNT];
	uint64_t lost_unreachable; /* lost probes an ICMP error ended (not
				      timed out) */
	/* Lost probes whose flight saw the link down (conf->link): part of
	 * lost, not the path's loss. */
	uint64_t lost_link_down;
	/* Probes answered, warm-up included: 0 after warmup + sent probes
	 * means the peer never answered at all. */
	uint64_t answered;
	uint64_t warmup;
	uint64_t tx_fail; /* tx queue did not take the probe */
	/* Sends that found no free mbuf (a momentary pool shortage): the
	 * probe is tried again, as testpmd does, not the run ended. */
	uint64_t nombuf;
	uint64_t resets;       /* tcp-syn answers that were RST */
	uint64_t reasm_failed; /* fragmented answers not reassembled */
	/* Measured probes that timed out after the next one was due: each
	 * stretched the interval (-i) to the timeout. */
	uint64_t interval_stretched;
	uint64_t auth_failed; /* answers whose HMAC did not verify */
	/* Answers whose L4 checksum was partial (the pseudo-header sum a
	 * peer's tx offload leaves: a kernel on a veth, in a container), or
	 * that the NIC said RX_L4_CKSUM_NONE of: used as right ones. */
	uint64_t l4_partial;
	/* --new-flow-every: tuples opened (warm-up included), those that
	 * had to take a port used before (no fresh one left), and measured
	 * first packets lost. */
	uint64_t new_flows;
	uint64_t fresh_reused;
	uint64_t first_lost;
	/* STAMP: the reflector's Error Estimate (RFC 4656 §4.1.2 bits, as on
	 * the wire) of the last answer that carried one, how many did, and
	 * how many differed from the answer before them. */
	uint64_t reflector_ee;
	uint64_t reflector_ee_answers;
	uint64_t reflector_ee_changes;
	/* Open loop, measured probes: sends more than behind_bound_cycles
	 * behind their schedule, and the most any send was behind (ns). */
	uint64_t late_sends;
	uint64_t behind_max_ns;
	/* --stall-tlv: answers whose stall TLV the reflector filled in, those
	 * it flagged U/M (it does not know it); the reflector's stalls per
	 * reflector worker are in prober_worker.peer_rw. */
	uint64_t peer_stall_answers;
	uint64_t peer_stall_unknown;
	uint64_t peer_stall_longest_ns; /* of those that delayed an answer */
	/* Answers from more reflector workers than peer_rw holds. */
	uint64_t peer_stall_untracked;
};

#define PROBER_PEER_RW 16

struct prober_worker {
	const struct prober_conf *conf;
	struct io_queue *q;
	unsigned index;
	uint32_t lcore;
	struct codec_flow flow;
	struct prober_stats st;
	struct histogram rtt, network_rtt, turnaround;
	/* Open loop: T4 - scheduled send time per answer, and how far each
	 * measured send was behind its schedule (ns). */
	struct histogram intended, behind;
	struct prober_open *open; /* NULL: closed loop */
	uint64_t t_start;	  /* cycles at the first recorded probe */
	uint64_t t_run;		  /* cycles at the start of the run (warm-up) */
	struct prober_sample *samples;
	size_t n_samples, cap_samples;
	uint64_t samples_dropped;
	uint64_t max_seq_seen; /* reordering only: never the widening's */
	bool any_seen;
	uint64_t seen[PROBER_DUP_WINDOW / 64];
	uint64_t seen_base; /* seq of bit 0 of seen[] */
	/* Probes larger than the MTU (-l 8k): built whole in scratch, sent
	 * as IPv4 fragments; fragmented answers reassembled in reasm. */
	bool fragmented;
	uint8_t *scratch;
	struct codec_reasm *reasm;
	/* Largest L3 packet sent whole: the queue's MTU capped at what one
	 * of its mbufs holds after the L2 header. */
	uint16_t mtu;
	bool done;	 /* set when the worker returns */
	bool unresolved; /* prober_set_run(): ARP for its peer failed */
	/* prober_worker_step()'s place: the next sequence number, when the
	 * next probe may start (-i), the -t deadline (0 = none). step_seq is
	 * also the open loop's next one: the newest probe sent (within one),
	 * which the matchers widen 32-bit wire sequence numbers against. */
	uint64_t step_seq, step_next_send, step_deadline;
	/* prober_nombuf(): since when (TSC) the send of probe nombuf_seq has
	 * found the pool empty; 0 = not now. */
	uint64_t nombuf_since, nombuf_seq;
	struct stamp_auth *auth; /* HMAC context when conf has a key */
	/* --hw-timestamps: answer's NIC rx time - T1 (hw_rtt) and T4 - the
	 * answer's NIC rx time (hw_rx_delay: the two clocks' views of one
	 * arrival), both on the TSC's timeline, ns. */
	struct histogram hw_rtt, hw_rx_delay;
	struct nic_ts_stats hw; /* per measured answer */
	struct nic_clock nic;
	uint64_t hw_last_sample; /* TSC of the latest NIC clock read */
	uint64_t hw_t4;		 /* NIC rx time of the frame being taken */
	bool hw_t4_ok;
	/* flows.c: conf->n_flows records (NULL: --flows off), the worker's
	 * source ports sorted (NULL: only flow.sport is ours), and the first
	 * packets' round trips (NULL: --new-flow-every off). */
	struct prober_flow *flows;
	uint16_t *flow_ports; /* conf->n_sports of them */
	struct histogram *first_rtt;
	struct prober_tmpl tmpl;
	/* prober_worker_run()'s lean loop: the answer's mbuf, kept to carry
	 * the next probe (NULL: none; freed when the run ends). */
	struct rte_mbuf *spare;
	/* One-way delays (struct prober_oneway): the histograms of the
	 * positive ones, the counters, and the mapping in use (a copy of
	 * conf->utc_feed's, generation ow_gen) with its error. */
	struct histogram forward, reverse;
	struct prober_oneway ow;
	struct clock_map ow_map;
	uint64_t ow_err_ns;
	uint32_t ow_gen;
	uint16_t ow_last_ee; /* the last Error Estimate decoded, and its ns */
	uint64_t ow_last_ee_ns;
	/*
	 * The stalls of this worker's poll loop, and the measured
	 * answers that overlapped one (host-affected), by side: host_prober,
	 * the probe's T1..T4 overlapped a stall of this worker;
	 * host_reflector, the reflector said so in the stall TLV; host_both,
	 * both. Each is a subset of rtt (recorded after it); the unaffected
	 * round trips are rtt without them (prober_rtt_unaffected()), so a
	 * probe that overlapped nothing costs no second record.
	 */
	struct stall_det stall;
	struct histogram rtt_host_prober, rtt_host_reflector, rtt_host_both;
	/* --stall-tlv: what each reflector worker (the TLV's number) said of
	 * its stalls since its first answer here: the TLV's counters wrap at
	 * 2^32, so the differences are accumulated modulo 2^32. Several
	 * prober workers may hear the same reflector worker: the report takes
	 * the largest per (target, reflector worker), never the sum. */
	struct prober_peer_rw {
		uint16_t worker; /* the TLV's number; 0: slot free */
		uint32_t last_count, last_total_us;
		uint64_t count, total_us;
	} peer_rw[PROBER_PEER_RW];
};

/*
 * A probe that overlapped stalls on both sides, the delays each
 * could have added, p_ns this worker's (the stall that ended at T4: the
 * answer may have waited for it) and r_ns the reflector's: the side whose
 * delay is more than twice the other's is the one it is charged to (1 this
 * side, 2 the reflector's), else both (3). On a loaded machine the side
 * without the hog stalls during any long wait too; this keeps the side
 * that held the probe apart.
 */
static inline unsigned
prober_stall_side(uint64_t p_ns, uint64_t r_ns)
{
	if (p_ns / 2 > r_ns)
		return 1;
	if (r_ns / 2 > p_ns)
		return 2;
	return 3;
}

/*
 * The reflector's stalls told in the stall TLV, over prober workers w[0..n):
 * per (target, reflector worker) the largest count any of them heard (they
 * heard the same counters, each from its own first answer on), summed over
 * the distinct ones; target[i] is w[i]'s target (NULL: all one). Relaxed
 * reads: callable while the workers run.
 */
void prober_peer_stalls_merge(const struct prober_worker *w, unsigned n,
			      const unsigned *target, uint64_t *count,
			      uint64_t *total_us);

/* out = w's rtt without its host-affected round trips (after the run, or
 * from snapshots; see histogram_subtract() for min and max). 0 or
 * -EINVAL. */
int prober_rtt_unaffected(const struct prober_worker *w, struct histogram *out);

/* flows.c: set up and free the worker's flows (0, -EINVAL for a conf that
 * makes no sense, -ENOMEM). */
int prober_flows_init(struct prober_worker *w);
void prober_flows_fini(struct prober_worker *w);
/* The source port probe seq goes out on (flow.sport when flows are off). */
uint16_t prober_flow_sport(const struct prober_worker *w, uint64_t seq);
/* The same, for the probe being built: counts a new tuple (new_flows,
 * fresh_reused). Once per probe, from the builder. */
uint16_t prober_flow_select(struct prober_worker *w, uint64_t seq);
/* Is port one of the worker's source ports? */
bool prober_flow_port_find(const struct prober_worker *w, uint16_t port);

static inline bool
prober_flow_port_ok(const struct prober_worker *w, uint16_t port)
{
	if (w->flow_ports == NULL)
		return port == w->flow.sport;
	return prober_flow_port_find(w, port);
}

/*
 * A measured answer to probe seq, rtt ns: true when it was the first
 * packet of a tuple (recorded in first_rtt; the caller records it nowhere
 * else), false otherwise (recorded in its flow's record when --flows).
 */
bool prober_flow_take(struct prober_worker *w, uint64_t seq, uint64_t rtt);
/* Measured probe seq lost: its flow's lost, or first_lost. */
void prober_flow_lost(struct prober_worker *w, uint64_t seq);

/* Forget w's template (made again at the next probe). */
void prober_tmpl_reset(struct prober_worker *w);

/*
 * Probe seq's single frame into buf (cap bytes) as build_probe() sends it:
 * from w's template (generic false; build() when w has none) or from the
 * protocol's build() (generic true). Its length or -errno. For tests: the
 * two must give the same bytes.
 */
int prober_probe_frame(struct prober_worker *w, uint8_t *buf, size_t cap,
		       uint64_t seq, uint64_t t1_unix_ns, bool generic);
/* prober.c's rx and tx path, shared with openloop.c (prober_send_probe()
 * builds with build_probe(), the one builder). */
void prober_ignore(struct prober_worker *w, enum prober_ignored why);
void prober_note_order(struct prober_worker *w, uint64_t seq);
void prober_record_answer(struct prober_worker *w, const struct probe_reply *r,
			  uint64_t seq, uint64_t t1, uint64_t t4,
			  uint64_t sched);
int prober_send_probe(struct prober_worker *w, uint64_t seq, uint64_t now,
		      uint64_t *t1);
void prober_poll_open(struct prober_worker *w, uint64_t next);
int prober_nombuf(struct prober_worker *w, uint64_t seq, uint64_t now);
/* openwin.c: the open-loop window of w (rate_pps), with the worker. */
int prober_open_init(struct prober_worker *w);
void prober_open_fini(struct prober_worker *w);

/* oneway.c: set up the worker's one-way state (from prober_worker_init());
 * an answer with T2/T3 is recorded by prober_oneway_record() (prober_oneway.h,
 * inline). */
void prober_oneway_init(struct prober_worker *w);

/* prober_hwts.c: the --hw-timestamps hooks of the worker. */
void prober_hw_init(struct prober_worker *w);
int prober_hw_start(struct prober_worker *w);
void prober_hw_resample(struct prober_worker *w, uint64_t now);
void prober_hw_rx(struct prober_worker *w, const struct rte_mbuf *m);
void prober_hw_record(struct prober_worker *w, uint64_t t1, uint64_t t4);

/*
 * IPv4 ID of probe seq on worker index: the worker in the top 6 bits,
 * the sequence number in the 10 below, so the fragments of concurrent
 * probes from up to 64 workers never share a reassembly key at the peer.
 */
static inline uint16_t
prober_ip_id(unsigned index, uint64_t seq)
{
	return (uint16_t)((index & 0x3f) << 10 | (seq & 0x3ff));
}

/* The IPv6 Fragment header identification of probe seq on worker index:
 * the worker in the top 8 bits, the sequence number in the 24 below. */
static inline uint32_t
prober_frag_id6(unsigned index, uint64_t seq)
{
	return (uint32_t)(index & 0xff) << 24 | (uint32_t)(seq & 0xffffff);
}

int prober_worker_init(struct prober_worker *w, const struct prober_conf *c,
		       struct io_queue *q, unsigned index);
void prober_worker_fini(struct prober_worker *w);

/*
 * Go on after prober_worker_run() returned because stop was set while the
 * port was away (a removed device attached again, --forever): the same
 * sequence numbers, counters and histograms, its next probe at once.
 * Closed loop without --hw-timestamps only (-ENOTSUP otherwise).
 */
int prober_worker_resume(struct prober_worker *w, const atomic_bool *stop);

/*
 * Run until count is reached, duration_cycles have passed since the start
 * (warm-up included; a probe in flight then is abandoned, neither sent nor
 * lost), or *stop is set (read relaxed). 0 or -errno.
 */
int prober_worker_run(struct prober_worker *w, const atomic_bool *stop);

/*
 * Open loop (conf.rate_pps != 0): probe k leaves at its scheduled time
 * (start + the schedule's gaps) whatever the answers do, many in flight;
 * each answer finds its probe in the sequence window by its own sequence
 * number. A probe unanswered timeout_cycles after it left is lost (the
 * oldest expire first, O(1) each). Ends when count probes were measured
 * and none is in flight any more (each waits for its answer or its
 * timeout), or at the -t deadline or *stop (probes in flight then are
 * abandoned: neither sent nor lost). An ICMP error ends the newest probe in
 * flight whose sequence number its quoted IP ID (IPv6: fragment ID) carries;
 * over unfragmented IPv6 it ends none (the probe times out). 0 or -errno.
 */
int prober_worker_run_open(struct prober_worker *w, const atomic_bool *stop);
/*
 * Open loop again after a re-attach (prober_worker_resume() calls it): the
 * window, counters and histograms as they were; the schedule goes on from
 * now (the gap's sends are not made, not counted); the probes in flight
 * expire as lost. 0 or -errno.
 */
int prober_worker_resume_open(struct prober_worker *w, const atomic_bool *stop);

/*
 * The same run one probe at a time, for a caller that takes turns between
 * workers (prober_multi_run()): begin once (the clock of -t starts), then
 * step: one probe sent and answered or lost (after -i's wait); 1 when the
 * worker has more to do, 0 once count or the deadline is reached or *stop
 * is set, -errno on an error. begin: 0, or -errno when --hw-timestamps
 * cannot read the NIC's clock.
 */
int prober_worker_begin(struct prober_worker *w);
int prober_worker_step(struct prober_worker *w, const atomic_bool *stop);
/* One rx poll of a worker between its probes (resting): late answers are
 * counted, ARP and NS for its address answered. */
void prober_worker_poll(struct prober_worker *w);
/* One rx poll of q with no worker: ARP and NS for fl's source addresses
 * answered (fl->vlan: tagged), everything else dropped. */
void prober_answer_neighbours(struct io_queue *q, const struct codec_flow *fl);

/*
 * Several workers (one per target) on one lcore: their probes take turns,
 * one in flight at a time. A worker whose last PROBER_MULTI_DEAD probes
 * went unanswered (warm-up included) rests for backoff_cycles (others go on
 * meanwhile), so a target that stops answering costs the others one timeout per
 * backoff rather than one per round; one silent during its warm-up leaves
 * the warm-up then (its probes count as lost from there). Returns when every
 * worker is done or *stop is set: 0, or the first -errno (that worker stops,
 * the others go on). Each worker's done flag is set when it finishes.
 */
#define PROBER_MULTI_DEAD 2
int prober_multi_run(struct prober_worker *const *ws, unsigned n,
		     uint64_t backoff_cycles, const atomic_bool *stop);

/*
 * The same over a set that may change while it runs (a pinglist re-read on
 * SIGHUP): one thread (the control thread) adds workers, whole, and
 * retires them; the lcore running prober_set_run() picks additions up
 * (acquire) between probes, begins them then, and stops a retired worker
 * before its next probe. A retired worker keeps its counters and
 * histograms. An open set waits for workers when none is left (until
 * *stop); a closed one returns when all are done.
 */
#define PROBER_SET_MAX 128

struct prober_set {
	struct prober_worker *w[PROBER_SET_MAX];
	unsigned n; /* published workers: store release, load acquire */
	bool retired[PROBER_SET_MAX];
	/* Bumped (store release) when a place takes a new worker
	 * (prober_set_reuse()); the lcore then begins it afresh. */
	unsigned gen[PROBER_SET_MAX];
	bool open;
	/* Non-zero: a worker added without its peer's MAC (all zero) is
	 * resolved by ARP on its queue when the lcore begins it (its other
	 * workers wait meanwhile); if nobody answers within this many ms it
	 * is done at once (unresolved set, nothing sent). */
	unsigned arp_timeout_ms;
	/* When no worker may probe (every one rests, or an open set has none
	 * left), the lcore goes on polling so that our address stays
	 * reachable: a resting worker's queue (prober_worker_poll()), else
	 * idle_q (non-NULL), where it answers ARP and NS for idle_flow's
	 * source addresses (src_mac, src4, src6, vlan) and drops the rest. A
	 * lane that probes pays nothing for it. */
	struct io_queue *idle_q;
	struct codec_flow idle_flow;
	/* Set before a run after a re-attach: a worker that began
	 * in an earlier run goes on (no new begin: its sequence numbers,
	 * counters, histograms and -t's deadline are kept). */
	bool resume;
};

void prober_set_init(struct prober_set *s, bool open);
/* Control thread: 0, or -ENOSPC when the set is full. */
int prober_set_add(struct prober_set *s, struct prober_worker *w);
void prober_set_retire(struct prober_set *s, unsigned i);
/*
 * Control thread: can place i take a new worker? True when it was retired
 * and its lcore is done with it (the worker's done flag, read acquire):
 * from then on the lcore does not touch that worker, which the caller may
 * fold into its totals and set up again (prober_worker_fini(), _init()).
 */
bool prober_set_reusable(const struct prober_set *s, unsigned i);
/* Then put w (whole) in place i: the lcore begins it as a new worker. 0, or
 * -EINVAL when i is not a place of the set. */
int prober_set_reuse(struct prober_set *s, unsigned i, struct prober_worker *w);
int prober_set_run(struct prober_set *s, uint64_t backoff_cycles,
		   const atomic_bool *stop);

static inline uint64_t
prober_stat_read(const uint64_t *p)
{
	return util_relaxed_read(p);
}

/*
 * Resolve ip (host order) to a MAC by ARP on q: a request every 200 ms
 * until timeout_ms. Answers ARP requests for my_ip meanwhile. 0, or
 * -EHOSTUNREACH when nobody answered.
 */
int prober_arp_resolve(struct io_queue *q, const struct codec_mac *my_mac,
		       uint32_t my_ip, uint32_t ip, unsigned timeout_ms,
		       const struct tsc_clock *clock, struct codec_mac *out,
		       const atomic_bool *stop);

/* The same on a VLAN: requests and answers carry 802.1Q tag vlan (1..4094;
 * 0 = untagged); answers with another tag or none are not taken. */
int prober_arp_resolve_vlan(struct io_queue *q, const struct codec_mac *my_mac,
			    uint32_t my_ip, uint16_t vlan, uint32_t ip,
			    unsigned timeout_ms, const struct tsc_clock *clock,
			    struct codec_mac *out, const atomic_bool *stop);

/* Answer an ARP request for my address (used by the prober's rx path). */
bool prober_answer_arp(struct io_queue *q, const struct codec_frame *f,
		       const struct codec_mac *my_mac, uint32_t my_ip);
/* Likewise with tag vlan on the answer (0 = untagged). */
bool prober_answer_arp_vlan(struct io_queue *q, const struct codec_frame *f,
			    const struct codec_mac *my_mac, uint32_t my_ip,
			    uint16_t vlan);

/*
 * Announce my_ip at my_mac on q (a gratuitous ARP, RFC 5227 2.3: a
 * request with my_ip as sender and target, broadcast), tagged vlan when
 * non-zero: after a port was made again over another path (a
 * failover) the switches learn where the address is now, as a bonding
 * driver announces its failover. 0, -ENOBUFS, -EAGAIN (tx did not take it).
 */
int prober_announce(struct io_queue *q, const struct codec_mac *my_mac,
		    uint32_t my_ip, uint16_t vlan);

/*
 * IPv6: resolve ip6 to a MAC by Neighbor Solicitation on q (RFC 4861 7.2.2:
 * to its solicited-node address, every 200 ms until timeout_ms), on VLAN
 * vlan (0 = untagged); answers NS for my_ip6 meanwhile. 0, -EHOSTUNREACH
 * when nobody answered, -EINTR when *stop was set.
 */
int prober_nd_resolve(struct io_queue *q, const struct codec_mac *my_mac,
		      const uint8_t my_ip6[16], uint16_t vlan,
		      const uint8_t ip6[16], unsigned timeout_ms,
		      const struct tsc_clock *clock, struct codec_mac *out,
		      const atomic_bool *stop);

/* Answer a valid NS for my_ip6 (frame buf, parsed f) with an NA; true when
 * it was one and the answer went out. */
bool prober_answer_ns(struct io_queue *q, const uint8_t *buf,
		      const struct codec_frame *f,
		      const struct codec_mac *my_mac, const uint8_t my_ip6[16],
		      uint16_t vlan);

#endif /* LATPROBE_PROBER_H */
