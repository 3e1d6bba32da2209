/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe compare A.json B.json [more]   each run against the first
 * latprobe compare A1 A2 -- B1 B2          groups (hierarchical bootstrap)
 * latprobe compare --label x a1 --label x a2 --label y b1 ...
 *
 * No EAL: reads saved JSON reports (format_version >= 1), prints a table
 * per series and comparison, optionally JSON, and can gate CI with
 * --fail-if-slower.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "app.h"
#include "cli.h"
#include "latprobe/compare.h"
#include "latprobe/report.h"

#define MAX_FILES	  64
#define MAX_GATES	  8
#define MAX_FILE_BYTES	  (64u << 20)
#define DEFAULT_BOOTSTRAP 1000
#define MAX_BOOTSTRAP	  100000

struct gate {
	enum compare_stat stat;
	double pct;
	bool tripped;
};

struct group {
	const char *label;
	unsigned first, n; /* files[first .. first + n - 1] after sorting */
};

struct cmp_ctx {
	const char *path[MAX_FILES];
	const char *label[MAX_FILES];
	int group_of[MAX_FILES]; /* from "--" or labels */
	unsigned n_files;
	struct compare_run run[MAX_FILES];
	unsigned order[MAX_FILES]; /* file indices grouped */
	struct group groups[MAX_FILES];
	unsigned n_groups;
	unsigned n_boot;
	uint64_t seed;
	struct gate gates[MAX_GATES];
	unsigned n_gates;
	const char *json;
	bool force;
	bool any_separator;
	enum compare_series gated_series;
	struct json_object *jwarnings;
};

static void
usage(FILE *f)
{
	fputs("usage: latprobe compare [options] A.json B.json [more.json...]\n"
	      "       latprobe compare [options] A1.json A2.json -- B1.json "
	      "B2.json\n"
	      "\n"
	      "Compares saved latprobe JSON reports (--json of probe or "
	      "reflect): per\n"
	      "series (rtt_ns, network_rtt_ns, turnaround_ns, forward_ns, "
	      "reverse_ns)\n"
	      "and for min, mean, p50,\n"
	      "p90, p99, p99.9, p99.99 each side's value, B - A with a 95 % "
	      "bootstrap\n"
	      "interval, a verdict (faster / slower / no significant "
	      "difference), the\n"
	      "run-to-run spread, and a Mann-Whitney U test of the whole "
	      "distributions.\n"
	      "Without groups every run is compared with the first. With "
	      "groups (\"--\"\n"
	      "between them, or --label) runs are resampled first, then "
	      "samples within\n"
	      "them: the interval then includes run-to-run variance.\n"
	      "\n"
	      "options:\n"
	      "  --label NAME          name the next file's group; files with "
	      "the same\n"
	      "                        label form one group\n"
	      "  --bootstrap N         resamples (default 1000, 20..100000)\n"
	      "  --seed S              bootstrap seed (default 1)\n"
	      "  --fail-if-slower P:PCT  exit 7 when a group is significantly "
	      "slower\n"
	      "                        than the first at P (mean, p50, p90, "
	      "p99, p99.9,\n"
	      "                        p99.99) by more than PCT %, e.g. "
	      "p99:5%\n"
	      "  --json FILE           the comparison as JSON ('-': stdout, "
	      "the "
	      "text\n"
	      "                        goes to stderr)\n"
	      "  --force               compare runs of different protocols or "
	      "sizes\n"
	      "  --help\n"
	      "\n"
	      "examples:\n"
	      "  latprobe compare ppg.json noppg.json\n"
	      "  latprobe compare ppg1.json ppg2.json ppg3.json -- "
	      "noppg1.json \\\n"
	      "          noppg2.json noppg3.json --fail-if-slower p99:5%\n"
	      "\n"
	      "exit codes: 0 ok, 1 runtime error, 2 usage or unreadable "
	      "report,\n"
	      "            7 --fail-if-slower tripped\n",
	      f);
}

static int
parse_stat(const char *s, size_t len, enum compare_stat *out)
{
	for (int i = CMP_MEAN; i < CMP__STATS; i++)
		if ((strlen(compare_stat_name[i]) == len &&
		     strncmp(s, compare_stat_name[i], len) == 0) ||
		    (strlen(compare_stat_key[i]) == len &&
		     strncmp(s, compare_stat_key[i], len) == 0)) {
			*out = (enum compare_stat)i;
			return 0;
		}
	return -EINVAL;
}

