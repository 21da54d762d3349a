/* sbctl index --rebuild DIR...: rebuild the local index's list of
 * benchmarks from benchmark directories (docs/sbctl-list.md):
 * <sbench/index.h> does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

enum { O_REBUILD = 1 };

static const struct sb_opt opts[] = {
	{ "rebuild", 0, O_REBUILD, SB_OPT_FLAG, NULL, "forget every benchmark, then add those found in each DIR (required)" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"index",
	"index --rebuild DIR...",
	"Forgets the benchmarks the local index knows and adds those found in\n"
	"each DIR: a benchmark directory, or a root holding some.\n",
	opts,
	NULL,
};

int cmd_index(int argc, char **argv)
{
	struct sb_bench_list *added;
	struct sb_error err;
	struct sb_opt_iter it = { 0 };
	const char *v, **dirs = calloc((size_t)argc, sizeof(*dirs));
	size_t i, n, ndirs = 0;
	int k, rc, rebuild = 0;

	if (dirs == NULL) {
		fputs("sbctl index: out of memory\n", stderr);
		return SB_EXIT_RUNTIME;
	}
	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: free(dirs); return SB_EXIT_OK;
		case SB_OPT_ERROR: free(dirs); return SB_EXIT_USAGE;
		case O_REBUILD: rebuild = 1; break;
		case SB_OPT_OPERAND: dirs[ndirs++] = v; break;
		}
	}
	if (!rebuild || ndirs == 0) {
		sb_opt_error(&cmd, "%s", rebuild ? "missing DIR" : "--rebuild is required");
		free(dirs);
		return SB_EXIT_USAGE;
	}
	/* skipped directories are warnings, through the context's callback */
	rc = sb_index_rebuild(sb_cli_ctx(), dirs, ndirs, &added, &err);
	free(dirs);
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
