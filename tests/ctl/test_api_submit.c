/* The public submit API (<sbench/submit.h>) called directly, against a stub
 * scheduler on PATH: a dry run and a submit render to the bytes sbctl
 * prints, nothing is printed by the library and its warnings reach the
 * context's callback, cancel records what it cancelled, and each failure
 * carries its error code. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sbench/context.h"
#include "sbench/submit.h"

extern char **environ;

static char tmp[] = "/tmp/sb-test-api-submit-XXXXXX";
static struct sb_ctx *ctx;

struct warnings {
	size_t calls;
	char last[1024];
};
static struct warnings warned;

static void on_warn(void *user, const char *msg)
{
	struct warnings *w = user;

	w->calls++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmp, name);
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	path_of(path, sizeof(path), name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* The whole content of a file, malloc'd ("" when it does not exist). */
static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len), *f = fopen(path, "r");
	int c;

	assert_non_null(m);
	while (f && (c = fgetc(f)) != EOF)
		fputc(c, m);
	if (f)
		fclose(f);
	fclose(m);
	return text;
}

/* Runs `sbctl ARGS` (from the build) with this process's environment; its
 * stdout in *out (malloc'd) and its exit status. */
static int sbctl(const char *args, char **out)
{
	const char *bin = getenv("SB_BIN");
	char cmd[2048], outp[512];
	int rc;

	assert_non_null(bin);
	path_of(outp, sizeof(outp), "cli.out");
	snprintf(cmd, sizeof(cmd), "'%s/sbctl' %s > '%s' 2> /dev/null", bin, args, outp);
	rc = system(cmd);
	*out = slurp(outp);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int setup(void **state)
{
	char buf[1024];

	(void)state;
	if (mkdtemp(tmp) == NULL)
		return -1;
	path_of(buf, sizeof(buf), "bin");
	mkdir(buf, 0755);
	/* sbatch prints job ids 100, 101, ... unless tmp/refuse exists; squeue
	 * lists the jobs of tmp/active when asked about job ids; the lookups by
	 * name find nothing; scontrol fails, so MaxArraySize is assumed (a
	 * warning); scancel records its arguments */
	snprintf(buf, sizeof(buf),
		 "#!/bin/sh\nd=%s\n"
		 "if [ -e $d/refuse ]; then echo 'sbatch: error: QOSMaxSubmitJobPerUserLimit' >&2; exit 1; fi\n"
		 "n=$(cat $d/next 2>/dev/null || echo 100); echo $((n + 1)) > $d/next; echo $n\n", tmp);
	write_file("bin/sbatch", buf, 0755);
	snprintf(buf, sizeof(buf), "#!/bin/sh\ncase \"$*\" in *' -j '*) cat %s/active 2>/dev/null;; esac\n"
		 "exit 0\n", tmp);
	write_file("bin/squeue", buf, 0755);
	write_file("bin/sacct", "#!/bin/sh\nexit 0\n", 0755);
	write_file("bin/scontrol", "#!/bin/sh\nexit 1\n", 0755);
	snprintf(buf, sizeof(buf), "#!/bin/sh\necho \"$*\" >> %s/scancel.args\n", tmp);
	write_file("bin/scancel", buf, 0755);
	write_file("spec.yaml", "name: t\ncommand: [echo, '{x}']\nparameters:\n  x: [1, 2]\n", 0644);
	write_file("other.yaml", "name: other\ncommand: [echo, '{x}']\nparameters:\n  x: [1, 2, 3]\n", 0644);
	write_file("bad.yaml", "name: t\ncommand: [true]\nparamters: {x: [1]}\n", 0644);

	/* the environment the library is given, and sbctl reads: the same */
	path_of(buf, sizeof(buf), "bin");
	setenv("PATH", strcat(buf, ":/usr/bin:/bin"), 1);
	path_of(buf, sizeof(buf), "runs");
	setenv("SB_ROOT", buf, 1);
	path_of(buf, sizeof(buf), "index.sqlite");
	setenv("SB_INDEX", buf, 1);
	setenv("SB_AGENT", "/opt/sbench/bin/sbagent", 1);
	setenv("SB_LOOKUP_WINDOW", "0", 1);
	if ((ctx = sb_ctx_create(NULL)) == NULL || sb_ctx_load_env(ctx, environ, NULL) < 0)
		return -1;
	sb_ctx_set_warn(ctx, on_warn, &warned);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	sb_ctx_destroy(ctx);
	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'; rm -rf '%s'", tmp, tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_dry_run_renders_the_cli_bytes(void **state)
{
	struct sb_submit_opts o = { .dry_run = true };
	struct sb_submit_result *res = NULL;
	struct sb_error err = { 0 };
	char spec[512], args[1024], runs[512], *buf, *cli;
	size_t len;

	(void)state;
	path_of(spec, sizeof(spec), "spec.yaml");
	assert_int_equal(sb_submit(ctx, spec, &o, &res, &err), 0);
	assert_true(sb_submit_result_dry_run(res));
	assert_int_equal(sb_submit_result_job_count(res), 0);
	assert_int_equal(sb_submit_result_chunk_count(res), 1);
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_TEXT, &buf, &len, &err), 0);
	assert_int_equal(len, strlen(buf));
	assert_non_null(strstr(buf, "exec '/opt/sbench/bin/sbagent' --\n")); /* the context's agent */
	snprintf(args, sizeof(args), "submit '%s' --dry-run", spec);
	assert_int_equal(sbctl(args, &cli), 0);
	assert_string_equal(buf, cli);
	path_of(runs, sizeof(runs), "runs");
	assert_int_equal(access(runs, F_OK), -1); /* nothing created */
	free(buf);
	free(cli);
	/* JSON of a dry run: the document, without jobs */
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_JSON, &buf, NULL, &err), 0);
	assert_non_null(strstr(buf, "\"already_submitted\":false,\"reused\":0,\"differences\":[],\"jobs\":[],\"chunks\":1"));
	free(buf);
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_CSV, &buf, NULL, &err), -1);
	assert_null(buf);
	assert_int_equal(err.code, SB_ERR_INPUT);
	sb_submit_result_destroy(res);
}

