/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parsers of the host checks: kernel cpulists, /proc/stat and
 * /proc/interrupts, on (buf, len) with no NUL needed. Pure; fuzzed
 * (tests/fuzz/host).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latprobe/host.h"

void
host_cpus_zero(struct host_cpus *c)
{
	memset(c, 0, sizeof(*c));
}

void
host_cpus_set(struct host_cpus *c, unsigned cpu)
{
	if (cpu < HOST_MAX_CPUS)
		c->w[cpu / 64] |= 1ull << (cpu % 64);
}

bool
host_cpus_isset(const struct host_cpus *c, unsigned cpu)
{
	return cpu < HOST_MAX_CPUS && (c->w[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned
host_cpus_count(const struct host_cpus *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < HOST_MAX_CPUS / 64; i++)
		n += (unsigned)__builtin_popcountll(c->w[i]);
	return n;
}

void
host_cpus_and(struct host_cpus *out, const struct host_cpus *a,
	      const struct host_cpus *b)
{
	for (unsigned i = 0; i < HOST_MAX_CPUS / 64; i++)
		out->w[i] = a->w[i] & b->w[i];
}

void
host_cpus_andnot(struct host_cpus *out, const struct host_cpus *a,
		 const struct host_cpus *b)
{
	for (unsigned i = 0; i < HOST_MAX_CPUS / 64; i++)
		out->w[i] = a->w[i] & ~b->w[i];
}

bool
host_cpus_subset(const struct host_cpus *a, const struct host_cpus *b)
{
	for (unsigned i = 0; i < HOST_MAX_CPUS / 64; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal number at *p (< end); advances *p. -EINVAL, -ERANGE or 0. */
static int
parse_uint(const char **p, const char *end, uint64_t limit, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s >= end || !is_digit(*s))
		return -EINVAL;
	for (; s < end && is_digit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (limit - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

int
host_cpus_parse(const char *s, size_t len, struct host_cpus *out)
{
	const char *p = s, *end = s + len;
	int ret;

	host_cpus_zero(out);
	while (p < end && is_space(*p))
		p++;
	while (end > p && (is_space(end[-1]) || end[-1] == '\0'))
		end--;
	if (p == end)
		return 0;
	for (;;) {
		uint64_t a, b;

		ret = parse_uint(&p, end, UINT64_MAX, &a);
		if (ret != 0)
			return ret;
		b = a;
		if (p < end && *p == '-') {
			p++;
			ret = parse_uint(&p, end, UINT64_MAX, &b);
			if (ret != 0)
				return ret;
		}
		if (a > b)
			return -EINVAL;
		if (b >= HOST_MAX_CPUS)
			return -ERANGE;
		for (uint64_t c = a; c <= b; c++)
			host_cpus_set(out, (unsigned)c);
		if (p == end)
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

char *
host_cpus_format(const struct host_cpus *c, char *buf, size_t len)
{
	size_t off = 0;
	bool first = true;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < HOST_MAX_CPUS; i++) {
		unsigned j = i;
		int n;

		if (!host_cpus_isset(c, i))
			continue;
		while (j + 1 < HOST_MAX_CPUS && host_cpus_isset(c, j + 1))
			j++;
		if (j == i)
			n = snprintf(buf + off, len - off, "%s%u",
				     first ? "" : ",", i);
		else
			n = snprintf(buf + off, len - off, "%s%u-%u",
				     first ? "" : ",", i, j);
		if (n < 0 || (size_t)n >= len - off)
			return buf; /* truncated */
		off += (size_t)n;
		first = false;
		i = j;
	}
	if (first)
		snprintf(buf, len, "none");
	return buf;
}

/* The line at *p (< end) without its newline; *p goes past it. */
static void
next_line(const char **p, const char *end, const char **ls, const char **le)
{
	const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));

	*ls = s;
	*le = e != NULL ? e : end;
	*p = e != NULL ? e + 1 : end;
}

static void
skip_blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

int
host_stat_parse(const char *buf, size_t len, struct host_stat *out)
{
	const char *p = buf, *end = buf + len;
	bool any = false;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *ls, *le, *q;
		uint64_t cpu, v, f[10] = {0};
		unsigned nf = 0;
		int ret;

		next_line(&p, end, &ls, &le);
		if (le - ls < 4 || memcmp(ls, "cpu", 3) != 0 ||
		    !is_digit(ls[3]))
			continue; /* "cpu " (the sum) and the rest */
		q = ls + 3;
		ret = parse_uint(&q, le, HOST_MAX_CPUS - 1, &cpu);
		if (ret != 0)
			return -EINVAL;
		for (;;) {
			const char *before = q;

			skip_blanks(&q, le);
			if (q == le)
				break;
			if (q == before)
				return -EINVAL; /* "cpu0x" */
			if (parse_uint(&q, le, UINT64_MAX, &v) != 0)
				return -EINVAL;
			if (nf < 10)
				f[nf] = v;
			nf++;
		}
		/* user nice system idle iowait irq softirq steal (since 2.6.11)
		 */
		if (nf < 8)
			return -EINVAL;
		host_cpus_set(&out->present, (unsigned)cpu);
		out->total[cpu] = 0;
		for (unsigned i = 0; i < nf && i < 8; i++)
			out->total[cpu] += f[i];
		out->idle[cpu] = f[3] + f[4];
		out->steal[cpu] = f[7];
		any = true;
	}
	return any ? 0 : -EINVAL;
}

int
host_task_stat_parse(const char *buf, size_t len, char *state, unsigned *cpu,
		     char *comm, size_t comm_len)
{
	const char *end = buf + len, *o = memchr(buf, '(', len), *c = NULL;
	const char *p;
	uint64_t v;
	size_t n;

	/* The name may hold ')' itself: the last one closes it. */
	for (p = buf; p < end; p++)
		if (*p == ')')
			c = p;
	if (o == NULL || c == NULL || c < o || end - c < 3 || c[1] != ' ' ||
	    comm_len == 0)
		return -EINVAL;
	n = (size_t)(c - o - 1);
	if (n >= comm_len)
		n = comm_len - 1;
	for (size_t i = 0; i < n; i++) {
		char ch = o[1 + i];

		if (ch < 0x20 || ch >= 0x7f)
			ch = '?';
		comm[i] = ch;
	}
	comm[n] = '\0';
	p = c + 2;
	*state = *p;
	/* Field 3 is the state; field 39 the CPU it last ran on. */
	for (unsigned field = 3; field < 39; field++) {
		p = memchr(p, ' ', (size_t)(end - p));
		if (p == NULL)
			return -EINVAL;
		p++;
	}
	if (parse_uint(&p, end, HOST_MAX_CPUS - 1, &v) != 0)
		return -EINVAL;
	*cpu = (unsigned)v;
	return 0;
}

/* /proc/interrupts' header ("   CPU0   CPU1 ..."): the CPU of each count
 * column. 0 or -EINVAL. */
static int
irq_header(const char **p, const char *end, unsigned *col_cpu, unsigned *n_cols)
{
	const char *ls, *le, *q;

	*n_cols = 0;
	if (*p == end)
		return -EINVAL;
	next_line(p, end, &ls, &le);
	q = ls;
	for (;;) {
		uint64_t cpu;

		skip_blanks(&q, le);
		if (q == le)
			break;
		if (le - q < 4 || memcmp(q, "CPU", 3) != 0)
			return -EINVAL;
		q += 3;
		if (parse_uint(&q, le, HOST_MAX_CPUS - 1, &cpu) != 0 ||
		    *n_cols == HOST_MAX_CPUS)
			return -EINVAL;
		col_cpu[(*n_cols)++] = (unsigned)cpu;
	}
	return *n_cols == 0 ? -EINVAL : 0;
}

int
host_interrupts_parse(const char *buf, size_t len, struct host_irq *out,
		      unsigned max, unsigned *n)
{
	const char *p = buf, *end = buf + len, *ls, *le, *q;
	unsigned col_cpu[HOST_MAX_CPUS], n_cols = 0;

	*n = 0;
	if (irq_header(&p, end, col_cpu, &n_cols) != 0)
		return -EINVAL;
	while (p < end) {
		struct host_irq irq;
		uint64_t num, v;
		size_t dl;

		next_line(&p, end, &ls, &le);
		q = ls;
		skip_blanks(&q, le);
		if (q == le || !is_digit(*q))
			continue; /* NMI:, LOC:, ERR:, blank */
		memset(&irq, 0, sizeof(irq));
		if (parse_uint(&q, le, UINT32_MAX, &num) != 0 || q == le ||
		    *q != ':')
			return -EINVAL;
		q++;
		irq.irq = (unsigned)num;
		/* Up to n_cols counts; a shorter row is allowed (some chips
		 * print fewer, e.g. on hot-plugged CPUs). */
		for (unsigned c = 0; c < n_cols; c++) {
			const char *save = q;

			skip_blanks(&q, le);
			if (q == le || !is_digit(*q)) {
				q = save;
				break;
			}
			if (parse_uint(&q, le, UINT64_MAX, &v) != 0)
				return -EINVAL;
			if (q < le && *q != ' ' && *q != '\t')
				return -EINVAL;
			if (v != 0)
				host_cpus_set(&irq.fired, col_cpu[c]);
			irq.count += v;
		}
		skip_blanks(&q, le);
		dl = (size_t)(le - q);
		if (dl >= sizeof(irq.desc))
			dl = sizeof(irq.desc) - 1;
		memcpy(irq.desc, q, dl);
		irq.desc[dl] = '\0';
		/* Keep it printable: a desc goes into messages and JSON. */
		for (size_t i = 0; i < dl; i++)
			if ((unsigned char)irq.desc[i] < 0x20 ||
			    (unsigned char)irq.desc[i] >= 0x7f)
				irq.desc[i] = '?';
		if (*n < max)
			out[(*n)++] = irq;
	}
	return 0;
}

int
host_interrupts_cpu_total(const char *buf, size_t len,
			  const struct host_cpus *cpus, uint64_t *total)
{
	const char *p = buf, *end = buf + len, *ls, *le, *q;
	unsigned col_cpu[HOST_MAX_CPUS], n_cols = 0;

	*total = 0;
	if (irq_header(&p, end, col_cpu, &n_cols) != 0)
		return -EINVAL;
	/* Every row whose first field is a label ("24:", "LOC:", "RES:")
	 * and whose counts are per CPU; ERR: and MIS: have one count for the
	 * whole system and are left out (fewer counts than columns is
	 * allowed only for numbered rows, as host_interrupts_parse()). */
	while (p < end) {
		uint64_t sum = 0, v;
		unsigned c;

		next_line(&p, end, &ls, &le);
		q = memchr(ls, ':', (size_t)(le - ls));
		if (q == NULL)
			continue;
		q++;
		for (c = 0; c < n_cols; c++) {
			const char *save = q;

			skip_blanks(&q, le);
			if (q == le || !is_digit(*q)) {
				q = save;
				break;
			}
			if (parse_uint(&q, le, UINT64_MAX, &v) != 0)
				return -EINVAL;
			if (q < le && *q != ' ' && *q != '\t')
				return -EINVAL;
			if (host_cpus_isset(cpus, col_cpu[c]))
				sum += v;
		}
		if (c < 2 && n_cols > 1)
			continue; /* one system-wide count */
		*total += sum;
	}
	return 0;
}

int
host_schedstat_parse(const char *buf, size_t len, uint64_t *run_ns,
		     uint64_t *wait_ns)
{
	const char *p = buf, *end = buf + len;
	uint64_t v[2];

	for (unsigned i = 0; i < 2; i++) {
		skip_blanks(&p, end);
		if (parse_uint(&p, end, UINT64_MAX, &v[i]) != 0)
			return -EINVAL;
	}
	*run_ns = v[0];
	*wait_ns = v[1];
	return 0;
}

int
host_status_ctxt_parse(const char *buf, size_t len, uint64_t *voluntary,
		       uint64_t *involuntary)
{
	static const char vol[] = "voluntary_ctxt_switches:";
	static const char inv[] = "nonvoluntary_ctxt_switches:";
	const char *p = buf, *end = buf + len, *ls, *le;
	unsigned found = 0;

	while (p < end) {
		const char *q;
		uint64_t *out = NULL;

		next_line(&p, end, &ls, &le);
		if ((size_t)(le - ls) > sizeof(vol) - 1 &&
		    memcmp(ls, vol, sizeof(vol) - 1) == 0) {
			q = ls + sizeof(vol) - 1;
			out = voluntary;
		} else if ((size_t)(le - ls) > sizeof(inv) - 1 &&
			   memcmp(ls, inv, sizeof(inv) - 1) == 0) {
			q = ls + sizeof(inv) - 1;
			out = involuntary;
		} else {
			continue;
		}
		skip_blanks(&q, le);
		if (parse_uint(&q, le, UINT64_MAX, out) != 0)
			return -EINVAL;
		found |= out == voluntary ? 1u : 2u;
	}
	return found == 3 ? 0 : -EINVAL;
}
