/* What the C benchmarks of tests/bench/ share: a monotonic clock in
 * seconds, and the order of doubles for qsort (medians, best of N). */
#ifndef SB_TESTS_BENCH_CLOCK_H
#define SB_TESTS_BENCH_CLOCK_H

#include <time.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
