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

static int
find_name(const struct port_xstats *x, const char *name)
{
	for (unsigned i = 0; i < x->n; i++)
		if (strcmp(x->names[i], name) == 0)
			return (int)i;
	return -1;
}

/* Room for x->n + more names (x->n unchanged). */
static int
grow(struct port_xstats *x, unsigned more)
{
	char(*names)[PORT_XSTAT_NAME];
	uint64_t *values;
	unsigned n = x->n + more;

	if (more == 0)
		return 0;
	names = realloc(x->names, (size_t)n * sizeof(*names));
	if (names == NULL)
		return -ENOMEM;
	x->names = names;
	values = realloc(x->values, (size_t)n * sizeof(*values));
	if (values == NULL)
		return -ENOMEM;
	x->values = values;
	return 0;
}

/* The names of from that x lacks. */
static unsigned
missing(const struct port_xstats *x, const struct port_xstats *from)
{
	unsigned k = 0;

	for (unsigned i = 0; i < from->n; i++)
		k += find_name(x, from->names[i]) < 0;
	return k;
}

int
port_xstats_carry(struct port_xstats *carry, const struct port_xstats *before,
		  const struct port_xstats *after)
{
	if (grow(carry, missing(carry, after)) != 0)
		return -ENOMEM;
	for (unsigned i = 0; i < after->n; i++) {
		int b = find_name(before, after->names[i]);
		int c = find_name(carry, after->names[i]);
		uint64_t d =
			grew(b >= 0 ? before->values[b] : 0, after->values[i]);

		if (c < 0) {
			c = (int)carry->n++;
			memcpy(carry->names[c], after->names[i],
			       PORT_XSTAT_NAME);
			carry->values[c] = 0;
		}
		carry->values[c] += d;
	}
	return 0;
}

int
port_xstats_add(struct port_xstats *x, const struct port_xstats *carry)
{
	if (grow(x, missing(x, carry)) != 0)
		return -ENOMEM;
	for (unsigned i = 0; i < carry->n; i++) {
		int k = find_name(x, carry->names[i]);

		if (k < 0) {
			k = (int)x->n++;
			memcpy(x->names[k], carry->names[i], PORT_XSTAT_NAME);
			x->values[k] = 0;
		}
		x->values[k] += carry->values[i];
	}
	return 0;
}

void
port_queue_stats_add(struct port_queue_stats *acc,
		     const struct port_queue_stats *d)
{
	uint16_t n = d->n <= PORT_QSTATS_MAX ? d->n : PORT_QSTATS_MAX;

	acc->ipackets += d->ipackets;
	acc->imissed += d->imissed;
	acc->ierrors += d->ierrors;
	for (uint16_t i = 0; i < n; i++) {
		acc->q_ipackets[i] += d->q_ipackets[i];
		acc->q_errors[i] += d->q_errors[i];
		acc->q_opackets[i] += d->q_opackets[i];
	}
	if (n > acc->n)
		acc->n = n;
}
