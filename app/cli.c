/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_config.h>
#include <rte_version.h>

/* RTE_VER_* come from rte_build_config.h: without them every RTE_VERSION
 * test below would read 0 and pick 22.11's table. */
#ifndef RTE_VER_YEAR
#error "rte_config.h did not define RTE_VER_YEAR"
#endif

#include "cli.h"

int
cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int
cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (s == NULL || *s == '\0' || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mult = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mult = 1024ull * 1024, end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || v > UINT32_MAX)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int
cli_parse_duration_ns(const char *s, uint64_t *out)
{
	char *end;
	double v, mult = 1e9;

	if (s == NULL || *s == '\0' ||
	    !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -EINVAL;
	if (strcmp(end, "ns") == 0)
		mult = 1;
	else if (strcmp(end, "us") == 0)
		mult = 1e3;
	else if (strcmp(end, "ms") == 0)
		mult = 1e6;
	else if (strcmp(end, "s") == 0 || *end == '\0')
		mult = 1e9;
	else
		return -EINVAL;
	v *= mult;
	/* A year is more than any bounded run should ask for. */
	if (!isfinite(v) || v < 0 || v > 3.2e16)
		return -EINVAL;
	*out = (uint64_t)llround(v);
	return 0;
}

/*
 * "A.B.C.D" optionally followed by sep and a number in [min, max]: the
 * shape of both --addr (A.B.C.D/LEN) and TARGET (A.B.C.D:PORT).
 */
static int
parse_ipv4_suffixed(const char *s, char sep, uint64_t min, uint64_t max,
		    uint32_t *addr, uint64_t *num, bool *has_num)
{
	char buf[32];
	const char *at = strchr(s, sep);
	struct in_addr a;
	size_t n = at ? (size_t)(at - s) : strlen(s);

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -EINVAL;
	if (at != NULL && cli_parse_u64(at + 1, min, max, num) != 0)
		return -EINVAL;
	*addr = ntohl(a.s_addr);
	*has_num = at != NULL;
	return 0;
}

int
cli_parse_ipv4_prefix(const char *s, uint32_t *addr, unsigned *len)
{
	uint64_t l = 32;
	bool has;

	if (parse_ipv4_suffixed(s, '/', 1, 32, addr, &l, &has) != 0)
		return -EINVAL;
	*len = (unsigned)l;
	return 0;
}

int
cli_parse_target(const char *s, uint32_t *addr, uint16_t *port, bool *has_port)
{
	uint64_t p = 0;

	if (parse_ipv4_suffixed(s, ':', 1, 65535, addr, &p, has_port) != 0)
		return -EINVAL;
	*port = (uint16_t)p;
	return 0;
}

int
cli_parse_ip_prefix(const char *s, struct codec_ip *ip, unsigned *len)
{
	char buf[INET6_ADDRSTRLEN];
	const char *at;
	uint64_t l = 128;
	uint32_t a4;
	size_t n;

	if (strchr(s, ':') == NULL) {
		if (cli_parse_ipv4_prefix(s, &a4, len) != 0)
			return -EINVAL;
		memset(ip, 0, sizeof(*ip));
		ip->family = 4;
		a4 = htonl(a4);
		memcpy(ip->a, &a4, 4);
		return 0;
	}
	at = strchr(s, '/');
	n = at != NULL ? (size_t)(at - s) : strlen(s);
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, ip->a) != 1)
		return -EINVAL;
	if (at != NULL && cli_parse_u64(at + 1, 1, 128, &l) != 0)
		return -EINVAL;
	ip->family = 6;
	*len = (unsigned)l;
	return 0;
}

int
cli_parse_target_ip(const char *s, struct codec_ip *ip, uint16_t *port,
		    bool *has_port)
{
	char buf[INET6_ADDRSTRLEN];
	const char *end;
	uint64_t p = 0;
	uint32_t a4;
	size_t n;

	if (s[0] != '[' && strchr(s, ':') == strrchr(s, ':')) {
		/* No colon or one: IPv4 with an optional port. */
		if (cli_parse_target(s, &a4, port, has_port) != 0)
			return -EINVAL;
		memset(ip, 0, sizeof(*ip));
		ip->family = 4;
		a4 = htonl(a4);
		memcpy(ip->a, &a4, 4);
		return 0;
	}
	*has_port = false;
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (end == NULL)
			return -EINVAL;
		n = (size_t)(end - s - 1);
		s++;
		if (end[1] == ':') {
			if (cli_parse_u64(end + 2, 1, 65535, &p) != 0)
				return -EINVAL;
			*has_port = true;
		} else if (end[1] != '\0') {
			return -EINVAL;
		}
	} else {
		n = strlen(s);
	}
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, ip->a) != 1)
		return -EINVAL;
	ip->family = 6;
	*port = (uint16_t)p;
	return 0;
}

