/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host checks of `latprobe doctor`: each reads what it needs under
 * in->root and fills one struct host_result. A file that is absent is a
 * fact (no cpufreq driver, no cpuidle states) and is reported as such; a
 * file that is present but cannot be parsed is a warn saying which file.
 *
 * Over 1,000 lines with a reason: it is one table of similar checks (TSC,
 * clocksource, TSC rate, cpufreq, isolation, SMT, IRQs, C-states, THP,
 * hugepages, NUMA, steal, runnable tasks, host_check_all) sharing the
 * static root-relative readers at its top (path_of, read_at, read_line_at,
 * read_cpus_at, cpus_str); each check is short and self-contained, so a
 * reader looks for a check by its name here; the parsers of /proc text are
 * in parse.c (fuzzed), the NIC checks in nic.c, latprobe setup in setup.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latprobe/host_priv.h"

#define MAX_NODES 64

const char *
host_verdict_name(enum host_verdict v)
{
	switch (v) {
	case HOST_OK:
		return "ok";
	case HOST_WARN:
		return "warn";
	default:
		return "fail";
	}
}

void
host_path_at(char *out, size_t len, const char *root, const char *rel)
{
	size_t rl = strlen(root);

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (snprintf(out, len, "%.*s/%s", (int)rl, root,
		     rel[0] == '/' ? rel + 1 : rel) >= (int)len)
		out[0] = '\0'; /* too long: open("") fails with ENOENT */
}

static void
path_of(char *out, size_t len, const char *root, const char *fmt, va_list ap)
{
	char rel[PATH_MAX];

	vsnprintf(rel, sizeof(rel), fmt, ap);
	host_path_at(out, len, root, rel);
}

/*
 * Read root/<fmt...> into buf (NUL-terminated, at most len - 1 bytes).
 * Bytes read, or -errno.
 */
static ssize_t __attribute__((format(printf, 4, 5)))
read_at(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	size_t off = 0;
	int fd;

	va_start(ap, fmt);
	path_of(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off + 1 < len) {
		ssize_t n = read(fd, buf + off, len - 1 - off);

		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	return (ssize_t)off;
}

/* The first line of a small file, trailing white space cut; -errno. */
static int __attribute__((format(printf, 4, 5)))
read_line_at(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX], tmp[512];
	va_list ap;
	ssize_t n;
	size_t l;
	char *nl;

	va_start(ap, fmt);
	path_of(path, sizeof(path), "", fmt, ap);
	va_end(ap);
	n = read_at(root, tmp, sizeof(tmp), "%s", path);
	if (n < 0)
		return (int)n;
	nl = strchr(tmp, '\n');
	if (nl != NULL)
		*nl = '\0';
	l = strlen(tmp);
	while (l > 0 &&
	       (tmp[l - 1] == ' ' || tmp[l - 1] == '\t' || tmp[l - 1] == '\r'))
		tmp[--l] = '\0';
	snprintf(buf, len, "%s", tmp);
	return 0;
}

ssize_t
host_fs_read(const char *root, const char *rel, char *buf, size_t len)
{
	return read_at(root, buf, len, "%s", rel);
}

int
host_fs_line(const char *root, const char *rel, char *buf, size_t len)
{
	return read_line_at(root, buf, len, "%s", rel);
}

/* A cpulist file; -ENOENT absent, -EINVAL garbage. */
static int __attribute__((format(printf, 3, 4)))
read_cpus_at(const char *root, struct host_cpus *c, const char *fmt, ...)
{
	char rel[PATH_MAX], buf[4096];
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	host_cpus_zero(c);
	n = read_at(root, buf, sizeof(buf), "%s", rel);
	if (n < 0)
		return (int)n;
	/* nohz_full says "(null)" when unset on some kernels */
	if (strncmp(buf, "(null)", 6) == 0)
		return 0;
	return host_cpus_parse(buf, (size_t)n, c);
}

#define VAL HVAL
#define FIX HFIX

void
host_result_init(struct host_result *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->verdict = HOST_OK;
}

