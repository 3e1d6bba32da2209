/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PREFLIGHT_H
#define LATPROBE_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Before rte_eal_init(): every interface the EAL options name (iface= in a
 * --vdev) exists in this network namespace, and no other process holds
 * what a PMD would take over: an XDP program on an af_xdp interface, a
 * listening memif server socket. A PMD that fails on a taken device may
 * undo what the holder set up, so this looks and does not touch.
 * EXIT_OK, or EXIT_SETUP with its one-line error printed.
 */
int preflight_eal(int argc, char *const *argv);

/*
 * Is a UDP socket bound to addr:port (host order; a wildcard bind counts)
 * in this network namespace? The process that has it as " by pid N (COMM)"
 * in out, or "" if unknown.
 */
bool preflight_udp_holder(uint32_t addr, uint16_t port, char *out, size_t len);

#endif /* LATPROBE_PREFLIGHT_H */
