/* The strict parser of command-line numbers (child indices, seconds): what
 * strtoul/strtod would have let through ("-1" as 18446744073709551615, " 5",
 * "0x10", "1e3", "nan", "") is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/numarg.h"

static void test_uint(void **state)
{
	static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x10", "1e3",
					   "1.0", "18446744073709551616", "99999999999999999999999" };
	struct sb_error err;
	uint64_t v;
	size_t i;

	(void)state;
	assert_int_equal(sb_parse_uint("0", 10, &v, &err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sb_parse_uint("007", 10, &v, &err), 0);
	assert_int_equal(v, 7);
	assert_int_equal(sb_parse_uint("18446744073709551615", UINT64_MAX, &v, &err), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(sb_parse_uint("10", 10, &v, &err), 0);
	assert_int_equal(sb_parse_uint("11", 10, &v, &err), -1);
	assert_string_equal(err.msg, "'11' is more than 10");
	assert_int_equal(sb_parse_uint("5", 0, &v, &err), -1);
	assert_int_equal(sb_parse_uint("-1", 10, &v, NULL), -1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (sb_parse_uint(bad[i], UINT64_MAX, &v, &err) != -1)
			fail_msg("'%s' was accepted as %llu", bad[i], (unsigned long long)v);
		assert_int_equal(v, 12345);
	}
	assert_int_equal(sb_parse_uint("-1", 100, &v, &err), -1);
	assert_string_equal(err.msg, "'-1' is not a whole number (digits 0-9 only)");
	assert_int_equal(sb_parse_uint("", 100, &v, &err), -1);
	assert_string_equal(err.msg, "an empty string is not a number");
}

static void test_seconds(void **state)
{
	static const char *const bad[] = { "", "-1", "+1", " 5", "5 ", ".5", "1e3", "0x10", "nan",
					   "inf", "1.2.3", "1,5", "5s", "." };
	struct sb_error err;
	double d;
	size_t i;

	(void)state;
	assert_int_equal(sb_parse_seconds("30", 1e9, &d, &err), 0);
	assert_true(d == 30);
	assert_int_equal(sb_parse_seconds("0.25", 1e9, &d, &err), 0);
	assert_true(d == 0.25);
	assert_int_equal(sb_parse_seconds("2.", 1e9, &d, &err), 0);
	assert_true(d == 2);
	assert_int_equal(sb_parse_seconds("1000000000", 1e9, &d, &err), 0);
	assert_int_equal(sb_parse_seconds("1000000000.5", 1e9, &d, &err), -1);
	assert_string_equal(err.msg, "'1000000000.5' is more than 1000000000 seconds");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = 42;
		if (sb_parse_seconds(bad[i], 1e9, &d, &err) != -1)
			fail_msg("'%s' was accepted as %g", bad[i], d);
		assert_true(d == 42);
	}
	assert_int_equal(sb_parse_seconds("0x10", 1e9, &d, &err), -1);
	assert_string_equal(err.msg, "'0x10' is not a number of seconds (digits with an optional "
			    "fraction: 30, 0.5)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_seconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
