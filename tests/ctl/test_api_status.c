/* The public status, wait, analyze, index and output API (include/sbench/
 * status.h, analyze.h, index.h, bench.h), called directly through the
 * shared library libsbench.so (only what it exports links), on benchmarks
 * that tests/ctl/test_api_status.sh made on the fake Slurm:
 *   SB_API_BENCH  a finished benchmark: child 0 exit 0, child 1 exit 3
 *   SB_API_BUSY   a benchmark whose only child sleeps (still running)
 *   SB_API_TAMPERED  a copy of SB_API_BENCH whose record names another digest
 *   SB_API_OUT    a directory holding what sbctl printed for SB_API_BENCH:
 *                 status.txt, status.json, status-offline.json,
 *                 analyze.txt, analyze.json, analyze.csv, list.txt,
 *                 list.json
 *   SB_API_CHILDREN  (optional) a file to write each child of SB_API_BENCH's
 *                 status into, rendered alone, one per line
 * It checks the counts, the accessors, that every renderer gives the bytes
 * of the CLI (the status's JSON also put together from its top and each
 * child rendered alone), the error codes, and that the library prints
 * nothing (its stderr goes to a file that must stay empty; the driver
 * checks stdout). */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <sbench/sbench.h>

extern char **environ;

static struct sb_ctx *ctx;
static struct sb_bench *bench;
static int saved_err = -1;
static char quiet_err[] = "/tmp/sb-api-err-XXXXXX";
static size_t warnings;

static void on_warn(void *user, const char *msg)
{
	(void)user;
	(void)msg;
	warnings++;
}

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", getenv("SB_API_OUT"), name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* buf (len bytes) equals what sbctl printed into name */
static void assert_cli_bytes(const char *name, const char *buf, size_t len)
{
	size_t want_len;
	char *want = slurp(name, &want_len);

	if (len != want_len || memcmp(buf, want, len) != 0)
		fail_msg("%s: the library rendered\n%s\nsbctl printed\n%s", name, buf, want);
	free(want);
}

/* sb_status_render_top and sb_status_render_child of every child, put
 * together as the header says, are the bytes sbctl printed into name (the
 * whole document); a child out of range is refused.  The children are
 * also written one per line to the file lines, when not NULL, for the
 * driver to compare with jq. */
