/* sb_fmt_double (proto/util.c): the same bytes as the function it replaced
 * (sb_fmt_double_reference, tests/proto/fmt_double_ref.h) for every kind of
 * double (every power of two and ten with its neighbours, 40,000 random
 * values of every kind), and the digits of Python's repr (120,000 values):
 * about 2 s.  tests/bench/bench_fmt_double --check N --python runs millions. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/util.h"
#include "tests/proto/fmt_double_ref.h"

#ifndef RANDOM_VS_REFERENCE
#define RANDOM_VS_REFERENCE 40000 /* the reference costs ~10 us a value here */
#endif
#ifndef RANDOM_VS_PYTHON
#define RANDOM_VS_PYTHON 120000
#endif

static void assert_same_as_reference(double v)
{
	char a[SB_DOUBLE_TEXT_MAX], b[SB_DOUBLE_TEXT_MAX];

	sb_fmt_double_reference(v, a);
	sb_fmt_double(v, b);
	if (strcmp(a, b) != 0)
		fail_msg("%a (%.17g): reference \"%s\", sb_fmt_double \"%s\"", v, v, a, b);
}

static void test_fixed_texts(void **state)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 0.0, "0.0" }, { -0.0, "-0.0" }, { INFINITY, "inf" }, { -INFINITY, "-inf" },
		{ NAN, "nan" }, { -NAN, "nan" }, { 1.0, "1.0" }, { -3.0, "-3.0" }, { 100.0, "100.0" },
		{ 0.1, "0.1" }, { 0.5, "0.5" }, { 2.5, "2.5" }, { 0.0001, "0.0001" }, { 1e-05, "1e-05" },
		{ 1e-7, "1e-07" }, { -2.5e-7, "-2.5e-07" }, { 0.001249389000008705, "0.001249389000008705" },
		{ 0.30000000000000004, "0.30000000000000004" }, { 123456789.0, "123456789.0" },
		{ 1e15, "1000000000000000.0" }, { 9999999999999998.0, "9999999999999998.0" },
		{ 1e16, "1e+16" }, { 1.5e16, "1.5e+16" }, { 9007199254740993.0, "9007199254740992.0" },
		{ 123456789012345680.0, "1.2345678901234568e+17" }, { 1e22, "1e+22" }, { 1e23, "1e+23" },
		{ 1e20, "1e+20" }, { 1e100, "1e+100" }, { 1e-100, "1e-100" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 2.2250738585072014e-308, "2.2250738585072014e-308" }, { 5e-324, "5e-324" },
		{ 4.9406564584124654e-324 * 3, "1.5e-323" },
		/* a decimal tie at 17 digits, to even: 1125899906842624.25 */
		{ 1125899906842624.25, "1125899906842624.2" }, { 1125899906842624.75, "1125899906842624.8" },
		/* 2^-24 = 5.9604644775390625e-08 exactly; its nearest 16 digits are
		 * in the quarter ulp below it, out of its rounding interval (Python:
		 * 5.960464477539063e-08, above it) */
		{ 5.9604644775390625e-08, "5.9604644775390625e-08" },
		/* 2^89: the same, above 10^16 */
		{ 618970019642690137449562112.0, "6.1897001964269014e+26" },
	};
	char buf[SB_DOUBLE_TEXT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(sb_fmt_double(cases[i].v, buf), cases[i].text);
		assert_same_as_reference(cases[i].v);
	}
}

/* Every power of two and of ten that is a double, and 3 ulps on each side:
 * where the rounding interval is lopsided, and where the digit count and
 * the exponent change. */
static void test_powers(void **state)
{
	char text[16];
	int k, d;

	(void)state;
	for (k = -1074; k <= 1023; k++)
		for (d = -3; d <= 3; d++)
			assert_same_as_reference(fmt_ulps(ldexp(1.0, k), d));
	for (k = -323; k <= 308; k++) {
		snprintf(text, sizeof(text), "1e%d", k);
		for (d = -3; d <= 3; d++)
			assert_same_as_reference(-fmt_ulps(strtod(text, NULL), d));
	}
}

static void test_random_vs_reference(void **state)
{
	uint64_t s = 30;
	unsigned i;

	(void)state;
	for (i = 0; i < RANDOM_VS_REFERENCE; i++)
		assert_same_as_reference(fmt_sample(&s, i));
}

static void test_python_repr(void **state)
{
	double *v = malloc(RANDOM_VS_PYTHON * sizeof(*v));
	uint64_t s = 3030;
	size_t i, pow2;
	long bad;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < RANDOM_VS_PYTHON; i++)
		v[i] = fmt_sample(&s, (unsigned)i);
	bad = fmt_check_python(v, RANDOM_VS_PYTHON, &pow2);
	free(v);
	if (bad < 0)
		skip(); /* no python3 */
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_texts),
		cmocka_unit_test(test_powers),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_python_repr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
