/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe doctor's clock checks (latprobe/host_clock.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latprobe/host_clock.h"
#include "latprobe/host_priv.h"

#define AZURE_FIX                                                              \
	"apt-get install chrony; add 'refclock PHC /dev/ptp_hyperv poll 3 "    \
	"dpoll -2 offset 0' to /etc/chrony/chrony.conf; systemctl restart "    \
	"chrony (docs/azure.md)"

/* The time daemons whose process name (comm, 15 characters) we know. */
static const char *const daemons[] = {"chronyd", "ntpd",    "systemd-timesyn",
				      "ptp4l",	 "phc2sys", "openntpd"};
#define N_DAEMONS (sizeof(daemons) / sizeof(daemons[0]))

/* Which of daemons[] run (bit i), from root/proc/<pid>/comm. */
static unsigned
running_daemons(const char *root)
{
	char path[PATH_MAX];
	unsigned found = 0;
	struct dirent *e;
	DIR *d;

	host_path_at(path, sizeof(path), root, "proc");
	d = opendir(path);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char rel[64], comm[32];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "proc/%.20s/comm", e->d_name);
		if (host_fs_line(root, rel, comm, sizeof(comm)) != 0)
			continue;
		for (unsigned i = 0; i < N_DAEMONS; i++)
			if (strcmp(comm, daemons[i]) == 0)
				found |= 1u << i;
	}
	closedir(d);
	return found;
}

/* The Hyper-V PHC: root/dev/ptp_hyperv, or a root/sys/class/ptp/ptpN whose
 * clock_name is "hyperv" (name: "/dev/ptp_hyperv" or "/dev/ptpN"). */