void
cli_format_ip(const struct codec_ip *ip, char *out)
{
	if (ip->family == 6) {
		if (inet_ntop(AF_INET6, ip->a, out, CLI_IP_STRLEN) == NULL)
			snprintf(out, CLI_IP_STRLEN, "?");
		return;
	}
	snprintf(out, CLI_IP_STRLEN, "%u.%u.%u.%u", ip->a[0], ip->a[1],
		 ip->a[2], ip->a[3]);
}

void
cli_format_ipv4(uint32_t addr, char *out)
{
	snprintf(out, 16, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 0xff,
		 (addr >> 8) & 0xff, addr & 0xff);
}

#define PROFILE_DIRS 7

/*
 * Where --profile NAME looks, in order: $LATPROBE_PROFILE_DIR; the host's
 * own profiles (CLI_HOST_PROFILE_DIR, where `latprobe setup` writes); when this
 * binary runs from a meson build directory (build.ninja next to app/), the
 * checkout around it and the source tree it was built from; then the
 * share/latprobe/dpdk-config of the prefix the binary sits in (bin/..), of
 * the configured prefix, and /usr/share. An installed binary never looks at
 * the tree it was built from. Returns how many of dirs it filled.
 */
static unsigned
profile_dirs(char dirs[PROFILE_DIRS][PATH_MAX + 32])
{
	const char *env = getenv("LATPROBE_PROFILE_DIR");
	char exe[PATH_MAX], ninja[PATH_MAX + 32];
	unsigned k = 0;
	ssize_t n;

	if (env != NULL)
		snprintf(dirs[k++], PATH_MAX + 32, "%s", env);
	snprintf(dirs[k++], PATH_MAX + 32, "%s", CLI_HOST_PROFILE_DIR);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL)
			*slash = '\0';
		snprintf(ninja, sizeof(ninja), "%s/../build.ninja", exe);
		if (access(ninja, F_OK) == 0) {
			snprintf(dirs[k++], PATH_MAX + 32,
				 "%s/../../dpdk-config", exe);
			snprintf(dirs[k++], PATH_MAX + 32, "%s",
				 LATPROBE_PROFILE_DIR);
		}
		snprintf(dirs[k++], PATH_MAX + 32,
			 "%s/../share/latprobe/dpdk-config", exe);
	}
	snprintf(dirs[k++], PATH_MAX + 32, "%s", LATPROBE_DATADIR);
	snprintf(dirs[k++], PATH_MAX + 32, "/usr/share/latprobe/dpdk-config");
	return k;
}

/* Open --profile NAME: a path as it is, else the first profile_dirs() hit;
 * path is what was tried last. */
static FILE *
open_profile(const char *name, char *path, size_t cap)
{
	char dirs[PROFILE_DIRS][PATH_MAX + 32];
	unsigned n;
	FILE *f = NULL;

	if (strchr(name, '/') != NULL) {
		snprintf(path, cap, "%s", name);
		return fopen(path, "r");
	}
	n = profile_dirs(dirs);
	for (unsigned k = 0; f == NULL && k < n; k++) {
		int w = snprintf(path, cap, "%s/%s", dirs[k], name);

		/* A cut path would open another file: not this directory. */
		if (w < 0 || (size_t)w >= cap) {
			errno = ENAMETOOLONG;
			continue;
		}
		f = fopen(path, "r");
	}
	return f;
}

/* Profile names found in dir, sorted, appended to out as " a, b," (no
 * duplicates). */
