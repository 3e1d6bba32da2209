/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path classification (lib/port/path.c) on xstats name sets recorded
 * from the DPDK 22.11 sources (tag v22.11), built the way each driver
 * builds them:
 *
 *  - the ethdev's generic stats: lib/ethdev/rte_ethdev.c,
 *    eth_dev_stats_strings[] and the per-queue eth_dev_rxq_stats_strings[]
 *    / eth_dev_txq_stats_strings[] as "rx_q%u_%s" / "tx_q%u_%s" (netvsc,
 *    failsafe, mlx5 and tap all set RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS);
 *  - netvsc: drivers/net/netvsc/hn_ethdev.c, hn_stat_strings[] as
 *    "tx_q%u_%s" then "rx_q%u_%s" (hn_dev_xstats_get_names), then the VF's
 *    stats with "vf_" in front (drivers/net/netvsc/hn_vf.c,
 *    hn_vf_xstats_get_names);
 *  - failsafe: drivers/net/failsafe/failsafe_ops.c,
 *    __fs_xstats_get_names: "rx_"/"tx_" names become "%.3ssub%u_%s",
 *    others "sub%u_%s";
 *  - mlx5: drivers/net/mlx5/linux/mlx5_ethdev_os.c, mlx5_counters_init[]
 *    .dpdk_name (the part of the table below).
 *
 * And as DPDK 24.11 builds them (tag v24.11.6, Debian 13's DPDK is 24.11.x):
 *
 *  - the ethdev's generic stats: lib/ethdev/rte_ethdev.c, the same
 *    eth_dev_stats_strings[] and per-queue tables as 22.11, per-queue names
 *    only when the driver sets RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
 *  - netvsc: drivers/net/netvsc/hn_ethdev.c, hn_stat_strings[] (unchanged
 *    from 22.11) as "tx_q%u_%s" then "rx_q%u_%s" in
 *    hn_dev_xstats_get_names, which then appends hn_vf_xstats_get_names
 *    (drivers/net/netvsc/hn_vf.c: the VF's names with "vf_" in front);
 *    the per-queue good_packets count VMBus traffic only (hn_rxtx.c:
 *    hn_rxpkt on receive, hn_nvs_send_completed on transmit); netvsc sets
 *    AUTOFILL (hn_ethdev.c, eth_hn_dev_init);
 *  - MANA: drivers/net/mana/mana.c, mana_dev_ops has stats_get and no
 *    xstats_get_names, and nothing in drivers/net/mana sets AUTOFILL: a
 *    MANA port's xstats are the eight ethdev totals and nothing else
 *    (behind netvsc: vf_ + those eight). Its rx offloads are
 *    MANA_DEV_RX_OFFLOAD_SUPPORT (drivers/net/mana/mana.h): VLAN strip,
 *    checksum, RSS hash; no TIMESTAMP.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/path.h"

#define MAXN 256

static const char *const ethdev_totals[] = {
	"rx_good_packets", "tx_good_packets",		"rx_good_bytes",
	"tx_good_bytes",   "rx_missed_errors",		"rx_errors",
	"tx_errors",	   "rx_mbuf_allocation_errors",
};
static const char *const ethdev_rxq[] = {"packets", "bytes", "errors"};
static const char *const ethdev_txq[] = {"packets", "bytes"};

/* hn_ethdev.c, hn_stat_strings[] (v22.11). */
static const char *const hn_stat[] = {
	"good_packets",
	"good_bytes",
	"errors",
	"ring full",
	"channel full",
	"multicast_packets",
	"broadcast_packets",
	"undersize_packets",
	"size_64_packets",
	"size_65_127_packets",
	"size_128_255_packets",
	"size_256_511_packets",
	"size_512_1023_packets",
	"size_1024_1518_packets",
	"size_1519_max_packets",
};

/* linux/mlx5_ethdev_os.c, mlx5_counters_init[].dpdk_name (v22.11, the
 * first 30 of the table). */
static const char *const mlx5_ctr[] = {
	"rx_unicast_bytes",
	"rx_multicast_bytes",
	"rx_broadcast_bytes",
	"rx_unicast_packets",
	"rx_multicast_packets",
	"rx_broadcast_packets",
	"tx_unicast_bytes",
	"tx_multicast_bytes",
	"tx_broadcast_bytes",
	"tx_unicast_packets",
	"tx_multicast_packets",
	"tx_broadcast_packets",
	"rx_wqe_errors",
	"rx_phy_crc_errors",
	"rx_phy_in_range_len_errors",
	"rx_phy_symbol_errors",
	"tx_phy_errors",
	"rx_out_of_buffer",
	"tx_phy_packets",
	"rx_phy_packets",
	"tx_phy_discard_packets",
	"rx_phy_discard_packets",
	"rx_prio0_buf_discard_packets",
	"rx_prio0_cong_discard_packets",
	"tx_phy_bytes",
	"rx_phy_bytes",
	"rx_vport_packets",
	"rx_vport_bytes",
	"tx_vport_packets",
	"tx_vport_bytes",
};

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

/* A name list being built, with a value per name (0 unless set). */
struct set {
	unsigned n;
	char names[MAXN][PORT_XSTAT_NAME];
};

static void
add(struct set *s, const char *name)
{
	size_t l = strlen(name);

	assert_true(s->n < MAXN);
	assert_true(l < PORT_XSTAT_NAME);
	memcpy(s->names[s->n++], name, l + 1);
}

/* The ethdev's generic stats of a port with nq queues. */
static void
add_generic(struct set *s, unsigned nq)
{
	char b[PORT_XSTAT_NAME];

	for (unsigned i = 0; i < DIM(ethdev_totals); i++)
		add(s, ethdev_totals[i]);
	for (unsigned q = 0; q < nq; q++)
		for (unsigned i = 0; i < DIM(ethdev_rxq); i++) {
			snprintf(b, sizeof(b), "rx_q%u_%s", q, ethdev_rxq[i]);
			add(s, b);
		}
	for (unsigned q = 0; q < nq; q++)
		for (unsigned i = 0; i < DIM(ethdev_txq); i++) {
			snprintf(b, sizeof(b), "tx_q%u_%s", q, ethdev_txq[i]);
			add(s, b);
		}
}

static void
add_mlx5(struct set *s, unsigned nq)
{
	add_generic(s, nq);
	for (unsigned i = 0; i < DIM(mlx5_ctr); i++)
		add(s, mlx5_ctr[i]);
}

/* netvsc with nq queues; with_vf: an mlx5 VF attached. */
static void
add_netvsc(struct set *s, unsigned nq, bool with_vf)
{
	char b[PORT_XSTAT_NAME + 8];
	struct set vf;

	add_generic(s, nq);
	for (unsigned q = 0; q < nq; q++)
		for (unsigned t = 0; t < DIM(hn_stat); t++) {
			snprintf(b, PORT_XSTAT_NAME, "tx_q%u_%s", q,
				 hn_stat[t]);
			add(s, b);
		}
	for (unsigned q = 0; q < nq; q++)
		for (unsigned t = 0; t < DIM(hn_stat); t++) {
			snprintf(b, PORT_XSTAT_NAME, "rx_q%u_%s", q,
				 hn_stat[t]);
			add(s, b);
		}
	if (!with_vf)
		return;
	memset(&vf, 0, sizeof(vf));
	add_mlx5(&vf, nq);
	for (unsigned i = 0; i < vf.n; i++) {
		snprintf(b, PORT_XSTAT_NAME, "vf_%s", vf.names[i]);
		add(s, b);
	}
}

/* failsafe over sub-device 0 = mlx5 and 1 = net_tap (vdev_netvsc). */
static void
add_failsafe(struct set *s, unsigned nq, bool vf_active)
{
	struct set sub;
	char b[2 * PORT_XSTAT_NAME];

	add_generic(s, nq);
	for (unsigned id = 0; id < 2; id++) {
		if (id == 0 && !vf_active)
			continue; /* FOREACH_SUBDEV_STATE skips it */
		memset(&sub, 0, sizeof(sub));
		if (id == 0)
			add_mlx5(&sub, nq);
		else
			add_generic(&sub, nq);
		for (unsigned i = 0; i < sub.n; i++) {
			const char *x = sub.names[i];

			if ((x[0] == 't' || x[0] == 'r') && x[1] == 'x' &&
			    x[2] == '_')
				snprintf(b, PORT_XSTAT_NAME, "%.3ssub%u_%s", x,
					 id, x + 3);
			else
				snprintf(b, PORT_XSTAT_NAME, "sub%u_%s", id, x);
			add(s, b);
		}
	}
}

static void
snapshot(struct port_xstats *x, const struct set *s)
{
	assert_int_equal(port_xstats_alloc(x, s->n), 0);
	for (unsigned i = 0; i < s->n; i++) {
		memcpy(x->names[i], s->names[i], PORT_XSTAT_NAME);
		x->values[i] = 100 + i; /* something before the run */
	}
}

static void
bump(struct port_xstats *x, const char *name, uint64_t by)
{
	for (unsigned i = 0; i < x->n; i++) {
		if (strcmp(x->names[i], name) == 0) {
			x->values[i] += by;
			return;
		}
	}
	fail_msg("no stat %s in the fixture", name);
}

/* b to a split by kind (the failsafe VF subs) into vf packets each way on
 * the VF and syn each way on the synthetic path, the VF's share share. */
static void
assert_split(enum port_path_kind kind, const struct port_xstats *b,
	     const struct port_xstats *a, uint64_t vf, uint64_t syn,
	     double share)
{
	struct port_path_split sp;

	assert_int_equal(
		port_path_split(kind, b, a, PORT_PATH_FAILSAFE_VF_SUBS, &sp),
		0);
	assert_int_equal(sp.vf_rx, vf);
	assert_int_equal(sp.vf_tx, vf);
	assert_int_equal(sp.syn_rx, syn);
	assert_int_equal(sp.syn_tx, syn);
	assert_true(fabs(port_path_vf_share(&sp) - share) < 1e-12);
}

/* A copy of b (same names, same values). */
static void
copy(struct port_xstats *a, const struct port_xstats *b)
{
	assert_int_equal(port_xstats_alloc(a, b->n), 0);
	memcpy(a->names, b->names, (size_t)b->n * PORT_XSTAT_NAME);
	memcpy(a->values, b->values, (size_t)b->n * sizeof(uint64_t));
}

static void
test_kind_of(void **state)
{
	(void)state;
	assert_int_equal(port_path_kind_of("net_netvsc"), PORT_PATH_NETVSC);
	assert_int_equal(port_path_kind_of("net_failsafe"), PORT_PATH_FAILSAFE);
	assert_int_equal(port_path_kind_of("mlx5_pci"), PORT_PATH_MLX);
	assert_int_equal(port_path_kind_of("net_mlx4"), PORT_PATH_MLX);
	assert_int_equal(port_path_kind_of("net_mana"), PORT_PATH_MANA);
	assert_int_equal(port_path_kind_of("net_af_xdp"), PORT_PATH_SOFTWARE);
	assert_int_equal(port_path_kind_of("net_af_packet"),
			 PORT_PATH_SOFTWARE);
	assert_int_equal(port_path_kind_of("net_memif"), PORT_PATH_SOFTWARE);
	assert_int_equal(port_path_kind_of("net_ring"), PORT_PATH_SOFTWARE);
	assert_int_equal(port_path_kind_of("net_tap"), PORT_PATH_SOFTWARE);
	assert_int_equal(port_path_kind_of("net_ixgbe"), PORT_PATH_OTHER);
	assert_int_equal(port_path_kind_of(NULL), PORT_PATH_OTHER);
	assert_true(port_path_has_vf(PORT_PATH_NETVSC));
	assert_true(port_path_has_vf(PORT_PATH_FAILSAFE));
	assert_false(port_path_has_vf(PORT_PATH_MLX));
	assert_string_equal(port_path_kind_name(PORT_PATH_MANA), "mana");
	/* Which owned port is the VF: netvsc owns it under its own name,
	 * failsafe as "Fail-safe" (the net_tap sub-device is not the VF). */
	assert_true(port_path_owned_vf(PORT_PATH_NETVSC, "7a2f-vmbus",
				       "7a2f-vmbus", "mlx5_pci"));
	assert_false(port_path_owned_vf(PORT_PATH_NETVSC, "7a2f-vmbus",
					"other-vmbus", "mlx5_pci"));
	assert_true(port_path_owned_vf(PORT_PATH_FAILSAFE, "net_failsafe_vsc0",
				       "Fail-safe", "net_mlx4"));
	assert_false(port_path_owned_vf(PORT_PATH_FAILSAFE, "net_failsafe_vsc0",
					"Fail-safe", "net_tap"));
	assert_false(port_path_owned_vf(PORT_PATH_MLX, "x", "x", "mlx5_pci"));
}

static void
test_class_names(void **state)
{
	enum port_path_kind nv = PORT_PATH_NETVSC, fs = PORT_PATH_FAILSAFE;
	uint32_t m = PORT_PATH_FAILSAFE_VF_SUBS;

	(void)state;
	assert_int_equal(port_xstat_class(nv, "vf_rx_good_packets", m),
			 PORT_XS_VF_RX);
	assert_int_equal(port_xstat_class(nv, "vf_tx_good_packets", m),
			 PORT_XS_VF_TX);
	assert_int_equal(port_xstat_class(nv, "rx_q3_good_packets", m),
			 PORT_XS_SYN_RX);
	assert_int_equal(port_xstat_class(nv, "tx_q12_good_packets", m),
			 PORT_XS_SYN_TX);
	/* The generic per-queue and total counters are neither path. */
	assert_int_equal(port_xstat_class(nv, "rx_q3_packets", m),
			 PORT_XS_GENERIC);
	assert_int_equal(port_xstat_class(nv, "rx_good_packets", m),
			 PORT_XS_GENERIC);
	assert_int_equal(port_xstat_class(nv, "rx_q0_ring full", m),
			 PORT_XS_DRIVER);
	assert_int_equal(port_xstat_class(nv, "vf_rx_q0_packets", m),
			 PORT_XS_VF_OTHER);
	assert_int_equal(port_xstat_class(nv, "rx_qx_good_packets", m),
			 PORT_XS_DRIVER);
	assert_int_equal(port_xstat_class(fs, "rx_sub0_good_packets", m),
			 PORT_XS_VF_RX);
	assert_int_equal(port_xstat_class(fs, "tx_sub1_good_packets", m),
			 PORT_XS_SYN_TX);
	/* Another layout: the VF as sub-device 1. */
	assert_int_equal(port_xstat_class(fs, "tx_sub1_good_packets", 0x2),
			 PORT_XS_VF_TX);
	assert_int_equal(port_xstat_class(fs, "sub0_rx_wqe_errors", m),
			 PORT_XS_VF_OTHER);
	assert_int_equal(port_xstat_class(fs, "rx_sub0_q0_packets", m),
			 PORT_XS_VF_OTHER);
	assert_int_equal(port_xstat_class(PORT_PATH_MLX, "rx_wqe_errors", m),
			 PORT_XS_DRIVER);
	assert_int_equal(port_xstat_class(PORT_PATH_MLX, "tx_q0_bytes", m),
			 PORT_XS_GENERIC);
}

/* The failsafe VF mask from its devargs, as failsafe_args.c numbers the
 * sub-devices. */
static void
test_failsafe_devargs(void **state)
{
	(void)state;
	/* vdev_netvsc (drivers/net/vdev_netvsc/vdev_netvsc.c). */
	assert_int_equal(port_path_failsafe_vf_subs(
				 "fd(7),dev(net_tap_vsc0,remote=eth1)"),
			 0x1);
	assert_int_equal(port_path_failsafe_vf_subs(
				 "dev(net_tap0,iface=x),dev(0000:00:02.0)"),
			 0x2);
	assert_int_equal(
		port_path_failsafe_vf_subs(
			"mac=00:15:5d:00:00:01,dev(net_ring0),"
			"exec(/bin/echo 0000:00:02.0),hotplug_poll=100"),
		0x2);
	/* Nested parentheses inside a sub-device's arguments. */
	assert_int_equal(
		port_path_failsafe_vf_subs("dev(net_tap0,x=(a,b)),dev(mlx5_0)"),
		0x2);
	assert_int_equal(port_path_failsafe_vf_subs("dev(net_ring0)"), 0);
	assert_int_equal(port_path_failsafe_vf_subs(""), 0);
	assert_int_equal(port_path_failsafe_vf_subs("dev(net_ring0"), -EINVAL);
	assert_int_equal(port_path_failsafe_vf_subs(NULL), -EINVAL);
}

/* netvsc with the VF: probes and answers all on the VF, share 1. */
static void
test_netvsc_vf(void **state)
{
	struct set s;
	struct port_xstats b, a;
	struct port_path_split sp;

	(void)state;
	memset(&s, 0, sizeof(s));
	add_netvsc(&s, 2, true);
	snapshot(&b, &s);
	copy(&a, &b);
	/* What the VF and netvsc's totals count for 1000 round trips. */
	bump(&a, "vf_rx_good_packets", 1000);
	bump(&a, "vf_tx_good_packets", 1000);
	bump(&a, "vf_rx_q0_packets", 1000);
	bump(&a, "vf_tx_q0_packets", 1000);
	bump(&a, "vf_rx_unicast_packets", 1000);
	bump(&a, "rx_good_packets", 1000);
	bump(&a, "tx_good_packets", 1000);
	assert_int_equal(port_path_split(PORT_PATH_NETVSC, &b, &a,
					 PORT_PATH_FAILSAFE_VF_SUBS, &sp),
			 0);
	assert_true(sp.have_vf && sp.have_syn);
	assert_int_equal(sp.vf_rx, 1000);
	assert_int_equal(sp.vf_tx, 1000);
	assert_int_equal(sp.syn_rx + sp.syn_tx, 0);
	assert_true(port_path_vf_share(&sp) == 1.0);
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* netvsc with the VF gone mid-run: some packets on the synthetic path. */
static void
test_netvsc_fallback(void **state)
{
	struct set s;
	struct port_xstats b, a;
	struct port_path_split sp;
	unsigned idx[MAXN], n;
	bool saw_syn = false;

	(void)state;
	memset(&s, 0, sizeof(s));
	add_netvsc(&s, 2, true);
	snapshot(&b, &s);
	copy(&a, &b);
	bump(&a, "vf_rx_good_packets", 990);
	bump(&a, "vf_tx_good_packets", 990);
	bump(&a, "rx_q1_good_packets", 10);
	bump(&a, "tx_q0_good_packets", 10);
	assert_int_equal(port_path_split(PORT_PATH_NETVSC, &b, &a,
					 PORT_PATH_FAILSAFE_VF_SUBS, &sp),
			 0);
	assert_int_equal(sp.syn_rx, 10);
	assert_int_equal(sp.syn_tx, 10);
	assert_true(fabs(port_path_vf_share(&sp) - 0.99) < 1e-12);
	/* The driver's counters that moved include the synthetic ones and
	 * none of the generic totals. */
	n = port_xstats_driver_moved(PORT_PATH_NETVSC, &b, &a,
				     PORT_PATH_FAILSAFE_VF_SUBS, idx, MAXN);
	assert_int_equal(n, 4);
	for (unsigned i = 0; i < n; i++) {
		assert_string_not_equal(a.names[idx[i]], "rx_good_packets");
		saw_syn |= strcmp(a.names[idx[i]], "rx_q1_good_packets") == 0;
	}
	assert_true(saw_syn);
	port_xstats_free(&a);
	port_xstats_free(&b);

	/* No VF attached at all: no vf_ names; everything synthetic. */
	memset(&s, 0, sizeof(s));
	add_netvsc(&s, 1, false);
	snapshot(&b, &s);
	copy(&a, &b);
	bump(&a, "rx_q0_good_packets", 500);
	bump(&a, "tx_q0_good_packets", 500);
	assert_int_equal(port_path_split(PORT_PATH_NETVSC, &b, &a,
					 PORT_PATH_FAILSAFE_VF_SUBS, &sp),
			 0);
	assert_false(sp.have_vf);
	assert_true(port_path_vf_share(&sp) == 0.0);
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* The VF attached during the run: its stats appear only after; they count
 * from 0. */
static void
test_netvsc_vf_appears(void **state)
{
	struct set s0, s1;
	struct port_xstats b, a;
	struct port_path_split sp;

	(void)state;
	memset(&s0, 0, sizeof(s0));
	memset(&s1, 0, sizeof(s1));
	add_netvsc(&s0, 1, false);
	add_netvsc(&s1, 1, true);
	snapshot(&b, &s0);
	snapshot(&a, &s1);
	for (unsigned i = 0; i < a.n; i++)
		a.values[i] = i < b.n ? b.values[i] : 0;
	bump(&a, "vf_rx_good_packets", 30);
	bump(&a, "vf_tx_good_packets", 30);
	bump(&a, "rx_q0_good_packets", 10);
	bump(&a, "tx_q0_good_packets", 10);
	assert_int_equal(port_path_split(PORT_PATH_NETVSC, &b, &a,
					 PORT_PATH_FAILSAFE_VF_SUBS, &sp),
			 0);
	assert_int_equal(sp.vf_rx, 30);
	assert_true(fabs(port_path_vf_share(&sp) - 0.75) < 1e-12);
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* failsafe + mlx5 (vdev_netvsc): sub0 the VF, sub1 net_tap. */
static void
test_failsafe(void **state)
{
	struct set s;
	struct port_xstats b, a;
	struct port_path_split sp;

	(void)state;
	memset(&s, 0, sizeof(s));
	add_failsafe(&s, 1, true);
	snapshot(&b, &s);
	copy(&a, &b);
	bump(&a, "rx_sub0_good_packets", 800);
	bump(&a, "tx_sub0_good_packets", 800);
	bump(&a, "rx_sub0_unicast_packets", 800);
	bump(&a, "rx_sub1_good_packets", 200);
	bump(&a, "tx_sub1_good_packets", 200);
	bump(&a, "rx_good_packets", 1000);
	assert_split(PORT_PATH_FAILSAFE, &b, &a, 800, 200, 0.8);
	port_xstats_free(&a);
	port_xstats_free(&b);

	/* The VF sub-device inactive: its names are gone, share 0. */
	memset(&s, 0, sizeof(s));
	add_failsafe(&s, 1, false);
	snapshot(&b, &s);
	copy(&a, &b);
	bump(&a, "rx_sub1_good_packets", 5);
	assert_int_equal(port_path_split(PORT_PATH_FAILSAFE, &b, &a,
					 PORT_PATH_FAILSAFE_VF_SUBS, &sp),
			 0);
	assert_false(sp.have_vf);
	assert_true(port_path_vf_share(&sp) == 0.0);
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* Bare mlx5: no split; the driver's own counters that moved are listed. */
static void
test_mlx5(void **state)
{
	struct set s;
	struct port_xstats b, a;
	struct port_path_split sp;
	unsigned idx[MAXN], n;

	(void)state;
	memset(&s, 0, sizeof(s));
	add_mlx5(&s, 1);
	snapshot(&b, &s);
	copy(&a, &b);
	bump(&a, "rx_good_packets", 100);
	bump(&a, "rx_q0_packets", 100);
	bump(&a, "rx_unicast_packets", 100);
	bump(&a, "rx_vport_packets", 100);
	bump(&a, "rx_out_of_buffer", 2);
	assert_int_equal(port_path_split(PORT_PATH_MLX, &b, &a, 0, &sp),
			 -ENOTSUP);
	n = port_xstats_driver_moved(PORT_PATH_MLX, &b, &a, 0, idx, MAXN);
	assert_int_equal(n, 3);
	assert_string_equal(a.names[idx[0]], "rx_unicast_packets");
	assert_string_equal(a.names[idx[1]], "rx_out_of_buffer");
	assert_string_equal(a.names[idx[2]], "rx_vport_packets");
	/* cap: counts all, fills only cap. */
	assert_int_equal(
		port_xstats_driver_moved(PORT_PATH_MLX, &b, &a, 0, idx, 1), 3);
	/* Nothing counted: share unknown (-1), not 0 or 1. */
	memset(&sp, 0, sizeof(sp));
	assert_true(port_path_vf_share(&sp) < 0);
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* DPDK 24.11 MANA PMD driven directly: only the ethdev totals, all
 * generic; no path split, no driver counter can move. */
static void
test_mana_2411(void **state)
{
	struct set s;
	struct port_xstats b, a;
	struct port_path_split sp;
	unsigned idx[MAXN];

	(void)state;
	memset(&s, 0, sizeof(s));
	add_generic(&s, 0); /* no AUTOFILL: no per-queue names */
	assert_int_equal(s.n, 8);
	snapshot(&b, &s);
	copy(&a, &b);
	for (unsigned i = 0; i < a.n; i++) {
		assert_int_equal(
			port_xstat_class(PORT_PATH_MANA, a.names[i], 0),
			PORT_XS_GENERIC);
		a.values[i] += 1000;
	}
	assert_int_equal(port_path_kind_of("net_mana"), PORT_PATH_MANA);
	assert_false(port_path_has_vf(PORT_PATH_MANA));
	assert_int_equal(port_path_split(PORT_PATH_MANA, &b, &a, 0, &sp),
			 -ENOTSUP);
	assert_int_equal(
		port_xstats_driver_moved(PORT_PATH_MANA, &b, &a, 0, idx, MAXN),
		0);
	/* What info prints for it names MANA and its lack of fallback. */
	assert_non_null(strstr(port_path_includes(PORT_PATH_MANA), "MANA"));
	assert_non_null(
		strstr(port_path_includes(PORT_PATH_MANA), "no synthetic"));
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* DPDK 24.11 netvsc over a MANA VF: netvsc's own names, then vf_ and the
 * MANA port's eight totals. */
static void
test_netvsc_mana_vf_2411(void **state)
{
	struct set s, vf;
	struct port_xstats b, a;
	char n[PORT_XSTAT_NAME + 8];
	unsigned vf_names = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&vf, 0, sizeof(vf));
	add_netvsc(&s, 2, false);
	add_generic(&vf, 0);
	for (unsigned i = 0; i < vf.n; i++) {
		snprintf(n, PORT_XSTAT_NAME, "vf_%s", vf.names[i]);
		add(&s, n);
	}
	snapshot(&b, &s);
	copy(&a, &b);
	for (unsigned i = 0; i < a.n; i++)
		if (port_xstat_class(PORT_PATH_NETVSC, a.names[i], 0) ==
		    PORT_XS_VF_OTHER)
			vf_names++;
	/* vf_rx/tx_good_packets are the paths; the other six are the VF's. */
	assert_int_equal(vf_names, 6);
	bump(&a, "vf_rx_good_packets", 999);
	bump(&a, "vf_tx_good_packets", 999);
	bump(&a, "vf_rx_good_bytes", 999 * 64);
	bump(&a, "rx_q1_good_packets", 1);
	bump(&a, "tx_q1_good_packets", 1);
	assert_split(PORT_PATH_NETVSC, &b, &a, 999, 1, 0.999);
	assert_non_null(strstr(port_path_vf_includes("net_mana"), "MANA"));
	assert_non_null(strstr(port_path_vf_includes("mlx5_pci"), "Mellanox"));
	port_xstats_free(&a);
	port_xstats_free(&b);
}

/* --hw-timestamps: refused on MANA (directly or as netvsc's VF) and on any
 * port without the offload, in words that name the reason. */
static void
test_hw_ts_refusal(void **state)
{
	const char *why;

	(void)state;
	why = port_path_hw_ts_refusal("net_mana", false, NULL);
	assert_non_null(why);
	assert_non_null(strstr(why, "MANA, which has no rx timestamp offload"));
	why = port_path_hw_ts_refusal("net_netvsc", false, "net_mana");
	assert_non_null(why);
	assert_non_null(strstr(why, "MANA VF"));
	why = port_path_hw_ts_refusal("net_netvsc", false, "mlx5_pci");
	assert_non_null(why);
	assert_null(strstr(why, "MANA"));
	why = port_path_hw_ts_refusal("net_af_xdp", false, NULL);
	assert_non_null(strstr(why, "no RTE_ETH_RX_OFFLOAD_TIMESTAMP"));
	/* The port says it can: trusted, for mlx5 and any future PMD. */
	assert_null(port_path_hw_ts_refusal("mlx5_pci", true, NULL));
	assert_null(port_path_hw_ts_refusal("net_mana", true, NULL));
}

/* Sub-device names from failsafe devargs (which device's removal
 * is the VF's). */
static void
test_failsafe_sub_names(void **state)
{
	char n[64], small[5];
	const char *lab = "mac=52:54:00:1a:b0:02,hotplug_poll=200,"
			  "dev(0000:02:00.0),dev(net_af_packet0,iface=eth2)";

	(void)state;
	assert_int_equal(port_path_failsafe_sub_name(lab, 0, n, sizeof(n)), 0);
	assert_string_equal(n, "0000:02:00.0");
	assert_int_equal(port_path_failsafe_sub_name(lab, 1, n, sizeof(n)), 0);
	assert_string_equal(n, "net_af_packet0");
	assert_int_equal(port_path_failsafe_sub_name(lab, 2, n, sizeof(n)),
			 -ENOENT);
	assert_int_equal(port_path_failsafe_vf_subs(lab), 0x1);
	/* vdev_netvsc: the VF comes through fd(): no name before run time. */
	assert_int_equal(
		port_path_failsafe_sub_name(
			"fd(7),dev(net_tap_vsc0,remote=eth1)", 0, n, sizeof(n)),
		-ENOENT);
	assert_int_equal(
		port_path_failsafe_sub_name(
			"fd(7),dev(net_tap_vsc0,remote=eth1)", 1, n, sizeof(n)),
		0);
	assert_string_equal(n, "net_tap_vsc0");
	/* Truncated to the buffer, never past it. */
	assert_int_equal(
		port_path_failsafe_sub_name(lab, 0, small, sizeof(small)), 0);
	assert_string_equal(small, "0000");
	assert_int_equal(port_path_failsafe_sub_name("dev(x", 0, n, sizeof(n)),
			 -EINVAL);
	assert_int_equal(port_path_failsafe_sub_name(NULL, 0, n, sizeof(n)),
			 -EINVAL);
	assert_int_equal(port_path_failsafe_sub_name(lab, 0, n, 0), -EINVAL);
}

static struct port_path_split
sample(uint64_t vf_rx, uint64_t vf_tx, uint64_t syn_rx, uint64_t syn_tx)
{
	return (struct port_path_split){.vf_rx = vf_rx,
					.vf_tx = vf_tx,
					.syn_rx = syn_rx,
					.syn_tx = syn_tx,
					.have_vf = true,
					.have_syn = true};
}

/* The path of one sample: what was sent decides, then what was received. */
static void
test_path_now(void **state)
{
	struct port_path_split d;

	(void)state;
	d = sample(0, 0, 0, 0);
	assert_int_equal(port_path_now_of(&d), PORT_PATH_NOW_IDLE);
	d = sample(50, 50, 0, 0);
	assert_int_equal(port_path_now_of(&d), PORT_PATH_NOW_VF);
	d = sample(0, 0, 50, 50);
	assert_int_equal(port_path_now_of(&d), PORT_PATH_NOW_SYNTHETIC);
	/* The switch mid-sample: the answers of the VF's last probes still
	 * come in, the probes already leave on the synthetic path. */
	d = sample(40, 3, 2, 45);
	assert_int_equal(port_path_now_of(&d), PORT_PATH_NOW_SYNTHETIC);
	/* Nothing sent (a reflector between requests): the answers' path. */
	d = sample(0, 0, 7, 0);
	assert_int_equal(port_path_now_of(&d), PORT_PATH_NOW_SYNTHETIC);
	d = sample(3, 0, 0, 0);
	assert_int_equal(port_path_now_of(&d), PORT_PATH_NOW_VF);
	assert_string_equal(port_path_now_name(PORT_PATH_NOW_VF), "vf");
	assert_string_equal(port_path_now_name(PORT_PATH_NOW_SYNTHETIC),
			    "synthetic");
	assert_string_equal(port_path_now_name(PORT_PATH_NOW_IDLE), "idle");
}

/* A VF removed and given back: two shifts, idle samples change nothing,
 * the sums are the run's. */
static void
test_path_timeline(void **state)
{
	struct port_path_timeline t;
	struct port_path_split d;
	uint64_t ms = 1000000;

	(void)state;
	port_path_timeline_init(&t);
	d = sample(0, 0, 0, 0);
	assert_int_equal(port_path_timeline_feed(&t, 50 * ms, &d), 0);
	assert_int_equal(t.cur, PORT_PATH_NOW_IDLE);
	d = sample(48, 50, 0, 0);
	assert_int_equal(port_path_timeline_feed(&t, 100 * ms, &d), 0);
	assert_int_equal(t.cur, PORT_PATH_NOW_VF);
	assert_int_equal(t.first_ns, 100 * ms);
	assert_int_equal(port_path_timeline_feed(&t, 150 * ms, &d), 0);
	/* The port is re-created: idle samples in the gap. */
	d = sample(0, 0, 0, 0);
	assert_int_equal(port_path_timeline_feed(&t, 200 * ms, &d), 0);
	d = sample(0, 0, 30, 31);
	assert_int_equal(port_path_timeline_feed(&t, 250 * ms, &d), 1);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.shift[0].t_ns, 250 * ms);
	assert_int_equal(t.shift[0].from, PORT_PATH_NOW_VF);
	assert_int_equal(t.shift[0].to, PORT_PATH_NOW_SYNTHETIC);
	assert_int_equal(port_path_timeline_feed(&t, 300 * ms, &d), 0);
	d = sample(20, 50, 30, 0);
	assert_int_equal(port_path_timeline_feed(&t, 350 * ms, &d), 1);
	assert_int_equal(t.shift[1].to, PORT_PATH_NOW_VF);
	/* A time that went back is taken as the last shift's. */
	d = sample(0, 0, 0, 5);
	assert_int_equal(port_path_timeline_feed(&t, 10 * ms, &d), 1);
	assert_int_equal(t.shift[2].t_ns, 350 * ms);
	assert_int_equal(t.count, 3);
	assert_int_equal(t.vf_rx, 48 + 48 + 20);
	assert_int_equal(t.vf_tx, 50 + 50 + 50);
	assert_int_equal(t.syn_rx, 30 + 30 + 30);
	assert_int_equal(t.syn_tx, 31 + 31 + 5);
	/* Past the array: counted, not kept. */
	for (unsigned i = 0; i < 2 * PORT_PATH_SHIFTS_MAX; i++) {
		d = (i & 1) ? sample(0, 0, 0, 9) : sample(0, 9, 0, 0);
		(void)port_path_timeline_feed(&t, (400 + i) * ms, &d);
	}
	assert_int_equal(t.n, PORT_PATH_SHIFTS_MAX);
	assert_int_equal(t.count, t.n + t.dropped);
	assert_true(t.dropped > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_of),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_netvsc_vf),
		cmocka_unit_test(test_netvsc_fallback),
		cmocka_unit_test(test_netvsc_vf_appears),
		cmocka_unit_test(test_failsafe),
		cmocka_unit_test(test_failsafe_devargs),
		cmocka_unit_test(test_failsafe_sub_names),
		cmocka_unit_test(test_path_now),
		cmocka_unit_test(test_path_timeline),
		cmocka_unit_test(test_mlx5),
		cmocka_unit_test(test_mana_2411),
		cmocka_unit_test(test_netvsc_mana_vf_2411),
		cmocka_unit_test(test_hw_ts_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
