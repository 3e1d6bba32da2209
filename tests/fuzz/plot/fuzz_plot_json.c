/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * latprobe plot's readers on any file: a probe report (JSON), a --samples
 * CSV and an --hlog interval log; whatever parses is drawn into a page
 * that goes nowhere.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plot_input in;
	struct plot_tpoint *pts = NULL;
	struct plot_run run;
	size_t n_pts = 0;
	char err[256];
	FILE *null;

	if (plot_json_read((const char *)data, size, &in, err, sizeof(err)) ==
	    0) {
		if (histogram_count(&in.h) != 0 &&
		    histogram_min(&in.h) > histogram_max(&in.h))
			abort();
	} else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
		abort(); /* an error is one line */
	}
	if (plot_samples_read((const char *)data, size, 50, &pts, &n_pts, err,
			      sizeof(err)) == 0 &&
	    n_pts > 50)
		abort();
	/* The interval log reader gets its turn on every input too. */
	{
		struct plot_tpoint *hp = NULL;
		size_t n_hp = 0;

		if (plot_hlog_read((const char *)data, size, "rtt", &hp, &n_hp,
				   err, sizeof(err)) == 0) {
			for (size_t i = 0; i < n_hp; i++)
				if (hp[i].p50_ns > hp[i].max_ns)
					abort();
		} else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
			abort();
		}
		/* Any times an interval log holds must draw. */
		if (n_pts == 0 && n_hp != 0) {
			free(pts);
			pts = hp;
			n_pts = n_hp;
			hp = NULL;
		}
		free(hp);
	}
	null = fopen("/dev/null", "w");
	if (null != NULL) {
		run = (struct plot_run){.label = "fuzz",
					.h = &in.h,
					.has_probes = in.has_probes,
					.sent = in.sent,
					.received = in.received,
					.lost = in.lost,
					.time = pts,
					.n_time = n_pts};
		if (plot_write_html(&run, 1, NULL, null) != 0)
			abort();
		fclose(null);
	}
	free(pts);
	return 0;
}
