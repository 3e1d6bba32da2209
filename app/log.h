/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_LOG_H
#define LATPROBE_LOG_H

/*
 * Before rte_eal_init(): DPDK's log types start at NOTICE (EAL's own
 * --log-level options, applied during init, still override it), and
 * libbpf's and libxdp's messages go through DPDK's log as type
 * "latprobe.bpf": warnings at WARNING, except the ones a user cannot act
 * on (docs/usage.md, "Logging"), which go at INFO with the rest.
 */
void app_log_init(void);

#endif /* LATPROBE_LOG_H */
