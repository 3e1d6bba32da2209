/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_EAL_DEVS_H
#define LATPROBE_EAL_DEVS_H

/*
 * After app_eal_init(): every device the EAL options (argc/argv, as given
 * to it) ask for with -a/--allow, -w or --vdev has a DPDK port. EXIT_OK,
 * or EXIT_SETUP with one error line per device that has none: the device
 * as given, why (EAL's own line from app_log_captured(), or sysfs: no
 * such PCI device, bound to a kernel driver) and the fix.
 */
int app_eal_devices_check(int argc, char **argv);

#endif /* LATPROBE_EAL_DEVS_H */
