/* sbctl index --rebuild DIR...: rebuild the local index's list of
 * benchmarks from benchmark directories (docs/sbctl-index.md):
 * <sbench/index.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "sbench/sbench.h"

int cmd_index(int argc, char **argv)
{
	struct sb_bench_list *added;
	struct sb_error err;
	size_t i, n;
	int rc;

	if (argc < 3 || strcmp(argv[1], "--rebuild") != 0) {
		int help = argc == 2 && !strcmp(argv[1], "--help");
		fputs("usage: sbctl index --rebuild DIR...\n\n"
		      "Forgets the benchmarks the local index knows and adds those found in\n"
		      "each DIR: a benchmark directory, or a root holding some.\n",
		      help ? stdout : stderr);
		return help ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	/* skipped directories are warnings, through the context's callback */
	rc = sb_index_rebuild(sb_cli_ctx(), (const char *const *)argv + 2, (size_t)argc - 2, &added,
			      &err);
	if (rc < 0 && added == NULL) {
		fprintf(stderr, "sbctl index: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	n = sb_bench_list_count(added);
	for (i = 0; i < n; i++)
		printf("%s %.12s %s\n", sb_bench_list_name(added, i), sb_bench_list_digest(added, i),
		       sb_bench_list_dir(added, i));
	sb_bench_list_destroy(added);
	if (rc < 0)
		fprintf(stderr, "sbctl index: %s\n", err.msg);
	fprintf(stderr, "sbctl index: %zu benchmark%s indexed\n", n, n == 1 ? "" : "s");
	return rc < 0 ? sb_cli_exit(&err) : fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
}