/* "p99:5%", "p99.9:10", "mean:2.5%" */
static int
parse_gate(const char *arg, struct gate *g)
{
	const char *colon = strchr(arg, ':');
	char *end;

	if (colon == NULL || parse_stat(arg, (size_t)(colon - arg), &g->stat))
		return -EINVAL;
	errno = 0;
	g->pct = strtod(colon + 1, &end);
	if (end == colon + 1 || errno != 0 || !isfinite(g->pct) || g->pct < 0 ||
	    g->pct > 10000)
		return -EINVAL;
	if (*end == '%')
		end++;
	return *end == '\0' ? 0 : -EINVAL;
}

static int
parse_args(struct cmp_ctx *c, int argc, char **argv)
{
	const char *pending_label = NULL;
	int group = 0;
	uint64_t v;

	c->n_boot = DEFAULT_BOOTSTRAP;
	c->seed = 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return -1;
		}
		if (strcmp(a, "--") == 0) {
			if (c->n_files == 0 ||
			    (unsigned)group + 1 >= MAX_FILES) {
				app_err("'--' separates groups of files: put "
					"files before it");
				return EXIT_USAGE;
			}
			c->any_separator = true;
			group++;
			continue;
		}
		if (strcmp(a, "--force") == 0) {
			c->force = true;
			continue;
		}
		if (strcmp(a, "--label") == 0 ||
		    strcmp(a, "--bootstrap") == 0 || strcmp(a, "--seed") == 0 ||
		    strcmp(a, "--fail-if-slower") == 0 ||
		    strcmp(a, "--json") == 0) {
			if (val == NULL) {
				app_err("%s needs a value", a);
				return EXIT_USAGE;
			}
			i++;
			if (strcmp(a, "--label") == 0) {
				if (val[0] == '\0') {
					app_err("--label: empty name");
					return EXIT_USAGE;
				}
				pending_label = val;
			} else if (strcmp(a, "--bootstrap") == 0) {
				if (cli_parse_u64(val, 20, MAX_BOOTSTRAP, &v)) {
					app_err("--bootstrap '%s': a count "
						"from 20 to %u",
						val, MAX_BOOTSTRAP);
					return EXIT_USAGE;
				}
				c->n_boot = (unsigned)v;
			} else if (strcmp(a, "--seed") == 0) {
				if (cli_parse_u64(val, 0, UINT64_MAX,
						  &c->seed)) {
					app_err("--seed '%s': a number", val);
					return EXIT_USAGE;
				}
			} else if (strcmp(a, "--fail-if-slower") == 0) {
				if (c->n_gates == MAX_GATES ||
				    parse_gate(val, &c->gates[c->n_gates])) {
					app_err("--fail-if-slower '%s': "
						"P:PCT with P one of mean, "
						"p50, p90, p99, p99.9, p99.99 "
						"and PCT a percentage (e.g. "
						"p99:5%%)",
						val);
					return EXIT_USAGE;
				}
				c->n_gates++;
			} else {
				c->json = val;
			}
			continue;
		}
		if (a[0] == '-' && a[1] != '\0') {
			app_err("compare: unknown option '%s' (try 'latprobe "
				"compare --help')",
				a);
			return EXIT_USAGE;
		}
		if (c->n_files == MAX_FILES) {
			app_err("compare: at most %u files", MAX_FILES);
			return EXIT_USAGE;
		}
		c->path[c->n_files] = a;
		c->label[c->n_files] = pending_label;
		c->group_of[c->n_files] = group;
		pending_label = NULL;
		c->n_files++;
	}
	if (pending_label != NULL) {
		app_err("--label %s: no file after it", pending_label);
		return EXIT_USAGE;
	}
	if (c->n_files < 2) {
		app_err("compare needs at least two reports (try 'latprobe "
			"compare --help')");
		return EXIT_USAGE;
	}
	if (c->any_separator && c->group_of[c->n_files - 1] != group) {
		app_err("'--' at the end: the last group has no file");
		return EXIT_USAGE;
	}
	return 0;
}

