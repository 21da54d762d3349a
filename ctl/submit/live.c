/* A rerun never runs a child twice at once (docs/sbctl-rerun.md, "Jobs
 * still in the queue"): whatever class status gave a child (stale,
 * incomplete, invalid...), when the scheduler still has its latest job
 * pending or running, the rerun is refused, or, with --cancel-running,
 * that job is cancelled and waited for before anything is submitted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/proc.h"
#include "slurm/slurm_cmd.h"
#include "status/status_private.h"
#include "submit/submit_private.h"
#include "sbench/context.h"

#define END_WAIT_EXTRA_S 60  /* beyond KillWait, for a job cancelled to end */
#define POLL_S 0.5

static bool still_scheduled(const struct sb_attempt_status *a)
{
	return a != NULL && a->job_id != NULL && a->sched.has_row && !a->sched.from_outcome &&
	       a->sched.row.state != SB_STATE_UNKNOWN && !sb_sched_state_terminal(a->sched.row.state);
}

/* Whether squeue still lists any of the n job ids of ids (a failed squeue,
 * as real Slurm's for ids it no longer knows, with nothing printed: no). */
static int any_listed(const char *const *ids, size_t n, struct sb_error *err)
{
	struct sb_proc_result r;
	size_t len = 1, i;
	char *list, **argv;
	int listed;

	for (i = 0; i < n; i++)
		len += strlen(ids[i]) + 1;
	if ((list = malloc(len)) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, ids[i]);
	}
	argv = sb_slurm_squeue_tasks_argv(list, err);
	free(list);
	if (argv == NULL || sb_proc_run(argv, 1 << 20, 60000, &r, err) < 0) {
		sb_slurm_argv_free(argv);
		return -1;
	}
	sb_slurm_argv_free(argv);
	listed = r.out_len > 0 && strspn(r.out, " \n") < r.out_len;
	sb_proc_result_release(&r);
	return listed;
}

/* scancel of the jobs, then their end, at most KillWait + a minute. */
static int cancel_and_wait(const struct sb_ctx *ctx, const struct sb_status *st, const char **ids,
			   size_t n, struct sb_error *err)
{
	double waited = 0, limit = (double)st->bench->kill_wait + END_WAIT_EXTRA_S;
	struct sb_proc_result r;
	char **argv = sb_slurm_scancel_argv(ids, n, err);
	int listed;

	if (argv == NULL || sb_proc_run(argv, 1 << 16, 60000, &r, err) < 0) {
		sb_slurm_argv_free(argv);
		return -1;
	}
	sb_slurm_argv_free(argv);
	if (r.exit_code != 0 && any_listed(ids, n, NULL) == 1) {
		sb_errorf(err, "scancel failed: %.300s", r.err_len ? r.err : "no message");
		sb_proc_result_release(&r);
		return -1;
	}
	sb_proc_result_release(&r);
	while ((listed = any_listed(ids, n, err)) == 1 && waited < limit) {
		sb_sleep_s(POLL_S);
		waited += POLL_S;
	}
	if (listed < 0)
		return -1;
	if (listed)
		return sb_errorf(err, "cancelled job %s%s, but the scheduler still has it after %.0f s: "
				 "nothing was submitted (run the rerun again once it has ended)", ids[0],
				 n > 1 ? " and others" : "", limit);
	sb_ctx_warn(ctx, "cancelled job %s%s (still pending or running in the scheduler) and waited "
		    "%.1f s for %s to end before the rerun", ids[0], n > 1 ? " and others" : "", waited,
		    n > 1 ? "them" : "it");
	return 0;
}

int sb_rerun_guard(const struct sb_ctx *ctx, const struct sb_status *st, const size_t *children,
		   size_t n, bool cancel, bool dry_run, struct sb_error *err)
{
	const char **ids = malloc((n ? n : 1) * sizeof(*ids));
	size_t nlive = 0, first = 0;
	int rc = 0;

	if (ids == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct sb_attempt_status *a = st->children[children[i]].latest;
		if (!still_scheduled(a))
			continue;
		if (nlive == 0)
			first = children[i];
		ids[nlive++] = a->job_id;
	}
	if (nlive > 0 && !cancel) {
		const struct sb_child_status *ch = &st->children[first];
		char state[64];
		rc = sb_error_set(err, SB_ERR_INPUT, "child %zu (%s) is still %s in the scheduler as job "
				  "%s%s: a rerun now would run it twice at once; nothing was submitted "
				  "(wait for it, or add --cancel-running to cancel it first)", first,
				  sb_class_name(ch->cls), sb_status_sched_state(ch->latest, state, sizeof(state)),
				  ids[0], nlive > 1 ? " (and other children too)" : "");
	} else if (nlive > 0 && !dry_run) {
		rc = cancel_and_wait(ctx, st, ids, nlive, err);
	}
	free(ids);
	return rc;
}
