/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe doctor's clock checks (lib/host/clock.c) on trees made here: an
 * Azure VM with chrony on /dev/ptp_hyperv, one whose chrony ignores it, a
 * PHC found by its clock_name and named in conf.d, ntpd in charge, and a
 * machine like this one (no daemon, STA_UNSYNC).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "latprobe/host_clock.h"

static char root[64];

/* root/rel with its directories, holding text. */
static void
put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/lp-hostclock.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static const struct host_clock_input phc_synced = {
	.kernel_read = true,
	.kernel_synced = true,
	.kernel_esterror_ns = 1000,
	.kernel_maxerror_ns = 1500000,
	.chrony = true,
	.chrony_synced = true,
	.chrony_phc = true,
	.chrony_stratum = 1,
	.chrony_ref = "PHC0",
	.chrony_bound_ns = 2121,
};

static void
test_azure_phc(void **state)
{
	struct host_result r[HOST_N_CLOCK_CHECKS];

	(void)state;
	put("sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n");
	put("dev/ptp_hyperv", "");
	put("proc/412/comm", "chronyd\n");
	put("proc/1/comm", "systemd\n");
	put("etc/chrony/chrony.conf",
	    "# Azure\npool 2.debian.pool.ntp.org iburst\n"
	    "refclock PHC /dev/ptp_hyperv poll 3 dpoll -2 offset 0\n");
	assert_int_equal(host_clock_checks(root, &phc_synced, r),
			 HOST_N_CLOCK_CHECKS);
	assert_string_equal(r[0].name, "clock_sync");
	assert_int_equal(r[0].verdict, HOST_OK);
	assert_non_null(strstr(r[0].value, "synchronised by chrony "
					   "(reference PHC0, stratum 1)"));
	assert_non_null(strstr(r[0].value, "running: chronyd"));
	assert_string_equal(r[1].name, "clock_error");
	assert_int_equal(r[1].verdict, HOST_OK);
	assert_non_null(strstr(r[1].value, "chrony's bound 2121 ns"));
	assert_string_equal(r[2].name, "clock_ptp");
	assert_int_equal(r[2].verdict, HOST_OK);
	assert_non_null(strstr(r[2].value, "/dev/ptp_hyperv"));
	assert_non_null(strstr(r[2].value, "is chrony's refclock"));
	assert_string_equal(r[2].fix, "");
}

/* chrony on NTP only (the refclock line commented out): the PHC unused,
 * an 8 ms bound. */
static void
test_azure_ntp_only(void **state)
{
	struct host_clock_input in = phc_synced;
	struct host_result r[HOST_N_CLOCK_CHECKS];

	(void)state;
	put("sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n");
	put("dev/ptp_hyperv", "");
	put("proc/412/comm", "chronyd\n");
	put("etc/chrony/chrony.conf",
	    "pool 2.debian.pool.ntp.org iburst\n"
	    "#refclock PHC /dev/ptp_hyperv poll 3 dpoll -2 offset 0\n");
	in.chrony_phc = false;
	in.chrony_stratum = 3;
	snprintf(in.chrony_ref, sizeof(in.chrony_ref), "198.18.0.53");
	in.chrony_bound_ns = 8000000;
	host_clock_checks(root, &in, r);
	assert_int_equal(r[0].verdict, HOST_OK);
	assert_int_equal(r[1].verdict, HOST_WARN);
	assert_non_null(strstr(r[1].value, "8.0 ms"));
	assert_non_null(strstr(r[1].fix, "refclock PHC /dev/ptp_hyperv"));
	assert_int_equal(r[2].verdict, HOST_WARN);
	assert_non_null(strstr(r[2].value, "chrony does not use it"));
	assert_non_null(strstr(r[2].fix, "refclock PHC /dev/ptp_hyperv poll 3 "
					 "dpoll -2 offset 0"));
}

/* No /dev/ptp_hyperv link, but ptp1 is the Hyper-V clock and conf.d
 * names /dev/ptp1. */
