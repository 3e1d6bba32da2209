/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_thread.h>
#include <rte_version.h>

#include "cli.h"
#include "doctor.h"
#include "link_events.h"
#include "path_watch.h"
#include "run.h"

/* How long a probe waits for the port's link before exit 4. */
#define LINK_WAIT_MS 5000

/* The side thread: live line, -t's deadline, early checks. */
struct side {
	struct app_run *r;
	struct app_tick tick;
	struct app_thread thread;
	bool deadline_hit; /* written by the side thread, read after join */
	struct port_xstats lp_prev; /* --live-path: the previous second's */
};

static void live_path(struct side *s);

static void
side_loop(struct side *s)
{
	struct app_run *r = s->r;
	const struct app_cmd *cmd = r->cmd;
	bool ticking = !r->opt.quiet && cmd->tick != NULL;
	double next_tick = ticking ? 1.0 : HUGE_VAL;
	double next_watch = cmd->watch != NULL ? 0.25 : HUGE_VAL;
	double end = r->opt.deadline_ns != 0 ? (double)r->opt.deadline_ns / 1e9
					     : HUGE_VAL;
	double iv_step = cmd->interval != NULL && r->opt.hlog_interval_ns != 0
				 ? (double)r->opt.hlog_interval_ns / 1e9
				 : HUGE_VAL;
	double next_iv = iv_step;
	double rep_step =
		cmd->report_interval != NULL && r->opt.report_interval_ns != 0
			? (double)r->opt.report_interval_ns / 1e9
			: HUGE_VAL;
	double next_rep = rep_step;
	/* SIGHUP is looked at every 100 ms when the command takes it. */
	double hup_step = cmd->hup != NULL && r->opt.want_hup ? 0.1 : HUGE_VAL;
	double next_hup = hup_step;
	/* The stall corroboration's samples (nothing when not watched). */
	double next_corr =
		app_stalls_host_sampling(r) ? APP_STALLS_SAMPLE_S : HUGE_VAL;

	/* --live-path: the baseline of the first second. */
	if (ticking && r->opt.live_path && r->dpdk_ready) {
		if (!app_link_port_acquire())
			memset(&s->lp_prev, 0, sizeof(s->lp_prev));
		else {
			if (port_xstats_read(r->port.id, &s->lp_prev) != 0)
				memset(&s->lp_prev, 0, sizeof(s->lp_prev));
			app_link_port_release();
		}
	}

	/* Sleep until the next thing to do; with -q and no -t, for good. */
	for (;;) {
		double wake = fmin(
			fmin(fmin(fmin(next_tick, next_watch), end), next_iv),
			fmin(fmin(next_rep, next_hup), next_corr));
		double el;

		if (!app_tick_sleep_until(&s->tick, wake))
			break;
		el = app_tick_elapsed(&s->tick);
		if (el >= end) {
			s->deadline_hit = true;
			app_deadline_set();
			break;
		}
		if (cmd->watch != NULL && el >= next_watch) {
			next_watch = cmd->watch(r, el) ? next_watch + 0.25
						       : HUGE_VAL;
		}
		if (cmd->interval != NULL && el >= next_iv) {
			cmd->interval(r, el, false);
			while (next_iv <= el)
				next_iv += iv_step;
		}
		if (cmd->report_interval != NULL && el >= next_rep) {
			cmd->report_interval(r, el, false);
			while (next_rep <= el)
				next_rep += rep_step;
		}
		if (el >= next_hup) {
			/* New targets' workers take buffers from the port's
			 * pool: not while a failover or re-attach has it
			 * away (the SIGHUP waits until it is back). */
			if (cmd->hup != NULL && app_hup_pending() &&
			    app_link_port_acquire()) {
				if (app_hup_take())
					cmd->hup(r);
				app_link_port_release();
			}
			while (next_hup <= el)
				next_hup += hup_step;
		}
		if (el >= next_corr) {
			app_stalls_host_sample(r);
			while (next_corr <= el)
				next_corr += APP_STALLS_SAMPLE_S;
		}
		if (ticking && el >= next_tick) {
			app_stalls_host_scan(r);
			cmd->tick(r, next_tick);
			if (r->opt.live_path && r->dpdk_ready)
				live_path(s);
			while (next_tick <= el)
				next_tick += 1.0;
		}
	}
}

static void *
side_pthread(void *arg)
{
	side_loop(arg);
	return NULL;
}

