/* The report's "how each metric moves with each parameter": for every
 * numeric parameter the analysis groups by (two values or more), and every
 * metric, one chart with the parameter along x and the metric's mean over
 * the succeeded children of each group along y, one line per combination
 * of the other parameters grouped by (up to LINES_MAX, in the analysis's
 * order of their first group).  Each axis is logarithmic when its values
 * span orders of magnitude (a learning rate from 0.0001 to 1), and each
 * point's title says its group, mean and n. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_axis.h"
#include "report/report_private.h"

#define PW 620.0          /* one chart's width: two side by side */
#define PH 300.0
#define PL 70.0           /* room for the y labels */
#define PR 16.0
#define PT 16.0
#define PB 44.0           /* room for the x labels and name */
#define LINES_MAX 10      /* lines drawn per chart (a legend each) */

static const char *const line_colour[LINES_MAX] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
};

/* The value of parameter p of group g's first child as a number, or NAN
 * when it is not one. */
static double x_of(struct sb_report *r, size_t g, size_t p)
{
	const struct sb_value *v;

	if (sb_plan_child_params(r->st->bench->plan, r->an->groups[g].first, r->pc, NULL) < 0)
		return NAN;
	v = sb_child_param(r->pc, p);
	return v->type == SB_VALUE_INT ? (double)v->u.i : v->type == SB_VALUE_FLOAT ? v->u.f : NAN;
}

/* The parameters grouped by, p aside, of group g, to f: as a key that
 * tells lines apart (as_key: each value's type and text), else as a label
 * "k=v k=v" (escaped; "every group" when there are none). */
static void other_params(struct sb_report *r, size_t g, size_t p, FILE *f, bool as_key)
{
	const struct sb_analysis *a = r->an;
	size_t k, n = 0;

	sb_plan_child_params(r->st->bench->plan, a->groups[g].first, r->pc, NULL);
	for (k = 0; k < a->nby; k++) {
		const struct sb_value *v = sb_child_param(r->pc, a->by[k]);
		char *text;
		if (a->by[k] == p)
			continue;
		text = sb_value_text(v);
		if (as_key) {
			fprintf(f, "%d:%s%c", (int)v->type, text ? text : "", '\x1f');
		} else {
			fputs(n ? " " : "", f);
			sb_report_esc(f, sb_spec_param_name(r->st->bench->spec, a->by[k]));
			fputc('=', f);
			sb_report_esc(f, text ? text : "?");
		}
		n++;
		free(text);
	}
	if (n == 0 && !as_key)
		fputs("every group", f);
}

/* Group g's line key (NULL out of memory). */
static char *line_key(struct sb_report *r, size_t g, size_t p)
{
	char *key = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&key, &len);

	if (f == NULL)
		return NULL;
	other_params(r, g, p, f, true);
	if (fclose(f) != 0) {
		free(key);
		return NULL;
	}
	return key;
}

