/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's link and removal events during a run: see
 * link_events.h. Writers: the port thread (path_watch.c) (and the main thread
 * once after it was joined); the EAL interrupt thread only through port_events'
 * atomics and on_event() below.
 */
#include <inttypes.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "cli.h"
#include "link_events.h"
#include "run.h"
#include "latprobe/port.h"
#include "latprobe/prober.h"

struct app_link {
	/* The log's writers, the port thread and (re-attach) the main
	 * thread, one at a time, and its readers (the side thread's marks).
	 * Never held while the PMD is read: read_mu orders the readers of
	 * the PMD; lock order read_mu, then port_mu or mu, never both. */
	pthread_mutex_t mu;
	pthread_mutex_t read_mu;
	bool on;
	bool attached; /* port_events' callbacks registered */
	struct port_events ev;
	struct port_events_log log;
	struct io_link io;
	uint64_t t0_tsc;
	/* The end of the last interval marked (app_link_interval()), on the
	 * events' clock. */
	uint64_t iv_to_ns;
	const struct tsc_clock *clk;
	const char *cmd;
	uint16_t port_id;
	char port_name[64];
	bool removed_logged;
	bool released;
	/* A failsafe port's VF sub-device without a removal interrupt is
	 * being removed: the workers stopped, the main thread re-creates the
	 * port over the fallback (set on the interrupt thread). */
	atomic_bool failover;
	char vf_gone[64];     /* its name, for the messages */
	bool release_at_stop; /* a failover a signal cut short */
	/* The live line's: events already said. */
	unsigned live_seen;
	/* The report's copy. */
	struct report_port_event rev[PORT_EVENTS_MAX];
	struct report_port_events rep;
};

static struct app_link app_link = {.mu = PTHREAD_MUTEX_INITIALIZER,
				   .read_mu = PTHREAD_MUTEX_INITIALIZER};

/* Held while anyone but the workers uses the port from another thread
 * (path_watch.c's xstats reads) and while the main thread releases and
 * makes it again: port_away says it is not there. */
static pthread_mutex_t port_mu = PTHREAD_MUTEX_INITIALIZER;
static bool port_away;

bool
app_link_port_acquire(void)
{
	pthread_mutex_lock(&port_mu);
	if (port_away) {
		pthread_mutex_unlock(&port_mu);
		return false;
	}
	return true;
}

void
app_link_port_release(void)
{
	pthread_mutex_unlock(&port_mu);
}

static void
port_set_away(bool away)
{
	pthread_mutex_lock(&port_mu);
	port_away = away;
	pthread_mutex_unlock(&port_mu);
}

void
app_link_note(enum port_event_kind kind, uint64_t t_ns)
{
	pthread_mutex_lock(&app_link.mu);
	if (app_link.on)
		(void)port_events_note(&app_link.log, kind, t_ns, 0);
	pthread_mutex_unlock(&app_link.mu);
}

uint64_t
app_link_vf_removed_before_ns(uint64_t t_ns)
{
	struct app_link *a = &app_link;
	uint64_t at = UINT64_MAX;

	pthread_mutex_lock(&a->mu);
	for (unsigned i = 0; a->on && i < a->log.n; i++)
		if (a->log.ev[i].kind == PORT_EV_VF_REMOVED &&
		    a->log.ev[i].t_ns <= t_ns)
			at = a->log.ev[i].t_ns;
	pthread_mutex_unlock(&a->mu);
	return at;
}

static uint64_t
ns_since_start(uint64_t tsc)
{
	struct app_link *a = &app_link;

	if (tsc <= a->t0_tsc || a->t0_tsc == 0)
		return 0;
	return tsc_to_ns(a->clk, tsc - a->t0_tsc);
}

/* EAL interrupt thread: a removal stops the workers at once; so does the
 * removal of a failsafe port's VF sub-device that failsafe does not hear
 * of (its PMD raises no RTE_ETH_EVENT_INTR_RMV): latprobe moves the port
 * to the fallback for it (app_link_reattach). */
static void
on_event(void *arg, enum port_event_kind kind)
{
	struct app_link *a = &app_link;

	(void)arg;
	if (kind == PORT_EV_REMOVED) {
		atomic_store_explicit(&a->io.removed, true,
				      memory_order_relaxed);
		app_quit_set();
	} else if (kind == PORT_EV_VF_REMOVED) {
		unsigned i = atomic_load_explicit(&a->ev.vf_removed_sub,
						  memory_order_relaxed);

		if (i < a->ev.n_vf_subs && !a->ev.vf_sub_rmv[i]) {
			atomic_store_explicit(&a->failover, true,
					      memory_order_release);
			app_quit_set();
		}
	}
}

