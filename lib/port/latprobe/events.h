/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_EVENTS_H
#define LATPROBE_EVENTS_H

/*
 * What happened to a port during a run: link down/up, device
 * removal. Two halves:
 *
 * - struct port_events_log (events_log.c, pure, no EAL): the run's events
 *   in order with their times since the start, counts per kind, the total
 *   time the link was down. One writer (the side thread); the counts and
 *   link_up are read relaxed by the metrics thread while it runs, the rest
 *   after the workers stopped.
 * - struct port_events (events.c, DPDK): the PMD's link-state-change and
 *   removal callbacks (RTE_ETH_EVENT_INTR_LSC / INTR_RMV where the PMD has
 *   them, EAL's RTE_DEV_EVENT_REMOVE, which the vfio request notifier
 *   raises when the kernel asks for the device back) and the link polled
 *   with rte_eth_link_get_nowait() from the side thread (never a worker).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum port_event_kind {
	PORT_EV_LINK_DOWN,
	PORT_EV_LINK_UP,
	PORT_EV_REMOVED,  /* the device is being removed (released by us) */
	PORT_EV_ATTACHED, /* a removed device came back (--forever) */
	/* A failsafe port's VF sub-device is being removed (the port stays:
	 * failsafe, or latprobe for it, moves to the fallback). */
	PORT_EV_VF_REMOVED,
	/* The packets moved to another path (VF <-> synthetic). */
	PORT_EV_PATH_SHIFT,
	PORT_EV__COUNT,
};

/* "link_down", "link_up", "removed", "attached", "vf_removed",
 * "path_shift": JSON and the metrics' kind label. */
extern const char *const port_event_kind_name[PORT_EV__COUNT];

#define PORT_EVENTS_MAX	    256 /* kept in the log; later ones only counted */
#define PORT_EVENTS_VF_SUBS 4	/* a failsafe port's VF sub-devices watched */

struct port_event {
	enum port_event_kind kind;
	uint64_t t_ns;	     /* since the start of the run */
	uint32_t speed_mbps; /* link_up: the new speed (0: unknown) */
};

struct port_events_log {
	struct port_event ev[PORT_EVENTS_MAX];
	unsigned n;
	uint64_t dropped; /* events past PORT_EVENTS_MAX (counted below) */
	uint64_t count[PORT_EV__COUNT]; /* relaxed (util_relaxed_add) */
	uint64_t link_up;		/* 1/0, relaxed: latprobe_link_up */
	bool down;			/* the link is down now */
	uint64_t down_since_ns;
	uint64_t down_ns;	/* closed down intervals, summed */
	bool removed;		/* removed and not attached again */
	uint64_t removed_at_ns; /* the latest removal */
};

/* An empty log; the link up or down at the start (t 0). */
void port_events_log_init(struct port_events_log *l, bool up);

/*
 * Note an event at t_ns since the start (t_ns never goes back; a smaller
 * one is taken as the last one's). A link_down while down or a link_up
 * while up is no event: -EALREADY, nothing changed. 0 otherwise.
 */
int port_events_note(struct port_events_log *l, enum port_event_kind kind,
		     uint64_t t_ns, uint32_t speed_mbps);

/* Total time the link was down up to now_ns (an open interval counted up
 * to now_ns). */
uint64_t port_events_down_ns(const struct port_events_log *l, uint64_t now_ns);

/* Time the link was down within (from_ns, to_ns], the link's state
 * through to_ns as the log has it now. */
uint64_t port_events_down_between(const struct port_events_log *l,
				  uint64_t from_ns, uint64_t to_ns);

/* Whether the device was away (removed, not attached again) at t_ns, from
 * the kept events: an interval's state at its start, whenever it is asked. */
bool port_events_removed_at(const struct port_events_log *l, uint64_t t_ns);

/* Events noted at t in (from_ns, to_ns] of a kind (an interval's marks). */
unsigned port_events_between(const struct port_events_log *l,
			     enum port_event_kind kind, uint64_t from_ns,
			     uint64_t to_ns);

/* ---- DPDK side (events.c) ---------------------------------------------- */

