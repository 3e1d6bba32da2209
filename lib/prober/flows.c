/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many flows and the first packet of a flow. The flow of a probe is a
 * function of its sequence number alone (seq % N for --flows, seq / K for
 * --new-flow-every), so that the flow of an answer follows from the
 * sequence number it carries, however many probes are in flight.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/prober.h"

#define STAT_ADD(w, field, n) util_relaxed_add(&(w)->st.field, (n))

static unsigned
flow_index(uint64_t v)
{
	unsigned b =
		64u - (unsigned)__builtin_clzll(v | 31u) - PROBER_FLOW_SUB_BITS;

	return (b << (PROBER_FLOW_SUB_BITS - 1)) + (unsigned)(v >> b);
}

/* The highest value counter idx holds. */
static uint64_t
flow_index_highest(unsigned idx)
{
	const unsigned half = 1u << (PROBER_FLOW_SUB_BITS - 1);
	unsigned b;

	if (idx < 2 * half)
		return idx;
	b = idx / half - 1;
	return ((uint64_t)(idx - b * half) << b) + (1ull << b) - 1;
}

void
prober_flow_hist_record(struct prober_flow *f, uint64_t v)
{
	if (f->count == 0 || v < f->min)
		f->min = v;
	if (v > f->max)
		f->max = v;
	f->count++;
	if (v > PROBER_FLOW_HIGHEST) {
		f->overflow++;
		return;
	}
	if (f->counts[flow_index(v)] != UINT32_MAX)
		f->counts[flow_index(v)]++;
}

uint64_t
prober_flow_percentile(const struct prober_flow *f, double p)
{
	uint64_t rank, seen = 0;

	if (f->count == 0 || isnan(p))
		return 0;
	if (p <= 0.0)
		return f->min;
	if (p > 100.0)
		p = 100.0;
	rank = histogram_rank(p, f->count);
	for (unsigned i = 0; i < PROBER_FLOW_COUNTERS; i++) {
		seen += f->counts[i];
		if (seen >= rank) {
			uint64_t v = flow_index_highest(i);

			return v < f->min ? f->min : v > f->max ? f->max : v;
		}
	}
	return f->max; /* in overflow (or a saturated counter) */
}

static int
port_cmp(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

int
prober_flows_init(struct prober_worker *w)
{
	const struct prober_conf *c = w->conf;
	bool many = c->n_flows > 1, fresh = c->new_flow_every != 0;

	if (!many && !fresh)
		return 0;
	if ((many && fresh) || c->sports == NULL || c->n_sports == 0 ||
	    (many && c->n_sports != c->n_flows))
		return -EINVAL;
	if (!c->proto->udp && c->proto != &probe_proto_tcp_syn)
		return -EINVAL; /* ICMP: no port to vary */
	w->flow_ports = malloc(c->n_sports * sizeof(*w->flow_ports));
	if (w->flow_ports == NULL)
		return -ENOMEM;
	memcpy(w->flow_ports, c->sports, c->n_sports * sizeof(*c->sports));
	qsort(w->flow_ports, c->n_sports, sizeof(*w->flow_ports), port_cmp);
	for (uint32_t i = 1; i < c->n_sports; i++) {
		if (w->flow_ports[i] == w->flow_ports[i - 1]) {
			prober_flows_fini(w);
			return -EINVAL; /* two flows on one port */
		}
	}
	if (many) {
		w->flows = calloc(c->n_flows, sizeof(*w->flows));
		if (w->flows == NULL) {
			prober_flows_fini(w);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < c->n_flows; i++)
			w->flows[i].sport = c->sports[i];
	} else {
		w->first_rtt = histogram_create();
		if (w->first_rtt == NULL) {
			prober_flows_fini(w);
			return -ENOMEM;
		}
	}
	w->flow.sport = c->sports[0];
	return 0;
}

void
prober_flows_fini(struct prober_worker *w)
{
	free(w->flows);
	w->flows = NULL;
	free(w->flow_ports);
	w->flow_ports = NULL;
	histogram_destroy(w->first_rtt);
	w->first_rtt = NULL;
}

uint16_t
prober_flow_sport(const struct prober_worker *w, uint64_t seq)
{
	const struct prober_conf *c = w->conf;

	if (w->flows != NULL)
		return c->sports[seq % c->n_flows];
	if (w->first_rtt != NULL)
		return c->sports[seq / c->new_flow_every % c->n_sports];
	return w->flow.sport;
}

uint16_t
prober_flow_select(struct prober_worker *w, uint64_t seq)
{
	const struct prober_conf *c = w->conf;

	if (w->first_rtt != NULL && seq % c->new_flow_every == 0) {
		STAT_ADD(w, new_flows, 1);
		if (seq / c->new_flow_every >= c->n_sports)
			STAT_ADD(w, fresh_reused, 1);
	}
	return prober_flow_sport(w, seq);
}

bool
prober_flow_port_find(const struct prober_worker *w, uint16_t port)
{
	return bsearch(&port, w->flow_ports, w->conf->n_sports,
		       sizeof(*w->flow_ports), port_cmp) != NULL;
}

bool
prober_flow_take(struct prober_worker *w, uint64_t seq, uint64_t rtt)
{
	const struct prober_conf *c = w->conf;

	if (w->first_rtt != NULL && seq % c->new_flow_every == 0) {
		histogram_record(w->first_rtt, rtt);
		return true;
	}
	if (w->flows != NULL)
		prober_flow_hist_record(&w->flows[seq % c->n_flows], rtt);
	return false;
}

void
prober_flow_lost(struct prober_worker *w, uint64_t seq)
{
	const struct prober_conf *c = w->conf;

	if (w->flows != NULL)
		w->flows[seq % c->n_flows].lost++;
	else if (w->first_rtt != NULL && seq % c->new_flow_every == 0)
		STAT_ADD(w, first_lost, 1);
}
