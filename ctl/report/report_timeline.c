/* The report's timeline: every child's queue wait (from its submission to
 * its start) and run (from its start to its end), coloured by class; one
 * mark per child up to SB_REPORT_MARKS_MAX children, above that the number
 * of children waiting and running over time, stacked by class.  The times
 * are the scheduler's (sacct's Submit, Start, End, or the reconciled
 * outcome's), else sbctl's submission record and the log's finish; a wait
 * or run that has not ended yet ends at the newest time in the evidence
 * (the last sign of life of any log), never at the time of writing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_private.h"
#include "sbench/report.h"

#define W 1280.0          /* the SVG's width */
#define LEFT 64.0         /* room for the axis labels */
#define RIGHT 20.0
#define TOP 34.0
#define BINS 320          /* columns of the aggregated view */

struct span {
	double sub, start, end; /* seconds since the epoch; -1 unknown */
	bool open;              /* still waiting or running: ends at the last time */
};

/* "2026-11-30 13:00:05 UTC" */
static const char *utc_text(double t, char buf[40])
{
	time_t s = (time_t)t;
	struct tm tm;

	if (gmtime_r(&s, &tm) == NULL || strftime(buf, 40, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, 40, "%.0f s after the epoch", t);
	return buf;
}

static double secs(int64_t s)
{
	return s > 0 ? (double)s : -1;
}

static void child_span(const struct sb_child_status *ch, struct span *sp)
{
	const struct sb_attempt_status *a = ch->latest;

	sp->sub = sp->start = sp->end = -1;
	sp->open = ch->cls == SB_CLASS_PENDING || ch->cls == SB_CLASS_RUNNING ||
		   ch->cls == SB_CLASS_STALE;
	if (a == NULL)
		return;
	if (a->sched.has_row) {
		sp->sub = secs(a->sched.row.submit);
		sp->start = secs(a->sched.row.start);
		sp->end = secs(a->sched.row.end);
	}
	if (sp->sub < 0 && a->sched.submit_ns > 0)
		sp->sub = (double)a->sched.submit_ns / 1e9;
	if (sp->end < 0 && a->log.finish_ns > 0)
		sp->end = (double)a->log.finish_ns / 1e9;
	if (sp->open && sp->end >= 0 && ch->cls != SB_CLASS_STALE)
		sp->end = -1;
	if (sp->start >= 0 && sp->sub > sp->start)
		sp->sub = sp->start; /* clocks of two machines: never a negative wait */
	if (sp->end >= 0 && sp->start > sp->end)
		sp->start = sp->end;
}

/* A step for the time axis: at most about 10 ticks over span seconds. */
static double tick_step(double span)
{
	static const double steps[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
					1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800 };
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(*steps); i++)
		if (span / steps[i] <= 10)
			return steps[i];
	return ceil(span / 10 / 604800) * 604800;
}

static void time_axis(FILE *out, double t0, double t1, double y0, double y1)
{
	double span = t1 - t0, step = tick_step(span), t;

	for (t = 0; t <= span + 1e-9; t += step) {
		double x = LEFT + (W - LEFT - RIGHT) * t / span;
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">", x, y0, x, y1,
			x, y0 - 8);
		sb_report_duration(out, t);
		fputs("</text>\n", out);
	}
}

static double xof(double t, double t0, double span)
{
	return LEFT + (W - LEFT - RIGHT) * (t - t0) / span;
}

static void legend(FILE *out, const struct sb_status *st)
{
	size_t k;

	fputs("<div class=\"legend\">", out);
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, "<span><i class=\"sw %s\"></i>%s</span>",
				sb_report_class_css((enum sb_class)k), sb_class_name((enum sb_class)k));
	fputs("<span><i class=\"sw wait\" style=\"background:#555\"></i>light: waiting in the queue"
	      "</span><span><i class=\"sw\" style=\"background:#555\"></i>solid: running</span>", out);
	for (k = 0; k < st->n; k++)
		if (st->children[k].reused) {
			fputs("<span>a thin mark at the start: no time here (reused: its run is in an "
			      "earlier benchmark, as its tooltip says; or never submitted)</span>", out);
			break;
		}
	fputs("</div>\n", out);
}

