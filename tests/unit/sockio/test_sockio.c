/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel backend on 127.0.0.1: raw frames through the io table, then the
 * real prober and reflector engines on top, then sockperf 3.7 (when
 * installed) on either side. Ports are ephemeral so parallel runs do not
 * collide; every wait is bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "latprobe/codec.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/sockio.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "latprobe/timing.h"
#include "test_wire.h"

#define LO		 0x7f000001u /* 127.0.0.1 */
#define SPIN_NS		 2000000000ull
#define N_PROBES	 500
#define SOCKPERF_BIN	 "/usr/bin/sockperf"
#define CHILD_TIMEOUT_NS 60000000000ull
/*
 * A run's bound: a broken backend fails in bounded time. Two busy-polling
 * threads ping-ponging on a loaded 2-vCPU machine can take a scheduler
 * slice per round trip (seen: 554 of 2,000 probes in 20 s at load 14), so
 * the bound is far above what a quiet machine needs (well under 1 s).
 */
#define RUN_BOUND_NS	 90000000000ull

static const struct codec_mac mac_p = {{0x02, 0, 0, 0, 0, 0x01}};
static const struct codec_mac mac_r = {{0x02, 0, 0, 0, 0, 0x02}};
static const struct codec_mac no_mac; /* the kernel fills the MACs */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A UDP port on 127.0.0.1 that was free a moment ago. */
static uint16_t
free_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uint16_t port;

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(LO);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

/* A reflector sockio on n free ports; retried if one was taken meanwhile. */
static struct sockio *
open_reflector(uint16_t *ports, unsigned n, const struct sockio_opts *o)
{
	for (unsigned attempt = 0; attempt < 20; attempt++) {
		struct sockio *s;

		for (unsigned i = 0; i < n; i++)
			ports[i] = free_port();
		s = sockio_open_reflector(LO, ports, n, &mac_r, o);
		if (s != NULL)
			return s;
		assert_int_equal(errno, EADDRINUSE);
	}
	fail_msg("no free ports");
	return NULL;
}

/* Spin on rx until one frame comes (or SPIN_NS passes). */
static struct rte_mbuf *
rx_one(struct io_queue *q)
{
	uint64_t t0 = now_ns();
	struct rte_mbuf *m;

	while (now_ns() - t0 < SPIN_NS)
		if (io_rx(q, &m, 1) == 1)
			return m;
	return NULL;
}

/* One frame from q within SPIN_NS, parsed into f. */
static struct rte_mbuf *
rx_frame(struct io_queue *q, struct codec_frame *f)
{
	struct rte_mbuf *m = rx_one(q);

	assert_non_null(m);
	assert_int_equal(codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					   m->data_len, f),
			 0);
	return m;
}

/* Build a UDP frame of plen pattern bytes into a fresh mbuf of q. */
static struct rte_mbuf *
make_udp(struct io_queue *q, const struct codec_flow *fl, size_t plen,
	 uint8_t seed)
{
	struct rte_mbuf *m = io_alloc(q);
	uint8_t *buf;
	size_t h = codec_udp_header_len(fl);
	int len;

	assert_non_null(m);
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	for (size_t i = 0; i < plen; i++)
		buf[h + i] = (uint8_t)(seed + i * 7);
	len = codec_build_udp(buf, rte_pktmbuf_tailroom(m), fl, 1, buf + h,
			      plen);
	assert_true(len > 0);
	io_mbuf_set_len(m, (uint16_t)len);
	return m;
}

static void
check_payload(const uint8_t *p, size_t plen, uint8_t seed)
{
	for (size_t i = 0; i < plen; i++)
		if (p[i] != (uint8_t)(seed + i * 7))
			fail_msg("payload byte %zu differs", i);
}

/* Frames --------------------------------------------------------------------
 */

