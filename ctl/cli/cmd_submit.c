/* sbctl submit SPEC [--root DIR] [--dry-run] [--json] (docs/sbctl-submit.md),
 * sbctl rerun and sbctl cancel: parse, call <sbench/submit.h>, render, map
 * the error code to the exit status. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "cli/options.h"
#include "sbench/context.h"
#include "sbench/lane.h"
#include "sbench/submit.h"

enum { O_ROOT = 1, O_DRY_RUN, O_JSON, O_NO_REUSE, O_REUSE_FROM, O_CHECK, O_LANE, O_MAX_ACTIVE,
       O_ONLY, O_TIME, O_CANCEL_RUNNING, O_SMOKE };

static const struct sb_opt submit_opts[] = {
	{ "root", 0, O_ROOT, SB_OPT_VALUE, "DIR", "where benchmark directories go (default $SB_ROOT, else ./sbench-runs)" },
	{ "dry-run", 0, O_DRY_RUN, SB_OPT_FLAG, NULL, "print the batch scripts and sbatch lines; submit nothing" },
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the result as one JSON document" },
	{ "no-reuse", 0, O_NO_REUSE, SB_OPT_FLAG, NULL, "run every child, even one proven in an earlier benchmark" },
	{ "reuse-from", 0, O_REUSE_FROM, SB_OPT_VALUE, "BENCH", "reuse proven children of this benchmark only" },
	{ "check", 0, O_CHECK, SB_OPT_OPTIONAL, "SECONDS", "watch it for SECONDS (default 60) and report early failures (exit 3)" },
	{ "smoke", 0, O_SMOKE, SB_OPT_OPTIONAL, "SECONDS", "submit child 0 alone, the rest once it succeeded (wait SECONDS, default 600; exit 3 if not)" },
	{ "lane", 0, O_LANE, SB_OPT_VALUE, "NAME", "submit as part of lane NAME (docs/lane.md)" },
	{ "max-active", 0, O_MAX_ACTIVE, SB_OPT_VALUE, "K", "with --lane: submit nothing while K benchmarks of the lane are active (exit 4)" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd submit_cmd = {
	"submit",
	"submit SPEC [--root DIR] [--dry-run] [--json] [--no-reuse | --reuse-from BENCH]\n"
	"                   [--smoke[=SECONDS]] [--check[=SECONDS]] [--lane NAME [--max-active K]]",
	"Plans SPEC, creates its benchmark directory under DIR (default $SB_ROOT,\n"
	"else ./sbench-runs), and submits its children as Slurm job arrays.\n"
	"Submitting the same spec again submits nothing; an interrupted submit\n"
	"continues where it stopped.  Children whose digest succeeded in an earlier\n"
	"benchmark of the same name and tag are reused, not run again.  The\n"
	"command's program and the files it names under {spec_dir} are checked\n"
	"first (exit 2).  --smoke submits child 0 alone, waits for it, and\n"
	"submits the rest only if it succeeded (exit 3 otherwise).  --check\n"
	"watches it for SECONDS (default 60) and reports early failures (exit 3);\n"
	"--lane submits nothing while K benchmarks of the lane are still active\n"
	"(exit 4; docs/lane.md).\n",
	submit_opts,
	"exit status: 0 submitted, 2 usage or input error, 1 runtime error,\n"
	"3 --check found a failure or the --smoke child did not succeed, 4 the lane was busy\n",
};

static const struct sb_opt rerun_opts[] = {
	{ "only", 0, O_ONLY, SB_OPT_VALUE, "CLASS[,CLASS...]", "the classes whose children run again (required)" },
	{ "time", 0, O_TIME, SB_OPT_VALUE, "T", "the new attempt's time limit (sbatch --time)" },
	{ "cancel-running", 0, O_CANCEL_RUNNING, SB_OPT_FLAG, NULL, "cancel a chosen child's job the scheduler still has, and wait for it, first" },
	{ "dry-run", 0, O_DRY_RUN, SB_OPT_FLAG, NULL, "print what would be submitted; submit nothing" },
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the result as one JSON document" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd rerun_cmd = {
	"rerun",
	"rerun BENCH --only CLASS[,CLASS...] [--time T] [--cancel-running] [--dry-run] [--json]",
	"Submits a new attempt for the children whose class is one of CLASS\n"
	"(failed, killed, stopped, incomplete, stale, missing, partial,\n"
	"inconsistent, invalid), with the time limit T (sbatch --time) when\n"
	"given.  Earlier attempts stay in the record.  A child whose job the\n"
	"scheduler still has (pending or running) is never run twice at once:\n"
	"the rerun is refused, or its job cancelled first with --cancel-running.\n",
	rerun_opts,
	NULL,
};

static const struct sb_opt cancel_opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "the result as one JSON document" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cancel_cmd = {
	"cancel",
	"cancel BENCH [--json]",
	"Cancels every job array of the benchmark that still has pending or running\n"
	"children, and records that it did.\n",
	cancel_opts,
	NULL,
};

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
	struct sb_lane_opts lo = { 0 };
	uint64_t k;
	struct sb_ctx *ctx = sb_cli_ctx();
	struct sb_submit_opts o = { 0 };
	struct sb_submit_result *res;
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	const char *root = NULL, *spec = NULL, *v;
	int json = 0, c, rc;

	while ((c = sb_opt_next(&submit_cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (c) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_ROOT: root = v; break;
		case O_DRY_RUN: o.dry_run = true; break;
		case O_JSON: json = 1; break;
		case O_NO_REUSE: o.no_reuse = true; break;
		case O_REUSE_FROM: o.reuse_from = v; break;
		case O_CHECK:
			lo.check = true;
			if (v && sb_parse_seconds(v, 1e7, &lo.check_seconds, &err) < 0) {
				fprintf(stderr, "sbctl submit: --check=%s: %s\n", v, err.msg);
				return SB_EXIT_USAGE;
			}
			break;
		case O_SMOKE:
			o.smoke = true;
			if (v && sb_parse_seconds(v, 1e7, &o.smoke_seconds, &err) < 0) {
				fprintf(stderr, "sbctl submit: --smoke=%s: %s\n", v, err.msg);
				return SB_EXIT_USAGE;
			}
			break;
		case O_LANE: lo.lane = v; break;
		case O_MAX_ACTIVE:
			if (sb_parse_uint(v, 1000000, &k, &err) < 0 || k == 0) {
				fprintf(stderr, "sbctl submit: --max-active needs a number from 1 to "
					"1000000, not '%s'\n", v);
				return SB_EXIT_USAGE;
			}
			lo.max_active = (int64_t)k;
			break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&submit_cmd, &spec, v, "SPEC") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (spec == NULL) {
		sb_opt_error(&submit_cmd, "missing SPEC");
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
		size_t len = strlen(spec) + sizeof("sbctl submit  --smoke");
		char *again = malloc(len);
		fprintf(stderr, "sbctl submit: %s\n", err.msg);
		warn_duplicates("submit", res);
		if (again) /* a smoke test interrupted waits again */
			snprintf(again, len, "sbctl submit %s%s", spec, o.smoke ? " --smoke" : "");
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
	if (rc == SB_EXIT_OK && (sb_submit_result_smoke(res) == SB_SUBMIT_SMOKE_FAILED ||
				 sb_submit_result_smoke(res) == SB_SUBMIT_SMOKE_TIMEOUT))
		rc = SB_EXIT_PROBLEM; /* the smoke child did not succeed: the rest is held back */
	sb_submit_result_destroy(res);
	return rc;
}

