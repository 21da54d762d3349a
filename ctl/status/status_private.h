/* sbctl status (docs/classification.md, docs/sbctl-status.md): gather every
 * piece of evidence about a benchmark — its signed logs, sbctl's own
 * submission records, the scheduler's rows — classify every child, and
 * record the scheduler's final word for children that are over, signed.
 * What the folders above status/ use of it. */
#ifndef SB_CTL_STATUS_PRIVATE_H
#define SB_CTL_STATUS_PRIVATE_H

#include "status/status_stages.h"
#include "status/status_types.h"

/* Computes the status of the benchmark b, planned (sb_bench_plan), into st
 * (zeroed by the caller), which borrows b.  -1 with err when evidence cannot be gathered (the
 * scheduler does not answer: st->sched_failed and SB_ERR_SCHEDULER, use
 * offline; an unreadable benchmark directory; a submissions log that does
 * not verify); st can be released either way.
 *
 * The evidence is read in an order in which it can only grow in the safe
 * direction: the submission records (the job ids), then the scheduler
 * (squeue, then sacct), then the logs.  A job that ends between two reads
 * is seen running by the scheduler and finished by its log, never over by
 * the scheduler with a log that has not caught up.  Failing to record the
 * reconciled outcomes (a full disk) is not a failure: st->outcome_error
 * says why, and no partial file is left. */
int sb_status_gather(struct sb_bench *b, const struct sb_status_cfg *o,
		     struct sb_status *st, struct sb_error *err);

/* The storage lag of a status of the benchmark in dir (docs/shared-
 * storage.md): the context's, or by the directory's file system; into
 * st->storage_lag_s, fs_shared and fs_name. */
void sb_status_storage_lag(const struct sb_ctx *ctx, const char *dir, struct sb_status *st);
/* The same for a path (which may not exist yet): the lag, *shared and the
 * file system's *name (static). */
int64_t sb_status_lag_of(const struct sb_ctx *ctx, const char *dir, bool *shared, const char **name);

/* Finds the benchmark a BENCH argument names (sb_bench_find), plans it and
 * computes its status, which owns the benchmark.  -2 when BENCH names no
 * benchmark (a usage error), -1 on other failures; st can be released
 * either way. */
int sb_status_run(const char *bench, const struct sb_status_cfg *o, struct sb_status *st,
		  struct sb_error *err);

void sb_status_release(struct sb_status *st);

struct sb_json;
/* The "benchmark" object of the --json outputs: name, tag, digest, dir,
 * children. */
void sb_status_json_benchmark(struct sb_json *j, const struct sb_bench *b);

/* Opens the top-level object of status and analyze --json: "format": 1,
 * "benchmark", "scheduler". */
void sb_status_json_head(struct sb_json *j, const struct sb_status *st);

/* An object with the count of each of the 12 classes, in contract order. */
void sb_status_json_counts(struct sb_json *j, const size_t *counts);

struct sb_child;
/* Child c's "index", "digest", "params", "repeat", "class", "reason" (null
 * for a success without one) and "attempt" (null before any), as keys of
 * the object open in j; pc holds c's parameters (sb_plan_child_params). */
void sb_status_json_child(struct sb_json *j, const struct sb_status *st, size_t c,
			  const struct sb_child *pc);
/* A child's "restarts" and "total_run_s" when it has them (stage 4b). */
void sb_status_json_restarts(struct sb_json *j, const struct sb_status *st, size_t c);

/* Where a reused child's run is, {"dir", "index"}, or null (r NULL). */
void sb_status_json_reused(struct sb_json *j, const struct sb_child_reused *r);

/* "reused from grow 3f2a0c1d9e8b child 7" for a reused child (its source
 * directory's name is NAME-DIGEST12, docs/benchmark-dir.md), to out. */
struct sb_child_reused;
void sb_status_reused_text(FILE *out, const struct sb_child_reused *r);

/* One child as a summary gives it (sbctl verify's analysis again): its
 * class and reason, and of its latest run the resources and metrics. */
struct sb_metric;
struct sb_summary_child {
	enum sb_class cls;
	const char *reason;        /* copied */
	bool run;                  /* it has a latest run (the fields below) */
	bool has_usage;
	double wall_s, cpu_s;
	int64_t max_rss_kb;
	const struct sb_metric *metrics; /* copied */
	size_t nmetrics;
	uint32_t runs;             /* runs of its restart chain, 0 when none */
};

/* A status of b (borrowed: not destroyed with it) whose children are v[0..n):
 * enough for sb_analyze and its renderers, nothing read from disk.  NULL
 * with err when out of memory; free with sb_status_destroy. */
struct sb_status *sb_status_from_summary(struct sb_bench *b, const struct sb_summary_child *v,
					 size_t n, struct sb_error *err);

#endif
