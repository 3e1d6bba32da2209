/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "latprobe/nic_clock.h"

void
nic_clock_reset(struct nic_clock *c)
{
	memset(c, 0, sizeof(*c));
}

int
nic_clock_add(struct nic_clock *c, uint64_t tsc_before, uint64_t nic,
	      uint64_t tsc_after)
{
	uint64_t tsc;

	if (tsc_after < tsc_before)
		return -EINVAL;
	tsc = tsc_before + (tsc_after - tsc_before) / 2;
	if (c->n_pairs > 0 && (tsc <= c->tsc0 || nic <= c->nic0))
		return -EINVAL;
	c->tsc_prev = c->tsc0;
	c->nic_prev = c->nic0;
	c->tsc0 = tsc;
	c->nic0 = nic;
	c->best_gap = tsc_after - tsc_before;
	if (c->n_pairs > 0)
		c->tsc_per_tick = (double)(c->tsc0 - c->tsc_prev) /
				  (double)(c->nic0 - c->nic_prev);
	c->n_pairs++;
	return 0;
}

double
nic_clock_hz(const struct nic_clock *c, uint64_t tsc_hz)
{
	return nic_clock_ready(c) ? (double)tsc_hz / c->tsc_per_tick : 0;
}

int
nic_clock_sample(struct nic_clock *c, unsigned tries,
		 int (*read_nic)(void *arg, uint64_t *ticks),
		 uint64_t (*read_tsc)(void *arg), void *arg)
{
	uint64_t best_b = 0, best_a = 0, best_nic = 0, gap = UINT64_MAX;

	for (unsigned i = 0; i < (tries ? tries : 1); i++) {
		uint64_t b, a, nic;
		int ret;

		b = read_tsc(arg);
		ret = read_nic(arg, &nic);
		a = read_tsc(arg);
		if (ret != 0)
			return ret;
		if (a >= b && a - b < gap) {
			gap = a - b;
			best_b = b;
			best_a = a;
			best_nic = nic;
		}
	}
	if (gap == UINT64_MAX)
		return -EINVAL;
	return nic_clock_add(c, best_b, best_nic, best_a);
}
