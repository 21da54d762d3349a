/* The value axes of the report's charts (report/report_axis.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report_axis.h"
#include "report/report_html.h"

int sb_axis_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void sb_axis_fit(struct sb_axis *ax, double *v, size_t n, bool outliers)
{
	double lo, hi, q1, q3, iqr, pad;
	size_t i;

	qsort(v, n, sizeof(*v), sb_axis_cmp_double);
	lo = v[0];
	hi = v[n - 1];
	ax->log = lo > 0 && hi / lo > 100;
	ax->beyond = 0;
	if (ax->log) {
		ax->lo = floor(log10(lo) * 20) / 20 - 0.05;
		ax->hi = ceil(log10(hi) * 20) / 20 + 0.05;
		return;
	}
	q1 = v[(n - 1) / 4];
	q3 = v[(3 * (n - 1)) / 4];
	iqr = q3 - q1;
	if (outliers && n >= 4 && iqr > 0) {
		double flo = q1 - 3 * iqr, fhi = q3 + 3 * iqr, rlo = INFINITY, rhi = -INFINITY;
		for (i = 0; i < n; i++)
			if (v[i] >= flo && v[i] <= fhi) {
				rlo = fmin(rlo, v[i]);
				rhi = fmax(rhi, v[i]);
			}
		if (rhi > rlo && hi - lo > 4 * (rhi - rlo)) {
			for (i = 0; i < n; i++)
				ax->beyond += v[i] < rlo || v[i] > rhi;
			lo = rlo;
			hi = rhi;
		}
	}
	if (hi - lo < 1e-12 * (fabs(hi) + 1))
		pad = fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
	else
		pad = (hi - lo) * 0.04;
	ax->lo = lo - pad;
	ax->hi = hi + pad;
}

double sb_axis_pos(const struct sb_axis *ax, double v, bool *clamped)
{
	double u = ax->log ? log10(v) : v, f = (u - ax->lo) / (ax->hi - ax->lo);
	bool out = !(f >= 0 && f <= 1);

	if (clamped)
		*clamped = out;
	if (out)
		f = f > 1 || isnan(f) ? 1 : 0;
	return ax->p0 + (ax->p1 - ax->p0) * f;
}

/* A tick step for a linear axis: 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
	double p = pow(10, floor(log10(span / 6))), m = span / 6 / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

size_t sb_axis_ticks(const struct sb_axis *ax, double *val, size_t max)
{
	size_t n = 0;
	double t, step;

	if (ax->log) {
		bool few = ax->hi - ax->lo <= 3.2;
		for (double d = floor(ax->lo); d <= ceil(ax->hi); d++)
			for (int m = 1; m < 10; m++) {
				double e = d + log10(m);
				if ((m != 1 && (!few || (m != 2 && m != 5))) || e < ax->lo || e > ax->hi)
					continue;
				if (n < max)
					val[n++] = m * pow(10, d);
			}
		return n;
	}
	step = nice_step(ax->hi - ax->lo);
	for (t = ceil(ax->lo / step) * step; t <= ax->hi && n < max; t += step)
		val[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	return n;
}

const char *sb_axis_label(const struct sb_axis *ax, double val, char buf[SB_DOUBLE_TEXT_MAX])
{
	if (ax->log) {
		snprintf(buf, SB_DOUBLE_TEXT_MAX, "%g", val);
		return buf;
	}
	return sb_fmt_double_short(val, buf);
}

void sb_axis_draw_x(FILE *out, const struct sb_axis *ax, double y0, double y1, double label_y,
		    bool durations)
{
	char buf[SB_DOUBLE_TEXT_MAX];
	double ticks[64];
	size_t k, n = sb_axis_ticks(ax, ticks, 64);

	for (k = 0; k < n; k++) {
		double x = sb_axis_pos(ax, ticks[k], NULL);
		const char *anchor = fabs(x - ax->p0) < 20 ? "start" : fabs(x - ax->p1) < 20 ? "end" : "middle";
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"%s\">", x, y0, x, y1, x,
			label_y, anchor);
		if (durations)
			sb_report_duration(out, ticks[k]);
		else
			fputs(sb_axis_label(ax, ticks[k], buf), out);
		fputs("</text>\n", out);
	}
}

void sb_axis_draw_y(FILE *out, const struct sb_axis *ay, double x0, double x1)
{
	char buf[SB_DOUBLE_TEXT_MAX];
	double ticks[64];
	size_t k, n = sb_axis_ticks(ay, ticks, 64);

	for (k = 0; k < n; k++) {
		double y = sb_axis_pos(ay, ticks[k], NULL);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>\n",
			x0, y, x1, y, x0 - 6, y + 4, sb_axis_label(ay, ticks[k], buf));
	}
}
