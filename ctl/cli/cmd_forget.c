/* sbctl forget BENCH [--json]: removes a benchmark from the local index,
 * not its directory (docs/sbctl-forget.md): <sbench/index.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

enum { O_JSON = 1 };

static const struct sb_opt opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the benchmarks forgotten as one JSON document" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"forget",
	"forget BENCH [--json]",
	"Removes the benchmark BENCH (a directory, a name: the latest of that name,\n"
	"or a digest prefix) from the local index.  Its directory stays.\n",
	opts,
	NULL,
};

int cmd_forget(int argc, char **argv)
{
	struct sb_bench_list *l = NULL;
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	const char *bench = NULL, *v;
	int k, json = 0, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_JSON: json = 1; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL) {
		sb_opt_error(&cmd, "missing BENCH");
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
