/* The logs stage of sb_status_gather on several threads gives what one
 * thread gives: a benchmark of 1,200 children whose logs and scheduler rows
 * make eight classes (succeeded, failed, killed, incomplete, inconsistent,
 * invalid, pending, running), its status rendered as JSON and
 * text with 1, 2, 3 and 7 threads (the context's number, SB_THREADS for
 * sbctl), sharing one local index, must be the same bytes.  And a log that cannot be read in a middle
 * range, with another one later, fails status with the error of the first in
 * child order, as one thread reports it. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/bench_private.h"
#include "base/canon.h"
#include "bench/jobs.h"
#include "base/proc.h"
#include "status/status_private.h"
#include "bench/subm.h"
#include "proto/benchdir.h"
#include "proto/util.h"
#include "sbench/context.h"
#include "sbench/log.h"
#include "sbench/plan.h"
#include "sbench/spec.h"
#include "tests/ctl/benchfix.h"

#define N 1200

static const char spec_text[] =
	"name: threads\n"
	"command: [true]\n"
	"repeats: 1200\n";

static char root[] = "/tmp/sbtest-status-threads-XXXXXX";
static struct sb_bench *bench;
static char *sacct_text, *squeue_text;

/* The fate of child c, by c mod 9. */
enum fate { FATE_OK, FATE_FAIL, FATE_KILL, FATE_NOFINISH, FATE_NOLOG, FATE_DISAGREE, FATE_TAMPER, FATE_PENDING, FATE_RUNNING };

/* The scheduler: squeue and sacct answer the texts made in setup. */
static int stub_run(void *arg, char *const argv[], const struct sb_proc_opts *o,
		    struct sb_proc_result *res, struct sb_error *err)
{
	const char *text = !strcmp(argv[0], "squeue") ? squeue_text :
			   !strcmp(argv[0], "sacct") ? sacct_text : "";

	(void)arg;
	(void)err;
	memset(res, 0, sizeof(*res));
	res->out = strdup("");
	res->err = strdup("");
	assert_non_null(res->out);
	assert_non_null(res->err);
	/* the answer as a process's comes: through the sink (what the
	 * sink makes of it is the caller's, as with sb_proc_run_opts) */
	o->out_sink(o->out_sink_arg, text, strlen(text));
	return 0;
}

/* Child c's log, run as job 100001 + c: a start record, then (exit_code >=
 * 0 or signal > 0) a finish. */
static void write_log(struct sb_key *key, int64_t c, int exit_code, int signal)
{
	char path[PATH_MAX], job[24];

	snprintf(job, sizeof(job), "%lld", (long long)(100001 + c));
	sb_test_write_log(bench, key, c, job, exit_code, signal, path);
	if (c % 9 == FATE_TAMPER) { /* one bit of its last byte flipped */
		FILE *f = fopen(path, "r+b");
		int ch;
		assert_non_null(f);
		assert_int_equal(fseek(f, -1, SEEK_END), 0);
		ch = fgetc(f);
		assert_int_equal(fseek(f, -1, SEEK_END), 0);
		fputc(ch ^ 1, f);
		assert_int_equal(fclose(f), 0);
	}
}

