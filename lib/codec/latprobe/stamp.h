/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_STAMP_H
#define LATPROBE_STAMP_H

/*
 * STAMP, RFC 8762 (unauthenticated mode), with RFC 8972 extensions
 * (Session-Sender Identifier, TLVs). Works on the UDP payload only.
 *
 * Session-Sender test packet (RFC 8762 §4.2.1, RFC 8972 §3):
 *   0 seq(4) | 4 timestamp(8) | 12 error estimate(2) | 14 SSID(2) | 16 MBZ(28)
 *   | 44 TLVs...
 * Session-Reflector test packet (RFC 8762 §4.3.1):
 *   0 seq(4) | 4 timestamp T3(8) | 12 error estimate(2) | 14 SSID(2)
 *   | 16 receive timestamp T2(8) | 24 sender seq(4) | 28 sender timestamp(8)
 *   | 36 sender error estimate(2) | 38 MBZ(2) | 40 sender TTL(1) | 41 MBZ(3)
 *   | 44 TLVs...
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STAMP_PORT     862
#define STAMP_BASE_LEN 44

/* Error Estimate (RFC 4656 §4.1.2, Z bit from RFC 8762 §4.2.1). */
#define STAMP_EE_S 0x8000 /* clock synchronised to UTC */
#define STAMP_EE_Z 0x4000 /* timestamp is truncated PTPv2, not NTP */

struct stamp_error_estimate {
	bool sync;
	bool ptp;	    /* Z bit */
	uint8_t scale;	    /* 6 bits */
	uint8_t multiplier; /* 8 bits, non-zero in a valid estimate */
};

/* Fields out of range are masked (scale to 6 bits). */
uint16_t stamp_ee_encode(const struct stamp_error_estimate *ee);
void stamp_ee_decode(uint16_t v, struct stamp_error_estimate *ee);
/* The estimate in ns: multiplier * 2^(scale - 32) s. */
double stamp_ee_to_ns(const struct stamp_error_estimate *ee);
/*
 * The estimate for an error of ns nanoseconds: the smallest scale whose
 * multiplier (rounded up, 1 to 255) holds it, so stamp_ee_to_ns() of the
 * result is never below ns, and above it by less than one 2^-32 s step
 * (0.23 ns) up to 59 ns, by at most 1/128 beyond (multiplier >= 128);
 * 0, negative or NaN give multiplier 1, scale 0. sync and ptp are copied.
 */
void stamp_ee_from_ns(double ns, bool sync, bool ptp,
		      struct stamp_error_estimate *ee);
/*
 * An error that cannot be bounded (a clock whose mapping is no longer
 * re-sampled, a time source that gives no error figure). RFC 4656 §4.1.2
 * (which RFC 8762 §4.2.1 takes over) has no code for "unknown": a zero
 * multiplier is forbidden, and a receiver SHOULD discard such a packet as
 * corrupt. The rule followed here: say the largest error the field can
 * hold, scale 63 and multiplier 255 (255 x 2^31 s, some 17,000 years),
 * which bounds nothing a receiver measures; S is set only when the clock
 * is synchronised to UTC by an external source, as RFC 4656 has it.
 */
void stamp_ee_unknown(bool sync, bool ptp, struct stamp_error_estimate *ee);
/* True for an estimate of 2^64 ns (584 years) or more: stamp_ee_unknown()'s,
 * or any other too large to bound a delay (nor to fit a uint64_t in ns). */
bool stamp_ee_is_unknown(const struct stamp_error_estimate *ee);

/*
 * 64-bit timestamps as they go on the wire (host-order integers here,
 * big-endian on the wire). NTP: seconds since 1900 << 32 | 2^-32 s fraction.
 * PTP (truncated PTPv2): seconds since 1970 << 32 | nanoseconds.
 * Both take and give ns since 1970 (CLOCK_REALTIME).
 */
/* Seconds from 1900-01-01 (NTP era 0) to 1970-01-01. */
#define STAMP_NTP_UNIX_OFFSET 2208988800ULL
#define STAMP_NS_PER_S	      1000000000ULL
/*
 * NTP seconds are 32 bits: values below STAMP_NTP_UNIX_OFFSET are read as
 * era 1 (after 2036-02-07), so stamp_ntp_to_ns() is right until 2104.
 * PTP seconds are truncated to 32 bits (right until 2106). The NTP ones
 * are inline: the prober converts two to three timestamps per probe (the
 * divisions by constants are multiplications).
 */
