/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_DOCTOR_H
#define LATPROBE_DOCTOR_H

#include <stdint.h>

#include "latprobe/host.h"

struct rte_mempool;
struct app_clock;

/*
 * A DPDK port as the host checks see it: its name, kernel interface and bus
 * device (for /proc/interrupts), NUMA node, and the node of pool's memory
 * (pool NULL: a small pool is made on the port's socket, looked at, freed).
 */
void doctor_port_nic(uint16_t port_id, struct rte_mempool *pool,
		     struct host_nic *nic);

/* The TSC facts of clk into in. */
void doctor_clock_input(struct host_input *in, const struct app_clock *clk);

/*
 * The quick checks (no 1 s sample) for a run's start: one line on stderr,
 * "latprobe CMD: doctor: ...". port_id < 0: no DPDK port (kernel backend).
 */
void doctor_brief(const char *cmd, const struct host_cpus *lcores,
		  const struct app_clock *clk, int port_id,
		  struct rte_mempool *pool);

int cmd_doctor(int argc, char **argv);

#endif /* LATPROBE_DOCTOR_H */
