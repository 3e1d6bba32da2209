/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_ONEWAY_H
#define LATPROBE_APP_ONEWAY_H

/*
 * One side's clock for one-way delays, app/'s half: a thread
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

/*
 * Where the clock's synchronisation is read from: the kernel's adjtimex
 * and chronyc (app_oneway_start()), or a test's fake time source.
 */
struct app_clock_source {
	int (*kernel)(void *ctx, struct clock_kernel *out);  /* 0 or -errno */
	bool (*chrony)(void *ctx, struct clock_chrony *out); /* it answered */
	void *ctx;
};

struct app_oneway {
	struct app_thread thread;
	atomic_bool stop;
	pthread_mutex_t mu; /* the state below, for the report */
	bool inited;	    /* mu and the fields below are set up */
	bool running;	    /* the thread runs (until app_oneway_stop()) */
	bool resampled;	    /* the thread started: the mapping is measured */
	bool finished;	    /* the run's last sync read is taken */
	const struct app_clock_source *src;
	struct clock_sync sync;
	struct clock_feed feed;
	struct clock_kernel kernel;
	struct clock_chrony chrony;
	bool have_chrony;
	struct clock_verdict verdict; /* the latest read */
	struct clock_run run;	      /* every read of the run */
	uint16_t ee;		      /* the Error Estimate published */
	uint64_t err_ns;	      /* mapping (+ sync when synchronised) */
	uint64_t err_max_ns;	      /* of err_ns over the run */
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
/* The same with the synchronisation read from src (kept; a test's). */
int app_oneway_start_from(struct app_oneway *o, const struct app_clock *clk,
			  bool dpdk, const struct app_clock_source *src);
/* One read of the synchronisation, noted in the run's (the thread does it
 * every APP_ONEWAY_SYNC_EVERY periods; the reports once more at the end). */
void app_oneway_resync(struct app_oneway *o);
void app_oneway_stop(struct app_oneway *o);
/*
 * The Error Estimate a reflector sends when the thread does not run (start
 * failed): its timestamps rest on the start's mapping, whose error is not
 * measured, so it says unknown (stamp_ee_unknown(), S clear).
 */
uint16_t app_oneway_unknown_ee(void);
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
 * clock from o (NULL or never started: our clock counts as unsynchronised
 * and its mapping as unknown; started but the thread did not run: the
 * mapping unknown), same_clock as given; judged.
 */
void app_oneway_probe_report(struct app_oneway *o,
			     const struct prober_worker *w, unsigned n,
			     const struct prober_worker *gone, bool same_clock,
			     struct histogram *fwd, struct histogram *rev,
			     struct report_one_way *ow);

/*
 * The same while the run goes on (the metrics thread): workers w[0..n)'s
 * counters read relaxed, fwd and rev their merged series (the caller's),
 * the run's sync reads so far; judged over the run up to now.
 */
void app_oneway_live(struct app_oneway *o, const struct prober_worker *const *w,
		     unsigned n, bool same_clock, const struct histogram *fwd,
		     const struct histogram *rev, struct report_one_way *ow);

/* The reflector's report of its clock. */
void app_oneway_clock(struct app_oneway *o, struct report_clock *c);

/* latprobe doctor's clock checks (lib/host/clock.c) with this host's
 * adjtimex and chronyc answers, into r[HOST_N_CLOCK_CHECKS]; their count. */
struct host_result;
unsigned app_oneway_doctor(struct host_result *r);

#endif /* LATPROBE_APP_ONEWAY_H */
