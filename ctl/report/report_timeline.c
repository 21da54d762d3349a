/* The report's timeline: every child's queue wait (from its submission to
 * its start) and run (from its start to its end), coloured by class; one
 * mark per child up to SB_REPORT_MARKS_MAX children, above that the number
 * of children waiting and running over time, stacked by class.  The times
 * are the scheduler's (sacct's Submit, Start, End, or the reconciled
 * outcome's), else sbctl's submission record and the log's finish; a wait
 * or run that has not ended yet ends at the newest time in the evidence
 * (the last sign of life of any log), never at the time of writing.
 *
 * A child whose job ran more than once (requeued: stage 4b's restarts,
 * sb_status_chain) has one segment per run on its row instead of one run,
 * from the run's start to its end as its own log (else the scheduler's row
 * of that run) says, the requeue waits between them light, and a dark tick
 * where each restart begins; every other child is drawn as before.  The
 * aggregated view does not split runs: a restarted child waits there from
 * its submission to the start of its latest run.
 *
 * A child with more than one attempt (sbctl rerun) has every attempt on
 * its row, in order: each earlier attempt's wait and run paler and
 * outlined, in the colour of that attempt's own class, then the latest as
 * above; every segment of such a child says its attempt (data-attempt, and
 * a title naming it).  The aggregated view counts every attempt's wait and
 * run, each in its own attempt's class. */
#include <inttypes.h>
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
#define TICK "#1d2330"    /* the tick where a restart begins */

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

/* The span of attempt a (NULL: none) of class cls: its times, open when
 * its class says it is not over. */
static void attempt_span(const struct sb_attempt_status *a, enum sb_class cls, struct span *sp)
{
	sp->sub = sp->start = sp->end = -1;
	sp->open = cls == SB_CLASS_PENDING || cls == SB_CLASS_RUNNING || cls == SB_CLASS_STALE;
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
	if (sp->open && sp->end >= 0 && cls != SB_CLASS_STALE)
		sp->end = -1;
	if (sp->start >= 0 && sp->sub > sp->start)
		sp->sub = sp->start; /* clocks of two machines: never a negative wait */
	if (sp->end >= 0 && sp->start > sp->end)
		sp->start = sp->end;
}

/* The span of child ch's latest attempt, whose class is the child's. */
static void child_span(const struct sb_child_status *ch, struct span *sp)
{
	attempt_span(ch->latest, ch->cls, sp);
}

/* Child ch's attempts are drawn one by one: it has more than one (a reused
 * child has its source's run alone). */
static bool several_attempts(const struct sb_child_status *ch)
{
	return ch->nattempts > 1 && ch->reused == NULL;
}

static double xof(double t, double t0, double span)
{
	return LEFT + (W - LEFT - RIGHT) * (t - t0) / span;
}

/* A bar of a child's row from time a to b (at least minw wide), its CSS
 * classes css and more; the caller adds its attributes and closes it. */
static void bar_rect(FILE *out, const char *css, const char *more, double a, double b, double minw,
		     double t0, double span, double y, double bar)
{
	double x0 = xof(a, t0, span), x1 = xof(b, t0, span);

	fprintf(out, "<rect class=\"%s%s\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\"", css,
		more, x0, y, x1 - x0 > minw ? x1 - x0 : minw, bar);
}

/* "13:00:05" */
static const char *hms_text(double t, char buf[16])
{
	time_t s = (time_t)t;
	struct tm tm;

	if (gmtime_r(&s, &tm) == NULL || strftime(buf, 16, "%H:%M:%S", &tm) == 0)
		snprintf(buf, 16, "?");
	return buf;
}

/* The restarts of child c when its job ran more than once, else NULL (a
 * child with no restart data, or whose one run is its only one, is drawn
 * as one run). */
static const struct sb_chain *restarted(const struct sb_status *st, size_t c)
{
	const struct sb_chain *chn = sb_status_chain(st, c);

	return chn != NULL && chn->n > 1 ? chn : NULL;
}

/* One run of a restarted child's job: seconds since the epoch, -1 unknown;
 * open, it is not over (or its end is not known) and ends at the newest
 * time in the evidence. */
struct run {
	double start, end;
	bool open;
};

