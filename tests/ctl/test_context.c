/* The context: built-in defaults, defaults from a given environment (never
 * the process's own), validation, callbacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sbench/context.h"

static void test_defaults(void **state)
{
	struct sb_ctx *ctx = sb_ctx_create(NULL);

	(void)state;
	assert_non_null(ctx);
	assert_string_equal(sb_ctx_root(ctx), "./sbench-runs");
	assert_null(sb_ctx_agent(ctx));
	assert_null(sb_ctx_index(ctx));
	assert_true(sb_ctx_settle(ctx) == SB_CTX_SETTLE_DEFAULT);
	assert_true(sb_ctx_lookup_window(ctx) == SB_CTX_LOOKUP_WINDOW_DEFAULT);
	sb_ctx_destroy(ctx);
	sb_ctx_destroy(NULL);
}

static void test_env_as_sbctl_reads_it(void **state)
{
	char *env[] = { "HOME=/home/u", "SB_ROOT=/scratch/runs", "SB_AGENT=/opt/sb/bin/sbagent",
			"XDG_STATE_HOME=/state", NULL };
	char *env_home[] = { "HOME=/home/u", "XDG_STATE_HOME=relative", NULL };
	char *env_index[] = { "SB_INDEX=/tmp/i.sqlite", "XDG_STATE_HOME=/state", NULL };
	struct sb_ctx *ctx = sb_ctx_create(NULL);
	struct sb_error err = { 0 };

	(void)state;
	assert_int_equal(sb_ctx_load_env(ctx, env, &err), 0);
	assert_string_equal(sb_ctx_root(ctx), "/scratch/runs");
	assert_string_equal(sb_ctx_agent(ctx), "/opt/sb/bin/sbagent");
	assert_string_equal(sb_ctx_index(ctx), "/state/sbench/index.sqlite");
	assert_int_equal(sb_ctx_load_env(ctx, env_home, &err), 0);
	assert_string_equal(sb_ctx_index(ctx), "/home/u/.local/state/sbench/index.sqlite");
	assert_string_equal(sb_ctx_root(ctx), "/scratch/runs"); /* absent: unchanged */
	assert_int_equal(sb_ctx_load_env(ctx, env_index, &err), 0);
	assert_string_equal(sb_ctx_index(ctx), "/tmp/i.sqlite");
	sb_ctx_destroy(ctx);
}

/* SB_THREADS: 1 to 64, else refused with nothing changed; 0 (the default)
 * is one per core and can be set, not read from the environment. */
