/* The renderers of a status: the text of `sbctl status` and the JSON of
 * `sbctl status --json` (docs/sbctl-status.md), and the JSON pieces that
 * `sbctl analyze --json` shares with it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/plan_json.h"
#include "ctl/render.h"
#include "ctl/spans.h"
#include "ctl/status.h"
#include "proto/json.h"

static void json_nullable_int(struct sb_json *j, int v)
{
	if (v < 0)
		sb_json_null(j);
	else
		sb_json_int(j, v);
}

static void bench_keys(struct sb_json *j, const struct sb_bench *b);

void sb_status_json_head(struct sb_json *j, const struct sb_status *st)
{
	sb_json_obj_begin(j);
	sb_json_key(j, "format");
	sb_json_int(j, 1);
	sb_json_key(j, "benchmark");
	sb_json_obj_begin(j);
	bench_keys(j, st->bench);
	sb_spans_json_bench(j, st); /* first_submitted, last_ended, makespan_s */
	sb_json_obj_end(j);
	sb_json_key(j, "scheduler");
	sb_json_str(j, st->consulted ? "consulted" : "offline");
}

void sb_status_json_counts(struct sb_json *j, const size_t *counts)
{
	size_t k;

	sb_json_obj_begin(j);
	for (k = 0; k < SB_CLASS_COUNT; k++) {
		sb_json_key(j, sb_class_name((enum sb_class)k));
		sb_json_uint(j, counts[k]);
	}
	sb_json_obj_end(j);
}

void sb_status_json_benchmark(struct sb_json *j, const struct sb_bench *b)
{
	sb_json_obj_begin(j);
	bench_keys(j, b);
	sb_json_obj_end(j);
}

static void bench_keys(struct sb_json *j, const struct sb_bench *b)
{
	sb_json_key(j, "name");
	sb_json_str(j, b->name);
	sb_json_key(j, "tag");
	sb_json_str(j, b->tag);
	sb_json_key(j, "digest");
	sb_json_str(j, b->digest);
	sb_json_key(j, "dir");
	sb_json_str(j, b->dir);
	sb_json_key(j, "children");
	sb_json_uint(j, b->children);
}

