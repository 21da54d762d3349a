/* sbctl status (status/status_private.h): sb_status_gather runs the stages
 * of the pipeline in the read order of its contract, each in a file of
 * its own below this one:
 *   1. sbctl's own records        status_subm.c
 *   2. the scheduler              status_sched.c
 *   3. the logs and results       status_logs.c
 *   4. the classification         status_verdicts.c (classify.c decides)
 *   4b. the restarts, checkpoints  status_chain.c
 *   5. the reused children        status_reuse.c
 *   6. what status writes down    status_record.c */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "bench/bench_private.h"
#include "status/status_private.h"
#include "sbench/key.h"

/* A child status for each child of the plan, none with an attempt yet. */
static int init_children(struct sb_status *st, struct sb_bench *b, struct sb_error *err)
{
	size_t c;

	st->bench = b;
	st->n = b->children;
	st->children = calloc(st->n ? st->n : 1, sizeof(*st->children));
	if (st->children == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (c = 0; c < st->n; c++) {
		st->children[c].index = c;
	}
	return 0;
}

/* The lines of sb_status_warning: the chunks submitted more than once, the
 * outcomes that could not be recorded, the early-stop rules that could not
 * have stopped anything (notes, taken over).  -1 when out of memory. */
static int make_warnings(struct sb_status *st, char **notes, size_t nnotes)
{
	size_t i, n = st->ndups + (st->outcome_error != NULL) + nnotes;

	st->warnings = calloc(n + 1, sizeof(*st->warnings));
	if (st->warnings == NULL)
		return -1;
	for (i = 0; i < nnotes; i++)
		st->warnings[st->nwarnings++] = notes[i];
	for (i = 0; i < st->ndups; i++)
		if (asprintf(&st->warnings[st->nwarnings++], "chunk %" PRId64 " of attempt %" PRId64
			     " was submitted more than once (arrays %s); its children are classified "
			     "by array %s", st->dups[i].chunk, st->dups[i].attempt, st->dups[i].job_ids,
			     st->dups[i].chosen) < 0)
			return st->warnings[--st->nwarnings] = NULL, -1;
	if (st->outcome_error &&
	    asprintf(&st->warnings[st->nwarnings++], "the scheduler's final states could not be "
		     "recorded in submissions/ (%s); the classification is complete, a later status "
		     "records them", st->outcome_error) < 0)
		return st->warnings[--st->nwarnings] = NULL, -1;
	return 0;
}

static void gather_release(struct sb_status_gather *g)
{
	sb_subm_release(&g->subm);
	free(g->cancels);
	free(g->cancel_v);
	sb_key_cleanse(&g->key);
}

int sb_status_gather(struct sb_bench *b, const struct sb_status_cfg *o,
		     struct sb_status *st, struct sb_error *err)
{
	struct sb_status_gather g = { .b = b, .o = o, .st = st };
	char **notes = NULL;
	size_t nnotes = 0;
	int rc = -1;

	/* st is zeroed by the caller (which may have set owns_bench); a key
	 * that cannot be loaded keeps the code its reader gave */
	sb_status_storage_lag(o->ctx, b->dir, st);
	if (init_children(st, b, err) < 0 || sb_bench_load_key(b, &g.key, err) < 0)
		return -1;
	if (sb_status_read_submissions(&g, err) < 0)
		goto out;
	if (sb_status_ask_scheduler(st, o, err) < 0)
		goto out;
	if (sb_status_read_logs(st, &g.key, o, err) < 0)
		goto out;
	if (sb_status_classify(&g, err) < 0 || sb_status_chains(&g, err) < 0 ||
	    sb_status_apply_reuses(&g, err) < 0)
		goto out;
	if (sb_status_record_outcomes(&g, err) < 0 || sb_status_check_rules(st, &notes, &nnotes, err) < 0)
		goto out;
	rc = make_warnings(st, notes, nnotes);
	if (st->warnings != NULL)
		nnotes = 0; /* the warnings own them, whatever came after */
	if (rc < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sb_status_remember_counts(&g);
	rc = 0;
out:
	/* evidence that cannot be read is a runtime failure, whatever the
	 * reader called it (a refused key file...) */
	if (rc < 0 && err && err->code != SB_ERR_NOMEM && err->code != SB_ERR_SCHEDULER)
		err->code = SB_ERR_RUNTIME;
	gather_release(&g);
	for (size_t i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	return rc;
}

int64_t sb_status_lag_of(const struct sb_ctx *ctx, const char *dir, bool *shared, const char **name)
{
	double lag = ctx ? sb_ctx_storage_lag(ctx) : SB_CTX_STORAGE_LAG_AUTO;

	*shared = sb_fs_shared(dir, name);
	if (lag == SB_CTX_STORAGE_LAG_AUTO)
		lag = *shared ? SB_CTX_STORAGE_LAG_SHARED : 0;
	return (int64_t)ceil(lag);
}

void sb_status_storage_lag(const struct sb_ctx *ctx, const char *dir, struct sb_status *st)
{
	const char *name;

	st->storage_lag_s = sb_status_lag_of(ctx, dir, &st->fs_shared, &name);
	snprintf(st->fs_name, sizeof(st->fs_name), "%s", name);
}

int sb_status_run(const char *bench, const struct sb_status_cfg *o, struct sb_status *st,
		  struct sb_error *err)
{
	struct sb_bench *b;

	memset(st, 0, sizeof(*st));
	b = sb_bench_find(o->ctx, bench, err);
	if (b == NULL)
		return -2;
	st->bench = b;
	st->owns_bench = true;
	if (sb_bench_plan(b, err) < 0) /* SB_ERR_RUNTIME: its record does not plan */
		return -1;
	if (sb_status_gather(b, o, st, err) < 0)
		return -1;
	return 0;
}

void sb_status_release(struct sb_status *st)
{
	size_t c, i;

	if (st == NULL)
		return;
	for (c = 0; c < st->n && st->children; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			sb_log_evidence_release(&st->children[c].attempts[i].log);
		}
	}
	free(st->children);
	for (i = 0; i < st->ndups; i++)
		free(st->dups[i].job_ids);
	free(st->dups);
	free(st->outcome_error);
	sb_sched_rows_release(&st->acct);
	sb_sched_rows_release(&st->queue);
	sb_arena_release(&st->strings);
	sb_intern_release(&st->texts);
	for (i = 0; i < SB_PARALLEL_MAX; i++) {
		sb_arena_release(&st->stores[i].arena);
		sb_intern_release(&st->stores[i].names);
	}
	for (i = 0; i < st->nwarnings; i++)
		free(st->warnings[i]);
	free(st->warnings);
	free(st->earlier);
	for (i = 0; i < st->nchains; i++)
		free(st->chains[i].v);
	free(st->chains);
	if (st->owns_bench)
		sb_bench_destroy(st->bench);
	memset(st, 0, sizeof(*st));
}
