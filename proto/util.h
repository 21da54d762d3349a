/* Small text utilities shared by every module. */
#ifndef SB_PROTO_UTIL_H
#define SB_PROTO_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbench/error.h"

#define SB_DOUBLE_TEXT_MAX 32

/* The text of a float (docs/spec.md, "Text of a value"), as Python's repr
 * prints it: the shortest digits that read back equal, in fixed notation
 * when the decimal exponent is in [-4, 16) (with ".0" when integral), else
 * in exponent notation with at least two exponent digits ("0.1", "100.0",
 * "1e-05", "1e+16", "1.2345678901234568e+17"); "nan", "inf", "-inf",
 * "-0.0".  The digits are those of v correctly rounded to the fewest
 * significant digits that read back equal; they differ from Python's at 46
 * powers of two, whose nearest 16 digits do not read back while other 16
 * digits do (2^-24: "5.9604644775390625e-08", Python 5.960464477539063e-08).
 * The text never changes (proto/util.c says how it is computed fast).
 * Returns buf. */
char *sb_fmt_double(double v, char buf[SB_DOUBLE_TEXT_MAX]);

/* The text of v rounded to 6 significant digits, written as
 * sb_fmt_double writes it ("0.00707107", "100.0", "1500000.0", "1e+16"):
 * for views meant for people, where the exact text (JSON, CSV) is not
 * needed.  Returns buf. */
char *sb_fmt_double_short(double v, char buf[SB_DOUBLE_TEXT_MAX]);

/* Lowercase hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void sb_hex_encode(const uint8_t *in, size_t n, char *out);

/* s with every control character (below 0x20, and 0x7f) written as \xNN,
 * into out of size bytes, NUL-terminated: a message that shows a value
 * from a spec or a file name cannot move a terminal's cursor or change
 * its colours.  What does not fit ends in "...".  Returns out. */
char *sb_escape_controls(const char *s, char *out, size_t size);

/* The same, keeping the control character keep as it is (a message of
 * several lines keeps its '\n'); keep '\0' keeps none. */
char *sb_escape_controls_but(const char *s, char keep, char *out, size_t size);

/* Replaces every control character of s (below 0x20, and 0x7f) with '?'
 * in place: a text from a record or a file goes into a one-line reason.
 * Returns s. */
char *sb_blank_controls(char *s);

/* Parses exactly 2n lowercase or uppercase hex digits into out; -1 if not. */
int sb_hex_decode(const char *hex, uint8_t *out, size_t n);

/* RFC 3339 UTC text of a time in ns since the epoch, with nanoseconds:
 * "2026-11-30T13:00:00.123456789Z".  buf needs 32 bytes.  Returns buf. */
char *sb_fmt_time_ns(int64_t ns, char buf[32]);

/* Consecutive EINTRs after which a call counts as failed: a real kernel
 * never gets there, an injected fault must not hang the caller. */
#define SB_EINTR_MAX 1000

/* The one write loop: writes n bytes of buf to fd with wr (NULL: write(2)),
 * going on where a short write stopped and retrying EINTR (at most
 * SB_EINTR_MAX times in a row).  0, or -1 with errno (EIO for a write that
 * wrote nothing). */
int sb_write_all(ssize_t (*wr)(int, const void *, size_t), int fd, const void *buf, size_t n);

/* The one read loop: reads fd to its end into a new buffer (*data,
 * NUL-terminated, not counted in *len; the caller frees it), sized from
 * hint (the fstat size the caller has, or 0) and grown as needed, retrying
 * EINTR (at most SB_EINTR_MAX times in a row).  More than max bytes is
 * refused with EFBIG, never cut short.  0, or -1 with errno (ENOMEM, EFBIG,
 * read's own). */
int sb_read_all(int fd, size_t max, size_t hint, char **data, size_t *len);

/* Gives a failure reported with sb_errorf (code SB_ERR_RUNTIME) inside a
 * parser of user input its code at the parser's boundary: `code`.  Codes
 * set on purpose stay (out of memory is always set as SB_ERR_NOMEM where it
 * happens).  Accepts NULL. */
void sb_error_recode(struct sb_error *err, enum sb_error_code code);

#endif
