/* Expanding a spec into its children and digests (docs/spec.md "Order",
 * "Substitution", "Digests"). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/parallel.h"
#include "plan/plan_canon.h"
#include "base/arena.h"
#include "plan/plan_inputs.h"
#include "proto/inputs.h"
#include "spec/spec_private.h"
#include "spec/spec_checkpoint.h"
#include "spec/spec_earlystop.h"
#include "spec/spec_template.h"
#include "proto/util.h"
#include "sbench/plan.h"

#define MAX_WARNINGS 16

struct sb_plan {
	const struct sb_spec *spec;
	size_t count;           /* children */
	size_t npoints;
	int64_t *points;        /* >= 0: grid ordinal; < 0: -(include index + 1) */
	uint8_t *digests;       /* count * SB_DIGEST_LEN */
	uint8_t bench[SB_DIGEST_LEN];
	char bench_hex[SB_DIGEST_HEX_LEN + 1];
	size_t nwarnings;
	char *warnings[MAX_WARNINGS];
	struct sb_inputs *inputs; /* NULL: the children have no input files */
	bool own_inputs;
	uint32_t common_set;    /* every child's input set, when child_set is NULL */
	uint32_t *child_set;    /* per child, when templates name inputs per child */
};

struct sb_child {
	size_t index;
	int64_t repeat;
	int64_t point;          /* the bound point, or INT64_MIN */
	uint8_t digest[SB_DIGEST_LEN];
	char hex[SB_DIGEST_HEX_LEN + 1];
	size_t nparams;
	const struct sb_value *params[SB_SPEC_MAX_PARAMS];
	struct sb_str text[SB_SPEC_MAX_PARAMS];
	struct sb_str quoted[SB_SPEC_MAX_PARAMS];
	struct sb_str num[2];   /* repeat, child index */
	struct sb_str qnum[2];  /* the same, quoted */
	char numbuf[2][24];
	char qnumbuf[2][28];
	bool shell;
	bool resolved;          /* command and env resolved (sb_plan_child) */
	size_t argc;
	char **argv;            /* argc + 1, NULL-terminated */
	size_t argv_cap;
	char *shell_cmd;
	char **env;
	size_t env_cap;
	char *buf;              /* every resolved string */
	size_t buf_cap;
};

/* ---- value index: value -> position in a parameter's list ---- */

struct vindex {
	size_t cap;
	size_t *tab;            /* position + 1, 0 empty */
	const struct sb_value *vals;
};

static int vindex_init(struct vindex *x, const struct sb_value *vals, size_t n)
{
	size_t i;

	x->cap = 16;
	while (x->cap < 2 * n)
		x->cap *= 2;
	x->vals = vals;
	x->tab = calloc(x->cap, sizeof(*x->tab));
	if (x->tab == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		size_t h = (size_t)sb_value_hash(&vals[i]) & (x->cap - 1);
		while (x->tab[h] != 0)
			h = (h + 1) & (x->cap - 1);
		x->tab[h] = i + 1;
	}
	return 0;
}

static long vindex_find(const struct vindex *x, const struct sb_value *v)
{
	size_t h = (size_t)sb_value_hash(v) & (x->cap - 1);

	for (; x->tab[h] != 0; h = (h + 1) & (x->cap - 1))
		if (sb_value_equal(&x->vals[x->tab[h] - 1], v))
			return (long)(x->tab[h] - 1);
	return -1;
}

/* ---- child resolution ---- */

struct sb_child *sb_child_create(void)
{
	struct sb_child *c = calloc(1, sizeof(struct sb_child));

	if (c != NULL)
		c->point = INT64_MIN;
	return c;
}

void sb_child_destroy(struct sb_child *c)
{
	if (c == NULL)
		return;
	free(c->argv);
	free(c->env);
	free(c->buf);
	free(c);
}

static inline struct sb_str seg_str(const struct sb_child *c, const struct sb_seg *g, bool quote)
{
	switch (g->kind) {
	case SB_SEG_LIT: return (struct sb_str){ g->lit, g->len };
	case SB_SEG_PARAM: return quote ? c->quoted[g->param] : c->text[g->param];
	case SB_SEG_REPEAT: return quote ? c->qnum[0] : c->num[0];
	default: return quote ? c->qnum[1] : c->num[1];
	}
}

/* Resolved length of t, or SB_SPEC_MAX_RESOLVED + 1 when longer. */
static size_t tmpl_len(const struct sb_child *c, const struct sb_tmpl *t, bool quote)
{
	size_t i, n = 0;

	for (i = 0; i < t->nsegs; i++) {
		n += seg_str(c, &t->segs[i], quote).len;
		if (n > SB_SPEC_MAX_RESOLVED)
			return SB_SPEC_MAX_RESOLVED + 1;
	}
	return n;
}

