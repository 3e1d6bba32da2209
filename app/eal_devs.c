/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After rte_eal_init(): every device the EAL options ask for (-a/--allow,
 * -w, --vdev) came up as a DPDK port, or the run stops with exit 4 naming
 * the device, why it did not (EAL's own line, captured while it probed,
 * or what sysfs says) and what to do. EAL itself goes on without a device
 * it could not use, and the user was left with "no DPDK ports".
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_pci.h>
#include <rte_version.h>

#include "eal_devs.h"
#include "eal_diag.h"
#include "exit.h"
#include "log.h"
#include "msg.h"

/* The device name of an EAL device argument (up to its first comma, without
 * a bus: prefix), a PCI address in its full form (0000:01:00.0); *is_pci
 * says which. 0, or -1 when it names no device we can look for. */
static int
eal_dev_name(const char *arg, char *name, size_t len, int *is_pci)
{
	static const char *const buses[] = {
		"pci:", "vdev:", "vmbus:", "auxiliary:"};
	struct rte_pci_addr a;
	char tmp[RTE_DEV_NAME_MAX_LEN];
	size_t n;

	/* The layered syntax (bus=pci,addr=...; class=eth,mac=...) names
	 * no device by itself: not checked. */
	if (strncmp(arg, "bus=", 4) == 0 || strncmp(arg, "class=", 6) == 0)
		return -1;
	/* The legacy bus:device form (pci:0000:01:00.0). */
	for (unsigned k = 0; k < sizeof(buses) / sizeof(buses[0]); k++)
		if (strncmp(arg, buses[k], strlen(buses[k])) == 0)
			arg += strlen(buses[k]);
	n = strcspn(arg, ",");
	if (n == 0 || n >= sizeof(tmp) || n >= len)
		return -1;
	memcpy(tmp, arg, n);
	tmp[n] = '\0';
	*is_pci = rte_pci_addr_parse(tmp, &a) == 0;
	if (*is_pci)
		snprintf(name, len, PCI_PRI_FMT, a.domain, a.bus, a.devid,
			 a.function);
	else
		eal_diag_copy(name, len, tmp);
	return 0;
}

/* The device the option at argv[*i] asks for (its value), or NULL; *i moves
 * past a separate value. *opt: the option as given. */
static const char *
dev_arg(int argc, char **argv, int *i, const char **opt)
{
	static const char *const opts[] = {"-a", "--allow", "-w", "--vdev"};
	const char *s = argv[*i];

	for (unsigned k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		size_t n = strlen(opts[k]);

		if (strncmp(s, opts[k], n) != 0)
			continue;
		*opt = opts[k];
		if (s[n] == '\0')
			return *i + 1 < argc ? argv[++*i] : NULL;
		/* -aADDR; --allow=ADDR, --vdev=DEV */
		if (opts[k][1] != '-')
			return s + n;
		if (s[n] == '=')
			return s + n + 1;
	}
	return NULL;
}

/* Is there a port (of any owner) whose device is name? */
static bool
has_port(const char *name, int is_pci)
{
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		struct rte_eth_dev_info info;
		char dn[RTE_DEV_NAME_MAX_LEN];
		int dpci;

		if (!rte_eth_dev_is_valid_port(pid) ||
		    rte_eth_dev_info_get(pid, &info) != 0 ||
		    info.device == NULL)
			continue;
		/* rte_device is opaque from 22.11 on: its accessors. */
		if (eal_dev_name(rte_dev_name(info.device), dn, sizeof(dn),
				 &dpci) == 0 &&
		    dpci == is_pci && strcmp(dn, name) == 0)
			return true;
	}
	return false;
}

/* The kernel driver a PCI device is bound to, "" for none; -1: no such
 * device. */
static int
pci_driver(const char *name, char *drv, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	drv[0] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", name);
	if (access(path, F_OK) != 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		const char *b;

		link[n] = '\0';
		b = strrchr(link, '/');
		eal_diag_copy(drv, len, b != NULL ? b + 1 : link);
	}
	return 0;
}

/* The PCI class of the last pci_is_net() (0x020000: Ethernet). */
static char pci_class[16] = "unknown";

/* Is the PCI device a network controller (class 0x02)? true if unknown. */
static bool
pci_is_net(const char *name)
{
	char path[PATH_MAX];
	FILE *f;
	bool net = true;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", name);
	f = fopen(path, "r");
	if (f == NULL)
		return true;
	if (fgets(pci_class, sizeof(pci_class), f) != NULL) {
		pci_class[strcspn(pci_class, "\n")] = '\0';
		net = strncmp(pci_class, "0x02", 4) == 0;
	}
	fclose(f);
	return net;
}

static bool
dpdk_kdrv(const char *drv)
{
	return strcmp(drv, "vfio-pci") == 0 ||
	       strcmp(drv, "uio_pci_generic") == 0 ||
	       strcmp(drv, "igb_uio") == 0 ||
	       strcmp(drv, "uio_hv_generic") == 0;
}

/* One device without a port: the error line. */
static void
dev_failed(const char *opt, const char *arg, const char *name, int is_pci)
{
	char said[400], drv[64] = "";
	const char *fix = NULL;
	int found = eal_diag_reason(app_log_captured(), name, is_pci, said,
				    sizeof(said), &fix);

	if (is_pci && pci_driver(name, drv, sizeof(drv)) != 0) {
		app_err("%s %s: no such PCI device on this machine ('lspci -D' "
			"lists them)",
			opt, arg);
		return;
	}
	if (found == 2 ||
	    (found == 1 && (!is_pci || drv[0] == '\0' || dpdk_kdrv(drv)))) {
		app_err("%s %s: the device did not come up as a DPDK port: EAL "
			"says \"%s\"%s%s",
			opt, arg, said, fix != NULL ? "; " : "",
			fix != NULL ? fix : "");
		return;
	}
	if (is_pci && !pci_is_net(name)) {
		app_err("%s %s: the device did not come up as a DPDK port: it "
			"is not a network device (PCI class %s)",
			opt, arg, pci_class);
		return;
	}
	if (is_pci && drv[0] != '\0' && !dpdk_kdrv(drv)) {
		app_err("%s %s: the device did not come up as a DPDK port: it "
			"is bound to the kernel's %s driver, which DPDK cannot "
			"use; %s",
			opt, arg, drv, eal_diag_bind_fix);
		return;
	}
	if (is_pci && drv[0] == '\0') {
		app_err("%s %s: the device did not come up as a DPDK port: no "
			"DPDK driver took it and it is bound to no kernel "
			"driver; %s",
			opt, arg, eal_diag_bind_fix);
		return;
	}
	app_err("%s %s: the device did not come up as a DPDK port: no DPDK "
		"driver took it%s%s (--log-level=lib.eal:debug says more)",
		opt, arg, is_pci ? ", bound to " : "", is_pci ? drv : "");
}

int
app_eal_devices_check(int argc, char **argv)
{
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		const char *opt = NULL;
		const char *arg = dev_arg(argc, argv, &i, &opt);
		char name[RTE_DEV_NAME_MAX_LEN];
		int is_pci;

		if (arg == NULL ||
		    eal_dev_name(arg, name, sizeof(name), &is_pci) != 0)
			continue;
		/* vdev_netvsc (legacy Azure set-up) makes a failsafe port
		 * under another name, and none of its own. */
		if (strncmp(name, "net_vdev_netvsc", 15) == 0 ||
		    has_port(name, is_pci))
			continue;
		dev_failed(opt, arg, name, is_pci);
		failed++;
	}
	return failed == 0 ? EXIT_OK : EXIT_SETUP;
}