static double ns_secs(int64_t ns)
{
	return ns > 0 ? (double)ns / 1e9 : -1;
}

/* Run k of chn, child ch's job (sp: the child's span, from the scheduler's
 * row of its latest run).  A run's start and end are its log's (stage 4b
 * fills them from sacct's row of an earlier run that has no log); the
 * latest run falls back on the child's row, as the one-run drawing does.
 * A run with no known end ends at the next run's start, else at t1. */
static void run_of(const struct sb_chain *chn, uint32_t k, const struct sb_child_status *ch,
		   const struct span *sp, double t1, struct run *out)
{
	const struct sb_restart *e = &chn->v[k];
	bool last = k + 1 == chn->n;
	double prev_end = k > 0 ? ns_secs(chn->v[k - 1].ended_ns) : -1;

	out->start = ns_secs(e->started_ns);
	out->end = ns_secs(e->ended_ns);
	out->open = false;
	if (last && out->start < 0 && sp->start >= 0 && sp->start >= prev_end &&
	    ch->cls != SB_CLASS_PENDING)
		out->start = sp->start;
	if (last && out->end < 0 && !sp->open && sp->end >= 0 && sp->end >= out->start)
		out->end = sp->end;
	if (out->start < 0)
		return; /* never started (a restart still waiting), or no time known */
	if (out->end < 0) {
		out->open = true;
		out->end = t1;
		if (!last && chn->v[k + 1].started_ns > 0 && ns_secs(chn->v[k + 1].started_ns) < t1)
			out->end = ns_secs(chn->v[k + 1].started_ns);
	}
	if (out->end < out->start)
		out->end = out->start; /* clocks of two machines */
}

/* The title of run k: "child 3 restart 1: 12:00:05–12:00:41 UTC (36 s),
 * ended by requeue_signal, resumed from 3fa2c1d09e8b, checkpoint
 * 9b1e0c27aa41, on node1". */
static void run_title(FILE *out, size_t c, int32_t attempt, const struct sb_restart *e,
		      const struct run *ru)
{
	char a[16], b[16];

	fprintf(out, "<title>child %zu ", c);
	if (attempt >= 0)
		fprintf(out, "attempt %" PRId32 " ", attempt);
	fprintf(out, "restart %" PRId32 ": ", e->restart);
	if (ru->start < 0)
		fputs("not started", out);
	else if (ru->open)
		fprintf(out, "%s UTC\u2013, not over (", hms_text(ru->start, a));
	else
		fprintf(out, "%s\u2013%s UTC (", hms_text(ru->start, a), hms_text(ru->end, b));
	if (ru->start >= 0) {
		sb_report_duration(out, ru->end - ru->start);
		fputs(ru->open ? " so far)" : ")", out);
	}
	if (e->ended_by) {
		fputs(", ended by ", out);
		sb_report_esc(out, e->ended_by);
	}
	if (e->resumed_from[0])
		fprintf(out, ", resumed from %.12s", e->resumed_from);
	if (e->checkpoint[0])
		fprintf(out, ", checkpoint %.12s", e->checkpoint);
	if (e->node && e->node[0]) {
		fputs(", on ", out);
		sb_report_esc(out, e->node);
	}
	fputs("</title>", out);
}

/* The attribute of a segment of a child drawn attempt by attempt (attempt
 * >= 0): data-attempt="N"; nothing for a child of one attempt. */
static void attempt_attr(FILE *out, int32_t attempt)
{
	if (attempt >= 0)
		fprintf(out, " data-attempt=\"%" PRId32 "\"", attempt);
}

/* The title of a segment of attempt a of child c: "child 3 attempt 0
 * (earlier): failed — exit 4, job 1234_3\nwaited 2 s, ran 1.2 s
 * (12:00:03–12:00:04 UTC)". */
