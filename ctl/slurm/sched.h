/* Scheduler evidence (docs/classification.md): parsing what sacct and squeue print.
 *
 * sbctl asks sacct for exactly SB_SACCT_FORMAT with -P -n -X -D, and squeue
 * for SB_SQUEUE_FORMAT with -h -r.  Parsing is total: a line that does not
 * have the expected shape, or a state this code does not know, is evidence
 * of nothing (counted in `skipped`), never a crash. */
#ifndef SB_CTL_SCHED_H
#define SB_CTL_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"
#include "sbench/error.h"

#define SB_SACCT_FORMAT "JobID,JobIDRaw,JobName,State,ExitCode,Submit,Start,End,NodeList"
#define SB_SQUEUE_FORMAT "%i|%A|%j|%T|%r"

enum sb_sched_state {
	SB_STATE_UNKNOWN = 0, /* not a state this code knows: evidence of nothing */
	SB_STATE_PENDING,
	SB_STATE_RUNNING,
	SB_STATE_SUSPENDED,
	SB_STATE_COMPLETING,
	SB_STATE_COMPLETED,
	SB_STATE_FAILED,
	SB_STATE_TIMEOUT,
	SB_STATE_CANCELLED,
	SB_STATE_OUT_OF_MEMORY,
	SB_STATE_NODE_FAIL,
	SB_STATE_PREEMPTED,
	SB_STATE_BOOT_FAIL,
	SB_STATE_DEADLINE,
	SB_STATE_REQUEUED,
	SB_STATE_REQUEUE_HOLD,
	SB_STATE_REQUEUE_FED,
	SB_STATE_RESIZING,
	SB_STATE_REVOKED,
	SB_STATE_SPECIAL_EXIT,
	SB_STATE_STOPPED,
	SB_STATE_SIGNALING,
	SB_STATE_STAGE_OUT,
};

/* The state named by Slurm's text ("CANCELLED by 1001" is CANCELLED, with
 * the uid in *by_uid when by_uid is not NULL, else -1). */
enum sb_sched_state sb_sched_state_parse(const char *text, long *by_uid);

/* Slurm's name of a state ("OUT_OF_MEMORY"); "UNKNOWN" for SB_STATE_UNKNOWN. */
const char *sb_sched_state_name(enum sb_sched_state s);

/* 1 for states after which the job will not run again by itself. */
int sb_sched_state_terminal(enum sb_sched_state s);

/* One job, or one array task, as the scheduler reports it.  A pending array
 * that sacct or squeue prints collapsed ("123_[2-5%1]") is expanded into one
 * row per task id.  The texts (name, nodes, reason) are never cut short: they
 * point into the interned copies kept by the rows they came from (valid
 * until sb_sched_rows_release, the output itself is not kept), "" when the
 * scheduler printed none. */
struct sb_sched_row {
	uint64_t array_job;  /* 123 for "123_4"; the job id itself when not an array */
	int64_t array_task;  /* 4 for "123_4"; -1 when not an array task */
	uint64_t raw_id;     /* JobIDRaw / %A; 0 when not known (collapsed pending rows) */
	const char *name;    /* JobName */
	long cancelled_by;   /* uid for "CANCELLED by UID", else -1 */
	enum sb_sched_state state;
	int16_t exit_code;   /* ExitCode "N:S": N, or -1 when unknown */
	int16_t exit_signal; /* S, or -1 when unknown */
	int64_t submit, start, end; /* seconds since the epoch, -1 for Unknown/None */
	const char *nodes;   /* NodeList (sacct) */
	const char *reason;  /* pending reason (squeue) */
};

/* Room for a row's JobID text: two 20-digit numbers, '_' and the NUL. */
#define SB_SCHED_JOB_ID_LEN 48

/* Slurm's JobID text of a row, "123_4" (or "123" when not an array task),
 * written into buf; returns buf. */
const char *sb_sched_row_job_id(const struct sb_sched_row *r, char buf[SB_SCHED_JOB_ID_LEN]);

/* Parses a JobID text as sb_sched_row_job_id writes it into r's array_job
 * and array_task: 0, or -1 when it is not one. */
int sb_sched_job_id_parse(const char *text, struct sb_sched_row *r);

/* The local time's offset from UTC for one hour of local time, kept
 * between rows: a zeroed one is empty. */
struct sb_sched_tz {
	int64_t hour;   /* the local hour, as hours since the epoch read as UTC */
	int64_t offset; /* seconds to add to the local time read as UTC */
	int valid;
};

struct sb_sched_rows {
	struct sb_sched_row *v;
	size_t n, cap;
	size_t seen;    /* rows parsed: kept in v or given to sink */
	size_t skipped; /* lines that were not evidence */
	/* When set, each row goes to sink as it is parsed instead of into v (a
	 * million rows are never held); a return < 0 (with err) stops the
	 * parse, which fails.  Its texts are interned here as ever. */
	int (*sink)(void *arg, const struct sb_sched_row *r, struct sb_error *err);
	void *sink_arg;
	struct sb_intern texts; /* the rows' texts, each kept once */
	struct sb_sched_tz tz; /* sb_sched_time_parse's cache for these rows */
};

/* Appends the rows of one `sacct -P -n -X -D --format=SB_SACCT_FORMAT`
 * output.  Returns -1 only when out of memory or when a collapsed array
 * expands past max_tasks rows. */
int sb_sacct_parse(const char *text, struct sb_sched_rows *rows, size_t max_tasks,
		   struct sb_error *err);

/* Appends the rows of one `squeue -h -r -o SB_SQUEUE_FORMAT` output. */
int sb_squeue_parse(const char *text, struct sb_sched_rows *rows, size_t max_tasks,
		    struct sb_error *err);

void sb_sched_rows_release(struct sb_sched_rows *rows);

/* Parses Slurm's time text ("2026-11-30T13:00:05", local time) into seconds
 * since the epoch; "Unknown", "None" and anything unparsable give -1.  The
 * local time's offset is asked of the C library (mktime: a stat of the
 * time-zone file each time) once per local hour and kept in tz (NULL: none
 * kept); a zone whose offset changes at other than a whole local hour is
 * off by the change for the rest of that hour. */
int64_t sb_sched_time_parse(const char *text, struct sb_sched_tz *tz);

#endif
