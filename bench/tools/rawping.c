/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rawping: the smallest possible DPDK round trip.
 *
 *   rawping [EAL] -- --mode ping|echo [-n COUNT] [--peer-mac MAC|broadcast]
 *                    [--timeout-us N] [--duration S] [--port N] [--json]
 *                    [--size BYTES]
 *                    [--frame stamp --src-ip A --dst-ip B [--sport N]
 *                     [--dport N]]
 *
 * ping: one raw Ethernet frame (ethertype 0x88b5, IEEE 802 "local
 * experimental") in flight, TSC read right before rte_eth_tx_burst() and right
 * after the rte_eth_rx_burst() that returned the reply.
 * --frame stamp: instead, an RFC 8762 unauthenticated STAMP Session-Sender
 * packet (44 bytes) in UDP in IPv4 (86-byte frame), to see what a STAMP
 * reflector (latprobe reflect) adds to the bare round trip; the answer is
 * the frame back from B to A with the ports swapped, holding our sequence
 * number (a STAMP reflector's Session-Sender Sequence Number, or the
 * sequence number itself: a stateless reflector or a 5-tuple swapper).
 * echo: a MAC-swapping reflector for the raw frames (the bare-DPDK echo when
 * dpdk-testpmd is not at hand).
 *
 * Deliberately uses nothing of latprobe: it is the baseline latprobe's own
 * numbers are compared with.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>

#include <rte_eal.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "bench_clock.h"
#include "sorted.h"

#define RAWPING_ETHERTYPE 0x88b5
#define RAWPING_MAGIC	  0x4c50524fu /* "LPRO" */
#define RAWPING_REQUEST	  0
#define RAWPING_REPLY	  1

#define NB_MBUF		     4095
#define MBUF_CACHE	     0
#define NB_RXD		     1024
#define NB_TXD		     1024
#define BURST		     32
#define DEFAULT_COUNT	     100000u
#define MAX_COUNT	     10000000u
#define DEFAULT_WARMUP	     1000u
/* Ping gives up on one probe after this long (microseconds). */
#define DEFAULT_TIMEOUT_US   100000u
/* Every sending loop is bounded in time as well as in count (seconds). */
#define DEFAULT_PING_SECONDS 60u
#define DEFAULT_ECHO_SECONDS 600u
#define MAX_SECONDS	     86400u
/* 60 bytes + 4 bytes FCS = the 64-byte Ethernet minimum. */
#define FRAME_LEN	     60
#define MAX_FRAME_LEN	     1514
/* RFC 8762 4.2.1: the unauthenticated Session-Sender packet. */
#define STAMP_LEN	     44
#define STAMP_FRAME_LEN                                                        \
	(RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) +                     \
	 sizeof(struct rte_udp_hdr) + STAMP_LEN)
/* A reflector's packet holds the Session-Sender Sequence Number here. */
#define STAMP_SENDER_SEQ_OFF 24
#define STAMP_PORT	     862
/* latprobe probe's default: above 1024 and no port that answers itself. */
#define DEFAULT_SPORT	     40000
/* Seconds between 1900 (NTP) and 1970 (Unix). */
#define NTP_UNIX_OFFSET	     2208988800ull

/* Long-only options (the project's range for this tool: 0x690-0x69f). */
enum {
	OPT_FRAME = 0x690,
	OPT_SRC_IP,
	OPT_DST_IP,
	OPT_SPORT,
	OPT_DPORT,
	OPT_SIZE,
};

struct rawping_hdr {
	rte_be32_t magic;
	uint8_t kind;
	uint8_t pad[3];
	rte_be64_t seq;
} __rte_packed;

enum rawping_mode { MODE_NONE, MODE_PING, MODE_ECHO };
enum rawping_frame { FRAME_RAW, FRAME_STAMP };

struct rawping_opts {
	enum rawping_mode mode;
	uint64_t count;
	uint64_t warmup;
	uint64_t timeout_us;
	uint64_t duration_s;
	uint16_t port;
	struct rte_ether_addr peer;
	bool json;
	enum rawping_frame frame;
	uint16_t size; /* frame bytes without the FCS */
	/* --frame stamp, network byte order */
	rte_be32_t src_ip, dst_ip;
	rte_be16_t sport, dport;
};

