/* sbctl list [--json]: the benchmarks the local index knows
 * (docs/sbctl-list.md): <sbench/index.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "sbench/sbench.h"

int cmd_list(int argc, char **argv)
{
	struct sb_bench_list *l;
	struct sb_error err;
	int i, json = 0, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: sbctl list [--json]\n\nLists the benchmarks the local index knows.");
			return SB_EXIT_OK;
		} else {
			fprintf(stderr, "sbctl list: unknown argument '%s'\nusage: sbctl list [--json]\n", argv[i]);
			return SB_EXIT_USAGE;
		}
	}
	if (sb_index_list(sb_cli_ctx(), &l, &err) < 0 ||
	    sb_bench_list_render(l, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT, stdout, &err) < 0) {
		fprintf(stderr, "sbctl list: %s\n", err.msg);
		rc = sb_cli_exit(&err);
	} else {
		rc = SB_EXIT_OK;
	}
	sb_bench_list_destroy(l);
	return rc;
}
