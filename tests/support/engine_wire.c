/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "latprobe/stamp.h"
#include "engine_wire.h"

void *
tw_fixture_alloc(size_t size)
{
	/* aligned_alloc wants a multiple of the alignment. */
	void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

int
tw_wire_open(struct io_fake **f, struct tsc_clock *clock, unsigned n_mbufs)
{
	*f = io_fake_create(n_mbufs, 1500);
	if (*f == NULL || tsc_clock_init(clock, TW_TSC_HZ) != 0)
		return -1;
	return 0;
}

void
tw_reflector_conf(struct reflector_conf *rc, const struct tsc_clock *clock)
{
	reflector_conf_default(rc);
	rc->addr = TW_REFL_IP;
	rc->mac = tw_refl_mac;
	rc->clock = *clock;
	rc->anchor = (struct tsc_anchor){.realtime_ns = TW_ANCHOR_NS};
}

static void
poll_hook(void *arg)
{
	reflector_poll(arg);
}

int
tw_reflector_start(struct io_fake *f, struct reflector_worker *rw,
		   const struct reflector_conf *rc, void (*hook)(void *arg),
		   void *arg)
{
	if (reflector_worker_init(rw, rc, io_fake_queue(f, 1)) != 0)
		return -1;
	if (hook == NULL)
		io_fake_set_peer(f, 0, poll_hook, rw);
	else
		io_fake_set_peer(f, 0, hook, arg);
	return 0;
}

void
tw_prober_conf_stamp(struct prober_conf *pc, const struct tsc_clock *clock,
		     uint16_t sport)
{
	pc->proto = &probe_proto_stamp;
	pc->flow = tw_flow4(&tw_prober_mac, &tw_refl_mac, TW_PROBER_IP,
			    TW_REFL_IP, sport, STAMP_PORT);
	pc->size = STAMP_BASE_LEN;
	pc->clock = *clock;
	pc->anchor = (struct tsc_anchor){.realtime_ns = TW_ANCHOR_NS};
}

void
tw_fixture_free(void *fixture, struct io_fake *f, struct prober_worker *pw,
		struct reflector_worker *rw)
{
	if (pw != NULL)
		prober_worker_fini(pw);
	if (rw != NULL)
		reflector_worker_fini(rw);
	io_fake_destroy(f);
	free(fixture);
}