struct keyed {
	const char *key;
	size_t g;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *p = a, *q = b;
	int c = strcmp(p->key, q->key);
	return c ? c : (p->g > q->g) - (p->g < q->g);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Each group's line (line[g], SIZE_MAX for a line past LINES_MAX): the
 * groups with the same other parameters, the lines in the order of their
 * first group; first_of_line[l] is line l's first group.  The number of
 * lines in all, or SIZE_MAX out of memory. */
static size_t assign_lines(struct sb_report *r, size_t p, size_t *line, size_t *first_of_line,
			   size_t *nlines)
{
	const struct sb_analysis *a = r->an;
	struct keyed *kv = calloc(a->ngroups + 1, sizeof(*kv));
	size_t *firsts = calloc(a->ngroups + 1, sizeof(*firsts));
	size_t g, k, run, nruns = 0, all = SIZE_MAX;

	if (kv == NULL || firsts == NULL)
		goto done;
	for (g = 0; g < a->ngroups; g++) {
		if ((kv[g].key = line_key(r, g, p)) == NULL)
			goto done;
		kv[g].g = g;
	}
	qsort(kv, a->ngroups, sizeof(*kv), cmp_keyed);
	/* the first group of each run of one key */
	for (k = 0; k < a->ngroups; k = run) {
		for (run = k + 1; run < a->ngroups && !strcmp(kv[run].key, kv[k].key); run++)
			;
		firsts[nruns++] = kv[k].g;
	}
	qsort(firsts, nruns, sizeof(*firsts), cmp_size);
	*nlines = nruns < LINES_MAX ? nruns : LINES_MAX;
	for (k = 0; k < *nlines; k++)
		first_of_line[k] = firsts[k];
	for (g = 0; g < a->ngroups; g++)
		line[g] = SIZE_MAX;
	for (k = 0; k < a->ngroups; k = run) {
		size_t l = SIZE_MAX;
		for (size_t i = 0; i < *nlines; i++)
			if (first_of_line[i] == kv[k].g)
				l = i;
		for (run = k; run < a->ngroups && !strcmp(kv[run].key, kv[k].key); run++)
			line[kv[run].g] = l;
	}
	all = nruns;
done:
	if (kv != NULL)
		for (g = 0; g < a->ngroups; g++)
			free((char *)kv[g].key);
	free(kv);
	free(firsts);
	return all;
}

struct pt {
	size_t g;      /* the group */
	double x, y;
};

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

/* One chart: metric m against parameter p.  line[g] is each group's line
 * (SIZE_MAX: none drawn), nlines the lines. */
static void chart(struct sb_report *r, size_t m, size_t p, const size_t *line, size_t nlines,
		  const size_t *first_of_line, struct pt *pts, double *scratch)
{
	const struct sb_analysis *a = r->an;
	FILE *out = r->out;
	struct sb_axis ax = { .p0 = PL, .p1 = PW - PR }, ay = { .p0 = PH - PB, .p1 = PT };
	size_t g, l, n = 0, k;
	char buf[SB_DOUBLE_TEXT_MAX];

	for (g = 0; g < a->ngroups; g++) {
		double x = x_of(r, g, p);
		if (line[g] == SIZE_MAX || a->groups[g].stats[m].n == 0 || isnan(x))
			continue;
		pts[n++] = (struct pt){ g, x, a->groups[g].stats[m].mean };
	}
	if (n == 0)
		return;
	for (k = 0; k < n; k++)
		scratch[k] = pts[k].x;
	sb_axis_fit(&ax, scratch, n, false);
	for (k = 0; k < n; k++)
		scratch[k] = pts[k].y;
	sb_axis_fit(&ay, scratch, n, false);
	fputs("<figure class=\"pchart\"><svg class=\"param-plot\" data-metric=\"", out);
	sb_report_esc(out, a->metrics[m]);
	fputs("\" data-param=\"", out);
	sb_report_esc(out, sb_spec_param_name(r->st->bench->spec, p));
	fprintf(out, "\" data-xscale=\"%s\" data-yscale=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
		"height=\"%.0f\" role=\"img\">\n", ax.log ? "log" : "linear", ay.log ? "log" : "linear",
		PW, PH, PW, PH);
	sb_axis_draw_x(out, &ax, PT, PH - PB, PH - PB + 16, false);
	sb_axis_draw_y(out, &ay, PL, PW - PR);
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
		PL, PH - PB, PW - PR, PH - PB);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">", (PL + PW - PR) / 2,
		PH - 8);
	sb_report_esc(out, sb_spec_param_name(r->st->bench->spec, p));
	fputs(ax.log ? " (log)" : "", out);
	fputs("</text>\n", out);
	qsort(pts, n, sizeof(*pts), cmp_pt);
	for (l = 0; l < nlines; l++) {
		bool first = true;
		fprintf(out, "<g class=\"pline\" data-line=\"%zu\" stroke=\"%s\" fill=\"%s\"><path fill=\"none\" "
			"stroke-width=\"2\" d=\"", l, line_colour[l], line_colour[l]);
		for (k = 0; k < n; k++)
			if (line[pts[k].g] == l) {
				fprintf(out, "%s%.1f %.1f", first ? "M" : " L", sb_axis_pos(&ax, pts[k].x, NULL),
					sb_axis_pos(&ay, pts[k].y, NULL));
				first = false;
			}
		fputs("\"/>", out);
		for (k = 0; k < n; k++) {
			const struct sb_stats *s;
			if (line[pts[k].g] != l)
				continue;
			s = &a->groups[pts[k].g].stats[m];
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" data-group=\"%zu\"><title>",
				sb_axis_pos(&ax, pts[k].x, NULL), sb_axis_pos(&ay, pts[k].y, NULL), pts[k].g);
			sb_report_group_params(r, pts[k].g);
			fputs(": ", out);
			sb_report_esc(out, a->metrics[m]);
			fprintf(out, " mean %s (n=%zu)</title></circle>", sb_fmt_double_short(s->mean, buf), s->n);
		}
		fputs("</g>\n", out);
	}
	fputs("</svg>\n<figcaption>", out);
	sb_report_esc(out, a->metrics[m]);
	fputs(ay.log ? " (mean, log axis)" : " (mean)", out);
	fputs(" against ", out);
	sb_report_esc(out, sb_spec_param_name(r->st->bench->spec, p));
	fputs("</figcaption><div class=\"legend\">", out);
	for (l = 0; l < nlines; l++) {
		fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>", line_colour[l]);
		other_params(r, first_of_line[l], p, out, false);
		fputs("</span>", out);
	}
	fputs("</div></figure>\n", out);
}

