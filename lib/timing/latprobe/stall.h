/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_STALL_H
#define LATPROBE_STALL_H

/*
 * Stall detection in a poll loop. A stall is time the worker lost: a gap
 * in its own work above the threshold (the hypervisor took the vCPU, an
 * interrupt, another task on the CPU), the way osnoise, hwlatdetect and
 * sysjitter define noise. Time the worker spends inside a PMD's rx/tx call
 * is not its own: on a PMD that enters the kernel (af_xdp's send()/
 * recvfrom() kicks, af_packet, the kernel backend's sockets) that call runs
 * the packet's kernel path, which is the very latency being measured. So
 * the loop brackets each PMD call (stall_enter() before it, stall_leave()
 * after it): the gap between the end of one call and the start of the next
 * is the loop's own and is judged; the time inside a call is a measured
 * series of its own, per call kind (struct stall_call_stats), and is judged
 * only on a PMD whose calls cannot wait (path_calls false: memif, ring, a
 * NIC's poll-mode driver: user-space work of a few hundred ns, so a long
 * one is a preemption). A kernel-entering call that takes longer than
 * STALL_PATH_CHECK_NS (or the threshold, whichever is larger) is looked at
 * once more: if the thread's context switches (getrusage(RUSAGE_THREAD))
 * moved since the last look, it was off its CPU (preempted, stopped,
 * asleep) inside the call, and the call is a stall (stall_stats.in_call).
 * The calls are non-blocking on every such PMD latprobe drives, so a switch
 * there is time lost, not a wait for a packet. Shorter preemptions inside a
 * call stay unseen here; the run's corroborating counters (the worker
 * thread's run-queue wait and off-CPU time) report them.
 *
 * The threshold is calibrated per run (stall_calibrate()): the loop's own
 * gaps are measured before the first probe, and the threshold is the
 * user's floor or STALL_CALIB_MULT times their p99.9, whichever is larger.
 *
 * Those are idle polls. A gap that holds a frame's work (after an rx call
 * that brought frames or a tx call, before a tx call, between two ticks)
 * is the program's own work too, and on a slow CPU (an emulated one, a
 * low clock) that work alone can last longer than the floor: such "work
 * gaps" are judged against their own level, the threshold or
 * STALL_WORK_MULT times the p90 of the work gaps seen so far, whichever is
 * larger (updated every STALL_WORK_EVERY of them). The p90: the short
 * gaps after a tx call are work gaps too and may be half of them, and
 * stalls in fewer than a tenth of them do not move it (more, and the
 * report says the detector cannot separate host from path anyway). On a
 * machine where a probe's work takes well under a microsecond it is the
 * threshold. The calls of a poll-mode PMD are judged the same way, each
 * kind against its own level: an emulated NIC's tx doorbell (a trap to
 * the emulator, about 15 us under QEMU's TCG) is the path's cost on every
 * call, not a stall per probe.
 *
 * A stall is counted, its length added to the total, the longest kept, and
 * its length put in a 1-2-5 histogram. The end of the latest stall (clock)
 * tells a caller whether something it timed overlapped one: a stall that
 * ended after t started before now, so it overlaps [t, now]
 * (stall_since()).
 *
 * Single writer (the worker); counters read relaxed by other threads
 * (util_relaxed_read()). Times in the clock's cycles; the histogram in ns.
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/timing.h"
#include "latprobe/util.h"

/* Upper bounds (ns) of the duration histogram's buckets; the last one
 * holds everything longer. */
#define STALL_BUCKETS 19
extern const uint64_t stall_bucket_upper_ns[STALL_BUCKETS];

/* --stall-threshold's default, the floor of the calibrated threshold (see
 * docs/usage.md for why 5 us). */
#define STALL_DEFAULT_THRESHOLD_NS 5000u

/*
 * Calibration: the threshold is at least STALL_CALIB_MULT times the p99.9
 * of the loop's own gaps, measured over at least STALL_CALIB_MIN_GAPS gaps
 * (fewer: the floor alone, and the report says so). Bins are powers of
 * two of cycles, so the p99.9 read off them is high by less than 2x.
 */
#define STALL_CALIB_MULT     4u
#define STALL_CALIB_MIN_GAPS 1000u
/* How long a worker polls its idle queue to measure its gaps (at most,
 * and at most as many gaps) before its first probe. */
#define STALL_CALIB_NS	     2000000u
#define STALL_CALIB_GAPS     20000u
/* Polls on for up to this many times STALL_CALIB_NS while it has fewer
 * than STALL_CALIB_MIN_GAPS gaps (a thread paused early in the span). */
#define STALL_CALIB_MORE     10u

/* Work gaps: their threshold is at least STALL_WORK_MULT times their
 * STALL_WORK_Q quantile (a log2 bin's upper edge: high by less than 2x),
 * recomputed every STALL_WORK_EVERY work gaps (a power of two). */
#define STALL_WORK_MULT	 4u
#define STALL_WORK_Q	 0.9
#define STALL_WORK_EVERY 64u

