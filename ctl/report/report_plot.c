/* The report's metric plots: for each metric analysed, one chart with a
 * row per group of the analysis (in its order: the children's, or the
 * ranking of --sort), the succeeded values as dots, their mean as a bar
 * and their median as a diamond, and the numbers beside. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_private.h"
#include "proto/util.h"

#define W 1280.0
#define LABEL 300.0       /* the group's parameters */
#define NUMBERS 250.0     /* mean, median, n at the right */
#define ROW 30.0
#define TOP 36.0
#define ROWS_MAX 60       /* groups drawn per metric */
#define DOTS_MAX 300      /* values drawn per group (quantiles above) */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

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

/* Group g's parameters as "k=v k=v" (escaped), or "all children". */
static void group_label(struct sb_report *r, size_t g)
{
	const struct sb_analysis *a = r->an;
	size_t k;

	if (a->nby == 0) {
		fputs("all children", r->out);
		return;
	}
	sb_plan_child_params(r->st->bench->plan, a->groups[g].first, r->pc, NULL);
	for (k = 0; k < a->nby; k++) {
		char *text = sb_value_text(sb_child_param(r->pc, a->by[k]));
		fputs(k ? " " : "", r->out);
		sb_report_esc(r->out, sb_spec_param_name(r->st->bench->spec, a->by[k]));
		fputc('=', r->out);
		sb_report_esc(r->out, text ? text : "?");
		free(text);
	}
}

/* A tick step for the value axis: 1, 2 or 5 times a power of ten. */
static double nice_step(double span)
{
	double p = pow(10, floor(log10(span / 6))), m = span / 6 / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static int plot_metric(struct sb_report *r, size_t m, double *vals, size_t *start,
		       size_t *fill)
{
	const struct sb_analysis *a = r->an;
	const struct sb_status *st = r->st;
	const char *name = a->metrics[m];
	FILE *out = r->out;
	size_t g, c, i, rows = a->ngroups < ROWS_MAX ? a->ngroups : ROWS_MAX;
	double lo = INFINITY, hi = -INFINITY, x0 = LABEL, x1 = W - NUMBERS, h, step, t;
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
		for (i = start[g]; i < start[g + 1]; i++) {
			if (vals[i] < lo)
				lo = vals[i];
			if (vals[i] > hi)
				hi = vals[i];
		}
	fputs("<h3>", out);
	sb_report_esc(out, name);
	fputs("</h3>\n", out);
	if (!isfinite(lo)) {
		fputs("<p class=\"sub\">No succeeded child reported this metric.</p>\n", out);
		return 0;
	}
	if (hi - lo < 1e-12 * (fabs(hi) + 1)) {
		double pad = fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
		lo -= pad;
		hi += pad;
	} else {
		double pad = (hi - lo) * 0.04;
		lo -= pad;
		hi += pad;
	}
	if (rows < a->ngroups)
		fprintf(out, "<p class=\"sub\">The first %zu of %zu groups are drawn (in the order of the "
			"analysis; <code>sbctl analyze</code> has them all).</p>\n", rows, a->ngroups);
	h = TOP + ROW * (double)rows + 30;
	fprintf(out, "<svg class=\"plot\" data-metric=\"");
	sb_report_esc(out, name);
	fprintf(out, "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n", W,
		h, W, h);
	step = nice_step(hi - lo);
	for (t = ceil(lo / step) * step; t <= hi; t += step) {
		double x = x0 + (x1 - x0) * (t - lo) / (hi - lo);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">%s</text>\n",
			x, TOP - 6, x, TOP + ROW * (double)rows, x, TOP - 12,
			sb_fmt_double_short(fabs(t) < step * 1e-9 ? 0 : t, buf));
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">mean</text>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">median</text>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"600\">n</text>\n",
		x1 + 20, TOP - 12, x1 + 110, TOP - 12, x1 + 200, TOP - 12);
	for (g = 0; g < rows; g++) {
		const struct sb_stats *s = &a->groups[g].stats[m];
		double y = TOP + ROW * (double)g, mid = y + ROW / 2, *v = vals + start[g];
		size_t n = start[g + 1] - start[g], shown = n < DOTS_MAX ? n : DOTS_MAX;

		if (g % 2)
			fprintf(out, "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f7f8fa\"/>",
				y, W, ROW);
		fprintf(out, "<g class=\"group\" data-group=\"%zu\"><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"13\" text-anchor=\"end\">", g, x0 - 12, mid + 4);
		group_label(r, g);
		fputs("</text>\n", out);
		if (n == 0) {
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" class=\"dim\" "
				"fill=\"#8a93a3\">no succeeded child</text></g>\n", x0 + 4, mid + 4);
			continue;
		}
		/* above DOTS_MAX values, evenly spaced quantiles of them */
		if (shown < n)
			qsort(v, n, sizeof(*v), cmp_double);
		for (i = 0; i < shown; i++) {
			double val = shown < n ? v[i * (n - 1) / (shown - 1)] : v[i];
			double jit = (fmod((double)i * 0.6180339887, 1.0) - 0.5) * (ROW * 0.5);
			fprintf(out, "<circle class=\"dot c-succeeded\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>",
				x0 + (x1 - x0) * (val - lo) / (hi - lo), mid + jit);
		}
		fprintf(out, "\n<line class=\"mean\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
			"<title>mean %s</title></line>", x0 + (x1 - x0) * (s->mean - lo) / (hi - lo),
			y + 4, x0 + (x1 - x0) * (s->mean - lo) / (hi - lo), y + ROW - 4,
			sb_fmt_double_short(s->mean, buf));
		{
			double mx = x0 + (x1 - x0) * (s->median - lo) / (hi - lo);
			fprintf(out, "<path class=\"median\" d=\"M%.1f %.1fl6 6l-6 6l-6 -6z\"><title>median %s"
				"</title></path>", mx, mid - 6, sb_fmt_double_short(s->median, buf));
		}
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%s</text>", x1 + 20, mid + 4,
			sb_fmt_double_short(s->mean, buf));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%s</text>", x1 + 110, mid + 4,
			sb_fmt_double_short(s->median, buf));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">%zu%s</text></g>\n", x1 + 200,
			mid + 4, n, shown < n ? "*" : "");
	}
	fputs("</svg>\n", out);
	return 0;
}

int sb_report_plots(struct sb_report *r, struct sb_error *err)
{
	const struct sb_analysis *a = r->an;
	FILE *out = r->out;
	double *vals = malloc((r->st->n + 1) * sizeof(*vals));
	size_t *start = calloc(a->ngroups + 1, sizeof(*start));
	size_t *fill = calloc(a->ngroups + 1, sizeof(*fill));
	size_t m;
	int rc = 0;

	if (vals == NULL || start == NULL || fill == NULL) {
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
		plot_metric(r, m, vals, start, fill);
	fputs("</section>\n", out);
done:
	free(vals);
	free(start);
	free(fill);
	return rc;
}
