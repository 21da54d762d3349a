/* sbfake: fault injection and state inspection for the fake Slurm.
 * docs/sbfake.md is the manual. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fake/commands.h"
#include "fake/replay.h"
#include "fake/sched.h"
#include "fake/store.h"
#include "fake/util.h"


int fake_requeue_request(struct fake_state *st, struct fake_task *t, const char *name)
{
	if (t->cancelled_pending)
		return 0;
	if (!strcmp(t->state, "PENDING")) {
		fprintf(stderr, "Requeue of JobId=%s failed: Job is pending execution\n", name);
		return -1;
	}
	if (t->completing) {
		fprintf(stderr, "Requeue of JobId=%s failed: Job is currently being requeued or is completing\n", name);
		return -1;
	}
	if (!strcmp(t->state, "RUNNING"))
		return fake_request_kill(st, t, "REQUEUED", SIGTERM);
	/* a finished job: its run is kept as REQUEUED, a new one is pending */
	if (!t->lost && fake_acct_record(st, t, "REQUEUED", "0:0") != 0)
		return -1;
	if (fake_requeue_task(st, t) != 0)
		return -1;
	return fake_task_save(st, t);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: sbfake COMMAND [ARGS]   (state in $SB_FAKE_SLURM_DIR; see docs/sbfake.md)\n"
		"  fail-node [--requeue] [JOBID...]  node failure: SIGKILL, state NODE_FAIL (all running jobs by default)\n"
		"  oom JOBID...                 OOM kill of the job's largest process, state OUT_OF_MEMORY 0:125\n"
		"  preempt [--requeue] JOBID... SIGTERM, SIGKILL after KillWait, state PREEMPTED\n"
		"  requeue JOBID...             like scontrol requeue: REQUEUED row, runs again (SLURM_RESTART_COUNT+1)\n"
		"  lag SECONDS [JOBID...]       accounting changes reach sacct SECONDS late (0 = off)\n"
		"  lose JOBID...                the accounting record is lost: sacct never shows it\n"
		"  lie JOBID STATE [EXITCODE]   sacct reports STATE (and EXITCODE) whatever the job did\n"
		"  limit N|off                  sbatch fails like MaxSubmitJobs beyond N active tasks\n"
		"  down|up                      slurmctld unreachable / back (sbatch, squeue, scancel fail)\n"
		"  dbdown|dbup                  slurmdbd unreachable / back (sacct fails)\n"
		"  shutdown                     kill every job and supervisor (end of a test)\n"
		"  reset                        shutdown, then forget all jobs, faults and any replay\n"
		"  dump                         print the store (debugging)\n"
		"  record BENCHDIR OUTDIR [--interval S] [--duration S] [--jobs IDS]\n"
		"  replay RECDIR TARGETDIR [--speed X] [--at SECONDS] [--detach]\n");
	return 2;
}

static int for_each_task(struct fake_state *st, int argc, char **argv,
			 int (*fn)(struct fake_state *, struct fake_task *, void *), void *arg)
{
	char *marks = fake_xcalloc(st->ntasks + 1, 1);
	int i, rc = 0;
	size_t k;

	for (i = 0; i < argc; i++) {
		memset(marks, 0, st->ntasks + 1);
		if (fake_match_id(st, argv[i], marks) == 0) {
			fprintf(stderr, "sbfake: error: no such job: %s\n", argv[i]);
			rc = 1;
			continue;
		}
		for (k = 0; k < st->ntasks; k++)
			if (marks[k] && fn(st, &st->tasks[k], arg) != 0)
				rc = 1;
	}
	free(marks);
	return rc;
}

static int need_running(const struct fake_task *t)
{
	if (!strcmp(t->state, "RUNNING") && !t->completing)
		return 1;
	return 0;
}

/* The run ends as STATE; with requeue the job is then queued again. */
static int end_run(struct fake_state *st, struct fake_task *t, const char *state, int sig, int requeue)
{
	char ks[64];

	if (fake_request_kill(st, t, state, sig) != 0)
		return -1;
	if (!requeue)
		return 0;
	snprintf(ks, sizeof(ks), "%s+REQUEUE", state);
	free(t->kill_state);
	t->kill_state = fake_xstrdup(ks);
	free(t->state);
	t->state = fake_xstrdup("REQUEUED");
	return fake_task_save(st, t);
}

