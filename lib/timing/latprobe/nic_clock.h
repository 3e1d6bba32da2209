/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_NIC_CLOCK_H
#define LATPROBE_NIC_CLOCK_H

/*
 * A NIC's clock (the ticks of its rx timestamps, rte_eth_read_clock) mapped
 * onto the TSC: pairs (tsc, nic) read together give the rate (TSC cycles
 * per NIC tick, over the span between the two latest pairs) and the offset
 * (the latest pair is the anchor). Re-sampling during a run follows the
 * drift of either clock. No EAL call: the reads are callbacks, so the test
 * fake supplies a skewed, offset clock.
 */

#include <stdbool.h>
#include <stdint.h>

/* --hw-timestamps counters of one worker (single writer). */
struct nic_ts_stats {
	uint64_t stamped;     /* frames timed by the NIC */
	uint64_t unstamped;   /* frames without a NIC time (or before the NIC
				 clock was calibrated): TSC times kept */
	uint64_t outside;     /* NIC time outside the TSC's window ([T1, T4],
				 or after T2): a conversion error, not used */
	uint64_t samples;     /* NIC clock reads paired with the TSC */
	uint64_t sample_fail; /* reads that failed or went backwards */
};

struct nic_clock {
	uint64_t tsc0, nic0;	     /* the anchor: the latest pair */
	uint64_t tsc_prev, nic_prev; /* the pair before */
	double tsc_per_tick;	     /* 0 until two pairs */
	unsigned n_pairs;
	uint64_t best_gap; /* TSC cycles around the latest NIC read */
};

void nic_clock_reset(struct nic_clock *c);

/*
 * Add a pair: the NIC read between TSC reads tsc_before and tsc_after is
 * taken at their midpoint. 0, or -EINVAL when a clock did not move forward
 * since the anchor (tsc_after < tsc_before too).
 */
int nic_clock_add(struct nic_clock *c, uint64_t tsc_before, uint64_t nic,
		  uint64_t tsc_after);

/* Two pairs give a rate: conversions can start. */
static inline bool
nic_clock_ready(const struct nic_clock *c)
{
	return c->n_pairs >= 2 && c->tsc_per_tick > 0;
}

/* NIC ticks -> the TSC reading at the same moment (extrapolated from the
 * anchor at the latest rate). Only when nic_clock_ready(). */
static inline uint64_t
nic_clock_to_tsc(const struct nic_clock *c, uint64_t nic)
{
	int64_t d = (int64_t)(nic - c->nic0);

	return c->tsc0 + (uint64_t)(int64_t)((double)d * c->tsc_per_tick);
}

/* NIC ticks per second for a TSC of tsc_hz (0 until ready). */
double nic_clock_hz(const struct nic_clock *c, uint64_t tsc_hz);

/*
 * Read a pair the best of `tries` times (the one with the fewest TSC cycles
 * around the NIC read) and add it. read_nic: 0 or -errno (then returned);
 * read_tsc: an ordered TSC read. 0 or -errno.
 */
int nic_clock_sample(struct nic_clock *c, unsigned tries,
		     int (*read_nic)(void *arg, uint64_t *ticks),
		     uint64_t (*read_tsc)(void *arg), void *arg);

#endif /* LATPROBE_NIC_CLOCK_H */
