/* proto/yamlscalar: every row of the core-schema table of docs/spec.md
 * ("Values: the YAML 1.2 core schema"), its edges, and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/yamlscalar.h"

static enum sb_yamlscalar_kind kind_of(const char *text)
{
	struct sb_yamlscalar y;

	return sb_yamlscalar_resolve(text, &y);
}

static void expect_int(const char *text, int64_t v, int base)
{
	struct sb_yamlscalar y;

	assert_int_equal(sb_yamlscalar_resolve(text, &y), SB_YAMLSCALAR_INT);
	assert_int_equal(y.kind, SB_YAMLSCALAR_INT);
	if (y.u.i != v)
		fail_msg("'%s' resolved to %lld, not %lld", text, (long long)y.u.i, (long long)v);
	assert_int_equal(y.base, base);
}

static void expect_float(const char *text, double v)
{
	struct sb_yamlscalar y;

	assert_int_equal(sb_yamlscalar_resolve(text, &y), SB_YAMLSCALAR_FLOAT);
	if (memcmp(&y.u.f, &v, sizeof(v)) != 0)
		fail_msg("'%s' resolved to %.17g, not %.17g", text, y.u.f, v);
}

static void expect_kind(const char *text, enum sb_yamlscalar_kind k)
{
	if (kind_of(text) != k)
		fail_msg("'%s' resolved to kind %d, not %d", text, (int)kind_of(text), (int)k);
}

static void test_null(void **state)
{
	const char *nulls[] = { "", "~", "null", "Null", "NULL" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(nulls) / sizeof(*nulls); i++)
		expect_kind(nulls[i], SB_YAMLSCALAR_NULL);
	expect_kind("nULL", SB_YAMLSCALAR_STR);
	expect_kind("none", SB_YAMLSCALAR_STR);
	expect_kind("~~", SB_YAMLSCALAR_STR);
}

static void test_bool(void **state)
{
	const char *trues[] = { "true", "True", "TRUE" }, *falses[] = { "false", "False", "FALSE" };
	struct sb_yamlscalar y;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(sb_yamlscalar_resolve(trues[i], &y), SB_YAMLSCALAR_BOOL);
		assert_true(y.u.b);
		assert_int_equal(sb_yamlscalar_resolve(falses[i], &y), SB_YAMLSCALAR_BOOL);
		assert_false(y.u.b);
	}
	/* YAML 1.1 booleans are strings in the core schema */
	expect_kind("yes", SB_YAMLSCALAR_STR);
	expect_kind("no", SB_YAMLSCALAR_STR);
	expect_kind("on", SB_YAMLSCALAR_STR);
	expect_kind("off", SB_YAMLSCALAR_STR);
	expect_kind("tRUE", SB_YAMLSCALAR_STR);
}

static void test_decimal(void **state)
{
	(void)state;
	expect_int("0", 0, 10);
	expect_int("7", 7, 10);
	expect_int("007", 7, 10);
	expect_int("+12", 12, 10);
	expect_int("-12", -12, 10);
	expect_int("-0", 0, 10);
	expect_int("9223372036854775807", INT64_MAX, 10);
	expect_int("-9223372036854775808", INT64_MIN, 10);
	expect_int("+9223372036854775807", INT64_MAX, 10);
	expect_kind("9223372036854775808", SB_YAMLSCALAR_INT_RANGE);
	expect_kind("-9223372036854775809", SB_YAMLSCALAR_INT_RANGE);
	expect_kind("99999999999999999999999", SB_YAMLSCALAR_INT_RANGE);
	expect_kind("1_000", SB_YAMLSCALAR_STR);
	expect_kind("+", SB_YAMLSCALAR_STR);
	expect_kind("-", SB_YAMLSCALAR_STR);
	expect_kind("12:30", SB_YAMLSCALAR_STR);
	expect_kind("1 2", SB_YAMLSCALAR_STR);
}

