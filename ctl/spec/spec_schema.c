/* Loading a benchmark spec: the node tree of ctl/spec/spec_yaml.c -> a checked
 * struct sb_spec.  The keys of a spec, their types and limits, and the
 * resolution of plain scalars (proto/yamlscalar.h) into values with an error
 * at their position.  docs/spec.md is the reference for every rule enforced
 * here. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec_checkpoint.h"
#include "spec/spec_earlystop.h"
#include "spec/spec_loader.h"
#include "spec/spec_template.h"
#include "spec/spec_yaml.h"
#include "proto/util.h"
#include "proto/yamlscalar.h"

struct ld {
	const char *path;
	struct sb_error *err;
	struct sb_spec *s;
};

static int nerr(struct ld *ld, const struct sb_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int nerr(struct ld *ld, const struct sb_ynode *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = sb_ynode_verrorf(ld->err, ld->path, n->line, n->col, fmt, ap);
	va_end(ap);
	return rc;
}

static int oom(struct ld *ld)
{
	return sb_spec_oom(ld->s, ld->err);
}

static const char *describe(const struct sb_ynode *n, const struct sb_value *v, bool is_null)
{
	if (n->kind == SB_YNODE_SEQ)
		return "a list";
	if (n->kind == SB_YNODE_MAP)
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

/* Resolves a scalar with the YAML 1.2 core schema.  Strings point into the
 * node's text (copy before the tree goes).  Returns 0 or -1. */
static int resolve(struct ld *ld, const struct sb_ynode *n, struct sb_value *v, bool *is_null)
{
	const char *t = n->text;
	struct sb_yamlscalar y;

	*is_null = false;
	memset(v, 0, sizeof(*v));
	if (n->kind != SB_YNODE_SCALAR)
		return 0;
	if (n->plain) {
		switch (sb_yamlscalar_resolve(t, &y)) {
		case SB_YAMLSCALAR_NULL:
			*is_null = true;
			return 0;
		case SB_YAMLSCALAR_BOOL:
			v->type = SB_VALUE_BOOL;
			v->u.b = y.u.b;
			return 0;
		case SB_YAMLSCALAR_INT:
			v->type = SB_VALUE_INT;
			v->u.i = y.u.i;
			return 0;
		case SB_YAMLSCALAR_FLOAT:
			v->type = SB_VALUE_FLOAT;
			v->u.f = y.u.f;
			return 0;
		case SB_YAMLSCALAR_STR:
			break;
		case SB_YAMLSCALAR_INT_RANGE:
			if (y.base != 10)
				return nerr(ld, n, "integer '%s' is out of range (limit %" PRId64 ")",
					    t, INT64_MAX);
			return nerr(ld, n, "integer '%s' is out of range (int64)", t);
		case SB_YAMLSCALAR_INF:
			return nerr(ld, n, "'%s' is infinite (numbers must be finite)", t);
		case SB_YAMLSCALAR_NAN:
			return nerr(ld, n, "'%s' is not a number (NaN is not allowed)", t);
		case SB_YAMLSCALAR_FLOAT_RANGE:
			return nerr(ld, n, "number '%s' is out of range (float64)", t);
		case SB_YAMLSCALAR_FLOAT_ZERO:
			return nerr(ld, n, "number '%s' is too small (it would read as 0)", t);
		}
	}
	v->type = SB_VALUE_STR;
	v->u.str.s = n->text;
	v->u.str.len = n->len;
	return 0;
}

static int get_string(struct ld *ld, const struct sb_ynode *n, const char *what, const char **out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != SB_YNODE_SCALAR || is_null || v.type != SB_VALUE_STR)
		return nerr(ld, n, "%s must be a string, not %s%s", what, describe(n, &v, is_null),
			    n->kind == SB_YNODE_SCALAR && !is_null ? " (quote it)" : "");
	*out = sb_arena_strndup(&ld->s->arena, n->text, n->len);
	return *out == NULL ? oom(ld) : 0;
}

