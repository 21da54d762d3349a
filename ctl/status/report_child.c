#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "status/report_child.h"
#include "sbench/bench.h"
#include "sbench/plan.h"
#include "sbench/spec.h"

#define TAIL_BYTES 4096
#define LINE_MAX_SHOWN 200

struct tent {
	size_t c;
	enum sb_class cls;
	bool own;           /* key was allocated (else it is the child's reason) */
	const char *key;    /* the reason, the child's job id in it as "<job>" */
};

static void tent_release(struct tent *t)
{
	if (t->own)
		free((char *)t->key);
	t->key = NULL;
	t->own = false;
}

static int cmp_tent(const void *pa, const void *pb)
{
	const struct tent *a = pa, *b = pb;
	int d;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if ((d = strcmp(a->key, b->key)) != 0)
		return d;
	return (a->c > b->c) - (a->c < b->c);
}

/* Groups by class, the largest first, then by their first child. */
static int cmp_group(const void *pa, const void *pb)
{
	const struct sb_reason_group *a = pa, *b = pb;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return (a->children[0] > b->children[0]) - (a->children[0] < b->children[0]);
}

/* The reason with the child's own job id in it written "<job>", so that
 * "job 12_3 FAILED ..." of many children is one reason: the reason itself
 * (t->own false) when it has no job id.  -1 when out of memory. */
static int reason_key(struct tent *t, const char *reason, const struct sb_attempt_status *a)
{
	const char *hit, *id = a && a->job_id ? a->job_id : NULL;
	char *key;

	if (reason == NULL)
		reason = "";
	t->own = false;
	t->key = reason;
	if (id == NULL || (hit = strstr(reason, id)) == NULL)
		return 0;
	if (asprintf(&key, "%.*s<job>%s", (int)(hit - reason), reason, hit + strlen(id)) < 0)
		return -1;
	t->own = true;
	t->key = key;
	return 0;
}

int sb_reason_groups(const struct sb_status *st, unsigned mask, struct sb_reason_group **groups,
		     size_t *ngroups, struct sb_error *err)
{
	struct tent *e = calloc(st->n + 1, sizeof(*e));
	struct sb_reason_group *g = calloc(st->n + 1, sizeof(*g));
	size_t *members = malloc((st->n + 1) * sizeof(*members));
	size_t c, n = 0, ng = 0;

	*groups = NULL;
	*ngroups = 0;
	if (e == NULL || g == NULL || members == NULL)
		goto oom;
	for (c = 0; c < st->n; c++) {
		const struct sb_child_status *ch = &st->children[c];
		if (!(mask & (1u << ch->cls)))
			continue;
		e[n] = (struct tent){ c, ch->cls, false, NULL };
		if (reason_key(&e[n++], ch->reason, ch->latest) < 0)
			goto oom;
	}
	qsort(e, n, sizeof(*e), cmp_tent);
	/* the groups' children share one block, members, in entry order (the
	 * group with the lowest pointer into it frees it) */
	for (c = 0; c < n; c++) {
		members[c] = e[c].c;
		if (ng == 0 || e[c].cls != g[ng - 1].cls || strcmp(e[c].key, g[ng - 1].reason)) {
			char *key = e[c].own ? (char *)e[c].key : strdup(e[c].key);
			if (key == NULL)
				goto oom;
			g[ng++] = (struct sb_reason_group){ e[c].cls, key, members + c, 0 };
			e[c].own = false; /* the group's now */
		}
		g[ng - 1].n++;
	}
	for (c = 0; c < ng; c++)
		if (g[c].n == 1) {
			const struct sb_child_status *ch = &st->children[g[c].children[0]];
			char *own = strdup(ch->reason ? ch->reason : "");
			if (own == NULL)
				goto oom;
			free(g[c].reason);
			g[c].reason = own;
		}
	qsort(g, ng, sizeof(*g), cmp_group);
	for (c = 0; c < n; c++)
		tent_release(&e[c]);
	free(e);
	{ /* as many groups as there are, not one per child */
		struct sb_reason_group *fit = realloc(g, (ng + 1) * sizeof(*g));
		if (fit != NULL)
			g = fit;
	}
	if (ng == 0) {
		free(members);
	}
	*groups = g;
	*ngroups = ng;
	return 0;
oom:
	for (c = 0; c < n; c++)
		tent_release(&e[c]);
	for (c = 0; c < ng; c++)
		free(g[c].reason);
	free(e);
	free(g);
	free(members);
	return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
}

void sb_reason_groups_free(struct sb_reason_group *groups, size_t n)
{
	size_t i, *block = NULL;

	if (groups == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (block == NULL || groups[i].children < block)
			block = groups[i].children;
		free(groups[i].reason);
	}
	free(block);
	free(groups);
}

int sb_param_share_compute(const struct sb_status *st, const size_t *members, size_t n,
			   struct sb_param_share *ps, struct sb_error *err)
{
	const struct sb_plan *plan = st->bench->plan;
	size_t i, k;

