/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel backend as an io table: UDP sockets (IPv4 and IPv6, one per
 * flow or port) behind the same rx_burst/tx_burst/clock ops the DPDK
 * backend has. rx: recvmmsg with cmsgs (TTL/hop limit, TOS/traffic class,
 * packet info; ICMP errors from the error queue) turned into synthetic
 * Ethernet/IP/UDP frames, so the engines parse one format; tx: the frame's
 * payload sent on its socket; then socket set-up (busy poll,
 * SO_PREFER_BUSY_POLL) and the open/close of a prober's or a reflector's
 * sockets.
 *
 * Over 1,000 lines on purpose: the ops table's rx and tx and their static
 * helpers (sockio_of, read_cmsgs, synth_frame, send_frame) are one
 * translation unit so that they inline into the burst functions the
 * engines call through io_rx/io_tx; set-up shares the private struct
 * sockio and struct sockio_sock, which no header shows.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/errqueue.h> /* after <time.h>: it uses struct timespec */

#include <rte_mbuf.h>

#include "latprobe/io_pool.h"
#include "latprobe/byteorder.h"
#include "latprobe/sockio.h"
#include "latprobe/timing.h"
#include "latprobe/util.h"

/* Empty reads of the hot socket between two poll()s over all of them. */
#define SOCKIO_POLL_EVERY 8

#define SOCKIO_DEFAULT_MBUFS 64
#define SOCKIO_RX_BATCH	     32
#define SOCKIO_DEFAULT_TTL   64 /* what every socket is set to */
/* Room for IP_TTL (int), IP_TOS (byte) and IP_PKTINFO, with slack. */
#define SOCKIO_CTL_LEN	     128

struct sockio_sock {
	int fd;
	uint32_t local_addr; /* host order; 0 = bound to any */
	uint8_t local6[16];  /* IPv6 sockets: :: = bound to any */
	uint16_t local_port;
	bool connected;
	/* The kernel hands TTL, TOS and destination address of each datagram
	 * as control messages (reflector sockets); false: a prober's connected
	 * socket, whose datagrams all come to its own address, read with a
	 * plain recvfrom(). */
	bool rx_meta;
	struct sockaddr_in peer;   /* connected to (prober) */
	struct sockaddr_in6 peer6; /* the same, IPv6 sockets */
	unsigned rx_vlen;	   /* next recvmmsg batch, see sock_rx() */
	unsigned rx_streak;	   /* single reads in a row that got one */
	/* ICMP destination unreachable the kernel reported on this socket,
	 * handed to the engine as a frame by the next rx_burst: its code, -1
	 * when none; and the IPv4 + UDP headers of the last frame sent, the
	 * quote that frame carries. */
	int unreach_code;
	bool have_last;
	uint8_t last_hdr[CODEC_IPV4_HLEN + CODEC_UDP_HLEN];
};

struct sockio {
	struct io_queue q;
	struct sockio_opts o;
	int family;	/* AF_INET or AF_INET6: every socket of s */
	size_t hdr_len; /* Ethernet + IP + UDP of the synthetic frames */
	struct codec_mac my_mac;
	unsigned n_socks;
	unsigned rx_hot;  /* read directly while busy-polling */
	unsigned rx_idle; /* empty direct reads since the last poll() */
	struct sockio_sock socks[SOCKIO_MAX_SOCKETS];
	struct pollfd pfd[SOCKIO_MAX_SOCKETS]; /* busy_poll false, several */
	unsigned rx_next; /* socket rx starts at (fairness) */
	uint16_t ip_id;
	bool prefer_busy_poll; /* SO_PREFER_BUSY_POLL taken, set_busy_poll() */
	struct sockio_stats st;

	/* No headroom: nothing is ever prepended to these frames. */
	struct io_pool pool;

	/* recvmmsg scratch, kept here to keep the rx path off the stack */
	struct mmsghdr msgs[SOCKIO_RX_BATCH];
	struct iovec iov[SOCKIO_RX_BATCH];
	struct sockaddr_in6 from[SOCKIO_RX_BATCH]; /* or sockaddr_in */
	struct rte_mbuf *rx_m[SOCKIO_RX_BATCH];
	/* rows are SOCKIO_CTL_LEN apart, so each keeps the alignment */
	_Alignas(struct cmsghdr) uint8_t ctl[SOCKIO_RX_BATCH][SOCKIO_CTL_LEN];
};

static inline struct sockio *
sockio_of(struct io_queue *q)
{
	return q->priv;
}

/* rx -----------------------------------------------------------------------
 */

/* What the control messages of one datagram said. */
struct rx_meta {
	uint8_t ttl, tos;
	uint32_t dst; /* host order, 0 when unknown */
	bool have_dst6;
	uint8_t dst6[16];
};

/* What a datagram read without control messages says: the defaults. */
static void
rx_meta_plain(struct rx_meta *meta)
{
	meta->ttl = SOCKIO_DEFAULT_TTL;
	meta->tos = 0;
	meta->dst = 0;
	meta->have_dst6 = false;
	memset(meta->dst6, 0, sizeof(meta->dst6));
}
/* IPV6_HOPLIMIT, IPV6_TCLASS (ints) and IPV6_PKTINFO (RFC 3542 6). */
static void
read_cmsg6(struct cmsghdr *c, struct rx_meta *meta)
{
	int v;

	if ((c->cmsg_type == IPV6_HOPLIMIT || c->cmsg_type == IPV6_TCLASS) &&
	    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		if (c->cmsg_type == IPV6_HOPLIMIT)
			meta->ttl = (uint8_t)v;
		else
			meta->tos = (uint8_t)v;
	} else if (c->cmsg_type == IPV6_PKTINFO &&
		   c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
		struct in6_pktinfo pi;

		memcpy(&pi, CMSG_DATA(c), sizeof(pi));
		memcpy(meta->dst6, &pi.ipi6_addr, 16);
		meta->have_dst6 = true;
	}
}

