/* The renderers' shared tail: a renderer that writes to a FILE * made into
 * one that fills a malloc'd buffer (the *_render_buffer functions of the
 * public API, for callers without a FILE *, such as a binding). */
#ifndef SB_CTL_RENDER_H
#define SB_CTL_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "sbench/error.h"

typedef int sb_render_fn(const void *obj, int format, FILE *out, struct sb_error *err);

/* Calls fn(obj, format, f, err) with f a memory stream; on 0, *buf is the
 * malloc'd NUL-terminated bytes written (*len of them when len is not
 * NULL); on -1 (fn failed, or out of memory: SB_ERR_NOMEM), *buf is NULL.
 * buf must not be NULL. */
int sb_render_buffer(sb_render_fn *fn, const void *obj, int format, char **buf, size_t *len,
		     struct sb_error *err);

/* Checks that out was written whole (flushes it): -1 with SB_ERR_RUNTIME
 * "cannot write the output: ..." when not. */
int sb_render_flush(FILE *out, struct sb_error *err);

/* RFC 4180 CSV: one field, after a ',' unless first, quoted when it holds
 * a comma, quote, CR or LF (NULL: empty); a number, after a ',', in the
 * shortest text that reads back the same (NaN: empty). */
void sb_csv_field(FILE *out, const char *s, int first);
void sb_csv_num(FILE *out, double v);

/* one or many as n is 1 or not: "1 child", "2 children" */
static inline const char *sb_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

#endif
