/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `latprobe setup`: detect the NIC, plan, apply, undo (latprobe/setup.h).
 * Binding follows what driverctl does with sysfs (driver_override, unbind,
 * drivers_probe), for VMBus devices too, which dpdk-devbind cannot bind;
 * a VMBus kernel without driver_override gets uio_hv_generic's new_id,
 * as DPDK's netvsc guide describes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latprobe/host_priv.h"
#include "latprobe/setup.h"

/* The class of Hyper-V synthetic network devices (hv_netvsc, uio_hv_generic
 * bind to it; DPDK's netvsc guide: NET_UUID). */
#define NETVSC_CLASS "f8615163-df3e-46c5-913f-f2d2f965ed0e"
#define HUGE_REL     "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"

const char *
host_setup_kind_name(enum host_setup_kind k)
{
	switch (k) {
	case HOST_SETUP_NETVSC:
		return "netvsc+mlx";
	case HOST_SETUP_NETVSC_NOVF:
		return "netvsc";
	case HOST_SETUP_MANA:
		return "mana";
	default:
		return "pci";
	}
}

bool
host_setup_mlx_vf(unsigned vendor, unsigned device)
{
	/* ConnectX-3 VF (mlx4), ConnectX-4 Lx, -5, -5 Ex, -6, -6 Dx VFs */
	static const unsigned ids[] = {0x1004, 0x1016, 0x1018,
				       0x101a, 0x101c, 0x101e};

	if (vendor != 0x15b3)
		return false;
	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (device == ids[i])
			return true;
	return false;
}

static void __attribute__((format(printf, 3, 4)))
fmt(char *out, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(out, len, f, ap);
	va_end(ap);
}

static struct host_setup_step *
step(struct host_setup_plan *p, enum host_setup_op op, const char *path,
     const char *value)
{
	struct host_setup_step *s;

	if (p->n_steps == HOST_SETUP_MAX_STEPS)
		return NULL;
	s = &p->steps[p->n_steps++];
	memset(s, 0, sizeof(*s));
	s->act.op = op;
	fmt(s->act.path, sizeof(s->act.path), "%s", path);
	fmt(s->act.value, sizeof(s->act.value), "%s", value);
	return s;
}

static void
undo(struct host_setup_step *s, enum host_setup_op op, const char *path,
     const char *value)
{
	struct host_setup_act *a;

	if (s == NULL || s->n_undo == HOST_SETUP_MAX_UNDO)
		return;
	a = &s->undo[s->n_undo++];
	a->op = op;
	fmt(a->path, sizeof(a->path), "%s", path);
	fmt(a->value, sizeof(a->value), "%s", value);
}

static void __attribute__((format(printf, 2, 3)))
note(struct host_setup_plan *p, const char *f, ...)
{
	va_list ap;

	if (p->n_notes == 4)
		return;
	va_start(ap, f);
	vsnprintf(p->notes[p->n_notes++], sizeof(p->notes[0]), f, ap);
	va_end(ap);
}

/* sys/module has '_' where modprobe takes '-' too. */
static bool
module_loaded(const char *root, const char *mod)
{
	char rel[96];
	size_t i;

	fmt(rel, sizeof(rel), "sys/module/%s", mod);
	for (i = strlen("sys/module/"); rel[i]; i++)
		if (rel[i] == '-')
			rel[i] = '_';
	return host_nic_exists(root, rel);
}

static void
need_module(const struct host_setup_opts *o, struct host_setup_plan *p,
	    const char *mod, const char *why)
{
	struct host_setup_step *s;

	if (module_loaded(o->root, mod))
		return;
	s = step(p, HOST_OP_MODPROBE, "", mod);
	if (s == NULL)
		return;
	fmt(s->text, sizeof(s->text), "modprobe %s   # %s", mod, why);
	undo(s, HOST_OP_MODPROBE, "", mod);
}

