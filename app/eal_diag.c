/* SPDX-License-Identifier: BSD-3-Clause */
/* Which of EAL's log lines says why a device did not come up (eal_devs.c);
 * plain strings, unit-tested without EAL (tests/unit/cli). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "eal_diag.h"

void
eal_diag_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* What EAL and the PMDs say when a device cannot be used, most telling
 * first; each with the fix. */
static const char vfio_fix[] =
	"vfio-pci needs an IOMMU with interrupt remapping (intel_iommu=on "
	"iommu=pt on the kernel command line, a VM with a vIOMMU), or vfio's "
	"noiommu mode (modprobe vfio enable_unsafe_noiommu_mode=1); on Azure "
	"use the netvsc PMD with uio_hv_generic instead ('latprobe setup' "
	"does it)";
const char eal_diag_bind_fix[] =
	"bind it to vfio-pci (dpdk-devbind.py -b vfio-pci ADDR, or "
	"'latprobe setup'); on Azure use the netvsc PMD with uio_hv_generic";

/*
 * Most telling first: the cause before its consequence ("Requested device
 * ... cannot be used" follows the line that says why). anon: the line
 * names no device (EAL's PCI BAR access, vfio's group and container
 * lines), taken for a PCI device when anon_ok.
 */
static const struct {
	const char *said, *fix;
	bool anon;
} causes[] = {
	{"failed to select IOMMU type", vfio_fix, false},
	{"IOMMU", vfio_fix, true},
	{"VFIO", vfio_fix, true},
	{"vfio", vfio_fix, true},
	{"Can't write to PCI bar", vfio_fix, true},
	{"Can't read from PCI bar", vfio_fix, true},
	{"No such device", NULL, false},
	{"cannot be used", eal_diag_bind_fix, false},
	{"failed to initialize", NULL, false},
};

int
eal_diag_reason(const char *log, const char *name, bool anon_ok, char *said,
		size_t len, const char **fix)
{
	const unsigned n_causes = sizeof(causes) / sizeof(causes[0]);
	unsigned best = 0;
	bool best_names = false;

	said[0] = '\0';
	*fix = NULL;
	for (const char *l = log; l != NULL && *l != '\0';) {
		const char *e = strchr(l, '\n');
		size_t n = e != NULL ? (size_t)(e - l) : strlen(l);
		const char *f = NULL;
		char line[512];
		unsigned rank = 0;
		bool anon = false, names;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, l, n);
		line[n] = '\0';
		l = e != NULL ? e + 1 : NULL;
		for (unsigned k = 0; k < n_causes; k++) {
			if (strstr(line, causes[k].said) != NULL) {
				rank = (n_causes - k) * 2;
				f = causes[k].fix;
				anon = causes[k].anon;
				break;
			}
		}
		/* Naming the device breaks a tie; a line of another device's
		 * (a cause that names one) is not about this one. */
		names = strstr(line, name) != NULL;
		if (names)
			rank++;
		else if (!anon || !anon_ok)
			rank = 0;
		if (rank > best) {
			best = rank;
			best_names = names;
			eal_diag_copy(said, len, line + strspn(line, " \t"));
			*fix = f;
		}
	}
	return best == 0 ? 0 : best_names ? 2 : 1;
}
