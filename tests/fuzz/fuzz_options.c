/* Fuzz sbctl's option parser (ctl/cli/options.c): the input, split at NUL
 * bytes, is an argument vector; every walk ends (no argument read twice,
 * none skipped), never a crash, and a value is always inside argv. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct sb_opt opts[] = {
	{ "json", 0, 1, SB_OPT_FLAG, NULL, "json" },
	{ "settle", 0, 2, SB_OPT_VALUE, "SECONDS", "settle" },
	{ "check", 0, 3, SB_OPT_OPTIONAL, "SECONDS", "check" },
	{ "output", 'o', 4, SB_OPT_VALUE, "FILE", "output" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = { "fuzz", "fuzz ARG", "Fuzzes.\n", opts, NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[65];
	int argc = 1, k, steps = 0;
	struct sb_opt_iter it = { 0 };
	const char *v;
	static FILE *devnull;

	if (text == NULL)
		return 0;
	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) != NULL)
		stderr = devnull, stdout = devnull; /* the parser's messages */
	memcpy(text, data, size);
	text[size] = '\0';
	argv[0] = "fuzz";
	for (char *p = text; argc < 64 && p <= text + size; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END && k != SB_OPT_ERROR &&
	       k != SB_OPT_HELP) {
		if (++steps > argc || it.i > argc)
			abort(); /* every step takes at least one argument */
		if (v != NULL && (v < text || v > text + size))
			abort(); /* a value points into the arguments */
	}
	free(text);
	return 0;
}
