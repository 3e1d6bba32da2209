/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NICs under a root directory: PCI ids, the interfaces of a device, routes
 * (proc/net/route, ipv6_route), and the MANA checks of `latprobe doctor`.
 * Everything is read under root, so fixture trees test it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latprobe/host_priv.h"
#include "latprobe/nic.h"

int
host_nic_path(char *out, size_t len, const char *root, const char *rel)
{
	host_path_at(out, len, root, rel);
	return out[0] != '\0' ? 0 : -ENAMETOOLONG;
}

bool
host_nic_exists(const char *root, const char *rel)
{
	char p[PATH_MAX];

	host_path_at(p, sizeof(p), root, rel);
	return p[0] != '\0' && access(p, F_OK) == 0;
}

int
host_nic_link_base(const char *root, const char *rel, char *out, size_t len)
{
	char p[PATH_MAX], l[PATH_MAX];
	ssize_t n;
	const char *b;

	host_path_at(p, sizeof(p), root, rel);
	n = readlink(p, l, sizeof(l) - 1);
	if (n < 0)
		return -errno;
	l[n] = '\0';
	b = strrchr(l, '/');
	snprintf(out, len, "%s", b != NULL ? b + 1 : l);
	return 0;
}

static int
hex_file(const char *root, const char *rel, unsigned long *v)
{
	char b[64], *end;

	if (host_fs_line(root, rel, b, sizeof(b)) != 0)
		return -ENOENT;
	errno = 0;
	*v = strtoul(b, &end, 16);
	return errno != 0 || end == b || *end != '\0' ? -EINVAL : 0;
}

int
host_pci_id(const char *root, const char *bdf, unsigned *vendor,
	    unsigned *device)
{
	char rel[128];
	unsigned long v, d;

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%.40s/vendor", bdf);
	if (hex_file(root, rel, &v) != 0)
		return -ENOENT;
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%.40s/device", bdf);
	if (hex_file(root, rel, &d) != 0)
		return -ENOENT;
	*vendor = (unsigned)v;
	*device = (unsigned)d;
	return 0;
}

unsigned
host_mana_devices(const char *root, char (*bdf)[32], unsigned max)
{
	char p[PATH_MAX];
	struct dirent **e;
	unsigned n = 0;
	int k;

	host_path_at(p, sizeof(p), root, "sys/bus/pci/devices");
	k = scandir(p, &e, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		unsigned v, d;

		if (e[i]->d_name[0] != '.' &&
		    host_pci_id(root, e[i]->d_name, &v, &d) == 0 &&
		    v == HOST_MANA_VENDOR && d == HOST_MANA_DEVICE) {
			if (n < max)
				snprintf(bdf[n], 32, "%.31s", e[i]->d_name);
			n++;
		}
		free(e[i]);
	}
	if (k >= 0)
		free(e);
	return n;
}

unsigned
host_nic_ifaces(const char *root, struct host_iface *out, unsigned max)
{
	char p[PATH_MAX], rel[PATH_MAX];
	struct dirent **e;
	unsigned n = 0;
	int k;

	host_path_at(p, sizeof(p), root, "sys/class/net");
	k = scandir(p, &e, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		struct host_iface *f = &out[n];
		const char *name = e[i]->d_name;
		unsigned long fl;

		if (name[0] == '.' || n == max || strlen(name) >= 32) {
			free(e[i]);
			continue;
		}
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name);
		snprintf(rel, sizeof(rel), "sys/class/net/%s/device", name);
		if (host_nic_link_base(root, rel, f->device,
				       sizeof(f->device)) != 0) {
			free(e[i]);
			continue; /* lo, veth, bridges */
		}
		snprintf(rel, sizeof(rel), "sys/class/net/%s/device/subsystem",
			 name);
		(void)host_nic_link_base(root, rel, f->bus, sizeof(f->bus));
		snprintf(rel, sizeof(rel), "sys/class/net/%s/device/driver",
			 name);
		(void)host_nic_link_base(root, rel, f->driver,
					 sizeof(f->driver));
		snprintf(rel, sizeof(rel), "sys/class/net/%s/address", name);
		(void)host_fs_line(root, rel, f->mac, sizeof(f->mac));
		snprintf(rel, sizeof(rel), "sys/class/net/%s/flags", name);
		f->flags = hex_file(root, rel, &fl) == 0 ? (long)fl : -1;
		if (strcmp(f->bus, "pci") == 0)
			(void)host_pci_id(root, f->device, &f->vendor,
					  &f->device_id);
		n++;
		free(e[i]);
	}
	if (k >= 0)
		free(e);
	return n;
}

