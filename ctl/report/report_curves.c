/* The report's learning curves: when the spec declares a metrics file, the
 * numbers its runs' heartbeats carried (<sbench/curves.h>: verified
 * records only) drawn against each run's training time.  For each metric
 * analysed, one chart: for each of the first CURVE_GROUPS groups of the
 * analysis, the median of its runs at every moment and the band from their
 * lowest to their highest, in the group's colour, with each run a thin line
 * whose title names the child and its last value.  A run's time is its
 * latest attempt's, its restarts (a requeue after a checkpoint) laid end
 * to end.  Above CHILDREN_MAX children the logs are not read again for the
 * report: the section says where the curves are. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/render.h"
#include "base/stats.h"
#include "report/report_axis.h"
#include "report/report_private.h"
#include "sbench/curves.h"

#define CW 1280.0
#define CH 300.0
#define CL 80.0
#define CR 24.0
#define CT 14.0
#define CB 42.0
#define CURVE_GROUPS 6      /* groups drawn per chart */
#define CURVE_RUNS 40       /* thin lines per group */
#define GRID 80             /* moments the median and band are taken at */
#define CHILDREN_MAX 20000

static const char *const group_colour[CURVE_GROUPS] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
};

struct step {
	double t, v;
};

/* One run's curve of one metric: its steps in time order. */
struct series {
	struct step *v;
	size_t n, cap;
};

static int push(struct series *s, double t, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct step *p = realloc(s->v, cap * sizeof(*p));
		if (p == NULL)
			return -1;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = (struct step){ t, v };
	return 0;
}

/* The run's value at time t: its last step at or before t; NAN before its
 * first step or after its last (it was not running then). */
static double at(const struct series *s, double t)
{
	size_t lo = 0, hi = s->n;

	if (s->n == 0 || t < s->v[0].t || t > s->v[s->n - 1].t)
		return NAN;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return s->v[lo].v;
}

/* The series of every child (latest attempt) and metric analysed:
 * s[c * nmetrics + m]; NULL out of memory. */
static struct series *collect(const struct sb_report *r, const struct sb_curves *cv)
{
	const struct sb_analysis *a = r->an;
	const struct sb_status *st = r->st;
	struct series *s = calloc(st->n * a->nmetrics + 1, sizeof(*s));
	size_t i, n = sb_curves_count(cv), m;
	size_t last_child = SIZE_MAX;
	int64_t last_restart = -1;
	double offset = 0, run_end = 0;

	if (s == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		struct sb_curve_point p;
		const struct sb_attempt_status *lt;

		if (sb_curves_point(cv, i, &p) < 0 || p.child >= st->n)
			continue;
		lt = st->children[p.child].latest;
		if (lt == NULL || p.attempt != lt->attempt)
			continue;
		/* restarts end to end: each starts where the one before ended */
		if (p.child != last_child) {
			last_child = p.child;
			last_restart = p.restart;
			offset = run_end = 0;
		} else if (p.restart != last_restart) {
			last_restart = p.restart;
			offset = run_end;
		}
		if (offset + p.elapsed_s > run_end)
			run_end = offset + p.elapsed_s;
		for (m = 0; m < a->nmetrics; m++)
			if (!strcmp(a->metrics[m], p.metric))
				break;
		if (m == a->nmetrics || !isfinite(p.value))
			continue;
		if (push(&s[p.child * a->nmetrics + m], offset + p.elapsed_s, p.value) < 0) {
			for (size_t k = 0; k < st->n * a->nmetrics; k++)
				free(s[k].v);
			free(s);
			return NULL;
		}
	}
	return s;
}

