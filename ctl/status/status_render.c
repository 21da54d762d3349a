/* The renderers of a status: the text of `sbctl status` and the JSON of
 * `sbctl status --json` (docs/sbctl-status.md), and the JSON pieces that
 * `sbctl analyze --json` shares with it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_json.h"
#include "base/render.h"
#include "status/report_child.h"
#include "status/spans.h"
#include "status/status_private.h"
#include "base/suggest.h"
#include "proto/util.h"
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
	sb_json_key(j, "storage");
	sb_json_obj_begin(j);
	sb_json_key(j, "fs");
	sb_json_str(j, st->fs_name);
	sb_json_key(j, "shared");
	sb_json_bool(j, st->fs_shared);
	sb_json_key(j, "lag_s");
	sb_json_int(j, st->storage_lag_s);
	sb_json_obj_end(j);
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

static void json_restart_time(struct sb_json *j, const char *key, int64_t ns)
{
	char buf[32];

	sb_json_key(j, key);
	if (ns <= 0)
		sb_json_null(j);
	else
		sb_json_str(j, sb_fmt_time_ns(ns, buf));
}

/* "restarts" and "total_run_s" of a child stage 4b kept restarts of
 * (docs/sbctl-status.md, "Restarts"). */
void sb_status_json_restarts(struct sb_json *j, const struct sb_status *st, size_t c)
{
	const struct sb_chain *ch = sb_status_chain(st, c);

	if (ch == NULL)
		return;
	sb_json_key(j, "restarts");
	sb_json_arr_begin(j);
	for (uint32_t k = 0; k < ch->n; k++) {
		const struct sb_restart *r = &ch->v[k];
		sb_json_obj_begin(j);
		sb_json_key(j, "restart");
		sb_json_int(j, r->restart);
		json_restart_time(j, "started", r->started_ns);
		json_restart_time(j, "ended", r->ended_ns);
		sb_json_key(j, "ended_by");
		sb_json_str(j, r->ended_by);
		sb_json_key(j, "checkpoint");
		sb_json_str(j, r->checkpoint[0] ? r->checkpoint : NULL);
		sb_json_key(j, "resumed_from");
		sb_json_str(j, r->resumed_from[0] ? r->resumed_from : NULL);
		sb_json_key(j, "node");
		sb_json_str(j, r->node && r->node[0] ? r->node : NULL);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_key(j, "total_run_s");
	sb_json_double(j, ch->run_time_s);
}

/* Child c's object of the "children" array of `sbctl status --json`, from
 * its '{' to its '}': the one code path of the whole document
 * (render_json) and of one child alone (sb_status_render_child), so that
 * the two are the same bytes.  pc is scratch for c's parameters. */
static int json_child_object(struct sb_json *j, const struct sb_status *st, size_t c,
			     struct sb_child *pc, struct sb_error *err)
{
	const struct sb_child_status *ch = &st->children[c];
	const struct sb_attempt_status *a = ch->latest;
	char state[64], rel[SB_LOG_REL_MAX];
	bool over;
	size_t k;

	if (sb_plan_child_params(st->bench->plan, c, pc, err) < 0)
		return -1;
	sb_json_obj_begin(j);
	sb_status_json_child(j, st, c, pc);
	sb_json_key(j, "job_id");
	sb_json_str(j, a && a->job_id ? a->job_id : NULL);
	sb_json_key(j, "scheduler_state");
	sb_json_str(j, a ? sb_status_sched_state(a, state, sizeof(state)) : NULL);
	sb_json_key(j, "exit_code");
	/* the scheduler's ExitCode only once the job is over (sacct prints 0:0
	 * while it runs) */
	over = a && a->sched.has_row && sb_sched_state_terminal(a->sched.row.state);
	json_nullable_int(j, a && a->log.has_finish ? a->log.exit_code
			  : over ? a->sched.row.exit_code : -1);
	sb_json_key(j, "signal");
	if (a && a->log.has_finish)
		json_nullable_int(j, a->log.signal > 0 ? a->log.signal : -1);
	else
		json_nullable_int(j, over && a->sched.row.exit_signal > 0
				  ? a->sched.row.exit_signal : -1);
	sb_json_key(j, "log");
	sb_json_str(j, a ? sb_status_log_rel(a, c, rel) : NULL);
	sb_json_key(j, "reused_from"); /* docs/sbctl-submit.md "Reuse" */
	sb_status_json_reused(j, ch->reused);
	sb_spans_json_child(j, st, c, a); /* submitted ... cpu_s */
	sb_status_json_restarts(j, st, c);
	sb_json_key(j, "attempts");
	sb_json_arr_begin(j);
	for (k = 0; k < ch->nattempts; k++) {
		const struct sb_attempt_status *x = &ch->attempts[k];
		sb_json_obj_begin(j);
		sb_json_key(j, "attempt");
		sb_json_int(j, x->attempt);
		sb_json_key(j, "job_id");
		sb_json_str(j, x->job_id);
		sb_json_key(j, "class");
		sb_json_str(j, sb_class_name(x->verdict.cls));
		sb_json_key(j, "reason");
		if (x->verdict.reason[0])
			sb_json_str(j, x->verdict.reason);
		else
			sb_json_null(j);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_obj_end(j);
	return 0;
}

/* The document of `sbctl status --json`, one line; without its "children"
 * key when !children (sb_status_render_top). */
static int render_json(FILE *out, const struct sb_status *st, bool children,
		       struct sb_error *err)
{
	struct sb_child *pc = NULL;
	struct sb_json j;
	size_t c;

	if (children && (pc = sb_child_create()) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_json_init(&j, out);
	sb_status_json_head(&j, st);
	sb_json_key(&j, "counts");
	sb_status_json_counts(&j, st->counts);
	if (children) {
		sb_json_key(&j, "children");
		sb_json_arr_begin(&j);
		for (c = 0; c < st->n; c++) {
			if (json_child_object(&j, st, c, pc, err) < 0) {
				sb_child_destroy(pc);
				return -1;
			}
		}
		sb_json_arr_end(&j);
		sb_child_destroy(pc);
	}
	sb_json_obj_end(&j);
	fputc('\n', out);
	return 0;
}

/* The text view (docs/sbctl-status.md): the counts, then the children of
 * the classes listed, grouped by class and identical reason, each group
 * with the parameter values all its children share, its children with
 * their own parameters, and the tail of the first one's Slurm stderr. */

#define TEXT_LIST_DEFAULT 5 /* children shown per group without --class */

void sb_status_json_child(struct sb_json *j, const struct sb_status *st, size_t c,
			  const struct sb_child *pc)
{
	const struct sb_child_status *ch = &st->children[c];
	const struct sb_spec *spec = st->bench->spec;

	sb_json_key(j, "index");
	sb_json_uint(j, c);
	sb_json_key(j, "digest");
	sb_json_str(j, sb_child_digest_hex(pc));
	sb_json_key(j, "params");
	sb_json_obj_begin(j);
	for (size_t k = 0; k < sb_child_param_count(pc); k++) {
		sb_json_key(j, sb_spec_param_name(spec, k));
		sb_json_spec_value(j, sb_child_param(pc, k));
	}
	sb_json_obj_end(j);
	sb_json_key(j, "repeat");
	sb_json_int(j, sb_child_repeat(pc));
	sb_json_key(j, "class");
	sb_json_str(j, sb_class_name(ch->cls));
	sb_json_key(j, "reason");
	if (ch->cls == SB_CLASS_SUCCEEDED && (!ch->reason || !ch->reason[0]))
		sb_json_null(j);
	else
		sb_json_str(j, ch->reason);
	sb_json_key(j, "attempt");
	if (ch->latest)
		sb_json_int(j, ch->latest->attempt);
	else
		sb_json_null(j);
}

void sb_status_json_reused(struct sb_json *j, const struct sb_child_reused *r)
{
	if (r == NULL) {
		sb_json_null(j);
		return;
	}
	sb_json_obj_begin(j);
	sb_json_key(j, "dir");
	sb_json_str(j, r->dir);
	sb_json_key(j, "index");
	sb_json_int(j, r->index);
	sb_json_obj_end(j);
}

void sb_status_reused_text(FILE *out, const struct sb_child_reused *r)
{
	const char *base = strrchr(r->dir, '/'), *dash;

	base = base ? base + 1 : r->dir;
	dash = strrchr(base, '-');
	if (dash && strlen(dash + 1) == 12)
		fprintf(out, "reused from %.*s %s child %" PRId64, (int)(dash - base), base, dash + 1,
			r->index);
	else
		fprintf(out, "reused from %s child %" PRId64, r->dir, r->index);
}

/* "  reused from grow 3f2a0c1d9e8b child 7" for a reused child's row */
static void print_reused(FILE *out, const struct sb_child_reused *r)
{
	if (r == NULL)
		return;
	fputs("  ", out);
	sb_status_reused_text(out, r);
}

static void print_group(FILE *out, const struct sb_status *st, const struct sb_reason_group *rg,
			size_t limit, struct sb_param_share *ps)
{
	const size_t *c = rg->children, n = rg->n;
	enum sb_class cls = rg->cls;
	char *err_path = NULL, *tail, *words;
	size_t i, shown, nw = 0;

	fprintf(out, "\n%zu %s", n, sb_class_name(cls));
	if (cls != SB_CLASS_SUCCEEDED)
		fprintf(out, ": %s", rg->reason);
	if (sb_param_share_compute(st, c, n, ps, NULL) < 0) {
		fputc('\n', out);
		return;
	}
	words = sb_param_share_text(st, ps, c[0], true, &nw);
	if (words != NULL && nw > 0)
		fprintf(out, " \u2014 %s", words);
	if (words != NULL && nw > 0 && n > 1)
		fprintf(out, " (all %zu)", n);
	free(words);
	fputc('\n', out);
	shown = n < limit ? n : limit;
	for (i = 0; i < shown; i++) {
		const struct sb_attempt_status *a = st->children[c[i]].latest;
		const char *job = a && a->job_id ? a->job_id : "-";

		words = sb_param_share_text(st, ps, c[i], false, NULL);
		if (words != NULL && *words)
			fprintf(out, "  %-6zu %-12s %s", c[i], job, words);
		else
			fprintf(out, "  %-6zu %s", c[i], job);
		print_reused(out, st->children[c[i]].reused);
		fputc('\n', out);
		free(words);
	}
	if (shown < n)
		fprintf(out, "  ... and %zu more (--class %s lists them all)\n", n - shown,
			sb_class_name(cls));
	if (cls == SB_CLASS_FAILED || cls == SB_CLASS_KILLED || cls == SB_CLASS_STOPPED ||
	    cls == SB_CLASS_INCOMPLETE) {
		tail = sb_child_stderr_tail(st->bench, c[0], 3, &err_path);
		if (tail != NULL) {
			if (n > 1)
				fprintf(out, "    stderr of %zu:\n", c[0]);
			for (char *save, *line = strtok_r(tail, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				fprintf(out, "      | %s\n", line);
		}
		if (err_path != NULL) {
			size_t len = strlen(err_path);
			fprintf(out, "      output: %.*s.{out,err}\n", (int)(len - 4), err_path);
		}
		free(tail);
		free(err_path);
	}
	sb_param_share_release(ps);
}

static int render_text(FILE *out, const struct sb_status *st,
		       const struct sb_status_text_opts *opts, struct sb_error *err)
{
	const struct sb_bench *b = st->bench;
	unsigned want = opts && opts->classes ? opts->classes
		: ~((1u << SB_CLASS_SUCCEEDED) | (1u << SB_CLASS_PENDING) | (1u << SB_CLASS_RUNNING));
	size_t limit = opts && opts->classes ? SIZE_MAX : TEXT_LIST_DEFAULT;
	struct sb_reason_group *groups;
	struct sb_param_share ps;
	size_t k, ng;

	fprintf(out, "%s (%.12s): %zu %s, scheduler %s\n", b->name, b->digest, st->n,
		sb_plural(st->n, "child", "children"),
		st->consulted ? "consulted" : "not consulted (--offline)");
	if (b->lane)
		fprintf(out, "  lane: %s\n", b->lane);
	if (st->storage_lag_s > 0)
		fprintf(out, "  storage: %s%s, what other nodes write may show here up to %" PRId64
			" s late: verdicts that rest on a missing file wait for it\n", st->fs_name,
			st->fs_shared ? " (shared)" : "", st->storage_lag_s);
	for (k = 0; k < SB_CLASS_COUNT; k++)
		if (st->counts[k])
			fprintf(out, "  %-13s %zu\n", sb_class_name((enum sb_class)k), st->counts[k]);
	if (sb_reason_groups(st, want, &groups, &ng, err) < 0)
		return -1;
	for (k = 0; k < ng; k++)
		print_group(out, st, &groups[k], limit, &ps);
	sb_reason_groups_free(groups, ng);
	if (opts && opts->classes) {
		for (k = 0; k < SB_CLASS_COUNT; k++)
			if ((opts->classes & (1u << k)) && st->counts[k] == 0)
				fprintf(out, "\nno %s child\n", sb_class_name((enum sb_class)k));
	} else if (st->counts[SB_CLASS_RUNNING] + st->counts[SB_CLASS_PENDING] > 0) {
		fprintf(out, "\nnot listed: %zu running, %zu pending (--class running,pending lists them)\n",
			st->counts[SB_CLASS_RUNNING], st->counts[SB_CLASS_PENDING]);
	}
	if (st->outcomes_recorded)
		fprintf(out, "\n(recorded the scheduler's final state of %zu %s in submissions/)\n",
			st->outcomes_recorded, sb_plural(st->outcomes_recorded, "child", "children"));
	return 0;
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct sb_status *st = obj;

	if (format == SB_FORMAT_JSON) {
		if (render_json(out, st, true, err) < 0)
			return -1;
	} else if (format == SB_FORMAT_TEXT) {
		if (render_text(out, st, NULL, err) < 0)
			return -1;
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

int sb_status_render_text(const struct sb_status *st, const struct sb_status_text_opts *opts,
			  FILE *out, struct sb_error *err)
{
	if (render_text(out, st, opts, err) < 0)
		return -1;
	return sb_render_flush(out, err);
}

int sb_class_mask_parse(const char *list, unsigned *mask, struct sb_error *err)
{
	const char *names[SB_CLASS_COUNT], *p = list;
	char word[64], hint[SB_SUGGEST_MAX];
	unsigned m = 0;
	size_t k;

	for (k = 0; k < SB_CLASS_COUNT; k++)
		names[k] = sb_class_name((enum sb_class)k);
	while (p != NULL && *p) {
		size_t len = strcspn(p, ",");
		enum sb_class c;

		if (len > 0) {
			if (len >= sizeof(word))
				return sb_error_set(err, SB_ERR_INPUT, "'%.*s...' is not a class", 20, p);
			memcpy(word, p, len);
			word[len] = '\0';
			if (sb_class_parse(word, &c) < 0)
				return sb_error_set(err, SB_ERR_INPUT, "'%s' is not a class%s", word,
						    sb_suggest(word, names, SB_CLASS_COUNT, hint));
			m |= 1u << c;
		}
		p += len + (p[len] == ',');
	}
	if (m == 0)
		return sb_error_set(err, SB_ERR_INPUT, "no class named: give one or more of succeeded, "
				    "failed, killed, incomplete, stale, missing, partial, inconsistent, "
				    "invalid, pending, running, stopped");
	*mask = m;
	return 0;
}

int sb_status_render_buffer(const struct sb_status *st, enum sb_format format, char **buf,
			    size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render, st, (int)format, buf, len, err);
}

/* sb_status_render_child and sb_status_render_top through sb_render_buffer */
struct child_ref {
	const struct sb_status *st;
	size_t c;
};

static int render_child(const void *obj, int format, FILE *out, struct sb_error *err)
{
	const struct child_ref *r = obj;
	struct sb_child *pc = sb_child_create();
	struct sb_json j;
	int rc;

	(void)format;
	if (pc == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	sb_json_init(&j, out);
	rc = json_child_object(&j, r->st, r->c, pc, err);
	sb_child_destroy(pc);
	return rc < 0 ? -1 : sb_render_flush(out, err);
}

int sb_status_render_child(const struct sb_status *st, size_t c, char **buf, size_t *len,
			   struct sb_error *err)
{
	struct child_ref r = { st, c };

	if (buf != NULL)
		*buf = NULL;
	if (c >= st->n)
		return sb_error_set(err, SB_ERR_INPUT, "no child %zu: the benchmark has %zu %s", c,
				    st->n, sb_plural(st->n, "child", "children"));
	return sb_render_buffer(render_child, &r, SB_FORMAT_JSON, buf, len, err);
}

static int render_top(const void *obj, int format, FILE *out, struct sb_error *err)
{
	(void)format;
	if (render_json(out, obj, false, err) < 0)
		return -1;
	return sb_render_flush(out, err);
}

int sb_status_render_top(const struct sb_status *st, char **buf, size_t *len,
			 struct sb_error *err)
{
	return sb_render_buffer(render_top, st, SB_FORMAT_JSON, buf, len, err);
}