static void
list_profiles_in(const char *dir, char *out, size_t cap)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int k = 0; k < n; k++) {
		const char *name = ents[k]->d_name;
		char key[300];
		size_t len = strlen(out);

		snprintf(key, sizeof(key), " %s,", name);
		/* README.md, dot files and the like are no profiles. */
		if (name[0] != '.' && strchr(name, '.') == NULL &&
		    strstr(out, key) == NULL && len + strlen(key) + 1 < cap)
			snprintf(out + len, cap - len, "%s", key);
		free(ents[k]);
	}
	if (n >= 0)
		free(ents);
}

/* The same directories open_profile() looks in. */
static void
list_profiles(char *out, size_t cap)
{
	char dirs[PROFILE_DIRS][PATH_MAX + 32];
	unsigned n = profile_dirs(dirs);

	out[0] = '\0';
	for (unsigned k = 0; k < n; k++)
		list_profiles_in(dirs[k], out, cap);
}

static int
push(char ***v, int *n, int *cap, const char *s)
{
	if (*n + 2 > *cap) {
		int nc = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, (size_t)nc * sizeof(**v));

		if (nv == NULL)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n] = strdup(s);
	if ((*v)[*n] == NULL)
		return -ENOMEM;
	(*n)++;
	(*v)[*n] = NULL;
	return 0;
}

/* Profile format: EAL options separated by white space; '#' starts a comment.
 */
static int
push_profile(char ***v, int *n, int *cap, const char *name, char *err,
	     unsigned err_len)
{
	char path[PATH_MAX + 64], line[1024];
	FILE *f = open_profile(name, path, sizeof(path));
	int ret = 0;

	if (f == NULL) {
		char names[256];
		size_t len;

		list_profiles(names, sizeof(names));
		len = strlen(names);
		if (len > 0)
			names[len - 1] = '\0'; /* the last ',' */
		snprintf(err, err_len,
			 "profile '%s' not found (looked in "
			 "$LATPROBE_PROFILE_DIR, " CLI_HOST_PROFILE_DIR
			 ", the checkout's "
			 "dpdk-config/, share/latprobe/dpdk-config/ of "
			 "the install, /usr/share/latprobe/dpdk-config); "
			 "%s%s",
			 name, len > 0 ? "profiles:" : "no profile found",
			 names);
		return -ENOENT;
	}
	while (ret == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *hash = strchr(line, '#'), *tok, *save = NULL;

		if (hash != NULL)
			*hash = '\0';
		for (tok = strtok_r(line, " \t\r\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			ret = push(v, n, cap, tok);
			if (ret != 0)
				break;
		}
	}
	fclose(f);
	return ret;
}

int
cli_split_args(int argc, char **argv, const char *prog, int *eal_argc,
	       char ***eal_argv, int *app_argc, char ***app_argv,
	       bool *had_separator, char *err, unsigned err_len)
{
	int sep = -1, en = 0, ecap = 0, an = 0, acap = 0, ret;

	*eal_argv = NULL;
	*app_argv = NULL;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	}
	*had_separator = sep >= 0;
	ret = push(eal_argv, &en, &ecap, prog);
	if (ret == 0)
		ret = push(app_argv, &an, &acap, prog);
	for (int i = 0; ret == 0 && i < (sep >= 0 ? sep : 0); i++) {
		if (strcmp(argv[i], "--profile") == 0 ||
		    strncmp(argv[i], "--profile=", 10) == 0) {
			const char *name =
				argv[i][9] == '=' ? argv[i] + 10 : argv[i + 1];

			if (name == NULL ||
			    (argv[i][9] != '=' && i + 1 >= sep)) {
				snprintf(err, err_len,
					 "--profile needs a name");
				ret = -EINVAL;
				break;
			}
			ret = push_profile(eal_argv, &en, &ecap, name, err,
					   err_len);
			if (argv[i][9] != '=')
				i++;
			continue;
		}
		ret = push(eal_argv, &en, &ecap, argv[i]);
	}
	for (int i = sep >= 0 ? sep + 1 : 0; ret == 0 && i < argc; i++)
		ret = push(app_argv, &an, &acap, argv[i]);
	if (ret != 0) {
		cli_free_argv(*eal_argv);
		cli_free_argv(*app_argv);
		*eal_argv = *app_argv = NULL;
		if (ret == -ENOMEM)
			snprintf(err, err_len, "out of memory");
		return ret;
	}
	*eal_argc = en;
	*app_argc = an;
	return 0;
}

