/* The scheduler stage of sbctl status (ctl/status/status_stages.h): squeue and
 * sacct about every submitted attempt, and each attempt's row. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/proc.h"
#include "slurm/sched.h"
#include "slurm/slurm_cmd.h"
#include "status/status_stages.h"

#define SCHED_ERR_MAX ((size_t)64 << 10)     /* stderr kept of sacct and squeue */
#define SCHED_TIMEOUT_MS 120000

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct array job ids of every submitted attempt, sorted. */
static char **job_ids(const struct sb_status *st, size_t *n)
{
	char **v = NULL;
	size_t c, i, cap = 0, k = 0;

	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			const char *id = st->children[c].attempts[i].array_job;
			if (id == NULL || (k > 0 && !strcmp(v[k - 1], id)))
				continue;
			if (k == cap) {
				char **nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*nv));
				if (nv == NULL)
					goto fail;
				v = nv;
			}
			v[k++] = (char *)id;
		}
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_str);
	for (i = 0, c = 0; i < k; i++)
		if (c == 0 || strcmp(v[c - 1], v[i]))
			v[c++] = v[i];
	*n = c;
	return v;
fail:
	free(v);
	*n = 0;
	return NULL;
}

/* The real scheduler: the commands first on PATH. */
static int run_command(void *arg, char *const argv[], const struct sb_proc_opts *o,
		       struct sb_proc_result *res, struct sb_error *err)
{
	(void)arg;
	return sb_proc_run_opts(argv, o, res, err);
}

static const struct sb_status_sched_ops real_sched = { run_command, NULL };

/* A line of sacct or squeue output longer than this is refused (a node
 * list or a job name as long as a cluster allows is far shorter). */
#define SCHED_LINE_MAX ((size_t)1 << 20)

/* The output of sacct or squeue parsed as it comes: the complete lines at
 * once, the part of a line still coming kept.  The output of a million
 * tasks (about 100 MB) is never held whole. */
struct line_feed {
	struct sb_sched_rows *rows;
	size_t max;               /* sb_sacct_parse's max_tasks */
	int squeue;
	char *part;               /* what is not parsed yet: no complete line */
	size_t len, cap;
	struct sb_error err;
	int failed;
};

static int feed_parse(struct line_feed *f)
{
	int rc = f->squeue ? sb_squeue_parse(f->part, f->rows, f->max, &f->err)
			   : sb_sacct_parse(f->part, f->rows, f->max, &f->err);

	if (rc < 0)
		f->failed = 1;
	return rc;
}

static int feed(void *arg, const char *data, size_t n)
{
	struct line_feed *f = arg;
	char *nl;
	size_t rest;

	if (f->failed)
		return -1;
	if (f->len + n + 1 > f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 1 << 16;
		char *p;
		while (cap < f->len + n + 1)
			cap *= 2;
		if ((p = realloc(f->part, cap)) == NULL) {
			f->failed = 1;
			return sb_error_set(&f->err, SB_ERR_NOMEM, "out of memory");
		}
		f->part = p;
		f->cap = cap;
	}
	memcpy(f->part + f->len, data, n);
	f->len += n;
	f->part[f->len] = '\0';
	if ((nl = memrchr(f->part, '\n', f->len)) == NULL) {
		if (f->len <= SCHED_LINE_MAX)
			return 0;
		f->failed = 1;
		return sb_errorf(&f->err, "a line of its output is longer than %zu bytes",
				 SCHED_LINE_MAX);
	}
	*nl = '\0';
	if (feed_parse(f) < 0)
		return -1;
	rest = f->len - (size_t)(nl + 1 - f->part);
	memmove(f->part, nl + 1, rest);
	f->len = rest;
	f->part[rest] = '\0';
	return 0;
}

/* The last line, when the output did not end with one. */
static int feed_end(struct line_feed *f)
{
	if (!f->failed && f->len > 0)
		feed_parse(f);
	free(f->part);
	f->part = NULL;
	return f->failed ? -1 : 0;
}