/* The CPUs of the worker lcores. */
static void
worker_cpus(cpu_set_t *set)
{
	unsigned lcore;

	CPU_ZERO(set);
	RTE_LCORE_FOREACH (lcore) {
		rte_cpuset_t c = rte_lcore_cpuset(lcore);

		CPU_OR(set, set, &c);
	}
}

/*
 * DPDK: an EAL control thread, which runs on the CPUs no lcore was given
 * (EAL falls back to the main lcore's CPU when -l takes them all: then it
 * preempts a worker, and we say so).
 */
static int
side_start_dpdk(struct side *s)
{
	cpu_set_t mine, workers, both;
	int ret;

	ret = app_thread_start(&s->thread, "lp-side", true, side_pthread, s);
	if (ret != 0)
		return ret;
	if (app_thread_affinity(&s->thread, &mine) != 0)
		return 0; /* running; only the check is lost */
	worker_cpus(&workers);
	CPU_AND(&both, &mine, &workers);
	if (CPU_COUNT(&both) != 0) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &both))
				continue;
			app_warn("no CPU is free of workers (EAL -l takes them "
				 "all): the %s thread (live line, -t) shares "
				 "CPU %d with a worker and preempts it now "
				 "and then; leave one CPU out of -l",
				 s->r->cmd->name, cpu);
			break;
		}
	}
	return 0;
}

/*
 * Kernel backend: when the worker (this thread) has one CPU (taskset -c N
 * chose it), the side thread goes on the other online CPUs. Without that
 * the worker is left to the scheduler: pinning it to the CPU it happens to
 * start on put a prober and a reflector on one CPU, both busy-polling
 * (round trips of a time slice, 8 ms, seen in sigint_storm).
 */
static int
side_start_kernel(struct side *s)
{
	return app_thread_start(&s->thread, "lp-side", false, side_pthread, s);
}

static int
side_start(struct side *s)
{
	struct app_run *r = s->r;

	/* Nothing to do while the run lasts: no thread, no wake-up. */
	if ((r->opt.quiet || r->cmd->tick == NULL) && r->cmd->watch == NULL &&
	    r->opt.deadline_ns == 0 &&
	    (r->cmd->interval == NULL || r->opt.hlog_interval_ns == 0) &&
	    (r->cmd->report_interval == NULL ||
	     r->opt.report_interval_ns == 0) &&
	    (r->cmd->hup == NULL || !r->opt.want_hup) && !app_link_on())
		return 0;
	return r->dpdk_ready ? side_start_dpdk(s) : side_start_kernel(s);
}

static void
side_stop(struct side *s)
{
	app_tick_stop(&s->tick);
	if (!s->thread.started)
		return;
	app_thread_join(&s->thread);
	port_xstats_free(&s->lp_prev); /* the side thread's, now joined */
}

static int
lcore_main(void *arg)
{
	struct app_run *r = arg;
	unsigned idx = r->lcore_worker[rte_lcore_id()];

	if (idx < r->n_workers) {
		__atomic_store_n(&r->worker_tid[idx], (int)syscall(SYS_gettid),
				 __ATOMIC_RELAXED);
		r->worker_ret[idx] = r->cmd->worker(r, idx);
	}
	return 0;
}

/* Wait for the link; exit code (4 when required and it stays down). */
static int
link_check(struct app_run *r)
{
	unsigned waited = 0, limit = r->opt.link_required ? LINK_WAIT_MS : 0;
	uint32_t speed;

	for (;;) {
		if (port_wait_link(&r->port, 0, &speed) == 0)
			return EXIT_OK;
		if (waited >= limit || app_quit())
			break;
		rte_delay_ms(10);
		waited += 10;
	}
	if (app_quit())
		return EXIT_OK; /* interrupted: report what there is */
	if (r->opt.link_required) {
		app_err("the link of port %u (%s) is down after %.1f s: is "
			"the peer up and connected (memif: start the server "
			"side first)?",
			r->port.id, r->port.name, (double)limit / 1e3);
		return EXIT_SETUP;
	}
	app_warn("the link of port %u (%s) is down: answering once it comes "
		 "up",
		 r->port.id, r->port.name);
	return EXIT_OK;
}

