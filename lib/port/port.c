/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "latprobe/gate.h"
#include "latprobe/port.h"
#include "latprobe/timing.h"

static uint16_t
dpdk_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(q->port_id, q->queue_id, pkts, n);
}

static uint16_t
dpdk_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(q->port_id, q->queue_id, pkts, n);
}

static struct rte_mbuf *
dpdk_alloc(struct io_queue *q)
{
	return rte_pktmbuf_alloc(q->pool);
}

static void
dpdk_free(struct io_queue *q, struct rte_mbuf *m)
{
	rte_pktmbuf_free(m);
}

static uint64_t
dpdk_clock_start(struct io_queue *q)
{
	return tsc_read_start();
}

static uint64_t
dpdk_clock_end(struct io_queue *q)
{
	return tsc_read_end();
}

static uint64_t
dpdk_clock(struct io_queue *q)
{
	return tsc_read();
}

static int
dpdk_read_nic_clock(struct io_queue *q, uint64_t *ticks)
{
	return rte_eth_read_clock(q->port_id, ticks);
}

/* What every ethdev queue's ops share: mbufs from its pool, the TSC, the
 * NIC's clock; only the bursts differ. */
#define DPDK_QUEUE_OPS                                                         \
	.alloc = dpdk_alloc, .free = dpdk_free,                                \
	.clock_start = dpdk_clock_start, .clock_end = dpdk_clock_end,          \
	.clock = dpdk_clock, .clock_tsc = true,                                \
	.read_nic_clock = dpdk_read_nic_clock

static const struct io_ops dpdk_ops = {
	.name = "dpdk",
	.rx_burst = dpdk_rx,
	.tx_burst = dpdk_tx,
	DPDK_QUEUE_OPS,
};

/*
 * net_memif: each burst inside the unmap gate (latprobe/gate.h), so that
 * the PMD's interrupt thread cannot unmap the rings of a peer that went
 * away while this lcore is in the burst. Skipped bursts take nothing.
 */
static inline __attribute__((always_inline)) uint16_t
memif_burst(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n, bool tx)
{
	struct gate_slot *s = q->priv;
	uint16_t done;

	if (!gate_enter(s))
		return 0;
	done = tx ? rte_eth_tx_burst(q->port_id, q->queue_id, pkts, n)
		  : rte_eth_rx_burst(q->port_id, q->queue_id, pkts, n);
	gate_leave(s);
	return done;
}

/* Named apart: tools/bench counts the PMD's rx and tx by these names. */
static uint16_t
memif_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return memif_burst(q, pkts, n, false);
}

static uint16_t
memif_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	return memif_burst(q, pkts, n, true);
}

static const struct io_ops memif_ops = {
	.name = "dpdk-memif",
	.rx_burst = memif_rx,
	.tx_burst = memif_tx,
	DPDK_QUEUE_OPS,
};

const struct io_ops *
port_memif_ops(void)
{
	return &memif_ops;
}