static volatile bool force_quit;

static void
on_signal(int sig)
{
	(void)sig;
	force_quit = true;
}

static inline uint64_t
tsc_start(void)
{
	rte_mb();
	/* lfence: rdtsc must not run ahead of the frame being built. */
	__asm__ volatile("lfence" ::: "memory");
	return rte_rdtsc();
}

static inline uint64_t
tsc_stop(void)
{
	uint32_t lo, hi, aux;

	/* rdtscp waits for the rx_burst loads; lfence for what follows. */
	__asm__ volatile("rdtscp\n\tlfence"
			 : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * DPDK 22.11 may round rte_get_tsc_hz() to 10 MHz in VMs: measure it against
 * CLOCK_MONOTONIC_RAW (200 ms).
 */
static double
tsc_hz_measure(void)
{
	struct timespec nap = {.tv_sec = 0, .tv_nsec = 200 * 1000 * 1000};
	uint64_t t0, t1, c0, c1;

	t0 = bench_raw_ns();
	c0 = tsc_start();
	nanosleep(&nap, NULL);
	t1 = bench_raw_ns();
	c1 = tsc_stop();
	if (t1 <= t0)
		return (double)rte_get_tsc_hz();
	return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

static int
port_setup(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = NB_RXD, nb_txd = NB_TXD;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (rc != 0)
		return rc;
	rc = rte_eth_rx_queue_setup(port, 0, nb_rxd,
				    rte_eth_dev_socket_id(port), NULL, mp);
	if (rc != 0)
		return rc;
	rc = rte_eth_tx_queue_setup(port, 0, nb_txd,
				    rte_eth_dev_socket_id(port), NULL);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_start(port);
	if (rc != 0)
		return rc;
	/* Not every PMD has it (memif); frames still arrive without. */
	rc = rte_eth_promiscuous_enable(port);
	if (rc != 0 && rc != -ENOTSUP)
		return rc;
	return 0;
}

/* Wait for link up (memif: until the peer connects), bounded. */
static int
wait_link(uint16_t port, uint64_t timeout_ns)
{
	struct rte_eth_link link;
	uint64_t deadline = bench_raw_ns() + timeout_ns;

	while (!force_quit) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (bench_raw_ns() > deadline)
			return -ETIMEDOUT;
		rte_delay_us_sleep(10000);
	}
	return -EINTR;
}

static struct rawping_hdr *
frame_hdr(const struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth;

	if (rte_pktmbuf_data_len(m) < sizeof(*eth) + sizeof(struct rawping_hdr))
		return NULL;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (eth->ether_type != rte_cpu_to_be_16(RAWPING_ETHERTYPE))
		return NULL;
	return (struct rawping_hdr *)(eth + 1);
}

/* NTP timestamp (RFC 5905: seconds since 1900, 2^-32 s) of CLOCK_REALTIME. */
static uint64_t
ntp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec + NTP_UNIX_OFFSET) << 32 |
	       (((uint64_t)ts.tv_nsec << 32) / 1000000000u);
}

/*
 * Probe seq into m, built whole for every probe (off the timed section):
 * the raw frame of o->size bytes, or the STAMP Session-Sender packet with
 * its IPv4 and UDP checksums.
 */