void
host_field_add(char *field, size_t len, const char *fmt, ...)
{
	size_t l = strlen(field);
	va_list ap;

	if (l + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(field + l, len - l, fmt, ap);
	va_end(ap);
}

static void
worse(struct host_result *r, enum host_verdict v)
{
	if (v > r->verdict)
		r->verdict = v;
}

static const char *
cpus_str(const struct host_cpus *c, char *buf, size_t len)
{
	return host_cpus_format(c, buf, len);
}

/* A word in /proc/cpuinfo's first "flags" line. */
static int
cpu_flags(const char *root, char *flags, size_t len)
{
	static char buf[1 << 16];
	ssize_t n = read_at(root, buf, sizeof(buf), "proc/cpuinfo");
	char *f, *nl;

	flags[0] = '\0';
	if (n < 0)
		return (int)n;
	f = strncmp(buf, "flags", 5) == 0 ? buf : strstr(buf, "\nflags");
	if (f == NULL)
		return -ENODATA;
	f = strchr(f + 1, ':');
	if (f == NULL)
		return -ENODATA;
	nl = strchr(f, '\n');
	if (nl != NULL)
		*nl = '\0';
	snprintf(flags, len, " %s ", f + 1);
	return 0;
}

static bool
has_flag(const char *flags, const char *flag)
{
	char w[64];

	snprintf(w, sizeof(w), " %s ", flag);
	return strstr(flags, w) != NULL;
}

static bool
is_vm(const char *root)
{
	static char flags[8192];

	return cpu_flags(root, flags, sizeof(flags)) == 0 &&
	       has_flag(flags, "hypervisor");
}

void
host_check_tsc(const struct host_input *in, struct host_result *r)
{
	static char flags[8192];
	bool constant, nonstop, reliable;
	int ret;

	host_result_init(r, "tsc_invariant");
	ret = cpu_flags(in->root, flags, sizeof(flags));
	if (ret != 0 && !in->cpuid_invariant) {
		r->verdict = HOST_WARN;
		if (ret == -ENODATA)
			VAL(r, "no flags line in proc/cpuinfo, and CPUID says "
			       "not invariant");
		else
			VAL(r,
			    "cannot read proc/cpuinfo (%s), and CPUID says "
			    "not invariant",
			    strerror(-ret));
		FIX(r, "check /proc/cpuinfo is readable");
		return;
	}
	constant = has_flag(flags, "constant_tsc");
	nonstop = has_flag(flags, "nonstop_tsc");
	reliable = has_flag(flags, "tsc_reliable");
	VAL(r,
	    "%s (CPUID 80000007H EDX[8] %s; cpuinfo: constant_tsc %s, "
	    "nonstop_tsc %s, tsc_reliable %s)",
	    in->cpuid_invariant || (constant && nonstop) ? "invariant"
							 : "NOT invariant",
	    in->cpuid_invariant ? "yes" : "no", constant ? "yes" : "no",
	    nonstop ? "yes" : "no", reliable ? "yes" : "no");
	if (!(in->cpuid_invariant || (constant && nonstop))) {
		r->verdict = HOST_FAIL;
		FIX(r, "none in software: the TSC rate changes with frequency "
		       "and stops in deep C-states; use a CPU (or VM size) "
		       "with an invariant TSC");
	}
}

void
host_check_clocksource(const struct host_input *in, struct host_result *r)
{
	char cur[64], avail[256];
	int ret;

	host_result_init(r, "clocksource");
	ret = read_line_at(in->root, cur, sizeof(cur),
			   "sys/devices/system/clocksource/clocksource0/"
			   "current_clocksource");
	if (ret != 0) {
		r->verdict = HOST_WARN;
		VAL(r,
		    "cannot read sys/devices/system/clocksource/"
		    "clocksource0/current_clocksource: %s",
		    strerror(-ret));
		FIX(r, "mount sysfs");
		return;
	}
	if (read_line_at(in->root, avail, sizeof(avail),
			 "sys/devices/system/clocksource/clocksource0/"
			 "available_clocksource") != 0)
		snprintf(avail, sizeof(avail), "unknown");
	VAL(r, "%s (available: %s)", cur[0] ? cur : "(empty)", avail);
	if (strcmp(cur, "tsc") == 0)
		return;
	r->verdict = HOST_WARN;
	if (strstr(avail, "tsc") != NULL &&
	    (strcmp(avail, "tsc") == 0 || strncmp(avail, "tsc ", 4) == 0 ||
	     strstr(avail, " tsc") != NULL))
		FIX(r, "echo tsc > /sys/devices/system/clocksource/"
		       "clocksource0/current_clocksource (kernel: "
		       "clocksource=tsc tsc=reliable)");
	else
		FIX(r, "the kernel does not offer tsc: boot with "
		       "clocksource=tsc tsc=reliable; CLOCK_MONOTONIC_RAW, "
		       "which latprobe calibrates against, then follows "
		       "the TSC");
}

void
host_check_tsc_rate(const struct host_input *in, struct host_result *r)
{
	host_result_init(r, "tsc_rate");
	if (in->tsc_hz == 0) {
		r->verdict = HOST_FAIL;
		VAL(r, "no calibration against CLOCK_MONOTONIC_RAW");
		FIX(r, "check that CLOCK_MONOTONIC_RAW works (clocksource)");
		return;
	}
	VAL(r,
	    "%.6f MHz over %.3f s of CLOCK_MONOTONIC_RAW, spread %.3f ppm "
	    "between sub-windows",
	    (double)in->tsc_hz / 1e6, (double)in->tsc_window_ns / 1e9,
	    in->tsc_spread_ppm);
	if (in->dpdk_hz != 0)
		VAL(r,
		    "; rte_get_tsc_hz() %.6f MHz is %+.1f ppm off (latprobe "
		    "uses its own rate)",
		    (double)in->dpdk_hz / 1e6, in->tsc_ppm_vs_dpdk);
	/* The TSC and CLOCK_MONOTONIC_RAW should agree to a few ppm between
	 * sub-windows; more means one of them is not steady. */
	if (in->tsc_spread_ppm > 50.0) {
		r->verdict = HOST_WARN;
		FIX(r, "the TSC and CLOCK_MONOTONIC_RAW drift apart between "
		       "sub-windows: make tsc the clocksource, look at steal "
		       "time, calibrate longer (--calibrate 5s)");
	}
}

void
host_check_cpufreq(const struct host_input *in, struct host_result *r)
{
	char gov[64], drv[64] = "", cpus[64], not_perf[256] = "", b[16];
	unsigned with = 0, n_not_perf = 0;
	bool boost = false, boost_known = false;
	const char *boost_fix = NULL;

	host_result_init(r, "cpufreq");
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++) {
		if (!host_cpus_isset(&in->lcores, c))
			continue;
		if (read_line_at(in->root, gov, sizeof(gov),
				 "sys/devices/system/cpu/cpu%u/cpufreq/"
				 "scaling_governor",
				 c) != 0)
			continue;
		with++;
		if (drv[0] == '\0')
			(void)read_line_at(in->root, drv, sizeof(drv),
					   "sys/devices/system/cpu/cpu%u/"
					   "cpufreq/scaling_driver",
					   c);
		if (strcmp(gov, "performance") != 0) {
			n_not_perf++;
			host_field_add(not_perf, sizeof(not_perf),
				       "%s%s on CPU %u",
				       n_not_perf > 1 ? ", " : "", gov, c);
		}
	}
	/* intel_pstate: no_turbo 0 = turbo on; acpi-cpufreq/amd: boost 1 */
	if (read_line_at(in->root, b, sizeof(b),
			 "sys/devices/system/cpu/intel_pstate/no_turbo") == 0) {
		boost_known = true;
		boost = strcmp(b, "0") == 0;
		boost_fix = "echo 1 > /sys/devices/system/cpu/intel_pstate/"
			    "no_turbo";
	} else if (read_line_at(in->root, b, sizeof(b),
				"sys/devices/system/cpu/cpufreq/boost") == 0) {
		boost_known = true;
		boost = strcmp(b, "1") == 0;
		boost_fix = "echo 0 > /sys/devices/system/cpu/cpufreq/boost";
	}
	cpus_str(&in->lcores, cpus, sizeof(cpus));
	if (with == 0) {
		if (is_vm(in->root)) {
			VAL(r,
			    "no cpufreq driver on CPUs %s: the hypervisor "
			    "controls frequency (cpuinfo: hypervisor)",
			    cpus);
		} else {
			r->verdict = HOST_WARN;
			VAL(r,
			    "no cpufreq driver on CPUs %s: the firmware "
			    "controls frequency",
			    cpus);
			FIX(r, "set the BIOS/UEFI power profile to maximum "
			       "performance (no turbo, no deep C-states)");
		}
		return;
	}
	VAL(r, "%s: ", drv[0] ? drv : "cpufreq");
	if (n_not_perf == 0)
		VAL(r, "governor performance on CPUs %s", cpus);
	else
		VAL(r, "governor %s", not_perf);
	if (with < host_cpus_count(&in->lcores))
		VAL(r, " (%u of the lcores have no cpufreq)",
		    host_cpus_count(&in->lcores) - with);
	if (boost_known)
		VAL(r, "; turbo/boost %s", boost ? "on" : "off");
	if (n_not_perf != 0) {
		r->verdict = HOST_WARN;
		FIX(r, "cpupower frequency-set -g performance");
	}
	if (boost) {
		r->verdict = HOST_WARN;
		FIX(r,
		    "%s%s (the frequency, hence the latency, then depends "
		    "on the other cores' load)",
		    r->fix[0] ? "; " : "", boost_fix);
	}
}

