/* Stage 1 of a status (status/status.c), sbctl's own records: which jobs
 * ran which chunks (the submission records and the task maps, an attempt
 * for every task), the outcomes and cancels recorded in submissions/, and
 * whether a submit of the benchmark runs now. */
#include <fcntl.h>
#include <malloc.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>

#include "base/fsutil.h"
#include "base/lock.h"
#include "bench/subm.h"
#include "status/status_stages.h"
#include "proto/benchdir.h"
#include "proto/mpcheck.h"
#include "proto/recordkeys.h"

#define MAP_MAX ((size_t)1 << 30)

/* The attempts live in the status's arena: a child's array grows by a
 * copy (the old one stays there until the end: a child has few attempts,
 * and most children one). */
static struct sb_attempt_status *add_attempt(struct sb_status *st, struct sb_child_status *c,
					     int64_t attempt)
{
	struct sb_attempt_status *v, *a;
	size_t i, at;

	for (i = 0; i < c->nattempts; i++)
		if (c->attempts[i].attempt == attempt)
			return &c->attempts[i];
	v = sb_arena_alloc(&st->strings, (c->nattempts + 1) * sizeof(*v));
	if (v == NULL)
		return NULL;
	/* keep them sorted by attempt */
	for (at = 0; at < c->nattempts && c->attempts[at].attempt < attempt; at++)
		;
	for (i = 0; i < c->nattempts; i++)
		v[i < at ? i : i + 1] = c->attempts[i];
	c->attempts = v;
	a = &v[at];
	memset(a, 0, sizeof(*a));
	a->attempt = attempt;
	a->log.exit_code = -1;
	c->nattempts++;
	return a;
}

/* Job ids in a total order: numerically for the digits sbatch prints. */
static int cmp_job_id(const char *x, const char *y)
{
	size_t a = strlen(x), b = strlen(y);

	return a != b ? (a > b) - (a < b) : strcmp(x, y);
}

/* A total order on records of one kind: time, then job id.  What status
 * picks from several records never depends on the order of the files in
 * submissions/ (the same evidence gives the same bytes). */
static int cmp_entry(const struct sb_subm_entry *x, const struct sb_subm_entry *y)
{
	int c;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
	if ((c = cmp_job_id(x->job_id, y->job_id)) != 0)
		return c;
	if ((c = strcmp(x->state, y->state)) != 0)
		return c;
	if (x->end != y->end)
		return (x->end > y->end) - (x->end < y->end);
	return (x->exit_code > y->exit_code) - (x->exit_code < y->exit_code);
}

/* What sbctl recorded about submitting one chunk. */
struct chunk_subm {
	const struct sb_subm_entry *sub; /* the first SUBMITTED record, or NULL */
	int64_t submit_ns;               /* its intent's time (else its own) */
	int64_t intent_ns;               /* no SUBMITTED: an intent newer than any
	                                    submit_failed, or 0 */
	size_t njobs;                    /* distinct job ids submitted */
};

static void chunk_submission(const struct sb_subm *subm, int64_t attempt, int64_t chunk,
			     struct chunk_subm *cs)
{
	const struct sb_subm_entry *intent = NULL, *failed = NULL;
	size_t i, k;

	memset(cs, 0, sizeof(*cs));
	for (i = 0; i < subm->n; i++) {
		const struct sb_subm_entry *e = &subm->v[i];
		if (e->attempt != attempt || e->chunk != chunk)
			continue;
		if (e->type == SB_SUBM_SUBMITTED && (cs->sub == NULL || cmp_entry(e, cs->sub) < 0))
			cs->sub = e;
		else if (e->type == SB_SUBM_INTENT && (intent == NULL || cmp_entry(e, intent) > 0))
			intent = e;
		else if (e->type == SB_SUBM_SUBMIT_FAILED && (failed == NULL || cmp_entry(e, failed) > 0))
			failed = e;
	}
	for (i = 0; i < subm->n; i++) { /* distinct job ids */
		const struct sb_subm_entry *e = &subm->v[i];
		bool seen = false;
		if (e->type != SB_SUBM_SUBMITTED || e->attempt != attempt || e->chunk != chunk)
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = subm->v[k].type == SB_SUBM_SUBMITTED && subm->v[k].attempt == attempt &&
			       subm->v[k].chunk == chunk && !strcmp(subm->v[k].job_id, e->job_id);
		cs->njobs += !seen;
	}
	if (cs->sub) {
		/* the intent that preceded it */
		const struct sb_subm_entry *before = NULL;
		for (i = 0; i < subm->n; i++) {
			const struct sb_subm_entry *e = &subm->v[i];
			if (e->type == SB_SUBM_INTENT && e->attempt == attempt && e->chunk == chunk &&
			    e->time_ns <= cs->sub->time_ns && (before == NULL || e->time_ns > before->time_ns))
				before = e;
		}
		cs->submit_ns = before ? before->time_ns : cs->sub->time_ns;
	} else if (intent && (failed == NULL || intent->time_ns > failed->time_ns)) {
		cs->intent_ns = intent->time_ns;
	}
}

