/* sbctl forget BENCH [--json]: removes a benchmark from the local index,
 * not its directory (docs/sbctl-forget.md): <sbench/index.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "sbench/sbench.h"

static const char usage_text[] =
	"usage: sbctl forget BENCH [--json]\n\n"
	"Removes the benchmark BENCH (a directory, a name: the latest of that name,\n"
	"or a digest prefix) from the local index.  Its directory stays.\n";

int cmd_forget(int argc, char **argv)
{
	struct sb_bench_list *l = NULL;
	struct sb_error err = { 0 };
	const char *bench = NULL;
	int i, json = 0, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return SB_EXIT_OK;
		} else if (argv[i][0] == '-' || bench) {
			fprintf(stderr, "sbctl forget: unexpected argument '%s'\n%s", argv[i], usage_text);
			return SB_EXIT_USAGE;
		} else {
			bench = argv[i];
		}
	}
	if (bench == NULL) {
		fprintf(stderr, "sbctl forget: missing BENCH\n%s", usage_text);
		return SB_EXIT_USAGE;
	}
	if (sb_index_forget(sb_cli_ctx(), bench, &l, &err) < 0 ||
	    sb_bench_list_render(l, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT, stdout, &err) < 0) {
		fprintf(stderr, "sbctl forget: %s\n", err.msg);
		rc = sb_cli_exit(&err);
	} else {
		rc = SB_EXIT_OK;
	}
	sb_bench_list_destroy(l);
	return rc;
}
