/* The stages of a status (status/status.c runs them in this order), each
 * in a file of its own, and what they share: nothing here calls back up
 * into status.c. */
#ifndef SB_CTL_STATUS_STAGES_H
#define SB_CTL_STATUS_STAGES_H

#include <stdint.h>
#include <time.h>

#include <msgpack.h>

#include "bench/reuse_record.h"
#include "bench/subm.h"
#include "status/status_types.h"
#include "proto/mpcheck.h"
#include "sbench/error.h"
#include "sbench/key.h"

/* A cancel record: the attempt, and its chunk (-1: every chunk). */
struct sb_status_cancel {
	int64_t attempt, chunk;
};

/* What the stages of sb_status_gather share. */
struct sb_status_gather {
	struct sb_bench *b;
	const struct sb_status_cfg *o;
	struct sb_status *st;
	struct sb_key key;
	struct sb_subm subm;
	const struct sb_subm_entry **cancels;
	size_t ncancels;
	struct sb_status_cancel *cancel_v; /* the cancels, copied out of the records */
};

/* Stage 1, sbctl's own records (status_subm.c): which jobs ran which
 * chunks (the submission records and the task maps), the outcomes and
 * cancels recorded, and whether a submit runs now.  -1 with err when a
 * record or a task map cannot be read, or out of memory. */
int sb_status_read_submissions(struct sb_status_gather *g, struct sb_error *err);

/* 1 when a submit, rerun or benchmark creation holds the lock of the
 * benchmark directory dir now (its fcntl lock), 0 when none does or there is
 * no lock file. */
int sb_status_submit_running(const char *dir);

/* Stage 2, the scheduler (status_sched.c): takes st->asked_ns, then (unless o->offline) one
 * squeue call and the sacct calls for every submitted attempt, and gives
 * each its row.  -1 with err when the scheduler does not answer
 * (st->sched_failed, SB_ERR_SCHEDULER) or out of memory. */
int sb_status_ask_scheduler(struct sb_status *st, const struct sb_status_cfg *o,
			    struct sb_error *err);

/* Stage 3, the logs (status_logs.c): takes st->now_ns, then finds each attempt's log in
 * events/, verifies it with key and reads its start and finish, and checks
 * the results a verified finish hashed.  The local index of the context
 * caches heads and hashes when it can be opened.  -1 with err when a log
 * cannot be read or out of memory. */
int sb_status_read_logs(struct sb_status *st, const struct sb_key *key,
			const struct sb_status_cfg *o, struct sb_error *err);

/* The log read for attempt a of child, relative to the benchmark
 * directory ("events/0/3.a0.j1004.r0.log"), in buf or the status's copy;
 * NULL when none was. */
const char *sb_status_log_rel(const struct sb_attempt_status *a, size_t child,
			      char buf[SB_LOG_REL_MAX]);

/* Stage 4, the classification (status_verdicts.c): a verdict for every
 * attempt, a class for every child, and the counts.  -1 when out of
 * memory. */
int sb_status_classify(struct sb_status_gather *g, struct sb_error *err);

/* Stage 5, the reused children (status_reuse.c): each child with no run
 * of its own and a reuse record gets the class of that record checked
 * again.  -1 with err when out of memory or a result cannot be read. */
int sb_status_apply_reuses(struct sb_status_gather *g, struct sb_error *err);

/* Checks a reuse record again, as status does: the source directory is
 * there (else SB_CLASS_MISSING), its log (when still there) verifies with
 * the source's key and has the recorded head, and every recorded result
 * has its recorded digest (else SB_CLASS_INVALID); SB_CLASS_SUCCEEDED
 * then.  *reason (malloc'd, NULL for succeeded) says why not.  -1 with
 * err when out of memory or a result cannot be read (an I/O error is no
 * evidence either way).  idx (may be NULL): the local index whose cached
 * hashes stand for a result whose size, times and inode did not change,
 * unless rehash. */
struct sb_index;
int sb_reuse_verify(const struct sb_reuse *r, const char *bench_name, struct sb_index *idx,
		    bool rehash, enum sb_class *cls, char **reason, struct sb_error *err);

/* Stage 4b, the restarts (status_chain.c): for every child of a benchmark
 * with a checkpoint section and every child whose latest attempt ran more
 * than once, each run of its job from its own log and sacct's earlier rows
 * (st->chains); with a checkpoint section, a child whose chain of
 * checkpoints is broken becomes invalid, its reason naming the restart and
 * the digests.  -1 with err when a log cannot be read or out of memory. */
int sb_status_chains(struct sb_status_gather *g, struct sb_error *err);

/* The restarts of child, NULL when stage 4b kept none. */
const struct sb_chain *sb_status_chain(const struct sb_status *st, size_t child);

/* Stage 6, what status writes down (status_record.c): the scheduler's
 * final state of each attempt that is over and has no outcome record yet,
 * signed in submissions/, all or nothing.  A full disk stops the
 * recording, never the classification (st->outcome_error says why); -1
 * only when out of memory. */
int sb_status_record_outcomes(struct sb_status_gather *g, struct sb_error *err);

/* Stage 7, the early-stop rules (status_rules.c): one line in *notes
 * (malloc'd lines in a malloc'd array, *nnotes of them) for each rule of
 * the spec whose metric no finished child's metrics file had, naming the
 * metrics the files did have; none when no finished child read a number
 * yet.  -1 with err when out of memory (*notes then holds what was made). */
int sb_status_check_rules(struct sb_status *st, char ***notes, size_t *nnotes, struct sb_error *err);

/* The counts into the local index, for `sbctl list`: a cache, so a
 * failure loses nothing and is not reported. */
void sb_status_remember_counts(const struct sb_status_gather *g);

/* The text of a child's scheduler state for output ("COMPLETED",
 * "CANCELLED by 1001"), or NULL when there is none. */
const char *sb_status_sched_state(const struct sb_attempt_status *a, char *buf, size_t size);

#endif
