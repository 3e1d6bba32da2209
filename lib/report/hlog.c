/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/hlog.h"

int
hlog_write_header(FILE *f, const char *writer, double start_epoch_s)
{
	char utc[32] = "";
	time_t t;
	struct tm tm;

	if (f == NULL || !isfinite(start_epoch_s) || start_epoch_s < 0)
		return -EINVAL;
	t = (time_t)start_epoch_s;
	if (gmtime_r(&t, &tm) != NULL)
		strftime(utc, sizeof(utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (fprintf(f,
		    "#[Written by %s]\n"
		    "#[Histogram log format version 1.3]\n"
		    "#[StartTime: %.3f (seconds since epoch), %s]\n"
		    "#[BaseTime: %.3f (seconds since epoch)]\n"
		    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		    "\"Interval_Compressed_Histogram\"\n",
		    writer != NULL ? writer : "latprobe", start_epoch_s, utc,
		    start_epoch_s) < 0)
		return -EIO;
	return 0;
}

static bool
tag_ok(const char *tag)
{
	if (tag[0] == '\0')
		return false;
	for (const char *c = tag; *c != '\0'; c++)
		if (*c == ',' || *c == ' ' || (unsigned char)*c < 0x20 ||
		    *c == 0x7f)
			return false;
	return true;
}

int
hlog_write_interval(FILE *f, const char *tag, double start_s, double length_s,
		    const struct histogram *iv)
{
	char *b64 = NULL;
	size_t len;
	int ret;

	if (f == NULL || iv == NULL || (tag != NULL && !tag_ok(tag)) ||
	    !isfinite(start_s) || !isfinite(length_s) || start_s < 0 ||
	    length_s < 0)
		return -EINVAL;
	ret = hdr_codec_encode(iv, &b64, &len);
	if (ret != 0)
		return ret;
	if (fprintf(f, "%s%s%s%.3f,%.3f,%.3f,%s\n", tag != NULL ? "Tag=" : "",
		    tag != NULL ? tag : "", tag != NULL ? "," : "", start_s,
		    length_s, (double)histogram_max(iv) / 1e6, b64) < 0)
		ret = -EIO;
	free(b64);
	return ret;
}
