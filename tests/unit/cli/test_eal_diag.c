/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/eal_diag.c: the EAL line that says why a device did not come up,
 * picked from what EAL logs in the cases met on real PCI devices
 * (vfio without a usable IOMMU, a virtio BAR it cannot write, a device
 * "cannot be used") and a vdev whose PMD failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eal_diag.h"

static void
check(const char *log, const char *name, bool anon_ok, int want,
      const char *want_said, const char *fix_has)
{
	char said[400];
	const char *fix = (const char *)1;

	assert_int_equal(
		eal_diag_reason(log, name, anon_ok, said, sizeof(said), &fix),
		want);
	assert_string_equal(said, want_said);
	if (fix_has == NULL)
		assert_null(fix);
	else
		assert_non_null(strstr(fix, fix_has));
}

static void
test_iommu(void **state)
{
	(void)state;
	check("EAL: Probe PCI driver: net_virtio (1af4:1041) device: "
	      "0000:01:00.0 (socket -1)\n"
	      "EAL:   0000:01:00.0 failed to select IOMMU type\n"
	      "EAL: Requested device 0000:01:00.0 cannot be used\n",
	      "0000:01:00.0", true, 2,
	      "EAL:   0000:01:00.0 failed to select IOMMU type",
	      "interrupt remapping");
}

static void
test_pci_bar(void **state)
{
	(void)state;
	/* The BAR line names no device: taken for a PCI device only. */
	check("EAL: Can't write to PCI bar (0) : offset (12)\n"
	      "EAL: Requested device 0000:01:00.0 cannot be used\n",
	      "0000:01:00.0", true, 1,
	      "EAL: Can't write to PCI bar (0) : offset (12)", "noiommu");
	check("EAL: Can't write to PCI bar (0) : offset (12)\n", "net_af_xdp0",
	      false, 0, "", NULL);
}

static void
test_cannot_be_used(void **state)
{
	(void)state;
	check("EAL: Requested device 0000:02:00.0 cannot be used\n"
	      "EAL: Requested device 0000:01:00.0 cannot be used\n",
	      "0000:01:00.0", true, 2,
	      "EAL: Requested device 0000:01:00.0 cannot be used", "vfio-pci");
	/* Another device's line is not this one's. */
	check("EAL: Requested device 0000:02:00.0 cannot be used\n",
	      "0000:01:00.0", true, 0, "", NULL);
}

static void
test_vdev(void **state)
{
	(void)state;
	check("rte_pmd_af_packet_probe(): net_af_packet0: no interface "
	      "specified\n"
	      "vdev_probe(): failed to initialize net_af_packet0 device\n"
	      "EAL: Bus (vdev) probe failed.\n",
	      "net_af_packet0", false, 2,
	      "vdev_probe(): failed to initialize net_af_packet0 device", NULL);
	check("", "net_af_packet0", false, 0, "", NULL);
	check(NULL, "net_af_packet0", false, 0, "", NULL);
}

/* A line without its newline, longer than the line buffer: cut. */
static void
test_long_line(void **state)
{
	char log[1200], said[400];
	const char *fix;

	(void)state;
	memset(log, 'x', sizeof(log) - 1);
	log[sizeof(log) - 1] = '\0';
	memcpy(log, "net_ring0 ", 10);
	assert_int_equal(eal_diag_reason(log, "net_ring0", false, said,
					 sizeof(said), &fix),
			 2);
	assert_int_equal(strlen(said), sizeof(said) - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iommu),
		cmocka_unit_test(test_pci_bar),
		cmocka_unit_test(test_cannot_be_used),
		cmocka_unit_test(test_vdev),
		cmocka_unit_test(test_long_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