static void
read_cmsgs(struct msghdr *mh, struct rx_meta *meta)
{
	rx_meta_plain(meta);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	     c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IPV6) {
			read_cmsg6(c, meta);
			continue;
		}
		if (c->cmsg_level != IPPROTO_IP)
			continue;
		if (c->cmsg_type == IP_TTL &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			meta->ttl = (uint8_t)v;
		} else if (c->cmsg_type == IP_TOS &&
			   c->cmsg_len >= CMSG_LEN(1)) {
			meta->tos = *CMSG_DATA(c);
		} else if (c->cmsg_type == IP_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			/* ipi_addr: the header's destination address. */
			meta->dst = ntohl(pi.ipi_addr.s_addr);
		}
	}
}

/*
 * Wrap the datagram that sits at the payload offset of m into a frame:
 * the headers are written in place, nothing else is touched. The kernel
 * has verified both checksums before it handed the datagram over (ip_rcv,
 * then UDP before delivery), so the frame says so the way a NIC would
 * (RX_IP_CKSUM_GOOD, RX_L4_CKSUM_GOOD) and the engines do not recompute
 * them; the IPv4 header checksum is filled in (20 bytes), the UDP checksum
 * is left 0, which IPv4 reads as "none" (over IPv6 a prober socket's
 * frames have only the flag vouch for it, a reflector socket's get it
 * computed).
 */
static void
synth_frame(struct sockio *s, const struct sockio_sock *k, struct rte_mbuf *m,
	    const void *from_sa, size_t plen, const struct rx_meta *meta)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	const struct sockaddr_in *from = from_sa;
	const struct sockaddr_in6 *from6 = from_sa;
	uint8_t *ip = buf + CODEC_ETH_HLEN;
	uint8_t *udp;
	uint16_t sport, hc;
	uint32_t src;

	memcpy(buf, s->my_mac.b, 6);
	if (s->family == AF_INET6) {
		/* 02:00 + the low 32 bits of the source, as for IPv4. */
		memcpy(&src, from6->sin6_addr.s6_addr + 12, 4);
		src = ntohl(src);
		sport = ntohs(from6->sin6_port);
		util_put_be16(buf + 12, CODEC_ETHERTYPE_IPV6);
		util_put_be32(ip, 6u << 28 | (uint32_t)meta->tos << 20);
		util_put_be16(ip + 4, (uint16_t)(CODEC_UDP_HLEN + plen));
		ip[6] = CODEC_IPPROTO_UDP;
		ip[7] = meta->ttl;
		memcpy(ip + 8, from6->sin6_addr.s6_addr, 16);
		memcpy(ip + 24, meta->have_dst6 ? meta->dst6 : k->local6, 16);
		udp = ip + CODEC_IPV6_HLEN;
	} else {
		src = ntohl(from->sin_addr.s_addr);
		sport = ntohs(from->sin_port);
		util_put_be16(buf + 12, CODEC_ETHERTYPE_IPV4);
		ip[0] = 0x45;
		ip[1] = meta->tos;
		util_put_be16(ip + 2, (uint16_t)(CODEC_IPV4_HLEN +
						 CODEC_UDP_HLEN + plen));
		util_put_be16(ip + 4, s->ip_id++);
		util_put_be16(ip + 6, 0x4000); /* DF */
		ip[8] = meta->ttl;
		ip[9] = CODEC_IPPROTO_UDP;
		util_put_be16(ip + 10, 0);
		util_put_be32(ip + 12, src);
		util_put_be32(ip + 16,
			      meta->dst != 0 ? meta->dst : k->local_addr);
		hc = (uint16_t)~codec_csum_fold16(
			codec_csum_add(0, ip, CODEC_IPV4_HLEN));
		memcpy(ip + 10, &hc, sizeof(hc));
		udp = ip + CODEC_IPV4_HLEN;
	}
	/* locally administered, from the address */
	buf[6] = 0x02;
	buf[7] = 0;
	util_put_be32(buf + 8, src);
	util_put_be16(udp, sport);
	util_put_be16(udp + 2, k->local_port);
	util_put_be16(udp + 4, (uint16_t)(CODEC_UDP_HLEN + plen));
	util_put_be16(udp + 6, 0);
	if (s->family == AF_INET6 && k->rx_meta) {
		/* The reflector engine drops an IPv6 UDP checksum of zero
		 * (RFC 8200 8.1) whatever the flag says: compute it there. */
		struct codec_frame f;

		memset(&f, 0, sizeof(f));
		f.ip_version = 6;
		f.ip_proto = CODEC_IPPROTO_UDP;
		f.l3_off = CODEC_ETH_HLEN;
		f.l4_off = CODEC_ETH_HLEN + CODEC_IPV6_HLEN;
		f.l4_len = (uint16_t)(CODEC_UDP_HLEN + plen);
		f.payload_off = SOCKIO_HDR6_LEN;
		codec_l4_csum_set(buf, &f);
	}
	m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	io_mbuf_set_len(m, (uint16_t)(s->hdr_len + plen));
}

/*
 * A send or receive failed with err: when it is a destination-unreachable
 * error (ICMP from the path, or the local stack's own verdict), note it
 * for the next rx_burst. With IP_RECVERR (prober sockets) the ICMP type
 * and code come from the error queue, which is drained here so it never
 * holds receive-buffer memory.
 */
