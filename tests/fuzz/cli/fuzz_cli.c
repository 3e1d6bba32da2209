/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command-line value parsers and the --profile file parser: option
 * values and profile files are user input. The input is used as each option
 * value in turn, then as the content of a profile file, then, split at
 * spaces, as a subcommand's argv for the EAL/latprobe side check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), path[64], err[512];
	char *argv[] = {"--profile", path, "--no-pci", "--", "-n", "1", NULL};
	char **eal, **app;
	int eal_argc, app_argc;
	uint64_t v;
	uint32_t addr;
	uint16_t port;
	unsigned len;
	bool has, sep;
	FILE *f;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)cli_parse_u64(s, 0, UINT64_MAX, &v);
	(void)cli_parse_size(s, &v);
	(void)cli_parse_duration_ns(s, &v);
	(void)cli_parse_ipv4_prefix(s, &addr, &len);
	(void)cli_parse_target(s, &addr, &port, &has);
	{
		struct codec_ip ip;
		char out[CLI_IP_STRLEN];

		if (cli_parse_ip_prefix(s, &ip, &len) == 0)
			cli_format_ip(&ip, out);
		if (cli_parse_target_ip(s, &ip, &port, &has) == 0)
			cli_format_ip(&ip, out);
	}

	{
		static const char *const subs[] = {"probe", "reflect", "info",
						   "other"};
		char *words[64], *save = NULL, *dup = strdup(s);
		int n = 0;

		for (char *t = dup ? strtok_r(dup, " ", &save) : NULL;
		     t != NULL && n < 63; t = strtok_r(NULL, " ", &save))
			words[n++] = t;
		words[n] = NULL;
		for (unsigned k = 0; dup != NULL && k < 4; k++) {
			err[0] = '\0';
			if (cli_check_eal_part(subs[k], n, words,
					       1 + (unsigned)k, err,
					       sizeof(err)) != 0 &&
			    (err[0] == '\0' || strchr(err, '\n') != NULL))
				abort(); /* a refusal is one line */
		}
		free(dup);
	}
	snprintf(path, sizeof(path), "/tmp/latprobe-fuzz-profile.%d", getpid());
	f = fopen(path, "w");
	if (f != NULL) {
		fwrite(data, 1, size, f);
		fclose(f);
		if (cli_split_args(6, argv, "latprobe", &eal_argc, &eal,
				   &app_argc, &app, &sep, err,
				   sizeof(err)) == 0) {
			/* Every word of the file plus our own, NULL-terminated.
			 */
			if (eal[eal_argc] != NULL || app[app_argc] != NULL ||
			    app_argc != 3)
				abort();
			cli_free_argv(eal);
			cli_free_argv(app);
		}
		unlink(path);
	}
	free(s);
	return 0;
}