void
app_link_start(struct app_run *r)
{
	struct app_link *a = &app_link;
	uint32_t speed = 0;
	int ret;

	/* Everything but the two mutexes (the first members). */
	memset((char *)a + offsetof(struct app_link, read_mu) +
		       sizeof(a->read_mu),
	       0,
	       sizeof(*a) - offsetof(struct app_link, read_mu) -
		       sizeof(a->read_mu));
	if (!r->dpdk_ready)
		return;
	a->clk = &r->clk.clock;
	a->cmd = r->cmd->name;
	a->port_id = r->port.id;
	snprintf(a->port_name, sizeof(a->port_name), "%s", r->port.name);
	ret = port_events_attach(&a->ev, r->port.id, on_event, NULL);
	if (ret != 0)
		app_warn("port %u (%s): no link/removal callbacks (%s): the "
			 "link is polled",
			 r->port.id, r->port.name, strerror(-ret));
	a->attached = true;
	/* The state at the start is the baseline, not an event. */
	{
		bool up = false;
		uint64_t tsc;

		if (port_events_link_poll(&a->ev, &up, &speed, &tsc) < 0)
			up = true;
		port_events_log_init(&a->log, up);
		if (!up)
			io_link_set_down(&a->io, rte_rdtsc());
	}
	a->on = true;
}

void
app_link_begin(struct app_run *r)
{
	(void)r;
	app_link.t0_tsc = rte_rdtsc();
	if (app_link.log.down)
		io_link_set_down(&app_link.io, app_link.t0_tsc);
}

bool
app_link_on(void)
{
	return app_link.on;
}

const struct io_link *
app_link_io(void)
{
	return app_link.on ? &app_link.io : NULL;
}

bool
app_link_removed(void)
{
	return app_link.on && app_link.log.removed;
}

bool
app_link_down(void)
{
	return app_link.on && app_link.log.down;
}

/* A VF sub-device's removal into the log, once, with a line. */
static void
vf_removed_note(struct app_link *a)
{
	uint64_t t = atomic_load_explicit(&a->ev.vf_removed_tsc,
					  memory_order_relaxed);
	unsigned i = atomic_load_explicit(&a->ev.vf_removed_sub,
					  memory_order_relaxed);
	uint64_t ns = ns_since_start(t);
	bool ours = atomic_load_explicit(&a->failover, memory_order_acquire);

	atomic_store_explicit(&a->ev.vf_removed_tsc, 0, memory_order_relaxed);
	atomic_store_explicit(&a->ev.vf_removed, false, memory_order_release);
	if (i >= a->ev.n_vf_subs)
		return;
	snprintf(a->vf_gone, sizeof(a->vf_gone), "%s", a->ev.vf_sub[i]);
	(void)port_events_note(&a->log, PORT_EV_VF_REMOVED, ns, 0);
	fprintf(stderr,
		"latprobe %s: port %u (%s): its VF sub-device %s is being "
		"removed (at %.3f s): %s\n",
		a->cmd, a->port_id, a->port_name, a->vf_gone, (double)ns / 1e9,
		ours ? "its PMD raises no removal interrupt, so failsafe "
		       "cannot move by itself: latprobe re-creates the port "
		       "over the fallback"
		     : "failsafe moves the packets to the fallback");
}

/* The notes that read no PMD (a removal, a VF's removal), under a->mu:
 * false when the link is not to be read now. */
static bool
link_notes(struct app_link *a)
{
	if (!a->on || a->log.removed)
		return false;
	if (atomic_load_explicit(&a->ev.removed, memory_order_acquire)) {
		uint64_t t = atomic_load_explicit(&a->ev.removed_tsc,
						  memory_order_relaxed);
		uint64_t ns = ns_since_start(t);

		(void)port_events_note(&a->log, PORT_EV_REMOVED, ns, 0);
		fprintf(stderr,
			"latprobe %s: port %u (%s): the device is being "
			"removed (at %.3f s): stopping the run and releasing "
			"it\n",
			a->cmd, a->port_id, a->port_name, (double)ns / 1e9);
		return false; /* its link is not read any more */
	}
	if (atomic_load_explicit(&a->ev.vf_removed, memory_order_acquire))
		vf_removed_note(a);
	return true;
}

