/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_CLOCK_SYNC_H
#define LATPROBE_CLOCK_SYNC_H

/*
 * One side's clock for one-way delays: the TSC -> UTC
 * (CLOCK_REALTIME) mapping, measured and re-sampled during a run, and the
 * clock's own synchronisation error as the kernel (adjtimex) and chrony
 * state it.
 *
 * The mapping: paired reads (TSC before and after a CLOCK_REALTIME read,
 * the narrowest of several brackets), the latest pair the anchor, the rate
 * taken over the span back to a pair at least CLOCK_SYNC_RATE_SPAN_NS older
 * (until there is one: the calibrated rate). Each new pair is first
 * compared with what the mapping before it predicted: that residual is the
 * extrapolation error the readings of the interval had; one above
 * CLOCK_SYNC_STEP_NS is a step of the wall clock (settimeofday, chrony's
 * makestep), the rate's history restarts there. The wall clock's rate
 * against the TSC calibrated on CLOCK_MONOTONIC_RAW is its slew (the
 * kernel's frequency correction plus any adjtime slew), in ppm.
 *
 * The error of the current mapping (err_ns) is half the anchor pair's
 * bracket plus the largest residual of the last CLOCK_SYNC_ERR_KEEP
 * updates, steps included: a step makes the bound large for that long.
 *
 * No EAL call, no thread: the caller (app/) samples and publishes; workers
 * read the published mapping through struct clock_feed (a seqlock).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/timing.h"

#define CLOCK_SYNC_RATE_SPAN_NS 1000000000ull /* 1 s */
#define CLOCK_SYNC_STEP_NS	100000ull     /* 100 us */
#define CLOCK_SYNC_HIST		32	      /* pairs kept for the rate */
#define CLOCK_SYNC_ERR_KEEP	16	      /* residuals in err_ns */

/* One paired read. */
struct clock_pair {
	uint64_t tsc;	 /* the bracket's midpoint */
	uint64_t utc_ns; /* CLOCK_REALTIME, ns since 1970 */
	uint64_t width;	 /* cycles between the bracket's two TSC reads */
};

/* The tightest of tries (>= 1) brackets: 0 or -errno (clock_gettime). */
int clock_pair_read(struct clock_pair *p, unsigned tries);

/* A mapping: utc = anchor.realtime_ns + (tsc - anchor.tsc) / clock.hz. */
struct clock_map {
	struct tsc_anchor anchor;
	struct tsc_clock clock;
};

static inline uint64_t
clock_map_utc(const struct clock_map *m, uint64_t tsc)
{
	return tsc_anchor_to_realtime_ns(&m->anchor, &m->clock, tsc);
}

struct clock_sync {
	uint64_t cal_hz; /* the TSC rate against CLOCK_MONOTONIC_RAW */
	struct clock_pair hist[CLOCK_SYNC_HIST]; /* ring, since the last step */
	unsigned n_hist, head;			 /* hist[head] is the newest */
	struct clock_map map;			 /* current */
	uint64_t updates;			 /* pairs after the first */
	uint64_t pair_err_ns;			 /* half the anchor's bracket */
	int64_t residual_ns;			 /* of the latest update */
	uint64_t resid[CLOCK_SYNC_ERR_KEEP];	 /* |residual| ring */
	uint64_t residual_max_ns;		 /* over the run */
	uint64_t steps;				 /* residuals over STEP_NS */
	int64_t step_max_ns;			 /* the largest, signed */
	double slew_ppm;			 /* latest rate vs cal_hz */
	double slew_max_ppm;			 /* largest |slew| */
	uint64_t err_ns;     /* the current mapping's error */
	uint64_t err_max_ns; /* over the run */
};

/* 0, or -EINVAL (cal_hz out of tsc_clock_init()'s range). */
int clock_sync_init(struct clock_sync *s, uint64_t cal_hz,
		    const struct clock_pair *first);
/* A new pair (later than the one before it); pure. 0, or -EINVAL for a
 * pair that is not later (the TSC went back: ignored). */
int clock_sync_update(struct clock_sync *s, const struct clock_pair *p);

/*
 * The published mapping, one writer (the sampling thread), any number of
 * readers (workers): a sequence number odd while written. Readers copy it
 * when gen moved (one relaxed load per look).
 */
struct clock_feed {
	uint32_t seq;
	struct clock_map map;
	uint64_t err_ns; /* the mapping's error plus the sync error when the
			    clock is synchronised */
	uint16_t ee;	 /* the STAMP Error Estimate that goes with it */
};

void clock_feed_publish(struct clock_feed *f, const struct clock_map *m,
			uint64_t err_ns, uint16_t ee);
/* True (and *m, *err_ns, *ee filled) when the feed holds a mapping whose
 * generation differs from *gen, which is updated. */
