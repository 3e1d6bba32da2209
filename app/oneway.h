/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_ONEWAY_H
#define LATPROBE_APP_ONEWAY_H

/*
 * One side's clock for one-way delays (issue 28), app/'s half: a thread
 * that re-samples the TSC -> UTC mapping every 100 ms (lib/timing's
 * clock_sync) and publishes it, with the STAMP Error Estimate it makes, in
 * a clock_feed the workers read; every 16 s (and at the start) it reads the
 * kernel's adjtimex and, where chronyd runs, `chronyc -c tracking`.
 *
 * Test hooks (named as such, for tests/integration/oneway.sh only):
 * LATPROBE_TEST_CLOCK_OFFSET_NS=N shifts this side's published UTC by N ns
 * (a clock that is off by a known amount); LATPROBE_TEST_CLOCK_SYNC_NS=E
 * makes the side take itself as synchronised with a sync error of E ns (a
 * time source the test controls), whatever adjtimex and chrony say;
 * LATPROBE_TEST_CHRONYC=PATH runs PATH instead of chronyc (whether chronyd
 * runs or not), so a test can play chrony.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include "app.h"
#include "latprobe/clock_sync.h"
#include "latprobe/report.h"

#define APP_ONEWAY_PERIOD_NS  100000000ull /* re-sample */
#define APP_ONEWAY_SYNC_EVERY 160	   /* periods between sync reads */

struct app_oneway {
	struct app_thread thread;
	atomic_bool stop;
	pthread_mutex_t mu; /* the state below, for the report */
	bool running;
	struct clock_sync sync;
	struct clock_feed feed;
	struct clock_kernel kernel;
	struct clock_chrony chrony;
	bool have_chrony;
	struct clock_verdict verdict;
	uint16_t ee;	     /* the Error Estimate published */
	uint64_t err_ns;     /* mapping (+ sync when synchronised) */
	uint64_t err_max_ns; /* of err_ns over the run */
	int64_t test_offset_ns;
	bool test_sync;
	uint64_t test_sync_ns;
	char chrony_ref[64];
};

/*
 * Start it (first sample taken before this returns, so the feed holds a
 * mapping at once). dpdk: the thread is an EAL control thread (off the
 * worker lcores). 0, or -errno (printed by the caller).
 */
int app_oneway_start(struct app_oneway *o, const struct app_clock *clk,
		     bool dpdk);
void app_oneway_stop(struct app_oneway *o);
/* Our side's part of a probe report's one_way (not judged). */
void app_oneway_fill(struct app_oneway *o, struct report_one_way *ow);
/* One line for a start line: "clock: synchronised (chrony, +-2.1us)" or
 * "clock: not synchronised (STA_UNSYNC)". */
void app_oneway_describe(struct app_oneway *o, char *buf, size_t cap);

/* The prober's side (cmd_probe.c's hooks). */
struct prober_worker;
struct histogram;

/* A worker record that sums others (cmd_probe.c's run->gone): empty. */
void app_oneway_gone_init(struct prober_worker *g);
/* w's one-way figures into g (a retired worker's, SIGHUP). */
void app_oneway_fold(struct prober_worker *g, const struct prober_worker *w);
/*
 * The report's one_way from workers w[0..n) and gone (NULL: none): fwd and
 * rev (empty histograms, the caller's) get the merged series; our side's
 * clock from o (NULL: not started, then our clock counts as unknown and
 * unsynchronised), same_clock as given; judged.
 */
void app_oneway_probe_report(struct app_oneway *o,
			     const struct prober_worker *w, unsigned n,
			     const struct prober_worker *gone, bool same_clock,
			     struct histogram *fwd, struct histogram *rev,
			     struct report_one_way *ow);

/* The reflector's report of its clock. */
void app_oneway_clock(struct app_oneway *o, struct report_clock *c);

/* latprobe doctor's clock checks (lib/host/clock.c) with this host's
 * adjtimex and chronyc answers, into r[HOST_N_CLOCK_CHECKS]; their count. */
struct host_result;
unsigned app_oneway_doctor(struct host_result *r);

#endif /* LATPROBE_APP_ONEWAY_H */
