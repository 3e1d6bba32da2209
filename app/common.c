/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "app.h"
#include "cli.h"
#include "eal_devs.h"
#include "log.h"
#include "latprobe/port.h"
#include "preflight.h"
#include "sigrule.h"
#include "latprobe/stall.h"
#include "latprobe/stamp_auth.h"

atomic_bool force_quit;
static atomic_bool hup_pending;
static atomic_bool hup_wanted;

/* SIGHUP: only the flag; the side thread takes it (app_hup_take()). */
static void
on_hup(int sig)
{
	(void)sig;
	atomic_store_explicit(&hup_pending, true, memory_order_relaxed);
}

void
app_hup_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_hup;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
	atomic_store_explicit(&hup_wanted, true, memory_order_relaxed);
}

bool
app_hup_pending(void)
{
	return atomic_load_explicit(&hup_pending, memory_order_relaxed);
}

bool
app_hup_take(void)
{
	return atomic_exchange_explicit(&hup_pending, false,
					memory_order_relaxed);
}

/*
 * The same signal again, from the same process, within 1 s of the first
 * is the first delivered twice, not a second request: timeout(1) sends its
 * signal to the command and to its process group, so the command gets it
 * twice at once (the report was lost that way in 5 of 6 runs under
 * timeout -s INT). A second Ctrl-C (the terminal's: si_code SI_KERNEL) or
 * a signal from another process still means "now". app/sigrule.c.
 */
static struct app_sig_first first_sig;

static long long
signal_now_ns(void)
{
	struct timespec t;
	int saved = errno; /* the interrupted code's */
	long long ns = 1;

	/* clock_gettime() is async-signal-safe (POSIX); + 1: never 0. */
	if (clock_gettime(CLOCK_MONOTONIC, &t) == 0)
		ns = (long long)t.tv_sec * 1000000000ll + t.tv_nsec + 1;
	errno = saved;
	return ns;
}

/* Async-signal-safe: lock-free atomics and the clock, then _exit() at most. */
static void
on_signal(int sig, siginfo_t *si, void *uctx)
{
	int pid = 0;

	(void)uctx;
	if (si != NULL && si->si_code == SI_USER)
		pid = (int)si->si_pid;
	switch (app_sig_rule(&first_sig, sig, pid, signal_now_ns())) {
	case APP_SIG_FIRST:
		atomic_store_explicit(&force_quit, true, memory_order_relaxed);
		return;
	case APP_SIG_REPEAT:
		return; /* the first one, delivered twice */
	default:
		_exit(128 + sig); /* a second one: the user means it */
	}
}

bool
app_signal_seen(void)
{
	return atomic_load(&first_sig.who) != 0;
}

static atomic_bool deadline_passed;

void
app_deadline_set(void)
{
	atomic_store(&deadline_passed, true);
	app_quit_set();
}

bool
app_run_ending(void)
{
	return app_signal_seen() || atomic_load(&deadline_passed);
}

void
app_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	/*
	 * SA_RESTART: a system call the signal interrupts goes on, as it
	 * would without a handler. Nothing waits for EINTR to stop: the
	 * loops read force_quit, and their waits are bounded (poll() and
	 * sleeps with timeouts, which are never restarted, SO_RCVTIMEO's 1 ms
	 * on the kernel backend's blocking socket, pthread_cond_timedwait).
	 */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* EAL init calls this again: keep a SIGHUP handler we installed. */
	if (atomic_load_explicit(&hup_wanted, memory_order_relaxed))
		app_hup_install();
}

/* The calibration window, run on a thread of its own (app_dpdk_open). */
struct calib_job {
	uint64_t window_ns;
	struct tsc_calibration cal;
	int ret;
};

static void *
calib_thread(void *arg)
{
	struct calib_job *j = arg;

	j->ret = tsc_calibrate(j->window_ns, 0, &j->cal);
	return NULL;
}

