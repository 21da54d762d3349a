/* sbench fake Slurm: the shared types (jobs, tasks, the loaded state).
 *
 * One multi-call binary (sbfake) answers as sbatch, squeue, sacct, scancel,
 * scontrol and sbfake (fault injection, recording, replay), dispatched on the
 * base name of argv[0].  All state lives in an SQLite database in
 * $SB_FAKE_SLURM_DIR/state.db; every command runs inside one IMMEDIATE
 * transaction, so concurrent commands are serialised by SQLite's file lock
 * (busy timeout 60 s).  There is no daemon: each started job is watched by a
 * detached supervisor process (see sched.c).  docs/fake-slurm.md describes the
 * behaviour and what differs from real Slurm 22.05.
 *
 * Each module has its own header, and calls only the layers below it:
 * util.h (helpers) <- store.h (the database) <- replay.h (recording and
 * replay) <- sched.h (scheduling, supervisors) <- commands.h (sbatch,
 * squeue, sacct, scancel, scontrol, sbfake). */
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

#endif
