/* SPDX-License-Identifier: BSD-3-Clause */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latprobe/timing.h"

#define NS_PER_S	    1000000000ull
#define TSC_HZ_MIN	    1000000ull	    /* 1 MHz */
#define TSC_HZ_MAX	    100000000000ull /* 100 GHz */
/* Sub-windows of a calibration, for the spread figure. */
#define CALIB_SUB_WINDOWS   5u
/* 1 ms: below it the width of a (tsc, clock) bracket dominates. */
#define CALIB_MIN_WINDOW_NS 1000000u
/* Tries per (tsc, clock) pair; the narrowest bracket wins. */
#define PAIR_TRIES	    32u
/* Read cost: reads per timed batch, and an odd number of batches. */
#define READ_COST_BATCH	    8u
#define READ_COST_SAMPLES   501u

/*
 * Largest shift such that mult = round(num << shift / den) still fits in
 * 64 bits. With a 64-bit mult the relative error of mult is <= 2^-63 / 2,
 * far below 1 ppm; what remains is the truncation of the final shift (< 1
 * unit of the result).
 */
static void
fixed_point(uint64_t num, uint64_t den, uint64_t *mult, unsigned *shift)
{
	/* Start where num << s (plus rounding) still fits in 128 bits. */
	unsigned s = 63u + (unsigned)__builtin_clzll(num);
	tsc_u128 m = 0;

	for (;; s--) {
		m = (((tsc_u128)num << s) + den / 2) / den;
		if ((m >> 64) == 0 || s == 0)
			break;
	}
	*mult = (uint64_t)m;
	*shift = s;
}

int
tsc_clock_init(struct tsc_clock *c, uint64_t hz)
{
	if (c == NULL || hz < TSC_HZ_MIN || hz > TSC_HZ_MAX)
		return -EINVAL;
	c->hz = hz;
	fixed_point(NS_PER_S, hz, &c->mult, &c->shift);
	c->pre = c->shift < 64 ? 64 - c->shift : 0;
	c->post = c->shift < 64 ? 0 : c->shift - 64;
	fixed_point(hz, NS_PER_S, &c->ns_mult, &c->ns_shift);
	return 0;
}

static int
timespec_ns(clockid_t id, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return -errno;
	*ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
	return 0;
}

/*
 * One (tsc, clock) pair: the clock read is bracketed by two ordered TSC
 * reads and the narrowest of several brackets wins, so an interrupt or a
 * vCPU preemption in the middle of one attempt does not skew the pair. The
 * TSC value is the bracket's midpoint.
 */
static int
tsc_clock_pair(clockid_t id, uint64_t *tsc, uint64_t *ns, uint64_t *bracket)
{
	uint64_t best = UINT64_MAX;
	unsigned i;

	for (i = 0; i < PAIR_TRIES; i++) {
		uint64_t t0, t1, now = 0;
		int ret;

		t0 = tsc_read_start();
		ret = timespec_ns(id, &now);
		t1 = tsc_read_end();
		if (ret != 0)
			return ret;
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + best / 2;
			*ns = now;
		}
	}
	if (bracket != NULL)
		*bracket = best;
	return 0;
}

static void
sleep_ns(uint64_t ns)
{
	struct timespec req = {
		.tv_sec = (time_t)(ns / NS_PER_S),
		.tv_nsec = (long)(ns % NS_PER_S),
	};

	/* The endpoints are measured, so a short sleep is harmless. */
	while (nanosleep(&req, &req) != 0 && errno == EINTR)
		;
}

static double
rate_hz(uint64_t cycles, uint64_t ns)
{
	return (double)cycles * 1e9 / (double)ns;
}

int
tsc_calibrate(uint64_t window_ns, uint64_t reference_hz,
	      struct tsc_calibration *out)
{
	uint64_t tsc[CALIB_SUB_WINDOWS + 1], ns[CALIB_SUB_WINDOWS + 1];
	double lo = 0, hi = 0, hz;
	unsigned i;
	int ret;

