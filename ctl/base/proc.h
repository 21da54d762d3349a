/* Running external programs (sbatch, sacct, squeue, scancel, scontrol,
 * git): found through PATH and executed directly with an argument vector,
 * never through a shell. */
#ifndef SB_CTL_PROC_H
#define SB_CTL_PROC_H

#include <signal.h>
#include <stddef.h>

#include "sbench/error.h"

/* After the program itself exited, its output is read at most this much
 * longer (a grandchild may still hold the pipes). */
#define SB_PROC_GRACE_MS 200
/* A program still running at its deadline gets SIGTERM, and SIGKILL this
 * much later. */
#define SB_PROC_KILL_AFTER_MS 1000

/* Output captured from a program; each stream is NUL-terminated. */
struct sb_proc_result {
	int status;      /* the raw wait(2) status */
	int exit_code;   /* WEXITSTATUS, or -1 when killed by a signal */
	int term_signal; /* the signal that killed it, or 0 */
	int timed_out;   /* 1 when killed for exceeding the timeout */
	int interrupted; /* the first deferred interrupt signal that arrived
			  * during the call (sb_proc_opts.interrupt_wait_ms), or 0 */
	char *out;       /* stdout, at most max_output bytes */
	size_t out_len;
	char *err;       /* stderr, at most max_output bytes */
	size_t err_len;
	int truncated;   /* 1 when either stream exceeded max_output */
	int sink_rc;     /* what out_sink returned first other than 0, or 0 */
};

struct sb_proc_opts {
	size_t max_output;      /* bytes kept of each stream; the rest is read and dropped */
	int timeout_ms;         /* bound of the whole call; 0 = none */
	/* > 0: the caller has deferred the interrupt signals
	 * (sb_proc_defer_interrupts) around this call.  The first one that
	 * arrives is taken (res->interrupted) and leaves the program at most
	 * interrupt_wait_ms more; a second kills it at once. */
	int interrupt_wait_ms;
	/* Not NULL: stdout is handed to out_sink as it is read, in pieces of
	 * any size, instead of being kept (res->out is then "", and
	 * max_output bounds stderr alone).  A non-zero return stops the
	 * passing on (the rest is read and dropped); the first is kept in
	 * res->sink_rc. */
	int (*out_sink)(void *arg, const char *data, size_t len);
	void *out_sink_arg;
};

/* Runs argv[0] (searched in PATH) with argv, stdin from /dev/null, in its
 * own process group (so a Ctrl-C meant for sbctl does not reach it) and
 * killed by the kernel if sbctl dies (PR_SET_PDEATHSIG), and captures
 * stdout and stderr.
 *
 * The call is bounded even when the program leaves a descendant holding
 * its pipes: reading stops SB_PROC_GRACE_MS after the program itself
 * exited, or at the deadline.  A program still running at the deadline
 * (timeout_ms after the start) gets SIGTERM, its process group SIGKILL
 * SB_PROC_KILL_AFTER_MS later (timed_out set).  At the end whatever is left
 * of the process group is killed and the program reaped: no zombie, no
 * straggler.  So the call returns within timeout_ms + SB_PROC_KILL_AFTER_MS
 * plus scheduling slack.
 *
 * Returns 0 when the program ran (whatever its exit status; see res), -1
 * when it could not be started (err says why: "'sacct' not found in PATH",
 * ...).  The caller frees res with sb_proc_result_release. */
int sb_proc_run_opts(char *const argv[], const struct sb_proc_opts *o,
		     struct sb_proc_result *res, struct sb_error *err);

/* sb_proc_run_opts with { max_output, timeout_ms } and no interrupt watch. */
int sb_proc_run(char *const argv[], size_t max_output, int timeout_ms,
		struct sb_proc_result *res, struct sb_error *err);

void sb_proc_result_release(struct sb_proc_result *res);

/* The interrupt signals: SIGINT, SIGTERM and SIGHUP, less those this
 * process ignores (nohup). */
void sb_proc_interrupts(sigset_t *set);

/* Blocks the interrupt signals so that a critical section (record an
 * intent, run sbatch, record the job id) is not cut in the middle; the
 * previous mask goes to *saved. */
void sb_proc_defer_interrupts(sigset_t *saved);

/* Ends the deferral: takes an interrupt signal that arrived meanwhile (it
 * will not kill the process) and restores *saved.  Returns that signal's
 * number, or 0 when none arrived. */
int sb_proc_resume_interrupts(const sigset_t *saved);

/* Sleeps s seconds (nothing for s <= 0), whole: a signal that interrupts
 * nanosleep does not shorten it. */
void sb_sleep_s(double s);

#endif
