/* Unit tests of the fake Slurm's parsers: time limits, array expressions,
 * ranges, output patterns, sacct times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fake/util.h"

static long limit(const char *s)
{
	long v = -2;

	if (fake_parse_time_limit(s, &v) != 0)
		return -99;
	return v;
}

static void test_time_limits(void **state)
{
	(void)state;
	unsetenv("SB_FAKE_TIME_UNIT");
	assert_int_equal(limit("5"), 300);              /* minutes */
	assert_int_equal(limit("5:30"), 360);           /* minutes:seconds, rounded up */
	assert_int_equal(limit("0:02"), 60);
	assert_int_equal(limit("1:00:00"), 3600);       /* hours:minutes:seconds */
	assert_int_equal(limit("2-0"), 2 * 86400);      /* days-hours */
	assert_int_equal(limit("1-2:3"), 86400 + 2 * 3600 + 3 * 60);
	assert_int_equal(limit("1-2:3:4"), 86400 + 2 * 3600 + 3 * 60 + 60);
	assert_int_equal(limit("UNLIMITED"), -1);
	assert_int_equal(limit("infinite"), -1);
	assert_int_equal(limit("0"), -1);
	assert_int_equal(limit(""), -99);
	assert_int_equal(limit("1:2:3:4"), -99);
	assert_int_equal(limit("x"), -99);
	assert_int_equal(limit("-5"), -99);
	setenv("SB_FAKE_TIME_UNIT", "s", 1);
	assert_int_equal(limit("5"), 5);
	assert_int_equal(limit("1:00:00"), 60);
	unsetenv("SB_FAKE_TIME_UNIT");
}

static void test_arrays(void **state)
{
	long *ids = NULL;
	size_t n = 0;
	int th = -1;
	char buf[256];

	(void)state;
	assert_int_equal(fake_parse_array("0-9%3", &ids, &n, &th), 0);
	assert_int_equal(n, 10);
	assert_int_equal(th, 3);
	fake_fmt_ranges(ids, n, buf, sizeof(buf));
	assert_string_equal(buf, "0-9");
	free(ids);
	assert_int_equal(fake_parse_array("1,3,10-16:3,3", &ids, &n, &th), 0);
	assert_int_equal(th, 0);
	fake_fmt_ranges(ids, n, buf, sizeof(buf));
	assert_string_equal(buf, "1,3,10,13,16");
	free(ids);
	assert_int_equal(fake_parse_array("5-1", &ids, &n, &th), -1);
	assert_int_equal(fake_parse_array("a", &ids, &n, &th), -1);
	assert_int_equal(fake_parse_array("1-", &ids, &n, &th), -1);
	assert_int_equal(fake_parse_array("0-3:0", &ids, &n, &th), -1);
	assert_int_equal(fake_parse_array("0-3%x", &ids, &n, &th), -1);
	assert_int_equal(fake_parse_array("", &ids, &n, &th), -1);
	{
		char *r;
		long v[] = {2, 3, 4, 5, 9};
		r = fake_ranges_text(v, 5, 1);
		assert_string_equal(r, "2-5,9%1");
		free(r);
	}
}

static void test_patterns(void **state)
{
	struct fake_job j;
	struct fake_task t;
	char out[256];

	(void)state;
	memset(&j, 0, sizeof(j));
	memset(&t, 0, sizeof(t));
	j.id = 21;
	j.name = "train";
	j.user = "alice";
	t.task_id = 4;
	t.raw_id = 25;
	setenv("SB_FAKE_NODENAME", "n1", 1);
	fake_expand_pattern("slurm-%A_%a-%j-%x-%u-%N-%%-%3a-%s.out", &j, &t, out, sizeof(out));
	assert_string_equal(out, "slurm-21_4-25-train-alice-n1-%-004-batch.out");
	t.task_id = -1;
	fake_expand_pattern("%a", &j, &t, out, sizeof(out));
	assert_string_equal(out, "4294967294");
	fake_expand_pattern("\\\\%j", &j, &t, out, sizeof(out));
	assert_string_equal(out, "%j");
	fake_expand_pattern("%j%", &j, &t, out, sizeof(out));
	assert_string_equal(out, "25");
}

static void test_when(void **state)
{
	double now = 1800000000.0, t = 0;
	struct tm tm;
	time_t tt;

	(void)state;
	assert_int_equal(fake_parse_when("now", now, &t), 0);
	assert_true(t == now);
	assert_int_equal(fake_parse_when("now-2hours", now, &t), 0);
	assert_true(t == now - 7200);
	assert_int_equal(fake_parse_when("now+30", now, &t), 0);
	assert_true(t == now + 30);
	assert_int_equal(fake_parse_when("now-1days", now, &t), 0);
	assert_true(t == now - 86400);
	assert_int_equal(fake_parse_when("2026-11-30T13:05:09", now, &t), 0);
	tt = (time_t)t;
	localtime_r(&tt, &tm);
	assert_int_equal(tm.tm_year, 126);
	assert_int_equal(tm.tm_hour, 13);
	assert_int_equal(tm.tm_sec, 9);
	assert_int_equal(fake_parse_when("2026-11-30", now, &t), 0);
	assert_int_equal(fake_parse_when("nowish", now, &t), -1);
	assert_int_equal(fake_parse_when("now-3parsecs", now, &t), -1);
	assert_int_equal(fake_parse_when("2026-11-30X", now, &t), -1);
}

static void test_elapsed(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fake_fmt_elapsed(81, buf, sizeof(buf)), "00:01:21");
	assert_string_equal(fake_fmt_elapsed(90061, buf, sizeof(buf)), "1-01:01:01");
	assert_string_equal(fake_fmt_squeue_time(5, buf, sizeof(buf)), "0:05");
	assert_string_equal(fake_fmt_squeue_time(3725, buf, sizeof(buf)), "1:02:05");
	assert_string_equal(fake_fmt_squeue_time(90061, buf, sizeof(buf)), "1-01:01:01");
	assert_int_equal(fake_signal_number("SIGUSR1"), 10);
	assert_int_equal(fake_signal_number("term"), 15);
	assert_int_equal(fake_signal_number("9"), 9);
	assert_int_equal(fake_signal_number("NOPE"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_limits),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_when),
		cmocka_unit_test(test_elapsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
