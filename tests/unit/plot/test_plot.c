/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe plot's page writer and readers. The page is parsed as XML by
 * libxml2 (strict: no recovery), and the charts are inspected with XPath.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/hlog.h"
#include "latprobe/plot.h"

struct page {
	char *buf;
	size_t len;
	xmlDocPtr doc;
	xmlXPathContextPtr xp;
};

static void
page_fini(struct page *p)
{
	xmlXPathFreeContext(p->xp);
	xmlFreeDoc(p->doc);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

/* Write runs to memory, parse as XML; asserts it is well-formed. */
static int
page_make(struct page *p, const struct plot_run *runs, unsigned n)
{
	FILE *f;
	int ret;

	memset(p, 0, sizeof(*p));
	f = open_memstream(&p->buf, &p->len);
	assert_non_null(f);
	ret = plot_write_html(runs, n, "test <page> & co", f);
	assert_int_equal(fclose(f), 0);
	if (ret != 0)
		return ret;
	p->doc = xmlReadMemory(p->buf, (int)p->len, "page.html", NULL,
			       XML_PARSE_NONET | XML_PARSE_NOERROR |
				       XML_PARSE_NOWARNING);
	if (p->doc == NULL)
		fail_msg("the page is not well-formed XML:\n%.*s", (int)p->len,
			 p->buf);
	p->xp = xmlXPathNewContext(p->doc);
	assert_non_null(p->xp);
	xmlXPathRegisterNs(p->xp, BAD_CAST "h",
			   BAD_CAST "http://www.w3.org/1999/xhtml");
	xmlXPathRegisterNs(p->xp, BAD_CAST "s",
			   BAD_CAST "http://www.w3.org/2000/svg");
	return 0;
}

static int
count(struct page *p, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, p->xp);
	int n;

	assert_non_null(o);
	n = o->nodesetval != NULL ? o->nodesetval->nodeNr : 0;
	xmlXPathFreeObject(o);
	return n;
}

static char *
text_of(struct page *p, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, p->xp);
	char *s = NULL;

	assert_non_null(o);
	if (o->nodesetval != NULL && o->nodesetval->nodeNr > 0)
		s = (char *)xmlNodeGetContent(o->nodesetval->nodeTab[0]);
	xmlXPathFreeObject(o);
	return s;
}

static void
fill(struct histogram *h, uint64_t base, unsigned n, uint64_t spike)
{
	histogram_init(h);
	for (unsigned i = 0; i < n; i++)
		histogram_record(h, base + (i % 97) * 13);
	if (spike != 0)
		histogram_record(h, spike);
}

static struct histogram ha, hb, hc;