/* "name=" in /proc/cmdline: its value (up to a space), or NULL. */
static const char *
cmdline_param(const char *cmdline, const char *name, char *val, size_t len)
{
	size_t nl = strlen(name);
	const char *p = cmdline;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == cmdline || p[-1] == ' ') && p[nl] == '=') {
			size_t l = strcspn(p + nl + 1, " \n");

			snprintf(val, len, "%.*s", (int)l, p + nl + 1);
			return val;
		}
		p += nl;
	}
	return NULL;
}

/* isolcpus=[flags,]list: the flags ("domain", "nohz", "managed_irq") come
 * first, the cpulist after them. */
static int
isolcpus_list(const char *v, struct host_cpus *c)
{
	const char *p = v;

	for (;;) {
		const char *comma = strchr(p, ',');

		if (*p >= 'a' && *p <= 'z') {
			if (comma == NULL)
				return -EINVAL;
			p = comma + 1;
			continue;
		}
		return host_cpus_parse(p, strlen(p), c);
	}
}

void
host_check_isolation(const struct host_input *in, struct host_result *r)
{
	char cmdline[4096], v[512], a[256], b[256], c[256], l[256];
	struct host_cpus iso, nohz, nocb, miss;
	int ret;
	bool rcu_all = false;

	host_result_init(r, "isolation");
	if (read_at(in->root, cmdline, sizeof(cmdline), "proc/cmdline") < 0)
		cmdline[0] = '\0';
	/* The kernel's own view first; the command line when it has none. */
	ret = read_cpus_at(in->root, &iso, "sys/devices/system/cpu/isolated");
	if (ret == -ENOENT &&
	    cmdline_param(cmdline, "isolcpus", v, sizeof(v)) != NULL)
		ret = isolcpus_list(v, &iso);
	if (ret != 0 && ret != -ENOENT) {
		r->verdict = HOST_WARN;
		VAL(r, "cannot parse sys/devices/system/cpu/isolated: %s; ",
		    strerror(-ret));
	}
	ret = read_cpus_at(in->root, &nohz, "sys/devices/system/cpu/nohz_full");
	if (ret == -ENOENT &&
	    cmdline_param(cmdline, "nohz_full", v, sizeof(v)) != NULL)
		ret = host_cpus_parse(v, strlen(v), &nohz);
	if (ret != 0 && ret != -ENOENT) {
		r->verdict = HOST_WARN;
		VAL(r, "cannot parse nohz_full: %s; ", strerror(-ret));
	}
	host_cpus_zero(&nocb);
	if (cmdline_param(cmdline, "rcu_nocbs", v, sizeof(v)) != NULL) {
		if (strcmp(v, "all") == 0)
			rcu_all = true;
		else if (host_cpus_parse(v, strlen(v), &nocb) != 0) {
			r->verdict = HOST_WARN;
			VAL(r, "cannot parse rcu_nocbs=%s; ", v);
		}
	}
	/* The kernel offloads the callbacks of nohz_full CPUs too
	 * (rcu_init_nohz()): they count as rcu_nocbs. */
	for (unsigned i = 0; i < HOST_MAX_CPUS / 64; i++)
		nocb.w[i] |= nohz.w[i];
	VAL(r, "lcores %s; isolcpus %s, nohz_full %s, rcu_nocbs %s",
	    cpus_str(&in->lcores, l, sizeof(l)), cpus_str(&iso, a, sizeof(a)),
	    cpus_str(&nohz, b, sizeof(b)),
	    rcu_all ? "all" : cpus_str(&nocb, c, sizeof(c)));
	host_cpus_andnot(&miss, &in->lcores, &iso);
	if (host_cpus_count(&miss) != 0)
		VAL(r, "; not isolated: %s", cpus_str(&miss, a, sizeof(a)));
	if (!host_cpus_subset(&in->lcores, &iso) ||
	    !host_cpus_subset(&in->lcores, &nohz) ||
	    (!rcu_all && !host_cpus_subset(&in->lcores, &nocb))) {
		struct host_cpus online, rest;

		r->verdict = HOST_WARN;
		FIX(r,
		    "kernel command line: isolcpus=%s nohz_full=%s "
		    "rcu_nocbs=%s, then reboot",
		    l, l, l);
		if (host_online_cpus(in->root, &online) == 0) {
			host_cpus_andnot(&rest, &online, &in->lcores);
			if (host_cpus_count(&rest) == 0)
				FIX(r, " (the lcores are every CPU: leave one "
				       "out for the kernel and the rest)");
		}
	}
}

int
host_online_cpus(const char *root, struct host_cpus *out)
{
	return read_cpus_at(root, out, "sys/devices/system/cpu/online");
}