/* Groups from "--", else from labels, else one per file. */
static int
make_groups(struct cmp_ctx *c)
{
	bool labels = false;
	unsigned k = 0;

	for (unsigned i = 0; i < c->n_files; i++)
		labels |= c->label[i] != NULL;
	if (!c->any_separator && labels) {
		for (unsigned i = 0; i < c->n_files; i++)
			if (c->label[i] == NULL) {
				app_err("--label: give every file a label "
					"(%s has none)",
					c->path[i]);
				return EXIT_USAGE;
			}
		/* groups in order of first appearance */
		for (unsigned i = 0; i < c->n_files; i++) {
			unsigned g;

			for (g = 0; g < c->n_groups; g++)
				if (strcmp(c->groups[g].label, c->label[i]) ==
				    0)
					break;
			if (g == c->n_groups)
				c->groups[c->n_groups++].label = c->label[i];
			c->group_of[i] = (int)g;
		}
	} else if (!c->any_separator) {
		for (unsigned i = 0; i < c->n_files; i++)
			c->group_of[i] = (int)i;
		c->n_groups = c->n_files;
	} else {
		c->n_groups = (unsigned)c->group_of[c->n_files - 1] + 1;
	}
	for (unsigned g = 0; g < c->n_groups; g++) {
		c->groups[g].first = k;
		for (unsigned i = 0; i < c->n_files; i++)
			if (c->group_of[i] == (int)g) {
				c->order[k++] = i;
				if (c->groups[g].label == NULL)
					c->groups[g].label = c->label[i];
			}
		c->groups[g].n = k - c->groups[g].first;
		if (c->groups[g].label == NULL && !c->any_separator)
			c->groups[g].label = c->path[c->order[k - 1]];
	}
	if (c->n_groups < 2) {
		app_err("compare: all files are in one group: nothing to "
			"compare it with");
		return EXIT_USAGE;
	}
	return 0;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf;

	if (f == NULL)
		return NULL;
	buf = malloc(cap);
	while (buf != NULL) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n < cap) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
				errno = EIO;
			}
			break;
		}
		if (cap >= MAX_FILE_BYTES) {
			free(buf);
			buf = NULL;
			errno = EFBIG;
			break;
		}
		cap *= 2;
		{
			char *nb = realloc(buf, cap);

			if (nb == NULL)
				free(buf);
			buf = nb;
		}
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