static bool
sock_error(struct sockio *s, struct sockio_sock *k, int err)
{
	bool other_icmp = false; /* time exceeded, ...: not unreachable */
	int code = -1;

	for (unsigned i = 0; k->connected && i < 16; i++) {
		_Alignas(struct cmsghdr) uint8_t ctl[SOCKIO_CTL_LEN];
		uint8_t dummy[64];
		struct iovec iov = {.iov_base = dummy,
				    .iov_len = sizeof(dummy)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = ctl,
				    .msg_controllen = sizeof(ctl)};

		if (recvmsg(k->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL;
		     c = CMSG_NXTHDR(&mh, c)) {
			struct sock_extended_err ee;

			if (!(c->cmsg_level == IPPROTO_IP &&
			      c->cmsg_type == IP_RECVERR) &&
			    !(c->cmsg_level == IPPROTO_IPV6 &&
			      c->cmsg_type == IPV6_RECVERR))
				continue;
			if (c->cmsg_len < CMSG_LEN(sizeof(ee)))
				continue;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			/* TODO: ICMPv6 errors as frames for the engine. */
			if (ee.ee_origin == SO_EE_ORIGIN_ICMP6) {
				other_icmp = true;
				continue;
			}
			if (ee.ee_origin == SO_EE_ORIGIN_ICMP &&
			    ee.ee_type == CODEC_ICMP_DEST_UNREACH)
				code = ee.ee_code;
			else if (ee.ee_origin == SO_EE_ORIGIN_ICMP)
				other_icmp = true;
			else if (err == 0)
				err = (int)ee.ee_errno;
		}
	}
	if ((code < 0 && other_icmp) || s->family == AF_INET6)
		return false;
	if (code < 0) {
		switch (err) {
		case ECONNREFUSED:
			code = 3; /* port unreachable */
			break;
		case EHOSTUNREACH:
			code = 1;
			break;
		case ENETUNREACH:
			code = 0;
			break;
		default:
			return false;
		}
	}
	k->unreach_code = code;
	util_relaxed_add(&s->st.unreachable, 1);
	return true;
}

/*
 * The noted ICMP error of k as the frame the network would have brought:
 * from the peer to us, quoting the last frame sent. False when there is
 * nothing to hand over (no error, nothing sent yet, no mbuf).
 */
static bool
synth_unreachable(struct sockio *s, struct sockio_sock *k, struct rte_mbuf **mp)
{
	struct codec_flow fl;
	struct rte_mbuf *m;
	int len;

	if (k->unreach_code < 0 || !k->have_last)
		return false;
	m = io_pool_get(&s->pool);
	if (m == NULL)
		return false;
	memset(&fl, 0, sizeof(fl));
	fl.src_mac.b[0] = 0x02;
	fl.dst_mac = s->my_mac;
	fl.ip_version = 4;
	fl.src4 = ntohl(k->peer.sin_addr.s_addr);
	fl.dst4 = k->local_addr;
	len = codec_build_icmp_error(
		rte_pktmbuf_mtod(m, uint8_t *), s->pool.buf_len, &fl,
		CODEC_ICMP_DEST_UNREACH, (uint8_t)k->unreach_code, k->last_hdr,
		sizeof(k->last_hdr));
	k->unreach_code = -1;
	if (len < 0) {
		io_pool_put(&s->pool, m);
		return false;
	}
	io_mbuf_set_len(m, (uint16_t)len);
	*mp = m;
	return true;
}

/* A receive failed with errno err: EAGAIN is no error. */
static void
rx_failed(struct sockio *s, struct sockio_sock *k, int err)
{
	if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR &&
	    !sock_error(s, k, err))
		util_relaxed_add(&s->st.rx_errors, 1);
}

/* Read slot i of the receive scratch made ready to take one datagram into
 * m's payload, with its source address and control messages. */
static struct msghdr *
rx_slot_arm(struct sockio *s, unsigned i, struct rte_mbuf *m)
{
	struct msghdr *mh = &s->msgs[i].msg_hdr;

	s->iov[i].iov_base = rte_pktmbuf_mtod(m, uint8_t *) + s->hdr_len;
	s->iov[i].iov_len = (size_t)s->pool.buf_len - s->hdr_len;
	mh->msg_name = &s->from[i];
	mh->msg_namelen = sizeof(s->from[i]);
	mh->msg_iov = &s->iov[i];
	mh->msg_iovlen = 1;
	mh->msg_control = s->ctl[i];
	mh->msg_controllen = sizeof(s->ctl[i]);
	mh->msg_flags = 0;
	return mh;
}

/*
 * One datagram, the ping-pong case: one recvfrom() (or recvmsg() when the
 * socket has control messages to read) into one mbuf, no recvmmsg()
 * bookkeeping. flags: MSG_DONTWAIT or 0 (SO_RCVTIMEO bounds the wait).
 */
static uint16_t
sock_rx_one(struct sockio *s, struct sockio_sock *k, struct rte_mbuf **pkts,
	    int flags)
{
	struct rte_mbuf *m = io_pool_get(&s->pool);
	size_t cap = (size_t)s->pool.buf_len - s->hdr_len;
	struct rx_meta meta;
	uint8_t *data;
	ssize_t r;

	if (m == NULL) {
		util_relaxed_add(&s->st.rx_nombuf, 1);
		return 0;
	}
	data = rte_pktmbuf_mtod(m, uint8_t *) + s->hdr_len;
	if (!k->rx_meta) {
		socklen_t fl = sizeof(s->from[0]);

		/* MSG_TRUNC: the datagram's real length, to see truncation. */
		r = recvfrom(k->fd, data, cap, flags | MSG_TRUNC,
			     (struct sockaddr *)&s->from[0], &fl);
		rx_meta_plain(&meta);
	} else {
		struct msghdr *mh = rx_slot_arm(s, 0, m);

		r = recvmsg(k->fd, mh, flags);
		if (r >= 0 && (mh->msg_flags & MSG_TRUNC))
			r = (ssize_t)cap + 1;
		if (r >= 0)
			read_cmsgs(mh, &meta);
	}
	if (r < 0) {
		rx_failed(s, k, errno);
		io_pool_put(&s->pool, m);
		return 0;
	}
	if ((size_t)r > cap) {
		util_relaxed_add(&s->st.rx_truncated, 1);
		io_pool_put(&s->pool, m);
		return 0;
	}
	synth_frame(s, k, m, &s->from[0], (size_t)r, &meta);
	pkts[0] = m;
	util_relaxed_add(&s->st.rx_received, 1);
	return 1;
}

