/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One frame onto the prober's rx ring over the fake wire, while it sends
 * one probe (STAMP, or tcp-syn / icmp / fragmented STAMP, with or without
 * a VLAN, over IPv4 or IPv6, as the input's last byte decides: trailing
 * bytes are Ethernet
 * padding to the parser; bit 4: in open loop, --rate): every frame it does not
 * take is counted under exactly one reason (the reasons add up to rx_ignored),
 * no mbuf leaks, and the probe's fate is known (sent = received + lost).
 */
#include <stdint.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "io_fake.h"
#include "latprobe/prober.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct prober_worker w;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const atomic_bool no_stop;
	static struct io_fake *f;
	static struct prober_conf c = {
		.flow = {.src_mac = {{0x02, 0, 0, 0, 0, 0x01}},
			 .dst_mac = {{0x02, 0, 0, 0, 0, 0x02}},
			 .ip_version = 4,
			 .src4 = 0xc6120001, /* 198.18.0.1 */
			 .dst4 = 0xc6120002, /* 198.18.0.2, as the corpus */
			 .sport = 40000,
			 .dport = 862},
		.count = 1,
		.timeout_cycles = 1000,
		.icmp_id = 0x4200,
		.anchor = {.realtime_ns = 1700000000000000000ull},
	};
	uint64_t sum = 0;

	if (f == NULL && (f = io_fake_create(256, 1500)) == NULL)
		abort();
	if (c.clock.hz == 0 && tsc_clock_init(&c.clock, 2000000000) != 0)
		abort();
	switch (size > 0 ? data[size - 1] & 3 : 0) {
	case 0:
		c.proto = &probe_proto_stamp;
		c.size = 44;
		break;
	case 1:
		c.proto = &probe_proto_stamp;
		c.size = 3000; /* fragments */
		break;
	case 2:
		c.proto = &probe_proto_tcp_syn;
		c.size = 0;
		break;
	default:
		c.proto = &probe_proto_icmp;
		c.size = 16;
		break;
	}
	c.flow.vlan = size > 0 && (data[size - 1] & 4);
	/* IPv6 (2001:2::1 -> 2001:2::2, the ipv6 seeds) when bit 3 says so. */
	c.flow.ip_version = size > 0 && (data[size - 1] & 8) ? 6 : 4;
	c.flow.src6[0] = c.flow.dst6[0] = 0x20;
	c.flow.src6[1] = c.flow.dst6[1] = 0x01;
	c.flow.src6[3] = c.flow.dst6[3] = 0x02;
	c.flow.src6[15] = 1;
	c.flow.dst6[15] = 2;
	c.flow.vlan_tci = 100;
	/* Open loop: the answer's own sequence number against the window. */
	c.rate_pps = size > 0 && (data[size - 1] & 16) ? 1000000 : 0;
	if (prober_worker_init(&w, &c, io_fake_queue(f, 0), 0) != 0)
		abort();
	if (io_fake_inject(f, 0, data, size) != 0)
		goto out;
	if ((c.rate_pps != 0 ? prober_worker_run_open(&w, &no_stop)
			     : prober_worker_run(&w, &no_stop)) != 0)
		abort();
	for (unsigned i = 0; i < PROBER_IGN__COUNT; i++)
		sum += w.st.ignored[i];
	if (sum != w.st.rx_ignored || w.st.sent != w.st.received + w.st.lost)
		abort();
out:
	/* What the prober sent (probes, ARP answers) waits on side 1. */
	for (;;) {
		struct io_queue *q = io_fake_queue(f, 1);
		struct rte_mbuf *m[32];
		uint16_t n = io_rx(q, m, 32);

		if (n == 0)
			break;
		for (uint16_t i = 0; i < n; i++)
			io_free(q, m[i]);
	}
	if (io_fake_mbufs_in_use(f) != 0)
		abort();
	prober_worker_fini(&w);
	return 0;
}
