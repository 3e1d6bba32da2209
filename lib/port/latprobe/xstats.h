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

/* Snapshot with a value per name; 0 or -errno. Free with port_xstats_free. */
int port_xstats_alloc(struct port_xstats *x, unsigned n);
void port_xstats_free(struct port_xstats *x);

#endif /* LATPROBE_PORT_XSTATS_H */
