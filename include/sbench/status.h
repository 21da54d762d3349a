/* sbench — the status of a benchmark: every child classified from its
 * evidence (docs/classification.md), as `sbctl status` and `sbctl wait` do
 * (docs/sbctl-status.md).
 *
 * A status gathers sbctl's own signed submission records, the scheduler's
 * rows (one squeue call and one sacct call per 1,000 job arrays, unless
 * offline) and the verified event logs, gives every child exactly one class
 * with a one-line reason, and records the scheduler's final word about the
 * children that are over as signed reconciled outcomes in submissions/.
 * Classes other than succeeded are data, not errors.
 *
 * A struct sb_status is immutable once computed.  It borrows the benchmark
 * it was computed for (sb_status_compute) or owns the one it found
 * (sb_status_wait).  Free it with sb_status_destroy.  One status may be read
 * by several threads at once; computing two statuses of the same benchmark
 * handle at once is not allowed (the handle is planned on first use). */
#ifndef SBENCH_STATUS_H
#define SBENCH_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbench/bench.h"
#include "sbench/context.h"
#include "sbench/error.h"
#include "sbench/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The classes, in the order of the "counts" object of the JSON outputs
 * (docs/classification.md has the decision table). */
enum sb_class {
	SB_CLASS_SUCCEEDED,
	SB_CLASS_FAILED,
	SB_CLASS_KILLED,
	SB_CLASS_INCOMPLETE,
	SB_CLASS_STALE,
	SB_CLASS_MISSING,
	SB_CLASS_PARTIAL,
	SB_CLASS_INCONSISTENT,
	SB_CLASS_INVALID,
	SB_CLASS_PENDING,
	SB_CLASS_RUNNING,
	SB_CLASS_STOPPED,     /* v3: an early-stop rule of the spec stopped the run */
	SB_CLASS_COUNT
};

/* The class's name as the outputs spell it ("succeeded", "failed"...), a
 * static string; "?" for a value out of range. */
const char *sb_class_name(enum sb_class c);

/* The class named name; -1 when none is (*out unchanged). */
int sb_class_parse(const char *name, enum sb_class *out);

struct sb_status;

/* The options.  Zero-initialise it (= { 0 }): all zeros are the defaults,
 * also for fields a later version adds. */
struct sb_status_opts {
	bool offline;          /* do not ask the scheduler: classify from the logs
	                          and the reconciled outcomes alone */
	double settle;         /* seconds a verdict that rests on something absent
	                          waits (rounded up to whole seconds); 0: the
	                          context's (sb_ctx_settle; set it to 0 there for
	                          no settle time) */
	bool rehash;           /* hash every declared result again, ignoring the
	                          hashes cached in the local index */
	bool no_outcomes;      /* do not record reconciled outcomes */
	double sched_timeout;  /* seconds each squeue and sacct call may take; 0:
	                          120 */
	/* sb_status_wait only: */
	double timeout;        /* seconds to wait at most; 0: no limit */
	double interval;       /* seconds between two polls; 0: 30 */
};

/* Computes the status of bench (sb_bench_open, sb_bench_find) into a new
 * *out, which borrows bench: keep bench alive until *out is destroyed.
 * ctx gives the local index (the verified heads of the logs, for rollback
 * detection, and cached result hashes), the settle time and the progress
 * callback ("reading logs", done, total: at most about one call per 1,000
 * logs, only for 1,000 logs or more).  NULL opts: the defaults.
 *
 * -1 with err (and *out NULL) when the evidence cannot be gathered:
 *   SB_ERR_SCHEDULER  squeue or sacct failed or did not answer in time (a
 *                     status with offline needs no scheduler)
 *   SB_ERR_RUNTIME    the benchmark directory cannot be read, a submission
 *                     log does not verify, a recorded spec does not plan
 *   SB_ERR_NOMEM      out of memory
 * Failing to record the reconciled outcomes (a full disk) is not a
 * failure: a warning says why (sb_status_warning). */
int sb_status_compute(const struct sb_ctx *ctx, struct sb_bench *bench,
		      const struct sb_status_opts *opts, struct sb_status **out,
		      struct sb_error *err);

/* Polls the status of the benchmark that bench_arg names (a path, a name or
 * a digest prefix, as sb_bench_find) every opts->interval seconds until no
 * child is pending or running, as `sbctl wait` does, and returns that last
 * status in *out (which owns its benchmark).  A scheduler that fails and a
 * benchmark directory still being created by a submit are no verdict: each
 * is told through the context's warning callback ("sacct failed: ...;
 * retrying in 30 s") and the wait goes on; progress goes to the progress
 * callback ("waiting: 2 pending, 3 running (12 s)", children settled,
 * children), and a last call with done == total when the wait is over.
 * Each scheduler call is given at most the time left (at least 1 s).
 *
 * -1 with err (and *out NULL): SB_ERR_TIMEOUT when opts->timeout passed
 * with children still pending or running, or no answer from the scheduler;
 * SB_ERR_NOT_FOUND / SB_ERR_INPUT when bench_arg names no benchmark
 * (sb_bench_find); the errors of sb_status_compute but SB_ERR_SCHEDULER. */
int sb_status_wait(const struct sb_ctx *ctx, const char *bench_arg,
		   const struct sb_status_opts *opts, struct sb_status **out,
		   struct sb_error *err);

/* Frees st; accepts NULL. */
void sb_status_destroy(struct sb_status *st);

/* The benchmark (borrowed from st). */
const struct sb_bench *sb_status_bench(const struct sb_status *st);

