/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_ENGINE_WIRE_H
#define LATPROBE_ENGINE_WIRE_H

/*
 * The engine tests' fixture over the fake wire: a prober on side 0, a
 * reflector on side 1 (the cast and clock of test_wire.h). Each test keeps
 * its own struct with what it adds; these set up the parts they share.
 */

#include <stddef.h>

#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/timing.h"
#include "test_wire.h"

/* A zeroed fixture of size bytes, aligned to a cache line as the workers
 * in it want; NULL on failure. */
void *tw_fixture_alloc(size_t size);

/* The fake wire (n_mbufs, MTU 1500) in *f and the TW_TSC_HZ clock; 0, or
 * -1 with *f NULL or still to be destroyed. */
int tw_wire_open(struct io_fake **f, struct tsc_clock *clock, unsigned n_mbufs);

/* rc: the defaults, answering as TW_REFL_IP / tw_refl_mac on clock,
 * anchored at TW_ANCHOR_NS. */
void tw_reflector_conf(struct reflector_conf *rc,
		       const struct tsc_clock *clock);

/* A reflector worker with rc on side 1, run after every frame side 0
 * sends: hook(arg), or with hook NULL reflector_poll(rw). 0 or -1. */
int tw_reflector_start(struct io_fake *f, struct reflector_worker *rw,
		       const struct reflector_conf *rc, void (*hook)(void *arg),
		       void *arg);

/* pc: STAMP probes of the base size from TW_PROBER_IP:sport to the
 * reflector's STAMP port, on clock, anchored as tw_reflector_conf's. The
 * other fields are left as they are. */
void tw_prober_conf_stamp(struct prober_conf *pc, const struct tsc_clock *clock,
			  uint16_t sport);

/* Undo the above: pw and rw (each unless NULL) are finished, then the wire
 * f (NULL is fine) destroyed and fixture freed. */
void tw_fixture_free(void *fixture, struct io_fake *f, struct prober_worker *pw,
		     struct reflector_worker *rw);

#endif /* LATPROBE_ENGINE_WIRE_H */
