/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_H
#define LATPROBE_APP_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_version.h>
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
#include <rte_thread.h>
#endif

#include "exit.h"
#include "msg.h"
#include "latprobe/codec.h"
#include "latprobe/nic_clock.h"
#include "latprobe/report.h"
#include "latprobe/stamp_auth.h"
#include "latprobe/timing.h"

/*
 * Set by SIGINT/SIGTERM (the only thing the handler touches) and by the
 * run's deadline; stored and loaded relaxed: it carries no other data.
 */
extern atomic_bool force_quit;

static inline bool
app_quit(void)
{
	return atomic_load_explicit(&force_quit, memory_order_relaxed);
}

static inline void
app_quit_set(void)
{
	atomic_store_explicit(&force_quit, true, memory_order_relaxed);
}

/* The first SIGINT/SIGTERM sets force_quit, a second one _exit()s (the
 * same signal again from the same process within 1 s is the first
 * delivered twice, as timeout(1) does: ignored). */
void app_signals_install(void);
/* A SIGINT/SIGTERM came (force_quit may also be set by the run itself:
 * the deadline, a removed device). */
bool app_signal_seen(void);
/* The run's deadline (-t) passed: force_quit, for good. */
void app_deadline_set(void);
/* Must the run end (a signal or the deadline)? A removed device also sets
 * force_quit to stop the workers, and a failover or re-attach clears it
 * again; only then, when this is false. */
bool app_run_ending(void);
/* SIGHUP sets a flag only (probe --targets re-reads its pinglist); the
 * side thread takes it with app_hup_take(). Without this, SIGHUP ends the
 * process as by default. */
void app_hup_install(void);
bool app_hup_take(void);
/* One came and is not taken yet. */
bool app_hup_pending(void);

/* The options probe and reflect share: same names, same meaning. */
struct app_common_opts {
	uint32_t addr; /* --addr A.B.C.D/LEN */
	unsigned prefix;
	bool have_addr;
	struct codec_ip addr6; /* --addr X:X::X/LEN (family 0: not given) */
	unsigned prefix6;
	uint64_t duration_ns; /* -t; 0 = no limit */
	bool forever;	      /* -t 0 (probe: also --forever): until stopped */
	uint16_t port_id;
	bool port_id_given; /* --port-id (else a failsafe/netvsc master
			       is taken over its sub-device port 0) */
	const char *json;
	uint64_t calib_ns;
	bool quiet, kernel, promisc;
	bool hw_timestamps; /* --hw-timestamps */
	bool live_path;	    /* --live-path */
	int busy_poll_us;
	uint8_t auth_key[STAMP_AUTH_KEY_MAX]; /* never printed */
	size_t auth_key_len;		      /* 0: unauthenticated */
	const char *hlog;		      /* --hlog FILE */
	uint64_t hlog_interval_ns;	      /* --hlog-interval */
	bool have_hlog_interval;
	bool no_doctor;	       /* --no-doctor: no host summary at start */
	uint32_t metrics_addr; /* --metrics ADDR:PORT, host order */
	uint16_t metrics_port;
	bool have_metrics;
	/* (app/stalls.c): --stall-threshold (0 = off) and, probe
	 * only, --stall-tlv. */
	uint64_t stall_threshold_ns;
	bool stall_tlv;
};

/* getopt_long codes of the shared options (long-only ones above 0xff). */
enum {
	APP_OPT_ADDR = 'a',
	APP_OPT_DURATION = 't',
	APP_OPT_PORT_ID = 'P',
	APP_OPT_JSON = 'j',
	APP_OPT_CALIBRATE = 'C',
	APP_OPT_QUIET = 'q',
	APP_OPT_BACKEND = 'B',
	APP_OPT_BUSY_POLL = 'Y',
	APP_OPT_AUTH_KEY = 'K',
	APP_OPT_HELP = 'H', /* --help: each command's table has its row */
	APP_OPT_PROMISC = 0x100,
	APP_OPT_HLOG = 0x200,
	APP_OPT_HLOG_INTERVAL,
	APP_OPT_NO_DOCTOR = 0x440,
	APP_OPT_HW_TIMESTAMPS = 0x480, /* h3's range: 0x480-0x4bf */
	APP_OPT_LIVE_PATH = 0x481,
	APP_OPT_METRICS = 0x580,	 /* h6's range: 0x580-0x5bf */
	APP_OPT_STALL_THRESHOLD = 0x740, /* h29's range: 0x740-0x77f */
	APP_OPT_STALL_TLV = 0x741,	 /* probe only */
};

