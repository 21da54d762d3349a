/* sb_stats_compute: n, mean, sample stddev, min, median, max (docs/sbctl-analyze.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "ctl/analyze.h"

static void test_odd_count(void **state)
{
	const double v[] = { 3, 1, 2 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 3, &s);
	assert_int_equal(s.n, 3);
	assert_true(s.mean == 2.0);
	assert_true(s.stddev == 1.0); /* sample stddev: sqrt(2 / (3 - 1)) */
	assert_true(s.min == 1 && s.max == 3);
	assert_true(s.median == 2);
}

static void test_even_count_median_is_mean_of_middle(void **state)
{
	const double v[] = { 10, 1, 4, 2 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 4, &s);
	assert_true(s.median == 3.0);
	assert_true(s.mean == 4.25);
	assert_true(s.min == 1 && s.max == 10);
}

static void test_single_value_has_no_stddev(void **state)
{
	const double v[] = { 0.5 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 1, &s);
	assert_true(isnan(s.stddev));
	assert_true(s.mean == 0.5 && s.median == 0.5);
}

static void test_order_of_summation_is_the_given_order(void **state)
{
	/* summed left to right: (1e16 + 1) + -1e16 = 0, not 1 */
	const double v[] = { 1e16, 1, -1e16 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 3, &s);
	assert_true(s.mean == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd_count),
		cmocka_unit_test(test_even_count_median_is_mean_of_middle),
		cmocka_unit_test(test_single_value_has_no_stddev),
		cmocka_unit_test(test_order_of_summation_is_the_given_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
