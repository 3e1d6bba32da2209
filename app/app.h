/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_H
#define LATPROBE_APP_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "timing.h"

/* Set by SIGINT/SIGTERM; the only thing the handler touches. */
extern volatile bool force_quit;

void app_signals_install(void);

/* "latprobe: <msg>" on stderr. */
void app_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void app_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct app_clock {
	struct tsc_clock clock;
	struct tsc_calibration cal;
	struct tsc_invariance inv;
	struct tsc_read_cost cost;
	struct tsc_anchor anchor;
	uint64_t dpdk_hz;
};

/*
 * Calibrate the TSC over window_ns against CLOCK_MONOTONIC_RAW and build
 * the clock from the measured rate. Prints the one-line error itself and
 * returns an exit code (EXIT_OK or EXIT_TSC).
 */
int app_clock_setup(struct app_clock *c, uint64_t window_ns, uint64_t dpdk_hz);
void app_clock_report(const struct app_clock *c, struct report_tsc *t);

/* EAL init with our argv; EXIT_OK or EXIT_SETUP (message printed). */
int app_eal_init(int argc, char **argv);

/* Write a report to path through fn; EXIT_OK or EXIT_RUNTIME. */
int app_write_file(const char *path, int (*fn)(const void *arg, FILE *f),
		   const void *arg);

/* A subcommand's argv: EAL part (before "--", profiles expanded) and ours. */
struct app_args {
	int eal_argc, app_argc;
	char **eal_argv, **app_argv;
	bool had_separator;
};

/*
 * Print usage and return -1 when argv asks for help ("--help", or "-h" too
 * when short_help); else split argv. EXIT_OK or EXIT_USAGE (printed).
 */
int app_args_split(int argc, char **argv, void (*usage)(FILE *f),
		   bool short_help, struct app_args *a);
void app_args_free(struct app_args *a);

/* --backend kernel runs without EAL: EXIT_USAGE (printed) if EAL options came.
 */
int app_args_no_eal(const struct app_args *a);

struct port;

/* The DPDK side shared by probe and reflect. */
struct app_dpdk {
	bool eal; /* rte_eal_init() succeeded */
	bool have_port;
	unsigned n_lcores;
	struct port *port;
};

/*
 * EAL init, TSC calibration, then port_id with one queue pair per lcore.
 * Prints its one-line error; returns an exit code. Undo with
 * app_dpdk_close(), also after a failure.
 */
int app_dpdk_open(struct app_dpdk *d, struct port *port,
		  const struct app_args *a, uint16_t port_id, uint64_t calib_ns,
		  struct app_clock *clk);
void app_dpdk_close(struct app_dpdk *d);

/*
 * A once-a-second clock for the live-line threads: they sleep until the
 * next tick (or a deadline) instead of polling, so they do not keep
 * preempting a busy-polling lcore; app_tick_stop() wakes them at once.
 */
struct app_tick {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct timespec t0;
};

void app_tick_init(struct app_tick *t);
/* Seconds since init; sleeps until t0 + until_s or a stop. false once stopped.
 */
bool app_tick_sleep_until(struct app_tick *t, double until_s);
double app_tick_elapsed(const struct app_tick *t);
void app_tick_stop(struct app_tick *t);
void app_tick_fini(struct app_tick *t);

int cmd_info(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_reflect(int argc, char **argv);

#endif /* LATPROBE_APP_H */
