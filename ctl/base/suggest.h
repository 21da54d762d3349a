/* "Did you mean": the closest of a few candidate words to a misspelt one,
 * by edit distance (ASCII case differences are free), as the end of an
 * error message. */
#ifndef SB_CTL_SUGGEST_H
#define SB_CTL_SUGGEST_H

#include <stddef.h>

#define SB_SUGGEST_MAX 160

/* " (did you mean 'x'?)" for the closest of the n candidates when it is
 * close enough (1 edit for words of up to 4 bytes, 2 up to 8, else 3), or
 * "".  Words over 64 bytes match nothing.  Writes and returns buf. */
const char *sb_suggest(const char *word, const char *const *cands, size_t n,
		       char buf[SB_SUGGEST_MAX]);

/* The candidate sb_suggest would name (one of cands), or NULL. */
const char *sb_suggest_closest(const char *word, const char *const *cands, size_t n);

#endif
