#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/classify.h"

static const char *const class_names[SB_CLASS_COUNT] = {
	"succeeded", "failed", "killed", "incomplete", "stale", "missing",
	"partial", "inconsistent", "invalid", "pending", "running",
};

const char *sb_class_name(enum sb_class c)
{
	return (unsigned)c < SB_CLASS_COUNT ? class_names[c] : "?";
}

static void verdict(struct sb_verdict *out, enum sb_class cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verdict(struct sb_verdict *out, enum sb_class cls, const char *fmt, ...)
{
	va_list ap;

	out->cls = cls;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
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

/* What the log shows, for reasons: "finished with exit 0", ... */
static void log_text(const struct sb_log_evidence *log, char *buf, size_t size)
{
	if (!log->present || !log->has_start)
		snprintf(buf, size, "the command never started (no start record)");
	else if (!log->has_finish)
		snprintf(buf, size, "the command was still running (no finish record)");
	else if (log->error[0])
		snprintf(buf, size, "the command could not run: %s", log->error);
	else if (log->exit_code >= 0)
		snprintf(buf, size, "the command finished with exit %d first", log->exit_code);
	else
		snprintf(buf, size, "the command was killed by signal %d", log->signal);
}

static int64_t age_s(const struct sb_classify_params *p, int64_t since_ns)
{
	return (p->now_ns - since_ns) / 1000000000;
}

void sb_classify(const struct sb_log_evidence *log, const struct sb_sched_evidence *sched,
		 const struct sb_classify_params *p, struct sb_verdict *out)
{
	const struct sb_sched_row *r = &sched->row;
	bool row = sched->consulted && sched->has_row && r->state != SB_STATE_UNKNOWN;
	bool outcome_row = sched->has_row && sched->from_outcome && r->state != SB_STATE_UNKNOWN;
	enum sb_sched_state st;
	bool started = log->present && log->has_start;
	bool finished = started && log->has_finish;
	bool exit0 = finished && log->exit_code == 0 && !log->error[0];
	char stext[96], ltext[192];

	row = row || outcome_row;
	st = row ? r->state : SB_STATE_UNKNOWN;
	out->reason[0] = '\0';
	if (row)
		state_text(r, stext, sizeof(stext));
	log_text(log, ltext, sizeof(ltext));

	/* 1. invalid */
	if (log->present && log->tail != SB_LOG_TAIL_OK && log->tail != SB_LOG_TAIL_TORN) {
		verdict(out, SB_CLASS_INVALID, "the log does not verify: %s", sb_log_tail_name(log->tail));
		return;
	}
	if (exit0 && log->changed[0]) {
		verdict(out, SB_CLASS_INVALID, "%s", log->changed);
		return;
	}

	/* 2. inconsistent */
	if (started && log->job_id[0] && row && r->raw_id != 0 &&
	    strtoull(log->job_id, NULL, 10) != r->raw_id) {
		verdict(out, SB_CLASS_INCONSISTENT, "the log was written by job %s, but the scheduler "
			"ran this child as job %s (raw id %" PRIu64 ")", log->job_id, r->job_id, r->raw_id);
		return;
	}
	if (started && log->job_id[0] && sched->submitted_job_id[0] &&
	    strcmp(log->job_id, sched->submitted_job_id) != 0) {
		verdict(out, SB_CLASS_INCONSISTENT, "the log was written by job %s, but job %s was "
			"submitted for this child", log->job_id, sched->submitted_job_id);
		return;
	}
	if (st == SB_STATE_COMPLETED && !started) {
		int64_t end_ns = r->end >= 0 ? r->end * 1000000000LL : sched->submit_ns;
		if (age_s(p, end_ns) >= p->settle_s) {
			verdict(out, SB_CLASS_INCONSISTENT, "the scheduler says job %s COMPLETED, "
				"but the log has no start record", r->job_id);
			return;
		}
		verdict(out, SB_CLASS_RUNNING, "job %s COMPLETED; waiting up to %" PRId64
			" s for its log to appear", r->job_id, p->settle_s);
		return;
	}
	if (exit0 && st == SB_STATE_FAILED) {
		verdict(out, SB_CLASS_INCONSISTENT, "the command finished with exit 0, but the "
			"scheduler says job %s FAILED (ExitCode %d:%d)", r->job_id, r->exit_code,
			r->exit_signal);
		return;
	}
	if (finished && (is_active_state(st) || is_pending_state(st)) &&
	    age_s(p, log->finish_ns) >= p->settle_s) {
		verdict(out, SB_CLASS_INCONSISTENT, "the finish record is %" PRId64 " s old, but "
			"the scheduler still says job %s is %s", age_s(p, log->finish_ns), r->job_id, stext);
		return;
	}

	/* 3. killed */
	if (is_killed_state(st)) {
		verdict(out, SB_CLASS_KILLED, "%s; %s", stext, ltext);
		return;
	}
	if (sched->cancel_recorded && !started && !is_active_state(st)) {
		verdict(out, SB_CLASS_KILLED, "cancelled by 'sbctl cancel' before it started");
		return;
	}

	/* 4. failed */
	if (finished && !exit0) {
		if (log->error[0])
			verdict(out, SB_CLASS_FAILED, "the command could not run: %s", log->error);
		else if (log->exit_code >= 0)
			verdict(out, SB_CLASS_FAILED, "exit %d", log->exit_code);
		else
			verdict(out, SB_CLASS_FAILED, "killed by signal %d", log->signal);
		return;
	}
	if (!started && st == SB_STATE_FAILED) {
		verdict(out, SB_CLASS_FAILED, "job %s FAILED (ExitCode %d:%d) before sbagent started",
			r->job_id, r->exit_code, r->exit_signal);
		return;
	}

	/* 5. partial */
	if (exit0 && log->not_ok[0]) {
		verdict(out, SB_CLASS_PARTIAL, "exit 0, but %s", log->not_ok);
		return;
	}

	/* 6. succeeded */
	if (exit0 && st == SB_STATE_COMPLETED)
		return (void)verdict(out, SB_CLASS_SUCCEEDED, "%s", "");
	if (exit0 && !sched->consulted && !outcome_row) {
		verdict(out, SB_CLASS_SUCCEEDED, "verified by the log alone (scheduler not consulted)");
		return;
	}

	/* 7. incomplete */
	if (started && !finished && row && !is_active_state(st) && !is_pending_state(st)) {
		verdict(out, SB_CLASS_INCOMPLETE, "started, but no finish record%s, and job %s is %s",
			log->tail == SB_LOG_TAIL_TORN ? " (torn last record)" : "", r->job_id, stext);
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
		verdict(out, SB_CLASS_RUNNING, "%s%s%s", stext, r->nodes[0] ? " on " : "", r->nodes);
		if (!started)
			strncat(out->reason, " (no start record yet)",
				sizeof(out->reason) - strlen(out->reason) - 1);
		return;
	}
	if (started && !finished && !row) {
		verdict(out, SB_CLASS_RUNNING, "the log shows it alive %" PRId64 " s ago; the scheduler %s",
			age_s(p, log->last_life_ns),
			sched->consulted ? "has no record of it yet" : "was not consulted");
		return;
	}
	if (exit0 && !row && age_s(p, log->finish_ns) < p->settle_s) {
		verdict(out, SB_CLASS_RUNNING, "finished with exit 0; waiting up to %" PRId64
			" s for the scheduler to confirm", p->settle_s);
		return;
	}

	/* 10. pending */
	if (is_pending_state(st)) {
		verdict(out, SB_CLASS_PENDING, "%s%s%s%s", stext, r->reason[0] ? " (" : "", r->reason,
			r->reason[0] ? ")" : "");
		return;
	}
	if (exit0) {
		verdict(out, SB_CLASS_INCONSISTENT, "the command finished with exit 0, but the "
			"scheduler has no record of the job");
		return;
	}
	if (started) { /* started, no finish, a terminal state this table has no row for */
		verdict(out, SB_CLASS_INCOMPLETE, "started, but no finish record, and the scheduler says %s",
			row ? stext : "nothing");
		return;
	}

	/* 11. missing */
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
		verdict(out, SB_CLASS_MISSING, "no log, and the scheduler says %s", stext);
		return;
	}
	verdict(out, SB_CLASS_MISSING, sched->consulted
		? "no scheduler record, no reconciled outcome and no log"
		: "no log (scheduler not consulted)");
}