/* The key and redirection table the NIC hashes with, for port_pick_sport(). */
static int
rss_state_read(struct port *p, const struct rte_eth_dev_info *info)
{
	struct rte_eth_rss_conf rc;
	struct rte_eth_rss_reta_entry64
		reta[RSS_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	struct rss_state *r = &p->rss_state;
	uint16_t size = info->reta_size;
	int ret;

	if (size == 0 || size > RSS_RETA_MAX || (size & (size - 1)) != 0)
		return -ENOTSUP;
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = r->key;
	rc.rss_key_len = sizeof(r->key);
	ret = rte_eth_dev_rss_hash_conf_get(p->id, &rc);
	if (ret != 0)
		return ret;
	/* Toeplitz over an IPv4 4-tuple reads 12 + 4 key bytes. */
	if (rc.rss_key_len < 16)
		return -ENOTSUP;
	r->key_len = rc.rss_key_len;
	memset(reta, 0, sizeof(reta));
	for (unsigned i = 0;
	     i < size / RTE_ETH_RETA_GROUP_SIZE + 1u && i < RTE_DIM(reta); i++)
		reta[i].mask = UINT64_MAX;
	ret = rte_eth_dev_rss_reta_query(p->id, reta, size);
	if (ret != 0)
		return ret;
	for (unsigned i = 0; i < size; i++)
		r->reta[i] = reta[i / RTE_ETH_RETA_GROUP_SIZE]
				     .reta[i % RTE_ETH_RETA_GROUP_SIZE];
	r->reta_size = size;
	return 0;
}

int
port_pick_sport(const struct port *p, uint16_t q, uint32_t ours, uint32_t peer,
		uint16_t peer_port, uint16_t first, uint16_t *out)
{
	if (p->n_queues <= 1 || !p->rss) {
		*out = (uint16_t)(first + q);
		return 0;
	}
	if (!p->rss_l4)
		return -ENOTSUP;
	*out = rss_pick_sport(&p->rss_state, q, ours, peer, peer_port, first);
	return *out != 0 ? 0 : -ENOENT;
}

int
port_pick_sport6(const struct port *p, uint16_t q, const uint8_t ours[16],
		 const uint8_t peer[16], uint16_t peer_port, uint16_t first,
		 uint16_t *out)
{
	struct rss_addr a = {.family = RSS_AF_IPV6},
			b = {.family = RSS_AF_IPV6};

	if (p->n_queues <= 1 || !p->rss) {
		*out = (uint16_t)(first + q);
		return 0;
	}
	if (!p->rss_l4_v6)
		return -ENOTSUP;
	memcpy(a.v6, ours, 16);
	memcpy(b.v6, peer, 16);
	*out = rss_pick_sport_addr(&p->rss_state, q, &a, &b, peer_port, first);
	return *out != 0 ? 0 : -ENOENT;
}

int
port_pick_sports(const struct port *p, uint16_t q, const struct rss_addr *ours,
		 const struct rss_addr *peer, uint16_t peer_port,
		 uint16_t first, uint16_t *out, unsigned n)
{
	unsigned k = 0;

	if (p->n_queues <= 1 || !p->rss) {
		uint32_t step = p->n_queues > 1 ? p->n_queues : 1;

		for (uint32_t s = (uint32_t)first + q; s <= 65535 && k < n;
		     s += step)
			out[k++] = (uint16_t)s;
		return (int)k;
	}
	if (ours->family == RSS_AF_IPV6 ? !p->rss_l4_v6 : !p->rss_l4)
		return -ENOTSUP;
	k = rss_pick_sports(&p->rss_state, q, ours, peer, peer_port, first, out,
			    n);
	return k != 0 ? (int)k : -ENOENT;
}

int
port_setup(struct port *p, uint16_t port_id, const struct port_conf *c)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nq = c->n_queues ? c->n_queues : 1;
	uint16_t rxd = c->rx_desc ? c->rx_desc : 1024;
	uint16_t txd = c->tx_desc ? c->tx_desc : 1024;
	unsigned n_mbufs, room;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	int socket, ret, ts_off = 0;
	uint64_t ts_flag = 0;
	bool memif;

	memset(p, 0, sizeof(*p));
	p->id = port_id;
	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	if (nq > PORT_MAX_QUEUES)
		return -EINVAL;
	ret = rte_eth_dev_info_get(port_id, &info);
	if (ret != 0)
		return ret;
	if (nq > info.max_rx_queues || nq > info.max_tx_queues)
		return -ENOTSUP;
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	rte_eth_dev_get_name_by_port(port_id, p->name);

	memset(&conf, 0, sizeof(conf));
	if (nq > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) &
			info.flow_type_rss_offloads;
		p->rss = conf.rx_adv_conf.rss_conf.rss_hf != 0;
	}
	if (c->rx_timestamp &&
	    (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP)) {
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
		p->hw_rx_timestamp = true;
	}
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	/* Checksum offloads, where the port has them: the NIC's
	 * rx verdicts save the engines their software checks. */
	port_csum_pick(info.rx_offload_capa, info.tx_offload_capa, &p->csum);
	conf.rxmode.offloads |= p->csum.rx;
	conf.txmode.offloads |= p->csum.tx;

	/* Link-state and removal interrupts where the PMD raises them
	 * (latprobe/events.h); the others' link is polled. */
	if (info.dev_flags != NULL) {
		conf.intr_conf.lsc =
			(*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
		conf.intr_conf.rmv =
			(*info.dev_flags & RTE_ETH_DEV_INTR_RMV) != 0;
	}
	ret = rte_eth_dev_configure(port_id, nq, nq, &conf);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &rxd, &txd);
	if (ret != 0)
		goto fail;
	if (c->mtu != 0) {
		ret = rte_eth_dev_set_mtu(port_id, c->mtu);
		if (ret != 0)
			goto fail;
	}

	socket = rte_eth_dev_socket_id(port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	/* Every descriptor can hold an mbuf, plus per-lcore caches and slack.
	 */
	n_mbufs = c->n_mbufs ? c->n_mbufs
			     : (unsigned)nq * (rxd + txd) + 256u * nq + 2048u;
	snprintf(pool_name, sizeof(pool_name), "lp_pool_%u", port_id);
	p->pool = rte_pktmbuf_pool_create(pool_name, n_mbufs, 256, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (p->pool == NULL) {
		ret = -rte_errno;
		goto fail;
	}

	for (uint16_t q = 0; q < nq; q++) {
		struct rte_eth_rxconf rxc = info.default_rxconf;
		struct rte_eth_txconf txc = info.default_txconf;

		rxc.offloads = conf.rxmode.offloads;
		txc.offloads = conf.txmode.offloads;
		ret = rte_eth_rx_queue_setup(port_id, q, rxd, (unsigned)socket,
					     &rxc, p->pool);
		if (ret != 0)
			goto fail;
		ret = rte_eth_tx_queue_setup(port_id, q, txd, (unsigned)socket,
					     &txc);
		if (ret != 0)
			goto fail;
	}
	ret = rte_eth_dev_start(port_id);
	if (ret != 0)
		goto fail;
	p->started = true;
	if (c->promiscuous) {
		/* Not every PMD can; the caller says so when it asked. */
		p->promiscuous = rte_eth_promiscuous_enable(port_id) == 0 &&
				 rte_eth_promiscuous_get(port_id) == 1;
	}
	ret = rte_eth_macaddr_get(port_id, &p->mac);
	if (ret != 0)
		goto fail;
	if (rte_eth_dev_get_mtu(port_id, &p->mtu) != 0)
		p->mtu = RTE_ETHER_MTU;
	p->n_queues = nq;
	if (p->rss && (conf.rx_adv_conf.rss_conf.rss_hf &
		       (RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_UDP)))
		p->rss_l4 = rss_state_read(p, &info) == 0;
	if (p->rss && (conf.rx_adv_conf.rss_conf.rss_hf &
		       (RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_UDP)))
		p->rss_l4_v6 = rss_state_read(p, &info) == 0;
	/*
	 * The engines send a packet whole only when it fits one mbuf: with a
	 * port MTU above what an mbuf holds after the headroom and an L2
	 * header (VLAN included), the queues' MTU is capped there, and larger
	 * probes and answers go as IPv4 fragments.
	 */
	room = rte_pktmbuf_data_room_size(p->pool) - RTE_PKTMBUF_HEADROOM -
	       RTE_ETHER_HDR_LEN - RTE_VLAN_HLEN;
	if (p->hw_rx_timestamp) {
		/* The PMD registered it when the offload was configured; this
		 * returns the same offset and flag. */
		ret = rte_mbuf_dyn_rx_timestamp_register(&ts_off, &ts_flag);
		if (ret != 0) {
			ret = -rte_errno;
			goto fail;
		}
	}
	memif = strcmp(info.driver_name, "net_memif") == 0;
	/* memif_disconnect() unmaps from the EAL interrupt thread; its other
	 * callers (stop, close) come after the lcores. */
	if (memif)
		gate_set_racer(rte_thread_is_intr);
	for (uint16_t q = 0; q < nq; q++) {
		p->q[q].rx_ts_off = ts_off;
		p->q[q].rx_ts_flag = p->hw_rx_timestamp ? ts_flag : 0;
		p->q[q].ops = &dpdk_ops;
		if (memif && (p->q[q].priv = gate_slot_get()) != NULL) {
			p->q[q].ops = &memif_ops;
			p->memif_gated++;
		}
		p->q[q].port_id = port_id;
		p->q[q].queue_id = q;
		p->q[q].mtu = p->mtu < room ? p->mtu : (uint16_t)room;
		p->q[q].pool = p->pool;
		p->q[q].tx_csum = (p->csum.tx & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
					  ? IO_TX_UDP_CKSUM
					  : 0;
		p->q[q].path_calls = port_path_calls_kernel(info.driver_name);
	}
	return 0;
fail:
	port_close(p);
	return ret < 0 ? ret : -ret;
}

int
port_hw_ts_check(const struct port *p)
{
	uint64_t ticks;

	if (!p->hw_rx_timestamp)
		return -ENOTSUP;
	return rte_eth_read_clock(p->id, &ticks) == 0 ? 0 : -EIO;
}

void
port_close(struct port *p)
{
	if (!rte_eth_dev_is_valid_port(p->id)) {
		/* Released already (a removed device, events.c). */
		if (p->pool != NULL)
			rte_mempool_free(p->pool);
		p->pool = NULL;
		return;
	}
	if (p->started)
		(void)rte_eth_dev_stop(p->id);
	p->started = false;
	(void)rte_eth_dev_close(p->id);
	if (p->pool != NULL)
		rte_mempool_free(p->pool);
	p->pool = NULL;
}

int
port_wait_link(const struct port *p, unsigned timeout_ms, uint32_t *speed_mbps)
{
	struct rte_eth_link link;
	unsigned waited = 0;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP) {
			if (speed_mbps != NULL)
				*speed_mbps = link.link_speed;
			return 0;
		}
		if (waited >= timeout_ms)
			return -ENOLINK;
		rte_delay_ms(10);
		waited += 10;
	}
}

