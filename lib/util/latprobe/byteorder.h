/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_BYTEORDER_H
#define LATPROBE_BYTEORDER_H

/*
 * Network byte order (big-endian) fields at any alignment, for the wire
 * formats (STAMP, UDP echo) and HdrHistogram's encoding.
 */

#include <stdint.h>

static inline void
util_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
util_put_be32(uint8_t *p, uint32_t v)
{
	util_put_be16(p, (uint16_t)(v >> 16));
	util_put_be16(p + 2, (uint16_t)v);
}

static inline void
util_put_be64(uint8_t *p, uint64_t v)
{
	util_put_be32(p, (uint32_t)(v >> 32));
	util_put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t
util_get_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned int)p[0] << 8 | p[1]);
}

static inline uint32_t
util_get_be32(const uint8_t *p)
{
	return (uint32_t)util_get_be16(p) << 16 | util_get_be16(p + 2);
}

static inline uint64_t
util_get_be64(const uint8_t *p)
{
	return (uint64_t)util_get_be32(p) << 32 | util_get_be32(p + 4);
}

#endif /* LATPROBE_BYTEORDER_H */