static int get_int(struct ld *ld, const struct sb_ynode *n, const char *what, int64_t min,
		   int64_t max, int64_t *out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != SB_YNODE_SCALAR || is_null || v.type != SB_VALUE_INT)
		return nerr(ld, n, "%s must be an integer, not %s", what, describe(n, &v, is_null));
	if (v.u.i < min || v.u.i > max)
		return nerr(ld, n, "%s is %" PRId64 ", out of range (%" PRId64 "..%" PRId64 ")",
			    what, v.u.i, min, max);
	*out = v.u.i;
	return 0;
}

/* A non-null scalar's canonical text (a string's own bytes; a number's or
 * a bool's text in buf); "WHAT must be KIND" otherwise. */
static int scalar_str(struct ld *ld, const struct sb_ynode *n, const char *what, const char *kind,
		      char buf[SB_DOUBLE_TEXT_MAX], struct sb_str *out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != SB_YNODE_SCALAR || is_null)
		return nerr(ld, n, "%s must be %s, not %s", what, kind, describe(n, &v, is_null));
	*out = sb_value_str(&v, buf);
	return 0;
}

/* A scalar (string, number or bool) as its canonical text. */
static int get_text(struct ld *ld, const struct sb_ynode *n, const char *what, const char **out)
{
	char buf[SB_DOUBLE_TEXT_MAX];
	struct sb_str t;

	if (scalar_str(ld, n, what, "a scalar", buf, &t) < 0)
		return -1;
	*out = sb_arena_strndup(&ld->s->arena, t.s, t.len);
	return *out == NULL ? oom(ld) : 0;
}

static int expect(struct ld *ld, const struct sb_ynode *n, enum sb_ynode_kind kind, const char *what)
{
	struct sb_value v;
	bool is_null;

	if (n->kind == kind)
		return 0;
	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	return nerr(ld, n, "%s must be %s, not %s", what, kind == SB_YNODE_SEQ ? "a list" : "a mapping",
		    describe(n, &v, is_null));
}

static int expect_len(struct ld *ld, const struct sb_ynode *n, size_t count, size_t max, const char *what)
{
	if (count > max)
		return nerr(ld, n, "%s has too many entries (%zu, limit %zu)", what, count, max);
	return 0;
}

/* A parameter value: a non-null scalar. */
static int get_param_value(struct ld *ld, const struct sb_ynode *n, const char *pname,
			   struct sb_value *out)
{
	struct sb_value v;
	bool is_null;

