/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One frame into the reflector over the fake wire: it must neither leak an
 * mbuf nor send anything longer than what came in (no amplification; only
 * an ARP reply, a fixed 42 bytes, may outgrow a shorter request).
 */
#include <stdint.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "io_fake.h"
#include "reflector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct reflector_worker w;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct io_fake *f;
	static struct reflector_conf c = {
		.addr = 0xc6120002, /* 198.18.0.2, as the seed corpus */
		.mac = {{0x02, 0, 0, 0, 0, 0x02}},
		.stamp_port = 862,
		.sockperf_port = 11111,
		.echo_port = 7,
		.stateful = true,
		.anchor = {.realtime_ns = 1700000000000000000ull},
	};
	struct rte_mbuf *out[REFLECTOR_BURST];
	struct io_queue *q;
	uint16_t n;

	if (f == NULL && (f = io_fake_create(64, 1500)) == NULL)
		abort();
	if (c.clock.hz == 0 && tsc_clock_init(&c.clock, 2000000000) != 0)
		abort();
	c.verify_l4_csum = size & 1; /* both paths, decided by the input */
	/* STAMP authenticated mode too (seed stamp_auth.bin: key "fuzz") */
	c.auth_key = (const uint8_t *)"fuzz";
	c.auth_key_len = size & 2 ? 4 : 0;
	if (reflector_worker_init(&w, &c, io_fake_queue(f, 1)) != 0 ||
	    io_fake_inject(f, 1, data, size) != 0)
		goto out;
	reflector_poll(&w);
	q = io_fake_queue(f, 0);
	n = io_rx(q, out, REFLECTOR_BURST);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(out[i], const uint8_t *);

		if (out[i]->data_len > size &&
		    (out[i]->data_len != 42 || b[12] != 0x08 || b[13] != 0x06))
			abort();
		q->ops->free(q, out[i]);
	}
	if (n > 1 || io_fake_mbufs_in_use(f) != 0)
		abort();
out:
	reflector_worker_fini(&w);
	return 0;
}