/* Runs the query argv (its program's name, argv[0], in messages). */
static int run_query(const struct sb_status_sched_ops *ops, char **argv,
		     struct sb_sched_rows *rows, size_t max, int timeout_ms, int squeue,
		     struct sb_error *err)
{
	const char *what = argv[0];
	struct line_feed f = { .rows = rows, .max = max, .squeue = squeue };
	struct sb_proc_opts po = { .max_output = SCHED_ERR_MAX, .timeout_ms = timeout_ms,
				   .out_sink = feed, .out_sink_arg = &f };
	struct sb_proc_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (ops->run(ops->arg, argv, &po, &r, err) < 0) {
		feed_end(&f);
		return sb_error_prefix(err, "cannot ask the scheduler (%s)", what);
	}
	if (r.exit_code != 0 || r.truncated) {
		char line[300];
		feed_end(&f);
		snprintf(line, sizeof(line), "%s", r.err_len ? r.err : r.out);
		line[strcspn(line, "\n")] = '\0';
		if (r.timed_out)
			rc = sb_errorf(err, "%s failed: no answer within %.3g s", what, timeout_ms / 1000.0);
		else
			rc = sb_errorf(err, "%s failed: %s", what, r.truncated ? "output too large"
				       : line[0] ? line : "no message");
		sb_proc_result_release(&r);
		return rc;
	}
	sb_proc_result_release(&r);
	if (feed_end(&f) < 0) {
		if (err != NULL)
			*err = f.err;
		return sb_error_prefix(err, "%s's answer", what);
	}
	return 0;
}

/* The rows sorted by JobID text, ties in the order printed: sacct prints one
 * row per task, so a lookup per child must not scan them all (that is
 * quadratic: minutes for 100,000 children). */
struct row_index {
	const struct sb_sched_row **v;
	size_t n;
};

/* Rows in the order of their JobID (array job, then task id). */
static int cmp_key(const struct sb_sched_row *x, uint64_t job, int64_t task)
{
	if (x->array_job != job)
		return (x->array_job > job) - (x->array_job < job);
	return (x->array_task > task) - (x->array_task < task);
}

static int cmp_row(const void *a, const void *b)
{
	const struct sb_sched_row *x = *(const struct sb_sched_row *const *)a;
	const struct sb_sched_row *y = *(const struct sb_sched_row *const *)b;
	int c = cmp_key(x, y->array_job, y->array_task);

	return c ? c : (x > y) - (x < y);
}

static int row_index_build(struct row_index *ix, const struct sb_sched_rows *rows)
{
	size_t i;

	ix->n = 0;
	ix->v = malloc((rows->n ? rows->n : 1) * sizeof(*ix->v));
	if (ix->v == NULL)
		return -1;
	for (i = 0; i < rows->n; i++)
		ix->v[i] = &rows->v[i];
	ix->n = rows->n;
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_row);
	return 0;
}

/* A row for a JobID text ("123_4"): the last one printed (sacct -D prints a
 * job's requeued runs first, one row each), and in *earlier the number of
 * rows before it: the restart count of the run the row describes.  A row
 * expanded from a collapsed pending range ("123_[2-7%8]", raw id 0) counts
 * only when the task has no row of its own: real accounting keeps a stale
 * range for seconds after tasks of it have started. */
static const struct sb_sched_row *find_row(const struct row_index *ix, const char *job_id,
					   int64_t *earlier)
{
	const struct sb_sched_row *own = NULL, *range = NULL;
	size_t lo = 0, hi = ix->n;
	int64_t nown = 0;
	struct sb_sched_row key;

	*earlier = -1;
	if (sb_sched_job_id_parse(job_id, &key) < 0)
		return NULL; /* no row has it: rows have JobIDs of digits */
	while (lo < hi) { /* the first row whose JobID is not below job_id */
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_key(ix->v[mid], key.array_job, key.array_task) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && !cmp_key(ix->v[lo], key.array_job, key.array_task); lo++) {
		if (ix->v[lo]->raw_id != 0) {
			own = ix->v[lo];
			nown++;
		} else {
			range = ix->v[lo];
		}
	}
	*earlier = own ? nown - 1 : range ? 0 : -1;
	return own ? own : range;
}

/* One squeue call, then one sacct call per SB_SACCT_IDS_PER_CALL arrays: a
 * job stays in squeue for MinJobAge after its end and is in accounting soon
 * after its submission, so one that moves between the two calls is seen by
 * one of them; sacct's row (the later answer) is preferred. */
