/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's link-state and removal events from DPDK (latprobe/events.h).
 *
 * The callbacks run on the EAL interrupt thread: they only store atomics
 * and tell the caller's fn. Everything else (reading the link, the log,
 * the release) is the side or main thread's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_version.h>

#include "latprobe/events.h"
#include "latprobe/path.h"

static int
eth_event_cb(uint16_t port_id, enum rte_eth_event_type type, void *arg,
	     void *ret_param)
{
	struct port_events *e = arg;

	(void)ret_param;
	if (port_id != e->port_id)
		return 0;
	if (type == RTE_ETH_EVENT_INTR_LSC) {
		atomic_store_explicit(&e->lsc_tsc, rte_rdtsc(),
				      memory_order_relaxed);
		/* The side thread reads the link and logs the change. */
		atomic_store_explicit(&e->lsc_pending, true,
				      memory_order_release);
	} else if (type == RTE_ETH_EVENT_INTR_RMV) {
		uint64_t zero = 0;

		atomic_compare_exchange_strong(&e->removed_tsc, &zero,
					       rte_rdtsc());
		atomic_store_explicit(&e->removed, true, memory_order_release);
		if (e->fn != NULL)
			e->fn(e->arg, PORT_EV_REMOVED);
	}
	return 0;
}

/* EAL's device event: the vfio request notifier's "give the device back"
 * comes here as RTE_DEV_EVENT_REMOVE (pci_hot_unplug_handler). Registered
 * for every device: the port's own, or one of a failsafe port's VF
 * sub-devices. */
static void
dev_event_cb(const char *name, enum rte_dev_event_type type, void *arg)
{
	struct port_events *e = arg;
	uint64_t zero = 0;

	if (type != RTE_DEV_EVENT_REMOVE || name == NULL)
		return;
	if (strcmp(name, e->dev_name) != 0) {
		for (unsigned i = 0; i < e->n_vf_subs; i++) {
			if (strcmp(name, e->vf_sub[i]) != 0)
				continue;
			atomic_store_explicit(&e->vf_removed_sub, i,
					      memory_order_relaxed);
			atomic_compare_exchange_strong(&e->vf_removed_tsc,
						       &zero, rte_rdtsc());
			atomic_store_explicit(&e->vf_removed, true,
					      memory_order_release);
			if (e->fn != NULL)
				e->fn(e->arg, PORT_EV_VF_REMOVED);
			return;
		}
		return;
	}
	atomic_compare_exchange_strong(&e->removed_tsc, &zero, rte_rdtsc());
	atomic_store_explicit(&e->removed, true, memory_order_release);
	if (e->fn != NULL)
		e->fn(e->arg, PORT_EV_REMOVED);
}

/* A failsafe port's VF sub-devices by name (latprobe/path.h's rules). */
static void
vf_subs_of(struct port_events *e, const char *args)
{
	int64_t mask = port_path_failsafe_vf_subs(args);
	char name[64];

	if (mask <= 0)
		return;
	for (unsigned i = 0; i < 32 && e->n_vf_subs < PORT_EVENTS_VF_SUBS;
	     i++) {
		if (!(mask >> i & 1) ||
		    port_path_failsafe_sub_name(args, i, name, sizeof(name)) !=
			    0)
			continue;
		e->vf_sub_rmv[e->n_vf_subs] = port_events_sub_has_rmv(name);
		memcpy(e->vf_sub[e->n_vf_subs++], name, sizeof(name));
	}
}