static int do_fail(struct fake_state *st, struct fake_task *t, void *arg)
{
	if (!need_running(t))
		return 0;
	return end_run(st, t, "NODE_FAIL", SIGKILL, arg ? *(int *)arg : 0);
}

static int do_oom(struct fake_state *st, struct fake_task *t, void *arg)
{
	(void)arg;
	if (!need_running(t)) {
		fprintf(stderr, "sbfake: error: job %ld is not running\n", t->raw_id ? t->raw_id : t->array_id);
		return -1;
	}
	return fake_request_kill(st, t, "OUT_OF_MEMORY", SIGKILL);
}

static int do_preempt(struct fake_state *st, struct fake_task *t, void *arg)
{
	int requeue = *(int *)arg;

	if (!need_running(t)) {
		fprintf(stderr, "sbfake: error: job %ld is not running\n", t->raw_id ? t->raw_id : t->array_id);
		return -1;
	}
	/* with --requeue (PreemptMode=REQUEUE) the run ends as PREEMPTED and a
	 * new one is queued */
	return end_run(st, t, "PREEMPTED", SIGTERM, requeue);
}

static int do_requeue(struct fake_state *st, struct fake_task *t, void *arg)
{
	char name[64];

	(void)arg;
	snprintf(name, sizeof(name), "%ld", t->raw_id ? t->raw_id : t->array_id);
	return fake_requeue_request(st, t, name);
}

static int do_lag(struct fake_state *st, struct fake_task *t, void *arg)
{
	t->lag = *(double *)arg;
	return fake_task_save(st, t);
}

static int do_lose(struct fake_state *st, struct fake_task *t, void *arg)
{
	(void)arg;
	t->lost = 1;
	if (fake_acct_forget(st, t) != 0)
		return -1;
	return fake_task_save(st, t);
}

static int do_lie(struct fake_state *st, struct fake_task *t, void *arg)
{
	free(t->lie);
	t->lie = fake_xstrdup((const char *)arg);
	return fake_task_save(st, t);
}

static int do_shutdown(struct fake_state *st, struct fake_task *t, void *arg)
{
	(void)arg;
	(void)st;
	if (t->sup_pid > 0)
		kill((pid_t)t->sup_pid, SIGKILL);
	if (t->pgid > 0)
		kill(-(pid_t)t->pgid, SIGKILL);
	return 0;
}

/* Kills the timer and every supervisor and job (shutdown, reset). */
static void stop_everything(struct fake_state *st)
{
	char *tp = fake_meta_get(st, "timer_pid");
	size_t k;

	if (tp && atol(tp) > 0)
		kill((pid_t)atol(tp), SIGKILL);
	free(tp);
	for (k = 0; k < st->ntasks; k++)
		do_shutdown(st, &st->tasks[k], NULL);
}

static void dump(struct fake_state *st)
{
	size_t k;

	printf("array|task|raw|state|reason|completing|restarts|sup_pid|pgid|lost|lie|lag\n");
	for (k = 0; k < st->ntasks; k++) {
		struct fake_task *t = &st->tasks[k];
		printf("%ld|%ld|%ld|%s|%s|%d|%d|%ld|%ld|%d|%s|%g\n", t->array_id, t->task_id, t->raw_id,
		       t->state, t->reason, t->completing, t->restarts, t->sup_pid, t->pgid, t->lost,
		       t->lie ? t->lie : "", t->lag);
	}
}