static int
build_frame(const struct rawping_opts *o, const struct rte_ether_addr *self,
	    struct rte_mbuf *m, uint64_t seq)
{
	uint16_t len = o->frame == FRAME_STAMP ? STAMP_FRAME_LEN : o->size;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct rawping_hdr *h;
	uint8_t *pl;
	uint64_t ts;
	uint32_t seq32;
	uint16_t ee;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	if (eth == NULL)
		return -ENOSPC;
	memset(eth, 0, len);
	rte_ether_addr_copy(&o->peer, &eth->dst_addr);
	rte_ether_addr_copy(self, &eth->src_addr);
	if (o->frame == FRAME_RAW) {
		eth->ether_type = rte_cpu_to_be_16(RAWPING_ETHERTYPE);
		h = (struct rawping_hdr *)(eth + 1);
		h->magic = rte_cpu_to_be_32(RAWPING_MAGIC);
		h->kind = RAWPING_REQUEST;
		h->seq = rte_cpu_to_be_64(seq);
		return 0;
	}
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length =
		rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = o->src_ip;
	ip->dst_addr = o->dst_ip;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = o->sport;
	udp->dst_port = o->dport;
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + STAMP_LEN));
	/* Sequence number, timestamp, error estimate (S=0, Z=0, scale 0,
	 * multiplier 1), SSID 0 and 28 MBZ bytes: RFC 8762 4.2.1. */
	pl = (uint8_t *)(udp + 1);
	seq32 = rte_cpu_to_be_32((uint32_t)seq);
	ts = rte_cpu_to_be_64(ntp_now());
	ee = rte_cpu_to_be_16(1);
	memcpy(pl, &seq32, sizeof(seq32));
	memcpy(pl + 4, &ts, sizeof(ts));
	memcpy(pl + 12, &ee, sizeof(ee));
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return 0;
}

/*
 * What m is to probe seq: its answer, an answer to an earlier probe (one
 * that timed out: a late answer, or a duplicate), or nothing of ours
 * (stray). Raw frames: our magic from another MAC (our own frame looped
 * back has our source MAC, and testpmd's macswap leaves kind alone), the
 * answer holding seq. STAMP: IPv4/UDP from the address and port we sent
 * to, to ours (the turned-around addresses), the answer holding seq where
 * a STAMP reflector puts the sender's or, stateless or a mere 5-tuple
 * swap, at the start.
 */
enum reply { NOT_REPLY, REPLY, REPLY_EARLIER };