/* A change of the link read from the PMD into the log, under a->mu. */
static void
link_change(struct app_link *a, bool up, uint32_t speed, uint64_t tsc)
{
	if (tsc == 0)
		tsc = rte_rdtsc();
	if (up) {
		uint64_t ns = ns_since_start(tsc), since = a->log.down_since_ns;
		char sp[32] = "speed unknown";

		if (port_events_note(&a->log, PORT_EV_LINK_UP, ns, speed) != 0)
			return;
		io_link_set_up(&a->io, tsc);
		if (speed != 0)
			snprintf(sp, sizeof(sp), "%" PRIu32 " Mb/s", speed);
		fprintf(stderr,
			"latprobe %s: port %u (%s): link up at %.3f s (%s) "
			"after %.3f s down\n",
			a->cmd, a->port_id, a->port_name, (double)ns / 1e9, sp,
			ns > since ? (double)(ns - since) / 1e9 : 0.0);
	} else {
		uint64_t ns = ns_since_start(tsc);

		if (port_events_note(&a->log, PORT_EV_LINK_DOWN, ns, 0) != 0)
			return;
		io_link_set_down(&a->io, tsc);
		fprintf(stderr,
			"latprobe %s: port %u (%s): link down at %.3f s: "
			"probes lost from now on are the link's "
			"(probes.lost_link_down), not the path's\n",
			a->cmd, a->port_id, a->port_name, (double)ns / 1e9);
	}
}

void
app_link_poll(struct app_run *r)
{
	struct app_link *a = &app_link;
	bool go, up = true;
	uint32_t speed = 0;
	uint64_t tsc = 0;
	int ret = 0;

	(void)r;
	/* One reader of the PMD at a time (the port thread; the main thread
	 * before a re-attach and at the end). */
	pthread_mutex_lock(&a->read_mu);
	pthread_mutex_lock(&a->mu);
	go = link_notes(a);
	pthread_mutex_unlock(&a->mu);
	/* The PMD's link off a->mu: failsafe's link read waits for its lock
	 * while its hot-plug alarm probes the VF (seconds under emulation),
	 * and the side thread's live and interval marks take a->mu. */
	if (go && app_link_port_acquire()) {
		ret = port_events_link_poll(&a->ev, &up, &speed, &tsc);
		app_link_port_release();
	}
	if (ret > 0) {
		pthread_mutex_lock(&a->mu);
		link_change(a, up, speed, tsc);
		pthread_mutex_unlock(&a->mu);
	}
	pthread_mutex_unlock(&a->read_mu);
}

int
app_link_live_mark(char *buf, size_t cap)
{
	struct app_link *a = &app_link;
	uint64_t now;
	int n = 0;

	if (!a->on || cap == 0)
		return 0;
	pthread_mutex_lock(&a->mu); /* the port thread writes the log */
	buf[0] = '\0';
	now = ns_since_start(rte_rdtsc());
	if (a->log.removed)
		n = report_live_mark(buf, cap, REPORT_LIVE_REMOVED, 0);
	else if (a->log.down)
		n = report_live_mark(buf, cap, REPORT_LIVE_DOWN,
				     (double)(now - a->log.down_since_ns) /
					     1e9);
	else if (a->log.n != a->live_seen)
		n = report_live_mark(buf, cap, REPORT_LIVE_FLAPPED,
				     (double)port_events_down_ns(&a->log, now) /
					     1e9);
	a->live_seen = a->log.n;
	pthread_mutex_unlock(&a->mu);
	return n < 0 ? 0 : n;
}