	if (out == NULL)
		return -EINVAL;
	if (window_ns == 0)
		window_ns = NS_PER_S;
	if (window_ns < CALIB_MIN_WINDOW_NS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	for (i = 0; i <= CALIB_SUB_WINDOWS; i++) {
		if (i > 0)
			sleep_ns(window_ns / CALIB_SUB_WINDOWS);
		ret = tsc_clock_pair(CLOCK_MONOTONIC_RAW, &tsc[i], &ns[i],
				     NULL);
		if (ret != 0)
			return ret;
		if (i > 0 && (ns[i] <= ns[i - 1] || tsc[i] <= tsc[i - 1]))
			return -EIO; /* a clock went backwards or stood still */
	}
	for (i = 1; i <= CALIB_SUB_WINDOWS; i++) {
		double sub = rate_hz(tsc[i] - tsc[i - 1], ns[i] - ns[i - 1]);

		if (i == 1 || sub < lo)
			lo = sub;
		if (i == 1 || sub > hi)
			hi = sub;
	}

	out->window_ns = ns[CALIB_SUB_WINDOWS] - ns[0];
	hz = rate_hz(tsc[CALIB_SUB_WINDOWS] - tsc[0], out->window_ns);
	out->hz = (uint64_t)(hz + 0.5);
	out->spread_ppm = (hi - lo) / hz * 1e6;
	out->reference_hz = reference_hz;
	if (reference_hz != 0)
		out->ppm_vs_reference = ((double)reference_hz - hz) / hz * 1e6;
	return 0;
}

/* Whole-word match in the first "flags" line of /proc/cpuinfo. */
static void
cpuinfo_flags(struct tsc_invariance *out)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "re");
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *colon, *tok, *save = NULL;

		if (strncmp(line, "flags", 5) != 0)
			continue;
		colon = strchr(line, ':');
		if (colon == NULL)
			continue;
		for (tok = strtok_r(colon + 1, " \t\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (strcmp(tok, "constant_tsc") == 0)
				out->constant_tsc = true;
			else if (strcmp(tok, "nonstop_tsc") == 0)
				out->nonstop_tsc = true;
			else if (strcmp(tok, "tsc_reliable") == 0)
				out->tsc_reliable = true;
		}
		break;
	}
	free(line);
	fclose(f);
}

static void
read_clocksource(char *buf, size_t cap)
{
	FILE *f;

	buf[0] = '\0';
	f = fopen("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource",
		  "re");
	if (f == NULL)
		return;
	if (fgets(buf, (int)cap, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void
tsc_check_invariance(struct tsc_invariance *out)
{
	unsigned a, b, c, d;

	if (out == NULL)
		return;
	memset(out, 0, sizeof(*out));

	/*
	 * Intel SDM vol. 3B 18.17.1 / AMD APM vol. 2 "Invariant TSC": the rate
	 * does not change with P-, C- or T-states. Hypervisors may hide the
	 * bit (and rdtscp's) even when the instruction works.
	 */
	if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000007u &&
	    __get_cpuid(0x80000007u, &a, &b, &c, &d))
		out->cpuid_invariant = (d >> 8) & 1u;
	if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
		out->rdtscp = (d >> 27) & 1u;

	cpuinfo_flags(out);
	read_clocksource(out->clocksource, sizeof(out->clocksource));
	out->invariant =
		out->cpuid_invariant || (out->constant_tsc && out->nonstop_tsc);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/*
 * Each sample times a batch of back-to-back reads of one flavour, from the
 * first read to the last; dividing by the number of gaps gives the cost of
 * one read including its ordering. The median drops batches that an
 * interrupt landed in.
 */
#define READ_COST(fn, out)                                                     \
	do {                                                                   \
		unsigned s_, k_;                                               \
		for (s_ = 0; s_ < READ_COST_SAMPLES; s_++) {                   \
			uint64_t first_ = fn(), last_ = first_;                \
			for (k_ = 0; k_ < READ_COST_BATCH; k_++)               \
				last_ = fn();                                  \
			samples[s_] =                                          \
				(double)(last_ - first_) / READ_COST_BATCH;    \
		}                                                              \
		(out) = median(samples, READ_COST_SAMPLES);                    \
	} while (0)

void
tsc_measure_read_cost(struct tsc_read_cost *out)
{
	double samples[READ_COST_SAMPLES];

	if (out == NULL)
		return;
	READ_COST(tsc_read, out->plain_cycles);
	READ_COST(tsc_read_start, out->start_cycles);
	READ_COST(tsc_read_end, out->end_cycles);
}

void
tsc_anchor_now(struct tsc_anchor *a)
{
	uint64_t tsc = 0, ns = 0;

	if (a == NULL)
		return;
	/* CLOCK_REALTIME cannot fail on Linux with a valid timespec. */
	if (tsc_clock_pair(CLOCK_REALTIME, &tsc, &ns, NULL) != 0) {
		tsc = tsc_read();
		ns = 0;
	}
	a->tsc = tsc;
	a->realtime_ns = ns;
}
