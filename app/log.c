/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <rte_log.h>

#include "log.h"

static int bpf_logtype = -1;

/*
 * DPDK lines that are expected where latprobe runs and call for nothing: a
 * hugepage size with no pages or no mount while another size or
 * --in-memory is used, telemetry's legacy socket, memif's multi-process
 * callback that --in-memory cannot have (logged as an error, harmless).
 * They print only when their log type is at INFO or above
 * (--log-level=lib.eal:info, --log-level=pmd.net.memif:info).
 */
static const char *const dpdk_noise[] = {
	"no mounted hugetlbfs found for that size",
	"hugepages reported on node",
	"No legacy callbacks, legacy socket not created",
	"Failed to register mp action callback: Operation not supported",
};

/*
 * Lines that are true and expected on this kind of host, where nothing is
 * to be done: libbpf meeting the ELF sections libxdp's objects carry, and
 * libxdp without a bpffs mount loading one program without its dispatcher.
 */
static const char *const bpf_noise[] = {
	"skipping unrecognized data section",
	"No bpffs found",
	"Can't use dispatcher without a working bpffs",
	"Falling back to loading single prog without dispatcher",
};

static bool
is_noise(const char *msg)
{
	for (unsigned k = 0; k < sizeof(bpf_noise) / sizeof(bpf_noise[0]); k++)
		if (strstr(msg, bpf_noise[k]) != NULL)
			return true;
	return false;
}

static int
bpf_log(uint32_t level, const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return n;
	if (level == RTE_LOG_WARNING && is_noise(msg))
		level = RTE_LOG_INFO;
	if (bpf_logtype < 0)
		return level <= RTE_LOG_WARNING ? fputs(msg, stderr) : 0;
	return rte_log(level, (uint32_t)bpf_logtype, "%s", msg);
}

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return bpf_log(level == LIBBPF_WARN   ? RTE_LOG_WARNING
		       : level == LIBBPF_INFO ? RTE_LOG_INFO
					      : RTE_LOG_DEBUG,
		       fmt, ap);
}

static int
libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return bpf_log(level == LIBXDP_WARN   ? RTE_LOG_WARNING
		       : level == LIBXDP_INFO ? RTE_LOG_INFO
					      : RTE_LOG_DEBUG,
		       fmt, ap);
}

static bool
has(const char *buf, size_t size, const char *s)
{
	return memmem(buf, size, s, strlen(s)) != NULL;
}

/* DPDK's lines while app_log_capture() is on (what EAL said of a device
 * it could not use), NUL-terminated; what does not fit is dropped. */
static char captured[16384];
static size_t captured_len;
static bool capturing;

void
app_log_capture(bool on)
{
	if (on) {
		captured_len = 0;
		captured[0] = '\0';
	}
	capturing = on;
}

const char *
app_log_captured(void)
{
	return captured;
}

static void
capture(const char *buf, size_t size)
{
	size_t room = sizeof(captured) - 1 - captured_len;

	if (size > room)
		size = room;
	memcpy(captured + captured_len, buf, size);
	captured_len += size;
	captured[captured_len] = '\0';
}

/* DPDK's log stream: stderr, less the noise above unless INFO is asked. */
static ssize_t
log_write(void *cookie, const char *buf, size_t size)
{
	int type = rte_log_cur_msg_logtype();
	int level = rte_log_cur_msg_loglevel();

	(void)cookie;
	if (capturing)
		capture(buf, size);
	if (level >= (int)RTE_LOG_ERR && type >= 0 &&
	    !rte_log_can_log((uint32_t)type, RTE_LOG_INFO)) {
		for (unsigned k = 0;
		     k < sizeof(dpdk_noise) / sizeof(dpdk_noise[0]); k++)
			if (has(buf, size, dpdk_noise[k]))
				return (ssize_t)size;
	}
	return (ssize_t)fwrite(buf, 1, size, stderr);
}

void
app_log_init(void)
{
	static const cookie_io_functions_t io = {.write = log_write};
	FILE *f = fopencookie(NULL, "w", io);

	/* Set before rte_eal_init(), it stays: EAL's own stream (stderr and
	 * syslog) is only its default. */
	if (f != NULL) {
		setvbuf(f, NULL, _IOLBF, 0);
		rte_openlog_stream(f);
	}
	/* EAL's informational lines (CPUs, IOVA mode, hugepage sizes) say
	 * nothing a user acts on; errors and warnings stay. */
	rte_log_set_level_pattern("*", RTE_LOG_NOTICE);
	bpf_logtype = rte_log_register_type_and_pick_level("latprobe.bpf",
							   RTE_LOG_NOTICE);
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
