/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_REFLECTOR_H
#define LATPROBE_REFLECTOR_H

/*
 * The reflector engine: answers ARP (IPv6: Neighbor Solicitations) for its
 * address, ICMP echo (and ICMPv6 echo), STAMP
 * (stateless or stateful), sockperf and UDP echo, on one io_queue per
 * worker lcore. Everything else is counted by reason and dropped.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "latprobe/codec.h"
#include "latprobe/frag.h"
#include "latprobe/histogram.h"
#include "latprobe/io.h"
#include "latprobe/nic_clock.h"
#include "latprobe/stall.h"
#include "latprobe/stamp.h"
#include "latprobe/clock_sync.h"
#include "latprobe/timing.h"
#include "latprobe/util.h"

struct rte_mbuf;
struct stamp_auth;

#define REFLECTOR_BURST 32

/* Counters, each with a stable name (reflector_counter_name()). */
enum reflector_counter {
	RC_RX,		     /* frames received */
	RC_TX,		     /* frames sent */
	RC_ARP,		     /* ARP requests answered */
	RC_ICMP,	     /* ICMP echo requests answered */
	RC_STAMP,	     /* STAMP test packets reflected */
	RC_SOCKPERF,	     /* sockperf messages answered */
	RC_ECHO,	     /* UDP echo datagrams answered */
	RC_DROP_MALFORMED,   /* a header did not parse */
	RC_DROP_NOT_FOR_US,  /* another MAC or IP address */
	RC_DROP_ETHERTYPE,   /* neither IPv4 nor ARP */
	RC_DROP_ARP_OTHER,   /* ARP that asks for no answer */
	RC_DROP_IP_CSUM,     /* bad IPv4 header checksum */
	RC_DROP_L4_CSUM,     /* bad UDP/ICMP checksum (the NIC's verdict, or
				verified here when the NIC did not) */
	RC_DROP_FRAGMENT,    /* IP fragment with reassembly off (n_reasm 0:
				the kernel backend, which reassembles) */
	RC_DROP_PROTO,	     /* IP protocol we do not answer (TCP, ...) */
	RC_DROP_ICMP_OTHER,  /* ICMP that is not an echo request */
	RC_DROP_PORT,	     /* UDP to a port with nothing behind it */
	RC_DROP_PROBE,	     /* STAMP/sockperf payload too short or invalid */
	RC_SOCKPERF_NOREPLY, /* sockperf message that asked for no answer */
	RC_DROP_TX,	     /* answers the tx queue did not take */
	RC_DROP_NOMBUF,	     /* no mbuf for an ARP answer */
	RC_STATEFUL_FULL, /* stateful: session table full, answered stateless */
	RC_DROP_SOURCE,	  /* martian source: ours, 0/8, 127/8, subnet broadcast,
			     multicast, class E, group MAC */
	RC_DROP_LOOP_PORT, /* from a port that answers too (echo/chargen/...):
			      loop */
	RC_FRAGMENTS,	   /* IPv4 fragments taken into reassembly */
	RC_REASSEMBLED,	   /* datagrams reassembled from them */
	RC_DROP_REASM,	   /* datagrams given up: evicted, timed out, invalid */
	RC_DROP_LOW_PORT,  /* UDP source port below 1024 (no --allow-low-sport)
			    */
	RC_DROP_ACL,	   /* source outside every --allow prefix */
	RC_DROP_RATE,	   /* over the --rate-limit of its source address */
	RC_SESSION_EXPIRED, /* stateful: sessions aged out or evicted (LRU) */
	RC_DROP_AUTH, /* STAMP with a key: too short or HMAC does not verify */
	RC_ND,	      /* IPv6 Neighbor Solicitations answered */
	RC_DROP_ND,   /* NS/NA failing RFC 4861 7.1 (hop limit, sum, ...) */
	RC_DROP_UDP6_ZERO_CSUM, /* UDP over IPv6 without a checksum */
	RC_DROP_IPV6_EXT, /* IPv6 extension header we must not pass (routing
			     header with segments left, discard option) */
	RC_RX_L4_PARTIAL, /* requests whose L4 checksum was partial (the
			     pseudo-header sum a sender's tx offload leaves,
			     or the NIC's RX_L4_CKSUM_NONE): answered with a
			     complete one */

	/* Requests whose L4 checksum the NIC verified (RX_L4_CKSUM_GOOD):
	 * not checked again here. */
	RC_RX_L4_CSUM_NIC,
	/* Requests whose L4 checksum was verified here (no verdict from the
	 * NIC, UNKNOWN). */
	RC_RX_L4_CSUM_SW,
	RC__COUNT
};

const char *reflector_counter_name(enum reflector_counter c);

/* An IPv4 prefix of --allow, host order; mask 0 matches everything. */
struct reflector_prefix {
	uint32_t addr, mask;
};

#define REFLECTOR_MAX_ALLOW 64

/*
 * The STAMP Error Estimate of our answers (RFC 4656 §4.1.2): S clear (not
 * synchronised to UTC), NTP format, multiplier 1, scale 12: 2^(12-32) s,
 * about 1 us.
 */
