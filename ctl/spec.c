/* Loading a benchmark spec: libyaml events -> a small node tree with marks
 * -> checked struct sb_spec.  docs/spec.md is the reference for every rule
 * enforced here. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "ctl/spec.h"
#include "proto/util.h"

/* ---- arena ---- */

struct sb_arena_chunk {
	struct sb_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *sb_arena_alloc(struct sb_arena *a, size_t n)
{
	struct sb_arena_chunk *c = a->head;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = calloc(1, sizeof(*c) + cap);
		if (c == NULL)
			return NULL;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

char *sb_arena_strndup(struct sb_arena *a, const char *s, size_t n)
{
	char *p = sb_arena_alloc(a, n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void sb_arena_release(struct sb_arena *a)
{
	struct sb_arena_chunk *c = a->head, *next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ---- values ---- */

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

/* Text of a non-string value into buf (at least SB_DOUBLE_TEXT_MAX). */
static const char *scalar_text(const struct sb_value *v, char buf[SB_DOUBLE_TEXT_MAX])
{
	switch (v->type) {
	case SB_VALUE_INT: snprintf(buf, SB_DOUBLE_TEXT_MAX, "%" PRId64, v->u.i); return buf;
	case SB_VALUE_FLOAT: return sb_fmt_double(v->u.f, buf);
	case SB_VALUE_BOOL: return v->u.b ? "true" : "false";
	case SB_VALUE_STR: return v->u.str.s;
	}
	return "";
}

char *sb_value_text(const struct sb_value *v)
{
	char buf[SB_DOUBLE_TEXT_MAX];

	if (v->type == SB_VALUE_STR)
		return strndup(v->u.str.s, v->u.str.len);
	return strdup(scalar_text(v, buf));
}

/* ---- node tree ---- */

enum node_kind { N_SCALAR, N_SEQ, N_MAP };

struct node {
	enum node_kind kind;
	bool plain;             /* plain untagged scalar: core schema applies */
	char *text;
	size_t len;
	int line, col;
	struct node **kids;     /* a map: key, value, key, value, ... */
	size_t nkids, cap;
};

static void node_free(struct node *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static int node_add(struct node *parent, struct node *kid)
{
	if (parent->nkids == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		struct node **k = realloc(parent->kids, cap * sizeof(*k));
		if (k == NULL)
			return -1;
		parent->kids = k;
		parent->cap = cap;
	}
	parent->kids[parent->nkids++] = kid;
	return 0;
}

/* The most entries of one mapping (keeps the duplicate-key check cheap). */
#define MAX_MAP_ENTRIES 4096

static int at_errorf(struct sb_error *err, const char *path, int line, int col,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int at_errorf(struct sb_error *err, const char *path, int line, int col,
		     const char *fmt, ...)
{
	char msg[SB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sb_errorf(err, "%s:%d:%d: %s", path, line, col, msg);
}

/* A reader error (a byte that is not UTF-8, a control character, a NUL)
 * comes with the byte offset of the offending byte, not a mark: its line and
 * column (in characters, as libyaml counts them for every other error) are
 * counted here.  Line breaks are LF, CR LF or a lone CR; a byte order mark
 * takes no column; UTF-16 (with its byte order mark) counts 16-bit units,
 * the second half of a surrogate pair taking no column. */
static int reader_error(struct sb_error *err, const char *path, const unsigned char *data,
			size_t len, size_t offset, const char *problem)
{
	int le = len >= 2 && data[0] == 0xff && data[1] == 0xfe;
	int be = len >= 2 && data[0] == 0xfe && data[1] == 0xff;
	size_t step = le || be ? 2 : 1;
	size_t i = step == 2 ? 2 : len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3) ? 3 : 0;
	long line = 1, col = 1;

	if (offset > len)
		offset = len;
	for (; i + step <= offset; i += step) {
		unsigned c = step == 1 ? data[i] : le ? data[i] | (unsigned)data[i + 1] << 8
				   : (unsigned)data[i] << 8 | data[i + 1];
		unsigned next = i + 2 * step > len ? 0 : step == 1 ? data[i + 1]
				: le ? data[i + 2] | (unsigned)data[i + 3] << 8
				: (unsigned)data[i + 2] << 8 | data[i + 3];
		if (c == '\n' || (c == '\r' && next != '\n')) {
			line++;
			col = 1;
		} else if (c != '\r' && (step == 1 ? (c & 0xc0) != 0x80 : (c & 0xfc00) != 0xdc00)) {
			col++;
		}
	}
	if (offset < len)
		return sb_errorf(err, "%s:%ld:%ld: invalid YAML: %s (byte 0x%02x)", path, line, col,
				 problem, data[offset]);
	return sb_errorf(err, "%s:%ld:%ld: invalid YAML: %s", path, line, col, problem);
}

int sb_spec_errorf(const struct sb_spec *spec, struct sb_error *err, int line, int col,
		   const char *fmt, ...)
{
	char msg[SB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sb_errorf(err, "%s:%d:%d: %s", spec->path, line, col, msg);
}

static int check_map_keys(const char *path, const struct node *m, struct sb_error *err)
{
	size_t i, j;

	for (i = 0; i < m->nkids; i += 2) {
		const struct node *k = m->kids[i];
		if (k->kind != N_SCALAR)
			return at_errorf(err, path, k->line, k->col,
					 "mapping key is %s (keys must be scalars)",
					 k->kind == N_SEQ ? "a list" : "a mapping");
		for (j = 0; j < i; j += 2) {
			const struct node *o = m->kids[j];
			if (o->len == k->len && memcmp(o->text, k->text, k->len) == 0)
				return at_errorf(err, path, k->line, k->col,
						 "duplicate key '%s' (first at %d:%d)",
						 k->text, o->line, o->col);
		}
	}
	return 0;
}

static bool anchor_or_tag_error(const char *path, const yaml_event_t *ev, const yaml_char_t *anchor,
				const yaml_char_t *tag, bool scalar, bool *str_tag, struct sb_error *err)
{
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;

	if (anchor != NULL) {
		at_errorf(err, path, line, col, "anchor '&%.64s' is not supported (write the value out)",
			  (const char *)anchor);
		return true;
	}
	if (tag != NULL) {
		if (scalar && (!strcmp((const char *)tag, "!") ||
			       !strcmp((const char *)tag, "tag:yaml.org,2002:str"))) {
			*str_tag = true;
			return false;
		}
		at_errorf(err, path, line, col, "tag '%.64s' is not supported (only !!str)",
			  (const char *)tag);
		return true;
	}
	return false;
}

/* Parses the YAML text into a node tree; NULL with err filled on error. */
static struct node *parse_tree(const char *path, const unsigned char *data, size_t len,
			       struct sb_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct node *stack[SB_SPEC_MAX_DEPTH + 1];
	struct node *root = NULL;
	int depth = 0, ndocs = 0;
	bool done = false, failed = false;

	if (!yaml_parser_initialize(&parser)) {
		sb_errorf(err, "'%s': out of memory", path);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, data, len);
	while (!done && !failed) {
		struct node *n = NULL;
		bool str_tag = false;
		int line, col;

		if (!yaml_parser_parse(&parser, &ev)) {
			const char *problem = parser.problem ? parser.problem : "syntax error";
			yaml_mark_t m = parser.problem_mark;
			if (parser.error == YAML_READER_ERROR)
				reader_error(err, path, data, len, parser.problem_offset, problem);
			else if (parser.context != NULL)
				at_errorf(err, path, (int)m.line + 1, (int)m.column + 1,
					  "invalid YAML: %s %s", problem, parser.context);
			else
				at_errorf(err, path, (int)m.line + 1, (int)m.column + 1,
					  "invalid YAML: %s", problem);
			failed = true;
			break;
		}
		line = (int)ev.start_mark.line + 1;
		col = (int)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1) {
				at_errorf(err, path, line, col, "more than one YAML document (a spec is one document)");
				failed = true;
			}
			break;
		case YAML_ALIAS_EVENT:
			at_errorf(err, path, line, col, "alias '*%.64s' is not supported (write the value out)",
				  (const char *)ev.data.alias.anchor);
			failed = true;
			break;
		case YAML_SCALAR_EVENT:
			if (anchor_or_tag_error(path, &ev, ev.data.scalar.anchor, ev.data.scalar.tag,
						true, &str_tag, err)) {
				failed = true;
				break;
			}
			if (ev.data.scalar.length > SB_SPEC_MAX_STRING) {
				at_errorf(err, path, line, col, "string is too long (%zu bytes, limit %d)",
					  ev.data.scalar.length, SB_SPEC_MAX_STRING);
				failed = true;
				break;
			}
			if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length) != NULL) {
				at_errorf(err, path, line, col, "string contains a NUL character");
				failed = true;
				break;
			}
			n = calloc(1, sizeof(*n));
			if (n == NULL || (n->text = malloc(ev.data.scalar.length + 1)) == NULL) {
				free(n);
				sb_errorf(err, "'%s': out of memory", path);
				failed = true;
				break;
			}
			n->kind = N_SCALAR;
			memcpy(n->text, ev.data.scalar.value, ev.data.scalar.length);
			n->text[ev.data.scalar.length] = '\0';
			n->len = ev.data.scalar.length;
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !str_tag;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			bool seq = ev.type == YAML_SEQUENCE_START_EVENT;
			if (anchor_or_tag_error(path, &ev,
						seq ? ev.data.sequence_start.anchor : ev.data.mapping_start.anchor,
						seq ? ev.data.sequence_start.tag : ev.data.mapping_start.tag,
						false, &str_tag, err)) {
				failed = true;
				break;
			}
			if (depth >= SB_SPEC_MAX_DEPTH) {
				at_errorf(err, path, line, col, "nesting is too deep (limit %d levels)",
					  SB_SPEC_MAX_DEPTH);
				failed = true;
				break;
			}
			n = calloc(1, sizeof(*n));
			if (n == NULL) {
				sb_errorf(err, "'%s': out of memory", path);
				failed = true;
				break;
			}
			n->kind = seq ? N_SEQ : N_MAP;
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0) {
				struct node *top = stack[--depth];
				if (top->kind == N_MAP && check_map_keys(path, top, err) < 0)
					failed = true;
			}
			break;
		default:
			break;
		}
		if (n != NULL) {
			n->line = line;
			n->col = col;
			if (depth == 0) {
				if (root != NULL) { /* cannot happen: one node per document */
					node_free(n);
					n = NULL;
				} else {
					root = n;
				}
			} else {
				struct node *parent = stack[depth - 1];
				if (parent->kind == N_MAP && parent->nkids >= 2 * MAX_MAP_ENTRIES) {
					at_errorf(err, path, line, col, "mapping has too many entries (limit %d)",
						  MAX_MAP_ENTRIES);
					node_free(n);
					n = NULL;
					failed = true;
				} else if (node_add(parent, n) < 0) {
					sb_errorf(err, "'%s': out of memory", path);
					node_free(n);
					n = NULL;
					failed = true;
				}
			}
			if (n != NULL && n->kind != N_SCALAR)
				stack[depth++] = n;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (failed) {
		node_free(root);
		return NULL;
	}
	if (root == NULL) {
		at_errorf(err, path, 1, 1, "spec is empty");
		return NULL;
	}
	return root;
}

/* ---- loader ---- */

struct ld {
	const char *path;
	struct sb_error *err;
	struct sb_spec *s;
};

static int nerr(struct ld *ld, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int nerr(struct ld *ld, const struct node *n, const char *fmt, ...)
{
	char msg[SB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sb_errorf(ld->err, "%s:%d:%d: %s", ld->path, n->line, n->col, msg);
}

static int oom(struct ld *ld)
{
	return sb_errorf(ld->err, "'%s': out of memory", ld->path);
}

/* Levenshtein distance, capped: strings over 64 bytes count as far. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[65];

	if (la > 64 || lb > 64)
		return 100;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = (a[i - 1] == b[j - 1] ||
				       (a[i - 1] ^ b[j - 1]) == 0x20) ? 0 : 1;
			size_t best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

/* " (did you mean 'x'?)" for the closest candidate, or "". */
static const char *suggest(const char *word, const char *const *cands, size_t n,
			   char buf[160])
{
	size_t i, best = 100, limit;
	const char *pick = NULL;

	buf[0] = '\0';
	limit = strlen(word) <= 4 ? 1 : strlen(word) <= 8 ? 2 : 3;
	for (i = 0; i < n; i++) {
		size_t d = distance(word, cands[i]);
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	if (pick != NULL && best <= limit)
		snprintf(buf, 160, " (did you mean '%s'?)", pick);
	return buf;
}

static const char *describe(const struct node *n, const struct sb_value *v, bool is_null)
{
	if (n->kind == N_SEQ)
		return "a list";
	if (n->kind == N_MAP)
		return "a mapping";
	if (is_null)
		return "null";
	switch (v->type) {
	case SB_VALUE_INT: return "an integer";
	case SB_VALUE_FLOAT: return "a float";
	case SB_VALUE_BOOL: return "a bool";
	case SB_VALUE_STR: return "a string";
	}
	return "a value";
}

static bool all_digits(const char *p, const char *set)
{
	if (*p == '\0')
		return false;
	for (; *p; p++)
		if (strchr(set, *p) == NULL)
			return false;
	return true;
}

static bool is_core_float(const char *p)
{
	if (*p == '+' || *p == '-')
		p++;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	} else {
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

static bool mantissa_nonzero(const char *p)
{
	for (; *p && *p != 'e' && *p != 'E'; p++)
		if (*p >= '1' && *p <= '9')
			return true;
	return false;
}

/* Resolves a scalar with the YAML 1.2 core schema.  Strings point into the
 * node's text (copy before the tree goes).  Returns 0 or -1. */
static int resolve(struct ld *ld, const struct node *n, struct sb_value *v, bool *is_null)
{
	const char *t = n->text;

	*is_null = false;
	memset(v, 0, sizeof(*v));
	if (n->kind != N_SCALAR)
		return 0;
	if (!n->plain) {
		v->type = SB_VALUE_STR;
		v->u.str.s = n->text;
		v->u.str.len = n->len;
		return 0;
	}
	if (!strcmp(t, "") || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
	    !strcmp(t, "NULL")) {
		*is_null = true;
		return 0;
	}
	if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE") ||
	    !strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) {
		v->type = SB_VALUE_BOOL;
		v->u.b = t[0] == 't' || t[0] == 'T';
		return 0;
	}
	if ((t[0] == '0' && t[1] == 'o' && all_digits(t + 2, "01234567")) ||
	    (t[0] == '0' && t[1] == 'x' && all_digits(t + 2, "0123456789abcdefABCDEF"))) {
		int base = t[1] == 'o' ? 8 : 16;
		uint64_t acc = 0;
		const char *p;
		for (p = t + 2; *p; p++) {
			unsigned d = (unsigned)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
			if (acc > ((uint64_t)INT64_MAX - d) / (uint64_t)base)
				return nerr(ld, n, "integer '%s' is out of range (limit %" PRId64 ")",
					    t, INT64_MAX);
			acc = acc * (uint64_t)base + d;
		}
		v->type = SB_VALUE_INT;
		v->u.i = (int64_t)acc;
		return 0;
	}
	if (all_digits(t + (t[0] == '+' || t[0] == '-'), "0123456789")) {
		bool neg = t[0] == '-';
		uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
		const char *p = t + (t[0] == '+' || t[0] == '-');
		for (; *p; p++) {
			unsigned d = (unsigned)(*p - '0');
			if (acc > (lim - d) / 10)
				return nerr(ld, n, "integer '%s' is out of range (int64)", t);
			acc = acc * 10 + d;
		}
		v->type = SB_VALUE_INT;
		v->u.i = neg ? (int64_t)(0 - acc) : (int64_t)acc;
		return 0;
	}
	{
		const char *p = t + (t[0] == '+' || t[0] == '-');
		if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
			return nerr(ld, n, "'%s' is infinite (numbers must be finite)", t);
		if (!strcmp(t, ".nan") || !strcmp(t, ".NaN") || !strcmp(t, ".NAN"))
			return nerr(ld, n, "'%s' is not a number (NaN is not allowed)", t);
	}
	if (is_core_float(t)) {
		double d = strtod(t, NULL);
		if (isinf(d))
			return nerr(ld, n, "number '%s' is out of range (float64)", t);
		if (d == 0 && mantissa_nonzero(t))
			return nerr(ld, n, "number '%s' is too small (it would read as 0)", t);
		if (d == 0)
			d = 0.0; /* -0.0 is 0.0 */
		v->type = SB_VALUE_FLOAT;
		v->u.f = d;
		return 0;
	}
	v->type = SB_VALUE_STR;
	v->u.str.s = n->text;
	v->u.str.len = n->len;
	return 0;
}

static int get_string(struct ld *ld, const struct node *n, const char *what, const char **out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != N_SCALAR || is_null || v.type != SB_VALUE_STR)
		return nerr(ld, n, "%s must be a string, not %s%s", what, describe(n, &v, is_null),
			    n->kind == N_SCALAR && !is_null ? " (quote it)" : "");
	*out = sb_arena_strndup(&ld->s->arena, n->text, n->len);
	return *out == NULL ? oom(ld) : 0;
}

static int get_int(struct ld *ld, const struct node *n, const char *what, int64_t min,
		   int64_t max, int64_t *out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != N_SCALAR || is_null || v.type != SB_VALUE_INT)
		return nerr(ld, n, "%s must be an integer, not %s", what, describe(n, &v, is_null));
	if (v.u.i < min || v.u.i > max)
		return nerr(ld, n, "%s is %" PRId64 ", out of range (%" PRId64 "..%" PRId64 ")",
			    what, v.u.i, min, max);
	*out = v.u.i;
	return 0;
}

/* A scalar (string, number or bool) as its canonical text. */
static int get_text(struct ld *ld, const struct node *n, const char *what, const char **out)
{
	struct sb_value v;
	bool is_null;
	char buf[SB_DOUBLE_TEXT_MAX];
	const char *t;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != N_SCALAR || is_null)
		return nerr(ld, n, "%s must be a scalar, not %s", what, describe(n, &v, is_null));
	t = scalar_text(&v, buf);
	*out = sb_arena_strndup(&ld->s->arena, t, v.type == SB_VALUE_STR ? v.u.str.len : strlen(t));
	return *out == NULL ? oom(ld) : 0;
}

static int expect(struct ld *ld, const struct node *n, enum node_kind kind, const char *what)
{
	struct sb_value v;
	bool is_null;

	if (n->kind == kind)
		return 0;
	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	return nerr(ld, n, "%s must be %s, not %s", what, kind == N_SEQ ? "a list" : "a mapping",
		    describe(n, &v, is_null));
}

static int expect_len(struct ld *ld, const struct node *n, size_t count, size_t max, const char *what)
{
	if (count > max)
		return nerr(ld, n, "%s has too many entries (%zu, limit %zu)", what, count, max);
	return 0;
}

static bool valid_ident(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > SB_SPEC_MAX_NAME)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static int param_index(const struct sb_spec *s, const char *name)
{
	size_t lo = 0, hi = s->nparams;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->params[mid].name, name);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static const char *param_suggest(const struct sb_spec *s, const char *name, bool refs, char buf[160])
{
	const char *c[SB_SPEC_MAX_PARAMS + 2];
	size_t i, n = 0;

	for (i = 0; i < s->nparams; i++)
		c[n++] = s->params[i].name;
	if (refs) {
		c[n++] = "repeat";
		c[n++] = "child";
	}
	return suggest(name, c, n, buf);
}

/* A parameter value: a non-null scalar. */
static int get_param_value(struct ld *ld, const struct node *n, const char *pname,
			   struct sb_value *out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != N_SCALAR)
		return nerr(ld, n, "value of parameter '%s' is %s (values must be scalars)",
			    pname, describe(n, &v, is_null));
	if (is_null)
		return nerr(ld, n, "value of parameter '%s' is null (quote it for the string \"%s\")",
			    pname, n->text);
	if (v.type == SB_VALUE_STR) {
		v.u.str.s = sb_arena_strndup(&ld->s->arena, v.u.str.s, v.u.str.len);
		if (v.u.str.s == NULL)
			return oom(ld);
	}
	*out = v;
	return 0;
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct sb_param *)a)->name, ((const struct sb_param *)b)->name);
}

/* The substitution text of v and the same in POSIX single quotes. */
static int make_texts(struct ld *ld, const struct sb_value *v, struct sb_str *text,
		      struct sb_str *quoted)
{
	char buf[SB_DOUBLE_TEXT_MAX], *q;
	const char *t = scalar_text(v, buf);
	size_t len = v->type == SB_VALUE_STR ? v->u.str.len : strlen(t), quotes = 0, k, o = 0;