static void warn(struct cmp_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
warn(struct cmp_ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	app_warn("%s", buf);
	if (c->jwarnings != NULL)
		json_object_array_add(c->jwarnings,
				      json_object_new_string(buf));
}

static int
load_runs(struct cmp_ctx *c)
{
	const struct compare_run *r0 = &c->run[0];

	for (unsigned i = 0; i < c->n_files; i++) {
		char why[256] = "";
		size_t len = 0;
		char *txt = slurp(c->path[i], &len);
		int ret;

		if (txt == NULL) {
			app_err("cannot read %s: %s", c->path[i],
				strerror(errno));
			return EXIT_USAGE;
		}
		ret = compare_run_parse(txt, len, &c->run[i], why, sizeof(why));
		free(txt);
		if (ret == -ENOMEM) {
			app_err("out of memory");
			return EXIT_RUNTIME;
		}
		if (ret != 0) {
			app_err("%s: %s", c->path[i], why);
			return EXIT_USAGE;
		}
	}
	for (unsigned i = 1; i < c->n_files; i++) {
		const struct compare_run *r = &c->run[i];
		const char *what = NULL;

		if (strcmp(r->kind, r0->kind) != 0)
			what = "kind (probe vs reflect)";
		else if (strcmp(r->proto, r0->proto) != 0)
			what = "protocol";
		else if (r->size != r0->size)
			what = "size (-l)";
		if (what != NULL && !c->force) {
			app_err("%s and %s differ in %s (%s %u B vs %s %u B): "
				"not comparable; --force compares anyway",
				c->path[0], c->path[i], what,
				r0->proto[0] ? r0->proto : r0->kind, r0->size,
				r->proto[0] ? r->proto : r->kind, r->size);
			return EXIT_USAGE;
		}
		if (what != NULL)
			warn(c, "%s and %s differ in %s (--force)", c->path[0],
			     c->path[i], what);
		if (strcmp(r->cpu_model, r0->cpu_model) != 0)
			warn(c, "%s and %s ran on different CPUs (%s / %s)",
			     c->path[0], c->path[i],
			     r0->cpu_model[0] ? r0->cpu_model : "unknown",
			     r->cpu_model[0] ? r->cpu_model : "unknown");
		if (strcmp(r->host, r0->host) != 0)
			warn(c, "%s and %s ran on different hosts (%s / %s)",
			     c->path[0], c->path[i],
			     r0->host[0] ? r0->host : "unknown",
			     r->host[0] ? r->host : "unknown");
		if (strcmp(r->nic_driver, r0->nic_driver) != 0)
			warn(c,
			     "%s and %s used different NIC drivers (%s / "
			     "%s)",
			     c->path[0], c->path[i],
			     r0->nic_driver[0] ? r0->nic_driver : "unknown",
			     r->nic_driver[0] ? r->nic_driver : "unknown");
	}
	return 0;
}

/* "+1.23us" / "-812ns" for a difference in ns. */
static const char *
fmt_diff(double ns, char *buf, size_t cap)
{
	char v[24];

	if (!isfinite(ns)) {
		snprintf(buf, cap, "-");
		return buf;
	}
	report_fmt_ns((uint64_t)llround(fabs(ns)), v, sizeof(v));
	snprintf(buf, cap, "%s%s", ns < 0 ? "-" : "+", v);
	return buf;
}

static const char *
fmt_val(double ns, char *buf, size_t cap)
{
	if (!isfinite(ns) || ns < 0) {
		snprintf(buf, cap, "-");
		return buf;
	}
	return report_fmt_ns((uint64_t)llround(ns), buf, cap);
}

static const char *
verdict_name(enum compare_verdict v)
{
	return v == CMP_SLOWER	 ? "slower"
	       : v == CMP_FASTER ? "faster"
				 : "no significant difference";
}

static void
jset_d(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k,
			       isfinite(v) ? json_object_new_double(v) : NULL);
}

/* [lo, hi], or null when there is no interval (NaN). */
static void
jset_ci(struct json_object *o, const char *k, double lo, double hi)
{
	struct json_object *a;

	if (!isfinite(lo) || !isfinite(hi)) {
		json_object_object_add(o, k, NULL);
		return;
	}
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_double(lo));
	json_object_array_add(a, json_object_new_double(hi));
	json_object_object_add(o, k, a);
}

static void
group_hists(struct cmp_ctx *c, unsigned g, enum compare_series s,
	    const struct histogram **out, uint64_t *samples)
{
	*samples = 0;
	for (unsigned k = 0; k < c->groups[g].n; k++) {
		out[k] = c->run[c->order[c->groups[g].first + k]].h[s];
		*samples += histogram_count(out[k]);
	}
}

static bool
group_has(struct cmp_ctx *c, unsigned g, enum compare_series s)
{
	for (unsigned k = 0; k < c->groups[g].n; k++) {
		const struct compare_run *r =
			&c->run[c->order[c->groups[g].first + k]];

		if (!r->has[s] || histogram_count(r->h[s]) == 0)
			return false;
	}
	return true;
}

static const char *
group_name(const struct cmp_ctx *c, unsigned g, char *buf, size_t cap)
{
	if (c->groups[g].label != NULL)
		return c->groups[g].label;
	if (g < 26)
		snprintf(buf, cap, "%c", 'A' + g);
	else
		snprintf(buf, cap, "group %u", g + 1);
	return buf;
}