static enum reply
reply_kind(const struct rawping_opts *o, const struct rte_ether_addr *self,
	   const struct rte_mbuf *m, uint64_t seq)
{
	const struct rte_ether_hdr *eth;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	const struct rawping_hdr *h;
	const uint8_t *pl;
	uint32_t seq32 = rte_cpu_to_be_32((uint32_t)seq);

	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (o->frame == FRAME_RAW) {
		h = frame_hdr(m);
		if (h == NULL || h->magic != rte_cpu_to_be_32(RAWPING_MAGIC) ||
		    rte_is_same_ether_addr(&eth->src_addr, self))
			return NOT_REPLY;
		return rte_be_to_cpu_64(h->seq) == seq ? REPLY : REPLY_EARLIER;
	}
	if (m->nb_segs != 1 || rte_pktmbuf_data_len(m) < STAMP_FRAME_LEN ||
	    eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return NOT_REPLY;
	ip = (const struct rte_ipv4_hdr *)(eth + 1);
	udp = (const struct rte_udp_hdr *)(ip + 1);
	pl = (const uint8_t *)(udp + 1);
	if (ip->version_ihl != RTE_IPV4_VHL_DEF ||
	    ip->next_proto_id != IPPROTO_UDP || ip->src_addr != o->dst_ip ||
	    ip->dst_addr != o->src_ip || udp->src_port != o->dport ||
	    udp->dst_port != o->sport ||
	    rte_be_to_cpu_16(udp->dgram_len) < sizeof(*udp) + STAMP_LEN)
		return NOT_REPLY;
	return memcmp(pl + STAMP_SENDER_SEQ_OFF, &seq32, sizeof(seq32)) == 0 ||
			       memcmp(pl, &seq32, sizeof(seq32)) == 0
		       ? REPLY
		       : REPLY_EARLIER;
}

static int
run_ping(const struct rawping_opts *o, struct rte_mempool *mp)
{
	struct rte_ether_addr self;
	struct rte_mbuf *rx[BURST];
	uint64_t *rtt, n_ok = 0, recv = 0, lost = 0, stray = 0, tx_fail = 0;
	uint64_t late = 0;
	uint64_t seq, total;
	uint64_t timeout_cyc, t0, t1, now, deadline_ns, lost_seen = 0;
	double hz, ns;
	uint16_t nb, i;
	int rc;

	rc = rte_eth_macaddr_get(o->port, &self);
	if (rc != 0)
		return rc;
	rtt = calloc(o->count, sizeof(*rtt));
	if (rtt == NULL)
		return -ENOMEM;
	hz = tsc_hz_measure();
	timeout_cyc = (uint64_t)((double)o->timeout_us * hz / 1e6);
	deadline_ns = bench_raw_ns() + o->duration_s * 1000000000u;
	total = o->warmup + o->count;

	for (seq = 0; seq < total && !force_quit; seq++) {
		struct rte_mbuf *m;
		bool got = false;

		/*
		 * Clock read off the hot path: once per 4 Ki probes, or after
		 * a loss (each may have cost a whole timeout).
		 */
		if ((seq & 0xfff) == 0 || lost + tx_fail != lost_seen) {
			lost_seen = lost + tx_fail;
			now = bench_raw_ns();
			if (now > deadline_ns)
				break;
		}
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL) {
			rc = -ENOBUFS;
			goto out;
		}
		rc = build_frame(o, &self, m, seq);
		if (rc != 0) {
			rte_pktmbuf_free(m);
			goto out;
		}

		t0 = tsc_start();
		if (rte_eth_tx_burst(o->port, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			tx_fail++;
			continue;
		}
		for (;;) {
			nb = rte_eth_rx_burst(o->port, 0, rx, BURST);
			t1 = tsc_stop();
			for (i = 0; i < nb; i++) {
				switch (reply_kind(o, &self, rx[i], seq)) {
				case REPLY:
					got = true;
					break;
				case REPLY_EARLIER:
					late++;
					break;
				default:
					stray++;
				}
				rte_pktmbuf_free(rx[i]);
			}
			if (got)
				break;
			if (t1 - t0 > timeout_cyc || force_quit)
				break;
		}
		if (!got) {
			lost++;
			continue;
		}
		recv++;
		if (seq >= o->warmup)
			rtt[n_ok++] = t1 - t0;
	}
	rc = 0;

	if (n_ok == 0) {
		fprintf(stderr, "rawping: no reply (lost %" PRIu64 ")\n", lost);
		rc = -ETIMEDOUT;
		goto out;
	}
	qsort(rtt, n_ok, sizeof(*rtt), cmp_u64);
	ns = 1e9 / hz;
	if (o->json) {
		printf("{\"tool\":\"rawping\",\"mode\":\"ping\","
		       "\"frame\":\"%s\",\"frame_len\":%u,"
		       "\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		       ",\"lost\":%" PRIu64 ",\"tx_failed\":%" PRIu64
		       ",\"stray\":%" PRIu64 ",\"late\":%" PRIu64
		       ",\"warmup\":%" PRIu64 ",\"tsc_hz\":%.0f,"
		       "\"rte_tsc_hz\":%" PRIu64 ","
		       "\"rtt_ns\":{\"count\":%" PRIu64 ",\"min\":%.1f,"
		       "\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,"
		       "\"p99_9\":%.1f,\"max\":%.1f}}\n",
		       o->frame == FRAME_STAMP ? "stamp" : "raw",
		       (unsigned)(o->frame == FRAME_STAMP ? STAMP_FRAME_LEN
							  : o->size),
		       seq, recv, lost, tx_fail, stray, late, o->warmup, hz,
		       rte_get_tsc_hz(), n_ok, (double)rtt[0] * ns,
		       (double)pct(rtt, n_ok, 50) * ns,
		       (double)pct(rtt, n_ok, 90) * ns,
		       (double)pct(rtt, n_ok, 99) * ns,
		       (double)pct(rtt, n_ok, 99.9) * ns,
		       (double)rtt[n_ok - 1] * ns);
	} else {
		printf("rawping: %" PRIu64 " round trips recorded (%" PRIu64
		       " warm-up), %" PRIu64 " lost, %" PRIu64
		       " tx-failed, %" PRIu64 " stray, %" PRIu64 " late\n",
		       n_ok, o->warmup, lost, tx_fail, stray, late);
		printf("  TSC %.3f MHz measured, %.3f MHz from DPDK\n",
		       hz / 1e6, (double)rte_get_tsc_hz() / 1e6);
		printf("  rtt ns: min %.0f p50 %.0f p90 %.0f p99 %.0f "
		       "p99.9 %.0f max %.0f\n",
		       (double)rtt[0] * ns, (double)pct(rtt, n_ok, 50) * ns,
		       (double)pct(rtt, n_ok, 90) * ns,
		       (double)pct(rtt, n_ok, 99) * ns,
		       (double)pct(rtt, n_ok, 99.9) * ns,
		       (double)rtt[n_ok - 1] * ns);
	}
out:
	free(rtt);
	return rc;
}

/* Counters of the echo, kept by echo_burst(). */
struct echo_stats {
	uint64_t rx_n, tx_n, drop, other;
};

/*
 * Answer one non-empty burst: swap in our MAC, send. A function of its own
 * (testpmd's forwarding engines are also one call per burst) so that
 * tools/bench can count its instructions under callgrind
 * (--toggle-collect=echo_burst) apart from the rx polls.
 */
static __rte_noinline void
echo_burst(uint16_t port, const struct rte_ether_addr *self,
	   struct rte_mbuf **rx, uint16_t nb, struct echo_stats *st)
{
	struct rte_mbuf *tx[BURST];
	struct rte_ether_hdr *eth;
	struct rawping_hdr *h;
	uint16_t i, ntx = 0, sent;

	for (i = 0; i < nb; i++) {
		eth = rte_pktmbuf_mtod(rx[i], struct rte_ether_hdr *);
		h = frame_hdr(rx[i]);
		/* Only requests: two echoes must not ping-pong. */
		if (h == NULL || h->magic != rte_cpu_to_be_32(RAWPING_MAGIC) ||
		    h->kind != RAWPING_REQUEST ||
		    rte_is_same_ether_addr(&eth->src_addr, self)) {
			st->other++;
			rte_pktmbuf_free(rx[i]);
			continue;
		}
		st->rx_n++;
		/*
		 * Answer from our own MAC rather than a literal swap: a
		 * broadcast destination must not become a source.
		 */
		rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
		rte_ether_addr_copy(self, &eth->src_addr);
		h->kind = RAWPING_REPLY;
		tx[ntx++] = rx[i];
	}
	if (ntx > 0) {
		sent = rte_eth_tx_burst(port, 0, tx, ntx);
		st->tx_n += sent;
		for (i = sent; i < ntx; i++) {
			rte_pktmbuf_free(tx[i]);
			st->drop++;
		}
	}
}

static int
run_echo(const struct rawping_opts *o)
{
	struct rte_ether_addr self;
	struct rte_mbuf *rx[BURST];
	struct echo_stats st = {0};
	uint64_t deadline_ns, loops = 0;
	uint16_t nb;
	int rc;

	rc = rte_eth_macaddr_get(o->port, &self);
	if (rc != 0)
		return rc;
	deadline_ns = bench_raw_ns() + o->duration_s * 1000000000u;
	printf("rawping: echo ready on port %u, mac " RTE_ETHER_ADDR_PRT_FMT
	       "\n",
	       o->port, RTE_ETHER_ADDR_BYTES(&self));
	fflush(stdout);

	while (!force_quit) {
		nb = rte_eth_rx_burst(o->port, 0, rx, BURST);
		if (nb > 0)
			echo_burst(o->port, &self, rx, nb, &st);
		if ((++loops & 0xfffff) == 0 && bench_raw_ns() > deadline_ns)
			break;
	}

	if (o->json)
		printf("{\"tool\":\"rawping\",\"mode\":\"echo\","
		       "\"received\":%" PRIu64 ",\"sent\":%" PRIu64
		       ",\"tx_dropped\":%" PRIu64 ",\"ignored\":%" PRIu64 "}\n",
		       st.rx_n, st.tx_n, st.drop, st.other);
	else
		printf("rawping: echo received %" PRIu64 " sent %" PRIu64
		       " tx-dropped %" PRIu64 " ignored %" PRIu64 "\n",
		       st.rx_n, st.tx_n, st.drop, st.other);
	return 0;
}

/* Drops the PMD saw (af_xdp: XDP_STATISTICS) go to stderr, off the JSON. */
static void
print_port_stats(uint16_t port)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(port, &st) != 0)
		return;
	fprintf(stderr,
		"rawping: port %u ipackets %" PRIu64 " opackets %" PRIu64
		" imissed %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
		" rx_nombuf %" PRIu64 "\n",
		port, st.ipackets, st.opackets, st.imissed, st.ierrors,
		st.oerrors, st.rx_nombuf);
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- --mode ping|echo [-n COUNT]\n"
		"          [-w WARMUP] [--peer-mac MAC|broadcast]\n"
		"          [--timeout-us N] [--duration S] [--port N] "
		"[--json]\n"
		"          [--size BYTES] [--frame raw|stamp --src-ip A.B.C.D\n"
		"          --dst-ip A.B.C.D [--sport N] [--dport N]]\n"
		"  ping: COUNT (default %u, max %u) one-in-flight round "
		"trips,\n"
		"        at most --duration s (default %u)\n"
		"  echo: reflect 0x88b5 frames until SIGINT/SIGTERM or "
		"--duration s\n"
		"        (default %u)\n"
		"  --size: raw frame bytes without FCS, %u-%u (default %u)\n"
		"  --frame stamp: ping with an RFC 8762 STAMP sender packet in "
		"UDP/IPv4\n"
		"        (%u-byte frame) from --src-ip:--sport (default %u) "
		"to\n"
		"        --dst-ip:--dport (default %u); --peer-mac the "
		"reflector's MAC\n",
		prog, DEFAULT_COUNT, MAX_COUNT, DEFAULT_PING_SECONDS,
		DEFAULT_ECHO_SECONDS, FRAME_LEN, MAX_FRAME_LEN, FRAME_LEN,
		(unsigned)STAMP_FRAME_LEN, DEFAULT_SPORT, STAMP_PORT);
}