static int query_scheduler(struct sb_status *st, const struct sb_status_sched_ops *ops,
			   int timeout_ms, struct sb_error *err)
{
	size_t n, i, k, used, max = st->n * 4 + 100000;
	char **ids = job_ids(st, &n), since[SB_SLURM_TIME_LEN], *list, **argv;
	int rc = 0;

	if (n == 0) {
		free(ids);
		return 0;
	}
	list = malloc(n * (SB_JOB_ID_MAX + 1) + 1);
	if (list == NULL) {
		free(ids);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (k = 0, used = 0; k < n; k++)
		used += (size_t)sprintf(list + used, "%s%s", k ? "," : "", ids[k]);
	if ((argv = sb_slurm_squeue_tasks_argv(list, err)) == NULL) {
		rc = -1;
		goto out;
	}
	/* squeue fails for ids it no longer knows on real Slurm: not fatal */
	st->queue_asked_ns = sb_status_now_ns();
	if (run_query(ops, argv, &st->queue, max, timeout_ms, 1, NULL) < 0)
		st->queue.n = 0;
	st->squeue_calls++;
	sb_slurm_argv_free(argv);
	sb_slurm_since(since, st->bench->created_ns / 1000000000 - 86400);
	for (i = 0; rc == 0 && i < n; i += SB_SACCT_IDS_PER_CALL) {
		for (k = i, used = 0; k < n && k < i + SB_SACCT_IDS_PER_CALL; k++)
			used += (size_t)sprintf(list + used, "%s%s", k > i ? "," : "", ids[k]);
		if ((argv = sb_slurm_sacct_tasks_argv(list, since, err)) == NULL) {
			rc = -1;
			break;
		}
		rc = run_query(ops, argv, &st->acct, max, timeout_ms, 0, err);
		st->sacct_calls++;
		sb_slurm_argv_free(argv);
	}
out:
	free(list);
	free(ids);
	return rc;
}

/* Where sacct's rows go as they are parsed (no row is kept: a million
 * tasks' rows would be held beside the attempts): each submitted attempt
 * has a slot, the slots of an array in task order, the arrays sorted by
 * job id.  An attempt's row is the last one printed of its own (sacct -D
 * prints a job's requeued runs first, one row each; the number before it
 * is the restart count of the run it describes), else one expanded from a
 * collapsed pending range ("123_[2-7%8]", raw id 0): real accounting keeps
 * a stale range for seconds after tasks of it have started. */
struct array_slots {
	uint64_t job;
	size_t base, ntasks;
};

enum { SLOT_NONE, SLOT_RANGE, SLOT_OWN };

struct task_slots {
	struct array_slots *arrays; /* by job */
	size_t narrays;
	struct sb_attempt_status **v; /* arrays[k].base + task */
	uint8_t *got;                 /* SLOT_* */
	size_t n;
	/* attempts whose JobID another attempt has too (records that name one
	 * job for two chunks): they get that attempt's row at the end */
	struct shared_slot { size_t slot; struct sb_attempt_status *a; } *shared;
	size_t nshared;
	struct sb_status *st;     /* where the earlier runs' rows go */
};

static int cmp_array(const void *x, const void *y)
{
	const struct array_slots *a = x, *b = y;

	return (a->job > b->job) - (a->job < b->job);
}

static const struct array_slots *array_of(const struct task_slots *ts, uint64_t job)
{
	size_t lo = 0, hi = ts->narrays;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts->arrays[mid].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ts->narrays && ts->arrays[lo].job == job ? &ts->arrays[lo] : NULL;
}

/* The JobID of a submitted attempt parsed into key ("123_4": a task of
 * an array); false when it has none of digits, which no row has. */
static bool task_key(const struct sb_attempt_status *a, struct sb_sched_row *key)
{
	return a->job_id != NULL && sb_sched_job_id_parse(a->job_id, key) == 0 && key->array_task >= 0;
}

static int slots_build(struct task_slots *ts, struct sb_status *st)
{
	size_t k, kept, cap = 0;

	memset(ts, 0, sizeof(*ts));
	ts->st = st;
	for (size_t c = 0; c < st->n; c++)
		for (size_t i = 0; i < st->children[c].nattempts; i++)
			st->children[c].attempts[i].sched_restart = -1;
	/* the arrays and their sizes: the attempts of a chunk come together */
	for (size_t c = 0; c < st->n; c++) {
		for (size_t i = 0; i < st->children[c].nattempts; i++) {
			struct array_slots *x = ts->narrays ? &ts->arrays[ts->narrays - 1] : NULL;
			struct sb_sched_row key;
			if (!task_key(&st->children[c].attempts[i], &key))
				continue;
			if (x == NULL || x->job != key.array_job) {
				if (ts->narrays == cap) {
					struct array_slots *v = realloc(ts->arrays, (cap = cap ? 2 * cap : 64) *
									      sizeof(*v));
					if (v == NULL)
						return -1;
					ts->arrays = v;
				}
				x = &ts->arrays[ts->narrays++];
				x->job = key.array_job;
				x->ntasks = 0;
			}
			if ((size_t)key.array_task >= x->ntasks)
				x->ntasks = (size_t)key.array_task + 1;
		}
	}
	if (ts->narrays > 1)
		qsort(ts->arrays, ts->narrays, sizeof(*ts->arrays), cmp_array);
	/* one array named by two runs of attempts: one entry, the larger size */
	for (k = 0, kept = 0; k < ts->narrays; k++) {
		struct array_slots *last = kept ? &ts->arrays[kept - 1] : NULL;
		if (last && last->job == ts->arrays[k].job) {
			if (ts->arrays[k].ntasks > last->ntasks)
				last->ntasks = ts->arrays[k].ntasks;
		} else {
			ts->arrays[kept++] = ts->arrays[k];
		}
	}
	ts->narrays = kept;
	for (k = 0; k < ts->narrays; k++) {
		ts->arrays[k].base = ts->n;
		ts->n += ts->arrays[k].ntasks;
	}
	ts->v = calloc(ts->n + 1, sizeof(*ts->v));
	ts->got = calloc(ts->n + 1, 1);
	if (ts->v == NULL || ts->got == NULL)
		return -1;
	cap = 0;
	for (size_t c = 0; c < st->n; c++) {
		for (size_t i = 0; i < st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &st->children[c].attempts[i];
			struct sb_sched_row key;
			size_t slot;
			if (!task_key(a, &key))
				continue;
			slot = array_of(ts, key.array_job)->base + (size_t)key.array_task;
			if (ts->v[slot] == NULL) {
				ts->v[slot] = a;
				continue;
			}
			if (ts->nshared == cap) {
				struct shared_slot *v = realloc(ts->shared, (cap = cap ? 2 * cap : 16) * sizeof(*v));
				if (v == NULL)
					return -1;
				ts->shared = v;
			}
			ts->shared[ts->nshared++] = (struct shared_slot){ slot, a };
		}
	}
	return 0;
}

static void slots_release(struct task_slots *ts)
{
	free(ts->arrays);
	free(ts->v);
	free(ts->got);
	free(ts->shared);
	memset(ts, 0, sizeof(*ts));
}

/* The row a holds, of an earlier run than the one sacct prints next: kept
 * for the restarts (status_chain.c).  Only requeued jobs have them. */
static int keep_earlier(struct sb_status *st, const struct sb_attempt_status *a)
{
	if (st->nearlier == st->earlier_cap) {
		size_t cap = st->earlier_cap ? 2 * st->earlier_cap : 16;
		struct sb_earlier_run *v = realloc(st->earlier, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		st->earlier = v;
		st->earlier_cap = cap;
	}
	st->earlier[st->nearlier++] = (struct sb_earlier_run){
		.a = a, .restart = (int32_t)a->sched_restart, .state = a->sched.row.state,
		.start = a->sched.row.start, .end = a->sched.row.end, .nodes = a->sched.row.nodes,
	};
	return 0;
}

/* sacct's rows, one at a time (sb_sched_rows.sink). */
static int take_acct_row(void *arg, const struct sb_sched_row *r, struct sb_error *err)
{
	struct task_slots *ts = arg;
	const struct array_slots *x = array_of(ts, r->array_job);
	struct sb_attempt_status *a;
	size_t slot;

	if (x == NULL || r->array_task < 0 || (uint64_t)r->array_task >= x->ntasks)
		return 0;
	slot = x->base + (size_t)r->array_task;
	if ((a = ts->v[slot]) == NULL)
		return 0;
	if (r->raw_id != 0) {
		if (ts->got[slot] == SLOT_OWN && keep_earlier(ts->st, a) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		a->sched_restart = ts->got[slot] == SLOT_OWN ? a->sched_restart + 1 : 0;
		ts->got[slot] = SLOT_OWN;
	} else if (ts->got[slot] != SLOT_OWN) {
		a->sched_restart = 0;
		ts->got[slot] = SLOT_RANGE;
	} else {
		return 0;
	}
	a->sched.row = *r;
	a->sched.has_row = true;
	a->sched.from_outcome = false; /* the scheduler's, not the outcome's */
	return 0;
}

/* The attempts that share a JobID get the row of the one that took it. */
static void share_rows(const struct task_slots *ts)
{
	for (size_t i = 0; i < ts->nshared; i++) {
		const struct sb_attempt_status *from = ts->v[ts->shared[i].slot];
		struct sb_attempt_status *a = ts->shared[i].a;
		if (ts->got[ts->shared[i].slot] == SLOT_NONE)
			continue;
		a->sched.row = from->sched.row;
		a->sched_restart = from->sched_restart;
		a->sched.has_row = true;
		a->sched.from_outcome = false;
	}
}

/* Once the attempts have their rows, squeue's rows go (their interned
 * texts, which the attempts' copies point into, stay). */
static void drop_rows(struct sb_sched_rows *rows)
{
	free(rows->v);
	rows->v = NULL;
	rows->n = rows->cap = 0;
}

/* Whether squeue's row q describes a newer run than accounting's row r:
 * the queue shows the job queued or running, while accounting says it
 * ended before the queue was asked (a requeue, or a restart, that
 * accounting has not written yet).  A job that ended after the queue was
 * asked is accounting's: the later answer. */
static bool queue_is_newer(const struct sb_sched_row *r, const struct sb_sched_row *q,
			   int64_t queue_asked_ns)
{
	return q->state != SB_STATE_UNKNOWN && !sb_sched_state_terminal(q->state) &&
	       sb_sched_state_terminal(r->state) && r->end >= 0 &&
	       (r->end + 1) * 1000000000LL <= queue_asked_ns; /* End is whole seconds */
}

/* squeue's row for each attempt sacct gave none (sacct's is the later
 * answer) or an older run's (queue_is_newer: the newer run wins), and
 * squeue's pending reason where sacct has none. */
static void attach_queue_rows(struct sb_status *st, const struct row_index *queue_ix)
{
	size_t c, i;

	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &st->children[c].attempts[i];
			const struct sb_sched_row *q;
			int64_t earlier;

			if (a->job_id == NULL || (q = find_row(queue_ix, a->job_id, &earlier)) == NULL)
				continue;
			if (!a->sched.has_row || a->sched.from_outcome) {
				a->sched.row = *q;
				a->sched.has_row = true;
				a->sched.from_outcome = false;
			} else if (queue_is_newer(&a->sched.row, q, st->queue_asked_ns)) {
				a->sched.row = *q;
				a->sched_restart = -1; /* the queue's run: its count unknown */
			} else if ((a->sched.row.reason == NULL || !a->sched.row.reason[0]) &&
				   a->sched.row.state == SB_STATE_PENDING && q->state == SB_STATE_PENDING) {
				a->sched.row.reason = q->reason;
			}
		}
	}
}

int sb_status_ask_scheduler(struct sb_status *st, const struct sb_status_cfg *o,
			    struct sb_error *err)
{
	struct row_index queue_ix = { 0 };
	struct task_slots ts;
	int rc = -1;

	st->asked_ns = sb_status_now_ns();
	if (o->offline)
		return 0;
	if (slots_build(&ts, st) < 0) {
		slots_release(&ts);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	st->acct.sink = take_acct_row;
	st->acct.sink_arg = &ts;
	if (query_scheduler(st, o->sched ? o->sched : &real_sched, o->sched_timeout_ms > 0 ? o->sched_timeout_ms : SCHED_TIMEOUT_MS,
			    err) < 0) {
		st->sched_failed = true;
		if (err && err->code != SB_ERR_NOMEM)
			err->code = SB_ERR_SCHEDULER;
		goto out;
	}
	st->consulted = true;
	share_rows(&ts);
	if (row_index_build(&queue_ix, &st->queue) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	} else {
		attach_queue_rows(st, &queue_ix);
		drop_rows(&st->queue);
		rc = 0;
	}
out:
	st->acct.sink = NULL;
	st->acct.sink_arg = NULL;
	slots_release(&ts);
	free(queue_ix.v);
	return rc;
}