static int render_json(FILE *out, const struct sb_status *st, struct sb_error *err)
{
	const struct sb_spec *spec = st->bench->spec;
	struct sb_child *pc = sb_child_create();
	struct sb_json j;
	size_t c, k;

	if (pc == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_json_init(&j, out);
	sb_status_json_head(&j, st);
	sb_json_key(&j, "counts");
	sb_status_json_counts(&j, st->counts);
	sb_json_key(&j, "children");
	sb_json_arr_begin(&j);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;
		char state[64];
		bool over;

		if (sb_plan_child_params(st->bench->plan, c, pc, err) < 0) {
			sb_child_destroy(pc);
			return -1;
		}
		sb_json_obj_begin(&j);
		sb_json_key(&j, "index");
		sb_json_uint(&j, c);
		sb_json_key(&j, "digest");
		sb_json_str(&j, sb_child_digest_hex(pc));
		sb_json_key(&j, "params");
		sb_json_obj_begin(&j);
		for (k = 0; k < sb_child_param_count(pc); k++) {
			sb_json_key(&j, sb_spec_param_name(spec, k));
			sb_json_spec_value(&j, sb_child_param(pc, k));
		}
		sb_json_obj_end(&j);
		sb_json_key(&j, "repeat");
		sb_json_int(&j, sb_child_repeat(pc));
		sb_json_key(&j, "class");
		sb_json_str(&j, sb_class_name(ch->cls));
		sb_json_key(&j, "reason");
		if (ch->cls == SB_CLASS_SUCCEEDED && (!ch->reason || !ch->reason[0]))
			sb_json_null(&j);
		else
			sb_json_str(&j, ch->reason);
		sb_json_key(&j, "attempt");
		if (a)
			sb_json_int(&j, a->attempt);
		else
			sb_json_null(&j);
		sb_json_key(&j, "job_id");
		sb_json_str(&j, a && a->job_id[0] ? a->job_id : NULL);
		sb_json_key(&j, "scheduler_state");
		sb_json_str(&j, a ? sb_status_sched_state(a, state, sizeof(state)) : NULL);
		sb_json_key(&j, "exit_code");
		/* the scheduler's ExitCode only once the job is over (sacct
		 * prints 0:0 while it runs) */
		over = a && a->sched.has_row && sb_sched_state_terminal(a->sched.row.state);
		json_nullable_int(&j, a && a->log.has_finish ? a->log.exit_code
				  : over ? a->sched.row.exit_code : -1);
		sb_json_key(&j, "signal");
		if (a && a->log.has_finish)
			json_nullable_int(&j, a->log.signal > 0 ? a->log.signal : -1);
		else
			json_nullable_int(&j, over && a->sched.row.exit_signal > 0
					  ? a->sched.row.exit_signal : -1);
		sb_json_key(&j, "log");
		sb_json_str(&j, a && a->log_rel ? a->log_rel : NULL);
		sb_spans_json_child(&j, st, a); /* submitted ... cpu_s */
		sb_json_key(&j, "attempts");
		sb_json_arr_begin(&j);
		for (k = 0; k < ch->nattempts; k++) {
			const struct sb_attempt_status *x = &ch->attempts[k];
			sb_json_obj_begin(&j);
			sb_json_key(&j, "attempt");
			sb_json_int(&j, x->attempt);
			sb_json_key(&j, "job_id");
			sb_json_str(&j, x->job_id[0] ? x->job_id : NULL);
			sb_json_key(&j, "class");
			sb_json_str(&j, sb_class_name(x->verdict.cls));
			sb_json_key(&j, "reason");
			if (x->verdict.reason[0])
				sb_json_str(&j, x->verdict.reason);
			else
				sb_json_null(&j);
			sb_json_obj_end(&j);
		}
		sb_json_arr_end(&j);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
	sb_child_destroy(pc);
	return 0;
}

/* The last n lines of a file, indented, for the reason of a failure. */
static void print_tail(FILE *out, const char *path, int n)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	long size;
	size_t got, i;
	int lines = 0;

	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	while (got > 0 && buf[got - 1] == '\n')
		buf[--got] = '\0';
	for (i = got; i > 0; i--)
		if (buf[i - 1] == '\n' && ++lines == n)
			break;
	if (got == 0)
		return;
	for (char *save, *line = strtok_r(buf + i, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(out, "      | %.200s\n", line);
}

static void render_text(FILE *out, const struct sb_status *st)
{
	const struct sb_bench *b = st->bench;
	size_t c, k, bad = 0;

	fprintf(out, "%s (%.12s): %zu children, scheduler %s\n", b->name, b->digest, st->n,
		st->consulted ? "consulted" : "not consulted (--offline)");
	if (b->lane)
		fprintf(out, "  lane: %s\n", b->lane);
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, "  %-13s %zu\n", sb_class_name((enum sb_class)k), st->counts[k]);
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;

		if (ch->cls == SB_CLASS_SUCCEEDED)
			continue;
		if (bad++ == 0)
			fputs("\nchildren that did not succeed:\n", out);
		fprintf(out, "  %-6zu %-12s %-10s %s\n", c, sb_class_name(ch->cls),
			a && a->job_id[0] ? a->job_id : "-", ch->reason);
		if (a && a->array_job[0] && (ch->cls == SB_CLASS_FAILED || ch->cls == SB_CLASS_KILLED ||
					     ch->cls == SB_CLASS_STOPPED || ch->cls == SB_CLASS_INCOMPLETE)) {
			char *err_path;
			if (asprintf(&err_path, "%s/runs/%zu/slurm-%s_%" PRId64 ".err", b->dir, c,
				     a->array_job, a->task) >= 0) {
				print_tail(out, err_path, 3);
				free(err_path);
			}
			fprintf(out, "      output: %s/runs/%zu/slurm-%s_%" PRId64 ".{out,err}\n", b->dir, c,
				a->array_job, a->task);
		}
	}
	if (st->outcomes_recorded)
		fprintf(out, "\n(recorded the scheduler's final state of %zu children in submissions/)\n",
			st->outcomes_recorded);
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct sb_status *st = obj;

	if (format == SB_FORMAT_JSON) {
		if (render_json(out, st, err) < 0)
			return -1;
	} else if (format == SB_FORMAT_TEXT) {
		render_text(out, st);
	} else {
		return sb_error_set(err, SB_ERR_INPUT, "a status is rendered as text or JSON, not "
				    "format %d", format);
	}
	return sb_render_flush(out, err);
}

int sb_status_render(const struct sb_status *st, enum sb_format format, FILE *out,
		     struct sb_error *err)
{
	return render(st, (int)format, out, err);
}

int sb_status_render_buffer(const struct sb_status *st, enum sb_format format, char **buf,
			    size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render, st, (int)format, buf, len, err);
}
