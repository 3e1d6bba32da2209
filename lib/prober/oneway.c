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

#include "latprobe/prober_oneway.h"

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
 * estimate; UINT64_MAX: unknown, which no uint64_t of ns would hold
 * anyway), kept for the next answer with the same one. */
uint64_t
prober_oneway_ee_ns(struct prober_worker *w, uint16_t raw)
{
	struct stamp_error_estimate e;

	stamp_ee_decode(raw, &e);
	w->ow_last_ee = raw;
	w->ow_last_ee_ns = e.multiplier == 0 ? 0
			   : stamp_ee_is_unknown(&e)
				   ? UINT64_MAX
				   : (uint64_t)ceil(stamp_ee_to_ns(&e));
	return w->ow_last_ee_ns;
}

/* Our error changes only with the mapping: its max over the answers is
 * taken here, at the answer that first uses a mapping. */
void
prober_oneway_remap(struct prober_worker *w)
{
	uint16_t unused;

	if (clock_feed_read(w->conf->utc_feed, &w->ow_gen, &w->ow_map,
			    &w->ow_err_ns, &unused) &&
	    w->ow_err_ns > w->ow.own_err_max_ns)
		w->ow.own_err_max_ns = w->ow_err_ns;
}
