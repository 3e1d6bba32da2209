/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_CAPTURE_H
#define LATPROBE_CAPTURE_H

/*
 * --pcap FILE: every probe and answer as pcapng (DPDK's rte_pcapng), with
 * TSC timestamps. Copies are taken outside the measured section (before T1,
 * after T4) into a per-worker batch that is written when full, so the file
 * I/O never sits between a probe's T1 and T4.
 */

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;
struct capture;

/*
 * On fd (opened for writing before anything was sent; owned from here on,
 * closed on failure too), path for messages. NULL (message in err).
 */
struct capture *capture_open(int fd, const char *path, uint16_t port_id,
			     unsigned n_workers, char *err, unsigned err_len);
void capture_packet(void *arg, unsigned worker, const struct rte_mbuf *m,
		    uint64_t tsc, bool tx);
/* Flush every batch, close; returns packets written or -errno. */
int64_t capture_close(struct capture *c, uint64_t *dropped);

#endif /* LATPROBE_CAPTURE_H */