static void
iface_down(struct host_setup_plan *p, const struct host_iface *f)
{
	struct host_setup_step *s;
	char rel[96], v[24], prev[24];

	if (f->flags < 0 || !(f->flags & 1))
		return;
	fmt(rel, sizeof(rel), "sys/class/net/%s/flags", f->name);
	fmt(v, sizeof(v), "0x%lx", (unsigned long)f->flags & ~1ul);
	fmt(prev, sizeof(prev), "0x%lx", (unsigned long)f->flags);
	s = step(p, HOST_OP_WRITE, rel, v);
	if (s == NULL)
		return;
	fmt(s->text, sizeof(s->text),
	    "ip link set dev %s down   # echo %s > /%s", f->name, v, rel);
	undo(s, HOST_OP_WRITE, rel, prev);
}

/* Bind dev on bus to drv the way driverctl does; undo gives it back to
 * the kernel's own match (cur, when there is one). */
static void
bind_override(struct host_setup_plan *p, const char *root, const char *bus,
	      const char *dev, const char *cur, const char *drv)
{
	struct host_setup_step *s;
	char rel[200], unb[200], probe[96];

	fmt(rel, sizeof(rel), "sys/bus/%s/devices/%s/driver_override", bus,
	    dev);
	fmt(probe, sizeof(probe), "sys/bus/%s/drivers_probe", bus);
	if (!host_nic_exists(root, rel) && strcmp(bus, "vmbus") == 0) {
		/* No driver_override (kernels before 4.19): new_id, unbind,
		 * bind (DPDK's netvsc guide). */
		fmt(rel, sizeof(rel), "sys/bus/vmbus/drivers/%s/new_id", drv);
		s = step(p, HOST_OP_WRITE, rel, NETVSC_CLASS);
		if (s != NULL)
			fmt(s->text, sizeof(s->text),
			    "echo %s > /%s   # %s takes synthetic NICs",
			    NETVSC_CLASS, rel, drv);
		fmt(unb, sizeof(unb), "sys/bus/vmbus/drivers/%s/unbind", cur);
		s = cur[0] != '\0' ? step(p, HOST_OP_WRITE, unb, dev) : NULL;
		if (s != NULL)
			fmt(s->text, sizeof(s->text), "echo %s > /%s", dev,
			    unb);
		fmt(rel, sizeof(rel), "sys/bus/vmbus/drivers/%s/bind", drv);
		s = step(p, HOST_OP_WRITE, rel, dev);
		if (s == NULL)
			return;
		fmt(s->text, sizeof(s->text), "echo %s > /%s", dev, rel);
		fmt(rel, sizeof(rel), "sys/bus/vmbus/drivers/%s/unbind", drv);
		undo(s, HOST_OP_WRITE, rel, dev);
		fmt(rel, sizeof(rel), "sys/bus/vmbus/drivers/%s/bind",
		    cur[0] ? cur : "hv_netvsc");
		undo(s, HOST_OP_WRITE, rel, dev);
		return;
	}
	s = step(p, HOST_OP_WRITE, rel, drv);
	if (s != NULL) {
		fmt(s->text, sizeof(s->text),
		    "echo %s > /%s   # driverctl -b %s set-override %s %s", drv,
		    rel, bus, dev, drv);
		undo(s, HOST_OP_WRITE, rel, "");
	}
	if (cur[0] != '\0') {
		fmt(unb, sizeof(unb), "sys/bus/%s/drivers/%s/unbind", bus, cur);
		s = step(p, HOST_OP_WRITE, unb, dev);
		if (s != NULL)
			fmt(s->text, sizeof(s->text),
			    "echo %s > /%s   # off %s", dev, unb, cur);
	}
	s = step(p, HOST_OP_WRITE, probe, dev);
	if (s == NULL)
		return;
	fmt(s->text, sizeof(s->text), "echo %s > /%s   # %s takes it", dev,
	    probe, drv);
	/* The override goes before the probe, or the probe binds drv again
	 * (the override's own step clears it too, for a run that stopped
	 * before this one). */
	fmt(unb, sizeof(unb), "sys/bus/%s/drivers/%s/unbind", bus, drv);
	undo(s, HOST_OP_WRITE, unb, dev);
	undo(s, HOST_OP_WRITE, rel, "");
	undo(s, HOST_OP_WRITE, probe, dev);
}