static void chart(struct sb_report *r, size_t m, const struct series *s, double *scratch,
		  double *vals)
{
	const struct sb_analysis *a = r->an;
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	size_t c, k, nv = 0, g, ngroups = a->ngroups < CURVE_GROUPS ? a->ngroups : CURVE_GROUPS;
	double tmax = 0;
	struct sb_axis ax = { .p0 = CL, .p1 = CW - CR }, ay = { .p0 = CH - CB, .p1 = CT };
	char buf[SB_DOUBLE_TEXT_MAX];

	for (c = 0; c < st->n; c++) {
		const struct series *e = &s[c * a->nmetrics + m];
		if (a->group_of[c] >= ngroups)
			continue;
		for (k = 0; k < e->n; k++)
			scratch[nv++] = e->v[k].v;
		if (e->n && e->v[e->n - 1].t > tmax)
			tmax = e->v[e->n - 1].t;
	}
	fputs("<h3>", out);
	sb_report_esc(out, a->metrics[m]);
	fputs("</h3>\n", out);
	if (nv == 0) {
		fputs("<p class=\"sub\">No heartbeat of these groups' runs carried this metric.</p>\n", out);
		return;
	}
	sb_axis_fit(&ay, scratch, nv, true);
	ax.lo = 0;
	ax.hi = tmax > 0 ? tmax : 1;
	ax.log = false;
	fprintf(out, "<svg class=\"curve\" data-metric=\"");
	sb_report_esc(out, a->metrics[m]);
	fprintf(out, "\" data-yscale=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\">\n", ay.log ? "log" : "linear", CW, CH, CW, CH);
	sb_axis_draw_y(out, &ay, CL, CW - CR);
	sb_axis_draw_x(out, &ax, CT, CH - CB, CH - CB + 16, true);
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">training time "
		"(the latest attempt's runs, end to end)</text>\n", CL, CH - CB, CW - CR, CH - CB,
		(CL + CW - CR) / 2, CH - 6);
	for (g = 0; g < ngroups; g++) {
		const char *col = group_colour[g];
		double med[GRID + 1], lo[GRID + 1], hi[GRID + 1];
		struct sb_stats ss;
		size_t runs = 0, i, nb;

		fprintf(out, "<g class=\"cgroup\" data-group=\"%zu\" stroke=\"%s\" fill=\"%s\">", g, col, col);
		/* each run, thin */
		for (c = 0; c < st->n; c++) {
			const struct series *e = &s[c * a->nmetrics + m];
			if (a->group_of[c] != g || e->n == 0)
				continue;
			if (runs++ >= CURVE_RUNS)
				continue;
			fprintf(out, "<path class=\"crun\" data-child=\"%zu\" fill=\"none\" stroke-width=\"1\" "
				"stroke-opacity=\".35\" d=\"", c);
			for (k = 0; k < e->n; k++) {
				double x = sb_axis_pos(&ax, e->v[k].t, NULL), y = sb_axis_pos(&ay, e->v[k].v, NULL);
				/* a step function: level until the next point */
				if (k == 0)
					fprintf(out, "M%.1f %.1f", x, y);
				else
					fprintf(out, " H%.1f V%.1f", x, y);
			}
			fprintf(out, "\"><title>child %zu: ", c);
			sb_report_esc(out, a->metrics[m]);
			fprintf(out, " %s after ", sb_fmt_double_short(e->v[e->n - 1].v, buf));
			sb_report_duration(out, e->v[e->n - 1].t);
			fprintf(out, " (%s)</title></path>", sb_class_name(st->children[c].cls));
		}
		/* the median and band at GRID moments, over the runs running then */
		nb = 0;
		for (i = 0; i <= GRID; i++) {
			double t = ax.hi * (double)i / GRID;
			size_t nvals = 0;
			for (c = 0; c < st->n; c++) {
				double v;
				if (a->group_of[c] != g)
					continue;
				v = at(&s[c * a->nmetrics + m], t);
				if (!isnan(v))
					vals[nvals++] = v;
			}
			if (nvals == 0) {
				med[i] = NAN;
				continue;
			}
			sb_stats_compute(vals, nvals, &ss);
			med[i] = ss.median;
			lo[i] = ss.min;
			hi[i] = ss.max;
			nb++;
		}
		if (runs >= 2 && nb > 0) {
			/* the band: each stretch of moments with values, up then back */
			for (i = 0; i <= GRID; i++) {
				size_t j;
				if (isnan(med[i]))
					continue;
				for (j = i; j <= GRID && !isnan(med[j]); j++)
					;
				fputs("<path class=\"cband\" stroke=\"none\" fill-opacity=\".14\" d=\"", out);
				for (k = i; k < j; k++)
					fprintf(out, "%s%.1f %.1f", k == i ? "M" : " L", sb_axis_pos(&ax, ax.hi * (double)k / GRID, NULL),
						sb_axis_pos(&ay, hi[k], NULL));
				for (k = j; k-- > i;)
					fprintf(out, " L%.1f %.1f", sb_axis_pos(&ax, ax.hi * (double)k / GRID, NULL),
						sb_axis_pos(&ay, lo[k], NULL));
				fputs("Z\"/>", out);
				i = j;
			}
		}
		fputs("<path class=\"cmedian\" fill=\"none\" stroke-width=\"2.5\" d=\"", out);
		for (i = 0, k = 0; i <= GRID; i++) {
			if (isnan(med[i])) {
				k = 0;
				continue;
			}
			fprintf(out, "%s%.1f %.1f", k++ ? " L" : "M", sb_axis_pos(&ax, ax.hi * (double)i / GRID, NULL),
				sb_axis_pos(&ay, med[i], NULL));
		}
		fputs("\"><title>", out);
		sb_report_group_params(r, g);
		fprintf(out, ": the median of %zu %s</title></path></g>\n", runs, sb_plural(runs, "run", "runs"));
	}
	fputs("</svg>\n<div class=\"legend\">", out);
	for (g = 0; g < ngroups; g++) {
		fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>", group_colour[g]);
		sb_report_group_params(r, g);
		fputs("</span>", out);
	}
	fputs("</div>\n", out);
}