static int
stat_busy_pct(const struct host_sample *s, unsigned cpu, double *pct)
{
	uint64_t dt, di;

	if (s == NULL || s->err_before != 0 || s->err_after != 0 ||
	    !host_cpus_isset(&s->before.present, cpu) ||
	    !host_cpus_isset(&s->after.present, cpu))
		return -ENOENT;
	dt = s->after.total[cpu] - s->before.total[cpu];
	di = s->after.idle[cpu] - s->before.idle[cpu];
	if (s->after.total[cpu] < s->before.total[cpu] || di > dt)
		return -EINVAL;
	*pct = dt == 0 ? 0.0 : 100.0 * (double)(dt - di) / (double)dt;
	return 0;
}

void
host_check_smt(const struct host_input *in, const struct host_sample *s,
	       struct host_result *r)
{
	char ctl[32], a[64];
	unsigned n_pairs = 0;
	struct host_cpus iso;

	host_result_init(r, "smt");
	if (read_line_at(in->root, ctl, sizeof(ctl),
			 "sys/devices/system/cpu/smt/control") != 0)
		snprintf(ctl, sizeof(ctl), "unknown");
	(void)read_cpus_at(in->root, &iso, "sys/devices/system/cpu/isolated");
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++) {
		struct host_cpus sib;
		int ret;

		if (!host_cpus_isset(&in->lcores, c))
			continue;
		ret = read_cpus_at(in->root, &sib,
				   "sys/devices/system/cpu/cpu%u/topology/"
				   "thread_siblings_list",
				   c);
		if (ret == -ENOENT)
			continue;
		if (ret != 0) {
			r->verdict = HOST_WARN;
			VAL(r,
			    "%sCPU %u: cannot parse its "
			    "thread_siblings_list (%s)",
			    r->value[0] ? "; " : "", c, strerror(-ret));
			continue;
		}
		for (unsigned o = 0; o < HOST_MAX_CPUS; o++) {
			double pct;

			if (o == c || !host_cpus_isset(&sib, o))
				continue;
			n_pairs++;
			VAL(r, "%sCPU %u shares its core with CPU %u",
			    r->value[0] ? "; " : "", c, o);
			if (host_cpus_isset(&in->lcores, o)) {
				VAL(r, " (an lcore too)");
				worse(r, HOST_WARN);
			} else if (stat_busy_pct(s, o, &pct) == 0) {
				VAL(r, " (busy %.0f%% over the sample)", pct);
				if (pct >= 1.0)
					worse(r, HOST_WARN);
			} else {
				VAL(r, " (%s, load not sampled)",
				    host_cpus_isset(&iso, o) ? "isolated"
							     : "not isolated");
				if (!host_cpus_isset(&iso, o))
					worse(r, HOST_WARN);
			}
		}
	}
	if (n_pairs == 0) {
		VAL(r, "%sno SMT sibling on the lcores %s (smt/control: %s)",
		    r->value[0] ? "; " : "",
		    cpus_str(&in->lcores, a, sizeof(a)), ctl);
		return;
	}
	VAL(r, " (smt/control: %s)", ctl);
	if (r->verdict != HOST_OK)
		FIX(r, "nosmt on the kernel command line (or echo off > "
		       "/sys/devices/system/cpu/smt/control), or give the "
		       "siblings nothing to run (isolcpus them too)");
}

/* desc names dev: dev followed by something that is not a letter/digit. */
static bool
desc_names(const char *desc, const char *dev)
{
	size_t dl = strlen(dev);
	const char *p = desc;

	if (dl == 0)
		return false;
	while ((p = strstr(p, dev)) != NULL) {
		char after = p[dl];
		char before = ' ';

		if (p != desc)
			before = p[-1];

		if (!((after >= '0' && after <= '9') ||
		      (after >= 'a' && after <= 'z') ||
		      (after >= 'A' && after <= 'Z')) &&
		    !((before >= '0' && before <= '9') ||
		      (before >= 'a' && before <= 'z') ||
		      (before >= 'A' && before <= 'Z')))
			return true;
		p += dl;
	}
	return false;
}

/* The bus device of a kernel interface: the base name of its device link
 * (a PCI address, a VMBus UUID, "virtio2"); "" when it has none. */
static void
link_base(const char *root, const char *ifname, char *out, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	size_t rl = strlen(root);
	const char *base;
	ssize_t l;

	out[0] = '\0';
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (snprintf(path, sizeof(path), "%.*s/sys/class/net/%s/device",
		     (int)rl, root, ifname) >= (int)sizeof(path))
		return;
	l = readlink(path, link, sizeof(link) - 1);
	if (l <= 0)
		return;
	link[l] = '\0';
	base = strrchr(link, '/');
	if (snprintf(out, len, "%s", base != NULL ? base + 1 : link) >=
	    (int)len)
		out[0] = '\0'; /* cut, it would match something else */
}

