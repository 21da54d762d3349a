/* Summary statistics (docs/sbctl-analyze.md): n, mean, sample standard
 * deviation, min, median and max, for analyze's metrics and resources. */
#ifndef SB_CTL_STATS_H
#define SB_CTL_STATS_H

#include <stddef.h>

struct sb_stats {
	size_t n;
	double mean, stddev, min, median, max; /* stddev NaN when n < 2 */
};

/* The statistics of values[0..n) (n > 0), summed in the order given; the
 * values are reordered after (the median is found in place). */
void sb_stats_compute(double *values, size_t n, struct sb_stats *s);

#endif
