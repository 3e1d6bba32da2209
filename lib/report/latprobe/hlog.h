/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HLOG_H
#define LATPROBE_HLOG_H

/*
 * HdrHistogram interval log (format 1.3), as HdrHistogram's own
 * HistogramLogReader/HistogramLogProcessor read it:
 *
 *   #[Written by latprobe ...]
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1764515061.123 (seconds since epoch), 2026-11-30T15:04:21Z]
 *   #[BaseTime: 1764515061.123 (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=rtt,0.000,1.000,0.012,HISTFAAAA...
 *
 * Timestamps are seconds relative to BaseTime (= StartTime); histogram
 * values are nanoseconds; Interval_Max is the interval's max divided by
 * 10^6 (milliseconds), HdrHistogram's default max-value unit ratio.
 * Writes to a FILE * the caller opened; 0, -EINVAL, -ENOMEM or -EIO.
 */

#include <stdio.h>

#include "latprobe/histogram.h"

int hlog_write_header(FILE *f, const char *writer, double start_epoch_s);

/* One interval line; tag NULL: no "Tag=" (an untagged line). A tag must be
 * non-empty and free of ',', ' ' and control characters. */
int hlog_write_interval(FILE *f, const char *tag, double start_s,
			double length_s, const struct histogram *iv);

#endif /* LATPROBE_HLOG_H */
