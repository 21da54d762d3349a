/* Rendering a submit, rerun or cancel result as sbctl prints it
 * (include/sbench/submit.h, docs/sbctl-submit.md, docs/sbctl-rerun.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm_cmd.h"
#include "submit/submit_private.h"
#include "proto/json.h"
#include "sbench/submit.h"

/* "0-11" or "0,2,5" style text of a child list, shortened for people. */
/* "child 4", "children 0-11", "children 1,3,8" (the first eight, then ",...") */
static void print_children(FILE *out, const size_t *c, size_t n)
{
	fputs(n == 1 ? "child " : "children ", out);
	if (n == 1)
		fprintf(out, "%zu", c[0]);
	else if (n > 0 && c[n - 1] - c[0] == n - 1)
		fprintf(out, "%zu-%zu", c[0], c[n - 1]);
	else
		for (size_t i = 0; i < n && i < 8; i++)
			fprintf(out, "%s%zu%s", i ? "," : "", c[i], i == 7 && n > 8 ? ",..." : "");
}

static void json_benchmark(struct sb_json *j, const struct sb_submit_result *r)
{
	sb_json_key(j, "format");
	sb_json_int(j, 1);
	sb_json_key(j, "benchmark");
	sb_json_obj_begin(j);
	sb_json_key(j, "name");
	sb_json_str(j, r->name);
	sb_json_key(j, "digest");
	sb_json_str(j, r->digest);
	sb_json_key(j, "dir");
	sb_json_str(j, r->dir);
	sb_json_obj_end(j);
}

