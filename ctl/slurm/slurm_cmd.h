/* Every Slurm command line libsbench runs, in one place: the arguments of
 * sbatch, squeue, sacct, scancel and scontrol, and the reading of what
 * sbatch and the job-id queries print.  No other file spells a Slurm
 * option.  The rows of the status queries (SB_SQUEUE_FORMAT and
 * SB_SACCT_FORMAT) are parsed by slurm/sched.h, `scontrol show config` by
 * slurm/slurmcfg.h, both in this folder.
 *
 * An argument vector is NULL-terminated, its strings malloc'd in a
 * malloc'd array, freed with sb_slurm_argv_free; a builder returns NULL
 * (SB_ERR_NOMEM in err) only when out of memory. */
#ifndef SB_CTL_SLURM_CMD_H
#define SB_CTL_SLURM_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"

/* One sbatch of a job array.  A NULL text or a zero count is an option
 * left out. */
struct sb_slurm_sbatch {
	const char *array;       /* --array */
	const char *job_name;    /* --job-name */
	const char *comment;     /* --comment: the job's identity (who submitted it, for
				  * the lookup by name), or NULL */
	const char *output;      /* --output=<output>.out --error=<output>.err, appended */
	const char *after;       /* --dependency=afterany:<after> */
	const char *partition, *time, *mem, *gres, *nodes, *constraint;
	int64_t cpus_per_task, ntasks;
	const char *signal;      /* --signal=<signal> ("B:USR1@90"), or NULL */
	int requeue;             /* 1: --requeue, -1: --no-requeue, 0: neither */
	const char *const *extra; /* more arguments, as they are */
	size_t nextra;
	const char *script;      /* the batch script, last */
};

/* sbatch --parsable with the options of s. */
char **sb_slurm_sbatch_argv(const struct sb_slurm_sbatch *s, struct sb_error *err);

/* The job id of sbatch --parsable's output ("JOBID" or "JOBID;CLUSTER")
 * into job_id: 0, or -1 when the output is not one (or does not fit). */
int sb_slurm_sbatch_job_id(const char *out, char *job_id, size_t size);

/* squeue of the caller's jobs named name (--me), in any state still in the
 * queue, one "ARRAY_JOB_ID|COMMENT" (%F|%k) a line. */
char **sb_slurm_squeue_named_argv(const char *name, struct sb_error *err);

/* sacct of the jobs of user uid named name since the time text since (see
 * sb_slurm_since), one "JobID|Comment" a line. */
char **sb_slurm_sacct_named_argv(const char *name, const char *since, long uid,
				 struct sb_error *err);

/* Keeps in best (size bytes, "" for none yet) the lowest job id named by
 * the lines of the two queries above ("123", "123_4", "123_[0-3]" all
 * name 123: when a chunk was submitted twice, the first submission), of
 * the lines alone whose comment (after the first '|') is exactly comment:
 * a job of the same name from another benchmark directory, attempt or
 * user, or one submitted without it, is never taken. */
void sb_slurm_lowest_job_id(const char *text, const char *comment, char *best, size_t size);


/* squeue of the array jobs of ids (comma-separated) that still have
 * pending or running tasks, one array job id (%F) a line; and whether
 * that output lists job_id. */
char **sb_slurm_squeue_arrays_argv(const char *ids, struct sb_error *err);
int sb_slurm_lists_job(const char *out, const char *job_id);

/* scancel of the n job ids of ids. */
char **sb_slurm_scancel_argv(const char *const *ids, size_t n, struct sb_error *err);

/* squeue of the caller's own jobs, one "ARRAYJOBID|NAME|STATE" a line;
 * sb_slurm_mine_row splits such a line: the job id is line[0..*job_len),
 * the name starts at *name (up to the next '|'); -1 for a line that is not
 * one. */
char **sb_slurm_squeue_mine_argv(struct sb_error *err);
int sb_slurm_mine_row(const char *line, size_t *job_len, const char **name);

/* The status queries of the jobs and array tasks of ids (comma-
 * separated): squeue with SB_SQUEUE_FORMAT, sacct with SB_SACCT_FORMAT
 * (every run of a requeued job, -D) since the time text since. */
char **sb_slurm_squeue_tasks_argv(const char *ids, struct sb_error *err);
char **sb_slurm_sacct_tasks_argv(const char *ids, const char *since, struct sb_error *err);

/* scontrol show config. */
char **sb_slurm_scontrol_config_argv(struct sb_error *err);

/* Room for a time text of sacct -S. */
#define SB_SLURM_TIME_LEN 32

/* The time text of sacct -S for epoch second t in local time, as sacct
 * reads it; t < 0 gives a start before any job ("2000-01-01T00:00:00").
 * Returns buf. */
const char *sb_slurm_since(char buf[SB_SLURM_TIME_LEN], int64_t t);

void sb_slurm_argv_free(char **argv);

#endif
