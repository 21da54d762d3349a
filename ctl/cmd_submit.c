/* sbctl submit SPEC [--root DIR] [--dry-run] [--json] (docs/sbctl-submit.md) */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/commands.h"
#include "ctl/status.h"
#include "ctl/submit.h"
#include "proto/json.h"

static void usage(FILE *out)
{
	fputs("usage: sbctl submit SPEC [--root DIR] [--dry-run] [--json]\n"
	      "\n"
	      "Plans SPEC, creates its benchmark directory under DIR (default $SB_ROOT,\n"
	      "else ./sbench-runs), and submits its children as Slurm job arrays.\n"
	      "Submitting the same spec again submits nothing; an interrupted submit\n"
	      "continues where it stopped.\n", out);
}

/* "0-11" or "0,2,5" style text of a child list, shortened for people. */
static void print_children(FILE *out, const size_t *c, size_t n)
{
	if (n > 0 && c[n - 1] - c[0] == n - 1)
		fprintf(out, "%zu-%zu", c[0], c[n - 1]);
	else
		for (size_t i = 0; i < n && i < 8; i++)
			fprintf(out, "%s%zu%s", i ? "," : "", c[i], i == 7 && n > 8 ? ",..." : "");
}

static void print_json(FILE *out, const struct sb_submit_result *r)
{
	struct sb_json j;
	size_t i, k;

	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, "benchmark");
	sb_json_obj_begin(&j);
	sb_json_key(&j, "name");
	sb_json_str(&j, r->name);
	sb_json_key(&j, "digest");
	sb_json_str(&j, r->digest);
	sb_json_key(&j, "dir");
	sb_json_str(&j, r->dir);
	sb_json_obj_end(&j);
	sb_json_key(&j, "already_submitted");
	sb_json_bool(&j, r->already_submitted);
	sb_json_key(&j, "jobs");
	sb_json_arr_begin(&j);
	for (i = 0; i < r->njobs; i++) {
		sb_json_obj_begin(&j);
		sb_json_key(&j, "job_id");
		sb_json_str(&j, r->jobs[i].job_id);
		sb_json_key(&j, "array");
		sb_json_str(&j, r->jobs[i].array);
		sb_json_key(&j, "recovered");
		sb_json_bool(&j, r->jobs[i].recovered);
		sb_json_key(&j, "submitted_now");
		sb_json_bool(&j, r->jobs[i].submitted_now);
		sb_json_key(&j, "children");
		sb_json_arr_begin(&j);
		for (k = 0; k < r->jobs[i].n; k++)
			sb_json_uint(&j, r->jobs[i].children[k]);
		sb_json_arr_end(&j);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "chunks");
	sb_json_uint(&j, r->nchunks);
	sb_json_key(&j, "duplicates");
	sb_json_arr_begin(&j);
	for (i = 0; i < r->ndups; i++) {
		sb_json_obj_begin(&j);
		sb_json_key(&j, "attempt");
		sb_json_int(&j, r->dups[i].attempt);
		sb_json_key(&j, "chunk");
		sb_json_int(&j, r->dups[i].chunk);
		sb_json_key(&j, "job_ids");
		sb_json_arr_begin(&j);
		for (k = 0; k < r->dups[i].n; k++)
			sb_json_str(&j, r->dups[i].job_ids[k]);
		sb_json_arr_end(&j);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
}

static void print_human(FILE *out, const struct sb_submit_result *r)
{
	size_t i, now = 0;

	for (i = 0; i < r->njobs; i++)
		now += r->jobs[i].submitted_now;
	if (r->already_submitted)
		fprintf(out, "%s (%.12s) was already submitted%s: nothing submitted\n", r->name, r->digest,
			r->waited ? " (by the sbctl this one waited for)" : "");
	else if (now == r->njobs)
		fprintf(out, "submitted %s (%.12s): %zu job array%s\n", r->name, r->digest, now,
			now == 1 ? "" : "s");
	else
		fprintf(out, "submitted %s (%.12s): %zu job array%s now, %zu before\n", r->name, r->digest,
			now, now == 1 ? "" : "s", r->njobs - now);
	for (i = 0; i < r->njobs; i++) {
		const struct sb_submit_job *j = &r->jobs[i];
		fprintf(out, "  job %-10s array %-12s children ", j->job_id, j->array);
		print_children(out, j->children, j->n);
		fputs(j->recovered ? "  (found by name after an interrupted sbatch)\n"
		      : !j->submitted_now && !r->already_submitted ? "  (submitted before)\n" : "\n", out);
	}
	fprintf(out, "directory %s\n", r->dir);
}

