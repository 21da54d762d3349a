/* What a status is made of (docs/classification.md, docs/sbctl-status.md):
 * every child, each attempt with its evidence (its signed log, sbctl's own
 * records, the scheduler's row) and its verdict.  Types only, and the
 * small helpers every stage uses; the pipeline that fills them is
 * status/status_private.h's. */
#ifndef SB_CTL_STATUS_TYPES_H
#define SB_CTL_STATUS_TYPES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <msgpack.h>

#include "base/arena.h"
#include "bench/bench_private.h"
#include "status/classify.h"
#include "base/intern.h"
#include "base/parallel.h"
#include "bench/finish.h"
#include "proto/mpcheck.h"

#define SB_SACCT_IDS_PER_CALL 1000

static inline int64_t sb_status_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The integer at key of a msgpack map, dflt when there is none. */
static inline int64_t sb_status_mp_int(const msgpack_object *map, const char *key, int64_t dflt)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	return dflt;
}

/* A job id as sbatch printed it: longer ones are refused, never cut short. */
#define SB_JOB_ID_MAX 64
/* "events/<shard>/<file>": two directory entry names fit, whatever they are */
#define SB_LOG_REL_MAX (sizeof("events//") + 2 * NAME_MAX + 1)

/* An attempt's class and why (sb_classify's verdict, its reason kept once
 * in the status's texts: never NULL, "" for succeeded). */
struct sb_status_verdict {
	enum sb_class cls;
	const char *reason;
};

/* One attempt of one child, with its evidence and verdict. */
struct sb_attempt_status {
	/* the small numbers together: one of these per attempt of every child */
	int32_t attempt;
	int32_t chunk;            /* -1 for a reused run */
	int32_t task;             /* in the chunk's array */
	int32_t log_restart;      /* the restart count in the log's name */
	int32_t sched_restart;    /* runs of the job before the latest (sacct -D
	                             rows), -1 when no row */
	bool log_by_job : 1;      /* the log read is named as sb_bdir_log names it,
	                             its job log_job (read it with sb_status_log_rel) */
	const char *array_job;    /* the array's job id, NULL when never submitted
	                             (shared by the attempts of a chunk) */
	const char *job_id;       /* Slurm's JobID text "123_4", NULL when none */
	const char *duplicate;    /* the chunk was submitted more than once: the
	                             array job ids, "1234 and 1240" (in st->dups) */
	union {                   /* the log read, relative to the benchmark dir: */
		uint64_t log_job; /* with log_by_job, the job its name has */
		const char *log_rel; /* else its name (in the status's arena), NULL none */
	};
	struct sb_log_evidence log;
	struct sb_sched_evidence sched;
	struct sb_status_verdict verdict;
	struct sb_metric *metrics; /* from the verified finish record */
	size_t nmetrics;
};

/* Where a reused child's run is: an earlier benchmark's directory and
 * the child there (ctl/submit/reuse.h). */
struct sb_child_reused {
	const char *dir;
	int64_t index;
};

/* One of these for every child: packed. */
struct sb_child_status {
	size_t index;
	struct sb_attempt_status *attempts; /* by attempt number, ascending (in
	                                       the status's arena) */
	struct sb_attempt_status *latest;   /* NULL: never in any attempt */
	const char *reason;
	/* reused from an earlier benchmark: latest is then the source's run
	 * (in the status's arena), else NULL */
	const struct sb_child_reused *reused;
	uint32_t nattempts;
	enum sb_class cls : 8;
	bool chain_invalid : 1;             /* its checkpoint chain made it invalid
	                                       (status/status_chain.c), not its
	                                       latest run's evidence */
};

struct sb_proc_result;

struct sb_proc_opts;

/* How status runs the scheduler's commands, squeue and sacct (argv[0] says
 * which): like sb_proc_run_opts (ctl/base/proc.h), with arg first; the output
 * goes to o->out_sink as it comes.  A unit test answers them itself,
 * without a process. */
struct sb_status_sched_ops {
	int (*run)(void *arg, char *const argv[], const struct sb_proc_opts *o,
		   struct sb_proc_result *res, struct sb_error *err);
	void *arg;
};

/* How a status is computed (the public struct sb_status_opts, resolved
 * against the context). */