/* One series, group g against group 0. */
static int
compare_one(struct cmp_ctx *c, unsigned g, enum compare_series s, bool gated,
	    FILE *out, struct json_object *jseries)
{
	const struct histogram *ha[MAX_FILES], *hb[MAX_FILES];
	struct compare_group ga, gb;
	struct compare_diff d[CMP__STATS];
	struct compare_mwu m;
	struct json_object *jstats;
	uint64_t na, nb;
	int ret;

	group_hists(c, 0, s, ha, &na);
	group_hists(c, g, s, hb, &nb);
	ga.runs = ha;
	ga.n = c->groups[0].n;
	gb.runs = hb;
	gb.n = c->groups[g].n;
	ret = compare_bootstrap(&ga, &gb, c->n_boot, c->seed, d);
	if (ret == 0) {
		struct histogram *pa = histogram_create(),
				 *pb = histogram_create();

		if (pa == NULL || pb == NULL) {
			ret = -ENOMEM;
		} else {
			for (unsigned k = 0; k < ga.n; k++)
				histogram_merge(pa, ha[k]);
			for (unsigned k = 0; k < gb.n; k++)
				histogram_merge(pb, hb[k]);
			ret = compare_mann_whitney(pa, pb, &m);
		}
		histogram_destroy(pa);
		histogram_destroy(pb);
	}
	if (ret != 0) {
		app_err("compare: %s", strerror(-ret));
		return EXIT_RUNTIME;
	}

	fprintf(out,
		"\n%s: A %u run%s %" PRIu64 " samples, B %u run%s %" PRIu64
		" samples\n",
		compare_series_key[s], ga.n, ga.n == 1 ? "" : "s", na, gb.n,
		gb.n == 1 ? "" : "s", nb);
	fprintf(out, "  %-7s %10s %10s %10s %8s  %-23s %s\n", "", "A", "B",
		"B - A", "", "95% interval", "verdict");
	jstats = json_object_new_object();
	for (int k = 0; k < CMP__STATS; k++) {
		char a[32], b[32], df[32], lo[32], hi[32], ci[80], pct[16];
		double rel = d[k].a > 0 ? 100.0 * d[k].diff / d[k].a : NAN;
		struct json_object *js = json_object_new_object();

		if (isnan(d[k].lo))
			snprintf(ci, sizeof(ci), "-");
		else
			snprintf(ci, sizeof(ci), "[%s, %s]",
				 fmt_diff(d[k].lo, lo, sizeof(lo)),
				 fmt_diff(d[k].hi, hi, sizeof(hi)));
		if (isfinite(rel))
			snprintf(pct, sizeof(pct), "%+.1f%%", rel);
		else
			snprintf(pct, sizeof(pct), "-");
		if (d[k].too_few) {
			/* A run without enough samples for it: no figure on
			 * that side, so no comparison. */
			fprintf(out,
				"  %-7s not compared: too few samples (needs "
				"%" PRIu64 " in every run, the fewest has "
				"%" PRIu64 ")\n",
				compare_stat_name[k], d[k].need, d[k].fewest);
			json_object_object_add(
				js, "reason",
				json_object_new_string("too_few_samples"));
		} else {
			fprintf(out, "  %-7s %10s %10s %10s %8s  %-23s %s\n",
				compare_stat_name[k],
				fmt_val(d[k].a, a, sizeof(a)),
				fmt_val(d[k].b, b, sizeof(b)),
				fmt_diff(d[k].diff, df, sizeof(df)), pct, ci,
				k == CMP_MIN ? "(no interval for a minimum)"
					     : verdict_name(d[k].verdict));
		}
		jset_d(js, "a", d[k].a);
		jset_d(js, "b", d[k].b);
		jset_d(js, "diff", d[k].diff);
		jset_d(js, "diff_pct", rel);
		jset_d(js, "ci_low", d[k].lo);
		jset_d(js, "ci_high", d[k].hi);
		jset_ci(js, "a_ci95", d[k].a_ci_lo, d[k].a_ci_hi);
		jset_ci(js, "b_ci95", d[k].b_ci_lo, d[k].b_ci_hi);
		jset_d(js, "a_runs_min", d[k].a_lo);
		jset_d(js, "a_runs_max", d[k].a_hi);
		jset_d(js, "b_runs_min", d[k].b_lo);
		jset_d(js, "b_runs_max", d[k].b_hi);
		json_object_object_add(
			js, "verdict",
			k == CMP_MIN || d[k].too_few
				? NULL
				: json_object_new_string(
					  d[k].verdict == CMP_SLOWER ? "slower"
					  : d[k].verdict == CMP_FASTER
						  ? "faster"
						  : "none"));
		json_object_object_add(jstats, compare_stat_key[k], js);

		for (unsigned q = 0; q < c->n_gates; q++)
			if (gated && (int)c->gates[q].stat == k &&
			    d[k].verdict == CMP_SLOWER && isfinite(rel) &&
			    rel > c->gates[q].pct)
				c->gates[q].tripped = true;
	}
	if (ga.n > 1 || gb.n > 1) {
		fprintf(out, "  run-to-run spread (lowest..highest run):\n");
		for (int k = CMP_MEAN; k < CMP__STATS; k++) {
			char a1[24], a2[24], b1[24], b2[24];

			if (d[k].too_few)
				continue;
			fprintf(out, "  %-7s A %s..%s  B %s..%s\n",
				compare_stat_name[k],
				fmt_val(d[k].a_lo, a1, sizeof(a1)),
				fmt_val(d[k].a_hi, a2, sizeof(a2)),
				fmt_val(d[k].b_lo, b1, sizeof(b1)),
				fmt_val(d[k].b_hi, b2, sizeof(b2)));
		}
	}
	fprintf(out,
		"  Mann-Whitney U (whole distributions, runs pooled): P(B > A) "
		"= %.3f, z = %+.2f, p %s %.3g: %s\n",
		m.prob_b_greater, m.z, m.p > 0 ? "=" : "<",
		m.p > 0 ? m.p : DBL_MIN,
		m.p >= 0.05 ? "no significant difference"
		: m.z > 0   ? "B slower"
			    : "B faster");
	{
		struct json_object *jm = json_object_new_object();

		json_object_object_add(jm, "u_b",
				       json_object_new_double(m.u_b));
		jset_d(jm, "z", m.z);
		jset_d(jm, "p", m.p);
		jset_d(jm, "prob_b_greater", m.prob_b_greater);
		json_object_object_add(jseries, "mann_whitney", jm);
	}
	json_object_object_add(jseries, "runs_a", json_object_new_int64(ga.n));
	json_object_object_add(jseries, "runs_b", json_object_new_int64(gb.n));
	json_object_object_add(jseries, "samples_a",
			       json_object_new_uint64(na));
	json_object_object_add(jseries, "samples_b",
			       json_object_new_uint64(nb));
	json_object_object_add(jseries, "stats", jstats);
	return 0;
}

