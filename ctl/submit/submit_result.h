/* The result of a submit, a rerun and a cancel: what was submitted (or
 * found submitted, or cancelled), and what a dry run would submit.  Its
 * lifetime and the public accessors (include/sbench/submit.h) are
 * submit/submit_result.c's. */
#ifndef SB_CTL_SUBMIT_RESULT_H
#define SB_CTL_SUBMIT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/jobs.h"
#include "bench/subm.h"
#include "plan/settings.h"
#include "sbench/submit.h"

struct sb_submit_job {
	char job_id[64];        /* as sbatch printed it (the array's job id) */
	char array[64];         /* "" for a cancel */
	int64_t attempt, chunk;
	size_t *children;       /* NULL for a cancel */
	size_t n;
	bool recovered;         /* found by name after an unknown outcome */
	bool submitted_now;     /* by this call's sbatch (else found submitted before) */
};

/* A submit's smoke test (sbench/submit.h, sb_submit_result_smoke). */
struct sb_submit_smoke_state {
	enum sb_submit_smoke outcome;
	bool layout;            /* attempt 0's chunk 0 holds the smoke child alone */
	int64_t child;          /* -1: none */
	const char *cls;        /* its class's name when last seen (static), or NULL */
	char *reason;           /* its reason; why it was skipped */
	char *stderr_tail;
	double seconds;         /* how long it was to be waited for */
	double waited_s;
	size_t held;            /* children not submitted because of it */
	char *spec;             /* the spec path, for what to run next */
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
	struct sb_submit_smoke_state smoke; /* submit: the smoke test */
	struct sb_subm_dup *dups; /* chunks submitted more than once (sb_subm_duplicates) */
	size_t ndups;
	/* a dry run: what would be submitted (rendered by sb_submit_render) */
	bool dry_run;
	struct sb_bench *dry_bench; /* planned; owned */
	struct sb_chunks dry_chunks;
	char *dry_agent;
};

/* Frees what res holds (not res itself). */
void sb_submit_result_release(struct sb_submit_result *res);

#endif
