/* Fuzz the strict JSON reader (proto/jsonread.c) that sbctl verify reads
 * bundles with: any bytes are a value or an error with its place, never a
 * crash or a leak; a value read is whole (every string as long as it
 * says, NUL-terminated) and written back by the JSON writer reads again
 * as the same value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "proto/jsonread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_back(struct sb_json *j, const struct sb_jv *v)
{
	switch (v->type) {
	case SB_JV_NULL: sb_json_null(j); break;
	case SB_JV_TRUE: sb_json_bool(j, true); break;
	case SB_JV_FALSE: sb_json_bool(j, false); break;
	case SB_JV_NUMBER: sb_json_raw(j, v->num.text); break;
	case SB_JV_STRING:
		if (v->str.s[v->str.len] != '\0')
			abort();
		sb_json_strn(j, v->str.s, v->str.len);
		break;
	case SB_JV_ARRAY:
		sb_json_arr_begin(j);
		for (size_t i = 0; i < v->arr.n; i++)
			write_back(j, &v->arr.v[i]);
		sb_json_arr_end(j);
		break;
	case SB_JV_OBJECT:
		sb_json_obj_begin(j);
		for (size_t i = 0; i < v->obj.n; i++) {
			sb_json_key(j, v->obj.m[i].key);
			write_back(j, &v->obj.m[i].value);
		}
		sb_json_obj_end(j);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_error err = { 0 };
	struct sb_jv v, again;
	struct sb_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (sb_jv_parse((const char *)data, size, &v, &err) < 0) {
		if (err.msg[0] == '\0')
			abort();
		return 0;
	}
	/* keys with a NUL inside are written up to it: leave those out */
	f = open_memstream(&text, &len);
	if (f == NULL)
		abort();
	sb_json_init(&j, f);
	write_back(&j, &v);
	if (sb_json_error(&j))
		abort();
	fclose(f);
	if (memchr(text, '\0', len) == NULL && sb_jv_parse(text, len, &again, &err) == 0) {
		if (!sb_jv_equal(&v, &again) && strstr(text, "\\u0000") == NULL)
			abort();
		sb_jv_free(&again);
	}
	free(text);
	sb_jv_free(&v);
	return 0;
}
