/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_TIMING_H
#define LATPROBE_TIMING_H

/*
 * TSC clock: ordered and plain reads, own calibration against
 * CLOCK_MONOTONIC_RAW, fixed-point cycles <-> ns, invariant-TSC checks.
 * No EAL call: the caller passes rte_get_tsc_hz() in when it wants the ppm
 * comparison.
 */

#include <stdbool.h>
#include <stdint.h>

/* Plain read: where ordering against nearby loads/stores does not matter. */
static inline uint64_t
tsc_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Read before the measured section (e.g. right before tx): lfence keeps
 * earlier instructions from being still in flight when the TSC is read.
 */
static inline uint64_t
tsc_read_start(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Read after the measured section (e.g. right after rx): the leading lfence
 * waits for earlier instructions, the trailing one keeps later ones from
 * starting before the read. Not rdtscp: some hypervisors hide its CPUID bit
 * (seen on this project's KVM machines), and lfence;rdtsc;lfence orders the
 * same way on every x86-64 CPU at about the same cost.
 */
static inline uint64_t
tsc_read_end(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence"
			 : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * cycles -> ns as (cycles * mult) >> shift in 128 bits, and ns -> cycles as
 * (ns * ns_mult) >> ns_shift. Each shift is the largest that keeps its mult
 * in 64 bits, so the fixed-point error is ~1e-19 relative and a conversion
 * is exact to < 1 ppm (plus < 1 unit of truncation) for any span whose
 * result fits in 64 bits (584 years of ns).
 */
__extension__ typedef unsigned __int128 tsc_u128;

struct tsc_clock {
	uint64_t hz;   /* cycles per second in use */
	uint64_t mult; /* ns per cycle, fixed point */
	unsigned shift;
	/* >> shift as (<< pre) * mult, the high 64 bits >> post: no variable
	 * 128-bit shift (tsc_to_ns()) */
	unsigned pre, post;
	uint64_t ns_mult; /* cycles per ns, fixed point (ns -> cycles) */
	unsigned ns_shift;
};

/* Build a clock for hz; -EINVAL when hz is 0 or absurd (< 1 MHz, > 100 GHz). */
int tsc_clock_init(struct tsc_clock *c, uint64_t hz);

/*
 * Delta in cycles to ns; exact to < 1 ppm while the result fits in 64 bits.
 * (cycles * mult) >> shift, the same bits, as ((cycles << pre) * mult) >>
 * 64 >> post: one multiply and two constant-width shifts. pre is 0 from
 * 1 GHz up and 10 at 1 MHz, so cycles << pre loses nothing below 2^54
 * cycles (centuries at any rate).
 */
static inline uint64_t
tsc_to_ns(const struct tsc_clock *c, uint64_t cycles)
{
	return (uint64_t)(((tsc_u128)(cycles << c->pre) * c->mult) >> 64) >>
	       c->post;
}

static inline uint64_t
tsc_from_ns(const struct tsc_clock *c, uint64_t ns)
{
	return (uint64_t)(((tsc_u128)ns * c->ns_mult) >> c->ns_shift);
}

struct tsc_calibration {
	uint64_t hz;		 /* measured */
	uint64_t window_ns;	 /* CLOCK_MONOTONIC_RAW span actually used */
	uint64_t reference_hz;	 /* what the caller compared with (0 = none) */
	double ppm_vs_reference; /* (reference - measured) / measured * 1e6 */
	double spread_ppm; /* max-min over the sub-windows, a noise figure */
};

/*
 * Measure the TSC rate against CLOCK_MONOTONIC_RAW over window_ns (0 means
 * 1 s). reference_hz (e.g. rte_get_tsc_hz(), may be 0) is compared with the
 * result. Sleeps (does not spin) between the sub-window endpoints. Returns
 * 0, -EINVAL (window_ns below 1 ms, out NULL) or -errno of clock_gettime.
 */
int tsc_calibrate(uint64_t window_ns, uint64_t reference_hz,
		  struct tsc_calibration *out);

struct tsc_invariance {
	bool cpuid_invariant; /* CPUID.80000007H:EDX[8] */
	bool constant_tsc;    /* /proc/cpuinfo flags */
	bool nonstop_tsc;
	bool tsc_reliable;
	bool rdtscp;	/* CPUID.80000001H:EDX[27] */
	bool invariant; /* what reports call "invariant": cpuid_invariant ||
			   (constant && nonstop) */
	char clocksource[32]; /* /sys/.../current_clocksource, "" if unknown */
};

/* Fill *out; cannot fail (unknown facts read as false / ""). */
void tsc_check_invariance(struct tsc_invariance *out);

struct tsc_read_cost {
	double plain_cycles; /* rdtsc */
	double start_cycles; /* lfence; rdtsc */
	double end_cycles;   /* lfence; rdtsc; lfence */
};

/* Median cost of each read flavour over many back-to-back reads. */
void tsc_measure_read_cost(struct tsc_read_cost *out);

/*
 * Wall clock anchor for turning TSC readings into absolute time (for STAMP
 * NTP timestamps, pcapng): realtime_ns at tsc.
 */
struct tsc_anchor {
	uint64_t tsc;
	uint64_t realtime_ns; /* CLOCK_REALTIME, ns since 1970 */
};

void tsc_anchor_now(struct tsc_anchor *a);

/* Absolute ns since 1970 of a TSC reading (may precede the anchor). */
static inline uint64_t
tsc_anchor_to_realtime_ns(const struct tsc_anchor *a, const struct tsc_clock *c,
			  uint64_t tsc)
{
	if (tsc >= a->tsc)
		return a->realtime_ns + tsc_to_ns(c, tsc - a->tsc);
	return a->realtime_ns - tsc_to_ns(c, a->tsc - tsc);
}

#endif /* LATPROBE_TIMING_H */
