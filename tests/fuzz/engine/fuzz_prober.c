/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One frame onto the prober's rx ring over the fake wire, while it sends
 * one probe (STAMP, or tcp-syn / icmp / fragmented STAMP, with or without
 * a VLAN, over IPv4 or IPv6, as the input's last byte decides: trailing
 * bytes are Ethernet
 * padding to the parser), on one flow or, bits 4 and 5 (not ICMP), on one
 * of 4 (--flows 4) or a first packet (--new-flow-every 1), and, bit 6, in
 * open loop (--rate): every frame it does not take is counted under exactly
 * one reason (the reasons add up to rx_ignored), no mbuf leaks, and the
 * probe's fate is known (sent = received + lost, and so is its flow's). A
 * protocol with the
 * UDP answer fast path (STAMP) runs the frame a second time through the
 * generic path alone (match_payload NULL): the counters must be the same.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "io_fake.h"
#include "latprobe/prober.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct prober_worker w, w2;

/* What the prober sent (probes, ARP answers) waits on side 1. */
static void
drain(struct io_fake *f)
{
	for (;;) {
		struct io_queue *q = io_fake_queue(f, 1);
		struct rte_mbuf *m[32];
		uint16_t n = io_rx(q, m, 32);

		if (n == 0)
			break;
		for (uint16_t i = 0; i < n; i++)
			io_free(q, m[i]);
	}
}

/* The engine the conf asks for: open loop with a rate, else closed. */
static int
run(struct prober_worker *pw, const struct prober_conf *pc)
{
	static const atomic_bool no_stop;

	return pc->rate_pps != 0 ? prober_worker_run_open(pw, &no_stop)
				 : prober_worker_run(pw, &no_stop);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
	static const uint16_t sports[4] = {40000, 40001, 40002, 40003};
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
	c.sports = sports;
	c.n_flows = 0;
	c.new_flow_every = 0;
	c.n_sports = 0;
	if (size > 0 && c.proto != &probe_proto_icmp) {
		if (data[size - 1] & 16) {
			c.n_flows = 4;
			c.n_sports = 4;
		} else if (data[size - 1] & 32) {
			c.new_flow_every = 1;
			c.n_sports = 4;
		}
	}
	/* Open loop: the answer's own sequence number against the window. */
	c.rate_pps = size > 0 && (data[size - 1] & 64) ? 1000000 : 0;
	if (prober_worker_init(&w, &c, io_fake_queue(f, 0), 0) != 0)
		abort();
	if (io_fake_inject(f, 0, data, size) != 0)
		goto out;
	if (run(&w, &c) != 0)
		abort();
	for (unsigned i = 0; i < PROBER_IGN__COUNT; i++)
		sum += w.st.ignored[i];
	if (sum != w.st.rx_ignored || w.st.sent != w.st.received + w.st.lost)
		abort();
	if (w.flows != NULL && w.flows[0].count + w.flows[0].lost != w.st.sent)
		abort();
	if (w.first_rtt != NULL &&
	    histogram_count(w.first_rtt) + w.st.first_lost != w.st.sent)
		abort();
	if (c.proto->match_payload != NULL) {
		struct probe_proto slow = *c.proto;
		struct prober_conf c2 = c;

		slow.match_payload = NULL;
		c2.proto = &slow;
		drain(f);
		if (prober_worker_init(&w2, &c2, io_fake_queue(f, 0), 0) != 0)
			abort();
		if (io_fake_inject(f, 0, data, size) != 0 ||
		    run(&w2, &c2) != 0 ||
		    memcmp(&w.st, &w2.st, sizeof(w.st)) != 0)
			abort();
		prober_worker_fini(&w2);
	}
out:
	drain(f);
	if (io_fake_mbufs_in_use(f) != 0)
		abort();
	prober_worker_fini(&w);
	return 0;
}
