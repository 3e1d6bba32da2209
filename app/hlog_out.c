/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latprobe/hlog.h"
#include "hlog_out.h"

int
app_hlog_open(struct app_hlog *h, const char *path)
{
	memset(h, 0, sizeof(*h));
	if (path == NULL)
		return EXIT_OK;
	return app_out_open(&h->out, "--hlog", path);
}

void
app_hlog_series(struct app_hlog *h, unsigned n_series, const char *const *tags,
		unsigned n_workers)
{
	if (n_series > APP_HLOG_MAX_SERIES)
		n_series = APP_HLOG_MAX_SERIES;
	h->n_series = n_series;
	for (unsigned s = 0; s < n_series; s++)
		h->tag[s] = tags[s];
	h->n_workers = n_workers;
}

static void
broken(struct app_hlog *h, int err)
{
	if (!h->broken && h->err == 0)
		h->err = err;
	h->broken = true;
}

void
app_hlog_tick(struct app_hlog *h, double el, app_hlog_get_fn get, void *ctx)
{
	FILE *f = h->out.f;

	if (f == NULL || h->broken || h->n_workers == 0)
		return;
	if (!h->started) {
		struct timespec now;
		unsigned n = h->n_series * h->n_workers;

		h->prev = calloc(n, sizeof(*h->prev));
		h->snap = histogram_create();
		h->iv = histogram_create();
		h->sum = histogram_create();
		if (h->prev == NULL || h->snap == NULL || h->iv == NULL ||
		    h->sum == NULL) {
			broken(h, -ENOMEM);
			return;
		}
		for (unsigned i = 0; i < n; i++)
			histogram_init(&h->prev[i]);
		clock_gettime(CLOCK_REALTIME, &now);
		if (hlog_write_header(f, "latprobe " LATPROBE_VERSION,
				      (double)now.tv_sec +
					      (double)now.tv_nsec / 1e9 - el) !=
		    0) {
			broken(h, -EIO);
			return;
		}
		h->started = true;
	}
	for (unsigned s = 0; s < h->n_series; s++) {
		histogram_init(h->sum);
		for (unsigned w = 0; w < h->n_workers; w++) {
			struct histogram *prev = &h->prev[s * h->n_workers + w];

			histogram_take_interval(h->sum, get(ctx, s, w), prev,
						h->snap, h->iv);
		}
		if (hlog_write_interval(f, h->tag[s], h->last_el,
					el - h->last_el, h->sum) != 0) {
			broken(h, -EIO);
			return;
		}
	}
	h->last_el = el;
	/* a reader following the file sees whole lines */
	if (fflush(f) != 0)
		broken(h, -errno);
}

static int
write_nothing(const void *arg, FILE *f)
{
	(void)f;
	return *(const int *)arg;
}

void
app_hlog_forget(struct app_hlog *h, unsigned w)
{
	if (h->prev == NULL || w >= h->n_workers)
		return;
	for (unsigned s = 0; s < h->n_series; s++)
		histogram_init(&h->prev[s * h->n_workers + w]);
}

int
app_hlog_close(struct app_hlog *h)
{
	int ret = EXIT_OK, err = h->err;

	if (h->out.f != NULL) {
		if (err == -ENOMEM) {
			app_err("--hlog %s: out of memory", h->out.path);
			err = 0;
			ret = EXIT_RUNTIME;
		}
		if (app_out_write(&h->out, write_nothing, &err) != EXIT_OK)
			ret = EXIT_RUNTIME;
	}
	free(h->prev);
	h->prev = NULL;
	histogram_destroy(h->snap);
	histogram_destroy(h->iv);
	histogram_destroy(h->sum);
	h->snap = h->iv = h->sum = NULL;
	return ret;
}