static inline uint64_t
stamp_ntp_from_ns(uint64_t unix_ns)
{
	uint64_t sec = unix_ns / STAMP_NS_PER_S + STAMP_NTP_UNIX_OFFSET;
	uint64_t rem = unix_ns % STAMP_NS_PER_S;
	/* Nearest 2^-32 s; rem < 1e9 keeps this below 2^32 (no carry). */
	uint64_t frac = ((rem << 32) + STAMP_NS_PER_S / 2) / STAMP_NS_PER_S;

	return (sec & 0xffffffffULL) << 32 | frac;
}

static inline uint64_t
stamp_ntp_to_ns(uint64_t ntp)
{
	uint64_t sec = ntp >> 32;
	uint64_t frac = ntp & 0xffffffffULL;

	/* Era 1 starts in 2036; before 1970 cannot be meant (RFC 5905 §6). */
	if (sec < STAMP_NTP_UNIX_OFFSET)
		sec += 1ULL << 32;
	return (sec - STAMP_NTP_UNIX_OFFSET) * STAMP_NS_PER_S +
	       ((frac * STAMP_NS_PER_S + (1ULL << 31)) >> 32);
}

uint64_t stamp_ptp_from_ns(uint64_t unix_ns);
uint64_t stamp_ptp_to_ns(uint64_t ptp);

/* Either format, chosen by the Z bit of the error estimate that goes with it.
 */
uint64_t stamp_ts_from_ns(uint64_t unix_ns, uint16_t error_estimate);

static inline uint64_t
stamp_ts_to_ns(uint64_t ts, uint16_t error_estimate)
{
	if (error_estimate & STAMP_EE_Z)
		return stamp_ptp_to_ns(ts);
	return stamp_ntp_to_ns(ts);
}

/*
 * A TSC reading straight to an NTP timestamp: the anchor's NTP time plus
 * the cycles since, times 2^32 / hz in fixed point: (cycles << pre) * mult
 * / 2^64, one shift and one 64x64->128 multiply whose high half is the
 * result (no division; the reflector's T2 and T3). Within 1 ns of
 * stamp_ntp_from_ns() of the same instant converted through ns, for
 * readings less than 2^31 s x 2^floor(log2 hz) / hz (34 years or more) from
 * the anchor.
 */
__extension__ typedef unsigned __int128 stamp_u128;

struct stamp_ntp_clock {
	uint64_t tsc0; /* the anchor's TSC reading */
	uint64_t ntp0; /* and its NTP timestamp */
	uint64_t mult; /* 2^(96 - pre) / hz, in [2^62, 2^63] */
	unsigned pre;  /* 1 to 13 */
};

/* 0, or -EINVAL when hz is below 1 MHz or not below 2^33 (8.6 GHz). */
int stamp_ntp_clock_init(struct stamp_ntp_clock *k, uint64_t tsc0,
			 uint64_t unix_ns0, uint64_t hz);

static inline uint64_t
stamp_ntp_from_tsc(const struct stamp_ntp_clock *k, uint64_t tsc)
{
	/* NTP seconds wrap with the era: modulo 2^64 is right. */
	if (tsc >= k->tsc0)
		return k->ntp0 +
		       (uint64_t)(((stamp_u128)((tsc - k->tsc0) << k->pre) *
				   k->mult) >>
				  64);
	return k->ntp0 -
	       (uint64_t)(((stamp_u128)((k->tsc0 - tsc) << k->pre) * k->mult) >>
			  64);
}

/* RFC 8972 §4 TLV flags and types. */
#define STAMP_TLV_U		       0x80 /* unrecognised */
#define STAMP_TLV_M		       0x40 /* malformed */
#define STAMP_TLV_I		       0x20 /* integrity failed */
#define STAMP_TLV_EXTRA_PADDING	       1
#define STAMP_TLV_LOCATION	       2
#define STAMP_TLV_TIMESTAMP_INFO       3
#define STAMP_TLV_CLASS_OF_SERVICE     4
#define STAMP_TLV_HDR_LEN	       4
/* Value lengths fixed by RFC 8972 §4.3 and §4.4. */
#define STAMP_TLV_TIMESTAMP_INFO_LEN   4
#define STAMP_TLV_CLASS_OF_SERVICE_LEN 4
/*
 * latprobe's stall TLV, a type from the Experimental Use range
 * of IANA's STAMP TLV Types registry (RFC 8972 §5.1: 240-251). The sender
 * puts it in a request with its value zero; a latprobe reflector fills
 * it in, any other reflector answers it with the U flag (RFC 8972 §4).
 * Value (16 bytes, big-endian):
 *   0     flags: STAMP_STALL_BEFORE_T2 (a stall of the reflector's worker
 *         ended at this request's T2: it may have waited in the rx ring),
 *         STAMP_STALL_IN_TURNAROUND (a stall between T2 and T3)
 *   1     STAMP_LP_STALLS_FILLED: a latprobe reflector filled it in (the
 *         sender sends 0; a reflector that echoes unknown TLVs as they
 *         came, without the U flag, leaves 0 there)
 *   2-3   the reflector worker's number + 1 (0: not said): the counts
 *         below are that worker's, so that answers of several workers
 *         (flows that RSS spreads) are not mixed up or counted twice
 *   4-7   the longest of those stalls, ns (saturates at 2^32 - 1)
 *   8-11  the reflector worker's stalls so far (wraps: the sender
 *         accumulates the differences modulo 2^32)
 *   12-15 their total, us (wraps likewise)
 */
