/* sbctl plan SPEC [--json]: print a spec's children, without side effects
 * (docs/sbctl-plan.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "sbench/sbench.h"
#include "sbench/submit.h"

static void usage(FILE *out)
{
	fputs("usage: sbctl plan SPEC [--json]\n"
	      "\n"
	      "Expands the benchmark spec SPEC into its children and prints them:\n"
	      "a table (index, digest, repeat, parameters) by default, or the JSON\n"
	      "document of docs/sbctl-plan.md with --json.  Nothing is written or\n"
	      "submitted.\n", out);
}

int cmd_plan(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false, opts = true;
	struct sb_error err = { 0 };
	struct sb_spec *spec;
	struct sb_plan *plan;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts && !strcmp(a, "--")) {
			opts = false;
		} else if (opts && !strcmp(a, "--json")) {
			json = true;
		} else if (opts && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			usage(stdout);
			return SB_EXIT_OK;
		} else if (opts && a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "sbctl plan: unknown option '%s'\n", a);
			usage(stderr);
			return SB_EXIT_USAGE;
		} else if (path == NULL) {
			path = a;
		} else {
			fprintf(stderr, "sbctl plan: more than one spec given ('%s')\n", a);
			usage(stderr);
			return SB_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		fputs("sbctl plan: no spec given\n", stderr);
		usage(stderr);
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
