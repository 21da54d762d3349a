/* The report's answer to "which configuration won": the best group of the
 * analysis by its ranking metric (the spec's analysis.sort, else the first
 * metric, lowest mean first, and the page says which), how sure that is
 * (its n, its failures, the runner-up and their spread), and every group in
 * a table a click sorts by any column (plain JavaScript in the page; the
 * page reads the same without it, in the analysis's order). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/render.h"
#include "report/report_private.h"
#include "proto/util.h"

#define TABLE_ROWS_MAX 2000 /* groups in the table (sbctl analyze has them all) */

/* The metric the groups are judged by: the analysis's ranking, else the
 * first metric, lowest first (*chosen false); -1 when there is none. */
static int judged_by(const struct sb_analysis *a, bool *desc, bool *chosen)
{
	*chosen = a->sort >= 0;
	*desc = a->sort >= 0 && a->sort_desc;
	if (a->sort >= 0)
		return a->sort;
	return a->nmetrics > 0 ? 0 : -1;
}

/* The group with the best mean of metric m over at least min_n values (the
 * first of equals), then the next best into *second (SIZE_MAX none);
 * SIZE_MAX when no group has that many. */
static size_t best_groups(const struct sb_analysis *a, size_t m, bool desc, size_t min_n,
			  size_t *second)
{
	size_t g, best = SIZE_MAX;

	*second = SIZE_MAX;
	for (g = 0; g < a->ngroups; g++) {
		const struct sb_stats *s = &a->groups[g].stats[m];
		if (s->n == 0 || s->n < min_n)
			continue;
		if (best == SIZE_MAX || (desc ? s->mean > a->groups[best].stats[m].mean
					     : s->mean < a->groups[best].stats[m].mean)) {
			*second = best;
			best = g;
		} else if (*second == SIZE_MAX || (desc ? s->mean > a->groups[*second].stats[m].mean
						   : s->mean < a->groups[*second].stats[m].mean)) {
			*second = g;
		}
	}
	return best;
}

static size_t group_total(const struct sb_group *g)
{
	size_t k, n = 0;

	for (k = 0; k < SB_CLASS_COUNT; k++)
		n += g->classes[k];
	return n;
}

/* "0.89 ± 0.01" (no ± when n < 2) */
static void mean_sd(FILE *out, const struct sb_stats *s)
{
	char buf[SB_DOUBLE_TEXT_MAX];

	fputs(sb_fmt_double_short(s->mean, buf), out);
	if (s->n >= 2 && isfinite(s->stddev))
		fprintf(out, " \u00b1 %s", sb_fmt_double_short(s->stddev, buf));
}

/* "1 failed, 1 killed" of the classes other than succeeded */
static void not_succeeded(FILE *out, const struct sb_group *g)
{
	size_t k;
	bool first = true;

	for (k = 0; k < SB_CLASS_COUNT; k++) {
		if (k == SB_CLASS_SUCCEEDED || g->classes[k] == 0)
			continue;
		fprintf(out, "%s%zu %s", first ? "" : ", ", g->classes[k], sb_class_name((enum sb_class)k));
		first = false;
	}
}

void sb_report_best(struct sb_report *r)
{
	const struct sb_analysis *a = r->an;
	FILE *out = r->out;
	bool desc, chosen;
	int m = judged_by(a, &desc, &chosen);
	size_t second, best, total;
	const struct sb_group *g;
	const struct sb_stats *s;
	char buf[SB_DOUBLE_TEXT_MAX];

	fputs("<section id=\"best\"><h2>Best configuration</h2>\n", out);
	best = m < 0 ? SIZE_MAX : best_groups(a, (size_t)m, desc, 1, &second);
	if (best == SIZE_MAX) {
		fputs("<p class=\"sub\">None: no succeeded child reported a metric to judge by.</p>\n"
		      "</section>\n", out);
		return;
	}
	g = &a->groups[best];
	s = &g->stats[m];
	total = group_total(g);
	fprintf(out, "<p class=\"verdict\" data-group=\"%zu\"><code class=\"config\">", best);
	sb_report_group_params(r, best);
	fputs("</code></p>\n<p class=\"score\">", out);
	sb_report_esc(out, a->metrics[m]);
	fputs(" mean <b>", out);
	fputs(sb_fmt_double_short(s->mean, buf), out);
	fputs("</b>", out);
	if (s->n >= 2 && isfinite(s->stddev))
		fprintf(out, " \u00b1 %s (standard deviation)", sb_fmt_double_short(s->stddev, buf));
	fprintf(out, ", median %s, n=%zu: <span class=\"succ\">%zu of %zu %s succeeded</span></p>\n",
		sb_fmt_double_short(s->median, buf), s->n, g->classes[SB_CLASS_SUCCEEDED], total,
		sb_plural(total, "child", "children"));
	if (s->n < 2) {
		size_t two, other;
		fprintf(out, "<p class=\"warn\" data-warn=\"n\">Only %zu succeeded %s: one run says "
			"nothing about the spread; add repeats (<code>repeats: 3</code>) before "
			"trusting it.</p>\n", s->n, sb_plural(s->n, "run", "runs"));
		/* the best of those that have a spread */
		two = best_groups(a, (size_t)m, desc, 2, &other);
		if (two != SIZE_MAX) {
			fprintf(out, "<p class=\"sturdy\" data-group=\"%zu\">The best with at least 2 "
				"succeeded runs: <code>", two);
			sb_report_group_params(r, two);
			fputs("</code>, ", out);
			mean_sd(out, &a->groups[two].stats[m]);
			fprintf(out, " (n=%zu).</p>\n", a->groups[two].stats[m].n);
		}
	}
	if (g->classes[SB_CLASS_SUCCEEDED] < total) {
		fprintf(out, "<p class=\"warn\" data-warn=\"failures\">%zu of its %zu %s did not succeed (",
			total - g->classes[SB_CLASS_SUCCEEDED], total, sb_plural(total, "child", "children"));
		not_succeeded(out, g);
		fputs("): its mean is over the successes only.</p>\n", out);
	}
	if (second != SIZE_MAX) {
		const struct sb_stats *t = &a->groups[second].stats[m];
		fprintf(out, "<p class=\"runner\" data-group=\"%zu\">Runner-up: <code>", second);
		sb_report_group_params(r, second);
		fputs("</code>, ", out);
		mean_sd(out, t);
		fprintf(out, " (n=%zu).", t->n);
		/* within a standard deviation of each other: no clear winner */
		if (s->n >= 2 && t->n >= 2 && isfinite(s->stddev) && isfinite(t->stddev) &&
		    fabs(s->mean - t->mean) <= fmax(s->stddev, t->stddev))
			fputs(" <span class=\"warn\" data-warn=\"close\">The two differ by less than a "
			      "standard deviation: not a clear winner.</span>", out);
		fputs("</p>\n", out);
	}
	fputs("<p class=\"sub\">Judged by the mean of <code>", out);
	sb_report_esc(out, a->metrics[m]);
	fprintf(out, "</code>, %s first", desc ? "highest" : "lowest");
	if (chosen)
		fputs(" (the analysis's sort).</p>\n", out);
	else
		fputs(": no sort was given, so the first metric, lowest first. Name the metric and "
		      "its direction with <code>analysis: {sort: -accuracy}</code> in the spec, or "
		      "<code>sbctl report --sort -accuracy</code>.</p>\n", out);
	fputs("</section>\n", out);
}