/* Their struct option rows (the reflector adds --duration for -t). */
#define APP_COMMON_LONGOPTS                                                    \
	{"addr", required_argument, NULL, APP_OPT_ADDR},                       \
		{"port-id", required_argument, NULL, APP_OPT_PORT_ID},         \
		{"json", required_argument, NULL, APP_OPT_JSON},               \
		{"calibrate", required_argument, NULL, APP_OPT_CALIBRATE},     \
		{"quiet", no_argument, NULL, APP_OPT_QUIET},                   \
		{"backend", required_argument, NULL, APP_OPT_BACKEND},         \
		{"busy-poll-us", required_argument, NULL, APP_OPT_BUSY_POLL},  \
		{"promisc", no_argument, NULL, APP_OPT_PROMISC},               \
		{"auth-key", required_argument, NULL, APP_OPT_AUTH_KEY},       \
		{"hlog", required_argument, NULL, APP_OPT_HLOG},               \
		{"no-doctor", no_argument, NULL, APP_OPT_NO_DOCTOR},           \
		{"hw-timestamps", no_argument, NULL, APP_OPT_HW_TIMESTAMPS},   \
		{"live-path", no_argument, NULL, APP_OPT_LIVE_PATH},           \
		{"metrics", required_argument, NULL, APP_OPT_METRICS},         \
		{"stall-threshold", required_argument, NULL,                   \
		 APP_OPT_STALL_THRESHOLD},                                     \
	{                                                                      \
		"hlog-interval", required_argument, NULL,                      \
			APP_OPT_HLOG_INTERVAL                                  \
	}

/* --hlog-interval when not given (app/hlog_out.c writes the log). */
#define APP_HLOG_DEFAULT_INTERVAL_NS 1000000000ull

/* Defaults of the shared options. */
void app_common_opts_init(struct app_common_opts *co);

/*
 * What a command's getopt_long loop does not parse itself: a shared option
 * (code c, argument arg) into co and 0; else -1 after the one-line error of
 * a bad value, or of an unknown or incomplete option (argv_opt, as given;
 * "try 'latprobe <cmd> --help'").
 */
int app_common_opt(int c, const char *arg, struct app_common_opts *co,
		   const char *cmd, const char *argv_opt);

/*
 * The default branch of probe's and reflect's getopt_long loops: --help
 * (usage on stdout, exit 0), else app_common_opt().
 */
int app_common_opt_or_help(int c, const char *arg, struct app_common_opts *co,
			   const char *cmd, const char *argv_opt,
			   void (*usage)(FILE *f));

/* What the shared options cannot be, checked once they are all parsed: 0 or
 * -1 (printed). */
int app_common_opts_check(const struct app_common_opts *co);

/* "<opt> wants <what>, not '<arg>'"; returns -1. */
int app_opt_bad(const char *opt, const char *want, const char *arg);

struct app_clock {
	struct tsc_clock clock;
	struct tsc_calibration cal;
	struct tsc_invariance inv;
	struct tsc_read_cost cost;
	struct tsc_anchor anchor;
	uint64_t dpdk_hz;
};

/*
 * Calibrate the TSC over window_ns against CLOCK_MONOTONIC_RAW and build
 * the clock from the measured rate. Prints the one-line error itself and
 * returns an exit code (EXIT_OK or EXIT_TSC).
 */
int app_clock_setup(struct app_clock *c, uint64_t window_ns, uint64_t dpdk_hz);
void app_clock_report(const struct app_clock *c, struct report_tsc *t);

/*
 * --hw-timestamps: add one worker's counters and (from the first worker
 * that has one) its NIC clock mapping to the report's; warn when most NIC
 * times fell outside the TSC's window.
 */
void app_hw_add(struct report_hw *hw, const struct nic_ts_stats *st,
		const struct nic_clock *nic, const struct tsc_clock *clk);
void app_hw_check(const struct report_hw *hw);

/* The EAL arguments of info and doctor when none are given: no device, no
 * hugepages, no shared config (APP_EAL_NODEV_ARGC of them). */
#define APP_EAL_NODEV_ARGV                                                     \
	{                                                                      \
		"latprobe", "--no-pci", "--no-huge", "-m", "64",               \
			"--no-shconf", "--log-level=lib.eal:error", NULL       \
	}
#define APP_EAL_NODEV_ARGC 7

/* EAL init with our argv; EXIT_OK or EXIT_SETUP (message printed). */
int app_eal_init(int argc, char **argv);