static void
test_one_series_per_run(void **state)
{
	static const struct plot_tpoint tp[] = {
		{0.5, 2000, 3000}, {1.5, 2100, 9000}, {2.5, 1900, 2500}};
	struct plot_run runs[3] = {
		{.label = "a.json",
		 .h = &ha,
		 .has_probes = true,
		 .sent = 1000,
		 .received = 999,
		 .lost = 1,
		 .time = tp,
		 .n_time = 3},
		{.label = "with PPG", .h = &hb},
		{.label = "c", .h = &hc, .time = tp, .n_time = 2},
	};
	static const char *const charts[] = {"spectrum", "histogram", "cdf"};
	struct page p;
	char expr[160];

	(void)state;
	fill(&ha, 1800, 1000, 0);
	fill(&hb, 25000, 5000, 3000000);
	fill(&hc, 900, 200, 0);
	assert_int_equal(page_make(&p, runs, 3), 0);
	assert_int_equal(count(&p, "//s:svg"), 4);
	for (unsigned c = 0; c < 3; c++) {
		snprintf(expr, sizeof(expr),
			 "//s:svg[@id='%s']//s:path[@class='series']",
			 charts[c]);
		assert_int_equal(count(&p, expr), 3);
		for (unsigned k = 0; k < 3; k++) {
			snprintf(expr, sizeof(expr),
				 "//s:svg[@id='%s']//s:path[@class='series' "
				 "and @data-run='%u']",
				 charts[c], k);
			assert_int_equal(count(&p, expr), 1);
		}
		/* Legend names each run, axes are labelled. */
		snprintf(expr, sizeof(expr),
			 "//s:svg[@id='%s']//s:text[@class='legend-label' "
			 "and .='with PPG']",
			 charts[c]);
		assert_int_equal(count(&p, expr), 1);
		snprintf(expr, sizeof(expr),
			 "//s:svg[@id='%s']//s:text[@class='axis-label']",
			 charts[c]);
		assert_int_equal(count(&p, expr), 2);
	}
	/* Only runs with time points are on the time chart. */
	assert_int_equal(
		count(&p, "//s:svg[@id='time']//s:path[@class='series']"), 2);
	assert_int_equal(count(&p, "//h:p[contains(@class,'no-time') and "
				   "starts-with(.,'with PPG:')]"),
			 1);
	/* The nines on the spectrum's x axis, readable units on y. */
	for (unsigned d = 0; d < 6; d++) {
		static const char *const t[] = {"0%",	 "90%",	   "99%",
						"99.9%", "99.99%", "99.999%"};

		snprintf(expr, sizeof(expr),
			 "//s:svg[@id='spectrum']//s:text[@class='tick' and "
			 ".='%s']",
			 t[d]);
		assert_int_equal(count(&p, expr), 1);
	}
	assert_int_equal(count(&p, "//s:svg[@id='spectrum']//s:text[@class="
				   "'tick' and .='1 \xc2\xb5s']"),
			 1);
	assert_int_equal(count(&p, "//s:svg[@id='spectrum']//s:text[@class="
				   "'tick' and .='1 ms']"),
			 1);
	/* The table: one row per run, loss where known. */
	assert_int_equal(count(&p, "//h:table//h:tbody/h:tr"), 3);
	assert_int_equal(count(&p, "//h:table//h:tr[h:td[1]='a.json' and "
				   "h:td[8]='1 (0.1%)']"),
			 1);
	assert_int_equal(count(&p, "//h:table//h:tr[h:td[1]='with PPG' and "
				   "h:td[2]='5001' and h:td[7]='3 ms']"),
			 1);
	/* No script, nothing fetched. */
	assert_int_equal(count(&p, "//h:script|//h:link|//h:img|//*[@src]"), 0);
	page_fini(&p);
}

/* y of the last point of a path ("M x y L x y ..."). */
static double
last_y(const char *d)
{
	const char *l = strrchr(d, 'L');
	double x, y;

	assert_non_null(l);
	assert_int_equal(sscanf(l, "L%lf %lf", &x, &y), 2);
	return y;
}

static double
first_y(const char *d)
{
	double x, y;

	assert_int_equal(sscanf(d, "M%lf %lf", &x, &y), 2);
	return y;
}

/*
 * The spectrum comes from the whole histogram: a tail of 1,000 slow ones
 * in 100,000 is on it (at the top right), and the line never goes down.
 * One spike alone is not: the curve ends at the highest percentile the
 * 100,001 samples support (p99.99; p99.999 needs 368,887), far below it.
 */
static void
test_spectrum_reaches_the_max(void **state)
{
	struct plot_run run = {.label = "spike", .h = &ha};
	struct page p;
	xmlXPathObjectPtr o;
	char *d;
	double prev = 1e9, y, x;
	const char *s;
	int n = 0;

	(void)state;
	fill(&ha, 10000, 100000, 0);
	for (unsigned i = 0; i < 1000; i++)
		histogram_record(&ha, 5000000);
	assert_int_equal(page_make(&p, &run, 1), 0);
	o = xmlXPathEvalExpression(
		BAD_CAST "//s:svg[@id='spectrum']//s:path[@class='series']/@d",
		p.xp);
	assert_non_null(o);
	assert_int_equal(o->nodesetval->nodeNr, 1);
	d = (char *)xmlNodeGetContent(o->nodesetval->nodeTab[0]);
	xmlXPathFreeObject(o);
	for (s = d; *s != '\0'; s++) {
		if (*s != 'M' && *s != 'L')
			continue;
		assert_int_equal(sscanf(s + 1, "%lf %lf", &x, &y), 2);
		assert_true(y <= prev + 1e-9); /* up is smaller y */
		prev = y;
		n++;
	}
	assert_true(n > 100);
	/* 10 us .. 5 ms spans 2.7 of the 3 decades (10 us .. 10 ms). */
	assert_true(first_y(d) - last_y(d) > 0.85 * (330 - 16 - 52));
	xmlFree(d);
	page_fini(&p);

	fill(&ha, 10000, 100000, 5000000);
	assert_int_equal(page_make(&p, &run, 1), 0);
	o = xmlXPathEvalExpression(
		BAD_CAST "//s:svg[@id='spectrum']//s:path[@class='series']/@d",
		p.xp);
	assert_non_null(o);
	assert_int_equal(o->nodesetval->nodeNr, 1);
	d = (char *)xmlNodeGetContent(o->nodesetval->nodeTab[0]);
	xmlXPathFreeObject(o);
	assert_true(first_y(d) - last_y(d) < 0.5 * (330 - 16 - 52));
	xmlFree(d);
	page_fini(&p);
}

