/* proto/benchdir: the paths of a benchmark directory, formatted in one
 * place for sbctl and sbagent, never cut short; an agent's log name round
 * trips through sb_log_name_parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/benchdir.h"
#include "sbench/logview.h"

static void test_paths(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(sb_bdir_key(buf, sizeof(buf), "/b"), 16);
	assert_string_equal(buf, "/b/keys/hmac.key");
	assert_int_equal(sb_bdir_key(buf, sizeof(buf), NULL), 13);
	assert_string_equal(buf, "keys/hmac.key");
	assert_true(sb_bdir_run(buf, sizeof(buf), "/b", 12345) > 0);
	assert_string_equal(buf, "/b/runs/12345");
	assert_true(sb_bdir_attempt(buf, sizeof(buf), "/b", 2) > 0);
	assert_string_equal(buf, "/b/jobs/a2");
	assert_true(sb_bdir_chunk(buf, sizeof(buf), "/b", 2, 7, "map") > 0);
	assert_string_equal(buf, "/b/jobs/a2/chunk-7.map");
	assert_true(sb_bdir_chunk(buf, sizeof(buf), NULL, 0, 0, "sh") > 0);
	assert_string_equal(buf, "jobs/a0/chunk-0.sh");
	assert_true(sb_bdir_attempt_tmp(buf, sizeof(buf), "/b", 3) > 0);
	assert_string_equal(buf, "/b/jobs/.a3.tmp");
	assert_true(sb_bdir_chunk_file(buf, sizeof(buf), "/b/jobs/.a3.tmp", 4, "map") > 0);
	assert_string_equal(buf, "/b/jobs/.a3.tmp/chunk-4.map");
	assert_true(sb_bdir_chunk_output(buf, sizeof(buf), "/b/jobs/a3", 4) > 0);
	assert_string_equal(buf, "/b/jobs/a3/c4");
	assert_true(sb_bdir_slurm_output(buf, sizeof(buf), "/b", 1, 2) > 0);
	assert_string_equal(buf, "/b/jobs/a1/c2/slurm-%A_%a");
	assert_true(sb_bdir_log(buf, sizeof(buf), "/b", 12345, 1, "77", 3) > 0);
	assert_string_equal(buf, "/b/events/12/12345.a1.j77.r3.log");
	assert_true(sb_bdir_log(buf, sizeof(buf), NULL, 5, 0, "none", 0) > 0);
	assert_string_equal(buf, "events/0/5.a0.jnone.r0.log");
}

static void test_too_long_is_refused(void **state)
{
	char buf[17];

	(void)state;
	assert_int_equal(sb_bdir_key(buf, 16, "/bb"), -1);
	assert_int_equal(sb_bdir_key(buf, 3, NULL), -1);
	assert_int_equal(sb_bdir_key(buf, 16, "/0123456789abcdef"), -1);
	assert_int_equal(sb_bdir_run(buf, 0, "/b", 1), -1);
	assert_int_equal(sb_bdir_key(buf, 16, "/b"), -1); /* 16 bytes + NUL */
	assert_int_equal(sb_bdir_key(buf, 17, "/b"), 16);
}

static void test_log_name_round_trip(void **state)
{
	char buf[128];
	struct sb_log_name n;
	const char *base;

	(void)state;
	assert_true(sb_bdir_log(buf, sizeof(buf), NULL, 4001, 2, "123", 9) > 0);
	base = strrchr(buf, '/') + 1;
	assert_int_equal(sb_log_name_parse(base, &n), 0);
	assert_int_equal(n.child, 4001);
	assert_int_equal(n.attempt, 2);
	assert_int_equal(n.restart, 9);
	assert_int_equal(n.job_len, 3);
	assert_memory_equal(n.job, "123", 3);
	assert_int_equal(sb_log_name_parse("4001.a2.j123.r9.log.tmp", &n), -1);
	assert_int_equal(sb_log_name_parse("4001.a2.jX.r9.log", &n), -1);
	assert_int_equal(sb_log_name_parse("99999999999999999999.a0.j1.r0.log", &n), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_too_long_is_refused),
		cmocka_unit_test(test_log_name_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
