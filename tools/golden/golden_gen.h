/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_GOLDEN_GEN_H
#define LATPROBE_GOLDEN_GEN_H

/*
 * What stamp_gen.c and stamp_auth_gen.c share: the instants of the golden
 * cases and the "name hex" line each payload is printed as.
 */

#include <stdint.h>
#include <stdio.h>

/* 2023-11-14T22:13:20.123456789Z and later instants, ns since 1970 */
#define T1_NS 1700000000123456789ULL
#define T2_NS 1700000000123500000ULL
#define T3_NS 1700000000123600001ULL

static inline void
dump(const char *name, const uint8_t *p, size_t len)
{
	size_t i;

	printf("%s ", name);
	for (i = 0; i < len; i++)
		printf("%02x", p[i]);
	printf("\n");
}

#endif /* LATPROBE_GOLDEN_GEN_H */