int fake_sbfake_main(int argc, char **argv)
{
	struct fake_state st;
	const char *cmd;
	int rc = 0;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	if (!strcmp(cmd, "record"))
		return fake_record_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return fake_replay_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage();
		return 0;
	}
	if (fake_open(&st) != 0 || fake_load(&st) != 0) {
		fake_close(&st);
		return 1;
	}
	if (!strcmp(cmd, "fail-node")) {
		int requeue = argc > 2 && !strcmp(argv[2], "--requeue");
		if (argc > 2 + requeue) {
			rc = for_each_task(&st, argc - 2 - requeue, argv + 2 + requeue, do_fail, &requeue);
		} else {
			for (size_t k = 0; k < st.ntasks; k++)
				if (do_fail(&st, &st.tasks[k], &requeue) != 0)
					rc = 1;
		}
	} else if (!strcmp(cmd, "oom") && argc > 2) {
		rc = for_each_task(&st, argc - 2, argv + 2, do_oom, NULL);
	} else if (!strcmp(cmd, "preempt") && argc > 2) {
		int requeue = !strcmp(argv[2], "--requeue");
		if (requeue && argc < 4)
			rc = usage();
		else
			rc = for_each_task(&st, argc - 2 - requeue, argv + 2 + requeue, do_preempt, &requeue);
	} else if (!strcmp(cmd, "requeue") && argc > 2) {
		rc = for_each_task(&st, argc - 2, argv + 2, do_requeue, NULL);
	} else if (!strcmp(cmd, "lag") && argc > 2) {
		char *end;
		double lag = strtod(argv[2], &end);
		if (*end || lag < 0 || lag > 1e7) {
			fprintf(stderr, "sbfake: error: bad lag '%s' (seconds)\n", argv[2]);
			rc = 2;
		} else if (argc > 3) {
			rc = for_each_task(&st, argc - 3, argv + 3, do_lag, &lag);
		} else {
			rc = fake_meta_set(&st, "lag", lag > 0 ? argv[2] : NULL) ? 1 : 0;
		}
	} else if (!strcmp(cmd, "lose") && argc > 2) {
		rc = for_each_task(&st, argc - 2, argv + 2, do_lose, NULL);
	} else if (!strcmp(cmd, "lie") && (argc == 4 || argc == 5)) {
		char lie[128];
		int n, s2;
		if (argc == 5 && (sscanf(argv[4], "%d:%d%n", &n, &s2, &(int){0}) != 2)) {
			fprintf(stderr, "sbfake: error: bad exit code '%s' (want N:S)\n", argv[4]);
			rc = 2;
		} else {
			snprintf(lie, sizeof(lie), "%s%s%s", argv[3], argc == 5 ? "|" : "",
				 argc == 5 ? argv[4] : "");
			rc = for_each_task(&st, 1, argv + 2, do_lie, lie);
		}
	} else if (!strcmp(cmd, "limit") && argc == 3) {
		if (!strcmp(argv[2], "off"))
			rc = fake_meta_set(&st, "submit_limit", NULL) ? 1 : 0;
		else if (atol(argv[2]) < 0 || strspn(argv[2], "0123456789") != strlen(argv[2]))
			rc = usage();
		else
			rc = fake_meta_set(&st, "submit_limit", argv[2]) ? 1 : 0;
	} else if (!strcmp(cmd, "down") || !strcmp(cmd, "up")) {
		rc = fake_meta_set(&st, "ctld_down", !strcmp(cmd, "down") ? "1" : NULL) ? 1 : 0;
	} else if (!strcmp(cmd, "dbdown") || !strcmp(cmd, "dbup")) {
		rc = fake_meta_set(&st, "dbd_down", !strcmp(cmd, "dbdown") ? "1" : NULL) ? 1 : 0;
	} else if (!strcmp(cmd, "shutdown")) {
		stop_everything(&st);
		fake_close(&st);
		return 0;
	} else if (!strcmp(cmd, "reset")) {
		/* kill everything and forget every job, every fault and the replay */
		stop_everything(&st);
		if (fake_exec(&st, "DELETE FROM jobs; DELETE FROM tasks; DELETE FROM acct;"
			      " DELETE FROM meta WHERE k <> 'next_id';") != 0 || fake_commit(&st) != 0)
			rc = 1;
		fake_close(&st);
		return rc;
	} else if (!strcmp(cmd, "dump")) {
		dump(&st);
		fake_close(&st);
		return 0;
	} else {
		fake_close(&st);
		return usage();
	}
	if (fake_load(&st) == 0 && fake_schedule(&st) == 0) {
		if (fake_commit(&st) != 0)
			rc = 1;
	} else {
		rc = 1;
	}
	fake_close(&st);
	return rc;
}
