/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_PORT_PATH_H
#define LATPROBE_PORT_PATH_H

/*
 * Which path a port's packets take, from its driver's name and its xstats.
 * Pure (no EAL): the rules below are unit-tested on xstats name sets
 * recorded from the DPDK 22.11 and 24.11 drivers' source (the names these
 * rules read did not change between them).
 *
 * On Azure, netvsc and failsafe are masters over a VF (mlx4/mlx5/MANA) and
 * a synthetic path through the host (VMBus, or the kernel's netvsc device
 * through net_tap). They fall back to the synthetic path, silently, when
 * the VF is absent or being serviced; the xstats tell which path counted
 * each packet. Names are read from the driver at run time and classified
 * by these rules, not looked up in a list of full names:
 *
 *  netvsc (drivers/net/netvsc): "vf_" + a name is the VF's own stat
 *    (hn_vf.c, hn_vf_xstats_get_names); of those, the ethdev totals
 *    vf_rx_good_packets / vf_tx_good_packets count the VF path.
 *    rx_q<N>_good_packets / tx_q<N>_good_packets are netvsc's own per-queue
 *    counters (hn_ethdev.c, hn_stat_strings), bumped only for packets that
 *    went over VMBus (hn_rxtx.c: hn_rxpkt, hn_txd_put): the synthetic path.
 *  failsafe (drivers/net/failsafe/failsafe_ops.c, __fs_xstats_get_names):
 *    sub-device N's stats are rx_sub<N>_..., tx_sub<N>_... or sub<N>_...;
 *    rx_sub<N>_good_packets / tx_sub<N>_good_packets are its totals. Which
 *    sub-device is the VF is a mask given by the caller, read from the
 *    port's devargs (port_path_failsafe_vf_subs); vdev_netvsc
 *    (drivers/net/vdev_netvsc) builds "fd(..),dev(net_tap_vscN,..)": the
 *    VF hot-plugged as sub-device 0, the synthetic net_tap as 1.
 *  MANA (drivers/net/mana/mana.c): no xstats of its own and no per-queue
 *    autofill: its xstats are the ethdev's eight totals; behind netvsc
 *    they appear as vf_rx_good_packets etc. like any VF's.
 *  The ethdev's generic stats (lib/ethdev/rte_ethdev.c: rx_good_packets,
 *    ..., rx_q<N>_packets/bytes/errors, tx_q<N>_packets/bytes) are the
 *    port's totals; every other name is the driver's own counter.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/xstats.h"

enum port_path_kind {
	PORT_PATH_OTHER,    /* a PMD this table does not know */
	PORT_PATH_NETVSC,   /* net_netvsc: VF + VMBus synthetic path */
	PORT_PATH_FAILSAFE, /* net_failsafe: VF + net_tap synthetic path */
	PORT_PATH_MLX,	    /* bare mlx4/mlx5 (VF or PF) */
	PORT_PATH_MANA,	    /* bare MANA */
	PORT_PATH_SOFTWARE, /* af_xdp, af_packet, memif, ring, tap, null, ... */
};

/* The kind of path of a driver (rte_eth_dev_info.driver_name). */
/* Do the driver's rx/tx burst calls enter the kernel (their time is the
 * packet's path, not the loop's own: see lib/timing's stall.h)? */
bool port_path_calls_kernel(const char *driver);
enum port_path_kind port_path_kind_of(const char *driver);

/* "netvsc", "failsafe", "mlx", "mana", "software", "other". */
const char *port_path_kind_name(enum port_path_kind k);

/* One sentence: what a latency measured on this path includes. */
const char *port_path_includes(enum port_path_kind k);

/* What the VF behind netvsc/failsafe adds, by its driver (mlx, MANA). */
const char *port_path_vf_includes(const char *vf_driver);

/*
 * May --hw-timestamps run on a port of this driver? rx_ts_capa: the port
 * reports RTE_ETH_RX_OFFLOAD_TIMESTAMP; vf_driver: the driver of the VF
 * behind a netvsc/failsafe master, or NULL. NULL when it may, else why
 * not (a phrase for one error line). MANA (net_mana in DPDK 22.11 to
 * 24.11, drivers/net/mana/mana.h MANA_DEV_RX_OFFLOAD_SUPPORT) has none.
 */
const char *port_path_hw_ts_refusal(const char *driver, bool rx_ts_capa,
				    const char *vf_driver);

/* A master over a VF and a synthetic path (netvsc, failsafe). */
bool port_path_has_vf(enum port_path_kind k);

/*
 * Is a port owned by owner_name (rte_eth_dev_owner_get) with driver
 * sub_driver the VF of the master port master_name of kind k? netvsc owns
 * its VF under its own device name (hn_ethdev.c: hv->owner.name); failsafe
 * owns its sub-devices as "Fail-safe" (failsafe_private.h,
 * FAILSAFE_OWNER_NAME), and its net_tap sub-device is the synthetic path.
 */
bool port_path_owned_vf(enum port_path_kind k, const char *master_name,
			const char *owner_name, const char *sub_driver);

/* What one stat counts, by the rules above. */
enum port_xstat_class {
	PORT_XS_DRIVER,	 /* the driver's own counter */
	PORT_XS_GENERIC, /* the ethdev's generic totals */
	PORT_XS_VF_RX,	 /* packets received over the VF */
	PORT_XS_VF_TX,
	PORT_XS_SYN_RX, /* packets received over the synthetic path */
	PORT_XS_SYN_TX,
	PORT_XS_VF_OTHER, /* another stat of the VF (netvsc vf_*) or of a
			     failsafe sub-device */
};