static void attempt_title(FILE *out, size_t c, const struct sb_attempt_status *a, enum sb_class cls,
			  const struct span *sp, double wait_end, double run_end, bool open, bool latest)
{
	char x[16], y[16];

	fprintf(out, "<title>child %zu attempt %" PRId32 " (%s): %s", c, a->attempt,
		latest ? "latest" : "earlier", sb_class_name(cls));
	if (cls != SB_CLASS_SUCCEEDED && a->verdict.reason && *a->verdict.reason) {
		fputs(" \u2014 ", out);
		sb_report_esc(out, a->verdict.reason);
	}
	if (a->job_id) {
		fputs(", job ", out);
		sb_report_esc(out, a->job_id);
	}
	fputc('\n', out);
	if (sp->sub >= 0) {
		fputs("waited ", out);
		sb_report_duration(out, wait_end - sp->sub);
	}
	if (sp->start >= 0) {
		fputs(sp->sub >= 0 ? ", ran " : "ran ", out);
		sb_report_duration(out, run_end - sp->start);
		if (open)
			fputs(" (not over)", out);
		else
			fprintf(out, " (%s\u2013%s UTC)", hms_text(sp->start, x), hms_text(run_end, y));
	} else if (open) {
		fputs(" (not over)", out);
	}
	if (!latest)
		fputs("\nan earlier attempt: the child's class is its latest attempt's", out);
	fputs("</title>", out);
}

/* Attempt a of child c, its wait and run on the row (y, bar), each with
 * data-attempt and a title naming the attempt; an earlier attempt (not
 * latest) paler and outlined, in the colour of its own class cls.  cap:
 * where a wait or run that is not over ends. */
static void attempt_segments(FILE *out, size_t c, const struct sb_attempt_status *a,
			     enum sb_class cls, bool latest, double cap, double t0, double t1, double y,
			     double bar)
{
	const char *css = sb_report_class_css(cls);
	double span = t1 - t0, wait_end, run_end;
	char look[96] = "";
	struct span sp;

	attempt_span(a, cls, &sp);
	if (sp.sub < 0 && sp.start < 0)
		return; /* no time known: nothing to draw */
	run_end = sp.end >= 0 ? sp.end : cap;
	wait_end = sp.start >= 0 ? sp.start : run_end;
	if (!latest)
		snprintf(look, sizeof(look), " fill-opacity=\"0.45\"%s%s%s", bar >= 5 ? " stroke=\"" : "",
			 bar >= 5 ? sb_report_class_colour(cls) : "", bar >= 5 ? "\" stroke-width=\"1\"" : "");
	if (sp.sub >= 0) {
		bar_rect(out, css, latest ? " wait" : " wait earlier", sp.sub, wait_end, 1, t0, span, y,
			 bar);
		fputs(look, out);
		attempt_attr(out, a->attempt);
		fputc('>', out);
		attempt_title(out, c, a, cls, &sp, wait_end, run_end, sp.end < 0, latest);
		fputs("</rect>", out);
	}
	if (sp.start >= 0) {
		bar_rect(out, css, sp.end < 0 ? (latest ? " open" : " open earlier") : latest ? "" : " earlier",
			 sp.start, run_end, 1.5, t0, span, y, bar);
		fputs(look, out);
		attempt_attr(out, a->attempt);
		fputc('>', out);
		attempt_title(out, c, a, cls, &sp, wait_end, run_end, sp.end < 0, latest);
		fputs("</rect>", out);
	}
}

/* Every attempt of child ch (c) before its latest, in order (nothing for
 * a child of one attempt).  An earlier attempt that is not over ends at the
 * next one's submission, else at t1. */
static void earlier_attempts(FILE *out, size_t c, const struct sb_child_status *ch, double t0,
			     double t1, double y, double bar)
{
	uint32_t k;

	if (!several_attempts(ch))
		return;
	for (k = 0; k + 1 < ch->nattempts; k++) {
		const struct sb_attempt_status *a = &ch->attempts[k];
		struct span next;
		double cap = t1;

		attempt_span(&ch->attempts[k + 1], ch->attempts[k + 1].verdict.cls, &next);
		if (next.sub >= 0 && next.sub < cap)
			cap = next.sub;
		attempt_segments(out, c, a, a->verdict.cls, false, cap, t0, t1, y, bar);
	}
}

/* The line of a child's title that lists its attempts: "3 attempts (sbctl
 * rerun), each on this row, the earlier paler: 0 failed, 1 killed, 2
 * succeeded". */
