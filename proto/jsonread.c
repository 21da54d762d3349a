/* The strict JSON reader (proto/jsonread.h): recursive descent over the
 * bytes, with a depth limit, each string and container allocated to its
 * own size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/jsonread.h"

struct rd {
	const char *p, *end, *start;
	int depth;
	struct sb_error *err;
	bool nomem;
};

static int fail(struct rd *r, const char *what)
{
	size_t line = 1, col = 1;

	if (r->nomem)
		return sb_error_set(r->err, SB_ERR_NOMEM, "out of memory reading JSON");
	for (const char *q = r->start; q < r->p; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)*q & 0xC0) != 0x80) {
			col++;
		}
	}
	return sb_error_set(r->err, SB_ERR_INPUT, "%s, at byte %zu (line %zu, column %zu)", what,
			    (size_t)(r->p - r->start), line, col);
}

static int oom(struct rd *r)
{
	r->nomem = true;
	return fail(r, "out of memory");
}

static void skip_ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

/* A growing byte buffer for a string being decoded. */
struct sbuf {
	char *s;
	size_t n, cap;
};

static int sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 32;
		char *t;
		while (cap < b->n + n + 1) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		if ((t = realloc(b->s, cap)) == NULL)
			return -1;
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
	return 0;
}

static int put_utf8(struct sbuf *b, uint32_t c)
{
	char u[4];
	size_t n;

	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	return sbuf_put(b, u, n);
}

/* The length of the valid UTF-8 sequence at p (at most end - p bytes), 0
 * when it is not one (overlong forms, surrogates, beyond U+10FFFF). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n, avail = (size_t)(end - p);
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2, c = p[0] & 0x1F;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3, c = p[0] & 0x0F;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	if ((n == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)))
		return 0;
	return n;
}

static int hex4(struct rd *r, uint32_t *out)
{
	uint32_t v = 0;

	if (r->end - r->p < 4)
		return fail(r, "a \\u escape needs four hex digits");
	for (int i = 0; i < 4; i++) {
		char c = r->p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(r, "a \\u escape needs four hex digits");
	}
	r->p += 4;
	*out = v;
	return 0;
}

/* A string at r->p (at its opening quote) into *s, *len (malloc'd). */
static int read_string(struct rd *r, char **s, size_t *len)
{
	struct sbuf b = { 0 };

	r->p++; /* the quote */
	if (sbuf_put(&b, "", 0) < 0)
		return oom(r);
	for (;;) {
		const char *run = r->p;
		while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (unsigned char)*r->p >= 0x20 &&
		       (unsigned char)*r->p < 0x80)
			r->p++;
		if (r->p > run && sbuf_put(&b, run, (size_t)(r->p - run)) < 0)
			goto nomem;
		if (r->p >= r->end) {
			fail(r, "a string does not end");
			goto bad;
		}
		if (*r->p == '"') {
			r->p++;
			break;
		}
		if ((unsigned char)*r->p < 0x20) {
			fail(r, "a control character in a string (write it as an escape)");
			goto bad;
		}
		if ((unsigned char)*r->p >= 0x80) {
			size_t n = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end);
			if (n == 0) {
				fail(r, "invalid UTF-8 in a string");
				goto bad;
			}
			if (sbuf_put(&b, r->p, n) < 0)
				goto nomem;
			r->p += n;
			continue;
		}
		/* an escape */
		r->p++;
		if (r->p >= r->end) {
			fail(r, "a string does not end");
			goto bad;
		}
		{
			char c = *r->p++, out = 0;
			uint32_t u, lo;
			switch (c) {
			case '"': out = '"'; break;
			case '\\': out = '\\'; break;
			case '/': out = '/'; break;
			case 'b': out = '\b'; break;
			case 'f': out = '\f'; break;
			case 'n': out = '\n'; break;
			case 'r': out = '\r'; break;
			case 't': out = '\t'; break;
			case 'u':
				if (hex4(r, &u) < 0)
					goto bad;
				if (u >= 0xDC00 && u <= 0xDFFF) {
					fail(r, "a lone low surrogate in a \\u escape");
					goto bad;
				}
				if (u >= 0xD800 && u <= 0xDBFF) {
					if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') {
						fail(r, "a high surrogate without its low surrogate");
						goto bad;
					}
					r->p += 2;
					if (hex4(r, &lo) < 0)
						goto bad;
					if (lo < 0xDC00 || lo > 0xDFFF) {
						fail(r, "a high surrogate without its low surrogate");
						goto bad;
					}
					u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
				}
				if (put_utf8(&b, u) < 0)
					goto nomem;
				continue;
			default:
				r->p--;
				fail(r, "an unknown escape in a string");
				goto bad;
			}
			if (sbuf_put(&b, &out, 1) < 0)
				goto nomem;
		}
	}
	*s = b.s;
	*len = b.n;
	return 0;