/* The NIC of name (its VMBus master when name is a VF), its VF. */
static int
find_nic(const struct host_iface *f, unsigned n, const char *name,
	 struct host_setup_plan *p)
{
	int at = -1;

	for (unsigned i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			at = (int)i;
	if (at < 0)
		return -ENODEV;
	p->nic = f[at];
	p->have_vf = false;
	memset(&p->vf, 0, sizeof(p->vf));
	for (unsigned i = 0; i < n; i++) {
		if ((int)i == at || f[i].mac[0] == '\0' ||
		    strcmp(f[i].mac, f[at].mac) != 0)
			continue;
		if (strcmp(f[at].bus, "vmbus") == 0 &&
		    strcmp(f[i].bus, "pci") == 0) {
			p->vf = f[i];
			p->have_vf = true;
		} else if (strcmp(f[at].bus, "pci") == 0 &&
			   strcmp(f[i].bus, "vmbus") == 0) {
			p->vf = f[at]; /* name was the VF: take its master */
			p->nic = f[i];
			p->have_vf = true;
		}
	}
	return 0;
}

/* Is this NIC (or its VF) carrying the default route or the SSH session?
 * The reason, or NULL. */
static const char *
busy(const struct host_setup_opts *o, const struct host_setup_plan *p,
     char *why, size_t len)
{
	char def[8][32], ifn[32] = "", client[64] = "";
	unsigned n = host_default_route_ifaces(o->root, def, 8);
	struct in_addr a;
	struct in6_addr a6;

	for (unsigned k = 0; k < n; k++)
		if (strcmp(def[k], p->nic.name) == 0 ||
		    (p->have_vf && strcmp(def[k], p->vf.name) == 0)) {
			fmt(why, len,
			    "%s carries the default route (proc/net/route): "
			    "giving it to DPDK cuts this host off the network",
			    def[k]);
			return why;
		}
	if (o->ssh_connection != NULL &&
	    sscanf(o->ssh_connection, "%63s", client) == 1 &&
	    ((inet_pton(AF_INET, client, &a) == 1 &&
	      host_route_iface(o->root, ntohl(a.s_addr), ifn, sizeof(ifn)) ==
		      0) ||
	     (inet_pton(AF_INET6, client, &a6) == 1 &&
	      host_route6_iface(o->root, a6.s6_addr, ifn, sizeof(ifn)) == 0)) &&
	    (strcmp(ifn, p->nic.name) == 0 ||
	     (p->have_vf && strcmp(ifn, p->vf.name) == 0))) {
		fmt(why, len,
		    "%s carries this SSH session (SSH_CONNECTION from %s): "
		    "giving it to DPDK cuts the session",
		    ifn, client);
		return why;
	}
	return NULL;
}

static bool
candidate(const struct host_iface *f, unsigned n, unsigned i)
{
	/* A VF with a VMBus twin is not a NIC of its own. */
	if (strcmp(f[i].bus, "pci") == 0)
		for (unsigned j = 0; j < n; j++)
			if (j != i && strcmp(f[j].bus, "vmbus") == 0 &&
			    strcmp(f[j].mac, f[i].mac) == 0)
				return false;
	return strcmp(f[i].bus, "pci") == 0 || strcmp(f[i].bus, "vmbus") == 0;
}

static int
last_cpu(const char *root)
{
	struct host_cpus c;
	int last = -1;

	if (host_online_cpus(root, &c) != 0)
		return 1;
	for (unsigned k = 0; k < HOST_MAX_CPUS; k++)
		if (host_cpus_isset(&c, k))
			last = (int)k;
	return last > 0 ? last : 0;
}

static int
plan_bind(const struct host_setup_opts *o, struct host_setup_plan *p, char *err,
	  size_t err_len)
{
	char rel[160];

	switch (p->kind) {
	case HOST_SETUP_NETVSC:
	case HOST_SETUP_NETVSC_NOVF:
		need_module(o, p, "uio_hv_generic",
			    "the netvsc PMD maps the VMBus device through it");
		if (p->kind == HOST_SETUP_NETVSC) {
			bool mlx4 = p->vf.device_id == 0x1004;

			need_module(o, p, mlx4 ? "mlx4_ib" : "mlx5_ib",
				    "the VF's verbs (rdma-core)");
			need_module(o, p, "ib_uverbs", "libibverbs' entry");
			note(p,
			     "the VF %s (%s, %04x:%04x) stays on %s: mlx is "
			     "bifurcated; netvsc finds it by MAC (do not block "
			     "%s with -b)",
			     p->vf.name, p->vf.device, p->vf.vendor,
			     p->vf.device_id, p->vf.driver, p->vf.device);
		} else {
			note(p,
			     "%s has no VF this setup knows%s%s: netvsc "
			     "runs on the synthetic path only (several "
			     "times slower)",
			     p->nic.name, p->have_vf ? ", only " : "",
			     p->have_vf ? p->vf.name : "");
		}
		iface_down(p, &p->nic);
		bind_override(p, o->root, "vmbus", p->nic.device, p->nic.driver,
			      "uio_hv_generic");
		fmt(p->eal, sizeof(p->eal), "-a %s,latency=10", p->nic.device);
		return 0;
	case HOST_SETUP_MANA:
		need_module(o, p, "mana", "MANA's Ethernet driver");
		need_module(o, p, "mana_ib", "MANA's verbs, the PMD's path");
		need_module(o, p, "ib_uverbs", "libibverbs' entry");
		iface_down(p, &p->nic);
		if (p->have_vf)
			iface_down(p, &p->vf);
		note(p,
		     "MANA %s stays bound to mana (DPDK's MANA guide); "
		     "the PMD takes the port of MAC %s only (mac=)",
		     p->have_vf ? p->vf.device : p->nic.device, p->nic.mac);
		fmt(p->eal, sizeof(p->eal), "-a %s,mac=%s",
		    p->have_vf ? p->vf.device : p->nic.device, p->nic.mac);
		return 0;
	default:
		break;
	}
	fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s/iommu_group",
	    p->nic.device);
	if (!host_nic_exists(o->root, rel)) {
		struct host_setup_step *s;
		char prev[8] = "N";
		const char *np =
			"sys/module/vfio/parameters/enable_unsafe_noiommu_mode";

		if (!o->noiommu) {
			fmt(err, err_len,
			    "%s (%s) has no IOMMU group (no /%s): vfio-pci "
			    "needs the IOMMU; boot with intel_iommu=on "
			    "iommu=pt (AMD: amd_iommu=on; a VM needs a "
			    "virtual IOMMU, QEMU -device intel-iommu), or "
			    "--noiommu for vfio's unsafe no-IOMMU mode (no "
			    "DMA isolation)",
			    p->nic.name, p->nic.device, rel);
			return -ENXIO;
		}
		need_module(o, p, "vfio", "the no-IOMMU switch is its");
		(void)host_fs_line(o->root, np, prev, sizeof(prev));
		s = step(p, HOST_OP_WRITE, np, "Y");
		if (s != NULL) {
			fmt(s->text, sizeof(s->text),
			    "echo Y > /%s   # --noiommu: no DMA isolation", np);
			undo(s, HOST_OP_WRITE, np, prev);
		}
	}
	need_module(o, p, "vfio-pci", "the PCI device's DPDK driver");
	iface_down(p, &p->nic);
	bind_override(p, o->root, "pci", p->nic.device, p->nic.driver,
		      "vfio-pci");
	fmt(p->eal, sizeof(p->eal), "-a %s", p->nic.device);
	return 0;
}