void
host_check_irq(const struct host_input *in, struct host_result *r)
{
	static char buf[1 << 20];
	static struct host_irq irqs[4096];
	struct host_cpus online, rest;
	char a[128], b[128], bad[256] = "";
	unsigned n = 0, n_bad = 0;
	ssize_t len;
	int ret;

	host_result_init(r, "irq_affinity");
	if (in->n_nics == 0) {
		VAL(r, "no NIC to look at%s%s", in->nic_note ? ": " : "",
		    in->nic_note ? in->nic_note : "");
		return;
	}
	len = read_at(in->root, buf, sizeof(buf), "proc/interrupts");
	if (len < 0) {
		r->verdict = HOST_WARN;
		VAL(r, "cannot read proc/interrupts: %s", strerror((int)-len));
		FIX(r, "mount procfs");
		return;
	}
	ret = host_interrupts_parse(buf, (size_t)len, irqs,
				    sizeof(irqs) / sizeof(irqs[0]), &n);
	if (ret != 0) {
		r->verdict = HOST_WARN;
		VAL(r, "cannot parse proc/interrupts (%s)", strerror(-ret));
		FIX(r, "look at /proc/interrupts by hand");
		return;
	}
	for (unsigned k = 0; k < in->n_nics; k++) {
		const struct host_nic *nic = &in->nics[k];
		unsigned mine = 0;
		char kdev[64] = "";

		/* A DPDK port over a kernel interface (af_xdp, af_packet on a
		 * real NIC): its IRQs are named for the interface's device. */
		if (nic->ifname[0] != '\0')
			link_base(in->root, nic->ifname, kdev, sizeof(kdev));
		VAL(r, "%s%s", k ? "; " : "", nic->name);
		for (unsigned i = 0; i < n; i++) {
			struct host_cpus aff, hit;

			if (!desc_names(irqs[i].desc, nic->ifname) &&
			    !desc_names(irqs[i].desc, nic->device) &&
			    !desc_names(irqs[i].desc, kdev))
				continue;
			mine++;
			if (read_cpus_at(in->root, &aff,
					 "proc/irq/%u/effective_affinity_list",
					 irqs[i].irq) != 0 &&
			    read_cpus_at(in->root, &aff,
					 "proc/irq/%u/smp_affinity_list",
					 irqs[i].irq) != 0)
				aff = irqs[i].fired; /* where it did fire */
			host_cpus_and(&hit, &aff, &in->lcores);
			if (host_cpus_count(&hit) != 0) {
				n_bad++;
				host_field_add(bad, sizeof(bad), "%s%u",
					       n_bad > 1 ? "," : "",
					       irqs[i].irq);
			}
			if (mine <= 4)
				VAL(r, "%s IRQ %u on CPUs %s%s",
				    mine > 1 ? "," : ":", irqs[i].irq,
				    cpus_str(&aff, a, sizeof(a)),
				    host_cpus_count(&hit) ? " (an lcore)" : "");
		}
		if (mine > 4)
			VAL(r, " and %u more", mine - 4);
		if (mine == 0)
			VAL(r, ": no interrupts in /proc/interrupts (%s)",
			    nic->dpdk ? "polled, not interrupt-driven, or a "
					"software device"
				      : "a software device");
	}
	VAL(r, "; lcores %s", cpus_str(&in->lcores, a, sizeof(a)));
	if (n_bad == 0)
		return;
	r->verdict = HOST_WARN;
	if (host_online_cpus(in->root, &online) != 0)
		host_cpus_zero(&online);
	host_cpus_andnot(&rest, &online, &in->lcores);
	if (host_cpus_count(&rest) == 0)
		FIX(r,
		    "the lcores are every CPU: leave one out of the lcores "
		    "for the interrupts (IRQs %s)",
		    bad);
	else
		FIX(r,
		    "for i in %s; do echo %s > /proc/irq/$i/"
		    "smp_affinity_list; done (and keep irqbalance off "
		    "the lcores: IRQBALANCE_BANNED_CPULIST=%s)",
		    bad, cpus_str(&rest, b, sizeof(b)), a);
}

void
host_check_cstates(const struct host_input *in, struct host_result *r)
{
	char drv[64] = "", name[32], lat[32], dis[16], deep[256] = "";
	char states[256] = "", a[64];
	unsigned with = 0, n_deep = 0, first = HOST_MAX_CPUS;

	host_result_init(r, "cstates");
	if (read_line_at(in->root, drv, sizeof(drv),
			 "sys/devices/system/cpu/cpuidle/current_driver") != 0)
		snprintf(drv, sizeof(drv), "none");
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++) {
		if (!host_cpus_isset(&in->lcores, c))
			continue;
		for (unsigned k = 0; k < 16; k++) {
			if (read_line_at(in->root, name, sizeof(name),
					 "sys/devices/system/cpu/cpu%u/"
					 "cpuidle/state%u/name",
					 c, k) != 0)
				break;
			if (k == 0)
				with++;
			if (first == HOST_MAX_CPUS)
				first = c;
			if (read_line_at(in->root, dis, sizeof(dis),
					 "sys/devices/system/cpu/cpu%u/"
					 "cpuidle/state%u/disable",
					 c, k) != 0)
				snprintf(dis, sizeof(dis), "0");
			if (read_line_at(in->root, lat, sizeof(lat),
					 "sys/devices/system/cpu/cpu%u/"
					 "cpuidle/state%u/latency",
					 c, k) != 0)
				snprintf(lat, sizeof(lat), "?");
			/* The first lcore's states stand for all of them. */
			if (first == c)
				host_field_add(states, sizeof(states),
					       "%s%s (%s us%s)", k ? ", " : "",
					       name, lat,
					       strcmp(dis, "0") == 0
						       ? ""
						       : ", disabled");
			/* state0 is POLL, state1 is C1 (or the VM's halt):
			 * index 2 and up is deeper than C1. */
			if (k >= 2 && strcmp(dis, "0") == 0) {
				n_deep++;
				if (n_deep <= 4)
					host_field_add(deep, sizeof(deep),
						       "%s%s on CPU %u",
						       n_deep > 1 ? ", " : "",
						       name, c);
			}
		}
	}
	if (with == 0) {
		VAL(r, "no cpuidle states on CPUs %s (driver %s): %s",
		    cpus_str(&in->lcores, a, sizeof(a)), drv,
		    is_vm(in->root) ? "the vCPU halts, the hypervisor decides "
				      "the rest"
				    : "the firmware decides (check the BIOS)");
		return;
	}
	VAL(r, "driver %s, CPU %u: %s", drv, first, states);
	if (n_deep == 0) {
		VAL(r, "; nothing deeper than C1 enabled");
		return;
	}
	r->verdict = HOST_WARN;
	VAL(r, "; enabled deeper than C1: %s%s", deep,
	    n_deep > 4 ? " and more" : "");
	FIX(r, "cpupower idle-set -D 2 (now), or kernel: "
	       "intel_idle.max_cstate=1 processor.max_cstate=1 (or "
	       "idle=poll)");
}

