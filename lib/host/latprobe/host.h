/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HOST_H
#define LATPROBE_HOST_H

/*
 * Host checks for microsecond measurement (`latprobe doctor`): read /proc
 * and /sys under a root directory ("/" in production, a fixture tree in
 * tests), judge, and return structured results. No EAL call, no printing:
 * the caller passes what only it knows (the lcores, the CPUID invariant-TSC
 * bit, the TSC calibration, the DPDK ports' NUMA nodes and where their
 * mempools live) in struct host_input.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HOST_MAX_CPUS 1024

/* A set of CPU numbers (a kernel "cpulist"). */
struct host_cpus {
	uint64_t w[HOST_MAX_CPUS / 64];
};

void host_cpus_zero(struct host_cpus *c);
void host_cpus_set(struct host_cpus *c, unsigned cpu); /* ignores >= max */
bool host_cpus_isset(const struct host_cpus *c, unsigned cpu);
unsigned host_cpus_count(const struct host_cpus *c);
/* a & b */
void host_cpus_and(struct host_cpus *out, const struct host_cpus *a,
		   const struct host_cpus *b);
/* a & ~b */
void host_cpus_andnot(struct host_cpus *out, const struct host_cpus *a,
		      const struct host_cpus *b);
/* Every CPU of a is in b. */
bool host_cpus_subset(const struct host_cpus *a, const struct host_cpus *b);

/*
 * Parse a cpulist ("0-3,8,10-11", surrounding white space allowed, "" is
 * the empty set) of len bytes (no NUL needed). 0, or -EINVAL (syntax, a
 * range backwards) / -ERANGE (a CPU >= HOST_MAX_CPUS).
 */
int host_cpus_parse(const char *s, size_t len, struct host_cpus *out);
/* "0-3,8" ("none" for the empty set), truncated to len; returns buf. */
char *host_cpus_format(const struct host_cpus *c, char *buf, size_t len);

/* /proc/stat: the per-CPU times that the sampled checks need (USER_HZ). */
struct host_stat {
	struct host_cpus present;
	uint64_t total[HOST_MAX_CPUS]; /* every field of the cpuN line */
	uint64_t idle[HOST_MAX_CPUS];  /* idle + iowait */
	uint64_t steal[HOST_MAX_CPUS];
};

/*
 * Parse /proc/stat's "cpuN" lines (other lines are skipped). 0, or -EINVAL
 * when a cpuN line is malformed or there is none.
 */
int host_stat_parse(const char *buf, size_t len, struct host_stat *out);

/*
 * /proc/PID/task/TID/stat (len bytes): the state letter, the CPU it last
 * ran on (field 39) and the name (printable, cut to comm_len - 1). 0 or
 * -EINVAL.
 */
int host_task_stat_parse(const char *buf, size_t len, char *state,
			 unsigned *cpu, char *comm, size_t comm_len);

/* One interrupt line of /proc/interrupts (numbered IRQs only). */
struct host_irq {
	unsigned irq;
	struct host_cpus fired; /* CPUs whose count is not 0 */
	uint64_t count;		/* sum over CPUs */
	char desc[96];		/* what follows the counts: chip, name */
};

/*
 * Parse /proc/interrupts: the header names the CPU of each column (offline
 * CPUs have none). Up to max numbered IRQs into out, their number in *n.
 * 0, or -EINVAL (no header, a numbered line that does not parse).
 */
int host_interrupts_parse(const char *buf, size_t len, struct host_irq *out,
			  unsigned max, unsigned *n);

/*
 * /proc/interrupts: the interrupts counted on the CPUs in cpus, every row
 * with per-CPU counts (numbered IRQs and LOC, RES, CAL, TLB, ...). 0, or
 * -EINVAL (no header, a count that does not parse).
 */
int host_interrupts_cpu_total(const char *buf, size_t len,
			      const struct host_cpus *cpus, uint64_t *total);

/* /proc/PID/task/TID/schedstat: time on a CPU and time waited on a run
 * queue, ns (the first two fields). 0 or -EINVAL. */
int host_schedstat_parse(const char *buf, size_t len, uint64_t *run_ns,
			 uint64_t *wait_ns);
/* /proc/PID/task/TID/status: its context switches. 0, or -EINVAL when
 * either line is missing or malformed. */
