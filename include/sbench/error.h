/* sbench — error reporting shared by every library function.
 *
 * Library functions return 0 / -1 (or a pointer / NULL) and fill an optional
 * last argument `struct sb_error *err` with a human message: lower case, what
 * went wrong first, then where and why, no full stop.  They never print and
 * never exit; only the executables do. */
#ifndef SBENCH_ERROR_H
#define SBENCH_ERROR_H

#define SB_ERROR_MAX 1024

struct sb_error {
	char msg[SB_ERROR_MAX];
};

/* Formats a message into err (which may be NULL; a message longer than
 * SB_ERROR_MAX - 1 bytes is cut and ends in "...", never cut silently) and
 * returns -1, so that `return sb_errorf(err, "cannot open '%s': %s", path, strerror(errno));`
 * reads well. */
int sb_errorf(struct sb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like sb_errorf, but puts "what: " in front of the message already in err
 * (context added by a caller).  Returns -1. */
int sb_error_prefix(struct sb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
