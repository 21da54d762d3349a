/* sbctl status BENCH [--json] [--offline] [--settle S] [--rehash] and
 * sbctl wait BENCH [--timeout S] [--interval S] (docs/sbctl-status.md). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctl/commands.h"
#include "ctl/plan_json.h"
#include "ctl/numarg.h"
#include "ctl/status.h"
#include "proto/json.h"

struct status_args {
	const char *bench;
	bool json;
	struct sb_status_opts o;
	double timeout_s;   /* wait */
	double interval_s;  /* wait */
};

static int parse_seconds(const char *cmd, const char *opt, const char *v, double *out)
{
	struct sb_error err;

	if (v == NULL || sb_parse_seconds(v, 1e9, out, &err) < 0) {
		fprintf(stderr, "sbctl %s: %s needs a number of seconds: %s\n", cmd, opt,
			v ? err.msg : "none given");
		return -1;
	}
	return 0;
}

static int parse_args(const char *cmd, int argc, char **argv, struct status_args *a, bool wait)
{
	int i;
	double d;

	memset(a, 0, sizeof(*a));
	a->o.ctx = sb_cli_ctx();
	a->o.settle_s = 10;
	a->o.record_outcomes = true;
	a->interval_s = 30;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--json") && !wait) {
			a->json = true;
		} else if (!strcmp(s, "--offline") && !wait) {
			a->o.offline = true;
		} else if (!strcmp(s, "--rehash") && !wait) {
			a->o.rehash = true;
		} else if (!strcmp(s, "--settle")) {
			if (parse_seconds(cmd, s, i + 1 < argc ? argv[++i] : NULL, &d) < 0)
				return -1;
			a->o.settle_s = (int64_t)ceil(d); /* whole seconds, never less than asked */
		} else if (!strcmp(s, "--timeout") && wait) {
			if (parse_seconds(cmd, s, i + 1 < argc ? argv[++i] : NULL, &a->timeout_s) < 0)
				return -1;
		} else if (!strcmp(s, "--interval") && wait) {
			if (parse_seconds(cmd, s, i + 1 < argc ? argv[++i] : NULL, &a->interval_s) < 0)
				return -1;
		} else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			return 1;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "sbctl %s: unknown option '%s'\n", cmd, s);
			return -1;
		} else if (a->bench == NULL) {
			a->bench = s;
		} else {
			fprintf(stderr, "sbctl %s: more than one BENCH given\n", cmd);
			return -1;
		}
	}
	if (a->bench == NULL) {
		fprintf(stderr, "sbctl %s: missing BENCH (a benchmark directory, name or digest prefix)\n", cmd);
		return -1;
	}
	return 0;
}

static void json_nullable_int(struct sb_json *j, int v)
{
	if (v < 0)
		sb_json_null(j);
	else
		sb_json_int(j, v);
}

void sb_status_json_head(struct sb_json *j, const struct sb_status *st)
{
	sb_json_obj_begin(j);
	sb_json_key(j, "format");
	sb_json_int(j, 1);
	sb_json_key(j, "benchmark");
	sb_status_json_benchmark(j, st->bench);
	sb_json_key(j, "scheduler");
	sb_json_str(j, st->consulted ? "consulted" : "offline");
}

void sb_status_json_counts(struct sb_json *j, const size_t *counts)
{
	size_t k;

	sb_json_obj_begin(j);
	for (k = 0; k < SB_CLASS_COUNT; k++) {
		sb_json_key(j, sb_class_name((enum sb_class)k));
		sb_json_uint(j, counts[k]);
	}
	sb_json_obj_end(j);
}

void sb_status_json_benchmark(struct sb_json *j, const struct sb_bench *b)
{
	sb_json_obj_begin(j);
	sb_json_key(j, "name");
	sb_json_str(j, b->name);
	sb_json_key(j, "tag");
	sb_json_str(j, b->tag);
	sb_json_key(j, "digest");
	sb_json_str(j, b->digest);
	sb_json_key(j, "dir");
	sb_json_str(j, b->dir);
	sb_json_key(j, "children");
	sb_json_uint(j, b->children);
	sb_json_obj_end(j);
}

