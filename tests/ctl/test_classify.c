/* The classification table (DESIGN §7, docs/classification.md), one case per
 * cell: log evidence x scheduler evidence -> class and reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ctl/classify.h"

#define NOW (1800000000LL * 1000000000LL)
#define S(x) ((int64_t)(x) * 1000000000LL)

/* log shapes */
enum shape { NOLOG, STARTED, FIN0, FIN3, FINSIG, FINEXEC, TORN_START };

struct tcase {
	const char *name;
	enum shape shape;
	enum sb_log_tail tail;
	const char *not_ok, *changed;
	int64_t life_ago;       /* seconds since the last sign of life / finish */
	const char *log_job;
	/* scheduler */
	int consulted, submitted, cancel, outcome;
	const char *state;      /* NULL: no row */
	uint64_t raw;
	int64_t end_ago;        /* seconds since the row's End */
	int64_t submit_ago;
	enum sb_class want;
	const char *reason;     /* a substring of the reason */
};

static const struct tcase cases[] = {
	/* 1 invalid */
	{ "bad mac", FIN0, SB_LOG_TAIL_BAD_MAC, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_INVALID, .reason = "bad_mac" },
	{ "corrupt", STARTED, SB_LOG_TAIL_CORRUPT, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_INVALID, .reason = "corrupt" },
	{ "chain break", FIN0, SB_LOG_TAIL_CHAIN_BREAK, .want = SB_CLASS_INVALID, .reason = "chain_break" },
	{ "foreign", FIN0, SB_LOG_TAIL_FOREIGN, .consulted = 1, .state = "COMPLETED", .want = SB_CLASS_INVALID, .reason = "foreign" },
	{ "rollback", FIN3, SB_LOG_TAIL_ROLLBACK, .want = SB_CLASS_INVALID, .reason = "rollback" },
	{ "result changed", FIN0, .changed = "result 'out' changed after the finish", .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_INVALID, .reason = "changed after" },
	/* 2 inconsistent */
	{ "other job id", FIN0, .log_job = "77", .consulted = 1, .submitted = 1, .state = "COMPLETED", .raw = 78, .want = SB_CLASS_INCONSISTENT, .reason = "written by job 77" },
	{ "completed no start", NOLOG, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 60, .want = SB_CLASS_INCONSISTENT, .reason = "no start record" },
	{ "completed no start, settling", NOLOG, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 2, .want = SB_CLASS_RUNNING, .reason = "waiting" },
	{ "exit 0 but FAILED", FIN0, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_INCONSISTENT, .reason = "FAILED" },
	{ "finished, still RUNNING", FIN0, .life_ago = 60, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_INCONSISTENT, .reason = "still says" },
	{ "finished, RUNNING, settling", FIN0, .life_ago = 3, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_RUNNING },
	{ "finished exit 3, still PENDING", FIN3, .life_ago = 60, .consulted = 1, .submitted = 1, .state = "PENDING", .want = SB_CLASS_INCONSISTENT },
	{ "exit 0, no record after settle", FIN0, .life_ago = 60, .consulted = 1, .submitted = 1, .want = SB_CLASS_INCONSISTENT, .reason = "no record" },
	/* 3 killed */
	{ "timeout while running", STARTED, .consulted = 1, .submitted = 1, .state = "TIMEOUT", .want = SB_CLASS_KILLED, .reason = "TIMEOUT; the command was still running" },
	{ "timeout after exit 0", FIN0, .consulted = 1, .submitted = 1, .state = "TIMEOUT", .want = SB_CLASS_KILLED, .reason = "finished with exit 0 first" },
	{ "cancelled by uid", FINSIG, .consulted = 1, .submitted = 1, .state = "CANCELLED by 1001", .want = SB_CLASS_KILLED, .reason = "CANCELLED by uid 1001; the command was killed by signal 15" },
	{ "oom", FIN0, .consulted = 1, .submitted = 1, .state = "OUT_OF_MEMORY", .want = SB_CLASS_KILLED, .reason = "OUT_OF_MEMORY" },
	{ "node fail no log", NOLOG, .consulted = 1, .submitted = 1, .state = "NODE_FAIL", .want = SB_CLASS_KILLED, .reason = "never started" },
	{ "preempted", STARTED, .consulted = 1, .submitted = 1, .state = "PREEMPTED", .want = SB_CLASS_KILLED },
	{ "boot fail", NOLOG, .consulted = 1, .submitted = 1, .state = "BOOT_FAIL", .want = SB_CLASS_KILLED },
	{ "deadline", NOLOG, .consulted = 1, .submitted = 1, .state = "DEADLINE", .want = SB_CLASS_KILLED },
	{ "sbctl cancel while pending", NOLOG, .consulted = 1, .submitted = 1, .cancel = 1, .submit_ago = 100, .want = SB_CLASS_KILLED, .reason = "sbctl cancel" },
	{ "sbctl cancel, offline", NOLOG, .submitted = 1, .cancel = 1, .want = SB_CLASS_KILLED },
	/* 4 failed */
	{ "exit 3", FIN3, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "exit 3" },
	{ "signal", FINSIG, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "signal 15" },
	{ "exec failed", FINEXEC, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "could not run" },
	{ "exit 3 offline", FIN3, .want = SB_CLASS_FAILED },
	{ "failed before agent", NOLOG, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "before sbagent started" },
	/* 5 partial */
	{ "result missing", FIN0, .not_ok = "result 'model.pt' is missing", .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_PARTIAL, .reason = "model.pt" },
	/* 6 succeeded */
	{ "success", FIN0, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_SUCCEEDED },
	{ "success offline", FIN0, .submitted = 1, .want = SB_CLASS_SUCCEEDED, .reason = "log alone" },
	{ "success from outcome", FIN0, .submitted = 1, .outcome = 1, .state = "COMPLETED", .want = SB_CLASS_SUCCEEDED },
	{ "offline, outcome says cancelled", FIN0, .submitted = 1, .outcome = 1, .state = "CANCELLED by 5", .want = SB_CLASS_KILLED },
	/* 7 incomplete */
	{ "started, job FAILED", STARTED, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_INCOMPLETE, .reason = "no finish record" },
	{ "torn, job COMPLETED", TORN_START, SB_LOG_TAIL_TORN, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_INCOMPLETE, .reason = "torn" },
	/* 8 stale */
	{ "stale running", STARTED, .life_ago = 400, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_STALE, .reason = "no sign of life for 400 s" },
	{ "stale no record", STARTED, .life_ago = 400, .consulted = 1, .submitted = 1, .want = SB_CLASS_STALE, .reason = "no record" },
	{ "stale offline", STARTED, .life_ago = 400, .submitted = 1, .want = SB_CLASS_STALE, .reason = "not consulted" },
	/* 9 running */
	{ "running", STARTED, .life_ago = 5, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_RUNNING, .reason = "RUNNING on vm" },
	{ "running, torn tail", TORN_START, SB_LOG_TAIL_TORN, .life_ago = 5, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_RUNNING },
	{ "running before start", NOLOG, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_RUNNING, .reason = "no start record yet" },
	{ "completing", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETING", .want = SB_CLASS_RUNNING },
	{ "suspended", STARTED, .consulted = 1, .submitted = 1, .state = "SUSPENDED", .want = SB_CLASS_RUNNING },
	{ "alive, offline", STARTED, .life_ago = 5, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "not consulted" },
	{ "finished, sacct lagging", FIN0, .life_ago = 2, .consulted = 1, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "confirm" },
	/* 10 pending */
	{ "pending", NOLOG, .consulted = 1, .submitted = 1, .state = "PENDING", .want = SB_CLASS_PENDING, .reason = "PENDING" },
	{ "requeued", STARTED, .consulted = 1, .submitted = 1, .state = "REQUEUED", .want = SB_CLASS_PENDING },
	{ "just submitted", NOLOG, .consulted = 1, .submitted = 1, .submit_ago = 2, .want = SB_CLASS_PENDING, .reason = "waiting for the scheduler" },
	/* 11 missing */
	{ "never submitted", NOLOG, .consulted = 1, .want = SB_CLASS_MISSING, .reason = "never submitted" },
	{ "vanished", NOLOG, .consulted = 1, .submitted = 1, .submit_ago = 100, .want = SB_CLASS_MISSING, .reason = "no scheduler record" },
	{ "offline nothing", NOLOG, .submitted = 1, .want = SB_CLASS_MISSING, .reason = "not consulted" },
	{ "unknown state is nothing", NOLOG, .consulted = 1, .submitted = 1, .state = "WEIRD", .submit_ago = 100, .want = SB_CLASS_MISSING },
	{ "unknown state, exit 0", FIN0, .life_ago = 60, .consulted = 1, .submitted = 1, .state = "WEIRD", .want = SB_CLASS_INCONSISTENT },
};

static void build(const struct tcase *c, struct sb_log_evidence *log, struct sb_sched_evidence *s)
{
	memset(log, 0, sizeof(*log));
	memset(s, 0, sizeof(*s));
	log->present = c->shape != NOLOG;
	log->tail = c->tail;
	log->has_start = c->shape != NOLOG;
	log->has_finish = c->shape >= FIN0 && c->shape <= FINEXEC;
	log->exit_code = c->shape == FIN0 ? 0 : c->shape == FIN3 ? 3 : c->shape == FINEXEC ? 127 : -1;
	log->signal = c->shape == FINSIG ? 15 : 0;
	if (c->shape == FINEXEC)
		snprintf(log->error, sizeof(log->error), "exec failed: No such file or directory");
	if (c->not_ok)
		snprintf(log->not_ok, sizeof(log->not_ok), "%s", c->not_ok);
	if (c->changed)
		snprintf(log->changed, sizeof(log->changed), "%s", c->changed);
	snprintf(log->job_id, sizeof(log->job_id), "%s", c->log_job ? c->log_job : "");
	log->last_life_ns = NOW - S(c->life_ago);
	log->finish_ns = log->has_finish ? NOW - S(c->life_ago) : 0;
	s->consulted = c->consulted;
	s->submitted = c->submitted;
	s->submit_ns = NOW - S(c->submit_ago ? c->submit_ago : 1000);
	s->cancel_recorded = c->cancel;
	s->from_outcome = c->outcome;
	if (c->state) {
		s->has_row = true;
		s->row.state = sb_sched_state_parse(c->state, &s->row.cancelled_by);
		s->row.raw_id = c->raw;
		snprintf(s->row.job_id, sizeof(s->row.job_id), "12_3");
		snprintf(s->row.nodes, sizeof(s->row.nodes), "vm");
		s->row.end = (NOW - S(c->end_ago ? c->end_ago : 1000)) / 1000000000LL;
		s->row.exit_code = 0;
		s->row.exit_signal = 0;
	}
}

static void test_table(void **state)
{
	struct sb_classify_params p = { .now_ns = NOW, .heartbeat_s = 60, .settle_s = 10 };
	size_t i, failures = 0;
	int covered[SB_CLASS_COUNT] = { 0 };

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_log_evidence log;
		struct sb_sched_evidence s;
		struct sb_verdict v;

		build(&cases[i], &log, &s);
		sb_classify(&log, &s, &p, &v);
		covered[v.cls]++;
		if (v.cls != cases[i].want ||
		    (cases[i].reason && !strstr(v.reason, cases[i].reason)) ||
		    (v.cls != SB_CLASS_SUCCEEDED && v.reason[0] == '\0')) {
			print_error("case '%s': got %s (%s), want %s with '%s'\n", cases[i].name,
				    sb_class_name(v.cls), v.reason, sb_class_name(cases[i].want),
				    cases[i].reason ? cases[i].reason : "");
			failures++;
		}
	}
	assert_int_equal(failures, 0);
	for (i = 0; i < SB_CLASS_COUNT; i++)
		assert_true(covered[i] > 0);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sb_class_name(SB_CLASS_SUCCEEDED), "succeeded");
	assert_string_equal(sb_class_name(SB_CLASS_RUNNING), "running");
	assert_string_equal(sb_log_tail_name(SB_LOG_TAIL_CHAIN_BREAK), "chain_break");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