static void
test_phc_by_name(void **state)
{
	struct host_clock_input in = phc_synced;
	struct host_result r[HOST_N_CLOCK_CHECKS];

	(void)state;
	put("sys/class/ptp/ptp0/clock_name", "mlx5_ptp\n");
	put("sys/class/ptp/ptp1/clock_name", "hyperv\n");
	put("etc/chrony/conf.d/azure.conf",
	    "  refclock PHC /dev/ptp1 poll 3 dpoll -2 offset 0\n");
	in.chrony_phc = false; /* chronyc not asked about it */
	host_clock_checks(root, &in, r);
	assert_int_equal(r[2].verdict, HOST_OK);
	assert_non_null(strstr(r[2].value, "/dev/ptp1"));
}

/* ntpd keeps the kernel synchronised; no chrony. */
static void
test_ntpd(void **state)
{
	struct host_clock_input in = {
		.kernel_read = true,
		.kernel_synced = true,
		.kernel_esterror_ns = 5000,
		.kernel_maxerror_ns = 250000,
	};
	struct host_result r[HOST_N_CLOCK_CHECKS];

	(void)state;
	put("proc/77/comm", "ntpd\n");
	host_clock_checks(root, &in, r);
	assert_int_equal(r[0].verdict, HOST_OK);
	assert_non_null(strstr(r[0].value, "adjtimex: no STA_UNSYNC"));
	assert_non_null(strstr(r[0].value, "running: ntpd"));
	assert_int_equal(r[1].verdict, HOST_OK);
	assert_non_null(strstr(r[1].value, "kernel esterror 5000 ns"));
	assert_int_equal(r[2].verdict, HOST_OK);
	assert_non_null(strstr(r[2].value, "not a Hyper-V"));
}

/* systemd-timesyncd: synchronised, esterror 0: the error is unknown, not
 * zero, and doctor warns. */
static void
test_timesyncd_zero(void **state)
{
	struct host_clock_input in = {
		.kernel_read = true,
		.kernel_synced = true,
		.kernel_esterror_ns = 0,
		.kernel_maxerror_ns = 0,
	};
	struct host_result r[HOST_N_CLOCK_CHECKS];

	(void)state;
	put("proc/78/comm", "systemd-timesyn\n");
	host_clock_checks(root, &in, r);
	assert_int_equal(r[0].verdict, HOST_OK);
	assert_int_equal(r[1].verdict, HOST_WARN);
	assert_non_null(strstr(r[1].value, "unknown: kernel esterror 0"));
}

/* This machine: no daemon, STA_UNSYNC, 16 s maxerror. */
static void
test_unsync(void **state)
{
	struct host_clock_input in = {
		.kernel_read = true,
		.kernel_synced = false,
		.kernel_status = 0x40,
		.kernel_esterror_ns = 16000000000ull,
		.kernel_maxerror_ns = 16000000000ull,
	};
	struct host_result r[HOST_N_CLOCK_CHECKS];

	(void)state;
	put("proc/1/comm", "bash\n");
	host_clock_checks(root, &in, r);
	assert_int_equal(r[0].verdict, HOST_WARN);
	assert_non_null(strstr(r[0].value, "not synchronised (adjtimex"));
	assert_non_null(strstr(r[0].value, "no time daemon"));
	assert_non_null(strstr(r[0].fix, "apt-get install chrony"));
	assert_int_equal(r[1].verdict, HOST_WARN);
	assert_non_null(strstr(r[1].value, "16.0 s"));
	/* The same on a Hyper-V VM: the fix is Azure's. */
	put("sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n");
	host_clock_checks(root, &in, r);
	assert_non_null(strstr(r[0].fix, "/dev/ptp_hyperv"));
	assert_int_equal(r[2].verdict, HOST_WARN);
	assert_non_null(strstr(r[2].value, "without /dev/ptp_hyperv"));
	/* chrony answers but is not synchronised: its word counts. */
	in.kernel_synced = true;
	in.chrony = true;
	in.chrony_synced = false;
	host_clock_checks(root, &in, r);
	assert_int_equal(r[0].verdict, HOST_WARN);
	assert_non_null(strstr(r[0].value, "chrony says so"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_azure_phc, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_azure_ntp_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_phc_by_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ntpd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timesyncd_zero, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unsync, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