/* Port xstats at start; moved ones at the end for the report. */
struct xs_delta {
	struct port_xstats before, after;
	struct report_counter *moved;
	unsigned n_moved;
	struct report_port_path path;
	struct report_counter *drv; /* the driver's counters that moved */
	/* The counts of the ports a re-attach or failover replaced, added to
	 * the last one's at the end; the caller's, not freed by
	 * xs_free(). */
	const struct port_xstats *carry;
};

static void
xs_start(struct app_run *r, struct xs_delta *d)
{
	if (r->dpdk_ready && port_xstats_read(r->port.id, &d->before) != 0)
		app_warn("port %u: cannot read its xstats", r->port.id);
}

/*
 * The path the packets took from before to after into p (the driver's
 * counters that moved in drv, after->n + 1 of them): VF vs synthetic on
 * netvsc/failsafe (failsafe: its devargs say which sub-device is the VF).
 * Returns the split's result (0 when p->split).
 */
static int
path_classify(const struct port *port, const struct port_xstats *before,
	      const struct port_xstats *after, struct report_port_path *p,
	      struct report_counter *drv, unsigned *idx,
	      struct port_path_split *sp)
{
	enum port_path_kind k = port_path_kind_of(port->driver);
	uint32_t vf_subs = port_failsafe_vf_subs(port->id);
	unsigned n;
	int ret;

	memset(p, 0, sizeof(*p));
	p->kind = port_path_kind_name(k);
	p->includes = port_path_includes(k);
	if (port_path_has_vf(k)) {
		static char vf_drv[64];
		uint16_t vf;

		/* A hardware VF only (failsafe's net_tap is the synthetic
		 * path): what it adds is said instead. */
		if (port_vf_get(port->id, &vf, vf_drv, sizeof(vf_drv)) == 0 &&
		    (port_path_kind_of(vf_drv) == PORT_PATH_MLX ||
		     port_path_kind_of(vf_drv) == PORT_PATH_MANA)) {
			p->vf_driver = vf_drv;
			p->includes = port_path_vf_includes(vf_drv);
		}
	}
	p->vf_share = -1;
	ret = port_path_split(k, before, after, vf_subs, sp);
	if (ret == 0) {
		p->split = true;
		p->vf_rx = sp->vf_rx;
		p->vf_tx = sp->vf_tx;
		p->synthetic_rx = sp->syn_rx;
		p->synthetic_tx = sp->syn_tx;
		p->vf_share = port_path_vf_share(sp);
	}
	n = port_xstats_driver_moved(k, before, after, vf_subs, idx, after->n);
	if (n > after->n)
		n = after->n;
	for (unsigned i = 0; i < n; i++) {
		drv[i].name = after->names[idx[i]];
		drv[i].value = port_xstat_delta(before, after, idx[i]);
	}
	p->driver = drv;
	p->n_driver = n;
	return ret;
}

/* The run's path for the report, and a warning when the synthetic path
 * carried any packet. */
static void
xs_path(struct app_run *r, struct xs_delta *d)
{
	struct report_port_path *p = &d->path;
	struct port_path_split sp;
	unsigned *idx;

	idx = calloc(d->after.n + 1, sizeof(*idx));
	d->drv = calloc(d->after.n + 1, sizeof(*d->drv));
	if (idx == NULL || d->drv == NULL) {
		free(idx);
		return;
	}
	if (path_classify(&r->port, &d->before, &d->after, p, d->drv, idx,
			  &sp) == 0) {
		/* The shifts, and the run's totals across a port
		 * made again (whose stats start from 0). */
		app_path_fill(p);
		if (p->synthetic_rx + p->synthetic_tx != 0)
			app_warn("port %u (%s): %" PRIu64 " packet(s) received "
				 "and %" PRIu64 " sent over the synthetic "
				 "path, not the VF (VF share %.2f%%): the VF "
				 "was absent or being serviced",
				 r->port.id, r->port.driver, p->synthetic_rx,
				 p->synthetic_tx, p->vf_share * 100.0);
		else if (!sp.have_vf)
			app_warn("port %u (%s): no VF stats: is the VF "
				 "attached (its PCI address not blocked)?",
				 r->port.id, r->port.driver);
	} else {
		app_path_fill(p);
	}
	r->path = p;
	free(idx);
}

