/* The early_stop key of a spec: its rules, checked with an error at their
 * position, and their canonical msgpack. */
#include <stdarg.h>
#include <string.h>

#include "base/canon.h"
#include "spec/spec_earlystop.h"
#include "spec/spec_loader.h"
#include "spec/spec_yaml.h"
#include "base/suggest.h"
#include "proto/yamlscalar.h"

static int at(const struct sb_spec *s, const struct sb_ynode *n, struct sb_error *err,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int at(const struct sb_spec *s, const struct sb_ynode *n, struct sb_error *err,
	      const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sb_ynode_verrorf(err, s->path, n->line, n->col, fmt, ap);
	va_end(ap);
	return rc;
}

static const char *kind_text(const struct sb_ynode *n)
{
	return n->kind == SB_YNODE_SEQ ? "a list" : n->kind == SB_YNODE_MAP ? "a mapping" : "a string";
}

/* A finite int or float scalar (plain, so a quoted "5" is a string). */
static int get_number(const struct sb_spec *s, const struct sb_ynode *n, const char *what,
		      struct sb_value *out, struct sb_error *err)
{
	struct sb_yamlscalar y;

	memset(out, 0, sizeof(*out));
	if (n->kind != SB_YNODE_SCALAR || !n->plain)
		return at(s, n, err, "early_stop '%s' must be a number, not %s", what, kind_text(n));
	switch (sb_yamlscalar_resolve(n->text, &y)) {
	case SB_YAMLSCALAR_INT:
		out->type = SB_VALUE_INT;
		out->u.i = y.u.i;
		return 0;
	case SB_YAMLSCALAR_FLOAT:
		out->type = SB_VALUE_FLOAT;
		out->u.f = y.u.f;
		return 0;
	case SB_YAMLSCALAR_NULL:
		return at(s, n, err, "early_stop '%s' must be a number, not null", what);
	case SB_YAMLSCALAR_BOOL:
		return at(s, n, err, "early_stop '%s' must be a number, not a bool", what);
	case SB_YAMLSCALAR_STR:
		return at(s, n, err, "early_stop '%s' must be a number, not a string", what);
	default:
		return at(s, n, err, "early_stop '%s' is '%s', not a finite number in range", what,
			  n->text);
	}
}

static double number(const struct sb_value *v)
{
	return v->type == SB_VALUE_INT ? (double)v->u.i : v->u.f;
}

static int load_rule(struct sb_spec *s, const struct sb_ynode *m, struct sb_early_rule *r,
		     struct sb_error *err)
{
	static const char *const keys[] = { SB_ES_METRIC, SB_ES_ABOVE, SB_ES_BELOW, SB_ES_AFTER };
	const struct sb_ynode *slot[4] = { 0 };
	char buf[SB_SUGGEST_MAX];
	size_t i, k;

	if (m->kind != SB_YNODE_MAP)
		return at(s, m, err, "an early_stop rule must be a mapping {metric, above or below, "
			  "after}, not %s", kind_text(m));
	for (i = 0; i < m->nkids; i += 2) {
		const struct sb_ynode *key = m->kids[i];

		for (k = 0; k < 4 && strcmp(key->text, keys[k]) != 0; k++)
			;
		if (k == 4)
			return at(s, key, err, "unknown key '%s' in an early_stop rule%s", key->text,
				  sb_suggest(key->text, keys, 4, buf));
		slot[k] = m->kids[i + 1];
	}
	r->line = m->line;
	r->col = m->col;
	if (slot[0] == NULL)
		return at(s, m, err, "an early_stop rule needs 'metric' (the name of a number in the "
			  "metrics file)");
	if (slot[0]->kind != SB_YNODE_SCALAR || slot[0]->len == 0)
		return at(s, slot[0], err, "early_stop 'metric' must be a non-empty string");
	if (slot[0]->len > SB_EARLY_STOP_MAX_METRIC || sb_spec_has_control(slot[0]->text))
		return at(s, slot[0], err, "early_stop 'metric' is longer than %d bytes or contains "
			  "a control character", SB_EARLY_STOP_MAX_METRIC);
	if ((slot[1] != NULL) == (slot[2] != NULL))
		return at(s, m, err, "an early_stop rule needs exactly one of 'above' and 'below'");
	r->above = slot[1] != NULL;
	if (get_number(s, slot[1] ? slot[1] : slot[2], r->above ? SB_ES_ABOVE : SB_ES_BELOW,
		       &r->threshold, err) < 0)
		return -1;
	r->after.type = SB_VALUE_INT;
	r->after.u.i = 0;
	if (slot[3] != NULL) {
		if (get_number(s, slot[3], SB_ES_AFTER, &r->after, err) < 0)
			return -1;
		if (number(&r->after) < 0 || number(&r->after) > SB_EARLY_STOP_MAX_AFTER)
			return at(s, slot[3], err, "early_stop 'after' is %s seconds, out of range "
				  "(0..%d)", slot[3]->text, SB_EARLY_STOP_MAX_AFTER);
	}
	r->metric = sb_arena_strndup(&s->arena, slot[0]->text, slot[0]->len);
	return r->metric ? 0 : sb_spec_oom(s, err);
}

int sb_spec_load_early_stop(struct sb_spec *s, const struct sb_ynode *n, struct sb_error *err)
{
	size_t i;

	if (n->kind != SB_YNODE_SEQ)
		return at(s, n, err, "'early_stop' must be a list of rules, not %s", kind_text(n));
	if (s->metrics == NULL)
		return at(s, n, err, "'early_stop' needs 'metrics': the file its rules read");
	if (n->nkids == 0)
		return at(s, n, err, "'early_stop' is an empty list (leave it out for no rules)");
	if (n->nkids > SB_EARLY_STOP_MAX_RULES)
		return at(s, n, err, "'early_stop' has too many rules (%zu, limit %d)", n->nkids,
			  SB_EARLY_STOP_MAX_RULES);
	s->early_stop = sb_arena_alloc(&s->arena, n->nkids * sizeof(*s->early_stop));
	if (s->early_stop == NULL)
		return sb_spec_oom(s, err);
	memset(s->early_stop, 0, n->nkids * sizeof(*s->early_stop));
	for (i = 0; i < n->nkids; i++)
		if (load_rule(s, n->kids[i], &s->early_stop[i], err) < 0)
			return -1;
	s->nearly_stop = n->nkids;
	return 0;
}

void sb_early_stop_canon(struct sb_canon *c, const struct sb_spec *s)
{
	size_t i;

	sb_canon_array(c, s->nearly_stop);
	for (i = 0; i < s->nearly_stop; i++) {
		const struct sb_early_rule *r = &s->early_stop[i];

		sb_canon_map(c, 3);
		if (r->above) {
			sb_canon_cstr(c, SB_ES_ABOVE);
			sb_canon_value(c, &r->threshold);
		}
		sb_canon_cstr(c, SB_ES_AFTER);
		sb_canon_value(c, &r->after);
		if (!r->above) {
			sb_canon_cstr(c, SB_ES_BELOW);
			sb_canon_value(c, &r->threshold);
		}
		sb_canon_cstr(c, SB_ES_METRIC);
		sb_canon_cstr(c, r->metric);
	}
}

size_t sb_spec_early_stop_count(const struct sb_spec *s)
{
	return s->nearly_stop;
}
