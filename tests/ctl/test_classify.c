/* The classification table (docs/classification.md), one case per
 * cell: log evidence x scheduler evidence -> class and reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "status/classify.h"

#define NOW (1800000000LL * 1000000000LL)
#define S(x) ((int64_t)(x) * 1000000000LL)

/* log shapes */
enum shape { NOLOG, STARTED, FIN0, FIN3, FINSIG, FINEXEC, TORN_START };

struct tcase {
	const char *name;
	enum shape shape;
	enum sb_log_tail tail;
	const char *not_ok, *changed;
	const char *early;      /* the finish's early stop (class stopped) */
	const char *interrupted; /* the finish's checkpoint interruption */
	int64_t life_ago;       /* seconds since the last sign of life / finish */
	const char *log_job;
	/* scheduler */
	int consulted, submitted, cancel, outcome;
	const char *state;      /* NULL: no row */
	uint64_t raw;
	int64_t end_ago;        /* seconds since the row's End */
	int no_end;             /* the row has no End (then Start is end_ago ago) */
	int64_t submit_ago;
	int submitting;         /* a submit holds the benchmark's lock */
	int64_t intent_ago;     /* an intent with no outcome, that long ago */
	int row_exit;           /* the row's ExitCode N (N:0) */
	int64_t lag;            /* the storage lag (a shared file system) */
	int64_t made_ago;       /* the benchmark was made that long ago (0: long) */
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
	/* 3b stopped (v3): after killed, before failed, never succeeded */
#define ES "loss=7.3 above 5 after 600 s, as declared"
	{ "early stop, TERM", FINSIG, .early = ES, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_STOPPED, .reason = "early stop: " ES },
	{ "early stop, trapped TERM, exit 0", FIN0, .early = ES, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_STOPPED, .reason = "early stop: loss=7.3" },
	{ "early stop, offline", FIN0, .early = ES, .submitted = 1, .want = SB_CLASS_STOPPED },
	{ "early stop, then a time limit", FINSIG, .early = ES, .consulted = 1, .submitted = 1, .state = "TIMEOUT", .want = SB_CLASS_KILLED },
	{ "early stop, result changed since", FIN0, .early = ES, .changed = "result 'out' changed after the finish", .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_INVALID },
	/* 3c a finish the scheduler has not confirmed waits, whatever it records */
	{ "signal, accounting lags", FINSIG, .life_ago = 2, .consulted = 1, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "finished (killed by signal 15); waiting up to 10 s for the scheduler to confirm" },
	{ "signal, accounting lags, settled", FINSIG, .life_ago = 10, .consulted = 1, .submitted = 1, .want = SB_CLASS_FAILED, .reason = "killed by signal 15" },
	{ "signal, then CANCELLED", FINSIG, .life_ago = 2, .consulted = 1, .submitted = 1, .state = "CANCELLED by 1001", .want = SB_CLASS_KILLED, .reason = "CANCELLED by uid 1001" },
	{ "signal, still RUNNING", FINSIG, .life_ago = 2, .consulted = 1, .submitted = 1, .state = "RUNNING", .want = SB_CLASS_RUNNING, .reason = "finished (killed by signal 15), but the scheduler still says job 12_3 is RUNNING; waiting up to 10 s for it to end" },
	{ "exit 3, accounting lags", FIN3, .life_ago = 9, .consulted = 1, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "finished (exit 3)" },
	{ "exit 3, COMPLETING", FIN3, .life_ago = 1, .consulted = 1, .submitted = 1, .state = "COMPLETING", .want = SB_CLASS_RUNNING, .reason = "finished (exit 3), but" },
	{ "exec failed, accounting lags", FINEXEC, .life_ago = 1, .consulted = 1, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "finished (the command could not run)" },
	{ "result missing, accounting lags", FIN0, .not_ok = "result 'model.pt' is missing", .life_ago = 1, .consulted = 1, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "finished (exit 0, but result 'model.pt' is missing)" },
	{ "result missing, settled", FIN0, .not_ok = "result 'model.pt' is missing", .life_ago = 30, .consulted = 1, .submitted = 1, .want = SB_CLASS_PARTIAL },
	{ "early stop, accounting lags", FINSIG, .early = ES, .life_ago = 1, .consulted = 1, .submitted = 1, .want = SB_CLASS_RUNNING, .reason = "finished (stopped early)" },
	{ "exit 3, offline: no wait", FIN3, .life_ago = 1, .submitted = 1, .want = SB_CLASS_FAILED },
	{ "settle 0: no wait", FINSIG, .life_ago = 0, .consulted = 1, .submitted = 1, .end_ago = -1, .want = SB_CLASS_FAILED },
	/* 4 failed */
	{ "exit 3", FIN3, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "exit 3" },
	{ "signal", FINSIG, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "signal 15" },
	{ "exec failed", FINEXEC, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "could not run" },
	{ "exit 3 offline", FIN3, .want = SB_CLASS_FAILED },
	{ "failed before agent", NOLOG, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_FAILED, .reason = "before sbagent started" },
	{ "sbagent refused to start", NOLOG, .consulted = 1, .submitted = 1, .state = "FAILED", .row_exit = 125, .want = SB_CLASS_FAILED, .reason = "(ExitCode 125:0): sbagent could not start the run (its stderr says why)" },
	/* 5 partial */
	{ "result missing", FIN0, .not_ok = "result 'model.pt' is missing", .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_PARTIAL, .reason = "model.pt" },
	/* a run interrupted for a checkpoint while its job is requeued: the
	 * requeue may take longer than the settle time on a busy cluster (seen
	 * on real Slurm under load: inconsistent, then running) */
	{ "interrupted, requeue slow", FINSIG, .interrupted = "interrupted by the pre-timeout signal USR1 for a requeue", .life_ago = 30, .consulted = 1, .submitted = 1, .state = "RUNNING", .no_end = 1, .want = SB_CLASS_RUNNING, .reason = "its requeue is under way" },
	{ "interrupted, requeued", FINSIG, .interrupted = "interrupted by the pre-timeout signal USR1 for a requeue", .life_ago = 30, .consulted = 1, .submitted = 1, .state = "PENDING", .no_end = 1, .want = SB_CLASS_PENDING, .reason = "its requeue is under way" },
	{ "interrupted, job over", FINSIG, .interrupted = "interrupted by the pre-timeout signal USR1 for a requeue", .life_ago = 30, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_KILLED, .reason = "with no run after it" },
	/* a result path with a terminal escape in it: shown, never acted on */
	{ "result path with controls", FIN0, .not_ok = "result 'a\x1b[2J.pt' is missing", .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_PARTIAL, .reason = "result 'a\\x1b[2J.pt' is missing" },
	/* 6 succeeded */
	{ "success", FIN0, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_SUCCEEDED },
	{ "success offline", FIN0, .submitted = 1, .want = SB_CLASS_SUCCEEDED, .reason = "log alone" },
	{ "success from outcome", FIN0, .submitted = 1, .outcome = 1, .state = "COMPLETED", .want = SB_CLASS_SUCCEEDED },
	{ "offline, outcome says cancelled", FIN0, .submitted = 1, .outcome = 1, .state = "CANCELLED by 5", .want = SB_CLASS_KILLED },
	/* 7 incomplete */
	{ "started, job FAILED", STARTED, .consulted = 1, .submitted = 1, .state = "FAILED", .want = SB_CLASS_INCOMPLETE, .reason = "no finish record" },
	{ "torn, job COMPLETED", TORN_START, SB_LOG_TAIL_TORN, .consulted = 1, .submitted = 1, .state = "COMPLETED", .want = SB_CLASS_INCOMPLETE, .reason = "torn" },
	/* the settle time since the job's End, for every "over, no log / no finish" verdict:
	 * until then the run keeps the class it had while it ran */
	{ "started, FAILED 2 s ago", STARTED, .consulted = 1, .submitted = 1, .state = "FAILED", .end_ago = 2, .want = SB_CLASS_RUNNING, .reason = "job 12_3 ended 2 s ago (FAILED); waiting up to 10 s for its finish record" },
	{ "started, COMPLETED 9 s ago", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 9, .want = SB_CLASS_RUNNING, .reason = "finish record" },
	{ "started, COMPLETED 10 s ago", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 10, .want = SB_CLASS_INCOMPLETE, .reason = "no finish record" },
	{ "torn, COMPLETED 1 s ago", TORN_START, SB_LOG_TAIL_TORN, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 1, .want = SB_CLASS_RUNNING, .reason = "ended 1 s ago" },
	{ "settle from End, not submission", STARTED, .consulted = 1, .submitted = 1, .submit_ago = 5000, .state = "COMPLETED", .end_ago = 3, .want = SB_CLASS_RUNNING, .reason = "ended 3 s ago" },
	{ "started, from an outcome, ended 2 s ago", STARTED, .submitted = 1, .outcome = 1, .state = "FAILED", .end_ago = 2, .want = SB_CLASS_RUNNING, .reason = "finish record" },
	{ "no End: settle from Start", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETED", .no_end = 1, .end_ago = 2, .want = SB_CLASS_RUNNING, .reason = "ended 2 s ago" },
	{ "failed before agent, 2 s ago", NOLOG, .consulted = 1, .submitted = 1, .state = "FAILED", .end_ago = 2, .want = SB_CLASS_RUNNING, .reason = "for its log to appear" },
	{ "completed no start, 5 s ago", NOLOG, .consulted = 1, .submitted = 1, .submit_ago = 5000, .state = "COMPLETED", .end_ago = 5, .want = SB_CLASS_RUNNING, .reason = "ended 5 s ago (COMPLETED)" },
	{ "special exit, no log, 2 s ago", NOLOG, .consulted = 1, .submitted = 1, .state = "SPECIAL_EXIT", .end_ago = 2, .want = SB_CLASS_RUNNING, .reason = "log to appear" },
	{ "special exit, no log, settled", NOLOG, .consulted = 1, .submitted = 1, .state = "SPECIAL_EXIT", .end_ago = 60, .want = SB_CLASS_MISSING, .reason = "no log, and the scheduler says SPECIAL_EXIT" },
	{ "killed needs no settling", STARTED, .consulted = 1, .submitted = 1, .state = "TIMEOUT", .end_ago = 1, .want = SB_CLASS_KILLED, .reason = "TIMEOUT" },
	{ "settle 0 judges at once", STARTED, .consulted = 1, .submitted = 1, .state = "FAILED", .end_ago = -1, .want = SB_CLASS_INCOMPLETE },
	/* on shared storage (a lag of 60 s): what rests on a file being absent,
	 * or on what a result looks like now, waits settle + lag since the End */
	{ "shared: started, COMPLETED 30 s ago", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 30, .lag = 60, .want = SB_CLASS_RUNNING, .reason = "ended 30 s ago (COMPLETED); waiting up to 70 s for its finish record" },
	{ "shared: started, COMPLETED 69 s ago", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 69, .lag = 60, .want = SB_CLASS_RUNNING, .reason = "finish record" },
	{ "shared: started, COMPLETED 70 s ago", STARTED, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 70, .lag = 60, .want = SB_CLASS_INCOMPLETE, .reason = "no finish record" },
	{ "shared: no start, COMPLETED 40 s ago", NOLOG, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 40, .lag = 60, .want = SB_CLASS_RUNNING, .reason = "log to appear" },
	{ "shared: no log, FAILED 65 s ago", NOLOG, .consulted = 1, .submitted = 1, .state = "FAILED", .end_ago = 65, .lag = 60, .want = SB_CLASS_RUNNING, .reason = "log to appear" },
	{ "shared: no log, FAILED 75 s ago", NOLOG, .consulted = 1, .submitted = 1, .state = "FAILED", .end_ago = 75, .lag = 60, .want = SB_CLASS_FAILED, .reason = "before sbagent started" },
	{ "shared: killed at once, its log not shown", STARTED, .consulted = 1, .submitted = 1, .state = "TIMEOUT", .end_ago = 5, .lag = 60, .want = SB_CLASS_KILLED, .reason = "TIMEOUT; its log shows no finish record yet (the job ended 5 s ago; another node's writes may take up to 70 s to show here)" },
	{ "shared: killed, no start shown", NOLOG, .consulted = 1, .submitted = 1, .state = "CANCELLED by 5", .end_ago = 5, .lag = 60, .want = SB_CLASS_KILLED, .reason = "no start record yet" },
	{ "shared: killed, settled", STARTED, .consulted = 1, .submitted = 1, .state = "TIMEOUT", .end_ago = 80, .lag = 60, .want = SB_CLASS_KILLED, .reason = "TIMEOUT; the command was still running (no finish record)" },
	{ "shared: killed after its finish", FINSIG, .consulted = 1, .submitted = 1, .state = "CANCELLED by 5", .end_ago = 2, .lag = 60, .want = SB_CLASS_KILLED, .reason = "killed by signal 15" },
	{ "shared: result changed 20 s after End", FIN0, .changed = "result 'out' changed after the verified finish", .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 20, .lag = 60, .want = SB_CLASS_RUNNING, .reason = "result 'out' changed after the verified finish, 20 s after the job ended; waiting up to 70 s for shared storage" },
	{ "shared: result changed, settled", FIN0, .changed = "result 'out' changed after the verified finish", .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 80, .lag = 60, .want = SB_CLASS_INVALID, .reason = "changed after" },
	{ "shared: result changed, offline, 5 s after the finish", FIN0, .changed = "result 'out' changed after the verified finish", .life_ago = 5, .submitted = 1, .lag = 60, .want = SB_CLASS_RUNNING, .reason = "5 s after the job finished" },
	{ "shared: no submission, made 5 s ago", NOLOG, .consulted = 1, .lag = 60, .made_ago = 5, .want = SB_CLASS_PENDING, .reason = "no submission shows here yet (the benchmark was made 5 s ago; another node's submit may take up to 70 s to show here)" },
	{ "shared: no submission, made 70 s ago", NOLOG, .consulted = 1, .lag = 60, .made_ago = 70, .want = SB_CLASS_MISSING, .reason = "never submitted" },
	{ "local: no submission, made 5 s ago", NOLOG, .consulted = 1, .made_ago = 5, .want = SB_CLASS_MISSING, .reason = "never submitted" },
	{ "shared: cancelled while queued, no start shown yet", NOLOG, .consulted = 1, .submitted = 1, .cancel = 1, .state = "PENDING", .end_ago = 5, .lag = 60, .want = SB_CLASS_KILLED, .reason = "its log shows no start record yet" },
	{ "shared: cancelled, no row, its start not shown yet", NOLOG, .consulted = 1, .submitted = 1, .cancel = 1, .submit_ago = 20, .lag = 60, .want = SB_CLASS_KILLED, .reason = "cancelled by 'sbctl cancel'; its log shows no start record yet" },
	{ "shared: cancelled, no row, settled", NOLOG, .consulted = 1, .submitted = 1, .cancel = 1, .submit_ago = 200, .lag = 60, .want = SB_CLASS_KILLED, .reason = "before it started" },
	{ "shared: success is not delayed", FIN0, .consulted = 1, .submitted = 1, .state = "COMPLETED", .end_ago = 1, .lag = 60, .want = SB_CLASS_SUCCEEDED },
	{ "shared: a failure the log shows is not delayed", FIN3, .life_ago = 20, .consulted = 1, .submitted = 1, .state = "FAILED", .end_ago = 1, .row_exit = 3, .lag = 60, .want = SB_CLASS_FAILED, .reason = "exit 3" },
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
	/* a submit in progress: intent recorded, no job id yet */
	{ "submit running", NOLOG, .consulted = 1, .submitting = 1, .intent_ago = 300, .want = SB_CLASS_PENDING, .reason = "being submitted (a submit of this benchmark is running" },
	{ "submit running, no intent yet", NOLOG, .consulted = 1, .submitting = 1, .want = SB_CLASS_PENDING, .reason = "being submitted" },
	{ "intent 2 s ago", NOLOG, .consulted = 1, .intent_ago = 2, .want = SB_CLASS_PENDING, .reason = "being submitted (intent recorded 2 s ago" },
	/* the job ran and finished before its submit recorded its id: the
	 * scheduler was not asked about it, so its silence is no evidence */
	{ "finished, submit running", FIN0, .life_ago = 60, .consulted = 1, .submitting = 1, .intent_ago = 300, .want = SB_CLASS_RUNNING, .reason = "job id is not recorded yet" },
	{ "finished, intent 2 s ago", FIN0, .life_ago = 1, .consulted = 1, .intent_ago = 2, .want = SB_CLASS_RUNNING, .reason = "job id is not recorded yet" },
	{ "finished, submit gone", FIN0, .life_ago = 60, .consulted = 1, .intent_ago = 100, .want = SB_CLASS_INCONSISTENT, .reason = "no job id is recorded" },
	{ "intent, submit gone", NOLOG, .consulted = 1, .intent_ago = 100, .want = SB_CLASS_MISSING, .reason = "the submit stopped before sbatch answered" },
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
	static struct sb_log_notes notes;
	notes.error = c->shape == FINEXEC ? (char *)"exec failed: No such file or directory" : NULL;
	notes.not_ok = (char *)c->not_ok;
	notes.changed = (char *)c->changed;
	notes.early_stop = (char *)c->early;
	notes.interrupted = (char *)c->interrupted;
	/* none of them: no notes at all, as status leaves it */
	log->notes = notes.error || notes.not_ok || notes.changed || notes.early_stop ||
		     notes.interrupted ? &notes : NULL;
	log->job_id = (char *)c->log_job;
	log->last_life_ns = NOW - S(c->life_ago);
	log->finish_ns = log->has_finish ? NOW - S(c->life_ago) : 0;
	s->consulted = c->consulted;
	s->submitted = c->submitted;
	s->submit_ns = NOW - S(c->submit_ago ? c->submit_ago : 1000);
	s->cancel_recorded = c->cancel;
	s->from_outcome = c->outcome;
	s->submitting = c->submitting;
	s->intent_ns = c->intent_ago ? NOW - S(c->intent_ago) : 0;
	if (c->state) {
		int64_t end = (NOW - S(c->end_ago ? c->end_ago : 1000)) / 1000000000LL;
		s->has_row = true;
		s->row.state = sb_sched_state_parse(c->state, &s->row.cancelled_by);
		s->row.raw_id = c->raw;
		s->row.array_job = 12, s->row.array_task = 3;
		s->row.nodes = "vm";
		s->row.reason = "";
		s->row.end = c->no_end ? -1 : end;
		s->row.start = c->no_end ? end : end - 30;
		s->row.submit = end - 60;
		s->row.exit_code = c->row_exit;
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
		/* end_ago -1: "--settle 0", judged at once however recent the End */
		p.settle_s = cases[i].end_ago < 0 ? 0 : 10;
		p.storage_lag_s = cases[i].lag;
		p.made_ns = cases[i].made_ago ? NOW - S(cases[i].made_ago) : 0;
		if (cases[i].end_ago < 0)
			s.row.end = NOW / 1000000000LL;
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
		sb_verdict_release(&v);
	}
	assert_int_equal(failures, 0);
	for (i = 0; i < SB_CLASS_COUNT; i++)
		assert_true(covered[i] > 0);
}

/* Evidence texts of any length reach the reason whole (a result path of
 * 300 bytes is legal in a spec), and a long node list or pending reason too. */
static void test_long_texts(void **state)
{
	struct sb_classify_params p = { .now_ns = NOW, .heartbeat_s = 60, .settle_s = 10 };
	struct sb_log_evidence log = { 0 };
	struct sb_log_notes notes = { 0 };
	struct sb_sched_evidence s = { 0 };
	struct sb_verdict v = { 0 };
	char path[301], text[400], nodes[1001];

	(void)state;
	memset(path, 'd', 300);
	path[300] = '\0';
	for (size_t i = 20; i < 300; i += 20)
		path[i] = '/';
	snprintf(text, sizeof(text), "result '%s' was missing at finish", path);
	log.present = log.has_start = log.has_finish = true;
	log.exit_code = 0;
	notes.not_ok = text;
	log.notes = &notes;
	s.consulted = s.submitted = s.has_row = true;
	s.row.state = SB_STATE_COMPLETED;
	s.row.array_job = 12, s.row.array_task = 3;
	sb_classify(&log, &s, &p, &v);
	assert_int_equal(v.cls, SB_CLASS_PARTIAL);
	assert_non_null(strstr(v.reason, path));
	assert_string_equal(v.reason + strlen(v.reason) - strlen(" was missing at finish"), " was missing at finish");
	sb_verdict_release(&v);

	memset(nodes, 'n', 1000);
	nodes[1000] = '\0';
	log.has_finish = false;
	log.last_life_ns = NOW;
	s.row.state = SB_STATE_RUNNING;
	s.row.nodes = nodes;
	sb_classify(&log, &s, &p, &v);
	assert_int_equal(v.cls, SB_CLASS_RUNNING);
	assert_int_equal(strlen(v.reason), strlen("RUNNING on ") + 1000);
	sb_verdict_release(&v);
}

/* The scheduler is asked before the logs are read: a finish written after
 * it answered is not contradicted by its RUNNING, even with --settle 0. */
static void test_read_order(void **state)
{
	struct sb_classify_params p = { .now_ns = NOW, .asked_ns = NOW - S(2), .heartbeat_s = 60 };
	struct sb_log_evidence log = { 0 };
	struct sb_sched_evidence s = { 0 };
	struct sb_verdict v = { 0 };

	(void)state;
	log.present = log.has_start = log.has_finish = true;
	log.exit_code = 0;
	log.finish_ns = log.last_life_ns = NOW - S(1);
	s.consulted = s.submitted = s.has_row = true;
	s.row.state = SB_STATE_RUNNING;
	s.row.array_job = 12, s.row.array_task = 3;
	sb_classify(&log, &s, &p, &v);
	assert_int_equal(v.cls, SB_CLASS_RUNNING);
	sb_verdict_release(&v);
	p.asked_ns = NOW; /* the same finish, older than the scheduler's answer */
	sb_classify(&log, &s, &p, &v);
	assert_int_equal(v.cls, SB_CLASS_INCONSISTENT);
	sb_verdict_release(&v);
}

/* A verdict can be given a new reason (the duplicate-submission note). */
static void test_set_reason(void **state)
{
	struct sb_verdict v = { 0 };

	(void)state;
	sb_verdict_set_reason(&v, "a %d", 1);
	sb_verdict_set_reason(&v, "%s and b", v.reason[0] ? "x" : "");
	assert_string_equal(v.reason, "x and b");
	sb_verdict_release(&v);
	assert_null(v.reason);
	sb_verdict_release(&v);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sb_class_name(SB_CLASS_SUCCEEDED), "succeeded");
	assert_string_equal(sb_class_name(SB_CLASS_RUNNING), "running");
	assert_string_equal(sb_log_tail_name(SB_LOG_TAIL_CHAIN_BREAK), "chain_break");
}


