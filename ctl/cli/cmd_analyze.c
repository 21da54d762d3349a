/* sbctl analyze BENCH [--json|--csv] [--group-by P,...] [--metrics M,...]
 * [--sort [-]METRIC [--desc]] [--offline] [--settle S] (docs/sbctl-analyze.md): <sbench/analyze.h> does
 * the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "sbench/sbench.h"

#define MAX_NAMES 4096

static const char usage_text[] =
	"usage: sbctl analyze BENCH [--json | --csv] [--group-by P,...] [--metrics M,...]\n"
	"                     [--sort [-]METRIC [--desc]] [--offline] [--settle SECONDS]\n";

/* Splits a comma list in place; returns the count (at most max). */
static size_t split_list(char *s, const char **out, size_t max)
{
	size_t n = 0;

	for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
		if (*tok)
			out[n++] = tok;
	return n;
}

int cmd_analyze(int argc, char **argv)
{
	static const char *by[MAX_NAMES], *mets[MAX_NAMES];
	struct sb_status_opts o = { 0 };
	struct sb_analyze_opts ao = { 0 };
	struct sb_analysis *an = NULL;
	struct sb_status *st = NULL;
	struct sb_bench *b;
	struct sb_error err;
	char *by_arg = NULL, *met_arg = NULL;
	const char *bench = NULL;
	size_t i;
	int k, json = 0, csv = 0, desc = 0, rc;

	for (k = 1; k < argc; k++) {
		const char *s = argv[k];
		if (!strcmp(s, "--json")) {
			json = 1;
		} else if (!strcmp(s, "--csv")) {
			csv = 1;
		} else if (!strcmp(s, "--offline")) {
			o.offline = true;
		} else if (!strcmp(s, "--group-by") && k + 1 < argc) {
			by_arg = argv[++k];
		} else if (!strcmp(s, "--metrics") && k + 1 < argc) {
			met_arg = argv[++k];
		} else if (!strcmp(s, "--sort") && k + 1 < argc) {
			ao.sort = argv[++k];
			if (ao.sort[0] == '-') {
				ao.sort++;
				ao.sort_desc = true;
			}
			if (!*ao.sort) {
				fputs("sbctl analyze: --sort needs a metric name\n", stderr);
				return SB_EXIT_USAGE;
			}
		} else if (!strcmp(s, "--desc")) {
			desc = 1;
		} else if (!strcmp(s, "--settle") && k + 1 < argc) {
			double v;
			if (sb_parse_seconds(argv[++k], 1e9, &v, &err) < 0 ||
			    sb_ctx_set_settle(sb_cli_ctx(), v, &err) < 0) {
				fprintf(stderr, "sbctl analyze: --settle needs a number of seconds: %s\n", err.msg);
				return SB_EXIT_USAGE;
			}
		} else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(usage_text, stdout);
			return SB_EXIT_OK;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "sbctl analyze: unknown option or missing value: '%s'\n%s", s, usage_text);
			return SB_EXIT_USAGE;
		} else if (bench == NULL) {
			bench = s;
		} else {
			fprintf(stderr, "sbctl analyze: more than one BENCH given\n");
			return SB_EXIT_USAGE;
		}
	}
	if (bench == NULL || (json && csv)) {
		fprintf(stderr, "sbctl analyze: %s\n%s", bench ? "--json and --csv exclude each other"
			: "missing BENCH", usage_text);
		return SB_EXIT_USAGE;
	}
	if (desc && ao.sort == NULL) {
		fprintf(stderr, "sbctl analyze: --desc needs --sort METRIC\n%s", usage_text);
		return SB_EXIT_USAGE;
	}
	ao.sort_desc = ao.sort_desc || desc;
	if (by_arg) {
		ao.group_by = by;
		ao.ngroup_by = split_list(by_arg, by, MAX_NAMES);
	}
	if (met_arg) {
		ao.metrics = mets;
		if ((ao.nmetrics = split_list(met_arg, mets, MAX_NAMES)) == 0) {
			fputs("sbctl analyze: --metrics needs at least one name\n", stderr);
			return SB_EXIT_USAGE;
		}
	}
	if (json || csv)
		sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	b = sb_bench_find(sb_cli_ctx(), bench, &err);
	if (b == NULL || sb_status_compute(sb_cli_ctx(), b, &o, &st, &err) < 0) {
		fprintf(stderr, "sbctl analyze: %s%s\n", err.msg, err.code == SB_ERR_SCHEDULER
			? " (use --offline to classify from the logs alone)" : "");
		sb_bench_destroy(b);
		return sb_cli_exit(&err);
	}
	for (i = 0; i < sb_status_warning_count(st); i++)
		fprintf(stderr, "sbctl analyze: warning: %s\n", sb_status_warning(st, i));
	if (sb_analyze(st, &ao, &an, &err) < 0) {
		fprintf(stderr, "sbctl analyze: %s\n", err.msg);
		rc = sb_cli_exit(&err);
		goto done;
	}
	for (i = 0; i < sb_analysis_warning_count(an); i++)
		fprintf(stderr, "sbctl analyze: warning: %s\n", sb_analysis_warning(an, i));
	if (sb_analysis_render(an, json ? SB_FORMAT_JSON : csv ? SB_FORMAT_CSV : SB_FORMAT_TEXT,
				      stdout, &err) < 0) {
		fprintf(stderr, "sbctl analyze: %s\n", err.msg);
		rc = sb_cli_exit(&err);
	} else {
		rc = sb_status_all_succeeded(st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	}
done:
	sb_analysis_destroy(an);
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}
