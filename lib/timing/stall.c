/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <sys/resource.h>

#include "latprobe/stall.h"
#include "latprobe/util.h"

const uint64_t stall_bucket_upper_ns[STALL_BUCKETS] = {
	2000,	   5000,      10000,	  20000,      50000,
	100000,	   200000,    500000,	  1000000,    2000000,
	5000000,   10000000,  20000000,	  50000000,   100000000,
	200000000, 500000000, 1000000000, UINT64_MAX,
};

const char *const stall_call_name[STALL_CALLS] = {
	[STALL_CALL_RX_EMPTY] = "rx_empty",
	[STALL_CALL_RX] = "rx",
	[STALL_CALL_TX] = "tx",
};

/* The calling thread's context switches so far, voluntary (stopped,
 * asleep) and involuntary (preempted); 0 when they cannot be read. */
static uint64_t
thread_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* What a kernel-entering call must last to be checked (cycles). */
static uint64_t
path_check_thr(const struct stall_det *d)
{
	uint64_t c;

	if (!stall_on(d))
		return UINT64_MAX;
	c = tsc_from_ns(d->clock, STALL_PATH_CHECK_NS);
	return c > d->thr ? c : d->thr;
}

void
stall_init(struct stall_det *d, const struct tsc_clock *clock,
	   uint64_t threshold_ns, bool path_calls)
{
	memset(d, 0, sizeof(*d));
	d->clock = clock;
	d->path_calls = path_calls;
	/* No clock (a test's zeroed conf): nothing to measure with. */
	d->thr = threshold_ns == 0 || clock->hz == 0
			 ? UINT64_MAX
			 : tsc_from_ns(clock, threshold_ns);
	d->read_switches = thread_switches;
	d->call_thr = path_calls ? path_check_thr(d) : d->thr;
	for (unsigned k = 0; k < STALL_CALLS; k++)
		d->kind_thr[k] = d->call_thr;
	d->calib.floor_cycles = d->thr;
	d->calib.thr_cycles = d->thr;
	d->work_thr = d->thr;
}

/* A level learnt from log2 bins of n values: at least base, else
 * STALL_WORK_MULT times their STALL_WORK_Q quantile (base until there
 * are STALL_WORK_EVERY of them). */
static uint64_t
learnt_level(uint64_t base, const uint64_t *log2, uint64_t n)
{
	uint64_t q;

	if (n < STALL_WORK_EVERY)
		return base;
	q = stall_log2_quantile(log2, STALL_WORK_Q);
	return q < UINT64_MAX / STALL_WORK_MULT && q * STALL_WORK_MULT > base
		       ? q * STALL_WORK_MULT
		       : base;
}

void
stall_call_update(struct stall_det *d, enum stall_call k)
{
	const struct stall_call_stats *c = &d->calls[k];
	uint64_t t = d->call_thr;

	/* A kernel-entering call is judged by its switches, not its time. */
	if (!d->path_calls && stall_on(d))
		t = learnt_level(t, c->log2, util_relaxed_read(&c->count));
	__atomic_store_n(&d->kind_thr[k], t, __ATOMIC_RELAXED);
}

void
stall_work_update(struct stall_det *d)
{
	if (stall_on(d))
		__atomic_store_n(&d->work_thr,
				 learnt_level(d->thr, d->work_log2, d->work_n),
				 __ATOMIC_RELAXED);
}

uint64_t
stall_log2_quantile(const uint64_t *log2, double q)
{
	uint64_t n = 0, rank, seen = 0;

	for (unsigned b = 0; b < STALL_LOG2_BINS; b++)
		n += util_relaxed_read(&log2[b]);
	if (n == 0)
		return 0;
	/* The smallest bin holding the ceil(q n)-th gap. */
	rank = (uint64_t)((double)n * q);
	if ((double)rank < (double)n * q)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < STALL_LOG2_BINS; b++) {
		seen += util_relaxed_read(&log2[b]);
		if (seen >= rank)
			return b >= 63 ? UINT64_MAX : (2ull << b) - 1;
	}
	return UINT64_MAX;
}

