/* Stage 4b of a status (status/status.c), the restarts of requeued runs
 * (docs/classification.md, "Restarts and checkpoints"): for every child of
 * a benchmark with a checkpoint section, and every child whose latest
 * attempt ran more than once, each run of its job in order (restart 0
 * first) from its own signed log and the scheduler's rows of the earlier
 * runs; and the chain of checkpoints: every restart after the first must
 * start from exactly the checkpoint its predecessor recorded at its end,
 * the first from none (or, in a rerun, from the one the previous attempt
 * ended with).  A broken chain makes the child invalid, its reason naming
 * the restart and the digests. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/finish.h"
#include "proto/benchdir.h"
#include "proto/recordkeys.h"
#include "proto/util.h"
#include "spec/spec_checkpoint.h"
#include "status/status_stages.h"

static bool live(enum sb_class c)
{
	return c == SB_CLASS_RUNNING || c == SB_CLASS_PENDING || c == SB_CLASS_STALE;
}

/* What one restart's log says. */
struct run_log {
	bool present, verifies, has_start, has_finish, interrupted_requeue;
	const char *by;           /* the finish's interrupted.by, static text */
	char tail[64];            /* when it does not verify: the tail class */
	int64_t start_ns, finish_ns, last_ns;
	char resumed_from[65], checkpoint[65]; /* "" none */
	bool bad_resumed, bad_checkpoint;      /* a digest that is not one */
	char error[256];          /* checkpoint_error of start or finish */
	char host[64];
};

static void copy_str(const msgpack_object *o, char *out, size_t size)
{
	size_t n;

	out[0] = '\0';
	if (o == NULL || o->type != MSGPACK_OBJECT_STR)
		return;
	n = o->via.str.size < size - 1 ? o->via.str.size : size - 1;
	memcpy(out, o->via.str.ptr, n);
	out[n] = '\0';
	sb_blank_controls(out);
}

/* Reads the log at rel (relative to the benchmark directory) of child's
 * attempt, restart r. */
static int read_run(struct sb_status *st, struct sb_log_verifier *v, const char *rel, int64_t child,
		    int32_t attempt, int32_t r, struct run_log *out, struct sb_error *err)
{
	/* restart 0 is logged with no count (SLURM_RESTART_COUNT is set from
	 * the first requeue on): only a later restart's count is checked */
	struct sb_run_ident want = { .bench = st->bench->digest, .child = child, .attempt = attempt,
				     .restart = r > 0 ? r : -1, .pid = -1 };
	struct sb_log_expect ex = { .id = &want };
	struct sb_log_result *res;
	char path[PATH_MAX];
	struct stat sb;
	size_t i, nv;

	memset(out, 0, sizeof(*out));
	if (snprintf(path, sizeof(path), "%s/%s", st->bench->dir, rel) >= (int)sizeof(path))
		return sb_errorf(err, "log path '%s/%s' is too long", st->bench->dir, rel);
	if (lstat(path, &sb) != 0) {
		if (errno == ENOENT)
			return 0;
		return sb_errorf(err, "cannot read '%s': %s", path, strerror(errno));
	}
	res = sb_log_read_file(v, path, &ex, err);
	if (res == NULL)
		return -1;
	out->present = true;
	out->verifies = sb_log_result_tail(res) == SB_LOG_TAIL_OK || sb_log_result_tail(res) == SB_LOG_TAIL_TORN;
	snprintf(out->tail, sizeof(out->tail), "%s", sb_log_tail_name(sb_log_result_tail(res)));
	nv = sb_log_result_verified(res);
	for (i = 0; i < nv; i++) {
		const struct sb_log_record *rec = sb_log_result_record(res, i);
		const msgpack_object *pl = &rec->payload;
		out->last_ns = rec->time_ns;
		if (!strcmp(rec->type, SB_RT_START) && !out->has_start) {
			out->has_start = true;
			out->start_ns = rec->time_ns;
			snprintf(out->host, sizeof(out->host), "%s", rec->id.host ? rec->id.host : "");
			sb_blank_controls(out->host);
			out->bad_resumed = sb_record_digest(pl, SB_RK_RESUMED_FROM, out->resumed_from) < 0;
			copy_str(sb_mp_get(pl, SB_RK_CHECKPOINT_ERROR), out->error, sizeof(out->error));
		} else if (!strcmp(rec->type, SB_RT_FINISH) && !out->has_finish) {
			const msgpack_object *in = sb_mp_get(pl, SB_RK_INTERRUPTED), *by, *rq;
			out->has_finish = true;
			out->finish_ns = rec->time_ns;
			out->bad_checkpoint = sb_record_digest(pl, SB_RK_CHECKPOINT, out->checkpoint) < 0;
			if (!out->error[0])
				copy_str(sb_mp_get(pl, SB_RK_CHECKPOINT_ERROR), out->error, sizeof(out->error));
			by = in ? sb_mp_get(in, SB_RK_BY) : NULL;
			rq = in ? sb_mp_get(in, SB_RK_REQUEUE) : NULL;
			if (by && by->type == MSGPACK_OBJECT_STR)
				out->by = by->via.str.size == 14 && !memcmp(by->via.str.ptr, "requeue_signal", 14)
					  ? "requeue_signal" : "termination";
			out->interrupted_requeue = rq && rq->type == MSGPACK_OBJECT_BOOLEAN && rq->via.boolean;
		}
	}
	sb_log_result_destroy(res);
	return 0;
}