/*
 * Called on the EAL interrupt thread when the PMD or EAL says something
 * (removal: at once, the run must stop using the port); only atomics and
 * async-safe calls there.
 */
typedef void (*port_events_fn)(void *arg, enum port_event_kind kind);

struct port_events {
	uint16_t port_id;
	bool lsc;     /* the PMD raises RTE_ETH_EVENT_INTR_LSC */
	bool rmv;     /* ... and RTE_ETH_EVENT_INTR_RMV */
	bool dev_cb;  /* RTE_DEV_EVENT_REMOVE callback registered */
	bool eth_cbs; /* LSC/RMV callbacks registered */
	char dev_name[64];
	void *dev; /* struct rte_device *, for the release */
	/* What rte_dev_probe() takes to make the device again: its name and
	 * devargs ("net_failsafe0,mac=...,dev(...),dev(...)"). */
	char probe_args[512];
	/* A failsafe port: its VF sub-devices' names (from its devargs) and
	 * whether failsafe itself hears of their removal (the sub-PMD raises
	 * RTE_ETH_EVENT_INTR_RMV: mlx4, mlx5, MANA) or not (virtio, igb, ...:
	 * then latprobe moves the port to the fallback, app/link_events.c). */
	char vf_sub[PORT_EVENTS_VF_SUBS][64];
	/* Its PMD raises RTE_ETH_EVENT_INTR_RMV (failsafe hears of its
	 * removal): read when attached, so that the event callback, on the
	 * EAL interrupt thread, asks no PMD. */
	bool vf_sub_rmv[PORT_EVENTS_VF_SUBS];
	unsigned n_vf_subs;
	atomic_bool vf_removed;
	_Atomic uint64_t vf_removed_tsc;
	atomic_uint vf_removed_sub; /* its index in vf_sub */
	port_events_fn fn;
	void *arg;
	/* From the interrupt thread: a change to look at, the TSC of the
	 * latest LSC and of the removal (0: none). */
	atomic_bool lsc_pending;
	_Atomic uint64_t lsc_tsc;
	atomic_bool removed;
	_Atomic uint64_t removed_tsc;
	int last_up; /* -1 unknown, 0 down, 1 up (side thread) */
};

/*
 * Register the port's callbacks; fn (may be NULL) is told of each from the
 * interrupt thread. 0 or -errno (the port keeps working without them: the
 * link is still polled).
 */
int port_events_attach(struct port_events *e, uint16_t port_id,
		       port_events_fn fn, void *arg);

/* Unregister (safe on a zeroed or detached one). */
void port_events_detach(struct port_events *e);

/*
 * Side thread: the link now (rte_eth_link_get_nowait). 1 when it changed
 * since the last call (*up, *speed_mbps, and *tsc: the LSC callback's time
 * when it told of it, else 0), 0 when not, -errno when it cannot be read.
 */
int port_events_link_poll(struct port_events *e, bool *up, uint32_t *speed_mbps,
			  uint64_t *tsc);

/*
 * After the workers stopped: release a removed device so that its removal
 * completes (stop, close, rte_dev_remove: the vfio device's file is closed
 * and the kernel finishes the unplug). 0 or -errno.
 */
int port_events_release(struct port_events *e);

/*
 * A released device back (--forever): probe it again (rte_dev_probe of
 * dev_name, DPDK's log held to CRIT meanwhile) and find its port by the
 * ethdev name it had. 0 and *port_id, or -errno (not there yet, not bound
 * to a DPDK driver).
 */
int port_events_probe(const char *dev_name, const char *port_name,
		      uint16_t *port_id);

/*
 * Does failsafe itself hear of the removal of its sub-device named name
 * (the sub-device's port has RTE_ETH_DEV_INTR_RMV)? False when it is not
 * attached or has no removal interrupt.
 */
bool port_events_sub_has_rmv(const char *name);

/* Wait (ms at most, every 10 ms) for the port's link to be up: true when
 * it is. */
bool port_events_link_wait(uint16_t port_id, unsigned ms);

/* Is the device name still on its bus (a PCI address: in sysfs)? Names
 * of other buses: false. */
bool port_events_dev_present(const char *name);

#endif /* LATPROBE_EVENTS_H */
