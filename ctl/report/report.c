/* The HTML report of a benchmark (include/sbench/report.h,
 * docs/sbctl-report.md): the document, its style, the counts and the
 * excluded children; the timeline and the metric plots are in
 * report_timeline.c and report_plot.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/render.h"
#include "report/report_html.h"
#include "report/report_private.h"
#include "status/report_child.h"
#include "sbench/report.h"
#include "sbench/sbench.h"

#define TAILS_PER_GROUP 20
#define TAIL_LINES 10

static const char style[] =
	"*{box-sizing:border-box}\n"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
	"sans-serif;color:#1d2330;background:#f4f5f7;margin:0;padding:24px 32px}\n"
	"main{max-width:1320px;margin:0 auto}\n"
	"h1{font-size:28px;margin:0 0 2px}h2{font-size:20px;margin:0 0 12px}"
	"h3{font-size:16px;margin:14px 0 6px}\n"
	"section{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.08);"
	"padding:18px 22px;margin:0 0 18px}\n"
	".sub{color:#5b6472;margin:0 0 14px}.dim{color:#8a93a3}.warn{color:#b3261e}\n"
	"code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}\n"
	".head{display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start}\n"
	".kv{border-collapse:collapse}.kv th{text-align:left;color:#5b6472;font-weight:500;"
	"padding:2px 14px 2px 0;white-space:nowrap}.kv td{padding:2px 0}\n"
	".counts{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0 12px}\n"
	".count{border-radius:8px;padding:8px 14px;min-width:110px}"
	".count b{display:block;font-size:26px;line-height:1.1}\n"
	".legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:0 0 10px;color:#3b4350}\n"
	".legend span{display:inline-flex;align-items:center;gap:6px}\n"
	".sw{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px}\n"
	".sw.wait{opacity:.35}\n"
	"svg{display:block;max-width:100%;height:auto}\n"
	"svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;"
	"fill:#3b4350}\n"
	".axis{stroke:#c5cad3;stroke-width:1}.grid{stroke:#eceef2;stroke-width:1}\n"
	".wait{opacity:.35}.open{opacity:.6}\n"
	".mean{stroke:#1d2330;stroke-width:2.5}.median{fill:#fff;stroke:#1d2330;stroke-width:1.5}\n"
	".dot{opacity:.55}\n"
	".rgroup{border-left:6px solid #ccc;padding:2px 0 2px 14px;margin:14px 0}\n"
	"table.kids{border-collapse:collapse;font-size:13px;margin:4px 0}\n"
	"table.kids th,table.kids td{text-align:left;padding:2px 14px 2px 0}\n"
	"table.kids th{color:#5b6472;font-weight:500}\n"
	"details{margin:4px 0}summary{cursor:pointer;color:#3b4350}\n"
	"pre{background:#f6f7f9;border:1px solid #e3e6ea;border-radius:6px;padding:8px 10px;"
	"margin:4px 0;overflow:auto;font-size:12.5px;white-space:pre-wrap}\n"
	"footer{color:#8a93a3;font-size:13px;margin:8px 0 0}\n"
	"#best .verdict{margin:0 0 6px}#best .config{font-size:18px;font-weight:600;"
	"background:#eef7f3;border-radius:6px;padding:4px 10px;overflow-wrap:anywhere}\n"
	"#best .score{font-size:16px;margin:0 0 6px}.succ{color:#1b6e54}\n"
	".scroll{overflow-x:auto}\n"
	".pcharts{display:flex;flex-wrap:wrap;gap:12px 28px}.pchart{margin:0;flex:1 1 520px;max-width:640px}\n"
	".pchart figcaption{font-size:13.5px;color:#3b4350;margin:2px 0 4px}\n"
	".pline circle{stroke:#fff;stroke-width:1.5}\n"
	"svg.curve .cmedian{stroke-linejoin:round}\n"
	"table.groups{border-collapse:collapse;font-size:13.5px;min-width:60%}\n"
	"table.groups th,table.groups td{text-align:left;padding:4px 16px 4px 0;"
	"border-bottom:1px solid #eceef2;white-space:nowrap}\n"
	"table.groups th{color:#5b6472;font-weight:600}th.sortable{cursor:pointer}\n"
	"th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\n"
	"tr.best td{background:#eef7f3}.tag{background:#1b9e77;color:#fff;border-radius:4px;"
	"padding:0 6px;font-size:12px;font-family:system-ui,sans-serif}\n";

static void write_counts(struct sb_report *r)
{
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	size_t k, total = st->n;

	fputs("<section id=\"classes\"><h2>Children by class</h2>\n<div class=\"counts\">\n", out);
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, "<div class=\"count %s\" data-class=\"%s\"><b>%zu</b>%s</div>\n",
				sb_report_class_css((enum sb_class)k), sb_class_name((enum sb_class)k),
				st->counts[k], sb_class_name((enum sb_class)k));
	fputs("</div>\n", out);
	/* the same as one bar: each class's share */
	fputs("<svg class=\"share\" viewBox=\"0 0 1000 22\" width=\"1000\" height=\"22\" "
	      "role=\"img\" aria-label=\"share of each class\">", out);
	if (total > 0) {
		double x = 0;
		for (k = 0; k < SB_CLASS_COUNT; k++) {
			double w = 1000.0 * (double)st->counts[k] / (double)total;
			if (st->counts[k] == 0)
				continue;
			fprintf(out, "<rect class=\"%s\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"22\">"
				"<title>%s: %zu of %zu</title></rect>", sb_report_class_css((enum sb_class)k),
				x, w, sb_class_name((enum sb_class)k), st->counts[k], total);
			x += w;
		}
	}
	fputs("</svg>\n</section>\n", out);
}