static void assert_pieces_cli_bytes(const struct sb_status *st, const char *name,
				    const char *lines)
{
	struct sb_error err = { 0 };
	char *doc = NULL, *top, *one;
	size_t dlen = 0, tlen, olen, c;
	FILE *f = open_memstream(&doc, &dlen), *fl = lines ? fopen(lines, "w") : NULL;

	assert_non_null(f);
	assert_true(lines == NULL || fl != NULL);
	assert_int_equal(sb_status_render_top(st, &top, &tlen, &err), 0);
	assert_int_equal(strlen(top), tlen);
	assert_true(tlen > 2 && strcmp(top + tlen - 2, "}\n") == 0);
	assert_null(strstr(top, "\"children\":["));
	fwrite(top, 1, tlen - 2, f);
	fputs(",\"children\":[", f);
	for (c = 0; c < sb_status_children(st); c++) {
		assert_int_equal(sb_status_render_child(st, c, &one, &olen, &err), 0);
		assert_int_equal(strlen(one), olen);
		assert_true(olen > 2 && one[0] == '{' && one[olen - 1] == '}');
		if (c > 0)
			fputc(',', f);
		fwrite(one, 1, olen, f);
		if (fl)
			fprintf(fl, "%s\n", one);
		sb_free(one);
	}
	fputs("]}\n", f);
	fclose(f);
	if (fl)
		assert_int_equal(fclose(fl), 0);
	assert_cli_bytes(name, doc, dlen);
	free(doc);
	sb_free(top);
	one = (char *)"x";
	assert_int_equal(sb_status_render_child(st, sb_status_children(st), &one, &olen, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(one);
	assert_int_equal(sb_status_render_child(st, 0, &one, NULL, NULL), 0);
	sb_free(one);
}

static int setup(void **state)
{
	struct sb_error err = { 0 };
	int fd;

	(void)state;
	if (getenv("SB_API_BENCH") == NULL || getenv("SB_API_OUT") == NULL ||
	    getenv("SB_API_BUSY") == NULL || getenv("SB_API_TAMPERED") == NULL) {
		fprintf(stderr, "run by tests/ctl/test_api_status.sh (SB_API_BENCH, SB_API_BUSY, "
			"SB_API_TAMPERED, SB_API_OUT)\n");
		return -1;
	}
	if ((ctx = sb_ctx_create(&err)) == NULL || sb_ctx_load_env(ctx, environ, &err) < 0 ||
	    (bench = sb_bench_find(ctx, getenv("SB_API_BENCH"), &err)) == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	sb_ctx_set_warn(ctx, on_warn, NULL);
	/* from here on, whatever the library would print on stderr lands in a
	 * file that must stay empty (cmocka reports on stdout, which
	 * test_api_status.sh checks holds nothing but cmocka's lines) */
	fflush(stderr);
	saved_err = dup(STDERR_FILENO);
	if ((fd = mkstemp(quiet_err)) < 0 || dup2(fd, STDERR_FILENO) < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	char buf[256];
	FILE *f = fopen(quiet_err, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	(void)state;
	if (f)
		fclose(f);
	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	unlink(quiet_err);
	sb_bench_destroy(bench);
	sb_ctx_destroy(ctx);
	if (n > 0) {
		buf[n] = '\0';
		fprintf(stderr, "the library printed on stderr: %s\n", buf);
		return -1;
	}
	return 0;
}

static void test_classes(void **state)
{
	assert_string_equal(sb_class_name(SB_CLASS_SUCCEEDED), "succeeded");
	assert_string_equal(sb_class_name(SB_CLASS_RUNNING), "running");
	assert_string_equal(sb_class_name(SB_CLASS_COUNT), "?");
	for (int k = 0; k < SB_CLASS_COUNT; k++) {
		enum sb_class c;
		assert_int_equal(sb_class_parse(sb_class_name((enum sb_class)k), &c), 0);
		assert_int_equal(c, k);
	}
	enum sb_class c = SB_CLASS_FAILED;
	assert_int_equal(sb_class_parse("succeded", &c), -1);
	assert_int_equal(c, SB_CLASS_FAILED);
	assert_string_equal(sb_error_code_name(SB_ERR_TIMEOUT), "timeout");
	assert_string_equal(sb_error_code_name(SB_ERR_SCHEDULER), "scheduler");
	(void)state;
}

static void test_status(void **state)
{
	struct sb_status_opts o = { 0 };
	struct sb_error err = { 0 };
	struct sb_status *st;
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(sb_status_compute(ctx, bench, &o, &st, &err), 0);
	assert_ptr_equal(sb_status_bench(st), bench);
	assert_true(sb_status_consulted(st));
	assert_int_equal(sb_status_children(st), 2);
	assert_int_equal(sb_status_count(st, SB_CLASS_SUCCEEDED), 1);
	assert_int_equal(sb_status_count(st, SB_CLASS_FAILED), 1);
	assert_int_equal(sb_status_count(st, SB_CLASS_COUNT), 0);
	assert_false(sb_status_all_succeeded(st));
	assert_false(sb_status_unsettled(st));
	assert_int_equal(sb_status_child_class(st, 0), SB_CLASS_SUCCEEDED);
	assert_null(sb_status_child_reason(st, 0));
	assert_int_equal(sb_status_child_class(st, 1), SB_CLASS_FAILED);
	assert_non_null(strstr(sb_status_child_reason(st, 1), "exit 3"));
	assert_int_equal(sb_status_child_attempt(st, 1), 0);
	assert_non_null(sb_status_child_job_id(st, 1));
	assert_non_null(strstr(sb_status_child_job_id(st, 1), "_1"));
	assert_int_equal(sb_status_child_class(st, 2), SB_CLASS_COUNT);
	assert_int_equal(sb_status_warning_count(st), 0);
	assert_null(sb_status_warning(st, 0));

	assert_int_equal(sb_status_render_buffer(st, SB_FORMAT_JSON, &buf, &len, &err), 0);
	assert_int_equal(strlen(buf), len);
	assert_cli_bytes("status.json", buf, len);
	sb_free(buf);
	assert_pieces_cli_bytes(st, "status.json", getenv("SB_API_CHILDREN"));
	assert_int_equal(sb_status_render_buffer(st, SB_FORMAT_TEXT, &buf, &len, &err), 0);
	assert_cli_bytes("status.txt", buf, len);
	sb_free(buf);
	/* the stream renderer writes the same bytes */
	{
		char *mem = NULL;
		size_t mlen = 0;
		FILE *f = open_memstream(&mem, &mlen);
		assert_int_equal(sb_status_render(st, SB_FORMAT_TEXT, f, &err), 0);
		fclose(f);
		assert_cli_bytes("status.txt", mem, mlen);
		free(mem);
	}
	buf = (char *)"x";
	assert_int_equal(sb_status_render_buffer(st, SB_FORMAT_CSV, &buf, &len, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(buf);
	sb_status_destroy(st);

	o.offline = true;
	assert_int_equal(sb_status_compute(ctx, bench, &o, &st, NULL), 0);
	assert_false(sb_status_consulted(st));
	assert_int_equal(sb_status_render_buffer(st, SB_FORMAT_JSON, &buf, &len, NULL), 0);
	assert_cli_bytes("status-offline.json", buf, len);
	sb_free(buf);
	assert_pieces_cli_bytes(st, "status-offline.json", NULL);
	sb_status_destroy(st);
	sb_status_destroy(NULL);
}

static void test_status_errors(void **state)
{
	struct sb_status_opts o = { .settle = -1 };
	struct sb_error err = { 0 };
	struct sb_status *st = (struct sb_status *)&err;

	(void)state;
	assert_int_equal(sb_status_compute(ctx, bench, &o, &st, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_null(st);
	/* no benchmark there */
	assert_null(sb_bench_find(ctx, "/nonexistent/bench", &err));
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_int_equal(sb_status_wait(ctx, "/nonexistent/bench", NULL, &st, &err), -1);
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_null(st);
}

static void test_wait(void **state)
{
	struct sb_status_opts o = { .timeout = 0.5, .interval = 0.1 };
	struct sb_error err = { 0 };
	struct sb_status *st;

	(void)state;
	/* a finished benchmark: at once */
	assert_int_equal(sb_status_wait(ctx, getenv("SB_API_BENCH"), &o, &st, &err), 0);
	assert_int_equal(sb_status_count(st, SB_CLASS_FAILED), 1);
	assert_string_equal(sb_bench_dir(sb_status_bench(st)), sb_bench_dir(bench));
	sb_status_destroy(st);
	/* one still running: a timeout, with its own code */
	assert_int_equal(sb_status_wait(ctx, getenv("SB_API_BUSY"), &o, &st, &err), -1);
	assert_int_equal(err.code, SB_ERR_TIMEOUT);
	assert_non_null(strstr(err.msg, "timed out after"));
	assert_null(st);
}

static void test_analyze(void **state)
{
	struct sb_analyze_opts ao = { 0 };
	struct sb_error err = { 0 };
	struct sb_metric_stats s;
	struct sb_analysis *an;
	struct sb_status *st;
	const char *bad[] = { "nope" };
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(sb_status_compute(ctx, bench, NULL, &st, &err), 0);
	assert_int_equal(sb_analyze(st, &ao, &an, &err), 0);
	assert_ptr_equal(sb_analysis_status(an), st);
	assert_int_equal(sb_analysis_group_count(an), 2);
	assert_int_equal(sb_analysis_group_succeeded(an, 0), 1);
	assert_int_equal(sb_analysis_group_class(an, 1, SB_CLASS_FAILED), 1);
	assert_int_equal(sb_analysis_metric_count(an), 1);
	assert_string_equal(sb_analysis_metric(an, 0), "score");
	assert_int_equal(sb_analysis_stats(an, 0, 0, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.mean == 7 && s.min == 7 && s.max == 7 && isnan(s.stddev));
	assert_int_equal(sb_analysis_stats(an, 1, 0, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(sb_analysis_stats(an, 2, 0, &s), -1);
	assert_int_equal(sb_analysis_render_buffer(an, SB_FORMAT_TEXT, &buf, &len, &err), 0);
	assert_cli_bytes("analyze.txt", buf, len);
	sb_free(buf);
	assert_int_equal(sb_analysis_render_buffer(an, SB_FORMAT_JSON, &buf, &len, &err), 0);
	assert_cli_bytes("analyze.json", buf, len);
	sb_free(buf);
	assert_int_equal(sb_analysis_render_buffer(an, SB_FORMAT_CSV, &buf, &len, &err), 0);
	assert_cli_bytes("analyze.csv", buf, len);
	sb_free(buf);
	assert_int_equal(sb_analysis_render_buffer(an, (enum sb_format)9, &buf, &len, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	sb_analysis_destroy(an);

	ao.group_by = bad;
	ao.ngroup_by = 1;
	assert_int_equal(sb_analyze(st, &ao, &an, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "'nope' is not a parameter"));
	assert_null(an);
	sb_status_destroy(st);

	/* the status inside: the same bytes */
	ao = (struct sb_analyze_opts){ 0 };
	assert_int_equal(sb_analyze_bench(ctx, bench, NULL, &ao, &an, &err), 0);
	assert_int_equal(sb_analysis_render_buffer(an, SB_FORMAT_JSON, &buf, &len, &err), 0);
	assert_cli_bytes("analyze.json", buf, len);
	sb_free(buf);
	sb_analysis_destroy(an);
}

/* The report, the status text with --class, the class lists, the ranking:
 * the library's bytes are sbctl's. */
static void test_report_and_views(void **state)
{
	struct sb_status_text_opts to = { 0 };
	struct sb_analyze_opts ao = { 0 };
	struct sb_error err = { 0 };
	struct sb_analysis *an;
	struct sb_status *st;
	const char *nosuch[] = { "scroe" };
	unsigned mask = 0;
	char *buf, *written = NULL, path[4200];
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(sb_class_mask_parse("failed,killed", &mask, &err), 0);
	assert_int_equal(mask, (1u << SB_CLASS_FAILED) | (1u << SB_CLASS_KILLED));
	assert_int_equal(sb_class_mask_parse("faild", &mask, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_string_equal(err.msg, "'faild' is not a class (did you mean 'failed'?)");
	assert_int_equal(sb_class_mask_parse(",", &mask, &err), -1);

	assert_int_equal(sb_status_compute(ctx, bench, NULL, &st, &err), 0);
	/* --class failed */
	to.classes = 1u << SB_CLASS_FAILED;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(sb_status_render_text(st, &to, f, &err), 0);
	fclose(f);
	assert_cli_bytes("status-failed.txt", buf, len);
	free(buf);
	/* NULL options: the default view, sb_status_render's text */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(sb_status_render_text(st, NULL, f, &err), 0);
	fclose(f);
	assert_cli_bytes("status.txt", buf, len);
	free(buf);

	/* a misspelt metric: an error, with a did-you-mean */
	ao.metrics = nosuch;
	ao.nmetrics = 1;
	assert_int_equal(sb_analyze(st, &ao, &an, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "'scroe'"));
	assert_non_null(strstr(err.msg, "(did you mean 'score'?)"));
	/* ranking: the group with the score first */
	ao = (struct sb_analyze_opts){ .sort = "score", .sort_desc = true };
	assert_int_equal(sb_analyze(st, &ao, &an, &err), 0);
	assert_int_equal(sb_analysis_group_succeeded(an, 0), 1);
	assert_int_equal(sb_analysis_warning_count(an), 0);
	assert_null(sb_analysis_warning(an, 0));
	sb_analysis_destroy(an);

	/* the report: the bytes sbctl report wrote, and the default path */
	assert_int_equal(sb_analyze(st, NULL, &an, &err), 0);
	assert_int_equal(sb_report_render_buffer(an, &buf, &len, &err), 0);
	assert_cli_bytes("report.html", buf, len);
	sb_free(buf);
	assert_int_equal(sb_report_write(an, NULL, &written, &err), 0);
	snprintf(path, sizeof(path), "%s/report.html", sb_bench_dir(bench));
	assert_string_equal(written, path);
	sb_free(written);
	assert_int_equal(sb_report_write(an, "/nonexistent/dir/r.html", &written, &err), -1);
	assert_null(written);
	assert_non_null(strstr(err.msg, "cannot write the report"));
	sb_analysis_destroy(an);
	sb_status_destroy(st);
}

static void test_index_and_output(void **state)
{
	struct sb_bench_list *l;
	struct sb_error err = { 0 };
	char *buf, *dir, **files;
	size_t len, n, i;
	int found = 0;

	(void)state;
	/* the index holds the counts of the last status, which the tests above
	 * computed again: what sbctl lists now is what the library must */
	if (getenv("SB_API_SBCTL")) {
		char cmd[8192];
		snprintf(cmd, sizeof(cmd), "'%s' list > '%s/list.txt' && '%s' list --json > '%s/list.json'",
			 getenv("SB_API_SBCTL"), getenv("SB_API_OUT"), getenv("SB_API_SBCTL"),
			 getenv("SB_API_OUT"));
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(sb_index_list(ctx, &l, &err), 0);
	assert_true(sb_bench_list_count(l) >= 2);
	for (i = 0; i < sb_bench_list_count(l); i++)
		found += !strcmp(sb_bench_list_dir(l, i), sb_bench_dir(bench)) &&
			 sb_bench_list_present(l, i) &&
			 !strcmp(sb_bench_list_digest(l, i), sb_bench_digest(bench));
	assert_int_equal(found, 1);
	assert_int_equal(sb_bench_list_render_buffer(l, SB_FORMAT_TEXT, &buf, &len, &err), 0);
	assert_cli_bytes("list.txt", buf, len);
	sb_free(buf);
	assert_int_equal(sb_bench_list_render_buffer(l, SB_FORMAT_JSON, &buf, &len, &err), 0);
	assert_cli_bytes("list.json", buf, len);
	sb_free(buf);
	sb_bench_list_destroy(l);

	assert_int_equal(sb_bench_output(bench, 1, &dir, &files, &n, &err), 0);
	assert_non_null(strstr(dir, "/runs/1"));
	assert_true(n >= 2);
	assert_null(files[n]);
	for (i = 0; i < n; i++) /* in the chunk's directory, not the run directory */
		assert_non_null(strstr(files[i], "/jobs/a0/c0/slurm-"));
	sb_free(files);
	sb_free(dir);
	assert_int_equal(sb_bench_output(bench, 2, NULL, &files, NULL, &err), -1);
	assert_int_equal(err.code, SB_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "has children 0 to 1, not 2"));
	assert_null(files);

	/* a rebuild from a directory that is not there changes nothing */
	{
		const char *dirs[] = { "/nonexistent/root" };
		assert_int_equal(sb_index_rebuild(ctx, dirs, 1, &l, &err), -1);
		assert_int_equal(err.code, SB_ERR_NOT_FOUND);
		assert_null(l);
	}
	assert_int_equal(warnings, 0);
}

/* A record whose spec plans to another digest is a broken benchmark, every
 * time it is asked (the second call once took the wrong plan it kept). */
static void test_broken_record(void **state)
{
	struct sb_error err = { 0 };
	struct sb_status *st;
	struct sb_bench *b;
	int i;

	(void)state;
	b = sb_bench_open(getenv("SB_API_TAMPERED"), &err);
	assert_non_null(b);
	for (i = 0; i < 2; i++) {
		err = (struct sb_error){ 0 };
		assert_int_equal(sb_status_compute(ctx, b, NULL, &st, &err), -1);
		assert_int_equal(err.code, SB_ERR_RUNTIME);
		assert_non_null(strstr(err.msg, "plans to digest"));
		assert_null(st);
	}
	sb_bench_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_status_errors),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_analyze),
		cmocka_unit_test(test_report_and_views),
		cmocka_unit_test(test_index_and_output),
		cmocka_unit_test(test_broken_record),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
