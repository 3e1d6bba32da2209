/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock_chrony_parse() on hostile input (what a chronyc on the PATH may
 * print): within len, fields NUL-terminated and in range when it accepts.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "latprobe/clock_sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct clock_chrony c;
	struct clock_verdict v;

	if (clock_chrony_parse((const char *)data, size, &c) != 0)
		return 0;
	if (strlen(c.ref_id) >= sizeof(c.ref_id) ||
	    strlen(c.ref_name) >= sizeof(c.ref_name) ||
	    strlen(c.leap) >= sizeof(c.leap) || c.stratum > 16 ||
	    !isfinite(c.offset_s) || c.root_dispersion_s < 0 ||
	    c.root_delay_s < 0)
		__builtin_trap();
	clock_verdict_of(NULL, &c, &v);
	if (v.synced != c.synced || (v.synced && v.sync_err_ns != c.bound_ns))
		__builtin_trap();
	return 0;
}