/* sbctl rerun BENCH --only CLASS[,CLASS...] [--time T] [--cancel-running] [--dry-run] [--json] */
int cmd_rerun(int argc, char **argv)
{
	struct sb_rerun_opts o = { 0 };
	struct sb_submit_result *res;
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	bool json = false;
	const char *bench = NULL, *only = NULL, *v;
	int k, rc;

	while ((k = sb_opt_next(&rerun_cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_ONLY: only = v; break;
		case O_TIME: o.time = v; break;
		case O_DRY_RUN: o.dry_run = true; break;
		case O_CANCEL_RUNNING: o.cancel_running = true; break;
		case O_JSON: json = true; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&rerun_cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL || only == NULL || (o.dry_run && json)) {
		sb_opt_error(&rerun_cmd, "%s", bench == NULL ? "missing BENCH" : only == NULL ?
			     "--only CLASS[,CLASS...] is required" : "--dry-run and --json exclude each other");
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
	struct sb_submit_result *res;
	struct sb_error err = { 0 };
	struct sb_opt_iter it = { 0 };
	const char *bench = NULL, *v;
	bool json = false;
	int k, rc;

	while ((k = sb_opt_next(&cancel_cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_JSON: json = true; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cancel_cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL) {
		sb_opt_error(&cancel_cmd, "missing BENCH");
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