int
host_setup_plan(const struct host_setup_opts *o, struct host_setup_plan *p,
		char *err, size_t err_len)
{
	static struct host_iface f[64];
	unsigned n = host_nic_ifaces(o->root, f, 64);
	char why[320], cur[32] = "", want[16];
	struct host_setup_step *s;
	const char *name = o->iface;
	int ret, lcore;

	memset(p, 0, sizeof(*p));
	err[0] = '\0';
	if (host_nic_exists(o->root, o->state_rel)) {
		fmt(err, err_len,
		    "this host is already set up (/%s): latprobe setup --undo "
		    "first",
		    o->state_rel);
		return -EALREADY;
	}
	if (name == NULL) {
		char list[256] = "";
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++) {
			if (!candidate(f, n, i))
				continue;
			if (find_nic(f, n, f[i].name, p) == 0 &&
			    busy(o, p, why, sizeof(why)) == NULL) {
				name = f[i].name;
				k++;
			}
		}
		if (k != 1) {
			for (unsigned i = 0; i < n; i++)
				if (candidate(f, n, i))
					host_field_add(list, sizeof(list),
						       "%s%s (%s)",
						       list[0] ? ", " : "",
						       f[i].name, f[i].bus);
			if (list[0] == '\0') {
				fmt(err, err_len,
				    "no NIC with a PCI or VMBus device under "
				    "/sys/class/net (virtual interfaces are "
				    "not "
				    "for setup)");
				return -ENODEV;
			}
			fmt(err, err_len,
			    "%s: name the NIC with --iface (interfaces: %s)",
			    k == 0 ? "no NIC free for DPDK (the others carry "
				     "the default route or SSH)"
				   : "more than one NIC could go to DPDK",
			    list);
			return -ENODEV;
		}
	}
	if (find_nic(f, n, name, p) != 0) {
		fmt(err, err_len,
		    "no interface '%s' with a device under /sys/class/net",
		    name);
		return -ENODEV;
	}
	if (strcmp(p->nic.bus, "vmbus") == 0)
		p->kind = p->have_vf && p->vf.vendor == HOST_MANA_VENDOR &&
					  p->vf.device_id == HOST_MANA_DEVICE
				  ? HOST_SETUP_MANA
			  : p->have_vf && host_setup_mlx_vf(p->vf.vendor,
							    p->vf.device_id)
				  ? HOST_SETUP_NETVSC
				  : HOST_SETUP_NETVSC_NOVF;
	else if (strcmp(p->nic.bus, "pci") == 0)
		p->kind = p->nic.vendor == HOST_MANA_VENDOR &&
					  p->nic.device_id == HOST_MANA_DEVICE
				  ? HOST_SETUP_MANA
				  : HOST_SETUP_PCI;
	else {
		fmt(err, err_len,
		    "%s is on bus '%s': setup binds PCI and VMBus NICs only",
		    p->nic.name, p->nic.bus[0] ? p->nic.bus : "unknown");
		return -ENODEV;
	}
	if (!o->force && busy(o, p, why, sizeof(why)) != NULL) {
		fmt(err, err_len,
		    "refused: %s; pick another NIC (--iface) or "
		    "--force",
		    why);
		return -EPERM;
	}
	if (o->hugepages > 0) {
		unsigned long have = 0;

		if (host_fs_line(o->root, HUGE_REL, cur, sizeof(cur)) == 0)
			have = strtoul(cur, NULL, 10);
		if (have < o->hugepages) {
			fmt(want, sizeof(want), "%u", o->hugepages);
			s = step(p, HOST_OP_WRITE, HUGE_REL, want);
			if (s != NULL) {
				fmt(s->text, sizeof(s->text),
				    "echo %u > /%s   # hugepages: %lu now",
				    o->hugepages, HUGE_REL, have);
				undo(s, HOST_OP_WRITE, HUGE_REL,
				     cur[0] ? cur : "0");
			}
		} else {
			note(p, "hugepages: %lu x 2 MiB already (%u asked)",
			     have, o->hugepages);
		}
	}
	ret = plan_bind(o, p, err, err_len);
	if (ret != 0)
		return ret;
	lcore = o->lcore >= 0 ? o->lcore : last_cpu(o->root);
	fmt(p->profile, sizeof(p->profile),
	    "# Written by `latprobe setup` for %s (%s%s%s, %s): use it as\n"
	    "# `latprobe probe --profile host -- ...`; `latprobe setup "
	    "--undo` restores\n"
	    "# the host and removes this file.\n"
	    "-l %d\n"
	    "--in-memory\n"
	    "%s\n",
	    p->nic.name, p->nic.device, p->have_vf ? ", VF " : "",
	    p->have_vf ? p->vf.name : "", host_setup_kind_name(p->kind), lcore,
	    p->eal);
	s = step(p, HOST_OP_PROFILE, o->profile_rel, "");
	if (s != NULL) {
		fmt(s->text, sizeof(s->text),
		    "write /%s: -l %d --in-memory %s   # --profile host",
		    o->profile_rel, lcore, p->eal);
		if (host_nic_exists(o->root, o->profile_rel)) {
			char bak[256];

			fmt(bak, sizeof(bak), "%s.prev", o->state_rel);
			undo(s, HOST_OP_RESTORE, o->profile_rel, bak);
		}
	}
	return 0;
}

