/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path over the run (path_watch.h). Pollers (the port thread; the main
 * thread before and after a re-attach and once at the end) one at a time
 * under read_mu; the timeline's readers (the side thread's interval marks,
 * the report) under mu, which is never held while the PMD is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "link_events.h"
#include "path_watch.h"
#include "run.h"
#include "latprobe/port.h"

struct app_path {
	pthread_mutex_t mu;	 /* the timeline (tl), for its readers */
	pthread_mutex_t read_mu; /* the pollers: prev, held, vf_subs */
	bool on;
	enum port_path_kind kind;
	uint32_t vf_subs;
	struct port_xstats prev;
	struct port_path_timeline tl;
	struct report_path_shift rs[PORT_PATH_SHIFTS_MAX];
	/* The port thread, which also polls the link (app_link_poll): an
	 * xstats or link read of failsafe waits for failsafe's lock, which
	 * its hot-plug alarm holds while it probes the VF again (3 s under
	 * emulation); the side thread's intervals, live line and deadline
	 * must not wait with it. */
	struct app_tick tick;
	struct app_thread thread;
	struct app_run *r;
	/* Between app_path_hold() and app_path_rebase(): the port is being
	 * replaced, its last counts are in. */
	bool held;
};

static struct app_path app_path = {.mu = PTHREAD_MUTEX_INITIALIZER,
				   .read_mu = PTHREAD_MUTEX_INITIALIZER};

/* A copy of x into out (allocated); 0 or -ENOMEM. */
static int
xstats_copy(struct port_xstats *out, const struct port_xstats *x)
{
	if (port_xstats_alloc(out, x->n) != 0)
		return -ENOMEM;
	memcpy(out->names, x->names, (size_t)x->n * sizeof(*x->names));
	memcpy(out->values, x->values, (size_t)x->n * sizeof(*x->values));
	return 0;
}

void
app_path_start(struct app_run *r, const struct port_xstats *base)
{
	struct app_path *a = &app_path;

	pthread_mutex_lock(&a->read_mu);
	pthread_mutex_lock(&a->mu);
	port_xstats_free(&a->prev);
	/* Everything but the two mutexes (the first members). */
	memset((char *)a + offsetof(struct app_path, read_mu) +
		       sizeof(a->read_mu),
	       0,
	       sizeof(*a) - offsetof(struct app_path, read_mu) -
		       sizeof(a->read_mu));
	port_path_timeline_init(&a->tl);
	a->kind = port_path_kind_of(r->port.driver);
	if (r->dpdk_ready && port_path_has_vf(a->kind) &&
	    (base != NULL && base->names != NULL
		     ? xstats_copy(&a->prev, base)
		     : port_xstats_read(r->port.id, &a->prev)) == 0) {
		a->vf_subs = port_failsafe_vf_subs(r->port.id);
		a->on = true;
	}
	pthread_mutex_unlock(&a->mu);
	pthread_mutex_unlock(&a->read_mu);
}

static void *
path_thread(void *arg)
{
	struct app_path *a = arg;
	double next = PATH_POLL_S, el;

	while (app_tick_sleep_until(&a->tick, next)) {
		el = app_tick_elapsed(&a->tick);
		app_link_poll(a->r);
		if (a->on)
			app_path_poll(a->r, el);
		while (next <= el)
			next += PATH_POLL_S;
	}
	return NULL;
}

void
app_path_begin(struct app_run *r)
{
	struct app_path *a = &app_path;
	int ret;

	if (!a->on && !app_link_on())
		return;
	a->r = r;
	app_tick_init(&a->tick);
	ret = app_thread_start(&a->thread, "lp-port", true, path_thread, a);
	if (ret != 0)
		app_warn("cannot start the port thread (%s): no link events "
			 "and path shifts while the run lasts, only at its end",
			 strerror(-ret));
}

void
app_path_end(void)
{
	struct app_path *a = &app_path;

	if (a->r == NULL)
		return;
	app_tick_stop(&a->tick);
	if (a->thread.started)
		app_thread_join(&a->thread);
	app_tick_fini(&a->tick);
	a->r = NULL;
}

bool
app_path_on(void)
{
	return app_path.on;
}

