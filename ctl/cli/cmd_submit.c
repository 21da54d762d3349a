/* sbctl submit SPEC [--root DIR] [--dry-run] [--json] (docs/sbctl-submit.md),
 * sbctl rerun and sbctl cancel: parse, call <sbench/submit.h>, render, map
 * the error code to the exit status. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "sbench/context.h"
#include "sbench/lane.h"
#include "sbench/submit.h"

static void usage(FILE *out)
{
	fputs("usage: sbctl submit SPEC [--root DIR] [--dry-run] [--json] [--no-reuse | --reuse-from BENCH]\n"
	      "                   [--check[=SECONDS]] [--lane NAME [--max-active K]]\n"
	      "\n"
	      "Plans SPEC, creates its benchmark directory under DIR (default $SB_ROOT,\n"
	      "else ./sbench-runs), and submits its children as Slurm job arrays.\n"
	      "Submitting the same spec again submits nothing; an interrupted submit\n"
	      "continues where it stopped.  Children whose digest succeeded in an earlier\n"
	      "benchmark of the same name and tag are reused, not run again.  --check\n"
	      "watches it for SECONDS (default 60) and reports early failures (exit 3);\n"
	      "--lane submits nothing while K benchmarks of the lane are still active\n"
	      "(exit 4; docs/lane.md).\n", out);
}

/* The library's warnings, one line each on stderr. */
static void warn_stderr(void *user, const char *msg)
{
	(void)user;
	fprintf(stderr, "sbctl: %s\n", msg);
}

/* A warning on stderr for each chunk that has more than one job array. */
static void warn_duplicates(const char *cmd, const struct sb_submit_result *r)
{
	for (size_t d = 0; r && d < sb_submit_result_duplicate_count(r); d++) {
		size_t n = sb_submit_result_duplicate_job_count(r, d);
		fprintf(stderr, "sbctl %s: warning: chunk %" PRId64 " of attempt %" PRId64 " was submitted "
			"%zu times, as jobs", cmd, sb_submit_result_duplicate_chunk(r, d),
			sb_submit_result_duplicate_attempt(r, d), n);
		for (size_t k = 0; k < n; k++)
			fprintf(stderr, " %s", sb_submit_result_duplicate_job_id(r, d, k));
		fputs(": each array runs the chunk's children (see 'sbctl status')\n", stderr);
	}
}

/* After a failed submit or rerun: how much is submitted, how to go on. */
static void explain_failure(const char *cmd, const char *again, const struct sb_submit_result *r)
{
	size_t njobs = r ? sb_submit_result_job_count(r) : 0;
	size_t nchunks = r ? sb_submit_result_chunk_count(r) : 0;
	int interrupted = r ? sb_submit_result_interrupted(r) : 0;

	if (interrupted || (r && sb_submit_result_resumable(r)) || (njobs > 0 && njobs < nchunks))
		fprintf(stderr, "sbctl %s: %s%zu of %zu job arrays are submitted; run '%s' again to "
			"continue\n", cmd, interrupted ? "interrupted: " : "", njobs, nchunks, again);
}