/* Whether the scheduler was asked (false: offline). */
bool sb_status_consulted(const struct sb_status *st);

/* The number of children, and of those of class c (0 for a class out of
 * range). */
size_t sb_status_children(const struct sb_status *st);
size_t sb_status_count(const struct sb_status *st, enum sb_class c);

/* Whether every child succeeded (sbctl status exits 0 then, 3 else). */
bool sb_status_all_succeeded(const struct sb_status *st);

/* Whether some child is still pending or running (sb_status_wait waits
 * until none is). */
bool sb_status_unsettled(const struct sb_status *st);

/* The reconciled outcomes recorded by this status in submissions/. */
size_t sb_status_outcomes_recorded(const struct sb_status *st);

/* Child i (< sb_status_children; children are in index order, so child i
 * is the child of index i), from its latest attempt: its class, its reason
 * (NULL for a succeeded child that has none), the Slurm JobID text of its
 * latest attempt ("123_4", NULL when never submitted), its latest attempt
 * number (-1 when it never was in any attempt).  Strings borrowed from st.
 * An i out of range gives SB_CLASS_COUNT, NULL and -1. */
enum sb_class sb_status_child_class(const struct sb_status *st, size_t i);
const char *sb_status_child_reason(const struct sb_status *st, size_t i);
const char *sb_status_child_job_id(const struct sb_status *st, size_t i);
int64_t sb_status_child_attempt(const struct sb_status *st, size_t i);

/* What the status could not settle, one line each, without a program name
 * in front (sbctl prints "sbctl status: warning: " before each): a chunk
 * submitted more than once, the reconciled outcomes that could not be
 * recorded.  Borrowed from st. */
size_t sb_status_warning_count(const struct sb_status *st);
const char *sb_status_warning(const struct sb_status *st, size_t i);

/* Renders st to out as `sbctl status` prints it (SB_FORMAT_TEXT: the
 * counts, the children that are over and did not succeed grouped by
 * reason with the tail of their Slurm stderr, as sb_status_render_text
 * with its defaults, docs/sbctl-status.md) or as `sbctl status --json` does
 * (SB_FORMAT_JSON, one line), byte for byte; out is flushed, not closed.
 * -1 with err: SB_ERR_INPUT for another format, SB_ERR_RUNTIME when out
 * could not be written, SB_ERR_NOMEM. */
int sb_status_render(const struct sb_status *st, enum sb_format format, FILE *out,
		     struct sb_error *err);

/* How the text of a status is written.  Zero-initialise it (= { 0 }): all
 * zeros are the defaults. */
struct sb_status_text_opts {
	/* The classes whose children are listed, every one of them: a mask of
	 * (1u << class) bits.  0: the default view, which lists the children
	 * of every class but succeeded, pending and running (those are
	 * counted), at most 5 per group of identical reasons.  The counts of
	 * every class are written either way. */
	unsigned classes;
};

/* Renders st to out as `sbctl status [--class CLASS,...]` prints it: the
 * counts of every class, then the children of the classes listed, grouped
 * by class and identical reason (a child's own job id in its reason does
 * not count), each group with the parameter values all its children share
 * ("8 failed: exit 3 — lr=1.2 (all 8)"), each child with its job id and
 * its other parameters, and the tail of the Slurm stderr of the group's
 * first child for failed, killed and incomplete ones
 * (docs/sbctl-status.md).  NULL opts: the defaults, the same bytes as
 * sb_status_render with SB_FORMAT_TEXT.  -1 with err: SB_ERR_RUNTIME when
 * out could not be written, SB_ERR_NOMEM. */
int sb_status_render_text(const struct sb_status *st, const struct sb_status_text_opts *opts,
			  FILE *out, struct sb_error *err);

/* The mask of sb_status_text_opts.classes that a comma list of class names
 * ("failed,killed") names, into *mask.  -1 with err (SB_ERR_INPUT, with a
 * did-you-mean) for a name that is no class, or a list that names none. */
int sb_class_mask_parse(const char *list, unsigned *mask, struct sb_error *err);

/* The same into a malloc'd NUL-terminated buffer: on 0, *buf holds *len
 * bytes (len may be NULL), to free with sb_free; on -1, *buf is NULL. */
int sb_status_render_buffer(const struct sb_status *st, enum sb_format format, char **buf,
			    size_t *len, struct sb_error *err);

/* The JSON document of sb_status_render in pieces, for a caller that reads
 * one child at a time (a binding at a million children) instead of the
 * whole document at once; each into a malloc'd NUL-terminated buffer as
 * sb_status_render_buffer (*len bytes, len may be NULL; free with sb_free;
 * *buf NULL on -1).
 *
 * sb_status_render_child: child c's object of the "children" array (c <
 * sb_status_children), byte for byte as the whole document has it (the
 * same code renders both), without a separator or newline.  -1 with err:
 * SB_ERR_INPUT for a c out of range, SB_ERR_NOMEM.
 *
 * sb_status_render_top: the document without its "children" key, one line
 * ending in a newline, every other key as the whole document has it
 * (format, benchmark, scheduler, storage, counts; a later version may add
 * keys).  The whole document is this one with its closing "}\n" replaced
 * by ',"children":[' CHILD 0 ',' CHILD 1 ... ']}\n'.  -1 with err:
 * SB_ERR_NOMEM. */
int sb_status_render_child(const struct sb_status *st, size_t c, char **buf, size_t *len,
			   struct sb_error *err);
int sb_status_render_top(const struct sb_status *st, char **buf, size_t *len,
			 struct sb_error *err);

#ifdef __cplusplus
}
#endif

#endif
