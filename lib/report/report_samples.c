/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --samples: the per-probe CSV.
 */
#include "latprobe/report_internal.h"

int
report_samples_header(FILE *out)
{
	if (out == NULL)
		return -EINVAL;
	if (fputs("seq,lcore,t1_ns,rtt_ns,network_rtt_ns,forward_ns,reverse_"
		  "ns\n",
		  out) == EOF)
		return -EIO;
	return 0;
}

int
report_samples_write(FILE *out, const struct report_sample *s, size_t n)
{
	size_t i;

	if (out == NULL || (n != 0 && s == NULL))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int ret;

		/* No network RTT for this proto: an empty field (CSV "NA"). */
		if (s[i].network_rtt_ns < 0)
			ret = fprintf(out,
				      "%" PRIu64 ",%" PRIu32 ",%" PRIu64
				      ",%" PRIu64 ",",
				      s[i].seq, s[i].lcore, s[i].t1_ns,
				      s[i].rtt_ns);
		else
			ret = fprintf(out,
				      "%" PRIu64 ",%" PRIu32 ",%" PRIu64
				      ",%" PRIu64 ",%" PRId64,
				      s[i].seq, s[i].lcore, s[i].t1_ns,
				      s[i].rtt_ns, s[i].network_rtt_ns);
		if (ret < 0)
			return -EIO;
		if (s[i].has_one_way)
			ret = fprintf(out, ",%" PRId64 ",%" PRId64 "\n",
				      s[i].forward_ns, s[i].reverse_ns);
		else
			ret = fputs(",,\n", out);
		if (ret < 0)
			return -EIO;
	}
	return 0;
}
