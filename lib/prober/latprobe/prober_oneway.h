/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PROBER_ONEWAY_H
#define LATPROBE_PROBER_ONEWAY_H

/*
 * The per-answer part of one-way delays (oneway.c has the rest), inlined
 * into record_answer(): the feed's mapping is copied only when its
 * generation moved, and an Error Estimate decoded only when it changed,
 * both out of line (rare).
 */
#include <stdint.h>

#include "latprobe/prober.h"
#include "latprobe/stamp.h"

/* The feed moved: its mapping into the worker (and our error's max). */
void prober_oneway_remap(struct prober_worker *w);
/* A new Error Estimate (raw) decoded: ns, rounded up; 0: no estimate;
 * UINT64_MAX: the reflector says it does not know (stamp_ee_is_unknown()). */
uint64_t prober_oneway_ee_ns(struct prober_worker *w, uint16_t raw);

static inline __attribute__((always_inline)) void
prober_oneway_record(struct prober_worker *w, const struct probe_reply *r,
		     uint64_t t1, uint64_t t4, int64_t *fwd_out,
		     int64_t *rev_out)
{
	const struct prober_conf *c = w->conf;
	struct prober_oneway *o = &w->ow;
	uint64_t t1_utc, t4_utc, ee;
	int64_t fwd, rev;

	if (c->utc_feed != NULL && clock_feed_gen(c->utc_feed) != w->ow_gen)
		prober_oneway_remap(w);
	t1_utc = clock_map_utc(&w->ow_map, t1);
	t4_utc = clock_map_utc(&w->ow_map, t4);
	fwd = (int64_t)(r->t2_ns - t1_utc);
	rev = (int64_t)(t4_utc - r->t3_ns);
	o->answers++;
	if (fwd > 0)
		histogram_record(&w->forward, (uint64_t)fwd);
	else
		o->fwd_nonpos++;
	if (rev > 0)
		histogram_record(&w->reverse, (uint64_t)rev);
	else
		o->rev_nonpos++;
	if (fwd < o->fwd_min_ns)
		o->fwd_min_ns = fwd;
	if (rev < o->rev_min_ns)
		o->rev_min_ns = rev;
	if (r->has_ee) {
		uint16_t raw = r->error_estimate;

		if ((raw & STAMP_EE_S) == 0)
			o->ee_s_clear++;
		ee = raw == w->ow_last_ee && w->ow_last_ee_ns != 0
			     ? w->ow_last_ee_ns
			     : prober_oneway_ee_ns(w, raw);
		if (ee == 0)
			o->ee_none++;
		else if (ee == UINT64_MAX)
			o->ee_unknown++;
		else if (ee > o->ee_max_ns)
			o->ee_max_ns = ee;
	} else {
		o->ee_none++;
	}
	*fwd_out = fwd;
	*rev_out = rev;
}

#endif /* LATPROBE_PROBER_ONEWAY_H */
