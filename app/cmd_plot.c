/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe plot RUN.json [more...] [--label L ...] [--samples CSV ...]
 *               -o report.html
 * No EAL: reads saved reports and writes one self-contained HTML page.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "latprobe/plot.h"

/* A --samples file is binned into this many points per run. */
#define PLOT_TIME_POINTS 300
/* Inputs larger than this are refused before reading them whole. */
#define PLOT_FILE_MAX	 (1ull << 30)

static void
usage(FILE *f)
{
	fputs("usage: latprobe plot RUN.json [RUN.json ...] -o report.html "
	      "[options]\n"
	      "\n"
	      "Draw saved probe reports (latprobe probe --json) as one "
	      "self-contained HTML\n"
	      "page (inline SVG, no script, nothing fetched): the percentile "
	      "spectrum of every\n"
	      "run on one chart, the histogram in log-spaced bins, the CDF, "
	      "latency over time\n"
	      "(from --samples) and a table of each run's key figures. No EAL, "
	      "no root.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE    where the page goes ('-' = stdout); "
	      "required\n"
	      "  --label L            name of the next run in legends and the "
	      "table\n"
	      "                       (in order: the k-th --label names the "
	      "k-th RUN;\n"
	      "                       default: the file name)\n"
	      "  --samples CSV        latency over time for the next run, from "
	      "latprobe probe\n"
	      "                       --samples (in order like --label; '' "
	      "skips a run)\n"
	      "  --hlog FILE          the same from latprobe probe --hlog (its "
	      "Tag=rtt\n"
	      "                       intervals); a run takes --samples or "
	      "--hlog, not both\n"
	      "  --title T            the page's title (default: latprobe "
	      "plot)\n"
	      "  --series S           draw that series of each report: rtt "
	      "(default),\n"
	      "                       network_rtt, turnaround, forward or "
	      "reverse (the\n"
	      "                       one-way delays; --hlog then reads that "
	      "Tag; --samples\n"
	      "                       draws rtt_ns only), or unaffected "
	      "(rtt_ns_unaffected:\n"
	      "                       the round trips without the probes that "
	      "overlapped a\n"
	      "                       stall of either host; reports only)\n"
	      "  --unaffected         the same as --series unaffected\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "examples:\n"
	      "  latprobe plot ppg.json noppg.json --label 'with PPG' --label "
	      "'without PPG' \\\n"
	      "          -o ppg.html\n"
	      "  latprobe plot run.json --samples run.csv -o run.html\n"
	      "  latprobe plot run.json --series forward -o forward.html\n"
	      "\n"
	      "exit codes: 0 ok, 1 writing the page failed, 2 usage or an "
	      "input that is not\n"
	      "            a latprobe probe report\n",
	      f);
}

/* The whole file, NUL-terminated; NULL with errno. */
static char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	size_t n = 0, cap;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return NULL;
	if (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	if ((unsigned long long)st.st_size > PLOT_FILE_MAX) {
		fclose(f);
		errno = EFBIG;
		return NULL;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	while (buf != NULL) {
		size_t r = fread(buf + n, 1, cap - 1 - n, f);

		n += r;
		if (n < cap - 1) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
				errno = EIO;
			}
			break;
		}
		/* A pipe or a file that grows: read on, within the cap. */
		if (cap - 1 >= PLOT_FILE_MAX) {
			free(buf);
			buf = NULL;
			errno = EFBIG;
			break;
		}
		{
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf == NULL)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : path;
}

enum plot_in { IN_REPORT, IN_SAMPLES, IN_HLOG };

/*
 * --series: which of a report's series is drawn (its JSON key) and the
 * --hlog tag that goes with it. rtt unless told.
 */
static const struct {
	const char *name, *key, *tag;
} plot_series_tab[] = {
	{"rtt", "rtt_ns", "rtt"},
	{"network_rtt", "network_rtt_ns", "network_rtt"},
	{"turnaround", "turnaround_ns", "turnaround"},
	{"forward", "forward_ns", "forward"},
	{"reverse", "reverse_ns", "reverse"},
	/* The round trips without host-affected probes (reports
	 * made with stall detection on; no --hlog Tag) */
	{"unaffected", "rtt_ns_unaffected", NULL},
};
static unsigned plot_series;

