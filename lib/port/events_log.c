/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run's port events in order (pure: no EAL), latprobe/events.h.
 */
#include <errno.h>
#include <string.h>

#include "latprobe/events.h"
#include "latprobe/util.h"

const char *const port_event_kind_name[PORT_EV__COUNT] = {
	[PORT_EV_LINK_DOWN] = "link_down",
	[PORT_EV_LINK_UP] = "link_up",
	[PORT_EV_REMOVED] = "removed",
	[PORT_EV_ATTACHED] = "attached",
	[PORT_EV_VF_REMOVED] = "vf_removed",
	[PORT_EV_PATH_SHIFT] = "path_shift",
};

void
port_events_log_init(struct port_events_log *l, bool up)
{
	memset(l, 0, sizeof(*l));
	l->down = !up;
	__atomic_store_n(&l->link_up, up ? 1 : 0, __ATOMIC_RELAXED);
}

int
port_events_note(struct port_events_log *l, enum port_event_kind kind,
		 uint64_t t_ns, uint32_t speed_mbps)
{
	uint64_t last = l->n != 0 ? l->ev[l->n - 1].t_ns : 0;

	if ((unsigned)kind >= PORT_EV__COUNT)
		return -EINVAL;
	if (t_ns < last)
		t_ns = last;
	switch (kind) {
	case PORT_EV_LINK_DOWN:
		if (l->down)
			return -EALREADY;
		l->down = true;
		l->down_since_ns = t_ns;
		__atomic_store_n(&l->link_up, 0, __ATOMIC_RELAXED);
		break;
	case PORT_EV_LINK_UP:
		if (!l->down)
			return -EALREADY;
		l->down = false;
		l->down_ns += t_ns - l->down_since_ns;
		__atomic_store_n(&l->link_up, 1, __ATOMIC_RELAXED);
		break;
	case PORT_EV_REMOVED:
		if (l->removed)
			return -EALREADY;
		l->removed = true;
		l->removed_at_ns = t_ns;
		break;
	case PORT_EV_ATTACHED:
		if (!l->removed)
			return -EALREADY;
		l->removed = false;
		break;
	case PORT_EV_VF_REMOVED:
	case PORT_EV_PATH_SHIFT:
		break; /* marks only: the port stays */
	default:
		return -EINVAL;
	}
	util_relaxed_add(&l->count[kind], 1);
	if (l->n == PORT_EVENTS_MAX) {
		l->dropped++;
		return 0;
	}
	l->ev[l->n++] = (struct port_event){
		.kind = kind,
		.t_ns = t_ns,
		.speed_mbps = kind == PORT_EV_LINK_UP ? speed_mbps : 0,
	};
	return 0;
}

uint64_t
port_events_down_ns(const struct port_events_log *l, uint64_t now_ns)
{
	uint64_t d = l->down_ns;

	if (l->down && now_ns > l->down_since_ns)
		d += now_ns - l->down_since_ns;
	return d;
}

unsigned
port_events_between(const struct port_events_log *l, enum port_event_kind kind,
		    uint64_t from_ns, uint64_t to_ns)
{
	unsigned k = 0;

	for (unsigned i = 0; i < l->n; i++)
		if (l->ev[i].kind == kind && l->ev[i].t_ns > from_ns &&
		    l->ev[i].t_ns <= to_ns)
			k++;
	return k;
}

bool
port_events_removed_at(const struct port_events_log *l, uint64_t t_ns)
{
	bool removed = false;
	unsigned i;

	for (i = 0; i < l->n && l->ev[i].t_ns <= t_ns; i++) {
		if (l->ev[i].kind == PORT_EV_REMOVED)
			removed = true;
		else if (l->ev[i].kind == PORT_EV_ATTACHED)
			removed = false;
	}
	/* Past the last kept event of a full log: the state as it is now. */
	if (i == l->n && l->dropped != 0)
		removed = l->removed;
	return removed;
}

/* The overlap of [a, b) with (from, to]. */
static uint64_t
overlap(uint64_t a, uint64_t b, uint64_t from, uint64_t to)
{
	uint64_t lo = a > from ? a : from, hi = b < to ? b : to;

	return hi > lo ? hi - lo : 0;
}

uint64_t
port_events_down_between(const struct port_events_log *l, uint64_t from_ns,
			 uint64_t to_ns)
{
	/* Replay the kept events from the state at the start: down at t 0
	 * when the first link event is an up (or none is kept and the log
	 * is down). */
	bool down = false;
	uint64_t since = 0, d = 0;
	bool first = true;

	for (unsigned i = 0; i < l->n; i++) {
		const struct port_event *v = &l->ev[i];

		if (v->kind == PORT_EV_REMOVED)
			continue;
		if (first) {
			down = v->kind == PORT_EV_LINK_UP;
			first = false;
		}
		if (v->kind == PORT_EV_LINK_DOWN && !down) {
			down = true;
			since = v->t_ns;
		} else if (v->kind == PORT_EV_LINK_UP && down) {
			d += overlap(since, v->t_ns, from_ns, to_ns);
			down = false;
		}
	}
	if (first)
		down = l->down;
	if (down)
		d += overlap(since, to_ns, from_ns, to_ns);
	return d;
}
