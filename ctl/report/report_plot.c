/* The report's metric plots: for each metric analysed, one chart with a
 * row per group of the analysis (in its order: the children's, or the
 * ranking of --sort), the succeeded values as dots, their mean as a bar
 * and their median as a diamond, and the numbers beside; the value axis
 * logarithmic when the values span orders of magnitude, and far outliers
 * at its edge. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/render.h"
#include "report/report_axis.h"
#include "report/report_private.h"
#include "proto/util.h"

#define W 1280.0
#define LABEL 300.0       /* the group's parameters */
#define NUMBERS 290.0     /* mean, median, n at the right */
#define ROW 30.0
#define TOP 36.0
#define ROWS_MAX 60       /* groups drawn per metric */
#define DOTS_MAX 300      /* values drawn per group (quantiles above) */
/* the numbers' columns, from the axis's end: clear of its last tick label */
#define NUM_MEAN 40.0
#define NUM_MEDIAN 130.0
#define NUM_N 220.0

/* The value of metric name of child c (succeeded), or NAN. */
static double value_of(const struct sb_status *st, size_t c, const char *name)
{
	const struct sb_attempt_status *a = st->children[c].latest;
	size_t k;

	if (st->children[c].cls != SB_CLASS_SUCCEEDED || a == NULL)
		return NAN;
	for (k = 0; k < a->nmetrics; k++)
		if (!strcmp(a->metrics[k].name, name))
			return a->metrics[k].value;
	return NAN;
}

static int plot_metric(struct sb_report *r, size_t m, double *vals, size_t *start,
		       size_t *fill, double *scratch)
{
	const struct sb_analysis *a = r->an;
	const struct sb_status *st = r->st;
	const char *name = a->metrics[m];
	FILE *out = r->out;
	size_t g, c, i, nv = 0, rows = a->ngroups < ROWS_MAX ? a->ngroups : ROWS_MAX;
	double h;
	struct sb_axis ax = { .p0 = LABEL, .p1 = W - NUMBERS };
	char buf[SB_DOUBLE_TEXT_MAX];

	/* the values of each group, in child order, bucketed by group */
	memset(start, 0, (a->ngroups + 1) * sizeof(*start));
	for (c = 0; c < st->n; c++)
		if (!isnan(value_of(st, c, name)))
			start[a->group_of[c] + 1]++;
	for (g = 0; g < a->ngroups; g++)
		start[g + 1] += start[g];
	memcpy(fill, start, (a->ngroups + 1) * sizeof(*fill));
	for (c = 0; c < st->n; c++) {
		double v = value_of(st, c, name);
		if (!isnan(v))
			vals[fill[a->group_of[c]]++] = v;
	}
	for (g = 0; g < rows; g++)
		for (i = start[g]; i < start[g + 1]; i++)
			scratch[nv++] = vals[i];
	fputs("<h3>", out);
	sb_report_esc(out, name);
	fputs("</h3>\n", out);
	if (nv == 0) {
		fputs("<p class=\"sub\">No succeeded child reported this metric.</p>\n", out);
		return 0;
	}
	sb_axis_fit(&ax, scratch, nv, true);
	if (ax.log)
		fputs("<p class=\"sub\" data-axis=\"log\">Logarithmic axis: the values span more "
		      "than two orders of magnitude.</p>\n", out);
	if (ax.beyond)
		fprintf(out, "<p class=\"sub\" data-axis=\"beyond\">%zu %s far from the rest %s drawn "
			"at the axis's edge (\u25b8, \u25c2), so as not to flatten the others; each "
			"one's title has its value.</p>\n", ax.beyond, sb_plural(ax.beyond, "value", "values"),
			sb_plural(ax.beyond, "is", "are"));
	if (rows < a->ngroups)
		fprintf(out, "<p class=\"sub\">The first %zu of %zu groups are drawn (in the order of the "
			"analysis; <code>sbctl analyze</code> has them all).</p>\n", rows, a->ngroups);
	h = TOP + ROW * (double)rows + 30;
	fprintf(out, "<svg class=\"plot\" data-metric=\"");
	sb_report_esc(out, name);
	fprintf(out, "\" data-scale=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\">\n", ax.log ? "log" : "linear", W, h, W, h);
	sb_axis_draw_x(out, &ax, TOP - 6, TOP + ROW * (double)rows, TOP - 12, false);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">mean</text>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">median</text>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">n</text>\n",
		ax.p1 + NUM_MEAN, TOP - 12, ax.p1 + NUM_MEDIAN, TOP - 12, ax.p1 + NUM_N, TOP - 12);
	for (g = 0; g < rows; g++) {
		const struct sb_stats *s = &a->groups[g].stats[m];
		double y = TOP + ROW * (double)g, mid = y + ROW / 2, *v = vals + start[g], mx;
		size_t n = start[g + 1] - start[g], shown = n < DOTS_MAX ? n : DOTS_MAX;
		bool cl;

		if (g % 2)
			fprintf(out, "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f7f8fa\"/>",
				y, W, ROW);
		fprintf(out, "<g class=\"group\" data-group=\"%zu\"><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"13\" text-anchor=\"end\">", g, ax.p0 - 12, mid + 4);
		sb_report_group_params(r, g);
		fputs("</text>\n", out);
		if (n == 0) {
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" class=\"dim\" "
				"fill=\"#8a93a3\">no succeeded child</text></g>\n", ax.p0 + 4, mid + 4);
			continue;
		}
		/* above DOTS_MAX values, evenly spaced quantiles of them */
		if (shown < n)
			qsort(v, n, sizeof(*v), sb_axis_cmp_double);
		for (i = 0; i < shown; i++) {
			double val = shown < n ? v[i * (n - 1) / (shown - 1)] : v[i];
			double jit = (fmod((double)i * 0.6180339887, 1.0) - 0.5) * (ROW * 0.5);
			double x = sb_axis_pos(&ax, val, &cl);
			if (cl)
				fprintf(out, "<path class=\"dot c-succeeded beyond\" d=\"M%.1f %.1fl%d 5l%d 5z\">"
					"<title>%s (beyond the axis)</title></path>", x, mid + jit - 5,
					x >= ax.p1 ? 7 : -7, x >= ax.p1 ? -7 : 7, sb_fmt_double_short(val, buf));
			else
				fprintf(out, "<circle class=\"dot c-succeeded\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>",
					x, mid + jit);
		}
		mx = sb_axis_pos(&ax, s->mean, NULL);
		fprintf(out, "\n<line class=\"mean\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
			"<title>mean %s</title></line>", mx, y + 4, mx, y + ROW - 4,
			sb_fmt_double_short(s->mean, buf));
		mx = sb_axis_pos(&ax, s->median, NULL);
		fprintf(out, "<path class=\"median\" d=\"M%.1f %.1fl6 6l-6 6l-6 -6z\"><title>median %s"
			"</title></path>", mx, mid - 6, sb_fmt_double_short(s->median, buf));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%s</text>", ax.p1 + NUM_MEAN,
			mid + 4, sb_fmt_double_short(s->mean, buf));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%s</text>", ax.p1 + NUM_MEDIAN,
			mid + 4, sb_fmt_double_short(s->median, buf));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%zu%s</text></g>\n",
			ax.p1 + NUM_N, mid + 4, n, shown < n ? "*" : "");
	}
	fputs("</svg>\n", out);
	return 0;
}

