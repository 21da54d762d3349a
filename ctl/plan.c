/* Expanding a spec into its children and digests (docs/spec.md "Order",
 * "Substitution", "Digests"). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "ctl/canon.h"
#include "ctl/spec.h"
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
};

struct sb_child {
	size_t index;
	int64_t repeat;
	uint8_t digest[SB_DIGEST_LEN];
	char hex[SB_DIGEST_HEX_LEN + 1];
	size_t nparams;
	const struct sb_value *params[SB_SPEC_MAX_PARAMS];
	const char *text[SB_SPEC_MAX_PARAMS];
	const char *quoted[SB_SPEC_MAX_PARAMS];
	char num[2][24];        /* repeat, child index */
	char qnum[2][28];       /* the same, quoted */
	bool shell;
	size_t argc;
	char **argv;            /* argc + 1, NULL-terminated */
	size_t argv_cap;
	char *shell_cmd;
	char **env;
	size_t env_cap;
	size_t *lens;           /* scratch: resolved lengths */
	size_t lens_cap;
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
	return calloc(1, sizeof(struct sb_child));
}

void sb_child_destroy(struct sb_child *c)
{
	if (c == NULL)
		return;
	free(c->argv);
	free(c->env);
	free(c->lens);
	free(c->buf);
	free(c);
}

static size_t seg_len(const struct sb_child *c, const struct sb_seg *g, bool quote)
{
	switch (g->kind) {
	case SB_SEG_LIT: return g->len;
	case SB_SEG_PARAM: return strlen(quote ? c->quoted[g->param] : c->text[g->param]);
	case SB_SEG_REPEAT: return strlen(quote ? c->qnum[0] : c->num[0]);
	case SB_SEG_CHILD: return strlen(quote ? c->qnum[1] : c->num[1]);
	}
	return 0;
}

static size_t tmpl_len(const struct sb_child *c, const struct sb_tmpl *t, bool quote)
{
	size_t i, n = 0;

	for (i = 0; i < t->nsegs; i++) {
		n += seg_len(c, &t->segs[i], quote);
		if (n > SB_SPEC_MAX_RESOLVED)
			break;
	}
	return n;
}

static char *tmpl_write(const struct sb_child *c, const struct sb_tmpl *t, bool quote, char *d)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct sb_seg *g = &t->segs[i];
		const char *src;
		size_t n;
		switch (g->kind) {
		case SB_SEG_LIT: src = g->lit; n = g->len; break;
		case SB_SEG_PARAM: src = quote ? c->quoted[g->param] : c->text[g->param]; n = strlen(src); break;
		case SB_SEG_REPEAT: src = quote ? c->qnum[0] : c->num[0]; n = strlen(src); break;
		default: src = quote ? c->qnum[1] : c->num[1]; n = strlen(src); break;
		}
		memcpy(d, src, n);
		d += n;
	}
	*d++ = '\0';
	return d;
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	void *q;
	size_t n = *cap ? *cap : 16;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * size);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int resolve_child(const struct sb_plan *plan, size_t index, struct sb_child *c,
			 struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	int64_t pt = plan->points[index / (size_t)s->repeats];
	size_t i, total = 0, nstr, k;
	char *d;

	c->index = index;
	c->repeat = (int64_t)(index % (size_t)s->repeats);
	c->nparams = s->nparams;
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
	snprintf(c->num[0], sizeof(c->num[0]), "%" PRId64, c->repeat);
	snprintf(c->num[1], sizeof(c->num[1]), "%zu", index);
	snprintf(c->qnum[0], sizeof(c->qnum[0]), "'%s'", c->num[0]);
	snprintf(c->qnum[1], sizeof(c->qnum[1]), "'%s'", c->num[1]);

	c->shell = s->shell;
	c->argc = s->shell ? 0 : s->argc;
	nstr = (s->shell ? 1 : s->argc) + s->nenv;
	if (grow((void **)&c->lens, &c->lens_cap, nstr, sizeof(size_t)) < 0 ||
	    grow((void **)&c->argv, &c->argv_cap, c->argc + 1, sizeof(char *)) < 0 ||
	    grow((void **)&c->env, &c->env_cap, s->nenv + 1, sizeof(char *)) < 0)
		return sb_errorf(err, "out of memory");
	for (k = 0; k < nstr; k++) {
		const struct sb_tmpl *t;
		bool cmd = k < nstr - s->nenv;
		if (cmd)
			t = s->shell ? &s->shell_cmd : &s->argv[k];
		else
			t = &s->env[k - (nstr - s->nenv)].value;
		c->lens[k] = tmpl_len(c, t, cmd && s->shell);
		if (c->lens[k] > SB_SPEC_MAX_RESOLVED)
			return sb_spec_errorf(s, err, t->line, t->col,
					      "%s of child %zu is longer than %d bytes once resolved",
					      cmd ? "command" : "env value", index, SB_SPEC_MAX_RESOLVED);
		total += c->lens[k] + 1;
		if (cmd && !s->shell && total > SB_SPEC_MAX_RESOLVED)
			return sb_spec_errorf(s, err, t->line, t->col,
					      "command of child %zu is longer than %d bytes once resolved",
					      index, SB_SPEC_MAX_RESOLVED);
	}
	if (grow((void **)&c->buf, &c->buf_cap, total, 1) < 0)
		return sb_errorf(err, "out of memory");
	d = c->buf;
	for (k = 0; k < nstr; k++) {
		bool cmd = k < nstr - s->nenv;
		if (cmd && s->shell) {
			c->shell_cmd = d;
			d = tmpl_write(c, &s->shell_cmd, true, d);
		} else if (cmd) {
			c->argv[k] = d;
			d = tmpl_write(c, &s->argv[k], false, d);
		} else {
			size_t e = k - (nstr - s->nenv);
			c->env[e] = d;
			d = tmpl_write(c, &s->env[e].value, false, d);
		}
	}
	if (s->shell)
		c->argv[0] = NULL;
	else
		c->argv[c->argc] = NULL;
	c->env[s->nenv] = NULL;
	return 0;
}

