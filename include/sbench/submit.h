/* sbench — submitting a benchmark, rerunning some of its children,
 * cancelling its jobs: what `sbctl submit`, `sbctl rerun` and `sbctl
 * cancel` do, as library operations (docs/sbctl-submit.md,
 * docs/sbctl-rerun.md, docs/benchmark-dir.md).
 *
 * Each operation returns an opaque struct sb_submit_result that tells what
 * was done (the benchmark, the job arrays, whether the submit was
 * interrupted, the chunks submitted more than once...) and renders as
 * sbctl prints it, byte for byte: the text, or the JSON document of
 * --json, to a stream or into a buffer.
 *
 * Everything an operation would take from the environment comes from the
 * context (<sbench/context.h>; ctx must not be NULL): the root new benchmark directories go under
 * (sb_ctx_root), the sbagent the batch scripts run (sb_ctx_agent, which
 * must be set), the local index (sb_ctx_index), how long an sbatch of
 * unknown outcome is looked for (sb_ctx_lookup_window).  Warnings (a spec
 * in a repository with uncommitted changes, an unreadable MaxArraySize,
 * another sbctl holding the benchmark's lock, an index that cannot be
 * updated) go to the context's warning callback, one line each, without a
 * program name in front (sbctl prints "sbctl: " before them).  The
 * operations run the Slurm commands sbatch, squeue, sacct, scontrol and
 * scancel found on PATH.
 *
 * Exactly once: each sbatch runs between a signed intent and its recorded
 * outcome, with SIGINT, SIGTERM and SIGHUP deferred while it runs: one that
 * arrives lets the running sbatch end, records its outcome and stops before
 * the next chunk (sb_submit_result_interrupted, and -1).  A later submit of
 * the same spec (or rerun) resumes: an sbatch whose outcome is unknown is
 * first looked up by its job name.  Concurrent submits of one benchmark are
 * serialised by its lock.
 *
 * Thread safety: the operations change the process's signal mask while an
 * sbatch runs; call them from one thread at a time.  A result may be read
 * and rendered from any thread, by one thread at a time. */
#ifndef SBENCH_SUBMIT_H
#define SBENCH_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/format.h"
#include "sbench/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_submit_result;

/* The options of sb_submit.  Zero-initialise it (= { 0 }): all zeros are
 * the defaults, also for fields a later version adds. */
struct sb_submit_opts {
	/* Plan, lay out the job arrays and write their batch scripts into the
	 * result only: nothing is created, nothing submitted (the text
	 * rendering is that of `sbctl submit --dry-run`). */
	bool dry_run;
	/* Submit every child, reusing none (docs/sbctl-submit.md "Reuse"). */
	bool no_reuse;
	/* Reuse from the benchmark this names (a path, name or digest prefix,
	 * as sb_bench_find) instead of the earlier benchmarks of the same name
	 * and tag; NULL: those. */
	const char *reuse_from;
	/* A smoke test (docs/sbctl-submit.md, "SMOKE TEST"): attempt 0's first
	 * job array holds the first child to submit alone (child 0, unless it
	 * is reused); it is submitted, waited for (at most smoke_seconds; 0:
	 * SB_SUBMIT_SMOKE_DEFAULT_S), and the other children are submitted
	 * only when it succeeded (sb_submit_result_smoke).  The benchmark's
	 * lock is not held while it waits (another submit of the spec may
	 * submit the rest meanwhile: the records, read again, say so). */
	bool smoke;
	double smoke_seconds;
};

/* How long a smoke test waits for its child by default, in seconds. */
#define SB_SUBMIT_SMOKE_DEFAULT_S 600.0

/* The options of sb_rerun; zero-initialise it too. */
struct sb_rerun_opts {
	bool dry_run;   /* as for sb_submit: what would be submitted, nothing done */
	/* The time limit of the new attempt (sbatch --time: "60", "2:00:00",
	 * "1-00:00:00"), NULL: the benchmark's.  It is recorded in the
	 * attempt's settings record (docs/benchmark-dir.md "Attempt
	 * settings"); later attempts go back to the benchmark's.  Slurm checks
	 * its syntax (sbatch refuses a bad one: run the rerun again with
	 * another). */
	const char *time;
	/* A chosen child whose latest job the scheduler still has (pending or
	 * running) makes the rerun fail (SB_ERR_INPUT, nothing submitted),
	 * whatever its class; with cancel_running its job is cancelled
	 * (scancel) and waited for (KillWait + 60 s at most) first. */
	bool cancel_running;
};

