/* sbctl status (DESIGN §7, docs/classification.md): gather every piece of
 * evidence about a benchmark — its signed logs, sbctl's own submission
 * records, the scheduler's rows — classify every child, and record the
 * scheduler's final word for children that are over, signed. */
#ifndef SB_CTL_STATUS_H
#define SB_CTL_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl/bench.h"
#include "ctl/classify.h"

#define SB_SACCT_IDS_PER_CALL 1000

/* One metric of a verified finish record. */
struct sb_metric {
	char *name;
	double value;
	bool is_int;
	int64_t i;
};

/* One attempt of one child, with its evidence and verdict. */
struct sb_attempt_status {
	int64_t attempt;
	int64_t chunk, task;
	char array_job[32];       /* the array's job id, "" when never submitted */
	char job_id[64];          /* Slurm's JobID text "123_4", "" when none */
	char log_rel[256];        /* the log read, relative to the benchmark dir, "" none */
	int64_t log_restart;      /* the restart count in its name */
	int64_t sched_restart;    /* runs of the job before the latest (sacct -D rows) */
	struct sb_log_evidence log;
	struct sb_sched_evidence sched;
	struct sb_verdict verdict;
	struct sb_metric *metrics; /* from the verified finish record */
	size_t nmetrics;
};

struct sb_child_status {
	size_t index;
	struct sb_attempt_status *attempts; /* by attempt number, ascending */
	size_t nattempts;
	struct sb_attempt_status *latest;   /* NULL: never in any attempt */
	enum sb_class cls;
	const char *reason;
};

struct sb_status_opts {
	bool offline;             /* do not ask the scheduler */
	int64_t settle_s;         /* default 10 */
	bool rehash;              /* hash every result again, ignoring the cache */
	bool record_outcomes;     /* write reconciled outcomes (default true) */
	FILE *progress;           /* a terminal for progress, or NULL */
};

struct sb_status {
	struct sb_bench *bench;   /* owned */
	bool consulted;           /* the scheduler was asked */
	size_t sacct_calls, squeue_calls;
	size_t counts[SB_CLASS_COUNT];
	struct sb_child_status *children;
	size_t n;
	size_t outcomes_recorded;
	int64_t now_ns;
};

/* Computes the status of the benchmark b (ownership passes to st, also on
 * failure).  -1 with err when evidence cannot be gathered (the scheduler
 * does not answer: use offline; an unreadable benchmark directory; a
 * submissions log that does not verify). */
int sb_status_compute(struct sb_bench *b, const struct sb_status_opts *o,
		      struct sb_status *st, struct sb_error *err);

/* Finds the benchmark a BENCH argument names (sb_bench_find), plans it and
 * computes its status.  -2 when BENCH names no benchmark (a usage error),
 * -1 on other failures; st can be released either way. */
int sb_status_run(const char *bench, const struct sb_status_opts *o, struct sb_status *st,
		  struct sb_error *err);

void sb_status_release(struct sb_status *st);

struct sb_json;
/* The "benchmark" object of the --json outputs: name, tag, digest, dir,
 * children (ctl/cmd_status.c). */
void sb_status_json_benchmark(struct sb_json *j, const struct sb_bench *b);

/* Opens the top-level object of status and analyze --json: "format": 1,
 * "benchmark", "scheduler". */
void sb_status_json_head(struct sb_json *j, const struct sb_status *st);

/* An object with the count of each of the 11 classes, in contract order. */
void sb_status_json_counts(struct sb_json *j, const size_t *counts);

/* The text of a child's scheduler state for output ("COMPLETED",
 * "CANCELLED by 1001"), or NULL when there is none. */
const char *sb_status_sched_state(const struct sb_attempt_status *a, char *buf, size_t size);

#endif