int host_status_ctxt_parse(const char *buf, size_t len, uint64_t *voluntary,
			   uint64_t *involuntary);

/* What one thread's scheduler counters and its CPU's interrupts say. */
struct host_thread {
	uint64_t run_ns, wait_ns;	 /* schedstat */
	uint64_t voluntary, involuntary; /* context switches (status) */
};

/* root/proc/PID/task/TID/{schedstat,status}. 0 or -errno. */
int host_thread_read(const char *root, int pid, int tid,
		     struct host_thread *out);
/* root/proc/interrupts summed over cpus. 0 or -errno. */
int host_irqs_read(const char *root, const struct host_cpus *cpus,
		   uint64_t *total);

/* A NIC whose interrupts and NUMA node matter. */
struct host_nic {
	char name[64];	 /* DPDK port or kernel interface, for messages */
	char ifname[32]; /* kernel interface, "" if none */
	char device[64]; /* bus device (PCI address), "" if none */
	int node;	 /* NUMA node, -1 unknown or none */
	int mem_node;	 /* node of its mbuf pool's memory, -1 unknown */
	bool dpdk;	 /* a DPDK port (else a kernel interface) */
};

#define HOST_MAX_NICS 16

/* What the caller measured or decided; zero = unknown / none. */
struct host_input {
	const char *root; /* "/" or a fixture tree */
	struct host_cpus lcores;
	bool cpuid_invariant; /* CPUID.80000007H:EDX[8] */
	/* TSC calibration against CLOCK_MONOTONIC_RAW (tsc_hz 0: none) */
	uint64_t tsc_hz;
	uint64_t tsc_window_ns;
	double tsc_spread_ppm;
	uint64_t dpdk_hz; /* rte_get_tsc_hz(), 0 if none */
	double tsc_ppm_vs_dpdk;
	struct host_nic nics[HOST_MAX_NICS];
	unsigned n_nics;
	const char *nic_note; /* why there are no NICs, when n_nics == 0 */
	/* The DPDK build, for the MANA checks (only on a host with MANA). */
	const char *dpdk_version; /* rte_version(), NULL unknown */
	bool mana_pmd_built;	  /* RTE_NET_MANA in its rte_build_config.h */
	const char *pmd_dir;	  /* RTE_EAL_PMD_PATH, NULL: none (static) */
};

enum host_verdict {
	HOST_OK,
	HOST_WARN,
	HOST_FAIL,
};

const char *host_verdict_name(enum host_verdict v); /* "ok" "warn" "fail" */

struct host_result {
	const char *name; /* stable check name (JSON "name") */
	enum host_verdict verdict;
	char value[400]; /* what was measured, always filled in */
	char fix[400];	 /* the command or kernel parameter; "" when ok */
};

/*
 * The sampled checks (steal time, runnable tasks on the lcores): /proc/stat
 * twice, and the tasks' states in between.
 */
struct host_sample {
	struct host_stat before, after;
	int err_before, err_after; /* 0 or -errno of reading/parsing */
	double seconds;
	unsigned n_scans;
	int self_pid; /* tasks of this process are ours, not others' */
	/* Tasks seen runnable (state R) on an lcore's CPU, by tid. */
	unsigned n_tasks;
	struct {
		int tid, pid;
		unsigned cpu, seen;
		char comm[20];
	} tasks[32];
	unsigned more_tasks; /* seen but not kept (table full) */
};

/* Read root/proc/stat into *s (the sample's start or end). 0 or -errno. */
int host_stat_read(const char *root, struct host_stat *s);
/*
 * One scan of root/proc/[pid]/task/[tid]/stat: the tasks of other processes
 * that are runnable and last ran on an lcore go into s. 0 or -errno.
 */
int host_tasks_scan(const char *root, const struct host_cpus *lcores,
		    struct host_sample *s);

/* The checks: each fills *r (never fails; a file it cannot read or parse
 * is a warn with the reason in the value). */
void host_check_tsc(const struct host_input *in, struct host_result *r);
void host_check_clocksource(const struct host_input *in, struct host_result *r);
void host_check_tsc_rate(const struct host_input *in, struct host_result *r);
void host_check_cpufreq(const struct host_input *in, struct host_result *r);
void host_check_isolation(const struct host_input *in, struct host_result *r);
/* s: the sample (siblings' load), or NULL (not sampled). */
void host_check_smt(const struct host_input *in, const struct host_sample *s,
		    struct host_result *r);
