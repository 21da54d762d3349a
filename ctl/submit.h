/* sbctl submit (docs/sbctl-submit.md, docs/benchmark-dir.md): plan, create the
 * benchmark directory, write the jobs, and submit each chunk exactly once. */
#ifndef SB_CTL_SUBMIT_H
#define SB_CTL_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ctl/subm.h"
#include "sbench/error.h"

/* How long a resume looks for the job of an sbatch whose outcome is
 * unknown before it submits again (SB_LOOKUP_WINDOW overrides it). */
#define SB_LOOKUP_WINDOW_DEFAULT_S 5
/* How long an sbatch may still run after sbctl was interrupted. */
#define SB_SUBMIT_INTERRUPT_WAIT_MS 30000

struct sb_ctx;
struct sb_submit_opts {
	const struct sb_ctx *ctx; /* the local index (NULL: none) */
	const char *spec_path;
	const char *root;       /* NULL: $SB_ROOT, else ./sbench-runs */
	bool dry_run;           /* print what would be done to `out`, change nothing */
	FILE *out;              /* for --dry-run */
	FILE *warn;             /* warnings (stderr) */
};

struct sb_submit_job {
	char job_id[64];        /* as sbatch printed it (the array's job id) */
	char array[64];
	size_t *children;
	size_t n;
	bool recovered;         /* found by name after an unknown outcome */
	bool submitted_now;     /* by this call's sbatch (else found submitted before) */
};

struct sb_submit_result {
	char *dir;
	char *name;
	char digest[65];
	bool already_submitted;
	struct sb_submit_job *jobs;
	size_t njobs;           /* chunks submitted (or found submitted) */
	size_t nchunks;         /* chunks of the attempt */
	int interrupted;        /* SIGINT, SIGTERM or SIGHUP arrived: the submit
				 * stopped after recording the outcome of the
				 * sbatch that ran (0: none) */
	bool waited;            /* another sbctl held the benchmark's lock */
	bool resumable;         /* on failure: it happened while the attempt's jobs
				 * were written or its chunks submitted, so the
				 * same command run again continues (a half-written
				 * jobs directory is cleaned up, the exactly-once
				 * records resume the submission) */
	struct sb_subm_dup *dups; /* chunks submitted more than once (sb_subm_duplicates) */
	size_t ndups;
};

/* Submits; returns 0 when every chunk is submitted, -1 with err otherwise
 * (res then describes what was done: njobs < nchunks, so the caller can
 * say the submit can be resumed).  *usage_error is set for problems of the
 * input (bad spec, missing file).
 *
 * Exactly once: each sbatch runs between a signed intent and its recorded
 * outcome, with SIGINT, SIGTERM and SIGHUP deferred: one arriving lets the
 * running sbatch end (at most SB_SUBMIT_INTERRUPT_WAIT_MS; a second signal
 * kills it), records its outcome and stops before the next chunk
 * (res->interrupted, -1).  sbatch dies with sbctl (SIGKILL included).  An
 * intent without outcome is resolved by looking the job up by name
 * (squeue and sacct) for SB_LOOKUP_WINDOW seconds before submitting again;
 * when neither answers nothing is submitted.  Concurrent submits of one
 * benchmark are serialised by its lock. */
int sb_submit(const struct sb_submit_opts *o, struct sb_submit_result *res, int *usage_error,
	      struct sb_error *err);

void sb_submit_result_release(struct sb_submit_result *res);

/* sbctl rerun: submits a new attempt for children[0..n) of the planned
 * benchmark b — or, when the latest attempt was left half-submitted,
 * resumes it (*resumed set) instead of starting another.  A latest attempt
 * whose jobs directory was left without task maps (by an older sbctl that
 * failed while writing them) and that nothing was recorded for is
 * prepared again.  With dry_run, prints what would be submitted to out
 * and changes nothing. */
int sb_rerun(struct sb_bench *b, const size_t *children, size_t n, bool dry_run, FILE *out,
	     struct sb_submit_result *res, bool *resumed, struct sb_error *err);

/* sbctl cancel: cancels (scancel) every job array of b that still has
 * pending or running tasks, then records a signed cancel record for each, so
 * that children cancelled while pending are classified killed.  *cancelled
 * gets the number of job arrays cancelled (0: nothing was active). */
int sb_cancel(struct sb_bench *b, size_t *cancelled, FILE *out, struct sb_error *err);

#endif
