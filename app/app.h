/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_H
#define LATPROBE_APP_H

#include <stdbool.h>
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

int cmd_info(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_reflect(int argc, char **argv);

#endif /* LATPROBE_APP_H */