bool clock_feed_read(const struct clock_feed *f, uint32_t *gen,
		     struct clock_map *m, uint64_t *err_ns, uint16_t *ee);

static inline uint32_t
clock_feed_gen(const struct clock_feed *f)
{
	return __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
}

/*
 * The kernel's view (adjtimex(2), read only): TIME_ERROR or STA_UNSYNC =
 * not synchronised; esterror and maxerror in us (the kernel's estimate and
 * its bound, which grows by 500 ppm of time since the last update).
 */
struct clock_kernel {
	bool read;	 /* adjtimex answered */
	bool synced;	 /* neither TIME_ERROR nor STA_UNSYNC */
	int state;	 /* TIME_OK, TIME_INS, ..., TIME_ERROR */
	unsigned status; /* STA_* bits */
	uint64_t esterror_ns, maxerror_ns;
	int64_t offset_ns; /* the PLL's last offset (STA_NANO: ns, else us) */
	double freq_ppm;   /* the frequency correction */
	bool pll, ppsfreq, nano;
};

/* What an adjtimex() return value and its fields say (pure, for tests). */
void clock_kernel_interpret(int ret, unsigned status, long esterror_us,
			    long maxerror_us, long offset, long freq,
			    struct clock_kernel *out);
/* adjtimex() with modes 0: 0 or -errno. */
int clock_kernel_read(struct clock_kernel *out);

/*
 * chrony's tracking, as `chronyc -c tracking` prints it (one CSV line:
 * reference ID, its name or address, stratum, reference time, system time
 * offset, last offset, RMS offset, frequency, residual frequency, skew,
 * root delay, root dispersion, update interval, leap status). Offsets in
 * seconds; the system time field is chrony's correction, positive when the
 * system clock is behind (its text form says "slow").
 * bound_ns: chrony's documented bound on the clock's error,
 * |system offset| + root dispersion + root delay / 2.
 */
struct clock_chrony {
	char ref_id[16];
	char ref_name[64];
	unsigned stratum;
	double ref_time_s;
	double offset_s, last_offset_s, rms_offset_s;
	double freq_ppm, resid_freq_ppm, skew_ppm;
	double root_delay_s, root_dispersion_s;
	double update_interval_s;
	char leap[32]; /* "Normal", "Not synchronised", ... */
	bool synced;   /* stratum 1-15, a reference, leap not "Not ..." */
	bool phc;      /* the reference is a PHC refclock (ref_name PHC*) */
	uint64_t bound_ns;
};

/* 0, or -EINVAL when text (len bytes, need not end in NUL) is not that
 * line (fields missing, numbers that do not parse or are out of range). */
int clock_chrony_parse(const char *text, size_t len, struct clock_chrony *out);

/*
 * One side's verdict: synchronised or not, and the sync error to add to the
 * mapping's in a bound. chrony, where it answered, wins over the kernel
 * (its bound is a bound; the kernel's esterror an estimate).
 */
enum clock_src {
	CLOCK_SRC_NONE,	  /* nothing says it is synchronised */
	CLOCK_SRC_KERNEL, /* adjtimex says synchronised (ntpd, timesyncd) */
	CLOCK_SRC_CHRONY,
};

struct clock_verdict {
	bool synced;
	enum clock_src src;
	/* synced, and the source gave an error figure. A source that states
	 * none is not a zero error: systemd-timesyncd sets the kernel's
	 * esterror to 0 whatever its offset was, and a chrony bound of 0
	 * cannot be (its root dispersion only grows between updates). */
	bool err_known;
	uint64_t sync_err_ns; /* 0 when not synchronised or not known */
};

void clock_verdict_of(const struct clock_kernel *k,
		      const struct clock_chrony *c /* NULL: none */,
		      struct clock_verdict *out);
const char *clock_src_name(enum clock_src s);

/*
 * One side's synchronisation over a run: every verdict read (at the start,
 * periodically, at the end) is noted, and the run's verdict is the worst
 * of them: a clock that was not synchronised at any read was not
 * synchronised for the run (timestamps taken then rest on nothing), the
 * sync error is the largest read, and it is known only when every
 * synchronised read gave one.
 */
struct clock_run {
	uint64_t reads;		  /* verdicts noted */
	uint64_t unsynced;	  /* of them, not synchronised */
	uint64_t err_unknown;	  /* synchronised without an error figure */
	uint64_t sync_err_max_ns; /* the largest error read */
	enum clock_src src;	  /* the source of the last synchronised one */
};

void clock_run_note(struct clock_run *r, const struct clock_verdict *v);
/* No read at all: not synchronised (nothing said it was). */
void clock_run_verdict(const struct clock_run *r, struct clock_verdict *out);

#endif /* LATPROBE_CLOCK_SYNC_H */