static void attempts_line(FILE *out, const struct sb_child_status *ch)
{
	uint32_t k;

	if (!several_attempts(ch))
		return;
	fprintf(out, "\n%" PRIu32 " attempts (sbctl rerun), each on this row, the earlier paler:",
		ch->nattempts);
	for (k = 0; k < ch->nattempts; k++)
		fprintf(out, "%s %" PRId32 " %s", k ? "," : "", ch->attempts[k].attempt,
			sb_class_name(ch->attempts[k].verdict.cls));
}

/* The rest of a restarted child's mark: its title's times, then its
 * segments.  sub: its submission (-1 unknown); y, bar: its row. */
static void restart_row(FILE *out, size_t c, const struct sb_child_status *ch,
			const struct sb_chain *chn, const struct span *sp, double t0, double t1,
			double y, double bar)
{
	const char *css = sb_report_class_css(ch->cls);
	int32_t att = several_attempts(ch) ? ch->latest->attempt : -1;
	double span = t1 - t0, ran = 0, requeued = 0, first = -1, prev_end = -1, sub = sp->sub;
	struct run ru;
	bool open = false;
	uint32_t k;

	/* the title: the first wait, the time run and waited between runs */
	for (k = 0; k < chn->n; k++) {
		run_of(chn, k, ch, sp, t1, &ru);
		if (ru.start < 0) {
			if (k + 1 == chn->n && sp->open && prev_end >= 0) {
				requeued += t1 - prev_end; /* requeued, waiting now */
				open = true;
			}
			continue;
		}
		if (first < 0)
			first = ru.start;
		if (prev_end >= 0 && ru.start > prev_end)
			requeued += ru.start - prev_end;
		ran += ru.end - ru.start;
		open |= ru.open;
		prev_end = ru.open ? -1 : ru.end;
	}
	if (sub >= 0 && first >= 0 && sub > first)
		sub = first;
	fputs("\n", out);
	if (sub >= 0) {
		fputs("waited ", out);
		sb_report_duration(out, (first >= 0 ? first : t1) - sub);
		fputs(", then ", out);
	}
	fprintf(out, "%" PRIu32 " runs (%" PRIu32 " restart%s): ran ", chn->n, chn->n - 1,
		chn->n == 2 ? "" : "s");
	sb_report_duration(out, ran);
	fputs(", waited ", out);
	sb_report_duration(out, requeued);
	fputs(" in the queue between them", out);
	if (open)
		fputs(" (not over)", out);
	fputs("</title>", out);
	earlier_attempts(out, c, ch, t0, t1, y, bar);

	/* the segments: the first wait, then each run and the wait before it */
	if (sub >= 0) {
		bar_rect(out, css, " wait", sub, first >= 0 ? first : t1, 1, t0, span, y, bar);
		attempt_attr(out, att);
		fputs("/>", out);
	}
	prev_end = -1;
	for (k = 0; k < chn->n; k++) {
		const struct sb_restart *e = &chn->v[k];
		double wait_end;

		run_of(chn, k, ch, sp, t1, &ru);
		wait_end = ru.start >= 0 ? ru.start : k + 1 == chn->n && sp->open ? t1 : -1;
		if (k > 0 && prev_end >= 0 && wait_end > prev_end) {
			bar_rect(out, css, ru.start < 0 ? " wait open" : " wait", prev_end, wait_end, 0, t0,
				 span, y, bar);
			fprintf(out, " data-requeue=\"%" PRId32 "\"", e->restart);
			attempt_attr(out, att);
			fprintf(out, "><title>child %zu: requeued, waited ", c);
			sb_report_duration(out, wait_end - prev_end);
			fprintf(out, "%s in the queue for restart %" PRId32 "</title></rect>",
				ru.start < 0 ? " so far" : "", e->restart);
		}
		if (ru.start < 0)
			continue;
		bar_rect(out, css, ru.open ? " restart open" : " restart", ru.start, ru.end, 1.5, t0, span,
			 y, bar);
		fprintf(out, " data-restart=\"%" PRId32 "\"", e->restart);
		attempt_attr(out, att);
		if (e->ended_by) {
			fputs(" data-ended-by=\"", out);
			sb_report_esc(out, e->ended_by);
			fputc('"', out);
		}
		fputc('>', out);
		run_title(out, c, att, e, &ru);
		fputs("</rect>", out);
		if (k > 0) {
			double x = xof(ru.start, t0, span);
			fprintf(out, "<line class=\"restart-tick\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" "
				"y2=\"%.2f\" stroke=\"" TICK "\" stroke-width=\"1.5\"/>", x, y, x, y + bar);
		}
		prev_end = ru.open ? -1 : ru.end;
	}
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

/* About how wide a label of n characters of the axes' 13 px font is: wide
 * enough for the widest of "min", "ms" and digits in the fonts browsers
 * pick for system-ui. */
static double label_width(size_t n)
{
	return 8.0 * (double)n;
}

/* The time axis over [t0, t1], its grid from y0 to y1 and a label above
 * each tick.  Every label stays inside the SVG and clear of the others:
 * the first starts at its tick (clear of the child numbers left of it), the
 * last ends at its tick when centred it would pass the right edge, and one
 * that would touch the label before it is left out (its grid line stays). */
static void time_axis(FILE *out, double t0, double t1, double y0, double y1)
{
	double span = t1 - t0, step = tick_step(span), t, prev_right = -INFINITY;
	char text[48];
	size_t i = 0;

	/* t from i, not added up: ten steps of 0.1 s make 1 s, not 999.99 ms */
	for (i = 0; (t = (double)i * step) <= span + 1e-9; i++) {
		double x = LEFT + (W - LEFT - RIGHT) * t / span, w, left;
		const char *anchor = "middle";
		FILE *mem = fmemopen(text, sizeof(text), "w");
		size_t n = 0;

		if (mem != NULL) {
			sb_report_duration(mem, t);
			n = (size_t)ftell(mem);
			fclose(mem);
		}
		text[n < sizeof(text) ? n : sizeof(text) - 1] = '\0';
		w = label_width(strlen(text));
		left = x - w / 2;
		if (i == 0) {
			anchor = "start";
			left = x;
		} else if (x + w / 2 > W - 2) {
			anchor = "end";
			left = x - w;
		}
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y0,
			x, y1);
		if (left < prev_right + 10) {
			fputc('\n', out);
			continue;
		}
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
			"text-anchor=\"%s\">", x, y0 - 8, anchor);
		sb_report_esc(out, text);
		fputs("</text>\n", out);
		prev_right = left + w;
	}
}