/* A log's job id is kept as a number when it is one written as one, else
 * as its text: either way it reads back the same and classifies the same. */
static void test_log_job_id(void **state)
{
	static const char *ids[] = { "77", "0", "18446744073", "077", "77a", "12345678901234567890", "" };
	char buf[SB_LOG_JOB_NUM_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct sb_log_evidence l = { 0 };
		assert_int_equal(sb_log_evidence_set_job_id(&l, ids[i]), 0);
		assert_int_equal(l.job_is_num, i < 3);
		assert_string_equal(sb_log_job_id(&l, buf), ids[i]);
		if (!l.job_is_num)
			free(l.job_id);
	}
	/* "77" against the scheduler's raw id 78, as a number and as text */
	for (i = 0; i < 2; i++) {
		struct sb_log_evidence l = { .present = true, .has_start = true, .has_finish = true,
					     .exit_code = 0, .last_life_ns = NOW, .finish_ns = NOW };
		struct sb_sched_evidence s = { .consulted = true, .submitted = true, .has_row = true,
					       .submit_ns = NOW - S(1000) };
		struct sb_classify_params p = { .now_ns = NOW, .heartbeat_s = 60, .settle_s = 10 };
		struct sb_verdict v = { 0 };
		if (i == 0)
			assert_int_equal(sb_log_evidence_set_job_id(&l, "77"), 0);
		else
			l.job_id = (char *)"77";
		s.row.state = SB_STATE_COMPLETED;
		s.row.raw_id = 78;
		s.row.array_job = 12, s.row.array_task = 3;
		s.row.cancelled_by = -1;
		s.row.end = NOW / 1000000000LL - 1000;
		s.row.start = s.row.end - 30;
		s.row.submit = s.row.start - 10;
		s.row.nodes = s.row.reason = s.row.name = "";
		sb_classify(&l, &s, &p, &v);
		assert_int_equal(v.cls, SB_CLASS_INCONSISTENT);
		assert_string_equal(v.reason, "the log was written by job 77, but the scheduler ran "
			"this child as job 12_3 (raw id 78)");
		sb_verdict_release(&v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_log_job_id),
		cmocka_unit_test(test_long_texts),
		cmocka_unit_test(test_read_order),
		cmocka_unit_test(test_set_reason),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