/* Writes the resolved t at d (no NUL); returns the end. */
static char *tmpl_write(const struct sb_child *c, const struct sb_tmpl *t, bool quote, char *d)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		struct sb_str x = seg_str(c, &t->segs[i], quote);
		memcpy(d, x.s, x.len);
		d += x.len;
	}
	return d;
}

static void set_num(struct sb_child *c, int which, uint64_t v)
{
	char t[24];
	size_t n = 0, i;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (i = 0; i < n; i++)
		c->numbuf[which][i] = c->qnumbuf[which][i + 1] = t[n - 1 - i];
	c->numbuf[which][n] = '\0';
	c->qnumbuf[which][0] = '\'';
	c->qnumbuf[which][n + 1] = '\'';
	c->qnumbuf[which][n + 2] = '\0';
	c->num[which] = (struct sb_str){ c->numbuf[which], n };
	c->qnum[which] = (struct sb_str){ c->qnumbuf[which], n + 2 };
}

/* Binds child index: its point's values and texts, repeat and index. */
static void bind_child(const struct sb_plan *plan, size_t index, struct sb_child *c)
{
	const struct sb_spec *s = plan->spec;
	int64_t pt = plan->points[index / (size_t)s->repeats];
	size_t i;

	c->index = index;
	c->resolved = false;
	c->repeat = (int64_t)(index % (size_t)s->repeats);
	c->nparams = s->nparams;
	c->shell = s->shell;
	if (pt != c->point) {
		c->point = pt;
		if (pt >= 0) {
			uint64_t g = (uint64_t)pt;
			for (i = s->nparams; i-- > 0;) {
				const struct sb_param *p = &s->params[i];
				size_t j = (size_t)(g % p->nvalues);
				g /= p->nvalues;
				c->params[i] = &p->values[j];
				c->text[i] = p->text[j];
				c->quoted[i] = p->quoted[j];
			}
		} else {
			const struct sb_point *ip = &s->include[-pt - 1];
			for (i = 0; i < s->nparams; i++) {
				c->params[i] = &ip->vals[i];
				c->text[i] = ip->text[i];
				c->quoted[i] = ip->quoted[i];
			}
		}
	}
	set_num(c, 0, (uint64_t)c->repeat);
	set_num(c, 1, index);
}

static int too_long(const struct sb_spec *s, const struct sb_tmpl *t, bool cmd, size_t index,
		    struct sb_error *err)
{
	return sb_spec_errorf(s, err, t->line, t->col,
			      "%s of child %zu is longer than %d bytes once resolved",
			      cmd ? "command" : "env", index, SB_SPEC_MAX_RESOLVED);
}

