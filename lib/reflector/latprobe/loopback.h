/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_LOOPBACK_H
#define LATPROBE_LOOPBACK_H

/*
 * In-process reflector for loopback ports (net_ring: what a port sends comes
 * back on its own rx). An io table wrapped around the real queue: frames for
 * the reflector's address go to a reflector engine on the same lcore, which
 * answers through the real tx; everything else goes up to the prober. One
 * process then exercises the whole packet path on a real PMD.
 */

#include "latprobe/io.h"
#include "latprobe/reflector.h"

struct loopback_io {
	struct io_queue q;	/* hand this one to the prober */
	struct io_queue *lower; /* the port's queue */
	struct reflector_conf conf;
	struct reflector_worker refl;
};

/* conf->addr is the reflector's address; 0 or -errno. */
int loopback_io_init(struct loopback_io *l, struct io_queue *lower,
		     const struct reflector_conf *conf);
void loopback_io_fini(struct loopback_io *l);

#endif /* LATPROBE_LOOPBACK_H */