static void
test_escaping_and_empty_run(void **state)
{
	struct plot_run runs[2] = {
		{.label = "a<b & \"c\" 'd'", .h = &ha},
		{.label = "empty", .h = &hb},
	};
	struct page p;
	char *t;

	(void)state;
	fill(&ha, 500, 100, 0);
	histogram_init(&hb);
	assert_int_equal(page_make(&p, runs, 2), 0);
	t = text_of(&p, "//h:table//h:tbody/h:tr[1]/h:td[1]");
	assert_string_equal(t, "a<b & \"c\" 'd'");
	xmlFree(t);
	t = text_of(&p, "//h:title");
	assert_string_equal(t, "test <page> & co");
	xmlFree(t);
	/* The empty run: a row of dashes, a note, no line. */
	assert_int_equal(count(&p, "//h:tr[h:td[1]='empty' and h:td[2]='0' "
				   "and h:td[3]='-' and h:td[7]='-']"),
			 1);
	assert_int_equal(count(&p, "//s:path[@data-run='1']"), 0);
	assert_int_equal(count(&p, "//s:svg[@id='cdf']//s:path[@class="
				   "'series']"),
			 1);
	assert_int_equal(count(&p, "//h:p[starts-with(.,'empty: no round "
				   "trip')]"),
			 1);
	page_fini(&p);

	/* Nothing to draw at all: still a page, saying so. */
	runs[0].h = &hb;
	assert_int_equal(page_make(&p, runs, 2), 0);
	assert_int_equal(count(&p, "//s:path"), 0);
	assert_int_equal(count(&p, "//h:p[.='No run has a round trip to "
				   "draw.']"),
			 1);
	page_fini(&p);
}

static void
test_bad_arguments(void **state)
{
	struct plot_run runs[PLOT_MAX_RUNS + 1];
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	fill(&ha, 500, 10, 0);
	for (unsigned k = 0; k <= PLOT_MAX_RUNS; k++)
		runs[k] = (struct plot_run){.label = "r", .h = &ha};
	assert_int_equal(plot_write_html(runs, 0, NULL, f), -EINVAL);
	assert_int_equal(plot_write_html(NULL, 1, NULL, f), -EINVAL);
	assert_int_equal(plot_write_html(runs, 1, NULL, NULL), -EINVAL);
	assert_int_equal(plot_write_html(runs, PLOT_MAX_RUNS + 1, NULL, f),
			 -E2BIG);
	assert_int_equal(plot_write_html(runs, PLOT_MAX_RUNS, NULL, f), 0);
	runs[1].label = NULL;
	assert_int_equal(plot_write_html(runs, 2, NULL, f), -EINVAL);
	runs[1].label = "r";
	runs[1].n_time = 3;
	assert_int_equal(plot_write_html(runs, 2, NULL, f), -EINVAL);
	fclose(f);
}

/* PLOT_MAX_RUNS runs, colours repeat: dashes tell them apart. */
static void
test_many_runs(void **state)
{
	struct plot_run runs[PLOT_MAX_RUNS];
	char labels[PLOT_MAX_RUNS][16];
	struct page p;

	(void)state;
	fill(&ha, 500, 100, 0);
	for (unsigned k = 0; k < PLOT_MAX_RUNS; k++) {
		snprintf(labels[k], sizeof(labels[k]), "run%u", k);
		runs[k] = (struct plot_run){.label = labels[k], .h = &ha};
	}
	assert_int_equal(page_make(&p, runs, PLOT_MAX_RUNS), 0);
	assert_int_equal(count(&p, "//s:svg[@id='cdf']//s:path[@class="
				   "'series']"),
			 PLOT_MAX_RUNS);
	assert_int_equal(count(&p, "//s:svg[@id='cdf']//s:path[@class='series'"
				   " and @stroke-dasharray]"),
			 PLOT_MAX_RUNS - 10);
	page_fini(&p);
}