void
cli_free_argv(char **v)
{
	if (v == NULL)
		return;
	for (char **p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

/*
 * The EAL's long options of the DPDK built against (eal_long_options[] in
 * lib/eal/common/eal_common_options.c, names in eal_options.h): has_arg 0
 * none, 1 required, 2 optional (only as --opt=value). 22.11 and 23.11 have
 * the same 37; 24.11 adds --log-color[=when] and --log-timestamp[=format]
 * and makes --syslog's facility optional (--syslog[=facility]).
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define EAL_SYSLOG_HAS_ARG 2
#else
#define EAL_SYSLOG_HAS_ARG 1
#endif
static const struct {
	const char *name;
	int has_arg;
} eal_long[] = {
	{"allow", 1},
	{"base-virtaddr", 1},
	{"block", 1},
	{"create-uio-dev", 0},
	{"file-prefix", 1},
	{"force-max-simd-bitwidth", 1},
	{"help", 0},
	{"huge-dir", 1},
	{"huge-unlink", 2},
	{"huge-worker-stack", 2},
	{"in-memory", 0},
	{"iova-mode", 1},
	{"lcores", 1},
	{"legacy-mem", 0},
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
	{"log-color", 2},
#endif
	{"log-level", 1},
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
	{"log-timestamp", 2},
#endif
	{"main-lcore", 1},
	{"match-allocations", 0},
	{"mbuf-pool-ops-name", 1},
	{"no-hpet", 0},
	{"no-huge", 0},
	{"no-pci", 0},
	{"no-shconf", 0},
	{"no-telemetry", 0},
	{"proc-type", 1},
	{"single-file-segments", 0},
	{"socket-limit", 1},
	{"socket-mem", 1},
	{"syslog", EAL_SYSLOG_HAS_ARG},
	{"telemetry", 0},
	{"trace", 1},
	{"trace-bufsz", 1},
	{"trace-dir", 1},
	{"trace-mode", 1},
	{"vdev", 1},
	{"vfio-intr", 1},
	{"vfio-vf-token", 1},
	{"vmware-tsc-map", 0},
};

/* EAL short options; those followed by ':' take a value. */
static const char eal_short[] = "a:b:c:d:hl:m:n:r:s:S:v";

/* The options probe and reflect both take (APP_COMMON_LONGOPTS, app.h). */
#define CLI_SHARED_OPTS                                                        \
	"addr", "port-id", "json", "calibrate", "quiet", "backend",            \
		"busy-poll-us", "promisc", "auth-key", "hlog",                 \
		"hlog-interval", "no-doctor", "hw-timestamps", "live-path",    \
		"metrics", "stall-threshold"

/*
 * Each subcommand's own options that EAL does not have (the long ones,
 * then the short letters), for saying where a misplaced one belongs.
 * tests/integration/cli.sh checks this against each --help.
 */
static const struct {
	const char *sub;
	const char *const *longs;
	const char *shorts;
} sub_opts[] = {
	{"probe",
	 (const char *const[]){CLI_SHARED_OPTS,
			       "proto",
			       "timeout",
			       "peer-mac",
			       "arp-timeout",
			       "sport",
			       "samples",
			       "pcap",
			       "loopback",
			       "vlan",
			       "targets",
			       "forever",
			       "interval-report",
			       "flows",
			       "new-flow-every",
			       "first-packet",
			       "rate",
			       "spacing",
			       "seed",
			       "max-behind",
			       "same-clock", /* one-way delays */
			       "stall-tlv",
			       NULL},
	 "ntlwihq"},
	{"reflect",
	 (const char *const[]){CLI_SHARED_OPTS, "udp-port", "sockperf-port",
			       "echo-port", "stateful", "verify-l4-csum",
			       "duration", "allow", "rate-limit",
			       "allow-low-sport", "session-timeout", NULL},
	 "tq"},
	{"info", (const char *const[]){"calibrate", NULL}, ""},
	{"doctor", (const char *const[]){"lcores", "json", "calibrate", NULL},
	 ""},
	/* No EAL: its part before a "--" is empty (app/cmd_plot.c). */
	{"plot",
	 (const char *const[]){"output", "label", "samples", "hlog", "title",
			       "series", "unaffected", NULL},
	 "o"},
};

static int
eal_long_find(const char *name, size_t n)
{
	for (unsigned k = 0; k < sizeof(eal_long) / sizeof(eal_long[0]); k++)
		if (strlen(eal_long[k].name) == n &&
		    strncmp(eal_long[k].name, name, n) == 0)
			return (int)k;
	return -1;
}

/* getopt_long takes an unambiguous abbreviation: so does the EAL. */
static int
eal_long_prefix(const char *name, size_t n)
{
	int found = -1;

	for (unsigned k = 0;
	     n > 0 && k < sizeof(eal_long) / sizeof(eal_long[0]); k++) {
		if (strncmp(eal_long[k].name, name, n) != 0)
			continue;
		if (found >= 0)
			return -1;
		found = (int)k;
	}
	return found;
}

static int
sub_find(const char *sub)
{
	for (unsigned k = 0; k < sizeof(sub_opts) / sizeof(sub_opts[0]); k++)
		if (strcmp(sub_opts[k].sub, sub) == 0)
			return (int)k;
	return -1;
}

static bool
sub_has_long(int s, const char *name, size_t n)
{
	if (s < 0)
		return false;
	for (const char *const *p = sub_opts[s].longs; *p != NULL; p++)
		if (strlen(*p) == n && strncmp(*p, name, n) == 0)
			return true;
	return false;
}

static bool
sub_has_short(int s, char c)
{
	return s >= 0 && c != '\0' && strchr(sub_opts[s].shorts, c) != NULL;
}

/* A DPDK core list ("0", "0-1", "0,2-3") whose cores are all < ncpus. */
static bool
corelist_ok(const char *s, unsigned ncpus)
{
	const char *p = s;

	if (*p == '\0')
		return false;
	for (;;) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			return false;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return false;
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b || b >= ncpus)
			return false;
		if (*p == '\0')
			return true;
		if (*p != ',')
			return false;
		p++;
	}
}

