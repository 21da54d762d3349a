/* The per-child table of an analysis (`sbctl analyze --runs`,
 * docs/sbctl-analyze.md "Runs"): every child with its parameters, class,
 * reason, attempt, final metrics, run directory and where a reused one
 * ran.  One row per child, whatever its class: the rows are data, and the
 * class says which of them are proven. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_private.h"
#include "base/render.h"
#include "plan/plan_json.h"
#include "proto/json.h"
#include "proto/util.h"

/* The fixed columns, in CSV order; parameters follow as param.NAME and
 * metrics as metric.NAME (no name can collide). */
static const char *const fixed[] = {
	"index", "digest", "repeat", "class", "reason", "attempt", "run_dir", "reused_from_dir",
	"reused_from_index",
};

/* The value of metric name in child c's latest finish, or NULL. */
static const struct sb_metric *metric_of(const struct sb_child_status *ch, const char *name)
{
	const struct sb_attempt_status *at = ch->latest;

	for (size_t k = 0; at && k < at->nmetrics; k++)
		if (!strcmp(at->metrics[k].name, name))
			return &at->metrics[k];
	return NULL;
}

/* Where child c's command ran: its own run directory, or its source's. */
static void run_dir(const struct sb_status *st, size_t c, FILE *f)
{
	const struct sb_child_reused *r = st->children[c].reused;

	if (r)
		fprintf(f, "%s/runs/%" PRId64, r->dir, r->index);
	else
		fprintf(f, "%s/runs/%zu", st->bench->dir, c);
}