int
port_facts_get(uint16_t port_id, struct port_facts *f)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = rte_eth_dev_info_get(port_id, &info);
	if (ret != 0)
		return ret;
	rte_eth_dev_get_name_by_port(port_id, f->name);
	snprintf(f->driver, sizeof(f->driver), "%s", info.driver_name);
	(void)rte_eth_macaddr_get(port_id, &f->mac);
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(port_id, &link) == 0) {
		f->link_up = link.link_status == RTE_ETH_LINK_UP;
		f->link_speed_mbps = link.link_speed;
	}
	f->max_rx_queues = info.max_rx_queues;
	f->max_tx_queues = info.max_tx_queues;
	f->min_mtu = info.min_mtu;
	f->max_mtu = info.max_mtu;
	if (rte_eth_dev_get_mtu(port_id, &f->mtu) != 0)
		f->mtu = 0;
	f->rx_offload_capa = info.rx_offload_capa;
	f->tx_offload_capa = info.tx_offload_capa;
	f->rss_offloads = info.flow_type_rss_offloads;
	f->rx_timestamp_capa =
		(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
	f->socket_id = rte_eth_dev_socket_id(port_id);
	return 0;
}

int
port_vf_get(uint16_t port_id, uint16_t *vf_port, char *vf_driver, size_t cap)
{
	struct rte_eth_dev_info info, sub;
	char name[RTE_ETH_NAME_MAX_LEN];
	enum port_path_kind k;
	uint16_t p;

	if (rte_eth_dev_info_get(port_id, &info) != 0 ||
	    rte_eth_dev_get_name_by_port(port_id, name) != 0)
		return -ENODEV;
	k = port_path_kind_of(info.driver_name);
	if (!port_path_has_vf(k))
		return -ENOENT;
	/* rte_eth_find_next() also visits owned ports (FOREACH_DEV skips). */
	for (p = rte_eth_find_next(0); p < RTE_MAX_ETHPORTS;
	     p = rte_eth_find_next((uint16_t)(p + 1))) {
		struct rte_eth_dev_owner owner;

		if (p == port_id || rte_eth_dev_owner_get(p, &owner) != 0 ||
		    owner.id == RTE_ETH_DEV_NO_OWNER ||
		    rte_eth_dev_info_get(p, &sub) != 0)
			continue;
		if (!port_path_owned_vf(k, name, owner.name, sub.driver_name))
			continue;
		*vf_port = p;
		snprintf(vf_driver, cap, "%s", sub.driver_name);
		return 0;
	}
	return -ENOENT;
}

