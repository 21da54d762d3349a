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

#endif