/*
 * A kernel-entering PMD call longer than this (or than the threshold) is
 * checked for a context switch. The check is a syscall (about 0.3-2 us);
 * only calls 10 times longer pay it, so it costs at most a tenth of the
 * slow calls' time and nothing on the common ones (af_xdp's tx kick over a
 * veth: p50 about 8 us, the packet's whole kernel path).
 */
#define STALL_PATH_CHECK_NS 20000u

/* log2 bins of cycles: bin b holds [2^b, 2^(b+1)), bin 0 also 0. */
#define STALL_LOG2_BINS 48

/* The PMD call kinds whose time is measured apart. */
enum stall_call {
	STALL_CALL_RX_EMPTY, /* an rx burst that brought nothing */
	STALL_CALL_RX,	     /* one that brought frames */
	STALL_CALL_TX,
	STALL_CALLS
};
extern const char *const stall_call_name[STALL_CALLS];

struct stall_call_stats {
	uint64_t count, cycles, max_cycles;
	uint64_t log2[STALL_LOG2_BINS];
};

/* What calibration found (stall_calibrate()). */
struct stall_calib {
	bool done;
	uint64_t gaps;	       /* gaps measured */
	uint64_t p999_cycles;  /* their p99.9 (a log2 bin's upper edge) */
	uint64_t floor_cycles; /* the user's threshold */
	uint64_t thr_cycles;   /* the threshold used from then on */
};

struct stall_stats {
	uint64_t count;
	uint64_t total_ns;
	uint64_t longest_ns;
	uint64_t hist[STALL_BUCKETS]; /* by duration: stall_bucket_upper_ns */
	/* Of count: kernel-entering PMD calls the thread spent partly off its
	 * CPU (see above). */
	uint64_t in_call;
};

struct stall_det {
	uint64_t last;	   /* clock when the loop's own work resumed */
	uint64_t thr;	   /* cycles; UINT64_MAX = off */
	uint64_t last_end; /* clock when the latest stall ended; 0: none */
	uint64_t last_len; /* its length, cycles */
	uint64_t enter;	   /* clock at the start of the PMD call running */
	/* clock when the call before it ended */
	uint64_t prev_end;
	/* The latest stall was inside a call of this kind + 1; 0: a gap. */
	unsigned last_call;
	/* A PMD call longer than this is a stall: thr when the queue's calls
	 * cannot wait, UINT64_MAX when they run the packet's path. */
	uint64_t call_thr;
	/* Per kind: call_thr, or on a poll-mode queue the larger of it and
	 * the kind's own level (see work gaps: STALL_WORK_MULT times the
	 * STALL_WORK_Q quantile of its calls). */
	uint64_t kind_thr[STALL_CALLS];
	bool path_calls;
	/* The worker thread's context switches at the last look (path_calls
	 * only; sw_known false until the worker's first look). */
	bool sw_known;
	uint64_t switches;
	/* Reads them: the calling thread's voluntary + involuntary switches
	 * (a test replaces it). */
	uint64_t (*read_switches)(void);
	const struct tsc_clock *clock;
	struct stall_stats st;
	/* The loop's own gaps (between PMD calls) by log2 of cycles, and the
	 * time inside the calls, by kind. */
	uint64_t gap_log2[STALL_LOG2_BINS];
	struct stall_call_stats calls[STALL_CALLS];
	struct stall_calib calib;
	/* Work gaps (see above): the one running is one, their threshold
	 * (cycles), how many and by log2 of cycles since the start (not
	 * restarted: they are the level's calibration). */
	bool work;
	uint64_t work_thr;
	uint64_t work_n;
	uint64_t work_log2[STALL_LOG2_BINS];
};

/* threshold_ns 0: detection off (no stall ever). path_calls: the queue's
 * PMD calls enter the kernel and run the packet's path (io_queue's). */
void stall_init(struct stall_det *d, const struct tsc_clock *clock,
		uint64_t threshold_ns, bool path_calls);

/* Out of line: a gap of gap cycles that ended at now was a stall. */
void stall_note(struct stall_det *d, uint64_t now, uint64_t gap);

static inline unsigned
stall_log2(uint64_t cycles)
{
	unsigned b = 63u - (unsigned)__builtin_clzll(cycles | 1);

	return b < STALL_LOG2_BINS ? b : STALL_LOG2_BINS - 1;
}

/* Calibration's end: span (cycles) is over and enough polls were made, or
 * STALL_CALIB_MORE spans are over. */
static inline bool
stall_calib_over(uint64_t elapsed, uint64_t span, unsigned polls)
{
	return elapsed > span && (polls >= STALL_CALIB_MIN_GAPS ||
				  elapsed / STALL_CALIB_MORE > span);
}

/* Out of line: the work gaps' threshold from their level so far. */
void stall_work_update(struct stall_det *d);

/* A work gap of gap cycles that ended at now: counted and judged. */
static inline __attribute__((always_inline)) void
stall_work_gap(struct stall_det *d, uint64_t now, uint64_t gap)
{
	util_relaxed_add(&d->work_log2[stall_log2(gap)], 1);
	if (__builtin_expect((++d->work_n & (STALL_WORK_EVERY - 1)) == 0, 0))
		stall_work_update(d);
	if (__builtin_expect(gap > d->work_thr, 0))
		stall_note(d, now, gap);
}

