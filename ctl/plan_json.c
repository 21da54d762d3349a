#include <stdio.h>
#include <string.h>

#include "ctl/plan_json.h"
#include "sbench/spec.h"

/* Fast paths beside proto/json.h, for the 1,000,000-child budget
 * (docs/development.md, "Performance budgets"): json.c writes strings one fputc per byte and integers with
 * fprintf, which alone costs more than a second for a million children.
 * These write exactly the bytes sb_json_str / sb_json_uint would write
 * (tests/spec/test_plan.c compares them), using the writer's own
 * separator state; anything that needs escaping goes through json.c.
 * They write with the stdio _unlocked calls: the caller holds the lock.
 * TODO: move into proto/json.c (a span-wise write_string) and drop these. */
static void json_sep(struct sb_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc_unlocked(',', j->out);
	j->need_comma[j->depth] = true;
}

static bool json_plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	return true;
}

void sb_plan_json_str(struct sb_json *j, const char *s, size_t n)
{
	if (!json_plain(s, n)) {
		sb_json_strn(j, s, n);
		return;
	}
	json_sep(j);
	fputc_unlocked('"', j->out);
	fwrite_unlocked(s, 1, n, j->out);
	fputc_unlocked('"', j->out);
}

void sb_plan_json_key(struct sb_json *j, const char *key)
{
	size_t n = strlen(key);

	if (!json_plain(key, n)) {
		sb_json_key(j, key);
		return;
	}
	json_sep(j);
	fputc_unlocked('"', j->out);
	fwrite_unlocked(key, 1, n, j->out);
	fputs_unlocked("\":", j->out);
	j->after_key = true;
}

void sb_plan_json_uint(struct sb_json *j, uint64_t v)
{
	char t[24];
	size_t n = sizeof(t);

	do {
		t[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	json_sep(j);
	fwrite_unlocked(t + n, 1, sizeof(t) - n, j->out);
}


void sb_json_spec_value(struct sb_json *j, const struct sb_value *v)
{
	switch (v->type) {
	case SB_VALUE_INT: sb_json_int(j, v->u.i); break;
	case SB_VALUE_FLOAT: sb_json_double(j, v->u.f); break;
	case SB_VALUE_BOOL: sb_json_bool(j, v->u.b); break;
	case SB_VALUE_STR: sb_json_strn(j, v->u.str.s, v->u.str.len); break;
	}
}
