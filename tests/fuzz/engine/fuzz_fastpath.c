/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflector's STAMP fast path against its generic path on one fuzzed
 * frame: two stateless reflectors, one with the fast path and one without
 * (no_fast_path), get the frame with the same rx offload flags, T2 and T3
 * (chosen by the input's length). Their answers must
 * be the same bytes and their counters must agree; anything else aborts.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "io_fake.h"
#include "latprobe/reflector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A reflector on side 1 of its own fake wire. */
struct side {
	struct io_fake *f;
	struct reflector_conf c;
	struct reflector_worker w;
};

static struct side sides[2];

static void
side_init(struct side *s, bool fast)
{
	s->f = io_fake_create(64, 1500);
	if (s->f == NULL)
		abort();
	/* T2 and T3 the same on both sides, T3 after T2. */
	io_fake_pin_clock(s->f, 1, 5000000000ull, 5000003001ull);
	reflector_conf_default(&s->c);
	s->c.addr = 0xc6120002; /* 198.18.0.2/24, as the seed corpus */
	s->c.prefix_len = 24;
	s->c.mac = (struct codec_mac){{0x02, 0, 0, 0, 0, 0x02}};
	s->c.n_reasm = 0;
	s->c.anchor.realtime_ns = 1700000000000000000ull;
	s->c.no_fast_path = !fast;
	if (tsc_clock_init(&s->c.clock, 2000000000) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *out[2][REFLECTOR_BURST];
	uint16_t n[2];

	if (sides[0].f == NULL) {
		side_init(&sides[0], true);
		side_init(&sides[1], false);
	}
	for (unsigned i = 0; i < 2; i++) {
		struct side *s = &sides[i];

		io_fake_set_rx_ol_flags(
			s->f, 1,
			io_fake_rx_ol_cases[(size >> 1) % IO_FAKE_RX_OL_CASES]);
		if (reflector_worker_init(&s->w, &s->c,
					  io_fake_queue(s->f, 1)) != 0)
			abort();
		if (io_fake_inject(s->f, 1, data, size) != 0) {
			reflector_worker_fini(&s->w);
			return 0;
		}
		reflector_poll(&s->w);
		n[i] = io_rx(io_fake_queue(s->f, 0), out[i], REFLECTOR_BURST);
	}
	if (n[0] != n[1])
		abort();
	for (uint16_t j = 0; j < n[0]; j++)
		if (out[0][j]->data_len != out[1][j]->data_len ||
		    memcmp(rte_pktmbuf_mtod(out[0][j], const uint8_t *),
			   rte_pktmbuf_mtod(out[1][j], const uint8_t *),
			   out[0][j]->data_len) != 0)
			abort();
	for (unsigned c = 0; c < RC__COUNT; c++)
		if (reflector_counter_read(&sides[0].w, c) !=
		    reflector_counter_read(&sides[1].w, c))
			abort();
	if (sides[1].w.fast_answers != 0)
		abort();
	for (unsigned i = 0; i < 2; i++) {
		for (uint16_t j = 0; j < n[i]; j++)
			io_free(io_fake_queue(sides[i].f, 0), out[i][j]);
		reflector_worker_fini(&sides[i].w);
		if (io_fake_mbufs_in_use(sides[i].f) != 0)
			abort();
	}
	return 0;
}