static const char probe_json[] =
	"{\"proto\":\"stamp\",\"probes\":{\"sent\":100,\"received\":98,"
	"\"lost\":2},\"rtt_ns\":{\"count\":98,\"min\":1500,\"max\":90000,"
	"\"p50\":2000},\"buckets\":[{\"upper_ns\":2000,\"count\":50},"
	"{\"upper_ns\":5000,\"count\":47},{\"upper_ns\":null,\"count\":1}]}\n";

static void
test_json_read(void **state)
{
	static struct plot_input in;
	char err[256];

	(void)state;
	assert_int_equal(plot_json_read(probe_json, strlen(probe_json), &in,
					err, sizeof(err)),
			 0);
	assert_string_equal(in.proto, "stamp");
	assert_true(in.has_probes);
	assert_int_equal(in.sent, 100);
	assert_int_equal(in.lost, 2);
	assert_true(in.approximate);
	assert_int_equal(histogram_count(&in.h), 98);
	assert_int_equal(histogram_min(&in.h), 1500);
	assert_int_equal(histogram_max(&in.h), 90000);
	/* 50 at or below 2 us (within a counter's width). */
	assert_in_range(histogram_percentile(&in.h, 50), 1990, 2010);
	assert_int_equal(histogram_percentile(&in.h, 100), 90000);
	/* Not NUL-terminated: only len bytes are read. */
	{
		size_t n = strlen(probe_json);
		char *cp = malloc(n);

		assert_non_null(cp);
		memcpy(cp, probe_json, n);
		assert_int_equal(plot_json_read(cp, n, &in, err, sizeof(err)),
				 0);
		free(cp);
	}
}

static void
expect_json_error(const char *text, const char *msg)
{
	static struct plot_input in;
	char err[256];

	assert_int_equal(
		plot_json_read(text, strlen(text), &in, err, sizeof(err)),
		-EINVAL);
	if (strstr(err, msg) == NULL)
		fail_msg("'%s': error '%s' lacks '%s'", text, err, msg);
	assert_null(strchr(err, '\n'));
	assert_int_equal(histogram_count(&in.h), 0);
}

static void
test_json_bad_input(void **state)
{
	(void)state;
	expect_json_error("", "empty");
	expect_json_error("hello", "not JSON");
	expect_json_error("{\"rtt_ns\":{", "ends in the middle");
	expect_json_error("{} {}", "something follows");
	expect_json_error("[1,2]", "not a latprobe report");
	expect_json_error("{\"a\":1}", "no rtt_ns");
	expect_json_error("{\"counters\":{\"answered.stamp\":1}}",
			  "a reflector's report");
	expect_json_error("{\"rtt_ns\":{\"count\":-3}}", "rtt_ns.count");
	expect_json_error("{\"rtt_ns\":{\"count\":3,\"min\":0,\"max\":5}}",
			  "out of range");
	expect_json_error("{\"rtt_ns\":{\"count\":3,\"min\":9,\"max\":5}}",
			  "out of range");
	expect_json_error("{\"rtt_ns\":{\"count\":3,\"min\":1,\"max\":5}}",
			  "buckets[]");
	expect_json_error("{\"rtt_ns\":{\"count\":3,\"min\":1,\"max\":5},"
			  "\"buckets\":[{\"upper_ns\":5,\"count\":2}]}",
			  "hold 2 round trips but rtt_ns.count says 3");
	expect_json_error("{\"rtt_ns\":{\"count\":3,\"min\":1,\"max\":5},"
			  "\"buckets\":[{\"upper_ns\":5,\"count\":4}]}",
			  "more round trips than");
	expect_json_error(
		"{\"rtt_ns\":{\"count\":3,\"min\":1,\"max\":5},"
		"\"buckets\":[{\"upper_ns\":5,\"count\":18446744073709551615},"
		"{\"upper_ns\":5,\"count\":4}]}",
		"more round trips than");
	expect_json_error("{\"rtt_ns\":{\"count\":1,\"min\":1,\"max\":5},"
			  "\"buckets\":[{\"upper_ns\":\"x\",\"count\":1}]}",
			  "upper_ns");
	expect_json_error("{\"rtt_ns\":{\"count\":1,\"min\":1,\"max\":5},"
			  "\"buckets\":[7]}",
			  "buckets[0] has no count");
}

static void
test_json_empty_run(void **state)
{
	static struct plot_input in;
	static const char j[] = "{\"probes\":{\"sent\":5,\"received\":0,"
				"\"lost\":5},\"rtt_ns\":{\"count\":0}}";
	char err[256];

	(void)state;
	assert_int_equal(plot_json_read(j, strlen(j), &in, err, sizeof(err)),
			 0);
	assert_int_equal(histogram_count(&in.h), 0);
	assert_int_equal(in.lost, 5);
}