/*
 * An output file (--json, --samples, ...), opened before anything is sent
 * so that a path that cannot be written is a usage error. "-" is stdout.
 */
struct app_out {
	const char *opt; /* "--json", for messages */
	const char *path;
	FILE *f;
};

/* Open for writing (truncates); EXIT_OK or EXIT_USAGE (message printed). */
int app_out_open(struct app_out *o, const char *opt, const char *path);
/*
 * Write through fn, then flush and close (stdout: flush only); EXIT_OK or
 * EXIT_RUNTIME (message printed). Nothing happens when it was not opened.
 */
int app_out_write(struct app_out *o, int (*fn)(const void *arg, FILE *f),
		  const void *arg);
/* Close without writing (error paths). */
void app_out_close(struct app_out *o);
/* Flush stdout; EXIT_OK or EXIT_RUNTIME (message printed). */
int app_stdout_flush(void);

/* A subcommand's argv: EAL part (before "--", profiles expanded) and ours. */
struct app_args {
	int eal_argc, app_argc;
	char **eal_argv, **app_argv;
	bool had_separator;
};

/*
 * Print usage and return -1 when argv asks for help ("--help", or "-h" too
 * when short_help); else split argv. EXIT_OK or EXIT_USAGE (printed).
 */
int app_args_split(int argc, char **argv, void (*usage)(FILE *f),
		   bool short_help, struct app_args *a);
void app_args_free(struct app_args *a);

/* --backend kernel runs without EAL: EXIT_USAGE (printed) if EAL options came.
 */
int app_args_no_eal(const struct app_args *a);

struct port;

/* The DPDK side shared by probe and reflect. */
struct app_dpdk {
	bool eal; /* rte_eal_init() succeeded */
	bool have_port;
	unsigned n_lcores;
	struct port *port;
};

/*
 * EAL init, TSC calibration, then port_id with one queue pair per lcore
 * (hw_ts: with NIC rx timestamps, EXIT_SETUP when the port has none).
 * Prints its one-line error; returns an exit code. Undo with
 * app_dpdk_close(), also after a failure.
 */
int app_dpdk_open(struct app_dpdk *d, struct port *port,
		  const struct app_args *a, uint16_t port_id,
		  bool port_id_given, uint64_t calib_ns, bool promisc,
		  bool hw_ts, struct app_clock *clk);
void app_dpdk_close(struct app_dpdk *d);

/*
 * A thread of ours beside the workers (the side thread, the metrics
 * server), never on a measuring CPU when that can be helped: with DPDK an
 * EAL control thread (rte_thread_create_control from 23.11,
 * rte_ctrl_thread_create before), which EAL keeps off the lcores; with the
 * kernel backend a pthread, put on the other online CPUs when the calling
 * thread (the worker) has exactly one (taskset -c N chose it), else left to
 * the scheduler (pinning a worker to the CPU it happens to start on put a
 * prober and a reflector on one CPU, both busy-polling).
 */
struct app_thread {
	void *(*fn)(void *arg);
	void *arg;
	bool started, is_ctl;
	pthread_t tid;
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	rte_thread_t ctl;
#endif
};

/* 0 or -errno; name: at most 15 characters. */
int app_thread_start(struct app_thread *t, const char *name, bool dpdk,
		     void *(*fn)(void *arg), void *arg);
/* The CPUs it may run on: 0 or -errno. */
int app_thread_affinity(const struct app_thread *t, cpu_set_t *set);
/* Waits for fn to return (the caller has told it to stop). */
void app_thread_join(struct app_thread *t);

/*
 * A once-a-second clock for the live-line threads: they sleep until the
 * next tick (or a deadline) instead of polling, so they do not keep
 * preempting a busy-polling lcore; app_tick_stop() wakes them at once.
 */
struct app_tick {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct timespec t0;
};

void app_tick_init(struct app_tick *t);
/* Sleeps until t0 + until_s (HUGE_VAL: until a stop). false once stopped. */
bool app_tick_sleep_until(struct app_tick *t, double until_s);
double app_tick_elapsed(const struct app_tick *t);
void app_tick_stop(struct app_tick *t);
void app_tick_fini(struct app_tick *t);

int cmd_info(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_reflect(int argc, char **argv);
int cmd_plot(int argc, char **argv);	/* no EAL */
int cmd_compare(int argc, char **argv); /* no EAL */
int cmd_setup(int argc, char **argv);	/* no EAL */

#endif /* LATPROBE_APP_H */