	for (k = 0; k < len; k++)
		quotes += t[k] == '\'';
	text->s = v->type == SB_VALUE_STR ? t : sb_arena_strndup(&ld->s->arena, t, len);
	text->len = len;
	q = sb_arena_alloc(&ld->s->arena, len + 3 * quotes + 3);
	if (text->s == NULL || q == NULL)
		return oom(ld);
	q[o++] = '\'';
	for (k = 0; k < len; k++) {
		if (t[k] == '\'') {
			memcpy(q + o, "'\\''", 4);
			o += 4;
		} else {
			q[o++] = t[k];
		}
	}
	q[o++] = '\'';
	q[o] = '\0';
	quoted->s = q;
	quoted->len = o;
	return 0;
}

/* Adds the text and shell-quoted text of every value of p. */
static int param_texts(struct ld *ld, struct sb_param *p)
{
	size_t j;

	p->text = sb_arena_alloc(&ld->s->arena, (p->nvalues + 1) * sizeof(*p->text));
	p->quoted = sb_arena_alloc(&ld->s->arena, (p->nvalues + 1) * sizeof(*p->quoted));
	if (p->text == NULL || p->quoted == NULL)
		return oom(ld);
	for (j = 0; j < p->nvalues; j++)
		if (make_texts(ld, &p->values[j], &p->text[j], &p->quoted[j]) < 0)
			return -1;
	return 0;
}

/* Checks that no value repeats in p (a repeated value makes a duplicate
 * point).  vnodes are the value nodes. */
static int param_unique(struct ld *ld, const struct sb_param *p, struct node *const *vnodes)
{
	size_t cap = 16, j, *tab;
	int rc = 0;

	while (cap < 2 * p->nvalues)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	if (tab == NULL)
		return oom(ld);
	for (j = 0; j < p->nvalues && rc == 0; j++) {
		size_t h = (size_t)sb_value_hash(&p->values[j]) & (cap - 1);
		for (; tab[h] != 0; h = (h + 1) & (cap - 1)) {
			const struct node *first = vnodes[tab[h] - 1];
			if (sb_value_equal(&p->values[tab[h] - 1], &p->values[j])) {
				rc = nerr(ld, vnodes[j], "duplicate value '%s' of parameter '%s' (first at %d:%d)",
					  vnodes[j]->text, p->name, first->line, first->col);
				break;
			}
		}
		if (rc == 0)
			tab[h] = j + 1;
	}
	free(tab);
	return rc;
}

static int load_parameters(struct ld *ld, const struct node *n)
{
	struct sb_spec *s = ld->s;
	size_t i, j, np = n->nkids / 2;

	if (expect(ld, n, N_MAP, "'parameters'") < 0)
		return -1;
	if (np == 0)
		return nerr(ld, n, "empty grid: 'parameters' has no parameters (remove it for a single point)");
	if (expect_len(ld, n, np, SB_SPEC_MAX_PARAMS, "'parameters'") < 0)
		return -1;
	s->has_grid = true;
	s->params_line = n->line;
	s->params_col = n->col;
	s->params = sb_arena_alloc(&s->arena, np * sizeof(*s->params));
	if (s->params == NULL)
		return oom(ld);
	for (i = 0; i < np; i++) {
		const struct node *k = n->kids[2 * i], *vals = n->kids[2 * i + 1];
		struct sb_param *p = &s->params[i];
		if (!valid_ident(k->text))
			return nerr(ld, k, "parameter name '%s' is not valid (letters, digits and _, not starting with a digit)",
				    k->text);
		if (!strcmp(k->text, "repeat") || !strcmp(k->text, "child"))
			return nerr(ld, k, "parameter name '%s' is reserved", k->text);
		p->name = sb_arena_strndup(&s->arena, k->text, k->len);
		p->line = k->line;
		p->col = k->col;
		if (p->name == NULL)
			return oom(ld);
		if (vals->kind != N_SEQ) {
			struct sb_value v;
			bool is_null;
			if (resolve(ld, vals, &v, &is_null) < 0)
				return -1;
			return nerr(ld, vals, "parameter '%s' must be a list of values, not %s%s", p->name,
				    describe(vals, &v, is_null),
				    vals->kind == N_SCALAR && !is_null ? " (write [value] for one value)" : "");
		}
		if (vals->nkids == 0)
			return nerr(ld, vals, "empty grid: parameter '%s' has no values", p->name);
		if (expect_len(ld, vals, vals->nkids, SB_SPEC_MAX_VALUES, "parameter") < 0)
			return -1;
		p->nvalues = vals->nkids;
		p->values = sb_arena_alloc(&s->arena, p->nvalues * sizeof(*p->values));
		if (p->values == NULL)
			return oom(ld);
		for (j = 0; j < p->nvalues; j++)
			if (get_param_value(ld, vals->kids[j], p->name, &p->values[j]) < 0)
				return -1;
		if (param_unique(ld, p, vals->kids) < 0 || param_texts(ld, p) < 0)
			return -1;
	}
	s->nparams = np;
	qsort(s->params, np, sizeof(*s->params), cmp_param);
	return 0;
}

/* Parameters named by the first include entry, when there is no grid. */
static int params_from_include(struct ld *ld, const struct node *inc)
{
	struct sb_spec *s = ld->s;
	const struct node *first;
	size_t i, np;

	if (inc->kind != N_SEQ || inc->nkids == 0 || inc->kids[0]->kind != N_MAP)
		return 0; /* load_points reports it */
	first = inc->kids[0];
	np = first->nkids / 2;
	if (expect_len(ld, first, np, SB_SPEC_MAX_PARAMS, "include entry") < 0)
		return -1;
	s->params = sb_arena_alloc(&s->arena, (np + 1) * sizeof(*s->params));
	if (s->params == NULL)
		return oom(ld);
	for (i = 0; i < np; i++) {
		const struct node *k = first->kids[2 * i];
		if (!valid_ident(k->text))
			return nerr(ld, k, "parameter name '%s' is not valid (letters, digits and _, not starting with a digit)",
				    k->text);
		if (!strcmp(k->text, "repeat") || !strcmp(k->text, "child"))
			return nerr(ld, k, "parameter name '%s' is reserved", k->text);
		s->params[i].name = sb_arena_strndup(&s->arena, k->text, k->len);
		if (s->params[i].name == NULL)
			return oom(ld);
		s->params[i].line = k->line;
		s->params[i].col = k->col;
	}
	s->nparams = np;
	qsort(s->params, np, sizeof(*s->params), cmp_param);
	return 0;
}

static int load_points(struct ld *ld, const struct node *n, bool include)
{
	struct sb_spec *s = ld->s;
	const char *what = include ? "include" : "exclude";
	struct sb_point *pts;
	size_t i, j;

	if (expect(ld, n, N_SEQ, include ? "'include'" : "'exclude'") < 0 ||
	    expect_len(ld, n, n->nkids, SB_SPEC_MAX_POINTS, include ? "'include'" : "'exclude'") < 0)
		return -1;
	if (!include && !s->has_grid && n->nkids > 0)
		return nerr(ld, n, "'exclude' needs 'parameters' (there is no grid to exclude from)");
	pts = sb_arena_alloc(&s->arena, (n->nkids + 1) * sizeof(*pts));
	if (pts == NULL)
		return oom(ld);
	for (i = 0; i < n->nkids; i++) {
		const struct node *e = n->kids[i];
		struct sb_point *pt = &pts[i];
		char buf[160];
		if (expect(ld, e, N_MAP, include ? "an include entry" : "an exclude entry") < 0)
			return -1;
		pt->line = e->line;
		pt->col = e->col;
		pt->vals = sb_arena_alloc(&s->arena, (s->nparams + 1) * sizeof(*pt->vals));
		pt->set = sb_arena_alloc(&s->arena, s->nparams + 1);
		if (pt->vals == NULL || pt->set == NULL)
			return oom(ld);
		if (e->nkids == 0 && !include)
			return nerr(ld, e, "empty exclude entry (it would exclude every point)");
		for (j = 0; j < e->nkids; j += 2) {
			const struct node *k = e->kids[j];
			int pi = param_index(s, k->text);
			if (pi < 0) {
				if (include && !s->has_grid)
					return nerr(ld, k, "include entry sets '%s', which the first include entry does not (every include entry sets the same parameters)",
						    k->text);
				return nerr(ld, k, "unknown parameter '%s' in %s entry%s", k->text, what,
					    param_suggest(s, k->text, false, buf));
			}
			if (get_param_value(ld, e->kids[j + 1], s->params[pi].name, &pt->vals[pi]) < 0)
				return -1;
			pt->set[pi] = true;
		}
		if (include) {
			pt->text = sb_arena_alloc(&s->arena, (s->nparams + 1) * sizeof(*pt->text));
			pt->quoted = sb_arena_alloc(&s->arena, (s->nparams + 1) * sizeof(*pt->quoted));
			if (pt->text == NULL || pt->quoted == NULL)
				return oom(ld);
			for (j = 0; j < s->nparams; j++) {
				if (!pt->set[j])
					return nerr(ld, e, "include entry does not set parameter '%s' (each include entry sets every parameter)",
						    s->params[j].name);
				if (make_texts(ld, &pt->vals[j], &pt->text[j], &pt->quoted[j]) < 0)
					return -1;
			}
		}
	}
	if (include) {
		s->include = pts;
		s->ninclude = n->nkids;
	} else {
		s->exclude = pts;
		s->nexclude = n->nkids;
		s->exclude_line = n->line;
		s->exclude_col = n->col;
	}
	return 0;
}

static bool is_ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Compiles text (a node's or a converted number's) into t. */
static int compile_tmpl(struct ld *ld, const struct node *n, const char *text, size_t len,
			struct sb_tmpl *t)
{
	struct sb_spec *s = ld->s;
	struct sb_seg *segs;
	char *lit;
	size_t i = 0, o = 0, nsegs = 0, start = 0, cap;

