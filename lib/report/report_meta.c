/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When, where and what was measured (meta, machine) and the TSC facts:
 * report_meta_init() and their text lines and JSON members.
 */
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "latprobe/report_internal.h"

/* CPU model, kernel and online CPUs; what cannot be read stays empty. */
static void
machine_probe(struct report_meta *m)
{
	struct utsname u;
	char line[512];
	FILE *f;
	long n;

	if (uname(&u) == 0) {
		/* "Linux 6.1.0-28-amd64": both fields are at most 64 bytes */
		size_t a = strnlen(u.sysname, 64), b = strnlen(u.release, 64);

		memcpy(m->kernel, u.sysname, a);
		m->kernel[a] = ' ';
		memcpy(m->kernel + a + 1, u.release, b);
		m->kernel[a + 1 + b] = '\0';
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	m->cpus_online = n > 0 ? (unsigned)n : 0;
	f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');
		size_t len;

		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		len = strcspn(colon, "\n");
		if (len >= sizeof(m->cpu_model))
			len = sizeof(m->cpu_model) - 1;
		memcpy(m->cpu_model, colon, len);
		m->cpu_model[len] = '\0';
		break;
	}
	fclose(f);
}

int
report_meta_init(struct report_meta *m, time_t start, const char *prog,
		 int argc, char *const argv[])
{
	size_t len = 1;
	struct tm tm;
	char *p;
	int i;

	if (m == NULL || argc < 0 || (argc > 0 && argv == NULL))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (gmtime_r(&start, &tm) != NULL)
		strftime(m->start_utc, sizeof(m->start_utc),
			 "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(m->host, sizeof(m->host)) != 0)
		m->host[0] = '\0';
	m->host[sizeof(m->host) - 1] = '\0';
	machine_probe(m);
	/* Worst case every byte quoted: 4 bytes each, plus quotes/space. */
	if (prog != NULL)
		len += strlen(prog);
	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	m->command = malloc(len);
	if (m->command == NULL)
		return -ENOMEM;
	p = m->command;
	p += sprintf(p, "%s", prog != NULL ? prog : "");
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain = a[0] != '\0';

		for (const char *c = a; *c != '\0'; c++)
			if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
				   "QRSTUVWXYZ0123456789-_./:=,+@%",
				   *c) == NULL)
				plain = false;
		if (p != m->command)
			*p++ = ' ';
		if (plain) {
			p += sprintf(p, "%s", a);
			continue;
		}
		/* Shell single quotes; a quote inside becomes '\'' */
		*p++ = '\'';
		for (const char *c = a; *c != '\0'; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		*p++ = '\'';
	}
	*p = '\0';
	return 0;
}

void
report_meta_fini(struct report_meta *m)
{
	if (m == NULL)
		return;
	free(m->command);
	m->command = NULL;
}

/* "Measured ..." and "Command: ..." lines, for what is known. */
void
rpt_text_meta(FILE *out, const struct report_meta *m, const char *target)
{
	if (m == NULL)
		return;
	fprintf(out, "Measured %s",
		rpt_set(m->start_utc) ? m->start_utc : "at an unknown time");
	if (rpt_set(m->host))
		fprintf(out, " on %s", m->host);
	if (rpt_set(m->source))
		fprintf(out, ", %s%s%s", m->source,
			target != NULL ? " -> " : "",
			target != NULL ? target : "");
	if (rpt_set(m->interface))
		fprintf(out, " via %s", m->interface);
	fputc('\n', out);
	if (rpt_set(m->command))
		fprintf(out, "Command: %s\n", m->command);
}

void
rpt_json_meta(struct json_object *root, const struct report_meta *m, int *err)
{
	struct json_object *mach = json_object_new_object();

	rpt_jset_u64(root, "format_version", REPORT_FORMAT_VERSION, err);
	rpt_jset_str(mach, "cpu_model",
		     m != NULL && rpt_set(m->cpu_model) ? m->cpu_model : NULL,
		     err);
	rpt_jset_u64(mach, "cpus_online", m != NULL ? m->cpus_online : 0, err);
	rpt_jset_u64(mach, "cores_used", m != NULL ? m->cores_used : 0, err);
	rpt_jset_str(mach, "kernel",
		     m != NULL && rpt_set(m->kernel) ? m->kernel : NULL, err);
	rpt_jset_str(mach, "dpdk_version", m != NULL ? m->dpdk_version : NULL,
		     err);
	rpt_jset_str(mach, "nic_driver", m != NULL ? m->nic_driver : NULL, err);
	rpt_jset_str(mach, "host",
		     m != NULL && rpt_set(m->host) ? m->host : NULL, err);
	rpt_jset(root, "machine", mach, err);
	rpt_jset_str(root, "start_utc",
		     m != NULL && rpt_set(m->start_utc) ? m->start_utc : NULL,
		     err);
	rpt_jset_str(root, "host",
		     m != NULL && rpt_set(m->host) ? m->host : NULL, err);
	rpt_jset_str(root, "source", m != NULL ? m->source : NULL, err);
	rpt_jset_str(root, "interface", m != NULL ? m->interface : NULL, err);
	rpt_jset_str(root, "command", m != NULL ? m->command : NULL, err);
	if (m != NULL && m->csum_rx != NULL && m->csum_tx != NULL) {
		struct json_object *cs = json_object_new_object();

		rpt_jset_str(cs, "rx", m->csum_rx, err);
		rpt_jset_str(cs, "tx", m->csum_tx, err);
		rpt_jset(root, "checksum_offloads", cs, err);
	} else {
		rpt_jset_str(root, "checksum_offloads", NULL, err);
	}
}

void
rpt_text_tsc(FILE *out, const struct report_tsc *t)
{
	fprintf(out, "TSC: %" PRIu64 " Hz (%.6f GHz), %s", t->hz,
		(double)t->hz / 1e9,
		t->invariant ? "invariant"
			     : "NOT invariant (latencies may be wrong)");
	if (t->dpdk_hz != 0)
		fprintf(out, "; DPDK says %" PRIu64 " Hz, %+.1f ppm",
			t->dpdk_hz, t->calib_ppm);
	if (t->read_cost_cycles > 0)
		fprintf(out, "; ordered read %.1f cycles", t->read_cost_cycles);
	fputc('\n', out);
}

struct json_object *
rpt_json_tsc(const struct report_tsc *t, int *err)
{
	struct json_object *o = json_object_new_object();

	rpt_jset_u64(o, "hz", t->hz, err);
	rpt_jset_bool(o, "invariant", t->invariant, err);
	rpt_jset_u64(o, "dpdk_hz", t->dpdk_hz, err);
	rpt_jset_double(o, "calib_ppm", t->calib_ppm, err);
	rpt_jset_double(o, "read_cost_cycles", t->read_cost_cycles, err);
	return o;
}
