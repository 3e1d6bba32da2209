/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The app's one-line messages on stderr (app_err(), app_warn()). The bottom
 * of the app floor: it includes nothing of app/ but its header, so that
 * pre-EAL code (preflight.c) reports without the app's common header.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

static void
app_vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "latprobe: %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
app_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	app_vmsg("error", fmt, ap);
	va_end(ap);
}

void
app_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	app_vmsg("warning", fmt, ap);
	va_end(ap);
}
