/* SPDX-License-Identifier: BSD-3-Clause */
/* latprobe compare's JSON report reader on any bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "latprobe/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compare_run run;
	char why[256];

	if (compare_run_parse((const char *)data, size, &run, why,
			      sizeof(why)) == 0)
		compare_run_fini(&run);
	return 0;
}
