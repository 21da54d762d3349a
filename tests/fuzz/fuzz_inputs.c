/* Fuzz the reading of input paths out of command text (proto/inputs.c):
 * every "{spec_dir}/PATH" found lies inside the text and past the last;
 * a cleaned path is shorter than its buffer, relative, with no "." or
 * empty component and no ".." unless allowed, and cleaning it again gives
 * it back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_clean(const char *p, size_t n, int up)
{
	char out[SB_INPUTS_MAX_PATH], again[SB_INPUTS_MAX_PATH];
	size_t len;

	if (sb_inputs_norm(p, n, up, out, sizeof(out)) < 0)
		return;
	len = strlen(out);
	if (len == 0 || len >= sizeof(out) || out[0] == '/' || out[len - 1] == '/' ||
	    strstr(out, "//") || !strcmp(out, ".") || !strncmp(out, "./", 2) || strstr(out, "/./") ||
	    (!up && (!strncmp(out, "../", 3) || strstr(out, "/../"))))
		abort();
	if (sb_inputs_norm(out, len, up, again, sizeof(again)) < 0 || strcmp(out, again) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *p;
	size_t pos = 0, last = 0, plen;

	while (sb_inputs_next(s, size, &pos, &p, &plen)) {
		if (p < s + last || p + plen > s + size || pos != (size_t)(p - s) + plen || pos < last)
			abort();
		last = pos;
		check_clean(p, plen, 0);
	}
	check_clean(s, size, 1);
	return 0;
}
