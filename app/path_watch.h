/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PATH_WATCH_H
#define LATPROBE_PATH_WATCH_H

/*
 * Which path the port's packets take over the run (failover),
 * app side: on a netvsc or failsafe port (a VF and a synthetic fallback)
 * the side thread reads the port's xstats every PATH_POLL_S, classifies the
 * deltas (latprobe/path.h) and notes each shift of the path that carries
 * the packets, with its time and, after a VF's removal, how long the move
 * took. The command hears of each shift (app_cmd.path_shift: the prober
 * closes a latency interval there). One run, one port: one instance.
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/metrics.h"
#include "latprobe/path.h"
#include "latprobe/report.h"

struct app_run;

#define PATH_POLL_S 0.05

/* After the port's xstats baseline (DPDK only): on for netvsc/failsafe.
 * base: that baseline (the report's own read; NULL: read now), so that
 * the samples and the report count the same frames. */
void app_path_start(struct app_run *r, const struct port_xstats *base);
bool app_path_on(void);
/* When the workers start (the times count from here): the port thread,
 * which polls the link (app_link_poll) and the path every PATH_POLL_S, off
 * the side thread (a PMD's lock may hold it for seconds); app_path_end()
 * stops it. */
void app_path_begin(struct app_run *r);
void app_path_end(void);
/* The port thread, and the main thread once after the workers stopped and
 * app_path_end(); el: seconds since the start. */
void app_path_poll(struct app_run *r, double el);
/* Main thread, the workers stopped, before a re-attach or failover may
 * replace the port, and at the end: its last counts (last: a snapshot the
 * caller read, so that they equal its xstats report; NULL: read now), then
 * no poll until app_path_rebase(). */
void app_path_hold(struct app_run *r, double el,
		   const struct port_xstats *last);
/* After a re-attach or failover: the new port's stats are the baseline
 * (base: the report's read of them, as for app_path_start()). */
void app_path_rebase(struct app_run *r, const struct port_xstats *base);
/* Mark an --interval-report interval (from_el, el]: the path at its end
 * and the shifts in it (nothing when off). */
void app_path_interval(struct report_interval *iv, double from_el, double el);
/* --metrics: latprobe_port_path{path} (1 for the path that carries the
 * packets now, 0 for the other; nothing when off or none seen yet). */
void app_path_metrics(struct metrics_buf *b);
/* The path the packets take now ("vf", "synthetic", "idle"). */
const char *app_path_now(void);
/* The shifts and the run's totals into the report's path (nothing when
 * off); valid until app_path_stop(). */
void app_path_fill(struct report_port_path *p);
void app_path_stop(void);

#endif /* LATPROBE_PATH_WATCH_H */
