#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/checkpoint.h"
#include "proto/util.h"
#include "status/classify.h"

static const char *const class_names[SB_CLASS_COUNT] = {
	"succeeded", "failed", "killed", "incomplete", "stale", "missing",
	"partial", "inconsistent", "invalid", "pending", "running", "stopped",
};

const char *sb_class_name(enum sb_class c)
{
	return (unsigned)c < SB_CLASS_COUNT ? class_names[c] : "?";
}

int sb_class_parse(const char *name, enum sb_class *out)
{
	size_t k;

	for (k = 0; name && k < SB_CLASS_COUNT; k++)
		if (!strcmp(name, class_names[k])) {
			*out = (enum sb_class)k;
			return 0;
		}
	return -1;
}

static char oom_reason[] = "(out of memory for the reason)";
/* the reason of every child that succeeded: one, not one allocation each */
static char no_reason[] = "";

static bool has_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static void set_reason(struct sb_verdict *v, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void set_reason(struct sb_verdict *v, const char *fmt, va_list ap)
{
	char *r;

	if (vasprintf(&r, fmt, ap) < 0) {
		r = oom_reason;
	} else if (r[0] == '\0') {
		free(r);
		r = no_reason;
	} else if (has_controls(r)) {
		/* a result path or a command's message in it is shown, never acted
		 * on by a terminal */
		size_t n = 4 * strlen(r) + 1;
		char *safe = malloc(n);
		if (safe != NULL)
			sb_escape_controls(r, safe, n);
		free(r);
		r = safe ? safe : oom_reason;
	}
	sb_verdict_release(v);
	v->reason = r;
}

void sb_verdict_set_reason(struct sb_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_reason(v, fmt, ap);
	va_end(ap);
}

void sb_verdict_release(struct sb_verdict *v)
{
	if (v->reason != oom_reason && v->reason != no_reason)
		free(v->reason);
	v->reason = NULL;
}

static void verdict(struct sb_verdict *out, enum sb_class cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verdict(struct sb_verdict *out, enum sb_class cls, const char *fmt, ...)
{
	va_list ap;

	out->cls = cls;
	va_start(ap, fmt);
	set_reason(out, fmt, ap);
	va_end(ap);
}

static bool has(const char *s)
{
	return s != NULL && s[0] != '\0';
}

static const char *str(const char *s)
{
	return s != NULL ? s : "";
}

static bool is_killed_state(enum sb_sched_state s)
{
	switch (s) {
	case SB_STATE_TIMEOUT: case SB_STATE_CANCELLED: case SB_STATE_OUT_OF_MEMORY:
	case SB_STATE_NODE_FAIL: case SB_STATE_PREEMPTED: case SB_STATE_BOOT_FAIL:
	case SB_STATE_DEADLINE:
		return true;
	default:
		return false;
	}
}

static bool is_active_state(enum sb_sched_state s)
{
	switch (s) {
	case SB_STATE_RUNNING: case SB_STATE_SUSPENDED: case SB_STATE_COMPLETING:
	case SB_STATE_STOPPED: case SB_STATE_SIGNALING: case SB_STATE_STAGE_OUT:
	case SB_STATE_RESIZING:
		return true;
	default:
		return false;
	}
}

static bool is_pending_state(enum sb_sched_state s)
{
	return s == SB_STATE_PENDING || s == SB_STATE_REQUEUED ||
	       s == SB_STATE_REQUEUE_HOLD || s == SB_STATE_REQUEUE_FED;
}

/* "TIMEOUT", "CANCELLED by uid 1001", "OUT_OF_MEMORY (ExitCode 0:125)" */
static void state_text(const struct sb_sched_row *r, char *buf, size_t size)
{
	if (r->state == SB_STATE_CANCELLED && r->cancelled_by >= 0)
		snprintf(buf, size, "CANCELLED by uid %ld", r->cancelled_by);
	else
		snprintf(buf, size, "%s", sb_sched_state_name(r->state));
}

/* What the log shows, for reasons: "finished with exit 0", ...; the
 * caller frees it (NULL when out of memory). */
static char *log_text(const struct sb_log_evidence *log)
{
	char *t;
	int n;

	if (!log->present || !log->has_start)
		n = asprintf(&t, "the command never started (no start record)");
	else if (!log->has_finish)
		n = asprintf(&t, "the command was still running (no finish record)");
	else if (has(SB_LOG_NOTE(log, error)))
		n = asprintf(&t, "the command could not run: %s", SB_LOG_NOTE(log, error));
	else if (log->exit_code >= 0)
		n = asprintf(&t, "the command finished with exit %d first", log->exit_code);
	else
		n = asprintf(&t, "the command was killed by signal %d", log->signal);
	return n < 0 ? NULL : t;
}

static int64_t age_s(const struct sb_classify_params *p, int64_t since_ns)
{
	return (p->now_ns - since_ns) / 1000000000;
}

/* When the job ended, for the settle rules: its End as the scheduler reports
 * it; a row without one (never the case for a finished job in real
 * accounting) falls back to its Start, its Submit, then the time sbctl
 * recorded the submission. */
static int64_t end_ns(const struct sb_sched_row *r, const struct sb_sched_evidence *sched)
{
	int64_t t = r->end >= 0 ? r->end : r->start >= 0 ? r->start : r->submit;

	return t >= 0 ? t * 1000000000LL : sched->submit_ns;
}

/* How long after a job's End what its agent wrote may still be on its way:
 * the settle time, and the storage lag of a shared file system. */
static int64_t evidence_wait_s(const struct sb_classify_params *p)
{
	return p->settle_s + p->storage_lag_s;
}

/* A verdict that rests on "the job is over and its log (or its finish) is
 * not there" waits the settle time (and the storage lag) since the job's
 * End: shared storage may show the agent's last writes late.  Until then
 * the run keeps the class it had while it ran.  Returns true (and gives
 * that verdict) when not settled. */
static bool settling_since_end(const struct sb_sched_evidence *sched, const struct sb_classify_params *p,
			       const char *stext, const char *missing, struct sb_verdict *out)
{
	const struct sb_sched_row *r = &sched->row;
	int64_t ago = age_s(p, end_ns(r, sched));
	char rid[SB_SCHED_JOB_ID_LEN];

	if (p->now_ns - end_ns(r, sched) >= evidence_wait_s(p) * 1000000000LL)
		return false;
	verdict(out, SB_CLASS_RUNNING, "job %s ended %" PRId64 " s ago (%s); waiting up to %" PRId64
		" s for its %s", sb_sched_row_job_id(r, rid), ago > 0 ? ago : 0, stext,
		evidence_wait_s(p), missing);
	return true;
}

/* Row 3a: less than KillWait and the settle time since the End of a job
 * the scheduler requeues: running, waiting for its next run. */
static bool requeue_coming(const struct sb_sched_evidence *sched, const struct sb_classify_params *p,
			   const char *stext, struct sb_verdict *out)
{
	int64_t wait_s = p->settle_s + p->kill_wait_s, ago = age_s(p, end_ns(&sched->row, sched));
	char rid[SB_SCHED_JOB_ID_LEN];

	if (p->now_ns - end_ns(&sched->row, sched) >= wait_s * 1000000000LL)
		return false;
	verdict(out, SB_CLASS_RUNNING, "job %s ended %" PRId64 " s ago (%s) and is requeued for its "
		"checkpoint (requeue_on); waiting up to %" PRId64 " s for its next run",
		sb_sched_row_job_id(&sched->row, rid), ago > 0 ? ago : 0, stext, wait_s);
	return true;
}

int sb_log_evidence_set_job_id(struct sb_log_evidence *l, const char *text)
{
	size_t n = strspn(text, "0123456789");

	if (n > 0 && n <= 19 && text[n] == '\0' && (text[0] != '0' || n == 1)) {
		l->job_num = strtoull(text, NULL, 10);
		l->job_is_num = true;
		return 0;
	}
	l->job_id = strdup(text);
	return l->job_id ? 0 : -1;
}

const char *sb_log_job_id(const struct sb_log_evidence *l, char buf[SB_LOG_JOB_NUM_LEN])
{
	if (!l->job_is_num)
		return l->job_id;
	snprintf(buf, SB_LOG_JOB_NUM_LEN, "%" PRIu64, l->job_num);
	return buf;
}

/* What a finish records, for a reason: "exit 3", "killed by signal 15"... */
static void finish_text(const struct sb_log_evidence *log, bool exit0, char *buf, size_t size)
{
	if (has(SB_LOG_NOTE(log, early_stop)))
		snprintf(buf, size, "stopped early");
	else if (has(SB_LOG_NOTE(log, error)))
		snprintf(buf, size, "the command could not run");
	else if (exit0)
		snprintf(buf, size, "exit 0, but %s", SB_LOG_NOTE(log, not_ok));
	else if (log->exit_code >= 0)
		snprintf(buf, size, "exit %d", log->exit_code);
	else
		snprintf(buf, size, "killed by signal %d", log->signal);
}

/* Row 3c: a finish other than a clean exit 0, the scheduler consulted but
 * with no row yet or still showing the job queued or running, less than
 * the settle time ago: running, saying what it waits for. */
static bool unconfirmed_finish(const struct sb_log_evidence *log, const struct sb_sched_evidence *sched,
			       const struct sb_classify_params *p, bool row, enum sb_sched_state st,
			       const char *rid, const char *stext, bool exit0, struct sb_verdict *out)
{
	bool clean = exit0 && !has(SB_LOG_NOTE(log, not_ok)) && !has(SB_LOG_NOTE(log, early_stop)) &&
		     !has(SB_LOG_NOTE(log, interrupted));
	char what[160];

	if (!log->present || !log->has_finish || clean || !sched->consulted || !sched->submitted ||
	    (row && !is_active_state(st) && !is_pending_state(st)) ||
	    p->now_ns - log->finish_ns >= p->settle_s * 1000000000LL)
		return false;
	finish_text(log, exit0, what, sizeof(what));
	if (row)
		verdict(out, SB_CLASS_RUNNING, "finished (%s), but the scheduler still says job %s is "
			"%s; waiting up to %" PRId64 " s for it to end", what, rid, stext, p->settle_s);
	else
		verdict(out, SB_CLASS_RUNNING, "finished (%s); waiting up to %" PRId64 " s for the "
			"scheduler to confirm", what, p->settle_s);
	return true;
}

static void decide(const struct sb_log_evidence *log, const struct sb_sched_evidence *sched,
		   const struct sb_classify_params *p, struct sb_verdict *out, bool row,
		   enum sb_sched_state st, const char *stext, const char *ltext)
{
	const struct sb_sched_row *r = &sched->row;
	char rid[SB_SCHED_JOB_ID_LEN], lbuf[SB_LOG_JOB_NUM_LEN];
	const char *ljob = sb_log_job_id(log, lbuf);
	bool started = log->present && log->has_start;
	bool finished = started && log->has_finish;
	bool exit0 = finished && log->exit_code == 0 && !has(SB_LOG_NOTE(log, error));

	if (sched->has_row)
		sb_sched_row_job_id(r, rid);
	else
		rid[0] = '\0';
	/* 1. invalid */
	if (log->present && log->tail != SB_LOG_TAIL_OK && log->tail != SB_LOG_TAIL_TORN) {
		verdict(out, SB_CLASS_INVALID, "the log does not verify: %s", sb_log_tail_name(log->tail));
		return;
	}
	if (started && has(SB_LOG_NOTE(log, inputs))) {
		verdict(out, SB_CLASS_INVALID, "%s", SB_LOG_NOTE(log, inputs));
		return;
	}
	if (exit0 && has(SB_LOG_NOTE(log, changed))) {
		/* on shared storage a result read soon after its job may be
		 * another node's write not shown here yet */
		int64_t since = row ? end_ns(r, sched) : log->finish_ns;
		if (p->storage_lag_s > 0 && p->now_ns - since < evidence_wait_s(p) * 1000000000LL) {
			verdict(out, SB_CLASS_RUNNING, "%s, %" PRId64 " s after the job %s; waiting up to %"
				PRId64 " s for shared storage to show its last writes", SB_LOG_NOTE(log, changed),
				age_s(p, since) > 0 ? age_s(p, since) : 0, row ? "ended" : "finished",
				evidence_wait_s(p));
			return;
		}
		verdict(out, SB_CLASS_INVALID, "%s", SB_LOG_NOTE(log, changed));
		return;
	}

	/* 2. inconsistent */
	if (started && has(ljob) && row && r->raw_id != 0 &&
	    strtoull(ljob, NULL, 10) != r->raw_id) {
		verdict(out, SB_CLASS_INCONSISTENT, "the log was written by job %s, but the scheduler "
			"ran this child as job %s (raw id %" PRIu64 ")", ljob, rid, r->raw_id);
		return;
	}
	if (st == SB_STATE_COMPLETED && !started) {
		if (settling_since_end(sched, p, stext, "log to appear", out))
			return;
		verdict(out, SB_CLASS_INCONSISTENT, "the scheduler says job %s COMPLETED, "
			"but the log has no start record", rid);
		return;
	}
	if (exit0 && st == SB_STATE_FAILED) {
		verdict(out, SB_CLASS_INCONSISTENT, "the command finished with exit 0, but the "
			"scheduler says job %s FAILED (ExitCode %d:%d)", rid, r->exit_code,
			r->exit_signal);
		return;
	}
	/* a run interrupted for a checkpoint whose job the scheduler still
	 * shows: the batch script is requeueing it (on a busy cluster that
	 * takes longer than the settle time), or its next run waits; the
	 * scheduler's word decides, never a final class before it */
	if (finished && has(SB_LOG_NOTE(log, interrupted)) && (is_active_state(st) || is_pending_state(st))) {
		verdict(out, is_pending_state(st) ? SB_CLASS_PENDING : SB_CLASS_RUNNING, "%s; the "
			"scheduler says job %s is %s: its requeue is under way", SB_LOG_NOTE(log, interrupted),
			rid, stext);
		return;
	}
	if (finished && (is_active_state(st) || is_pending_state(st)) &&
	    (p->asked_ns ? p->asked_ns : p->now_ns) - log->finish_ns >= p->settle_s * 1000000000LL) {
		verdict(out, SB_CLASS_INCONSISTENT, "the finish record is %" PRId64 " s old, but "
			"the scheduler still says job %s is %s", age_s(p, log->finish_ns), rid, stext);
		return;
	}

	/* 3a. a job preempted, or whose node failed, that the scheduler
	 * requeues for the checkpoint section: its next run comes once the
	 * old one is gone (KillWait), and makes it pending (the newer run
	 * wins); until then it is not over */
	if (((st == SB_STATE_PREEMPTED && (p->requeue_on & SB_REQUEUE_PREEMPT)) ||
	     (st == SB_STATE_NODE_FAIL && (p->requeue_on & SB_REQUEUE_NODE_FAIL))) &&
	    requeue_coming(sched, p, stext, out))
		return;

	/* 3. killed: the scheduler's word alone, at once; on shared storage
	 * what the log does not show yet is said as such */
	if (is_killed_state(st)) {
		int64_t ago = age_s(p, end_ns(r, sched));
		if (p->storage_lag_s > 0 && !finished && ago < evidence_wait_s(p))
			verdict(out, SB_CLASS_KILLED, "%s; its log shows no %s record yet (the job ended %"
				PRId64 " s ago; another node's writes may take up to %" PRId64 " s to show "
				"here)", stext, started ? "finish" : "start", ago > 0 ? ago : 0,
				evidence_wait_s(p));
		else
			verdict(out, SB_CLASS_KILLED, "%s; %s", stext, ltext);
		return;
	}
	if (sched->cancel_recorded && !started && !is_active_state(st)) {
		int64_t ago = row ? age_s(p, end_ns(r, sched)) : age_s(p, sched->submit_ns);
		if (p->storage_lag_s > 0 && ago < evidence_wait_s(p))
			verdict(out, SB_CLASS_KILLED, "cancelled by 'sbctl cancel'; its log shows no start "
				"record yet (another node's writes may take up to %" PRId64 " s to show here)",
				evidence_wait_s(p));
		else
			verdict(out, SB_CLASS_KILLED, "cancelled by 'sbctl cancel' before it started");
		return;
	}

	/* 3c. a finish the scheduler has not confirmed: whatever it records (an
	 * exit, a signal, a missing result, an early stop), the job may still
	 * end otherwise (a scancel whose CANCELLED accounting has not written
	 * yet makes the command die of signal 15 first), so it waits the
	 * settle time since the finish, as a finish with exit 0 does (9d) */
	if (unconfirmed_finish(log, sched, p, row, st, rid, stext, exit0, out))
		return;

	/* 3e. killed: the run was interrupted for a checkpoint (the pre-timeout
	 * signal, a termination) and no later run of its job is in sight (a
	 * requeued job's next run makes it pending first: the newer run wins),
	 * or it gave up after its most restarts; whatever the exit */
	if (finished && has(SB_LOG_NOTE(log, interrupted))) {
		if (row)
			verdict(out, SB_CLASS_KILLED, "%s; the scheduler says job %s is %s with no run "
				"after it", SB_LOG_NOTE(log, interrupted), rid, stext);
		else
			verdict(out, SB_CLASS_KILLED, "%s", SB_LOG_NOTE(log, interrupted));
		return;
	}

	/* 3d. stopped (v3): an early-stop rule of the spec held (whatever the exit) */
	if (finished && has(SB_LOG_NOTE(log, early_stop))) {
		verdict(out, SB_CLASS_STOPPED, "early stop: %s", SB_LOG_NOTE(log, early_stop));
		return;
	}

	/* 4. failed */
	if (finished && !exit0) {
		if (has(SB_LOG_NOTE(log, error)))
			verdict(out, SB_CLASS_FAILED, "the command could not run: %s", SB_LOG_NOTE(log, error));
		else if (log->exit_code >= 0)
			verdict(out, SB_CLASS_FAILED, "exit %d", log->exit_code);
		else
			verdict(out, SB_CLASS_FAILED, "killed by signal %d", log->signal);
		return;
	}
	if (!started && st == SB_STATE_FAILED) {
		if (settling_since_end(sched, p, stext, "log to appear", out))
			return;
		if (r->exit_code == 125) /* sbagent's own failure before the command ran */
			verdict(out, SB_CLASS_FAILED, "job %s FAILED (ExitCode 125:%d): sbagent could "
				"not start the run (its stderr says why)", rid, r->exit_signal);
		else
			verdict(out, SB_CLASS_FAILED, "job %s FAILED (ExitCode %d:%d) before sbagent "
				"started", rid, r->exit_code, r->exit_signal);
		return;
	}

	/* 5. partial */
	if (exit0 && has(SB_LOG_NOTE(log, not_ok))) {
		verdict(out, SB_CLASS_PARTIAL, "exit 0, but %s", SB_LOG_NOTE(log, not_ok));
		return;
	}

	/* 6. succeeded */
	if (exit0 && st == SB_STATE_COMPLETED)
		return (void)verdict(out, SB_CLASS_SUCCEEDED, "%s", "");
	if (exit0 && !sched->consulted && !row) {
		verdict(out, SB_CLASS_SUCCEEDED, "verified by the log alone (scheduler not consulted)");
		return;
	}

	/* 7. incomplete */
	if (started && !finished && row && !is_active_state(st) && !is_pending_state(st)) {
		if (settling_since_end(sched, p, stext, "finish record", out))
			return;
		verdict(out, SB_CLASS_INCOMPLETE, "started, but no finish record%s, and job %s is %s",
			log->tail == SB_LOG_TAIL_TORN ? " (torn last record)" : "", rid, stext);
		return;
	}

	/* 8. stale */
	if (started && !finished && (is_active_state(st) || !row)) {
		int64_t quiet = age_s(p, log->last_life_ns);
		if (quiet > 3 * p->heartbeat_s + 120) {
			verdict(out, SB_CLASS_STALE, "no sign of life for %" PRId64 " s (heartbeat every %"
				PRId64 " s); the scheduler %s", quiet, p->heartbeat_s,
				row ? "still says RUNNING" : sched->consulted ? "has no record of it"
				: "was not consulted");
			return;
		}
	}

	/* 9. running */
	if (is_active_state(st)) {
		verdict(out, SB_CLASS_RUNNING, "%s%s%s%s", stext, has(r->nodes) ? " on " : "",
			str(r->nodes), started ? "" : " (no start record yet)");
		return;
	}
	if (started && !finished && !row) {
		verdict(out, SB_CLASS_RUNNING, "the log shows it alive %" PRId64 " s ago; the scheduler %s",
			age_s(p, log->last_life_ns),
			sched->consulted ? "has no record of it yet" : "was not consulted");
		return;
	}
	if (exit0 && !sched->submitted && (sched->submitting || (sched->intent_ns &&
					   age_s(p, sched->intent_ns) < p->settle_s))) {
		/* the scheduler was not asked about a job whose id is not recorded */
		verdict(out, SB_CLASS_RUNNING, "finished with exit 0; its job id is not recorded yet "
			"(a submit of this benchmark is running)");
		return;
	}
	if (exit0 && !sched->submitted) {
		verdict(out, SB_CLASS_INCONSISTENT, "the command finished with exit 0, but no job id "
			"is recorded for it (the submit stopped before sbatch answered); 'sbctl submit' "
			"looks the job up and records it");
		return;
	}
	if (exit0 && !row && age_s(p, log->finish_ns) < p->settle_s) {
		verdict(out, SB_CLASS_RUNNING, "finished with exit 0; waiting up to %" PRId64
			" s for the scheduler to confirm", p->settle_s);
		return;
	}

	/* 10. pending */
	if (is_pending_state(st)) {
		verdict(out, SB_CLASS_PENDING, "%s%s%s%s", stext, has(r->reason) ? " (" : "",
			str(r->reason), has(r->reason) ? ")" : "");
		return;
	}
	if (exit0) {
		verdict(out, SB_CLASS_INCONSISTENT, "the command finished with exit 0, but the "
			"scheduler has no record of the job");
		return;
	}
	if (started) { /* started, no finish, a terminal state this table has no row for */
		if (row && settling_since_end(sched, p, stext, "finish record", out))
			return;
		verdict(out, SB_CLASS_INCOMPLETE, "started, but no finish record, and the scheduler says %s",
			row ? stext : "nothing");
		return;
	}

	/* 11. missing */
	if (!sched->submitted && sched->submitting) {
		verdict(out, SB_CLASS_PENDING, "being submitted (a submit of this benchmark is "
			"running: no job id recorded yet)");
		return;
	}
	if (!sched->submitted && sched->intent_ns && age_s(p, sched->intent_ns) < p->settle_s) {
		verdict(out, SB_CLASS_PENDING, "being submitted (intent recorded %" PRId64 " s ago, "
			"no job id yet)", age_s(p, sched->intent_ns));
		return;
	}
	if (!sched->submitted && sched->intent_ns) {
		verdict(out, SB_CLASS_MISSING, "never submitted: the submit stopped before sbatch "
			"answered (intent recorded %" PRId64 " s ago, no job id); 'sbctl submit' resumes it",
			age_s(p, sched->intent_ns));
		return;
	}
	if (!sched->submitted && sb_classify_unseen_submit(p, out))
		return;
	if (!sched->submitted) {
		verdict(out, SB_CLASS_MISSING, "never submitted");
		return;
	}
	if (sched->consulted && age_s(p, sched->submit_ns) < p->settle_s) {
		verdict(out, SB_CLASS_PENDING, "submitted %" PRId64 " s ago; waiting for the scheduler "
			"to show it", age_s(p, sched->submit_ns));
		return;
	}
	if (row) { /* a terminal state with no log, e.g. SPECIAL_EXIT or REVOKED */
		if (sb_sched_state_terminal(st) && settling_since_end(sched, p, stext, "log to appear", out))
			return;
		verdict(out, SB_CLASS_MISSING, "no log, and the scheduler says %s", stext);
		return;
	}
	verdict(out, SB_CLASS_MISSING, sched->consulted
		? "no scheduler record, no reconciled outcome and no log"
		: "no log (scheduler not consulted)");
}

bool sb_classify_unseen_submit(const struct sb_classify_params *p, struct sb_verdict *out)
{
	int64_t ago = age_s(p, p->made_ns);

	if (p->storage_lag_s <= 0 || !p->made_ns || p->now_ns - p->made_ns >= evidence_wait_s(p) * 1000000000LL)
		return false;
	verdict(out, SB_CLASS_PENDING, "no submission shows here yet (the benchmark was made %" PRId64
		" s ago; another node's submit may take up to %" PRId64 " s to show here)",
		ago > 0 ? ago : 0, evidence_wait_s(p));
	return true;
}

void sb_classify(const struct sb_log_evidence *log, const struct sb_sched_evidence *sched,
		 const struct sb_classify_params *p, struct sb_verdict *out)
{
	const struct sb_sched_row *r = &sched->row;
	bool row = sched->consulted && sched->has_row && r->state != SB_STATE_UNKNOWN;
	bool outcome_row = sched->has_row && sched->from_outcome && r->state != SB_STATE_UNKNOWN;
	enum sb_sched_state st;
	char stext[96] = "", *ltext;

	row = row || outcome_row;
	st = row ? r->state : SB_STATE_UNKNOWN;
	out->reason = NULL;
	if (row)
		state_text(r, stext, sizeof(stext));
	ltext = log_text(log);
	decide(log, sched, p, out, row, st, stext, ltext ? ltext : "(out of memory)");
	free(ltext);
}

void sb_log_evidence_release(struct sb_log_evidence *l)
{
	if (!l->job_is_num)
		free(l->job_id);
	if (l->notes) {
		free(l->notes->error);
		free(l->notes->not_ok);
		free(l->notes->changed);
		free(l->notes->early_stop);
		free(l->notes->inputs);
		free(l->notes->interrupted);
		free(l->notes);
	}
	memset(l, 0, sizeof(*l));
	l->exit_code = -1;
}

void sb_classify_no_run(const struct sb_classify_params *p, bool submitting, struct sb_verdict *out)
{
	if (submitting)
		verdict(out, SB_CLASS_PENDING, "being submitted (a submit of this benchmark is running: "
			"no job id recorded yet)");
	else if (!sb_classify_unseen_submit(p, out))
		verdict(out, SB_CLASS_MISSING, "never submitted");
}
