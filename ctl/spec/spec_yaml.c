/* YAML text -> a tree of nodes with their positions, through libyaml's
 * events; every YAML feature a spec refuses (anchors, aliases, tags but
 * !!str, several documents, duplicate keys) is refused here, at its
 * position. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "proto/util.h"
#include "spec/spec_yaml.h"
#include "sbench/spec.h"

void sb_ynode_free(struct sb_ynode *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		sb_ynode_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static int ynode_add(struct sb_ynode *parent, struct sb_ynode *kid)
{
	if (parent->nkids == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		struct sb_ynode **k = realloc(parent->kids, cap * sizeof(*k));
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

int sb_ynode_verrorf(struct sb_error *err, const char *path, int line, int col,
		     const char *fmt, va_list ap)
{
	char msg[SB_ERROR_MAX], safe[SB_ERROR_MAX], *whole = NULL;
	int rc;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (asprintf(&whole, "%s:%d:%d: %s", path, line, col, msg) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	/* a spec value or a file name in it is shown, never acted on by a terminal */
	rc = sb_errorf(err, "%s", sb_escape_controls(whole, safe, sizeof(safe)));
	free(whole);
	return rc;
}

static int at_errorf(struct sb_error *err, const char *path, int line, int col,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int at_errorf(struct sb_error *err, const char *path, int line, int col,
		     const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sb_ynode_verrorf(err, path, line, col, fmt, ap);
	va_end(ap);
	return rc;
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

static int check_map_keys(const char *path, const struct sb_ynode *m, struct sb_error *err)
{
	size_t i, j;

	for (i = 0; i < m->nkids; i += 2) {
		const struct sb_ynode *k = m->kids[i];
		if (k->kind != SB_YNODE_SCALAR)
			return at_errorf(err, path, k->line, k->col,
					 "mapping key is %s (keys must be scalars)",
					 k->kind == SB_YNODE_SEQ ? "a list" : "a mapping");
		for (j = 0; j < i; j += 2) {
			const struct sb_ynode *o = m->kids[j];
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

struct sb_ynode *sb_ynode_parse(const char *path, const unsigned char *data, size_t len,
			       struct sb_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct sb_ynode *stack[SB_SPEC_MAX_DEPTH + 1];
	struct sb_ynode *root = NULL;
	int depth = 0, ndocs = 0;
	bool done = false, failed = false;

	if (!yaml_parser_initialize(&parser)) {
		sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", path);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, data, len);
	while (!done && !failed) {
		struct sb_ynode *n = NULL;
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
				sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", path);
				failed = true;
				break;
			}
			n->kind = SB_YNODE_SCALAR;
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
				sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", path);
				failed = true;
				break;
			}
			n->kind = seq ? SB_YNODE_SEQ : SB_YNODE_MAP;
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0) {
				struct sb_ynode *top = stack[--depth];
				if (top->kind == SB_YNODE_MAP && check_map_keys(path, top, err) < 0)
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
					sb_ynode_free(n);
					n = NULL;
				} else {
					root = n;
				}
			} else {
				struct sb_ynode *parent = stack[depth - 1];
				if (parent->kind == SB_YNODE_MAP && parent->nkids >= 2 * MAX_MAP_ENTRIES) {
					at_errorf(err, path, line, col, "mapping has too many entries (limit %d)",
						  MAX_MAP_ENTRIES);
					sb_ynode_free(n);
					n = NULL;
					failed = true;
				} else if (ynode_add(parent, n) < 0) {
					sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", path);
					sb_ynode_free(n);
					n = NULL;
					failed = true;
				}
			}
			if (n != NULL && n->kind != SB_YNODE_SCALAR)
				stack[depth++] = n;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (failed) {
		sb_ynode_free(root);
		return NULL;
	}
	if (root == NULL) {
		at_errorf(err, path, 1, 1, "spec is empty");
		return NULL;
	}
	return root;
}
