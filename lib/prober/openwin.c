/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The open-loop sequence window's memory: its size for a rate and a
 * timeout, and its allocation with the worker (prober_worker_init(), _fini()).
 * Apart from openloop.c, which runs the loop on prober.c's rx and tx path,
 * so that prober.c calls nothing of openloop.c: the window's answer and ICMP
 * hooks are pointers that prober_worker_run_open() sets (no include circle
 * between the two files).
 */
#include <errno.h>
#include <stdlib.h>

#include "latprobe/prober.h"

int
prober_open_window_size(uint64_t rate_pps, uint64_t timeout_ns, size_t *slots)
{
	uint64_t inflight, n = 64;

	if (rate_pps == 0)
		return -EINVAL;
	/* rate <= 1e9 and timeout <= 60 s (the CLI's limits) keep this in
	 * 64 bits; anything beyond is refused by the cap anyway. */
	if (timeout_ns != 0 && rate_pps > UINT64_MAX / timeout_ns)
		return -E2BIG;
	inflight = (rate_pps * timeout_ns + 999999999ull) / 1000000000ull + 1;
	if (inflight > PROBER_OPEN_MAX_INFLIGHT)
		return -E2BIG;
	while (n < 2 * inflight)
		n <<= 1;
	*slots = n;
	return 0;
}

int
prober_open_init(struct prober_worker *w)
{
	const struct prober_conf *c = w->conf;
	struct prober_open *o;
	size_t n;
	int ret;

	ret = prober_open_window_size(
		c->rate_pps, tsc_to_ns(&c->clock, c->timeout_cycles), &n);
	if (ret != 0)
		return ret;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	o->slot = calloc(n, sizeof(*o->slot));
	if (o->slot == NULL) {
		free(o);
		return -ENOMEM;
	}
	o->mask = n - 1;
	w->open = o;
	return 0;
}

void
prober_open_fini(struct prober_worker *w)
{
	if (w->open == NULL)
		return;
	free(w->open->slot);
	free(w->open);
	w->open = NULL;
}