struct sb_status_cfg {
	const struct sb_ctx *ctx; /* the local index, for names and heads, and the
	                             progress callback (NULL: none) */
	bool offline;             /* do not ask the scheduler */
	int64_t settle_s;         /* default 10 */
	bool rehash;              /* hash every result again, ignoring the cache */
	bool record_outcomes;     /* write reconciled outcomes (default true) */
	int sched_timeout_ms;     /* the time each squeue and sacct call may take
	                             (0: 120 s) */
	const struct sb_status_sched_ops *sched; /* NULL: the real commands,
	                             first on PATH, through sb_proc_run */
};

/* A chunk submitted more than once (two SUBMITTED records with different
 * job ids): its children are classified by the first array in the order of
 * (record time, job id), whatever the order of the files. */
struct sb_status_dup {
	int64_t attempt, chunk;
	char chosen[SB_JOB_ID_MAX];
	char *job_ids;            /* every array, in that order: "1234 and 1240" */
};

/* A run of a requeued job before its latest, as sacct -D printed it
 * (status_sched.c keeps them for the restarts of stage 4b). */
struct sb_earlier_run {
	const struct sb_attempt_status *a;
	int32_t restart;
	enum sb_sched_state state;
	int64_t start, end;       /* seconds since the epoch, -1 unknown */
	const char *nodes;        /* interned in the rows' texts */
};

/* One run of a child's latest job (docs/sbctl-status.md, "restarts"). */
struct sb_restart {
	int32_t restart;
	int64_t started_ns, ended_ns; /* 0: unknown (not started, not ended) */
	const char *ended_by;     /* finish, requeue_signal, preempted, node_fail,
	                             killed; NULL while it runs or waits */
	char checkpoint[65];      /* the digest at its end, "" none */
	char resumed_from[65];    /* the digest found at its start, "" none */
	const char *node;         /* interned; "" unknown */
};

/* The restarts of one child (stage 4b, status_chain.c). */
struct sb_chain {
	size_t child;
	struct sb_restart *v;
	uint32_t n;
	double run_time_s;        /* the runs' times added */
};

struct sb_status {
	struct sb_bench *bench;   /* borrowed, or owned when owns_bench */
	bool owns_bench;
	bool consulted;           /* the scheduler was asked */
	bool sched_failed;        /* asking the scheduler failed (the error says
	                             why): slurmdbd down, sacct timed out... */
	bool submitting;          /* a submit (or rerun) of it holds its lock */
	bool fs_shared;           /* the benchmark directory's file system is shared */
	char fs_name[40];         /* its name, see sb_fs_shared */
	int64_t storage_lag_s;    /* the storage lag the verdicts waited for */
	int64_t probed_ns;        /* when that was asked: an intent recorded
	                             since is a submit that began while status
	                             ran, still in progress for this reading */
	struct sb_status_dup *dups;
	size_t ndups;
	char *outcome_error;      /* reconciled outcomes could not be recorded
	                             (why), NULL when they were or none was due */
	struct sb_sched_rows acct, queue; /* the scheduler's rows (released once
	                             the attempts have theirs) and their texts */
	size_t sacct_calls, squeue_calls;
	size_t counts[SB_CLASS_COUNT];
	struct sb_child_status *children;
	size_t n;
	size_t outcomes_recorded;
	struct sb_classify_params params; /* what the verdicts were given with
	                             (status/status_verdicts.c) */
	int64_t now_ns;           /* taken before the logs were read */
	int64_t asked_ns;         /* taken before the scheduler was asked */
	int64_t queue_asked_ns;   /* taken before squeue was asked (0: it was not) */
	char **warnings;          /* what could not be settled, one line each
	                             (sb_status_warning) */
	size_t nwarnings;
	struct sb_earlier_run *earlier; /* sacct's rows of earlier runs */
	size_t nearlier, earlier_cap;
	struct sb_chain *chains;  /* by child, ascending (stage 4b) */
	size_t nchains, chains_cap;
	/* a million children share a few dozen reasons, and each attempt's
	 * texts are short: no allocation of its own per attempt */
	struct sb_arena strings;  /* the attempts themselves, their job ids and
	                             log names */
	struct sb_intern texts;   /* the verdicts' reasons, each kept once */
	/* what each thread reading the logs keeps for the attempts it reads
	 * (their metrics, the names interned), until the status goes */
	struct sb_status_store {
		struct sb_arena arena;
		struct sb_intern names;
	} stores[SB_PARALLEL_MAX];
};

#endif