/* failsafe_vf_subs: bit N set when failsafe sub-device N is the VF. */
enum port_xstat_class port_xstat_class(enum port_path_kind k, const char *name,
				       uint32_t failsafe_vf_subs);

/* vdev_netvsc's layout: sub-device 0 is the VF. */
#define PORT_PATH_FAILSAFE_VF_SUBS 0x1u

/*
 * The VF mask of a failsafe port from its devargs (what follows the
 * device name in --vdev, e.g. vdev_netvsc's "fd(7),dev(net_tap_vsc0,
 * remote=eth1)"): sub-devices are numbered in the order of their dev(),
 * exec() and fd() parameters, as failsafe_args.c does
 * (fs_parse_sub_devices); one whose dev() names a software PMD (net_tap,
 * net_ring, ...) is the synthetic path, any other (a PCI address, or the
 * device an exec()/fd() gives at run time: vdev_netvsc hot-plugs the VF
 * through fd()) is the VF. Returns the mask, or -EINVAL when the string is
 * malformed (unbalanced parentheses) or names more than 32 sub-devices.
 */
int64_t port_path_failsafe_vf_subs(const char *devargs);

/*
 * The device name of failsafe sub-device sub (numbered as above) from its
 * dev() parameter, into name (cap bytes, truncated): 0, -ENOENT when there
 * is no such sub-device or it is an exec()/fd() one (named only at run
 * time), -EINVAL when the string is malformed.
 */
int port_path_failsafe_sub_name(const char *devargs, unsigned sub, char *name,
				size_t cap);

/* Packets per path over a run (deltas of the classified stats). */
struct port_path_split {
	uint64_t vf_rx, vf_tx, syn_rx, syn_tx;
	/* The stats that tell the paths apart were found (VF names may be
	 * absent while no VF is attached: then all went synthetic). */
	bool have_syn, have_vf;
};

/*
 * Deltas from before to after (matched by name; a stat absent before counts
 * from 0, one that went down counts 0) summed per path. 0, or -ENOTSUP when
 * k has no VF/synthetic split or no stat of either path was found.
 */
int port_path_split(enum port_path_kind k, const struct port_xstats *before,
		    const struct port_xstats *after, uint32_t failsafe_vf_subs,
		    struct port_path_split *out);

/* Share of the packets (rx + tx) that went over the VF: 0..1, or -1 when
 * no packet was counted. */
double port_path_vf_share(const struct port_path_split *s);

/*
 * The driver's own stats (PORT_XS_DRIVER, and for netvsc/failsafe the VF's
 * and sub-devices' stats) that grew: indexes in after go to idx (up to
 * cap); returns how many moved.
 */
unsigned port_xstats_driver_moved(enum port_path_kind k,
				  const struct port_xstats *before,
				  const struct port_xstats *after,
				  uint32_t failsafe_vf_subs, unsigned *idx,
				  unsigned cap);

/* The delta of after's stat i against before (0 when it went down). */
uint64_t port_xstat_delta(const struct port_xstats *before,
			  const struct port_xstats *after, unsigned i);

/*
 * Which path carries the packets now, over a run (failover):
 * the side thread classifies the stats' deltas of each short sample
 * (port_path_split between two reads) and feeds them here; a change of the
 * path that carries them is a shift, with its time.
 */
enum port_path_now {
	PORT_PATH_NOW_IDLE,	 /* nothing counted in the sample */
	PORT_PATH_NOW_VF,	 /* mostly the VF */
	PORT_PATH_NOW_SYNTHETIC, /* mostly the synthetic path */
};

/* "idle", "vf", "synthetic": JSON port.path.shifts[].from/to. */
const char *port_path_now_name(enum port_path_now p);

/* The path of one sample: the one that sent more (the host's switch sees
 * the packets there), else the one that received more; idle when none. */
enum port_path_now port_path_now_of(const struct port_path_split *d);

#define PORT_PATH_SHIFTS_MAX 64 /* kept; later ones only counted */

struct port_path_shift {
	uint64_t t_ns; /* the sample that first showed the new path */
	enum port_path_now from, to;
};

struct port_path_timeline {
	enum port_path_now cur; /* idle until the first packet */
	uint64_t first_ns;	/* the first sample with packets */
	uint64_t last_ns;	/* the latest shift */
	struct port_path_shift shift[PORT_PATH_SHIFTS_MAX];
	unsigned n;
	uint64_t count, dropped; /* all shifts; those past the array */
	/* The samples' deltas summed: the run's split across re-created
	 * ports (whose stats start from 0 again). */
	uint64_t vf_rx, vf_tx, syn_rx, syn_tx;
};

void port_path_timeline_init(struct port_path_timeline *t);

/*
 * One sample ending at t_ns (since the start; never going back: a smaller
 * one is taken as the last shift's) with its deltas d: 1 when the path
 * changed (a shift noted), else 0. An idle sample changes nothing; the
 * first path seen is the baseline, not a shift.
 */
int port_path_timeline_feed(struct port_path_timeline *t, uint64_t t_ns,
			    const struct port_path_split *d);

#endif /* LATPROBE_PORT_PATH_H */