	/* at most one segment per reference and one literal before each, plus one */
	cap = 2;
	for (i = 0; i < len; i++)
		cap += text[i] == '{' ? 2 : 0;
	segs = sb_arena_alloc(&s->arena, cap * sizeof(*segs));
	lit = sb_arena_alloc(&s->arena, len + 1);
	if (segs == NULL || lit == NULL)
		return oom(ld);
	t->line = n->line;
	t->col = n->col;
	i = 0;
	while (i < len) {
		char c = text[i];
		if ((c == '{' || c == '}') && i + 1 < len && text[i + 1] == c) {
			lit[o++] = c;
			i += 2;
		} else if (c == '{') {
			size_t j = i + 1, nl;
			char name[SB_SPEC_MAX_NAME + 1], buf[160];
			struct sb_seg ref = { 0 };
			int pi;
			while (j < len && is_ident_char(text[j]))
				j++;
			nl = j - i - 1;
			if (j >= len)
				return nerr(ld, n, "unterminated '{' in template at offset %zu (write '{{' for a literal '{')", i);
			if (nl <= SB_SPEC_MAX_NAME) {
				memcpy(name, text + i + 1, nl);
				name[nl] = '\0';
			}
			if (text[j] != '}' || nl == 0 || nl > SB_SPEC_MAX_NAME || !valid_ident(name))
				return nerr(ld, n, "invalid reference '%.*s' in template at offset %zu (write '{{' for a literal '{')",
					    (int)(j - i + 1 < 24 ? j - i + 1 : 24), text + i, i);
			if (!strcmp(name, "repeat")) {
				ref.kind = SB_SEG_REPEAT;
			} else if (!strcmp(name, "child")) {
				ref.kind = SB_SEG_CHILD;
			} else if ((pi = param_index(s, name)) >= 0) {
				ref.kind = SB_SEG_PARAM;
				ref.param = (size_t)pi;
			} else {
				param_suggest(s, name, true, buf);
				return nerr(ld, n, "unknown parameter '%s' in template%s", name,
					    buf[0] ? buf : " (write '{{' for a literal '{')");
			}
			if (o > start)
				segs[nsegs++] = (struct sb_seg){ SB_SEG_LIT, 0, lit + start, o - start };
			segs[nsegs++] = ref;
			start = o;
			i = j + 1;
		} else {
			lit[o++] = c;
			i++;
		}
	}
	if (o > start || nsegs == 0)
		segs[nsegs++] = (struct sb_seg){ SB_SEG_LIT, 0, lit + start, o - start };
	lit[o] = '\0';
	t->segs = segs;
	t->nsegs = nsegs;
	return 0;
}

/* A command element or env value: a scalar; numbers and bools become their
 * canonical text, strings are templates. */
static int scalar_tmpl(struct ld *ld, const struct node *n, const char *what, struct sb_tmpl *t)
{
	struct sb_value v;
	bool is_null;
	char buf[SB_DOUBLE_TEXT_MAX];
	const char *text;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != N_SCALAR || is_null)
		return nerr(ld, n, "%s must be a string, not %s", what, describe(n, &v, is_null));
	text = scalar_text(&v, buf);
	return compile_tmpl(ld, n, text, v.type == SB_VALUE_STR ? v.u.str.len : strlen(text), t);
}