int
port_events_attach(struct port_events *e, uint16_t port_id, port_events_fn fn,
		   void *arg)
{
	struct rte_eth_dev_info info;
	int ret;

	memset(e, 0, sizeof(*e));
	e->port_id = port_id;
	e->fn = fn;
	e->arg = arg;
	e->last_up = -1;
	ret = rte_eth_dev_info_get(port_id, &info);
	if (ret != 0)
		return ret;
	if (info.device != NULL) {
		const struct rte_devargs *da = rte_dev_devargs(info.device);

		e->dev = info.device;
		snprintf(e->dev_name, sizeof(e->dev_name), "%s",
			 rte_dev_name(info.device));
		snprintf(e->probe_args, sizeof(e->probe_args), "%s%s%s",
			 e->dev_name,
			 da != NULL && da->args != NULL && da->args[0] != '\0'
				 ? ","
				 : "",
			 da != NULL && da->args != NULL ? da->args : "");
		if (da != NULL && da->args != NULL &&
		    port_path_kind_of(info.driver_name) == PORT_PATH_FAILSAFE)
			vf_subs_of(e, da->args);
	}
	if (info.dev_flags != NULL) {
		/* port_setup() asked for intr_conf.lsc/rmv where these are
		 * set. */
		e->lsc = (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
		e->rmv = (*info.dev_flags & RTE_ETH_DEV_INTR_RMV) != 0;
	}
	ret = rte_eth_dev_callback_register(port_id, RTE_ETH_EVENT_INTR_LSC,
					    eth_event_cb, e);
	if (ret == 0)
		ret = rte_eth_dev_callback_register(
			port_id, RTE_ETH_EVENT_INTR_RMV, eth_event_cb, e);
	if (ret != 0) {
		port_events_detach(e);
		return ret;
	}
	e->eth_cbs = true;
	if (e->dev_name[0] != '\0') {
		ret = rte_dev_event_callback_register(NULL, dev_event_cb, e);
		if (ret != 0)
			return ret; /* the ethdev events still come */
		e->dev_cb = true;
	}
	return 0;
}

static int
eth_cb_unregister(struct port_events *e, enum rte_eth_event_type ev)
{
	return rte_eth_dev_callback_unregister(e->port_id, ev, eth_event_cb, e);
}

void
port_events_detach(struct port_events *e)
{
	if (e->eth_cbs || e->lsc || e->rmv) {
		/* -EAGAIN while the callback runs: wait it out (bounded), or
		 * it would outlive the release. */
		for (int i = 0; i < 1000; i++) {
			if (eth_cb_unregister(e, RTE_ETH_EVENT_INTR_LSC) !=
				    -EAGAIN &&
			    eth_cb_unregister(e, RTE_ETH_EVENT_INTR_RMV) !=
				    -EAGAIN)
				break;
			rte_delay_us_sleep(1000);
		}
		e->eth_cbs = false;
	}
	if (e->dev_cb) {
		/* -EAGAIN while the callback runs: wait it out (bounded). */
		for (int i = 0; i < 1000; i++) {
			if (rte_dev_event_callback_unregister(
				    NULL, dev_event_cb, e) != -EAGAIN)
				break;
			rte_delay_us_sleep(1000);
		}
		e->dev_cb = false;
	}
}

int
port_events_link_poll(struct port_events *e, bool *up, uint32_t *speed_mbps,
		      uint64_t *tsc)
{
	struct rte_eth_link link;
	bool pending;
	int ret, now;

	pending = atomic_exchange_explicit(&e->lsc_pending, false,
					   memory_order_acquire);
	memset(&link, 0, sizeof(link));
	ret = rte_eth_link_get_nowait(e->port_id, &link);
	if (ret != 0)
		return ret;
	now = link.link_status == RTE_ETH_LINK_UP ? 1 : 0;
	if (now == e->last_up)
		return 0;
	e->last_up = now;
	*up = now == 1;
	*speed_mbps = now == 1 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN
			      ? link.link_speed
			      : 0;
	*tsc = pending ? atomic_load_explicit(&e->lsc_tsc, memory_order_relaxed)
		       : 0;
	return 1;
}

int
port_events_release(struct port_events *e)
{
	struct rte_device *dev = e->dev;
	int ret;

	port_events_detach(e);
	if (dev == NULL)
		return -ENODEV;
	(void)rte_eth_dev_stop(e->port_id);
	(void)rte_eth_dev_close(e->port_id);
	ret = rte_dev_remove(dev);
	e->dev = NULL;
	return ret;
}

int
port_events_probe(const char *dev_name, const char *port_name,
		  uint16_t *port_id)
{
	int ret;

	uint32_t level = rte_log_get_global_level();

	if (dev_name == NULL || dev_name[0] == '\0')
		return -ENODEV;
	/* Tried every 500 ms while the device is away: EAL's and the PMD's
	 * "cannot find device" errors each time would flood the log. */
	rte_log_set_global_level(RTE_LOG_CRIT);
	ret = rte_dev_probe(dev_name);
	rte_log_set_global_level(level);
	if (ret != 0 && ret != -EEXIST)
		return ret;
	ret = rte_eth_dev_get_port_by_name(port_name, port_id);
	return ret != 0 ? -ENODEV : 0;
}

bool
port_events_sub_has_rmv(const char *name)
{
	struct rte_eth_dev_info info;
	uint16_t p;

	/* rte_eth_find_next() also visits owned ports (FOREACH_DEV skips). */
	for (p = rte_eth_find_next(0); p < RTE_MAX_ETHPORTS;
	     p = rte_eth_find_next((uint16_t)(p + 1))) {
		if (rte_eth_dev_info_get(p, &info) != 0 ||
		    info.device == NULL ||
		    strcmp(rte_dev_name(info.device), name) != 0)
			continue;
		return info.dev_flags != NULL &&
		       (*info.dev_flags & RTE_ETH_DEV_INTR_RMV) != 0;
	}
	return false;
}

bool
port_events_dev_present(const char *name)
{
	char path[128];
	struct stat st;
	unsigned d, b, s, f;
	char c;

	/* DDDD:BB:SS.F, PCI's form of the name (no other bus has a sysfs
	 * entry to wait for). */
	if (sscanf(name, "%x:%x:%x.%x%c", &d, &b, &s, &f, &c) != 4)
		return false;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", name);
	return stat(path, &st) == 0;
}

bool
port_events_link_wait(uint16_t port_id, unsigned ms)
{
	for (unsigned i = 0;; i += 10) {
		struct rte_eth_link link;

		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return true;
		if (i >= ms)
			return false;
		rte_delay_us_sleep(10 * 1000);
	}
}