#define REFLECTOR_ERROR_ESTIMATE ((uint16_t)(12u << 8 | 1u))

struct reflector_conf {
	uint32_t addr;	       /* our IPv4 address, host order; 0 = no IPv4 */
	struct codec_ip addr6; /* our IPv6 address (family 0: no IPv6); NS
				  for it and for our EUI-64 link-local
				  address are answered */
	uint8_t prefix_len;    /* of --addr: its subnet broadcast is refused;
				  0 = unknown */
	struct codec_mac mac;
	uint16_t stamp_port;	/* 0 = off */
	uint16_t sockperf_port; /* 0 = off */
	uint16_t echo_port;	/* 0 = off */
	bool stateful;
	struct tsc_clock clock;
	struct tsc_anchor anchor; /* TSC -> wall clock for STAMP timestamps */
	uint16_t error_estimate;  /* ours, in STAMP answers */
	/* When set, the TSC -> UTC mapping and Error Estimate of our STAMP
	 * timestamps are taken from this feed whenever it changes (looked at
	 * after each burst; app/ re-samples it): anchor, clock and
	 * error_estimate above are the start's. */
	const struct clock_feed *utc_feed;
	unsigned
		n_reasm; /* datagrams reassembled at once; 0 = drop fragments */
	uint64_t
		reasm_timeout_ns; /* give a datagram up after this; 0 = never */
	bool allow_low_sport;	  /* answer UDP source ports below 1024 */
	struct reflector_prefix allow[REFLECTOR_MAX_ALLOW]; /* --allow */
	unsigned n_allow;	 /* 0 = every (non-martian) source */
	uint32_t rate_limit_pps; /* per source address; 0 = no limit */
	uint32_t session_idle_s; /* stateful: a session ends after this idle
				    time; 0 = never */
	/* STAMP authenticated mode (RFC 8762 §4.4) when auth_key_len > 0:
	 * only authenticated requests that verify are answered. */
	const uint8_t *auth_key;
	size_t auth_key_len;
	/* --hw-timestamps: T2 from the queue's NIC rx timestamps
	 * (io_rx_nic_ts) mapped onto the TSC; the NIC clock read when the
	 * worker is idle or after a burst is sent: hw_calib_cycles apart at
	 * first, then every hw_resample_cycles. reflector_hwts.c. */
	bool hw_ts;
	uint64_t hw_calib_cycles;
	uint64_t hw_resample_cycles;
	/* Tests: every frame takes the generic path (no STAMP fast path), so
	 * the two can be compared. */
	bool no_fast_path;
	/* --stall-threshold: a gap of the poll loop above it is
	 * a stall (stall.h); 0 = not watched. */
	uint64_t stall_threshold_ns;
	/* reflector_calibrate()'s span (prober_conf's stall_calib_ns). */
	uint64_t stall_calib_ns;
};

/* --hw-timestamps counters (single writer: the worker). */
/*
 * The defaults every caller starts from (then sets addr, mac, clock,
 * anchor): STAMP 862, sockperf 11111, UDP echo 7, stateless, 4 datagrams
 * reassembled at once for at most 1 s each, REFLECTOR_ERROR_ESTIMATE,
 * sessions idle for 300 s end, no ACL, no rate limit.
 */
void reflector_conf_default(struct reflector_conf *c);

#define REFLECTOR_MAX_REASM 8

#define REFLECTOR_SESSIONS	  4096 /* stateful sessions kept (LRU) */
#define REFLECTOR_RATE_SOURCES	  4096 /* source addresses rate-limited (LRU) */
/* Burst of the per-source token bucket: max(PPS / 10, 16) requests. */
#define REFLECTOR_RATE_BURST(pps) ((pps) / 10 > 16 ? (pps) / 10 : 16)

struct lru;

/* What reflector_poll() does on an empty poll (reflector_worker_init()). */
enum reflector_idle {
	REFLECTOR_IDLE_NONE,	 /* nothing: stalls not watched */
	REFLECTOR_IDLE_TICK_TSC, /* the stall detector's reads, TSC inline */
	REFLECTOR_IDLE_TICK,	 /* the same through the queue's clock op */
	REFLECTOR_IDLE_REST,	 /* poll_rest() (--hw-timestamps) */
};