static int load_command(struct ld *ld, const struct node *n)
{
	struct sb_spec *s = ld->s;
	size_t i;

	if (n->kind == N_SCALAR) {
		struct sb_value v;
		bool is_null;
		if (resolve(ld, n, &v, &is_null) < 0)
			return -1;
		if (is_null || v.type != SB_VALUE_STR)
			return nerr(ld, n, "'command' must be a list (argv) or a string (shell), not %s",
				    describe(n, &v, is_null));
		if (n->len == 0 || strspn(n->text, " \t\n") == n->len)
			return nerr(ld, n, "'command' is empty");
		s->shell = true;
		return compile_tmpl(ld, n, n->text, n->len, &s->shell_cmd);
	}
	if (n->kind != N_SEQ)
		return nerr(ld, n, "'command' must be a list (argv) or a string (shell), not a mapping");
	if (n->nkids == 0)
		return nerr(ld, n, "'command' is an empty list");
	if (expect_len(ld, n, n->nkids, SB_SPEC_MAX_LIST, "'command'") < 0)
		return -1;
	s->argc = n->nkids;
	s->argv = sb_arena_alloc(&s->arena, s->argc * sizeof(*s->argv));
	if (s->argv == NULL)
		return oom(ld);
	for (i = 0; i < n->nkids; i++)
		if (scalar_tmpl(ld, n->kids[i], "a command element", &s->argv[i]) < 0)
			return -1;
	if (s->argv[0].nsegs == 1 && s->argv[0].segs[0].kind == SB_SEG_LIT && s->argv[0].segs[0].len == 0)
		return nerr(ld, n->kids[0], "the program (first element of 'command') is empty");
	return 0;
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const struct sb_env *)a)->name, ((const struct sb_env *)b)->name);
}

