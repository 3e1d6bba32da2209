/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One frame into the reflector over the fake wire: it must neither leak an
 * mbuf nor send anything longer than what came in (no amplification; only
 * an ARP reply, a fixed 42 bytes, may outgrow a shorter request), nor
 * turn a right UDP checksum wrong.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "io_fake.h"
#include "latprobe/reflector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct reflector_worker w;

/* The padding an answer got past what its request held (an ARP answer is
 * 42 bytes of its own, whatever the request's length). */
static bool
zero_from(const uint8_t *b, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (b[i] != 0)
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct io_fake *f;
	static struct reflector_conf c;
	struct rte_mbuf *out[REFLECTOR_BURST];
	struct codec_frame in;
	bool in_csum_ok;
	struct io_queue *q;
	uint16_t n;

	if (f == NULL && (f = io_fake_create(64, 1500)) == NULL)
		abort();
	if (c.clock.hz == 0) {
		reflector_conf_default(&c);
		c.addr = 0xc6120002; /* 198.18.0.2/24, as the seed corpus */
		c.prefix_len = 24;
		/* and 2001:2::2, as the IPv6 seeds (ipv6_*) */
		c.addr6 = codec_ip_from_v6(
			(const uint8_t[16]){0x20, 0x01, 0x00, 0x02, [15] = 2});
		c.mac = (struct codec_mac){{0x02, 0, 0, 0, 0, 0x02}};
		c.stateful = true;
		c.n_reasm = 0;
		c.anchor.realtime_ns = 1700000000000000000ull;
		if (tsc_clock_init(&c.clock, 2000000000) != 0)
			abort();
	}
	/* A request with a right UDP checksum gets an answer with a right
	 * one (the reflector only updates it, RFC 1624). */
	in_csum_ok = codec_parse_frame(data, size, &in) == 0 &&
		     (in.ip_version == 4 || in.ip_version == 6) &&
		     in.ip_proto == CODEC_IPPROTO_UDP && !in.is_fragment &&
		     in.payload_off != 0 && codec_l4_csum_ok(data, &in);
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

		struct codec_frame a;

		/* Never longer than its request, but for the padding of a
		 * short one (an ARP answer, a runt) to the Ethernet minimum,
		 * zeros past the request. */
		if (out[i]->data_len > size &&
		    (out[i]->data_len != 60 ||
		     !zero_from(b, b[12] == 0x08 && b[13] == 0x06 ? 42 : size,
				60)))
			abort();
		if (in_csum_ok &&
		    (codec_parse_frame(b, out[i]->data_len, &a) != 0 ||
		     (a.ip_proto == CODEC_IPPROTO_UDP &&
		      !codec_l4_csum_ok(b, &a))))
			abort();
		io_free(q, out[i]);
	}
	if (n > 1 || io_fake_mbufs_in_use(f) != 0)
		abort();
out:
	reflector_worker_fini(&w);
	return 0;
}
