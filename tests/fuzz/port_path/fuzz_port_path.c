/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path classification on arbitrary xstats names and failsafe devargs:
 * the input whole is parsed as failsafe devargs (the VF mask, each
 * sub-device's name into a small buffer), then, split at newlines, is the
 * name list of a port (values from the line numbers) read twice; every kind
 * of path classifies it, splits it, lists the driver's counters that moved
 * and feeds the split to a path timeline.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum port_path_kind kinds[] = {
		PORT_PATH_OTHER, PORT_PATH_NETVSC, PORT_PATH_FAILSAFE,
		PORT_PATH_MLX,	 PORT_PATH_MANA,   PORT_PATH_SOFTWARE,
	};
	struct port_xstats b, a;
	struct port_path_split sp;
	struct port_path_timeline tl;
	unsigned n = 1, idx[64];
	size_t start = 0;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	if (n > 256)
		return 0;
	{
		/* The input whole as failsafe devargs. */
		char *s = malloc(size + 1);

		if (s == NULL)
			return 0;
		memcpy(s, data, size);
		s[size] = '\0';
		(void)port_path_failsafe_vf_subs(s);
		for (unsigned i = 0; i < 34; i++) {
			char name[16];
			int r = port_path_failsafe_sub_name(s, i, name,
							    sizeof(name));

			if (r == 0 &&
			    strnlen(name, sizeof(name)) >= sizeof(name))
				abort(); /* not terminated */
			if (r == -EINVAL)
				break;
		}
		free(s);
	}
	if (port_xstats_alloc(&b, n) != 0)
		return 0;
	if (port_xstats_alloc(&a, n) != 0) {
		port_xstats_free(&b);
		return 0;
	}
	for (unsigned k = 0; k < n; k++) {
		size_t end = start;
		size_t len;

		while (end < size && data[end] != '\n')
			end++;
		len = end - start < PORT_XSTAT_NAME - 1 ? end - start
							: PORT_XSTAT_NAME - 1;
		memcpy(a.names[k], data + start, len);
		a.names[k][len] = '\0';
		memcpy(b.names[n - 1 - k], a.names[k], len + 1);
		b.values[k] = k;
		a.values[k] = (uint64_t)k * k;
		start = end + 1;
	}
	port_path_timeline_init(&tl);
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (unsigned i = 0; i < n; i++)
			(void)port_xstat_class(kinds[k], a.names[i], 0x5);
		if (port_path_split(kinds[k], &b, &a, 0x1, &sp) == 0) {
			(void)port_path_vf_share(&sp);
			(void)port_path_timeline_feed(&tl, (uint64_t)k * 50,
						      &sp);
			if (tl.n > PORT_PATH_SHIFTS_MAX ||
			    tl.count != tl.n + tl.dropped)
				abort();
		}
		(void)port_xstats_driver_moved(kinds[k], &b, &a, 0x1, idx, 64);
		(void)port_path_owned_vf(kinds[k], a.names[0], b.names[0],
					 a.names[n - 1]);
	}
	(void)port_path_kind_of(a.names[0]);
	port_xstats_free(&a);
	port_xstats_free(&b);
	return 0;
}