#define NOT_OVER ((1u << SB_CLASS_PENDING) | (1u << SB_CLASS_RUNNING))

/* The children of the classes in mask, grouped by class and identical
 * reason, with the stderr tails of the first TAILS_PER_GROUP of a group
 * when tails: those that did not succeed (id "excluded"), or those not
 * over yet (id "unfinished", shown only when there are some). */
static int write_children(struct sb_report *r, unsigned mask, bool tails_wanted,
			  struct sb_error *err)
{
	const struct sb_status *st = r->st;
	FILE *out = r->out;
	struct sb_reason_group *g;
	struct sb_param_share ps;
	size_t ng, k, i, excluded = 0;

	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (mask & (1u << k))
			excluded += st->counts[k];
	if (mask == NOT_OVER) {
		if (excluded == 0)
			return 0;
		fprintf(out, "<section id=\"unfinished\"><h2>Not over yet</h2>\n<p class=\"sub\">"
			"%zu of %zu %s %s still pending or running: not a failure, and not in the "
			"statistics until %s succeeded.</p>\n", excluded, st->n,
			sb_plural(st->n, "child", "children"), sb_plural(excluded, "is", "are"),
			sb_plural(excluded, "it has", "they have"));
	} else {
		fputs("<section id=\"excluded\"><h2>Excluded children</h2>\n", out);
		if (excluded == 0) {
			fprintf(out, "<p class=\"sub\">%s</p>\n</section>\n",
				st->counts[SB_CLASS_SUCCEEDED] == st->n ? "Every child succeeded: none is "
				"excluded from the statistics." : "No child that is over failed: those not "
				"over yet are listed above.");
			return 0;
		}
		fprintf(out, "<p class=\"sub\">%zu of %zu %s did not succeed and %s left out of the "
			"statistics, grouped by class and identical reason.</p>\n", excluded, st->n,
			sb_plural(st->n, "child", "children"), sb_plural(excluded, "is", "are"));
	}
	if (sb_reason_groups(st, mask, &g, &ng, err) < 0)
		return -1;
	for (k = 0; k < ng; k++) {
		const char *cls = sb_class_name(g[k].cls), *css = sb_report_class_css(g[k].cls);
		char *words;
		size_t nw = 0, tails = 0;

		if (sb_param_share_compute(st, g[k].children, g[k].n, &ps, err) < 0) {
			sb_reason_groups_free(g, ng);
			return -1;
		}
		fprintf(out, "<div class=\"rgroup\" data-class=\"%s\" style=\"border-color:%s\">\n"
			"<h3><span class=\"sw %s\"></span> %zu %s: ", cls, sb_report_class_colour(g[k].cls), css,
			g[k].n, cls);
		sb_report_esc(out, g[k].reason);
		fputs("</h3>\n", out);
		words = sb_param_share_text(st, &ps, g[k].children[0], true, &nw);
		if (words != NULL && nw > 0 && g[k].n > 1) {
			fputs("<p>shared by all: <code>", out);
			sb_report_esc(out, words);
			fputs("</code></p>\n", out);
		}
		free(words);
		fputs("<table class=\"kids\"><tr><th>child</th><th>job</th><th>parameters</th></tr>\n",
		      out);
		for (i = 0; i < g[k].n; i++) {
			const struct sb_attempt_status *a = st->children[g[k].children[i]].latest;
			fprintf(out, "<tr data-child=\"%zu\"><td>%zu</td><td class=\"mono\">", g[k].children[i],
				g[k].children[i]);
			sb_report_esc(out, a && a->job_id ? a->job_id : "-");
			fputs("</td><td class=\"mono\">", out);
			sb_report_params(r, g[k].children[i]);
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
		for (i = 0; tails_wanted && i < g[k].n && tails < TAILS_PER_GROUP; i++) {
			char *tail = sb_child_stderr_tail(st->bench, g[k].children[i], TAIL_LINES, NULL);
			if (tail == NULL)
				continue;
			fprintf(out, "<details%s><summary>stderr of child %zu (last lines)</summary><pre>",
				tails == 0 ? " open" : "", g[k].children[i]);
			sb_report_esc(out, tail);
			fputs("</pre></details>\n", out);
			free(tail);
			tails++;
		}
		fputs("</div>\n", out);
		sb_param_share_release(&ps);
	}
	sb_reason_groups_free(g, ng);
	fputs("</section>\n", out);
	return 0;
}

/* What render is given: the analysis and the options. */
struct render_arg {
	const struct sb_analysis *an;
	const struct sb_report_opts *o;
};

/* The bundle the report stands for, when one was named and verified. */
static void write_bundle(FILE *out, const struct sb_report_bundle *bd)
{
	fputs("<tr><th>signed bundle</th><td class=\"mono\" id=\"bundle\">", out);
	sb_report_esc(out, bd->file);
	fputs("<br>sha256 <span id=\"bundle-sha256\">", out);
	sb_report_esc(out, bd->sha256);
	fputs("</span><br>key <span id=\"bundle-keyid\">", out);
	sb_report_esc(out, bd->keyid);
	fputs("</span><br><span class=\"sub\">verified against this benchmark when the report "
	      "was written; anyone checks it with <code>sbctl verify</code> and the public "
	      "key</span></td></tr>\n", out);
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct render_arg *ra = obj;
	const struct sb_analysis *an = ra->an;
	const struct sb_status *st = an->st;
	const struct sb_bench *b = st->bench;
	struct sb_report r = { out, an, st, sb_child_create() };
	int rc = -1;

	(void)format;
	if (r.pc == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
	sb_report_esc(out, b->name);
	fputs(" \u2014 sbench report</title>\n<style>\n", out);
	fputs(style, out);
	sb_report_class_style(out);
	fputs("</style>\n</head>\n<body>\n<main>\n<section id=\"benchmark\">\n<div class=\"head\">"
	      "<div>\n<h1>", out);
	sb_report_esc(out, b->name);
	fputs("</h1>\n<p class=\"sub\">", out);
	if (b->tag) {
		fputs("tag <b>", out);
		sb_report_esc(out, b->tag);
		fputs("</b> \u00b7 ", out);
	}
	fprintf(out, "%zu %s \u00b7 scheduler %s</p>\n<table class=\"kv\">\n"
		"<tr><th>digest</th><td class=\"mono\" id=\"digest\">%s</td></tr>\n"
		"<tr><th>directory</th><td class=\"mono\">", st->n, sb_plural(st->n, "child", "children"),
		st->consulted ? "consulted" : "not consulted (offline: the logs and recorded outcomes alone)",
		b->digest);
	sb_report_esc(out, b->dir);
	fputs("</td></tr>\n", out);
	if (ra->o != NULL && ra->o->bundle != NULL)
		write_bundle(out, ra->o->bundle);
	fputs("</table>\n</div>\n<div>\n", out);
	sb_report_provenance(&r);
	fputs("</div>\n</div>\n</section>\n", out);
	sb_report_best(&r);
	write_counts(&r);
	sb_report_groups(&r);
	if (sb_report_timeline(&r, err) < 0 || sb_report_plots(&r, err) < 0 ||
	    sb_report_param_plots(&r, err) < 0 || sb_report_curves(&r, err) < 0 ||
	    write_children(&r, NOT_OVER, false, err) < 0 ||
	    write_children(&r, ~(NOT_OVER | (1u << SB_CLASS_SUCCEEDED)), true, err) < 0)
		goto done;
	fprintf(out, "<footer>Written by sbctl %s from the benchmark's verified logs and the "
		"scheduler's records; the same evidence gives the same file.</footer>\n"
		"</main>\n</body>\n</html>\n", sb_version());
	rc = 0;
done:
	sb_child_destroy(r.pc);
	if (rc < 0)
		return -1;
	return sb_render_flush(out, err);
}

int sb_report_render_opts(const struct sb_analysis *an, const struct sb_report_opts *o, FILE *out,
			  struct sb_error *err)
{
	struct render_arg ra = { an, o };

	return render(&ra, 0, out, err);
}

int sb_report_render(const struct sb_analysis *an, FILE *out, struct sb_error *err)
{
	return sb_report_render_opts(an, NULL, out, err);
}

int sb_report_render_buffer(const struct sb_analysis *an, char **buf, size_t *len,
			    struct sb_error *err)
{
	struct render_arg ra = { an, NULL };

	return sb_render_buffer(render, &ra, 0, buf, len, err);
}

int sb_report_write_opts(const struct sb_analysis *an, const struct sb_report_opts *o,
			 char **written, struct sb_error *err)
{
	struct render_arg ra = { an, o };
	const char *path = o ? o->path : NULL;
	char *buf = NULL, *dflt = NULL;
	size_t len = 0;
	int rc;

	if (written != NULL)
		*written = NULL;
	if (path == NULL) {
		if (asprintf(&dflt, "%s/report.html", an->st->bench->dir) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		path = dflt;
	}
	rc = sb_render_buffer(render, &ra, 0, &buf, &len, err);
	if (rc == 0 && (rc = sb_fs_write_atomic(path, buf, len, 0644, 0, err)) < 0)
		sb_error_prefix(err, "cannot write the report");
	free(buf);
	if (rc == 0 && written != NULL && (*written = strdup(path)) == NULL)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	free(dflt);
	return rc;
}

int sb_report_write(const struct sb_analysis *an, const char *path, char **written,
		    struct sb_error *err)
{
	struct sb_report_opts o = { path, NULL };

	return sb_report_write_opts(an, &o, written, err);
}