nomem:
	free(b.s);
	return oom(r);
bad:
	free(b.s);
	return -1;
}

static int read_number(struct rd *r, struct sb_jv *v)
{
	const char *s = r->p;
	size_t n;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p >= r->end)
		return fail(r, "a number without digits");
	if (*r->p == '0') {
		r->p++;
		if (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			return fail(r, "a number with a leading zero");
	} else if (*r->p >= '1' && *r->p <= '9') {
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	} else {
		return fail(r, "a number without digits");
	}
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return fail(r, "a number without digits after its point");
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return fail(r, "a number without digits in its exponent");
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	n = (size_t)(r->p - s);
	v->type = SB_JV_NUMBER;
	v->num.text = malloc(n + 1);
	if (v->num.text == NULL) {
		v->type = SB_JV_NULL;
		return oom(r);
	}
	memcpy(v->num.text, s, n);
	v->num.text[n] = '\0';
	v->num.value = strtod(v->num.text, NULL);
	return 0;
}

static int read_value(struct rd *r, struct sb_jv *v);

static int read_array(struct rd *r, struct sb_jv *v)
{
	size_t cap = 0;

	v->type = SB_JV_ARRAY;
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return 0;
	}
	for (;;) {
		if (v->arr.n == cap) {
			size_t nc = cap ? 2 * cap : 8;
			struct sb_jv *t = nc > SIZE_MAX / sizeof(*t) ? NULL : realloc(v->arr.v, nc * sizeof(*t));
			if (t == NULL)
				return oom(r);
			v->arr.v = t;
			cap = nc;
		}
		memset(&v->arr.v[v->arr.n], 0, sizeof(v->arr.v[0]));
		v->arr.n++;
		if (read_value(r, &v->arr.v[v->arr.n - 1]) < 0)
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			skip_ws(r);
			if (r->p < r->end && *r->p == ']')
				return fail(r, "a trailing comma in an array");
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			return 0;
		}
		return fail(r, "expected ',' or ']' in an array");
	}
}

static int read_object(struct rd *r, struct sb_jv *v)
{
	size_t cap = 0;

	v->type = SB_JV_OBJECT;
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return 0;
	}
	for (;;) {
		struct sb_jmember *m;
		const char *key_at;

		if (r->p >= r->end || *r->p != '"')
			return fail(r, "expected a key (a string) in an object");
		if (v->obj.n == cap) {
			size_t nc = cap ? 2 * cap : 8;
			struct sb_jmember *t = nc > SIZE_MAX / sizeof(*t) ? NULL : realloc(v->obj.m, nc * sizeof(*t));
			if (t == NULL)
				return oom(r);
			v->obj.m = t;
			cap = nc;
		}
		m = &v->obj.m[v->obj.n];
		memset(m, 0, sizeof(*m));
		key_at = r->p;
		if (read_string(r, &m->key, &m->key_len) < 0)
			return -1;
		v->obj.n++;
		/* a duplicate key: refused (which one a reader keeps differs) */
		for (size_t i = 0; i + 1 < v->obj.n; i++)
			if (v->obj.m[i].key_len == m->key_len && memcmp(v->obj.m[i].key, m->key, m->key_len) == 0) {
				r->p = key_at;
				return fail(r, "a duplicate key in an object");
			}
		skip_ws(r);
		if (r->p >= r->end || *r->p != ':')
			return fail(r, "expected ':' after a key");
		r->p++;
		if (read_value(r, &m->value) < 0)
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			skip_ws(r);
			if (r->p < r->end && *r->p == '}')
				return fail(r, "a trailing comma in an object");
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			return 0;
		}
		return fail(r, "expected ',' or '}' in an object");
	}
}

