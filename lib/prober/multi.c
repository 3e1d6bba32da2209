/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/prober.h"

struct turn {
	unsigned gen;	     /* prober_set.gen[] of the worker it is about */
	uint64_t answered;   /* st.answered before the worker's last step */
	unsigned dead;	     /* consecutive unanswered probes (warm-up too) */
	uint64_t rest_until; /* cycles; 0 = may go */
	bool begun, done;
};

void
prober_set_init(struct prober_set *s, bool open)
{
	memset(s, 0, sizeof(*s));
	s->open = open;
}

int
prober_set_add(struct prober_set *s, struct prober_worker *w)
{
	unsigned n = __atomic_load_n(&s->n, __ATOMIC_RELAXED);

	if (n >= PROBER_SET_MAX)
		return -ENOSPC;
	__atomic_store_n(&s->w[n], w, __ATOMIC_RELAXED);
	/* The worker is whole before the lcore can see it. */
	__atomic_store_n(&s->n, n + 1, __ATOMIC_RELEASE);
	return 0;
}

void
prober_set_retire(struct prober_set *s, unsigned i)
{
	if (i < PROBER_SET_MAX)
		__atomic_store_n(&s->retired[i], true, __ATOMIC_RELAXED);
}

bool
prober_set_reusable(const struct prober_set *s, unsigned i)
{
	const struct prober_worker *w;

	if (i >= __atomic_load_n(&s->n, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&s->retired[i], __ATOMIC_RELAXED))
		return false;
	w = __atomic_load_n(&s->w[i], __ATOMIC_RELAXED);
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

int
prober_set_reuse(struct prober_set *s, unsigned i, struct prober_worker *w)
{
	if (i >= __atomic_load_n(&s->n, __ATOMIC_RELAXED))
		return -EINVAL;
	__atomic_store_n(&s->w[i], w, __ATOMIC_RELAXED);
	__atomic_store_n(&s->retired[i], false, __ATOMIC_RELAXED);
	/* The worker and its place are whole before the lcore sees the new
	 * generation (load acquire). */
	__atomic_store_n(&s->gen[i], s->gen[i] + 1, __ATOMIC_RELEASE);
	return 0;
}

/* The turn of place i, afresh when a new worker took it. */
static struct turn *
turn_of(const struct prober_set *s, struct turn *t, unsigned i)
{
	unsigned g = __atomic_load_n(&s->gen[i], __ATOMIC_ACQUIRE);

	if (g != t[i].gen)
		t[i] = (struct turn){.gen = g};
	return &t[i];
}

static bool
mac_zero(const struct codec_mac *m)
{
	static const struct codec_mac zero;

	return memcmp(m, &zero, sizeof(zero)) == 0;
}

/* The peer's MAC of a worker added without one; false if none came. */
static bool
resolve(const struct prober_set *s, struct prober_worker *w,
	const atomic_bool *stop)
{
	struct codec_flow *f = &w->flow;

	if (s->arp_timeout_ms == 0 || !mac_zero(&f->dst_mac))
		return true;
	if (prober_arp_resolve_vlan(
		    w->q, &f->src_mac, f->src4,
		    f->vlan ? (uint16_t)(f->vlan_tci & 0xfff) : 0, f->dst4,
		    s->arp_timeout_ms, &w->conf->clock, &f->dst_mac, stop) == 0)
		return true;
	w->unresolved = true;
	return false;
}

static void
finish(struct turn *t, struct prober_worker *w)
{
	t->done = true;
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
}

int
prober_set_run(struct prober_set *s, uint64_t backoff_cycles,
	       const atomic_bool *stop)
{
	struct turn *t = calloc(PROBER_SET_MAX, sizeof(*t));
	unsigned next = 0;
	int err = 0;

	if (t == NULL)
		return -ENOMEM;
	while (!atomic_load_explicit(stop, memory_order_relaxed)) {
		unsigned n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
		struct prober_worker *w = NULL, *resting = NULL;
		unsigned k = 0, left = 0;
		int ret;

		/* Round robin over those that may go now. */
		for (unsigned j = 0; j < n; j++) {
			unsigned i = (next + j) % n;
			struct prober_worker *c;

			if (turn_of(s, t, i)->done)
				continue;
			c = __atomic_load_n(&s->w[i], __ATOMIC_RELAXED);
			if (!t[i].begun && s->resume && c->t_start != 0 &&
			    !c->unresolved) {
				/* It began before the device went: goes on. */
				t[i].begun = true;
				c->step_next_send = 0;
				c->nombuf_since = 0;
				__atomic_store_n(&c->done, false,
						 __ATOMIC_RELEASE);
			}
			if (!t[i].begun) {
				t[i].begun = true;
				if (!resolve(s, c, stop)) {
					finish(&t[i], c);
					continue;
				}
				ret = prober_worker_begin(c);
				if (ret != 0) {
					if (err == 0)
						err = ret;
					finish(&t[i], c);
					continue;
				}
			}
			if (__atomic_load_n(&s->retired[i], __ATOMIC_RELAXED)) {
				finish(&t[i], c);
				continue;
			}
			left++;
			if (t[i].rest_until != 0 &&
			    io_clock(c->q) < t[i].rest_until) {
				/* A resting worker still stops at -t. */
				if (c->step_deadline != 0 &&
				    io_clock(c->q) >= c->step_deadline) {
					finish(&t[i], c);
					left--;
				} else if (resting == NULL) {
					resting = c;
				}
				continue;
			}
			if (w == NULL) {
				w = c;
				k = i;
			}
		}
		if (left == 0 && !s->open)
			break;
		if (w == NULL) {
			/* All resting, or waiting for workers: keep our
			 * address answering ARP/NS meanwhile. */
			if (resting != NULL)
				prober_worker_poll(resting);
			else if (s->idle_q != NULL)
				prober_answer_neighbours(s->idle_q,
							 &s->idle_flow);
			continue;
		}
		next = k + 1;
		t[k].rest_until = 0;
		t[k].answered = prober_stat_read(&w->st.answered);
		/* Its loop did not run while the others had their turns. */
		stall_rebase(&w->stall, io_clock(w->q));
		ret = prober_worker_step(w, stop);
		if (ret <= 0) {
			if (ret < 0 && err == 0)
				err = ret;
			finish(&t[k], w);
			continue;
		}
		if (prober_stat_read(&w->st.answered) == t[k].answered)
			t[k].dead++;
		else
			t[k].dead = 0;
		if (t[k].dead >= PROBER_MULTI_DEAD && backoff_cycles != 0) {
			t[k].rest_until = io_clock(w->q) + backoff_cycles;
			/* Silent in warm-up: warm-up ends, so that its
			 * probes count as lost from now on rather than
			 * after -w tries at one per backoff. */
			if (w->step_seq < w->conf->warmup)
				w->step_seq = w->conf->warmup;
		}
	}
	for (unsigned i = 0; i < __atomic_load_n(&s->n, __ATOMIC_ACQUIRE); i++)
		if (!turn_of(s, t, i)->done)
			finish(&t[i],
			       __atomic_load_n(&s->w[i], __ATOMIC_RELAXED));
	free(t);
	return err;
}

int
prober_multi_run(struct prober_worker *const *ws, unsigned n,
		 uint64_t backoff_cycles, const atomic_bool *stop)
{
	struct prober_set *s = malloc(sizeof(*s));
	int ret;

	if (s == NULL)
		return -ENOMEM;
	if (n > PROBER_SET_MAX) {
		free(s);
		return -EINVAL;
	}
	prober_set_init(s, false);
	for (unsigned i = 0; i < n; i++)
		(void)prober_set_add(s, ws[i]);
	ret = prober_set_run(s, backoff_cycles, stop);
	free(s);
	return ret;
}