/* The sorting of the groups' table: a click on a column's header orders the
 * rows by that column's data-v (numbers; rows without one last), a second
 * click reverses it. */
static const char sort_script[] =
	"<script>\n"
	"(function(){\n"
	"var t=document.getElementById('group-table');if(!t)return;\n"
	"var hs=t.tHead.rows[0].cells;\n"
	"for(var i=0;i<hs.length;i++)(function(i){\n"
	"var h=hs[i];h.tabIndex=0;h.classList.add('sortable');\n"
	"function go(){\n"
	"var desc=h.getAttribute('aria-sort')==='ascending';\n"
	"for(var k=0;k<hs.length;k++)hs[k].removeAttribute('aria-sort');\n"
	"h.setAttribute('aria-sort',desc?'descending':'ascending');\n"
	"var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\n"
	"rows.sort(function(x,y){\n"
	"var a=x.cells[i].getAttribute('data-v'),c=y.cells[i].getAttribute('data-v');\n"
	"if(a===null||a==='')return c===null||c===''?0:1;if(c===null||c==='')return -1;\n"
	"var p=parseFloat(a),q=parseFloat(c),d=isNaN(p)||isNaN(q)?a.localeCompare(c):p-q;\n"
	"return desc?-d:d;});\n"
	"rows.forEach(function(r){b.appendChild(r);});}\n"
	"h.addEventListener('click',go);\n"
	"h.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();go();}});\n"
	"})(i);\n"
	"})();\n"
	"</script>\n";

void sb_report_groups(struct sb_report *r)
{
	const struct sb_analysis *a = r->an;
	FILE *out = r->out;
	bool desc, chosen;
	int jm = judged_by(a, &desc, &chosen);
	size_t g, m, second, best = jm < 0 ? SIZE_MAX : best_groups(a, (size_t)jm, desc, 1, &second);
	size_t rows = a->ngroups < TABLE_ROWS_MAX ? a->ngroups : TABLE_ROWS_MAX;

	fputs("<section id=\"groups\"><h2>Groups</h2>\n<p class=\"sub\">Every configuration: its "
	      "children, and the mean \u00b1 standard deviation of each metric over its succeeded "
	      "ones. Click a column's header to sort by it.", out);
	if (rows < a->ngroups)
		fprintf(out, " The first %zu of %zu groups are listed (<code>sbctl analyze</code> has "
			"them all).", rows, a->ngroups);
	fputs("</p>\n<div class=\"scroll\"><table class=\"groups\" id=\"group-table\"><thead><tr>"
	      "<th>configuration</th><th>succeeded</th>", out);
	for (m = 0; m < a->nmetrics; m++) {
		fprintf(out, "<th data-metric=\"");
		sb_report_esc(out, a->metrics[m]);
		fputs("\">", out);
		sb_report_esc(out, a->metrics[m]);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (g = 0; g < rows; g++) {
		const struct sb_group *gr = &a->groups[g];
		size_t total = group_total(gr);

		fprintf(out, "<tr data-group=\"%zu\"%s><td class=\"mono\" data-v=\"%zu\">", g,
			g == best ? " class=\"best\"" : "", g);
		sb_report_group_params(r, g);
		if (g == best)
			fputs(" <span class=\"tag\">best</span>", out);
		fprintf(out, "</td><td data-v=\"%.6f\">%zu of %zu</td>", total ? (double)gr->classes[
			SB_CLASS_SUCCEEDED] / (double)total : 0.0, gr->classes[SB_CLASS_SUCCEEDED], total);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &gr->stats[m];
			if (s->n == 0) {
				fputs("<td class=\"dim\">\u2013</td>", out);
				continue;
			}
			fprintf(out, "<td data-v=\"%.17g\">", s->mean);
			mean_sd(out, s);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
	fputs(sort_script, out);
	fputs("</section>\n", out);
}
