/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSC -> UTC mapping re-sampled during a run, the kernel's and chrony's
 * synchronisation state (latprobe/clock_sync.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "latprobe/clock_sync.h"

#define NS_PER_S 1000000000ull

int
clock_pair_read(struct clock_pair *p, unsigned tries)
{
	uint64_t best = UINT64_MAX;

	if (tries == 0)
		tries = 1;
	for (unsigned i = 0; i < tries; i++) {
		struct timespec ts;
		uint64_t t0, t1;

		t0 = tsc_read_start();
		if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
			return -errno;
		t1 = tsc_read_end();
		if (t1 - t0 < best) {
			best = t1 - t0;
			p->tsc = t0 + best / 2;
			p->utc_ns = (uint64_t)ts.tv_sec * NS_PER_S +
				    (uint64_t)ts.tv_nsec;
			p->width = best;
		}
	}
	return 0;
}

static uint64_t
half_width_ns(const struct clock_sync *s, const struct clock_pair *p)
{
	/* Rounded up: the pair's time is within this of its midpoint. */
	return (p->width * NS_PER_S + 2 * s->cal_hz - 1) / (2 * s->cal_hz);
}

static void
err_refresh(struct clock_sync *s)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < CLOCK_SYNC_ERR_KEEP; i++)
		if (s->resid[i] > m)
			m = s->resid[i];
	s->err_ns = s->pair_err_ns + m;
	if (s->err_ns > s->err_max_ns)
		s->err_max_ns = s->err_ns;
}

int
clock_sync_init(struct clock_sync *s, uint64_t cal_hz,
		const struct clock_pair *first)
{
	memset(s, 0, sizeof(*s));
	if (tsc_clock_init(&s->map.clock, cal_hz) != 0)
		return -EINVAL;
	s->cal_hz = cal_hz;
	s->hist[0] = *first;
	s->n_hist = 1;
	s->map.anchor.tsc = first->tsc;
	s->map.anchor.realtime_ns = first->utc_ns;
	s->pair_err_ns = half_width_ns(s, first);
	err_refresh(s);
	return 0;
}

/* The newest kept pair at least CLOCK_SYNC_RATE_SPAN_NS before p, or NULL. */
static const struct clock_pair *
rate_base(const struct clock_sync *s, const struct clock_pair *p)
{
	for (unsigned k = 0; k < s->n_hist; k++) {
		const struct clock_pair *q =
			&s->hist[(s->head + CLOCK_SYNC_HIST - k) %
				 CLOCK_SYNC_HIST];

		if (q->tsc < p->tsc && q->utc_ns < p->utc_ns &&
		    p->utc_ns - q->utc_ns >= CLOCK_SYNC_RATE_SPAN_NS)
			return q;
	}
	return NULL;
}

int
clock_sync_update(struct clock_sync *s, const struct clock_pair *p)
{
	const struct clock_pair *newest = &s->hist[s->head];
	const struct clock_pair *base;
	struct tsc_clock clk = s->map.clock;
	uint64_t pred, mag;
	int64_t resid;
	double hz = (double)s->cal_hz;

	if (p->tsc <= newest->tsc)
		return -EINVAL;
	pred = clock_map_utc(&s->map, p->tsc);
	resid = (int64_t)(pred - p->utc_ns);
	mag = resid < 0 ? (uint64_t)-resid : (uint64_t)resid;
	s->updates++;
	s->residual_ns = resid;
	s->resid[s->updates % CLOCK_SYNC_ERR_KEEP] = mag;
	if (mag > s->residual_max_ns)
		s->residual_max_ns = mag;
	if (mag > CLOCK_SYNC_STEP_NS) {
		/* The wall clock jumped: no rate across it. */
		s->steps++;
		if (mag > (uint64_t)llabs(s->step_max_ns))
			s->step_max_ns = -resid; /* how far the clock moved */
		s->n_hist = 0;
	}
	s->head = (s->head + 1) % CLOCK_SYNC_HIST;
	s->hist[s->head] = *p;
	if (s->n_hist < CLOCK_SYNC_HIST)
		s->n_hist++;
	base = rate_base(s, p);
	if (base != NULL) {
		hz = (double)(p->tsc - base->tsc) * 1e9 /
		     (double)(p->utc_ns - base->utc_ns);
		s->slew_ppm = ((double)s->cal_hz / hz - 1.0) * 1e6;
		if (fabs(s->slew_ppm) > s->slew_max_ppm)
			s->slew_max_ppm = fabs(s->slew_ppm);
	}
	if (tsc_clock_init(&clk, (uint64_t)llround(hz)) != 0)
		clk = s->map.clock; /* absurd rate: keep the one before */
	s->map.clock = clk;
	s->map.anchor.tsc = p->tsc;
	s->map.anchor.realtime_ns = p->utc_ns;
	s->pair_err_ns = half_width_ns(s, p);
	err_refresh(s);
	return 0;
}

