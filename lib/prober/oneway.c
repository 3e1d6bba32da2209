/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-way delays of STAMP answers (struct prober_oneway in prober.h):
 * T1 and T4 mapped onto UTC with our side's latest mapping, T2 and T3 as
 * the reflector stamped them.
 */
#include <math.h>
#include <stdint.h>

#include "latprobe/prober.h"
#include "latprobe/stamp.h"

void
prober_oneway_init(struct prober_worker *w)
{
	const struct prober_conf *c = w->conf;

	histogram_init(&w->forward);
	histogram_init(&w->reverse);
	w->ow.fwd_min_ns = INT64_MAX;
	w->ow.rev_min_ns = INT64_MAX;
	w->ow_map.anchor = c->anchor;
	w->ow_map.clock = c->clock;
	w->ow_gen = 0;
	w->ow_last_ee = 0;
	w->ow_last_ee_ns = 0;
}

/* The Error Estimate of an answer in ns, rounded up (0: multiplier 0, no
 * estimate). */
static uint64_t
ee_ns(struct prober_worker *w, uint16_t raw)
{
	struct stamp_error_estimate e;

	if (raw == w->ow_last_ee && w->ow_last_ee_ns != 0)
		return w->ow_last_ee_ns;
	stamp_ee_decode(raw, &e);
	w->ow_last_ee = raw;
	w->ow_last_ee_ns =
		e.multiplier == 0 ? 0 : (uint64_t)ceil(stamp_ee_to_ns(&e));
	return w->ow_last_ee_ns;
}

void
prober_oneway_record(struct prober_worker *w, const struct probe_reply *r,
		     uint64_t t1, uint64_t t4, int64_t *fwd_out,
		     int64_t *rev_out)
{
	const struct prober_conf *c = w->conf;
	struct prober_oneway *o = &w->ow;
	uint64_t t1_utc, t4_utc, ee;
	int64_t fwd, rev;

	if (c->utc_feed != NULL) {
		uint16_t unused;

		(void)clock_feed_read(c->utc_feed, &w->ow_gen, &w->ow_map,
				      &w->ow_err_ns, &unused);
	}
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
		if ((r->error_estimate & STAMP_EE_S) == 0)
			o->ee_s_clear++;
		ee = ee_ns(w, r->error_estimate);
		if (ee == 0)
			o->ee_none++;
		else if (ee > o->ee_max_ns)
			o->ee_max_ns = ee;
	} else {
		o->ee_none++;
	}
	if (w->ow_err_ns > o->own_err_max_ns)
		o->own_err_max_ns = w->ow_err_ns;
	*fwd_out = fwd;
	*rev_out = rev;
}
