/* Classification (docs/classification.md): a pure function of the
 * evidence about a child's latest run, the time, the heartbeat interval and
 * the settle time.  The first matching row of the decision table wins. */
#ifndef SB_CTL_CLASSIFY_H
#define SB_CTL_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm/sched.h"
#include "sbench/log.h"
#include "sbench/status.h" /* enum sb_class, sb_class_name */

/* What a log's finish says went wrong, when anything did: rare, so one
 * pointer per attempt (NULL: none of them).  NULL and "" both mean none. */
struct sb_log_notes {
	char *error;          /* finish: exec failure text */
	char *not_ok;         /* a declared result or the metrics file missing or
	                         unreadable at finish (none when all were there) */
	char *changed;        /* a declared result changed since the verified
	                         exit-0 finish (none when none did) */
	char *early_stop;     /* finish: an early-stop rule stopped the run, what
	                         held (ctl/bench/finish.h), or none */
	char *inputs;         /* start: an input file the job found other than at
	                         submit (docs/spec.md, "Inputs"), or none */
	char *interrupted;    /* finish: the run ended early for a checkpoint
	                         (ctl/bench/finish.h), or none */
};

/* What the run's verified log records show.  The strings are owned by
 * whoever fills the struct (ctl/status/status.c allocates them: none has a length
 * limit, a result path may be as long as a spec allows).  One of these per
 * attempt of every child: packed. */
struct sb_log_evidence {
	bool present : 1;     /* a log file exists for this run */
	bool has_start : 1;
	bool has_finish : 1;
	bool has_usage : 1;   /* finish: wall_s, max_rss_kb, cpu_s (user + sys) */
	bool job_is_num : 1;  /* the job id is job_num, not job_id */
	enum sb_log_tail tail : 8; /* how the verified reading ended */
	int16_t signal;       /* finish: the signal, or 0 */
	int exit_code;        /* finish: -1 when killed by a signal or no finish */
	union {               /* SLURM_JOB_ID in the records: a number when it is
	                         one (sb_log_evidence_set_job_id), else its text;
	                         read it with sb_log_job_id */
		char *job_id;
		uint64_t job_num;
	};
	struct sb_log_notes *notes; /* NULL: nothing went wrong that they say */
	int64_t finish_ns;    /* time of the finish record, or 0 */
	int64_t start_ns;     /* time of the start record, or 0 */
	double wall_s, cpu_s; /* with has_usage */
	int64_t max_rss_kb;
	int64_t last_life_ns; /* newest of the last record's time and the file's mtime */
};

/* The note field of l (a field of struct sb_log_notes), NULL when none. */
#define SB_LOG_NOTE(l, field) ((l)->notes ? (l)->notes->field : NULL)

/* What the scheduler (or the reconciled outcome sbctl recorded) says. */
struct sb_sched_evidence {
	/* the flags first, packed */
	bool consulted : 1;       /* false with --offline or when sacct failed */
	bool submitted : 1;       /* a job id was recorded for this run */
	bool cancel_recorded : 1; /* a signed `sbctl cancel` record covers this run */
	bool has_row : 1;         /* a row (or a reconciled outcome) exists */
	bool from_outcome : 1;    /* the row is the reconciled outcome recorded earlier */
	bool outcome_recorded : 1; /* a reconciled outcome is on record (whichever row) */
	/* not submitted yet: */
	bool submitting : 1;      /* a submit of this benchmark is running now */
	int64_t submit_ns;    /* when the submission was recorded, or 0 */
	struct sb_sched_row row;
	int64_t intent_ns;    /* an intent to submit the run's chunk with no outcome
	                         (no job id, no failure) yet, or 0 */
};

/* Sets l's job id to text: a number when it is one written the way a
 * number is (digits, no leading zero, at most 19), else a copy.  -1 when
 * out of memory. */
int sb_log_evidence_set_job_id(struct sb_log_evidence *l, const char *text);

/* l's job id as text (in buf, or its own copy), NULL when none. */
#define SB_LOG_JOB_NUM_LEN 21
const char *sb_log_job_id(const struct sb_log_evidence *l, char buf[SB_LOG_JOB_NUM_LEN]);

struct sb_classify_params {
	int64_t now_ns;      /* taken after the scheduler answered, before the logs were read */
	int64_t asked_ns;    /* when the scheduler was asked (0: now_ns): a finish
	                        newer than that is not contradicted by a RUNNING */
	int64_t heartbeat_s; /* the spec's heartbeat interval */
	int64_t settle_s;    /* --settle (default 10) */
	int64_t storage_lag_s; /* how late another node's writes may show here
	                        (docs/shared-storage.md): a verdict that rests
	                        on a file being absent, or on what a file looks
	                        like now, waits settle_s + storage_lag_s since
	                        the job's End */
	int64_t made_ns;     /* when the benchmark was made (0: long ago) */
	unsigned requeue_on; /* the checkpoint section's causes the scheduler
	                        requeues for (SB_REQUEUE_PREEMPT, _NODE_FAIL of
	                        proto/checkpoint.h), 0 without one */
	int64_t kill_wait_s; /* the cluster's KillWait: a preempted job is
	                        requeued only after it */
};

struct sb_verdict {
	enum sb_class cls;
	char *reason;        /* never NULL after sb_classify; "" for succeeded */
};

/* Classifies one run into out (overwritten: release it before reusing it).
 * Never fails: every combination of evidence has a class (out of memory for
 * the reason text gives a fixed reason that says so). */
void sb_classify(const struct sb_log_evidence *log, const struct sb_sched_evidence *sched,
		 const struct sb_classify_params *p, struct sb_verdict *out);

/* A run with no submission record, of a benchmark made less than the
 * settle time plus the storage lag ago: another node's submit may be
 * recording it where this node does not see it yet.  true (out: pending,
 * saying so) or false (out untouched). */
bool sb_classify_unseen_submit(const struct sb_classify_params *p, struct sb_verdict *out);

/* The verdict of a child that has no run in any attempt: pending while a
 * submit of its benchmark runs (submitting) or while another node's submit
 * may be recording it unseen (sb_classify_unseen_submit), else missing. */
void sb_classify_no_run(const struct sb_classify_params *p, bool submitting, struct sb_verdict *out);

/* Replaces the reason with one formatted by fmt (the class stays). */
void sb_verdict_set_reason(struct sb_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Frees the reason; accepts a zeroed verdict. */
void sb_verdict_release(struct sb_verdict *v);

/* Frees the strings of a log's evidence (its job id, its notes) and
 * resets it to "no log" (exit_code -1). */
void sb_log_evidence_release(struct sb_log_evidence *l);

#endif