static void
test_frames_both_ways(void **state)
{
	uint16_t rport[2];
	struct sockio *r, *p;
	struct io_queue *rq, *pq;
	struct codec_flow fl;
	struct codec_frame f;
	struct sockio_stats st;
	struct rte_mbuf *m;
	uint8_t *buf;
	uint16_t pport;

	r = open_reflector(rport, 1, NULL);
	rport[1] = 0;
	assert_int_equal(sockio_n_sockets(r), 1);
	assert_int_equal(sockio_local_port(r, 0), rport[0]);
	assert_int_equal(sockio_local_addr(r, 0), LO);
	p = sockio_open_prober(0, 0, LO, rport[0], &mac_p, NULL);
	assert_non_null(p);
	pport = sockio_local_port(p, 0);
	assert_int_not_equal(pport, 0);
	/* Bound to any, connect() picked the source address. */
	assert_int_equal(sockio_local_addr(p, 0), LO);
	assert_int_equal(sockio_local_port(p, 1), 0);
	rq = sockio_queue(r);
	pq = sockio_queue(p);
	assert_string_equal(pq->ops->name, "kernel");

	fl = tw_flow4(&mac_p, &mac_r, LO, LO, pport, rport[0]);
	fl.ttl = 37;
	fl.tos = 0xb8; /* DSCP EF */
	m = make_udp(pq, &fl, 100, 3);
	assert_int_equal(io_tx(pq, &m, 1), 1);
	assert_int_equal(sockio_mbufs_in_use(p), 0);
	sockio_stats_get(p, &st);
	assert_int_equal(st.tx_sent, 1);
	assert_int_equal(sockio_tx_dropped(p), 0);

	m = rx_one(rq);
	assert_non_null(m);
	assert_int_equal(sockio_mbufs_in_use(r), 1);
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(m->pkt_len, m->data_len);
	assert_int_equal(m->data_len, SOCKIO_HDR_LEN + 100);
	assert_int_equal(codec_parse_frame(buf, m->data_len, &f), 0);
	assert_memory_equal(&f.dst, &mac_r, sizeof(mac_r));
	assert_int_equal(f.ethertype, CODEC_ETHERTYPE_IPV4);
	assert_int_equal(f.ip_proto, CODEC_IPPROTO_UDP);
	assert_int_equal(f.src4, LO);
	assert_int_equal(f.dst4, LO);
	assert_int_equal(f.sport, pport);
	assert_int_equal(f.dport, rport[0]);
	assert_int_equal(f.ttl, 37);
	assert_int_equal(f.tos, 0xb8);
	assert_int_equal(f.payload_len, 100);
	/* The kernel verified the checksums: the frame says so as a NIC
	 * would, with a valid IPv4 header and no UDP checksum (0: none). */
	assert_int_equal(io_rx_ip_csum(m), IO_CSUM_GOOD);
	assert_int_equal(io_rx_l4_csum(m), IO_CSUM_GOOD);
	assert_true(codec_ipv4_csum_ok(buf, &f));
	assert_int_equal(buf[f.l4_off + 6] | buf[f.l4_off + 7], 0);
	check_payload(buf + f.payload_off, 100, 3);

	/* Answer as a STAMP reflector would: TTL 255, payload changed. */
	codec_turn_around(buf, &f, &mac_r, 255);
	buf[f.payload_off] ^= 0xff;
	codec_ipv4_csum_set(buf, &f);
	codec_l4_csum_set(buf, &f);
	assert_int_equal(io_tx(rq, &m, 1), 1);
	assert_int_equal(sockio_mbufs_in_use(r), 0);

	m = rx_one(pq);
	assert_non_null(m);
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	assert_int_equal(codec_parse_frame(buf, m->data_len, &f), 0);
	assert_memory_equal(&f.dst, &mac_p, sizeof(mac_p));
	assert_int_equal(f.src4, LO);
	assert_int_equal(f.sport, rport[0]);
	assert_int_equal(f.dport, pport);
	/* A prober socket does not ask for TTL and TOS (control messages
	 * cost every receive): the frame carries the defaults. */
	assert_int_equal(f.ttl, 64);
	assert_int_equal(f.tos, 0);
	assert_int_equal(f.payload_len, 100);
	assert_int_equal(io_rx_l4_csum(m), IO_CSUM_GOOD);
	assert_int_equal(buf[f.payload_off], (uint8_t)(3 ^ 0xff));
	check_payload(buf + f.payload_off + 1, 99, 3 + 7);
	io_free(pq, m);
	assert_int_equal(sockio_mbufs_in_use(p), 0);
	sockio_close(p);
	sockio_close(r);
}

/* Big datagrams arrive whole up to max_datagram, truncated ones are dropped. */
static void
test_sizes(void **state)
{
	struct sockio_opts o;
	uint16_t rport;
	struct sockio *r, *p, *big;
	struct io_queue *rq, *pq;
	struct codec_flow fl;
	struct codec_frame f;
	struct sockio_stats st;
	struct rte_mbuf *m;
	uint64_t t0;

	sockio_opts_default(&o);
	o.max_datagram = 1000;
	o.n_mbufs = 4;
	r = open_reflector(&rport, 1, &o);
	assert_int_equal(sockio_queue(r)->mtu, 1028);
	p = sockio_open_prober(LO, 0, LO, rport, &mac_p, NULL);
	assert_non_null(p);
	rq = sockio_queue(r);
	pq = sockio_queue(p);
	assert_int_equal(pq->mtu, 65535 - CODEC_ETH_HLEN);

	fl = tw_flow4(&no_mac, &no_mac, LO, LO, sockio_local_port(p, 0), rport);
	m = make_udp(pq, &fl, 1001, 9);
	assert_int_equal(io_tx(pq, &m, 1), 1);
	m = make_udp(pq, &fl, 1000, 11);
	assert_int_equal(io_tx(pq, &m, 1), 1);
	m = rx_frame(rq, &f);
	assert_int_equal(f.payload_len, 1000);
	check_payload(rte_pktmbuf_mtod(m, uint8_t *) + f.payload_off, 1000, 11);
	io_free(rq, m);
	sockio_stats_get(r, &st);
	assert_int_equal(st.rx_truncated, 1);
	assert_int_equal(st.rx_received, 1);

	/* The largest payload a 16-bit mbuf frame holds, both ways. */
	big = sockio_open_reflector(LO, &fl.sport, 0, &mac_r, NULL);
	assert_null(big);
	assert_int_equal(errno, EINVAL);
	m = make_udp(pq, &fl, SOCKIO_MAX_DATAGRAM, 5);
	assert_int_equal(m->data_len, 65535);
	sockio_close(r);
	r = sockio_open_reflector(LO, &rport, 1, &mac_r, NULL);
	assert_non_null(r);
	rq = sockio_queue(r);
	assert_int_equal(io_tx(pq, &m, 1), 1);
	sockio_stats_get(p, &st);
	assert_int_equal(st.tx_errors, 0);
	m = rx_one(rq);
	assert_non_null(m);
	assert_int_equal(m->data_len, 65535);
	assert_int_equal(codec_parse_frame(rte_pktmbuf_mtod(m, uint8_t *),
					   m->data_len, &f),
			 0);
	assert_int_equal(f.payload_len, SOCKIO_MAX_DATAGRAM);
	assert_true(codec_l4_csum_ok(rte_pktmbuf_mtod(m, uint8_t *), &f));
	check_payload(rte_pktmbuf_mtod(m, uint8_t *) + f.payload_off,
		      SOCKIO_MAX_DATAGRAM, 5);
	io_free(rq, m);

	/* An empty pool: rx takes nothing and says so. */
	{
		struct rte_mbuf *hold[64];
		unsigned n = 0;

		while (n < 64 && (hold[n] = io_alloc(rq)) != NULL)
			n++;
		assert_int_equal(n, 64); /* the default pool */
		t0 = now_ns();
		assert_int_equal(io_rx(rq, &m, 1), 0);
		sockio_stats_get(r, &st);
		assert_int_equal(st.rx_nombuf, 1);
		for (unsigned i = 0; i < n; i++)
			io_free(rq, hold[i]);
		(void)t0;
	}
	assert_int_equal(sockio_mbufs_in_use(r), 0);
	assert_int_equal(sockio_mbufs_in_use(p), 0);
	sockio_close(p);
	sockio_close(r);
}