void host_check_irq(const struct host_input *in, struct host_result *r);
void host_check_cstates(const struct host_input *in, struct host_result *r);
void host_check_thp(const struct host_input *in, struct host_result *r);
void host_check_hugepages(const struct host_input *in, struct host_result *r);
void host_check_numa(const struct host_input *in, struct host_result *r);
void host_check_steal(const struct host_input *in, const struct host_sample *s,
		      struct host_result *r);
void host_check_runnable(const struct host_input *in,
			 const struct host_sample *s, struct host_result *r);

/*
 * MANA (PCI 1414:00ba), as DPDK's MANA guide (doc/guides/nics/mana.rst)
 * wants it: kernel >= 6.2 (or a backport), the mana, mana_ib and ib_uverbs
 * modules loaded and the device bound to mana, rdma-core's libmana.so.1
 * (rdma-core >= 44), the NIC DPDK takes with its kernel interfaces down,
 * and a DPDK with the MANA PMD. Only on a host that has the device.
 */
#define HOST_N_MANA_CHECKS 5
void host_check_mana_kernel(const struct host_input *in, struct host_result *r);
void host_check_mana_modules(const struct host_input *in,
			     struct host_result *r);
void host_check_mana_libmana(const struct host_input *in,
			     struct host_result *r);
void host_check_mana_iface(const struct host_input *in, struct host_result *r);
void host_check_mana_pmd(const struct host_input *in, struct host_result *r);

#define HOST_N_BASE_CHECKS 13 /* on every host */
#define HOST_N_CHECKS	   (HOST_N_BASE_CHECKS + HOST_N_MANA_CHECKS)

/*
 * Every check in order into r[HOST_N_CHECKS]; s NULL skips the two sampled
 * ones (steal, runnable); the MANA checks come last, on a host with a MANA
 * device only. Returns the number of results written.
 */
unsigned host_check_all(const struct host_input *in,
			const struct host_sample *s, struct host_result *r);

/*
 * The kernel's NICs with a bus device under root/sys/class/net (virtual
 * interfaces have none), for when no DPDK port is given: up to max into
 * out. Returns how many.
 */
unsigned host_kernel_nics(const char *root, struct host_nic *out, unsigned max);

/* PCI vendor and device ids of the MANA NIC. */
#define HOST_MANA_VENDOR 0x1414
#define HOST_MANA_DEVICE 0x00ba

/* root/sys/bus/pci/devices/BDF/{vendor,device}. 0 or -errno. */
int host_pci_id(const char *root, const char *bdf, unsigned *vendor,
		unsigned *device);

/* The PCI addresses of MANA devices under root (up to max); how many. */
unsigned host_mana_devices(const char *root, char (*bdf)[32], unsigned max);

/*
 * The interfaces that carry a default route (root/proc/net/route and
 * ipv6_route), up to max; how many.
 */
unsigned host_default_route_ifaces(const char *root, char (*ifname)[32],
				   unsigned max);

/*
 * The interface root/proc/net/route sends addr (IPv4, host order) through
 * (longest prefix). 0, or -ENOENT (no route), -errno.
 */
int host_route_iface(const char *root, uint32_t addr, char *ifname, size_t len);

/* The same for IPv6 (root/proc/net/ipv6_route; lo and reject routes
 * skipped). */
int host_route6_iface(const char *root, const uint8_t addr[16], char *ifname,
		      size_t len);

/* Read root/rel into buf (NUL-terminated); bytes read or -errno. */
ssize_t host_fs_read(const char *root, const char *rel, char *buf, size_t len);
/* The first line of root/rel, trailing white space cut. 0 or -errno. */
int host_fs_line(const char *root, const char *rel, char *buf, size_t len);

/* The online CPUs (root/sys/devices/system/cpu/online). 0 or -errno. */
int host_online_cpus(const char *root, struct host_cpus *out);

/*
 * The NUMA node of the page holding addr (move_pages), or -1 when the
 * kernel does not say. Touches nothing.
 */
int host_mem_node(const void *addr);

#endif /* LATPROBE_HOST_H */