static int load_env(struct ld *ld, const struct node *n)
{
	struct sb_spec *s = ld->s;
	size_t i;

	if (expect(ld, n, N_MAP, "'env'") < 0 ||
	    expect_len(ld, n, n->nkids / 2, SB_SPEC_MAX_LIST, "'env'") < 0)
		return -1;
	s->nenv = n->nkids / 2;
	s->env = sb_arena_alloc(&s->arena, (s->nenv + 1) * sizeof(*s->env));
	if (s->env == NULL)
		return oom(ld);
	for (i = 0; i < s->nenv; i++) {
		const struct node *k = n->kids[2 * i];
		if (!valid_ident(k->text))
			return nerr(ld, k, "environment variable name '%s' is not valid (letters, digits and _, not starting with a digit)",
				    k->text);
		if (!strncmp(k->text, "SB_", 3))
			return nerr(ld, k, "environment variable '%s' is reserved (sbagent sets SB_*)", k->text);
		s->env[i].name = sb_arena_strndup(&s->arena, k->text, k->len);
		if (s->env[i].name == NULL)
			return oom(ld);
		if (scalar_tmpl(ld, n->kids[2 * i + 1], "an env value", &s->env[i].value) < 0)
			return -1;
	}
	qsort(s->env, s->nenv, sizeof(*s->env), cmp_env);
	return 0;
}