/* Renders res on stdout; the exit status. */
static int render(const char *cmd, const struct sb_submit_result *res, enum sb_format format)
{
	struct sb_error err = { 0 };

	if (sb_submit_render(res, format, stdout, &err) < 0) {
		fprintf(stderr, "sbctl %s: %s\n", cmd, err.msg);
		return sb_cli_exit(&err);
	}
	return SB_EXIT_OK;
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-reuse", no_argument, NULL, 'N' },
		{ "reuse-from", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "check", optional_argument, NULL, 'c' },
		{ "lane", required_argument, NULL, 'l' },
		{ "max-active", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct sb_lane_opts lo = { 0 };
	uint64_t k;
	struct sb_ctx *ctx = sb_cli_ctx();
	struct sb_submit_opts o = { 0 };
	struct sb_submit_result *res;
	struct sb_error err = { 0 };
	const char *root = NULL, *spec;
	int json = 0, c, rc;

	optind = 0; /* glibc: a full re-initialisation, so options may follow SPEC */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': root = optarg; break;
		case 'n': o.dry_run = true; break;
		case 'j': json = 1; break;
		case 'N': o.no_reuse = true; break;
		case 'F': o.reuse_from = optarg; break;
		case 'h': usage(stdout); return SB_EXIT_OK;
		case 'c':
			lo.check = true;
			if (optarg && sb_parse_seconds(optarg, 1e7, &lo.check_seconds, &err) < 0) {
				fprintf(stderr, "sbctl submit: --check=%s: %s\n", optarg, err.msg);
				return SB_EXIT_USAGE;
			}
			break;
		case 'l': lo.lane = optarg; break;
		case 'm':
			if (sb_parse_uint(optarg, 1000000, &k, &err) < 0 || k == 0) {
				fprintf(stderr, "sbctl submit: --max-active needs a number from 1 to "
					"1000000, not '%s'\n", optarg);
				return SB_EXIT_USAGE;
			}
			lo.max_active = (int64_t)k;
			break;
		default: usage(stderr); return SB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sbctl submit: %s\n", optind >= argc ? "missing SPEC" : "too many arguments");
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (o.no_reuse && o.reuse_from) {
		fputs("sbctl submit: --no-reuse and --reuse-from exclude each other\n", stderr);
		return SB_EXIT_USAGE;
	}
	if (json && o.dry_run) {
		fputs("sbctl submit: --dry-run prints scripts, not JSON: use one or the other\n", stderr);
		return SB_EXIT_USAGE;
	}
	spec = argv[optind];
	if (root && sb_ctx_set_root(ctx, root, &err) < 0) {
		fprintf(stderr, "sbctl submit: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	sb_ctx_set_warn(ctx, warn_stderr, NULL);
	if (lo.max_active && !lo.lane) {
		fputs("sbctl submit: --max-active needs --lane\n", stderr);
		return SB_EXIT_USAGE;
	}
	if (lo.check || lo.lane)
		return cmd_submit_lane(spec, &o, &lo, json); /* ctl/cli/cmd_lane.c */
	if (sb_submit(ctx, spec, &o, &res, &err) < 0) {
		size_t len = strlen(spec) + sizeof("sbctl submit ");
		char *again = malloc(len);
		fprintf(stderr, "sbctl submit: %s\n", err.msg);
		warn_duplicates("submit", res);
		if (again)
			snprintf(again, len, "sbctl submit %s", spec);
		explain_failure("submit", again ? again : "sbctl submit", res);
		free(again);
		if (res && json)
			render("submit", res, SB_FORMAT_JSON);
		sb_submit_result_destroy(res);
		return sb_cli_exit(&err);
	}
	if (!o.dry_run)
		warn_duplicates("submit", res);
	rc = render("submit", res, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT);
	sb_submit_result_destroy(res);
	return rc;
}

/* sbctl rerun BENCH --only CLASS[,CLASS...] [--time T] [--dry-run] [--json] */
int cmd_rerun(int argc, char **argv)
{
	static const char usage_text[] =
		"usage: sbctl rerun BENCH --only CLASS[,CLASS...] [--time T] [--dry-run] [--json]\n"
		"\n"
		"Submits a new attempt for the children whose class is one of CLASS\n"
		"(failed, killed, stopped, incomplete, stale, missing, partial,\n"
		"inconsistent, invalid), with the time limit T (sbatch --time) when\n"
		"given.  Earlier attempts stay in the record.\n";
	struct sb_rerun_opts o = { 0 };
	struct sb_submit_result *res;
	struct sb_error err = { 0 };
	bool json = false;
	const char *bench = NULL, *only = NULL;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strncmp(argv[i], "--only=", 7))
			only = argv[i] + 7;
		else if (!strcmp(argv[i], "--time") && i + 1 < argc)
			o.time = argv[++i];
		else if (!strncmp(argv[i], "--time=", 7))
			o.time = argv[i] + 7;
		else if (!strcmp(argv[i], "--dry-run"))
			o.dry_run = true;
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return SB_EXIT_OK;
		} else if (argv[i][0] == '-' || bench) {
			fprintf(stderr, "sbctl rerun: unexpected argument '%s'\n%s", argv[i], usage_text);
			return SB_EXIT_USAGE;
		} else
			bench = argv[i];
	}
	if (bench == NULL || only == NULL || (o.dry_run && json)) {
		fprintf(stderr, "sbctl rerun: %s\n%s", bench == NULL ? "missing BENCH" : only == NULL ?
			"--only CLASS[,CLASS...] is required" : "--dry-run and --json exclude each other",
			usage_text);
		return SB_EXIT_USAGE;
	}
	if (sb_rerun(sb_cli_ctx(), bench, only, &o, &res, &err) < 0) {
		char *again = NULL;
		fprintf(stderr, "sbctl rerun: %s\n", err.msg);
		warn_duplicates("rerun", res);
		if (asprintf(&again, "sbctl rerun %s --only %s%s%s", bench, only, o.time ? " --time " : "",
			     o.time ? o.time : "") < 0)
			again = NULL;
		explain_failure("rerun", again ? again : "sbctl rerun", res);
		free(again);
		sb_submit_result_destroy(res);
		return sb_cli_exit(&err);
	}
	if (!o.dry_run)
		warn_duplicates("rerun", res);
	rc = render("rerun", res, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT);
	sb_submit_result_destroy(res);
	return rc;
}

/* sbctl cancel BENCH [--json] */
int cmd_cancel(int argc, char **argv)
{
	static const char usage_text[] =
		"usage: sbctl cancel BENCH [--json]\n\nCancels every job array of the benchmark that still "
		"has pending or running\nchildren, and records that it did.\n";
	struct sb_submit_result *res;
	struct sb_error err = { 0 };
	const char *bench = NULL;
	bool json = false;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return SB_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (argv[i][0] == '-' || bench) {
			fputs(usage_text, stderr);
			return SB_EXIT_USAGE;
		} else {
			bench = argv[i];
		}
	}
	if (bench == NULL) {
		fputs(usage_text, stderr);
		return SB_EXIT_USAGE;
	}
	if (sb_cancel(sb_cli_ctx(), bench, &res, &err) < 0) {
		fprintf(stderr, "sbctl cancel: %s\n", err.msg);
		sb_submit_result_destroy(res);
		return sb_cli_exit(&err);
	}
	rc = render("cancel", res, json ? SB_FORMAT_JSON : SB_FORMAT_TEXT);
	sb_submit_result_destroy(res);
	return rc;
}