static void test_threads(void **state)
{
	char *env[] = { "SB_THREADS=3", NULL };
	char *env_empty[] = { "SB_THREADS=", NULL };
	char *env_bad[][3] = {
		{ "SB_THREADS=0", "SB_ROOT=/new", NULL },
		{ "SB_THREADS=65", "SB_ROOT=/new", NULL },
		{ "SB_THREADS=-1", "SB_ROOT=/new", NULL },
		{ "SB_THREADS=2x", "SB_ROOT=/new", NULL },
		{ "SB_THREADS=99999999999999999999", "SB_ROOT=/new", NULL },
	};
	struct sb_ctx *ctx = sb_ctx_create(NULL);
	struct sb_error err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(sb_ctx_threads(ctx), 0);
	assert_int_equal(sb_ctx_load_env(ctx, env, &err), 0);
	assert_int_equal(sb_ctx_threads(ctx), 3);
	assert_int_equal(sb_ctx_load_env(ctx, env_empty, &err), 0); /* empty: unchanged */
	assert_int_equal(sb_ctx_threads(ctx), 3);
	for (i = 0; i < sizeof(env_bad) / sizeof(env_bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(sb_ctx_load_env(ctx, env_bad[i], &err), -1);
		assert_int_equal(err.code, SB_ERR_INPUT);
		assert_non_null(strstr(err.msg, "is not a number of threads from 1 to 64"));
		assert_int_equal(sb_ctx_threads(ctx), 3);
		assert_string_equal(sb_ctx_root(ctx), "./sbench-runs");
	}
	assert_int_equal(sb_ctx_set_threads(ctx, 0, &err), 0);
	assert_int_equal(sb_ctx_threads(ctx), 0);
	assert_int_equal(sb_ctx_set_threads(ctx, 65, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_int_equal(sb_ctx_threads(NULL), 0);
	sb_ctx_destroy(ctx);
}

static void test_lookup_window(void **state)
{
	char *env[] = { "SB_LOOKUP_WINDOW=0.5", NULL };
	char *env_empty[] = { "SB_LOOKUP_WINDOW=", NULL };
	char *env_bad[][3] = {
		{ "SB_LOOKUP_WINDOW=soon", "SB_ROOT=/new", NULL },
		{ "SB_LOOKUP_WINDOW=-1", "SB_ROOT=/new", NULL },
		{ "SB_LOOKUP_WINDOW=3601", "SB_ROOT=/new", NULL },
		{ "SB_LOOKUP_WINDOW=1s", "SB_ROOT=/new", NULL },
		{ "SB_LOOKUP_WINDOW=nan", "SB_ROOT=/new", NULL },
	};
	struct sb_ctx *ctx = sb_ctx_create(NULL);
	struct sb_error err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(sb_ctx_load_env(ctx, env, &err), 0);
	assert_true(sb_ctx_lookup_window(ctx) == 0.5);
	assert_int_equal(sb_ctx_load_env(ctx, env_empty, &err), 0); /* empty: unchanged */
	assert_true(sb_ctx_lookup_window(ctx) == 0.5);
	for (i = 0; i < sizeof(env_bad) / sizeof(env_bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(sb_ctx_load_env(ctx, env_bad[i], &err), -1);
		assert_int_equal(err.code, SB_ERR_INPUT);
		assert_non_null(strstr(err.msg, "is not a number of seconds from 0 to 3600"));
		assert_true(sb_ctx_lookup_window(ctx) == 0.5);       /* nothing changed */
		assert_string_equal(sb_ctx_root(ctx), "./sbench-runs");
	}
	assert_int_equal(sb_ctx_set_lookup_window(ctx, 3600, &err), 0);
	assert_true(sb_ctx_lookup_window(ctx) == 3600);
	assert_int_equal(sb_ctx_set_lookup_window(ctx, -0.1, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_int_equal(sb_ctx_set_lookup_window(ctx, 1.0 / 0.0, &err), -1);
	assert_int_equal(sb_ctx_set_lookup_window(ctx, 0, NULL), 0);
	assert_true(sb_ctx_lookup_window(ctx) == 0);
	sb_ctx_destroy(ctx);
}

static void test_env_refusals_change_nothing(void **state)
{
	char *env[] = { "SB_ROOT=/new", "SB_AGENT=bin/sbagent", NULL };
	struct sb_ctx *ctx = sb_ctx_create(NULL);
	struct sb_error err = { 0 };

	(void)state;
	assert_int_equal(sb_ctx_load_env(ctx, env, &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "SB_AGENT 'bin/sbagent' must be an absolute path"));
	assert_string_equal(sb_ctx_root(ctx), "./sbench-runs");
	assert_int_equal(sb_ctx_set_agent(ctx, "sbagent", &err), -1);
	assert_int_equal(err.code, SB_ERR_INPUT);
	assert_int_equal(sb_ctx_set_root(ctx, "", &err), -1);
	assert_int_equal(sb_ctx_set_settle(ctx, -1, &err), -1);
	assert_int_equal(sb_ctx_set_settle(ctx, 1.0 / 0.0, &err), -1);
	assert_int_equal(sb_ctx_set_settle(ctx, 2.5, &err), 0);
	assert_true(sb_ctx_settle(ctx) == 2.5);
	assert_int_equal(sb_ctx_set_agent(ctx, NULL, &err), 0);
	assert_null(sb_ctx_agent(ctx));
	sb_ctx_destroy(ctx);
}

struct seen {
	char msg[256];
	size_t calls, done, total;
};

static void warn_cb(void *user, const char *msg)
{
	struct seen *s = user;

	s->calls++;
	snprintf(s->msg, sizeof(s->msg), "%s", msg);
}

static void progress_cb(void *user, const char *what, size_t done, size_t total)
{
	struct seen *s = user;

	(void)what;
	s->done = done;
	s->total = total;
}

static void test_callbacks(void **state)
{
	struct sb_ctx *ctx = sb_ctx_create(NULL);
	struct seen s = { "", 0, 0, 0 };

	(void)state;
	sb_ctx_warn(ctx, "dropped %d", 1); /* no callback: nothing happens */
	sb_ctx_set_warn(ctx, warn_cb, &s);
	sb_ctx_set_progress(ctx, progress_cb, &s);
	sb_ctx_warn(ctx, "cannot record outcomes in '%s'", "/b/submissions");
	assert_int_equal(s.calls, 1);
	assert_string_equal(s.msg, "cannot record outcomes in '/b/submissions'");
	sb_ctx_progress(ctx, "reading logs", 3, 10);
	assert_int_equal(s.done, 3);
	assert_int_equal(s.total, 10);
	sb_ctx_destroy(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_env_as_sbctl_reads_it),
		cmocka_unit_test(test_lookup_window),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_env_refusals_change_nothing),
		cmocka_unit_test(test_callbacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