/* --live-path: the path over the last second, after the live line. */
static void
live_path(struct side *s)
{
	struct app_run *r = s->r;
	struct port_xstats now;
	struct report_port_path p;
	struct port_path_split sp;
	struct report_counter *drv;
	unsigned *idx;
	char line[512];

	/* The port may be away (a failover or re-attach releases and makes
	 * it again on the main thread): no read then, and the next one is a
	 * fresh baseline. */
	if (!app_link_port_acquire()) {
		port_xstats_free(&s->lp_prev);
		return;
	}
	if (port_xstats_read(r->port.id, &now) != 0) {
		app_link_port_release();
		return;
	}
	drv = calloc(now.n + 1, sizeof(*drv));
	idx = calloc(now.n + 1, sizeof(*idx));
	if (drv != NULL && idx != NULL && s->lp_prev.names != NULL) {
		(void)path_classify(&r->port, &s->lp_prev, &now, &p, drv, idx,
				    &sp);
		app_link_port_release();
		if (report_live_path(line, sizeof(line), &p) > 0)
			fprintf(stderr, "%s\n", line);
	} else {
		app_link_port_release();
	}
	free(drv);
	free(idx);
	port_xstats_free(&s->lp_prev);
	s->lp_prev = now;
}

static void
xs_end(struct app_run *r, struct xs_delta *d, double el)
{
	unsigned *idx, n;

	if (!r->dpdk_ready || d->before.names == NULL ||
	    port_xstats_read(r->port.id, &d->after) != 0)
		return;
	/* The path's last sample is this read: its sums and the report's
	 * xstats count the same frames (a late answer still counts on the
	 * NIC after the workers stopped). */
	app_path_hold(r, el, &d->after);
	if (d->carry != NULL && d->carry->n != 0 &&
	    port_xstats_add(&d->after, d->carry) != 0)
		app_warn("no memory for the port's counters before its "
			 "re-attach: the report's count from it");
	idx = calloc(d->after.n + 1, sizeof(*idx));
	d->moved = calloc(d->after.n + 1, sizeof(*d->moved));
	if (idx == NULL || d->moved == NULL) {
		free(idx);
		return;
	}
	n = port_xstats_moved(&d->before, &d->after, idx, d->after.n);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = idx[i];
		uint64_t b = 0;

		for (unsigned j = 0; j < d->before.n; j++) {
			if (strcmp(d->before.names[j], d->after.names[k]) ==
			    0) {
				b = d->before.values[j];
				break;
			}
		}
		d->moved[i].name = d->after.names[k];
		d->moved[i].value = d->after.values[k] - b;
	}
	d->n_moved = n;
	free(idx);
	xs_path(r, d);
}

static void
xs_free(struct xs_delta *d)
{
	port_xstats_free(&d->before);
	port_xstats_free(&d->after);
	free(d->moved);
	free(d->drv);
}

static int
setup(struct app_run *r)
{
	int ret;

	if (r->opt.kernel) {
		ret = app_clock_setup(&r->clk, r->opt.calib_ns, 0);
		if (ret != EXIT_OK)
			return ret;
		r->n_workers = 1;
		return r->cmd->setup_kernel(r);
	}
	ret = app_dpdk_open(&r->dpdk, &r->port, &r->args, r->opt.port_id,
			    r->opt.port_id_given, r->opt.calib_ns,
			    r->opt.promisc, r->opt.hw_timestamps, &r->clk);
	if (ret != EXIT_OK)
		return ret;
	r->dpdk_ready = true;
	if (r->opt.promisc && !r->port.promiscuous)
		app_warn("--promisc: port %u (%s) cannot be put in promiscuous "
			 "mode",
			 r->port.id, r->port.driver);
	ret = link_check(r);
	if (ret != EXIT_OK)
		return ret;
	r->n_workers = r->dpdk.n_lcores;
	app_link_start(r); /* before the workers' conf takes app_link_io() */
	return r->cmd->setup_dpdk(r);
}

/*
 * The doctor's quick checks on the worker CPUs and the port, one line:
 * files only (about a millisecond), no 1 s sample of steal and runnable
 * tasks. The kernel backend's worker CPUs are the process's affinity.
 */
static void
start_doctor(struct app_run *r)
{
	struct host_cpus cpus;

	host_cpus_zero(&cpus);
	if (r->dpdk_ready) {
		cpu_set_t set;

		worker_cpus(&set);
		for (unsigned c = 0; c < HOST_MAX_CPUS && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				host_cpus_set(&cpus, c);
		doctor_brief(r->cmd->name, &cpus, &r->clk, r->port.id,
			     r->port.pool);
		return;
	}
	{
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) != 0)
			return;
		for (unsigned c = 0; c < HOST_MAX_CPUS && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				host_cpus_set(&cpus, c);
	}
	doctor_brief(r->cmd->name, &cpus, &r->clk, -1, NULL);
}