int sb_report_curves(struct sb_report *r, struct sb_error *err)
{
	const struct sb_analysis *a = r->an;
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	struct sb_curves *cv = NULL;
	struct sb_error e = { 0 };
	struct series *s;
	double *scratch, *vals;
	size_t m;

	if (sb_spec_metrics(st->bench->spec) == NULL || a->nmetrics == 0)
		return 0;
	fputs("<section id=\"curves\"><h2>Learning curves</h2>\n", out);
	if (st->n > CHILDREN_MAX) {
		fprintf(out, "<p class=\"sub\">%zu children: more than the report reads the logs of again "
			"(%d). <code>sbctl log --json</code> and <code>sbench.curves()</code> give every "
			"point.</p>\n</section>\n", st->n, CHILDREN_MAX);
		return 0;
	}
	if (sb_curves_bench(NULL, st->bench, NULL, &cv, &e) < 0) {
		fputs("<p class=\"warn\">The curves could not be read: ", out);
		sb_report_esc(out, e.msg);
		fputs("</p>\n</section>\n", out);
		return 0;
	}
	if (sb_curves_count(cv) == 0) {
		fputs("<p class=\"sub\">No heartbeat carried the metrics file's numbers yet (a heartbeat "
		      "carries them when they changed).</p>\n</section>\n", out);
		sb_curves_destroy(cv);
		return 0;
	}
	s = collect(r, cv);
	scratch = malloc((sb_curves_count(cv) + 1) * sizeof(*scratch));
	vals = malloc((st->n + 1) * sizeof(*vals));
	if (s == NULL || scratch == NULL || vals == NULL) {
		free(scratch);
		free(vals);
		if (s != NULL)
			for (size_t k = 0; k < st->n * a->nmetrics; k++)
				free(s[k].v);
		free(s);
		sb_curves_destroy(cv);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	fputs("<p class=\"sub\">The numbers of the metrics file as the runs' heartbeats carried "
	      "them, against training time: for ", out);
	if (a->ngroups > CURVE_GROUPS)
		fprintf(out, "each of the first %d of the %zu groups", CURVE_GROUPS, a->ngroups);
	else
		fputs("each group", out);
	fprintf(out, ", the median of its runs (thick) and the band from the lowest to the highest "
		"(light), and each run thin (up to %d a group; hover it for its child and last value).",
		CURVE_RUNS);
	if (sb_curves_warning_count(cv) > 0)
		fprintf(out, " <span class=\"warn\">%zu %s left out records that do not verify "
			"(<code>sbctl log</code> says which).</span>", sb_curves_warning_count(cv),
			sb_plural(sb_curves_warning_count(cv), "log", "logs"));
	fputs("</p>\n", out);
	for (m = 0; m < a->nmetrics; m++)
		chart(r, m, s, scratch, vals);
	fputs("</section>\n", out);
	for (size_t k = 0; k < st->n * a->nmetrics; k++)
		free(s[k].v);
	free(s);
	free(scratch);
	free(vals);
	sb_curves_destroy(cv);
	return 0;
}