#define STAMP_TLV_LP_STALLS	       242
#define STAMP_TLV_LP_STALLS_LEN	       16
#define STAMP_STALL_BEFORE_T2	       0x80
#define STAMP_STALL_IN_TURNAROUND      0x40
#define STAMP_LP_STALLS_FILLED	       1
/* Timestamp Information TLV code points (RFC 8972 §4.3, IANA). */
#define STAMP_SYNC_NTP		       1
#define STAMP_SYNC_PTP		       2
#define STAMP_TS_METHOD_HW	       1 /* hardware assist */
#define STAMP_TS_METHOD_SW	       2 /* software local */
#define STAMP_TS_METHOD_CP	       3 /* control plane */

struct stamp_tlv {
	uint8_t flags;
	uint8_t type;
	uint16_t length; /* of value */
	const uint8_t *value;
};

/*
 * TLV walk: *off starts at STAMP_BASE_LEN. Returns 1 and fills *tlv (and
 * advances *off) while a whole TLV is there, 0 at the clean end, -EINVAL
 * when a TLV header or value runs past len (malformed).
 */
int stamp_tlv_next(const uint8_t *p, size_t len, size_t *off,
		   struct stamp_tlv *tlv);

/* Session-Sender packet, parsed. Fields beyond len read as zero. */
struct stamp_sender {
	uint32_t seq;
	uint64_t timestamp;
	uint16_t error_estimate;
	uint16_t ssid;
	size_t len;	/* bytes present (may be < 44: TWAMP-Light) */
	size_t tlv_off; /* STAMP_BASE_LEN, or len when there are no TLVs */
	/* RFC 8762-shaped: 44 bytes or more, bytes 16-43 (MBZ) not random
	 * (at most 14 of them non-zero). Otherwise an RFC 5357 TWAMP-Light
	 * packet, whose bytes from 14 on are padding: ssid and TLVs there
	 * mean nothing. */
	bool stamp;
};

/* 0, or -EINVAL when len < 4 (not even a sequence number). */
int stamp_sender_parse(const uint8_t *p, size_t len, struct stamp_sender *s);

struct stamp_sender_opts {
	uint32_t seq;
	uint64_t timestamp;
	uint16_t error_estimate;
	uint16_t ssid;
	/* RFC 8972 TLVs to append after the base packet (0 = none) */
	bool tlv_timestamp_info;
	bool tlv_class_of_service;
	uint8_t cos_dscp;   /* DSCP1 asked for the reflected packet */
	bool tlv_lp_stalls; /* STAMP_TLV_LP_STALLS, value zero */
	/* Total payload length; >= 44. Extra bytes beyond the base + TLVs
	 * are carried in an Extra Padding TLV when it fits (>= 4 bytes),
	 * else as zero bytes. */
	size_t len;
};

/* Build a Session-Sender packet of exactly opts->len bytes; returns len or
 * -errno. */
int stamp_sender_build(uint8_t *p, size_t cap,
		       const struct stamp_sender_opts *o);

/* Rewrite just the sequence number and timestamp of a built sender packet
 * (p holds at least 12 bytes). */
void stamp_sender_stamp(uint8_t *p, uint32_t seq, uint64_t timestamp);

/*
 * DSCP1 of the first well-formed Class of Service TLV of a Session-Sender
 * packet (the DSCP the sender asks for in the reflected packet), or -ENOENT.
 */
int stamp_sender_cos_dscp(const uint8_t *p, size_t len);

/* Session-Reflector packet, parsed. Fields beyond len read as zero. */
struct stamp_reflector {
	uint32_t seq;
	uint64_t timestamp; /* T3 */
	uint16_t error_estimate;
	uint16_t ssid;
	uint64_t rx_timestamp; /* T2 */
	uint32_t sender_seq;
	uint64_t sender_timestamp; /* T1 echoed */
	uint16_t sender_error_estimate;
	uint8_t sender_ttl;
	size_t len;
	size_t tlv_off;
};