void
host_check_thp(const struct host_input *in, struct host_result *r)
{
	char v[128], *sel, *end;
	int ret;

	host_result_init(r, "thp");
	ret = read_line_at(in->root, v, sizeof(v),
			   "sys/kernel/mm/transparent_hugepage/enabled");
	if (ret == -ENOENT) {
		VAL(r, "no transparent hugepages in this kernel");
		return;
	}
	sel = ret == 0 ? strchr(v, '[') : NULL;
	end = sel != NULL ? strchr(sel, ']') : NULL;
	if (end == NULL) {
		r->verdict = HOST_WARN;
		VAL(r,
		    "cannot parse sys/kernel/mm/transparent_hugepage/"
		    "enabled: '%s'",
		    ret == 0 ? v : strerror(-ret));
		FIX(r, "cat /sys/kernel/mm/transparent_hugepage/enabled");
		return;
	}
	*end = '\0';
	VAL(r, "%s", sel + 1);
	if (strcmp(sel + 1, "always") == 0) {
		r->verdict = HOST_WARN;
		VAL(r, " (khugepaged compaction can stall any process, the "
		       "lcores' neighbours included)");
		FIX(r, "echo madvise > /sys/kernel/mm/transparent_hugepage/"
		       "enabled (kernel: transparent_hugepage=madvise)");
	} else if (strcmp(sel + 1, "madvise") != 0 &&
		   strcmp(sel + 1, "never") != 0) {
		r->verdict = HOST_WARN;
		FIX(r, "echo madvise > /sys/kernel/mm/transparent_hugepage/"
		       "enabled");
	}
}

/* The node of each CPU (-1 unknown) and which nodes exist. */
static unsigned
cpu_nodes(const char *root, int *node_of, unsigned n_cpus, bool *exists,
	  struct host_result *r)
{
	unsigned n = 0;

	for (unsigned c = 0; c < n_cpus; c++)
		node_of[c] = -1;
	for (unsigned k = 0; k < MAX_NODES; k++) {
		struct host_cpus cpus;
		int ret;

		exists[k] = false;
		ret = read_cpus_at(root, &cpus,
				   "sys/devices/system/node/node%u/cpulist", k);
		if (ret != 0 && ret != -ENOENT) {
			r->verdict = HOST_WARN;
			VAL(r,
			    "cannot parse sys/devices/system/node/node%u/"
			    "cpulist (%s); ",
			    k, strerror(-ret));
			FIX(r, "%scat sys/devices/system/node/node%u/cpulist",
			    r->fix[0] ? "; " : "", k);
		}
		if (ret != 0)
			continue;
		exists[k] = true;
		n++;
		for (unsigned c = 0; c < n_cpus; c++)
			if (host_cpus_isset(&cpus, c))
				node_of[c] = (int)k;
	}
	return n;
}

void
host_check_hugepages(const struct host_input *in, struct host_result *r)
{
	static int node_of[HOST_MAX_CPUS];
	bool exists[MAX_NODES], want[MAX_NODES] = {false};
	const char *sizes[] = {"2048kB", "1048576kB"};
	unsigned n_nodes;
	char v[32], f[32];

	host_result_init(r, "hugepages");
	n_nodes = cpu_nodes(in->root, node_of, HOST_MAX_CPUS, exists, r);
	if (n_nodes == 0) {
		/* A kernel without NUMA: one pool for the machine. */
		for (unsigned s = 0; s < 2; s++) {
			if (read_line_at(in->root, v, sizeof(v),
					 "sys/kernel/mm/hugepages/hugepages-%s/"
					 "nr_hugepages",
					 sizes[s]) != 0)
				continue;
			VAL(r, "%s%s x %s", r->value[0] ? ", " : "", v,
			    sizes[s]);
			if (strcmp(v, "0") != 0)
				want[0] = true;
		}
		if (r->value[0] == '\0')
			VAL(r, "no hugepage sizes in sys/kernel/mm/hugepages");
		if (!want[0]) {
			r->verdict = HOST_WARN;
			FIX(r, "echo 1024 > /sys/kernel/mm/hugepages/"
			       "hugepages-2048kB/nr_hugepages");
		}
		return;
	}
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++)
		if (host_cpus_isset(&in->lcores, c) && node_of[c] >= 0)
			want[node_of[c]] = true;
	for (unsigned k = 0; k < in->n_nics; k++)
		if (in->nics[k].dpdk && in->nics[k].node >= 0 &&
		    in->nics[k].node < MAX_NODES)
			want[in->nics[k].node] = true;
	for (unsigned k = 0; k < MAX_NODES; k++) {
		bool any = false;

		if (!exists[k])
			continue;
		VAL(r, "%snode%u:", r->value[0] ? "; " : "", k);
		for (unsigned s = 0; s < 2; s++) {
			if (read_line_at(in->root, v, sizeof(v),
					 "sys/devices/system/node/node%u/"
					 "hugepages/hugepages-%s/nr_hugepages",
					 k, sizes[s]) != 0)
				continue;
			if (read_line_at(
				    in->root, f, sizeof(f),
				    "sys/devices/system/node/node%u/"
				    "hugepages/hugepages-%s/free_hugepages",
				    k, sizes[s]) != 0)
				snprintf(f, sizeof(f), "?");
			VAL(r, "%s %s x %s (%s free)", s ? "," : "", v,
			    sizes[s], f);
			if (strcmp(v, "0") != 0)
				any = true;
		}
		if (want[k])
			VAL(r, " (lcores or ports here)");
		if (want[k] && !any) {
			r->verdict = HOST_WARN;
			FIX(r,
			    "%secho 1024 > /sys/devices/system/node/node%u/"
			    "hugepages/hugepages-2048kB/nr_hugepages",
			    r->fix[0] ? "; " : "", k);
		}
	}
}