/* The clock from a finished calibration (cal->ret: its result). */
static int
clock_finish(struct app_clock *c, int cal_ret,
	     const struct tsc_calibration *cal, uint64_t dpdk_hz)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->dpdk_hz = dpdk_hz;
	tsc_check_invariance(&c->inv);
	if (!c->inv.invariant)
		app_warn("the TSC is not invariant on this CPU (no "
			 "constant_tsc/nonstop_tsc): latencies may be wrong "
			 "across frequency changes");
	c->cal = *cal;
	c->cal.reference_hz = dpdk_hz;
	if (cal_ret == 0 && dpdk_hz != 0 && cal->hz != 0)
		c->cal.ppm_vs_reference = ((double)dpdk_hz - (double)cal->hz) /
					  (double)cal->hz * 1e6;
	ret = cal_ret;
	if (ret != 0) {
		app_err("TSC calibration against CLOCK_MONOTONIC_RAW failed: "
			"%s",
			strerror(-ret));
		return EXIT_TSC;
	}
	ret = tsc_clock_init(&c->clock, c->cal.hz);
	if (ret != 0) {
		app_err("the TSC runs at %llu Hz, which is not usable",
			(unsigned long long)c->cal.hz);
		return EXIT_TSC;
	}
	tsc_measure_read_cost(&c->cost);
	tsc_anchor_now(&c->anchor);
	return EXIT_OK;
}

int
app_clock_setup(struct app_clock *c, uint64_t window_ns, uint64_t dpdk_hz)
{
	struct tsc_calibration cal;
	int ret;

	ret = tsc_calibrate(window_ns, 0, &cal);
	return clock_finish(c, ret, &cal, dpdk_hz);
}

void
app_clock_report(const struct app_clock *c, struct report_tsc *t)
{
	memset(t, 0, sizeof(*t));
	t->hz = c->clock.hz;
	t->dpdk_hz = c->dpdk_hz;
	t->calib_ppm = c->cal.ppm_vs_reference;
	t->invariant = c->inv.invariant;
	t->read_cost_cycles = c->cost.start_cycles;
}

int
app_eal_init(int argc, char **argv)
{
	/* rte_eal_init() permutes and overwrites argv entries: give it a
	 * copy of the pointer array so the caller can still free its strings.
	 */
	char **copy;
	int ret;

	if (preflight_eal(argc, argv) != EXIT_OK)
		return EXIT_SETUP;
	copy = calloc((size_t)argc + 1, sizeof(*copy));
	if (copy == NULL) {
		app_err("out of memory");
		return EXIT_SETUP;
	}
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	/* EAL's lines on a device it cannot use: app_eal_devices_check(). */
	app_log_capture(true);
	ret = rte_eal_init(argc, copy);
	app_log_capture(false);
	free(copy);

	if (ret < 0) {
		app_err("DPDK EAL initialisation failed: %s (check the EAL "
			"options before '--', hugepages, and that you are "
			"root)",
			rte_strerror(rte_errno));
		return EXIT_SETUP;
	}
	return EXIT_OK;
}

