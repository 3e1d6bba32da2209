/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_SETUP_H
#define LATPROBE_SETUP_H

/*
 * `latprobe setup`: what a DPDK run on this host's second NIC needs, as a
 * plan of steps (hugepages, modules, interfaces down, the bind, a profile)
 * that is printed (--dry-run) or applied, and an undo list kept in a state
 * file. Everything under a root directory ("/" or a fixture tree); the
 * only thing that is not a file write, modprobe, goes through a callback.
 * No printing here: the caller prints the steps' texts.
 */

#include <stdbool.h>
#include <stddef.h>

#include "latprobe/nic.h"

enum host_setup_kind {
	HOST_SETUP_NETVSC,	/* VMBus NIC + mlx4/mlx5 VF: netvsc PMD */
	HOST_SETUP_NETVSC_NOVF, /* VMBus NIC, no (known) VF: netvsc PMD */
	HOST_SETUP_MANA,	/* MANA (1414:00ba): MANA PMD, mac= */
	HOST_SETUP_PCI,		/* another PCI NIC: vfio-pci */
};

/* "netvsc+mlx5", "netvsc", "mana", "pci" (the VF's driver for netvsc). */
const char *host_setup_kind_name(enum host_setup_kind k);

/* Mellanox VF device ids the netvsc PMD can take over (15b3:xxxx). */
bool host_setup_mlx_vf(unsigned vendor, unsigned device);

struct host_setup_opts {
	const char *root;	    /* "/" or a fixture tree */
	const char *iface;	    /* the NIC; NULL: the only candidate */
	unsigned hugepages;	    /* 2 MiB pages wanted; 0 leaves them */
	int lcore;		    /* for the profile; < 0: last online CPU */
	bool force;		    /* take the default route's/SSH's NIC */
	bool noiommu;		    /* vfio without an IOMMU (unsafe) */
	const char *ssh_connection; /* $SSH_CONNECTION, or NULL */
	const char *profile_rel;    /* e.g. "etc/latprobe/dpdk-config/host" */
	const char *state_rel;	    /* e.g. "run/latprobe/setup.state" */
};

enum host_setup_op {
	HOST_OP_WRITE,	  /* write value + "\n" to path */
	HOST_OP_MODPROBE, /* load module value (remove on undo) */
	HOST_OP_PROFILE,  /* write the profile (the plan's text) to path */
	HOST_OP_RM,	  /* undo: remove path */
	HOST_OP_RESTORE,  /* undo: copy value (a file) to path, remove it */
};

struct host_setup_act {
	enum host_setup_op op;
	char path[256]; /* relative to root */
	char value[160];
};

#define HOST_SETUP_MAX_UNDO 4

struct host_setup_step {
	struct host_setup_act act;
	char text[320]; /* the step as a shell command, and why */
	struct host_setup_act undo[HOST_SETUP_MAX_UNDO]; /* in order */
	unsigned n_undo;
};

#define HOST_SETUP_MAX_STEPS 24

struct host_setup_plan {
	enum host_setup_kind kind;
	struct host_iface nic; /* the NIC DPDK takes (VMBus or PCI) */
	struct host_iface vf;  /* its VF (same MAC), name "" if none */
	bool have_vf;
	char eal[256];	    /* the profile's device option(s) */
	char profile[1024]; /* the profile's text */
	char notes[4][256]; /* facts the user should read */
	unsigned n_notes;
	struct host_setup_step steps[HOST_SETUP_MAX_STEPS];
	unsigned n_steps;
};

/*
 * Detect the NIC and make the plan. 0, or -errno with one line in err:
 * -ENODEV (no such interface, or no candidate / several: they are listed),
 * -EPERM (the default route's or the SSH session's NIC without force),
 * -ENXIO (PCI without an IOMMU and no noiommu), -EALREADY (a state file:
 * undo first).
 */
int host_setup_plan(const struct host_setup_opts *o, struct host_setup_plan *p,
		    char *err, size_t err_len);

/* Loads (remove false) or removes a module; 0 or -errno. */
typedef int (*host_setup_modprobe_fn)(void *ctx, const char *module,
				      bool remove);

/*
 * Apply the steps in order; done(ctx, step, ret) after each (ret 0 or
 * -errno). Stops at the first failure. The undo list of the steps done is
 * written to the state file either way. 0 or the failed step's -errno
 * (*failed: its index).
 */
int host_setup_apply(const struct host_setup_opts *o,
		     const struct host_setup_plan *p,
		     host_setup_modprobe_fn modprobe, void *ctx,
		     void (*done)(void *ctx, const struct host_setup_step *s,
				  int ret),
		     unsigned *failed);

/*
 * Undo what the state file lists (last step first) and remove it. Each
 * action is reported through done(ctx, text, ret). modprobe NULL: a dry
 * run, every action reported and none done, the state file kept. 0,
 * -ENOENT (no state
 * file: nothing to undo), -EINVAL (a malformed line) or the first failing
 * action's -errno (the rest still run).
 */
int host_setup_undo(const struct host_setup_opts *o,
		    host_setup_modprobe_fn modprobe, void *ctx,
		    void (*done)(void *ctx, const char *text, int ret));

#endif /* LATPROBE_SETUP_H */
