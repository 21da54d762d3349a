/* Templates ({name} references in command elements and env values) and the
 * substitution text of a value, bare and in POSIX single quotes. */
#include <string.h>

#include "spec/spec_loader.h"
#include "spec/spec_template.h"
#include "proto/util.h"

static bool is_ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

int sb_tmpl_compile(struct sb_spec *s, int line, int col, const char *text, size_t len,
		    struct sb_tmpl *t, struct sb_error *err)
{
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
		return sb_spec_oom(s, err);
	t->line = line;
	t->col = col;
	i = 0;
	while (i < len) {
		char c = text[i];
		if ((c == '{' || c == '}') && i + 1 < len && text[i + 1] == c) {
			lit[o++] = c;
			i += 2;
		} else if (c == '{') {
			size_t j = i + 1, nl;
			char name[SB_SPEC_MAX_NAME + 1], buf[SB_SUGGEST_MAX];
			struct sb_seg ref = { 0 };
			int pi;
			while (j < len && is_ident_char(text[j]))
				j++;
			nl = j - i - 1;
			if (j >= len)
				return sb_spec_errorf(s, err, line, col, "unterminated '{' in template at offset %zu (write '{{' for a literal '{')", i);
			if (nl <= SB_SPEC_MAX_NAME) {
				memcpy(name, text + i + 1, nl);
				name[nl] = '\0';
			}
			if (text[j] != '}' || nl == 0 || nl > SB_SPEC_MAX_NAME || !sb_spec_valid_ident(name))
				return sb_spec_errorf(s, err, line, col, "invalid reference '%.*s' in template at offset %zu (write '{{' for a literal '{')",
					    (int)(j - i + 1 < 24 ? j - i + 1 : 24), text + i, i);
			if (!strcmp(name, SB_TMPL_SPEC_DIR_NAME)) {
				/* resolved at run time by sbagent, never by sbctl: the
				 * reference stays as it is written, in the resolved text
				 * and so in the digests, which therefore do not depend
				 * on where the spec lives */
				memcpy(lit + o, text + i, j + 1 - i);
				o += j + 1 - i;
				i = j + 1;
				continue;
			} else if (!strcmp(name, "repeat")) {
				ref.kind = SB_SEG_REPEAT;
			} else if (!strcmp(name, "child")) {
				ref.kind = SB_SEG_CHILD;
			} else if ((pi = sb_spec_param_index(s, name)) >= 0) {
				ref.kind = SB_SEG_PARAM;
				ref.param = (size_t)pi;
			} else {
				sb_spec_param_suggest(s, name, true, buf);
				return sb_spec_errorf(s, err, line, col, "unknown parameter '%s' in template%s", name,
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

int sb_tmpl_value_texts(struct sb_spec *s, const struct sb_value *v, struct sb_str *text,
			struct sb_str *quoted, struct sb_error *err)
{
	char buf[SB_DOUBLE_TEXT_MAX], *q;
	struct sb_str str = sb_value_str(v, buf);
	const char *t = str.s;
	size_t len = str.len, quotes = 0, k, o = 0;

	for (k = 0; k < len; k++)
		quotes += t[k] == '\'';
	text->s = v->type == SB_VALUE_STR ? t : sb_arena_strndup(&s->arena, t, len);
	text->len = len;
	q = sb_arena_alloc(&s->arena, len + 3 * quotes + 3);
	if (text->s == NULL || q == NULL)
		return sb_spec_oom(s, err);
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