static int check_path(struct ld *ld, const struct node *n, const char *p, const char *what)
{
	const char *c;

	if (*p == '\0')
		return nerr(ld, n, "%s path is empty", what);
	if (*p == '/')
		return nerr(ld, n, "%s path '%s' is absolute (paths are relative to the run directory)", what, p);
	if (has_control(p))
		return nerr(ld, n, "%s path contains a control character", what);
	if (strchr(p, '{') != NULL || strchr(p, '}') != NULL)
		return nerr(ld, n, "%s path '%s' contains '{' or '}' (paths are not templates: each child has its own run directory)",
			    what, p);
	for (c = p; c != NULL; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
			return nerr(ld, n, "%s path '%s' leaves the run directory ('..')", what, p);
	}
	return 0;
}

/* A list of strings, each checked by kind: 0 plain, 1 path, 2 parameter. */
static int load_strings(struct ld *ld, const struct node *n, const char *what, int kind,
			const char ***out, size_t *count)
{
	struct sb_spec *s = ld->s;
	const char **v;
	size_t i, j;
	char buf[160];

	if (expect(ld, n, N_SEQ, what) < 0 || expect_len(ld, n, n->nkids, SB_SPEC_MAX_LIST, what) < 0)
		return -1;
	v = sb_arena_alloc(&s->arena, (n->nkids + 1) * sizeof(*v));
	if (v == NULL)
		return oom(ld);
	for (i = 0; i < n->nkids; i++) {
		const struct node *e = n->kids[i];
		if (get_string(ld, e, "an entry of this list", &v[i]) < 0)
			return -1;
		if (kind == 0 && (v[i][0] == '\0' || has_control(v[i])))
			return nerr(ld, e, "%s entry is empty or contains a control character", what);
		if (kind == 1 && check_path(ld, e, v[i], "result") < 0)
			return -1;
		if (kind == 2 && param_index(s, v[i]) < 0)
			return nerr(ld, e, "%s names '%s', which is not a parameter%s", what, v[i],
				    param_suggest(s, v[i], false, buf));
		for (j = 0; j < i; j++)
			if (!strcmp(v[i], v[j]))
				return nerr(ld, e, "'%s' is listed twice in %s", v[i], what);
	}
	*out = v;
	*count = n->nkids;
	return 0;
}