/* Records a chunk submitted more than once: every array, in the total order. */
static int add_dup(struct sb_status *st, const struct sb_subm *subm, int64_t attempt, int64_t chunk,
		   const struct chunk_subm *cs, struct sb_error *err)
{
	const struct sb_subm_entry **v = calloc(cs->njobs, sizeof(*v));
	struct sb_status_dup *d;
	size_t i, k, n = 0, len = 1;
	char *text;

	if (v == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (i = 0; i < subm->n; i++) { /* one entry per job id: its first record */
		const struct sb_subm_entry *e = &subm->v[i];
		if (e->type != SB_SUBM_SUBMITTED || e->attempt != attempt || e->chunk != chunk)
			continue;
		for (k = 0; k < n && strcmp(v[k]->job_id, e->job_id); k++)
			;
		if (k < n) {
			if (cmp_entry(e, v[k]) < 0)
				v[k] = e;
			continue;
		}
		if (n < cs->njobs)
			v[n++] = e;
	}
	for (i = 1; i < n; i++) /* insertion sort: a handful */
		for (k = i; k > 0 && cmp_entry(v[k], v[k - 1]) < 0; k--) {
			const struct sb_subm_entry *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (i = 0; i < n; i++)
		len += strlen(v[i]->job_id) + 5;
	d = realloc(st->dups, (st->ndups + 1) * sizeof(*d));
	text = malloc(len);
	if (d == NULL || text == NULL) {
		free(v);
		free(text);
		if (d)
			st->dups = d;
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	st->dups = d;
	text[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(text, i + 1 == n ? " and " : ", ");
		strcat(text, v[i]->job_id);
	}
	d = &st->dups[st->ndups++];
	d->attempt = attempt;
	d->chunk = chunk;
	d->job_ids = text;
	snprintf(d->chosen, sizeof(d->chosen), "%s", v[0]->job_id);
	free(v);
	return 0;
}

static int read_map(struct sb_status *st, const char *path, int64_t attempt, int64_t chunk,
		    const struct sb_subm *subm, struct sb_error *err)
{
	struct chunk_subm cs;
	const struct sb_subm_entry *sub;
	const char *dup = NULL, *array_job = NULL;
	const msgpack_object *tasks;
	msgpack_unpacked u;
	char *data;
	size_t len;
	uint32_t t;
	int rc = -1;

	chunk_submission(subm, attempt, chunk, &cs);
	sub = cs.sub;
	if (sub && strlen(sub->job_id) >= SB_JOB_ID_MAX)
		return sb_errorf(err, "the job id recorded for chunk %" PRId64 " of attempt %" PRId64
				 " is longer than %d bytes", chunk, attempt, SB_JOB_ID_MAX - 1);
	if (cs.njobs > 1) {
		if (add_dup(st, subm, attempt, chunk, &cs, err) < 0)
			return -1;
		dup = st->dups[st->ndups - 1].job_ids;
	}
	if (sub && (array_job = sb_arena_strndup(&st->strings, sub->job_id, strlen(sub->job_id))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (sb_fs_read_file(path, MAP_MAX, &data, &len, err) < 0)
		return -1;
	msgpack_unpacked_init(&u);
	if (sb_mp_unpack_one(data, len, &u) < 0 ||
	    (tasks = sb_mp_get(&u.data, SB_TM_TASKS)) == NULL || tasks->type != MSGPACK_OBJECT_ARRAY) {
		sb_errorf(err, "task map '%s' cannot be decoded", path);
		goto out;
	}
	for (t = 0; t < tasks->via.array.size; t++) {
		int64_t child = sb_status_mp_int(&tasks->via.array.ptr[t], SB_TM_CHILD, -1);
		struct sb_attempt_status *a;

		if (child < 0 || (size_t)child >= st->n) {
			sb_errorf(err, "task map '%s': task %u names no child of this benchmark", path, t);
			goto out;
		}
		a = add_attempt(st, &st->children[child], attempt);
		if (a == NULL) {
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto out;
		}
		a->chunk = (int32_t)chunk; /* read_maps: it fits */
		a->task = (int32_t)t;
		a->duplicate = dup;
		a->sched.intent_ns = cs.intent_ns;
		if (sub) {
			char id[SB_JOB_ID_MAX + 16];
			int n = snprintf(id, sizeof(id), "%s_%u", array_job, t);
			a->array_job = array_job;
			if ((a->job_id = sb_arena_strndup(&st->strings, id, (size_t)n)) == NULL) {
				sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				goto out;
			}
			a->sched.submitted = true;
			a->sched.submit_ns = cs.submit_ns;
		}
	}
	rc = 0;
out:
	msgpack_unpacked_destroy(&u);
	free(data);
	return rc;
}

/* Every jobs/a<N>/chunk-<k>.map, in order. */
static int read_maps(struct sb_status *st, const struct sb_subm *subm, struct sb_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int64_t attempt, chunk;

	for (attempt = 0;; attempt++) {
		if (sb_bdir_attempt(dir, sizeof(dir), st->bench->dir, attempt) < 0)
			return sb_errorf(err, "benchmark directory '%s': path too long", st->bench->dir);
		if (access(dir, F_OK) != 0)
			break;
		for (chunk = 0;; chunk++) {
			if (sb_bdir_chunk(path, sizeof(path), st->bench->dir, attempt, chunk, "map") < 0)
				return sb_errorf(err, "benchmark directory '%s': path too long", st->bench->dir);
			if (access(path, F_OK) != 0)
				break;
			if (attempt > INT32_MAX || chunk > INT32_MAX) /* an attempt keeps them in 32 bits */
				return sb_errorf(err, "benchmark directory '%s': more than %d attempts or "
						 "chunks", st->bench->dir, INT32_MAX);
			if (read_map(st, path, attempt, chunk, subm, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* 1 when a submit (or rerun) of the benchmark holds its lock now, on this
 * node or another (base/lock.h): its chunks without a job id are being
 * submitted, not missing. */
int sb_status_submit_running(const char *dir)
{
	char *path;
	int rc;

	if (asprintf(&path, "%s/lock", dir) < 0)
		return 0;
	rc = sb_lock_held(path, NULL, 0);
	free(path);
	return rc;
}

/* The row an outcome record gives. */
static void outcome_row(const struct sb_subm_entry *e, struct sb_sched_row *r)
{
	memset(r, 0, sizeof(*r));
	/* sbctl wrote it from a row: "123_4" (anything else names job 0) */
	if (sb_sched_job_id_parse(e->job_id, r) < 0) {
		r->array_job = 0;
		r->array_task = -1;
	}
	r->state = sb_sched_state_parse(e->state, &r->cancelled_by);
	r->exit_code = e->exit_code;
	r->exit_signal = e->signal;
	r->end = e->end;
	r->start = e->start > 0 ? e->start : -1;
	r->submit = e->submit > 0 ? e->submit : -1;
	r->name = r->nodes = r->reason = "";
}

static int cmp_i64(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

/* A total order on the outcomes of one run: the record's time, then every
 * field of the row it gives.  The latest is the one taken, whatever the
 * order of the files; two that tie give the same row. */
static int cmp_outcome(int64_t tx, const struct sb_sched_row *x, int64_t ty,
		       const struct sb_sched_row *y)
{
	int c;

	if ((c = cmp_i64(tx, ty)) || (c = (x->array_job > y->array_job) - (x->array_job < y->array_job)) ||
	    (c = cmp_i64(x->array_task, y->array_task)) || (c = cmp_i64(x->state, y->state)) ||
	    (c = cmp_i64(x->cancelled_by, y->cancelled_by)) || (c = cmp_i64(x->end, y->end)) ||
	    (c = cmp_i64(x->exit_code, y->exit_code)) ||
	    (c = cmp_i64(x->exit_signal, y->exit_signal)) || (c = cmp_i64(x->start, y->start)))
		return c;
	return cmp_i64(x->submit, y->submit);
}

/* The cancels among the submission records: one pass. */
static void gather_cancels(const struct sb_subm *subm, const struct sb_subm_entry **cancels,
			   size_t *ncancels)
{
	*ncancels = 0;
	for (size_t i = 0; i < subm->n; i++)
		if (subm->v[i].type == SB_SUBM_CANCEL)
			cancels[(*ncancels)++] = &subm->v[i];
}

/* While the outcomes are read, before any log is, the time of the record
 * an attempt's outcome row came from is kept in its log evidence's finish
 * time (0 until a log is read), and cleared after: no array of a million
 * times beside the attempts. */
#define OUTCOME_NS(a) ((a)->log.finish_ns)

/* One outcome record's entry, as the outcomes are read: its row is the
 * attempt's until the scheduler gives one, when it is the latest of the
 * attempt's outcomes (cmp_outcome). */
static int take_outcome(void *arg, const struct sb_subm_entry *e, struct sb_error *err)
{
	struct sb_status_gather *g = arg;
	struct sb_child_status *ch;
	struct sb_attempt_status *a;
	struct sb_sched_row row;
	size_t k;

	(void)err;
	if (e->child < 0 || (size_t)e->child >= g->st->n)
		return 0;
	ch = &g->st->children[e->child];
	for (k = 0; k < ch->nattempts && ch->attempts[k].attempt != e->attempt; k++)
		;
	if (k == ch->nattempts)
		return 0;
	a = &ch->attempts[k];
	outcome_row(e, &row);
	if (a->sched.outcome_recorded &&
	    cmp_outcome(e->time_ns, &row, OUTCOME_NS(a), &a->sched.row) <= 0)
		return 0;
	a->sched.row = row;
	a->sched.has_row = a->sched.from_outcome = a->sched.outcome_recorded = true;
	OUTCOME_NS(a) = e->time_ns;
	return 0;
}

/* The outcomes and cancels recorded in submissions/.  The outcomes, one
 * per child, are read again apart from the other records, now that the
 * attempts are known, and go straight into them: a million of them are
 * never held as records beside the attempts.  (A status that records
 * outcomes between the two readings adds outcomes of runs that are over:
 * evidence that only grows in the safe direction.)  Then the records go,
 * but for the reuse and settings records. */
static int collect_records(struct sb_status_gather *g, struct sb_error *err)
{
	struct sb_status *st = g->st;
	struct sb_subm_outcomes each = { .each = take_outcome, .arg = g, .only = true };
	struct sb_subm outcomes_read;
	size_t c, i;
	int rc;

	rc = sb_subm_read_outcomes(g->b, &g->key, &each, &outcomes_read, err);
	sb_subm_release(&outcomes_read);
	for (c = 0; c < st->n; c++)
		for (i = 0; i < st->children[c].nattempts; i++)
			OUTCOME_NS(&st->children[c].attempts[i]) = 0;
	if (rc < 0)
		return -1;
	if ((g->cancels = calloc(g->subm.n + 1, sizeof(*g->cancels))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	gather_cancels(&g->subm, g->cancels, &g->ncancels);
	g->cancel_v = calloc(g->ncancels + 1, sizeof(*g->cancel_v));
	if (g->cancel_v == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (i = 0; i < g->ncancels; i++) {
		g->cancel_v[i].attempt = g->cancels[i]->attempt;
		g->cancel_v[i].chunk = g->cancels[i]->chunk;
	}
	free(g->cancels);
	g->cancels = NULL;
	/* the entries go, the reuse and settings records stay */
	free(g->subm.v);
	g->subm.v = NULL;
	g->subm.n = g->subm.cap = 0;
	sb_arena_release(&g->subm.strings);
	malloc_trim(0);
	return 0;
}

/* Stage 1, sbctl's own records: which jobs ran which chunks (the
 * submission records and the task maps), and whether a submit runs now. */
int sb_status_read_submissions(struct sb_status_gather *g, struct sb_error *err)
{
	g->st->probed_ns = sb_status_now_ns();
	g->st->submitting = sb_status_submit_running(g->b->dir) == 1;
	if (sb_subm_read(g->b, &g->key, &g->subm, err) < 0 || read_maps(g->st, &g->subm, err) < 0 ||
	    collect_records(g, err) < 0)
		return -1;
	return 0;
}
