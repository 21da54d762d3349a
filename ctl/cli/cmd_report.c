/* sbctl report BENCH [-o FILE] [--offline] [--settle S]
 * (docs/sbctl-report.md): <sbench/report.h> does the work. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "sbench/sbench.h"

static const char usage_text[] =
	"usage: sbctl report BENCH [-o FILE] [--offline] [--settle SECONDS]\n";

int cmd_report(int argc, char **argv)
{
	struct sb_status_opts o = { 0 };
	struct sb_analysis *an = NULL;
	struct sb_status *st = NULL;
	struct sb_bench *b;
	struct sb_error err;
	const char *bench = NULL, *output = NULL;
	char *written = NULL;
	size_t i;
	int k, rc;

	for (k = 1; k < argc; k++) {
		const char *s = argv[k];
		if ((!strcmp(s, "-o") || !strcmp(s, "--output")) && k + 1 < argc) {
			output = argv[++k];
		} else if (!strcmp(s, "--offline")) {
			o.offline = true;
		} else if (!strcmp(s, "--settle") && k + 1 < argc) {
			double v;
			if (sb_parse_seconds(argv[++k], 1e9, &v, &err) < 0 ||
			    sb_ctx_set_settle(sb_cli_ctx(), v, &err) < 0) {
				fprintf(stderr, "sbctl report: --settle needs a number of seconds: %s\n", err.msg);
				return SB_EXIT_USAGE;
			}
		} else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(usage_text, stdout);
			return SB_EXIT_OK;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "sbctl report: unknown option or missing value: '%s'\n%s", s,
				usage_text);
			return SB_EXIT_USAGE;
		} else if (bench == NULL) {
			bench = s;
		} else {
			fprintf(stderr, "sbctl report: more than one BENCH given\n");
			return SB_EXIT_USAGE;
		}
	}
	if (bench == NULL) {
		fprintf(stderr, "sbctl report: missing BENCH\n%s", usage_text);
		return SB_EXIT_USAGE;
	}
	b = sb_bench_find(sb_cli_ctx(), bench, &err);
	if (b == NULL || sb_status_compute(sb_cli_ctx(), b, &o, &st, &err) < 0) {
		fprintf(stderr, "sbctl report: %s%s\n", err.msg, err.code == SB_ERR_SCHEDULER
			? " (use --offline to classify from the logs alone)" : "");
		sb_bench_destroy(b);
		return sb_cli_exit(&err);
	}
	for (i = 0; i < sb_status_warning_count(st); i++)
		fprintf(stderr, "sbctl report: warning: %s\n", sb_status_warning(st, i));
	if (sb_analyze(st, NULL, &an, &err) < 0 || sb_report_write(an, output, &written, &err) < 0) {
		fprintf(stderr, "sbctl report: %s\n", err.msg);
		rc = sb_cli_exit(&err);
	} else {
		for (i = 0; i < sb_analysis_warning_count(an); i++)
			fprintf(stderr, "sbctl report: warning: %s\n", sb_analysis_warning(an, i));
		printf("%s\n", written);
		rc = sb_status_all_succeeded(st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	}
	sb_free(written);
	sb_analysis_destroy(an);
	sb_status_destroy(st);
	sb_bench_destroy(b);
	return rc;
}
