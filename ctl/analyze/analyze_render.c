/* The renderers of an analysis: the text, JSON and CSV of `sbctl analyze`
 * (docs/sbctl-analyze.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_private.h"
#include "status/spans.h"
#include "plan/plan_json.h"
#include "base/render.h"
#include "proto/json.h"
#include "proto/util.h"

/* key: v, null when v is NaN (sb_json_double writes null for it) */
static void json_stat(struct sb_json *j, const char *key, double v)
{
	sb_json_key(j, key);
	sb_json_double(j, v);
}

static void json_resources(struct sb_json *j, const struct sb_stats *stats)
{
	size_t r;

	sb_json_obj_begin(j);
	for (r = 0; r < SB_RESOURCE_COUNT; r++) {
		const struct sb_stats *s = &stats[r];
		if (s->n == 0)
			continue;
		sb_json_key(j, sb_resource_names[r]);
		sb_json_obj_begin(j);
		sb_json_key(j, "n");
		sb_json_uint(j, s->n);
		json_stat(j, "mean", s->mean);
		json_stat(j, "stddev", s->stddev);
		json_stat(j, "min", s->min);
		json_stat(j, "median", s->median);
		json_stat(j, "max", s->max);
		sb_json_obj_end(j);
	}
	sb_json_obj_end(j);
}

static void render_json(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
			struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	struct sb_json j;
	size_t g, k, m, c;

	sb_json_init(&j, out);
	sb_status_json_head(&j, st);
	sb_json_key(&j, "group_by");
	sb_json_arr_begin(&j);
	for (k = 0; k < a->nby; k++)
		sb_json_str(&j, sb_spec_param_name(spec, a->by[k]));
	sb_json_arr_end(&j);
	/* every metric analysed, in order: a group where none succeeded has
	 * none of them in its "metrics", and a reader still knows them all */
	sb_json_key(&j, "metrics");
	sb_json_arr_begin(&j);
	for (m = 0; m < a->nmetrics; m++)
		sb_json_str(&j, a->metrics[m]);
	sb_json_arr_end(&j);
	sb_json_key(&j, "sort");
	if (a->sort < 0) {
		sb_json_null(&j);
	} else {
		sb_json_obj_begin(&j);
		sb_json_key(&j, "metric");
		sb_json_str(&j, a->metrics[a->sort]);
		sb_json_key(&j, "descending");
		sb_json_bool(&j, a->sort_desc);
		sb_json_obj_end(&j);
	}
	sb_json_key(&j, "counts");
	sb_status_json_counts(&j, st->counts);
	sb_json_key(&j, "groups");
	sb_json_arr_begin(&j);
	for (g = 0; g < a->ngroups; g++) {
		const struct sb_group *gr = &a->groups[g];
		sb_plan_child_params(st->bench->plan, gr->first, pc, NULL);
		sb_json_obj_begin(&j);
		sb_json_key(&j, "params");
		sb_json_obj_begin(&j);
		for (k = 0; k < a->nby; k++) {
			sb_json_key(&j, sb_spec_param_name(spec, a->by[k]));
			sb_json_spec_value(&j, sb_child_param(pc, a->by[k]));
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "n");
		sb_json_uint(&j, gr->n);
		sb_json_key(&j, "classes");
		sb_status_json_counts(&j, gr->classes);
		sb_json_key(&j, "restarts");
		sb_json_uint(&j, gr->restarts);
		sb_json_key(&j, "metrics");
		sb_json_obj_begin(&j);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &gr->stats[m];
			if (s->n == 0)
				continue;
			sb_json_key(&j, a->metrics[m]);
			sb_json_obj_begin(&j);
			sb_json_key(&j, "n");
			sb_json_uint(&j, s->n);
			json_stat(&j, "mean", s->mean);
			json_stat(&j, "stddev", s->stddev);
			json_stat(&j, "min", s->min);
			json_stat(&j, "median", s->median);
			json_stat(&j, "max", s->max);
			sb_json_obj_end(&j);
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "resources");
		json_resources(&j, gr->resources);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "excluded");
	sb_json_arr_begin(&j);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		if (ch->cls == SB_CLASS_SUCCEEDED)
			continue;
		sb_json_obj_begin(&j);
		sb_json_key(&j, "index");
		sb_json_uint(&j, c);
		sb_json_key(&j, "class");
		sb_json_str(&j, sb_class_name(ch->cls));
		sb_json_key(&j, "reason");
		sb_json_str(&j, ch->reason);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_key(&j, "warnings");
	sb_json_arr_begin(&j);
	for (k = 0; k < a->nwarnings; k++)
		sb_json_str(&j, a->warnings[k]);
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
}

static void render_csv(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
		       struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	static const char *const cols[] = { "metric", "n", "mean", "stddev", "min", "median", "max" };
	size_t g, k, m;

	/* a parameter named like a statistic's column is "param.NAME" (a
	 * parameter name has no '.'), so no two columns share a name */
	for (k = 0; k < a->nby; k++) {
		const char *name = sb_spec_param_name(spec, a->by[k]);
		size_t c;

		if (k)
			fputc(',', out);
		for (c = 0; c < 7 && strcmp(name, cols[c]) != 0; c++)
			;
		fprintf(out, "%s%s", c < 7 ? "param." : "", name);
	}
	for (k = 0; k < 7; k++)
		sb_csv_field(out, cols[k], a->nby == 0 && k == 0);
	fputs("\r\n", out);
	for (g = 0; g < a->ngroups; g++) {
		sb_plan_child_params(st->bench->plan, a->groups[g].first, pc, NULL);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &a->groups[g].stats[m];
			char n[32];
			for (k = 0; k < a->nby; k++) {
				char *text = sb_value_text(sb_child_param(pc, a->by[k]));
				sb_csv_field(out, text, k == 0);
				free(text);
			}
			sb_csv_field(out, a->metrics[m], a->nby == 0);
			snprintf(n, sizeof(n), "%zu", s->n);
			sb_csv_field(out, n, 0);
			if (s->n == 0) {
				fputs(",,,,,", out);
			} else {
				sb_csv_num(out, s->mean);
				sb_csv_num(out, s->stddev);
				sb_csv_num(out, s->min);
				sb_csv_num(out, s->median);
				sb_csv_num(out, s->max);
			}
			fputs("\r\n", out);
		}
	}
}

