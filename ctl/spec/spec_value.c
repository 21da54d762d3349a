/* Spec values: equality, hashing and text (docs/spec.md "Text of a value"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/canon.h"
#include "spec/spec_loader.h"

/* A value in canonical msgpack: an int, a float64, a bool or a str. */
void sb_canon_value(struct sb_canon *c, const struct sb_value *v)
{
	switch (v->type) {
	case SB_VALUE_INT: sb_canon_int(c, v->u.i); break;
	case SB_VALUE_FLOAT: sb_canon_double(c, v->u.f); break;
	case SB_VALUE_BOOL: sb_canon_bool(c, v->u.b); break;
	case SB_VALUE_STR: sb_canon_str(c, v->u.str.s, v->u.str.len); break;
	default: c->failed = true; break;
	}
}

bool sb_value_equal(const struct sb_value *a, const struct sb_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case SB_VALUE_INT: return a->u.i == b->u.i;
	case SB_VALUE_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof(double)) == 0;
	case SB_VALUE_BOOL: return a->u.b == b->u.b;
	case SB_VALUE_STR:
		return a->u.str.len == b->u.str.len &&
		       memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
	}
	return false;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t sb_value_hash(const struct sb_value *v)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char t = (unsigned char)v->type;

	h = fnv(h, &t, 1);
	switch (v->type) {
	case SB_VALUE_INT: return fnv(h, &v->u.i, sizeof(v->u.i));
	case SB_VALUE_FLOAT: return fnv(h, &v->u.f, sizeof(v->u.f));
	case SB_VALUE_BOOL: t = v->u.b; return fnv(h, &t, 1);
	case SB_VALUE_STR: return fnv(h, v->u.str.s, v->u.str.len);
	}
	return h;
}

struct sb_str sb_value_str(const struct sb_value *v, char buf[SB_DOUBLE_TEXT_MAX])
{
	const char *t = "";

	switch (v->type) {
	case SB_VALUE_INT: snprintf(buf, SB_DOUBLE_TEXT_MAX, "%" PRId64, v->u.i); t = buf; break;
	case SB_VALUE_FLOAT: t = sb_fmt_double(v->u.f, buf); break;
	case SB_VALUE_BOOL: t = v->u.b ? "true" : "false"; break;
	case SB_VALUE_STR: return (struct sb_str){ v->u.str.s, v->u.str.len };
	}
	return (struct sb_str){ t, strlen(t) };
}

char *sb_value_text(const struct sb_value *v)
{
	char buf[SB_DOUBLE_TEXT_MAX];
	struct sb_str t = sb_value_str(v, buf);

	return strndup(t.s, t.len);
}
