/* Stage 6 of a status (status/status.c), what a status writes down: the
 * scheduler's final state of each attempt that is over, signed in
 * submissions/ (reconciled outcomes), and the counts in the local index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/index_private.h"
#include "bench/subm.h"
#include "status/status_stages.h"
#include "sbench/context.h"

const char *sb_status_sched_state(const struct sb_attempt_status *a, char *buf, size_t size)
{
	const struct sb_sched_row *r = &a->sched.row;

	if (!a->sched.has_row || r->state == SB_STATE_UNKNOWN)
		return NULL;
	if (r->state == SB_STATE_CANCELLED && r->cancelled_by >= 0)
		snprintf(buf, size, "CANCELLED by %ld", r->cancelled_by);
	else
		snprintf(buf, size, "%s", sb_sched_state_name(r->state));
	return buf;
}

/* The outcomes waiting to be recorded, written a record of
 * SB_SUBM_OUTCOMES_PER_RECORD at a time. */
struct outcome_batch {
	struct sb_subm_writer *w;
	struct sb_subm_entry e[SB_SUBM_OUTCOMES_PER_RECORD];
	char state[SB_SUBM_OUTCOMES_PER_RECORD][64];
	char job[SB_SUBM_OUTCOMES_PER_RECORD][SB_SCHED_JOB_ID_LEN];
	size_t n;
};

static int flush_outcomes(struct sb_status *st, struct outcome_batch *ob, const struct sb_key *key,
			  struct sb_error *err)
{
	if (ob->n == 0)
		return 0;
	if (ob->w == NULL) {
		if ((ob->w = sb_subm_writer_create(st->bench, key, err)) == NULL)
			return -1;
		sb_subm_writer_set_batch(ob->w);
	}
	if (sb_subm_append_outcomes(ob->w, ob->e, ob->n, err) < 0)
		return -1;
	st->outcomes_recorded += ob->n;
	ob->n = 0;
	return 0;
}

static int record_outcome(struct sb_status *st, struct outcome_batch *ob, const struct sb_key *key,
			  int64_t child, const struct sb_attempt_status *a, struct sb_error *err)
{
	struct sb_subm_entry *e = &ob->e[ob->n];

	memset(e, 0, sizeof(*e));
	e->type = SB_SUBM_OUTCOME;
	e->attempt = a->attempt;
	e->chunk = -1;
	e->child = child;
	e->job_id = sb_sched_row_job_id(&a->sched.row, ob->job[ob->n]);
	e->state = sb_status_sched_state(a, ob->state[ob->n], sizeof(ob->state[ob->n]));
	e->exit_code = a->sched.row.exit_code;
	e->signal = a->sched.row.exit_signal;
	e->end = a->sched.row.end;
	e->start = a->sched.row.start; /* the spans survive the accounting too */
	e->submit = a->sched.row.submit;
	ob->n++;
	return ob->n == SB_SUBM_OUTCOMES_PER_RECORD ? flush_outcomes(st, ob, key, err) : 0;
}

/* Stage 6, recording outcomes: the scheduler's final state of each attempt
 * that is over and has no outcome record yet, signed in submissions/, all
 * or nothing.  A full disk stops the recording, never the classification
 * (st->outcome_error says why); -1 only when out of memory. */
int sb_status_record_outcomes(struct sb_status_gather *g, struct sb_error *err)
{
	struct sb_status *st = g->st;
	struct outcome_batch *ob;
	struct sb_error werr;
	size_t c, i;
	int rc = 0;

	if (!g->o->record_outcomes)
		return 0;
	if ((ob = calloc(1, sizeof(*ob))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (c = 0; rc == 0 && c < st->n && !st->outcome_error; c++) {
		struct sb_child_status *ch = &st->children[c];
		for (i = 0; rc == 0 && i < ch->nattempts; i++) {
			const struct sb_attempt_status *a = &ch->attempts[i];
			/* without an outcome record, a row can only be the scheduler's */
			if (a->sched.has_row && !a->sched.outcome_recorded &&
			    !st->outcome_error && sb_sched_state_terminal(a->sched.row.state) &&
			    a->verdict.cls != SB_CLASS_RUNNING && a->verdict.cls != SB_CLASS_PENDING &&
			    a->verdict.cls != SB_CLASS_STALE &&
			    record_outcome(st, ob, &g->key, (int64_t)c, a, &werr) < 0 &&
			    (st->outcome_error = strdup(werr.msg)) == NULL)
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
	}
	if (rc == 0 && !st->outcome_error && flush_outcomes(st, ob, &g->key, &werr) < 0 &&
	    (st->outcome_error = strdup(werr.msg)) == NULL)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (sb_subm_writer_close_all_or_nothing(ob->w, &werr) < 0) {
		st->outcomes_recorded = 0;
		if (st->outcome_error == NULL)
			st->outcome_error = strdup(werr.msg);
	}
	free(ob);
	return rc;
}

/* The counts into the local index, for `sbctl list`: a cache, so a
 * failure loses nothing and is not reported. */
void sb_status_remember_counts(const struct sb_status_gather *g)
{
	const char *path = g->o->ctx ? sb_ctx_index(g->o->ctx) : NULL;
	struct sb_index *idx = path ? sb_index_open(path, NULL, NULL) : NULL;
	struct timespec ts;

	if (idx == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	sb_index_put_counts(idx, g->b->dir, g->st->counts,
			    (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec, NULL);
	sb_index_close(idx);
}