struct reflector_worker {
	const struct reflector_conf *conf;
	struct io_queue *q;
	struct rte_mbuf *rx[REFLECTOR_BURST]; /* reflector_poll()'s burst */
	uint64_t counters[RC__COUNT];	      /* single writer: this worker */
	struct histogram turnaround;	      /* T3 - T2 of STAMP answers, ns */
	struct lru *sessions;		      /* stateful only */
	unsigned n_sessions;		      /* live sessions */
	struct lru *rate;		      /* --rate-limit only */
	uint64_t reasm_timeout_cycles;
	uint64_t session_idle_cycles;
	uint64_t rate_interval;	 /* cycles per request at the limit */
	uint64_t rate_tolerance; /* cycles of burst */
	struct codec_reasm *reasm[REFLECTOR_MAX_REASM];
	struct stamp_auth *auth; /* HMAC context when conf has a key */
	/* --hw-timestamps: TSC T2 - NIC T2 of each stamped burst, ns */
	struct histogram hw_rx_delay;
	struct nic_ts_stats hw; /* per burst */
	struct nic_clock nic;
	uint64_t hw_last_sample;
	uint8_t ll6[16];   /* our link-local address (EUI-64 of mac) */
	uint32_t frag_id6; /* Fragment header id of our next answer */
	/* The STAMP fast path (reflector.c, stamp_fast()): allowed by the
	 * configuration at init (not no_fast_path, stateless, no key, no
	 * rate limit), and its answers, also counted in answered.stamp (for
	 * tests, not a counter). */
	bool fast_ok;
	uint64_t fast_answers;
	/* Per-burst constants of the fast path, in wire order (from conf
	 * at init: addr, stamp_port, error_estimate). */
	uint32_t fast_addr_be;
	uint16_t fast_port_be;
	uint16_t fast_ee_be;
	/* source_check4() of the fast path: the subnet broadcast of our
	 * address (0: none), and our address and 127 (0 and 0x100 when our
	 * address is loopback, which answers both) */
	uint32_t fast_bcast;
	uint32_t fast_self;
	uint32_t fast_lo_net;
	/* our MAC, and the UDP header's bytes 2-5 (our STAMP port, the
	 * length), as 8 bytes loaded from the frame show them (masked) */
	uint64_t fast_mac64;
	uint64_t fast_udp;
	/* T2 and T3 straight from the TSC (conf's clock and anchor at
	 * init), when our Error Estimate says NTP; else through ns. */
	bool ntp_direct;
	bool fast_one; /* fast_ok and ntp_direct: one-frame bursts in line */
	/* The frame in hand asks for its answer's L4 checksum to be left
	 * to the NIC (RX_L4_CKSUM_NONE on a queue with IO_TX_*_CKSUM):
	 * tx_l4_pseudo is the field's value then. Per frame. */
	bool tx_l4_offload;
	uint16_t tx_l4_pseudo;
	struct stamp_ntp_clock ntp;
	/* The mapping and Error Estimate in use (conf's, then utc_feed's
	 * generation feed_gen). */
	struct clock_map map;
	uint16_t ee;
	uint32_t feed_gen;
	/* The poll loop's stalls (stall.h; threshold
	 * conf->stall_threshold_ns), and per frame the offset of the stall
	 * TLV's value in the STAMP answer being made (0: none). */
	struct stall_det stall;
	bool stall_watch; /* stall_on(): empty polls read the clock */
	uint8_t idle;	  /* what an empty poll does: REFLECTOR_IDLE_* */
	uint16_t lp_off;
};

/* reflector_hwts.c: the --hw-timestamps hooks of the worker. */
void reflector_hw_init(struct reflector_worker *w);
uint64_t reflector_hw_t2(struct reflector_worker *w, struct rte_mbuf **rx,
			 uint16_t n, uint64_t t2);
void reflector_hw_after(struct reflector_worker *w);
/* The worker stopped, its device replaced (a re-attach): the new
 * one is a new NIC clock, matched again from scratch (the counts and
 * hw_rx_delay stay). */
void reflector_hw_rebase(struct reflector_worker *w);

/*
 * 0, or -ENOMEM (session/rate tables, reassembly buffers), -EINVAL (also a
 * bad key length), -EIO (libcrypto). The tables' hashes get a random seed
 * (getrandom, else the TSC). The worker keeps conf; its addr, stamp_port,
 * error_estimate, clock and anchor are read here for the STAMP fast path and
 * T2/T3 (a change to them needs a new init).
 */
int reflector_worker_init(struct reflector_worker *w,
			  const struct reflector_conf *conf,
			  struct io_queue *q);
void reflector_worker_fini(struct reflector_worker *w);

/* One rx burst handled; returns the number of frames received. */
unsigned reflector_poll(struct reflector_worker *w);

/*
 * Answer a burst another rx path received (e.g. an in-process loopback
 * reflector on the prober's port); t2 is the TSC right after that rx.
 * Takes ownership of every mbuf.
 */
void reflector_handle(struct reflector_worker *w, struct rte_mbuf **pkts,
		      uint16_t n, uint64_t t2);

/* Poll until *stop is set. */
void reflector_run(struct reflector_worker *w, const atomic_bool *stop);
/* reflector_run()'s first step: poll the queue to measure the loop's own
 * gaps and set the stall threshold from them (stall_calibrate()); nothing
 * when stalls are not watched or the calibration is done. */
void reflector_calibrate(struct reflector_worker *w, const atomic_bool *stop);

/* Relaxed read of a counter from another thread. */
static inline uint64_t
reflector_counter_read(const struct reflector_worker *w,
		       enum reflector_counter c)
{
	return util_relaxed_read(&w->counters[c]);
}

#endif /* LATPROBE_REFLECTOR_H */
