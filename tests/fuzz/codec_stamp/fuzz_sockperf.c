/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/sockperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockperf_hdr h, g;
	uint8_t *copy;
	int rc;

	if (sockperf_parse(data, size, &h) < 0)
		return 0;
	assert(h.length >= SOCKPERF_HDR_LEN && h.length <= size);
	copy = malloc(size);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	rc = sockperf_reflect(copy, size);
	assert(rc == -EINVAL || rc == 0 || rc == 1);
	assert(memcmp(copy, data, 9) == 0 && (copy[9] | 1) == (data[9] | 1));
	/* only the client bit may change */
	assert(memcmp(copy + 10, data + 10, size - 10) == 0);
	assert(sockperf_parse(copy, size, &g) == 0 && g.seq == h.seq);
	assert(sockperf_build(copy, size, &h) == SOCKPERF_HDR_LEN);
	assert(memcmp(copy, data, SOCKPERF_HDR_LEN) == 0);
	free(copy);
	return 0;
}