/* A warning on stderr for each chunk that has more than one job array. */
static void warn_duplicates(const char *cmd, const struct sb_submit_result *r)
{
	for (size_t i = 0; i < r->ndups; i++) {
		fprintf(stderr, "sbctl %s: warning: chunk %" PRId64 " of attempt %" PRId64 " was submitted "
			"%zu times, as jobs", cmd, r->dups[i].chunk, r->dups[i].attempt, r->dups[i].n);
		for (size_t k = 0; k < r->dups[i].n; k++)
			fprintf(stderr, " %s", r->dups[i].job_ids[k]);
		fputs(": each array runs the chunk's children (see 'sbctl status')\n", stderr);
	}
}

/* After a failed submit or rerun: how much is submitted, how to go on. */
static void explain_failure(const char *cmd, const char *again, const struct sb_submit_result *r)
{
	if (r->interrupted || (r->njobs > 0 && r->njobs < r->nchunks))
		fprintf(stderr, "sbctl %s: %s%zu of %zu job arrays are submitted; run '%s' again to "
			"continue\n", cmd, r->interrupted ? "interrupted: " : "", r->njobs, r->nchunks, again);
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sb_submit_opts o = { .ctx = sb_cli_ctx(), .out = stdout, .warn = stderr };
	struct sb_submit_result res;
	struct sb_error err = { 0 };
	int json = 0, c, usage_error = 0, rc;

	optind = 0; /* glibc: a full re-initialisation, so options may follow SPEC */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': o.root = optarg; break;
		case 'n': o.dry_run = true; break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); return SB_EXIT_OK;
		default: usage(stderr); return SB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sbctl submit: %s\n", optind >= argc ? "missing SPEC" : "too many arguments");
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (json && o.dry_run) {
		fputs("sbctl submit: --dry-run prints scripts, not JSON: use one or the other\n", stderr);
		return SB_EXIT_USAGE;
	}
	o.spec_path = argv[optind];
	rc = sb_submit(&o, &res, &usage_error, &err);
	if (rc < 0) {
		char again[PATH_MAX + 16];
		fprintf(stderr, "sbctl submit: %s\n", err.msg);
		warn_duplicates("submit", &res);
		snprintf(again, sizeof(again), "sbctl submit %s", o.spec_path);
		explain_failure("submit", again, &res);
		if (res.dir && json)
			print_json(stdout, &res);
		sb_submit_result_release(&res);
		return usage_error ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
	}
	if (!o.dry_run) {
		warn_duplicates("submit", &res);
		if (json)
			print_json(stdout, &res);
		else
			print_human(stdout, &res);
	}
	sb_submit_result_release(&res);
	return fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
}