static uint16_t
sock_rx(struct sockio *s, struct sockio_sock *k, struct rte_mbuf **pkts,
	uint16_t n, int flags)
{
	unsigned want = n < k->rx_vlen ? n : k->rx_vlen;
	unsigned got = 0, i;
	uint16_t out = 0;
	int r;

	if (want <= 1) {
		/*
		 * Two datagrams in two reads in a row, no empty read (and on
		 * a prober's socket no probe sent) between, suggest a
		 * backlog: batch from the next read on. One answer per probe
		 * (ping-pong) stays on single reads: a batched read that got
		 * one datagram would try for the next before it returns.
		 */
		if (n == 0)
			return 0;
		out = sock_rx_one(s, k, pkts, flags & MSG_DONTWAIT);
		k->rx_streak = out != 0 ? k->rx_streak + 1 : 0;
		if (k->rx_streak >= 2 && n > 1) {
			k->rx_vlen = 2;
			k->rx_streak = 0;
		}
		return out;
	}
	for (i = 0; i < want; i++) {
		struct rte_mbuf *m = io_pool_get(&s->pool);

		if (m == NULL)
			break;
		s->rx_m[i] = m;
		rx_slot_arm(s, i, m);
	}
	if (i == 0) {
		util_relaxed_add(&s->st.rx_nombuf, 1);
		return 0;
	}
	r = recvmmsg(k->fd, s->msgs, i, flags, NULL);
	if (r < 0)
		rx_failed(s, k, errno);
	else
		got = (unsigned)r;
	for (unsigned j = 0; j < got; j++) {
		struct msghdr *mh = &s->msgs[j].msg_hdr;
		struct rte_mbuf *m = s->rx_m[j];
		struct rx_meta meta;

		if (mh->msg_flags & MSG_TRUNC) {
			util_relaxed_add(&s->st.rx_truncated, 1);
			io_pool_put(&s->pool, m);
			continue;
		}
		read_cmsgs(mh, &meta);
		synth_frame(s, k, m, &s->from[j], s->msgs[j].msg_len, &meta);
		pkts[out++] = m;
	}
	for (unsigned j = got; j < i; j++)
		io_pool_put(&s->pool, s->rx_m[j]);
	/*
	 * recvmmsg() that got a datagram tries for the next one before it
	 * returns: about 0.5 us more round trip here when nothing follows. So
	 * the batch grows only while every slot is filled (a backlog).
	 */
	if (got == i && got != 0)
		k->rx_vlen = k->rx_vlen * 2 < SOCKIO_RX_BATCH ? k->rx_vlen * 2
							      : SOCKIO_RX_BATCH;
	else
		k->rx_vlen = 1; /* back to single reads, streak 0 */
	util_relaxed_add(&s->st.rx_received, out);
	return out;
}

static uint16_t
sockio_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct sockio *s = sockio_of(q);
	uint16_t got = 0;

	for (unsigned i = 0; i < s->n_socks && got < n; i++)
		if (synth_unreachable(s, &s->socks[i], &pkts[got]))
			got++;
	if (got != 0)
		return got;

	if (s->n_socks == 1)
		return sock_rx(s, &s->socks[0], pkts, n,
			       s->o.busy_poll
				       ? MSG_DONTWAIT
				       : MSG_WAITFORONE /* SO_RCVTIMEO */);
	if (!s->o.busy_poll) {
		/* Blocking: poll() with a 1 ms timeout over all of them. */
		if (poll(s->pfd, s->n_socks, 1) <= 0)
			return 0;
		for (unsigned i = 0; i < s->n_socks && got < n; i++) {
			unsigned k = (s->rx_next + i) % s->n_socks;

			if (s->pfd[k].revents != 0)
				got += sock_rx(s, &s->socks[k], pkts + got,
					       (uint16_t)(n - got),
					       MSG_DONTWAIT);
		}
		if (++s->rx_next >= s->n_socks)
			s->rx_next = 0;
		return got;
	}
	/*
	 * Busy-polling several sockets. A syscall costs about 2 us on this
	 * project's VMs, so a poll() before every read adds one to every
	 * answer (seen: 1.3 us per extra port). The socket that last had
	 * traffic is read directly, as if it were alone; every
	 * SOCKIO_POLL_EVERY-th empty read, one poll() looks at all of them and
	 * the one with traffic becomes the one read directly.
	 */
	got = sock_rx(s, &s->socks[s->rx_hot], pkts, n, MSG_DONTWAIT);
	if (got != 0) {
		s->rx_idle = 0;
		return got;
	}
	if (++s->rx_idle < SOCKIO_POLL_EVERY)
		return 0;
	s->rx_idle = 0;
	if (poll(s->pfd, s->n_socks, 0) <= 0)
		return 0;
	for (unsigned i = 0; i < s->n_socks && got < n; i++) {
		unsigned k = (s->rx_next + i) % s->n_socks;
		uint16_t g;

		if (s->pfd[k].revents == 0)
			continue;
		g = sock_rx(s, &s->socks[k], pkts + got, (uint16_t)(n - got),
			    MSG_DONTWAIT);
		if (g != 0)
			s->rx_hot = k;
		got += g;
	}
	if (++s->rx_next >= s->n_socks)
		s->rx_next = 0;
	return got;
}

/* tx -----------------------------------------------------------------------
 */

static struct sockio_sock *
sock_by_port(struct sockio *s, uint16_t port)
{
	for (unsigned i = 0; i < s->n_socks; i++)
		if (s->socks[i].local_port == port)
			return &s->socks[i];
	return NULL;
}

static void
add_cmsg(struct msghdr *mh, size_t *used, int level, int type, const void *v,
	 size_t len)
{
	struct cmsghdr *c =
		(struct cmsghdr *)((uint8_t *)mh->msg_control + *used);

	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), v, len);
	*used += CMSG_SPACE(len);
}

/*
 * The frames the engines build for a socket are untagged Ethernet + IPv4
 * without options (or IPv6 without extension headers) + UDP: read those
 * at fixed offsets into the fields of f that send_frame() uses, with the
 * checks codec_parse_frame() would make on them (lengths that agree, not a
 * fragment). False for anything else, which takes the generic parse.
 */
static bool
fast_parse(const struct sockio *s, const uint8_t *buf, uint16_t len,
	   struct codec_frame *f)
{
	const uint8_t *ip = buf + CODEC_ETH_HLEN, *udp;
	uint16_t ulen;

