/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parsers of lib/host on hostile input: the bytes as a cpulist (and
 * what parses must format and parse back to the same set), as /proc/stat,
 * as a task's stat line and as /proc/interrupts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct host_stat st;
	static struct host_irq irq[64];
	static char text[8192];
	struct host_cpus a, b;
	const char *s = (const char *)data;
	unsigned n;

	if (host_cpus_parse(s, size, &a) == 0) {
		host_cpus_format(&a, text, sizeof(text));
		if (host_cpus_count(&a) == 0) {
			if (strcmp(text, "none") != 0)
				__builtin_trap();
		} else if (host_cpus_parse(text, strlen(text), &b) != 0 ||
			   memcmp(&a, &b, sizeof(a)) != 0) {
			__builtin_trap();
		}
	}
	if (host_stat_parse(s, size, &st) == 0 &&
	    host_cpus_count(&st.present) == 0)
		__builtin_trap();
	{
		char state, comm[20];
		unsigned cpu;

		if (host_task_stat_parse(s, size, &state, &cpu, comm,
					 sizeof(comm)) == 0 &&
		    (cpu >= HOST_MAX_CPUS || strlen(comm) >= sizeof(comm)))
			__builtin_trap();
	}
	if (host_interrupts_parse(s, size, irq, 64, &n) == 0) {
		if (n > 64)
			__builtin_trap();
		for (unsigned i = 0; i < n; i++)
			if (strlen(irq[i].desc) >= sizeof(irq[i].desc))
				__builtin_trap();
	}
	{
		uint64_t a1, a2;

		(void)host_schedstat_parse(s, size, &a1, &a2);
		(void)host_status_ctxt_parse(s, size, &a1, &a2);
		host_cpus_zero(&a);
		host_cpus_set(&a, 0);
		host_cpus_set(&a, 3);
		(void)host_interrupts_cpu_total(s, size, &a, &a1);
	}
	return 0;
}