static int print_json(FILE *out, const struct sb_status *st, struct sb_error *err)
{
	const struct sb_spec *spec = st->bench->spec;
	struct sb_child *pc = sb_child_create();
	struct sb_json j;
	size_t c, k;

	if (pc == NULL)
		return sb_errorf(err, "out of memory");
	sb_json_init(&j, out);
	sb_status_json_head(&j, st);
	sb_json_key(&j, "counts");
	sb_status_json_counts(&j, st->counts);
	sb_json_key(&j, "children");
	sb_json_arr_begin(&j);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;
		char state[64];
		bool over;

		if (sb_plan_child_params(st->bench->plan, c, pc, err) < 0) {
			sb_child_destroy(pc);
			return -1;
		}
		sb_json_obj_begin(&j);
		sb_json_key(&j, "index");
		sb_json_uint(&j, c);
		sb_json_key(&j, "digest");
		sb_json_str(&j, sb_child_digest_hex(pc));
		sb_json_key(&j, "params");
		sb_json_obj_begin(&j);
		for (k = 0; k < sb_child_param_count(pc); k++) {
			sb_json_key(&j, sb_spec_param_name(spec, k));
			sb_json_spec_value(&j, sb_child_param(pc, k));
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "repeat");
		sb_json_int(&j, sb_child_repeat(pc));
		sb_json_key(&j, "class");
		sb_json_str(&j, sb_class_name(ch->cls));
		sb_json_key(&j, "reason");
		if (ch->cls == SB_CLASS_SUCCEEDED && (!ch->reason || !ch->reason[0]))
			sb_json_null(&j);
		else
			sb_json_str(&j, ch->reason);
		sb_json_key(&j, "attempt");
		if (a)
			sb_json_int(&j, a->attempt);
		else
			sb_json_null(&j);
		sb_json_key(&j, "job_id");
		sb_json_str(&j, a && a->job_id[0] ? a->job_id : NULL);
		sb_json_key(&j, "scheduler_state");
		sb_json_str(&j, a ? sb_status_sched_state(a, state, sizeof(state)) : NULL);
		sb_json_key(&j, "exit_code");
		/* the scheduler's ExitCode only once the job is over (sacct
		 * prints 0:0 while it runs) */
		over = a && a->sched.has_row && sb_sched_state_terminal(a->sched.row.state);
		json_nullable_int(&j, a && a->log.has_finish ? a->log.exit_code
				  : over ? a->sched.row.exit_code : -1);
		sb_json_key(&j, "signal");
		if (a && a->log.has_finish)
			json_nullable_int(&j, a->log.signal > 0 ? a->log.signal : -1);
		else
			json_nullable_int(&j, over && a->sched.row.exit_signal > 0
					  ? a->sched.row.exit_signal : -1);
		sb_json_key(&j, "log");
		sb_json_str(&j, a && a->log_rel ? a->log_rel : NULL);
		sb_json_key(&j, "attempts");
		sb_json_arr_begin(&j);
		for (k = 0; k < ch->nattempts; k++) {
			const struct sb_attempt_status *x = &ch->attempts[k];
			sb_json_obj_begin(&j);
			sb_json_key(&j, "attempt");
			sb_json_int(&j, x->attempt);
			sb_json_key(&j, "job_id");
			sb_json_str(&j, x->job_id[0] ? x->job_id : NULL);
			sb_json_key(&j, "class");
			sb_json_str(&j, sb_class_name(x->verdict.cls));
			sb_json_key(&j, "reason");
			if (x->verdict.reason[0])
				sb_json_str(&j, x->verdict.reason);
			else
				sb_json_null(&j);
			sb_json_obj_end(&j);
		}
		sb_json_arr_end(&j);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
	sb_child_destroy(pc);
	return 0;
}

