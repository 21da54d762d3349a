/* `sbctl submit --check` (docs/lane.md): after a submit, watch the
 * benchmark for a while through the status library, returning early once
 * every child of the first job array has ended, then a health report: the
 * counts so far, why children still wait, and every early failure with the
 * tail of its Slurm stderr. */
#ifndef SB_CTL_CHECK_H
#define SB_CTL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sbench/bench.h"
#include "sbench/context.h"
#include "sbench/status.h"

#define SB_CHECK_DEFAULT_SECONDS 60
#define SB_CHECK_TAIL_LINES 10

struct sb_check_failure {
	size_t index;
	enum sb_class cls;
	char *reason;
	char *stderr_tail;            /* the last lines of its Slurm stderr, or NULL */
};

struct sb_check_pending {
	char *reason;                 /* squeue's reason ("Resources", "Priority"), or "" */
	size_t children;
};

struct sb_check {
	double seconds;               /* how long it was asked to watch */
	double waited_s;              /* how long it watched */
	bool ended_early;             /* every child of the first array ended */
	bool healthy;                 /* no early failure (sb_check_is_failure) */
	size_t counts[SB_CLASS_COUNT];
	struct sb_check_failure *failures;
	size_t nfailures;
	struct sb_check_pending *pending;
	size_t npending;
	char **warnings;              /* the status's warnings (an early-stop rule
	                                 whose metric never appeared...) */
	size_t nwarnings;
};

/* How to watch: for seconds at most, polling every interval seconds (0: a
 * tenth of seconds, from 1 to 10; below 0: 1 s first, then half as long
 * again each time, up to 10 s).  The status it computes opens the
 * benchmark's lock file: a caller must not hold the benchmark's lock
 * (closing the file would drop it). */
struct sb_check_opts {
	double seconds;
	double interval;
};

/* Polls the status of b (sb_status_compute, with the scheduler) until
 * every child in first[0..nfirst) has ended (none pending, running or
 * stale: *ended) or w->seconds have passed; the sleeps between two polls
 * ask the context's stop callback every 0.25 s.  A scheduler that does
 * not answer is asked again at the next poll.  On 0, *out is the last
 * status computed (it borrows b; free it with sb_status_destroy) and
 * *waited_s how long it took.  -1 with err when no status could be
 * computed at all (the last error), SB_ERR_INTERRUPTED when the stop
 * callback asked to stop. */
int sb_check_watch(const struct sb_ctx *ctx, struct sb_bench *b, const size_t *first, size_t nfirst,
		   const struct sb_check_opts *w, struct sb_status **out, double *waited_s,
		   bool *ended, struct sb_error *err);

/* Watches the benchmark in dir for seconds (polling its status every
 * interval seconds; 0: a tenth of seconds, from 1 to 10), returning early
 * once every child in first[0..nfirst) has ended (none pending, running or
 * stale), then fills out.  A scheduler that does not answer is asked again
 * at the next poll; -1 with err when no status could be computed at all,
 * or out of memory. */
int sb_check_run(const struct sb_ctx *ctx, const char *dir, const size_t *first, size_t nfirst,
		 double seconds, double interval, struct sb_check *out, struct sb_error *err);

/* Whether a class is an early failure of the check: failed, killed,
 * incomplete, invalid, inconsistent, partial (exit 0, but a declared
 * result or the metrics file missing). */
bool sb_check_is_failure(enum sb_class c);

struct sb_json;
/* The "check" object: healthy, seconds, waited_s, ended_early, counts,
 * pending [{reason, children}], failures [{index, class, reason,
 * stderr_tail}]. */
void sb_check_json(struct sb_json *j, const struct sb_check *c);

/* The health report for people. */
void sb_check_text(FILE *out, const struct sb_check *c);

void sb_check_release(struct sb_check *c);

#endif
