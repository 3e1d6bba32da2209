/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PORT_XSTATS_H
#define LATPROBE_PORT_XSTATS_H

/*
 * Which extended stats of a port moved during a run. The comparison is pure
 * (no EAL), so it is unit-tested; port_xstats_read() (port.c) fills a
 * snapshot from the ethdev.
 */

#include <stdbool.h>
#include <stdint.h>

#define PORT_XSTAT_NAME 64

/* Extended stats at one moment, in the port's order. */
struct port_xstats {
	unsigned n;
	char (*names)[PORT_XSTAT_NAME];
	uint64_t *values;
};

/*
 * The stats a latency run watches: the ethdev's missed (imissed) and
 * no-mbuf (rx_nombuf) counters and every name with "error", "drop",
 * "missed" or "nombuf" in it.
 */
bool port_xstat_watched(const char *name);

/*
 * Watched stats that grew from before to after (matched by name): their
 * indexes in after go to idx (up to cap). Returns how many moved (may be
 * more than cap).
 */
unsigned port_xstats_moved(const struct port_xstats *before,
			   const struct port_xstats *after, unsigned *idx,
			   unsigned cap);

/*
 * A port's per-queue counters at one moment (rte_eth_stats q_ipackets,
 * q_errors, q_opackets of its first n queues) and its totals;
 * port_queue_stats_read() (port.c) fills one from the ethdev.
 */
#define PORT_QSTATS_MAX 16 /* RTE_ETHDEV_QUEUE_STAT_CNTRS of Debian's DPDK */
struct port_queue_stats {
	uint16_t n;
	uint64_t ipackets, imissed, ierrors;
	uint64_t q_ipackets[PORT_QSTATS_MAX];
	uint64_t q_errors[PORT_QSTATS_MAX];
	uint64_t q_opackets[PORT_QSTATS_MAX];
};

/*
 * From before to after (two reads of the same port): the deltas into d
 * (d->n = after->n; a counter that went down counts 0). Returns true when
 * the PMD counted frames, per queue: the queues' received frames add up
 * to the port's, and there were some. A PMD that does not fill q_ipackets
 * leaves them 0 while ipackets grows; memif (22.11) reports nothing at all
 * once its peer has disconnected (its ring count goes to 0).
 */
bool port_queue_stats_delta(const struct port_queue_stats *before,
			    const struct port_queue_stats *after,
			    struct port_queue_stats *d);

/*
 * Across a port made again (a re-attach, a failover), whose stats
 * start from 0: carry += after - before per name (a stat that went down
 * adds 0; names new to carry are appended). 0 or -ENOMEM (carry as it
 * was).
 */
int port_xstats_carry(struct port_xstats *carry,
		      const struct port_xstats *before,
		      const struct port_xstats *after);

/* x += carry per name, a name x lacks appended to it (absent from any
 * "before" it counts from 0). 0 or -ENOMEM (x as it was). */
int port_xstats_add(struct port_xstats *x, const struct port_xstats *carry);

/* acc += d, queue by queue (acc->n becomes the larger n). */
void port_queue_stats_add(struct port_queue_stats *acc,
			  const struct port_queue_stats *d);

/* Snapshot with a value per name; 0 or -errno. Free with port_xstats_free. */
int port_xstats_alloc(struct port_xstats *x, unsigned n);
void port_xstats_free(struct port_xstats *x);

#endif /* LATPROBE_PORT_XSTATS_H */