/* The earlier runs' rows in the order of (attempt, restart). */
static int cmp_earlier(const struct sb_earlier_run *x, const struct sb_attempt_status *a, int32_t r)
{
	if (x->a != a)
		return (uintptr_t)x->a < (uintptr_t)a ? -1 : 1;
	return (x->restart > r) - (x->restart < r);
}

static int cmp_earlier_qsort(const void *x, const void *y)
{
	const struct sb_earlier_run *b = y;

	return cmp_earlier(x, b->a, b->restart);
}

/* The scheduler's row of restart r of attempt a's job, when sacct printed
 * one for an earlier run (status_sched.c keeps them; sorted by
 * sb_status_chains first). */
static const struct sb_earlier_run *earlier_row(const struct sb_status *st,
						const struct sb_attempt_status *a, int32_t r)
{
	size_t lo = 0, hi = st->nearlier;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_earlier(&st->earlier[mid], a, r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nearlier && !cmp_earlier(&st->earlier[lo], a, r) ? &st->earlier[lo] : NULL;
}

/* How restart r ended: its finish, else the scheduler's row of it. */
static const char *ended_by(const struct run_log *l, const struct sb_earlier_run *row)
{
	if (l->has_finish && l->by == NULL)
		return "finish";
	if (l->has_finish && !strcmp(l->by, "requeue_signal"))
		return "requeue_signal";
	if (row && row->state == SB_STATE_PREEMPTED)
		return "preempted";
	if (row && row->state == SB_STATE_NODE_FAIL)
		return "node_fail";
	return "killed";
}

static const char *digest_text(const char *d)
{
	return d[0] ? d : "none";
}

/* The first break of the chain, into why (NULL: none); prev is the
 * checkpoint the restart before the first one here ended with ("" none:
 * the previous attempt's, for restart 0). */
static void check_chain(const struct run_log *runs, int32_t n, const char *prev0, char *why, size_t size)
{
	const char *prev = prev0;

	why[0] = '\0';
	for (int32_t r = 0; r < n; r++) {
		const struct run_log *l = &runs[r];
		if (l->present && !l->verifies) {
			snprintf(why, size, "the log of restart %" PRId32 " does not verify: %s", r, l->tail);
			return;
		}
		if (l->bad_resumed || l->bad_checkpoint) {
			snprintf(why, size, "restart %" PRId32 "'s log holds a checkpoint digest that is not "
				 "one", r);
			return;
		}
		if (l->error[0]) {
			snprintf(why, size, "restart %" PRId32 " could not read its checkpoint: %s", r, l->error);
			return;
		}
		if (l->has_start && strcmp(l->resumed_from, prev) != 0) {
			if (r == 0)
				snprintf(why, size, "restart 0 started from checkpoint %.12s, which no earlier run "
					 "of this child recorded at its end (remove the checkpoint files from the "
					 "run directory before a fresh run)", digest_text(l->resumed_from));
			else if (runs[r - 1].has_finish)
				snprintf(why, size, "broken checkpoint chain: restart %" PRId32 " started from "
					 "checkpoint %.12s, but restart %" PRId32 " ended with checkpoint %.12s",
					 r, digest_text(l->resumed_from), r - 1, digest_text(prev));
			else
				snprintf(why, size, "broken checkpoint chain: restart %" PRId32 " started from "
					 "checkpoint %.12s, but restart %" PRId32 " ended without a finish (a node "
					 "failure, a kill), so no checkpoint of it is proven", r,
					 digest_text(l->resumed_from), r - 1);
			return;
		}
		/* what the next restart must start from: this one's end, or, with
		 * no finish (killed hard), nothing it could prove */
		if (l->has_finish)
			prev = l->checkpoint;
		else if (l->has_start)
			prev = "";
	}
}

/* The checkpoint the previous attempt of ch ended with ("" none). */
static int previous_attempt_checkpoint(struct sb_status *st, struct sb_log_verifier *v,
				       const struct sb_child_status *ch, char out[65], struct sb_error *err)
{
	char rel[SB_LOG_REL_MAX];
	struct run_log l;

	out[0] = '\0';
	if (ch->nattempts < 2)
		return 0;
	const struct sb_attempt_status *p = &ch->attempts[ch->nattempts - 2];
	const char *name = sb_status_log_rel(p, ch->index, rel);
	if (name == NULL || !name[0])
		return 0;
	if (read_run(st, v, name, (int64_t)ch->index, p->attempt, p->log_restart, &l, err) < 0)
		return -1;
	if (l.has_finish && l.verifies && !l.bad_checkpoint)
		memcpy(out, l.checkpoint, 65);
	return 0;
}

static int add_chain(struct sb_status *st, struct sb_chain *c)
{
	if (st->nchains == st->chains_cap) {
		size_t cap = st->chains_cap ? 2 * st->chains_cap : 16;
		struct sb_chain *v = realloc(st->chains, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		st->chains = v;
		st->chains_cap = cap;
	}
	st->chains[st->nchains++] = *c;
	return 0;
}

/* The job's number the runs of attempt a were logged under ("" none). */
static void job_text(const struct sb_attempt_status *a, char *buf, size_t size)
{
	buf[0] = '\0';
	if (a->sched.has_row && a->sched.row.raw_id)
		snprintf(buf, size, "%" PRIu64, a->sched.row.raw_id);
	else if (a->log_by_job)
		snprintf(buf, size, "%" PRIu64, a->log_job);
}

static int chain_of(struct sb_status *st, struct sb_log_verifier *v, struct sb_child_status *ch,
		    bool checkpointed, struct sb_error *err)
{
	struct sb_attempt_status *a = ch->latest;
	struct sb_chain c = { .child = ch->index };
	struct run_log *runs;
	char job[24], rel[SB_LOG_REL_MAX], prev0[65], why[768];
	int32_t n, r;
	int rc = 0;

	if (a == NULL || a->chunk < 0)
		return 0; /* never submitted, or reused from another benchmark */
	n = (a->log_restart > a->sched_restart ? a->log_restart : a->sched_restart) + 1;
	if (n < 1 || (!checkpointed && n < 2))
		return 0;
	job_text(a, job, sizeof(job));
	if (!job[0])
		return 0;
	if ((runs = calloc((size_t)n, sizeof(*runs))) == NULL ||
	    (c.v = calloc((size_t)n, sizeof(*c.v))) == NULL) {
		free(runs);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	c.n = (uint32_t)n;
	for (r = 0; rc == 0 && r < n; r++) {
		const struct sb_earlier_run *row = earlier_row(st, a, r);
		struct sb_earlier_run own;
		/* the latest run: the scheduler's row of it, when it is its */
		if (row == NULL && r == n - 1 && a->sched.has_row && a->sched_restart == r) {
			own = (struct sb_earlier_run){ .a = a, .restart = r, .state = a->sched.row.state,
						       .start = a->sched.row.start, .end = a->sched.row.end,
						       .nodes = a->sched.row.nodes };
			if (!sb_sched_state_terminal(own.state))
				own.end = -1;
			row = &own;
		}
		struct sb_restart *e = &c.v[r];
		if (sb_bdir_log(rel, sizeof(rel), NULL, (int64_t)ch->index, a->attempt, job, r) < 0) {
			rc = sb_errorf(err, "log name of child %zu too long", ch->index);
			break;
		}
		rc = read_run(st, v, rel, (int64_t)ch->index, a->attempt, r, &runs[r], err);
		e->restart = r;
		e->started_ns = runs[r].start_ns;
		e->ended_ns = runs[r].finish_ns ? runs[r].finish_ns :
			      row && row->end > 0 ? row->end * 1000000000LL : 0;
		if (e->started_ns == 0 && row && row->start > 0)
			e->started_ns = row->start * 1000000000LL;
		/* an earlier run is over; the latest only when its finish or its
		 * class says so */
		if (r < n - 1 || runs[r].has_finish || !live(ch->cls))
			e->ended_by = ended_by(&runs[r], row);
		memcpy(e->checkpoint, runs[r].checkpoint, 65);
		memcpy(e->resumed_from, runs[r].resumed_from, 65);
		e->node = sb_intern(&st->texts, runs[r].host[0] ? runs[r].host : row && row->nodes ? row->nodes : "");
		if (e->node == NULL)
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		if (e->started_ns && e->ended_ns > e->started_ns)
			c.run_time_s += (double)(e->ended_ns - e->started_ns) / 1e9;
		else if (e->started_ns && !e->ended_ns && r == n - 1 && live(ch->cls))
			c.run_time_s += (double)(st->now_ns - e->started_ns) / 1e9;
	}
	if (rc == 0)
		rc = previous_attempt_checkpoint(st, v, ch, prev0, err);
	if (rc == 0 && checkpointed) {
		check_chain(runs, n, prev0, why, sizeof(why));
		if (why[0]) {
			const char *reason = sb_intern(&st->texts, why);
			if (reason == NULL) {
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			} else {
				st->counts[ch->cls]--;
				ch->cls = a->verdict.cls = SB_CLASS_INVALID;
				ch->chain_invalid = true;
				ch->reason = a->verdict.reason = reason;
				st->counts[ch->cls]++;
			}
		}
	}
	free(runs);
	if (rc == 0 && add_chain(st, &c) < 0)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (rc < 0)
		free(c.v);
	return rc;
}

int sb_status_chains(struct sb_status_gather *g, struct sb_error *err)
{
	struct sb_status *st = g->st;
	bool checkpointed = sb_spec_checkpoint(g->b->spec) != NULL;
	struct sb_log_verifier *v = NULL;
	size_t c;
	int rc = 0;

	if (st->nearlier > 1)
		qsort(st->earlier, st->nearlier, sizeof(*st->earlier), cmp_earlier_qsort);
	for (c = 0; rc == 0 && c < st->n; c++) {
		struct sb_child_status *ch = &st->children[c];
		const struct sb_attempt_status *a = ch->latest;
		if (a == NULL || (!checkpointed && a->log_restart < 1 && a->sched_restart < 1))
			continue;
		if (v == NULL && (v = sb_log_verifier_create(&g->key, err)) == NULL)
			return -1;
		rc = chain_of(st, v, ch, checkpointed, err);
	}
	sb_log_verifier_destroy(v);
	return rc;
}

const struct sb_chain *sb_status_chain(const struct sb_status *st, size_t child)
{
	size_t lo = 0, hi = st->nchains;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->chains[mid].child < child)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nchains && st->chains[lo].child == child ? &st->chains[lo] : NULL;
}