static void test_submit_prints_nothing_and_warns_through_the_context(void **state)
{
	struct sb_submit_result *res = NULL, *again = NULL;
	struct sb_error err = { 0 };
	char spec[512], args[1024], quiet[512], expect[2048], streamed[2048], *buf, *cli, *printed;
	const size_t *children;
	size_t n;
	int out_fd, err_fd, fd;
	FILE *f;

	(void)state;
	path_of(spec, sizeof(spec), "spec.yaml");
	path_of(quiet, sizeof(quiet), "quiet.out");
	warned.calls = 0;
	fflush(stdout);
	fflush(stderr);
	out_fd = dup(1);
	err_fd = dup(2);
	fd = open(quiet, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(out_fd >= 0 && err_fd >= 0 && fd >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	int rc = sb_submit(ctx, spec, NULL, &res, &err);
	fflush(stdout);
	fflush(stderr);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	close(fd);
	close(out_fd);
	close(err_fd);
	assert_int_equal(rc, 0);
	printed = slurp(quiet);
	assert_string_equal(printed, "");   /* the library printed nothing */
	free(printed);
	assert_int_equal(warned.calls, 1);  /* scontrol failed: said to the callback */
	assert_non_null(strstr(warned.last, "warning: 'scontrol show config' failed"));

	assert_string_equal(sb_submit_result_name(res), "t");
	assert_int_equal(strlen(sb_submit_result_digest(res)), 64);
	assert_false(sb_submit_result_already_submitted(res));
	assert_int_equal(sb_submit_result_interrupted(res), 0);
	assert_int_equal(sb_submit_result_job_count(res), 1);
	assert_string_equal(sb_submit_result_job_id(res, 0), "100");
	assert_string_equal(sb_submit_result_job_array(res, 0), "0-1");
	assert_int_equal(sb_submit_result_job_attempt(res, 0), 0);
	assert_int_equal(sb_submit_result_job_chunk(res, 0), 0);
	assert_true(sb_submit_result_job_submitted_now(res, 0));
	assert_false(sb_submit_result_job_recovered(res, 0));
	children = sb_submit_result_job_children(res, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(children[0], 0);
	assert_int_equal(children[1], 1);
	assert_int_equal(sb_submit_result_duplicate_count(res), 0);
	snprintf(expect, sizeof(expect), "submitted t (%.12s): 1 job array\n"
		 "  job 100        array 0-1          children 0-1\ndirectory %s\n",
		 sb_submit_result_digest(res), sb_submit_result_dir(res));
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_TEXT, &buf, NULL, &err), 0);
	assert_string_equal(buf, expect);
	free(buf);
	/* the same bytes to a stream */
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(sb_submit_render(res, SB_FORMAT_TEXT, f, &err), 0);
	rewind(f);
	n = fread(streamed, 1, sizeof(streamed) - 1, f);
	streamed[n] = '\0';
	assert_string_equal(streamed, expect);
	fclose(f);

	/* again: already submitted, as sbctl says it (text and JSON) */
	assert_int_equal(sb_submit(ctx, spec, NULL, &again, &err), 0);
	assert_true(sb_submit_result_already_submitted(again));
	assert_false(sb_submit_result_job_submitted_now(again, 0));
	snprintf(args, sizeof(args), "submit '%s'", spec);
	assert_int_equal(sbctl(args, &cli), 0);
	assert_int_equal(sb_submit_render_buffer(again, SB_FORMAT_TEXT, &buf, NULL, &err), 0);
	assert_string_equal(buf, cli);
	free(buf);
	free(cli);
	snprintf(args, sizeof(args), "submit '%s' --json", spec);
	assert_int_equal(sbctl(args, &cli), 0);
	assert_int_equal(sb_submit_render_buffer(again, SB_FORMAT_JSON, &buf, NULL, &err), 0);
	assert_string_equal(buf, cli);
	assert_non_null(strstr(buf, "\"jobs\":[{\"job_id\":\"100\",\"array\":\"0-1\""));
	free(buf);
	free(cli);
	sb_submit_result_destroy(again);
	sb_submit_result_destroy(res);
}

static void test_cancel_records_what_it_cancelled(void **state)
{
	struct sb_submit_result *res = NULL, *sub = NULL;
	struct sb_error err = { 0 };
	char spec[512], args[1024], path[512], *buf, *cli;

	(void)state;
	path_of(spec, sizeof(spec), "spec.yaml");
	assert_int_equal(sb_submit(ctx, spec, NULL, &sub, &err), 0); /* job 100, from before */
	write_file("active", "100\n", 0644);
	assert_int_equal(sb_cancel(ctx, sb_submit_result_dir(sub), &res, &err), 0);
	assert_int_equal(sb_submit_result_job_count(res), 1);
	assert_string_equal(sb_submit_result_job_id(res, 0), "100");
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_TEXT, &buf, NULL, &err), 0);
	assert_string_equal(buf, "cancelled job 100 (attempt 0, chunk 0)\n");
	free(buf);
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_JSON, &buf, NULL, &err), 0);
	assert_non_null(strstr(buf, "\"cancelled\":[{\"job_id\":\"100\",\"attempt\":0,\"chunk\":0}]}\n"));
	free(buf);
	path_of(path, sizeof(path), "scancel.args");
	buf = slurp(path);
	assert_string_equal(buf, "100\n");
	free(buf);
	sb_submit_result_destroy(res);

	/* nothing active any more: the library and sbctl agree */
	write_file("active", "", 0644);
	assert_int_equal(sb_cancel(ctx, sb_submit_result_dir(sub), &res, &err), 0);
	assert_int_equal(sb_submit_result_job_count(res), 0);
	snprintf(args, sizeof(args), "cancel '%s'", sb_submit_result_dir(sub));
	assert_int_equal(sbctl(args, &cli), 0);
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_TEXT, &buf, NULL, &err), 0);
	assert_string_equal(buf, cli);
	assert_non_null(strstr(buf, "nothing to cancel: no job of t is pending or running"));
	free(buf);
	free(cli);
	snprintf(args, sizeof(args), "cancel '%s' --json", sb_submit_result_dir(sub));
	assert_int_equal(sbctl(args, &cli), 0);
	assert_int_equal(sb_submit_render_buffer(res, SB_FORMAT_JSON, &buf, NULL, &err), 0);
	assert_string_equal(buf, cli);
	free(buf);
	free(cli);
	sb_submit_result_destroy(res);
	sb_submit_result_destroy(sub);
}