/* mkdir -p of path's directory under root. */
static int
mkdirs(const char *root, const char *rel)
{
	char p[PATH_MAX];

	if (host_nic_path(p, sizeof(p), root, rel) != 0)
		return -ENAMETOOLONG;
	for (char *c = p + strlen(root) + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return -errno;
		*c = '/';
	}
	return 0;
}

static int
write_file(const char *root, const char *rel, const char *data, size_t len,
	   bool create)
{
	char p[PATH_MAX];
	int fd, e = 0;
	ssize_t w;

	if (host_nic_path(p, sizeof(p), root, rel) != 0)
		return -ENAMETOOLONG;
	if (create && mkdirs(root, rel) != 0)
		return -errno;
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC | (create ? O_CREAT : 0),
		  0644);
	if (fd < 0)
		return -errno;
	/* sysfs takes one write() per value, as echo does. */
	w = write(fd, data, len);
	if (w < 0)
		e = -errno;
	else if ((size_t)w != len)
		e = -EIO;
	if (close(fd) != 0 && e == 0)
		e = -errno;
	return e;
}

static int
write_value(const char *root, const char *rel, const char *value)
{
	char b[200];
	int n = snprintf(b, sizeof(b), "%s\n", value);

	return write_file(root, rel, b, (size_t)n, false);
}

