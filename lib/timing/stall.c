/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "latprobe/stall.h"
#include "latprobe/util.h"

const uint64_t stall_bucket_upper_ns[STALL_BUCKETS] = {
	2000,	   5000,      10000,	  20000,      50000,
	100000,	   200000,    500000,	  1000000,    2000000,
	5000000,   10000000,  20000000,	  50000000,   100000000,
	200000000, 500000000, 1000000000, UINT64_MAX,
};

void
stall_init(struct stall_det *d, const struct tsc_clock *clock,
	   uint64_t threshold_ns)
{
	memset(d, 0, sizeof(*d));
	d->clock = clock;
	/* No clock (a test's zeroed conf): nothing to measure with. */
	d->thr = threshold_ns == 0 || clock->hz == 0
			 ? UINT64_MAX
			 : tsc_from_ns(clock, threshold_ns);
}

unsigned
stall_bucket(uint64_t ns)
{
	unsigned b = 0;

	while (ns > stall_bucket_upper_ns[b])
		b++;
	return b;
}

void __attribute__((noinline, cold))
stall_note(struct stall_det *d, uint64_t now, uint64_t gap)
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

void
stall_stats_read(const struct stall_stats *s, struct stall_stats *out)
{
	out->count = util_relaxed_read(&s->count);
	out->total_ns = util_relaxed_read(&s->total_ns);
	out->longest_ns = util_relaxed_read(&s->longest_ns);
	for (unsigned i = 0; i < STALL_BUCKETS; i++)
		out->hist[i] = util_relaxed_read(&s->hist[i]);
}

void
stall_stats_add(struct stall_stats *dst, const struct stall_stats *src)
{
	dst->count += src->count;
	dst->total_ns += src->total_ns;
	if (src->longest_ns > dst->longest_ns)
		dst->longest_ns = src->longest_ns;
	for (unsigned i = 0; i < STALL_BUCKETS; i++)
		dst->hist[i] += src->hist[i];
}
