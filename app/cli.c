/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		mult = 1024 * 1024, end++;
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

void
cli_format_ipv4(uint32_t addr, char *out)
{
	snprintf(out, 16, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 0xff,
		 (addr >> 8) & 0xff, addr & 0xff);
}

/* Where --profile NAME looks, in order. */
static FILE *
open_profile(const char *name, char *path, size_t cap)
{
	char exe[PATH_MAX];
	const char *env = getenv("LATPROBE_PROFILE_DIR");
	ssize_t n;
	FILE *f;

	if (strchr(name, '/') != NULL) {
		snprintf(path, cap, "%s", name);
		return fopen(path, "r");
	}
	if (env != NULL) {
		snprintf(path, cap, "%s/%s", env, name);
		f = fopen(path, "r");
		if (f != NULL)
			return f;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL)
			*slash = '\0';
		/* build/app/latprobe inside the source tree. */
		snprintf(path, cap, "%s/../../dpdk-config/%s", exe, name);
		f = fopen(path, "r");
		if (f != NULL)
			return f;
	}
	/* The source tree this binary was built from, then the install. */
	snprintf(path, cap, "%s/%s", LATPROBE_PROFILE_DIR, name);
	f = fopen(path, "r");
	if (f != NULL)
		return f;
	snprintf(path, cap, "%s/%s", LATPROBE_DATADIR, name);
	f = fopen(path, "r");
	if (f != NULL)
		return f;
	snprintf(path, cap, "/usr/share/latprobe/dpdk-config/%s", name);
	return fopen(path, "r");
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
		snprintf(err, err_len,
			 "profile '%s' not found (looked in "
			 "$LATPROBE_PROFILE_DIR, the source tree's "
			 "dpdk-config/, " LATPROBE_DATADIR ")",
			 name);
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
