/* Summary statistics of a list of values (base/stats.h). */
#include <math.h>
#include <stddef.h>

#include "base/stats.h"

/* Moves the k-th smallest of v[0..n) to v[k], the smaller ones before it
 * and the larger after (Hoare's selection, the median of three as pivot):
 * in place, no copy of a million values. */
static void select_kth(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;

	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], pivot, t;
		ptrdiff_t i = lo, j = hi;

		pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			return; /* between j and i: equal to the pivot, in place */
	}
}

void sb_stats_compute(double *values, size_t n, struct sb_stats *s)
{
	double sum = 0, sq = 0, below;
	size_t i;

	s->n = n;
	s->min = s->max = values[0];
	for (i = 0; i < n; i++) {
		sum += values[i];
		if (values[i] < s->min)
			s->min = values[i];
		if (values[i] > s->max)
			s->max = values[i];
	}
	s->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (values[i] - s->mean) * (values[i] - s->mean);
	s->stddev = n < 2 ? NAN : sqrt(sq / (double)(n - 1));
	/* the sums are done: now the values may move */
	select_kth(values, n, n / 2);
	if (n % 2) {
		s->median = values[n / 2];
		return;
	}
	for (below = values[0], i = 1; i < n / 2; i++) /* the largest below it */
		if (values[i] > below)
			below = values[i];
	s->median = (below + values[n / 2]) / 2;
}
