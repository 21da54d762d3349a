/* sbctl submit (docs/sbctl-submit.md, docs/benchmark-dir.md): plan, create the
 * benchmark directory, write the jobs, and submit each chunk exactly once. */
#ifndef SB_CTL_SUBMIT_H
#define SB_CTL_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ctl/jobs.h"
#include "ctl/subm.h"
#include "sbench/error.h"
#include "sbench/submit.h"

/* How long an sbatch may still run after sbctl was interrupted. */
#define SB_SUBMIT_INTERRUPT_WAIT_MS 30000

struct sb_submit_job {
	char job_id[64];        /* as sbatch printed it (the array's job id) */
	char array[64];         /* "" for a cancel */
	int64_t attempt, chunk;
	size_t *children;       /* NULL for a cancel */
	size_t n;
	bool recovered;         /* found by name after an unknown outcome */
	bool submitted_now;     /* by this call's sbatch (else found submitted before) */
};

enum sb_submit_kind { SB_SUBMIT_KIND_SUBMIT, SB_SUBMIT_KIND_RERUN, SB_SUBMIT_KIND_CANCEL };

/* The result of sb_submit, sb_rerun and sb_cancel (include/sbench/submit.h). */
struct sb_submit_result {
	enum sb_submit_kind kind;
	char *dir;
	char *name;
	char digest[65];
	bool already_submitted;
	struct sb_submit_job *jobs;
	size_t njobs;           /* chunks submitted (or found submitted); arrays cancelled */
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
	bool resumed;           /* rerun: the latest attempt was resumed */
	char *classes;          /* rerun: the classes asked for, "failed,killed" */
	struct sb_setting_diffs diffs; /* submit: what the spec changed outside the identity */
	size_t reused;          /* submit: children reused from earlier benchmarks */
	bool settings_taken;    /* submit: the benchmark took the spec's new sbatch
				 * settings (none of its arrays was accepted) */
	struct sb_subm_dup *dups; /* chunks submitted more than once (sb_subm_duplicates) */
	size_t ndups;
	/* a dry run: what would be submitted (rendered by sb_submit_render) */
	bool dry_run;
	struct sb_bench *dry_bench; /* planned; owned */
	struct sb_chunks dry_chunks;
	char *dry_agent;
};

/* The absolute directory of the spec file at spec_path (malloc'd), or
 * NULL when it cannot be resolved. */
char *sb_spec_dir_of(const char *spec_path);

/* The children of attempt 0 of b: every child without a reuse record, in
 * order, into *children (malloc'd; its old value freed) and *n; *reused
 * (may be NULL) the number reused. */
int sb_submit_attempt0_children(const struct sb_bench *b, size_t **children, size_t *n,
				size_t *reused, struct sb_error *err);

/* Frees what res holds (not res itself). */
void sb_submit_result_release(struct sb_submit_result *res);

/* The text of a dry run (`sbctl submit --dry-run`): the attempt, then each
 * chunk's sbatch command line, batch script and task map. */
void sb_submit_print_dry_run(FILE *out, const struct sb_bench *b, const struct sb_chunks *chunks,
			     const char *agent);

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

#endif
