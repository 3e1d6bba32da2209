/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * csumbench: what the reflector's software check of a request's L4
 * checksum costs (a request that neither the NIC verified nor
 * latprobe can trust is verified here), at the two sizes that matter:
 *
 *   44 B   a STAMP base packet (UDP 52 bytes): the fast path's inline sum
 *          (pseudo-header and 52 bytes, folded) and codec_l4_csum_check()
 *          of the generic path;
 *   8 KiB  a reassembled -l 8k STAMP datagram (UDP 8,200 bytes):
 *          codec_l4_csum_check(), next to a memcpy of the same datagram
 *          (what reassembly copies anyway).
 *
 *   csumbench            ns and TSC cycles per check (median of 5 runs),
 *                        and the ratios
 *   csumbench --insn N   N checks of each kind in noinline loops, for
 *                        `valgrind --tool=callgrind` (fast_loop, check44_loop,
 *                        check8k_loop, copy8k_loop: Ir / N each)
 *
 * Prints figures; asserts nothing (exit 0 = it ran).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "latprobe/codec.h"

#define REPEATS 5

static volatile uint64_t sink;

/* A frame from the testbed's prober to its reflector, payload plen bytes,
 * both sums set. */
static size_t
build(uint8_t *buf, size_t cap, size_t plen, struct codec_frame *f)
{
	struct codec_flow fl;
	uint8_t *pl = calloc(1, plen);
	int len;

	memset(&fl, 0, sizeof(fl));
	fl.ip_version = 4;
	fl.src4 = 0xc6120001u; /* 198.18.0.1 -> .2 */
	fl.dst4 = 0xc6120002u;
	fl.sport = 40000;
	fl.dport = 862;
	/* A STAMP base packet's bytes 16-43 are zero (MBZ, no TLVs). */
	for (size_t i = 0; i < plen && pl != NULL; i++)
		pl[i] = plen == 44 && i >= 16 ? 0 : (uint8_t)(i * 7 + 1);
	len = pl == NULL ? -1 : codec_build_udp(buf, cap, &fl, 1, pl, plen);
	free(pl);
	if (len < 0 || codec_parse_frame(buf, (size_t)len, f) != 0) {
		fprintf(stderr, "csumbench: cannot build a %zu-byte frame\n",
			plen);
		exit(1);
	}
	return (size_t)len;
}

static inline uint64_t
add_ec(uint64_t a, uint64_t v)
{
	uint64_t r = a + v;

	return r + (r < v);
}

/* The STAMP fast path's check (lib/reflector/reflector.c,
 * fast_udp_sum_ok()): the same operations on the same bytes (its payload
 * bytes 16-43 are zero, checked before, so they are not summed). */
static inline bool
fast_sum_ok(const uint8_t *ip, const uint8_t *udp)
{
	uint32_t src, dst;
	uint64_t a, v;

	memcpy(&src, ip + 12, sizeof(src));
	memcpy(&dst, ip + 16, sizeof(dst));
	a = (uint64_t)src + dst + __builtin_bswap16(CODEC_IPPROTO_UDP) +
	    __builtin_bswap16(52);
	for (int k = 0; k < 3; k++) {
		memcpy(&v, udp + 8 * k, sizeof(v));
		a = add_ec(a, v);
	}
	return a * 0xfffefffefffeffffull <= 0x1000100010001ull;
}

__attribute__((noinline)) uint64_t fast_loop(const uint8_t *b, size_t n);
__attribute__((noinline)) uint64_t
check_loop(const uint8_t *b, const struct codec_frame *f, size_t n);
__attribute__((noinline)) uint64_t
check44_loop(const uint8_t *b, const struct codec_frame *f, size_t n);
__attribute__((noinline)) uint64_t
check8k_loop(const uint8_t *b, const struct codec_frame *f, size_t n);
__attribute__((noinline)) uint64_t copy8k_loop(uint8_t *dst, const uint8_t *b,
					       size_t len, size_t n);

__attribute__((noinline)) uint64_t
fast_loop(const uint8_t *b, size_t n)
{
	uint64_t ok = 0;

	for (size_t i = 0; i < n; i++) {
		__asm__ volatile("" ::"r"(b) : "memory");
		ok += fast_sum_ok(b + 14, b + 34);
	}
	return ok;
}

__attribute__((noinline)) uint64_t
check_loop(const uint8_t *b, const struct codec_frame *f, size_t n)
{
	uint64_t ok = 0;

	for (size_t i = 0; i < n; i++) {
		__asm__ volatile("" ::"r"(b) : "memory");
		ok += codec_l4_csum_check(b, f, NULL) == CODEC_L4_CSUM_OK;
	}
	return ok;
}

