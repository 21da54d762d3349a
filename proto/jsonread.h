/* A small strict JSON reader (RFC 8259) for documents sbctl reads back,
 * such as a bundle (sbctl verify).
 *
 * The whole text must be one value, with only whitespace around it.
 * Refused, each with the byte offset, line and column: invalid UTF-8, a
 * control character or a lone surrogate in a string, a number outside
 * the grammar (leading zeros, "1.", "+1", NaN), a duplicate key in an
 * object, a trailing comma, nesting deeper than SB_JSONR_MAX_DEPTH, and
 * anything after the value.  Nothing is cut: strings and arrays of any
 * length are read whole (or refused as out of memory). */
#ifndef SB_PROTO_JSONREAD_H
#define SB_PROTO_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "sbench/error.h"

#define SB_JSONR_MAX_DEPTH 256

enum sb_jv_type {
	SB_JV_NULL,
	SB_JV_FALSE,
	SB_JV_TRUE,
	SB_JV_NUMBER,
	SB_JV_STRING,
	SB_JV_ARRAY,
	SB_JV_OBJECT,
};

struct sb_jmember;

struct sb_jv {
	enum sb_jv_type type;
	size_t off, len;  /* its bytes in the text parsed: text[off, off + len) */
	union {
		struct {
			char *text;   /* as written, NUL-terminated */
			double value; /* strtod of text (may be +-HUGE_VAL when beyond double) */
		} num;
		struct {
			char *s;      /* decoded UTF-8, NUL-terminated (may hold a NUL: use len) */
			size_t len;
		} str;
		struct {
			struct sb_jv *v;
			size_t n;
		} arr;
		struct {
			struct sb_jmember *m; /* in the order written */
			size_t n;
		} obj;
	};
};

struct sb_jmember {
	char *key;       /* decoded, NUL-terminated */
	size_t key_len;
	struct sb_jv value;
};

/* Parses len bytes of text into *out (free with sb_jv_free).  -1 with err
 * (SB_ERR_INPUT: "what, at byte N (line L, column C)"; SB_ERR_NOMEM). */
int sb_jv_parse(const char *text, size_t len, struct sb_jv *out, struct sb_error *err);

/* Frees what v holds (not v itself); accepts a zeroed v. */
void sb_jv_free(struct sb_jv *v);

/* The member key of object o, NULL when o is not an object or has none. */
const struct sb_jv *sb_jv_get(const struct sb_jv *o, const char *key);

/* Whether a and b are the same value: the same type, numbers of the same
 * value, strings of the same bytes, arrays and objects of equal members in
 * the same order. */
bool sb_jv_equal(const struct sb_jv *a, const struct sb_jv *b);

/* The string of v, NULL when v is NULL or not a string. */
const char *sb_jv_str(const struct sb_jv *v);

#endif