	if (s->family == AF_INET6) {
		udp = ip + CODEC_IPV6_HLEN;
		if (len < SOCKIO_HDR6_LEN ||
		    util_get_be16(buf + 12) != CODEC_ETHERTYPE_IPV6 ||
		    ip[0] >> 4 != 6 || ip[6] != CODEC_IPPROTO_UDP)
			return false;
		ulen = util_get_be16(udp + 4);
		if (util_get_be16(ip + 4) != ulen || ulen < CODEC_UDP_HLEN ||
		    ulen > len - (CODEC_ETH_HLEN + CODEC_IPV6_HLEN))
			return false;
		f->tos = (uint8_t)(util_get_be16(ip) >> 4);
		f->ttl = ip[7];
		memcpy(f->src6, ip + 8, 16);
		memcpy(f->dst6, ip + 24, 16);
		f->src4 = 0;
		f->dst4 = 0;
		f->l3_hlen = CODEC_IPV6_HLEN;
	} else {
		udp = ip + CODEC_IPV4_HLEN;
		if (len < SOCKIO_HDR_LEN ||
		    util_get_be16(buf + 12) != CODEC_ETHERTYPE_IPV4 ||
		    ip[0] != 0x45 || ip[9] != CODEC_IPPROTO_UDP ||
		    (util_get_be16(ip + 6) & 0x3fff) != 0) /* MF, offset */
			return false;
		ulen = util_get_be16(udp + 4);
		if (util_get_be16(ip + 2) != CODEC_IPV4_HLEN + ulen ||
		    ulen < CODEC_UDP_HLEN ||
		    ulen > len - (CODEC_ETH_HLEN + CODEC_IPV4_HLEN))
			return false;
		f->tos = ip[1];
		f->ttl = ip[8];
		f->src4 = util_get_be32(ip + 12);
		f->dst4 = util_get_be32(ip + 16);
		f->l3_hlen = CODEC_IPV4_HLEN;
	}
	f->l3_off = CODEC_ETH_HLEN;
	f->sport = util_get_be16(udp);
	f->dport = util_get_be16(udp + 2);
	f->payload_off = (uint16_t)(udp + CODEC_UDP_HLEN - buf);
	f->payload_len = (uint16_t)(ulen - CODEC_UDP_HLEN);
	return true;
}

/*
 * The payload to the socket's connected peer with nothing to say in
 * control messages: send(), the shortest path through the kernel (no
 * msghdr to copy in, the connected route).
 */
static bool
send_plain(struct sockio *s, struct sockio_sock *k, const uint8_t *p,
	   size_t len)
{
	if (send(k->fd, p, len, 0) < 0) {
		sock_error(s, k, errno);
		util_relaxed_add(&s->st.tx_errors, 1);
		return false;
	}
	util_relaxed_add(&s->st.tx_sent, 1);
	return true;
}

/* The IPv6 half of send_frame(): hop limit, traffic class and source
 * address as IPV6_HOPLIMIT / IPV6_TCLASS / IPV6_PKTINFO (RFC 3542 6). */
static bool
send_frame6(struct sockio *s, struct sockio_sock *k, uint8_t *buf,
	    const struct codec_frame *f)
{
	_Alignas(struct cmsghdr) uint8_t ctl[SOCKIO_CTL_LEN];
	static const uint8_t any[16];
	struct sockaddr_in6 dst;
	struct msghdr mh;
	struct iovec iov;
	size_t used = 0;

	if (k->connected && f->ttl == SOCKIO_DEFAULT_TTL && f->tos == 0 &&
	    memcmp(k->local6, any, 16) != 0 &&
	    memcmp(&k->peer6.sin6_addr, f->dst6, 16) == 0 &&
	    k->peer6.sin6_port == htons(f->dport))
		return send_plain(s, k, buf + f->payload_off, f->payload_len);
	memset(&dst, 0, sizeof(dst));
	dst.sin6_family = AF_INET6;
	memcpy(dst.sin6_addr.s6_addr, f->dst6, 16);
	dst.sin6_port = htons(f->dport);
	iov.iov_base = buf + f->payload_off;
	iov.iov_len = f->payload_len;
	memset(&mh, 0, sizeof(mh));
	if (!k->connected ||
	    memcmp(&k->peer6.sin6_addr, &dst.sin6_addr, 16) != 0 ||
	    k->peer6.sin6_port != dst.sin6_port) {
		mh.msg_name = &dst;
		mh.msg_namelen = sizeof(dst);
	}
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	memset(ctl, 0, sizeof(ctl));
	if (f->ttl != SOCKIO_DEFAULT_TTL) {
		int hl = f->ttl;

		add_cmsg(&mh, &used, IPPROTO_IPV6, IPV6_HOPLIMIT, &hl,
			 sizeof(hl));
	}
	if (f->tos != 0) {
		int tc = f->tos;

		add_cmsg(&mh, &used, IPPROTO_IPV6, IPV6_TCLASS, &tc,
			 sizeof(tc));
	}
	if (memcmp(k->local6, any, 16) == 0) {
		struct in6_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		memcpy(&pi.ipi6_addr, f->src6, 16);
		add_cmsg(&mh, &used, IPPROTO_IPV6, IPV6_PKTINFO, &pi,
			 sizeof(pi));
	}
	mh.msg_controllen = used;
	if (used == 0)
		mh.msg_control = NULL;
	if (sendmsg(k->fd, &mh, 0) < 0) {
		sock_error(s, k, errno);
		util_relaxed_add(&s->st.tx_errors, 1);
		return false;
	}
	util_relaxed_add(&s->st.tx_sent, 1);
	return true;
}

