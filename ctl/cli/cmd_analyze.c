/* sbctl analyze BENCH [--json|--csv] [--group-by P,...] [--metrics M,...]
 * [--sort [-]METRIC [--desc]] [--offline] [--settle S] (docs/sbctl-analyze.md): <sbench/analyze.h> does
 * the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "sbench/sbench.h"

#define MAX_NAMES 4096

enum { O_JSON = 1, O_CSV, O_OFFLINE, O_GROUP_BY, O_METRICS, O_SORT, O_DESC, O_SETTLE, O_LAG, O_RUNS };

static const struct sb_opt opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the analysis as one JSON document" },
	{ "csv", 0, O_CSV, SB_OPT_FLAG, NULL, "one CSV row per group and metric" },
	{ "runs", 0, O_RUNS, SB_OPT_FLAG, NULL, "a row per child instead: class, reason, final metrics, run directory" },
	{ "group-by", 0, O_GROUP_BY, SB_OPT_VALUE, "P,...", "group by these parameters (default: every varying one)" },
	{ "metrics", 0, O_METRICS, SB_OPT_VALUE, "M,...", "only these metrics" },
	{ "sort", 0, O_SORT, SB_OPT_VALUE, "[-]METRIC", "rank the groups by a metric's mean, lowest first (-METRIC: highest first)" },
	{ "desc", 0, O_DESC, SB_OPT_FLAG, NULL, "descending, with --sort" },
	SB_CLI_OPT_OFFLINE(O_OFFLINE),
	SB_CLI_OPT_SETTLE(O_SETTLE),
	SB_CLI_OPT_STORAGE_LAG(O_LAG),
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"analyze",
	"analyze BENCH [--json | --csv] [--group-by P,...] [--metrics M,...]\n"
	"                     [--sort [-]METRIC [--desc]] [--offline] [--settle SECONDS]\n"
	"                     [--storage-lag SECONDS|auto]\n"
	"       sbctl analyze BENCH --runs [--json | --csv] [--metrics M,...] [--offline]",
	"Statistics of each metric over the children that succeeded, per group of\n"
	"parameters.  Only proven successes count (docs/classification.md).\n",
	opts,
	"exit status: 0 every child succeeded, 3 not every child succeeded,\n"
	"2 usage or input error, 1 runtime error\n",
};

/* Splits the comma list of option opt in place into out: the count, or -1
 * after a usage error when it has more than max names (none is dropped). */
static long split_list(const char *opt, char *s, const char **out, size_t max)
{
	size_t n = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
		if (*tok) {
			if (n == max) {
				fprintf(stderr, "sbctl analyze: %s has more than %zu names\n", opt, max);
				return -1;
			}
			out[n++] = tok;
		}
	return (long)n;
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
	const char *bench = NULL, *v;
	struct sb_opt_iter it = { 0 };
	size_t i;
	int k, json = 0, csv = 0, desc = 0, runs = 0, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP:
			return SB_EXIT_OK;
		case SB_OPT_ERROR:
			return SB_EXIT_USAGE;
		case O_JSON:
			json = 1;
			break;
		case O_CSV:
			csv = 1;
			break;
		case O_RUNS:
			runs = 1;
			break;
		case O_OFFLINE:
			o.offline = true;
			break;
		case O_GROUP_BY:
			by_arg = (char *)v;
			break;
		case O_METRICS:
			met_arg = (char *)v;
			break;
		case O_SORT:
			ao.sort = v;
			if (ao.sort[0] == '-') {
				ao.sort++;
				ao.sort_desc = true;
			}
			if (!*ao.sort) {
				fputs("sbctl analyze: --sort needs a metric name\n", stderr);
				return SB_EXIT_USAGE;
			}
			break;
		case O_DESC:
			desc = 1;
			break;
		case O_SETTLE:
			if (sb_cli_set_settle("analyze", v) < 0)
				return SB_EXIT_USAGE;
			break;
		case O_LAG:
			if (sb_cli_set_storage_lag("analyze", v) < 0)
				return SB_EXIT_USAGE;
			break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL || (json && csv)) {
		sb_opt_error(&cmd, "%s", bench ? "--json and --csv exclude each other" : "missing BENCH");
		return SB_EXIT_USAGE;
	}
	if (runs && (by_arg || ao.sort)) {
		sb_opt_error(&cmd, "--runs lists children, not groups: no --group-by or --sort with it");
		return SB_EXIT_USAGE;
	}
	if (desc && ao.sort == NULL) {
		sb_opt_error(&cmd, "--desc needs --sort METRIC");
		return SB_EXIT_USAGE;
	}
	ao.sort_desc = ao.sort_desc || desc;
	if (by_arg) {
		long n = split_list("--group-by", by_arg, by, MAX_NAMES);
		if (n < 0)
			return SB_EXIT_USAGE;
		ao.group_by = by;
		ao.ngroup_by = (size_t)n;
	}
	if (met_arg) {
		long n = split_list("--metrics", met_arg, mets, MAX_NAMES);
		if (n < 0)
			return SB_EXIT_USAGE;
		if (n == 0) {
			fputs("sbctl analyze: --metrics needs at least one name\n", stderr);
			return SB_EXIT_USAGE;
		}
		ao.metrics = mets;
		ao.nmetrics = (size_t)n;
	}
	if (json || csv)
		sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	if ((rc = sb_cli_status("analyze", bench, &o, &b, &st)) != 0)
		return rc;
	if (sb_analyze(st, &ao, &an, &err) < 0) {
		fprintf(stderr, "sbctl analyze: %s\n", err.msg);
		rc = sb_cli_exit(&err);
		goto done;
	}
	for (i = 0; i < sb_analysis_warning_count(an); i++)
		fprintf(stderr, "sbctl analyze: warning: %s\n", sb_analysis_warning(an, i));
	if ((runs ? sb_analysis_render_runs : sb_analysis_render)(an, json ? SB_FORMAT_JSON
								  : csv ? SB_FORMAT_CSV : SB_FORMAT_TEXT, stdout, &err) < 0) {
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
