/* Running external programs (sbatch, sacct, squeue, scancel, scontrol,
 * git): found through PATH and executed directly with an argument vector,
 * never through a shell (DESIGN §0). */
#ifndef SB_CTL_PROC_H
#define SB_CTL_PROC_H

#include <stddef.h>

#include "sbench/error.h"

/* Output captured from a program; each stream is NUL-terminated. */
struct sb_proc_result {
	int status;      /* the raw wait(2) status */
	int exit_code;   /* WEXITSTATUS, or -1 when killed by a signal */
	int term_signal; /* the signal that killed it, or 0 */
	int timed_out;   /* 1 when killed for exceeding the timeout */
	char *out;       /* stdout, at most max_output bytes */
	size_t out_len;
	char *err;       /* stderr, at most max_output bytes */
	size_t err_len;
	int truncated;   /* 1 when either stream exceeded max_output */
};

/* Runs argv[0] (searched in PATH) with argv, stdin from /dev/null, and
 * captures stdout and stderr (at most max_output bytes each; the rest is
 * read and dropped).  A program still running after timeout_ms (0 = no
 * limit) is sent SIGTERM, then SIGKILL a second later.  Returns 0 when the
 * program ran (whatever its exit status; see res), -1 when it could not be
 * started (err says why: "'sacct' not found in PATH", ...).  The caller
 * frees res with sb_proc_result_release. */
int sb_proc_run(char *const argv[], size_t max_output, int timeout_ms,
		struct sb_proc_result *res, struct sb_error *err);

void sb_proc_result_release(struct sb_proc_result *res);

#endif