/* The last n lines of a file, indented, for the reason of a failure. */
static void print_tail(FILE *out, const char *path, int n)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	long size;
	size_t got, i;
	int lines = 0;

	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	while (got > 0 && buf[got - 1] == '\n')
		buf[--got] = '\0';
	for (i = got; i > 0; i--)
		if (buf[i - 1] == '\n' && ++lines == n)
			break;
	if (got == 0)
		return;
	for (char *line = strtok(buf + i, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(out, "      | %.200s\n", line);
}

static void print_human(FILE *out, const struct sb_status *st)
{
	const struct sb_bench *b = st->bench;
	size_t c, k, bad = 0;

	fprintf(out, "%s (%.12s): %zu children, scheduler %s\n", b->name, b->digest, st->n,
		st->consulted ? "consulted" : "not consulted (--offline)");
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, "  %-13s %zu\n", sb_class_name((enum sb_class)k), st->counts[k]);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;

		if (ch->cls == SB_CLASS_SUCCEEDED)
			continue;
		if (bad++ == 0)
			fputs("\nchildren that did not succeed:\n", out);
		fprintf(out, "  %-6zu %-12s %-10s %s\n", c, sb_class_name(ch->cls),
			a && a->job_id[0] ? a->job_id : "-", ch->reason);
		if (a && a->array_job[0] && (ch->cls == SB_CLASS_FAILED || ch->cls == SB_CLASS_KILLED ||
					     ch->cls == SB_CLASS_INCOMPLETE)) {
			char *err_path;
			if (asprintf(&err_path, "%s/runs/%zu/slurm-%s_%" PRId64 ".err", b->dir, c,
				     a->array_job, a->task) >= 0) {
				print_tail(out, err_path, 3);
				free(err_path);
			}
			fprintf(out, "      output: %s/runs/%zu/slurm-%s_%" PRId64 ".{out,err}\n", b->dir, c,
				a->array_job, a->task);
		}
	}
	if (st->outcomes_recorded)
		fprintf(out, "\n(recorded the scheduler's final state of %zu children in submissions/)\n",
			st->outcomes_recorded);
}

static int status_once(const struct status_args *a, struct sb_status *st, struct sb_error *err)
{
	return sb_status_run(a->bench, &a->o, st, err);
}

void sb_status_print_warnings(FILE *out, const char *cmd, const struct sb_status *st)
{
	size_t i;

	for (i = 0; i < st->ndups; i++)
		fprintf(out, "sbctl %s: warning: chunk %" PRId64 " of attempt %" PRId64 " was submitted "
			"more than once (arrays %s); its children are classified by array %s\n", cmd,
			st->dups[i].chunk, st->dups[i].attempt, st->dups[i].job_ids, st->dups[i].chosen);
	if (st->outcome_error)
		fprintf(out, "sbctl %s: warning: the scheduler's final states could not be recorded "
			"in submissions/ (%s); the classification is complete, a later status records "
			"them\n", cmd, st->outcome_error);
}

/* BENCH is a directory whose benchmark record a running submit is still
 * writing (it holds the directory's lock). */
static bool being_created(const char *bench)
{
	struct stat sb;

	return stat(bench, &sb) == 0 && S_ISDIR(sb.st_mode) && sb_status_submit_running(bench) == 1;
}

static int all_succeeded(const struct sb_status *st)
{
	return st->counts[SB_CLASS_SUCCEEDED] == st->n;
}