/* The --json document of sbctl submit and rerun. */
static void json_submit(struct sb_json *j, const struct sb_submit_result *r)
{
	size_t i, k;

	sb_json_obj_begin(j);
	json_benchmark(j, r);
	sb_json_key(j, "already_submitted");
	sb_json_bool(j, r->already_submitted);
	if (r->kind == SB_SUBMIT_KIND_SUBMIT) {
		sb_json_key(j, "reused");
		sb_json_uint(j, r->reused);
		sb_json_key(j, "differences");
		sb_json_arr_begin(j);
		for (i = 0; i < r->diffs.n; i++) {
			sb_json_obj_begin(j);
			sb_json_key(j, "key");
			sb_json_str(j, r->diffs.v[i].key);
			sb_json_key(j, "stored");
			sb_setting_value_json(j, &r->diffs.v[i].stored_v);
			sb_json_key(j, "spec");
			sb_setting_value_json(j, &r->diffs.v[i].spec_v);
			sb_json_key(j, "advice");
			sb_json_str(j, r->diffs.v[i].advice);
			sb_json_obj_end(j);
		}
		sb_json_arr_end(j);
	}
	sb_json_key(j, "jobs");
	sb_json_arr_begin(j);
	for (i = 0; i < r->njobs; i++) {
		sb_json_obj_begin(j);
		sb_json_key(j, "job_id");
		sb_json_str(j, r->jobs[i].job_id);
		sb_json_key(j, "array");
		sb_json_str(j, r->jobs[i].array);
		sb_json_key(j, "recovered");
		sb_json_bool(j, r->jobs[i].recovered);
		sb_json_key(j, "submitted_now");
		sb_json_bool(j, r->jobs[i].submitted_now);
		sb_json_key(j, "children");
		sb_json_arr_begin(j);
		for (k = 0; k < r->jobs[i].n; k++)
			sb_json_uint(j, r->jobs[i].children[k]);
		sb_json_arr_end(j);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_key(j, "chunks");
	sb_json_uint(j, r->nchunks);
	sb_json_key(j, "duplicates");
	sb_json_arr_begin(j);
	for (i = 0; i < r->ndups; i++) {
		sb_json_obj_begin(j);
		sb_json_key(j, "attempt");
		sb_json_int(j, r->dups[i].attempt);
		sb_json_key(j, "chunk");
		sb_json_int(j, r->dups[i].chunk);
		sb_json_key(j, "job_ids");
		sb_json_arr_begin(j);
		for (k = 0; k < r->dups[i].n; k++)
			sb_json_str(j, r->dups[i].job_ids[k]);
		sb_json_arr_end(j);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	if (r->kind == SB_SUBMIT_KIND_SUBMIT && r->smoke.outcome != SB_SUBMIT_SMOKE_NONE) {
		const struct sb_submit_smoke_state *m = &r->smoke;
		sb_json_key(j, "smoke");
		sb_json_obj_begin(j);
		sb_json_key(j, "outcome");
		sb_json_str(j, sb_submit_smoke_name(m->outcome));
		sb_json_key(j, "child");
		if (m->child >= 0)
			sb_json_int(j, m->child);
		else
			sb_json_null(j);
		sb_json_key(j, "class");
		sb_json_str(j, m->cls);
		sb_json_key(j, "reason");
		sb_json_str(j, m->reason);
		sb_json_key(j, "stderr_tail");
		sb_json_str(j, m->stderr_tail);
		sb_json_key(j, "seconds");
		sb_json_double(j, m->seconds);
		sb_json_key(j, "waited_s");
		sb_json_double(j, round(m->waited_s * 1000) / 1000);
		sb_json_key(j, "held_back");
		sb_json_uint(j, m->held);
		sb_json_obj_end(j);
	}
	sb_json_obj_end(j);
}

/* The --json document of sbctl cancel. */
static void json_cancel(struct sb_json *j, const struct sb_submit_result *r)
{
	sb_json_obj_begin(j);
	json_benchmark(j, r);
	sb_json_key(j, "cancelled");
	sb_json_arr_begin(j);
	for (size_t i = 0; i < r->njobs; i++) {
		sb_json_obj_begin(j);
		sb_json_key(j, "job_id");
		sb_json_str(j, r->jobs[i].job_id);
		sb_json_key(j, "attempt");
		sb_json_int(j, r->jobs[i].attempt);
		sb_json_key(j, "chunk");
		sb_json_int(j, r->jobs[i].chunk);
		sb_json_obj_end(j);
	}
	sb_json_arr_end(j);
	sb_json_obj_end(j);
}

/* The text of a submit or rerun that submitted (or found) job arrays. */
/* The text of a dry run (`sbctl submit --dry-run`): the attempt, then each
 * chunk's sbatch command line, batch script and task map. */
static void print_dry_run(FILE *out, const struct sb_bench *b, const struct sb_chunks *chunks,
			  const char *agent, bool smoke_layout)
{
	size_t k, t, n = 0;

	for (k = 0; k < chunks->n; k++)
		n += chunks->v[k].n;
	fprintf(out, "benchmark %s (%s), attempt %" PRId64 ": %zu child%s in %zu job array%s\n",
		b->name, b->digest, chunks->n ? chunks->v[0].attempt : 0, n, n == 1 ? "" : "ren",
		chunks->n, chunks->n == 1 ? "" : "s");
	/* a rerun's (or a second submit's) directory is there already */
	fprintf(out, "directory %s (%s: --dry-run)\n", b->dir,
		access(b->dir, F_OK) == 0 ? "exists, nothing written" : "not created");
	for (k = 0; k < chunks->n; k++) {
		const struct sb_chunk *ch = &chunks->v[k];
		/* after a smoke test's chunk, the next one does not wait for it */
		char **argv = sb_jobs_sbatch_argv(b, chunks, ch, k > (smoke_layout ? 1u : 0u) &&
						  chunks->set.throttle > 0 ? "<job id of chunk before>"
						  : NULL, NULL);
		char *script = sb_jobs_script(b, ch, agent);

		fprintf(out, "\n== chunk %zu%s: %s\n$", k, smoke_layout && k == 0 ? " (the smoke test: "
			"the other chunks are submitted once its child succeeded)" : "", ch->script);
		for (char **p = argv; p && *p; p++)
			fprintf(out, " %s", *p);
		fprintf(out, "\n-- %s\n%s-- task -> child:", ch->script, script ? script : "");
		for (t = 0; t < ch->n; t++)
			fprintf(out, "%s%zu->%zu", t % 10 ? " " : "\n  ", t, ch->children[t]);
		fputc('\n', out);
		sb_slurm_argv_free(argv);
		free(script);
	}
}

static void text_jobs(FILE *out, const struct sb_submit_result *r)
{
	size_t i, now = 0;

	for (i = 0; i < r->njobs; i++)
		now += r->jobs[i].submitted_now;
	if (r->already_submitted)
		fprintf(out, "%s (%.12s) was already submitted%s: nothing submitted\n", r->name, r->digest,
			r->waited ? " (by the sbctl this one waited for)" : "");
	else if (r->njobs == 0 && r->reused > 0)
		fprintf(out, "submitted %s (%.12s): no job array, every child is reused\n", r->name,
			r->digest);
	else if (now == r->njobs)
		fprintf(out, "submitted %s (%.12s): %zu job array%s\n", r->name, r->digest, now,
			now == 1 ? "" : "s");
	else
		fprintf(out, "submitted %s (%.12s): %zu job array%s now, %zu before\n", r->name, r->digest,
			now, now == 1 ? "" : "s", r->njobs - now);
	for (i = 0; i < r->njobs; i++) {
		const struct sb_submit_job *j = &r->jobs[i];
		fprintf(out, "  job %-10s array %-12s ", j->job_id, j->array);
		print_children(out, j->children, j->n);
		fputs(j->recovered ? "  (found by name after an interrupted sbatch)\n"
		      : !j->submitted_now && !r->already_submitted ? "  (submitted before)\n" : "\n", out);
	}
	if (r->kind == SB_SUBMIT_KIND_SUBMIT && r->reused > 0)
		fprintf(out, "reused %zu child%s proven in earlier benchmarks ('sbctl status' checks them "
			"again)\n", r->reused, r->reused == 1 ? "" : "ren");
	fprintf(out, "directory %s\n", r->dir);
}

/* The smoke test's lines (docs/sbctl-submit.md, "SMOKE TEST"). */
static void text_smoke(FILE *out, const struct sb_submit_result *r)
{
	const struct sb_submit_smoke_state *m = &r->smoke;
	const char *spec = m->spec ? m->spec : "SPEC";

	switch (m->outcome) {
	case SB_SUBMIT_SMOKE_NONE:
		return;
	case SB_SUBMIT_SMOKE_SKIPPED:
		fprintf(out, "smoke test: skipped, %s\n", m->reason ? m->reason : "");
		return;
	case SB_SUBMIT_SMOKE_PASSED:
		fprintf(out, "smoke test: child %" PRId64 " succeeded after %.0f s; the other children "
			"are submitted\n", m->child, m->waited_s);
		return;
	case SB_SUBMIT_SMOKE_FAILED:
		fprintf(out, "smoke test: FAILED after %.0f s: child %" PRId64 " is %s: %s\n", m->waited_s,
			m->child, m->cls ? m->cls : "?", m->reason ? m->reason : "");
		break;
	case SB_SUBMIT_SMOKE_TIMEOUT:
		fprintf(out, "smoke test: NOT OVER after %.0f s: child %" PRId64 " is still %s%s%s\n",
			m->waited_s, m->child, m->cls ? m->cls : "?", m->reason && m->reason[0] ? ": " : "",
			m->reason ? m->reason : "");
		break;
	}
	if (m->stderr_tail) {
		char *copy = strdup(m->stderr_tail), *save = NULL;
		for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(out, "      | %.200s\n", line);
		free(copy);
	}
	fprintf(out, "  the other %zu child%s %s not submitted; ", m->held, m->held == 1 ? "" : "ren",
		m->held == 1 ? "is" : "are");
	if (m->outcome == SB_SUBMIT_SMOKE_TIMEOUT)
		fprintf(out, "'sbctl submit %s --smoke' waits for child %" PRId64 " again, ", spec, m->child);
	else
		fprintf(out, "after 'sbctl rerun %s --only %s' (a fix outside the spec), 'sbctl submit %s "
			"--smoke' waits for child %" PRId64 " again; ", r->name, m->cls ? m->cls : "failed",
			spec, m->child);
	fprintf(out, "'sbctl submit %s' submits them without waiting\n", spec);
}

static void text(FILE *out, const struct sb_submit_result *r)
{
	if (r->dry_run) {
		if (r->dry_chunks.n > 0)
			print_dry_run(out, r->dry_bench, &r->dry_chunks, r->dry_agent, r->smoke.layout);
		else if (r->kind == SB_SUBMIT_KIND_RERUN && r->reused == 0)
			fprintf(out, "no child of %s is %s: nothing to rerun (--dry-run)\n", r->name,
				r->classes ? r->classes : "");
		if (r->reused > 0)
			fprintf(out, "%s%zu child%s proven in earlier benchmarks would be reused, not "
				"submitted\n", r->dry_chunks.n > 0 ? "\n" : "", r->reused,
				r->reused == 1 ? "" : "ren");
		return;
	}
	switch (r->kind) {
	case SB_SUBMIT_KIND_SUBMIT:
		text_jobs(out, r);
		text_smoke(out, r);
		break;
	case SB_SUBMIT_KIND_RERUN:
		if (r->resumed)
			fprintf(out, "an interrupted submission (attempt %s) was resumed first; run 'sbctl "
				"rerun' again for the children chosen now\n", r->njobs ? "below" : "?");
		if (r->njobs == 0)
			fprintf(out, "no child of %s is %s: nothing to rerun\n", r->name,
				r->classes ? r->classes : "");
		else
			text_jobs(out, r);
		break;
	case SB_SUBMIT_KIND_CANCEL:
		for (size_t i = 0; i < r->njobs; i++)
			fprintf(out, "cancelled job %s (attempt %" PRId64 ", chunk %" PRId64 ")\n",
				r->jobs[i].job_id, r->jobs[i].attempt, r->jobs[i].chunk);
		if (r->njobs == 0)
			fprintf(out, "nothing to cancel: no job of %s is pending or running\n", r->name);
		break;
	}
}

int sb_submit_render(const struct sb_submit_result *res, enum sb_format format, FILE *out,
		     struct sb_error *err)
{
	struct sb_json j;
	int e = 0;

	if (format == SB_FORMAT_TEXT) {
		text(out, res);
	} else if (format == SB_FORMAT_JSON) {
		sb_json_init(&j, out);
		if (res->kind == SB_SUBMIT_KIND_CANCEL)
			json_cancel(&j, res);
		else
			json_submit(&j, res);
		fputc('\n', out);
	} else {
		return sb_error_set(err, SB_ERR_INPUT, "a submit result renders as text or JSON only");
	}
	if (fflush(out) != 0)
		e = errno;
	if (e || ferror(out))
		return sb_errorf(err, "cannot write the output: %s", strerror(e ? e : EIO));
	return 0;
}

int sb_submit_render_buffer(const struct sb_submit_result *res, enum sb_format format,
			    char **buf, size_t *len, struct sb_error *err)
{
	size_t n = 0;
	FILE *f;
	int rc;

	*buf = NULL;
	if (len)
		*len = 0;
	if ((f = open_memstream(buf, &n)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	rc = sb_submit_render(res, format, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
		if (err && err->code == SB_ERR_RUNTIME)
			err->code = SB_ERR_NOMEM; /* a memory stream fails only for want of memory */
		return -1;
	}
	if (len)
		*len = n;
	return 0;
}