/* The feed copies a mapping as 64-bit words (relaxed atomics each). */
_Static_assert(sizeof(struct clock_map) % sizeof(uint64_t) == 0,
	       "struct clock_map is whole 64-bit words");

void
clock_feed_publish(struct clock_feed *f, const struct clock_map *m,
		   uint64_t err_ns, uint16_t ee)
{
	uint32_t seq = __atomic_load_n(&f->seq, __ATOMIC_RELAXED);
	uint64_t w[sizeof(*m) / sizeof(uint64_t) + 1];

	__atomic_store_n(&f->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(w, m, sizeof(*m));
	for (size_t i = 0; i < sizeof(*m) / sizeof(uint64_t); i++)
		__atomic_store_n((uint64_t *)(void *)&f->map + i, w[i],
				 __ATOMIC_RELAXED);
	__atomic_store_n(&f->err_ns, err_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&f->ee, ee, __ATOMIC_RELAXED);
	__atomic_store_n(&f->seq, seq + 2, __ATOMIC_RELEASE);
}

bool
clock_feed_read(const struct clock_feed *f, uint32_t *gen, struct clock_map *m,
		uint64_t *err_ns, uint16_t *ee)
{
	uint64_t w[sizeof(*m) / sizeof(uint64_t) + 1];
	uint32_t s0, s1;
	uint64_t e;
	uint16_t x;

	for (unsigned tries = 0; tries < 64; tries++) {
		s0 = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
		if (s0 == *gen || s0 == 0)
			return false;
		if (s0 & 1)
			continue;
		for (size_t i = 0; i < sizeof(*m) / sizeof(uint64_t); i++)
			w[i] = __atomic_load_n(
				(const uint64_t *)(const void *)&f->map + i,
				__ATOMIC_RELAXED);
		e = __atomic_load_n(&f->err_ns, __ATOMIC_RELAXED);
		x = __atomic_load_n(&f->ee, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s1 = __atomic_load_n(&f->seq, __ATOMIC_RELAXED);
		if (s0 == s1) {
			memcpy(m, w, sizeof(*m));
			*err_ns = e;
			*ee = x;
			*gen = s0;
			return true;
		}
	}
	return false; /* the writer is busy: next look */
}

void
clock_kernel_interpret(int ret, unsigned status, long esterror_us,
		       long maxerror_us, long offset, long freq,
		       struct clock_kernel *out)
{
	memset(out, 0, sizeof(*out));
	if (ret < 0)
		return;
	out->read = true;
	out->state = ret;
	out->status = status;
	out->synced = ret != TIME_ERROR && (status & STA_UNSYNC) == 0;
	out->esterror_ns = esterror_us > 0 ? (uint64_t)esterror_us * 1000 : 0;
	out->maxerror_ns = maxerror_us > 0 ? (uint64_t)maxerror_us * 1000 : 0;
	out->nano = (status & STA_NANO) != 0;
	out->offset_ns = out->nano ? offset : offset * 1000;
	/* freq: ppm with a 16-bit fraction (adjtimex(2)). */
	out->freq_ppm = (double)freq / 65536.0;
	out->pll = (status & STA_PLL) != 0;
	out->ppsfreq = (status & STA_PPSFREQ) != 0;
}

int
clock_kernel_read(struct clock_kernel *out)
{
	struct timex tx;
	int ret;

	memset(&tx, 0, sizeof(tx)); /* modes 0: read only */
	ret = adjtimex(&tx);
	if (ret < 0) {
		int err = errno;

		memset(out, 0, sizeof(*out));
		return -err;
	}
	clock_kernel_interpret(ret, (unsigned)tx.status, tx.esterror,
			       tx.maxerror, tx.offset, tx.freq, out);
	return 0;
}

/* Field i of n (pointers into buf, NUL-terminated in place). */
#define CHRONY_FIELDS 14

static int
parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (*s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
copy_field(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (n >= cap)
		return -EINVAL;
	memcpy(dst, s, n + 1);
	return 0;
}

int
clock_chrony_parse(const char *text, size_t len, struct clock_chrony *out)
{
	char buf[512];
	char *f[CHRONY_FIELDS];
	unsigned n = 0;
	double stratum;
	char *p;
	size_t i;

	memset(out, 0, sizeof(*out));
	/* The first line only; a trailing CR or LF is not part of it. */
	for (i = 0; i < len && text[i] != '\n' && text[i] != '\0'; i++)
		;
	if (i > 0 && text[i - 1] == '\r')
		i--;
	if (i == 0 || i >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, i);
	buf[i] = '\0';
	p = buf;
	for (;;) {
		char *c = strchr(p, ',');

		if (n == CHRONY_FIELDS)
			return -EINVAL; /* too many fields */
		f[n++] = p;
		if (c == NULL)
			break;
		*c = '\0';
		p = c + 1;
	}
	if (n != CHRONY_FIELDS)
		return -EINVAL;
	if (copy_field(out->ref_id, sizeof(out->ref_id), f[0]) != 0 ||
	    copy_field(out->ref_name, sizeof(out->ref_name), f[1]) != 0 ||
	    copy_field(out->leap, sizeof(out->leap), f[13]) != 0 ||
	    out->ref_id[0] == '\0' || out->leap[0] == '\0')
		return -EINVAL;
	for (const char *q = out->ref_id; *q != '\0'; q++)
		if (!((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F') ||
		      (*q >= 'a' && *q <= 'f')))
			return -EINVAL;
	if (parse_double(f[2], 0, 16, &stratum) != 0 ||
	    stratum != floor(stratum) ||
	    parse_double(f[3], 0, 1e11, &out->ref_time_s) != 0 ||
	    parse_double(f[4], -1e9, 1e9, &out->offset_s) != 0 ||
	    parse_double(f[5], -1e9, 1e9, &out->last_offset_s) != 0 ||
	    parse_double(f[6], 0, 1e9, &out->rms_offset_s) != 0 ||
	    parse_double(f[7], -1e6, 1e6, &out->freq_ppm) != 0 ||
	    parse_double(f[8], -1e6, 1e6, &out->resid_freq_ppm) != 0 ||
	    parse_double(f[9], 0, 1e6, &out->skew_ppm) != 0 ||
	    parse_double(f[10], 0, 1e6, &out->root_delay_s) != 0 ||
	    parse_double(f[11], 0, 1e6, &out->root_dispersion_s) != 0 ||
	    parse_double(f[12], 0, 1e9, &out->update_interval_s) != 0)
		return -EINVAL;
	out->stratum = (unsigned)stratum;
	out->phc = strncmp(out->ref_name, "PHC", 3) == 0;
	out->synced = out->stratum >= 1 && out->stratum <= 15 &&
		      strtoul(out->ref_id, NULL, 16) != 0 &&
		      strcmp(out->leap, "Not synchronised") != 0;
	{
		double b = fabs(out->offset_s) + out->root_dispersion_s +
			   out->root_delay_s / 2;

		/* Rounded up to the ns (less the decimal inputs' binary
		 * rounding); 1e9 s caps it far below 2^64 ns. */
		out->bound_ns = (uint64_t)ceil(b * 1e9 - 1e-3);
	}
	return 0;
}

void
clock_verdict_of(const struct clock_kernel *k, const struct clock_chrony *c,
		 struct clock_verdict *out)
{
	memset(out, 0, sizeof(*out));
	if (c != NULL && c->synced) {
		out->synced = true;
		out->src = CLOCK_SRC_CHRONY;
		out->err_known = c->bound_ns != 0;
		out->sync_err_ns = c->bound_ns;
		return;
	}
	if (c == NULL && k != NULL && k->read && k->synced) {
		out->synced = true;
		out->src = CLOCK_SRC_KERNEL;
		/* The kernel's estimate, as the daemon set it. Its maxerror is
		 * no better: it is the same daemon's figure grown by 500 ppm
		 * since the update (timesyncd sets it to 0 as well). */
		out->err_known = k->esterror_ns != 0;
		out->sync_err_ns = k->esterror_ns;
	}
}

void
clock_run_note(struct clock_run *r, const struct clock_verdict *v)
{
	r->reads++;
	if (!v->synced) {
		r->unsynced++;
		return;
	}
	r->src = v->src;
	if (!v->err_known)
		r->err_unknown++;
	else if (v->sync_err_ns > r->sync_err_max_ns)
		r->sync_err_max_ns = v->sync_err_ns;
}

void
clock_run_verdict(const struct clock_run *r, struct clock_verdict *out)
{
	memset(out, 0, sizeof(*out));
	if (r->reads == 0 || r->unsynced != 0)
		return;
	out->synced = true;
	out->src = r->src;
	out->err_known = r->err_unknown == 0;
	out->sync_err_ns = out->err_known ? r->sync_err_max_ns : 0;
}

const char *
clock_src_name(enum clock_src s)
{
	switch (s) {
	case CLOCK_SRC_KERNEL:
		return "kernel";
	case CLOCK_SRC_CHRONY:
		return "chrony";
	case CLOCK_SRC_NONE:
	default:
		return "none";
	}
}
