/* sbctl plan SPEC [--json]: print a spec's children, without side effects
 * (docs/sbctl-plan.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"
#include "sbench/submit.h"

enum { O_JSON = 1 };

static const struct sb_opt opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the plan as one JSON document (docs/sbctl-plan.md)" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"plan",
	"plan SPEC [--json]",
	"Expands the benchmark spec SPEC into its children and prints them:\n"
	"a table (index, digest, repeat, parameters) by default, or the JSON\n"
	"document of docs/sbctl-plan.md with --json.  Nothing is written or\n"
	"submitted.\n",
	opts,
	NULL,
};

int cmd_plan(int argc, char **argv)
{
	const char *path = NULL, *v;
	bool json = false;
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	struct sb_spec *spec;
	struct sb_plan *plan;
	int i, k, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_JSON: json = true; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &path, v, "SPEC") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (path == NULL) {
		sb_opt_error(&cmd, "no spec given");
		return SB_EXIT_USAGE;
	}
	spec = sb_spec_load(path, &err);
	if (spec == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		return sb_cli_exit(&err);
	}
	plan = sb_plan_create(spec, &err);
	if (plan == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		sb_spec_destroy(spec);
		return sb_cli_exit(&err);
	}
	for (i = 0; (size_t)i < sb_plan_warning_count(plan); i++)
		fprintf(stderr, "%s\n", sb_plan_warning(plan, (size_t)i));
	{
		/* what sbctl submit refuses (docs/spec.md, "Where the command runs") */
		char *msg = sb_submit_cwd_problem(plan, path);
		if (msg)
			fprintf(stderr, "sbctl plan: warning: %s (sbctl submit refuses this spec)\n", msg);
		sb_free(msg);
	}
	{
		char *msg = sb_spec_dirty_warning(path);
		if (msg)
			fprintf(stderr, "sbctl: %s\n", msg);
		sb_free(msg);
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	rc = sb_plan_render(plan, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT, stdout, &err);
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	if (rc < 0) {
		fprintf(stderr, "sbctl plan: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	return SB_EXIT_OK;
}