int cmd_status(int argc, char **argv)
{
	struct status_args a;
	struct sb_status st;
	struct sb_error err;
	int rc = parse_args("status", argc, argv, &a, false);

	if (rc != 0) {
		fputs("usage: sbctl status BENCH [--json] [--offline] [--settle SECONDS] [--rehash]\n",
		      rc > 0 ? stdout : stderr);
		return rc > 0 ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (isatty(STDERR_FILENO) && !a.json)
		a.o.progress = stderr;
	rc = status_once(&a, &st, &err);
	if (rc < 0) {
		fprintf(stderr, "sbctl status: %s%s\n", err.msg,
			st.sched_failed ? " (use --offline to classify from the logs alone)" : "");
		sb_status_release(&st);
		return rc == -2 ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
	}
	sb_status_print_warnings(stderr, "status", &st);
	if (a.json)
		rc = print_json(stdout, &st, &err);
	else
		print_human(stdout, &st);
	if (rc < 0)
		fprintf(stderr, "sbctl status: %s\n", err.msg);
	rc = rc < 0 || fflush(stdout) != 0 ? SB_EXIT_RUNTIME : all_succeeded(&st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	sb_status_release(&st);
	return rc;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Sleeps until the next poll; false when the timeout has passed. */
static bool next_poll(const struct status_args *a, const struct timespec *t0)
{
	double elapsed = elapsed_s(t0), pause = a->interval_s;

	if (a->timeout_s > 0 && elapsed >= a->timeout_s)
		return false;
	if (a->timeout_s > 0 && elapsed + pause > a->timeout_s)
		pause = a->timeout_s - elapsed;
	usleep((useconds_t)(pause * 1e6));
	return true;
}

/* The seconds wait will pause before it tries again (for its messages). */
static double retry_in(const struct status_args *a, const struct timespec *t0)
{
	double left = a->timeout_s - elapsed_s(t0);

	return a->timeout_s > 0 && left < a->interval_s ? (left > 0 ? left : 0) : a->interval_s;
}

int cmd_wait(int argc, char **argv)
{
	struct status_args a;
	struct timespec t0;
	int rc = parse_args("wait", argc, argv, &a, true);

	if (rc != 0) {
		fputs("usage: sbctl wait BENCH [--timeout SECONDS] [--interval SECONDS] [--settle SECONDS]\n",
		      rc > 0 ? stdout : stderr);
		return rc > 0 ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct sb_status st;
		struct sb_error err;

		if (a.timeout_s > 0) { /* a hung sacct does not outlast --timeout */
			double left_ms = (a.timeout_s - elapsed_s(&t0)) * 1000;
			a.o.sched_timeout_ms = left_ms > 120000 ? 120000 : left_ms < 1000 ? 1000 : (int)left_ms;
		}
		rc = status_once(&a, &st, &err);
		if (rc < 0 && (st.sched_failed || (rc == -2 && being_created(a.bench)))) {
			/* slurmdbd down, sacct timed out, a submit still creating the
			 * benchmark: none of them is a verdict, keep waiting */
			if (isatty(STDERR_FILENO))
				fputc('\n', stderr);
			double in = retry_in(&a, &t0);
			fprintf(stderr, "sbctl wait: %s; retrying in %.*f s\n", st.sched_failed ? err.msg :
				"the benchmark directory is being created by a submit", in < 10 ? 1 : 0, in);
			sb_status_release(&st);
		} else if (rc < 0) {
			fprintf(stderr, "sbctl wait: %s\n", err.msg);
			sb_status_release(&st);
			return rc == -2 ? SB_EXIT_USAGE : SB_EXIT_RUNTIME;
		} else if (st.counts[SB_CLASS_PENDING] + st.counts[SB_CLASS_RUNNING] == 0) {
			/* no verdict the settle time could still change: those are
			 * pending or running until they are settled */
			sb_status_print_warnings(stderr, "wait", &st);
			print_human(stdout, &st);
			rc = all_succeeded(&st) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
			sb_status_release(&st);
			return rc;
		} else {
			if (isatty(STDERR_FILENO))
				fprintf(stderr, "\rwaiting: %zu pending, %zu running (%.0f s)\033[K",
					st.counts[SB_CLASS_PENDING], st.counts[SB_CLASS_RUNNING], elapsed_s(&t0));
			sb_status_release(&st);
		}
		if (!next_poll(&a, &t0)) {
			if (isatty(STDERR_FILENO))
				fputc('\n', stderr);
			fprintf(stderr, "sbctl wait: timed out after %.0f s with children still pending "
				"or running, or no answer from the scheduler\n", a.timeout_s);
			return SB_EXIT_RUNTIME;
		}
	}
}
