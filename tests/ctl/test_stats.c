/* sb_stats_compute: n, mean, sample stddev, min, median, max (docs/sbctl-analyze.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_private.h"

static void test_odd_count(void **state)
{
	double v[] = { 3, 1, 2 };
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
	double v[] = { 10, 1, 4, 2 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 4, &s);
	assert_true(s.median == 3.0);
	assert_true(s.mean == 4.25);
	assert_true(s.min == 1 && s.max == 10);
}

static void test_single_value_has_no_stddev(void **state)
{
	double v[] = { 0.5 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 1, &s);
	assert_true(isnan(s.stddev));
	assert_true(s.mean == 0.5 && s.median == 0.5);
}

static void test_order_of_summation_is_the_given_order(void **state)
{
	/* summed left to right: (1e16 + 1) + -1e16 = 0, not 1 */
	double v[] = { 1e16, 1, -1e16 };
	struct sb_stats s;

	(void)state;
	sb_stats_compute(v, 3, &s);
	assert_true(s.mean == 0.0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median found in place is the sorted one, for sizes odd and even,
 * values distinct, repeated, all equal, sorted and reversed. */
static void test_median_is_the_sorted_middle(void **state)
{
	static double v[1001], sorted[1001];
	unsigned seed = 12345;
	struct sb_stats s;

	(void)state;
	for (size_t n = 1; n <= 1001; n += (n < 40 ? 1 : 97)) {
		for (int shape = 0; shape < 5; shape++) {
			double want;
			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				v[i] = shape == 0 ? (double)(seed >> 8) : shape == 1 ? (double)((seed >> 8) % 5)
				       : shape == 2 ? 7.0 : shape == 3 ? (double)i : (double)(n - i);
			}
			memcpy(sorted, v, n * sizeof(*v));
			qsort(sorted, n, sizeof(*sorted), cmp_double);
			want = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
			sb_stats_compute(v, n, &s);
			assert_true(s.median == want);
			assert_true(s.min == sorted[0] && s.max == sorted[n - 1]);
			qsort(v, n, sizeof(*v), cmp_double); /* reordered, none lost */
			assert_memory_equal(v, sorted, n * sizeof(*v));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd_count),
		cmocka_unit_test(test_even_count_median_is_mean_of_middle),
		cmocka_unit_test(test_single_value_has_no_stddev),
		cmocka_unit_test(test_order_of_summation_is_the_given_order),
		cmocka_unit_test(test_median_is_the_sorted_middle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
