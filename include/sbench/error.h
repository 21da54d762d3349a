/* sbench — error reporting shared by every library function.
 *
 * Library functions return 0 / -1 (or a pointer / NULL) and fill an optional
 * last argument `struct sb_error *err` with a human message: lower case, what
 * went wrong first, then where and why, no full stop, and a code that says
 * what kind of failure it was (so that a command maps it to its exit status
 * and a binding to an exception type).  They never print and never exit;
 * only the executables do.
 *
 * A zero-initialised struct sb_error is valid (code SB_ERR_NONE, empty
 * message).  err may be NULL everywhere: the failure is then only told by
 * the return value. */
#ifndef SBENCH_ERROR_H
#define SBENCH_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define SB_ERROR_MAX 1024

enum sb_error_code {
	SB_ERR_NONE = 0,  /* no error was reported */
	SB_ERR_RUNTIME,   /* the operation could not be done: I/O, the scheduler, a
			   * partial submit that can be resumed (sbctl exits 1) */
	SB_ERR_INPUT,     /* usage or input error: a bad spec, a bad argument, a
			   * file or directory sbench refuses to use (exit 2) */
	SB_ERR_NOT_FOUND, /* what was named does not exist: a file, a benchmark,
			   * a child (exit 2) */
	SB_ERR_NOMEM,     /* out of memory (exit 1) */
	SB_ERR_TIMEOUT,   /* the time the caller allowed ran out before the
			   * operation was done, e.g. sb_status_wait with
			   * children still pending or running (exit 1) */
	SB_ERR_SCHEDULER, /* the scheduler could not be asked or did not answer
			   * (squeue, sacct: slurmdbd down, a command that timed
			   * out); a status computed offline needs no
			   * scheduler (exit 1) */
	SB_ERR_INTERRUPTED, /* the caller's stop callback asked a wait to stop
			     * (sb_ctx_set_stop); sbctl sets none */
};

struct sb_error {
	char msg[SB_ERROR_MAX];
	enum sb_error_code code;
};

/* Formats a message into err (which may be NULL; a message longer than
 * SB_ERROR_MAX - 1 bytes is cut and ends in "...", never cut silently),
 * sets its code to SB_ERR_RUNTIME, and returns -1, so that
 * `return sb_errorf(err, "cannot open '%s': %s", path, strerror(errno));`
 * reads well. */
int sb_errorf(struct sb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like sb_errorf with the given code. */
int sb_error_set(struct sb_error *err, enum sb_error_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like sb_errorf, but puts "what: " in front of the message already in err
 * (context added by a caller); the code stays.  Returns -1. */
int sb_error_prefix(struct sb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The code's name: "none", "runtime", "input", "not_found", "out_of_memory",
 * "timeout", "scheduler", "interrupted".
 * A static string. */
const char *sb_error_code_name(enum sb_error_code code);

#ifdef __cplusplus
}
#endif

#endif