/* Appends a formatted line to *text (grown with realloc). */
static void add_line(char **text, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add_line(char **text, size_t *len, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	*text = realloc(*text, *len + (size_t)n + 1);
	assert_non_null(*text);
	memcpy(*text + *len, line, (size_t)n + 1);
	*len += (size_t)n;
}

static int setup(void **state)
{
	static const char *const acct[] = {
		[FATE_OK] = "COMPLETED|0:0", [FATE_FAIL] = "FAILED|3:0", [FATE_KILL] = "CANCELLED by 0|0:9",
		[FATE_NOFINISH] = "COMPLETED|0:0", [FATE_NOLOG] = "COMPLETED|0:0",
		[FATE_DISAGREE] = "FAILED|1:0", [FATE_TAMPER] = "COMPLETED|0:0",
	};
	struct sb_error err = { 0 };
	struct sb_key key;
	size_t *all = calloc(N, sizeof(*all)), c, sa_len = 0, sq_len = 0;
	char *dir = NULL;
	int existed = 0;

	(void)state;
	assert_non_null(all);
	setenv("PATH", "/nonexistent-sbench-test", 1); /* any spawn would fail */
	assert_non_null(mkdtemp(root));
	assert_int_equal(sb_test_bench_create(root, "threads.yaml", spec_text, 10000, 1, &dir,
					      &existed, NULL, &err), 0);
	bench = sb_bench_open(dir, &err);
	free(dir);
	assert_non_null(bench);
	assert_int_equal(sb_bench_plan(bench, &err), 0);
	for (c = 0; c < N; c++)
		all[c] = c;
	sb_test_submit_attempt0(bench, all, N, &key);
	free(all);
	squeue_text = strdup("");
	for (c = 0; c < N; c++) {
		enum fate f = (enum fate)(c % 9);
		if (f == FATE_PENDING || f == FATE_RUNNING) {
			add_line(&squeue_text, &sq_len, "1000_%zu|%zu|sb|%s|None\n", c, 100001 + c,
				 f == FATE_PENDING ? "PENDING" : "RUNNING");
			continue;
		}
		add_line(&sacct_text, &sa_len, "1000_%zu|%zu|sb|%s|2026-11-30T13:00:00|"
			 "2026-11-30T13:00:01|2026-11-30T13:00:05|node1\n", c, 100001 + c, acct[f]);
		if (f == FATE_NOLOG)
			continue;
		write_log(&key, (int64_t)c, f == FATE_FAIL ? 3 : f == FATE_KILL ? -1 : f == FATE_NOFINISH ? -1 : 0,
			  f == FATE_KILL ? 9 : 0);
	}
	sb_key_cleanse(&key);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sb_bench_destroy(bench);
	free(sacct_text);
	free(squeue_text);
	return sb_test_rmtree(root);
}

/* The status with `threads` threads (settle 0: every verdict is given);
 * -1 with err when it fails. */
static int compute(unsigned threads, struct sb_status *st, struct sb_error *err)
{
	struct sb_status_sched_ops ops = { stub_run, NULL };
	struct sb_ctx *ctx = sb_ctx_create(err);
	struct sb_status_cfg cfg = { .ctx = ctx, .settle_s = 0, .sched = &ops };
	int rc;

	char index[sizeof(root) + 16];

	assert_non_null(ctx);
	assert_int_equal(sb_ctx_set_threads(ctx, threads, err), 0);
	/* the local index the threads share: the first run records every
	 * verified head, the later ones look them up */
	snprintf(index, sizeof(index), "%s/index.sqlite", root);
	assert_int_equal(sb_ctx_set_index(ctx, index, err), 0);
	memset(st, 0, sizeof(*st));
	rc = sb_status_gather(bench, &cfg, st, err);
	sb_ctx_destroy(ctx);
	return rc;
}

/* The rendering of st, each "queue_s" of a pending child (the time since
 * its submission until now, which moves between two runs) blanked. */
static char *render(const struct sb_status *st, enum sb_format fmt)
{
	static const char key[] = "\"queue_s\":";
	struct sb_error err = { 0 };
	char *buf = NULL, *p;

	if (sb_status_render_buffer(st, fmt, &buf, NULL, &err) < 0)
		fail_msg("render: %s", err.msg);
	for (p = buf; (p = strstr(p, key)) != NULL;) {
		size_t n;
		p += strlen(key);
		n = strcspn(p, ",}");
		memmove(p + 1, p + n, strlen(p + n) + 1);
		*p++ = '#';
	}
	return buf;
}

/* Fails with where a and b first differ, when they do. */
static void same(const char *what, unsigned threads, const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	if (a[i] != b[i])
		fail_msg("%s with %u threads differs at byte %zu: ...%.80s... not ...%.80s...", what,
			 threads, i, b + (i > 40 ? i - 40 : 0), a + (i > 40 ? i - 40 : 0));
}

static void test_same_output(void **state)
{
	static const unsigned threads[] = { 2, 3, 7, 0 };
	struct sb_status st;
	struct sb_error err = { 0 };
	char *json1, *text1;
	size_t i, classes = 0;

	(void)state;
	if (compute(1, &st, &err) < 0)
		fail_msg("status, 1 thread: %s", err.msg);
	for (i = 0; i < SB_CLASS_COUNT; i++)
		classes += st.counts[i] > 0;
	assert_true(classes >= 8);
	assert_true(st.counts[SB_CLASS_SUCCEEDED] > 0 && st.counts[SB_CLASS_INVALID] > 0 &&
		    st.counts[SB_CLASS_KILLED] > 0 && st.counts[SB_CLASS_INCOMPLETE] > 0);
	json1 = render(&st, SB_FORMAT_JSON);
	text1 = render(&st, SB_FORMAT_TEXT);
	sb_status_release(&st);
	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		char *json, *text;
		if (compute(threads[i], &st, &err) < 0)
			fail_msg("status, %u threads: %s", threads[i], err.msg);
		json = render(&st, SB_FORMAT_JSON);
		text = render(&st, SB_FORMAT_TEXT);
		sb_status_release(&st);
		same("the JSON", threads[i], json1, json);
		same("the text", threads[i], text1, text);
		free(json);
		free(text);
	}
	free(json1);
	free(text1);
}

/* Child 702's log (in the middle of 1,200: the second range of 2 or 3, not
 * the first of 7) made a directory, and child 1,098's too: the error names
 * child 702's, whatever the number of threads. */
static void test_first_error(void **state)
{
	static const unsigned threads[] = { 1, 2, 3, 7 };
	char p700[PATH_MAX], p1100[PATH_MAX], aside[PATH_MAX + 8];
	struct sb_status st;
	size_t i;

	(void)state;
	assert_true(sb_bdir_log(p700, sizeof(p700), bench->dir, 702, 0, "100703", 0) > 0);
	assert_true(sb_bdir_log(p1100, sizeof(p1100), bench->dir, 1098, 0, "101099", 0) > 0);
	snprintf(aside, sizeof(aside), "%s.aside", p700);
	assert_int_equal(rename(p700, aside), 0);
	assert_int_equal(mkdir(p700, 0755), 0);
	assert_int_equal(unlink(p1100), 0);
	assert_int_equal(mkdir(p1100, 0755), 0);
	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		struct sb_error err = { 0 };
		char want[PATH_MAX + 64];
		snprintf(want, sizeof(want), "log '%s' is not a regular file", p700);
		assert_int_equal(compute(threads[i], &st, &err), -1);
		assert_string_equal(err.msg, want);
		assert_int_equal(err.code, SB_ERR_RUNTIME);
		sb_status_release(&st);
	}
	assert_int_equal(rmdir(p700), 0);
	assert_int_equal(rename(aside, p700), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_output),
		cmocka_unit_test(test_first_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
