/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HOST_CLOCK_H
#define LATPROBE_HOST_CLOCK_H

/*
 * latprobe doctor's clock checks: is this host's clock
 * synchronised, by what (chronyd, ntpd, systemd-timesyncd, ptp4l/phc2sys,
 * running: root/proc/<pid>/comm), how large is its error, and on a Hyper-V
 * / Azure VM is the host's PTP clock (/dev/ptp_hyperv, a PHC whose
 * clock_name is "hyperv") there and used by chrony (a "refclock PHC"
 * line in root/etc/chrony/chrony.conf, root/etc/chrony.conf or
 * root/etc/chrony/conf.d/<x>.conf, or chrony's reference a PHC). What only
 * a syscall or chronyc knows comes in struct host_clock_input (app/ fills
 * it: adjtimex, `chronyc -c tracking`).
 */

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/host.h"

struct host_clock_input {
	bool kernel_read, kernel_synced; /* adjtimex answered; no STA_UNSYNC */
	unsigned kernel_status;
	uint64_t kernel_esterror_ns, kernel_maxerror_ns;
	bool chrony; /* chronyc -c tracking answered: the fields below */
	bool chrony_synced, chrony_phc;
	unsigned chrony_stratum;
	char chrony_ref[64];
	uint64_t chrony_bound_ns;
};

#define HOST_N_CLOCK_CHECKS    3
/* Above this error the doctor warns (one-way delays of a few tens of us
 * would not be told apart). */
#define HOST_CLOCK_ERR_WARN_NS 100000ull

/* clock_sync, clock_error, clock_ptp into r[HOST_N_CLOCK_CHECKS]; returns
 * HOST_N_CLOCK_CHECKS. */
unsigned host_clock_checks(const char *root, const struct host_clock_input *in,
			   struct host_result *r);

#endif /* LATPROBE_HOST_CLOCK_H */
