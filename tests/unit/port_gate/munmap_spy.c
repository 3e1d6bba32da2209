/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An interposer as ASan's or an LD_PRELOAD library's would be: a munmap()
 * later in the lookup order than the executable's (the gate's), counting
 * the calls that reach it and passing them on to libc's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

atomic_uint munmap_spy_calls;

int
munmap(void *addr, size_t len)
{
	static int (*next)(void *, size_t);

	if (next == NULL) {
		void *p = dlsym(RTLD_NEXT, "munmap");

		memcpy(&next, &p, sizeof(next));
	}
	atomic_fetch_add(&munmap_spy_calls, 1);
	return next(addr, len);
}