static int find_key(const char *key, const char *const *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(key, keys[i]))
			return (int)i;
	return -1;
}

static bool is_null_node(const struct node *n)
{
	return n->kind == N_SCALAR && n->plain &&
	       (!strcmp(n->text, "") || !strcmp(n->text, "~") || !strcmp(n->text, "null") ||
		!strcmp(n->text, "Null") || !strcmp(n->text, "NULL"));
}

/* Fills slots[i] with the value node of keys[i], rejecting unknown keys.
 * A key whose value is null counts as absent, except required ones. */
static int sort_keys(struct ld *ld, const struct node *m, const char *section,
		     const char *const *keys, size_t nkeys, unsigned required,
		     const struct node **slots)
{
	size_t i;
	char buf[160];

	for (i = 0; i < m->nkids; i += 2) {
		const struct node *k = m->kids[i];
		int idx = find_key(k->text, keys, nkeys);
		if (idx < 0) {
			if (section != NULL)
				return nerr(ld, k, "unknown key '%s' in '%s'%s", k->text, section,
					    suggest(k->text, keys, nkeys, buf));
			return nerr(ld, k, "unknown key '%s'%s", k->text, suggest(k->text, keys, nkeys, buf));
		}
		if (!is_null_node(m->kids[i + 1]) || (required & (1u << idx)))
			slots[idx] = m->kids[i + 1];
	}
	return 0;
}

static const char *const slurm_keys[] = {
	"partition", "time", "mem", "gres", "nodes", "constraint",
	"cpus_per_task", "ntasks", "array_throttle", "extra",
};

static int load_slurm(struct ld *ld, const struct node *n)
{
	struct sb_slurm_options *o = &ld->s->slurm;
	const struct node *slot[10] = { 0 };
	const char **strs[6] = { &o->partition, &o->time, &o->mem, &o->gres, &o->nodes, &o->constraint };
	int64_t *ints[3] = { &o->cpus_per_task, &o->ntasks, &o->array_throttle };
	char what[64];
	size_t i;

	if (expect(ld, n, N_MAP, "'slurm'") < 0 || sort_keys(ld, n, "slurm", slurm_keys, 10, 0, slot) < 0)
		return -1;
	for (i = 0; i < 6; i++) {
		if (slot[i] == NULL)
			continue;
		snprintf(what, sizeof(what), "slurm '%s'", slurm_keys[i]);
		if (get_text(ld, slot[i], what, strs[i]) < 0)
			return -1;
		if ((*strs[i])[0] == '\0' || has_control(*strs[i]))
			return nerr(ld, slot[i], "%s is empty or contains a control character", what);
	}
	for (i = 0; i < 3; i++) {
		if (slot[6 + i] == NULL)
			continue;
		snprintf(what, sizeof(what), "slurm '%s'", slurm_keys[6 + i]);
		if (get_int(ld, slot[6 + i], what, 1, 1000000, ints[i]) < 0)
			return -1;
	}
	if (slot[9] != NULL) {
		const char **extra;
		if (load_strings(ld, slot[9], "slurm 'extra'", 0, &extra, &o->nextra) < 0)
			return -1;
		o->extra = extra;
	}
	return 0;
}

static int load_analysis(struct ld *ld, const struct node *n)
{
	static const char *const keys[] = { "group_by", "metrics" };
	struct sb_spec *s = ld->s;
	const struct node *slot[2] = { 0 };

	if (expect(ld, n, N_MAP, "'analysis'") < 0 || sort_keys(ld, n, "analysis", keys, 2, 0, slot) < 0)
		return -1;
	if (slot[0] != NULL && load_strings(ld, slot[0], "analysis 'group_by'", 2, &s->group_by,
					    &s->ngroup_by) < 0)
		return -1;
	if (slot[1] != NULL) {
		if (load_strings(ld, slot[1], "analysis 'metrics'", 0, &s->ametrics, &s->nametrics) < 0)
			return -1;
		s->has_ametrics = true;
	}
	return 0;
}

enum {
	K_NAME, K_TAG, K_COMMAND, K_PARAMETERS, K_INCLUDE, K_EXCLUDE, K_REPEATS, K_ENV,
	K_RESULTS, K_METRICS, K_HEARTBEAT, K_SLURM, K_ANALYSIS, K_COUNT
};

static const char *const top_keys[K_COUNT] = {
	"name", "tag", "command", "parameters", "include", "exclude", "repeats", "env",
	"results", "metrics", "heartbeat", "slurm", "analysis",
};

static int load_top(struct ld *ld, const struct node *root)
{
	struct sb_spec *s = ld->s;
	const struct node *slot[K_COUNT] = { 0 };
	struct sb_value v;
	bool is_null;
	size_t i;

	if (root->kind != N_MAP) {
		if (resolve(ld, root, &v, &is_null) < 0)
			return -1;
		return nerr(ld, root, "a spec must be a mapping, not %s", describe(root, &v, is_null));
	}
	s->line = root->line;
	s->col = root->col;
	if (sort_keys(ld, root, NULL, top_keys, K_COUNT, 1u << K_NAME | 1u << K_COMMAND, slot) < 0)
		return -1;
	if (slot[K_NAME] == NULL)
		return nerr(ld, root, "missing required key 'name'");
	if (get_string(ld, slot[K_NAME], "'name'", &s->name) < 0)
		return -1;
	if (!valid_name(s->name))
		return nerr(ld, slot[K_NAME], "name '%.80s' is not valid (1 to %d of A-Z a-z 0-9 . _ -)",
			    s->name, SB_SPEC_MAX_NAME);
	if (slot[K_TAG] != NULL) {
		if (get_string(ld, slot[K_TAG], "'tag'", &s->tag) < 0)
			return -1;
		if (!valid_name(s->tag))
			return nerr(ld, slot[K_TAG], "tag '%.80s' is not valid (1 to %d of A-Z a-z 0-9 . _ -)",
				    s->tag, SB_SPEC_MAX_NAME);
	}
	if (slot[K_COMMAND] == NULL)
		return nerr(ld, root, "missing required key 'command'");
	if (slot[K_PARAMETERS] != NULL) {
		if (load_parameters(ld, slot[K_PARAMETERS]) < 0)
			return -1;
	} else if (slot[K_INCLUDE] != NULL) {
		if (params_from_include(ld, slot[K_INCLUDE]) < 0)
			return -1;
	}
	if (slot[K_INCLUDE] != NULL && load_points(ld, slot[K_INCLUDE], true) < 0)
		return -1;
	if (slot[K_EXCLUDE] != NULL && load_points(ld, slot[K_EXCLUDE], false) < 0)
		return -1;
	if (load_command(ld, slot[K_COMMAND]) < 0)
		return -1;
	s->repeats = 1;
	if (slot[K_REPEATS] != NULL &&
	    get_int(ld, slot[K_REPEATS], "'repeats'", 1, SB_SPEC_MAX_REPEATS, &s->repeats) < 0)
		return -1;
	if (slot[K_ENV] != NULL && load_env(ld, slot[K_ENV]) < 0)
		return -1;
	if (slot[K_RESULTS] != NULL &&
	    load_strings(ld, slot[K_RESULTS], "'results'", 1, &s->results, &s->nresults) < 0)
		return -1;
	if (slot[K_METRICS] != NULL) {
		if (get_string(ld, slot[K_METRICS], "'metrics'", &s->metrics) < 0 ||
		    check_path(ld, slot[K_METRICS], s->metrics, "metrics") < 0)
			return -1;
	}
	s->heartbeat = 60;
	if (slot[K_HEARTBEAT] != NULL &&
	    get_int(ld, slot[K_HEARTBEAT], "'heartbeat'", 1, 86400, &s->heartbeat) < 0)
		return -1;
	if (slot[K_SLURM] != NULL && load_slurm(ld, slot[K_SLURM]) < 0)
		return -1;
	if (slot[K_ANALYSIS] != NULL && load_analysis(ld, slot[K_ANALYSIS]) < 0)
		return -1;
	if (s->group_by == NULL) {
		s->group_by = sb_arena_alloc(&s->arena, (s->nparams + 1) * sizeof(char *));
		if (s->group_by == NULL)
			return oom(ld);
		for (i = 0; i < s->nparams; i++)
			s->group_by[i] = s->params[i].name;
		s->ngroup_by = s->nparams;
	}
	return 0;
}

