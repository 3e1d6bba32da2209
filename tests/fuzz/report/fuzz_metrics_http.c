/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The /metrics endpoint's HTTP request parser on any bytes (what a client
 * sends is hostile): it must stay within len, decide or ask for more, and
 * never take more bytes than it was given.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_http_req req;
	char head[512];
	char *copy;
	int r;

	if (size > 2 * METRICS_HTTP_MAX_REQUEST)
		return 0;
	/* An exact-size copy, so ASan sees any read past len. */
	copy = malloc(size != 0 ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	r = metrics_http_parse(copy, size, &req);
	if (r == -EAGAIN) {
		if (size >= METRICS_HTTP_MAX_REQUEST)
			abort();
	} else if (r == 0) {
		if (req.used > size || req.used == 0)
			abort();
		if (req.head && req.status != METRICS_HTTP_OK)
			abort();
		if (metrics_http_head(head, sizeof(head), req.status, size) <=
		    0)
			abort();
	} else {
		abort();
	}
	free(copy);
	return 0;
}