/* An EAL short option's value that the EAL would refuse or misread. */
static int
check_eal_value(const char *sub, int s, char c, const char *v, unsigned ncpus,
		char *err, unsigned err_len)
{
	uint64_t x;

	if (c == 'n' && cli_parse_u64(v, 1, 32, &x) != 0) {
		if (sub_has_short(s, 'n'))
			snprintf(err, err_len,
				 "-n %s before '--' would set DPDK's memory "
				 "channels (1..32); the probe count goes after "
				 "'--'",
				 v);
		else
			snprintf(err, err_len,
				 "-n %s before '--' sets DPDK's memory "
				 "channels, which must be 1..32",
				 v);
		return -EINVAL;
	}
	if (c == 'l' && !corelist_ok(v, ncpus)) {
		if (sub_has_short(s, 'l') && cli_parse_size(v, &x) == 0)
			snprintf(err, err_len,
				 "-l %s before '--' would set DPDK's lcore "
				 "list (this machine has cores 0..%u); the "
				 "probe size goes after '--'",
				 v, ncpus - 1);
		else
			snprintf(err, err_len,
				 "-l %s before '--' is DPDK's lcore list: "
				 "give cores 0..%u, e.g. -l 0 or -l 0-1",
				 v, ncpus - 1);
		return -EINVAL;
	}
	(void)sub;
	return 0;
}