static void test_octal_hex(void **state)
{
	struct sb_yamlscalar y;

	(void)state;
	expect_int("0o17", 15, 8);
	expect_int("0o0", 0, 8);
	expect_int("0o777777777777777777777", INT64_MAX, 8);
	expect_kind("0o1000000000000000000000", SB_YAMLSCALAR_INT_RANGE);
	assert_int_equal(sb_yamlscalar_resolve("0o1000000000000000000000", &y),
			 SB_YAMLSCALAR_INT_RANGE);
	assert_int_equal(y.base, 8);
	expect_int("0x10", 16, 16);
	expect_int("0xff", 255, 16);
	expect_int("0xFF", 255, 16);
	expect_int("0xaBc", 0xabc, 16);
	expect_int("0x7fffffffffffffff", INT64_MAX, 16);
	assert_int_equal(sb_yamlscalar_resolve("0x8000000000000000", &y), SB_YAMLSCALAR_INT_RANGE);
	assert_int_equal(y.base, 16);
	/* not octal or hex: strings */
	expect_kind("0o", SB_YAMLSCALAR_STR);
	expect_kind("0o8", SB_YAMLSCALAR_STR);
	expect_kind("0x", SB_YAMLSCALAR_STR);
	expect_kind("0xg", SB_YAMLSCALAR_STR);
	expect_kind("0X10", SB_YAMLSCALAR_STR);
	expect_kind("0O17", SB_YAMLSCALAR_STR);
	expect_kind("-0x10", SB_YAMLSCALAR_STR);
	expect_kind("+0o7", SB_YAMLSCALAR_STR);
	expect_kind("0b101", SB_YAMLSCALAR_STR);
}

static void test_float(void **state)
{
	(void)state;
	expect_float("1.5", 1.5);
	expect_float("1e-3", 0.001);
	expect_float("0.001", 0.001);
	expect_float("1.0e-3", 0.001);
	expect_float(".5", 0.5);
	expect_float("-.5", -0.5);
	expect_float("+.5", 0.5);
	expect_float("1.", 1.0);
	expect_float("1E3", 1000.0);
	expect_float("1e+3", 1000.0);
	expect_float("2.5e-1", 0.25);
	expect_float("5e-324", 5e-324); /* subnormal: fine */
	expect_float("-0.0", 0.0);      /* -0.0 is 0.0 (positive zero) */
	expect_float("0e5", 0.0);
	expect_float("0.0", 0.0);
	expect_kind("1e999", SB_YAMLSCALAR_FLOAT_RANGE);
	expect_kind("-1e999", SB_YAMLSCALAR_FLOAT_RANGE);
	expect_kind("1e-999", SB_YAMLSCALAR_FLOAT_ZERO);
	expect_kind("-0.1e-999", SB_YAMLSCALAR_FLOAT_ZERO);
	/* not core floats: strings */
	expect_kind(".", SB_YAMLSCALAR_STR);
	expect_kind("1e", SB_YAMLSCALAR_STR);
	expect_kind("1e+", SB_YAMLSCALAR_STR);
	expect_kind(".e3", SB_YAMLSCALAR_STR);
	expect_kind("1.2.3", SB_YAMLSCALAR_STR);
	expect_kind("1,5", SB_YAMLSCALAR_STR);
	expect_kind("0x1p3", SB_YAMLSCALAR_STR);
	expect_kind("1.5f", SB_YAMLSCALAR_STR);
	expect_kind("e3", SB_YAMLSCALAR_STR);
}

static void test_inf_nan(void **state)
{
	const char *infs[] = { ".inf", ".Inf", ".INF", "+.inf", "-.inf", "+.Inf", "-.INF" };
	const char *nans[] = { ".nan", ".NaN", ".NAN" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(infs) / sizeof(*infs); i++)
		expect_kind(infs[i], SB_YAMLSCALAR_INF);
	for (i = 0; i < sizeof(nans) / sizeof(*nans); i++)
		expect_kind(nans[i], SB_YAMLSCALAR_NAN);
	/* what the core schema does not spell that way is a string */
	expect_kind("inf", SB_YAMLSCALAR_STR);
	expect_kind("nan", SB_YAMLSCALAR_STR);
	expect_kind("NaN", SB_YAMLSCALAR_STR);
	expect_kind(".iNf", SB_YAMLSCALAR_STR);
	expect_kind("+.nan", SB_YAMLSCALAR_STR);
	expect_kind("-.nan", SB_YAMLSCALAR_STR);
	expect_kind("infinity", SB_YAMLSCALAR_STR);
}

static void test_string_and_reset(void **state)
{
	struct sb_yamlscalar y;

	(void)state;
	memset(&y, 0x5a, sizeof(y));
	assert_int_equal(sb_yamlscalar_resolve("hello", &y), SB_YAMLSCALAR_STR);
	assert_int_equal(y.kind, SB_YAMLSCALAR_STR);
	assert_int_equal(y.base, 0);
	assert_int_equal(y.u.i, 0);
	expect_kind(" 1", SB_YAMLSCALAR_STR);
	expect_kind("1 ", SB_YAMLSCALAR_STR);
	expect_kind("true1", SB_YAMLSCALAR_STR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_octal_hex),
		cmocka_unit_test(test_float),
		cmocka_unit_test(test_inf_nan),
		cmocka_unit_test(test_string_and_reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