/* A line of proc/net/route: 0 and its fields, or -EINVAL (the header). */
static int
route4_line(const char *line, char *ifname, uint32_t *dst, uint32_t *mask,
	    unsigned *flags)
{
	char dst_s[16], mask_s[16];
	unsigned fl;

	if (sscanf(line, "%31s %15s %*s %x %*s %*s %*s %15s", ifname, dst_s,
		   &fl, mask_s) != 4 ||
	    strcmp(ifname, "Iface") == 0)
		return -EINVAL;
	/* The kernel prints the big-endian words as native integers. */
	*dst = ntohl((uint32_t)strtoul(dst_s, NULL, 16));
	*mask = ntohl((uint32_t)strtoul(mask_s, NULL, 16));
	*flags = fl;
	return 0;
}

/* A line of proc/net/ipv6_route: 0 and its destination (hex digits),
 * prefix length, flags (RTF_UP 0x1, RTF_REJECT 0x200) and interface, or
 * -EINVAL. */
static int
route6_line(const char *line, char dst[40], unsigned *plen, unsigned *flags,
	    char ifname[32])
{
	if (sscanf(line, "%39s %x %*s %*s %*s %*s %*s %*s %x %31s", dst, plen,
		   flags, ifname) != 4)
		return -EINVAL;
	return 0;
}

unsigned
host_default_route_ifaces(const char *root, char (*ifname)[32], unsigned max)
{
	static char buf[1 << 16];
	unsigned n = 0;
	char *save = NULL;

	if (host_fs_read(root, "proc/net/route", buf, sizeof(buf)) >= 0) {
		for (char *l = strtok_r(buf, "\n", &save); l != NULL;
		     l = strtok_r(NULL, "\n", &save)) {
			char ifn[32];
			uint32_t d, m;
			unsigned fl;

			if (route4_line(l, ifn, &d, &m, &fl) == 0 && d == 0 &&
			    m == 0 && (fl & 1u) && n < max)
				snprintf(ifname[n++], 32, "%s", ifn);
		}
	}
	save = NULL;
	if (host_fs_read(root, "proc/net/ipv6_route", buf, sizeof(buf)) >= 0) {
		for (char *l = strtok_r(buf, "\n", &save); l != NULL;
		     l = strtok_r(NULL, "\n", &save)) {
			char dst[40], ifn[32];
			unsigned plen, fl;

			/* Not RTF_REJECT: the "unreachable" default on lo. */
			if (route6_line(l, dst, &plen, &fl, ifn) == 0 &&
			    strspn(dst, "0") == 32 && plen == 0 && (fl & 1u) &&
			    !(fl & 0x200u) && strcmp(ifn, "lo") != 0 &&
			    n < max) {
				bool dup = false;

				for (unsigned k = 0; k < n; k++)
					dup |= strcmp(ifname[k], ifn) == 0;
				if (!dup)
					snprintf(ifname[n++], 32, "%s", ifn);
			}
		}
	}
	return n;
}

