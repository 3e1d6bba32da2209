/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_REFLECT_H
#define LATPROBE_APP_REFLECT_H

/*
 * What the files of latprobe reflect (cmd_reflect.c, reflect_*.c) share: its
 * options, run state and context, and the hooks each file gives the run
 * skeleton. Not for the other commands.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>

#include "app.h"
#include "cli.h"
#include "hlog_out.h"
#include "link_events.h"
#include "latprobe/reflector.h"
#include "latprobe/sockio.h"
#include "metrics_srv.h"
#include "oneway.h"
#include "run.h"

struct reflect_opts {
	struct app_common_opts co;
	uint16_t stamp_port, sockperf_port, echo_port;
	bool stateful;
	bool allow_low_sport;
	struct reflector_prefix allow[REFLECTOR_MAX_ALLOW];
	unsigned n_allow;
	uint32_t rate_limit;
	uint32_t session_idle_s;
};

struct reflect_run {
	struct reflector_worker w[RTE_MAX_LCORE];
	unsigned n_workers;
	/* The port's per-queue counters before the workers start (DPDK). */
	struct port_queue_stats qs_before;
	bool have_qs;
	/* What ports a re-attach replaced counted per queue:
	 * added to the last one's; qs_lost when one could not be read. */
	struct port_queue_stats qs_carry;
	struct port_queue_stats qs_last; /* the old port's, before a swap */
	bool qs_lost;
};

/* reflect_report.c: app_cmd.port_swap, the per-queue counts carried. */
void reflect_port_swap(struct app_run *r, bool done);

struct reflect_ctx {
	struct reflect_opts o;
	struct reflector_conf conf;
	struct reflect_run *run;
	struct sockio *sock;
	struct app_out json;
	struct app_hlog hlog;
	char addr_str[2 * CLI_IP_STRLEN + 16];
	struct histogram *mx_snap, *mx_sum;   /* the metrics thread's */
	uint64_t last_rx, last_tx, last_drop; /* live line */
	uint64_t last_wrx[RTE_MAX_LCORE];     /* live line, per worker */
	struct app_oneway ow; /* STAMP: our clock, in T2/T3 and the EE */
	struct report_clock clk_rep;
};

/* reflect_opts.c */
void reflect_usage(FILE *f);

int reflect_parse_hook(struct app_run *r, int argc, char **argv);

/* reflect_setup.c */
int reflect_open_outputs(struct app_run *r);

int reflect_setup_dpdk(struct app_run *r);

int reflect_setup_kernel(struct app_run *r);

int reflect_init_workers(struct app_run *r);

void reflect_teardown(struct app_run *r);

/* reflect_live.c */
uint64_t reflect_sum_counter(const struct reflect_run *r,
			     enum reflector_counter c);

void reflect_tick(struct app_run *r, double el);

int reflect_metrics(struct app_run *r, struct metrics_buf *b);

void reflect_interval(struct app_run *r, double el, bool final);

/* reflect_report.c */
void reflect_start_line(struct app_run *r);

int reflect_report(struct app_run *r, double duration_s,
		   const struct report_counter *xs, unsigned n_xs);

#endif /* LATPROBE_APP_REFLECT_H */
