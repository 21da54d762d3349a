/* The scheduler stage of sbctl status (ctl/status_internal.h): squeue and
 * sacct about every submitted attempt, and each attempt's row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl/proc.h"
#include "ctl/sched.h"
#include "ctl/status_internal.h"

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

static int run_query(const struct sb_status_sched_ops *ops, char **argv, const char *what,
		     struct sb_sched_rows *rows, size_t max, int timeout_ms, int squeue,
		     struct sb_error *err)
{
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
	char **ids = job_ids(st, &n), start[32], *list;
	time_t since = (time_t)(st->bench->created_ns / 1000000000) - 86400;
	struct tm tm;
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
	{
		char *argv[] = { "squeue", "-h", "-r", "-j", list, "-o", SB_SQUEUE_FORMAT, NULL };
		/* squeue fails for ids it no longer knows on real Slurm: not fatal */
		if (run_query(ops, argv, "squeue", &st->queue, max, timeout_ms, 1, NULL) < 0)
			st->queue.n = 0;
		st->squeue_calls++;
	}
	localtime_r(&since, &tm);
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%S", &tm);
	for (i = 0; rc == 0 && i < n; i += SB_SACCT_IDS_PER_CALL) {
		for (k = i, used = 0; k < n && k < i + SB_SACCT_IDS_PER_CALL; k++)
			used += (size_t)sprintf(list + used, "%s%s", k > i ? "," : "", ids[k]);
		{
			char *argv[] = { "sacct", "-P", "-n", "-X", "-D", "-j", list, "-S", start,
					 "--format=" SB_SACCT_FORMAT, NULL };
			rc = run_query(ops, argv, "sacct", &st->acct, max, timeout_ms, 0, err);
			st->sacct_calls++;
		}
	}
	free(list);
	free(ids);
	return rc;
}

/* Gives each submitted attempt its row: sacct's (its latest run), else
 * squeue's; squeue's pending reason where sacct has none. */
/* Once the attempts have their rows, the rows go (their interned texts,
 * which the attempts' copies point into, stay). */
static void drop_rows(struct sb_sched_rows *rows)
{
	free(rows->v);
	rows->v = NULL;
	rows->n = rows->cap = 0;
}

static void attach_rows(struct sb_status *st, const struct row_index *acct_ix,
			const struct row_index *queue_ix)
{
	size_t c, i;

	for (c = 0; c < st->n; c++) {
		for (i = 0; i < st->children[c].nattempts; i++) {
			struct sb_attempt_status *a = &st->children[c].attempts[i];
			const struct sb_sched_row *row, *q;
			int64_t earlier;

			a->sched_restart = -1;
			if (a->job_id == NULL)
				continue;
			row = find_row(acct_ix, a->job_id, &a->sched_restart);
			if (row == NULL || row->state == SB_STATE_UNKNOWN)
				row = find_row(queue_ix, a->job_id, &earlier);
			if (row == NULL)
				continue;
			a->sched.row = *row;
			a->sched.has_row = true;
			a->sched.from_outcome = false; /* the scheduler's, not the outcome's */
			/* sacct has no pending reason: squeue's, when it says the same */
			if ((row->reason == NULL || !row->reason[0]) && row->state == SB_STATE_PENDING &&
			    (q = find_row(queue_ix, a->job_id, &earlier)) != NULL && q->state == row->state)
				a->sched.row.reason = q->reason;
		}
	}
}

int sb_status_ask_scheduler(struct sb_status *st, const struct sb_status_cfg *o,
			    struct sb_error *err)
{
	struct row_index acct_ix = { 0 }, queue_ix = { 0 };
	int rc = -1;

	st->asked_ns = sb_status_now_ns();
	if (o->offline)
		return 0;
	if (query_scheduler(st, o->sched ? o->sched : &real_sched, o->sched_timeout_ms > 0 ? o->sched_timeout_ms : SCHED_TIMEOUT_MS,
			    err) < 0) {
		st->sched_failed = true;
		if (err && err->code != SB_ERR_NOMEM)
			err->code = SB_ERR_SCHEDULER;
		return -1;
	}
	st->consulted = true;
	if (row_index_build(&acct_ix, &st->acct) < 0 || row_index_build(&queue_ix, &st->queue) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	} else {
		attach_rows(st, &acct_ix, &queue_ix);
		drop_rows(&st->acct);
		drop_rows(&st->queue);
		rc = 0;
	}
	free(acct_ix.v);
	free(queue_ix.v);
	return rc;
}
