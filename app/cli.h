/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_CLI_H
#define LATPROBE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "latprobe/codec.h"

#define CLI_MAX_EDGES 64

/* Parsers for option values; 0 or -EINVAL. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Size with k/m suffix (1024-based, as PsPing's "-l 8k"). */
int cli_parse_size(const char *s, uint64_t *out);
/* Duration: plain number = seconds (decimals ok), or a ns/us/ms/s suffix. */
int cli_parse_duration_ns(const char *s, uint64_t *out);
/* "A.B.C.D/len" (len optional: 32) -> host-order address. */
int cli_parse_ipv4_prefix(const char *s, uint32_t *addr, unsigned *len);
/* "A.B.C.D[:PORT]" */
int cli_parse_target(const char *s, uint32_t *addr, uint16_t *port,
		     bool *has_port);
void cli_format_ipv4(uint32_t addr, char *out /* >= 16 */);
/* "A.B.C.D[/len]" (len 1..32, default 32) or an IPv6 address "X:X::X[/len]"
 * (len 1..128, default 128) into a family-tagged address. */
int cli_parse_ip_prefix(const char *s, struct codec_ip *ip, unsigned *len);
/* TARGET: "A.B.C.D[:PORT]", "[IPV6]:PORT", "[IPV6]" or a bare "IPV6". */
int cli_parse_target_ip(const char *s, struct codec_ip *ip, uint16_t *port,
			bool *has_port);
/* An address as text (IPv6 in RFC 5952 form). */
#define CLI_IP_STRLEN 46
void cli_format_ip(const struct codec_ip *ip, char *out /* CLI_IP_STRLEN */);

/* This host's own profiles (`latprobe setup` writes "host" there); searched
 * right after $LATPROBE_PROFILE_DIR. */
#define CLI_HOST_PROFILE_DIR "/etc/latprobe/dpdk-config"

/*
 * Split argv after the subcommand at "--": EAL options before, ours after.
 * A "--profile NAME" in the EAL part is replaced by the options in the
 * profile file. eal_argv/app_argv are allocated (free with cli_free_argv).
 * 0 or -errno (-ENOENT: profile not found, with its name in *err).
 */
int cli_split_args(int argc, char **argv, const char *prog, int *eal_argc,
		   char ***eal_argv, int *app_argc, char ***app_argv,
		   bool *had_separator, char *err, unsigned err_len);
void cli_free_argv(char **v);

/*
 * Look at a subcommand's argv (after its name) before EAL does: an option
 * before "--" that only latprobe has, an EAL option whose value makes sense
 * to latprobe but not to EAL (-n 100, -l 8k), or an EAL option with no "--"
 * after it. ncpus bounds the cores -l may name. 0, or -EINVAL with one line
 * in err saying where the option belongs.
 */
int cli_check_eal_part(const char *sub, int argc, char *const *argv,
		       unsigned ncpus, char *err, unsigned err_len);

#endif /* LATPROBE_CLI_H */