int
app_out_open(struct app_out *o, const char *opt, const char *path)
{
	o->opt = opt;
	o->path = path;
	o->f = NULL;
	if (path == NULL)
		return EXIT_OK;
	o->f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (o->f == NULL) {
		app_err("%s %s: cannot write it: %s", opt, path,
			strerror(errno));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int
app_out_write(struct app_out *o, int (*fn)(const void *arg, FILE *f),
	      const void *arg)
{
	int ret;

	if (o->f == NULL)
		return EXIT_OK;
	ret = fn(arg, o->f);
	if (fflush(o->f) != 0 && ret == 0)
		ret = -errno;
	if (ferror(o->f) && ret == 0)
		ret = -EIO;
	if (o->f != stdout && fclose(o->f) != 0 && ret == 0)
		ret = -errno;
	o->f = NULL;
	if (ret != 0) {
		app_err("%s %s: writing failed: %s", o->opt, o->path,
			strerror(-ret));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

void
app_out_close(struct app_out *o)
{
	if (o->f != NULL && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
}

int
app_stdout_flush(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int e = errno ? errno : EIO;

		app_err("writing to stdout failed: %s", strerror(e));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int
app_args_split(int argc, char **argv, void (*usage)(FILE *f), bool short_help,
	       struct app_args *a)
{
	char err[512] = "";

	memset(a, 0, sizeof(*a));
	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--help") == 0 ||
		    (short_help && strcmp(argv[k], "-h") == 0)) {
			usage(stdout);
			return -1;
		}
	}
	if (cli_split_args(argc, argv, "latprobe", &a->eal_argc, &a->eal_argv,
			   &a->app_argc, &a->app_argv, &a->had_separator, err,
			   sizeof(err)) != 0) {
		app_err("%s", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int
app_args_no_eal(const struct app_args *a)
{
	if (a->had_separator && a->eal_argc > 1) {
		app_err("--backend kernel takes no EAL options (before '--')");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

void
app_args_free(struct app_args *a)
{
	cli_free_argv(a->eal_argv);
	cli_free_argv(a->app_argv);
	a->eal_argv = a->app_argv = NULL;
}

/*
 * One rx/tx queue pair per lcore: say so before port_setup() fails with
 * -ENOTSUP on a port that has fewer (af_xdp over a veth has one).
 */
static int
dpdk_queue_check(uint16_t port_id, unsigned n_lcores)
{
	struct rte_eth_dev_info info;
	unsigned max;

	if (rte_eth_dev_info_get(port_id, &info) != 0)
		return EXIT_OK; /* port_setup() says what is wrong */
	max = RTE_MIN(info.max_rx_queues, info.max_tx_queues);
	max = RTE_MIN(max, (unsigned)PORT_MAX_QUEUES);
	if (n_lcores <= max)
		return EXIT_OK;
	app_err("port %u (%s) has %u rx/tx queue pair(s) for us and EAL -l "
		"gives %u lcores, one queue pair each: give -l at most %u "
		"lcore(s), or the port more queues (af_packet: qpairs=N; "
		"af_xdp: queue_count=N, on an interface with N combined "
		"channels, which a veth has not)",
		port_id, info.driver_name, max, n_lcores, max);
	return EXIT_SETUP;
}

/*
 * A failsafe or netvsc master owns its sub-devices' ports (the VF, the
 * TAP), which EAL probed first: port 0 is then a sub-device, and using it
 * would bypass the master's failover. Without --port-id the first port no
 * one owns is taken instead; a given --port-id that is owned is refused.
 */
static int
dpdk_port_choose(uint16_t *port_id, bool given)
{
	struct rte_eth_dev_owner owner;
	uint64_t p;

	if (!rte_eth_dev_is_valid_port(*port_id) ||
	    rte_eth_dev_owner_get(*port_id, &owner) != 0 ||
	    owner.id == RTE_ETH_DEV_NO_OWNER)
		return EXIT_OK;
	p = rte_eth_find_next_owned_by(0, RTE_ETH_DEV_NO_OWNER);
	if (given) {
		app_err("port %u belongs to another port (its owner: %s): it "
			"is a sub-device of a failsafe or netvsc port%s",
			*port_id, owner.name,
			p < RTE_MAX_ETHPORTS ? "; leave --port-id out, or give "
					       "the master's"
					     : "");
		return EXIT_SETUP;
	}
	if (p >= RTE_MAX_ETHPORTS)
		return EXIT_OK; /* dpdk_port_open says there is none */
	*port_id = (uint16_t)p;
	return EXIT_OK;
}

/* The port, once EAL is up; an exit code (message printed). */
static int
dpdk_port_open(struct app_dpdk *d, struct port *port, uint16_t port_id,
	       bool promisc, bool hw_ts, struct port_conf *pc)
{
	int ret;

	if (!rte_eth_dev_is_valid_port(port_id)) {
		app_err("no DPDK port %u: give the EAL a device (e.g. "
			"--vdev net_af_xdp0,iface=IF or --profile NAME)",
			port_id);
		return EXIT_SETUP;
	}
	d->n_lcores = rte_lcore_count();
	ret = dpdk_queue_check(port_id, d->n_lcores);
	if (ret != EXIT_OK)
		return ret;
	memset(pc, 0, sizeof(*pc));
	pc->n_queues = (uint16_t)d->n_lcores;
	pc->promiscuous = promisc;
	pc->rx_timestamp = hw_ts;
	ret = port_setup(port, port_id, pc);
	if (ret != 0) {
		app_err("port %u set-up with %u queue(s) failed: %s", port_id,
			pc->n_queues, rte_strerror(-ret));
		return EXIT_SETUP;
	}
	d->have_port = true;
	ret = hw_ts ? port_hw_ts_check(port) : 0;
	if (ret != 0) {
		char vf_drv[64] = "";
		uint16_t vf;
		const char *why = NULL;

		if (port_vf_get(port_id, &vf, vf_drv, sizeof(vf_drv)) != 0)
			vf_drv[0] = '\0';
		if (ret == -ENOTSUP)
			why = port_path_hw_ts_refusal(port->driver, false,
						      vf_drv);
		app_err("--hw-timestamps: port %u (%s) %s (mlx5 can; netvsc, "
			"failsafe, MANA, af_xdp, af_packet, memif cannot): "
			"leave the option out to time with the TSC only",
			port_id, port->driver,
			why != NULL ? why
				    : "cannot read its clock "
				      "(rte_eth_read_clock)");
		return EXIT_SETUP;
	}
	return EXIT_OK;
}

int
app_dpdk_open(struct app_dpdk *d, struct port *port, const struct app_args *a,
	      uint16_t port_id, bool port_id_given, uint64_t calib_ns,
	      bool promisc, bool hw_ts, struct app_clock *clk)
{
	struct calib_job job = {.window_ns = calib_ns, .ret = -EINVAL};
	struct port_conf pc;
	pthread_t calib;
	bool calib_running;
	int ret;

	memset(d, 0, sizeof(*d));
	d->port = port;
	/*
	 * The calibration window (250 ms by default) runs while EAL starts
	 * and the port is set up (another 300 ms or so): the thread only
	 * sleeps between clock reads, so it does not slow them, and the first
	 * probe leaves that much sooner. Without the thread (it cannot be
	 * created), the window runs after the port, as before.
	 */
	calib_running = pthread_create(&calib, NULL, calib_thread, &job) == 0;
	ret = app_eal_init(a->eal_argc, a->eal_argv);
	if (ret == EXIT_OK) {
		d->eal = true;
		app_signals_install(); /* EAL may have set its own */
		ret = app_eal_devices_check(a->eal_argc, a->eal_argv);
	}
	if (ret == EXIT_OK)
		ret = dpdk_port_choose(&port_id, port_id_given);
	if (ret == EXIT_OK)
		ret = dpdk_port_open(d, port, port_id, promisc, hw_ts, &pc);
	if (calib_running)
		pthread_join(calib, NULL);
	else
		job.ret = tsc_calibrate(calib_ns, 0, &job.cal);
	if (ret != EXIT_OK)
		return ret;
	return clock_finish(clk, job.ret, &job.cal, rte_get_tsc_hz());
}

void
app_dpdk_close(struct app_dpdk *d)
{
	if (d->have_port)
		port_close(d->port);
	d->have_port = false;
	if (d->eal) {
		uint16_t p;

		/* Any other port no one owns (one never set up after an
		 * error): closed before EAL's bus clean-up, so that a failsafe
		 * or netvsc master closes its sub-devices itself (the bus
		 * would remove a sub-device first, and failsafe's close then
		 * used the released port: a crash on exit, DPDK 22.11). */
		RTE_ETH_FOREACH_DEV (p)
			(void)rte_eth_dev_close(p);
		rte_eal_cleanup();
	}
	d->eal = false;
}

void
app_tick_init(struct app_tick *t)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);
	pthread_condattr_destroy(&ca);
	t->stop = false;
	clock_gettime(CLOCK_MONOTONIC, &t->t0);
}

double
app_tick_elapsed(const struct app_tick *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->t0.tv_sec) +
	       (double)(now.tv_nsec - t->t0.tv_nsec) / 1e9;
}

bool
app_tick_sleep_until(struct app_tick *t, double until_s)
{
	struct timespec at = t->t0;
	long long ns = (long long)(until_s * 1e9);
	bool running;

	if (isinf(until_s)) {
		pthread_mutex_lock(&t->mu);
		while (!t->stop)
			pthread_cond_wait(&t->cv, &t->mu);
		pthread_mutex_unlock(&t->mu);
		return false;
	}
	at.tv_sec += (time_t)(ns / 1000000000LL);
	at.tv_nsec += (long)(ns % 1000000000LL);
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t->mu);
	while (!t->stop &&
	       pthread_cond_timedwait(&t->cv, &t->mu, &at) != ETIMEDOUT)
		;
	running = !t->stop;
	pthread_mutex_unlock(&t->mu);
	return running;
}

void
app_tick_stop(struct app_tick *t)
{
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

void
app_tick_fini(struct app_tick *t)
{
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
}

int
app_opt_bad(const char *opt, const char *want, const char *arg)
{
	app_err("%s wants %s, not '%s'", opt, want, arg);
	return -1;
}

void
app_common_opts_init(struct app_common_opts *co)
{
	memset(co, 0, sizeof(*co));
	co->calib_ns = 250000000ull;
	co->hlog_interval_ns = APP_HLOG_DEFAULT_INTERVAL_NS;
	co->stall_threshold_ns = STALL_DEFAULT_THRESHOLD_NS;
}

int
app_common_opt(int c, const char *arg, struct app_common_opts *co,
	       const char *cmd, const char *argv_opt)
{
	unsigned mode = 0;
	uint64_t v;
	int r;

	switch (c) {
	case APP_OPT_ADDR: {
		struct codec_ip ip;
		unsigned len;

		/* One IPv4 and one IPv6 address at most. */
		if (cli_parse_ip_prefix(arg, &ip, &len) != 0)
			return app_opt_bad("--addr",
					   "A.B.C.D/LEN or X:X::X/LEN", arg);
		if (ip.family == 6) {
			if (co->addr6.family == 6) {
				app_err("--addr: one IPv6 address only ('%s' "
					"is a second one)",
					arg);
				return -1;
			}
			co->addr6 = ip;
			co->prefix6 = len;
			return 0;
		}
		if (co->have_addr) {
			app_err("--addr: one IPv4 address only ('%s' is a "
				"second one)",
				arg);
			return -1;
		}
		co->addr = codec_ip_v4(&ip);
		co->prefix = len;
		co->have_addr = true;
		return 0;
	}
	case APP_OPT_DURATION:
		if (cli_parse_duration_ns(arg, &co->duration_ns) != 0)
			return app_opt_bad("-t",
					   "a duration (10, 1.5s, 500ms; 0 = "
					   "until stopped)",
					   arg);
		co->forever = co->duration_ns == 0;
		return 0;
	case APP_OPT_PORT_ID:
		if (cli_parse_u64(arg, 0, RTE_MAX_ETHPORTS - 1, &v) != 0)
			return app_opt_bad("--port-id", "a port number", arg);
		co->port_id = (uint16_t)v;
		co->port_id_given = true;
		return 0;
	case APP_OPT_JSON:
		co->json = arg;
		return 0;
	case APP_OPT_CALIBRATE:
		if (cli_parse_duration_ns(arg, &co->calib_ns) != 0 ||
		    co->calib_ns < 10000000ull)
			return app_opt_bad("--calibrate", "at least 10ms", arg);
		return 0;
	case APP_OPT_QUIET:
		co->quiet = true;
		return 0;
	case APP_OPT_HLOG:
		if (strcmp(arg, "-") == 0)
			return app_opt_bad("--hlog",
					   "a file (stdout has the report)",
					   arg);
		co->hlog = arg;
		return 0;
	case APP_OPT_HLOG_INTERVAL:
		if (cli_parse_duration_ns(arg, &co->hlog_interval_ns) != 0 ||
		    co->hlog_interval_ns < 10000000ull ||
		    co->hlog_interval_ns > 3600000000000ull)
			return app_opt_bad("--hlog-interval",
					   "a duration from 10ms to 1h", arg);
		co->have_hlog_interval = true;
		return 0;
	case APP_OPT_METRICS:
		/* ADDR alone: the default port, or the first free above. */
		if (cli_parse_target(arg, &co->metrics_addr, &co->metrics_port,
				     &co->have_metrics) != 0) {
			co->have_metrics = false;
			return app_opt_bad("--metrics",
					   "ADDR[:PORT] (127.0.0.1:9863)", arg);
		}
		if (!co->have_metrics)
			co->metrics_port = 0;
		co->have_metrics = true;
		return 0;
	case APP_OPT_BACKEND:
		if (strcmp(arg, "kernel") == 0)
			co->kernel = true;
		else if (strcmp(arg, "dpdk") != 0)
			return app_opt_bad("--backend", "dpdk or kernel", arg);
		return 0;
	case APP_OPT_BUSY_POLL:
		if (cli_parse_u64(arg, 0, 1000000, &v) != 0)
			return app_opt_bad("--busy-poll-us", "microseconds",
					   arg);
		co->busy_poll_us = (int)v;
		return 0;
	case APP_OPT_PROMISC:
		co->promisc = true;
		return 0;
	case APP_OPT_NO_DOCTOR:
		co->no_doctor = true;
		return 0;
	case APP_OPT_LIVE_PATH:
		co->live_path = true;
		return 0;
	case APP_OPT_HW_TIMESTAMPS:
		co->hw_timestamps = true;
		return 0;
	case APP_OPT_STALL_THRESHOLD:
		/* 0 turns it off; below 1 us every poll of a kernel socket
		 * would be one. */
		if (cli_parse_duration_ns(arg, &co->stall_threshold_ns) != 0 ||
		    (co->stall_threshold_ns != 0 &&
		     (co->stall_threshold_ns < 1000 ||
		      co->stall_threshold_ns > 1000000000ull)))
			return app_opt_bad("--stall-threshold",
					   "a duration from 1us to 1s, or 0 "
					   "(off)",
					   arg);
		return 0;
	case APP_OPT_STALL_TLV:
		co->stall_tlv = true;
		return 0;
	case APP_OPT_AUTH_KEY:
		r = stamp_auth_key_load(arg, co->auth_key, &co->auth_key_len,
					&mode);
		if (r != 0) {
			app_err("--auth-key %s: %s", arg,
				stamp_auth_key_error(r));
			return -1;
		}
		/* As ssh does with a private key, but a warning. */
		if ((mode & 077u) != 0)
			app_warn("--auth-key %s: mode %04o, open to group or "
				 "others: chmod 600 %s",
				 arg, mode, arg);
		return 0;
	default:
		app_err("unknown or incomplete option '%s' (try 'latprobe %s "
			"--help')",
			argv_opt, cmd);
		return -1;
	}
}
int
app_common_opt_or_help(int c, const char *arg, struct app_common_opts *co,
		       const char *cmd, const char *argv_opt,
		       void (*usage)(FILE *f))
{
	if (c == APP_OPT_HELP) {
		usage(stdout);
		exit(EXIT_OK);
	}
	return app_common_opt(c, arg, co, cmd, argv_opt);
}

int
app_common_opts_check(const struct app_common_opts *co)
{
	if (co->have_hlog_interval && co->hlog == NULL) {
		app_err("--hlog-interval needs --hlog FILE");
		return -1;
	}
	return 0;
}

#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
static uint32_t
thread_ctl(void *arg)
{
	struct app_thread *t = arg;

	t->fn(t->arg);
	return 0;
}
#endif

static int
thread_start_kernel(struct app_thread *t)
{
	cpu_set_t allowed, others;
	pthread_attr_t attr;
	long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	if (pthread_attr_init(&attr) != 0)
		return -ENOMEM;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
	    CPU_COUNT(&allowed) == 1 && n_cpus > 1) {
		CPU_ZERO(&others);
		for (long cpu = 0; cpu < n_cpus && cpu < CPU_SETSIZE; cpu++)
			if (!CPU_ISSET(cpu, &allowed))
				CPU_SET(cpu, &others);
		if (CPU_COUNT(&others) != 0)
			(void)pthread_attr_setaffinity_np(&attr, sizeof(others),
							  &others);
	}
	ret = pthread_create(&t->tid, &attr, t->fn, t->arg);
	pthread_attr_destroy(&attr);
	if (ret == EINVAL) /* a cpuset cgroup refuses those CPUs */
		ret = pthread_create(&t->tid, NULL, t->fn, t->arg);
	return -ret;
}

int
app_thread_start(struct app_thread *t, const char *name, bool dpdk,
		 void *(*fn)(void *arg), void *arg)
{
	int ret;

	t->fn = fn;
	t->arg = arg;
	t->started = false;
	t->is_ctl = false;
	if (!dpdk) {
		ret = thread_start_kernel(t);
	} else {
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
		ret = rte_thread_create_control(&t->ctl, name, thread_ctl, t);
		ret = ret < 0 ? ret : -ret; /* documented positive */
		t->is_ctl = ret == 0;
#else
		ret = rte_ctrl_thread_create(&t->tid, name, NULL, fn, arg);
		ret = ret < 0 ? ret : -ret; /* documented negative */
#endif
	}
	t->started = ret == 0;
	return ret;
}

int
app_thread_affinity(const struct app_thread *t, cpu_set_t *set)
{
	if (!t->started)
		return -ESRCH;
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	if (t->is_ctl)
		return rte_thread_get_affinity_by_id(t->ctl, set) != 0 ? -EIO
								       : 0;
#endif
	return -pthread_getaffinity_np(t->tid, sizeof(*set), set);
}

void
app_thread_join(struct app_thread *t)
{
	if (!t->started)
		return;
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	if (t->is_ctl)
		rte_thread_join(t->ctl, NULL);
	else
		pthread_join(t->tid, NULL);
#else
	pthread_join(t->tid, NULL);
#endif
	t->started = false;
}

void
app_hw_add(struct report_hw *hw, const struct nic_ts_stats *st,
	   const struct nic_clock *nic, const struct tsc_clock *clk)
{
	hw->stamped += st->stamped;
	hw->unstamped += st->unstamped;
	hw->outside += st->outside;
	hw->clock_samples += st->samples;
	hw->clock_sample_failures += st->sample_fail;
	if (hw->nic_hz == 0) {
		hw->nic_hz = nic_clock_hz(nic, clk->hz);
		hw->pair_gap_ns = (double)tsc_to_ns(clk, nic->best_gap);
	}
}

void
app_hw_check(const struct report_hw *hw)
{
	if (hw->outside > hw->stamped / 2)
		app_warn("--hw-timestamps: %llu of %llu NIC times fell outside "
			 "the TSC's window: the NIC's rx timestamps are not "
			 "on the clock rte_eth_read_clock reads (mlx5 in "
			 "real-time clock mode?)",
			 (unsigned long long)hw->outside,
			 (unsigned long long)hw->stamped + hw->outside);
}
