/* sbctl status (ctl/status.h): sb_status_gather runs the stages of the
 * pipeline in the read order of its contract — sbctl's own records, the
 * scheduler (ctl/status_sched.c), the logs (ctl/status_logs.c) — then
 * classifies and records the scheduler's final states.  This file holds the
 * stages that read submissions/ and jobs/, and the classification. */
#include <fcntl.h>
#include <malloc.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "ctl/fsutil.h"
#include "ctl/index.h"
#include "ctl/reuse.h"
#include "sbench/context.h"
#include "ctl/status_internal.h"
#include "ctl/subm.h"
#include "proto/benchdir.h"
#include "proto/mpcheck.h"
#include "sbench/key.h"

#define MAP_MAX ((size_t)1 << 30)

/* The evidence strings of a log (sb_log_evidence owns none itself). */
static void log_evidence_release(struct sb_log_evidence *l)
{
	if (!l->job_is_num)
		free(l->job_id);
	if (l->notes) {
		free(l->notes->error);
		free(l->notes->not_ok);
		free(l->notes->changed);
		free(l->notes->early_stop);
		free(l->notes);
	}
	memset(l, 0, sizeof(*l));
	l->exit_code = -1;
}

/* ---- attempts from the task maps -------------------------------------- */

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
	    (tasks = sb_mp_get(&u.data, "tasks")) == NULL || tasks->type != MSGPACK_OBJECT_ARRAY) {
		sb_errorf(err, "task map '%s' cannot be decoded", path);
		goto out;
	}
	for (t = 0; t < tasks->via.array.size; t++) {
		int64_t child = sb_status_mp_int(&tasks->via.array.ptr[t], "child", -1);
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

/* The log read belongs to an earlier run of a requeued job than the one
 * the scheduler describes: it is not evidence about the latest run. */
static void forget_earlier_run(struct sb_attempt_status *a)
{
	log_evidence_release(&a->log);
	a->log_by_job = false;
	a->log_rel = NULL;
	a->metrics = NULL; /* in a store, released with the status */
	a->nmetrics = 0;
}

/* 1 when a submit (or rerun) of the benchmark holds its lock now: its
 * chunks without a job id are being submitted, not missing. */
int sb_status_submit_running(const char *dir)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *path;
	int fd, rc;

	if (asprintf(&path, "%s/lock", dir) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return 0;
	rc = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	close(fd);
	return rc;
}

/* ---- outcomes, cancels, classification ---------------------------------- */

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

/* The cancels among the submission records: one pass. */
static void gather_cancels(const struct sb_subm *subm, const struct sb_subm_entry **cancels,
			   size_t *ncancels)
{
	*ncancels = 0;
	for (size_t i = 0; i < subm->n; i++)
		if (subm->v[i].type == SB_SUBM_CANCEL)
			cancels[(*ncancels)++] = &subm->v[i];
}

/* A cancel record: the attempt, and its chunk (-1: every chunk). */
struct cancel_rec {
	int64_t attempt, chunk;
};

/* Classifies one attempt from the evidence gathered (its outcome record,
 * if any, already its row unless the scheduler gave one). */
static int classify_attempt(struct sb_status *st, struct sb_attempt_status *a,
			    const struct cancel_rec *cancels, size_t ncancels,
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

/* The lines of sb_status_warning: the chunks submitted more than once, the
 * outcomes that could not be recorded.  -1 when out of memory. */
static int make_warnings(struct sb_status *st)
{
	size_t i, n = st->ndups + (st->outcome_error != NULL);

	st->warnings = calloc(n + 1, sizeof(*st->warnings));
	if (st->warnings == NULL)
		return -1;
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

/* What the stages of sb_status_gather share. */
struct gather {
	struct sb_bench *b;
	const struct sb_status_cfg *o;
	struct sb_status *st;
	struct sb_key key;
	struct sb_subm subm;
	const struct sb_subm_entry **cancels;
	size_t ncancels;
	struct cancel_rec *cancel_v; /* the cancels, copied out of the records */
};

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

static int collect_records(struct gather *g, struct sb_error *err);

/* Stage 1, sbctl's own records: which jobs ran which chunks (the
 * submission records and the task maps), and whether a submit runs now. */
static int read_submissions(struct gather *g, struct sb_error *err)
{
	g->st->probed_ns = sb_status_now_ns();
	g->st->submitting = sb_status_submit_running(g->b->dir) == 1;
	if (sb_subm_read(g->b, &g->key, &g->subm, err) < 0 || read_maps(g->st, &g->subm, err) < 0 ||
	    collect_records(g, err) < 0)
		return -1;
	return 0;
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
	struct gather *g = arg;
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
static int collect_records(struct gather *g, struct sb_error *err)
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

/* Stage 5, classification: a verdict for every attempt, a class for every
 * child (its latest attempt's), and the counts. */
static int classify_children(struct gather *g, struct sb_error *err)
{
	struct sb_status *st = g->st;
	struct sb_classify_params p = {
		.now_ns = st->now_ns, .asked_ns = st->asked_ns,
		.heartbeat_s = sb_spec_heartbeat(g->b->spec), .settle_s = g->o->settle_s,
	};
	size_t c, i;

	for (c = 0; c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		for (i = 0; i < ch->nattempts; i++)
			if (classify_attempt(st, &ch->attempts[i], g->cancel_v, g->ncancels, &p) < 0)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		ch->latest = ch->nattempts ? &ch->attempts[ch->nattempts - 1] : NULL;
		if (ch->latest) {
			ch->cls = ch->latest->verdict.cls;
			ch->reason = ch->latest->verdict.reason;
		} else if (st->submitting) {
			ch->cls = SB_CLASS_PENDING;
			ch->reason = "being submitted (a submit of this benchmark is running: no job id "
				     "recorded yet)";
		} else {
			ch->cls = SB_CLASS_MISSING;
			ch->reason = "never submitted";
		}
		st->counts[ch->cls]++;
	}
	return 0;
}

static int reuse_children(struct gather *g, struct sb_index *idx, struct sb_error *err);

/* Stage 5b, reuse: a child with no run of its own in this benchmark and a
 * reuse record has the class of that record checked again (ctl/reuse.h):
 * succeeded with the source's run as its latest attempt, or invalid, or
 * missing when the source is gone. */
static int apply_reuses(struct gather *g, struct sb_error *err)
{
	const char *path = g->o->ctx ? sb_ctx_index(g->o->ctx) : NULL;
	struct sb_index *idx = NULL;
	int rc = 0;

	if (g->subm.nreuses == 0)
		return 0;
	/* the cached result hashes, as for the benchmark's own results */
	if (path && (idx = sb_index_open(path, NULL, NULL)) != NULL && sb_index_begin(idx, NULL) < 0) {
		sb_index_close(idx);
		idx = NULL;
	}
	rc = reuse_children(g, idx, err);
	sb_index_commit(idx, NULL);
	sb_index_close(idx);
	return rc;
}

/* apply_reuses with the index idx (may be NULL). */
static int reuse_children(struct gather *g, struct sb_index *idx, struct sb_error *err)
{
	struct sb_status *st = g->st;

	for (size_t c = 0; c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		const struct sb_reuse *r = sb_subm_reuse_of(&g->subm, (int64_t)c);
		struct sb_attempt_status *a;
		struct sb_child_reused *from;
		enum sb_class cls;
		char *reason;

		/* sbctl records attempts as it numbers them: in 32 bits */
		if (ch->nattempts > 0 || r == NULL || r->source_attempt < 0 || r->source_attempt > INT32_MAX)
			continue;
		if (sb_reuse_verify(r, g->b->name, idx, g->o->rehash, &cls, &reason, err) < 0)
			return -1;
		if ((a = sb_arena_alloc(&st->strings, sizeof(*a))) == NULL ||
		    (from = sb_arena_alloc(&st->strings, sizeof(*from))) == NULL ||
		    (from->dir = sb_arena_strndup(&st->strings, r->source_dir,
						  strlen(r->source_dir))) == NULL) {
			free(reason);
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		}
		from->index = r->source_index;
		ch->attempts = a;
		ch->nattempts = 1;
		ch->latest = a;
		ch->reused = from;
		a->attempt = (int32_t)r->source_attempt;
		a->chunk = a->task = -1;
		if (r->source_job && r->source_job[0] &&
		    (a->job_id = sb_arena_strndup(&st->strings, r->source_job, strlen(r->source_job))) == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		a->log.has_finish = true; /* the verified finish the record carries */
		a->log.exit_code = r->exit_code;
		a->verdict.cls = cls;
		a->verdict.reason = sb_intern(&st->texts, reason ? reason : "");
		free(reason);
		if (a->verdict.reason == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if (cls == SB_CLASS_SUCCEEDED && r->nmetrics) {
			a->metrics = sb_arena_alloc(&st->strings, r->nmetrics * sizeof(*a->metrics));
			if (a->metrics == NULL)
				return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			for (size_t m = 0; m < r->nmetrics; m++, a->nmetrics++) {
				a->metrics[m] = r->metrics[m];
				if ((a->metrics[m].name = (char *)sb_intern(&st->texts, r->metrics[m].name)) == NULL)
					return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			}
		}
		st->counts[ch->cls]--;
		ch->cls = cls;
		ch->reason = a->verdict.reason;
		st->counts[ch->cls]++;
	}
	return 0;
}

/* Stage 6, recording outcomes: the scheduler's final state of each attempt
 * that is over and has no outcome record yet, signed in submissions/, all
 * or nothing.  A full disk stops the recording, never the classification
 * (st->outcome_error says why); -1 only when out of memory. */
static int record_outcomes(struct gather *g, struct sb_error *err)
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

static void gather_release(struct gather *g)
{
	sb_subm_release(&g->subm);
	free(g->cancels);
	free(g->cancel_v);
	sb_key_cleanse(&g->key);
}

/* The counts into the local index, for `sbctl list`: a cache, so a
 * failure loses nothing and is not reported. */
static void remember_counts(const struct gather *g)
{
	const char *path = g->o->ctx ? sb_ctx_index(g->o->ctx) : NULL;
	struct sb_index *idx = path ? sb_index_open(path, NULL, NULL) : NULL;
	struct timespec ts;

	if (idx == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	sb_index_put_counts(idx, g->b->digest, g->st->counts,
			    (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec, NULL);
	sb_index_close(idx);
}

int sb_status_gather(struct sb_bench *b, const struct sb_status_cfg *o,
		     struct sb_status *st, struct sb_error *err)
{
	struct gather g = { .b = b, .o = o, .st = st };
	int rc = -1;

	/* st is zeroed by the caller (which may have set owns_bench); a key
	 * that cannot be loaded keeps the code its reader gave */
	if (init_children(st, b, err) < 0 || sb_bench_load_key(b, &g.key, err) < 0)
		return -1;
	if (read_submissions(&g, err) < 0)
		goto out;
	if (sb_status_ask_scheduler(st, o, err) < 0)
		goto out;
	if (sb_status_read_logs(st, &g.key, o, err) < 0)
		goto out;
	if (classify_children(&g, err) < 0 || apply_reuses(&g, err) < 0)
		goto out;
	if (record_outcomes(&g, err) < 0)
		goto out;
	if (make_warnings(st) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	remember_counts(&g);
	rc = 0;
out:
	/* evidence that cannot be read is a runtime failure, whatever the
	 * reader called it (a refused key file...) */
	if (rc < 0 && err && err->code != SB_ERR_NOMEM && err->code != SB_ERR_SCHEDULER)
		err->code = SB_ERR_RUNTIME;
	gather_release(&g);
	return rc;
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
			log_evidence_release(&st->children[c].attempts[i].log);
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
	if (st->owns_bench)
		sb_bench_destroy(st->bench);
	memset(st, 0, sizeof(*st));
}