/* What the timeline draws that its legend explains. */
struct seen {
	bool restarts;  /* a child whose job ran more than once */
	bool attempts;  /* a child of more than one attempt */
	bool reused;    /* a reused child (no time here) */
	bool untimed;   /* another child with no time known */
};

static void legend(FILE *out, const struct sb_status *st, const struct seen *seen, bool marks)
{
	size_t k;

	fputs("<div class=\"legend\">", out);
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, "<span><i class=\"sw %s\"></i>%s</span>",
				sb_report_class_css((enum sb_class)k), sb_class_name((enum sb_class)k));
	fputs("<span><i class=\"sw wait\" style=\"background:#555\"></i>light: waiting in the queue"
	      "</span><span><i class=\"sw\" style=\"background:#555\"></i>solid: running</span>", out);
	if (marks && seen->attempts)
		fputs("<span data-legend=\"attempts\"><i class=\"sw\" style=\"background:rgba(85,85,85,.45);"
		      "box-shadow:inset 0 0 0 1px #555\"></i>paler, outlined: an earlier attempt of the "
		      "child (before an sbctl rerun), in the colour of that attempt's class; the latest "
		      "attempt, solid, gives the child its class</span>", out);
	if (marks && seen->restarts)
		fputs("<span data-legend=\"restarts\"><i class=\"sw\" style=\"background:" TICK
		      ";width:3px\"></i>a restart: the job ran again after a requeue, the light gap "
		      "before it its wait in the queue</span>", out);
	if (marks && seen->reused)
		fputs("<span data-legend=\"reused\"><i class=\"sw\" style=\"background:#fff;"
		      "border-radius:50%;box-shadow:inset 0 0 0 1.5px #555\"></i>a ring at the left edge: a "
		      "reused child, whose run is in an earlier benchmark (its tooltip names which), so it "
		      "has no time here</span>", out);
	if (marks && seen->untimed)
		fputs("<span data-legend=\"untimed\"><i class=\"sw\" style=\"background:#555;width:3px;"
		      "opacity:.6\"></i>a thin mark at the left edge, not reused: no time known (never "
		      "submitted, or no scheduler record)</span>", out);
	fputs("</div>\n", out);
}