static void test_error_codes(void **state)
{
	struct sb_submit_result *res = (struct sb_submit_result *)1;
	struct sb_error err = { 0 };
	struct sb_ctx *bare;
	char spec[512], path[512], dir[1024];

	(void)state;
	/* a bad spec, a missing one */
	path_of(spec, sizeof(spec), "bad.yaml");
	assert_int_equal(sb_submit(ctx, spec, NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(res);
	path_of(spec, sizeof(spec), "missing.yaml");
	assert_int_equal(sb_submit(ctx, spec, NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_null(res);

	/* no sbagent on the context */
	path_of(spec, sizeof(spec), "other.yaml");
	bare = sb_ctx_create(NULL);
	assert_non_null(bare);
	assert_int_equal(sb_submit(bare, spec, NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_RUNTIME);
	assert_non_null(strstr(err.msg, "no sbagent"));
	sb_ctx_destroy(bare);

	/* sbatch refuses: a runtime error, and the result says 0 of 1 */
	write_file("refuse", "", 0644);
	memset(&err, 0, sizeof(err));
	assert_int_equal(sb_submit(ctx, spec, NULL, &res, &err), -1);
	unlink(strcat(strcpy(path, tmp), "/refuse"));
	assert_int_equal(err.code, SB_ERR_RUNTIME);
	assert_non_null(strstr(err.msg, "QOSMaxSubmitJobPerUserLimit"));
	assert_non_null(res);
	assert_int_equal(sb_submit_result_job_count(res), 0);
	assert_int_equal(sb_submit_result_chunk_count(res), 1);
	snprintf(dir, sizeof(dir), "%s", sb_submit_result_dir(res));
	sb_submit_result_destroy(res);

	/* a benchmark directory writable by others is refused: an input error */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(sb_submit(ctx, spec, NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	sb_submit_result_destroy(res);
	assert_int_equal(sb_cancel(ctx, dir, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(res);
	assert_int_equal(chmod(dir, 0755), 0);

	/* rerun: classes are checked first; a benchmark that is not there */
	assert_int_equal(sb_rerun(ctx, dir, "failed,bogus", NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_string_equal(err.msg, "'bogus' is not a class");
	assert_null(res);
	assert_int_equal(sb_rerun(ctx, dir, "succeeded", NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "cannot be rerun"));
	assert_int_equal(sb_rerun(ctx, dir, ",", NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_int_equal(sb_rerun(ctx, "no-such-benchmark", "failed", NULL, &res, &err), -1);
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_null(res);
	assert_int_equal(sb_cancel(ctx, "no-such-benchmark", &res, NULL), -1);
	assert_null(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dry_run_renders_the_cli_bytes),
		cmocka_unit_test(test_submit_prints_nothing_and_warns_through_the_context),
		cmocka_unit_test(test_cancel_records_what_it_cancelled),
		cmocka_unit_test(test_error_codes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
