/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_STALLS_H
#define LATPROBE_APP_STALLS_H

/*
 * The app's side of stall detection: --stall-threshold and
 * --stall-tlv checked, the host's steal time and other runnable tasks on
 * the workers' CPUs over the run (what latprobe doctor reads, lib/host),
 * and the workers' stalls and attribution into the reports.
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/host.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/report.h"

struct app_run;
struct app_common_opts;
struct metrics_buf;

/* How often the side thread reads the corroborating counters (s). */
#define APP_STALLS_SAMPLE_S 0.1

/*
 * The corroboration of the workers' stalls, one window a sample: the
 * counters of the window (the workers' stalls, their threads' run-queue
 * wait and involuntary switches, steal and interrupts on their CPUs) and
 * what they explain so far (report_stall_corr).
 */
struct app_stalls_win {
	bool have;
	uint64_t wall_ns; /* CLOCK_MONOTONIC of the read */
	uint64_t stalls, stall_ns;
	uint64_t run_ns, wait_ns, voluntary, involuntary;
	unsigned n_threads;
	uint64_t steal_ticks, irqs;
	bool threads_ok, steal_ok, irqs_ok;
};

/*
 * A stall is counted in the window it ends in, while the time the thread
 * lost to it is spread over every window it spans: a window's lost time
 * (run-queue wait, off-CPU) that none of its own stalls accounts for is
 * kept for APP_STALLS_CARRY windows, for a longer stall ending later to
 * claim; what no stall claims by then is hidden (inside a PMD call).
 */
#define APP_STALLS_CARRY 16

/* /proc/stat at the start and the end, runnable tasks scanned meanwhile,
 * and the corroboration's windows. */
struct app_stalls_host {
	bool on;
	struct host_cpus cpus;
	struct host_sample *s; /* malloc'd (large) */
	bool sampling;
	struct app_stalls_win prev;
	struct report_stall_corr corr; /* the side thread's; read after */
	/* The last windows' unclaimed lost time (ns), wait and off-CPU, a
	 * ring of APP_STALLS_CARRY from carry_at. */
	uint64_t carry_wait[APP_STALLS_CARRY], carry_off[APP_STALLS_CARRY];
	unsigned carry_at;
};

/* After the start line: the workers' CPUs, /proc/stat, a first scan. */
void app_stalls_host_begin(struct app_run *r);
/* The side thread, once a second: one more scan of the tasks. */
void app_stalls_host_scan(struct app_run *r);
/* Does the side thread sample the corroborating counters (stalls watched
 * and the command tells its detectors)? */
bool app_stalls_host_sampling(struct app_run *r);
/* The side thread, every APP_STALLS_SAMPLE_S: one window. */
void app_stalls_host_sample(struct app_run *r);
/* After the workers stopped: /proc/stat again, a last scan. */
void app_stalls_host_end(struct app_run *r);
void app_stalls_host_free(struct app_run *r);

/*
 * probe: --stall-tlv wants --proto stamp, no --auth-key and -l >= 64 (the
 * base packet and the TLV); without -l the size becomes 64 (*have_l then
 * true). 0 or -1 (printed).
 */
int app_stalls_probe_check(struct app_common_opts *co,
			   const struct probe_proto *proto, bool *have_l,
			   uint64_t *size);

/* The probe report's stalls: merged over the workers (owned here). */
struct app_probe_stalls {
	struct report_stalls rep;
	struct histogram *h; /* 4: unaffected, host_prober, _reflector, _both */
};

/* 0 (rep filled: *out non-NULL), -ENOMEM, or -EINVAL when a worker's
 * host-affected series are not a part of its round trips; *out NULL when
 * the threshold is 0 (not watched). target[i]: prober worker i's target
 * (the TLV's counts of one reflector worker are taken once per target).
 * gone: the retired targets' figures (probe_fold()), or NULL. */
int app_stalls_probe_report(struct app_run *r, const struct prober_worker *w,
			    unsigned n, const struct prober_worker *gone,
			    const unsigned *target,
			    const struct app_common_opts *co,
			    struct app_probe_stalls *ps,
			    const struct report_stalls **out);
void app_stalls_probe_fini(struct app_probe_stalls *ps);

/* The reflector report's (rep filled; *out NULL when not watched). */
void app_stalls_reflect_report(struct app_run *r,
			       const struct reflector_worker *w, unsigned n,
			       const struct app_common_opts *co,
			       struct report_reflect_stalls *rep,
			       const struct report_reflect_stalls **out);

/* --metrics: the stall counters of the workers (relaxed reads), and the
 * prober's host-affected probes; nothing when stalls are not watched. */
void app_stalls_metrics_probe(struct metrics_buf *b,
			      const struct prober_worker *w, unsigned n,
			      const struct prober_worker *gone);
/* Retired worker w's stall figures into gone (its place is taken next). */
void app_stalls_fold(struct prober_worker *gone, const struct prober_worker *w);
void app_stalls_metrics_reflect(struct metrics_buf *b,
				const struct reflector_worker *w, unsigned n);

#endif /* LATPROBE_APP_STALLS_H */
