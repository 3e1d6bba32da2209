/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_LINK_EVENTS_H
#define LATPROBE_LINK_EVENTS_H

/*
 * What the port did during a run, app side: one run, one port,
 * so one instance (app_link). The run skeleton starts it after the port's
 * set-up, the port thread (path_watch.c) polls it every LINK_POLL_S (the link
 * read with rte_eth_link_get_nowait, the LSC callback's time when there was
 * one), prints a line on each event, keeps the workers' view (struct io_link)
 * and the log; a removal stops the run at once (force_quit) and the main
 * thread releases the device after the report.
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/codec.h"
#include "latprobe/events.h"
#include "latprobe/io_link.h"
#include "latprobe/metrics.h"
#include "latprobe/report.h"

struct app_run;

#define LINK_POLL_S 0.05

/* After the port's set-up and link check (DPDK only). */
void app_link_start(struct app_run *r);
/* When the workers start: event times are counted from here. */
void app_link_begin(struct app_run *r);
/* Is it on (a DPDK port)? The port thread then polls it. */
bool app_link_on(void);
/* Side thread, every LINK_POLL_S; and the main thread once after the
 * workers stopped. */
void app_link_poll(struct app_run *r);
/* The workers' view (NULL when off). */
const struct io_link *app_link_io(void);
/* The device was removed during the run. */
bool app_link_removed(void);
/* The link is down now (port thread's view). */
bool app_link_down(void);
/* " [link down 2.1s]" / " [removed]" for the live line: 0 or the length
 * written (nothing when all is well). */
int app_link_live_mark(char *buf, size_t cap);
/* Mark an --interval-report interval: the events since the last interval
 * marked, up to now, on the events' clock. Called once per interval, in
 * order, after its counts are read. */
void app_link_interval(struct report_interval *iv);
/* The report's section (NULL when off); valid until app_link_stop(). */
const struct report_port_events *app_link_report(double duration_s);
/* --metrics: latprobe_link_up, latprobe_port_events_total{kind}. */
void app_link_metrics(struct metrics_buf *b);
/*
 * Main thread, after the workers returned: when the device was removed and
 * the run re-attaches (r->opt.reattach) and no signal came, release it,
 * wait for it to come back (rte_dev_probe every 500 ms, until a signal),
 * set the port up again and return true: the caller runs the workers
 * again. False otherwise.
 */
bool app_link_reattach(struct app_run *r);
/*
 * Another thread's use of the port (path_watch.c's xstats) between these
 * two: false (nothing held) while the port is released or being made
 * again after a removal or a failover.
 */
bool app_link_port_acquire(void);
void app_link_port_release(void);
/* Note an event of another module (PORT_EV_PATH_SHIFT) at t_ns. */
void app_link_note(enum port_event_kind kind, uint64_t t_ns);
/* The latest VF sub-device removal at or before t_ns, or UINT64_MAX. */
uint64_t app_link_vf_removed_before_ns(uint64_t t_ns);
/*
 * Main thread, the workers stopped, after a re-attach or failover (the
 * commands' port_swap hook): announce ip4 (host order; 0: none) at mac on
 * the new port's queue 0 with a gratuitous ARP (tagged vlan when
 * non-zero), so that the switches learn the new path at once: a
 * reflector, which only answers, would else stay unreachable over the
 * fallback until the old path's entry ages out (seen in the VM lab).
 */
void app_link_announce(struct app_run *r, const struct codec_mac *mac,
		       uint32_t ip4, uint16_t vlan);
/* After the report: release a removed device, unregister. */
void app_link_stop(struct app_run *r);

#endif /* LATPROBE_LINK_EVENTS_H */