uint32_t
port_failsafe_vf_subs(uint16_t port_id)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	int64_t mask;

	if (rte_eth_dev_info_get(port_id, &info) != 0 || info.device == NULL ||
	    port_path_kind_of(info.driver_name) != PORT_PATH_FAILSAFE)
		return PORT_PATH_FAILSAFE_VF_SUBS;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return PORT_PATH_FAILSAFE_VF_SUBS;
	mask = port_path_failsafe_vf_subs(da->args);
	return mask < 0 ? PORT_PATH_FAILSAFE_VF_SUBS : (uint32_t)mask;
}

int
port_queue_stats_read(uint16_t port_id, uint16_t n, struct port_queue_stats *s)
{
	struct rte_eth_stats st;
	int ret;

	memset(s, 0, sizeof(*s));
	if (n > PORT_QSTATS_MAX || n > RTE_ETHDEV_QUEUE_STAT_CNTRS)
		return -EINVAL;
	ret = rte_eth_stats_get(port_id, &st);
	if (ret != 0)
		return ret;
	s->n = n;
	s->ipackets = st.ipackets;
	s->imissed = st.imissed;
	s->ierrors = st.ierrors;
	for (uint16_t q = 0; q < n; q++) {
		s->q_ipackets[q] = st.q_ipackets[q];
		s->q_errors[q] = st.q_errors[q];
		s->q_opackets[q] = st.q_opackets[q];
	}
	return 0;
}

