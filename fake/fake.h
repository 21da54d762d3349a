/* sbench fake Slurm: shared declarations.
 *
 * One multi-call binary (sbfake) answers as sbatch, squeue, sacct, scancel,
 * scontrol and sbfake (fault injection, recording, replay), dispatched on the
 * base name of argv[0].  All state lives in an SQLite database in
 * $SB_FAKE_SLURM_DIR/state.db; every command runs inside one IMMEDIATE
 * transaction, so concurrent commands are serialised by SQLite's file lock
 * (busy timeout 60 s).  There is no daemon: each started job is watched by a
 * detached supervisor process (see sched.c).  docs/fake-slurm.md describes the
 * behaviour and what differs from real Slurm 22.05. */
#ifndef SB_FAKE_H
#define SB_FAKE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <sqlite3.h>

#define FAKE_MAX_TASK 4000000   /* bound on task ids whatever MaxArraySize says */
#define FAKE_TEXT_MAX 4096      /* bound on any user text kept in the store */

/* One submission (a plain job or a whole job array). */
struct fake_job {
	long id;              /* the id sbatch printed (array job id) */
	int is_array;
	int throttle;         /* %N, 0 = none */
	char *array_spec;     /* normalised task list, e.g. "0-9:2,11" */
	char *name, *comment, *workdir, *submit_dir, *out, *err, *dep;
	char *partition, *account, *user, *export_spec, *argv; /* argv: \x1f separated */
	long time_limit;      /* seconds, -1 = UNLIMITED */
	int sig, sig_time, sig_batch; /* --signal; sig 0 = none */
	int cpus;
	int requeue;
	int open_append;      /* --open-mode=append */
	double submit;
	int uid, gid;
	int task_min, task_max, task_count, task_step;
	/* scratch of one scheduling pass */
	int active;           /* tasks running or completing */
	int unsplit;          /* pending tasks not yet split off */
	int dep_state;        /* 2 unknown, else dep_check()'s answer */
};

/* One array task (or the single task of a plain job): what the scheduler
 * knows now. */
struct fake_task {
	long array_id, task_id;  /* task_id -1 for a plain job */
	long raw_id;             /* 0 while an array task is not split off */
	char *state;             /* PENDING RUNNING COMPLETED FAILED TIMEOUT ... */
	char *reason;
	int completing;          /* processes still being killed */
	int restarts;
	double begin, start, end;
	int status;              /* wait(2) status of the batch script, -1 none */
	long sup_pid;
	long pgid;
	char *kill_state;        /* final state asked by scancel/faults, or NULL */
	int kill_sig;
	double kill_time;
	int lost;
	char *lie;               /* "STATE" or "STATE|N:S", or NULL */
	double lag;
	int cancelled_pending;   /* cancelled before it ever ran */
	struct fake_job *job;
};

struct fake_state {
	sqlite3 *db;
	char dir[3072];
	struct fake_job *jobs;
	size_t njobs;
	struct fake_task *tasks;
	size_t ntasks;
	double now;
};

/* ---- util.c ---- */
double fake_now(void);
/* Replay: makes fake_now() return t (the recording's clock). */
void fake_set_now(double t);
const char *fake_prog(void);
void fake_set_prog(const char *p);
/* Reads an environment variable as a double, def when unset or bad. */
double fake_env_double(const char *name, double def);
long fake_env_long(const char *name, long def);
double fake_killwait(void);
long fake_max_array_size(void);
int fake_cpus(void);
const char *fake_nodename(void);
const char *fake_cluster(void);
const char *fake_username(void);
/* "2026-11-30T13:00:00" local time; "Unknown" for 0. */
char *fake_fmt_time(double t, char *buf, size_t n);
/* [D-]HH:MM:SS */
char *fake_fmt_elapsed(long secs, char *buf, size_t n);
/* squeue style: M:SS, H:MM:SS, D-HH:MM:SS */
char *fake_fmt_squeue_time(long secs, char *buf, size_t n);
/* Parses a Slurm --time value into seconds (-1 for UNLIMITED); -1 + *bad. */
int fake_parse_time_limit(const char *s, long *secs);
/* Parses a time for sacct -S/-E; returns 0 and sets *t, or -1. */
int fake_parse_when(const char *s, double now, double *t);
/* Array spec: fills a sorted unique list of ids (malloc'd) and throttle. */
int fake_parse_array(const char *s, long **ids, size_t *n, int *throttle);
/* Formats sorted ids as Slurm ranges "0-3,5,7-9" into buf. */
void fake_fmt_ranges(const long *ids, size_t n, char *buf, size_t len);
/* Expands %A %a %j %x %u %N %n %t %s %% (with optional zero-pad width). */
void fake_expand_pattern(const char *pat, const struct fake_job *j,
			 const struct fake_task *t, char *out, size_t len);
