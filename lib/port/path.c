/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/path.h"

/* Driver names as DPDK 22.11 reports them (rte_eth_dev_info.driver_name). */
static const struct {
	const char *prefix;
	enum port_path_kind kind;
} drivers[] = {
	{"net_netvsc", PORT_PATH_NETVSC},
	{"net_failsafe", PORT_PATH_FAILSAFE},
	{"mlx5", PORT_PATH_MLX},
	{"net_mlx5", PORT_PATH_MLX},
	{"net_mlx4", PORT_PATH_MLX},
	{"mlx4", PORT_PATH_MLX},
	{"net_mana", PORT_PATH_MANA},
	{"mana", PORT_PATH_MANA},
	{"net_af_xdp", PORT_PATH_SOFTWARE},
	{"net_af_packet", PORT_PATH_SOFTWARE},
	{"net_memif", PORT_PATH_SOFTWARE},
	{"net_ring", PORT_PATH_SOFTWARE},
	{"net_tap", PORT_PATH_SOFTWARE},
	{"net_null", PORT_PATH_SOFTWARE},
	{"net_pcap", PORT_PATH_SOFTWARE},
	{"net_vhost", PORT_PATH_SOFTWARE},
	{"net_virtio_user", PORT_PATH_SOFTWARE},
};

enum port_path_kind
port_path_kind_of(const char *driver)
{
	if (driver == NULL)
		return PORT_PATH_OTHER;
	for (unsigned i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (strncmp(driver, drivers[i].prefix,
			    strlen(drivers[i].prefix)) == 0)
			return drivers[i].kind;
	return PORT_PATH_OTHER;
}

/*
 * PMDs whose rx/tx burst calls enter the kernel: af_xdp kicks with send()
 * and recvfrom(), af_packet, tap and pcap are sockets and files, vhost and
 * virtio_user kick an eventfd; failsafe's fallback is one of them (tap,
 * af_packet). Inside such a call the kernel may run the packet's whole
 * path (a veth delivers into its peer on the sender's CPU), so its time is
 * the path's, not a stall. A NIC's poll-mode driver, memif and ring only
 * touch shared memory.
 */
static const char *const kernel_calls[] = {
	"net_af_xdp", "net_af_packet",	 "net_tap",	 "net_pcap",
	"net_vhost",  "net_virtio_user", "net_failsafe",
};

bool
port_path_calls_kernel(const char *driver)
{
	if (driver == NULL)
		return false;
	for (unsigned i = 0; i < sizeof(kernel_calls) / sizeof(kernel_calls[0]);
	     i++)
		if (strncmp(driver, kernel_calls[i], strlen(kernel_calls[i])) ==
		    0)
			return true;
	return false;
}

const char *
port_path_kind_name(enum port_path_kind k)
{
	switch (k) {
	case PORT_PATH_NETVSC:
		return "netvsc";
	case PORT_PATH_FAILSAFE:
		return "failsafe";
	case PORT_PATH_MLX:
		return "mlx";
	case PORT_PATH_MANA:
		return "mana";
	case PORT_PATH_SOFTWARE:
		return "software";
	case PORT_PATH_OTHER:
		break;
	}
	return "other";
}

const char *
port_path_includes(enum port_path_kind k)
{
	switch (k) {
	case PORT_PATH_NETVSC:
		return "the VF's NIC and the fabric while the VF carries the "
		       "packets; on the synthetic fallback (VMBus through the "
		       "host's virtual switch) several times more";
	case PORT_PATH_FAILSAFE:
		return "the VF's NIC and the fabric while the VF sub-device "
		       "carries the packets; on the net_tap sub-device the "
		       "kernel stack and the host's synthetic path too";
	case PORT_PATH_MLX:
		return "the NIC (PCIe, DMA, its queues) and the wire or "
		       "fabric; no host software on the path";
	case PORT_PATH_MANA:
		return "the MANA NIC (PCIe, its queues, the Azure Boost "
		       "offload of the host's virtual switch) and the fabric; "
		       "no host software on the path and no synthetic "
		       "fallback: while Azure services the device the port "
		       "carries nothing";
	case PORT_PATH_SOFTWARE:
		return "software only (kernel, shared memory or a ring): no "
		       "NIC, a floor of the tool and the host, not of a "
		       "network";
	case PORT_PATH_OTHER:
		break;
	}
	return "whatever this driver puts between rx/tx burst and the wire "
	       "(not classified)";
}

const char *
port_path_vf_includes(const char *vf_driver)
{
	switch (port_path_kind_of(vf_driver)) {
	case PORT_PATH_MANA:
		return "a MANA VF (Azure Boost): its queues and the NIC's "
		       "offload of the virtual switch, no host software; "
		       "netvsc adds its own layer on every burst";
	case PORT_PATH_MLX:
		return "a Mellanox ConnectX VF (mlx4/mlx5): its queues and "
		       "the host NIC's embedded switch, no host software; "
		       "netvsc adds its own layer on every burst";
	default:
		return "a VF this table does not classify";
	}
}

const char *
port_path_hw_ts_refusal(const char *driver, bool rx_ts_capa,
			const char *vf_driver)
{
	enum port_path_kind k = port_path_kind_of(driver);

	if (rx_ts_capa)
		return NULL;
	if (k == PORT_PATH_MANA)
		return "is MANA, which has no rx timestamp offload (net_mana "
		       "offers VLAN strip, checksum and RSS hash only)";
	if (port_path_has_vf(k) &&
	    port_path_kind_of(vf_driver) == PORT_PATH_MANA)
		return "has a MANA VF, which has no rx timestamp offload "
		       "(and netvsc/failsafe pass none through)";
	if (port_path_has_vf(k))
		return "cannot timestamp received packets (netvsc and "
		       "failsafe pass none of the VF's through)";
	return "cannot timestamp received packets (no "
	       "RTE_ETH_RX_OFFLOAD_TIMESTAMP)";
}

bool
port_path_has_vf(enum port_path_kind k)
{
	return k == PORT_PATH_NETVSC || k == PORT_PATH_FAILSAFE;
}

bool
port_path_owned_vf(enum port_path_kind k, const char *master_name,
		   const char *owner_name, const char *sub_driver)
{
	if (owner_name == NULL || sub_driver == NULL)
		return false;
	if (k == PORT_PATH_NETVSC)
		return master_name != NULL && owner_name[0] != '\0' &&
		       strcmp(owner_name, master_name) == 0;
	if (k == PORT_PATH_FAILSAFE)
		return strcmp(owner_name, "Fail-safe") == 0 &&
		       port_path_kind_of(sub_driver) != PORT_PATH_SOFTWARE;
	return false;
}

/* s starts with "q<digits>_" (or "sub<digits>_" with sub): the number and
 * the rest after '_'. */
static const char *
numbered(const char *s, const char *lead, unsigned *num)
{
	size_t l = strlen(lead);
	char *end;
	unsigned long v;

	if (strncmp(s, lead, l) != 0 || s[l] < '0' || s[l] > '9')
		return NULL;
	v = strtoul(s + l, &end, 10);
	if (*end != '_' || v > 1000000ul)
		return NULL;
	*num = (unsigned)v;
	return end + 1;
}

/* lib/ethdev/rte_ethdev.c: eth_dev_stats_strings and the per-queue ones. */
static bool
generic(const char *name)
{
	static const char *const totals[] = {
		"rx_good_packets", "tx_good_packets",		"rx_good_bytes",
		"tx_good_bytes",   "rx_missed_errors",		"rx_errors",
		"tx_errors",	   "rx_mbuf_allocation_errors",
	};
	unsigned q;
	const char *rest;

	for (unsigned i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
		if (strcmp(name, totals[i]) == 0)
			return true;
	if (strncmp(name, "rx_", 3) == 0 &&
	    (rest = numbered(name + 3, "q", &q)) != NULL)
		return strcmp(rest, "packets") == 0 ||
		       strcmp(rest, "bytes") == 0 ||
		       strcmp(rest, "errors") == 0;
	if (strncmp(name, "tx_", 3) == 0 &&
	    (rest = numbered(name + 3, "q", &q)) != NULL)
		return strcmp(rest, "packets") == 0 ||
		       strcmp(rest, "bytes") == 0;
	return false;
}

static enum port_xstat_class
netvsc_class(const char *name)
{
	unsigned q;
	const char *rest;

	if (strncmp(name, "vf_", 3) == 0) {
		if (strcmp(name + 3, "rx_good_packets") == 0)
			return PORT_XS_VF_RX;
		if (strcmp(name + 3, "tx_good_packets") == 0)
			return PORT_XS_VF_TX;
		return PORT_XS_VF_OTHER;
	}
	if (generic(name))
		return PORT_XS_GENERIC;
	if ((name[0] == 'r' || name[0] == 't') && name[1] == 'x' &&
	    name[2] == '_' && (rest = numbered(name + 3, "q", &q)) != NULL &&
	    strcmp(rest, "good_packets") == 0)
		return name[0] == 'r' ? PORT_XS_SYN_RX : PORT_XS_SYN_TX;
	return PORT_XS_DRIVER;
}

static enum port_xstat_class
failsafe_class(const char *name, uint32_t vf_subs)
{
	unsigned sub;
	const char *rest;
	bool vf;

	if ((name[0] == 'r' || name[0] == 't') && name[1] == 'x' &&
	    name[2] == '_' &&
	    (rest = numbered(name + 3, "sub", &sub)) != NULL) {
		vf = sub < 32 && (vf_subs >> sub & 1u);
		if (strcmp(rest, "good_packets") == 0) {
			if (name[0] == 'r')
				return vf ? PORT_XS_VF_RX : PORT_XS_SYN_RX;
			return vf ? PORT_XS_VF_TX : PORT_XS_SYN_TX;
		}
		return PORT_XS_VF_OTHER;
	}
	if (numbered(name, "sub", &sub) != NULL)
		return PORT_XS_VF_OTHER;
	/* failsafe itself exposes no xstats: what is left is generic. */
	return generic(name) ? PORT_XS_GENERIC : PORT_XS_DRIVER;
}

/* The index of the ')' closing the '(' at s[0], or 0 when unbalanced. */
static size_t
closing(const char *s)
{
	size_t depth = 0;

	for (size_t i = 0; s[i] != '\0'; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i;
	}
	return 0;
}

/*
 * The next sub-device parameter of failsafe devargs from *pos on: its
 * dev() name into name (empty for exec()/fd(), whose device is known only
 * at run time); *pos moves past it. 1 when one was found, 0 at the end,
 * -EINVAL when the string is malformed.
 */
static int
next_sub(const char *devargs, size_t *pos, char *name, size_t cap)
{
	size_t a = *pos;

	while (devargs[a] != '\0') {
		size_t b = a, end, n = 0;

		while (devargs[b] != '(' && devargs[b] != ',' &&
		       devargs[b] != '\0')
			b++;
		if (devargs[b] != '(') { /* mac=..., hotplug_poll=... */
			a = devargs[b] == ',' ? b + 1 : b;
			continue;
		}
		end = closing(devargs + b);
		if (end == 0)
			return -EINVAL;
		/* dev(NAME[,args]): the name says which kind of PMD. */
		if (b - a == 3 && strncmp(devargs + a, "dev", 3) == 0) {
			const char *p = devargs + b + 1;

			while (n + 1 < cap && p[n] != ',' && p[n] != ')' &&
			       p[n] != '\0') {
				name[n] = p[n];
				n++;
			}
		}
		if (cap != 0)
			name[n] = '\0';
		a = b + end + 1;
		if (devargs[a] == ',')
			a++;
		*pos = a;
		return 1;
	}
	*pos = a;
	return 0;
}

int64_t
port_path_failsafe_vf_subs(const char *devargs)
{
	char name[64];
	uint32_t mask = 0;
	unsigned sub = 0;
	size_t pos = 0;
	int ret;

	if (devargs == NULL)
		return -EINVAL;
	while ((ret = next_sub(devargs, &pos, name, sizeof(name))) == 1) {
		if (sub >= 32)
			return -EINVAL;
		if (name[0] == '\0' ||
		    port_path_kind_of(name) != PORT_PATH_SOFTWARE)
			mask |= 1u << sub;
		sub++;
	}
	return ret < 0 ? (int64_t)ret : (int64_t)mask;
}

int
port_path_failsafe_sub_name(const char *devargs, unsigned sub, char *name,
			    size_t cap)
{
	size_t pos = 0;
	int ret;

	if (devargs == NULL || name == NULL || cap == 0)
		return -EINVAL;
	for (unsigned i = 0;; i++) {
		ret = next_sub(devargs, &pos, name, cap);
		if (ret <= 0)
			return ret < 0 ? ret : -ENOENT;
		if (i == sub)
			return name[0] != '\0' ? 0 : -ENOENT;
	}
}

enum port_xstat_class
port_xstat_class(enum port_path_kind k, const char *name,
		 uint32_t failsafe_vf_subs)
{
	if (k == PORT_PATH_NETVSC)
		return netvsc_class(name);
	if (k == PORT_PATH_FAILSAFE)
		return failsafe_class(name, failsafe_vf_subs);
	return generic(name) ? PORT_XS_GENERIC : PORT_XS_DRIVER;
}

uint64_t
port_xstat_delta(const struct port_xstats *before,
		 const struct port_xstats *after, unsigned i)
{
	uint64_t b = 0;

	if (i < before->n && strcmp(before->names[i], after->names[i]) == 0) {
		b = before->values[i];
	} else {
		for (unsigned j = 0; j < before->n; j++) {
			if (strcmp(before->names[j], after->names[i]) == 0) {
				b = before->values[j];
				break;
			}
		}
	}
	return after->values[i] > b ? after->values[i] - b : 0;
}

int
port_path_split(enum port_path_kind k, const struct port_xstats *before,
		const struct port_xstats *after, uint32_t failsafe_vf_subs,
		struct port_path_split *out)
{
	memset(out, 0, sizeof(*out));
	if (!port_path_has_vf(k))
		return -ENOTSUP;
	for (unsigned i = 0; i < after->n; i++) {
		enum port_xstat_class c =
			port_xstat_class(k, after->names[i], failsafe_vf_subs);
		uint64_t d;

		if (c != PORT_XS_VF_RX && c != PORT_XS_VF_TX &&
		    c != PORT_XS_SYN_RX && c != PORT_XS_SYN_TX)
			continue;
		d = port_xstat_delta(before, after, i);
		switch (c) {
		case PORT_XS_VF_RX:
			out->vf_rx += d;
			out->have_vf = true;
			break;
		case PORT_XS_VF_TX:
			out->vf_tx += d;
			out->have_vf = true;
			break;
		case PORT_XS_SYN_RX:
			out->syn_rx += d;
			out->have_syn = true;
			break;
		default:
			out->syn_tx += d;
			out->have_syn = true;
			break;
		}
	}
	return out->have_vf || out->have_syn ? 0 : -ENOTSUP;
}

double
port_path_vf_share(const struct port_path_split *s)
{
	uint64_t vf = s->vf_rx + s->vf_tx;
	uint64_t all = vf + s->syn_rx + s->syn_tx;

	return all != 0 ? (double)vf / (double)all : -1.0;
}

unsigned
port_xstats_driver_moved(enum port_path_kind k,
			 const struct port_xstats *before,
			 const struct port_xstats *after,
			 uint32_t failsafe_vf_subs, unsigned *idx, unsigned cap)
{
	unsigned moved = 0;

	for (unsigned i = 0; i < after->n; i++) {
		if (port_xstat_class(k, after->names[i], failsafe_vf_subs) ==
		    PORT_XS_GENERIC)
			continue;
		if (port_xstat_delta(before, after, i) == 0)
			continue;
		if (moved < cap)
			idx[moved] = i;
		moved++;
	}
	return moved;
}

const char *
port_path_now_name(enum port_path_now p)
{
	switch (p) {
	case PORT_PATH_NOW_VF:
		return "vf";
	case PORT_PATH_NOW_SYNTHETIC:
		return "synthetic";
	case PORT_PATH_NOW_IDLE:
		break;
	}
	return "idle";
}

enum port_path_now
port_path_now_of(const struct port_path_split *d)
{
	uint64_t vf = d->vf_rx + d->vf_tx, syn = d->syn_rx + d->syn_tx;

	/* Sent first: which path the host's switch sees the packets on. */
	if (d->vf_tx != d->syn_tx)
		return d->vf_tx > d->syn_tx ? PORT_PATH_NOW_VF
					    : PORT_PATH_NOW_SYNTHETIC;
	if (vf == syn)
		return PORT_PATH_NOW_IDLE;
	return vf > syn ? PORT_PATH_NOW_VF : PORT_PATH_NOW_SYNTHETIC;
}

void
port_path_timeline_init(struct port_path_timeline *t)
{
	memset(t, 0, sizeof(*t));
}

int
port_path_timeline_feed(struct port_path_timeline *t, uint64_t t_ns,
			const struct port_path_split *d)
{
	enum port_path_now now = port_path_now_of(d);

	t->vf_rx += d->vf_rx;
	t->vf_tx += d->vf_tx;
	t->syn_rx += d->syn_rx;
	t->syn_tx += d->syn_tx;
	if (now == PORT_PATH_NOW_IDLE)
		return 0;
	if (t->cur == PORT_PATH_NOW_IDLE) {
		t->cur = now; /* the first path seen: no shift */
		t->first_ns = t_ns;
		return 0;
	}
	if (now == t->cur)
		return 0;
	if (t_ns < t->last_ns)
		t_ns = t->last_ns;
	if (t->n < PORT_PATH_SHIFTS_MAX)
		t->shift[t->n++] = (struct port_path_shift){
			.t_ns = t_ns, .from = t->cur, .to = now};
	else
		t->dropped++;
	t->count++;
	t->last_ns = t_ns;
	t->cur = now;
	return 1;
}