/* Two names for callgrind. */
__attribute__((noinline)) uint64_t
check44_loop(const uint8_t *b, const struct codec_frame *f, size_t n)
{
	return check_loop(b, f, n);
}

__attribute__((noinline)) uint64_t
check8k_loop(const uint8_t *b, const struct codec_frame *f, size_t n)
{
	return check_loop(b, f, n);
}

__attribute__((noinline)) uint64_t
copy8k_loop(uint8_t *dst, const uint8_t *b, size_t len, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		memcpy(dst, b, len);
		__asm__ volatile("" ::"r"(dst) : "memory");
	}
	return dst[len - 1];
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct fig {
	double ns, cyc;
};

/* Median over REPEATS runs of n calls of kind k. */
static struct fig
measure(int k, const uint8_t *b44, const struct codec_frame *f44,
	const uint8_t *b8k, const struct codec_frame *f8k, uint8_t *dst,
	size_t len8k, size_t n)
{
	uint64_t ns[REPEATS], cy[REPEATS];
	struct fig r;

	for (int i = 0; i < REPEATS; i++) {
		uint64_t t0 = bench_mono_ns(), c0 = bench_rdtsc();

		switch (k) {
		case 0:
			sink += fast_loop(b44, n);
			break;
		case 1:
			sink += check44_loop(b44, f44, n);
			break;
		case 2:
			sink += check8k_loop(b8k, f8k, n);
			break;
		default:
			sink += copy8k_loop(dst, b8k, len8k, n);
			break;
		}
		cy[i] = bench_rdtsc() - c0;
		ns[i] = bench_mono_ns() - t0;
	}
	qsort(ns, REPEATS, sizeof(ns[0]), cmp_u64);
	qsort(cy, REPEATS, sizeof(cy[0]), cmp_u64);
	r.ns = (double)ns[REPEATS / 2] / (double)n;
	r.cyc = (double)cy[REPEATS / 2] / (double)n;
	return r;
}

int
main(int argc, char **argv)
{
	static uint8_t b44[128], b8k[8400], dst[8400];
	struct codec_frame f44, f8k;
	size_t len8k;
	struct fig fig[4];
	static const char *const what[4] = {
		"44 B, fast path (inline)", "44 B, codec_l4_csum_check()",
		"8 KiB, codec_l4_csum_check()", "8 KiB, memcpy (reassembly)"};
	size_t n44 = 2000000, n8k = 20000;

	(void)build(b44, sizeof(b44), 44, &f44);
	len8k = build(b8k, sizeof(b8k), 8192, &f8k);
	if (!fast_sum_ok(b44 + 14, b44 + 34) ||
	    codec_l4_csum_check(b44, &f44, NULL) != CODEC_L4_CSUM_OK ||
	    codec_l4_csum_check(b8k, &f8k, NULL) != CODEC_L4_CSUM_OK) {
		fprintf(stderr, "csumbench: the frames' sums do not check\n");
		return 1;
	}
	if (argc == 3 && strcmp(argv[1], "--insn") == 0) {
		size_t n = strtoul(argv[2], NULL, 10);

		if (n == 0 || n > 100000000) {
			fprintf(stderr, "csumbench: --insn N, 1..1e8\n");
			return 2;
		}
		sink += fast_loop(b44, n);
		sink += check44_loop(b44, &f44, n);
		sink += check8k_loop(b8k, &f8k, n);
		sink += copy8k_loop(dst, b8k, len8k, n);
		printf("csumbench: %zu of each\n", n);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: csumbench [--insn N]\n");
		return 2;
	}
	for (int k = 0; k < 4; k++)
		fig[k] = measure(k, b44, &f44, b8k, &f8k, dst, len8k,
				 k < 2 ? n44 : n8k);
	printf("%-32s %10s %10s\n", "software L4 checksum check", "ns",
	       "cycles");
	for (int k = 0; k < 4; k++)
		printf("%-32s %10.2f %10.1f\n", what[k], fig[k].ns, fig[k].cyc);
	printf("ratio 8 KiB check / 8 KiB memcpy          %6.2f\n",
	       fig[2].ns / fig[3].ns);
	printf("ratio 8 KiB check / 44 B check            %6.1f\n",
	       fig[2].ns / fig[1].ns);
	printf("ratio 44 B generic / 44 B fast            %6.2f\n",
	       fig[1].ns / fig[0].ns);
	printf("8 KiB check throughput                    %6.2f GB/s\n",
	       (double)(len8k - 34) / fig[2].ns);
	return 0;
}
