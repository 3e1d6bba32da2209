/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_OFFLOAD_H
#define LATPROBE_OFFLOAD_H

/*
 * The checksum offloads latprobe asks a port for: of what it offers, rx
 * IPv4 header, UDP and TCP checksum verification (the engines then skip
 * their software check for a GOOD verdict, drop a BAD one, complete a
 * NONE one), and tx UDP checksum (the reflector leaves the sum of an answer
 * it would have to compute in full to the NIC). Pure: no EAL.
 */

#include <stddef.h>
#include <stdint.h>

struct port_csum {
	uint64_t rx; /* RTE_ETH_RX_OFFLOAD_*_CKSUM enabled */
	uint64_t tx; /* RTE_ETH_TX_OFFLOAD_*_CKSUM enabled */
};

/* What to enable of a port's rx_offload_capa / tx_offload_capa. */
void port_csum_pick(uint64_t rx_capa, uint64_t tx_capa, struct port_csum *c);

/*
 * The enabled rx (rx true) or tx offloads as a comma list of "ipv4",
 * "udp", "tcp" ("" for none), in buf. The string's length, as snprintf.
 */
int port_csum_names(const struct port_csum *c, int rx, char *buf, size_t cap);

#endif /* LATPROBE_OFFLOAD_H */