static int
copy_file(const char *root, const char *from, const char *to)
{
	static char buf[1 << 16];
	ssize_t n = host_fs_read(root, from, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return write_file(root, to, buf, (size_t)n, true);
}

static const char *
op_name(enum host_setup_op op)
{
	switch (op) {
	case HOST_OP_WRITE:
		return "write";
	case HOST_OP_MODPROBE:
		return "modprobe";
	case HOST_OP_PROFILE:
		return "profile";
	case HOST_OP_RM:
		return "rm";
	default:
		return "restore";
	}
}

/* The state file: the undo actions, last step first, one per line:
 * "OP\tPATH\tVALUE". */
static int
write_state(const struct host_setup_opts *o, const struct host_setup_plan *p,
	    unsigned n_done)
{
	static char buf[1 << 15];
	size_t l = 0;

	for (unsigned i = n_done; i-- > 0;) {
		const struct host_setup_step *s = &p->steps[i];

		if (s->act.op == HOST_OP_PROFILE && s->n_undo == 0) {
			l += (size_t)snprintf(buf + l, sizeof(buf) - l,
					      "rm\t%s\t\n", s->act.path);
			continue;
		}
		for (unsigned k = 0; k < s->n_undo && l < sizeof(buf); k++)
			l += (size_t)snprintf(
				buf + l, sizeof(buf) - l, "%s\t%s\t%s\n",
				op_name(s->undo[k].op), s->undo[k].path,
				s->undo[k].value);
	}
	if (l >= sizeof(buf))
		return -ENOSPC;
	return write_file(o->root, o->state_rel, buf, l, true);
}

int
host_setup_apply(const struct host_setup_opts *o,
		 const struct host_setup_plan *p,
		 host_setup_modprobe_fn modprobe, void *ctx,
		 void (*done)(void *ctx, const struct host_setup_step *s,
			      int ret),
		 unsigned *failed)
{
	unsigned i;
	int ret = 0, sret;

	for (i = 0; i < p->n_steps; i++) {
		const struct host_setup_step *s = &p->steps[i];

		switch (s->act.op) {
		case HOST_OP_WRITE:
			ret = write_value(o->root, s->act.path, s->act.value);
			break;
		case HOST_OP_MODPROBE:
			ret = modprobe(ctx, s->act.value, false);
			break;
		case HOST_OP_PROFILE:
			if (s->n_undo != 0)
				(void)copy_file(o->root, s->act.path,
						s->undo[0].value);
			ret = write_file(o->root, s->act.path, p->profile,
					 strlen(p->profile), true);
			break;
		default:
			ret = -EINVAL;
			break;
		}
		done(ctx, s, ret);
		if (ret != 0)
			break;
	}
	if (failed != NULL)
		*failed = i;
	sret = write_state(o, p, i);
	return ret != 0 ? ret : sret;
}

int
host_setup_undo(const struct host_setup_opts *o,
		host_setup_modprobe_fn modprobe, void *ctx,
		void (*done)(void *ctx, const char *text, int ret))
{
	static char buf[1 << 15];
	char *save = NULL, text[512], p[PATH_MAX];
	ssize_t n = host_fs_read(o->root, o->state_rel, buf, sizeof(buf));
	bool dry = modprobe == NULL;
	int first = 0;

	if (n < 0)
		return n == -ENOENT ? -ENOENT : (int)n;
	for (char *l = strtok_r(buf, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *path = strchr(l, '\t'), *value;
		int ret;

		value = path != NULL ? strchr(path + 1, '\t') : NULL;
		if (value == NULL)
			return -EINVAL;
		*path++ = '\0';
		*value++ = '\0';
		ret = 0;
		if (strcmp(l, "write") == 0) {
			fmt(text, sizeof(text), "echo %s%s> /%s", value,
			    value[0] ? " " : "", path);
			if (!dry)
				ret = write_value(o->root, path, value);
		} else if (strcmp(l, "modprobe") == 0) {
			fmt(text, sizeof(text), "modprobe -r %s", value);
			if (!dry)
				ret = modprobe(ctx, value, true);
		} else if (strcmp(l, "rm") == 0) {
			fmt(text, sizeof(text), "rm /%s", path);
			ret = host_nic_path(p, sizeof(p), o->root, path);
			if (!dry && ret == 0 && unlink(p) != 0)
				ret = -errno;
		} else if (strcmp(l, "restore") == 0) {
			fmt(text, sizeof(text), "cp /%s /%s", value, path);
			if (!dry)
				ret = copy_file(o->root, value, path);
			if (!dry && ret == 0 &&
			    host_nic_path(p, sizeof(p), o->root, value) == 0)
				(void)unlink(p);
		} else {
			return -EINVAL;
		}
		done(ctx, text, ret);
		if (ret != 0 && first == 0)
			first = ret;
	}
	if (!dry && host_nic_path(p, sizeof(p), o->root, o->state_rel) == 0 &&
	    unlink(p) != 0 && first == 0)
		first = -errno;
	return first;
}
