/* The public status API (include/sbench/status.h): a status computed on the
 * heap from the caller's options and context, its accessors, and the wait
 * loop of `sbctl wait`. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "status/status_private.h"
#include "sbench/status.h"

#define WAIT_INTERVAL_DEFAULT 30.0
#define SCHED_TIMEOUT_MAX_MS 120000

/* The internal configuration for opts (NULL: the defaults) and ctx. */
static void make_cfg(const struct sb_ctx *ctx, const struct sb_status_opts *opts,
		     struct sb_status_cfg *cfg)
{
	static const struct sb_status_opts defaults;
	double settle;

	if (opts == NULL)
		opts = &defaults;
	settle = opts->settle > 0 ? opts->settle : ctx ? sb_ctx_settle(ctx) : SB_CTX_SETTLE_DEFAULT;
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->offline = opts->offline;
	/* whole seconds, never less than asked */
	cfg->settle_s = isfinite(settle) && settle < 1e15 ? (int64_t)ceil(settle) : INT64_MAX / 2;
	cfg->rehash = opts->rehash;
	cfg->record_outcomes = !opts->no_outcomes;
	if (opts->sched_timeout > 0)
		cfg->sched_timeout_ms = opts->sched_timeout * 1000 >= INT_MAX ? INT_MAX
					: (int)ceil(opts->sched_timeout * 1000);
}

static int check_opts(const struct sb_status_opts *opts, struct sb_error *err)
{
	if (opts == NULL)
		return 0;
	if (!(opts->settle >= 0) || !(opts->sched_timeout >= 0) || !(opts->timeout >= 0) ||
	    !(opts->interval >= 0) || isinf(opts->settle) || isinf(opts->sched_timeout) ||
	    isinf(opts->timeout) || isinf(opts->interval))
		return sb_error_set(err, SB_ERR_INPUT, "status options: settle, sched_timeout, "
				    "timeout and interval must be finite numbers of seconds >= 0");
	return 0;
}

int sb_status_compute(const struct sb_ctx *ctx, struct sb_bench *bench,
		      const struct sb_status_opts *opts, struct sb_status **out,
		      struct sb_error *err)
{
	struct sb_status_cfg cfg;
	struct sb_status *st;