struct sb_spec *sb_spec_load_buffer(const char *data, size_t len, const char *display_name,
				    struct sb_error *err)
{
	struct sb_spec *s;
	struct node *root;
	struct ld ld;

	if (len > SB_SPEC_MAX_FILE_SIZE) {
		sb_errorf(err, "'%s' is too large (%zu bytes, limit %d)", display_name, len,
			  SB_SPEC_MAX_FILE_SIZE);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		sb_errorf(err, "'%s': out of memory", display_name);
		return NULL;
	}
	s->path = sb_arena_strndup(&s->arena, display_name, strlen(display_name));
	if (s->path == NULL) {
		sb_errorf(err, "'%s': out of memory", display_name);
		sb_spec_destroy(s);
		return NULL;
	}
	ld = (struct ld){ .path = s->path, .err = err, .s = s };
	root = parse_tree(s->path, (const unsigned char *)data, len, err);
	if (root == NULL || load_top(&ld, root) < 0) {
		node_free(root);
		sb_spec_destroy(s);
		return NULL;
	}
	node_free(root);
	return s;
}

struct sb_spec *sb_spec_load(const char *path, struct sb_error *err)
{
	struct sb_spec *s;
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sb_errorf(err, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		sb_errorf(err, "cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sb_errorf(err, "cannot read '%s': %s", path,
			  S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return NULL;
	}
	if (st.st_size > SB_SPEC_MAX_FILE_SIZE) {
		sb_errorf(err, "'%s' is too large (%lld bytes, limit %d)", path,
			  (long long)st.st_size, SB_SPEC_MAX_FILE_SIZE);
		close(fd);
		return NULL;
	}
	buf = malloc(SB_SPEC_MAX_FILE_SIZE + 1);
	if (buf == NULL) {
		sb_errorf(err, "'%s': out of memory", path);
		close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t r = read(fd, buf + len, SB_SPEC_MAX_FILE_SIZE + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			sb_errorf(err, "cannot read '%s': %s", path, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0 || (len += (size_t)r) > SB_SPEC_MAX_FILE_SIZE)
			break;
	}
	close(fd);
	if (len > SB_SPEC_MAX_FILE_SIZE) {
		sb_errorf(err, "'%s' is too large (more than %d bytes)", path, SB_SPEC_MAX_FILE_SIZE);
		free(buf);
		return NULL;
	}
	s = sb_spec_load_buffer(buf, len, path, err);
	free(buf);
	return s;
}

void sb_spec_destroy(struct sb_spec *spec)
{
	if (spec == NULL)
		return;
	sb_arena_release(&spec->arena);
	free(spec);
}

/* ---- accessors ---- */

const char *sb_spec_path(const struct sb_spec *s) { return s->path; }
const char *sb_spec_name(const struct sb_spec *s) { return s->name; }
const char *sb_spec_tag(const struct sb_spec *s) { return s->tag; }
size_t sb_spec_param_count(const struct sb_spec *s) { return s->nparams; }
const char *sb_spec_param_name(const struct sb_spec *s, size_t i) { return s->params[i].name; }
size_t sb_spec_param_value_count(const struct sb_spec *s, size_t i) { return s->params[i].nvalues; }
const struct sb_value *sb_spec_param_value(const struct sb_spec *s, size_t i, size_t j)
{
	return &s->params[i].values[j];
}
int64_t sb_spec_repeats(const struct sb_spec *s) { return s->repeats; }
int64_t sb_spec_heartbeat(const struct sb_spec *s) { return s->heartbeat; }
bool sb_spec_command_is_shell(const struct sb_spec *s) { return s->shell; }
size_t sb_spec_result_count(const struct sb_spec *s) { return s->nresults; }
const char *sb_spec_result(const struct sb_spec *s, size_t i) { return s->results[i]; }
const char *sb_spec_metrics(const struct sb_spec *s) { return s->metrics; }
size_t sb_spec_env_count(const struct sb_spec *s) { return s->nenv; }
const char *sb_spec_env_name(const struct sb_spec *s, size_t i) { return s->env[i].name; }
const struct sb_slurm_options *sb_spec_slurm(const struct sb_spec *s) { return &s->slurm; }
size_t sb_spec_group_by_count(const struct sb_spec *s) { return s->ngroup_by; }
const char *sb_spec_group_by(const struct sb_spec *s, size_t i) { return s->group_by[i]; }
bool sb_spec_has_analysis_metrics(const struct sb_spec *s) { return s->has_ametrics; }
size_t sb_spec_analysis_metric_count(const struct sb_spec *s) { return s->nametrics; }
const char *sb_spec_analysis_metric(const struct sb_spec *s, size_t i) { return s->ametrics[i]; }
