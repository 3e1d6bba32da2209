/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only command line face of lib/histogram/hdr_codec for
 * java_interop.py, printing what tests/java/HdrCheck.java prints:
 *   hdr_tool encode V:N ...  -> base64 of a histogram with N times each V
 *   hdr_tool decode B64 ...  -> "count min max mean p50 p90 p99 p99.9
 *                                p99.99 p100" per string
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/histogram.h"

int
main(int argc, char **argv)
{
	static struct histogram h;
	static const double ps[] = {50, 90, 99, 99.9, 99.99, 100};
	int a;

	if (argc >= 2 && strcmp(argv[1], "encode") == 0) {
		char *b64;
		size_t len;

		histogram_init(&h);
		for (a = 2; a < argc; a++) {
			uint64_t v, n, k;

			if (sscanf(argv[a], "%" SCNu64 ":%" SCNu64, &v, &n) !=
			    2)
				return 2;
			for (k = 0; k < n && k < 1000000; k++)
				histogram_record(&h, v);
			if (n >
			    k) { /* large counts straight into the counter */
				h.counts[histogram_index(v)] += n - k;
				h.total += n - k;
			}
		}
		if (hdr_codec_encode(&h, &b64, &len) != 0)
			return 1;
		printf("%s\n", b64);
		free(b64);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "decode") == 0) {
		for (a = 2; a < argc; a++) {
			unsigned i;

			if (hdr_codec_decode(argv[a], strlen(argv[a]), &h) !=
			    0) {
				printf("error\n");
				continue;
			}
			printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %.3f",
			       histogram_count(&h), histogram_min(&h),
			       histogram_max(&h), histogram_mean(&h));
			for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
				printf(" %" PRIu64,
				       histogram_percentile(&h, ps[i]));
			printf("\n");
		}
		return 0;
	}
	fprintf(stderr, "usage: hdr_tool encode V:N... | decode B64...\n");
	return 2;
}