/* Send the UDP payload of one engine frame; false when it was not sent. */
static bool
send_frame(struct sockio *s, struct rte_mbuf *m)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	_Alignas(struct cmsghdr) uint8_t ctl[SOCKIO_CTL_LEN];
	struct sockaddr_in dst;
	struct codec_frame f;
	struct sockio_sock *k;
	struct msghdr mh;
	struct iovec iov;
	size_t used = 0;

	if (m->nb_segs != 1 ||
	    (!fast_parse(s, buf, m->data_len, &f) &&
	     (codec_parse_frame(buf, m->data_len, &f) != 0 ||
	      f.ethertype != (s->family == AF_INET6 ? CODEC_ETHERTYPE_IPV6
						    : CODEC_ETHERTYPE_IPV4) ||
	      f.ip_proto != CODEC_IPPROTO_UDP || f.is_fragment ||
	      f.payload_off == 0)) ||
	    (k = sock_by_port(s, f.sport)) == NULL) {
		util_relaxed_add(&s->st.tx_unroutable, 1);
		return false;
	}
	if (k->connected)
		k->rx_streak = 0; /* answers to a new probe are no backlog */
	if (s->family == AF_INET6)
		return send_frame6(s, k, buf, &f);
	if (f.l3_hlen == CODEC_IPV4_HLEN) {
		memcpy(k->last_hdr, buf + f.l3_off, sizeof(k->last_hdr));
		k->have_last = true;
	}
	if (k->connected && f.ttl == SOCKIO_DEFAULT_TTL && f.tos == 0 &&
	    k->local_addr != 0 && k->peer.sin_addr.s_addr == htonl(f.dst4) &&
	    k->peer.sin_port == htons(f.dport))
		return send_plain(s, k, buf + f.payload_off, f.payload_len);
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = htonl(f.dst4);
	dst.sin_port = htons(f.dport);
	iov.iov_base = buf + f.payload_off;
	iov.iov_len = f.payload_len;
	memset(&mh, 0, sizeof(mh));
	/* A connected socket sends to its peer without a route lookup. */
	if (!k->connected || k->peer.sin_addr.s_addr != dst.sin_addr.s_addr ||
	    k->peer.sin_port != dst.sin_port) {
		mh.msg_name = &dst;
		mh.msg_namelen = sizeof(dst);
	}
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	memset(ctl, 0, sizeof(ctl));
	if (f.ttl != SOCKIO_DEFAULT_TTL) {
		int ttl = f.ttl;

		add_cmsg(&mh, &used, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	}
	if (f.tos != 0) {
		int tos = f.tos;

		add_cmsg(&mh, &used, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	}
	if (k->local_addr == 0 && f.src4 != 0) {
		struct in_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi_spec_dst.s_addr = htonl(f.src4);
		add_cmsg(&mh, &used, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	}
	mh.msg_controllen = used;
	if (used == 0)
		mh.msg_control = NULL;
	if (sendmsg(k->fd, &mh, 0) < 0) {
		sock_error(s, k, errno);
		util_relaxed_add(&s->st.tx_errors, 1);
		return false;
	}
	util_relaxed_add(&s->st.tx_sent, 1);
	return true;
}

static uint16_t
sockio_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct sockio *s = sockio_of(q);

	for (uint16_t i = 0; i < n; i++) {
		send_frame(s, pkts[i]);
		io_pool_put(&s->pool, pkts[i]);
	}
	return n;
}

static struct rte_mbuf *
sockio_alloc(struct io_queue *q)
{
	return io_pool_get(&sockio_of(q)->pool);
}

static void
sockio_free(struct io_queue *q, struct rte_mbuf *m)
{
	io_pool_put(&sockio_of(q)->pool, m);
}

static uint64_t
sockio_clock_start(struct io_queue *q)
{
	return tsc_read_start();
}

static uint64_t
sockio_clock_end(struct io_queue *q)
{
	return tsc_read_end();
}

static uint64_t
sockio_clock(struct io_queue *q)
{
	return tsc_read();
}

static const struct io_ops sockio_ops = {
	.name = "kernel",
	.rx_burst = sockio_rx,
	.tx_burst = sockio_tx,
	.alloc = sockio_alloc,
	.free = sockio_free,
	.clock_start = sockio_clock_start,
	.clock_end = sockio_clock_end,
	.clock = sockio_clock,
};

/* Set-up --------------------------------------------------------------------
 */

void
sockio_opts_default(struct sockio_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->busy_poll = true;
}

static int
setopt_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) == 0 ? 0 : -errno;
}

/*
 * SO_BUSY_POLL only when asked (opts.so_busy_poll_us, --busy-poll-us N;
 * its refusal is an error), and with it SO_PREFER_BUSY_POLL (Linux 5.11;
 * refused without CAP_NET_ADMIN, which is quietly taken as "not here").
 * Not by default: a nonblocking receive polls the device's NAPI context
 * once, which helps only on a device with NAPI (a NIC; veth only with GRO
 * or XDP on); on this project's veth it changed nothing measurable
 * (docs/performance.md).
 */
static int
set_busy_poll(struct sockio *s, int fd)
{
	int ret;

	if (s->o.so_busy_poll_us == 0)
		return 0;
	ret = setopt_int(fd, SOL_SOCKET, SO_BUSY_POLL, s->o.so_busy_poll_us);
	if (ret != 0)
		return ret;
#ifdef SO_PREFER_BUSY_POLL
	if (setopt_int(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, 1) == 0)
		s->prefer_busy_poll = true;
#endif
	return 0;
}

/* A bound UDP socket; meta: with the rx metadata switched on (TTL, TOS,
 * destination address). */
/* The IPv6 socket of sock_open(): IPv6 only, the RFC 3542 rx metadata. */
static int
sock_open6(struct sockio *s, struct sockio_sock *k, const uint8_t addr[16],
	   uint16_t port, bool meta)
{
	struct sockaddr_in6 sa;
	socklen_t sl = sizeof(sa);
	int fd, ret;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	k->fd = fd;
	k->rx_meta = meta;
	if ((ret = setopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1)) != 0 ||
	    (meta &&
	     ((ret = setopt_int(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)) != 0 ||
	      (ret = setopt_int(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1)) != 0 ||
	      (ret = setopt_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1)) !=
		      0)) ||
	    (ret = setopt_int(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS,
			      SOCKIO_DEFAULT_TTL)) != 0)
		return ret;
	ret = set_busy_poll(s, fd);
	if (ret != 0)
		return ret;
	memset(&sa, 0, sizeof(sa));
	sa.sin6_family = AF_INET6;
	memcpy(sa.sin6_addr.s6_addr, addr, 16);
	sa.sin6_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -errno;
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) != 0)
		return -errno;
	memcpy(k->local6, sa.sin6_addr.s6_addr, 16);
	k->local_port = ntohs(sa.sin6_port);
	k->rx_vlen = 1;
	k->unreach_code = -1;
	return 0;
}