static void
test_samples_read(void **state)
{
	/* Two lcores interleaved, out of time order; 4 bins over 0..799. */
	static const char csv[] = "seq,lcore,t1_ns,rtt_ns,network_rtt_ns\n"
				  "0,0,0,100,\n"
				  "1,1,450,700,600\r\n"
				  "2,0,100,300,200\n"
				  "3,1,799,900,\n"
				  "\n"
				  "4,0,420,500,400";
	struct plot_tpoint *pts;
	size_t n;
	char err[256];

	(void)state;
	assert_int_equal(plot_samples_read(csv, strlen(csv), 4, &pts, &n, err,
					   sizeof(err)),
			 0);
	assert_int_equal(n, 3); /* bin 1 (200..399 ns) is empty */
	/* One or two samples a bin: too few for a median (6), not drawn. */
	assert_int_equal(pts[0].p50_ns, 0);
	assert_int_equal(pts[0].max_ns, 300);
	assert_int_equal(pts[1].p50_ns, 0);
	assert_int_equal(pts[1].max_ns, 700);
	assert_int_equal(pts[2].p50_ns, 0);
	assert_true(pts[0].t_s < pts[1].t_s && pts[1].t_s < pts[2].t_s);
	free(pts);

	assert_int_equal(plot_samples_read("seq,lcore,t1_ns,rtt_ns\n", 23, 4,
					   &pts, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 0);
	assert_null(pts);
	assert_int_equal(plot_samples_read("{\"a\":1}", 7, 4, &pts, &n, err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not a latprobe --samples CSV"));
	assert_int_equal(plot_samples_read("seq,lcore,t1_ns,rtt_ns\n1,0,x,5\n",
					   31, 4, &pts, &n, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 2"));
	assert_int_equal(plot_samples_read("seq,lcore,t1_ns,rtt_ns\n1,0,5\n",
					   29, 4, &pts, &n, err, sizeof(err)),
			 -EINVAL);
	/* The largest time there is: no division by zero, one bin. */
	{
		static const char big[] = "seq,lcore,t1_ns,rtt_ns\n"
					  "1,0,18446744073709551615,5\n"
					  "2,0,0,7\n";

		assert_int_equal(plot_samples_read(big, strlen(big), 10, &pts,
						   &n, err, sizeof(err)),
				 0);
		assert_int_equal(n, 2);
		assert_int_equal(pts[1].max_ns, 5);
		free(pts);
	}
}

/* {"rtt_ns":{... "hdr":"<h encoded>"}} with the given count/min/max. */
static char *
hdr_json(const struct histogram *h, uint64_t count, uint64_t min, uint64_t max)
{
	char *b64, *j;
	size_t len;

	assert_int_equal(hdr_codec_encode(h, &b64, &len), 0);
	assert_true(asprintf(&j,
			     "{\"proto\":\"icmp\",\"rtt_ns\":{\"count\":%llu,"
			     "\"min\":%llu,\"max\":%llu,\"sum\":%llu,"
			     "\"hdr\":\"%s\"},\"buckets\":[]}",
			     (unsigned long long)count, (unsigned long long)min,
			     (unsigned long long)max,
			     (unsigned long long)h->sum, b64) > 0);
	free(b64);
	return j;
}

/* With rtt_ns.hdr the histogram is the run's own, counter for counter. */
static void
test_json_hdr(void **state)
{
	static struct plot_input in;
	char err[256], *j;

	(void)state;
	fill(&ha, 700, 30000, 0);
	histogram_record(&ha, 4321987);
	j = hdr_json(&ha, histogram_count(&ha), histogram_min(&ha),
		     histogram_max(&ha));
	assert_int_equal(plot_json_read(j, strlen(j), &in, err, sizeof(err)),
			 0);
	free(j);
	assert_false(in.approximate);
	assert_false(in.has_probes);
	assert_string_equal(in.proto, "icmp");
	assert_memory_equal(in.h.counts, ha.counts, sizeof(ha.counts));
	assert_int_equal(histogram_count(&in.h), histogram_count(&ha));
	assert_int_equal(histogram_min(&in.h), histogram_min(&ha));
	assert_int_equal(histogram_max(&in.h), 4321987);
	assert_int_equal(in.h.sum, ha.sum);
	for (double p = 10; p < 100; p += 0.37)
		assert_int_equal(histogram_percentile(&in.h, p),
				 histogram_percentile(&ha, p));

	/* A report that contradicts its own histogram is refused. */
	j = hdr_json(&ha, histogram_count(&ha) + 1, histogram_min(&ha),
		     histogram_max(&ha));
	assert_int_equal(plot_json_read(j, strlen(j), &in, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "rtt_ns.count says"));
	free(j);
	j = hdr_json(&ha, histogram_count(&ha), histogram_min(&ha), 4400000);
	assert_int_equal(plot_json_read(j, strlen(j), &in, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "rtt_ns.max"));
	free(j);
	j = hdr_json(&ha, histogram_count(&ha), 1, histogram_max(&ha));
	assert_int_equal(plot_json_read(j, strlen(j), &in, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "rtt_ns.min"));
	free(j);
	expect_json_error("{\"rtt_ns\":{\"count\":1,\"hdr\":\"HISTFAAAAB\"}}",
			  "not an HdrHistogram V2");
	expect_json_error("{\"rtt_ns\":{\"count\":1,\"hdr\":7}}",
			  "rtt_ns.hdr is not a string");
}

/* What latprobe probe --hlog writes (h9's writer), read back per tag. */
static void
test_hlog_read(void **state)
{
	struct plot_tpoint *pts;
	char *buf = NULL, err[256];
	size_t len = 0, n;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(hlog_write_header(f, "test", 1796055213.5), 0);
	fill(&ha, 1000, 500, 0); /* interval 0: p50 about 1.6 us */
	fill(&hb, 9000, 500, 0); /* interval 1: other tag only */
	histogram_init(&hc);	 /* interval 2: empty */
	assert_int_equal(hlog_write_interval(f, "rtt", 0, 1, &ha), 0);
	assert_int_equal(hlog_write_interval(f, "network_rtt", 0, 1, &hb), 0);
	assert_int_equal(hlog_write_interval(f, "network_rtt", 1, 1, &hb), 0);
	assert_int_equal(hlog_write_interval(f, "rtt", 1, 1, &hc), 0);
	assert_int_equal(hlog_write_interval(f, "rtt", 2, 0.5, &hb), 0);
	assert_int_equal(fclose(f), 0);

	assert_int_equal(
		plot_hlog_read(buf, len, "rtt", &pts, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2); /* the empty interval has no point */
	assert_true(pts[0].t_s == 0.5);
	assert_int_equal(pts[0].p50_ns, histogram_percentile(&ha, 50));
	/* An interval's max is its highest bucket's top (no exact max). */
	assert_int_equal(pts[0].max_ns, histogram_index_highest(histogram_index(
						histogram_max(&ha))));
	assert_true(pts[1].t_s == 2.25);
	assert_int_equal(pts[1].p50_ns, histogram_percentile(&hb, 50));
	free(pts);
	assert_int_equal(plot_hlog_read(buf, len, "network_rtt", &pts, &n, err,
					sizeof(err)),
			 0);
	assert_int_equal(n, 2);
	free(pts);
	assert_int_equal(plot_hlog_read(buf, len, "turnaround", &pts, &n, err,
					sizeof(err)),
			 0);
	assert_int_equal(n, 0);
	free(pts);
	/* Cut inside the last histogram: that line is refused by number. */
	assert_int_equal(plot_hlog_read(buf, len - 10, "rtt", &pts, &n, err,
					sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 10 is not an HdrHistogram interval"));
	free(buf);

	assert_int_equal(plot_hlog_read("Tag=rtt,0.0,1.0,x,HISTFAAA\n", 26,
					"rtt", &pts, &n, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 1"));
	assert_int_equal(plot_hlog_read("{\"rtt_ns\":{}}", 13, "rtt", &pts, &n,
					err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(
		plot_hlog_read("", 0, "rtt", &pts, &n, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "not an HdrHistogram interval log"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_series_per_run),
		cmocka_unit_test(test_spectrum_reaches_the_max),
		cmocka_unit_test(test_escaping_and_empty_run),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_many_runs),
		cmocka_unit_test(test_json_read),
		cmocka_unit_test(test_json_bad_input),
		cmocka_unit_test(test_json_empty_run),
		cmocka_unit_test(test_json_hdr),
		cmocka_unit_test(test_samples_read),
		cmocka_unit_test(test_hlog_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