static int
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct rawping_opts *o)
{
	static const struct option longopts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"peer-mac", required_argument, NULL, 'p'},
		{"timeout-us", required_argument, NULL, 't'},
		{"duration", required_argument, NULL, 'd'},
		{"port", required_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"frame", required_argument, NULL, OPT_FRAME},
		{"src-ip", required_argument, NULL, OPT_SRC_IP},
		{"dst-ip", required_argument, NULL, OPT_DST_IP},
		{"sport", required_argument, NULL, OPT_SPORT},
		{"dport", required_argument, NULL, OPT_DPORT},
		{"size", required_argument, NULL, OPT_SIZE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->count = DEFAULT_COUNT;
	o->warmup = DEFAULT_WARMUP;
	o->timeout_us = DEFAULT_TIMEOUT_US;
	memset(&o->peer, 0xff, sizeof(o->peer));
	o->frame = FRAME_RAW;
	o->sport = rte_cpu_to_be_16(DEFAULT_SPORT);
	o->dport = rte_cpu_to_be_16(STAMP_PORT);

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:w:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (strcmp(optarg, "ping") == 0)
				o->mode = MODE_PING;
			else if (strcmp(optarg, "echo") == 0)
				o->mode = MODE_ECHO;
			else
				return -EINVAL;
			break;
		case 'n':
			if (parse_u64(optarg, MAX_COUNT, &o->count) != 0 ||
			    o->count == 0)
				return -EINVAL;
			break;
		case 'w':
			if (parse_u64(optarg, MAX_COUNT, &o->warmup) != 0)
				return -EINVAL;
			break;
		case 'p':
			if (strcmp(optarg, "broadcast") == 0)
				memset(&o->peer, 0xff, sizeof(o->peer));
			else if (rte_ether_unformat_addr(optarg, &o->peer) != 0)
				return -EINVAL;
			break;
		case 't':
			if (parse_u64(optarg, 60000000u, &o->timeout_us) != 0 ||
			    o->timeout_us == 0)
				return -EINVAL;
			break;
		case 'd':
			if (parse_u64(optarg, MAX_SECONDS, &o->duration_s) !=
				    0 ||
			    o->duration_s == 0)
				return -EINVAL;
			break;
		case 'P':
			if (parse_u64(optarg, RTE_MAX_ETHPORTS - 1, &v) != 0)
				return -EINVAL;
			o->port = (uint16_t)v;
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_FRAME:
			if (strcmp(optarg, "raw") == 0)
				o->frame = FRAME_RAW;
			else if (strcmp(optarg, "stamp") == 0)
				o->frame = FRAME_STAMP;
			else
				return -EINVAL;
			break;
		case OPT_SRC_IP:
		case OPT_DST_IP:
			if (inet_pton(AF_INET, optarg,
				      opt == OPT_SRC_IP ? &o->src_ip
							: &o->dst_ip) != 1)
				return -EINVAL;
			break;
		case OPT_SPORT:
		case OPT_DPORT:
			if (parse_u64(optarg, UINT16_MAX, &v) != 0 || v == 0)
				return -EINVAL;
			if (opt == OPT_SPORT)
				o->sport = rte_cpu_to_be_16((uint16_t)v);
			else
				o->dport = rte_cpu_to_be_16((uint16_t)v);
			break;
		case OPT_SIZE:
			if (parse_u64(optarg, MAX_FRAME_LEN, &v) != 0 ||
			    v < FRAME_LEN)
				return -EINVAL;
			o->size = (uint16_t)v;
			break;
		default:
			return -EINVAL;
		}
	}
	if (o->mode == MODE_NONE || optind != argc)
		return -EINVAL;
	/* STAMP: both addresses, and the STAMP frame's own size. */
	if (o->frame == FRAME_STAMP &&
	    (o->src_ip == 0 || o->dst_ip == 0 ||
	     (o->size != 0 && o->size != STAMP_FRAME_LEN)))
		return -EINVAL;
	if (o->size == 0)
		o->size = o->frame == FRAME_STAMP ? STAMP_FRAME_LEN : FRAME_LEN;
	if (o->duration_s == 0)
		o->duration_s = o->mode == MODE_PING ? DEFAULT_PING_SECONDS
						     : DEFAULT_ECHO_SECONDS;
	return 0;
}