	memset(ps, 0, sizeof(*ps));
	ps->nparams = sb_spec_param_count(st->bench->spec);
	ps->shared = calloc(ps->nparams + 1, sizeof(*ps->shared));
	ps->first = sb_child_create();
	ps->cur = sb_child_create();
	if (ps->shared == NULL || ps->first == NULL || ps->cur == NULL) {
		sb_param_share_release(ps);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	if (sb_plan_child_params(plan, members[0], ps->first, err) < 0) {
		sb_param_share_release(ps);
		return -1;
	}
	for (k = 0; k <= ps->nparams; k++)
		ps->shared[k] = true;
	for (i = 1; i < n; i++) {
		if (sb_plan_child_params(plan, members[i], ps->cur, err) < 0) {
			sb_param_share_release(ps);
			return -1;
		}
		for (k = 0; k < ps->nparams; k++)
			if (ps->shared[k] && !sb_value_equal(sb_child_param(ps->first, k),
							     sb_child_param(ps->cur, k)))
				ps->shared[k] = false;
		if (sb_child_repeat(ps->first) != sb_child_repeat(ps->cur))
			ps->shared[ps->nparams] = false;
	}
	return 0;
}

void sb_param_share_release(struct sb_param_share *ps)
{
	if (ps == NULL)
		return;
	free(ps->shared);
	sb_child_destroy(ps->first);
	sb_child_destroy(ps->cur);
	memset(ps, 0, sizeof(*ps));
}

size_t sb_param_share_words(const struct sb_status *st, struct sb_param_share *ps, size_t c,
			    bool shared, FILE *out)
{
	const struct sb_spec *spec = st->bench->spec;
	size_t k, words = 0;

	if (sb_plan_child_params(st->bench->plan, c, ps->cur, NULL) < 0)
		return 0;
	for (k = 0; k < ps->nparams; k++) {
		char *text;
		if (ps->shared[k] != shared)
			continue;
		text = sb_value_text(sb_child_param(ps->cur, k));
		fprintf(out, "%s%s=%s", words++ ? " " : "", sb_spec_param_name(spec, k),
			text ? text : "?");
		free(text);
	}
	if (ps->shared[ps->nparams] == shared && !(shared && sb_child_repeat(ps->cur) == 0))
		fprintf(out, "%srepeat=%lld", words++ ? " " : "", (long long)sb_child_repeat(ps->cur));
	return words;
}

char *sb_param_share_text(const struct sb_status *st, struct sb_param_share *ps, size_t c,
			  bool shared, size_t *nwords)
{
	char *text = NULL;
	size_t len = 0, n;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		return NULL;
	n = sb_param_share_words(st, ps, c, shared, mem);
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	if (nwords != NULL)
		*nwords = n;
	return text;
}

/* The newest *.err of the child's Slurm output, malloc'd, or NULL. */
static char *newest_err(const struct sb_bench *b, size_t c)
{
	char **files = NULL, *path = NULL;
	size_t n = 0, i;

	if (sb_bench_output(b, c, NULL, &files, &n, NULL) < 0)
		return NULL;
	for (i = n; i > 0 && path == NULL; i--) {
		size_t len = strlen(files[i - 1]);
		if (len > 4 && !strcmp(files[i - 1] + len - 4, ".err"))
			path = strdup(files[i - 1]);
	}
	free(files); /* sb_free is free */
	return path;
}

char *sb_child_stderr_tail(const struct sb_bench *b, size_t c, int lines, char **err_path)
{
	char buf[TAIL_BYTES + 1], *path = newest_err(b, c), *out = NULL, *p;
	size_t got = 0, i, o = 0;
	bool cut = false;
	FILE *f;
	int seen = 0;

	if (err_path != NULL)
		*err_path = NULL;
	if (path == NULL)
		return NULL;
	if ((f = sb_fs_fopen_regular(path)) != NULL) {
		long size;
		if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 &&
		    fseek(f, size > TAIL_BYTES ? size - TAIL_BYTES : 0, SEEK_SET) == 0) {
			got = fread(buf, 1, TAIL_BYTES, f);
			cut = size > TAIL_BYTES;
		}
		fclose(f);
	}
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
		buf[--got] = '\0';
	/* control characters (a terminal's escapes) are shown as '?' */
	for (i = 0; i < got; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t') || buf[i] == 0x7f)
			buf[i] = '?';
	for (i = got; i > 0; i--)
		if (buf[i - 1] == '\n' && ++seen == lines)
			break;
	if (i == 0 && cut && (p = strchr(buf, '\n')) != NULL)
		i = (size_t)(p - buf) + 1; /* the first line read is cut short: not shown */
	if (got > 0 && (out = malloc(got - i + 1)) != NULL) {
		/* each line cut at LINE_MAX_SHOWN bytes */
		for (p = buf + i; *p;) {
			size_t len = strcspn(p, "\n");
			size_t keep = len > LINE_MAX_SHOWN ? LINE_MAX_SHOWN : len;
			if (len == 0 && p[0] == '\n') {
				p++;
				continue;
			}
			if (o > 0)
				out[o++] = '\n';
			memcpy(out + o, p, keep);
			o += keep;
			p += len + (p[len] == '\n');
		}
		out[o] = '\0';
		if (o == 0) {
			free(out);
			out = NULL;
		}
	}
	if (err_path != NULL)
		*err_path = path;
	else
		free(path);
	return out;
}