/* ---- digests ---- */

/* The canonical bytes shared by every child: "metrics" and its value, and
 * "resources" ... "results" with theirs. */
static void encode_metrics(struct sb_canon *m, const struct sb_spec *s)
{
	sb_canon_cstr(m, "metrics");
	if (s->metrics)
		sb_canon_cstr(m, s->metrics);
	else
		sb_canon_nil(m);
}

static void opt_str(struct sb_canon *c, const char *key, const char *v)
{
	sb_canon_cstr(c, key);
	if (v)
		sb_canon_cstr(c, v);
	else
		sb_canon_nil(c);
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
	opt_str(c, "constraint", o->constraint);
	opt_int(c, "cpus_per_task", o->cpus_per_task);
	opt_str(c, "gres", o->gres);
	opt_str(c, "mem", o->mem);
	opt_str(c, "nodes", o->nodes);
	opt_int(c, "ntasks", o->ntasks);
	opt_str(c, "partition", o->partition);
	sb_canon_cstr(c, "results");
	sb_canon_array(c, s->nresults);
	for (i = 0; i < s->nresults; i++)
		sb_canon_cstr(c, s->results[i]);
}

/* Canonical msgpack of a resolved child (docs/spec.md "Child digest"). */
static void encode_child(struct sb_canon *c, const struct sb_spec *s, const struct sb_child *ch,
			 const struct sb_canon *metrics, const struct sb_canon *tail)
{
	size_t i;

	sb_canon_map(c, 7);
	sb_canon_cstr(c, "command");
	if (ch->shell) {
		sb_canon_cstr(c, ch->shell_cmd);
	} else {
		sb_canon_array(c, ch->argc);
		for (i = 0; i < ch->argc; i++)
			sb_canon_cstr(c, ch->argv[i]);
	}
	sb_canon_cstr(c, "env");
	sb_canon_map(c, s->nenv);
	for (i = 0; i < s->nenv; i++) {
		sb_canon_cstr(c, s->env[i].name);
		sb_canon_cstr(c, ch->env[i]);
	}
	sb_canon_raw(c, metrics->buf, metrics->len);
	sb_canon_cstr(c, "params");
	sb_canon_map(c, s->nparams);
	for (i = 0; i < s->nparams; i++) {
		sb_canon_cstr(c, s->params[i].name);
		sb_canon_value(c, ch->params[i]);
	}
	sb_canon_cstr(c, "repeat");
	sb_canon_int(c, ch->repeat);
	sb_canon_raw(c, tail->buf, tail->len);
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
		int w = snprintf(buf + o, n - o, "%s%s=%s", i ? ", " : "", s->params[i].name, pt->text[i]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (o >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
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
		return sb_errorf(err, "out of memory");
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
		return sb_errorf(err, "out of memory");
	if (s->has_grid) {
		for (nvx = 0; nvx < s->nparams; nvx++)
			if (vindex_init(&vx[nvx], s->params[nvx].values, s->params[nvx].nvalues) < 0) {
				sb_errorf(err, "out of memory");
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
		sb_errorf(err, "out of memory");
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

static int compute_digests(struct sb_plan *plan, struct sb_error *err)
{
	const struct sb_spec *s = plan->spec;
	struct sb_canon c, metrics, tail;
	struct sb_child *ch = sb_child_create();
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const EVP_MD *md = EVP_sha256();
	size_t i;
	int rc = -1;

	sb_canon_init(&c, 64 * 1024 * 1024);
	sb_canon_init(&metrics, 1024 * 1024);
	sb_canon_init(&tail, 1024 * 1024);
	plan->digests = malloc(plan->count * SB_DIGEST_LEN);
	if (ch == NULL || ctx == NULL || plan->digests == NULL) {
		sb_errorf(err, "out of memory");
		goto out;
	}
	encode_metrics(&metrics, s);
	encode_tail(&tail, s);
	for (i = 0; i < plan->count; i++) {
		if (resolve_child(plan, i, ch, err) < 0)
			goto out;
		sb_canon_reset(&c);
		encode_child(&c, s, ch, &metrics, &tail);
		if (c.failed || metrics.failed || tail.failed) {
			sb_errorf(err, "out of memory");
			goto out;
		}
		if (EVP_DigestInit_ex(ctx, md, NULL) != 1 || EVP_DigestUpdate(ctx, c.buf, c.len) != 1 ||
		    EVP_DigestFinal_ex(ctx, plan->digests + i * SB_DIGEST_LEN, NULL) != 1) {
			sb_errorf(err, "sha-256 failed");
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
	sb_canon_cstr(&c, "tag");
	if (s->tag)
		sb_canon_cstr(&c, s->tag);
	else
		sb_canon_nil(&c);
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
	sb_canon_release(&metrics);
	sb_canon_release(&tail);
	sb_child_destroy(ch);
	EVP_MD_CTX_free(ctx);
	return rc;
}

struct sb_plan *sb_plan_create(const struct sb_spec *spec, struct sb_error *err)
{
	struct sb_plan *plan = calloc(1, sizeof(*plan));

	if (plan == NULL) {
		sb_errorf(err, "out of memory");
		return NULL;
	}
	plan->spec = spec;
	if (expand_points(plan, err) < 0 || compute_digests(plan, err) < 0) {
		sb_plan_destroy(plan);
		return NULL;
	}
	return plan;
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

size_t sb_child_index(const struct sb_child *c) { return c->index; }
int64_t sb_child_repeat(const struct sb_child *c) { return c->repeat; }
const uint8_t *sb_child_digest(const struct sb_child *c) { return c->digest; }
const char *sb_child_digest_hex(const struct sb_child *c) { return c->hex; }
size_t sb_child_param_count(const struct sb_child *c) { return c->nparams; }
const struct sb_value *sb_child_param(const struct sb_child *c, size_t i) { return c->params[i]; }
bool sb_child_is_shell(const struct sb_child *c) { return c->shell; }
size_t sb_child_argc(const struct sb_child *c) { return c->argc; }
char *const *sb_child_argv(const struct sb_child *c) { return c->shell ? NULL : c->argv; }
const char *sb_child_shell(const struct sb_child *c) { return c->shell ? c->shell_cmd : NULL; }
const char *sb_child_env_value(const struct sb_child *c, size_t i) { return c->env[i]; }

uint8_t *sb_plan_child_canonical(const struct sb_plan *plan, size_t index, size_t *len,
				 struct sb_error *err)
{
	struct sb_canon c, metrics, tail;
	struct sb_child *ch = sb_child_create();
	uint8_t *out = NULL;

	sb_canon_init(&c, 64 * 1024 * 1024);
	sb_canon_init(&metrics, 1024 * 1024);
	sb_canon_init(&tail, 1024 * 1024);
	if (ch != NULL && index < plan->count && resolve_child(plan, index, ch, err) == 0) {
		encode_metrics(&metrics, plan->spec);
		encode_tail(&tail, plan->spec);
		encode_child(&c, plan->spec, ch, &metrics, &tail);
		if (!c.failed) {
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