static int
sock_open(struct sockio *s, struct sockio_sock *k, uint32_t addr, uint16_t port,
	  bool meta)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	k->fd = fd;
	k->rx_meta = meta;
	if ((meta &&
	     ((ret = setopt_int(fd, IPPROTO_IP, IP_RECVTTL, 1)) != 0 ||
	      (ret = setopt_int(fd, IPPROTO_IP, IP_RECVTOS, 1)) != 0 ||
	      (ret = setopt_int(fd, IPPROTO_IP, IP_PKTINFO, 1)) != 0)) ||
	    (ret = setopt_int(fd, IPPROTO_IP, IP_TTL, SOCKIO_DEFAULT_TTL)) != 0)
		return ret;
	ret = set_busy_poll(s, fd);
	if (ret != 0)
		return ret;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(addr);
	sa.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -errno;
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) != 0)
		return -errno;
	k->local_addr = ntohl(sa.sin_addr.s_addr);
	k->local_port = ntohs(sa.sin_port);
	k->rx_vlen = 1;
	k->unreach_code = -1;
	return 0;
}

static struct sockio *
sockio_new(const struct codec_mac *my_mac, const struct sockio_opts *o,
	   int family)
{
	struct sockio *s;
	unsigned n_mbufs, max_dgram;

	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	if (o != NULL)
		s->o = *o;
	else
		sockio_opts_default(&s->o);
	for (unsigned i = 0; i < SOCKIO_MAX_SOCKETS; i++)
		s->socks[i].fd = -1;
	if (my_mac != NULL)
		s->my_mac = *my_mac;
	s->family = family;
	s->hdr_len = family == AF_INET6 ? SOCKIO_HDR6_LEN : SOCKIO_HDR_LEN;
	n_mbufs = s->o.n_mbufs != 0 ? s->o.n_mbufs : SOCKIO_DEFAULT_MBUFS;
	max_dgram = s->o.max_datagram != 0 ? s->o.max_datagram
					   : SOCKIO_MAX_DATAGRAM;
	/* The mbuf's 16-bit length holds 20 header bytes more over IPv6. */
	if (family == AF_INET6 && max_dgram > 65535 - SOCKIO_HDR6_LEN)
		max_dgram = 65535 - SOCKIO_HDR6_LEN;
	if (max_dgram > SOCKIO_MAX_DATAGRAM || s->o.so_busy_poll_us < 0) {
		free(s);
		errno = EINVAL;
		return NULL;
	}
	if (io_pool_init(&s->pool, n_mbufs, (uint16_t)(s->hdr_len + max_dgram),
			 0) != 0) {
		sockio_close(s);
		errno = ENOMEM;
		return NULL;
	}
	s->q.ops = &sockio_ops;
	s->q.priv = s;
	/* Largest L3 packet: IPv4 + UDP headers around the biggest payload. */
	s->q.mtu = (uint16_t)(max_dgram + s->hdr_len - CODEC_ETH_HLEN);
	/* Its calls are recvfrom()/sendto(): the kernel's path. */
	s->q.path_calls = true;
	return s;
}

/* The last set-up step: blocking rx wants a receive timeout or a poll set. */
static int
sockio_finish(struct sockio *s)
{
	for (unsigned i = 0; i < s->n_socks; i++) {
		s->pfd[i].fd = s->socks[i].fd;
		s->pfd[i].events = POLLIN;
	}
	if (!s->o.busy_poll && s->n_socks == 1) {
		struct timeval tv = {.tv_sec = 0, .tv_usec = 1000};

		if (setsockopt(s->socks[0].fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
			       sizeof(tv)) != 0)
			return -errno;
		return 0;
	}
	return 0;
}

static struct sockio *
fail(struct sockio *s, int neg_errno)
{
	sockio_close(s);
	errno = -neg_errno;
	return NULL;
}

struct sockio *
sockio_open_prober(uint32_t local_addr, uint16_t sport, uint32_t dst_addr,
		   uint16_t dport, const struct codec_mac *my_mac,
		   const struct sockio_opts *o)
{
	struct sockio *s;
	struct sockio_sock *k;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int ret;

	if (dst_addr == 0 || dport == 0) {
		errno = EINVAL;
		return NULL;
	}
	s = sockio_new(my_mac, o, AF_INET);
	if (s == NULL)
		return NULL;
	k = &s->socks[0];
	s->n_socks = 1;
	ret = sock_open(s, k, local_addr, sport, false);
	if (ret != 0)
		return fail(s, ret);
	memset(&k->peer, 0, sizeof(k->peer));
	k->peer.sin_family = AF_INET;
	k->peer.sin_addr.s_addr = htonl(dst_addr);
	k->peer.sin_port = htons(dport);
	if (connect(k->fd, (struct sockaddr *)&k->peer, sizeof(k->peer)) != 0)
		return fail(s, -errno);
	k->connected = true;
	/* Every ICMP error on the error queue, not just port unreachable. */
	ret = setopt_int(k->fd, IPPROTO_IP, IP_RECVERR, 1);
	if (ret != 0)
		return fail(s, ret);
	/* connect() chose the source address when we were bound to any. */
	memset(&sa, 0, sizeof(sa));
	if (getsockname(k->fd, (struct sockaddr *)&sa, &sl) != 0)
		return fail(s, -errno);
	k->local_addr = ntohl(sa.sin_addr.s_addr);
	ret = sockio_finish(s);
	if (ret != 0)
		return fail(s, ret);
	return s;
}

/*
 * The reflector's ports without zeros and repeats into want[]: how many,
 * 0 when none is left or there are more than SOCKIO_MAX_SOCKETS.
 */
static unsigned
reflector_ports(const uint16_t *ports, unsigned n_ports,
		uint16_t want[SOCKIO_MAX_SOCKETS])
{
	unsigned n_want = 0;

	if (ports == NULL)
		return 0;
	for (unsigned i = 0; i < n_ports; i++) {
		bool dup = false;

		if (ports[i] == 0)
			continue;
		for (unsigned j = 0; j < n_want; j++)
			dup = dup || want[j] == ports[i];
		if (dup)
			continue;
		if (n_want == SOCKIO_MAX_SOCKETS)
			return 0;
		want[n_want++] = ports[i];
	}
	return n_want;
}