void
app_path_rebase(struct app_run *r, const struct port_xstats *base)
{
	struct app_path *a = &app_path;

	pthread_mutex_lock(&a->read_mu);
	a->held = false;
	if (a->on) {
		port_xstats_free(&a->prev);
		if ((base != NULL && base->names != NULL
			     ? xstats_copy(&a->prev, base)
			     : port_xstats_read(r->port.id, &a->prev)) != 0)
			memset(&a->prev, 0, sizeof(a->prev));
		a->vf_subs = port_failsafe_vf_subs(r->port.id);
	}
	pthread_mutex_unlock(&a->read_mu);
}

/* The sample now (owned: it becomes prev) against prev, fed to the
 * timeline; read_mu held. */
static void
feed(struct app_path *a, struct app_run *r, double el, struct port_xstats *now)
{
	struct port_path_split d;
	struct port_path_shift s = {0};
	uint64_t t_ns = el > 0 ? (uint64_t)(el * 1e9) : 0;
	bool shifted = false, kept = false;

	if (port_path_split(a->kind, &a->prev, now, a->vf_subs, &d) == 0) {
		pthread_mutex_lock(&a->mu);
		shifted = port_path_timeline_feed(&a->tl, t_ns, &d) == 1;
		if (shifted && a->tl.dropped == 0) {
			s = a->tl.shift[a->tl.n - 1];
			kept = true;
		}
		pthread_mutex_unlock(&a->mu);
	}
	if (shifted) {
		uint64_t vf_gone = app_link_vf_removed_before_ns(t_ns);
		enum port_path_now to = kept ? s.to : a->tl.cur;
		char took[96] = "";

		if (kept && s.to == PORT_PATH_NOW_SYNTHETIC &&
		    vf_gone != UINT64_MAX && vf_gone <= t_ns)
			snprintf(took, sizeof(took),
				 " (%.3f s after the VF's removal)",
				 (double)(t_ns - vf_gone) / 1e9);
		app_link_note(PORT_EV_PATH_SHIFT, t_ns);
		fprintf(stderr,
			"latprobe %s: port %u (%s): the packets go over the "
			"%s path from %.3f s on%s\n",
			r->cmd->name, r->port.id, r->port.name,
			to == PORT_PATH_NOW_VF ? "VF" : "synthetic", el, took);
		if (r->cmd->path_shift != NULL)
			r->cmd->path_shift(r, el, to);
	}
	port_xstats_free(&a->prev);
	a->prev = *now;
}

void
app_path_poll(struct app_run *r, double el)
{
	struct app_path *a = &app_path;
	struct port_xstats now;
	int ret;

	/* One poller at a time (prev, held are theirs); mu only for the
	 * timeline's update, never while the PMD is read: failsafe's xstats
	 * wait for its lock while its alarm probes a VF, and the side
	 * thread's interval marks take mu. */
	pthread_mutex_lock(&a->read_mu);
	/* No port while a failover or re-attach makes it again. */
	if (!a->on || a->held || a->prev.names == NULL ||
	    !app_link_port_acquire()) {
		pthread_mutex_unlock(&a->read_mu);
		return;
	}
	ret = port_xstats_read(r->port.id, &now);
	app_link_port_release();
	if (ret == 0)
		feed(a, r, el, &now);
	pthread_mutex_unlock(&a->read_mu);
}

/* The last sample of a port from a snapshot the caller read (the same
 * counts as its xstats report), then no poll until app_path_rebase(). */
static void
feed_last(struct app_run *r, double el, const struct port_xstats *x)
{
	struct app_path *a = &app_path;
	struct port_xstats now;

	pthread_mutex_lock(&a->read_mu);
	/* Held or not: the caller's snapshot is of the port prev is of (the
	 * run ended after the hold before a re-attach that did not come:
	 * xs_end's read is later, and frames counted in between are in the
	 * report). */
	if (a->on && a->prev.names != NULL && x != NULL && x->names != NULL &&
	    xstats_copy(&now, x) == 0)
		feed(a, r, el, &now);
	a->held = a->on;
	pthread_mutex_unlock(&a->read_mu);
}

void
app_path_hold(struct app_run *r, double el, const struct port_xstats *last)
{
	if (last != NULL) {
		feed_last(r, el, last);
		return;
	}
	app_path_poll(r, el);
	pthread_mutex_lock(&app_path.read_mu);
	app_path.held = app_path.on;
	pthread_mutex_unlock(&app_path.read_mu);
}

