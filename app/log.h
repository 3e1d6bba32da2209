/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_LOG_H
#define LATPROBE_LOG_H

#include <stdbool.h>

/*
 * Before rte_eal_init(): DPDK's log types start at NOTICE (EAL's own
 * --log-level options, applied during init, still override it), and
 * libbpf's and libxdp's messages go through DPDK's log as type
 * "latprobe.bpf": warnings at WARNING, except the ones a user cannot act
 * on (docs/usage.md, "Logging"), which go at INFO with the rest.
 */
void app_log_init(void);

/*
 * Keep a copy of DPDK's log lines from now on (on: the copy starts empty)
 * or stop; app_log_captured() is the copy, one string (16 KiB at most).
 * app_eal_init() captures EAL's lines while it starts and probes devices.
 */
void app_log_capture(bool on);
const char *app_log_captured(void);

#endif /* LATPROBE_LOG_H */