int
host_route_iface(const char *root, uint32_t addr, char *ifname, size_t len)
{
	static char buf[1 << 16];
	char *save = NULL;
	int best = -1;

	if (host_fs_read(root, "proc/net/route", buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (char *l = strtok_r(buf, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char ifn[32];
		uint32_t d, m;
		unsigned fl;
		int bits;

		if (route4_line(l, ifn, &d, &m, &fl) != 0 || !(fl & 1u) ||
		    (addr & m) != (d & m))
			continue;
		bits = __builtin_popcount(m);
		if (bits > best) {
			best = bits;
			snprintf(ifname, len, "%s", ifn);
		}
	}
	return best >= 0 ? 0 : -ENOENT;
}

int
host_route6_iface(const char *root, const uint8_t addr[16], char *ifname,
		  size_t len)
{
	static char buf[1 << 16];
	char *save = NULL;
	int best = -1;

	if (host_fs_read(root, "proc/net/ipv6_route", buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (char *l = strtok_r(buf, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char dst[40], ifn[32];
		unsigned plen, fl, b;
		bool match = true;

		if (route6_line(l, dst, &plen, &fl, ifn) != 0 ||
		    strlen(dst) != 32 || plen > 128 || !(fl & 1u) ||
		    (fl & 0x200u) || strcmp(ifn, "lo") == 0)
			continue;
		for (b = 0; b < plen && match; b++) {
			size_t at = (size_t)(b / 8) * 2;
			char h[3] = {dst[at], dst[at + 1], 0};
			unsigned byte = (unsigned)strtoul(h, NULL, 16);
			unsigned bit = 0x80u >> (b % 8);

			match = ((byte ^ addr[b / 8]) & bit) == 0;
		}
		if (match && (int)plen > best) {
			best = (int)plen;
			snprintf(ifname, len, "%s", ifn);
		}
	}
	return best >= 0 ? 0 : -ENOENT;
}

/* ---- the MANA checks ---- */

static const char *
first_mana(const struct host_input *in, char *bdf, size_t len)
{
	char b[1][32];

	if (host_mana_devices(in->root, b, 1) == 0)
		return NULL;
	snprintf(bdf, len, "%s", b[0]);
	return bdf;
}

void
host_check_mana_kernel(const struct host_input *in, struct host_result *r)
{
	char rel[64], bdf[32] = "?";
	unsigned maj = 0, min = 0;

	host_result_init(r, "mana_kernel");
	(void)first_mana(in, bdf, sizeof(bdf));
	if (host_fs_line(in->root, "proc/sys/kernel/osrelease", rel,
			 sizeof(rel)) != 0 ||
	    sscanf(rel, "%u.%u", &maj, &min) != 2) {
		r->verdict = HOST_WARN;
		HVAL(r, "MANA %s; cannot read proc/sys/kernel/osrelease", bdf);
		HFIX(r, "uname -r: MANA wants Linux 6.2 or later");
		return;
	}
	HVAL(r, "MANA %s; kernel %s", bdf, rel);
	if (maj > 6 || (maj == 6 && min >= 2)) {
		HVAL(r, " (6.2 or later)");
		return;
	}
	if (host_nic_exists(in->root, "sys/module/mana_ib")) {
		r->verdict = HOST_WARN;
		HVAL(r, " is older than 6.2 but has mana_ib: a backport "
			"(e.g. linux-azure); DPDK's MANA guide asks for 6.2");
		HFIX(r, "if the PMD fails to start, a kernel >= 6.2 (Debian "
			"13's 6.12, or bookworm-backports' "
			"linux-image-cloud-amd64)");
		return;
	}
	r->verdict = HOST_FAIL;
	HVAL(r, " is older than 6.2 and has no mana_ib");
	HFIX(r, "a kernel >= 6.2: Debian 13's 6.12, or on Debian 12 apt "
		"install -t bookworm-backports linux-image-cloud-amd64, then "
		"reboot");
}

void
host_check_mana_modules(const struct host_input *in, struct host_result *r)
{
	static const char *const mods[] = {"mana", "mana_ib", "ib_uverbs"};
	char missing[64] = "", bdf[32] = "?", rel[128], drv[64] = "";

	host_result_init(r, "mana_modules");
	(void)first_mana(in, bdf, sizeof(bdf));
	for (unsigned i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "sys/module/%s", mods[i]);
		if (!host_nic_exists(in->root, rel))
			host_field_add(missing, sizeof(missing), "%s%s",
				       missing[0] ? " " : "", mods[i]);
	}
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", bdf);
	if (host_nic_link_base(in->root, rel, drv, sizeof(drv)) != 0)
		snprintf(drv, sizeof(drv), "none");
	HVAL(r, "%s bound to %s; modules: %s%s", bdf, drv,
	     missing[0] ? "missing " : "mana, mana_ib, ib_uverbs loaded",
	     missing);
	if (missing[0]) {
		r->verdict = HOST_FAIL;
		HFIX(r,
		     "modprobe -a %s (they stay loaded: the MANA PMD runs "
		     "over them)",
		     missing);
	}
	if (strcmp(drv, "mana") != 0) {
		r->verdict = HOST_FAIL;
		HFIX(r,
		     "%sMANA must stay bound to the kernel's mana driver (no "
		     "vfio/uio): latprobe setup --undo, or echo %s > "
		     "/sys/bus/pci/drivers_probe after clearing its "
		     "driver_override",
		     r->fix[0] ? "; " : "", bdf);
	}
}

void
host_check_mana_libmana(const struct host_input *in, struct host_result *r)
{
	static const char *const dirs[] = {
		"usr/lib/x86_64-linux-gnu",
		"lib/x86_64-linux-gnu",
		"usr/lib64",
		"usr/lib",
		"usr/local/lib",
	};
	char rel[128], real[128];

	host_result_init(r, "mana_libmana");
	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		unsigned a, b, ver;

		snprintf(rel, sizeof(rel), "%s/libmana.so.1", dirs[i]);
		if (!host_nic_exists(in->root, rel))
			continue;
		/* rdma-core names it libmana.so.1.<ABI>.<release>.0 */
		if (host_nic_link_base(in->root, rel, real, sizeof(real)) ==
			    0 &&
		    sscanf(real, "libmana.so.1.%u.%u.%u", &a, &ver, &b) == 3) {
			HVAL(r, "/%s -> %s (rdma-core %u)", rel, real, ver);
			if (ver < 44) {
				r->verdict = HOST_FAIL;
				HFIX(r, "rdma-core >= 44 (Debian 12 has 44, "
					"Debian 13 56): apt install "
					"ibverbs-providers libibverbs1");
			}
			return;
		}
		HVAL(r, "/%s (rdma-core version unknown)", rel);
		return;
	}
	r->verdict = HOST_FAIL;
	HVAL(r, "no libmana.so.1 (rdma-core's MANA provider) in /usr/lib");
	HFIX(r, "apt install ibverbs-providers libibverbs1 rdma-core "
		"(rdma-core >= 44)");
}

void
host_check_mana_iface(const struct host_input *in, struct host_result *r)
{
	static struct host_iface f[64];
	char bdf[32] = "?", def[4][32];
	unsigned n, n_def, n_mana = 0, n_down = 0;

	host_result_init(r, "mana_iface");
	(void)first_mana(in, bdf, sizeof(bdf));
	n = host_nic_ifaces(in->root, f, 64);
	n_def = host_default_route_ifaces(in->root, def, 4);
	HVAL(r, "%s:", bdf);
	for (unsigned i = 0; i < n; i++) {
		bool login = false;
		const char *syn = NULL;

		if (strcmp(f[i].device, bdf) != 0)
			continue;
		n_mana++;
		/* The synthetic (hv_netvsc) interface with the same MAC. */
		for (unsigned j = 0; j < n; j++)
			if (j != i && f[j].mac[0] &&
			    strcmp(f[j].mac, f[i].mac) == 0)
				syn = f[j].name;
		for (unsigned k = 0; k < n_def; k++)
			login |= strcmp(def[k], f[i].name) == 0 ||
				 (syn != NULL && strcmp(def[k], syn) == 0);
		if (f[i].flags >= 0 && !(f[i].flags & 1))
			n_down++;
		HVAL(r, "%s %s (%s%s%s) %s%s", n_mana > 1 ? "," : "", f[i].name,
		     f[i].mac, syn ? ", with " : "", syn ? syn : "",
		     f[i].flags < 0   ? "state unknown"
		     : f[i].flags & 1 ? "up"
				      : "down",
		     login ? " (default route: keep it)" : "");
	}
	if (n_mana == 0) {
		r->verdict = HOST_WARN;
		HVAL(r, " no kernel interface (mana not bound?)");
		HFIX(r, "modprobe mana");
		return;
	}
	if (n_down == 0) {
		r->verdict = HOST_WARN;
		HFIX(r, "the NIC DPDK takes must be down first: ip link set "
			"dev IF down for it and its synthetic interface (not "
			"the default route's), or latprobe setup --iface IF");
	}
}

void
host_check_mana_pmd(const struct host_input *in, struct host_result *r)
{
	const char *ver = in->dpdk_version ? in->dpdk_version : "DPDK";
	char p[PATH_MAX];
	struct dirent **e;
	int k;
	bool found = false;

	host_result_init(r, "mana_pmd");
	if (!in->mana_pmd_built) {
		r->verdict = HOST_FAIL;
		HVAL(r,
		     "%s is built without the MANA PMD (net_mana): no DPDK "
		     "port on this NIC",
		     ver);
		HFIX(r, "Debian 13: apt install librte-net-mana25 (DPDK 24.11) "
			"and build latprobe there; else build DPDK >= 22.11 "
			"with drivers/net/mana and latprobe against it "
			"(docs/azure.md, MANA)");
		return;
	}
	if (in->pmd_dir == NULL) {
		HVAL(r, "%s has net_mana built in", ver);
		return;
	}
	host_path_at(p, sizeof(p), in->root, in->pmd_dir);
	k = scandir(p, &e, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		if (!found &&
		    strncmp(e[i]->d_name, "librte_net_mana.so", 18) == 0) {
			found = true;
			HVAL(r, "%s: %s/%s", ver, in->pmd_dir, e[i]->d_name);
		}
		free(e[i]);
	}
	if (k >= 0)
		free(e);
	if (!found) {
		r->verdict = HOST_FAIL;
		HVAL(r,
		     "%s is built with net_mana but %s has no "
		     "librte_net_mana.so",
		     ver, in->pmd_dir);
		HFIX(r, "apt install librte-net-mana25 (Debian 13), or install "
			"the PMD of the DPDK you built");
	}
}