	if (resolve(ld, n, &v, &is_null) < 0)
		return -1;
	if (n->kind != SB_YNODE_SCALAR)
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

/* Adds the text and shell-quoted text of every value of p. */
static int param_texts(struct ld *ld, struct sb_param *p)
{
	size_t j;

	p->text = sb_arena_alloc(&ld->s->arena, (p->nvalues + 1) * sizeof(*p->text));
	p->quoted = sb_arena_alloc(&ld->s->arena, (p->nvalues + 1) * sizeof(*p->quoted));
	if (p->text == NULL || p->quoted == NULL)
		return oom(ld);
	for (j = 0; j < p->nvalues; j++)
		if (sb_tmpl_value_texts(ld->s, &p->values[j], &p->text[j], &p->quoted[j], ld->err) < 0)
			return -1;
	return 0;
}

/* Checks that no value repeats in p (a repeated value makes a duplicate
 * point).  vnodes are the value nodes. */
static int param_unique(struct ld *ld, const struct sb_param *p, struct sb_ynode *const *vnodes)
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
			const struct sb_ynode *first = vnodes[tab[h] - 1];
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

/* The name of a parameter from its key node k, checked, with its position. */
static int param_name(struct ld *ld, const struct sb_ynode *k, struct sb_param *p)
{
	if (!sb_spec_valid_ident(k->text))
		return nerr(ld, k, "parameter name '%s' is not valid (letters, digits and _, not starting with a digit)",
			    k->text);
	if (!strcmp(k->text, "repeat") || !strcmp(k->text, "child") ||
	    !strcmp(k->text, SB_TMPL_SPEC_DIR_NAME))
		return nerr(ld, k, "parameter name '%s' is reserved", k->text);
	p->name = sb_arena_strndup(&ld->s->arena, k->text, k->len);
	p->line = k->line;
	p->col = k->col;
	return p->name == NULL ? oom(ld) : 0;
}

static int load_parameters(struct ld *ld, const struct sb_ynode *n)
{
	struct sb_spec *s = ld->s;
	size_t i, j, np = n->nkids / 2;

	if (expect(ld, n, SB_YNODE_MAP, "'parameters'") < 0)
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
		const struct sb_ynode *k = n->kids[2 * i], *vals = n->kids[2 * i + 1];
		struct sb_param *p = &s->params[i];
		if (param_name(ld, k, p) < 0)
			return -1;
		if (vals->kind != SB_YNODE_SEQ) {
			struct sb_value v;
			bool is_null;
			if (resolve(ld, vals, &v, &is_null) < 0)
				return -1;
			return nerr(ld, vals, "parameter '%s' must be a list of values, not %s%s", p->name,
				    describe(vals, &v, is_null),
				    vals->kind == SB_YNODE_SCALAR && !is_null ? " (write [value] for one value)" : "");
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
static int params_from_include(struct ld *ld, const struct sb_ynode *inc)
{
	struct sb_spec *s = ld->s;
	const struct sb_ynode *first;
	size_t i, np;

	if (inc->kind != SB_YNODE_SEQ || inc->nkids == 0 || inc->kids[0]->kind != SB_YNODE_MAP)
		return 0; /* load_points reports it */
	first = inc->kids[0];
	np = first->nkids / 2;
	if (expect_len(ld, first, np, SB_SPEC_MAX_PARAMS, "include entry") < 0)
		return -1;
	s->params = sb_arena_alloc(&s->arena, (np + 1) * sizeof(*s->params));
	if (s->params == NULL)
		return oom(ld);
	for (i = 0; i < np; i++) {
		const struct sb_ynode *k = first->kids[2 * i];
		if (param_name(ld, k, &s->params[i]) < 0)
			return -1;
	}
	s->nparams = np;
	qsort(s->params, np, sizeof(*s->params), cmp_param);
	return 0;
}

static int load_points(struct ld *ld, const struct sb_ynode *n, bool include)
{
	struct sb_spec *s = ld->s;
	const char *what = include ? "include" : "exclude";
	struct sb_point *pts;
	size_t i, j;

	if (expect(ld, n, SB_YNODE_SEQ, include ? "'include'" : "'exclude'") < 0 ||
	    expect_len(ld, n, n->nkids, SB_SPEC_MAX_POINTS, include ? "'include'" : "'exclude'") < 0)
		return -1;
	if (!include && !s->has_grid && n->nkids > 0)
		return nerr(ld, n, "'exclude' needs 'parameters' (there is no grid to exclude from)");
	pts = sb_arena_alloc(&s->arena, (n->nkids + 1) * sizeof(*pts));
	if (pts == NULL)
		return oom(ld);
	for (i = 0; i < n->nkids; i++) {
		const struct sb_ynode *e = n->kids[i];
		struct sb_point *pt = &pts[i];
		char buf[SB_SUGGEST_MAX];
		if (expect(ld, e, SB_YNODE_MAP, include ? "an include entry" : "an exclude entry") < 0)
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
			const struct sb_ynode *k = e->kids[j];
			int pi = sb_spec_param_index(s, k->text);
			if (pi < 0) {
				if (include && !s->has_grid)
					return nerr(ld, k, "include entry sets '%s', which the first include entry does not (every include entry sets the same parameters)",
						    k->text);
				return nerr(ld, k, "unknown parameter '%s' in %s entry%s", k->text, what,
					    sb_spec_param_suggest(s, k->text, false, buf));
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
				if (sb_tmpl_value_texts(ld->s, &pt->vals[j], &pt->text[j], &pt->quoted[j], ld->err) < 0)
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

/* A command element or env value: a scalar; numbers and bools become their
 * canonical text, strings are templates. */
static int scalar_tmpl(struct ld *ld, const struct sb_ynode *n, const char *what, struct sb_tmpl *t)
{
	char buf[SB_DOUBLE_TEXT_MAX];
	struct sb_str text;

	if (scalar_str(ld, n, what, "a string", buf, &text) < 0)
		return -1;
	return sb_tmpl_compile(ld->s, n->line, n->col, text.s, text.len, t, ld->err);
}

static int load_command(struct ld *ld, const struct sb_ynode *n)
{
	struct sb_spec *s = ld->s;
	size_t i;

	if (n->kind == SB_YNODE_SCALAR) {
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
		return sb_tmpl_compile(s, n->line, n->col, n->text, n->len, &s->shell_cmd, ld->err);
	}
	if (n->kind != SB_YNODE_SEQ)
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

static int load_env(struct ld *ld, const struct sb_ynode *n)
{
	struct sb_spec *s = ld->s;
	size_t i;

	if (expect(ld, n, SB_YNODE_MAP, "'env'") < 0 ||
	    expect_len(ld, n, n->nkids / 2, SB_SPEC_MAX_LIST, "'env'") < 0)
		return -1;
	s->nenv = n->nkids / 2;
	s->env = sb_arena_alloc(&s->arena, (s->nenv + 1) * sizeof(*s->env));
	if (s->env == NULL)
		return oom(ld);
	for (i = 0; i < s->nenv; i++) {
		const struct sb_ynode *k = n->kids[2 * i];
		if (!sb_spec_valid_ident(k->text))
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

static int check_path(struct ld *ld, const struct sb_ynode *n, const char *p, const char *what)
{
	const char *c;

	if (*p == '\0')
		return nerr(ld, n, "%s path is empty", what);
	if (*p == '/')
		return nerr(ld, n, "%s path '%s' is absolute (paths are relative to the run directory)", what, p);
	if (sb_spec_has_control(p))
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
static int load_strings(struct ld *ld, const struct sb_ynode *n, const char *what, int kind,
			const char ***out, size_t *count)
{
	struct sb_spec *s = ld->s;
	const char **v;
	size_t i, j;
	char buf[SB_SUGGEST_MAX];

	if (expect(ld, n, SB_YNODE_SEQ, what) < 0 || expect_len(ld, n, n->nkids, SB_SPEC_MAX_LIST, what) < 0)
		return -1;
	v = sb_arena_alloc(&s->arena, (n->nkids + 1) * sizeof(*v));
	if (v == NULL)
		return oom(ld);
	for (i = 0; i < n->nkids; i++) {
		const struct sb_ynode *e = n->kids[i];
		if (get_string(ld, e, "an entry of this list", &v[i]) < 0)
			return -1;
		if (kind == 0 && (v[i][0] == '\0' || sb_spec_has_control(v[i])))
			return nerr(ld, e, "%s entry is empty or contains a control character", what);
		if (kind == 1 && check_path(ld, e, v[i], "result") < 0)
			return -1;
		if (kind == 2 && sb_spec_param_index(s, v[i]) < 0)
			return nerr(ld, e, "%s names '%s', which is not a parameter%s", what, v[i],
				    sb_spec_param_suggest(s, v[i], false, buf));
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

static bool is_null_node(const struct sb_ynode *n)
{
	struct sb_yamlscalar y;

	return n->kind == SB_YNODE_SCALAR && n->plain &&
	       sb_yamlscalar_resolve(n->text, &y) == SB_YAMLSCALAR_NULL;
}

/* Fills slots[i] with the value node of keys[i], rejecting unknown keys.
 * A key whose value is null counts as absent, except required ones. */
static int sort_keys(struct ld *ld, const struct sb_ynode *m, const char *section,
		     const char *const *keys, size_t nkeys, unsigned required,
		     const struct sb_ynode **slots)
{
	size_t i;
	char buf[SB_SUGGEST_MAX];

	for (i = 0; i < m->nkids; i += 2) {
		const struct sb_ynode *k = m->kids[i];
		int idx = find_key(k->text, keys, nkeys);
		if (idx < 0) {
			if (section != NULL)
				return nerr(ld, k, "unknown key '%s' in '%s'%s", k->text, section,
					    sb_suggest(k->text, keys, nkeys, buf));
			return nerr(ld, k, "unknown key '%s'%s", k->text, sb_suggest(k->text, keys, nkeys, buf));
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

static int load_slurm(struct ld *ld, const struct sb_ynode *n)
{
	struct sb_slurm_options *o = &ld->s->slurm;
	const struct sb_ynode *slot[10] = { 0 };
	const char **strs[6] = { &o->partition, &o->time, &o->mem, &o->gres, &o->nodes, &o->constraint };
	int64_t *ints[3] = { &o->cpus_per_task, &o->ntasks, &o->array_throttle };
	char what[64];
	size_t i;

	if (expect(ld, n, SB_YNODE_MAP, "'slurm'") < 0 || sort_keys(ld, n, "slurm", slurm_keys, 10, 0, slot) < 0)
		return -1;
	for (i = 0; i < 6; i++) {
		if (slot[i] == NULL)
			continue;
		snprintf(what, sizeof(what), "slurm '%s'", slurm_keys[i]);
		if (get_text(ld, slot[i], what, strs[i]) < 0)
			return -1;
		if ((*strs[i])[0] == '\0' || sb_spec_has_control(*strs[i]))
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
		for (size_t k = 0; k < o->nextra; k++)
			if (!strncmp(extra[k], "--comment", 9) && (extra[k][9] == '\0' || extra[k][9] == '='))
				return nerr(ld, slot[9]->kids[k], "slurm 'extra' may not set --comment: sbench "
					    "gives each job one that says which benchmark directory, attempt "
					    "and chunk it is (how an interrupted submit finds its own jobs)");
		o->extra = extra;
	}
	return 0;
}

static int load_analysis(struct ld *ld, const struct sb_ynode *n)
{
	static const char *const keys[] = { "group_by", "metrics", "sort" };
	struct sb_spec *s = ld->s;
	const struct sb_ynode *slot[3] = { 0 };

	if (expect(ld, n, SB_YNODE_MAP, "'analysis'") < 0 || sort_keys(ld, n, "analysis", keys, 3, 0, slot) < 0)
		return -1;
	if (slot[2] != NULL) {
		const char *v;
		if (get_string(ld, slot[2], "analysis 'sort'", &v) < 0)
			return -1;
		s->asort_desc = v[0] == '-';
		s->asort = v + s->asort_desc;
		if (s->asort[0] == '\0')
			return nerr(ld, slot[2], "analysis 'sort' must name a metric (\"loss\": lowest "
				    "mean first; \"-accuracy\": highest first), not '%s'", v);
	}
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

/* `inputs`: files, directories and glob patterns relative to the spec's
 * directory, expanded when the spec is planned (ctl/plan/plan_inputs.c). */
static int load_inputs(struct ld *ld, const struct sb_ynode *n)
{
	struct sb_spec *s = ld->s;
	const char **v;
	size_t i;

	if (load_strings(ld, n, "'inputs'", 0, &v, &s->ninputs) < 0)
		return -1;
	s->inputs = sb_arena_alloc(&s->arena, (s->ninputs + 1) * sizeof(*s->inputs));
	if (s->inputs == NULL)
		return oom(ld);
	for (i = 0; i < s->ninputs; i++) {
		const struct sb_ynode *e = n->kids[i];
		if (v[i][0] == '/')
			return nerr(ld, e, "inputs entry '%s' is absolute (entries are relative to the spec's directory)",
				    v[i]);
		if (strlen(v[i]) >= 1024)
			return nerr(ld, e, "inputs entry is longer than 1023 bytes");
		s->inputs[i] = (struct sb_input_pat){ .pat = v[i], .line = e->line, .col = e->col };
	}
	return 0;
}

static const char *const checkpoint_keys[] = {
	SB_CK_FILES, SB_CK_SIGNAL, SB_CK_BEFORE, SB_CK_REQUEUE_ON, SB_CK_MAX_RESTARTS,
};

/* `checkpoint`: the files a run saves on the pre-timeout signal and
 * resumes from, and when it is requeued (docs/spec.md, "Checkpoints"). */
static int load_checkpoint(struct ld *ld, const struct sb_ynode *n)
{
	struct sb_spec *s = ld->s;
	struct sb_spec_checkpoint *c;
	const struct sb_ynode *slot[5] = { 0 };
	size_t i, k;

	if (expect(ld, n, SB_YNODE_MAP, "'checkpoint'") < 0 ||
	    sort_keys(ld, n, "checkpoint", checkpoint_keys, 5, 1u, slot) < 0)
		return -1;
	if (slot[0] == NULL)
		return nerr(ld, n, "'checkpoint' needs 'files': the checkpoint file(s) the command "
			    "writes on the signal, relative to its run directory");
	c = sb_arena_alloc(&s->arena, sizeof(*c));
	if (c == NULL)
		return oom(ld);
	memset(c, 0, sizeof(*c));
	c->line = n->line;
	c->col = n->col;
	if (load_strings(ld, slot[0], "checkpoint 'files'", 1, &c->files, &c->nfiles) < 0)
		return -1;
	if (c->nfiles == 0)
		return nerr(ld, slot[0], "checkpoint 'files' is an empty list");
	if (c->nfiles > SB_CKPT_MAX_FILES)
		return nerr(ld, slot[0], "checkpoint 'files' has %zu files (limit %d)", c->nfiles,
			    SB_CKPT_MAX_FILES);
	for (i = 0; i < c->nfiles; i++)
		if (strlen(c->files[i]) > SB_CKPT_MAX_PATH)
			return nerr(ld, slot[0]->kids[i], "checkpoint file path is longer than %d bytes",
				    SB_CKPT_MAX_PATH);
	c->signal = SB_CKPT_DEFAULT_SIGNAL;
	if (slot[1] != NULL) {
		const char *name;
		if (get_string(ld, slot[1], "checkpoint 'signal'", &name) < 0)
			return -1;
		if (sb_checkpoint_signal(name, &c->signal) == 0)
			return nerr(ld, slot[1], "checkpoint 'signal' is '%s', not one of USR1, USR2, "
				    "TERM, INT, HUP, QUIT", name);
	}
	c->before = SB_CKPT_DEFAULT_BEFORE;
	if (slot[2] != NULL && get_int(ld, slot[2], "checkpoint 'before'", 1, SB_CKPT_MAX_BEFORE,
				       &c->before) < 0)
		return -1;
	c->requeue_on = SB_REQUEUE_DEFAULT;
	if (slot[3] != NULL) {
		const char **causes;
		size_t nc;
		if (load_strings(ld, slot[3], "checkpoint 'requeue_on'", 0, &causes, &nc) < 0)
			return -1;
		c->requeue_on = 0;
		for (i = 0; i < nc; i++) {
			for (k = 0; k < SB_REQUEUE_NCAUSES && strcmp(causes[i], sb_requeue_cause_name(k)); k++)
				;
			if (k == SB_REQUEUE_NCAUSES)
				return nerr(ld, slot[3]->kids[i], "checkpoint 'requeue_on' names '%s', not "
					    "one of timeout, preempt, node_fail", causes[i]);
			c->requeue_on |= sb_requeue_cause_bit(k);
		}
	}
	c->max_restarts = SB_CKPT_DEFAULT_RESTARTS;
	if (slot[4] != NULL && get_int(ld, slot[4], "checkpoint 'max_restarts'", 0,
				       SB_CKPT_MAX_RESTARTS, &c->max_restarts) < 0)
		return -1;
	/* the signal and the requeue are the section's to ask for */
	for (i = 0; i < s->slurm.nextra; i++) {
		const char *x = s->slurm.extra[i];
		if (!strncmp(x, "--signal", 8) || !strcmp(x, "--requeue") || !strcmp(x, "--no-requeue"))
			return nerr(ld, n, "slurm 'extra' has '%s', which 'checkpoint' sets itself "
				    "(--signal=B:%s@%" PRId64 " and --requeue): leave it out", x,
				    c->signal, c->before);
	}
	s->checkpoint = c;
	return 0;
}

enum {
	K_NAME, K_TAG, K_COMMAND, K_PARAMETERS, K_INCLUDE, K_EXCLUDE, K_REPEATS, K_ENV,
	K_RESULTS, K_METRICS, K_HEARTBEAT, K_SLURM, K_ANALYSIS, K_EARLY_STOP, K_INPUTS,
	K_CHECKPOINT, K_COUNT
};

static const char *const top_keys[K_COUNT] = {
	"name", "tag", "command", "parameters", "include", "exclude", "repeats", "env",
	"results", "metrics", "heartbeat", "slurm", "analysis", "early_stop", "inputs",
	"checkpoint",
};

static int load_top(struct ld *ld, const struct sb_ynode *root)
{
	struct sb_spec *s = ld->s;
	const struct sb_ynode *slot[K_COUNT] = { 0 };
	struct sb_value v;
	bool is_null;
	size_t i;

	if (root->kind != SB_YNODE_MAP) {
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
	if (!sb_spec_valid_name(s->name))
		return nerr(ld, slot[K_NAME], "name '%.80s' is not valid (1 to %d of A-Z a-z 0-9 . _ -)",
			    s->name, SB_SPEC_MAX_NAME);
	if (slot[K_TAG] != NULL) {
		if (get_string(ld, slot[K_TAG], "'tag'", &s->tag) < 0)
			return -1;
		if (!sb_spec_valid_name(s->tag))
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
	if (slot[K_EARLY_STOP] != NULL && sb_spec_load_early_stop(s, slot[K_EARLY_STOP], ld->err) < 0)
		return -1;
	if (slot[K_INPUTS] != NULL && load_inputs(ld, slot[K_INPUTS]) < 0)
		return -1;
	if (slot[K_CHECKPOINT] != NULL && load_checkpoint(ld, slot[K_CHECKPOINT]) < 0)
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
	struct sb_ynode *root;
	struct ld ld;

	if (len > SB_SPEC_MAX_FILE_SIZE) {
		sb_error_set(err, SB_ERR_INPUT, "'%s' is too large (%zu bytes, limit %d)", display_name, len,
			     SB_SPEC_MAX_FILE_SIZE);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", display_name);
		return NULL;
	}
	s->path = sb_arena_strndup(&s->arena, display_name, strlen(display_name));
	if (s->path == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", display_name);
		sb_spec_destroy(s);
		return NULL;
	}
	ld = (struct ld){ .path = s->path, .err = err, .s = s };
	root = sb_ynode_parse(s->path, (const unsigned char *)data, len, err);
	if (root == NULL || load_top(&ld, root) < 0) {
		sb_error_recode(err, SB_ERR_INPUT); /* a bad spec is an input error */
		sb_ynode_free(root);
		sb_spec_destroy(s);
		return NULL;
	}
	sb_ynode_free(root);
	return s;
}

struct sb_spec *sb_spec_load(const char *path, struct sb_error *err)
{
	struct sb_spec *s;
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* a FIFO: refused, not waited on */
	if (fd < 0) {
		sb_error_set(err, errno == ENOENT ? SB_ERR_NOT_FOUND : SB_ERR_INPUT,
			     "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		sb_errorf(err, "cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sb_error_set(err, SB_ERR_INPUT, "cannot read '%s': %s", path,
			     S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return NULL;
	}
	if (st.st_size > SB_SPEC_MAX_FILE_SIZE) {
		sb_error_set(err, SB_ERR_INPUT, "'%s' is too large (%lld bytes, limit %d)", path,
			     (long long)st.st_size, SB_SPEC_MAX_FILE_SIZE);
		close(fd);
		return NULL;
	}
	if (sb_read_all(fd, SB_SPEC_MAX_FILE_SIZE, (size_t)st.st_size, &buf, &len) < 0) {
		int e = errno;
		close(fd);
		if (e == EFBIG)
			sb_error_set(err, SB_ERR_INPUT, "'%s' is too large (more than %d bytes)", path,
				     SB_SPEC_MAX_FILE_SIZE);
		else if (e == ENOMEM)
			sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", path);
		else
			sb_errorf(err, "cannot read '%s': %s", path, strerror(e));
		return NULL;
	}
	close(fd);
	s = sb_spec_load_buffer(buf, len, path, err);
	free(buf);
	if (s != NULL) {
		char *dir = sb_spec_dir_of(path);
		if (sb_spec_set_dir(s, dir) < 0) {
			sb_error_set(err, SB_ERR_NOMEM, "'%s': out of memory", path);
			sb_spec_destroy(s);
			s = NULL;
		}
		free(dir);
	}
	return s;
}
