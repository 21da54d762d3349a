/* Strict parsing of the numbers a user gives sbctl on its command line
 * (child indices, --settle, --timeout, --interval): decimal digits only, so
 * that "-1", "+1", " 1", "1x", "0x10", "1e3", "nan" or an empty string is a
 * usage error instead of a silently different number. */
#ifndef SB_CTL_NUMARG_H
#define SB_CTL_NUMARG_H

#include <stdint.h>

#include "sbench/error.h"

/* s is one or more digits 0-9 (nothing else) whose value is at most max:
 * stores it in *out and returns 0; else -1 with err saying why. */
int sb_parse_uint(const char *s, uint64_t max, uint64_t *out, struct sb_error *err);

/* s is a number of seconds: digits with an optional fraction ("30", "0.5",
 * "2."), nothing else, at most max: stores it in *out and returns 0; else -1
 * with err saying why. */
int sb_parse_seconds(const char *s, double max, double *out, struct sb_error *err);

#endif
