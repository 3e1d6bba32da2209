/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_REFLECTOR_H
#define LATPROBE_REFLECTOR_H

/*
 * The reflector engine: answers ARP for its address, ICMP echo, STAMP
 * (stateless or stateful), sockperf and UDP echo, on one io_queue per
 * worker lcore. Everything else is counted by reason and dropped.
 */

#include <stdbool.h>
#include <stdint.h>

#include "codec.h"
#include "frag.h"
#include "frag.h"
#include "histogram.h"
#include "io.h"
#include "timing.h"

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
	RC_DROP_L4_CSUM,     /* bad UDP/ICMP checksum */
	RC_DROP_FRAGMENT,    /* IPv4 fragment (no reassembly yet) */
	RC_DROP_PROTO,	     /* IP protocol we do not answer (TCP, ...) */
	RC_DROP_ICMP_OTHER,  /* ICMP that is not an echo request */
	RC_DROP_PORT,	     /* UDP to a port with nothing behind it */
	RC_DROP_PROBE,	     /* STAMP/sockperf payload too short or invalid */
	RC_SOCKPERF_NOREPLY, /* sockperf message that asked for no answer */
	RC_DROP_TX,	     /* answers the tx queue did not take */
	RC_DROP_NOMBUF,	     /* no mbuf for an ARP answer */
	RC_STATEFUL_FULL, /* stateful: session table full, answered stateless */
	RC_DROP_SOURCE, /* multicast/broadcast source: answering would flood */
	RC_DROP_LOOP_PORT, /* from a port that answers too (echo/chargen/...):
			      loop */
	RC_FRAGMENTS,	   /* IPv4 fragments taken into reassembly */
	RC_REASSEMBLED,	   /* datagrams reassembled from them */
	RC_DROP_REASM,	   /* datagrams given up: evicted, timed out, invalid */
	RC_DROP_AUTH, /* STAMP with a key: too short or HMAC does not verify */
	RC__COUNT
};

const char *reflector_counter_name(enum reflector_counter c);

struct reflector_conf {
	uint32_t addr; /* our IPv4 address, host order */
	struct codec_mac mac;
	uint16_t stamp_port;	/* 0 = off */
	uint16_t sockperf_port; /* 0 = off */
	uint16_t echo_port;	/* 0 = off */
	bool stateful;
	bool verify_l4_csum;
	struct tsc_clock clock;
	struct tsc_anchor anchor; /* TSC -> wall clock for STAMP timestamps */
	uint16_t error_estimate;  /* ours, in STAMP answers */
	unsigned
		n_reasm; /* datagrams reassembled at once; 0 = drop fragments */
	uint64_t reasm_timeout_cycles; /* give a datagram up after this */
	/* STAMP authenticated mode (RFC 8762 §4.4) when auth_key_len > 0:
	 * only authenticated requests that verify are answered. */
	const uint8_t *auth_key;
	size_t auth_key_len;
};

#define REFLECTOR_MAX_REASM 8

#define REFLECTOR_SESSIONS 4096 /* power of two */

struct reflector_session {
	uint32_t src_addr;
	uint16_t src_port, dst_port;
	uint16_t ssid;
	bool used;
	uint32_t next_seq;
};

struct reflector_worker {
	const struct reflector_conf *conf;
	struct io_queue *q;
	uint64_t counters[RC__COUNT];	    /* single writer: this worker */
	struct histogram turnaround;	    /* T3 - T2 of STAMP answers, ns */
	struct reflector_session *sessions; /* stateful only */
	unsigned n_sessions;
	struct codec_reasm *reasm[REFLECTOR_MAX_REASM];
	bool reasm_busy[REFLECTOR_MAX_REASM]; /* answer pending in this burst */
	struct stamp_auth *auth; /* HMAC context when conf has a key */
};

/* 0, or -ENOMEM (stateful table, reassembly buffers), -EINVAL (also a bad
 * key length), -EIO (libcrypto). */
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
void reflector_run(struct reflector_worker *w, const volatile bool *stop);

/* Relaxed read of a counter from another thread. */
static inline uint64_t
reflector_counter_read(const struct reflector_worker *w,
		       enum reflector_counter c)
{
	return __atomic_load_n(&w->counters[c], __ATOMIC_RELAXED);
}

#endif /* LATPROBE_REFLECTOR_H */