int fake_signal_number(const char *s);
const char *fake_signal_name(int sig);
char *fake_xstrdup(const char *s);
char *fake_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sorted task ids of an array, collapsed like Slurm ("0-3,5%2"); malloc'd. */
char *fake_ranges_text(const long *ids, size_t n, int throttle);
#define FAKE_ROW_MAX (1 << 20)  /* bound on one printed value */
void *fake_xcalloc(size_t n, size_t sz);
void fake_trim(char *s);
int fake_strcaseeq(const char *a, const char *b);
/* 1 when word is one of the comma-separated items of list. */
int fake_in_list(const char *list, const char *word);
/* Writes buf fully; -1 on error. */
int fake_write_all(int fd, const void *buf, size_t n);
int fake_mkdir_p(const char *path, mode_t mode);

/* ---- store.c ---- */
int fake_open(struct fake_state *st);       /* opens and BEGIN IMMEDIATE */
int fake_commit(struct fake_state *st);
void fake_close(struct fake_state *st);     /* rolls back when not committed */
int fake_load(struct fake_state *st);
/* What every query does first: open the store, catch up with a replay,
 * load, run a scheduling pass and commit it; st stays loaded.  -1 (store
 * closed) on failure. */
int fake_open_scheduled(struct fake_state *st);
void fake_free_loaded(struct fake_state *st);
int fake_exec(struct fake_state *st, const char *sql);
char *fake_meta_get(struct fake_state *st, const char *key); /* malloc'd or NULL */
int fake_meta_set(struct fake_state *st, const char *key, const char *val);
long fake_next_id(struct fake_state *st);
int fake_task_save(struct fake_state *st, const struct fake_task *t);
int fake_job_insert(struct fake_state *st, const struct fake_job *j);
int fake_task_insert(struct fake_state *st, const struct fake_task *t);
/* Appends an accounting version of the task's current run (restart). */
int fake_acct_record(struct fake_state *st, const struct fake_task *t,
		     const char *state, const char *exitcode);
/* Deletes every accounting version of a task (pending-cancel rule). */
int fake_acct_forget(struct fake_state *st, const struct fake_task *t);
struct fake_task *fake_find_task(struct fake_state *st, long array_id, long task_id);
struct fake_job *fake_find_job(struct fake_state *st, long id);
int fake_task_is_ended(const struct fake_task *t);
int fake_task_is_active(const struct fake_task *t);  /* running or completing */
/* Matches a user job id ("12", "12_3", raw id) to tasks; returns count and
 * fills marks[] (one per loaded task). */
size_t fake_match_id(struct fake_state *st, const char *spec, char *marks);
/* The ExitCode text N:S of a finished task's wait status. */
void fake_exitcode_of_status(int status, char *buf, size_t n);

/* ---- replay.c ---- */
/* In replay mode loads the snapshot at the replay clock and sets the clock;
 * returns 1 when replaying, 0 when not, -1 on error. */
int fake_replay_sync(struct fake_state *st);
/* 1 when the store is in replay mode (no scheduling, no submissions). */
int fake_replaying(struct fake_state *st);

/* ---- sched.c ---- */
/* Checks supervisors, starts eligible tasks.  Call inside the transaction;
 * spawned supervisors wait for the commit before reading the store. */
int fake_schedule(struct fake_state *st);
int fake_supervise_main(int argc, char **argv);
int fake_tick_main(int argc, char **argv);
/* Asks a running task to end: records the request and wakes its supervisor. */
int fake_request_kill(struct fake_state *st, struct fake_task *t,
		      const char *final_state, int sig);
long fake_largest_in_pgrp(long pgid);

/* ---- commands ---- */
int fake_sbatch_main(int argc, char **argv);
int fake_squeue_main(int argc, char **argv);
int fake_sacct_main(int argc, char **argv);
int fake_scancel_main(int argc, char **argv);
int fake_scontrol_main(int argc, char **argv);
int fake_sbfake_main(int argc, char **argv);

/* Makes a task pending again with the next restart count (low level). */
int fake_requeue_task(struct fake_state *st, struct fake_task *t);
/* scontrol requeue / sbfake requeue of one task; prints Slurm's error. */
int fake_requeue_request(struct fake_state *st, struct fake_task *t, const char *name);

#endif