void
app_link_interval(struct report_interval *iv)
{
	struct app_link *a = &app_link;
	uint64_t from, to;

	/* The marks on the events' own clock (the TSC), from the end of the
	 * last interval to now, after the interval's counts were read: the
	 * interval's times are CLOCK_MONOTONIC's, and an emulated TSC can
	 * drift from it by tenths of a second over a run. */
	if (!a->on)
		return;
	pthread_mutex_lock(&a->mu); /* the port thread writes the log */
	to = ns_since_start(rte_rdtsc());
	from = a->iv_to_ns < to ? a->iv_to_ns : to;
	a->iv_to_ns = to;
	iv->link_downs =
		port_events_between(&a->log, PORT_EV_LINK_DOWN, from, to);
	iv->link_ups = port_events_between(&a->log, PORT_EV_LINK_UP, from, to);
	iv->link_down_s =
		(double)port_events_down_between(&a->log, from, to) / 1e9;
	iv->link_down_at_end = a->log.down;
	/* Both from the log at the interval's times, not the state now: the
	 * interval may be taken well after its end (a busy side thread), when
	 * the device is already back. */
	iv->removed =
		port_events_between(&a->log, PORT_EV_REMOVED, from, to) != 0 ||
		port_events_removed_at(&a->log, from);
	iv->attached =
		port_events_between(&a->log, PORT_EV_ATTACHED, from, to) != 0;
	pthread_mutex_unlock(&a->mu);
}

const struct report_port_events *
app_link_report(double duration_s)
{
	struct app_link *a = &app_link;
	struct report_port_events *e = &a->rep;
	uint64_t end = duration_s > 0 ? (uint64_t)(duration_s * 1e9) : 0;

	if (!a->on)
		return NULL;
	memset(e, 0, sizeof(*e));
	for (unsigned i = 0; i < a->log.n; i++) {
		const struct port_event *v = &a->log.ev[i];

		a->rev[i] = (struct report_port_event){
			.t_s = (double)v->t_ns / 1e9,
			.kind = port_event_kind_name[v->kind],
			.speed_mbps = v->speed_mbps,
		};
	}
	e->ev = a->rev;
	e->n = a->log.n;
	e->dropped = a->log.dropped;
	e->downs = a->log.count[PORT_EV_LINK_DOWN];
	e->ups = a->log.count[PORT_EV_LINK_UP];
	if (end < a->log.down_since_ns)
		end = a->log.down_since_ns;
	e->down_s = (double)port_events_down_ns(&a->log, end) / 1e9;
	e->link_up_at_end = !a->log.down;
	e->detection = a->ev.lsc ? "interrupt" : "polled";
	e->removed = a->log.count[PORT_EV_REMOVED] != 0;
	e->removed_at_s = (double)a->log.removed_at_ns / 1e9;
	e->attached = e->removed && !a->log.removed;
	for (unsigned i = 0; e->attached && i < a->log.n; i++)
		if (a->log.ev[i].kind == PORT_EV_ATTACHED)
			e->attached_at_s = (double)a->log.ev[i].t_ns / 1e9;
	return e;
}

void
app_link_metrics(struct metrics_buf *b)
{
	struct app_link *a = &app_link;
	struct metrics_label l[1];

	if (!a->on)
		return;
	metrics_family(b, "latprobe_link_up", "gauge",
		       "The port's link is up (1) or down (0), as latprobe "
		       "last saw it");
	metrics_gauge(b, "latprobe_link_up", NULL, 0,
		      (double)util_relaxed_read(&a->log.link_up));
	metrics_family(b, "latprobe_port_events_total", "counter",
		       "Port events during the run: link_down, link_up, "
		       "removed, attached");
	for (unsigned k = 0; k < PORT_EV__COUNT; k++) {
		l[0] = (struct metrics_label){"kind", port_event_kind_name[k]};
		metrics_counter(b, "latprobe_port_events_total", l, 1,
				util_relaxed_read(&a->log.count[k]));
	}
}

/*
 * Release a's removed device (the removal can complete once we let go) and
 * say so: waiting for it to come back (a --forever run, a reflector
 * service) or not; a failure is warned.
 */
static void
release_removed(struct app_link *a, bool waiting)
{
	int ret = port_events_release(&a->ev);

	if (ret != 0)
		app_warn("port %u (%s): releasing the removed device failed: "
			 "%s",
			 a->port_id, a->port_name, strerror(-ret));
	else if (waiting)
		fprintf(stderr,
			"latprobe %s: port %u (%s): released; waiting for the "
			"device (%s) to come back (SIGINT ends the run)\n",
			a->cmd, a->port_id, a->port_name, a->ev.dev_name);
	else
		fprintf(stderr,
			"latprobe %s: port %u (%s): released: the removal can "
			"complete\n",
			a->cmd, a->port_id, a->port_name);
}

/* Wait for the device (every 500 ms, until a signal); 0 with the port set
 * up again, or -errno / -EINTR. */