/* A reflector's sockets, one per distinct port: AF_INET (local4) or
 * AF_INET6 (local6, NULL for any). */
static struct sockio *
open_reflector(int family, uint32_t local4, const uint8_t *local6,
	       const uint16_t *ports, unsigned n_ports,
	       const struct codec_mac *my_mac, const struct sockio_opts *o)
{
	static const uint8_t any[16];
	uint16_t want[SOCKIO_MAX_SOCKETS];
	unsigned n_want;
	struct sockio *s;
	int ret;

	n_want = reflector_ports(ports, n_ports, want);
	if (n_want == 0) {
		errno = EINVAL;
		return NULL;
	}
	s = sockio_new(my_mac, o, family);
	if (s == NULL)
		return NULL;
	for (unsigned i = 0; i < n_want; i++) {
		s->n_socks = i + 1;
		ret = family == AF_INET6
			      ? sock_open6(s, &s->socks[i],
					   local6 != NULL ? local6 : any,
					   want[i], true)
			      : sock_open(s, &s->socks[i], local4, want[i],
					  true);
		if (ret != 0)
			return fail(s, ret);
	}
	ret = sockio_finish(s);
	if (ret != 0)
		return fail(s, ret);
	return s;
}

struct sockio *
sockio_open_reflector(uint32_t local_addr, const uint16_t *ports,
		      unsigned n_ports, const struct codec_mac *my_mac,
		      const struct sockio_opts *o)
{
	return open_reflector(AF_INET, local_addr, NULL, ports, n_ports, my_mac,
			      o);
}

struct sockio *
sockio_open_prober6(const uint8_t local6[16], uint16_t sport,
		    const uint8_t dst6[16], uint16_t dport,
		    const struct codec_mac *my_mac, const struct sockio_opts *o)
{
	static const uint8_t any[16];
	struct sockio *s;
	struct sockio_sock *k;
	struct sockaddr_in6 sa;
	socklen_t sl = sizeof(sa);
	int ret;

	if (dst6 == NULL || memcmp(dst6, any, 16) == 0 || dport == 0) {
		errno = EINVAL;
		return NULL;
	}
	s = sockio_new(my_mac, o, AF_INET6);
	if (s == NULL)
		return NULL;
	k = &s->socks[0];
	s->n_socks = 1;
	ret = sock_open6(s, k, local6 != NULL ? local6 : any, sport, false);
	if (ret != 0)
		return fail(s, ret);
	memset(&k->peer6, 0, sizeof(k->peer6));
	k->peer6.sin6_family = AF_INET6;
	memcpy(k->peer6.sin6_addr.s6_addr, dst6, 16);
	k->peer6.sin6_port = htons(dport);
	if (connect(k->fd, (struct sockaddr *)&k->peer6, sizeof(k->peer6)) != 0)
		return fail(s, -errno);
	k->connected = true;
	ret = setopt_int(k->fd, IPPROTO_IPV6, IPV6_RECVERR, 1);
	if (ret != 0)
		return fail(s, ret);
	memset(&sa, 0, sizeof(sa));
	if (getsockname(k->fd, (struct sockaddr *)&sa, &sl) != 0)
		return fail(s, -errno);
	memcpy(k->local6, sa.sin6_addr.s6_addr, 16);
	ret = sockio_finish(s);
	if (ret != 0)
		return fail(s, ret);
	return s;
}

struct sockio *
sockio_open_reflector6(const uint8_t local6[16], const uint16_t *ports,
		       unsigned n_ports, const struct codec_mac *my_mac,
		       const struct sockio_opts *o)
{
	return open_reflector(AF_INET6, 0, local6, ports, n_ports, my_mac, o);
}

void
sockio_local_addr6(const struct sockio *s, unsigned i, uint8_t out[16])
{
	if (i < s->n_socks)
		memcpy(out, s->socks[i].local6, 16);
	else
		memset(out, 0, 16);
}

struct io_queue *
sockio_queue(struct sockio *s)
{
	return &s->q;
}

unsigned
sockio_n_sockets(const struct sockio *s)
{
	return s->n_socks;
}

uint16_t
sockio_local_port(const struct sockio *s, unsigned i)
{
	return i < s->n_socks ? s->socks[i].local_port : 0;
}

uint32_t
sockio_local_addr(const struct sockio *s, unsigned i)
{
	return i < s->n_socks ? s->socks[i].local_addr : 0;
}

void
sockio_stats_get(const struct sockio *s, struct sockio_stats *out)
{
	out->tx_sent = util_relaxed_read(&s->st.tx_sent);
	out->tx_unroutable = util_relaxed_read(&s->st.tx_unroutable);
	out->tx_errors = util_relaxed_read(&s->st.tx_errors);
	out->rx_received = util_relaxed_read(&s->st.rx_received);
	out->rx_truncated = util_relaxed_read(&s->st.rx_truncated);
	out->rx_errors = util_relaxed_read(&s->st.rx_errors);
	out->unreachable = util_relaxed_read(&s->st.unreachable);
	out->rx_nombuf = util_relaxed_read(&s->st.rx_nombuf);
}

bool
sockio_prefer_busy_poll(const struct sockio *s)
{
	return s->prefer_busy_poll;
}

uint64_t
sockio_tx_dropped(const struct sockio *s)
{
	return util_relaxed_read(&s->st.tx_unroutable) +
	       util_relaxed_read(&s->st.tx_errors);
}

unsigned
sockio_mbufs_in_use(const struct sockio *s)
{
	return io_pool_in_use(&s->pool);
}

void
sockio_close(struct sockio *s)
{
	if (s == NULL)
		return;
	for (unsigned i = 0; i < SOCKIO_MAX_SOCKETS; i++)
		if (s->socks[i].fd >= 0)
			close(s->socks[i].fd);
	io_pool_fini(&s->pool);
	free(s);
}