int sb_report_param_plots(struct sb_report *r, struct sb_error *err)
{
	const struct sb_analysis *a = r->an;
	FILE *out = r->out;
	size_t *line = malloc((a->ngroups + 1) * sizeof(*line));
	size_t first_of_line[LINES_MAX];
	struct pt *pts = malloc((a->ngroups + 1) * sizeof(*pts));
	double *scratch = malloc((a->ngroups + 1) * sizeof(*scratch));
	size_t b, g, m, drawn = 0;
	int rc = 0;

	if (line == NULL || pts == NULL || scratch == NULL) {
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (b = 0; b < a->nby && a->nmetrics > 0; b++) {
		size_t p = a->by[b], nlines = 0, lines_all = 0, distinct = 0;
		double x0 = NAN;
		bool numeric = true;

		/* numeric in every group, with two values or more */
		for (g = 0; g < a->ngroups && numeric; g++) {
			double x = x_of(r, g, p);
			numeric = !isnan(x);
			if (g == 0)
				x0 = x;
			else if (x != x0)
				distinct = 2;
		}
		if (!numeric || distinct < 2)
			continue;
		/* the lines: the groups that share the other parameters */
		if ((lines_all = assign_lines(r, p, line, first_of_line, &nlines)) == SIZE_MAX) {
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto done;
		}
		if (drawn++ == 0)
			fputs("<section id=\"params\"><h2>Metrics against the parameters</h2>\n<p class=\"sub\">"
			      "For each numeric parameter, each metric's mean over the succeeded children of a "
			      "group, one line per combination of the other parameters; hover a point for its "
			      "group and n.</p>\n", out);
		fputs("<h3>", out);
		sb_report_esc(out, sb_spec_param_name(r->st->bench->spec, p));
		fputs("</h3>\n", out);
		if (lines_all > nlines)
			fprintf(out, "<p class=\"sub\">The first %zu of %zu combinations of the other "
				"parameters are drawn.</p>\n", nlines, lines_all);
		fputs("<div class=\"pcharts\">\n", out);
		for (m = 0; m < a->nmetrics; m++)
			chart(r, m, p, line, nlines, first_of_line, pts, scratch);
		fputs("</div>\n", out);
	}
	if (drawn)
		fputs("</section>\n", out);
done:
	free(line);
	free(pts);
	free(scratch);
	return rc;
}
