#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_private.h"
#include "base/fsutil.h"
#include "base/lock.h"
#include "bench/index_private.h"
#include "bench/jobs.h"
#include "base/proc.h"
#include "submit/reuse.h"
#include "submit/smoke.h"
#include "spec/spec_private.h"
#include "submit/submit_private.h"
#include "bench/subm.h"
#include "slurm/slurm_cmd.h"
#include "proto/benchdir.h"
#include "proto/util.h"
#include "sbench/context.h"

#define SBATCH_TIMEOUT_MS 120000
#define QUERY_TIMEOUT_MS 60000

/* The first line of text, trimmed, for messages. */
static void first_line(const char *text, char *buf, size_t size)
{
	size_t n = strcspn(text, "\n");

	if (n >= size)
		n = size - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
}

/* One program of the lookup; 1 when it answered (exit 0). */
static int ask(char *const argv[], const char *ident, char *best, size_t size)
{
	struct sb_proc_result r;
	int answered = 0;

	if (sb_proc_run(argv, 1 << 20, QUERY_TIMEOUT_MS, &r, NULL) == 0) {
		if (r.exit_code == 0 && !r.truncated) {
			answered = 1;
			sb_slurm_lowest_job_id(r.out, ident, best, size);
		}
		sb_proc_result_release(&r);
	}
	return answered;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The lookup window of ctx, in milliseconds. */
static int lookup_window_ms(const struct sb_ctx *ctx)
{
	return (int)((ctx ? sb_ctx_lookup_window(ctx) : SB_CTX_LOOKUP_WINDOW_DEFAULT) * 1000);
}

/* Looks for the job of an sbatch whose outcome is unknown, by its name and
 * identity (its --comment, ident: this benchmark directory, attempt and
 * chunk), among the user's own jobs: squeue --me (every state still in the
 * queue) and sacct -u (-S a day before the intent, in local time as sacct
 * reads it: a day covers any time zone and clock skew), asked again every
 * half second until window_ms has passed, so that a job whose submission
 * was still in flight, or whose accounting record lags, is found.  A job
 * of the same name from another directory's benchmark, or another user's,
 * is never taken.  1 and job_id (the lowest such array job id) when found,
 * 0 when the scheduler knows none, -1 when neither squeue nor sacct ever
 * answered (so nothing may be submitted). */
static int find_job_by_name(const char *name, const char *ident, int64_t intent_ns, int window_ms,
			    char *job_id, size_t size, struct sb_error *err)
{
	char since[SB_SLURM_TIME_LEN], **squeue, **sacct;
	int64_t until = monotonic_ms() + window_ms;
	int squeue_ok = 0, sacct_ok = 0, rc = 0;

	sb_slurm_since(since, intent_ns > 0 ? intent_ns / 1000000000 - 86400 : -1);
	squeue = sb_slurm_squeue_named_argv(name, err);
	sacct = squeue ? sb_slurm_sacct_named_argv(name, since, (long)geteuid(), err) : NULL;
	if (sacct == NULL) {
		sb_slurm_argv_free(squeue);
		return -1;
	}
	job_id[0] = '\0';
	for (;;) {
		squeue_ok |= ask(squeue, ident, job_id, size);
		sacct_ok |= ask(sacct, ident, job_id, size);
		if (job_id[0]) {
			rc = 1;
			goto out;
		}
		if (monotonic_ms() >= until)
			break;
		usleep(500000);
	}
	if (!squeue_ok && !sacct_ok)
		rc = sb_errorf(err, "neither squeue nor sacct answered, so whether job '%s' was "
			       "submitted cannot be told; nothing was submitted for it", name);
out:
	sb_slurm_argv_free(squeue);
	sb_slurm_argv_free(sacct);
	return rc;
}

static int add_job(struct sb_submit_result *res, const struct sb_chunk *ch, const char *job_id,
		   bool recovered, bool now, struct sb_error *err)
{
	struct sb_submit_job *j = &res->jobs[res->njobs];

	memset(j, 0, sizeof(*j));
	snprintf(j->job_id, sizeof(j->job_id), "%s", job_id);
	snprintf(j->array, sizeof(j->array), "%s", ch->array);
	j->attempt = ch->attempt;
	j->chunk = (int64_t)ch->index;
	j->recovered = recovered;
	j->submitted_now = now;
	j->children = malloc(ch->n * sizeof(*j->children));
	if (j->children == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	memcpy(j->children, ch->children, ch->n * sizeof(*j->children));
	j->n = ch->n;
	res->njobs++;
	return 0;
}

enum sbatch_outcome {
	SBATCH_SUBMITTED,  /* job_id set */
	SBATCH_REFUSED,    /* sbatch exited non-zero by itself: it said no */
	SBATCH_UNKNOWN,    /* killed, timed out or garbled: maybe submitted */
};

/* Runs sbatch for one chunk (interrupt signals deferred by the caller: one
 * that arrives lets sbatch finish, within SB_SUBMIT_INTERRUPT_WAIT_MS, and
 * is reported in *interrupted).  err gets Slurm's message unless
 * submitted. */
static enum sbatch_outcome run_sbatch(const struct sb_bench *b, const struct sb_chunks *chunks,
				      const struct sb_chunk *ch, const char *dep, char *job_id, size_t size, int *interrupted,
				      struct sb_error *err)
{
	struct sb_proc_opts o = { .max_output = 1 << 16, .timeout_ms = SBATCH_TIMEOUT_MS,
				  .interrupt_wait_ms = SB_SUBMIT_INTERRUPT_WAIT_MS };
	char **argv = sb_jobs_sbatch_argv(b, chunks, ch, dep, err);
	enum sbatch_outcome out = SBATCH_SUBMITTED;
	struct sb_proc_result r;
	char line[512];
	int rc;

	*interrupted = 0;
	if (argv == NULL)
		return SBATCH_REFUSED;
	rc = sb_proc_run_opts(argv, &o, &r, err);
	sb_slurm_argv_free(argv);
	if (rc < 0)
		return SBATCH_REFUSED; /* not started */
	*interrupted = r.interrupted;
	if (r.timed_out) {
		sb_errorf(err, "sbatch did not answer within %d s", (r.interrupted ? SB_SUBMIT_INTERRUPT_WAIT_MS
				: SBATCH_TIMEOUT_MS) / 1000);
		out = SBATCH_UNKNOWN;
	} else if (r.term_signal) {
		sb_errorf(err, "sbatch was killed by signal %d", r.term_signal);
		out = SBATCH_UNKNOWN;
	} else if (r.exit_code != 0) {
		first_line(r.err_len ? r.err : r.out, line, sizeof(line));
		sb_errorf(err, "%s", line[0] ? line : "sbatch failed without a message");
		out = SBATCH_REFUSED;
	} else if (sb_slurm_sbatch_job_id(r.out, job_id, size) < 0) {
		first_line(r.out, line, sizeof(line));
		sb_errorf(err, "sbatch printed '%s', not a job id", line);
		out = SBATCH_UNKNOWN;
	}
	sb_proc_result_release(&r);
	return out;
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* One chunk with no submitted record yet: resolves an earlier intent, or
 * records an intent, runs sbatch and records its outcome, interrupt
 * signals deferred throughout so that the outcome is on disk before
 * sbctl stops.  0 with *job_id set (*now: submitted by this call), or -1;
 * *interrupted gets an interrupt signal that arrived. */
static int submit_one(const struct sb_bench *b, const struct sb_chunks *chunks, size_t k,
		      const char *dep, const struct sb_subm_entry *intent, bool look_first, int window_ms,
		      struct sb_subm_writer *w, struct sb_subm *subm, char *job_id, size_t size,
		      bool *recovered, bool *now, int *interrupted, struct sb_error *err)
{
	struct sb_subm_entry e;
	struct sb_error why = { 0 };
	enum sbatch_outcome out;
	const struct sb_chunk *ch = &chunks->v[k];
	size_t nchunks = chunks->n;
	struct timespec ts;
	sigset_t saved;
	char ident[SB_JOBS_IDENTITY_MAX];
	int found, sig;

	*recovered = *now = false;
	if (sb_jobs_identity(b, ch, ident, sizeof(ident)) < 0)
		return sb_errorf(err, "the identity of chunk %zu does not fit", k);
	memset(&e, 0, sizeof(e));
	e.attempt = ch->attempt;
	e.chunk = (int64_t)k;
	e.child = e.end = -1;
	e.exit_code = e.signal = -1;
	e.job_name = ch->name;
	if (intent || look_first) {
		/* an earlier sbatch whose outcome is unknown: look for its job
		 * long enough for a submission in flight or a lagging sacct.
		 * (look_first: no record at all of a chunk of a benchmark made
		 * before, as when submissions/ was lost: one look, since the
		 * benchmark was created) */
		found = find_job_by_name(ch->name, ident, intent ? intent->time_ns : b->created_ns,
					 intent ? window_ms : 0, job_id, size, err);
		if (found < 0)
			return -1;
		if (found) {
			e.type = SB_SUBM_SUBMITTED;
			e.recovered = *recovered = true;
			e.job_id = job_id;
			return sb_subm_append(w, &e, subm, err);
		}
	}
	sb_proc_defer_interrupts(&saved);
	e.type = SB_SUBM_INTENT;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (sb_subm_append(w, &e, subm, err) < 0) {
		*interrupted = sb_proc_resume_interrupts(&saved);
		return -1;
	}
	out = run_sbatch(b, chunks, ch, dep, job_id, size, interrupted, &why);
	if (out == SBATCH_UNKNOWN && *interrupted) {
		/* sbctl was asked to stop and sbatch did not end in time: leave
		 * the intent unresolved, the next submit looks the job up */
		sig = sb_proc_resume_interrupts(&saved);
		return sb_errorf(err, "interrupted (%s) while sbatch ran for chunk %zu of %zu ('%s'): %s; "
				 "whether it was submitted is not known yet, the next submit looks it up",
				 signal_name(*interrupted ? *interrupted : sig), k + 1, nchunks, ch->name,
				 why.msg);
	}
	if (out != SBATCH_SUBMITTED) {
		/* an unknown outcome until the scheduler says otherwise; an sbatch
		 * that said no by itself needs one look, one killed or timed out
		 * the whole window */
		found = find_job_by_name(ch->name, ident, (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec,
					 out == SBATCH_REFUSED ? 0 : window_ms, job_id, size, NULL);
		if (found != 1) {
			/* not found: settled, a failure on record; the scheduler
			 * silent: still unknown, the next submit looks again */
			if (found == 0) {
				e.type = SB_SUBM_SUBMIT_FAILED;
				e.error = why.msg; /* cut at SB_SUBM_ERROR_MAX */
				sb_subm_append(w, &e, subm, NULL);
			}
			sig = sb_proc_resume_interrupts(&saved);
			if (*interrupted == 0)
				*interrupted = sig;
			return sb_errorf(err, "sbatch failed for chunk %zu of %zu ('%s'): %s%s", k + 1,
					 nchunks, ch->name, why.msg, out != SBATCH_REFUSED || k > 0 ? ""
					 : ch->attempt == 0 ? " (nothing of the benchmark was accepted: a "
					 "corrected spec submitted again is submitted with its settings)"
					 : " (a rerun with another --time replaces the refused one)");
		}
		e.recovered = *recovered = true;
	}
	e.type = SB_SUBM_SUBMITTED;
	e.error = NULL;
	e.job_id = job_id;
	*now = true;
	if (sb_subm_append(w, &e, subm, err) < 0) {
		sb_proc_resume_interrupts(&saved);
		return -1;
	}
	sig = sb_proc_resume_interrupts(&saved);
	if (*interrupted == 0)
		*interrupted = sig;
	return 0;
}

/* Submits every chunk of chunks->v[from..to) not yet submitted, in order,
 * renewing lk (the benchmark's lock) as it goes; each one's job goes to
 * res->jobs (made for every chunk at the first call).  With a throttle,
 * a chunk depends on the one before it, from the second of the range on
 * (the rest after a smoke test does not wait for the smoke chunk, which
 * is over).  existed: the benchmark (or the attempt) may have been
 * submitted before without a record this process can see, so a chunk
 * with none is looked up by name first. */
static int submit_chunks(const struct sb_ctx *ctx, const struct sb_bench *b,
			 const struct sb_chunks *chunks, size_t from, size_t to, bool existed,
			 struct sb_lock *lk, struct sb_submit_result *res, struct sb_error *err)
{
	struct sb_subm subm;
	struct sb_subm_writer *w = NULL;
	struct sb_key key;
	char prev[64] = "";
	bool throttled = chunks->set.throttle > 0, fresh = true;
	size_t k;
	int rc = 0, window_ms = lookup_window_ms(ctx);

	if (sb_bench_load_key(b, &key, err) < 0)
		return -1;
	if (sb_subm_read(b, &key, &subm, err) < 0) {
		sb_key_cleanse(&key);
		return -1;
	}
	w = sb_subm_writer_create(b, &key, err);
	if (w == NULL)
		rc = -1;
	if (res->jobs == NULL && (res->jobs = calloc(chunks->n, sizeof(*res->jobs))) == NULL)
		rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (k = from; rc == 0 && k < to && k < chunks->n; k++) {
		const struct sb_chunk *ch = &chunks->v[k];
		const struct sb_subm_entry *done = sb_subm_find(&subm, SB_SUBM_SUBMITTED, ch->attempt, (int64_t)k);
		const struct sb_subm_entry *intent = sb_subm_find(&subm, SB_SUBM_INTENT, ch->attempt, (int64_t)k);
		const struct sb_subm_entry *failed = sb_subm_find(&subm, SB_SUBM_SUBMIT_FAILED, ch->attempt, (int64_t)k);
		char job_id[64];
		bool recovered, now;

		sb_lock_renew(lk);
		if (done) {
			rc = add_job(res, ch, done->job_id, done->recovered, false, err);
			snprintf(prev, sizeof(prev), "%s", done->job_id);
			continue;
		}
		if (res->interrupted) {
			rc = sb_errorf(err, "interrupted (%s) after chunk %zu of %zu", signal_name(res->interrupted),
				       k, chunks->n);
			break;
		}
		fresh = false;
		/* an intent whose sbatch said no, or whose job the window did not
		 * find, is settled: one look is enough */
		rc = submit_one(b, chunks, k, throttled && prev[0] ? prev : NULL, intent,
				existed && intent == NULL && failed == NULL,
				failed && intent && failed->time_ns >= intent->time_ns ? 0 : window_ms,
				w, &subm, job_id, sizeof(job_id), &recovered, &now, &res->interrupted, err);
		if (rc == 0)
			rc = add_job(res, ch, job_id, recovered, now, err);
		snprintf(prev, sizeof(prev), "%s", job_id);
	}
	res->already_submitted = rc == 0 && fresh;
	sb_subm_dups_release(res->dups, res->ndups); /* an earlier range's */
	res->dups = NULL;
	res->ndups = 0;
	if (sb_subm_duplicates(&subm, &res->dups, &res->ndups, rc == 0 ? err : NULL) < 0)
		rc = -1;
	if (sb_subm_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	sb_subm_release(&subm);
	sb_key_cleanse(&key);
	return rc;
}

/* ---- attempt 0 and its smoke test -------------------------------------- */

/* How many children the first chunk of attempt 0 holds as prepared (its
 * task map) into *first, 0 when attempt 0 is not prepared; -1 when the
 * map is there but cannot be read (the layout must not be guessed). */
static int prepared_first(const struct sb_bench *b, size_t *first, struct sb_error *err)
{
	char path[PATH_MAX];
	size_t *c = NULL;

	*first = 0;
	if (b->dir == NULL || sb_bdir_chunk(path, sizeof(path), b->dir, 0, 0, "map") < 0 ||
	    access(path, F_OK) != 0)
		return 0;
	if (sb_jobs_map_children(path, &c, first, err) < 0)
		return -1;
	free(c);
	return 0;
}

/* Attempt 0's chunks for children all[0..n): as the submit that prepared
 * it laid them out (*prepared), else with chunk 0 holding the first child
 * alone when smoke asks for a smoke test.  *smoke_layout: chunk 0 holds
 * one child of several (which a MaxArraySize of 1 does for any layout: no
 * smoke test can be told apart there, and none is taken). */
static int layout_attempt0(const struct sb_bench *b, const size_t *all, size_t n,
			   const struct sb_attempt_settings *set, bool smoke, struct sb_chunks *chunks,
			   bool *prepared, bool *smoke_layout, struct sb_error *err)
{
	size_t per = (size_t)b->max_array_size, first;

	if (prepared_first(b, &first, err) < 0)
		return -1;
	*prepared = first > 0;
	if (first == 0)
		first = smoke && n > 1 && per > 1 ? 1 : per;
	*smoke_layout = first == 1 && n > 1 && per > 1;
	return sb_jobs_layout_first(b, 0, all, n, first, set, chunks, err);
}

/* The children of chunks->v[from..) that have no submitted record: *held. */
static int unsubmitted(const struct sb_bench *b, const struct sb_chunks *chunks, size_t from,
		       size_t *held, struct sb_error *err)
{
	struct sb_subm subm;
	size_t k;

	*held = 0;
	if (sb_subm_read_own(b, &subm, err) < 0)
		return -1;
	for (k = from; k < chunks->n; k++)
		if (!sb_subm_find(&subm, SB_SUBM_SUBMITTED, chunks->v[k].attempt, (int64_t)k))
			*held += chunks->v[k].n;
	sb_subm_release(&subm);
	return 0;
}

static int smoke_skipped(struct sb_submit_result *res, const char *why, struct sb_error *err)
{
	res->smoke.outcome = SB_SUBMIT_SMOKE_SKIPPED;
	res->smoke.child = -1;
	if ((res->smoke.reason = strdup(why)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

static bool any_now(const struct sb_submit_result *res, size_t from)
{
	for (size_t i = from; i < res->njobs; i++)
		if (res->jobs[i].submitted_now)
			return true;
	return false;
}

static int lock_bench(const struct sb_bench *b, const struct sb_ctx *ctx, bool *waited,
		      struct sb_lock *lk, struct sb_error *err);

/* Submits attempt 0 (under the benchmark's lock lk, its jobs written).  A
 * smoke layout submits its chunk 0 first; with opts->smoke, then waits for
 * its child and submits the other chunks only when it succeeded
 * (docs/sbctl-submit.md, "SMOKE TEST"); without, submits the rest at once
 * (a plain resume of a smoke test's benchmark, said in a note).  A smoke
 * test that cannot be held is skipped.
 *
 * The lock is released while the smoke test waits and taken again after:
 * the status that watches the child opens the lock file, and closing it
 * would drop this process's fcntl lock anyway (POSIX record locks belong
 * to the process and file, not to the descriptor); the records read again
 * under the lock say what another submit did meanwhile. */
static int submit_attempt0(const struct sb_ctx *ctx, const struct sb_bench *b,
			   const struct sb_chunks *chunks, bool existed, bool prepared,
			   bool smoke_layout, struct sb_lock *lk, const char *spec_path,
			   const struct sb_submit_opts *opts, struct sb_submit_result *res,
			   struct sb_error *err)
{
	bool smoke = opts && opts->smoke;
	size_t held = 0, child;
	int rc;

	res->smoke.layout = smoke_layout;
	if (!smoke_layout) {
		if (smoke && smoke_skipped(res, chunks->n == 1 && chunks->v[0].n == 1
					   ? "one child to submit: nothing to hold back (--check watches it)"
					   : prepared ? "attempt 0 was laid out without a smoke test by an earlier "
					   "submit: nothing is held back" : "a MaxArraySize of 1 runs every child "
					   "alone: no smoke test can be held", err) < 0)
			return -1;
		return submit_chunks(ctx, b, chunks, 0, chunks->n, existed, lk, res, err);
	}
	child = chunks->v[0].children[0];
	if (submit_chunks(ctx, b, chunks, 0, 1, existed, lk, res, err) < 0)
		return -1;
	if (!smoke) {
		rc = submit_chunks(ctx, b, chunks, 1, chunks->n, existed, lk, res, err);
		if (any_now(res, 1))
			sb_ctx_warn(ctx, "note: the children a smoke test held back (after child %zu) are "
				    "submitted now, without waiting for child %zu (--smoke waits for it)",
				    child, child);
		res->already_submitted = rc == 0 && !any_now(res, 0);
		return rc;
	}
	if ((spec_path && (res->smoke.spec = strdup(spec_path)) == NULL))
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (unsubmitted(b, chunks, 1, &held, err) < 0)
		return -1;
	if (held == 0) {
		if (smoke_skipped(res, "every child was submitted before: nothing to hold back", err) < 0)
			return -1;
		res->smoke.child = (int64_t)child;
		rc = submit_chunks(ctx, b, chunks, 1, chunks->n, existed, lk, res, err);
		res->already_submitted = rc == 0 && !any_now(res, 0);
		return rc;
	}
	res->already_submitted = false;
	sb_lock_release(lk);
	rc = sb_smoke_wait(ctx, b->dir, child, opts->smoke_seconds > 0 ? opts->smoke_seconds
			   : SB_SUBMIT_SMOKE_DEFAULT_S, &res->smoke, err);
	if (rc < 0 || res->smoke.outcome != SB_SUBMIT_SMOKE_PASSED) {
		res->smoke.held = held;
		if (rc < 0)
			sb_error_prefix(err, "the smoke test's child %zu could not be watched, so the other "
					"%zu children are not submitted", child, held);
		return rc;
	}
	if (lock_bench(b, ctx, &res->waited, lk, err) < 0)
		return -1;
	/* the lock was free while it waited: on shared storage, another
	 * node's submit of the rest may have no record this node sees yet,
	 * so each chunk is looked up by name first */
	return submit_chunks(ctx, b, chunks, 1, chunks->n, existed || sb_fs_shared(b->dir, NULL), lk,
			     res, err);
}

struct lock_waiter {
	const struct sb_ctx *ctx; /* may be NULL: silently */
	bool *waited;
};

/* sb_lock_wait_fn: says to the context's warning callback whom the submit
 * waits for, once */
static void waiting_for(void *arg, const char *holder)
{
	struct lock_waiter *w = arg;

	if (!*w->waited)
		sb_ctx_warn(w->ctx, "another sbctl (%s) is submitting this benchmark; waiting for it "
			    "to finish", holder);
	*w->waited = true;
}

/* true when another process holds the lock of benchmark directory dir,
 * said as waiting_for says it */
static bool lock_is_held(const char *dir, const struct sb_ctx *ctx, bool *waited)
{
	struct lock_waiter w = { ctx, waited };
	char path[PATH_MAX], holder[512];

	if (snprintf(path, sizeof(path), "%s/lock", dir) >= (int)sizeof(path) ||
	    sb_lock_held(path, holder, sizeof(holder)) != 1)
		return false;
	waiting_for(&w, holder);
	return true;
}

/* Takes the benchmark's lock (base/lock.h: across the nodes that share the
 * directory), saying whom it waits for (*waited set) when another sbctl
 * holds it; 0 or -1. */
static int lock_bench(const struct sb_bench *b, const struct sb_ctx *ctx, bool *waited,
		      struct sb_lock *lk, struct sb_error *err)
{
	struct lock_waiter w = { ctx, waited };
	char path[PATH_MAX];

	if (sb_bench_path(b, "lock", path, sizeof(path), err) < 0)
		return -1;
	return sb_lock_take(path, waiting_for, &w, lk, err);
}

static int index_bench(const struct sb_ctx *ctx, const struct sb_bench *b)
{
	struct sb_index_bench ib;
	struct sb_error err = { 0 };
	struct sb_index *idx = sb_index_open(ctx ? sb_ctx_index(ctx) : NULL, NULL, &err);

	sb_bench_index_entry(b, &ib);
	if (idx == NULL || sb_index_put_bench(idx, &ib, &err) < 0) {
		sb_ctx_warn(ctx, "warning: %s (the benchmark is fine; 'sbctl index --rebuild' "
			    "can add it later)", err.msg);
		sb_index_close(idx);
		return -1;
	}
	sb_index_close(idx);
	return 0;
}

struct copy_find {
	const char *digest, *self;
	char *dir;
};

static int copy_row(const struct sb_index_bench *ib, void *arg)
{
	struct copy_find *f = arg;
	struct sb_bench *b;
	bool same;

	if (strcmp(ib->digest, f->digest) != 0 || strcmp(ib->dir, f->self) == 0)
		return 0;
	b = sb_bench_open(ib->dir, NULL);
	same = b != NULL && strcmp(b->digest, f->digest) == 0;
	sb_bench_destroy(b);
	return same && (f->dir = strdup(ib->dir)) != NULL;
}

/* One benchmark per digest: when the directory the root gives (self) does
 * not exist, the directory of the same benchmark under another root that
 * the local index knows and that holds it (the oldest), or NULL. */
static char *copy_elsewhere(const struct sb_ctx *ctx, const char *digest, const char *self)
{
	struct copy_find f = { digest, self, NULL };
	struct sb_index *idx;

	if (self == NULL || access(self, F_OK) == 0 || ctx == NULL || sb_ctx_index(ctx) == NULL ||
	    (idx = sb_index_open(sb_ctx_index(ctx), NULL, NULL)) == NULL)
		return NULL;
	sb_index_each_bench(idx, copy_row, &f, NULL);
	sb_index_close(idx);
	return f.dir;
}

static void note_elsewhere(const struct sb_ctx *ctx, const struct sb_spec *spec, const char *digest,
			   const char *dir)
{
	sb_ctx_warn(ctx, "note: benchmark %s (%.12s) is in '%s', submitted there before (from another "
		    "directory or root): this is that benchmark, not a second copy under '%s' (a "
		    "new 'tag' in the spec makes a new benchmark)", sb_spec_name(spec), digest, dir,
		    sb_ctx_root(ctx));
}

/* Under the benchmark's lock: the settings attempt 0 is submitted with
 * into *out, and the differences of the edited spec from the benchmark's
 * into res.  A new benchmark has its spec's; one none of whose arrays may
 * have been accepted takes the edited spec's (a settings record of attempt
 * 0 says so when they are not the record's: benchmark.msgpack is never
 * rewritten); any other keeps its own. */
static int submit_settings(const struct sb_bench *b, const struct sb_spec *edited, bool existed,
			   struct sb_attempt_settings *out, struct sb_submit_result *res,
			   struct sb_error *err)
{
	struct sb_attempt_settings own = { 0 };
	const struct sb_attempt_settings *base, *have;
	struct sb_subm_writer *w;
	struct sb_subm subm;
	struct sb_key key;
	bool accepted;
	int rc = 0;

	if (!existed)
		return sb_settings_from_spec(edited, out, err);
	if (sb_bench_load_key(b, &key, err) < 0)
		return -1;
	if (sb_subm_read(b, &key, &subm, err) < 0) {
		sb_key_cleanse(&key);
		return -1;
	}
	accepted = sb_subm_any_accepted(&subm, -1);
	base = sb_subm_settings_of(&subm, 0);
	rc = sb_settings_diff(b->spec, base, edited, !accepted, b->name, &res->diffs, err);
	if (rc == 0 && base == NULL)
		rc = sb_settings_from_spec(b->spec, &own, err);
	have = base ? base : &own;
	if (rc == 0 && accepted)
		rc = sb_settings_copy(have, out, err);
	else if (rc == 0 && (rc = sb_settings_from_spec(edited, out, err)) == 0 &&
		 !sb_settings_equal(out, have)) {
		/* nothing was accepted: the corrected spec's settings replace the
		 * refused ones, on record before any sbatch runs with them */
		res->settings_taken = true;
		if ((w = sb_subm_writer_create(b, &key, err)) == NULL)
			rc = -1;
		if (rc == 0)
			rc = sb_subm_append_settings(w, 0, out, NULL, err);
		if (sb_subm_writer_close(w, rc == 0 ? err : NULL) < 0)
			rc = -1;
		if (rc < 0)
			sb_settings_release(out);
	}
	sb_settings_release(&own);
	sb_subm_release(&subm);
	sb_key_cleanse(&key);
	return rc;
}

/* The differences of an edited spec, and settings it made the benchmark
 * take, as warnings. */
static void warn_settings(const struct sb_ctx *ctx, const struct sb_submit_result *res)
{
	for (size_t d = 0; d < res->diffs.n; d++) {
		const struct sb_setting_diff *x = &res->diffs.v[d];
		if (!strncmp(x->key, "inputs/", 7)) {
			sb_ctx_warn(ctx, "note: input '%s' has sha256 %.12s, %.12s before: %s", x->key + 7,
				    x->spec_v.kind ? x->spec_v.v[0] : "(no input)",
				    x->stored_v.kind ? x->stored_v.v[0] : "(no input)", x->advice);
			continue;
		}
		sb_ctx_warn(ctx, "warning: the spec changes %s from %s to %s, which benchmark %s (%.12s) "
			    "does not take: %s", x->key, x->stored, x->spec, res->name, res->digest,
			    x->advice);
	}
	if (res->settings_taken)
		sb_ctx_warn(ctx, "none of the job arrays of %s (%.12s) was accepted before: it is "
			    "submitted with the spec's sbatch settings now", res->name, res->digest);
}

/* Whether benchmark b has no submission record at all yet (no intent, job,
 * failure or reuse): a create interrupted before its first record. */
static int nothing_recorded(const struct sb_bench *b, bool *none, struct sb_error *err)
{
	struct sb_subm subm;

	if (sb_subm_read_own(b, &subm, err) < 0)
		return -1;
	*none = subm.n == 0 && subm.nreuses == 0;
	sb_subm_release(&subm);
	return 0;
}

/* A new benchmark whose code differs from the newest other one of its name:
 * the input files that differ, among the differences (warned as notes). */
static int code_differences(const struct sb_ctx *ctx, const struct sb_bench *b,
			    struct sb_submit_result *res, struct sb_error *err)
{
	struct sb_bench *prev = sb_reuse_previous(ctx, b);
	char was[200], now[200];
	int rc;

	if (prev == NULL || prev->inputs == NULL || b->inputs == NULL) {
		sb_bench_destroy(prev);
		return 0;
	}
	snprintf(was, sizeof(was), "%s (%.12s)", prev->name, prev->digest);
	snprintf(now, sizeof(now), "%s (%.12s)", b->name, b->digest);
	rc = sb_settings_diff_inputs(prev->inputs, b->inputs, was, now, &res->diffs, err);
	sb_bench_destroy(prev);
	return rc;
}

/* Under the lock of b, just created: the children proven in earlier
 * benchmarks (ctl/submit/reuse.h), each recorded, signed, before any job of the
 * benchmark is written. */
static int record_reuses(const struct sb_ctx *ctx, const struct sb_bench *b, const char *from,
			 struct sb_error *err)
{
	struct sb_subm_writer *w = NULL;
	struct sb_reuses found;
	struct sb_key key;
	int rc = 0;

	if (sb_reuse_find(ctx, b, from, false, &found, err) < 0)
		return -1;
	if (found.n > 0 && sb_bench_load_key(b, &key, err) == 0) {
		w = sb_subm_writer_create(b, &key, err);
		for (size_t i = 0; w && rc == 0 && i < found.n; i++)
			rc = sb_subm_append_reuse(w, &found.v[i], err);
		if (w == NULL || sb_subm_writer_close(w, rc == 0 ? err : NULL) < 0)
			rc = -1;
		sb_key_cleanse(&key);
	} else if (found.n > 0) {
		rc = -1;
	}
	sb_reuses_release(&found);
	return rc;
}

/* A dry run of a new benchmark: what it would reuse (its sources'
 * statuses record nothing) taken out of children[0..*n). */
static int dry_run_reuse(const struct sb_ctx *ctx, const struct sb_bench *b, const char *from,
			 size_t *children, size_t *n, size_t *reused, struct sb_error *err)
{
	struct sb_reuses found;
	size_t i, k = 0, r = 0;

	if (sb_reuse_find(ctx, b, from, true, &found, err) < 0)
		return -1;
	for (i = 0; i < *n; i++) {
		while (r < found.n && found.v[r].child < (int64_t)children[i])
			r++;
		if (r < found.n && found.v[r].child == (int64_t)children[i])
			continue;
		children[k++] = children[i];
	}
	*reused = *n - k;
	*n = k;
	sb_reuses_release(&found);
	return 0;
}

int sb_submit_attempt0_children(const struct sb_bench *b, size_t **children, size_t *n,
				size_t *reused, struct sb_error *err)
{
	struct sb_subm subm;
	size_t i, k = 0;

	if (sb_subm_read_own(b, &subm, err) < 0)
		return -1;
	free(*children);
	if ((*children = malloc((b->children ? b->children : 1) * sizeof(**children))) == NULL) {
		sb_subm_release(&subm);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < b->children; i++)
		if (sb_subm_reuse_of(&subm, (int64_t)i) == NULL)
			(*children)[k++] = i;
	*n = k;
	if (reused)
		*reused = b->children - k;
	sb_subm_release(&subm);
	return 0;
}

/* A dry run's result keeps what would be submitted, for sb_submit_render:
 * *b, *chunks and *agent pass to res. */
static void keep_dry_run(struct sb_submit_result *res, struct sb_bench **b, struct sb_chunks *chunks,
			 char **agent)
{
	res->dry_bench = *b;
	res->dry_chunks = *chunks;
	res->dry_agent = *agent;
	*b = NULL;
	memset(chunks, 0, sizeof(*chunks));
	*agent = NULL;
}

/* sb_submit into the caller's res (see include/sbench/submit.h). */
static int submit_spec(const struct sb_ctx *ctx, const char *spec_path,
		       const struct sb_submit_opts *opts, const char *lane,
		       struct sb_submit_result *res, struct sb_error *err)
{
	bool dry_run = opts && opts->dry_run, smoke = opts && opts->smoke, prepared = false;
	bool smoke_layout = false;
	struct sb_provenance prov;
	struct sb_slurm_config cfg;
	struct sb_error warn = { 0 };
	struct sb_spec *spec;
	struct sb_plan *plan;
	struct sb_bench *b = NULL;
	struct sb_chunks chunks = { 0 };
	size_t *all = NULL, i, n;
	char *source = NULL, *agent = NULL, *dir = NULL, *spec_dir = NULL, *problem;
	size_t len;
	int existed = 0, rc = -1;

	memset(res, 0, sizeof(*res));
	res->dry_run = dry_run;
	if (sb_fs_read_file(spec_path, SB_SPEC_MAX_FILE_SIZE, &source, &len, err) < 0) {
		/* a spec that cannot be read is an input error, as sbctl plan has it */
		sb_error_recode(err, errno == ENOENT ? SB_ERR_NOT_FOUND : SB_ERR_INPUT);
		return -1;
	}
	spec = sb_spec_load_buffer(source, len, spec_path, err);
	spec_dir = sb_spec_dir_of(spec_path);
	if (spec && sb_spec_set_dir(spec, spec_dir) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		sb_spec_destroy(spec);
		spec = NULL;
	}
	plan = spec ? sb_plan_create(spec, err) : NULL;
	if (plan == NULL) {
		sb_spec_destroy(spec);
		free(source);
		free(spec_dir);
		return -1;
	}
	/* a command that names a file next to the spec finds none in its run
	 * directory: refused before anything is made */
	if ((problem = sb_submit_cwd_problem(plan, spec_path)) != NULL) {
		sb_error_set(err, SB_ERR_INPUT, "%s", problem);
		free(problem);
		sb_plan_destroy(plan);
		sb_spec_destroy(spec);
		free(source);
		free(spec_dir);
		return -1;
	}
	/* the program found, the files under {spec_dir} there: refused (or
	 * warned about) before anything is made */
	if (sb_submit_check_command(ctx, plan, err) < 0 ||
	    (opts && opts->reuse_from && !opts->no_reuse &&
	     sb_reuse_check_code(ctx, opts->reuse_from, plan, err) < 0)) {
		sb_plan_destroy(plan);
		sb_spec_destroy(spec);
		free(source);
		free(spec_dir);
		return -1;
	}
	sb_provenance_collect(spec_path, &prov);
	if (sb_provenance_dirty_warning(&prov, spec_path, warn.msg, sizeof(warn.msg)))
		sb_ctx_warn(ctx, "%s", warn.msg);
	warn.msg[0] = '\0';
	sb_slurm_config_read(&cfg, &warn);
	if (warn.msg[0])
		sb_ctx_warn(ctx, "warning: %s", warn.msg);
	agent = sb_jobs_agent_path(ctx, err);
	if (agent == NULL)
		goto out;

	if (dry_run) {
		b = calloc(1, sizeof(*b));
		if (b == NULL || (b->dir = sb_bench_dir_for(sb_ctx_root(ctx), sb_spec_name(spec),
				  sb_plan_benchmark_digest_hex(plan), err)) == NULL)
			goto out;
		char *other = copy_elsewhere(ctx, sb_plan_benchmark_digest_hex(plan), b->dir);
		if (other != NULL) {
			note_elsewhere(ctx, spec, sb_plan_benchmark_digest_hex(plan), other);
			free(b->dir);
			b->dir = other;
		}
		b->name = strdup(sb_spec_name(spec));
		b->tag = sb_spec_tag(spec) ? strdup(sb_spec_tag(spec)) : NULL;
		b->children = sb_plan_count(plan);
		b->max_array_size = cfg.max_array_size;
		b->kill_wait = cfg.kill_wait;
		if (lane && (b->lane = strdup(lane)) == NULL) {
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto out;
		}
	} else {
		struct sb_bench_new bn = { spec_path, source, len, plan, sb_ctx_root(ctx),
					   &cfg, &prov, NULL, lane };
		char *guess = sb_bench_dir_for(sb_ctx_root(ctx), sb_spec_name(spec),
					       sb_plan_benchmark_digest_hex(plan), NULL);
		char *other = copy_elsewhere(ctx, sb_plan_benchmark_digest_hex(plan), guess);
		int made = 0;
		/* creating the directory takes the lock too: look before */
		if (guess)
			lock_is_held(other ? other : guess, ctx, &res->waited);
		free(guess);
		bn.spec_dir = spec_dir;
		if (other != NULL) {
			note_elsewhere(ctx, spec, sb_plan_benchmark_digest_hex(plan), other);
			dir = other;
			existed = 1;
		} else {
			made = sb_bench_create(&bn, &dir, &existed, err);
		}
		if (made == -2)
			sb_error_recode(err, SB_ERR_INPUT); /* a refused directory, as everywhere */
		if (made < 0 || (b = sb_bench_open(dir, err)) == NULL)
			goto out;
		index_bench(ctx, b);
	}
	if (dry_run)
		memcpy(b->digest, sb_plan_benchmark_digest_hex(plan), 65);
	if (strcmp(b->digest, sb_plan_benchmark_digest_hex(plan)) != 0) {
		sb_errorf(err, "benchmark directory '%s' holds benchmark %s, not %s", b->dir,
			  b->digest, sb_plan_benchmark_digest_hex(plan));
		goto out;
	}
	if (existed) {
		/* the record's spec drives the jobs (its heartbeat is the one status
		 * judges by); the edited one is compared with it */
		sb_plan_destroy(plan);
		plan = NULL;
		if (sb_bench_plan(b, err) < 0)
			goto out;
	} else {
		b->spec = spec;   /* b owns them from here on */
		b->plan = plan;
		spec = NULL;
		plan = NULL;
	}
	res->dir = strdup(b->dir);
	res->name = strdup(b->name);
	memcpy(res->digest, b->digest, 65);

	n = b->children;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (all == NULL || res->dir == NULL || res->name == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		all[i] = i;
	if (dry_run) {
		if (!(opts && opts->no_reuse) && access(b->dir, F_OK) != 0 &&
		    dry_run_reuse(ctx, b, opts ? opts->reuse_from : NULL, all, &n, &res->reused, err) < 0)
			goto out;
		if (n > 0 && layout_attempt0(b, all, n, NULL, smoke, &chunks, &prepared, &smoke_layout,
					     err) < 0)
			goto out;
		res->smoke.layout = n > 0 && smoke_layout;
		res->nchunks = chunks.n;
		keep_dry_run(res, &b, &chunks, &agent);
		rc = 0;
		goto out;
	}
	{
		/* under the lock: a concurrent submit of the same benchmark waits,
		 * then finds every chunk submitted (already_submitted, with the
		 * other's job ids) or resumes what the other left */
		struct sb_attempt_settings set = { 0 };
		struct sb_lock lock;
		if (lock_bench(b, ctx, &res->waited, &lock, err) < 0)
			goto out;
		/* what the benchmark reuses is decided by the first submit that
		 * records anything: one interrupted while it looked for children
		 * to reuse left none, and its resume looks again */
		bool fresh = !existed;
		rc = existed ? nothing_recorded(b, &fresh, err) : 0;
		if (rc == 0 && fresh && !(opts && opts->no_reuse))
			rc = record_reuses(ctx, b, opts ? opts->reuse_from : NULL, err);
		if (rc == 0 && fresh)
			rc = code_differences(ctx, b, res, err);
		if (rc == 0 && !fresh && opts && opts->reuse_from)
			sb_ctx_warn(ctx, "warning: --reuse-from is not used: benchmark %s (%.12s) exists, and "
				    "what it reuses was decided when it was created", b->name, b->digest);
		if (rc == 0)
			rc = submit_settings(b, existed ? spec : b->spec, existed, &set, res, err);
		if (rc == 0)
			warn_settings(ctx, res);
		if (rc == 0)
			rc = sb_submit_attempt0_children(b, &all, &n, &res->reused, err);
		if (rc == 0 && n > 0)
			rc = layout_attempt0(b, all, n, &set, smoke, &chunks, &prepared, &smoke_layout, err);
		sb_settings_release(&set);
		res->nchunks = chunks.n;
		if (rc == 0 && n > 0) {
			res->resumable = true;
			rc = sb_jobs_write(b, &chunks, agent, err);
			if (rc == 0)
				rc = submit_attempt0(ctx, b, &chunks, existed, prepared, smoke_layout, &lock,
						     spec_path, opts, res, err);
		} else if (rc == 0) {
			res->already_submitted = existed; /* every child is reused */
			if (smoke)
				rc = smoke_skipped(res, "every child is reused: nothing to submit", err);
		}
		sb_lock_release(&lock);
	}
out:
	sb_chunks_release(&chunks);
	sb_bench_destroy(b);
	sb_plan_destroy(plan);
	sb_spec_destroy(spec);
	free(all);
	free(agent);
	free(dir);
	free(spec_dir);
	free(source);
	return rc;
}

int sb_submit(const struct sb_ctx *ctx, const char *spec_path, const struct sb_submit_opts *opts,
	      struct sb_submit_result **res, struct sb_error *err)
{
	return sb_submit_lane(ctx, spec_path, opts, NULL, res, err);
}

int sb_submit_lane(const struct sb_ctx *ctx, const char *spec_path,
		   const struct sb_submit_opts *opts, const char *lane,
		   struct sb_submit_result **res, struct sb_error *err)
{
	struct sb_submit_result *r = calloc(1, sizeof(*r));
	int rc;

	*res = NULL;
	if (r == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (lane && sb_lane_name_check(lane, err) < 0) {
		free(r);
		return -1;
	}
	rc = submit_spec(ctx, spec_path, opts, lane, r, err);
	r->kind = SB_SUBMIT_KIND_SUBMIT;
	if (rc == 0 || r->dir)
		*res = r;  /* on failure: what was done, for "run it again to continue" */
	else
		sb_submit_result_destroy(r);
	return rc;
}

static int result_header(struct sb_submit_result *res, const struct sb_bench *b, struct sb_error *err)
{
	memset(res, 0, sizeof(*res));
	res->dir = strdup(b->dir);
	res->name = strdup(b->name);
	memcpy(res->digest, b->digest, 65);
	if (res->dir == NULL || res->name == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* What subm holds for attempt: *complete when every chunk of chunks has a
 * submitted record, *recorded when any record names the attempt (an
 * intent at least: sbatch may have run for it). */
static void attempt_records(const struct sb_subm *subm, int64_t attempt,
			    const struct sb_chunks *chunks, bool *complete, bool *recorded)
{
	size_t i, k;

	*complete = true;
	*recorded = false;
	for (k = 0; k < chunks->n; k++)
		if (!sb_subm_find(subm, SB_SUBM_SUBMITTED, chunks->v[k].attempt, (int64_t)k))
			*complete = false;
	for (i = 0; i < subm->n; i++)
		if (subm->v[i].attempt == attempt)
			*recorded = true;
}

/* The settings of attempt into *out: its own (or the benchmark's, ctl/bench/subm.h),
 * with the time limit time when not NULL (*changed then: to be recorded). */
static int attempt_settings(const struct sb_bench *b, const struct sb_subm *subm, int64_t attempt,
			    const char *time, struct sb_attempt_settings *out, bool *changed,
			    struct sb_error *err)
{
	const struct sb_attempt_settings *have = sb_subm_settings_of(subm, attempt);

	*changed = false;
	if ((have ? sb_settings_copy(have, out, err) : sb_settings_from_spec(b->spec, out, err)) < 0)
		return -1;
	if (time == NULL)
		return 0;
	if (sb_settings_set_time(out, time, err) < 0) {
		sb_settings_release(out);
		return -1;
	}
	*changed = true;
	return 0;
}

/* The chunks to submit: the latest attempt's when it is not fully
 * submitted (*resumed), else a new attempt for children[0..n) (none when n
 * is 0).  A latest attempt whose jobs directory has no task map (an older
 * sbctl failed while writing it) is prepared again when nothing was
 * recorded for it: attempt 0 with every child, a later one with the
 * children chosen now (its directory discarded, unless dry_run).
 *
 * The chunks' settings are the attempt's; with time (not NULL), a new
 * attempt, or a resumed one none of whose arrays may have been accepted,
 * gets that time limit (*record: its settings are to be recorded); a
 * resumed attempt with an array accepted keeps its own (*time_kept).
 * keep0: attempt 0 is a smoke test's, held back for sbctl submit, and is
 * never resumed here. */
static int rerun_chunks(struct sb_bench *b, const struct sb_subm *subm, const size_t *children,
			size_t n, bool dry_run, const char *time, bool keep0, struct sb_chunks *chunks,
			bool *resumed, bool *record, bool *time_kept, struct sb_error *err)
{
	int64_t last = sb_jobs_last_attempt(b);
	struct sb_attempt_settings set = { 0 };
	enum sb_jobs_found found = SB_JOBS_NONE;
	bool complete = false, recorded = false;
	size_t *all = NULL, i;
	int rc;

	*resumed = *record = *time_kept = false;
	if (last >= 0) {
		bool open = !sb_subm_any_accepted(subm, last);
		if (attempt_settings(b, subm, last, open ? time : NULL, &set, record, err) < 0)
			return -1;
		rc = sb_jobs_read_attempt(b, last, &set, chunks, &found, err);
		if (rc == 0)
			attempt_records(subm, last, chunks, &complete, &recorded);
		if (rc == 0 && found == SB_JOBS_UNPREPARED && recorded)
			rc = sb_errorf(err, "attempt %" PRId64 " of '%s' has records in submissions/ but its "
				       "jobs directory has no task map (was it removed by hand?)", last, b->dir);
		if (rc == 0 && found == SB_JOBS_UNPREPARED && last == 0) {
			/* the submit's attempt: every child not reused, as sbctl
			 * submit lays it out */
			rc = sb_submit_attempt0_children(b, &all, &i, NULL, err);
			if (rc == 0 && i > 0)
				rc = sb_jobs_layout(b, 0, all, i, &set, chunks, err);
			free(all);
			*resumed = true;
			sb_settings_release(&set);
			return rc;
		}
		sb_settings_release(&set);
		if (rc < 0)
			return -1;
		if (found == SB_JOBS_UNPREPARED) {
			if (!dry_run && sb_jobs_discard_attempt(b, last, err) < 0)
				return -1;
			last--;
		} else if (!complete && !(keep0 && last == 0)) {
			/* an interrupted submit or rerun comes first (never an
			 * attempt 0 that a smoke test holds back: keep0) */
			*resumed = true;
			*time_kept = time && !*record;
			return 0;
		} else {
			sb_chunks_release(chunks);
		}
	}
	*record = false;
	if (n == 0)
		return 0; /* nothing to rerun */
	if (attempt_settings(b, subm, last + 1, time, &set, record, err) < 0)
		return -1;
	rc = sb_jobs_layout(b, last + 1, children, n, &set, chunks, err);
	sb_settings_release(&set);
	return rc;
}

/* Records the settings of the attempt of chunks, before any of its sbatch. */
static int record_settings(const struct sb_bench *b, const struct sb_chunks *chunks,
			   struct sb_error *err)
{
	struct sb_subm_writer *w;
	struct sb_key key;
	int rc;

	if (sb_bench_load_key(b, &key, err) < 0)
		return -1;
	w = sb_subm_writer_create(b, &key, err);
	rc = w ? sb_subm_append_settings(w, chunks->v[0].attempt, &chunks->set, NULL, err) : -1;
	if (sb_subm_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	sb_key_cleanse(&key);
	return rc;
}

/* The children that attempt 0's smoke test holds back: attempt 0 laid out
 * with a smoke chunk (chunk 0 holds one child of several) and not fully
 * submitted.  The children of its chunks without a submitted record are
 * for `sbctl submit` (which, with --smoke, submits them once the smoke
 * child succeeded), never for a rerun.  *held gets b->children flags
 * (malloc'd; NULL when none is held) and *nheld how many are set. */
static int smoke_held(const struct sb_bench *b, const struct sb_subm *subm, bool **held,
		      size_t *nheld, size_t *smoke_child, struct sb_error *err)
{
	struct sb_chunks c0 = { 0 };
	enum sb_jobs_found found;
	size_t k, t, first;
	int rc = 0;

	*held = NULL;
	*nheld = 0;
	/* the first map alone tells a smoke layout: the others only then */
	if (prepared_first(b, &first, err) < 0)
		return -1;
	if (first != 1 || b->max_array_size <= 1)
		return 0;
	if (sb_jobs_read_attempt(b, 0, NULL, &c0, &found, err) < 0)
		return -1;
	if (found != SB_JOBS_PREPARED || c0.n < 2) {
		sb_chunks_release(&c0);
		return 0;
	}
	*smoke_child = c0.v[0].children[0];
	for (k = 0; rc == 0 && k < c0.n; k++) {
		if (sb_subm_find(subm, SB_SUBM_SUBMITTED, 0, (int64_t)k))
			continue;
		if (*held == NULL && (*held = calloc(b->children, sizeof(**held))) == NULL) {
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		for (t = 0; t < c0.v[k].n; t++)
			if (c0.v[k].children[t] < b->children && !(*held)[c0.v[k].children[t]]) {
				(*held)[c0.v[k].children[t]] = true;
				(*nheld)++;
			}
	}
	sb_chunks_release(&c0);
	return rc;
}

int sb_submit_rerun_children(const struct sb_ctx *ctx, struct sb_bench *b, const size_t *children,
			     size_t n, const struct sb_rerun_opts *opts, struct sb_submit_result *res,
			     struct sb_error *err)
{
	bool *resumed = &res->resumed, dry_run = opts && opts->dry_run, record, kept_time;
	const char *time = opts ? opts->time : NULL;
	size_t nheld = 0, *kept = NULL, nkept = 0, smoke_child = 0;
	bool *held = NULL;
	struct sb_chunks chunks = { 0 };
	struct sb_subm subm = { 0 };
	struct sb_key key;
	char *agent;
	struct sb_lock lock = { .fd = -1 };
	int rc = -1;

	*resumed = false;
	if (result_header(res, b, err) < 0 || (agent = sb_jobs_agent_path(ctx, err)) == NULL)
		return -1;
	res->dry_run = dry_run;
	if (!dry_run && lock_bench(b, NULL, &res->waited, &lock, err) < 0)
		goto out;
	if (sb_bench_load_key(b, &key, err) < 0)
		goto out;
	rc = sb_subm_read(b, &key, &subm, err);
	sb_key_cleanse(&key);
	if (rc == 0)
		rc = smoke_held(b, &subm, &held, &nheld, &smoke_child, err);
	if (rc == 0 && nheld > 0) {
		/* the children a smoke test holds back are submitted by sbctl
		 * submit, in attempt 0, never twice */
		size_t i, dropped = 0;
		if ((kept = malloc((n ? n : 1) * sizeof(*kept))) == NULL)
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		for (i = 0; rc == 0 && i < n; i++) {
			if (children[i] < b->children && held[children[i]])
				dropped++;
			else
				kept[nkept++] = children[i];
		}
		if (rc == 0 && dropped > 0)
			sb_ctx_warn(ctx, "note: %zu of the children chosen %s held back by the smoke test of "
				    "child %zu and never submitted: 'sbctl submit' of the spec submits them in "
				    "attempt 0 (with --smoke once child %zu succeeded), not a rerun", dropped,
				    dropped == 1 ? "is" : "are", smoke_child, smoke_child);
		children = kept;
		n = nkept;
	}
	if (rc < 0 || (rc = rerun_chunks(b, &subm, children, n, dry_run, time, nheld > 0, &chunks,
					 resumed, &record, &kept_time, err)) < 0)
		goto out;
	rc = -1;
	if (kept_time)
		sb_ctx_warn(ctx, "--time %s is not used now: attempt %" PRId64 " was resumed with its own "
			    "settings (some of its arrays were accepted); the next rerun uses it", time,
			    chunks.n ? chunks.v[0].attempt : 0);
	res->nchunks = chunks.n;
	if (chunks.n == 0 || dry_run) {
		/* nothing to rerun; or a dry run: the chunks and agent pass to
		 * res (sb_rerun gives it b) */
		if (dry_run && chunks.n > 0) {
			res->dry_chunks = chunks;
			res->dry_agent = agent;
			memset(&chunks, 0, sizeof(chunks));
			agent = NULL;
		}
		rc = 0;
		goto out;
	}
	res->resumable = true;
	if ((!record || record_settings(b, &chunks, err) == 0) && sb_jobs_write(b, &chunks, agent, err) == 0)
		/* on shared storage another node's rerun of the same attempt may
		 * have no record this node sees yet: its jobs are looked up */
		rc = submit_chunks(ctx, b, &chunks, 0, chunks.n, sb_fs_shared(b->dir, NULL), &lock, res, err);
	res->already_submitted = false;
out:
	sb_lock_release(&lock);
	sb_subm_release(&subm);
	sb_chunks_release(&chunks);
	free(agent);
	free(held);
	free(kept);
	return rc;
}

int sb_submit_cancel_jobs(struct sb_bench *b, struct sb_submit_result *res, struct sb_error *err)
{
	struct sb_subm subm = { 0 };
	struct sb_subm_writer *w = NULL;
	struct sb_proc_result r;
	struct sb_key key;
	char *ids = NULL, **argv = NULL;
	const char **picked = NULL;
	size_t i, k, nsub = 0, len = 0, npicked = 0;
	int rc = -1;

	if (result_header(res, b, err) < 0 || sb_bench_load_key(b, &key, err) < 0)
		return -1;
	if (sb_subm_read(b, &key, &subm, err) < 0)
		goto out;
	for (i = 0; i < subm.n; i++)
		nsub += subm.v[i].type == SB_SUBM_SUBMITTED;
	if (nsub == 0) {
		rc = 0;
		goto out;
	}
	ids = malloc(nsub * 24 + 1);
	picked = calloc(nsub, sizeof(*picked));
	res->jobs = calloc(nsub, sizeof(*res->jobs));
	if (ids == NULL || picked == NULL || res->jobs == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	ids[0] = '\0';
	for (i = 0; i < subm.n; i++)
		if (subm.v[i].type == SB_SUBM_SUBMITTED)
			len += (size_t)snprintf(ids + len, nsub * 24 + 1 - len, "%s%.20s", len ? "," : "",
						subm.v[i].job_id);
	{
		/* which arrays still have pending or running tasks */
		char **q = sb_slurm_squeue_arrays_argv(ids, err);
		int qrc = q ? sb_proc_run(q, 1 << 24, 60000, &r, err) : -1;
		sb_slurm_argv_free(q);
		if (qrc < 0)
			goto out;
		if (r.exit_code != 0) {
			sb_errorf(err, "squeue failed: %.200s", r.err_len ? r.err : "no message");
			sb_proc_result_release(&r);
			goto out;
		}
	}
	for (i = 0; i < subm.n; i++) {
		const struct sb_subm_entry *e = &subm.v[i];
		int active;
		if (e->type != SB_SUBM_SUBMITTED)
			continue;
		active = sb_slurm_lists_job(r.out ? r.out : "", e->job_id);
		for (k = 0; k < npicked; k++)
			if (!strcmp(picked[k], e->job_id))
				active = 0;
		if (active)
			picked[npicked++] = e->job_id;
	}
	sb_proc_result_release(&r);
	if (npicked == 0) {
		rc = 0;
		goto out;
	}
	if ((argv = sb_slurm_scancel_argv(picked, npicked, err)) == NULL ||
	    sb_proc_run(argv, 1 << 16, 60000, &r, err) < 0)
		goto out;
	if (r.exit_code != 0) {
		sb_errorf(err, "scancel failed: %.300s", r.err_len ? r.err : "no message");
		sb_proc_result_release(&r);
		goto out;
	}
	sb_proc_result_release(&r);
	/* record after scancel succeeded: a cancel record makes children that
	 * never started count as killed */
	w = sb_subm_writer_create(b, &key, err);
	if (w == NULL)
		goto out;
	for (i = 0; i < subm.n; i++) {
		const struct sb_subm_entry *e = &subm.v[i];
		struct sb_subm_entry c;
		int listed = 0;
		for (k = 0; k < npicked; k++)
			listed |= e->type == SB_SUBM_SUBMITTED && picked[k] == e->job_id;
		if (!listed)
			continue;
		memset(&c, 0, sizeof(c));
		c.type = SB_SUBM_CANCEL;
		c.attempt = e->attempt;
		c.chunk = e->chunk;
		c.child = c.end = -1;
		c.exit_code = c.signal = -1;
		c.job_id = e->job_id;
		c.job_name = e->job_name;
		if (sb_subm_append(w, &c, NULL, err) < 0)
			goto out;
		snprintf(res->jobs[res->njobs].job_id, sizeof(res->jobs[res->njobs].job_id), "%s",
			 e->job_id);
		res->jobs[res->njobs].attempt = e->attempt;
		res->jobs[res->njobs].chunk = e->chunk;
		res->njobs++;
	}
	rc = 0;
out:
	if (sb_subm_writer_close(w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	sb_subm_release(&subm);
	sb_key_cleanse(&key);
	free(ids);
	free(picked);
	sb_slurm_argv_free(argv);
	return rc;
}
