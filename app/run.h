/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_RUN_H
#define LATPROBE_RUN_H

/*
 * The one run skeleton of `probe` and `reflect`: split the arguments, parse,
 * install the signals, set up the kernel or the DPDK side, start the side
 * thread (live line, deadline, early checks) off the worker CPUs, run the
 * workers, join, report, tear down. A subcommand is its options, usage text
 * and these hooks; it keeps its own state in ctx.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <rte_config.h>

#include "app.h"
#include "metrics_srv.h"
#include "stalls.h"
#include "latprobe/port.h"

struct app_run;

struct app_cmd {
	const char *name; /* "probe": messages, thread names */
	void (*usage)(FILE *f);
	bool short_help; /* -h asks for help too (not for probe: PsPing's -h) */
	size_t ctx_size; /* the subcommand's state, zeroed */
	/* Options into r->ctx and r->opt; 0 or -1 (message printed). */
	int (*parse)(struct app_run *r, int argc, char **argv);
	/* Open every output file: EXIT_OK or EXIT_USAGE (printed). Optional. */
	int (*open_outputs)(struct app_run *r);
	/* After the clock (kernel) or EAL, clock, port and link (DPDK); set
	 * r->n_workers. Exit code (message printed). */
	int (*setup_kernel)(struct app_run *r);
	int (*setup_dpdk)(struct app_run *r);
	/* Worker state for r->n_workers workers; exit code. */
	int (*init_workers)(struct app_run *r);
	void (*start_line)(struct app_run *r);
	/* One worker until done or force_quit: 0 or -errno. */
	int (*worker)(struct app_run *r, unsigned idx);
	/* Side thread: live line each second (not with -q), at el seconds. */
	void (*tick)(struct app_run *r, double el);
	/* Side thread: early checks every 250 ms (-q too) while it returns
	 * true. Optional. */
	bool (*watch)(struct app_run *r, double el);
	/* Side thread: every r->opt.hlog_interval_ns (--hlog), at el
	 * seconds; then once more from the main thread after the workers
	 * stopped (final = true, the last partial interval). Optional. */
	void (*interval)(struct app_run *r, double el, bool final);
	/* Side thread: every r->opt.report_interval_ns (--interval-report),
	 * then once more after the workers stopped (final). Optional. */
	void (*report_interval)(struct app_run *r, double el, bool final);
	/* Side thread: a SIGHUP came (app_hup_take() was true). Optional. */
	void (*hup)(struct app_run *r);
	/* Report with xs (port xstats that moved; n may be 0); exit code. */
	int (*report)(struct app_run *r, double duration_s,
		      const struct report_counter *xs, unsigned n_xs);
	void (*teardown)(struct app_run *r); /* also after any failure */
	/* --metrics: the exposition of a scrape, from the metrics thread
	 * while the workers run (relaxed reads only); 0 or -errno. */
	int (*metrics)(struct app_run *r, struct metrics_buf *b);
	/* Side thread: the packets go over another path from el seconds on
	 * (path_watch.c, a netvsc/failsafe port). Optional. */
	void (*path_shift)(struct app_run *r, double el, enum port_path_now to);
	/* Main thread, the workers stopped: the port may be replaced (done
	 * false: read what it counted; nothing may follow, the run may end),
	 * then was (done true: carry that, take the new one's baseline).
	 * Optional. */
	void (*port_swap)(struct app_run *r, bool done);
	/* The workers' stall detectors, for the side thread's corroboration
	 * (app/stalls.c): up to max into out, how many. NULL: none. */
	unsigned (*stall_dets)(struct app_run *r, const struct stall_det **out,
			       unsigned max);
};

/* What parse tells the skeleton. */
struct app_run_opts {
	bool kernel;
	bool quiet;
	bool promisc;
	bool hw_timestamps; /* --hw-timestamps: the port must have them */
	bool live_path;	    /* --live-path: the path each second too */
	bool link_required; /* link down after the wait: exit 4 (else warn) */
	bool no_doctor;	    /* no host summary at start (--no-doctor) */
	uint16_t port_id;
	bool port_id_given;
	uint64_t calib_ns;
	uint64_t deadline_ns;	   /* the side thread stops the run; 0 = none */
	uint64_t hlog_interval_ns; /* cmd->interval's period; 0 = none */
	uint64_t report_interval_ns; /* cmd->report_interval's; 0 = none */
	bool want_hup; /* SIGHUP calls cmd->hup (else it ends the process) */
	/* A removed device is waited for and the run goes on when it is
	 * back (probe --forever, a reflector without -t). */
	bool reattach;
	bool have_metrics; /* --metrics ADDR:PORT */
	uint32_t metrics_addr;
	uint16_t metrics_port;
};

struct app_run {
	const struct app_cmd *cmd;
	void *ctx;
	struct app_run_opts opt;
	struct app_args args;
	struct app_clock clk;
	struct app_dpdk dpdk;
	struct port port;
	bool dpdk_ready; /* EAL and port up: r->port usable */
	unsigned n_workers;
	unsigned lcore_worker[RTE_MAX_LCORE]; /* lcore id -> worker index */
	unsigned worker_lcore[RTE_MAX_LCORE]; /* worker index -> lcore id */
	int worker_ret[RTE_MAX_LCORE];
	/* Each worker's thread id once it runs (0 before): whose scheduler
	 * counters the stall corroboration reads. */
	int worker_tid[RTE_MAX_LCORE];
	bool interrupted; /* SIGINT/SIGTERM stopped the workers (not -t) */
	bool resumed;	  /* the workers run again after a re-attach */
	/* The port's path over the run (xstats classified), for the report;
	 * NULL without a DPDK port or its xstats. */
	const struct report_port_path *path;
	/* The command line (after the subcommand) and the start, for the
	 * reports' when/what. */
	int argc;
	char **argv;
	time_t start;
	struct app_metrics_srv metrics;	    /* --metrics */
	struct app_stalls_host stalls_host; /* (stalls.c) */
};

/* The shared options (probe and reflect alike) into the skeleton's; the
 * command sets the rest (link_required, deadline_ns, ...). */
void app_run_opts_common(struct app_run_opts *ro,
			 const struct app_common_opts *co);

/* Runs a subcommand from its argv (after the subcommand's name). */
int app_run(const struct app_cmd *cmd, int argc, char **argv);

#endif /* LATPROBE_RUN_H */