/* One mark (a <g>) per child, a row each. */
static void marks(struct sb_report *r, double t0, double t1)
{
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	double span = t1 - t0, h = st->n * 4.0, rowh, y, bar;
	size_t c, k;

	if (h < 160)
		h = 160;
	if (h > 820)
		h = 820;
	rowh = h / (double)st->n;
	bar = rowh > 1.25 ? rowh * 0.78 : rowh;
	fprintf(out, "<svg id=\"timeline\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\" aria-label=\"timeline of every child\">\n", W, TOP + h + 40, W, TOP + h + 40);
	time_axis(out, t0, t1, TOP, TOP + h);
	for (k = 0; k <= 4; k++) {
		size_t idx = (st->n - 1) * k / 4;
		y = TOP + rowh * ((double)idx + 0.5);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"end\">%zu</text>\n",
			LEFT - 8, y + 4, idx);
	}
	fprintf(out, "<text x=\"14\" y=\"%.1f\" font-size=\"13\" transform=\"rotate(-90 14 %.1f)\" "
		"text-anchor=\"middle\">child</text>\n", TOP + h / 2, TOP + h / 2);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const char *css = sb_report_class_css(ch->cls);
		struct span sp;
		double s, b, e, wait_end, run_end;

		child_span(&r->st->children[c], &sp);
		s = sp.sub, b = sp.start, e = sp.end;

		y = TOP + rowh * (double)c + (rowh - bar) / 2;
		fprintf(out, "<g class=\"mark\" data-child=\"%zu\" data-class=\"%s\"%s><title>child %zu: %s",
			c, sb_class_name(ch->cls), ch->reused ? " data-reused=\"1\"" : "", c,
			sb_class_name(ch->cls));
		if (ch->cls != SB_CLASS_SUCCEEDED && ch->reason && *ch->reason) {
			fputs(" \u2014 ", out);
			sb_report_esc(out, ch->reason);
		}
		fputs("\n", out);
		sb_report_params(r, c);
		if (s >= 0 || b >= 0) {
			run_end = e >= 0 ? e : t1;
			wait_end = b >= 0 ? b : run_end;
			if (s >= 0) {
				fputs("\nwaited ", out);
				sb_report_duration(out, wait_end - s);
			}
			if (b >= 0) {
				fputs(", ran ", out);
				sb_report_duration(out, run_end - b);
			}
			if (e < 0)
				fputs(" (not over)", out);
		} else if (ch->reused) {
			fputs("\n", out);
			sb_status_reused_text(out, ch->reused);
			fputs(": its run, and its times, are in that benchmark", out);
		} else {
			fputs("\nno time known (never submitted, or no scheduler record)", out);
		}
		fputs("</title>", out);
		if (s < 0 && b < 0) {
			fprintf(out, "<rect class=\"%s open\" x=\"%.1f\" y=\"%.2f\" width=\"3\" height=\"%.2f\"/>",
				css, LEFT, y, bar);
		} else {
			run_end = e >= 0 ? e : t1;
			wait_end = b >= 0 ? b : run_end;
			if (s >= 0) {
				double x0 = xof(s, t0, span), x1 = xof(wait_end, t0, span);
				fprintf(out, "<rect class=\"%s wait\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" "
					"height=\"%.2f\"/>", css, x0, y, x1 - x0 > 1 ? x1 - x0 : 1, bar);
			}
			if (b >= 0) {
				double x0 = xof(b, t0, span), x1 = xof(run_end, t0, span);
				fprintf(out, "<rect class=\"%s%s\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" "
					"height=\"%.2f\"/>", css, e < 0 ? " open" : "", x0, y,
					x1 - x0 > 1.5 ? x1 - x0 : 1.5, bar);
			}
		}
		fputs("</g>\n", out);
	}
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT,
		TOP + h, W - RIGHT, TOP + h);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">time since "
		"the first submission</text>\n</svg>\n", LEFT + (W - LEFT - RIGHT) / 2, TOP + h + 28);
}

/* One panel of the aggregated view: how many children of each class were
 * in that state in each column of time, stacked. */
static void band_panel(FILE *out, const char *what, const int64_t (*cnt)[SB_CLASS_COUNT],
		       double y0, double h, double t0, double t1, bool wait)
{
	double colw = (W - LEFT - RIGHT) / BINS, max = 1;
	size_t bin, k;

	for (bin = 0; bin < BINS; bin++) {
		double sum = 0;
		for (k = 0; k < SB_CLASS_COUNT; k++)
			sum += (double)cnt[bin][k];
		if (sum > max)
			max = sum;
	}
	fprintf(out, "<g class=\"band\" data-panel=\"%s\" shape-rendering=\"crispEdges\">\n",
		wait ? "waiting" : "running");
	time_axis(out, t0, t1, y0, y0 + h);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"end\">%.0f</text>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"end\">0</text>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"600\">%s</text>\n",
		LEFT - 8, y0 + 12, max, LEFT - 8, y0 + h, LEFT, y0 - 30, what);
	for (bin = 0; bin < BINS; bin++) {
		double y = y0 + h;
		for (k = 0; k < SB_CLASS_COUNT; k++) {
			double bh;
			if (cnt[bin][k] == 0)
				continue;
			bh = h * (double)cnt[bin][k] / max;
			y -= bh;
			fprintf(out, "<rect class=\"%s%s\" x=\"%.1f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>",
				sb_report_class_css((enum sb_class)k), wait ? " wait" : "",
				LEFT + colw * (double)bin, y, colw + 0.05, bh);
		}
		if (bin % 16 == 15)
			fputc('\n', out);
	}
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n</g>\n",
		LEFT, y0 + h, W - RIGHT, y0 + h);
}