void
stall_calibrate(struct stall_det *d)
{
	struct stall_calib *c = &d->calib;
	uint64_t n = 0;

	if (!stall_on(d) || c->done)
		return;
	for (unsigned b = 0; b < STALL_LOG2_BINS; b++)
		n += d->gap_log2[b];
	c->done = true;
	c->gaps = n;
	if (n >= STALL_CALIB_MIN_GAPS) {
		c->p999_cycles = stall_log2_quantile(d->gap_log2, 0.999);
		if (c->p999_cycles < UINT64_MAX / STALL_CALIB_MULT &&
		    c->p999_cycles * STALL_CALIB_MULT > d->thr)
			d->thr = c->p999_cycles * STALL_CALIB_MULT;
	}
	c->thr_cycles = d->thr;
	d->call_thr = d->path_calls ? path_check_thr(d) : d->thr;
	for (unsigned k = 0; k < STALL_CALLS; k++)
		stall_call_update(d, k);
	stall_work_update(d); /* never below the threshold just set */
	/* The run's counts start here. */
	stall_restart(d, d->last);
}

void
stall_restart(struct stall_det *d, uint64_t now)
{
	/* Relaxed stores: other threads may be reading. */
	__atomic_store_n(&d->last_end, 0, __ATOMIC_RELAXED);
	util_relaxed_zero(&d->st, sizeof(d->st));
	util_relaxed_zero(d->gap_log2, sizeof(d->gap_log2));
	util_relaxed_zero(d->calls, sizeof(d->calls));
	d->last = now;
	/* On the worker: its switches so far are the baseline. */
	if (d->path_calls && stall_on(d)) {
		d->switches = d->read_switches();
		d->sw_known = true;
	}
}

unsigned
stall_bucket(uint64_t ns)
{
	unsigned b = 0;

	while (ns > stall_bucket_upper_ns[b])
		b++;
	return b;
}

static void
note(struct stall_det *d, uint64_t now, uint64_t gap)
{
	uint64_t ns = tsc_to_ns(d->clock, gap);

	d->last_end = now;
	d->last_len = gap;
	util_relaxed_add(&d->st.count, 1);
	util_relaxed_add(&d->st.total_ns, ns);
	if (ns > d->st.longest_ns)
		__atomic_store_n(&d->st.longest_ns, ns, __ATOMIC_RELAXED);
	util_relaxed_add(&d->st.hist[stall_bucket(ns)], 1);
}

/* Did the thread switch since the last look? (And look.) */
static bool
switched(struct stall_det *d)
{
	uint64_t s = d->read_switches();
	bool moved = d->sw_known && s != d->switches;

	d->switches = s;
	d->sw_known = true;
	return moved;
}

void __attribute__((noinline, cold))
stall_note(struct stall_det *d, uint64_t now, uint64_t gap)
{
	note(d, now, gap);
	d->last_call = 0;
	/* A switch in this gap is this stall's: the next long call's look
	 * must not take it for its own. */
	if (d->path_calls)
		(void)switched(d);
}

void __attribute__((noinline, cold))
stall_note_call(struct stall_det *d, uint64_t now, uint64_t in,
		enum stall_call k)
{
	if (d->path_calls) {
		if (!switched(d))
			return; /* on its CPU throughout: the path's time */
		util_relaxed_add(&d->st.in_call, 1);
	}
	note(d, now, in);
	d->last_call = (unsigned)k + 1;
}

void
stall_stats_read(const struct stall_stats *s, struct stall_stats *out)
{
	out->count = util_relaxed_read(&s->count);
	out->total_ns = util_relaxed_read(&s->total_ns);
	out->longest_ns = util_relaxed_read(&s->longest_ns);
	out->in_call = util_relaxed_read(&s->in_call);
	for (unsigned i = 0; i < STALL_BUCKETS; i++)
		out->hist[i] = util_relaxed_read(&s->hist[i]);
}

void
stall_stats_add(struct stall_stats *dst, const struct stall_stats *src)
{
	dst->count += src->count;
	dst->total_ns += src->total_ns;
	dst->in_call += src->in_call;
	if (src->longest_ns > dst->longest_ns)
		dst->longest_ns = src->longest_ns;
	for (unsigned i = 0; i < STALL_BUCKETS; i++)
		dst->hist[i] += src->hist[i];
}

void
stall_call_read(const struct stall_call_stats *s, struct stall_call_stats *out)
{
	out->count = util_relaxed_read(&s->count);
	out->cycles = util_relaxed_read(&s->cycles);
	out->max_cycles = util_relaxed_read(&s->max_cycles);
	for (unsigned i = 0; i < STALL_LOG2_BINS; i++)
		out->log2[i] = util_relaxed_read(&s->log2[i]);
}

void
stall_call_add(struct stall_call_stats *dst, const struct stall_call_stats *src)
{
	dst->count += src->count;
	dst->cycles += src->cycles;
	if (src->max_cycles > dst->max_cycles)
		dst->max_cycles = src->max_cycles;
	for (unsigned i = 0; i < STALL_LOG2_BINS; i++)
		dst->log2[i] += src->log2[i];
}