/* A backlog is read whole and in order, in growing batches. */
static void
test_backlog(void **state)
{
	uint16_t rport;
	struct sockio *r, *p;
	struct io_queue *rq, *pq;
	struct codec_flow fl;
	struct rte_mbuf *m[32];
	unsigned got = 0, max_burst = 0;
	uint64_t t0;

	r = open_reflector(&rport, 1, NULL);
	p = sockio_open_prober(LO, 0, LO, rport, &mac_p, NULL);
	assert_non_null(p);
	rq = sockio_queue(r);
	pq = sockio_queue(p);
	fl = tw_flow4(&no_mac, &no_mac, LO, LO, sockio_local_port(p, 0), rport);
	for (unsigned i = 0; i < 40; i++) {
		struct rte_mbuf *x = make_udp(pq, &fl, 16, (uint8_t)i);

		assert_int_equal(io_tx(pq, &x, 1), 1);
	}
	t0 = now_ns();
	while (got < 40 && now_ns() - t0 < SPIN_NS) {
		uint16_t n = io_rx(rq, m, 32);

		if (n > max_burst)
			max_burst = n;
		for (uint16_t i = 0; i < n; i++, got++) {
			struct codec_frame f;
			uint8_t *buf = rte_pktmbuf_mtod(m[i], uint8_t *);

			assert_int_equal(
				codec_parse_frame(buf, m[i]->data_len, &f), 0);
			assert_int_equal(f.payload_len, 16);
			check_payload(buf + f.payload_off, 16, (uint8_t)got);
			io_free(rq, m[i]);
		}
	}
	assert_int_equal(got, 40);
	assert_true(max_burst > 1);
	assert_int_equal(sockio_mbufs_in_use(r), 0);
	sockio_close(p);
	sockio_close(r);
}

/* Frames that cannot go out on a socket are counted and freed. */
static void
test_tx_unroutable(void **state)
{
	uint16_t rport;
	struct sockio *r, *p;
	struct io_queue *pq;
	struct codec_flow fl;
	struct sockio_stats st;
	struct rte_mbuf *m[4];
	int len;

	r = open_reflector(&rport, 1, NULL);
	p = sockio_open_prober(LO, 0, LO, rport, &mac_p, NULL);
	assert_non_null(p);
	pq = sockio_queue(p);
	fl = tw_flow4(&no_mac, &no_mac, LO, LO, sockio_local_port(p, 0), rport);

	/* ARP */
	m[0] = io_alloc(pq);
	assert_non_null(m[0]);
	len = codec_build_arp(rte_pktmbuf_mtod(m[0], uint8_t *),
			      rte_pktmbuf_tailroom(m[0]), CODEC_ARP_REQUEST,
			      &mac_p, LO, NULL, LO);
	assert_true(len > 0);
	m[0]->data_len = (uint16_t)len;
	/* ICMP echo */
	m[1] = io_alloc(pq);
	assert_non_null(m[1]);
	len = codec_build_icmp_echo(rte_pktmbuf_mtod(m[1], uint8_t *),
				    rte_pktmbuf_tailroom(m[1]), &fl,
				    CODEC_ICMP_ECHO_REQUEST, 1, 1, NULL, 0);
	assert_true(len > 0);
	m[1]->data_len = (uint16_t)len;
	/* UDP from a port we have no socket on */
	fl.sport = (uint16_t)(fl.sport ^ 0x8000);
	m[2] = make_udp(pq, &fl, 10, 0);
	/* garbage */
	m[3] = io_alloc(pq);
	assert_non_null(m[3]);
	memset(rte_pktmbuf_mtod(m[3], uint8_t *), 0x45, 20);
	m[3]->data_len = 20;
	assert_int_equal(sockio_mbufs_in_use(p), 4);
	assert_int_equal(io_tx(pq, m, 4), 4);
	assert_int_equal(sockio_mbufs_in_use(p), 0);
	sockio_stats_get(p, &st);
	assert_int_equal(st.tx_unroutable, 4);
	assert_int_equal(st.tx_sent, 0);
	assert_int_equal(sockio_tx_dropped(p), 4);
	sockio_stats_get(r, &st);
	assert_int_equal(st.rx_received, 0);
	sockio_close(p);
	sockio_close(r);
}