static int
check_eal_part(const char *sub, int argc, char *const *argv, unsigned ncpus,
	       char *err, unsigned err_len)
{
	int s = sub_find(sub), sep = -1;

	if (ncpus == 0)
		ncpus = 1;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	}
	if (sep < 0) {
		/* All of it is ours: an EAL-only option means a missing --. */
		for (int i = 0; i < argc; i++) {
			const char *a = argv[i];
			size_t n;
			bool eal;

			if (a[0] != '-' || a[1] == '\0')
				continue;
			n = strcspn(a + 2, "=");
			if (a[1] == '-')
				eal = (n == 7 &&
				       strncmp(a + 2, "profile", 7) == 0) ||
				      (eal_long_find(a + 2, n) >= 0 &&
				       !sub_has_long(s, a + 2, n) &&
				       strcmp(a, "--help") != 0);
			else
				eal = strchr(eal_short, a[1]) != NULL &&
				      a[1] != ':' && a[1] != 'h' &&
				      !sub_has_short(s, a[1]);
			if (eal) {
				snprintf(err, err_len,
					 "%.*s is an EAL option but no '--' "
					 "follows the EAL options: latprobe "
					 "%s [EAL options] -- [options]",
					 a[1] == '-' ? (int)n + 2 : 2, a, sub);
				return -EINVAL;
			}
		}
		return 0;
	}
	for (int i = 0; i < sep; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--profile") == 0) {
			i++;
			continue;
		}
		if (strncmp(a, "--profile=", 10) == 0)
			continue;
		if (a[0] != '-' || a[1] == '\0') {
			snprintf(err, err_len,
				 "'%s' before '--' is not an EAL option; "
				 "latprobe %s's arguments go after '--'",
				 a, sub);
			return -EINVAL;
		}
		if (a[1] == '-') {
			const char *name = a + 2;
			size_t n = strcspn(name, "=");
			int k = eal_long_find(name, n);

			if (k < 0 && sub_has_long(s, name, n)) {
				snprintf(err, err_len,
					 "--%.*s before '--' is not an EAL "
					 "option; latprobe %s's --%.*s goes "
					 "after '--'",
					 (int)n, name, sub, (int)n, name);
				return -EINVAL;
			}
			if (k < 0)
				k = eal_long_prefix(name, n);
			if (k < 0) {
				snprintf(err, err_len,
					 "--%.*s before '--' is not an EAL "
					 "option (see 'latprobe %s --help')",
					 (int)n, name, sub);
				return -EINVAL;
			}
			/*
			 * reflect's --allow PREFIX and EAL's --allow (-a, a
			 * PCI device) share a name: a value without ':' is
			 * no PCI address, so it was meant for the reflector.
			 */
			if (strcmp(eal_long[k].name, "allow") == 0 &&
			    sub_has_long(s, "allow", 5)) {
				const char *v = name[n] == '=' ? name + n + 1
						: i + 1 < sep  ? argv[i + 1]
							       : "";

				if (strchr(v, ':') == NULL) {
					snprintf(err, err_len,
						 "--allow %s before '--' "
						 "would be DPDK's PCI "
						 "allow-list; latprobe %s's "
						 "--allow PREFIX goes after "
						 "'--'",
						 v, sub);
					return -EINVAL;
				}
			}
			if (eal_long[k].has_arg == 1 && name[n] != '=')
				i++;
			continue;
		}
		for (const char *p = a + 1; *p != '\0'; p++) {
			const char *e = strchr(eal_short, *p), *v;
			int r;

			if (*p == ':' || e == NULL) {
				if (sub_has_short(s, *p))
					snprintf(
						err, err_len,
						"-%c before '--' is not an "
						"EAL option; latprobe %s's -%c "
						"goes after '--'",
						*p, sub, *p);
				else
					snprintf(err, err_len,
						 "-%c before '--' is not an "
						 "EAL option (see 'latprobe %s "
						 "--help')",
						 *p, sub);
				return -EINVAL;
			}
			if (*p == 'h') {
				snprintf(err, err_len,
					 "-h before '--' would print DPDK's "
					 "EAL help%s",
					 sub_has_short(s, 'h')
						 ? "; the bucket option -h "
						   "goes after '--'"
						 : "");
				return -EINVAL;
			}
			if (e[1] != ':')
				continue;
			if (p[1] != '\0') {
				v = p + 1;
			} else if (i + 1 < sep) {
				v = argv[++i];
			} else {
				snprintf(err, err_len,
					 "-%c before '--' is an EAL option "
					 "that needs a value",
					 *p);
				return -EINVAL;
			}
			r = check_eal_value(sub, s, *p, v, ncpus, err, err_len);
			if (r != 0)
				return r;
			break;
		}
	}
	return 0;
}

int
cli_check_eal_part(const char *sub, int argc, char *const *argv, unsigned ncpus,
		   char *err, unsigned err_len)
{
	int ret = check_eal_part(sub, argc, argv, ncpus, err, err_len);

	/* The message quotes argv: keep it one printable line. */
	for (char *p = err; ret != 0 && *p != '\0'; p++)
		if (iscntrl((unsigned char)*p))
			*p = '?';
	return ret;
}
