/* A small streaming JSON writer for the --json outputs (docs/cli.md).
 *
 * Compact output, keys in the order written, strings escaped (invalid UTF-8
 * becomes U+FFFD), floats in the shortest text that reads back equal (NaN
 * and infinities as null).  Nesting is limited to SB_JSON_MAX_DEPTH; deeper
 * calls are ignored and make sb_json_error() true. */
#ifndef SB_PROTO_JSON_H
#define SB_PROTO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SB_JSON_MAX_DEPTH 64

struct sb_json {
	FILE *out;
	int depth;
	bool need_comma[SB_JSON_MAX_DEPTH + 1];
	bool after_key;
	bool error;
};

void sb_json_init(struct sb_json *j, FILE *out);
void sb_json_obj_begin(struct sb_json *j);
void sb_json_obj_end(struct sb_json *j);
void sb_json_arr_begin(struct sb_json *j);
void sb_json_arr_end(struct sb_json *j);
void sb_json_key(struct sb_json *j, const char *key);
void sb_json_str(struct sb_json *j, const char *s);   /* NULL prints null */
void sb_json_strn(struct sb_json *j, const char *s, size_t n);
void sb_json_int(struct sb_json *j, int64_t v);
void sb_json_uint(struct sb_json *j, uint64_t v);
void sb_json_double(struct sb_json *j, double v);
void sb_json_bool(struct sb_json *j, bool v);
void sb_json_null(struct sb_json *j);
/* A token the caller has already written as JSON (a number's text): put
 * where a value goes, separator and all, and not checked. */
void sb_json_raw(struct sb_json *j, const char *token);
/* true when nesting overflowed or underflowed, or the stream has an error */
bool sb_json_error(const struct sb_json *j);

#endif