/* A point of the loop's own work at clock now (no PMD call since the
 * last): the gap since then is a work gap. */
static inline __attribute__((always_inline)) void
stall_tick(struct stall_det *d, uint64_t now)
{
	uint64_t gap = now - d->last;

	d->last = now;
	stall_work_gap(d, now, gap);
}

/* Out of line: call kind k's threshold from its level so far. */
void stall_call_update(struct stall_det *d, enum stall_call k);

/* Out of line: a PMD call of kind k and in cycles that ended at now was
 * long enough to be a stall. */
void stall_note_call(struct stall_det *d, uint64_t now, uint64_t in,
		     enum stall_call k);

/* Right before a PMD call, at clock now: the gap since the loop's work
 * resumed is the loop's own; work: it held a frame's work whatever the
 * call before (the probe or answer built for a tx call). */
static inline __attribute__((always_inline)) void
stall_enter_gap(struct stall_det *d, uint64_t now, bool work)
{
	uint64_t gap = now - d->last;

	d->enter = now;
	d->prev_end = d->last;
	util_relaxed_add(&d->gap_log2[stall_log2(gap)], 1);
	if (work || d->work)
		stall_work_gap(d, now, gap);
	else if (__builtin_expect(gap > d->thr, 0))
		stall_note(d, now, gap);
}

/* Right before an rx call. */
static inline __attribute__((always_inline)) void
stall_enter(struct stall_det *d, uint64_t now)
{
	stall_enter_gap(d, now, false);
}

/* Right before a tx call. */
static inline __attribute__((always_inline)) void
stall_enter_tx(struct stall_det *d, uint64_t now)
{
	stall_enter_gap(d, now, true);
}

/* Right after a PMD call of kind k, at clock now. */
static inline __attribute__((always_inline)) void
stall_leave(struct stall_det *d, uint64_t now, enum stall_call k)
{
	struct stall_call_stats *c = &d->calls[k];
	uint64_t in = now - d->enter;

	d->last = now;
	/* What follows an empty poll is the next poll; anything else is a
	 * frame's work. */
	d->work = k != STALL_CALL_RX_EMPTY;
	util_relaxed_add(&c->count, 1);
	util_relaxed_add(&c->cycles, in);
	util_relaxed_add(&c->log2[stall_log2(in)], 1);
	if (__builtin_expect(in > c->max_cycles, 0))
		__atomic_store_n(&c->max_cycles, in, __ATOMIC_RELAXED);
	if (__builtin_expect((c->count & (STALL_WORK_EVERY - 1)) == 0, 0))
		stall_call_update(d, k);
	if (__builtin_expect(in > d->kind_thr[k], 0))
		stall_note_call(d, now, in, k);
}

/*
 * End of calibration: the threshold from the gaps measured so far (see
 * STALL_CALIB_MULT), and the counts start afresh (what came before was
 * calibration, not the run).
 */
void stall_calibrate(struct stall_det *d);

/* The counts start afresh from now (the threshold stays). */
void stall_restart(struct stall_det *d, uint64_t now);

/* Start watching afresh from now (after work that is not the poll loop:
 * the gap up to now is not looked at). */
static inline void
stall_rebase(struct stall_det *d, uint64_t now)
{
	d->last = now;
}

/* Is anything watched (a threshold set)? */
static inline bool
stall_on(const struct stall_det *d)
{
	return d->thr != UINT64_MAX;
}

/*
 * Did a stall delay the frames the latest rx call brought? One that ended
 * as that call began (a gap before it) or inside it, or inside the call
 * right before it: a thread stopped on its way out of a syscall (an rx
 * that found nothing, or the tx of the last answer, after which a closed
 * loop's next request comes) while the frames came.
 */
static inline bool
stall_before_rx(const struct stall_det *d)
{
	return d->last_end != 0 &&
	       (d->last_end >= d->enter ||
		(d->last_end == d->prev_end && d->last_call != 0));
}

/* Did a stall overlap [t, the last tick]? */
static inline bool
stall_since(const struct stall_det *d, uint64_t t)
{
	return d->last_end > t;
}

/* The bucket of a stall of ns. */
unsigned stall_bucket(uint64_t ns);

/* Relaxed copy of d's counters (another thread, while the worker runs). */
void stall_stats_read(const struct stall_stats *s, struct stall_stats *out);
/* The same for one call kind's, and dst += src of those. */
void stall_call_read(const struct stall_call_stats *s,
		     struct stall_call_stats *out);
void stall_call_add(struct stall_call_stats *dst,
		    const struct stall_call_stats *src);
/* The value (cycles, a bin's upper edge) below which a share q of the
 * counts of log2[] lie; 0 when there are none. */
uint64_t stall_log2_quantile(const uint64_t *log2, double q);
/* dst += src. */
void stall_stats_add(struct stall_stats *dst, const struct stall_stats *src);

#endif /* LATPROBE_STALL_H */