void
host_check_numa(const struct host_input *in, struct host_result *r)
{
	static int node_of[HOST_MAX_CPUS];
	bool exists[MAX_NODES], lnode[MAX_NODES] = {false};
	unsigned n_nodes, n = 0;
	int first = -1; /* the first node of the lcores */

	host_result_init(r, "numa");
	n_nodes = cpu_nodes(in->root, node_of, HOST_MAX_CPUS, exists, r);
	VAL(r, "%u NUMA node(s); lcores on node", n_nodes);
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++) {
		if (!host_cpus_isset(&in->lcores, c))
			continue;
		if (node_of[c] >= 0 && !lnode[node_of[c]]) {
			lnode[node_of[c]] = true;
			if (first < 0)
				first = node_of[c];
			VAL(r, "%s %d", n++ ? "," : "", node_of[c]);
		}
	}
	if (n == 0)
		VAL(r, " unknown");
	for (unsigned k = 0; k < in->n_nics; k++) {
		const struct host_nic *nic = &in->nics[k];

		VAL(r, "; %s on node ", nic->name);
		if (nic->node >= 0)
			VAL(r, "%d", nic->node);
		else
			VAL(r, "unknown (%s)",
			    nic->dpdk ? "a virtual device" : "no NUMA info");
		if (nic->dpdk) {
			if (nic->mem_node >= 0)
				VAL(r, ", its mbuf pool on node %d",
				    nic->mem_node);
			else
				VAL(r, ", its mbuf pool's node unknown");
		}
		if (n_nodes <= 1)
			continue;
		if (nic->node >= 0 && nic->node < MAX_NODES &&
		    !lnode[nic->node]) {
			r->verdict = HOST_WARN;
			FIX(r,
			    "%srun on lcores of node %d (%s's): EAL -l with "
			    "CPUs from sys/devices/system/node/node%d/"
			    "cpulist",
			    r->fix[0] ? "; " : "", nic->node, nic->name,
			    nic->node);
		}
		if (nic->mem_node >= 0 && nic->mem_node < MAX_NODES &&
		    ((nic->node >= 0 && nic->mem_node != nic->node) ||
		     !lnode[nic->mem_node])) {
			r->verdict = HOST_WARN;
			FIX(r,
			    "%sreserve hugepages on node %d (%s's mbuf pool "
			    "landed on node %d) and give EAL "
			    "--socket-mem for it",
			    r->fix[0] ? "; " : "",
			    nic->node >= 0 ? nic->node : first, nic->name,
			    nic->mem_node);
		}
	}
	if (in->n_nics == 0 && in->nic_note != NULL)
		VAL(r, "; %s", in->nic_note);
	if (n_nodes == 1)
		VAL(r, " (one node: nothing can be remote)");
}

int
host_stat_read(const char *root, struct host_stat *s)
{
	static char buf[1 << 18];
	ssize_t n = read_at(root, buf, sizeof(buf), "proc/stat");

	if (n < 0)
		return (int)n;
	return host_stat_parse(buf, (size_t)n, s);
}

int
host_thread_read(const char *root, int pid, int tid, struct host_thread *out)
{
	char buf[4096];
	ssize_t n;
	int ret;

	n = read_at(root, buf, sizeof(buf), "proc/%d/task/%d/schedstat", pid,
		    tid);
	if (n < 0)
		return (int)n;
	ret = host_schedstat_parse(buf, (size_t)n, &out->run_ns, &out->wait_ns);
	if (ret != 0)
		return ret;
	n = read_at(root, buf, sizeof(buf), "proc/%d/task/%d/status", pid, tid);
	if (n < 0)
		return (int)n;
	return host_status_ctxt_parse(buf, (size_t)n, &out->voluntary,
				      &out->involuntary);
}

int
host_irqs_read(const char *root, const struct host_cpus *cpus, uint64_t *total)
{
	static char buf[1 << 18];
	ssize_t n = read_at(root, buf, sizeof(buf), "proc/interrupts");

	if (n < 0)
		return (int)n;
	return host_interrupts_cpu_total(buf, (size_t)n, cpus, total);
}

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int
host_tasks_scan(const char *root, const struct host_cpus *lcores,
		struct host_sample *s)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;

	size_t rl = strlen(root);

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	snprintf(path, sizeof(path), "%.*s/proc", (int)rl, root);
	d = opendir(path);
	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		char tpath[PATH_MAX + 64];
		DIR *td;
		struct dirent *te;
		int pid;

		if (!all_digits(e->d_name))
			continue;
		pid = atoi(e->d_name);
		if (pid == s->self_pid)
			continue;
		if (snprintf(tpath, sizeof(tpath), "%s/%s/task", path,
			     e->d_name) >= (int)sizeof(tpath))
			continue;
		td = opendir(tpath);
		if (td == NULL)
			continue; /* gone meanwhile */
		while ((te = readdir(td)) != NULL) {
			char buf[1024], state, comm[20];
			unsigned cpu, k;
			ssize_t n;

			if (!all_digits(te->d_name))
				continue;
			n = read_at(root, buf, sizeof(buf),
				    "proc/%s/task/%s/stat", e->d_name,
				    te->d_name);
			if (n <= 0 ||
			    host_task_stat_parse(buf, (size_t)n, &state, &cpu,
						 comm, sizeof(comm)) != 0 ||
			    state != 'R' || !host_cpus_isset(lcores, cpu))
				continue;
			for (k = 0; k < s->n_tasks; k++)
				if (s->tasks[k].tid == atoi(te->d_name))
					break;
			if (k == s->n_tasks) {
				if (k ==
				    sizeof(s->tasks) / sizeof(s->tasks[0])) {
					s->more_tasks++;
					continue;
				}
				s->n_tasks++;
				s->tasks[k].tid = atoi(te->d_name);
				s->tasks[k].pid = pid;
				snprintf(s->tasks[k].comm,
					 sizeof(s->tasks[k].comm), "%s", comm);
			}
			s->tasks[k].cpu = cpu;
			s->tasks[k].seen++;
		}
		closedir(td);
	}
	closedir(d);
	s->n_scans++;
	return 0;
}

void
host_check_steal(const struct host_input *in, const struct host_sample *s,
		 struct host_result *r)
{
	unsigned n = 0;
	double worst = 0.0;