/*
 * Read one input file: a report into in, or the latency over time of a
 * --samples CSV or an --hlog into *tp. 0, or the exit status after one line
 * on stderr.
 */
static int
read_input(enum plot_in kind, const char *file, struct plot_input *in,
	   struct plot_tpoint **tp, size_t *n_time)
{
	static const char *const opt[] = {
		[IN_REPORT] = "",
		[IN_SAMPLES] = "--samples ",
		[IN_HLOG] = "--hlog ",
	};
	char err[256], *txt;
	size_t len = 0;
	int r;

	txt = slurp(file, &len);
	if (txt == NULL) {
		app_err("plot: %s%s: cannot read it: %s", opt[kind], file,
			strerror(errno));
		return EXIT_USAGE;
	}
	if (kind == IN_REPORT)
		r = plot_json_read_series(txt, len,
					  plot_series_tab[plot_series].key, in,
					  err, sizeof(err));
	else if (kind == IN_SAMPLES)
		r = plot_samples_read(txt, len, PLOT_TIME_POINTS, tp, n_time,
				      err, sizeof(err));
	else
		r = plot_hlog_read(txt, len, plot_series_tab[plot_series].tag,
				   tp, n_time, err, sizeof(err));
	free(txt);
	if (r == 0)
		return 0;
	if (r == -ENOMEM) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	app_err("plot: %s%s: %s", opt[kind], file, err);
	return EXIT_USAGE;
}

