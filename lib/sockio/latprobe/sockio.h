/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_SOCKIO_H
#define LATPROBE_SOCKIO_H

/*
 * Kernel-socket backend of the io table: the prober and reflector engines
 * run unchanged on UDP sockets instead of a DPDK port, without EAL.
 *
 * tx: each frame the engine built is parsed; its UDP payload is sent with
 * sendmsg() on the queue's socket whose local port is the frame's UDP
 * source port, to the frame's IPv4 destination address and port. The
 * frame's TTL and TOS go out as IP_TTL / IP_TOS control messages when they
 * differ from the socket's (64 / 0), so a STAMP reflector's TTL 255 (RFC
 * 8762 §4.3) reaches the wire. A socket bound to INADDR_ANY sends from the
 * frame's source address (IP_PKTINFO), i.e. the address the request came to.
 * Frames that are not IPv4/UDP, are fragments, or match no socket are
 * counted (tx_unroutable) and freed; tx_burst always takes all n.
 *
 * A frame whose TTL and TOS are the socket's, going to a connected
 * socket's peer, goes out with a plain send(); our own frames are read at
 * fixed offsets (anything else takes codec_parse_frame()).
 *
 * rx: one recvfrom() (recvmsg() where control messages are read) per call
 * while datagrams come one at a time, recvmmsg() batches once two reads in
 * a row brought one each (a backlog), straight into mbufs at the payload
 * offset. The Ethernet/IPv4/UDP headers are then written in front of each
 * datagram: source = the sender, destination = the address the datagram
 * was sent to (IP_PKTINFO; a prober's connected socket: its own address,
 * the only one the kernel delivers to it) and the socket's port,
 * destination MAC = my_mac, source MAC = 02:00:<sender IPv4> (locally
 * administered), TTL and TOS as received (IP_RECVTTL/IP_RECVTOS) on a
 * reflector's sockets, 64 and 0 on a prober's (not asked: nothing reads
 * them there, and control messages cost every receive). The kernel has
 * verified both checksums before handing a datagram over, so the frame
 * says so as a NIC would (RTE_MBUF_F_RX_IP_CKSUM_GOOD and _L4_CKSUM_GOOD):
 * the IPv4 header checksum is set, the UDP checksum is 0 (none) except on
 * a reflector's IPv6 sockets, where it is computed (the reflector drops a
 * zero one, RFC 8200 8.1).
 *
 * Buffers: hand-made single-segment mbufs (no mempool), data_off 0, each
 * large enough for the Ethernet/IPv4/UDP headers (42 bytes) plus the largest
 * accepted UDP payload (opts.max_datagram). An mbuf's lengths are 16 bits,
 * so the largest payload a frame can carry is 65535 - 42 = 65493 bytes
 * (SOCKIO_MAX_DATAGRAM); bigger datagrams (up to IPv4's 65507) arrive
 * truncated, and are counted (rx_truncated) and dropped.
 *
 * Errors: a send or receive that fails with ECONNREFUSED, EHOSTUNREACH or
 * ENETUNREACH (the kernel's word for an ICMP destination unreachable; a
 * prober socket sets IP_RECVERR and reads the exact type and code from the
 * error queue) is counted (unreachable) and the next rx_burst hands the
 * engine an ICMP destination unreachable frame from the peer quoting the
 * IPv4 + UDP headers of the last frame sent, as the wire would have: the
 * prober engine counts it like one a DPDK port received.
 *
 * Clock: the TSC (tsc_read_start / tsc_read_end / tsc_read).
 *
 * One sockio is one io_queue, used by one thread at a time.
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/codec.h"
#include "latprobe/io.h"

#define SOCKIO_MAX_SOCKETS  8
#define SOCKIO_HDR_LEN	    42 /* Ethernet + IPv4 + UDP, no VLAN */
#define SOCKIO_HDR6_LEN	    62 /* Ethernet + IPv6 + UDP */
#define SOCKIO_MAX_DATAGRAM (65535 - SOCKIO_HDR_LEN)

struct sockio_opts {
	/*
	 * true (default): rx_burst spins on MSG_DONTWAIT, the engine's loop
	 * is the busy poll. false: rx_burst blocks for at most 1 ms
	 * (SO_RCVTIMEO on a single socket, poll() over several).
	 */
	bool busy_poll;
	/*
	 * 0 = leave the socket's SO_BUSY_POLL and SO_PREFER_BUSY_POLL alone;
	 * else set SO_BUSY_POLL (us; refused: the open fails, EPERM without
	 * CAP_NET_ADMIN above net.core.busy_read) and try SO_PREFER_BUSY_POLL
	 * (refused: quietly left off, see sockio_prefer_busy_poll()).
	 */
	int so_busy_poll_us;
	/* mbufs in the queue's pool; 0 = 64. */
	unsigned n_mbufs;
	/* Largest UDP payload received whole, bytes; 0 = SOCKIO_MAX_DATAGRAM.
	 */
	unsigned max_datagram;
};