/* Binds and resolves child index into c's strings. */
static int resolve_child(const struct sb_plan *plan, size_t index, struct sb_child *c,
			 struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	size_t k, total = 0, part[2] = { 0, 0 }, ncmd = s->shell ? 1 : s->argc;
	char *d;

	bind_child(plan, index, c);
	c->argc = s->shell ? 0 : s->argc;
	if (sb_grow((void **)&c->argv, &c->argv_cap, c->argc + 1, sizeof(char *)) < 0 ||
	    sb_grow((void **)&c->env, &c->env_cap, s->nenv + 1, sizeof(char *)) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (k = 0; k < ncmd + s->nenv; k++) {
		bool cmd = k < ncmd;
		const struct sb_tmpl *t = !cmd ? &s->env[k - ncmd].value :
					  s->shell ? &s->shell_cmd : &s->argv[k];
		size_t n = tmpl_len(c, t, cmd && s->shell);
		/* the command, and the env, each at most SB_SPEC_MAX_RESOLVED
		 * bytes with a NUL after each string (as canon_tmpl counts) */
		if (n > SB_SPEC_MAX_RESOLVED || (part[cmd] += n + 1) > SB_SPEC_MAX_RESOLVED)
			return too_long(s, t, cmd, index, err);
		total += n + 1;
	}
	if (sb_grow((void **)&c->buf, &c->buf_cap, total, 1) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	d = c->buf;
	for (k = 0; k < ncmd + s->nenv; k++) {
		char *start = d;
		if (k >= ncmd) {
			d = tmpl_write(c, &s->env[k - ncmd].value, false, d);
			c->env[k - ncmd] = start;
		} else if (s->shell) {
			d = tmpl_write(c, &s->shell_cmd, true, d);
			c->shell_cmd = start;
		} else {
			d = tmpl_write(c, &s->argv[k], false, d);
			c->argv[k] = start;
		}
		*d++ = '\0';
	}
	c->argv[c->argc] = NULL;
	c->env[s->nenv] = NULL;
	c->resolved = true;
	return 0;
}

/* ---- digests ---- */

/* The canonical bytes shared by every child: "metrics" and its value, and
 * "resources" ... "results" with theirs. */
static void encode_metrics(struct sb_canon *m, const struct sb_spec *s)
{
	sb_canon_key_cstr(m, "metrics", s->metrics);
}

static void opt_int(struct sb_canon *c, const char *key, int64_t v)
{
	sb_canon_cstr(c, key);
	if (v)
		sb_canon_int(c, v);
	else
		sb_canon_nil(c);
}

static void encode_tail(struct sb_canon *c, const struct sb_spec *s)
{
	const struct sb_slurm_options *o = &s->slurm;
	size_t i;

	sb_canon_cstr(c, "resources");
	sb_canon_map(c, 7);
	sb_canon_key_cstr(c, "constraint", o->constraint);
	opt_int(c, "cpus_per_task", o->cpus_per_task);
	sb_canon_key_cstr(c, "gres", o->gres);
	sb_canon_key_cstr(c, "mem", o->mem);
	sb_canon_key_cstr(c, "nodes", o->nodes);
	opt_int(c, "ntasks", o->ntasks);
	sb_canon_key_cstr(c, "partition", o->partition);
	sb_canon_cstr(c, "results");
	sb_canon_array(c, s->nresults);
	for (i = 0; i < s->nresults; i++)
		sb_canon_cstr(c, s->results[i]);
}

/* A resolved template as a msgpack str, written straight from its pieces. */
static int canon_tmpl(struct sb_canon *c, const struct sb_child *ch, const struct sb_tmpl *t,
		      bool quote, size_t *total)
{
	size_t n = tmpl_len(ch, t, quote), at;

	if (n > SB_SPEC_MAX_RESOLVED || (*total += n + 1) > SB_SPEC_MAX_RESOLVED)
		return -1;
	sb_canon_str_header(c, n);
	at = c->len;
	sb_canon_raw(c, NULL, n);
	if (!c->failed)
		tmpl_write(ch, t, quote, (char *)c->buf + at);
	return 0;
}

/* Canonical msgpack of bound child (docs/spec.md "Child digest"). */
static int encode_child(struct sb_canon *c, const struct sb_spec *s, const struct sb_child *ch,
			const struct sb_input_set *in, const struct sb_canon *metrics,
			const struct sb_canon *tail, struct sb_error *err)
{
	size_t i, total = 0, env_total = 0;

	/* checkpoint and early_stop only when declared, inputs only when the
	 * child has some */
	sb_canon_map(c, 7 + (s->checkpoint ? 1 : 0) + (s->nearly_stop ? 1 : 0) + (in ? 1 : 0));
	if (s->checkpoint) {
		sb_canon_cstr(c, "checkpoint");
		sb_checkpoint_canon(c, s->checkpoint);
	}
	sb_canon_cstr(c, "command");
	if (s->shell) {
		if (canon_tmpl(c, ch, &s->shell_cmd, true, &total) < 0)
			return too_long(s, &s->shell_cmd, true, ch->index, err);
	} else {
		sb_canon_array(c, s->argc);
		for (i = 0; i < s->argc; i++)
			if (canon_tmpl(c, ch, &s->argv[i], false, &total) < 0)
				return too_long(s, &s->argv[i], true, ch->index, err);
	}
	if (s->nearly_stop) {
		sb_canon_cstr(c, "early_stop");
		sb_early_stop_canon(c, s);
	}
	sb_canon_cstr(c, "env");
	sb_canon_map(c, s->nenv);
	for (i = 0; i < s->nenv; i++) {
		sb_canon_cstr(c, s->env[i].name);
		if (canon_tmpl(c, ch, &s->env[i].value, false, &env_total) < 0)
			return too_long(s, &s->env[i].value, false, ch->index, err);
	}
	if (in != NULL)
		sb_canon_raw(c, in->canon.buf, in->canon.len);
	sb_canon_raw(c, metrics->buf, metrics->len);
	sb_canon_cstr(c, "params");
	sb_plan_canon_params(c, s, ch);
	sb_canon_cstr(c, "repeat");
	sb_canon_int(c, ch->repeat);
	sb_canon_raw(c, tail->buf, tail->len);
	if (c->failed || metrics->failed || tail->failed)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* ---- expansion ---- */

static void add_warning(struct sb_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning(struct sb_plan *plan, const char *fmt, ...)
{
	char msg[SB_ERROR_MAX];
	va_list ap;

	if (plan->nwarnings >= MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	plan->warnings[plan->nwarnings] = strdup(msg);
	if (plan->warnings[plan->nwarnings] != NULL)
		plan->nwarnings++;
}

static void point_text(const struct sb_spec *s, const struct sb_point *pt, char *buf, size_t n)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < s->nparams && o + 1 < n; i++) {
		int w = snprintf(buf + o, n - o, "%s%s=%s", i ? ", " : "", s->params[i].name, pt->text[i].s);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (o >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
	for (o = 0; buf[o] != '\0'; o++)
		if ((unsigned char)buf[o] < 0x20 || buf[o] == 0x7f)
			buf[o] = '?';       /* one line per message */
}

/* Grid ordinal of the point with value positions idx (odometer order). */
static uint64_t ordinal(const struct sb_spec *s, const size_t *idx)
{
	uint64_t g = 0;
	size_t i;

	for (i = 0; i < s->nparams; i++)
		g = g * s->params[i].nvalues + idx[i];
	return g;
}

/* Marks the grid points matched by each exclude entry in bits. */
static int apply_exclude(struct sb_plan *plan, const struct vindex *vx, uint8_t *bits,
			 struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	size_t e, i;

	(void)err;
	for (e = 0; e < s->nexclude; e++) {
		const struct sb_point *pt = &s->exclude[e];
		size_t idx[SB_SPEC_MAX_PARAMS], free_n = 0, free_ix[SB_SPEC_MAX_PARAMS];
		uint64_t m, matches = 1;
		bool found = true;
		for (i = 0; i < s->nparams; i++) {
			if (pt->set[i]) {
				long p = vindex_find(&vx[i], &pt->vals[i]);
				if (p < 0) {
					found = false;
					break;
				}
				idx[i] = (size_t)p;
			} else {
				idx[i] = 0;
				free_ix[free_n++] = i;
				matches *= s->params[i].nvalues;
			}
		}
		if (!found) {
			add_warning(plan, "%s:%d:%d: warning: exclude entry matches no grid point (a value is not in its parameter's list)",
				    s->path, pt->line, pt->col);
			continue;
		}
		for (m = 0; m < matches; m++) {
			uint64_t r = m, g;
			size_t f;
			for (f = free_n; f-- > 0;) {
				size_t pi = free_ix[f];
				idx[pi] = (size_t)(r % s->params[pi].nvalues);
				r /= s->params[pi].nvalues;
			}
			g = ordinal(s, idx);
			bits[g / 8] |= (uint8_t)(1u << (g % 8));
		}
	}
	return 0;
}

/* Checks include points against the grid and each other. */
static int check_include(const struct sb_plan *plan, const struct vindex *vx, const uint8_t *bits,
			 struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	size_t cap = 16, e, i, *tab;
	char buf[256];

	while (cap < 2 * s->ninclude)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	if (tab == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (e = 0; e < s->ninclude; e++) {
		const struct sb_point *pt = &s->include[e];
		uint64_t h = 0xcbf29ce484222325ULL;
		size_t slot;
		if (s->has_grid) {
			size_t idx[SB_SPEC_MAX_PARAMS];
			bool in_grid = true;
			for (i = 0; i < s->nparams && in_grid; i++) {
				long p = vindex_find(&vx[i], &pt->vals[i]);
				in_grid = p >= 0;
				idx[i] = p < 0 ? 0 : (size_t)p;
			}
			if (in_grid) {
				uint64_t g = ordinal(s, idx);
				if (!(bits[g / 8] & (1u << (g % 8)))) {
					point_text(s, pt, buf, sizeof(buf));
					free(tab);
					return sb_spec_errorf(s, err, pt->line, pt->col,
							      "duplicate point: include entry (%s) is already a grid point",
							      buf);
				}
			}
		}
		for (i = 0; i < s->nparams; i++)
			h = (h ^ sb_value_hash(&pt->vals[i])) * 0x100000001b3ULL;
		for (slot = (size_t)h & (cap - 1); tab[slot] != 0; slot = (slot + 1) & (cap - 1)) {
			const struct sb_point *o = &s->include[tab[slot] - 1];
			bool same = true;
			for (i = 0; i < s->nparams && same; i++)
				same = sb_value_equal(&o->vals[i], &pt->vals[i]);
			if (same) {
				point_text(s, pt, buf, sizeof(buf));
				free(tab);
				return sb_spec_errorf(s, err, pt->line, pt->col,
						      "duplicate point: include entry (%s) repeats the include entry at %d:%d",
						      buf, o->line, o->col);
			}
		}
		tab[slot] = e + 1;
	}
	free(tab);
	return 0;
}

static int expand_points(struct sb_plan *plan, struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	struct vindex vx[SB_SPEC_MAX_PARAMS];
	uint64_t grid = 1, g, kept = 0;
	uint8_t *bits = NULL;
	size_t i, nvx = 0;
	int rc = -1;

	if (s->has_grid) {
		for (i = 0; i < s->nparams; i++) {
			if (grid > SB_SPEC_MAX_CHILDREN / s->params[i].nvalues)
				return sb_spec_errorf(s, err, s->params_line, s->params_col,
						      "grid has more than %d points (limit %d children)",
						      SB_SPEC_MAX_CHILDREN, SB_SPEC_MAX_CHILDREN);
			grid *= s->params[i].nvalues;
		}
	} else {
		grid = s->include == NULL ? 1 : 0;
	}
	bits = calloc((size_t)(grid / 8 + 1), 1);
	if (bits == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (s->has_grid) {
		for (nvx = 0; nvx < s->nparams; nvx++)
			if (vindex_init(&vx[nvx], s->params[nvx].values, s->params[nvx].nvalues) < 0) {
				sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				goto out;
			}
		if (apply_exclude(plan, vx, bits, err) < 0)
			goto out;
	}
	if (check_include(plan, vx, bits, err) < 0)
		goto out;
	for (g = 0; g < grid; g++)
		kept += !(bits[g / 8] & (1u << (g % 8)));
	if (kept + s->ninclude == 0) {
		if (s->nexclude > 0)
			sb_spec_errorf(s, err, s->exclude_line, s->exclude_col,
				       "no children: 'exclude' removes every grid point");
		else
			sb_spec_errorf(s, err, s->line, s->col, "no children: 'include' is empty and there is no grid");
		goto out;
	}
	if (kept + s->ninclude > SB_SPEC_MAX_CHILDREN ||
	    (kept + s->ninclude) * (uint64_t)s->repeats > SB_SPEC_MAX_CHILDREN) {
		sb_spec_errorf(s, err, s->line, s->col,
			       "benchmark has %" PRIu64 " children (limit %d)",
			       (kept + s->ninclude) * (uint64_t)s->repeats, SB_SPEC_MAX_CHILDREN);
		goto out;
	}
	plan->npoints = (size_t)(kept + s->ninclude);
	plan->count = plan->npoints * (size_t)s->repeats;
	plan->points = malloc(plan->npoints * sizeof(*plan->points));
	if (plan->points == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	kept = 0;
	for (g = 0; g < grid; g++)
		if (!(bits[g / 8] & (1u << (g % 8))))
			plan->points[kept++] = (int64_t)g;
	for (i = 0; i < s->ninclude; i++)
		plan->points[kept++] = -(int64_t)i - 1;
	rc = 0;
out:
	for (i = 0; i < nvx; i++)
		free(vx[i].tab);
	free(bits);
	return rc;
}

/* One worker's share of the child digests: [from, to). */
struct digest_job {
	struct sb_plan *plan;
	const EVP_MD *md;
	size_t from, to;
	int rc;
	struct sb_error err;
};

static void *digest_range(void *arg)
{
	struct digest_job *job = arg;
	struct sb_plan *plan = job->plan;
	const struct sb_spec *s = plan->spec;
	struct sb_canon c, metrics, tail;
	struct sb_child *ch = sb_child_create();
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t i;

	job->rc = -1;
	sb_canon_init(&c, 64 * 1024 * 1024);
	sb_canon_init(&metrics, 1024 * 1024);
	sb_canon_init(&tail, 1024 * 1024);
	if (ch == NULL || ctx == NULL) {
		sb_error_set(&job->err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	encode_metrics(&metrics, s);
	encode_tail(&tail, s);
	for (i = job->from; i < job->to; i++) {
		bind_child(plan, i, ch);
		sb_canon_reset(&c);
		if (encode_child(&c, s, ch, sb_plan_child_inputs(plan, i), &metrics, &tail, &job->err) < 0)
			goto out;
		if (EVP_DigestInit_ex(ctx, job->md, NULL) != 1 || EVP_DigestUpdate(ctx, c.buf, c.len) != 1 ||
		    EVP_DigestFinal_ex(ctx, plan->digests + i * SB_DIGEST_LEN, NULL) != 1) {
			sb_errorf(&job->err, "sha-256 failed");
			goto out;
		}
	}
	job->rc = 0;
out:
	sb_canon_release(&c);
	sb_canon_release(&metrics);
	sb_canon_release(&tail);
	sb_child_destroy(ch);
	EVP_MD_CTX_free(ctx);
	return NULL;
}

/* Child digests, on up to MAX_THREADS threads for large plans (each
 * computes a contiguous range; the result does not depend on the number of
 * threads), then the benchmark digest. */
#define MAX_THREADS 8
#define MIN_PER_THREAD 50000

static int compute_digests(struct sb_plan *plan, struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	struct digest_job jobs[MAX_THREADS];
	struct sb_canon c;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
	size_t i, nthreads = sb_parallel_threads(plan->count, MIN_PER_THREAD, MAX_THREADS);
	int rc = -1;

	sb_canon_init(&c, 1024 * 1024);
	plan->digests = malloc(plan->count * SB_DIGEST_LEN);
	if (ctx == NULL || md == NULL || plan->digests == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nthreads; i++)
		jobs[i] = (struct digest_job){ .plan = plan, .md = md,
					       .from = plan->count * i / nthreads,
					       .to = plan->count * (i + 1) / nthreads };
	sb_parallel_run(digest_range, jobs, sizeof(jobs[0]), nthreads);
	for (i = 0; i < nthreads; i++) {
		if (jobs[i].rc < 0) {
			/* the first failing range holds the first failing child */
			memcpy(err != NULL ? err->msg : jobs[i].err.msg, jobs[i].err.msg, sizeof(jobs[i].err.msg));
			goto out;
		}
	}
	/* benchmark digest: {children: [bin32...], name, tag}, streamed */
	if (EVP_DigestInit_ex(ctx, md, NULL) != 1)
		goto sha_fail;
	sb_canon_reset(&c);
	sb_canon_map(&c, 3);
	sb_canon_cstr(&c, "children");
	sb_canon_array(&c, plan->count);
	for (i = 0; i < plan->count; i++) {
		sb_canon_bin(&c, plan->digests + i * SB_DIGEST_LEN, SB_DIGEST_LEN);
		if (c.len >= 65536) {
			if (c.failed || EVP_DigestUpdate(ctx, c.buf, c.len) != 1)
				goto sha_fail;
			sb_canon_reset(&c);
		}
	}
	sb_canon_cstr(&c, "name");
	sb_canon_cstr(&c, s->name);
	sb_canon_key_cstr(&c, "tag", s->tag);
	if (c.failed || EVP_DigestUpdate(ctx, c.buf, c.len) != 1 ||
	    EVP_DigestFinal_ex(ctx, plan->bench, NULL) != 1)
		goto sha_fail;
	sb_hex_encode(plan->bench, SB_DIGEST_LEN, plan->bench_hex);
	rc = 0;
	goto out;
sha_fail:
	sb_errorf(err, "sha-256 failed");
out:
	sb_canon_release(&c);
	EVP_MD_CTX_free(ctx);
	EVP_MD_free(md);
	return rc;
}

/* ---- input files (docs/spec.md, "Inputs") ---- */

/* Whether t may name "{spec_dir}/..." differently per child: a reference
 * next to the reference, or a parameter whose value has it. */
static bool names_per_child(const struct sb_spec *s, const struct sb_tmpl *t)
{
	bool refs = false, named = false;
	size_t i, j;

	for (i = 0; i < t->nsegs; i++) {
		const struct sb_seg *g = &t->segs[i];
		if (g->kind == SB_SEG_LIT) {
			named = named || memmem(g->lit, g->len, SB_TMPL_SPEC_DIR, strlen(SB_TMPL_SPEC_DIR));
			continue;
		}
		refs = true;
		if (g->kind == SB_SEG_PARAM)
			for (j = 0; !named && j < s->params[g->param].nvalues; j++)
				named = strstr(s->params[g->param].text[j].s, SB_TMPL_SPEC_DIR) != NULL;
	}
	return refs && named;
}

/* The inputs text names, appended to *idx. */
static int scan_text(struct sb_plan *plan, const char *text, size_t len, size_t **idx, size_t *n,
		     size_t *cap, struct sb_error *err)
{
	const char *path;
	size_t pos = 0, plen, at;
	int rc;

	while (sb_inputs_next(text, len, &pos, &path, &plen)) {
		rc = sb_inputs_lookup(plan->inputs, path, plen, &at, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		if (sb_grow((void **)idx, cap, *n + 1, sizeof(**idx)) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		(*idx)[(*n)++] = at;
	}
	return 0;
}

/* The templates of the command and the env, one by one. */
static const struct sb_tmpl *tmpl_at(const struct sb_spec *s, size_t k)
{
	size_t ncmd = s->shell ? 1 : s->argc;

	if (k < ncmd)
		return s->shell ? &s->shell_cmd : &s->argv[k];
	return k - ncmd < s->nenv ? &s->env[k - ncmd].value : NULL;
}

/* Scans t for child ch (resolved unquoted into *buf) or, with ch NULL, a
 * template of literals only. */
static int scan_tmpl(struct sb_plan *plan, const struct sb_tmpl *t, const struct sb_child *ch,
		     char **buf, size_t *bcap, size_t **idx, size_t *n, size_t *cap,
		     struct sb_error *err)
{
	size_t len;

	if (ch == NULL) {
		for (size_t i = 0; i < t->nsegs; i++)
			if (scan_text(plan, t->segs[i].lit, t->segs[i].len, idx, n, cap, err) < 0)
				return -1;
		return 0;
	}
	len = tmpl_len(ch, t, false);
	if (len > SB_SPEC_MAX_RESOLVED)
		return 0;       /* too long: the digests say so */
	if (sb_grow((void **)buf, bcap, len + 1, 1) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	tmpl_write(ch, t, false, *buf);
	return scan_text(plan, *buf, len, idx, n, cap, err);
}

/* Every child's set of input files: the `inputs` entries and what the
 * command and env name, looked up once per distinct path. */
static int plan_inputs(struct sb_plan *plan, struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	size_t k, ncommon = 0, n, ccap = 0, cap = 0, bcap = 0, *common = NULL, *idx = NULL;
	struct sb_child *ch = NULL;
	char *buf = NULL;
	bool per_child = false, *dynamic = NULL; /* per template: names inputs per child */
	int rc = -1;

	plan->common_set = UINT32_MAX;
	if (plan->inputs == NULL)
		return 0;
	if (sb_inputs_expand(plan->inputs, s, err) < 0)
		return -1;
	for (k = 0; tmpl_at(s, k) != NULL; k++)
		;
	if ((dynamic = calloc(k + 1, sizeof(*dynamic))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	for (k = 0; tmpl_at(s, k) != NULL; k++) {
		const struct sb_tmpl *t = tmpl_at(s, k);
		bool lits = true;
		for (size_t i = 0; i < t->nsegs; i++)
			lits = lits && t->segs[i].kind == SB_SEG_LIT;
		if (lits && scan_tmpl(plan, t, NULL, NULL, NULL, &common, &ncommon, &ccap, err) < 0)
			goto out;
		dynamic[k] = names_per_child(s, t);
		per_child = per_child || dynamic[k];
	}
	if (!per_child) {
		rc = sb_inputs_set(plan->inputs, common, ncommon, &plan->common_set, err);
		goto out;
	}
	ch = sb_child_create();
	plan->child_set = malloc((plan->count ? plan->count : 1) * sizeof(*plan->child_set));
	if (ch == NULL || plan->child_set == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < plan->count; i++) {
		bind_child(plan, i, ch);
		n = 0;
		if (sb_grow((void **)&idx, &cap, ncommon + 1, sizeof(*idx)) < 0) {
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if (ncommon)
			memcpy(idx, common, ncommon * sizeof(*idx));
		n = ncommon;
		for (k = 0; tmpl_at(s, k) != NULL; k++)
			if (dynamic[k] &&
			    scan_tmpl(plan, tmpl_at(s, k), ch, &buf, &bcap, &idx, &n, &cap, err) < 0)
				goto out;
		if (sb_inputs_set(plan->inputs, idx, n, &plan->child_set[i], err) < 0) {
			sb_error_prefix(err, "%s: child %zu: ", s->path, i);
			goto out;
		}
	}
	rc = 0;
out:
	if (rc < 0 && err && err->code == 0)
		err->code = SB_ERR_INPUT;
	sb_child_destroy(ch);
	free(common);
	free(idx);
	free(buf);
	free(dynamic);
	return rc;
}

const struct sb_input_set *sb_plan_child_inputs(const struct sb_plan *plan, size_t i)
{
	if (plan->inputs == NULL)
		return NULL;
	return sb_inputs_get_set(plan->inputs, plan->child_set ? plan->child_set[i] : plan->common_set);
}

const struct sb_inputs *sb_plan_inputs(const struct sb_plan *plan)
{
	return plan->inputs && sb_inputs_set_count(plan->inputs) ? plan->inputs : NULL;
}

static struct sb_plan *plan_make(const struct sb_spec *spec, struct sb_inputs *in, bool own,
				 struct sb_error *err)
{
	struct sb_plan *plan = calloc(1, sizeof(*plan));

	if (plan == NULL) {
		if (own)
			sb_inputs_destroy(in);
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	plan->spec = spec;
	plan->inputs = in;
	plan->own_inputs = own;
	if (expand_points(plan, err) < 0 || plan_inputs(plan, err) < 0 ||
	    compute_digests(plan, err) < 0) {
		sb_error_recode(err, SB_ERR_INPUT); /* what the spec asks for cannot be planned */
		sb_plan_destroy(plan);
		return NULL;
	}
	return plan;
}

struct sb_plan *sb_plan_create(const struct sb_spec *spec, struct sb_error *err)
{
	struct sb_inputs *in = NULL;

	if (spec->dir == NULL && spec->ninputs > 0) {
		sb_error_set(err, SB_ERR_INPUT, "%s: its 'inputs' are files next to the spec, and a spec "
			     "read from memory has no directory", spec->path);
		return NULL;
	}
	if (spec->dir != NULL && (in = sb_inputs_create(spec->dir)) == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return plan_make(spec, in, true, err);
}

struct sb_plan *sb_plan_create_inputs(const struct sb_spec *spec, struct sb_inputs *in,
				      struct sb_error *err)
{
	return plan_make(spec, in, false, err);
}

void sb_plan_destroy(struct sb_plan *plan)
{
	size_t i;

	if (plan == NULL)
		return;
	for (i = 0; i < plan->nwarnings; i++)
		free(plan->warnings[i]);
	free(plan->points);
	free(plan->digests);
	free(plan->child_set);
	if (plan->own_inputs)
		sb_inputs_destroy(plan->inputs);
	free(plan);
}

const struct sb_spec *sb_plan_spec(const struct sb_plan *p) { return p->spec; }
size_t sb_plan_count(const struct sb_plan *p) { return p->count; }
const uint8_t *sb_plan_benchmark_digest(const struct sb_plan *p) { return p->bench; }
const char *sb_plan_benchmark_digest_hex(const struct sb_plan *p) { return p->bench_hex; }
const uint8_t *sb_plan_child_digest(const struct sb_plan *p, size_t i)
{
	return p->digests + i * SB_DIGEST_LEN;
}
size_t sb_plan_warning_count(const struct sb_plan *p) { return p->nwarnings; }
const char *sb_plan_warning(const struct sb_plan *p, size_t i) { return p->warnings[i]; }

int sb_plan_child(const struct sb_plan *plan, size_t index, struct sb_child *child,
		  struct sb_error *err)
{
	if (index >= plan->count)
		return sb_errorf(err, "child %zu does not exist (the plan has %zu)", index, plan->count);
	if (resolve_child(plan, index, child, err) < 0)
		return -1;
	memcpy(child->digest, plan->digests + index * SB_DIGEST_LEN, SB_DIGEST_LEN);
	sb_hex_encode(child->digest, SB_DIGEST_LEN, child->hex);
	return 0;
}

int sb_plan_child_params(const struct sb_plan *plan, size_t index, struct sb_child *child,
			 struct sb_error *err)
{
	if (index >= plan->count)
		return sb_errorf(err, "child %zu does not exist (the plan has %zu)", index, plan->count);
	bind_child(plan, index, child);
	memcpy(child->digest, plan->digests + index * SB_DIGEST_LEN, SB_DIGEST_LEN);
	sb_hex_encode(child->digest, SB_DIGEST_LEN, child->hex);
	return 0;
}

size_t sb_child_index(const struct sb_child *c) { return c->index; }
int64_t sb_child_repeat(const struct sb_child *c) { return c->repeat; }
const uint8_t *sb_child_digest(const struct sb_child *c) { return c->digest; }
const char *sb_child_digest_hex(const struct sb_child *c) { return c->hex; }
size_t sb_child_param_count(const struct sb_child *c) { return c->nparams; }
const struct sb_value *sb_child_param(const struct sb_child *c, size_t i) { return c->params[i]; }
const char *sb_child_param_text(const struct sb_child *c, size_t i) { return c->text[i].s; }
bool sb_child_is_shell(const struct sb_child *c) { return c->shell; }
size_t sb_child_argc(const struct sb_child *c) { return c->resolved ? c->argc : 0; }
char *const *sb_child_argv(const struct sb_child *c)
{
	return c->resolved && !c->shell ? c->argv : NULL;
}
const char *sb_child_shell(const struct sb_child *c)
{
	return c->resolved && c->shell ? c->shell_cmd : NULL;
}
const char *sb_child_env_value(const struct sb_child *c, size_t i)
{
	return c->resolved ? c->env[i] : NULL;
}

void sb_plan_canon_params(struct sb_canon *c, const struct sb_spec *s, const struct sb_child *ch)
{
	size_t i;

	sb_canon_map(c, s->nparams);
	for (i = 0; i < s->nparams; i++) {
		sb_canon_cstr(c, s->params[i].name);
		sb_canon_value(c, ch->params[i]);
	}
}

uint8_t *sb_plan_child_canonical(const struct sb_plan *plan, size_t index, size_t *len,
				 struct sb_error *err)
{
	struct sb_canon c, metrics, tail;
	struct sb_child *ch = sb_child_create();
	uint8_t *out = NULL;

	sb_canon_init(&c, 64 * 1024 * 1024);
	sb_canon_init(&metrics, 1024 * 1024);
	sb_canon_init(&tail, 1024 * 1024);
	if (ch != NULL && index < plan->count) {
		bind_child(plan, index, ch);
		encode_metrics(&metrics, plan->spec);
		encode_tail(&tail, plan->spec);
		if (encode_child(&c, plan->spec, ch, sb_plan_child_inputs(plan, index), &metrics, &tail,
				 err) == 0) {
			out = c.buf;
			*len = c.len;
			c.buf = NULL;
		}
	}
	sb_canon_release(&c);
	sb_canon_release(&metrics);
	sb_canon_release(&tail);
	sb_child_destroy(ch);
	return out;
}