static char *run_dir_text(const struct sb_status *st, size_t c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	run_dir(st, c, f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Row c's run directory (malloc'd) with pc bound to c's parameters; NULL
 * when out of memory. */
static char *row_begin(const struct sb_status *st, size_t c, struct sb_child *pc)
{
	char *dir = run_dir_text(st, c);

	if (dir != NULL && sb_plan_child_params(st->bench->plan, c, pc, NULL) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

static const char *reason_of(const struct sb_child_status *ch)
{
	return ch->reason && ch->reason[0] ? ch->reason : NULL;
}

static int runs_json(FILE *out, const struct sb_status *st, char **names, size_t nnames,
		     struct sb_child *pc)
{
	struct sb_json j;

	sb_json_init(&j, out);
	sb_status_json_head(&j, st);
	sb_json_key(&j, "metrics");
	sb_json_arr_begin(&j);
	for (size_t m = 0; m < nnames; m++)
		sb_json_str(&j, names[m]);
	sb_json_arr_end(&j);
	sb_json_key(&j, "runs");
	sb_json_arr_begin(&j);
	for (size_t c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		char *dir = row_begin(st, c, pc);

		if (dir == NULL)
			return -1;
		sb_json_obj_begin(&j);
		sb_status_json_child(&j, st, c, pc);
		sb_json_key(&j, "metrics");
		sb_json_obj_begin(&j);
		for (size_t m = 0; m < nnames; m++) {
			const struct sb_metric *v = metric_of(ch, names[m]);
			sb_json_key(&j, names[m]);
			if (v == NULL)
				sb_json_null(&j);
			else if (v->is_int)
				sb_json_int(&j, v->i);
			else
				sb_json_double(&j, v->value);
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "run_dir");
		sb_json_str(&j, dir);
		sb_json_key(&j, "reused_from");
		sb_status_json_reused(&j, ch->reused);
		sb_json_obj_end(&j);
		free(dir);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
	return 0;
}

static int runs_csv(FILE *out, const struct sb_status *st, char **names, size_t nnames,
		    struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	size_t np = sb_spec_param_count(spec), k;
	char num[32];

	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		sb_csv_field(out, fixed[k], k == 0);
	for (k = 0; k < np; k++)
		fprintf(out, ",param.%s", sb_spec_param_name(spec, k));
	for (k = 0; k < nnames; k++) {
		char *col = NULL;
		if (asprintf(&col, "metric.%s", names[k]) < 0)
			return -1;
		sb_csv_field(out, col, 0);
		free(col);
	}
	fputs("\r\n", out);
	for (size_t c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		char *dir = row_begin(st, c, pc);

		if (dir == NULL)
			return -1;
		fprintf(out, "%zu,%s,%" PRId64, c, sb_child_digest_hex(pc), sb_child_repeat(pc));
		sb_csv_field(out, sb_class_name(ch->cls), 0);
		sb_csv_field(out, reason_of(ch), 0);
		if (ch->latest)
			snprintf(num, sizeof(num), "%" PRId64, (int64_t)ch->latest->attempt);
		sb_csv_field(out, ch->latest ? num : NULL, 0);
		sb_csv_field(out, dir, 0);
		sb_csv_field(out, ch->reused ? ch->reused->dir : NULL, 0);
		if (ch->reused)
			snprintf(num, sizeof(num), "%" PRId64, ch->reused->index);
		sb_csv_field(out, ch->reused ? num : NULL, 0);
		for (k = 0; k < np; k++) {
			char *text = sb_value_text(sb_child_param(pc, k));
			if (text == NULL) {
				free(dir);
				return -1;
			}
			sb_csv_field(out, text, 0);
			free(text);
		}
		for (k = 0; k < nnames; k++) {
			const struct sb_metric *v = metric_of(ch, names[k]);
			if (v && v->is_int)
				fprintf(out, ",%" PRId64, v->i);
			else
				sb_csv_num(out, v ? v->value : (double)NAN);
		}
		fputs("\r\n", out);
		free(dir);
	}
	return 0;
}

/* The text: a line per child, for people (JSON and CSV are for programs). */
static int runs_text(FILE *out, const struct sb_status *st, char **names, size_t nnames,
		     struct sb_child *pc)
{
	const struct sb_spec *spec = st->bench->spec;
	char buf[SB_DOUBLE_TEXT_MAX];

	fprintf(out, "%-6s %-12s %-7s %s\n", "INDEX", "CLASS", "ATTEMPT", "PARAMS, METRICS, REASON");
	for (size_t c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const char *sep = "";

		if (sb_plan_child_params(st->bench->plan, c, pc, NULL) < 0)
			return -1;
		fprintf(out, "%-6zu %-12s ", c, sb_class_name(ch->cls));
		if (ch->latest)
			fprintf(out, "%-7" PRId64 " ", (int64_t)ch->latest->attempt);
		else
			fprintf(out, "%-7s ", "-");
		for (size_t k = 0; k < sb_child_param_count(pc); k++, sep = " ") {
			char *text = sb_value_text(sb_child_param(pc, k));
			if (text == NULL)
				return -1;
			fprintf(out, "%s%s=%s", sep, sb_spec_param_name(spec, k), text);
			free(text);
		}
		for (size_t m = 0; m < nnames; m++) {
			const struct sb_metric *v = metric_of(ch, names[m]);
			if (v == NULL)
				continue;
			if (v->is_int)
				fprintf(out, "%s%s=%" PRId64, sep, names[m], v->i);
			else
				fprintf(out, "%s%s=%s", sep, names[m], sb_fmt_double(v->value, buf));
			sep = " ";
		}
		if (ch->reused) {
			fputs(sep, out);
			sb_status_reused_text(out, ch->reused);
		} else if (reason_of(ch)) {
			fprintf(out, "%s(%s)", sep, reason_of(ch));
		}
		fputc('\n', out);
	}
	return 0;
}

static int render_runs(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct sb_analysis *a = obj;
	struct sb_child *pc = NULL;
	char **names = NULL;
	size_t nnames = 0;
	int rc;

	if (format != SB_FORMAT_TEXT && format != SB_FORMAT_JSON && format != SB_FORMAT_CSV)
		return sb_error_set(err, SB_ERR_INPUT, "the runs of an analysis are rendered as text, "
				    "JSON or CSV, not format %d", format);
	if (sb_analysis_runs_metrics(a, &names, &nnames) < 0 || (pc = sb_child_create()) == NULL) {
		sb_analysis_free_names(names, nnames);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	rc = format == SB_FORMAT_JSON ? runs_json(out, a->st, names, nnames, pc)
	   : format == SB_FORMAT_CSV ? runs_csv(out, a->st, names, nnames, pc)
	   : runs_text(out, a->st, names, nnames, pc);
	sb_child_destroy(pc);
	sb_analysis_free_names(names, nnames);
	if (rc < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return sb_render_flush(out, err);
}

int sb_analysis_render_runs(const struct sb_analysis *an, enum sb_format format, FILE *out,
			    struct sb_error *err)
{
	return render_runs(an, (int)format, out, err);
}

int sb_analysis_render_runs_buffer(const struct sb_analysis *an, enum sb_format format,
				   char **buf, size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render_runs, an, (int)format, buf, len, err);
}
