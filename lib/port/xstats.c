/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/xstats.h"

bool
port_xstat_watched(const char *name)
{
	static const char *const keys[] = {"error", "drop", "missed", "nombuf"};

	if (strcmp(name, "imissed") == 0 || strcmp(name, "rx_nombuf") == 0)
		return true;
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strstr(name, keys[i]) != NULL)
			return true;
	return false;
}

static const uint64_t *
find(const struct port_xstats *x, const char *name, unsigned hint)
{
	if (hint < x->n && strcmp(x->names[hint], name) == 0)
		return &x->values[hint];
	for (unsigned i = 0; i < x->n; i++)
		if (strcmp(x->names[i], name) == 0)
			return &x->values[i];
	return NULL;
}

unsigned
port_xstats_moved(const struct port_xstats *before,
		  const struct port_xstats *after, unsigned *idx, unsigned cap)
{
	unsigned moved = 0;

	for (unsigned i = 0; i < after->n; i++) {
		const uint64_t *b;

		if (!port_xstat_watched(after->names[i]))
			continue;
		b = find(before, after->names[i], i);
		/* A stat that appeared during the run moved from 0. */
		if (after->values[i] <= (b != NULL ? *b : 0))
			continue;
		if (moved < cap)
			idx[moved] = i;
		moved++;
	}
	return moved;
}

int
port_xstats_alloc(struct port_xstats *x, unsigned n)
{
	x->n = 0;
	x->names = calloc(n ? n : 1, sizeof(*x->names));
	x->values = calloc(n ? n : 1, sizeof(*x->values));
	if (x->names == NULL || x->values == NULL) {
		port_xstats_free(x);
		return -ENOMEM;
	}
	x->n = n;
	return 0;
}

void
port_xstats_free(struct port_xstats *x)
{
	free(x->names);
	free(x->values);
	x->names = NULL;
	x->values = NULL;
	x->n = 0;
}

static uint64_t
grew(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

bool
port_queue_stats_delta(const struct port_queue_stats *before,
		       const struct port_queue_stats *after,
		       struct port_queue_stats *d)
{
	uint16_t n = after->n <= PORT_QSTATS_MAX ? after->n : PORT_QSTATS_MAX;
	uint64_t sum = 0;

	memset(d, 0, sizeof(*d));
	d->n = n;
	d->ipackets = grew(before->ipackets, after->ipackets);
	d->imissed = grew(before->imissed, after->imissed);
	d->ierrors = grew(before->ierrors, after->ierrors);
	for (uint16_t q = 0; q < n; q++) {
		d->q_ipackets[q] =
			grew(before->q_ipackets[q], after->q_ipackets[q]);
		d->q_errors[q] = grew(before->q_errors[q], after->q_errors[q]);
		d->q_opackets[q] =
			grew(before->q_opackets[q], after->q_opackets[q]);
		sum += d->q_ipackets[q];
	}
	return d->ipackets != 0 && sum == d->ipackets;
}