/* Plans the spec at spec_path, creates its benchmark directory under
 * sb_ctx_root(ctx) (or finds it there: the same spec again is
 * already_submitted and submits nothing), writes the jobs and submits each
 * chunk as a job array, exactly once.  opts may be NULL (the defaults).
 *
 * On 0, *res is the result (free it with sb_submit_result_destroy).  On -1,
 * err says why, and *res is a result describing what was done when the
 * benchmark directory was reached (how many job arrays are submitted, so
 * that a caller can say that running it again continues), else NULL.
 * err->code:
 *   SB_ERR_NOT_FOUND  the spec file does not exist
 *   SB_ERR_INPUT      the spec cannot be read or is bad; the benchmark
 *                     directory is refused (owned by someone else, writable
 *                     by others)
 *   SB_ERR_RUNTIME    sbatch refused a chunk, was interrupted or its
 *                     outcome is unknown and neither squeue nor sacct
 *                     answered; the directory cannot be written; the
 *                     context names no sbagent
 *   SB_ERR_NOMEM      out of memory */
int sb_submit(const struct sb_ctx *ctx, const char *spec_path, const struct sb_submit_opts *opts,
	      struct sb_submit_result **res, struct sb_error *err);

/* Why the spec planned in plan, loaded from spec_path, cannot work as
 * written: its command names a file next to the spec by a relative path
 * (the program, `./run.sh`, or an interpreter's script, `python3
 * train.py`), but each child's command runs in its own run directory,
 * where there is no such file.  A malloc'd message (free it with
 * sb_free) naming the file and saying what to write instead
 * ("{spec_dir}/train.py"), or NULL when there is nothing to say.
 * sb_submit refuses such a spec (SB_ERR_INPUT, this message); `sbctl
 * plan` prints it as a warning.  docs/spec.md, "Where the command runs". */
char *sb_submit_cwd_problem(const struct sb_plan *plan, const char *spec_path);

/* The checks sb_submit makes of the spec planned in plan before anything
 * is created or submitted (docs/sbctl-submit.md, "CHECKS BEFORE
 * SUBMITTING"), `sbctl submit --dry-run` included (not `sbctl plan`,
 * whose output depends on the spec alone, not on this node).  For a
 * command given as a list (a shell string cannot be analysed: nothing is
 * checked):
 *   - the program (element 0): one under {spec_dir} must be an executable
 *     file; an absolute one that this node does not have is a warning; a
 *     relative path (run in the child's empty run directory) is refused; a
 *     bare name is looked for on sb_ctx_path(ctx) (the PATH the jobs get),
 *     or on the PATH the spec's env sets.  Not found: refused when a
 *     program of that PATH is a near miss (did you mean), or when the jobs
 *     get that very PATH (no PATH in the spec's env, no --export in
 *     slurm.extra); a warning otherwise.  With no PATH in the context a
 *     bare name is not looked for.
 *   - every other element that starts with "{spec_dir}/" names a file or
 *     directory that exists, for every distinct value over the children
 *     when the element has parameters; a missing one is refused, with the
 *     closest name of its directory (did you mean).  The argument after
 *     -c or -e (shell strings, python3 -c code) is never checked.
 * The spec needs its directory (loaded from a file: sb_spec_load) for the
 * {spec_dir} checks.  Warnings go to the context's warning callback, one
 * line each ("warning: SPEC:LINE:COL: ...").  0 when nothing refuses the
 * spec; -1 with err: SB_ERR_INPUT and every refusal, one a line
 * ("SPEC:LINE:COL: ..."), SB_ERR_NOMEM. */
int sb_submit_check_command(const struct sb_ctx *ctx, const struct sb_plan *plan,
			    struct sb_error *err);

/* Submits a new attempt for the children of the benchmark that bench names
 * (a path, a name or a digest prefix, as sb_bench_find) whose class is one
 * of classes: a comma-separated list of class names ("failed,killed"; any
 * of failed, killed, stopped, incomplete, stale, missing, partial,
 * inconsistent, invalid).  The classes are those of a status computed with the
 * scheduler's answers and sb_ctx_settle(ctx) (which records reconciled
 * outcomes, as `sbctl status` does).  When the latest attempt was left
 * half-submitted, it is resumed instead (sb_submit_result_resumed) and the
 * children chosen now wait for the next rerun.  No child in those classes
 * is a success with no job (sb_submit_result_job_count 0).  Earlier
 * attempts stay in the record.  opts may be NULL.
 *
 * *res and err as for sb_submit; err->code SB_ERR_INPUT also for a class
 * list that names no class, or a class that cannot be rerun (succeeded,
 * running, pending), and for a benchmark directory that is refused;
 * SB_ERR_NOT_FOUND when bench names no benchmark. */