static int
reattach_wait(struct app_run *r)
{
	struct app_link *a = &app_link;
	struct port_conf pc = {
		.n_queues = r->port.n_queues,
		.promiscuous = r->opt.promisc,
		.rx_timestamp = r->opt.hw_timestamps,
	};
	char dev[sizeof(a->ev.probe_args)], name[64];
	uint16_t id;
	int ret, last = 0;

	_Static_assert(sizeof(name) == sizeof(a->port_name), "same sizes");
	/* The name and devargs it was made with (a failsafe port's
	 * sub-devices, a PCI device's driver arguments). */
	memcpy(dev,
	       a->ev.probe_args[0] != '\0' ? a->ev.probe_args : a->ev.dev_name,
	       a->ev.probe_args[0] != '\0' ? sizeof(dev)
					   : sizeof(a->ev.dev_name));
	memcpy(name, a->port_name, sizeof(name));
	dev[sizeof(dev) - 1] = name[sizeof(name) - 1] = '\0';
	for (;;) {
		if (app_quit())
			return -EINTR;
		ret = port_events_probe(dev, name, &id);
		if (ret == 0) {
			ret = port_setup(&r->port, id, &pc);
			if (ret == 0)
				break;
			app_warn("port %u (%s) is back but its set-up failed: "
				 "%s; trying again",
				 id, name, strerror(-ret));
			port_close(&r->port);
		} else if (ret != last) {
			last = ret;
		}
		rte_delay_us_sleep(500 * 1000);
	}
	/* A port just made takes a moment to bring its link up: that is
	 * part of the gap, not a link event (2 s at most). */
	(void)port_events_link_wait(r->port.id, 2000);
	pthread_mutex_lock(&a->read_mu); /* a->ev: no poll reads it now */
	a->port_id = r->port.id;
	ret = port_events_attach(&a->ev, r->port.id, on_event, NULL);
	if (ret != 0)
		app_warn("port %u (%s): no link/removal callbacks (%s): the "
			 "link is polled",
			 r->port.id, name, strerror(-ret));
	{
		/* Its link now is the baseline; still down after the wait
		 * is an event. */
		bool up = true;
		uint32_t sp;
		uint64_t t;

		if (port_events_link_poll(&a->ev, &up, &sp, &t) == 1 && !up) {
			uint64_t ns = ns_since_start(rte_rdtsc());

			pthread_mutex_lock(&a->mu);
			if (port_events_note(&a->log, PORT_EV_LINK_DOWN, ns,
					     0) == 0)
				io_link_set_down(&a->io, rte_rdtsc());
			pthread_mutex_unlock(&a->mu);
		}
	}
	pthread_mutex_unlock(&a->read_mu);
	return 0;
}

/*
 * The failover latprobe makes for failsafe (see on_event): release the
 * whole port (failsafe closes and removes its sub-devices, so the VF's
 * removal completes), wait until the VF is off its bus (10 s at most: a
 * failsafe made again at once would probe it again), make the port again
 * from the same devargs (the VF absent, failsafe starts on the fallback
 * and probes the VF again every hotplug_poll ms until it is back) and set
 * it up. True with the workers to go on.
 */
static bool
failover(struct app_run *r)
{
	struct app_link *a = &app_link;
	uint64_t ns, from;
	int ret;

	/* The VF's removal, if the port thread has not seen it. */
	app_link_poll(r);
	/* No PMD read from now on (one in progress ends first). */
	port_set_away(true);
	pthread_mutex_lock(&a->mu);
	atomic_store_explicit(&a->failover, false, memory_order_relaxed);
	if (app_run_ending()) {
		/* The run ends: app_link_stop() releases the port. */
		a->release_at_stop = true;
		pthread_mutex_unlock(&a->mu);
		return false;
	}
	from = ns_since_start(rte_rdtsc());
	pthread_mutex_unlock(&a->mu);
	/* Off mu (the side thread's marks take it): the port is away, no
	 * other thread touches it or a->ev, and the release takes long
	 * (1 s and more under emulation). */
	pthread_mutex_lock(&a->read_mu); /* a->ev: no poll reads it now */
	ret = port_events_release(&a->ev);
	pthread_mutex_unlock(&a->read_mu);
	if (ret != 0)
		app_warn("port %u (%s): releasing it for the failover failed: "
			 "%s",
			 a->port_id, a->port_name, strerror(-ret));
	port_close(&r->port);
	for (int i = 0; i < 1000 && port_events_dev_present(a->vf_gone); i++)
		rte_delay_us_sleep(10 * 1000);
	atomic_store_explicit(&force_quit, false, memory_order_relaxed);
	if (app_run_ending())
		app_quit_set(); /* a signal or the deadline came meanwhile */
	ret = reattach_wait(r);
	if (ret != 0) {
		pthread_mutex_lock(&a->mu);
		a->released = true;
		pthread_mutex_unlock(&a->mu);
		return false;
	}
	port_set_away(false);
	ns = ns_since_start(rte_rdtsc());
	fprintf(stderr,
		"latprobe %s: port %u (%s): made again over the fallback at "
		"%.3f s (%.3f s without a port): going on\n",
		a->cmd, r->port.id, a->port_name, (double)ns / 1e9,
		ns > from ? (double)(ns - from) / 1e9 : 0.0);
	return true;
}