	host_result_init(r, "steal");
	if (s->err_before != 0 || s->err_after != 0) {
		r->verdict = HOST_WARN;
		VAL(r, "cannot read proc/stat: %s",
		    strerror(-(s->err_before != 0 ? s->err_before
						  : s->err_after)));
		FIX(r, "mount procfs");
		return;
	}
	for (unsigned c = 0; c < HOST_MAX_CPUS; c++) {
		uint64_t dt, ds;
		double pct;

		if (!host_cpus_isset(&in->lcores, c))
			continue;
		if (!host_cpus_isset(&s->before.present, c) ||
		    !host_cpus_isset(&s->after.present, c)) {
			VAL(r, "%sCPU %u not in proc/stat", n++ ? ", " : "", c);
			worse(r, HOST_WARN);
			continue;
		}
		dt = s->after.total[c] - s->before.total[c];
		ds = s->after.steal[c] - s->before.steal[c];
		if (s->after.total[c] < s->before.total[c] ||
		    s->after.steal[c] < s->before.steal[c] || ds > dt) {
			VAL(r, "%sCPU %u: its counters went backwards",
			    n++ ? ", " : "", c);
			worse(r, HOST_WARN);
			continue;
		}
		pct = dt == 0 ? 0.0 : 100.0 * (double)ds / (double)dt;
		if (pct > worst)
			worst = pct;
		VAL(r, "%s%.1f%% on CPU %u", n++ ? ", " : "", pct, c);
	}
	VAL(r, " over %.2f s", s->seconds);
	/* USER_HZ ticks: one tick of steal in a second is already 1 %. */
	if (worst > 0.0) {
		worse(r, HOST_WARN);
		FIX(r, "the hypervisor ran something else on these vCPUs: a "
		       "VM size with dedicated cores (no burstable/shared "
		       "sizes), or a dedicated host");
	} else if (r->verdict != HOST_OK) {
		FIX(r, "check /proc/stat");
	}
}

void
host_check_runnable(const struct host_input *in, const struct host_sample *s,
		    struct host_result *r)
{
	char a[64];
	unsigned shown = 0;
	uint64_t used = 0;

	host_result_init(r, "runnable");
	if (s->n_scans == 0) {
		r->verdict = HOST_WARN;
		VAL(r, "could not scan proc/*/task");
		FIX(r, "mount procfs");
		return;
	}
	if (s->n_tasks == 0) {
		VAL(r,
		    "no other task runnable on CPUs %s in %u scans over "
		    "%.2f s",
		    cpus_str(&in->lcores, a, sizeof(a)), s->n_scans,
		    s->seconds);
		return;
	}
	r->verdict = HOST_WARN;
	VAL(r, "%u other task(s) runnable on CPUs %s in %u scans over %.2f s:",
	    s->n_tasks + s->more_tasks, cpus_str(&in->lcores, a, sizeof(a)),
	    s->n_scans, s->seconds);
	/* The most often seen first (selection: at most 32 tasks). */
	for (; shown < 5 && shown < s->n_tasks; shown++) {
		unsigned best = s->n_tasks;

		for (unsigned k = 0; k < s->n_tasks; k++)
			if (!(used & (1ull << k)) &&
			    (best == s->n_tasks ||
			     s->tasks[k].seen > s->tasks[best].seen))
				best = k;
		used |= 1ull << best;
		VAL(r, "%s %s (pid %d tid %d) on CPU %u in %u",
		    shown ? "," : "", s->tasks[best].comm, s->tasks[best].pid,
		    s->tasks[best].tid, s->tasks[best].cpu,
		    s->tasks[best].seen);
	}
	if (s->n_tasks + s->more_tasks > shown)
		VAL(r, " and %u more", s->n_tasks + s->more_tasks - shown);
	FIX(r, "move them off the lcores (taskset -apc OTHER_CPUS PID), or "
	       "isolcpus= the lcores so that nothing is scheduled there");
}

unsigned
host_check_all(const struct host_input *in, const struct host_sample *s,
	       struct host_result *r)
{
	unsigned n = 0;

	host_check_tsc(in, &r[n++]);
	host_check_clocksource(in, &r[n++]);
	host_check_tsc_rate(in, &r[n++]);
	host_check_cpufreq(in, &r[n++]);
	host_check_isolation(in, &r[n++]);
	host_check_smt(in, s, &r[n++]);
	host_check_irq(in, &r[n++]);
	host_check_cstates(in, &r[n++]);
	host_check_thp(in, &r[n++]);
	host_check_hugepages(in, &r[n++]);
	host_check_numa(in, &r[n++]);
	if (s != NULL) {
		host_check_steal(in, s, &r[n++]);
		host_check_runnable(in, s, &r[n++]);
	}
	if (host_mana_devices(in->root, NULL, 0) != 0) {
		host_check_mana_kernel(in, &r[n++]);
		host_check_mana_modules(in, &r[n++]);
		host_check_mana_libmana(in, &r[n++]);
		host_check_mana_iface(in, &r[n++]);
		host_check_mana_pmd(in, &r[n++]);
	}
	return n;
}

unsigned
host_kernel_nics(const char *root, struct host_nic *out, unsigned max)
{
	char path[PATH_MAX], link[PATH_MAX], dpath[PATH_MAX + 300];
	unsigned n = 0;
	DIR *d;
	struct dirent *e;
	size_t rl = strlen(root);

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	snprintf(path, sizeof(path), "%.*s/sys/class/net", (int)rl, root);
	d = opendir(path);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < max) {
		struct host_nic *nic = &out[n];
		ssize_t l;
		const char *base;
		char node[16];

		if (e->d_name[0] == '.')
			continue;
		snprintf(dpath, sizeof(dpath), "%s/%s/device", path, e->d_name);
		l = readlink(dpath, link, sizeof(link) - 1);
		if (l <= 0)
			continue; /* lo, veth, bridges: no device */
		link[l] = '\0';
		base = strrchr(link, '/');
		base = base != NULL ? base + 1 : link;
		memset(nic, 0, sizeof(*nic));
		snprintf(nic->name, sizeof(nic->name), "%.31s (%.29s)",
			 e->d_name, base);
		snprintf(nic->ifname, sizeof(nic->ifname), "%.31s", e->d_name);
		snprintf(nic->device, sizeof(nic->device), "%.63s", base);
		nic->node = -1;
		nic->mem_node = -1;
		if (read_line_at(root, node, sizeof(node),
				 "sys/class/net/%s/device/numa_node",
				 e->d_name) == 0)
			nic->node = atoi(node);
		n++;
	}
	closedir(d);
	return n;
}

int
host_mem_node(const void *addr)
{
	void *page = (void *)addr; /* move_pages() only reads it */
	int status = -1;

	if (addr == NULL)
		return -1;
	/* nodes NULL: only report where the page is (any address in it). */
	if (move_pages(0, 1, &page, NULL, &status, 0) != 0 || status < 0)
		return -1;
	return status;
}