static int
run_metrics(void *arg, struct metrics_buf *b)
{
	struct app_run *r = arg;

	return r->cmd->metrics != NULL ? r->cmd->metrics(r, b) : -ENOTSUP;
}

static double
seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

void
app_run_opts_common(struct app_run_opts *ro, const struct app_common_opts *co)
{
	ro->kernel = co->kernel;
	ro->quiet = co->quiet;
	ro->promisc = co->promisc;
	ro->no_doctor = co->no_doctor;
	ro->hw_timestamps = co->hw_timestamps;
	ro->live_path = co->live_path;
	ro->port_id = co->port_id;
	ro->port_id_given = co->port_id_given;
	ro->calib_ns = co->calib_ns;
	/* --hlog-interval's value, or its default (app_common_opts_init()). */
	ro->hlog_interval_ns = co->hlog != NULL ? co->hlog_interval_ns : 0;
	ro->have_metrics = co->have_metrics;
	ro->metrics_addr = co->metrics_addr;
	ro->metrics_port = co->metrics_port;
}

int
app_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct app_run *r;
	struct side side;
	struct xs_delta xs;
	struct port_xstats carry = {0};
	struct timespec t0;
	bool failed = false;
	int ret;

	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	r->cmd = cmd;
	r->argc = argc;
	r->argv = argv;
	r->start = time(NULL);
	app_metrics_init(&r->metrics);
	memset(&xs, 0, sizeof(xs));
	ret = app_args_split(argc, argv, cmd->usage, cmd->short_help, &r->args);
	if (ret != EXIT_OK) {
		ret = ret < 0 ? EXIT_OK : ret; /* -1: help printed */
		goto free_run;
	}
	r->ctx = calloc(1, cmd->ctx_size);
	if (r->ctx == NULL) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto free_args;
	}
	if (cmd->parse(r, r->args.app_argc, r->args.app_argv) != 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (r->opt.kernel && (ret = app_args_no_eal(&r->args)) != EXIT_OK)
		goto out;
	/* Before anything is sent: a path we cannot write is a usage error. */
	if (cmd->open_outputs != NULL &&
	    (ret = cmd->open_outputs(r)) != EXIT_OK)
		goto out;
	if (r->opt.have_metrics &&
	    (ret = app_metrics_listen(&r->metrics, r->opt.metrics_addr,
				      r->opt.metrics_port,
				      strcmp(cmd->name, "reflect") == 0
					      ? METRICS_PORT_REFLECT
					      : METRICS_PORT_PROBE)) != EXIT_OK)
		goto out;
	app_signals_install();
	if (cmd->hup != NULL && r->opt.want_hup)
		app_hup_install();
	ret = setup(r);
	if (ret != EXIT_OK)
		goto out;
	ret = cmd->init_workers(r);
	if (ret != EXIT_OK)
		goto out;
	if (r->dpdk_ready) {
		unsigned lcore, i = 0;

		RTE_LCORE_FOREACH (lcore) {
			r->lcore_worker[lcore] = i;
			r->worker_lcore[i++] = lcore;
		}
	}
	cmd->start_line(r);
	if (r->opt.have_metrics && r->opt.metrics_port == 0) {
		char ip[16];
		uint16_t dflt = strcmp(cmd->name, "reflect") == 0
					? METRICS_PORT_REFLECT
					: METRICS_PORT_PROBE;

		/* --metrics ADDR: say which port it took. */
		cli_format_ipv4(r->opt.metrics_addr, ip);
		fprintf(stderr,
			"latprobe %s: metrics on http://%s:%u/metrics%s\n",
			cmd->name, ip, r->metrics.port,
			r->metrics.port != dflt
				? " (the default port was taken: the first "
				  "free one above)"
				: "");
	}
	if (!r->opt.no_doctor)
		start_doctor(r);
	app_stalls_host_begin(r);
	xs_start(r, &xs);
	app_path_start(r, &xs.before);
	ret = app_metrics_start(&r->metrics, r->dpdk_ready, run_metrics, r);
	if (ret != 0) {
		app_err("cannot start the --metrics thread: %s",
			strerror(-ret));
		ret = EXIT_RUNTIME;
		goto out;
	}

	memset(&side, 0, sizeof(side));
	side.r = r;
	app_tick_init(&side.tick);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	app_link_begin(r);
	app_path_begin(r);
	ret = side_start(&side);
	if (ret != 0) {
		app_err("cannot start the %s side thread: %s", cmd->name,
			strerror(-ret));
		app_tick_fini(&side.tick);
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (r->dpdk_ready) {
		rte_eal_mp_remote_launch(lcore_main, r, CALL_MAIN);
		rte_eal_mp_wait_lcore();
		/* A removed device that came back, a failsafe port made
		 * again: the same workers go on; the old port's
		 * xstats are carried into the report's. */
		for (;;) {
			struct port_xstats old = {0};
			bool have_old = xs.before.names != NULL &&
					port_xstats_read(r->port.id, &old) == 0;

			/* The path's last counts on this port: the same. */
			app_path_hold(r, seconds_since(&t0),
				      have_old ? &old : NULL);
			if (cmd->port_swap != NULL)
				cmd->port_swap(r, false);
			if (!app_link_reattach(r)) {
				port_xstats_free(&old);
				break;
			}
			if (cmd->port_swap != NULL)
				cmd->port_swap(r, true);
			if (have_old &&
			    port_xstats_carry(&carry, &xs.before, &old) != 0)
				app_warn("no memory to carry the port's "
					 "counters "
					 "across its re-attach");
			port_xstats_free(&old);
			r->resumed = true;
			xs_free(&xs);
			memset(&xs, 0, sizeof(xs));
			xs.carry = &carry;
			xs_start(r, &xs);
			app_path_rebase(r, &xs.before);
			rte_eal_mp_remote_launch(lcore_main, r, CALL_MAIN);
			rte_eal_mp_wait_lcore();
		}
	} else {
		__atomic_store_n(&r->worker_tid[0], (int)syscall(SYS_gettid),
				 __ATOMIC_RELAXED);
		r->worker_ret[0] = cmd->worker(r, 0);
	}
	r->interrupted = app_quit();
	app_quit_set(); /* the side thread's deadline is moot now */
	side_stop(&side);
	app_path_end();
	app_stalls_host_end(r);
	app_metrics_stop(&r->metrics);
	app_link_poll(r); /* what came after the side thread's last look */
	if (app_path_on())
		app_path_poll(r, seconds_since(&t0));
	/* The workers are done: the last partial interval, complete. */
	if (cmd->interval != NULL && r->opt.hlog_interval_ns != 0)
		cmd->interval(r, seconds_since(&t0), true);
	if (cmd->report_interval != NULL && r->opt.report_interval_ns != 0)
		cmd->report_interval(r, seconds_since(&t0), true);
	app_tick_fini(&side.tick);
	r->interrupted = r->interrupted && !side.deadline_hit &&
			 (!app_link_removed() || app_signal_seen());
	for (unsigned i = 0; i < r->n_workers; i++) {
		if (r->worker_ret[i] == 0)
			continue;
		app_err("lcore %u stopped on an error: %s",
			r->dpdk_ready ? r->worker_lcore[i] : 0,
			strerror(-r->worker_ret[i]));
		failed = true;
	}
	xs_end(r, &xs, seconds_since(&t0));
	ret = cmd->report(r, seconds_since(&t0), xs.moved, xs.n_moved);
	/* The report is written whole; the failure shows in the exit code. */
	if (failed && (ret == EXIT_OK || ret == EXIT_ALL_LOST))
		ret = EXIT_RUNTIME;
	/* The device was taken away: its own exit code (after the report). */
	if (app_link_removed() && (ret == EXIT_OK || ret == EXIT_ALL_LOST))
		ret = EXIT_PORT_REMOVED;
out:
	app_metrics_stop(&r->metrics);
	app_stalls_host_free(r);
	app_link_stop(r); /* a removed device released here */
	app_path_end();	  /* a failure before the workers' end */
	app_path_stop();
	cmd->teardown(r);
	app_dpdk_close(&r->dpdk);
	xs_free(&xs);
	port_xstats_free(&carry);
	/* The subcommand's state holds the --auth-key bytes
	 * (app_common_opts.auth_key): no copy of the key outlives the run. */
	explicit_bzero(r->ctx, cmd->ctx_size);
	free(r->ctx);
free_args:
	app_args_free(&r->args);
free_run:
	free(r);
	return ret;
}