bool
app_link_reattach(struct app_run *r)
{
	struct app_link *a = &app_link;
	uint64_t ns;
	double gone_s;
	int ret;

	if (!a->on)
		return false;
	if (atomic_load_explicit(&a->failover, memory_order_acquire))
		return failover(r);
	if (!r->opt.reattach)
		return false;
	app_link_poll(r); /* the removal, if the port thread has not seen it */
	pthread_mutex_lock(&a->mu);
	if (!a->log.removed || app_run_ending()) {
		pthread_mutex_unlock(&a->mu);
		return false;
	}
	pthread_mutex_unlock(&a->mu);
	/* Release it now, off mu as in failover(): the removal completes
	 * while we wait. */
	port_set_away(true);
	pthread_mutex_lock(&a->read_mu); /* a->ev: no poll reads it now */
	release_removed(a, true);
	pthread_mutex_unlock(&a->read_mu);
	port_close(&r->port); /* its pool: the new port makes one */
	/* The removal set force_quit to stop the workers: not a signal. */
	atomic_store_explicit(&force_quit, false, memory_order_relaxed);
	if (app_run_ending())
		app_quit_set(); /* a signal or the deadline came meanwhile */
	ret = reattach_wait(r);
	pthread_mutex_lock(&a->mu);
	if (ret != 0) {
		a->released = true; /* app_link_stop(): nothing to release */
		pthread_mutex_unlock(&a->mu);
		return false;
	}
	ns = ns_since_start(rte_rdtsc());
	gone_s = ns > a->log.removed_at_ns
			 ? (double)(ns - a->log.removed_at_ns) / 1e9
			 : 0.0;
	(void)port_events_note(&a->log, PORT_EV_ATTACHED, ns, 0);
	port_set_away(false);
	atomic_store_explicit(&a->io.removed, false, memory_order_relaxed);
	pthread_mutex_unlock(&a->mu);
	fprintf(stderr,
		"latprobe %s: port %u (%s): the device is back at %.3f s "
		"(%.3f s after its removal): going on\n",
		a->cmd, r->port.id, a->port_name, (double)ns / 1e9, gone_s);
	return true;
}

void
app_link_announce(struct app_run *r, const struct codec_mac *mac, uint32_t ip4,
		  uint16_t vlan)
{
	char ip[16];
	int ret;

	if (!r->dpdk_ready || ip4 == 0 || r->port.n_queues == 0)
		return;
	cli_format_ipv4(ip4, ip);
	ret = prober_announce(&r->port.q[0], mac, ip4, vlan);
	if (ret != 0)
		app_warn("port %u (%s): announcing %s on the new port failed "
			 "(%s): the switches learn it from our next frame",
			 r->port.id, r->port.name, ip, strerror(-ret));
	else
		fprintf(stderr,
			"latprobe %s: port %u (%s): announced %s on the new "
			"port (gratuitous ARP)\n",
			r->cmd->name, r->port.id, r->port.name, ip);
}

void
app_link_stop(struct app_run *r)
{
	struct app_link *a = &app_link;

	if (!a->attached)
		return;
	if ((a->log.removed || a->release_at_stop) && !a->released &&
	    a->ev.dev != NULL) {
		a->released = true;
		release_removed(a, false);
		(void)r;
	} else {
		port_events_detach(&a->ev);
	}
	a->attached = false;
}