/* One mark (a <g>) per child, a row each. */
static void marks(struct sb_report *r, double t0, double t1)
{
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	double span = t1 - t0, h = st->n * 4.0, rowh, y, bar;
	size_t c, k, last = SIZE_MAX;

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
		if (idx == last)
			continue; /* a few children: each number once */
		last = idx;
		y = TOP + rowh * ((double)idx + 0.5);
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
			"text-anchor=\"end\">%zu</text>\n", LEFT - 8, y + 4, idx);
	}
	fprintf(out, "<text x=\"14\" y=\"%.1f\" font-size=\"13\" transform=\"rotate(-90 14 %.1f)\" "
		"text-anchor=\"middle\">child</text>\n", TOP + h / 2, TOP + h / 2);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const char *css = sb_report_class_css(ch->cls);
		struct span sp;
		double s, b, e, wait_end, run_end;

		const struct sb_chain *chn = restarted(st, c);

		child_span(&r->st->children[c], &sp);
		s = sp.sub, b = sp.start, e = sp.end;

		y = TOP + rowh * (double)c + (rowh - bar) / 2;
		fprintf(out, "<g class=\"mark\" data-child=\"%zu\" data-class=\"%s\"%s", c,
			sb_class_name(ch->cls), ch->reused ? " data-reused=\"1\"" : "");
		if (chn)
			fprintf(out, " data-restarts=\"%" PRIu32 "\"", chn->n - 1);
		if (several_attempts(ch))
			fprintf(out, " data-attempts=\"%" PRIu32 "\"", ch->nattempts);
		fprintf(out, "><title>child %zu: %s", c, sb_class_name(ch->cls));
		if (ch->cls != SB_CLASS_SUCCEEDED && ch->reason && *ch->reason) {
			fputs(" \u2014 ", out);
			sb_report_esc(out, ch->reason);
		}
		fputs("\n", out);
		sb_report_params(r, c);
		attempts_line(out, ch);
		if (chn) {
			restart_row(out, c, ch, chn, &sp, t0, t1, y, bar);
			fputs("</g>\n", out);
			continue;
		}
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
		earlier_attempts(out, c, ch, t0, t1, y, bar);
		if (several_attempts(ch)) {
			attempt_segments(out, c, ch->latest, ch->cls, true, t1, t0, t1, y, bar);
		} else if (s < 0 && b < 0 && ch->reused) {
			/* a ring, not a bar: no time here (its run is elsewhere) */
			double rad = bar / 2 > 5 ? 5 : bar / 2 < 1 ? 1 : bar / 2;
			fprintf(out, "<circle class=\"reused\" cx=\"%.1f\" cy=\"%.2f\" r=\"%.2f\" fill=\"#fff\" "
				"stroke=\"%s\" stroke-width=\"%.1f\"/>", LEFT + rad + 1, y + bar / 2, rad,
				sb_report_class_colour(ch->cls), rad > 2 ? 1.5 : 0.8);
		} else if (s < 0 && b < 0) {
			fprintf(out, "<rect class=\"%s open\" x=\"%.1f\" y=\"%.2f\" width=\"3\" height=\"%.2f\"/>",
				css, LEFT, y, bar);
		} else {
			run_end = e >= 0 ? e : t1;
			wait_end = b >= 0 ? b : run_end;
			if (s >= 0) {
				bar_rect(out, css, " wait", s, wait_end, 1, t0, span, y, bar);
				fputs("/>", out);
			}
			if (b >= 0) {
				bar_rect(out, css, e < 0 ? " open" : "", b, run_end, 1.5, t0, span, y, bar);
				fputs("/>", out);
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
	/* each column overlaps the next by half a unit, so that no seam shows
	 * between them at any scale; the waits are paled as one group, not rect
	 * by rect, so that the overlaps do not show darker either */
	fprintf(out, "<g class=\"columns\"%s>\n", wait ? " opacity=\"0.35\"" : "");
	for (bin = 0; bin < BINS; bin++) {
		double y = y0 + h;
		for (k = 0; k < SB_CLASS_COUNT; k++) {
			double bh;
			if (cnt[bin][k] == 0)
				continue;
			bh = h * (double)cnt[bin][k] / max;
			y -= bh;
			fprintf(out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>",
				sb_report_class_css((enum sb_class)k), LEFT + colw * (double)bin, y,
				colw + (bin + 1 < BINS ? 0.5 : 0), bh);
		}
		if (bin % 16 == 15)
			fputc('\n', out);
	}
	fputs("</g>\n", out);
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
		const struct sb_child_status *ch = &st->children[c];
		struct span sp;
		double s, b, e;
		uint32_t i;

		child_span(ch, &sp);
		s = sp.sub, b = sp.start, e = sp.end >= 0 ? sp.end : t1;
		k = ch->cls;
		if (s < 0 && b < 0)
			untimed++;
		if (s >= 0)
			band_add(wait, s, b >= 0 ? b : e, t0, span, k);
		if (b >= 0)
			band_add(run, b, e, t0, span, k);
		/* the attempts before the latest, each in its own class */
		for (i = 0; several_attempts(ch) && i + 1 < ch->nattempts; i++) {
			const struct sb_attempt_status *a = &ch->attempts[i];
			struct span next;

			attempt_span(a, a->verdict.cls, &sp);
			attempt_span(&ch->attempts[i + 1], ch->attempts[i + 1].verdict.cls, &next);
			e = sp.end >= 0 ? sp.end : next.sub >= 0 && next.sub < t1 ? next.sub : t1;
			if (sp.sub >= 0)
				band_add(wait, sp.sub, sp.start >= 0 ? sp.start : e, t0, span, a->verdict.cls);
			if (sp.start >= 0)
				band_add(run, sp.start, e, t0, span, a->verdict.cls);
		}
	}
	for (bin = 1; bin < BINS; bin++)
		for (k = 0; k < SB_CLASS_COUNT; k++) {
			wait[bin][k] += wait[bin - 1][k];
			run[bin][k] += run[bin - 1][k];
		}
	fprintf(out, "<p class=\"sub\">%zu children: too many for one mark each (the limit is %d), "
		"so each column counts the children running (top) and waiting in the queue (bottom) "
		"in its slice of time, stacked by class; a child's earlier attempts (before an "
		"<code>sbctl rerun</code>) count in the class of each attempt.</p>\n", st->n,
		SB_REPORT_MARKS_MAX);
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
	struct seen seen = { false, false, false, false };
	char when[40];
	size_t c;
	int rc = 0;

	/* each child's span is worked out again where it is drawn: a cheap
	 * function of its attempt, not worth 32 bytes a child */
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;
		const struct sb_chain *chn;
		struct span sp;
		uint32_t i;

		/* every attempt before the latest, then the latest */
		for (i = 0; several_attempts(ch) && i + 1 < ch->nattempts; i++) {
			attempt_span(&ch->attempts[i], ch->attempts[i].verdict.cls, &sp);
			if (sp.sub >= 0 && sp.sub < t0)
				t0 = sp.sub;
			if (sp.start >= 0 && sp.start < t0)
				t0 = sp.start;
			if (sp.end > t1)
				t1 = sp.end;
			seen.attempts = true;
		}
		child_span(ch, &sp);
		if (sp.sub < 0 && sp.start < 0 && !several_attempts(ch)) {
			if (ch->reused)
				seen.reused = true;
			else
				seen.untimed = true;
		}
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
		/* every run of a restarted child, drawn from its log's times */
		if (st->n <= SB_REPORT_MARKS_MAX && (chn = restarted(st, c)) != NULL) {
			seen.restarts = true;
			for (uint32_t k = 0; k < chn->n; k++) {
				double b = ns_secs(chn->v[k].started_ns), e = ns_secs(chn->v[k].ended_ns);
				if (b >= 0 && b < t0)
					t0 = b;
				if (b > t1)
					t1 = b;
				if (e > t1)
					t1 = e;
			}
		}
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
	legend(out, st, &seen, st->n <= SB_REPORT_MARKS_MAX);
	if (st->n <= SB_REPORT_MARKS_MAX)
		marks(r, t0, t1);
	else
		rc = bands(r, t0, t1, err);
	fputs("</section>\n", out);
	return rc;
}
