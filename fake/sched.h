/* The fake Slurm's scheduler (sched.c): the scheduling pass, supervisors,
 * kills and requeues.  Above the store and the replay. */
#ifndef SB_FAKE_SCHED_H
#define SB_FAKE_SCHED_H

#include "fake/fake.h"

/* Checks supervisors, starts eligible tasks.  Call inside the transaction;
 * spawned supervisors wait for the commit before reading the store. */
int fake_schedule(struct fake_state *st);
int fake_supervise_main(int argc, char **argv);
int fake_tick_main(int argc, char **argv);
/* Asks a running task to end: records the request and wakes its supervisor. */
int fake_request_kill(struct fake_state *st, struct fake_task *t,
		      const char *final_state, int sig);
long fake_largest_in_pgrp(long pgid);
/* Makes a task pending again with the next restart count (low level). */
int fake_requeue_task(struct fake_state *st, struct fake_task *t);
/* What every query does first: open the store, catch up with a replay,
 * load, run a scheduling pass and commit it; st stays loaded.  -1 (store
 * closed) on failure. */
int fake_open_scheduled(struct fake_state *st);

#endif