/* Adds [a, b) to the columns of class k (a difference array). */
static void band_add(int64_t (*d)[SB_CLASS_COUNT], double a, double b, double t0, double span,
		     size_t k)
{
	long lo = (long)floor((a - t0) / span * BINS), hi = (long)floor((b - t0) / span * BINS);

	if (lo < 0)
		lo = 0;
	if (hi >= BINS)
		hi = BINS - 1;
	if (hi < lo)
		hi = lo;
	d[lo][k]++;
	d[hi + 1][k]--;
}

static int bands(struct sb_report *r, double t0, double t1,
		 struct sb_error *err)
{
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	int64_t (*wait)[SB_CLASS_COUNT] = calloc(BINS + 1, sizeof(*wait));
	int64_t (*run)[SB_CLASS_COUNT] = calloc(BINS + 1, sizeof(*run));
	double span = t1 - t0, ph = 240, top = TOP + 30;
	size_t c, k, bin, untimed = 0;

	if (wait == NULL || run == NULL) {
		free(wait);
		free(run);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (c = 0; c < st->n; c++) {
		struct span sp;
		double s, b, e;

		child_span(&r->st->children[c], &sp);
		s = sp.sub, b = sp.start, e = sp.end >= 0 ? sp.end : t1;
		k = st->children[c].cls;
		if (s < 0 && b < 0) {
			untimed++;
			continue;
		}
		if (s >= 0)
			band_add(wait, s, b >= 0 ? b : e, t0, span, k);
		if (b >= 0)
			band_add(run, b, e, t0, span, k);
	}
	for (bin = 1; bin < BINS; bin++)
		for (k = 0; k < SB_CLASS_COUNT; k++) {
			wait[bin][k] += wait[bin - 1][k];
			run[bin][k] += run[bin - 1][k];
		}
	fprintf(out, "<p class=\"sub\">%zu children: too many for one mark each (the limit is %d), "
		"so each column counts the children running (top) and waiting in the queue (bottom) "
		"in its slice of time, stacked by class.</p>\n", st->n, SB_REPORT_MARKS_MAX);
	if (untimed)
		fprintf(out, "<p class=\"sub\">%zu children have no time known (never submitted, or no "
			"scheduler record) and are not drawn.</p>\n", untimed);
	fprintf(out, "<svg id=\"timeline\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\" aria-label=\"children running and waiting over time\">\n", W,
		top + 2 * ph + 110, W, top + 2 * ph + 110);
	band_panel(out, "children running", (const int64_t (*)[SB_CLASS_COUNT])run, top, ph, t0, t1,
		   false);
	band_panel(out, "children waiting in the queue", (const int64_t (*)[SB_CLASS_COUNT])wait,
		   top + ph + 70, ph, t0, t1, true);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"middle\">time since "
		"the first submission</text>\n</svg>\n", LEFT + (W - LEFT - RIGHT) / 2,
		top + 2 * ph + 100);
	free(wait);
	free(run);
	return 0;
}

int sb_report_timeline(struct sb_report *r, struct sb_error *err)
{
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	double t0 = INFINITY, t1 = -INFINITY;
	char when[40];
	size_t c;
	int rc = 0;

	/* each child's span is worked out again where it is drawn: a cheap
	 * function of its attempt, not worth 32 bytes a child */
	for (c = 0; c < st->n; c++) {
		const struct sb_attempt_status *a = st->children[c].latest;
		struct span sp;

		child_span(&st->children[c], &sp);
		if (sp.sub >= 0 && sp.sub < t0)
			t0 = sp.sub;
		if (sp.start >= 0 && sp.start < t0)
			t0 = sp.start;
		if (sp.sub > t1)
			t1 = sp.sub;
		if (sp.start > t1)
			t1 = sp.start;
		if (sp.end > t1)
			t1 = sp.end;
		/* the last sign of life of a run that is not over (a finished one
		 * ends at its end: a log copied later has a newer mtime) */
		if (sp.open && a && a->log.last_life_ns > 0 &&
		    (double)a->log.last_life_ns / 1e9 > t1)
			t1 = (double)a->log.last_life_ns / 1e9;
	}
	fputs("<section id=\"timeline-section\"><h2>Timeline</h2>\n", out);
	if (!isfinite(t0) || st->n == 0) {
		fputs("<p class=\"sub\">No child has a submission time yet: nothing to draw.</p>\n", out);
		fputs("<div id=\"timeline\">", out);
		for (c = 0; c < st->n; c++)
			fprintf(out, "<span class=\"mark\" data-child=\"%zu\" data-class=\"%s\"></span>", c,
				sb_class_name(st->children[c].cls));
		fputs("</div>\n</section>\n", out);
		return 0;
	}
	if (t1 - t0 < 1)
		t1 = t0 + 1;
	fputs("<p class=\"sub\">From the first submission, ", out);
	fputs(utc_text(t0, when), out);
	fputs(", to the newest time in the evidence, ", out);
	fputs(utc_text(t1, when), out);
	fputs(" (", out);
	sb_report_duration(out, t1 - t0);
	fputs(").</p>\n", out);
	legend(out, st);
	if (st->n <= SB_REPORT_MARKS_MAX)
		marks(r, t0, t1);
	else
		rc = bands(r, t0, t1, err);
	fputs("</section>\n", out);
	return rc;
}
