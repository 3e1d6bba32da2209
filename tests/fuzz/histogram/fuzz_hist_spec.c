/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/histogram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t edges[16];
	unsigned nb = 0, ne = 0, i;
	char *s = malloc(size + 1);

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (histogram_parse_spec(s, &nb, edges, 16, &ne) == 0) {
		/* Whatever parses must be usable as given. */
		if ((nb == 0) == (ne == 0) || nb > HISTOGRAM_MAX_LINEAR_BUCKETS)
			abort();
		for (i = 0; i < ne; i++)
			if (edges[i] == 0 || edges[i] > HISTOGRAM_HIGHEST_NS ||
			    (i > 0 && edges[i] <= edges[i - 1]))
				abort();
	}
	free(s);
	return 0;
}