/* sbctl rerun BENCH --only CLASS[,CLASS...] [--dry-run] [--json] */
int cmd_rerun(int argc, char **argv)
{
	static const char usage_text[] =
		"usage: sbctl rerun BENCH --only CLASS[,CLASS...] [--dry-run] [--json]\n"
		"\n"
		"Submits a new attempt for the children whose class is one of CLASS\n"
		"(failed, killed, incomplete, stale, missing, partial, inconsistent,\n"
		"invalid).  Earlier attempts stay in the record.\n";
	struct sb_status_cfg so = { .ctx = sb_cli_ctx(), .settle_s = 10, .record_outcomes = true };
	struct sb_submit_result res;
	struct sb_status st;
	struct sb_error err;
	bool want[SB_CLASS_COUNT] = { false }, dry = false, json = false, resumed;
	const char *bench = NULL;
	char *only = NULL;
	size_t *children = NULL, n = 0, c;
	int i, rc, k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strncmp(argv[i], "--only=", 7))
			only = argv[i] + 7;
		else if (!strcmp(argv[i], "--dry-run"))
			dry = true;
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
	if (bench == NULL || only == NULL || (dry && json)) {
		fprintf(stderr, "sbctl rerun: %s\n%s", bench == NULL ? "missing BENCH" : only == NULL ?
			"--only CLASS[,CLASS...] is required" : "--dry-run and --json exclude each other",
			usage_text);
		return SB_EXIT_USAGE;
	}
	for (char *tok = strtok(only, ","); tok; tok = strtok(NULL, ",")) {
		for (k = 0; k < SB_CLASS_COUNT && strcmp(tok, sb_class_name((enum sb_class)k)); k++)
			;
		if (k == SB_CLASS_COUNT || k == SB_CLASS_SUCCEEDED || k == SB_CLASS_RUNNING ||
		    k == SB_CLASS_PENDING) {
			fprintf(stderr, "sbctl rerun: '%s' %s\n", tok, k == SB_CLASS_COUNT ? "is not a class"
				: "cannot be rerun (only children that are over and did not succeed can)");
			return SB_EXIT_USAGE;
		}
		want[k] = true;
	}
	rc = sb_status_run(bench, &so, &st, &err);
	if (rc < 0) {
		fprintf(stderr, "sbctl rerun: %s\n", err.msg);
		sb_status_release(&st);
		return rc == -2 ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
	}
	children = malloc((st.n ? st.n : 1) * sizeof(*children));
	if (children == NULL) {
		sb_status_release(&st);
		fputs("sbctl rerun: out of memory\n", stderr);
		return SB_EXIT_RUNTIME;
	}
	for (c = 0; c < st.n; c++)
		if (want[st.children[c].cls])
			children[n++] = c;
	rc = sb_rerun(st.bench, children, n, dry, stdout, &res, &resumed, &err);
	if (rc < 0) {
		fprintf(stderr, "sbctl rerun: %s\n", err.msg);
		warn_duplicates("rerun", &res);
		explain_failure("rerun", "sbctl rerun", &res);
		rc = SB_EXIT_RUNTIME;
	} else if (!dry) {
		warn_duplicates("rerun", &res);
		if (resumed && !json)
			printf("an interrupted submission (attempt %s) was resumed first; run 'sbctl rerun' "
			       "again for the children chosen now\n", res.njobs ? "below" : "?");
		if (json)
			print_json(stdout, &res);
		else if (res.njobs == 0)
			printf("no child of %s is %s: nothing to rerun\n", res.name, only);
		else
			print_human(stdout, &res);
		rc = fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
	} else {
		rc = SB_EXIT_OK;
	}
	free(children);
	sb_submit_result_release(&res);
	sb_status_release(&st);
	return rc;
}

/* sbctl cancel BENCH */
int cmd_cancel(int argc, char **argv)
{
	struct sb_bench *b;
	struct sb_error err;
	size_t n;

	if (argc != 2 || argv[1][0] == '-') {
		int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
		fputs("usage: sbctl cancel BENCH\n\nCancels every job array of the benchmark that still "
		      "has pending or running\nchildren, and records that it did.\n", help ? stdout : stderr);
		return help ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	b = sb_bench_find(sb_cli_ctx(), argv[1], &err);
	if (b == NULL) {
		fprintf(stderr, "sbctl cancel: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	if (sb_cancel(b, &n, stdout, &err) < 0) {
		fprintf(stderr, "sbctl cancel: %s\n", err.msg);
		sb_bench_destroy(b);
		return SB_EXIT_RUNTIME;
	}
	if (n == 0)
		printf("nothing to cancel: no job of %s is pending or running\n", b->name);
	sb_bench_destroy(b);
	return fflush(stdout) == 0 ? SB_EXIT_OK : SB_EXIT_RUNTIME;
}