/* "a=1 b=x" of group g's parameters (or "all children" with no group_by). */
static void group_label(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
			size_t g, struct sb_child *pc)
{
	size_t k;

	sb_plan_child_params(st->bench->plan, a->groups[g].first, pc, NULL);
	if (a->nby == 0)
		fputs("all children", out);
	for (k = 0; k < a->nby; k++) {
		char *text = sb_value_text(sb_child_param(pc, a->by[k]));
		fprintf(out, "%s%s=%s", k ? " " : "", sb_spec_param_name(st->bench->spec, a->by[k]),
			text ? text : "?");
		free(text);
	}
}

/* The ranking and its first group, the best. */
static void render_best(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
			struct sb_child *pc)
{
	const char *name = a->metrics[a->sort];
	char t[SB_DOUBLE_TEXT_MAX];

	fprintf(out, "groups ranked by the mean of %s, %s first\n", name,
		a->sort_desc ? "highest" : "lowest");
	if (a->ngroups == 0 || a->groups[0].stats[a->sort].n == 0) {
		fprintf(out, "best: none (no succeeded child reported %s)\n", name);
		return;
	}
	fputs("best: ", out);
	group_label(out, st, a, 0, pc);
	fprintf(out, " (%s mean %s, n=%zu)\n", name,
		sb_fmt_double_short(a->groups[0].stats[a->sort].mean, t), a->groups[0].stats[a->sort].n);
}

static void render_text(FILE *out, const struct sb_status *st, const struct sb_analysis *a,
			struct sb_child *pc)
{
	char t[5][SB_DOUBLE_TEXT_MAX];
	size_t g, k, m, c, shown = 0;
	bool restarts = false;

	fprintf(out, "%s (%.12s): %zu %s, %zu succeeded", st->bench->name, st->bench->digest,
		st->n, sb_plural(st->n, "child", "children"), st->counts[SB_CLASS_SUCCEEDED]);
	for (k = 1; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, ", %zu %s", st->counts[k], sb_class_name((enum sb_class)k));
	fputs("\nstatistics over the succeeded children only\n", out);
	if (a->sort >= 0)
		render_best(out, st, a, pc);
	/* the restarts of every group, once one has some */
	for (g = 0; g < a->ngroups && !restarts; g++)
		restarts = a->groups[g].restarts > 0;
	for (g = 0; g < a->ngroups; g++) {
		const struct sb_group *gr = &a->groups[g];
		size_t total = 0;

		for (k = 0; k < SB_CLASS_COUNT; k++)
			total += gr->classes[k];
		fputc('\n', out);
		if (a->nby > 0) {
			group_label(out, st, a, g, pc);
			fputs(": ", out);
		}
		fprintf(out, "%zu of %zu succeeded", gr->n, total);
		if (restarts)
			fprintf(out, ", %zu restart%s", gr->restarts, gr->restarts == 1 ? "" : "s");
		fputc('\n', out);
		for (m = 0; m < a->nmetrics; m++) {
			const struct sb_stats *s = &gr->stats[m];
			if (s->n == 0)
				continue;
			/* for people: 6 significant digits; --json and --csv are exact */
			sb_fmt_double_short(s->mean, t[0]);
			sb_fmt_double_short(s->stddev, t[1]);
			sb_fmt_double_short(s->min, t[2]);
			sb_fmt_double_short(s->median, t[3]);
			sb_fmt_double_short(s->max, t[4]);
			fprintf(out, "  %-16s n=%-5zu mean=%-11s sd=%-11s min=%-11s median=%-11s max=%s\n",
				a->metrics[m], s->n, t[0], isnan(s->stddev) ? "-" : t[1], t[2], t[3], t[4]);
		}
	}
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		if (ch->cls == SB_CLASS_SUCCEEDED)
			continue;
		if (shown++ == 0)
			fputs("\nexcluded (did not succeed):\n", out);
		fprintf(out, "  %-6zu %-12s %s\n", c, sb_class_name(ch->cls), ch->reason);
	}
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct sb_analysis *a = obj;
	struct sb_child *pc;

	if (format != SB_FORMAT_TEXT && format != SB_FORMAT_JSON && format != SB_FORMAT_CSV)
		return sb_error_set(err, SB_ERR_INPUT, "an analysis is rendered as text, JSON or CSV, "
				    "not format %d", format);
	if ((pc = sb_child_create()) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (format == SB_FORMAT_JSON)
		render_json(out, a->st, a, pc);
	else if (format == SB_FORMAT_CSV)
		render_csv(out, a->st, a, pc);
	else
		render_text(out, a->st, a, pc);
	sb_child_destroy(pc);
	return sb_render_flush(out, err);
}

int sb_analysis_render(const struct sb_analysis *an, enum sb_format format, FILE *out,
		       struct sb_error *err)
{
	return render(an, (int)format, out, err);
}

int sb_analysis_render_buffer(const struct sb_analysis *an, enum sb_format format,
			      char **buf, size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render, an, (int)format, buf, len, err);
}
