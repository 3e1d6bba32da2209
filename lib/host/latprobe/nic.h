/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_NIC_H
#define LATPROBE_NIC_H

/* Kernel NICs under a root directory ("/" or a fixture tree). */

#include <stdbool.h>
#include <stddef.h>

/* A kernel interface with a bus device (sys/class/net/NAME/device). */
struct host_iface {
	char name[32];
	char device[64]; /* PCI address or VMBus UUID */
	char bus[16];	 /* "pci", "vmbus", ... ("" unknown) */
	char driver[32]; /* its device's driver ("" none) */
	char mac[24];
	long flags; /* sys/class/net/NAME/flags, -1 unknown; 0x1 = up */
	unsigned vendor, device_id; /* PCI only */
};

/* The interfaces with a device, sorted by name, up to max; how many. */
unsigned host_nic_ifaces(const char *root, struct host_iface *out,
			 unsigned max);

/* root + "/" + rel into out. 0 or -ENAMETOOLONG. */
int host_nic_path(char *out, size_t len, const char *root, const char *rel);
bool host_nic_exists(const char *root, const char *rel);
/* The last part of the symlink root/rel. 0 or -errno. */
int host_nic_link_base(const char *root, const char *rel, char *out,
		       size_t len);

#endif /* LATPROBE_NIC_H */
