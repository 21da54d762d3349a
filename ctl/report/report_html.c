/* The HTML helpers of the report's sections (report/report_html.h):
 * escaping, the classes' colours, a child's parameters, durations. */
#include <math.h>
#include <stdio.h>

#include "report/report_html.h"
#include "sbench/plan.h"

/* One colour per class, used for every mark, bar, swatch and heading of
 * the class.  Chosen to stay apart for the common colour blindnesses where
 * it matters most (succeeded / failed / killed / running). */
static const char *const class_colour[SB_CLASS_COUNT] = {
	[SB_CLASS_SUCCEEDED] = "#1b9e77",
	[SB_CLASS_FAILED] = "#d62728",
	[SB_CLASS_KILLED] = "#ff7f0e",
	[SB_CLASS_INCOMPLETE] = "#9467bd",
	[SB_CLASS_STALE] = "#8c564b",
	[SB_CLASS_MISSING] = "#7f7f7f",
	[SB_CLASS_PARTIAL] = "#bcbd22",
	[SB_CLASS_INCONSISTENT] = "#e377c2",
	[SB_CLASS_INVALID] = "#222222",
	[SB_CLASS_PENDING] = "#9ecae1",
	[SB_CLASS_RUNNING] = "#1f77b4",
	[SB_CLASS_STOPPED] = "#17becf",
};

void sb_report_esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

const char *sb_report_class_colour(enum sb_class c)
{
	return class_colour[c];
}

const char *sb_report_class_css(enum sb_class c)
{
	static const char *const css[SB_CLASS_COUNT] = {
		"c-succeeded", "c-failed", "c-killed", "c-incomplete", "c-stale", "c-missing",
		"c-partial", "c-inconsistent", "c-invalid", "c-pending", "c-running", "c-stopped",
	};
	return (unsigned)c < SB_CLASS_COUNT ? css[c] : "c-missing";
}

void sb_report_class_style(FILE *out)
{
	size_t k;

	for (k = 0; k < SB_CLASS_COUNT; k++)
		fprintf(out, ".%s{fill:%s;background:%s;color:%s}\n",
			sb_report_class_css((enum sb_class)k), class_colour[k], class_colour[k],
			k == SB_CLASS_PENDING || k == SB_CLASS_PARTIAL ? "#111" : "#fff");
}

void sb_report_group_params(struct sb_report *r, size_t g)
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

void sb_report_params(struct sb_report *r, size_t c)
{
	const struct sb_spec *spec = r->st->bench->spec;
	size_t k;

	if (sb_plan_child_params(r->st->bench->plan, c, r->pc, NULL) < 0)
		return;
	for (k = 0; k < sb_child_param_count(r->pc); k++) {
		char *text = sb_value_text(sb_child_param(r->pc, k));
		fprintf(r->out, "%s", k ? " " : "");
		sb_report_esc(r->out, sb_spec_param_name(spec, k));
		fputc('=', r->out);
		sb_report_esc(r->out, text ? text : "?");
		free(text);
	}
	if (sb_child_repeat(r->pc) != 0 || sb_child_param_count(r->pc) == 0)
		fprintf(r->out, "%srepeat=%lld", sb_child_param_count(r->pc) ? " " : "",
			(long long)sb_child_repeat(r->pc));
}

void sb_report_duration(FILE *out, double s)
{
	long long t;

	if (s < 0)
		s = 0;
	if (s == 0) {
		fputs("0 s", out);
		return;
	}
	if (s < 1) {
		fprintf(out, "%.0f ms", s * 1000);
		return;
	}
	if (s < 10 && fabs(s - floor(s + 0.5)) > 0.05) {
		fprintf(out, "%.1f s", s);
		return;
	}
	t = (long long)(s + 0.5);
	if (t < 60)
		fprintf(out, "%lld s", t);
	else if (t < 3600)
		fprintf(out, t % 60 ? "%lld min %lld s" : "%lld min", t / 60, t % 60);
	else if (t < 86400)
		fprintf(out, t % 3600 / 60 ? "%lld h %lld min" : "%lld h", t / 3600, t % 3600 / 60);
	else
		fprintf(out, "%lld d %lld h", t / 86400, t % 86400 / 3600);
}