void
app_path_interval(struct report_interval *iv, double from_el, double el)
{
	struct app_path *a = &app_path;
	const struct port_path_timeline *t = &a->tl;
	uint64_t from = from_el > 0 ? (uint64_t)(from_el * 1e9) : 0;
	uint64_t to = el > 0 ? (uint64_t)(el * 1e9) : 0;

	if (!a->on)
		return;
	pthread_mutex_lock(&a->mu);
	iv->path_shifts = 0;
	iv->path_from = NULL;
	for (unsigned i = 0; i < t->n; i++) {
		if (t->shift[i].t_ns <= from || t->shift[i].t_ns > to)
			continue;
		if (iv->path_shifts++ == 0)
			iv->path_from = port_path_now_name(t->shift[i].from);
	}
	/* The path at the interval's end: the last shift before it. */
	iv->path = port_path_now_name(t->cur);
	for (unsigned i = t->n; i-- > 0;) {
		if (t->shift[i].t_ns <= to) {
			iv->path = port_path_now_name(t->shift[i].to);
			break;
		}
		iv->path = port_path_now_name(t->shift[i].from);
	}
	if (t->cur == PORT_PATH_NOW_IDLE && t->n == 0)
		iv->path = NULL; /* nothing seen yet */
	pthread_mutex_unlock(&a->mu);
}

void
app_path_metrics(struct metrics_buf *b)
{
	struct app_path *a = &app_path;
	enum port_path_now now = __atomic_load_n(&a->tl.cur, __ATOMIC_RELAXED);
	static const enum port_path_now paths[] = {PORT_PATH_NOW_VF,
						   PORT_PATH_NOW_SYNTHETIC};
	struct metrics_label l[1];

	if (!a->on || now == PORT_PATH_NOW_IDLE)
		return;
	metrics_family(b, "latprobe_port_path", "gauge",
		       "The path that carries the port's packets now (1): the "
		       "VF or the synthetic fallback (netvsc, failsafe)");
	for (unsigned i = 0; i < 2; i++) {
		l[0] = (struct metrics_label){"path",
					      port_path_now_name(paths[i])};
		metrics_gauge(b, "latprobe_port_path", l, 1,
			      now == paths[i] ? 1.0 : 0.0);
	}
}

const char *
app_path_now(void)
{
	return port_path_now_name(app_path.tl.cur);
}

void
app_path_fill(struct report_port_path *p)
{
	struct app_path *a = &app_path;
	const struct port_path_timeline *t = &a->tl;
	uint64_t vf_gone_before = UINT64_MAX;
	struct port_path_split sp;

	if (!a->on)
		return;
	pthread_mutex_lock(&a->mu);
	for (unsigned i = 0; i < t->n; i++) {
		const struct port_path_shift *s = &t->shift[i];

		vf_gone_before = app_link_vf_removed_before_ns(s->t_ns);
		a->rs[i] = (struct report_path_shift){
			.t_s = (double)s->t_ns / 1e9,
			.from = port_path_now_name(s->from),
			.to = port_path_now_name(s->to),
			.took_s = s->to == PORT_PATH_NOW_SYNTHETIC &&
						  vf_gone_before != UINT64_MAX
					  ? (double)(s->t_ns - vf_gone_before) /
						    1e9
					  : -1.0,
		};
	}
	p->timeline = true;
	p->shifts = a->rs;
	p->n_shifts = t->n;
	p->shifts_dropped = t->dropped;
	p->poll_s = PATH_POLL_S;
	/* The run's split from the samples: the stats of a port made again
	 * start from 0, the samples' sums do not. */
	sp = (struct port_path_split){.vf_rx = t->vf_rx,
				      .vf_tx = t->vf_tx,
				      .syn_rx = t->syn_rx,
				      .syn_tx = t->syn_tx};
	if (p->split || t->vf_rx + t->vf_tx + t->syn_rx + t->syn_tx != 0) {
		p->split = true;
		p->vf_rx = sp.vf_rx;
		p->vf_tx = sp.vf_tx;
		p->synthetic_rx = sp.syn_rx;
		p->synthetic_tx = sp.syn_tx;
		p->vf_share = port_path_vf_share(&sp);
	}
	pthread_mutex_unlock(&a->mu);
}

void
app_path_stop(void)
{
	struct app_path *a = &app_path;

	pthread_mutex_lock(&a->read_mu);
	port_xstats_free(&a->prev);
	a->on = false;
	pthread_mutex_unlock(&a->read_mu);
}