int sb_report_plots(struct sb_report *r, struct sb_error *err)
{
	const struct sb_analysis *a = r->an;
	FILE *out = r->out;
	double *vals = malloc((r->st->n + 1) * sizeof(*vals));
	double *scratch = malloc((r->st->n + 1) * sizeof(*scratch));
	size_t *start = calloc(a->ngroups + 1, sizeof(*start));
	size_t *fill = calloc(a->ngroups + 1, sizeof(*fill));
	size_t m;
	int rc = 0;

	if (vals == NULL || scratch == NULL || start == NULL || fill == NULL) {
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	fputs("<section id=\"metrics\"><h2>Metrics of the succeeded children</h2>\n", out);
	fputs("<div class=\"legend\"><span><i class=\"sw c-succeeded\" style=\"border-radius:7px\"></i>"
	      "one succeeded child</span><span><svg width=\"14\" height=\"16\"><line class=\"mean\" "
	      "x1=\"7\" y1=\"1\" x2=\"7\" y2=\"15\"/></svg>mean</span><span><svg width=\"14\" "
	      "height=\"14\"><path class=\"median\" d=\"M7 1l6 6l-6 6l-6 -6z\"/></svg>median</span>"
	      "<span>* more values than dots: quantiles drawn</span></div>\n", out);
	if (a->nmetrics == 0)
		fputs("<p class=\"sub\">No metric to show: no succeeded child reported one.</p>\n", out);
	for (m = 0; m < a->nmetrics; m++)
		plot_metric(r, m, vals, start, fill, scratch);
	fputs("</section>\n", out);
done:
	free(vals);
	free(scratch);
	free(start);
	free(fill);
	return rc;
}
