/* sb_proc_run: external programs run directly, output captured and bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctl/proc.h"

static void test_captures_stdout_and_exit_code(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct sb_proc_result r;
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 0, &r, &err), 0);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.term_signal, 0);
	assert_string_equal(r.out, "out\n");
	assert_string_equal(r.err, "err\n");
	assert_int_equal(r.truncated, 0);
	sb_proc_result_release(&r);
}

static void test_arguments_reach_program_unchanged(void **state)
{
	char *argv[] = { "printf", "%s|", "a b", "$(id)", "'q'", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 0, &r, NULL), 0);
	assert_string_equal(r.out, "a b|$(id)|'q'|");
	sb_proc_result_release(&r);
}

static void test_missing_program_is_an_error(void **state)
{
	char *argv[] = { "sb-no-such-program-xyz", NULL };
	struct sb_proc_result r;
	struct sb_error err;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 4096, 0, &r, &err), -1);
	assert_string_equal(err.msg, "'sb-no-such-program-xyz' not found in PATH");
}

static void test_output_is_bounded(void **state)
{
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 1000 ]; do echo 0123456789; i=$((i+1)); done", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 100, 0, &r, NULL), 0);
	assert_int_equal(r.out_len, 100);
	assert_int_equal(r.truncated, 1);
	assert_int_equal(r.exit_code, 0);
	sb_proc_result_release(&r);
}

static void test_timeout_kills(void **state)
{
	char *argv[] = { "sleep", "10", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 100, 200, &r, NULL), 0);
	assert_int_equal(r.timed_out, 1);
	assert_int_equal(r.term_signal, 15);
	assert_int_equal(r.exit_code, -1);
	sb_proc_result_release(&r);
}

static void test_killed_by_signal(void **state)
{
	char *argv[] = { "sh", "-c", "kill -9 $$", NULL };
	struct sb_proc_result r;

	(void)state;
	assert_int_equal(sb_proc_run(argv, 100, 0, &r, NULL), 0);
	assert_int_equal(r.term_signal, 9);
	assert_int_equal(r.timed_out, 0);
	sb_proc_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures_stdout_and_exit_code),
		cmocka_unit_test(test_arguments_reach_program_unchanged),
		cmocka_unit_test(test_missing_program_is_an_error),
		cmocka_unit_test(test_output_is_bounded),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_killed_by_signal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
