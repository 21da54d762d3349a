/* sbctl submit (DESIGN §6, docs/benchmark-dir.md): plan, create the
 * benchmark directory, write the jobs, and submit each chunk exactly once. */
#ifndef SB_CTL_SUBMIT_H
#define SB_CTL_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sbench/error.h"

struct sb_submit_opts {
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
};

struct sb_submit_result {
	char *dir;
	char *name;
	char digest[65];
	bool already_submitted;
	struct sb_submit_job *jobs;
	size_t njobs;           /* chunks submitted (or found submitted) */
	size_t nchunks;         /* chunks of the attempt */
};

/* Submits; returns 0 when every chunk is submitted, -1 with err otherwise
 * (*partial set when some chunks are, so the caller can say the submit can
 * be resumed; res then describes what was done).  *usage_error is set for
 * problems of the input (bad spec, missing file). */
int sb_submit(const struct sb_submit_opts *o, struct sb_submit_result *res, int *usage_error,
	      struct sb_error *err);

void sb_submit_result_release(struct sb_submit_result *res);

/* sbctl rerun: submits a new attempt for children[0..n) of the planned
 * benchmark b — or, when the latest attempt was left half-submitted,
 * resumes it (*resumed set) instead of starting another.  With dry_run,
 * prints what would be submitted to out and changes nothing. */
int sb_rerun(struct sb_bench *b, const size_t *children, size_t n, bool dry_run, FILE *out,
	     struct sb_submit_result *res, bool *resumed, struct sb_error *err);

/* sbctl cancel: cancels (scancel) every job array of b that still has
 * pending or running tasks, then records a signed cancel record for each, so
 * that children cancelled while pending are classified killed.  *cancelled
 * gets the number of job arrays cancelled (0: nothing was active). */
int sb_cancel(struct sb_bench *b, size_t *cancelled, FILE *out, struct sb_error *err);

#endif