int sb_rerun(const struct sb_ctx *ctx, const char *bench, const char *classes,
	     const struct sb_rerun_opts *opts, struct sb_submit_result **res,
	     struct sb_error *err);

/* Cancels (scancel) every job array of the benchmark bench names that still
 * has pending or running tasks, then records a signed cancel record for
 * each, so that children cancelled while pending are classified killed.
 * The cancelled arrays are the result's jobs (sb_submit_result_job_count 0:
 * nothing was active).  *res and err as for sb_submit (SB_ERR_RUNTIME when
 * squeue or scancel fails). */
int sb_cancel(const struct sb_ctx *ctx, const char *bench, struct sb_submit_result **res,
	      struct sb_error *err);

/* Frees a result; accepts NULL. */
void sb_submit_result_destroy(struct sb_submit_result *res);

/* ---- what a result says --------------------------------------------- */

/* The benchmark: borrowed strings that live as long as res.  dir is
 * absolute; digest is 64 lowercase hex digits. */
const char *sb_submit_result_name(const struct sb_submit_result *res);
const char *sb_submit_result_digest(const struct sb_submit_result *res);
const char *sb_submit_result_dir(const struct sb_submit_result *res);

/* A dry run: nothing was done (no job). */
bool sb_submit_result_dry_run(const struct sb_submit_result *res);
/* sb_submit: every chunk was found submitted before; nothing submitted. */
bool sb_submit_result_already_submitted(const struct sb_submit_result *res);
/* Another sbctl (or program) held the benchmark's lock, and this call
 * waited for it. */
bool sb_submit_result_waited(const struct sb_submit_result *res);
/* sb_rerun: the latest attempt was resumed instead of a new one. */
bool sb_submit_result_resumed(const struct sb_submit_result *res);
/* The interrupt signal (SIGINT, SIGTERM, SIGHUP) that stopped the submit
 * after recording the outcome of the sbatch that ran; 0: none. */
int sb_submit_result_interrupted(const struct sb_submit_result *res);
/* On failure: it happened while the attempt's jobs were written or its
 * chunks submitted, so the same call made again continues (a half-written
 * jobs directory is cleaned up, the exactly-once records resume the
 * submission). */
bool sb_submit_result_resumable(const struct sb_submit_result *res);
/* sb_submit of a spec whose benchmark existed: the settings outside the
 * identity that the spec file changed (time limit, throttle, extra sbatch
 * options, heartbeat, analysis defaults), which the benchmark does not
 * take.  key is "slurm.time", "slurm.array_throttle", "slurm.extra",
 * "heartbeat", "analysis.group_by" or "analysis.metrics"; stored and spec
 * are JSON texts (null, a number, a string or an array of strings); advice
 * is a line saying what to do about it.  Borrowed strings, d <
 * sb_submit_result_difference_count. */
size_t sb_submit_result_difference_count(const struct sb_submit_result *res);
const char *sb_submit_result_difference_key(const struct sb_submit_result *res, size_t d);
const char *sb_submit_result_difference_stored(const struct sb_submit_result *res, size_t d);
const char *sb_submit_result_difference_spec(const struct sb_submit_result *res, size_t d);
const char *sb_submit_result_difference_advice(const struct sb_submit_result *res, size_t d);
/* sb_submit: the children of the benchmark that are not submitted because
 * they succeeded in an earlier benchmark of the same name and tag (or the
 * one of reuse_from), each recorded in a signed reuse record. */
size_t sb_submit_result_reused(const struct sb_submit_result *res);

/* sb_submit: none of the benchmark's arrays had been accepted (sbatch
 * refused them), so it took the spec's new sbatch settings. */
bool sb_submit_result_settings_taken(const struct sb_submit_result *res);

/* sb_submit with opts->smoke: what the smoke test found.
 *   SB_SUBMIT_SMOKE_NONE     none was asked (or a dry run)
 *   SB_SUBMIT_SMOKE_PASSED   the child succeeded; the other children are
 *                            submitted (now or before)
 *   SB_SUBMIT_SMOKE_FAILED   it ended without succeeding (any other
 *                            class); nothing else was submitted (sbctl
 *                            exits 3)
 *   SB_SUBMIT_SMOKE_TIMEOUT  it had not ended when smoke_seconds passed;
 *                            nothing else was submitted (sbctl exits 3)
 *   SB_SUBMIT_SMOKE_SKIPPED  nothing to hold back: a benchmark of one
 *                            child to submit, every child submitted
 *                            before, or an attempt 0 laid out without a
 *                            smoke test by an earlier submit (the reason
 *                            says which) */