int
cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"label", required_argument, NULL, 'L'},
		{"samples", required_argument, NULL, 'S'},
		{"hlog", required_argument, NULL, 'H'},
		{"title", required_argument, NULL, 'T'},
		{"series", required_argument, NULL, 'R'},
		{"unaffected", no_argument, NULL, 'U'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *labels[PLOT_MAX_RUNS], *samples[PLOT_MAX_RUNS],
		*hlogs[PLOT_MAX_RUNS];
	const char *output = NULL, *title = NULL, *files[PLOT_MAX_RUNS];
	struct plot_input *in = NULL;
	struct plot_run runs[PLOT_MAX_RUNS];
	struct plot_tpoint *tp[PLOT_MAX_RUNS] = {NULL};
	unsigned n_labels = 0, n_samples = 0, n_hlogs = 0, n = 0;
	int c, ret = EXIT_USAGE;
	FILE *out = NULL;

	/* "latprobe plot -- ...": the usual form with an empty EAL part. */
	if (argc > 0 && strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	}
	/* argv[0] is the first argument: getopt skips it. */
	argc++;
	argv--;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-o:h", opts, NULL)) != -1) {
		switch (c) {
		case 1: /* a RUN.json, in order among the options */
			if (n == PLOT_MAX_RUNS) {
				app_err("plot: more than %u runs; one page "
					"holds at most %u",
					PLOT_MAX_RUNS, PLOT_MAX_RUNS);
				return EXIT_USAGE;
			}
			files[n++] = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'L':
		case 'S':
		case 'H': {
			unsigned *cnt = c == 'L'   ? &n_labels
					: c == 'S' ? &n_samples
						   : &n_hlogs;
			const char **v = c == 'L'   ? labels
					 : c == 'S' ? samples
						    : hlogs;

			if (*cnt == PLOT_MAX_RUNS) {
				app_err("plot: more than %u --%s",
					PLOT_MAX_RUNS,
					c == 'L'   ? "label"
					: c == 'S' ? "samples"
						   : "hlog");
				return EXIT_USAGE;
			}
			v[(*cnt)++] = optarg;
			break;
		}
		case 'T':
			title = optarg;
			break;
		case 'R':
		case 'U': {
			const char *name = c == 'U' ? "unaffected" : optarg;
			unsigned k;

			for (k = 0;
			     k < (unsigned)(sizeof(plot_series_tab) /
					    sizeof(plot_series_tab[0])) &&
			     strcmp(name, plot_series_tab[k].name) != 0;
			     k++)
				;
			if (k == (unsigned)(sizeof(plot_series_tab) /
					    sizeof(plot_series_tab[0]))) {
				app_err("plot: --series: rtt, network_rtt, "
					"turnaround, forward, reverse or "
					"unaffected, not '%s'",
					optarg);
				return EXIT_USAGE;
			}
			plot_series = k;
			break;
		}
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			app_err("plot: unknown or incomplete option '%s' (try "
				"'latprobe plot --help')",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (plot_series != 0 && n_samples != 0) {
		app_err("plot: --samples draws rtt_ns only; with --series %s "
			"give --hlog",
			plot_series_tab[plot_series].name);
		return EXIT_USAGE;
	}
	if (plot_series_tab[plot_series].tag == NULL && n_hlogs != 0) {
		app_err("plot: --hlog has no %s series; draw it from reports",
			plot_series_tab[plot_series].name);
		return EXIT_USAGE;
	}
	/* After a "--" everything is a file name. */
	for (; optind < argc; optind++) {
		if (n == PLOT_MAX_RUNS) {
			app_err("plot: more than %u runs; one page holds at "
				"most %u",
				PLOT_MAX_RUNS, PLOT_MAX_RUNS);
			return EXIT_USAGE;
		}
		files[n++] = argv[optind];
	}
	if (n == 0) {
		app_err("plot: no RUN.json to draw (latprobe plot RUN.json "
			"... -o report.html)");
		return EXIT_USAGE;
	}
	if (output == NULL) {
		app_err("plot: -o FILE is required (where the HTML page goes)");
		return EXIT_USAGE;
	}
	if (n_labels > n || n_samples > n || n_hlogs > n) {
		app_err("plot: %u --%s for %u run%s",
			n_labels > n	? n_labels
			: n_samples > n ? n_samples
					: n_hlogs,
			n_labels > n	? "label"
			: n_samples > n ? "samples"
					: "hlog",
			n, n > 1 ? "s" : "");
		return EXIT_USAGE;
	}
	for (unsigned k = 0; k < n_samples && k < n_hlogs; k++) {
		if (samples[k][0] != '\0' && hlogs[k][0] != '\0') {
			app_err("plot: run %u (%s) has both --samples and "
				"--hlog; give it one ('' skips)",
				k + 1, files[k]);
			return EXIT_USAGE;
		}
	}
	for (unsigned k = 0; k < n_labels; k++) {
		if (labels[k][0] == '\0') {
			app_err("plot: --label wants a name, not ''");
			return EXIT_USAGE;
		}
	}

	/* 28 KiB of histogram each: on the heap. */
	in = calloc(n, sizeof(*in));
	if (in == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	for (unsigned k = 0; k < n; k++) {
		ret = read_input(IN_REPORT, files[k], &in[k], NULL, NULL);
		if (ret != 0)
			goto out;
		runs[k] = (struct plot_run){
			.label = k < n_labels ? labels[k] : base_name(files[k]),
			.h = &in[k].h,
			.has_probes = in[k].has_probes,
			.sent = in[k].sent,
			.received = in[k].received,
			.lost = in[k].lost,
			.note = in[k].approximate
					? "the report holds no full histogram "
					  "(rtt_ns.hdr); drawn from its bucket "
					  "table, so the lines are approximate"
					: NULL,
		};
		if (k < n_samples && samples[k][0] != '\0')
			ret = read_input(IN_SAMPLES, samples[k], NULL, &tp[k],
					 &runs[k].n_time);
		else if (k < n_hlogs && hlogs[k][0] != '\0')
			ret = read_input(IN_HLOG, hlogs[k], NULL, &tp[k],
					 &runs[k].n_time);
		if (ret != 0)
			goto out;
		runs[k].time = tp[k];
	}
	ret = EXIT_USAGE;

	if (strcmp(output, "-") == 0) {
		out = stdout;
	} else {
		out = fopen(output, "w");
		if (out == NULL) {
			app_err("plot: -o %s: cannot write it: %s", output,
				strerror(errno));
			goto out;
		}
	}
	c = plot_write_html(runs, n, title, out);
	if (out != stdout && fclose(out) != 0 && c == 0)
		c = -EIO;
	out = NULL;
	if (c != 0) {
		app_err("plot: writing %s failed: %s", output, strerror(-c));
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (strcmp(output, "-") != 0)
		printf("latprobe plot: %u run%s drawn in %s\n", n,
		       n > 1 ? "s" : "", output);
	ret = EXIT_OK;
out:
	for (unsigned k = 0; k < n; k++)
		free(tp[k]);
	free(in);
	return ret;
}