static int literal(struct rd *r, const char *word, enum sb_jv_type t, struct sb_jv *v)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return fail(r, "expected a value");
	r->p += n;
	v->type = t;
	return 0;
}

static int read_one(struct rd *r, struct sb_jv *v);

/* A value and where its bytes are in the text. */
static int read_value(struct rd *r, struct sb_jv *v)
{
	int rc;

	skip_ws(r);
	v->off = (size_t)(r->p - r->start);
	rc = read_one(r, v);
	v->len = (size_t)(r->p - r->start) - v->off;
	return rc;
}

static int read_one(struct rd *r, struct sb_jv *v)
{
	int rc;

	if (r->p >= r->end)
		return fail(r, "expected a value, found the end");
	switch (*r->p) {
	case '{':
	case '[':
		if (++r->depth > SB_JSONR_MAX_DEPTH)
			return fail(r, "nested too deep");
		rc = *r->p == '{' ? read_object(r, v) : read_array(r, v);
		r->depth--;
		return rc;
	case '"':
		v->type = SB_JV_STRING;
		return read_string(r, &v->str.s, &v->str.len);
	case 't': return literal(r, "true", SB_JV_TRUE, v);
	case 'f': return literal(r, "false", SB_JV_FALSE, v);
	case 'n': return literal(r, "null", SB_JV_NULL, v);
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return read_number(r, v);
		return fail(r, "expected a value");
	}
}

int sb_jv_parse(const char *text, size_t len, struct sb_jv *out, struct sb_error *err)
{
	struct rd r = { text, text + len, text, 0, err, false };

	memset(out, 0, sizeof(*out));
	if (read_value(&r, out) < 0) {
		sb_jv_free(out);
		return -1;
	}
	skip_ws(&r);
	if (r.p != r.end) {
		fail(&r, "more after the JSON value");
		sb_jv_free(out);
		return -1;
	}
	return 0;
}

void sb_jv_free(struct sb_jv *v)
{
	if (v == NULL)
		return;
	switch (v->type) {
	case SB_JV_NUMBER: free(v->num.text); break;
	case SB_JV_STRING: free(v->str.s); break;
	case SB_JV_ARRAY:
		for (size_t i = 0; i < v->arr.n; i++)
			sb_jv_free(&v->arr.v[i]);
		free(v->arr.v);
		break;
	case SB_JV_OBJECT:
		for (size_t i = 0; i < v->obj.n; i++) {
			free(v->obj.m[i].key);
			sb_jv_free(&v->obj.m[i].value);
		}
		free(v->obj.m);
		break;
	default: break;
	}
	memset(v, 0, sizeof(*v));
}

const struct sb_jv *sb_jv_get(const struct sb_jv *o, const char *key)
{
	size_t n;

	if (o == NULL || o->type != SB_JV_OBJECT)
		return NULL;
	n = strlen(key);
	for (size_t i = 0; i < o->obj.n; i++)
		if (o->obj.m[i].key_len == n && memcmp(o->obj.m[i].key, key, n) == 0)
			return &o->obj.m[i].value;
	return NULL;
}

const char *sb_jv_str(const struct sb_jv *v)
{
	return v != NULL && v->type == SB_JV_STRING ? v->str.s : NULL;
}

bool sb_jv_equal(const struct sb_jv *a, const struct sb_jv *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case SB_JV_NUMBER:
		return a->num.value == b->num.value || strcmp(a->num.text, b->num.text) == 0;
	case SB_JV_STRING:
		return a->str.len == b->str.len && memcmp(a->str.s, b->str.s, a->str.len) == 0;
	case SB_JV_ARRAY:
		if (a->arr.n != b->arr.n)
			return false;
		for (size_t i = 0; i < a->arr.n; i++)
			if (!sb_jv_equal(&a->arr.v[i], &b->arr.v[i]))
				return false;
		return true;
	case SB_JV_OBJECT:
		if (a->obj.n != b->obj.n)
			return false;
		for (size_t i = 0; i < a->obj.n; i++)
			if (a->obj.m[i].key_len != b->obj.m[i].key_len ||
			    memcmp(a->obj.m[i].key, b->obj.m[i].key, a->obj.m[i].key_len) != 0 ||
			    !sb_jv_equal(&a->obj.m[i].value, &b->obj.m[i].value))
				return false;
		return true;
	default:
		return true;
	}
}