/* 0, or -EINVAL when len < 4. */
int stamp_reflector_parse(const uint8_t *p, size_t len,
			  struct stamp_reflector *r);

/*
 * What a prober needs from any reflector's answer, whatever its length and
 * padding: RFC 5357 §4.2.1 (TWAMP-Light, 41 bytes and up, MBZ where STAMP
 * has the SSID) and RFC 8762 §4.3.1 lay the first 41 bytes out alike, so an
 * answer that reaches through the Session-Sender Sequence Number (28 bytes)
 * carries T3, the Error Estimate and T2 as well. Stateful reflectors and
 * TWAMP-Light reflectors number their answers themselves (seq): the match is
 * on sender_seq.
 */
#define STAMP_ANSWER_MIN_LEN 28

struct stamp_answer {
	uint32_t seq;		 /* the reflector's own sequence number */
	uint32_t sender_seq;	 /* ours, echoed */
	uint16_t error_estimate; /* the reflector's (S, Z, scale, mult.) */
	/* T2 and T3 in ns since 1970, read as NTP or PTP per the Z bit of
	 * error_estimate (both fit in any answer that holds sender_seq). */
	uint64_t t2_ns, t3_ns;
};

/* 0, or -EINVAL when len < STAMP_ANSWER_MIN_LEN (no sender sequence). */
int stamp_answer_parse(const uint8_t *p, size_t len, struct stamp_answer *a);

struct stamp_reflect_opts {
	uint32_t seq; /* stateless: the sender's; stateful: own counter */
	uint64_t rx_timestamp;	 /* T2, wire format */
	uint16_t error_estimate; /* the reflector's */
	uint8_t sender_ttl;	 /* TTL / hop limit of the received packet */
	uint8_t rx_tos;		 /* for the Class of Service TLV (DSCP2, ECN) */
	uint8_t sync_src;	 /* Timestamp Information TLV: sync source */
	uint8_t ts_method;	 /* Timestamp Information TLV: method */
	uint8_t cos_rp;		 /* Class of Service TLV RP: 0 = DSCP1 used,
				  * 1 = not used (local policy) */
	/* STAMP_TLV_LP_STALLS filled in (a latprobe reflector); false: it
	 * is answered with U, as by a reflector that does not know it. */
	bool lp_stalls;
	uint8_t stall_flags;   /* STAMP_STALL_* */
	uint16_t stall_worker; /* the worker's number + 1 */
	uint32_t stall_ns, stall_count, stall_total_us;
};

/* A STAMP_TLV_LP_STALLS value, read from an answer. */
struct stamp_lp_stalls {
	uint8_t flags;	 /* STAMP_STALL_* */
	uint16_t worker; /* the reflector worker's number + 1; 0 not said */
	uint32_t stall_ns, stall_count, stall_total_us;
};

/*
 * The first STAMP_TLV_LP_STALLS TLV of a Session-Reflector packet p (len
 * bytes; TLVs from STAMP_BASE_LEN): 1 and *out when a latprobe reflector
 * filled it in, 0 when there is none, -ENOTSUP when the reflector flagged
 * it U or M or echoed it unfilled (it does not know it), -EINVAL when the
 * TLVs before it are malformed.
 */
int stamp_lp_stalls_find(const uint8_t *p, size_t len,
			 struct stamp_lp_stalls *out);

/*
 * Turn a Session-Sender packet into a Session-Reflector packet in place,
 * keeping its length (never longer than the request: no amplification;
 * fields that do not fit a short TWAMP-Light packet are left out). TLVs are
 * answered per RFC 8972: Extra Padding echoed, Timestamp Information and
 * Class of Service filled in, unknown types (and Location, which needs the
 * IP headers) echoed with U set, the first malformed TLV (runs past len, or
 * a length wrong for its type) flagged with M and it and the rest left as
 * received. An all-zero tail is TWAMP-Light padding and is left alone.
 * T3 holds T2 until stamp_reflector_stamp() writes the transmit time.
 * Returns the length, or -EINVAL (len < 4 or len > 65535).
 */
int stamp_reflect(uint8_t *p, size_t len, const struct stamp_reflect_opts *o);

/* Write T3 (wire format) as late as possible before transmit; only when the
 * packet holds the whole field (len >= 12). */
void stamp_reflector_stamp(uint8_t *p, size_t len, uint64_t tx_timestamp);

#endif /* LATPROBE_STAMP_H */