static bool
hyperv_phc(const char *root, char *name, size_t len)
{
	char path[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	host_path_at(path, sizeof(path), root, "dev/ptp_hyperv");
	if (access(path, F_OK) == 0) {
		snprintf(name, len, "/dev/ptp_hyperv");
		return true;
	}
	host_path_at(path, sizeof(path), root, "sys/class/ptp");
	d = opendir(path);
	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		char rel[PATH_MAX], cn[64];

		if (strncmp(e->d_name, "ptp", 3) != 0)
			continue;
		snprintf(rel, sizeof(rel), "sys/class/ptp/%.64s/clock_name",
			 e->d_name);
		if (host_fs_line(root, rel, cn, sizeof(cn)) == 0 &&
		    strcmp(cn, "hyperv") == 0) {
			snprintf(name, len, "/dev/%.64s", e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* A "refclock PHC <dev>" line (not a comment) in text naming dev. */
static bool
conf_uses(const char *text, const char *dev)
{
	const char *p = text;

	while (*p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
		char line[512];

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		{
			char w1[32], w2[32], w3[256];

			if (sscanf(line, " %31s %31s %255s", w1, w2, w3) == 3 &&
			    strcmp(w1, "refclock") == 0 &&
			    strcmp(w2, "PHC") == 0 && strcmp(w3, dev) == 0)
				return true;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return false;
}

/* chrony's configuration names dev as a PHC refclock. */
static bool
chrony_conf_uses(const char *root, const char *dev)
{
	static const char *const files[] = {"etc/chrony/chrony.conf",
					    "etc/chrony.conf"};
	char path[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;
	char *buf = malloc(65536);

	if (buf == NULL)
		return false;
	for (unsigned i = 0; !found && i < 2; i++)
		if (host_fs_read(root, files[i], buf, 65536) > 0)
			found = conf_uses(buf, dev);
	host_path_at(path, sizeof(path), root, "etc/chrony/conf.d");
	d = found ? NULL : opendir(path);
	while (d != NULL && !found && (e = readdir(d)) != NULL) {
		char rel[PATH_MAX];
		size_t l = strlen(e->d_name);

		if (l < 6 || strcmp(e->d_name + l - 5, ".conf") != 0)
			continue;
		snprintf(rel, sizeof(rel), "etc/chrony/conf.d/%.200s",
			 e->d_name);
		if (host_fs_read(root, rel, buf, 65536) > 0)
			found = conf_uses(buf, dev);
	}
	if (d != NULL)
		closedir(d);
	free(buf);
	return found;
}

static bool
is_hyperv(const char *root)
{
	char v[128];

	return host_fs_line(root, "sys/class/dmi/id/sys_vendor", v,
			    sizeof(v)) == 0 &&
	       strstr(v, "Microsoft") != NULL;
}

static void
fmt_ns(char *out, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(out, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(out, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000ull)
		snprintf(out, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(out, len, "%.1f s", (double)ns / 1e9);
}

unsigned
host_clock_checks(const char *root, const struct host_clock_input *in,
		  struct host_result *r)
{
	unsigned run = running_daemons(root);
	bool synced = in->chrony ? in->chrony_synced
				 : in->kernel_read && in->kernel_synced;
	bool hv = is_hyperv(root);
	char phc[PATH_MAX] = "", a[32], b[32];
	bool have_phc = hyperv_phc(root, phc, sizeof(phc));
	struct host_result *s = &r[0], *e = &r[1], *p = &r[2];

	/* Synchronised, and by what. */
	host_result_init(s, "clock_sync");
	if (synced && in->chrony)
		HVAL(s, "synchronised by chrony (reference %s, stratum %u)",
		     in->chrony_ref[0] != '\0' ? in->chrony_ref : "?",
		     in->chrony_stratum);
	else if (synced)
		HVAL(s, "synchronised (adjtimex: no STA_UNSYNC)");
	else if (in->chrony)
		HVAL(s, "not synchronised (chrony says so)");
	else if (in->kernel_read)
		HVAL(s,
		     "not synchronised (adjtimex: STA_UNSYNC or "
		     "TIME_ERROR, status 0x%x)",
		     in->kernel_status);
	else
		HVAL(s, "unknown (adjtimex did not answer)");
	HVAL(s, "; running:");
	if (run == 0)
		HVAL(s, " no time daemon (chronyd, ntpd, systemd-timesyncd, "
			"ptp4l)");
	for (unsigned i = 0; i < N_DAEMONS; i++)
		if (run & (1u << i))
			HVAL(s, " %s", daemons[i]);
	if (!synced) {
		s->verdict = HOST_WARN;
		HVAL(s, "; one-way delays are refused (round trips are not "
			"affected)");
		if (hv || have_phc)
			HFIX(s, AZURE_FIX);
		else
			HFIX(s, "apt-get install chrony (or enable "
				"systemd-timesyncd) and let it synchronise");
	}

	/* How large the error is. */
	host_result_init(e, "clock_error");
	fmt_ns(a, sizeof(a), in->kernel_esterror_ns);
	fmt_ns(b, sizeof(b), in->kernel_maxerror_ns);
	if (synced && in->chrony) {
		char c[32];

		fmt_ns(c, sizeof(c), in->chrony_bound_ns);
		HVAL(e,
		     "chrony's bound %s (|offset| + root dispersion + root "
		     "delay / 2); kernel esterror %s, maxerror %s",
		     c, a, b);
		if (in->chrony_bound_ns > HOST_CLOCK_ERR_WARN_NS)
			e->verdict = HOST_WARN;
	} else if (synced && in->kernel_esterror_ns == 0) {
		/* timesyncd sets esterror (and maxerror) to 0 whatever its
		 * offset: no figure, not a zero error. */
		HVAL(e,
		     "unknown: kernel esterror 0 (the time source gives no "
		     "error figure; systemd-timesyncd does so), maxerror %s; "
		     "one-way bounds are unknown",
		     b);
		e->verdict = HOST_WARN;
	} else if (synced) {
		HVAL(e, "kernel esterror %s, maxerror %s (no chrony to ask)", a,
		     b);
		if (in->kernel_esterror_ns > HOST_CLOCK_ERR_WARN_NS)
			e->verdict = HOST_WARN;
	} else {
		HVAL(e, "unknown: not synchronised (kernel maxerror %s)", b);
		e->verdict = HOST_WARN;
	}
	if (e->verdict == HOST_WARN)
		HFIX(e, "%s",
		     hv || have_phc ? AZURE_FIX
				    : "a closer time source: a PTP "
				      "clock (PHC) or a local NTP "
				      "server");

	/* The Hyper-V PTP clock. */
	host_result_init(p, "clock_ptp");
	if (have_phc) {
		bool used = (in->chrony && in->chrony_phc && synced) ||
			    chrony_conf_uses(root, phc) ||
			    (strcmp(phc, "/dev/ptp_hyperv") != 0 &&
			     chrony_conf_uses(root, "/dev/ptp_hyperv"));

		HVAL(p, "%s (the Hyper-V host's clock) %s", phc,
		     used ? "is chrony's refclock"
			  : "is there, and chrony does not use it");
		if (!used) {
			p->verdict = HOST_WARN;
			HFIX(p, AZURE_FIX);
		}
	} else if (hv) {
		HVAL(p, "a Hyper-V / Azure VM without /dev/ptp_hyperv");
		p->verdict = HOST_WARN;
		HFIX(p,
		     "modprobe hv_utils (its timesync PHC); Azure's images add "
		     "the udev rule that names it /dev/ptp_hyperv");
	} else {
		HVAL(p, "no Hyper-V PTP clock (not a Hyper-V / Azure VM)");
	}
	return HOST_N_CLOCK_CHECKS;
}
