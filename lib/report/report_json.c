/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latprobe/report_json.h"

int
report_json_parse(const char *text, size_t len, struct json_object **root,
		  char *why, size_t why_cap)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	size_t end;

	*root = NULL;
	if (text == NULL || len > INT32_MAX) {
		if (why != NULL && why_cap > 0)
			snprintf(why, why_cap, "no input");
		return -EINVAL;
	}
	tok = json_tokener_new();
	if (tok == NULL)
		return -ENOMEM;
	*root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (*root == NULL || jerr != json_tokener_success) {
		if (why != NULL && why_cap > 0)
			snprintf(why, why_cap, "not JSON (%s)",
				 jerr == json_tokener_continue
					 ? "it ends in the middle"
					 : json_tokener_error_desc(jerr));
		goto bad;
	}
	/* strchr() finds the terminator too: a NUL is not white space. */
	while (end < len && text[end] != '\0' &&
	       strchr(" \t\r\n", text[end]) != NULL)
		end++;
	if (end < len) {
		if (why != NULL && why_cap > 0)
			snprintf(why, why_cap,
				 "not JSON (something follows the report at "
				 "byte %zu)",
				 end);
		goto bad;
	}
	return 0;
bad:
	json_object_put(*root);
	*root = NULL;
	return -EINVAL;
}

bool
report_json_u64(struct json_object *o, const char *key, uint64_t *v)
{
	struct json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_int))
		return false;
	/* json-c keeps values above INT64_MAX as unsigned. */
	if (json_object_get_int64(m) < 0)
		return false;
	*v = json_object_get_uint64(m);
	return true;
}

bool
report_json_double(struct json_object *o, const char *key, double *v)
{
	struct json_object *m;
	double d;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !(json_object_is_type(m, json_type_double) ||
	      json_object_is_type(m, json_type_int)))
		return false;
	d = json_object_get_double(m);
	if (!isfinite(d))
		return false;
	*v = d;
	return true;
}

void
report_json_str(struct json_object *o, const char *key, char *out, size_t cap)
{
	struct json_object *m;

	out[0] = '\0';
	if (json_object_object_get_ex(o, key, &m) &&
	    json_object_is_type(m, json_type_string))
		snprintf(out, cap, "%s", json_object_get_string(m));
}
