/* Stage 4 of a status (status/status.c), the classification: a verdict
 * for every attempt from the evidence gathered (sb_classify,
 * status/classify.h), a class for every child (its latest attempt's), and
 * the counts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_checkpoint.h"
#include "spec/spec_private.h"
#include "status/status_stages.h"

/* The log read belongs to an earlier run of a requeued job than the one
 * the scheduler describes: it is not evidence about the latest run. */
static void forget_earlier_run(struct sb_attempt_status *a)
{
	sb_log_evidence_release(&a->log);
	a->log_by_job = false;
	a->log_rel = NULL;
	a->metrics = NULL; /* in a store, released with the status */
	a->nmetrics = 0;
}

/* Classifies one attempt from the evidence gathered (its outcome record,
 * if any, already its row unless the scheduler gave one). */
static int classify_attempt(struct sb_status *st, struct sb_attempt_status *a,
			    const struct sb_status_cancel *cancels, size_t ncancels,
			    const struct sb_classify_params *p)
{
	struct sb_verdict v = { 0 };
	size_t k;

	a->sched.consulted = st->consulted;
	/* a submit that began after the lock was probed is running too */
	a->sched.submitting = st->submitting ||
			      (!a->sched.submitted && a->sched.intent_ns >= st->probed_ns);
	for (k = 0; k < ncancels; k++)
		if (cancels[k].attempt == a->attempt &&
		    (cancels[k].chunk < 0 || cancels[k].chunk == a->chunk))
			a->sched.cancel_recorded = true;
	if (a->sched.has_row && a->log.present && a->sched_restart > a->log_restart)
		forget_earlier_run(a);
	/* the reverse: the log is a newer run's (a restart accounting has not
	 * written yet), so the row says nothing of it */
	else if (a->sched.has_row && !a->sched.from_outcome && a->log.present &&
		 a->sched_restart >= 0 && a->log_restart > a->sched_restart)
		a->sched.has_row = false;
	sb_classify(&a->log, &a->sched, p, &v);
	if (a->duplicate) {
		char *was = strdup(v.reason);
		sb_verdict_set_reason(&v, "%s%schunk %" PRId32 " of attempt %" PRId32 " was "
				      "submitted more than once (arrays %s): classified by array %s",
				      was ? was : "", was && was[0] ? "; " : "", a->chunk, a->attempt,
				      a->duplicate, a->array_job);
		free(was);
	}
	a->verdict.cls = v.cls;
	a->verdict.reason = sb_intern(&st->texts, v.reason);
	sb_verdict_release(&v);
	return a->verdict.reason ? 0 : -1;
}

/* Stage 4, classification: a verdict for every attempt, a class for every
 * child (its latest attempt's), and the counts. */
int sb_status_classify(struct sb_status_gather *g, struct sb_error *err)
{
	struct sb_status *st = g->st;
	struct sb_classify_params p = {
		.now_ns = st->now_ns, .asked_ns = st->asked_ns,
		.heartbeat_s = sb_spec_heartbeat(g->b->spec), .settle_s = g->o->settle_s,
		.storage_lag_s = st->storage_lag_s, .kill_wait_s = g->b->kill_wait,
		.made_ns = g->b->created_ns,
	};
	const struct sb_spec_checkpoint *ck = sb_spec_checkpoint(g->b->spec);
	struct sb_verdict nv = { 0 };
	enum sb_class no_run_cls;
	const char *no_run;
	size_t c, i;

	/* a child with no attempt yet: one verdict for all of them */
	sb_classify_no_run(&p, st->submitting, &nv);
	no_run_cls = nv.cls;
	no_run = sb_intern(&st->texts, nv.reason);
	sb_verdict_release(&nv);
	if (no_run == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	p.requeue_on = ck ? ck->requeue_on : 0;
	st->params = p;
	for (c = 0; c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		for (i = 0; i < ch->nattempts; i++)
			if (classify_attempt(st, &ch->attempts[i], g->cancel_v, g->ncancels, &p) < 0)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		ch->latest = ch->nattempts ? &ch->attempts[ch->nattempts - 1] : NULL;
		if (ch->latest) {
			ch->cls = ch->latest->verdict.cls;
			ch->reason = ch->latest->verdict.reason;
		} else {
			ch->cls = no_run_cls;
			ch->reason = no_run;
		}
		st->counts[ch->cls]++;
	}
	return 0;
}