	*out = NULL;
	if (bench == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no benchmark given");
	if (check_opts(opts, err) < 0)
		return -1;
	if (sb_bench_plan(bench, err) < 0)
		return -1;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	make_cfg(ctx, opts, &cfg);
	if (sb_status_gather(bench, &cfg, st, err) < 0) {
		sb_status_destroy(st);
		return -1;
	}
	*out = st;
	return 0;
}

void sb_status_destroy(struct sb_status *st)
{
	sb_status_release(st);
	free(st);
}

/* ---- wait ------------------------------------------------------------------ */

static double elapsed_s(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The seconds until the next poll: the interval, or what is left of the
 * timeout when that is less; -1 when the timeout has passed. */
static double pause_s(double timeout, double interval, const struct timespec *t0)
{
	double left = timeout - elapsed_s(t0);

	if (timeout <= 0)
		return interval;
	if (left <= 0)
		return -1;
	return left < interval ? left : interval;
}

/* Sleeps s seconds in steps of at most STOP_STEP_S, asking the context's
 * stop callback before each: -1 when it asks to stop. */
#define STOP_STEP_S 0.25
static int sleep_or_stop(const struct sb_ctx *ctx, double s)
{
	while (s > 0) {
		double step = s < STOP_STEP_S ? s : STOP_STEP_S;
		if (sb_ctx_should_stop(ctx))
			return -1;
		sb_sleep_s(step);
		s -= step;
	}
	return sb_ctx_should_stop(ctx) ? -1 : 0;
}

/* BENCH is a directory whose benchmark record a running submit is still
 * writing (it holds the directory's lock). */
static bool is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Seconds after a submit was last seen creating the benchmark during which
 * a directory still without its record is taken as still being created:
 * its lock passes between two holders (the submit that made the directory,
 * and one that waited for it, which may be slow to start on a loaded
 * machine), and a poll may fall between them. */
#define CREATING_GRACE_S 10.0

static bool being_created(const char *bench)
{
	struct stat sb;

	return stat(bench, &sb) == 0 && S_ISDIR(sb.st_mode) && sb_status_submit_running(bench) == 1;
}

/* How long (seconds since the wait began) a BENCH that names no benchmark
 * is waited for: a path on a shared file system may have been made on
 * another node, and this client may cache that it did not exist (a
 * negative entry) for the storage lag; 0 for anything else. */
static double unseen_until(const struct sb_ctx *ctx, const char *bench, const struct sb_status_cfg *cfg)
{
	const char *name;
	bool shared;
	int64_t lag;

	if (strchr(bench, '/') == NULL)
		return 0; /* a name of the local index, not a path */
	lag = sb_status_lag_of(ctx, bench, &shared, &name);
	return lag > 0 ? (double)(cfg->settle_s + lag) : 0;
}

int sb_status_wait(const struct sb_ctx *ctx, const char *bench_arg,
		   const struct sb_status_opts *opts, struct sb_status **out,
		   struct sb_error *err)
{
	static const struct sb_status_opts defaults;
	double interval;
	struct sb_status_cfg cfg;
	struct timespec t0;
	size_t shown = 0;
	char *kept = NULL; /* the directory the name named when first found */
	double creating_until = -1; /* elapsed seconds: see CREATING_GRACE_S */
	int rc = -1;

	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (bench_arg == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no benchmark given");
	if (check_opts(opts, err) < 0)
		return -1;
	interval = opts->interval > 0 ? opts->interval : WAIT_INTERVAL_DEFAULT;
	make_cfg(ctx, opts, &cfg);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct sb_status *st = calloc(1, sizeof(*st));
		struct sb_error e = { 0 };
		double pause;
		int r;

		if (st == NULL) {
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		if (opts->timeout > 0) { /* a hung sacct does not outlast the timeout */
			double left_ms = (opts->timeout - elapsed_s(&t0)) * 1000;
			cfg.sched_timeout_ms = left_ms > SCHED_TIMEOUT_MAX_MS ? SCHED_TIMEOUT_MAX_MS
					       : left_ms < 1000 ? 1000 : (int)left_ms;
		}
		r = sb_status_run(kept ? kept : bench_arg, &cfg, st, &e);
		if (kept == NULL && st->bench != NULL) {
			/* the name is resolved once: a benchmark submitted under the
			 * same name during the wait does not take its place (a name
			 * several benchmarks have is said then, by the lookup; the
			 * summary at the end names the one waited for) */
			if ((kept = strdup(st->bench->dir)) == NULL) {
				sb_status_destroy(st);
				sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				break;
			}
		}
		if (r == -2 && being_created(bench_arg))
			creating_until = elapsed_s(&t0) + CREATING_GRACE_S;
		else if (r != -2 || !is_dir(bench_arg))
			creating_until = -1;
		/* (else the lock between two holders: the one that waited takes it) */
		if (r < 0 && (st->sched_failed || (r == -2 && elapsed_s(&t0) < creating_until) ||
			      (r == -2 && unseen_until(ctx, bench_arg, &cfg) > elapsed_s(&t0)))) {
			/* slurmdbd down, sacct timed out, a submit still creating the
			 * benchmark, a directory another node made that this one
			 * does not show yet: none of them is a verdict, keep waiting */
			double in = pause_s(opts->timeout, interval, &t0);

			if (in < 0)
				in = 0;
			sb_ctx_warn(ctx, "%s; retrying in %.*f s", st->sched_failed ? e.msg :
				    elapsed_s(&t0) < creating_until ?
				    "the benchmark directory is being created by a submit" : e.msg,
				    in < 10 ? 1 : 0, in);
			sb_status_destroy(st);
		} else if (r < 0) {
			if (err)
				*err = e;
			sb_status_destroy(st);
			break;
		} else if (!sb_status_unsettled(st)) {
			/* no verdict the settle time could still change: those are
			 * pending or running until they are settled */
			*out = st;
			rc = 0;
			break;
		} else {
			size_t n = st->n, busy = st->counts[SB_CLASS_PENDING] + st->counts[SB_CLASS_RUNNING];
			char what[128];

			snprintf(what, sizeof(what), "waiting: %zu pending, %zu running (%.0f s)",
				 st->counts[SB_CLASS_PENDING], st->counts[SB_CLASS_RUNNING],
				 elapsed_s(&t0));
			sb_ctx_progress(ctx, what, n - busy, n);
			shown = n ? n : 1;
			sb_status_destroy(st);
		}
		if ((pause = pause_s(opts->timeout, interval, &t0)) < 0) {
			sb_error_set(err, SB_ERR_TIMEOUT, "timed out after %.0f s with children still "
				     "pending or running, or no answer from the scheduler", opts->timeout);
			break;
		}
		if (sleep_or_stop(ctx, pause) < 0) {
			sb_error_set(err, SB_ERR_INTERRUPTED, "interrupted while waiting, after %.0f s",
				     elapsed_s(&t0));
			break;
		}
	}
	if (shown)
		sb_ctx_progress(ctx, "waiting", shown, shown);
	free(kept);
	return rc;
}

/* ---- accessors ------------------------------------------------------------- */

const struct sb_bench *sb_status_bench(const struct sb_status *st)
{
	return st->bench;
}

bool sb_status_consulted(const struct sb_status *st)
{
	return st->consulted;
}

size_t sb_status_children(const struct sb_status *st)
{
	return st->n;
}

size_t sb_status_count(const struct sb_status *st, enum sb_class c)
{
	return (unsigned)c < SB_CLASS_COUNT ? st->counts[c] : 0;
}

bool sb_status_all_succeeded(const struct sb_status *st)
{
	return st->counts[SB_CLASS_SUCCEEDED] == st->n;
}

bool sb_status_unsettled(const struct sb_status *st)
{
	return st->counts[SB_CLASS_PENDING] + st->counts[SB_CLASS_RUNNING] > 0;
}

size_t sb_status_outcomes_recorded(const struct sb_status *st)
{
	return st->outcomes_recorded;
}

enum sb_class sb_status_child_class(const struct sb_status *st, size_t i)
{
	return i < st->n ? st->children[i].cls : SB_CLASS_COUNT;
}

const char *sb_status_child_reason(const struct sb_status *st, size_t i)
{
	const char *r = i < st->n ? st->children[i].reason : NULL;

	return r && r[0] ? r : NULL;
}

const char *sb_status_child_job_id(const struct sb_status *st, size_t i)
{
	const struct sb_attempt_status *a = i < st->n ? st->children[i].latest : NULL;

	return a && a->job_id ? a->job_id : NULL;
}

int64_t sb_status_child_attempt(const struct sb_status *st, size_t i)
{
	const struct sb_attempt_status *a = i < st->n ? st->children[i].latest : NULL;

	return a ? a->attempt : -1;
}

size_t sb_status_warning_count(const struct sb_status *st)
{
	return st->nwarnings;
}

const char *sb_status_warning(const struct sb_status *st, size_t i)
{
	return i < st->nwarnings ? st->warnings[i] : NULL;
}