/*
 * The port's extended statistics, names and values in *xn and *xs (calloc'd;
 * the caller frees both, also on failure): their number, or a negative
 * errno.
 */
static int
xstats_fetch(uint16_t port_id, struct rte_eth_xstat_name **xn,
	     struct rte_eth_xstat **xs)
{
	int cnt = rte_eth_xstats_get_names(port_id, NULL, 0);

	if (cnt <= 0)
		return cnt;
	*xn = calloc((size_t)cnt, sizeof(**xn));
	*xs = calloc((size_t)cnt, sizeof(**xs));
	if (*xn == NULL || *xs == NULL)
		return -ENOMEM;
	if (rte_eth_xstats_get_names(port_id, *xn, (unsigned)cnt) != cnt ||
	    rte_eth_xstats_get(port_id, *xs, (unsigned)cnt) != cnt)
		return -EIO;
	return cnt;
}

int
port_xstats_read(uint16_t port_id, struct port_xstats *x)
{
	struct rte_eth_xstat_name *xn = NULL;
	struct rte_eth_xstat *xs = NULL;
	int cnt, ret;

	memset(x, 0, sizeof(*x));
	cnt = xstats_fetch(port_id, &xn, &xs);
	ret = cnt < 0 ? cnt : port_xstats_alloc(x, (unsigned)cnt);
	if (ret != 0)
		goto out;
	for (int i = 0; i < cnt; i++) {
		if (xs[i].id >= (uint64_t)cnt) {
			ret = -EIO;
			goto out;
		}
		snprintf(x->names[i], PORT_XSTAT_NAME, "%s", xn[xs[i].id].name);
		x->values[i] = xs[i].value;
	}
out:
	free(xn);
	free(xs);
	if (ret != 0)
		port_xstats_free(x);
	return ret;
}

int
port_xstats_nonzero(uint16_t port_id, char (*names)[64], uint64_t *values,
		    unsigned n)
{
	struct rte_eth_xstat_name *xn = NULL;
	struct rte_eth_xstat *xs = NULL;
	int cnt, found = 0;

	cnt = xstats_fetch(port_id, &xn, &xs);
	if (cnt <= 0) {
		found = cnt;
		goto out;
	}
	for (int i = 0; i < cnt; i++) {
		if (xs[i].value == 0)
			continue;
		if ((unsigned)found < n) {
			snprintf(names[found], 64, "%s", xn[xs[i].id].name);
			values[found] = xs[i].value;
		}
		found++;
	}
out:
	free(xn);
	free(xs);
	return found;
}
