/* The value axes of the report's charts: linear, or logarithmic when every
 * value is positive and they span more than two orders of magnitude (one
 * diverged group at 289 would flatten every other at 0.1 to a line); a
 * linear axis may leave far outliers at its edge.  Positions are in the
 * SVG's units, from p0 (the axis's low end) to p1 (its high end; p1 < p0
 * for an axis that grows upwards). */
#ifndef SB_CTL_REPORT_AXIS_H
#define SB_CTL_REPORT_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "proto/util.h"

struct sb_axis {
	double lo, hi;      /* the ends (log10 of the values when log) */
	bool log;
	size_t beyond;      /* values outside [lo, hi], drawn at an edge */
	double p0, p1;      /* where the ends are drawn */
};

/* qsort's order of doubles, lowest first. */
int sb_axis_cmp_double(const void *a, const void *b);

/* Fits ax to the n > 0 values v (reordered): log when every value is
 * positive and max/min > 100; else linear with a small margin, and when
 * outliers is true, values beyond three interquartile ranges of the
 * quartiles (when they would stretch the axis more than fourfold) left
 * outside it (ax->beyond counts them).  ax->p0 and p1 are kept. */
void sb_axis_fit(struct sb_axis *ax, double *v, size_t n, bool outliers);

/* The position of value v, clamped to the axis; *clamped (may be NULL)
 * says whether it was. */
double sb_axis_pos(const struct sb_axis *ax, double v, bool *clamped);

/* The ticks, at most max, into val (values, not log10): the powers of ten
 * on a log axis (and 2 and 5 times them over three decades or fewer), else
 * a step of 1, 2 or 5 times a power of ten. */
size_t sb_axis_ticks(const struct sb_axis *ax, double *val, size_t max);

/* A tick's label: "0.1", "100" on a log axis, sb_fmt_double_short else. */
const char *sb_axis_label(const struct sb_axis *ax, double val, char buf[SB_DOUBLE_TEXT_MAX]);

/* Draws a horizontal axis's ticks into an SVG: a grid line from y0 to y1
 * at each, its label (a duration when durations, else sb_axis_label) with
 * its baseline at label_y; the first label begins at its tick near the low end, the last
 * ends at its tick near the high end, so that none leaves the chart or
 * meets the vertical axis's labels. */
void sb_axis_draw_x(FILE *out, const struct sb_axis *ax, double y0, double y1, double label_y,
		    bool durations);

/* Draws a vertical axis's ticks: a grid line from x0 to x1 at each, its
 * label ending left of x0. */
void sb_axis_draw_y(FILE *out, const struct sb_axis *ay, double x0, double x1);

#endif