/* The defaults above (busy_poll true, the rest 0). */
void sockio_opts_default(struct sockio_opts *o);

struct sockio;

/*
 * One UDP socket bound to local_addr:sport (host order; 0 = any address,
 * sport 0 = an ephemeral port: read it back with sockio_local_port) and
 * connect()ed to dst_addr:dport, so ICMP errors surface and the kernel
 * picks the source address (sockio_local_addr). o may be NULL (defaults).
 * NULL with errno (EADDRINUSE, EACCES, EINVAL, ENOMEM, ...).
 */
struct sockio *sockio_open_prober(uint32_t local_addr, uint16_t sport,
				  uint32_t dst_addr, uint16_t dport,
				  const struct codec_mac *my_mac,
				  const struct sockio_opts *o);

/*
 * One UDP socket per non-zero port of ports[] (zero and repeated ports are
 * skipped; at most SOCKIO_MAX_SOCKETS), each bound to local_addr:port. With
 * local_addr 0 the frames carry the address each datagram was sent to, so
 * the reflector engine's address must be that one. NULL with errno
 * (EADDRINUSE, EACCES for ports below 1024 without privilege, EINVAL when
 * no port is left or too many, ...).
 */
struct sockio *sockio_open_reflector(uint32_t local_addr, const uint16_t *ports,
				     unsigned n_ports,
				     const struct codec_mac *my_mac,
				     const struct sockio_opts *o);

/*
 * The same over IPv6 (AF_INET6 sockets, IPV6_V6ONLY): local6 NULL or ::
 * binds to any; frames are Ethernet/IPv6/UDP (hop limit, traffic class and
 * destination from IPV6_RECVHOPLIMIT/IPV6_RECVTCLASS/IPV6_RECVPKTINFO, and
 * sent with IPV6_HOPLIMIT/IPV6_TCLASS/IPV6_PKTINFO). The largest payload is
 * 20 bytes less than over IPv4 (65535 - SOCKIO_HDR6_LEN). ICMPv6 errors are
 * counted (tx_errors) but not handed to the engine as frames.
 */
struct sockio *sockio_open_prober6(const uint8_t local6[16], uint16_t sport,
				   const uint8_t dst6[16], uint16_t dport,
				   const struct codec_mac *my_mac,
				   const struct sockio_opts *o);
struct sockio *sockio_open_reflector6(const uint8_t local6[16],
				      const uint16_t *ports, unsigned n_ports,
				      const struct codec_mac *my_mac,
				      const struct sockio_opts *o);
/* Socket i's local IPv6 address (:: when i is out of range). */
void sockio_local_addr6(const struct sockio *s, unsigned i, uint8_t out[16]);

struct io_queue *sockio_queue(struct sockio *s);

/* Sockets of s, and socket i's local port / address (host order; 0 when i
 * is out of range). */
unsigned sockio_n_sockets(const struct sockio *s);
uint16_t sockio_local_port(const struct sockio *s, unsigned i);
uint32_t sockio_local_addr(const struct sockio *s, unsigned i);

/* Counters: single writer (the queue's thread), read relaxed. */
struct sockio_stats {
	uint64_t tx_sent;	/* datagrams the kernel took */
	uint64_t tx_unroutable; /* not IPv4/UDP, a fragment, or no socket */
	uint64_t tx_errors;	/* sendmsg failed (ECONNREFUSED, EMSGSIZE..) */
	uint64_t rx_received;	/* frames handed to the engine */
	uint64_t rx_truncated;	/* datagram larger than max_datagram */
	uint64_t rx_errors;	/* recvmmsg failed other than EAGAIN */
	uint64_t rx_nombuf;	/* rx_burst found the pool empty */
	uint64_t unreachable;	/* destination-unreachable errors (ICMP or
				   local), handed on as ICMP frames */
};

void sockio_stats_get(const struct sockio *s, struct sockio_stats *out);

/* Did the kernel take SO_PREFER_BUSY_POLL (opts.so_busy_poll_us set)? */
bool sockio_prefer_busy_poll(const struct sockio *s);

/* Frames tx_burst took but did not send: tx_unroutable + tx_errors. */
uint64_t sockio_tx_dropped(const struct sockio *s);

/* mbufs currently out of the pool (held by the engine). */
unsigned sockio_mbufs_in_use(const struct sockio *s);

/* Closes the sockets and frees the pool; s may be NULL. */
void sockio_close(struct sockio *s);

#endif /* LATPROBE_SOCKIO_H */