enum sb_submit_smoke {
	SB_SUBMIT_SMOKE_NONE,
	SB_SUBMIT_SMOKE_PASSED,
	SB_SUBMIT_SMOKE_FAILED,
	SB_SUBMIT_SMOKE_TIMEOUT,
	SB_SUBMIT_SMOKE_SKIPPED,
};
enum sb_submit_smoke sb_submit_result_smoke(const struct sb_submit_result *res);
/* Its name: "none", "passed", "failed", "timeout", "skipped". */
const char *sb_submit_smoke_name(enum sb_submit_smoke s);
/* The smoke child (-1: none), its class when last seen ("succeeded",
 * "failed", "pending"...; NULL when it was not watched), its reason (why
 * it was skipped, for SB_SUBMIT_SMOKE_SKIPPED), the tail of its Slurm
 * stderr (NULL: none), how many seconds it was waited for, and how many
 * children were held back (not submitted because of it).  Borrowed. */
int64_t sb_submit_result_smoke_child(const struct sb_submit_result *res);
const char *sb_submit_result_smoke_class(const struct sb_submit_result *res);
const char *sb_submit_result_smoke_reason(const struct sb_submit_result *res);
const char *sb_submit_result_smoke_stderr_tail(const struct sb_submit_result *res);
double sb_submit_result_smoke_waited(const struct sb_submit_result *res);
size_t sb_submit_result_smoke_held(const struct sb_submit_result *res);

/* The chunks (job arrays) of the attempt submitted, submitted or not. */
size_t sb_submit_result_chunk_count(const struct sb_submit_result *res);

/* The job arrays: for a submit or a rerun, one per chunk submitted now or
 * found submitted before, in chunk order; for a cancel, the arrays
 * cancelled.  i < sb_submit_result_job_count. */
size_t sb_submit_result_job_count(const struct sb_submit_result *res);
const char *sb_submit_result_job_id(const struct sb_submit_result *res, size_t i);
/* The --array value ("0-11%4"); "" for a cancel. */
const char *sb_submit_result_job_array(const struct sb_submit_result *res, size_t i);
/* The attempt and chunk numbers of the array. */
int64_t sb_submit_result_job_attempt(const struct sb_submit_result *res, size_t i);
int64_t sb_submit_result_job_chunk(const struct sb_submit_result *res, size_t i);
/* The child index of each task id of the array (*n of them; none for a
 * cancel); borrowed. */
const size_t *sb_submit_result_job_children(const struct sb_submit_result *res, size_t i,
					    size_t *n);
/* Submitted by this call's sbatch (else found submitted before). */
bool sb_submit_result_job_submitted_now(const struct sb_submit_result *res, size_t i);
/* Found by its name after an sbatch whose outcome was unknown. */
bool sb_submit_result_job_recovered(const struct sb_submit_result *res, size_t i);

/* The chunks submitted more than once (by whatever cause: an sbatch that
 * went on after its sbctl died, a lost log), which run their children
 * twice: by attempt then chunk, each with its distinct job ids in numeric
 * order.  d < sb_submit_result_duplicate_count, k <
 * sb_submit_result_duplicate_job_count. */
size_t sb_submit_result_duplicate_count(const struct sb_submit_result *res);
int64_t sb_submit_result_duplicate_attempt(const struct sb_submit_result *res, size_t d);
int64_t sb_submit_result_duplicate_chunk(const struct sb_submit_result *res, size_t d);
size_t sb_submit_result_duplicate_job_count(const struct sb_submit_result *res, size_t d);
const char *sb_submit_result_duplicate_job_id(const struct sb_submit_result *res, size_t d,
					      size_t k);

/* ---- rendering ------------------------------------------------------- */

/* Renders res as sbctl prints it on its standard output (flushed, not
 * closed), byte for byte:
 *   SB_FORMAT_TEXT  `sbctl submit` (`--dry-run`: the plan, the sbatch
 *                   command line, the batch script and the task map of
 *                   every chunk), `sbctl rerun`, `sbctl cancel`
 *   SB_FORMAT_JSON  the --json document (docs/sbctl-submit.md); for a dry
 *                   run, the document with no job
 * -1 with err: SB_ERR_INPUT for SB_FORMAT_CSV or an unknown format,
 * SB_ERR_RUNTIME when out could not be written, SB_ERR_NOMEM. */
int sb_submit_render(const struct sb_submit_result *res, enum sb_format format, FILE *out,
		     struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL) and the caller frees it with free(3); on -1,
 * *buf is NULL. */
int sb_submit_render_buffer(const struct sb_submit_result *res, enum sb_format format,
			    char **buf, size_t *len, struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
