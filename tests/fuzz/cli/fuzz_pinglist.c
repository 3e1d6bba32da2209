/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The --targets pinglist parser on any bytes: it stays within len, every
 * entry it keeps has a NUL-terminated proto and label, and good plus bad
 * lines never exceed the lines there are.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pinglist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pinglist_entry e[PINGLIST_MAX];
	char *copy = malloc(size != 0 ? size : 1);
	unsigned n, n_bad, lines = 1;

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size); /* exact size: ASan sees a read past len */
	n = pinglist_parse(copy, size, e, PINGLIST_MAX, NULL, NULL, &n_bad);
	for (size_t i = 0; i < size; i++)
		lines += copy[i] == '\n';
	if (n > PINGLIST_MAX || n + n_bad > lines)
		abort();
	for (unsigned i = 0; i < n; i++)
		if (strnlen(e[i].proto, PINGLIST_PROTO_MAX) ==
			    PINGLIST_PROTO_MAX ||
		    strnlen(e[i].label, PINGLIST_LABEL_MAX) ==
			    PINGLIST_LABEL_MAX ||
		    e[i].line == 0 || e[i].line > lines)
			abort();
	free(copy);
	return 0;
}
