/* The fake Slurm's store (store.c): the SQLite database of jobs, tasks,
 * accounting and metadata, and lookups in what is loaded.  The bottom
 * layer: it calls neither the replay nor the scheduler. */
#ifndef SB_FAKE_STORE_H
#define SB_FAKE_STORE_H

#include "fake/fake.h"

int fake_open(struct fake_state *st);       /* opens and BEGIN IMMEDIATE */
int fake_commit(struct fake_state *st);
void fake_close(struct fake_state *st);     /* rolls back when not committed */
int fake_load(struct fake_state *st);
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

#endif