static int
write_json(const void *arg, FILE *f)
{
	const char *txt = json_object_to_json_string_ext(
		(struct json_object *)arg,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (txt == NULL)
		return -ENOMEM;
	if (fputs(txt, f) == EOF || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

int
cmd_compare(int argc, char **argv)
{
	struct cmp_ctx *c = calloc(1, sizeof(*c));
	struct json_object *root = NULL, *jcmp, *jgroups;
	struct app_out jout = {0};
	bool single = true;
	FILE *out = stdout;
	int ret;

	if (c == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	ret = parse_args(c, argc, argv);
	if (ret != 0) {
		ret = ret < 0 ? EXIT_OK : ret;
		goto done;
	}
	ret = make_groups(c);
	if (ret != 0)
		goto done;
	if (c->json != NULL) {
		ret = app_out_open(&jout, "--json", c->json);
		if (ret != EXIT_OK)
			goto done;
		if (strcmp(c->json, "-") == 0)
			out = stderr;
	}
	root = json_object_new_object();
	c->jwarnings = json_object_new_array();
	ret = load_runs(c);
	if (ret != 0)
		goto done;

	fprintf(out,
		"latprobe compare: %u groups, %u bootstrap resamples (seed "
		"%" PRIu64 "), 95%% intervals of B - A\n",
		c->n_groups, c->n_boot, c->seed);
	jgroups = json_object_new_array();
	for (unsigned g = 0; g < c->n_groups; g++) {
		struct json_object *jg = json_object_new_object(),
				   *jf = json_object_new_array();
		char nb[32];

		const char *name = group_name(c, g, nb, sizeof(nb));

		/* "A: f1 f2", "B = label: f1 f2" or "B = file" */
		fprintf(out, "  %c", g < 26 ? 'A' + g : '?');
		if (c->groups[g].label != NULL)
			fprintf(out, " = %s", name);
		for (unsigned k = 0; k < c->groups[g].n; k++) {
			const char *p =
				c->path[c->order[c->groups[g].first + k]];

			if (c->groups[g].label == NULL || strcmp(name, p) != 0)
				fprintf(out, "%s %s", k == 0 ? ":" : "", p);
			json_object_array_add(jf, json_object_new_string(p));
		}
		fputc('\n', out);
		if (c->groups[g].n > 1)
			single = false;
		json_object_object_add(jg, "label",
				       json_object_new_string(group_name(
					       c, g, nb, sizeof(nb))));
		json_object_object_add(jg, "files", jf);
		json_object_array_add(jgroups, jg);
	}
	json_object_object_add(root, "format_version",
			       json_object_new_int(REPORT_FORMAT_VERSION));
	json_object_object_add(root, "bootstrap",
			       json_object_new_int64(c->n_boot));
	json_object_object_add(root, "seed", json_object_new_uint64(c->seed));
	json_object_object_add(root, "groups", jgroups);
	jcmp = json_object_new_array();
	json_object_object_add(root, "comparisons", jcmp);

	for (unsigned g = 1; g < c->n_groups; g++) {
		struct json_object *jc = json_object_new_object(),
				   *js = json_object_new_object();
		char na[32], nb[32];

		if (c->n_groups > 2)
			fprintf(out, "\n== B = %s against A = %s\n",
				group_name(c, g, nb, sizeof(nb)),
				group_name(c, 0, na, sizeof(na)));
		json_object_object_add(jc, "a",
				       json_object_new_string(group_name(
					       c, 0, na, sizeof(na))));
		json_object_object_add(jc, "b",
				       json_object_new_string(group_name(
					       c, g, nb, sizeof(nb))));
		json_object_object_add(jc, "series", js);
		json_object_array_add(jcmp, jc);
		bool gated = true; /* the first series: rtt, or turnaround */

		for (int s = 0; s < CMP__SERIES; s++) {
			struct json_object *jser;

			if (!group_has(c, 0, s) || !group_has(c, g, s))
				continue;
			jser = json_object_new_object();
			json_object_object_add(js, compare_series_key[s], jser);
			ret = compare_one(c, g, (enum compare_series)s, gated,
					  out, jser);
			if (ret != 0)
				goto done;
			if (gated)
				c->gated_series = (enum compare_series)s;
			gated = false;
		}
		if (gated) /* not one series compared */
			warn(c,
			     "%s against %s: no latency series with samples "
			     "on both sides (all probes lost?)",
			     group_name(c, g, nb, sizeof(nb)),
			     group_name(c, 0, na, sizeof(na)));
	}
	if (single)
		fprintf(out,
			"\nnote: one run per side: the intervals only count "
			"the samples inside each run and ignore run-to-run "
			"variance, which is usually larger; repeat each "
			"condition and compare groups (A1 A2 A3 -- B1 B2 "
			"B3)\n");
	json_object_object_add(root, "single_runs",
			       json_object_new_boolean(single));
	{
		struct json_object *jg = json_object_new_array();

		for (unsigned q = 0; q < c->n_gates; q++) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(
				o, "stat",
				json_object_new_string(
					compare_stat_name[c->gates[q].stat]));
			jset_d(o, "pct", c->gates[q].pct);
			json_object_object_add(
				o, "tripped",
				json_object_new_boolean(c->gates[q].tripped));
			json_object_array_add(jg, o);
			if (c->gates[q].tripped) {
				fprintf(out,
					"\nFAIL: %s %s: significantly "
					"slower than A by more than %g%% "
					"(--fail-if-slower)\n",
					compare_series_key[c->gated_series],
					compare_stat_name[c->gates[q].stat],
					c->gates[q].pct);
				ret = EXIT_SLOWER;
			}
		}
		json_object_object_add(root, "fail_if_slower", jg);
	}
	json_object_object_add(root, "warnings", c->jwarnings);
	c->jwarnings = NULL;
	if (fflush(out) != 0 && out == stdout) {
		app_err("writing the comparison failed");
		ret = EXIT_RUNTIME;
	}
	if (app_out_write(&jout, write_json, root) != EXIT_OK)
		ret = EXIT_RUNTIME;
done:
	app_out_close(&jout);
	json_object_put(c->jwarnings);
	json_object_put(root);
	for (unsigned i = 0; i < c->n_files; i++)
		compare_run_fini(&c->run[i]);
	free(c);
	return ret;
}
