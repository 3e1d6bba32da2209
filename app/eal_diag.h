/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_EAL_DIAG_H
#define LATPROBE_EAL_DIAG_H

#include <stdbool.h>
#include <stddef.h>

/* src into dst (len bytes, len > 0), cut to fit; eal_devs.c's too. */
void eal_diag_copy(char *dst, size_t len, const char *src);

/* The fix for a PCI device DPDK cannot use as it is bound. */
extern const char eal_diag_bind_fix[];

/*
 * The line of log (EAL's lines, newline-separated) that says best why
 * device name (0000:01:00.0, net_af_xdp0) did not come up: the one with
 * the most telling known cause (an IOMMU vfio cannot use, PCI BAR access,
 * "cannot be used", "failed to initialize") among those naming the device
 * and, with anon_ok (a PCI device), those whose cause names no device;
 * else a line naming the device. Into said (len bytes, leading blanks
 * off), its fix in *fix (NULL: none known). 2: the line names the device,
 * 1: an anonymous cause, 0: no line (said "").
 */
int eal_diag_reason(const char *log, const char *name, bool anon_ok, char *said,
		    size_t len, const char **fix);

#endif /* LATPROBE_EAL_DIAG_H */
