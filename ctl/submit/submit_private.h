/* sbctl submit (docs/sbctl-submit.md, docs/benchmark-dir.md): plan, create the
 * benchmark directory, write the jobs, and submit each chunk exactly once. */
#ifndef SB_CTL_SUBMIT_H
#define SB_CTL_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/jobs.h"
#include "bench/subm.h"
#include "submit/submit_result.h"
#include "sbench/error.h"
#include "sbench/submit.h"

/* How long an sbatch may still run after sbctl was interrupted. */
#define SB_SUBMIT_INTERRUPT_WAIT_MS 30000

/* The children of attempt 0 of b: every child without a reuse record, in
 * order, into *children (malloc'd; its old value freed) and *n; *reused
 * (may be NULL) the number reused. */
int sb_submit_attempt0_children(const struct sb_bench *b, size_t **children, size_t *n,
				size_t *reused, struct sb_error *err);

/* The rerun proper (sb_rerun has chosen the children): submits a new
 * attempt for children[0..n) of the planned benchmark b — or, when the
 * latest attempt was left half-submitted, resumes it (res->resumed)
 * instead of starting another.  With dry_run, keeps what would be
 * submitted in res and changes nothing. */
int sb_submit_rerun_children(const struct sb_ctx *ctx, struct sb_bench *b, const size_t *children,
			     size_t n, const struct sb_rerun_opts *opts,
			     struct sb_submit_result *res, struct sb_error *err);

/* sb_submit with a lane (sb_lane_submit, docs/lane.md): a new benchmark
 * gets lane (or none, NULL) in its record and job names. */
int sb_submit_lane(const struct sb_ctx *ctx, const char *spec_path,
		   const struct sb_submit_opts *opts, const char *lane,
		   struct sb_submit_result **res, struct sb_error *err);

/* The cancel proper (sb_cancel has opened the benchmark): cancels
 * (scancel) every job array of b that still has pending or running tasks,
 * then records a signed cancel record for each, each in res->jobs. */
int sb_submit_cancel_jobs(struct sb_bench *b, struct sb_submit_result *res, struct sb_error *err);

struct sb_status;
/* The chosen children of a rerun whose latest job the scheduler still has
 * pending or running (submit/live.c): -1 with SB_ERR_INPUT naming the first
 * unless cancel; with it, their jobs are cancelled and waited for (not in
 * a dry run).  0 when the rerun may go on. */
int sb_rerun_guard(const struct sb_ctx *ctx, const struct sb_status *st, const size_t *children,
		   size_t n, bool cancel, bool dry_run, struct sb_error *err);

#endif
