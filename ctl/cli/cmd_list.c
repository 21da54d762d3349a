/* sbctl list [--json]: the benchmarks the local index knows
 * (docs/sbctl-list.md): <sbench/index.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

enum { O_JSON = 1 };

static const struct sb_opt opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the list as one JSON document" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"list", "list [--json]", "Lists the benchmarks the local index knows.\n", opts, NULL,
};

int cmd_list(int argc, char **argv)
{
	struct sb_bench_list *l;
	struct sb_error err;
	struct sb_opt_iter it = { 0 };
	const char *v;
	int k, json = 0, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_JSON: json = 1; break;
		case SB_OPT_OPERAND:
			sb_opt_error(&cmd, "unknown argument '%s'", v);
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