static void
test_open_errors(void **state)
{
	struct sockio_opts o;
	uint16_t ports[3];
	struct sockio *r, *s;

	r = open_reflector(ports, 1, NULL);
	/* Port in use, for both kinds. */
	s = sockio_open_reflector(LO, ports, 1, &mac_r, NULL);
	assert_null(s);
	assert_int_equal(errno, EADDRINUSE);
	s = sockio_open_prober(LO, ports[0], LO, 9, &mac_p, NULL);
	assert_null(s);
	assert_int_equal(errno, EADDRINUSE);
	sockio_close(r);

	/* Zero and repeated ports are skipped. */
	r = open_reflector(ports, 1, NULL);
	sockio_close(r);
	ports[1] = 0;
	ports[2] = ports[0];
	r = sockio_open_reflector(LO, ports, 3, &mac_r, NULL);
	assert_non_null(r);
	assert_int_equal(sockio_n_sockets(r), 1);
	sockio_close(r);

	memset(ports, 0, sizeof(ports));
	assert_null(sockio_open_reflector(LO, ports, 3, &mac_r, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(sockio_open_prober(LO, 0, 0, 862, &mac_p, NULL));
	assert_int_equal(errno, EINVAL);
	sockio_opts_default(&o);
	o.max_datagram = SOCKIO_MAX_DATAGRAM + 1;
	assert_null(sockio_open_prober(LO, 0, LO, 862, &mac_p, &o));
	assert_int_equal(errno, EINVAL);
	sockio_opts_default(&o);
	o.so_busy_poll_us = -1;
	assert_null(sockio_open_prober(LO, 0, LO, 862, &mac_p, &o));
	assert_int_equal(errno, EINVAL);
	/* Raising SO_BUSY_POLL takes CAP_NET_ADMIN; the error is passed on. */
	o.so_busy_poll_us = 50;
	s = sockio_open_prober(LO, 0, LO, 862, &mac_p, &o);
	if (s == NULL)
		assert_int_equal(errno, EPERM);
	/* SO_PREFER_BUSY_POLL goes with it where the kernel takes it
	 * (CAP_NET_ADMIN, Linux 5.11); never without --busy-poll-us. */
	if (s != NULL && geteuid() == 0)
		assert_true(sockio_prefer_busy_poll(s));
	sockio_close(s);
	s = sockio_open_prober(LO, 0, LO, 862, &mac_p, NULL);
	assert_non_null(s);
	assert_false(sockio_prefer_busy_poll(s));
	sockio_close(s);
	/* Not a local address. */
	assert_null(sockio_open_reflector(0xc6120063u, (uint16_t[]){9999}, 1,
					  &mac_r, NULL));
	assert_int_equal(errno, EADDRNOTAVAIL);
	sockio_close(NULL);
}

/* Blocking rx: one socket (SO_RCVTIMEO) and several (poll). */
static void
test_blocking(void **state)
{
	struct sockio_opts o;
	uint16_t rport[3];
	struct sockio *r, *p;
	struct io_queue *rq, *pq;
	struct codec_flow fl;
	struct codec_frame f;
	struct rte_mbuf *m;

	sockio_opts_default(&o);
	o.busy_poll = false;
	r = open_reflector(rport, 3, &o);
	assert_int_equal(sockio_n_sockets(r), 3);
	p = sockio_open_prober(LO, 0, LO, rport[2], &mac_p, &o);
	assert_non_null(p);
	rq = sockio_queue(r);
	pq = sockio_queue(p);
	/* Nothing there: both come back (after about 1 ms) empty-handed. */
	assert_int_equal(io_rx(rq, &m, 1), 0);
	assert_int_equal(io_rx(pq, &m, 1), 0);

	fl = tw_flow4(&no_mac, &no_mac, LO, LO, sockio_local_port(p, 0),
		      rport[2]);
	m = make_udp(pq, &fl, 20, 1);
	assert_int_equal(io_tx(pq, &m, 1), 1);
	m = rx_frame(rq, &f);
	assert_int_equal(f.dport, rport[2]);
	codec_turn_around(rte_pktmbuf_mtod(m, uint8_t *), &f, &mac_r, 64);
	assert_int_equal(io_tx(rq, &m, 1), 1);
	m = rx_frame(pq, &f);
	assert_int_equal(f.sport, rport[2]);
	assert_int_equal(f.payload_len, 20);
	io_free(pq, m);
	assert_int_equal(sockio_mbufs_in_use(p), 0);
	assert_int_equal(sockio_mbufs_in_use(r), 0);
	sockio_close(p);
	sockio_close(r);
}

/* Engines --------------------------------------------------------------------
 */

struct refl_thread {
	struct reflector_worker w;
	struct reflector_conf conf;
	struct sockio *s;
	pthread_t tid;
	atomic_bool stop;
};

static void *
refl_main(void *arg)
{
	struct refl_thread *t = arg;

	reflector_run(&t->w, &t->stop);
	return NULL;
}

static struct tsc_clock test_clock;
static struct tsc_anchor test_anchor;

static int
group_setup(void **state)
{
	struct tsc_calibration cal;

	signal(SIGPIPE, SIG_IGN);
	if (tsc_calibrate(20000000ull, 0, &cal) != 0 ||
	    tsc_clock_init(&test_clock, cal.hz) != 0)
		return -1;
	tsc_anchor_now(&test_anchor);
	return 0;
}

/* The kernel reflector on stamp/sockperf/echo ports, polled by a thread. */
static struct refl_thread *
refl_start(bool stateful)
{
	struct refl_thread *t = calloc(1, sizeof(*t));
	uint16_t ports[3];

	assert_non_null(t);
	t->s = open_reflector(ports, 3, NULL);
	t->conf.addr = LO;
	t->conf.mac = mac_r;
	t->conf.stamp_port = ports[0];
	t->conf.sockperf_port = ports[1];
	t->conf.echo_port = ports[2];
	t->conf.stateful = stateful;
	t->conf.clock = test_clock;
	t->conf.anchor = test_anchor;
	t->conf.error_estimate = (uint16_t)(12u << 8 | 1u);
	assert_int_equal(
		reflector_worker_init(&t->w, &t->conf, sockio_queue(t->s)), 0);
	assert_int_equal(pthread_create(&t->tid, NULL, refl_main, t), 0);
	return t;
}

static void
refl_stop(struct refl_thread *t)
{
	atomic_store_explicit(&t->stop, true, memory_order_relaxed);
	assert_int_equal(pthread_join(t->tid, NULL), 0);
	assert_int_equal(sockio_mbufs_in_use(t->s), 0);
	reflector_worker_fini(&t->w);
	sockio_close(t->s);
	free(t);
}

/* A prober worker on a kernel socket to port; run it for count probes. */
static struct prober_worker *
run_prober(const struct probe_proto *proto, uint16_t port, unsigned size,
	   uint64_t count, struct prober_conf *c, struct sockio **sp)
{
	struct prober_worker *w = calloc(1, sizeof(*w));
	static const atomic_bool no_stop;
	struct sockio *s;

	assert_non_null(w);
	s = sockio_open_prober(0, 0, LO, port, &mac_p, NULL);
	assert_non_null(s);
	memset(c, 0, sizeof(*c));
	c->proto = proto;
	c->flow.src_mac = mac_p;
	c->flow.dst_mac = mac_r;
	c->flow.ip_version = 4;
	c->flow.src4 = sockio_local_addr(s, 0);
	c->flow.dst4 = LO;
	c->flow.sport = sockio_local_port(s, 0);
	c->flow.dport = port;
	c->flow.ttl = 64;
	c->size = size;
	c->count = count;
	c->warmup = 10;
	c->clock = test_clock;
	c->anchor = test_anchor;
	/* Generous: a loaded 2-vCPU machine must not turn into a loss. */
	c->timeout_cycles = tsc_from_ns(&test_clock, 1000000000ull);
	/* A broken backend fails in bounded time, not count * timeout. */
	c->duration_cycles = tsc_from_ns(&test_clock, RUN_BOUND_NS);
	assert_int_equal(prober_worker_init(w, c, sockio_queue(s), 0), 0);
	assert_int_equal(prober_worker_run(w, &no_stop), 0);
	*sp = s;
	return w;
}

static void
check_all_answered(const struct prober_worker *w, uint64_t count,
		   bool remote_ts)
{
	assert_int_equal(w->st.sent, count);
	assert_int_equal(w->st.received, count);
	assert_int_equal(w->st.lost, 0);
	assert_int_equal(w->st.duplicated, 0);
	assert_int_equal(w->st.tx_fail, 0);
	assert_int_equal(w->st.warmup, w->conf->warmup);
	assert_int_equal(histogram_count(&w->rtt), count);
	assert_true(histogram_min(&w->rtt) > 0);
	if (remote_ts) {
		assert_int_equal(histogram_count(&w->turnaround), count);
		assert_int_equal(histogram_count(&w->network_rtt), count);
	}
}

static void
test_engines(void **state)
{
	struct refl_thread *t = refl_start(false);
	static const struct {
		const struct probe_proto *proto;
		enum reflector_counter rc;
		unsigned size;
	} cases[] = {
		{&probe_proto_stamp, RC_STAMP, STAMP_BASE_LEN},
		{&probe_proto_sockperf, RC_SOCKPERF, 64},
		{&probe_proto_udp_echo, RC_ECHO, 1000},
	};

	for (unsigned i = 0; i < 3; i++) {
		const struct probe_proto *proto = cases[i].proto;
		uint16_t port = proto == &probe_proto_stamp ? t->conf.stamp_port
				: proto == &probe_proto_sockperf
					? t->conf.sockperf_port
					: t->conf.echo_port;
		struct prober_conf c;
		struct prober_worker *w;
		struct sockio *s;

		w = run_prober(proto, port, cases[i].size, N_PROBES, &c, &s);
		check_all_answered(w, N_PROBES, proto->has_remote_ts);
		assert_int_equal(sockio_tx_dropped(s), 0);
		assert_int_equal(sockio_mbufs_in_use(s), 0);
		assert_int_equal(reflector_counter_read(&t->w, cases[i].rc),
				 N_PROBES + c.warmup);
		if (proto == &probe_proto_stamp) {
			print_message("# kernel STAMP rtt p50 %llu ns, p99 "
				      "%llu ns, turnaround p50 %llu ns\n",
				      (unsigned long long)histogram_percentile(
					      &w->rtt, 50),
				      (unsigned long long)histogram_percentile(
					      &w->rtt, 99),
				      (unsigned long long)histogram_percentile(
					      &w->turnaround, 50));
		}
		prober_worker_fini(w);
		free(w);
		sockio_close(s);
	}
	assert_int_equal(reflector_counter_read(&t->w, RC_DROP_L4_CSUM), 0);
	assert_int_equal(reflector_counter_read(&t->w, RC_DROP_NOT_FOR_US), 0);
	assert_int_equal(reflector_counter_read(&t->w, RC_DROP_TX), 0);
	assert_int_equal(reflector_counter_read(&t->w, RC_TX),
			 reflector_counter_read(&t->w, RC_RX));
	refl_stop(t);
}

/* Stateful STAMP with two senders at once on one reflector socket. */
static void
test_engines_stateful(void **state)
{
	struct refl_thread *t = refl_start(true);
	struct prober_conf c;
	struct prober_worker *w;
	struct sockio *s;

	for (unsigned i = 0; i < 2; i++) {
		w = run_prober(&probe_proto_stamp, t->conf.stamp_port, 100, 500,
			       &c, &s);
		check_all_answered(w, 500, true);
		prober_worker_fini(w);
		free(w);
		sockio_close(s);
	}
	assert_int_equal(reflector_counter_read(&t->w, RC_STAMP), 2 * 510);
	refl_stop(t);
}

/* sockperf 3.7 ---------------------------------------------------------------
 */

/* Start argv with stdout to out_fd (or /dev/null); pid or -1. */
static pid_t
spawn(char *const argv[], int out_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(out_fd >= 0 ? out_fd : null, 1);
		dup2(out_fd >= 0 ? out_fd : null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for pid up to timeout_ns, then kill it; its exit status or -1. */
static int
reap(pid_t pid, uint64_t timeout_ns)
{
	uint64_t t0 = now_ns();
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (r < 0)
			return -1;
		if (now_ns() - t0 > timeout_ns) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(1000);
	}
}

/* True once someone has port bound on 127.0.0.1 (sockperf is up). */
static bool
port_taken(uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	bool taken;

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(LO);
	sa.sin_port = htons(port);
	taken = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 &&
		errno == EADDRINUSE;
	close(fd);
	return taken;
}

/*
 * A port nobody listens on: the kernel answers each probe with ICMP port
 * unreachable, the socket reports ECONNREFUSED, and sockio hands the engine
 * an ICMP frame quoting the probe: every probe ends at once as unreachable
 * (lost), none waits for its timeout, nothing crashes or spins.
 */
static void
test_closed_port_unreachable(void **state)
{
	struct prober_conf c;
	struct prober_worker *w;
	struct sockio_stats ss;
	struct sockio *s;
	uint64_t sum = 0;

	w = run_prober(&probe_proto_stamp, free_port(), STAMP_BASE_LEN, 20, &c,
		       &s);
	assert_int_equal(w->st.sent, 20);
	assert_int_equal(w->st.received, 0);
	assert_int_equal(w->st.lost, 20);
	assert_int_equal(w->st.answered, 0);
	/* Loopback does not rate-limit ICMP: one per probe, warm-up too. */
	assert_int_equal(w->st.unreachable[PROBER_UNREACH_PORT], 30);
	assert_int_equal(w->st.unreachable[PROBER_UNREACH_HOST], 0);
	assert_int_equal(w->st.ignored[PROBER_IGN_UNREACHABLE], 30);
	for (unsigned i = 0; i < PROBER_IGN__COUNT; i++)
		sum += w->st.ignored[i];
	assert_int_equal(sum, w->st.rx_ignored);
	sockio_stats_get(s, &ss);
	assert_int_equal(ss.unreachable, 30);
	assert_int_equal(ss.rx_errors, 0);
	assert_int_equal(sockio_mbufs_in_use(s), 0);
	prober_worker_fini(w);
	free(w);
	sockio_close(s);
}

static void
test_sockperf_server(void **state)
{
	char port_s[8];
	char *argv[] = {SOCKPERF_BIN, "server", "-i", "127.0.0.1",
			"-p",	      port_s,	NULL};
	struct prober_conf c;
	struct prober_worker *w;
	struct sockio *s;
	uint64_t t0;
	uint16_t port;
	pid_t pid;

	if (access(SOCKPERF_BIN, X_OK) != 0)
		skip();
	port = free_port();
	snprintf(port_s, sizeof(port_s), "%u", port);
	pid = spawn(argv, -1);
	assert_true(pid > 0);
	t0 = now_ns();
	while (!port_taken(port) && now_ns() - t0 < 5000000000ull)
		usleep(2000);
	if (!port_taken(port)) {
		reap(pid, 0);
		fail_msg("sockperf server did not bind port %u", port);
	}
	w = run_prober(&probe_proto_sockperf, port, 64, N_PROBES, &c, &s);
	kill(pid, SIGTERM);
	reap(pid, 5000000000ull);
	check_all_answered(w, N_PROBES, false);
	assert_int_equal(w->st.rx_ignored, 0);
	prober_worker_fini(w);
	free(w);
	sockio_close(s);
}

/* Value on the first line of text holding key, after key ("... = 12.3"). */
static double
find_value(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	if (p == NULL)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == '=' || *p == ':')
		p++;
	return strtod(p, NULL);
}

static void
test_sockperf_client(void **state)
{
	struct refl_thread *t;
	char port_s[8], out[8192];
	char tmpl[] = "/tmp/test_sockio_XXXXXX";
	char *argv[] = {SOCKPERF_BIN, "ping-pong", "-i", "127.0.0.1",  "-p",
			port_s,	      "-t",	   "1",	 "--full-rtt", NULL};
	ssize_t n;
	int fd, rc;
	pid_t pid;
	double avg, p50;

	if (access(SOCKPERF_BIN, X_OK) != 0)
		skip();
	t = refl_start(false);
	snprintf(port_s, sizeof(port_s), "%u", t->conf.sockperf_port);
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	unlink(tmpl);
	pid = spawn(argv, fd);
	assert_true(pid > 0);
	rc = reap(pid, CHILD_TIMEOUT_NS);
	refl_stop(t);
	n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	assert_true(n > 0);
	out[n] = '\0';
	if (rc != 0)
		fail_msg("sockperf exited %d:\n%s", rc, out);
	avg = find_value(out, "avg-rtt");
	p50 = find_value(out, "percentile 50.000");
	assert_true(avg > 0);
	assert_true(p50 > 0);
	print_message("# sockperf ping-pong --full-rtt vs kernel reflector: "
		      "avg %.3f us, p50 %.3f us\n",
		      avg, p50);
}

/*
 * A sockperf server that, before each answer, sends the prober what is not
 * one: a datagram too short for a sockperf header, the request itself
 * (client flag still set), an answer to a sequence number not sent yet,
 * and, from another port of the same host, a well-formed answer to the
 * probe in flight. The lean kernel path must count and drop every one of
 * them (the connected socket's kernel drops the last kind before us) and
 * still take every real answer.
 */
struct rude_peer {
	int fd, other_fd;
	uint16_t port;
	pthread_t tid;
	atomic_bool stop;
	unsigned answered;
};

static void *
rude_main(void *arg)
{
	struct rude_peer *r = arg;
	uint64_t t0 = now_ns();

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed) &&
	       now_ns() - t0 < CHILD_TIMEOUT_NS) {
		static const uint8_t junk[5] = {1, 2, 3, 4, 5};
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		uint8_t b[2048], x[2048];
		struct sockperf_hdr h;
		ssize_t n;

		n = recvfrom(r->fd, b, sizeof(b), 0, (struct sockaddr *)&from,
			     &fl);
		if (n <= 0 || sockperf_parse(b, (size_t)n, &h) != 0)
			continue;
		sendto(r->fd, junk, sizeof(junk), 0, (struct sockaddr *)&from,
		       fl);
		sendto(r->fd, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
		if (sockperf_reflect(b, (size_t)n) != 1)
			continue;
		memcpy(x, b, (size_t)n);
		h.seq += 1000;
		h.flags &= (uint16_t)~SOCKPERF_F_CLIENT;
		assert_int_equal(sockperf_build(x, sizeof(x), &h),
				 SOCKPERF_HDR_LEN);
		sendto(r->fd, x, (size_t)n, 0, (struct sockaddr *)&from, fl);
		sendto(r->other_fd, b, (size_t)n, 0, (struct sockaddr *)&from,
		       fl);
		sendto(r->fd, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
		r->answered++;
	}
	return NULL;
}

static void
test_not_answers_dropped(void **state)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct rude_peer *r = calloc(1, sizeof(*r));
	struct prober_conf c;
	struct prober_worker *w;
	struct sockio_stats ss;
	struct sockio *s;
	socklen_t sl = sizeof(sa);
	uint64_t total, sum = 0;

	(void)state;
	assert_non_null(r);
	sa.sin_addr.s_addr = htonl(LO);
	r->fd = socket(AF_INET, SOCK_DGRAM, 0);
	r->other_fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(r->fd >= 0 && r->other_fd >= 0);
	assert_int_equal(bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(r->fd, (struct sockaddr *)&sa, &sl), 0);
	r->port = ntohs(sa.sin_port);
	assert_int_equal(
		setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(pthread_create(&r->tid, NULL, rude_main, r), 0);

	w = run_prober(&probe_proto_sockperf, r->port, 64, 500, &c, &s);
	atomic_store_explicit(&r->stop, true, memory_order_relaxed);
	assert_int_equal(pthread_join(r->tid, NULL), 0);
	check_all_answered(w, 500, false);
	total = 500 + c.warmup;
	assert_int_equal(r->answered, total);
	assert_int_equal(w->st.answered, total);
	/* The short one, the request, the unsent sequence number: each
	 * counted once per probe; the other port's never got to us. */
	assert_int_equal(w->st.ignored[PROBER_IGN_TOO_SHORT], total);
	assert_int_equal(w->st.ignored[PROBER_IGN_OTHER_FLOW], total);
	assert_int_equal(w->st.ignored[PROBER_IGN_NEVER_SENT], total);
	for (unsigned i = 0; i < PROBER_IGN__COUNT; i++)
		sum += w->st.ignored[i];
	assert_int_equal(w->st.rx_ignored, 3 * total);
	assert_int_equal(sum, 3 * total);
	sockio_stats_get(s, &ss);
	assert_int_equal(ss.rx_received, 4 * total);
	assert_int_equal(ss.rx_errors, 0);
	assert_int_equal(sockio_mbufs_in_use(s), 0);
	prober_worker_fini(w);
	free(w);
	sockio_close(s);
	close(r->fd);
	close(r->other_fd);
	free(r);
}

/*
 * IPv6 sockets on ::1: the reflector engine on sockio_open_reflector6, the
 * prober on sockio_open_prober6, every UDP protocol answered; the frames
 * the engines see are IPv6 with hop limit and both addresses filled in.
 */
static void
test_engines_ipv6(void **state)
{
	static const uint8_t lo6[16] = {[15] = 1};
	static const struct probe_proto *const protos[] = {
		&probe_proto_stamp, &probe_proto_sockperf,
		&probe_proto_udp_echo};
	static const atomic_bool no_stop;
	struct refl_thread *t = calloc(1, sizeof(*t));
	uint16_t ports[3];

	(void)state;
	assert_non_null(t);
	for (unsigned attempt = 0; attempt < 20 && t->s == NULL; attempt++) {
		for (unsigned i = 0; i < 3; i++)
			ports[i] = free_port();
		t->s = sockio_open_reflector6(lo6, ports, 3, &mac_r, NULL);
	}
	assert_non_null(t->s);
	reflector_conf_default(&t->conf);
	t->conf.addr = 0;
	t->conf.addr6 = codec_ip_from_v6(lo6);
	t->conf.mac = mac_r;
	t->conf.stamp_port = ports[0];
	t->conf.sockperf_port = ports[1];
	t->conf.echo_port = ports[2];
	t->conf.n_reasm = 0;
	t->conf.clock = test_clock;
	t->conf.anchor = test_anchor;
	assert_int_equal(
		reflector_worker_init(&t->w, &t->conf, sockio_queue(t->s)), 0);
	assert_int_equal(pthread_create(&t->tid, NULL, refl_main, t), 0);
	for (unsigned i = 0; i < 3; i++) {
		struct prober_worker *w = calloc(1, sizeof(*w));
		struct prober_conf c;
		struct sockio *s;

		assert_non_null(w);
		s = sockio_open_prober6(NULL, 0, lo6, ports[i], &mac_p, NULL);
		assert_non_null(s);
		memset(&c, 0, sizeof(c));
		c.proto = protos[i];
		c.flow.src_mac = mac_p;
		c.flow.dst_mac = mac_r;
		c.flow.ip_version = 6;
		sockio_local_addr6(s, 0, c.flow.src6);
		assert_memory_equal(c.flow.src6, lo6, 16);
		memcpy(c.flow.dst6, lo6, 16);
		c.flow.sport = sockio_local_port(s, 0);
		c.flow.dport = ports[i];
		c.size = protos[i] == &probe_proto_stamp ? STAMP_BASE_LEN : 64;
		c.count = N_PROBES;
		c.warmup = 10;
		c.clock = test_clock;
		c.anchor = test_anchor;
		c.timeout_cycles = tsc_from_ns(&test_clock, 1000000000ull);
		c.duration_cycles = tsc_from_ns(&test_clock, RUN_BOUND_NS);
		assert_int_equal(prober_worker_init(w, &c, sockio_queue(s), 0),
				 0);
		assert_int_equal(prober_worker_run(w, &no_stop), 0);
		check_all_answered(w, N_PROBES, protos[i]->has_remote_ts);
		assert_int_equal(w->st.rx_ignored, 0);
		assert_int_equal(sockio_tx_dropped(s), 0);
		prober_worker_fini(w);
		free(w);
		sockio_close(s);
	}
	assert_int_equal(reflector_counter_read(&t->w, RC_STAMP),
			 N_PROBES + 10);
	assert_int_equal(reflector_counter_read(&t->w, RC_SOCKPERF),
			 N_PROBES + 10);
	assert_int_equal(reflector_counter_read(&t->w, RC_ECHO), N_PROBES + 10);
	assert_int_equal(reflector_counter_read(&t->w, RC_DROP_L4_CSUM), 0);
	refl_stop(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_both_ways),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_backlog),
		cmocka_unit_test(test_tx_unroutable),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_blocking),
		cmocka_unit_test(test_engines),
		cmocka_unit_test(test_engines_stateful),
		cmocka_unit_test(test_closed_port_unreachable),
		cmocka_unit_test(test_sockperf_server),
		cmocka_unit_test(test_sockperf_client),
		cmocka_unit_test(test_engines_ipv6),
		cmocka_unit_test(test_not_answers_dropped),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