int
main(int argc, char **argv)
{
	struct rawping_opts opts;
	struct rte_mempool *mp;
	int ret, rc;

	/* Keep stdout for results (--json); EAL logs go to stderr. */
	rte_openlog_stream(stderr);
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed: %s\n",
			 rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	argv[0] = "rawping";
	if (parse_args(argc, argv, &opts) != 0) {
		usage("rawping");
		rte_eal_cleanup();
		return 2;
	}
	if (!rte_eth_dev_is_valid_port(opts.port))
		rte_exit(EXIT_FAILURE, "no port %u (add a --vdev?)\n",
			 opts.port);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	mp = rte_pktmbuf_pool_create("rawping_pool", NB_MBUF, MBUF_CACHE, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "mempool: %s\n",
			 rte_strerror(rte_errno));
	rc = port_setup(opts.port, mp);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "port %u setup: %s\n", opts.port,
			 strerror(-rc));
	if (opts.mode == MODE_ECHO) {
		/* No wait for link: a memif server has none until the client
		 * connects, and polling a port without link is harmless. */
		rc = run_echo(&opts);
	} else {
		rc = wait_link(opts.port, 30ull * 1000000000u);
		if (rc != 0)
			fprintf(stderr, "rawping: port %u link down: %s\n",
				opts.port, strerror(-rc));
		else
			rc = run_ping(&opts, mp);
		if (rc != 0 && rc != -ETIMEDOUT)
			fprintf(stderr, "rawping: %s\n", strerror(-rc));
	}

	print_port_stats(opts.port);
	rte_eth_dev_stop(opts.port);
	rte_eth_dev_close(opts.port);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
