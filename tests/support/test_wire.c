/* SPDX-License-Identifier: BSD-3-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/stamp.h"
#include "test_wire.h"

const struct codec_mac tw_prober_mac = {{0x02, 0, 0, 0, 0, 0x01}};
const struct codec_mac tw_refl_mac = {{0x02, 0, 0, 0, 0, 0x02}};
const struct codec_mac tw_other_mac = {{0x02, 0, 0, 0, 0, 0x03}};

struct codec_flow
tw_flow4(const struct codec_mac *src_mac, const struct codec_mac *dst_mac,
	 uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	struct codec_flow fl;

	memset(&fl, 0, sizeof(fl));
	fl.src_mac = *src_mac;
	fl.dst_mac = *dst_mac;
	fl.ip_version = 4;
	fl.src4 = src;
	fl.dst4 = dst;
	fl.sport = sport;
	fl.dport = dport;
	return fl;
}

size_t
tw_build_udp(uint8_t *buf, size_t cap, const struct codec_flow *fl,
	     const uint8_t *pl, size_t plen)
{
	int len = codec_build_udp(buf, cap, fl, 1, pl, plen);

	assert_true(len > 0);
	return (size_t)len;
}

size_t
tw_stamp_payload(uint8_t *pl, size_t len, uint32_t seq, uint16_t ssid,
		 uint64_t t_ns)
{
	struct stamp_sender_opts o;

	memset(&o, 0, sizeof(o));
	o.seq = seq;
	o.timestamp = stamp_ntp_from_ns(t_ns);
	o.error_estimate = 1;
	o.ssid = ssid;
	o.len = len;
	assert_int_equal(stamp_sender_build(pl, len, &o), (int)len);
	return len;
}

void
tw_inject(struct io_fake *f, unsigned side, const void *frame, size_t len)
{
	assert_int_equal(io_fake_inject(f, side, frame, len), 0);
}

unsigned
tw_drain(struct io_fake *f, unsigned side)
{
	struct io_queue *q = io_fake_queue(f, side);
	struct rte_mbuf *pkts[32];
	unsigned total = 0;
	uint16_t n;

	while ((n = io_rx(q, pkts, 32)) > 0) {
		for (uint16_t i = 0; i < n; i++)
			io_free(q, pkts[i]);
		total += n;
	}
	return total;
}

size_t
tw_take_one(struct io_fake *f, unsigned side, uint8_t *buf, size_t cap)
{
	struct io_queue *q = io_fake_queue(f, side);
	struct rte_mbuf *m;
	size_t len;

	assert_int_equal(io_rx(q, &m, 1), 1);
	len = m->data_len;
	assert_true(len <= cap);
	memcpy(buf, rte_pktmbuf_mtod(m, const uint8_t *), len);
	io_free(q, m);
	return len;
}
