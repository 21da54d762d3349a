#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_private.h"
#include "base/stats.h"
#include "status/spans.h"
#include "spec/spec_private.h"
#include "base/suggest.h"
#include "sbench/plan.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

static bool has_name(char *const *v, size_t n, const char *name)
{
	while (n > 0)
		if (!strcmp(v[--n], name))
			return true;
	return false;
}

/* Every metric name reported by a child (only the succeeded ones when
 * only_succeeded), sorted, distinct, into *names (*n of them, NULL-safe to
 * free_names). -1 out of memory. */
static int metrics_reported(const struct sb_status *st, bool only_succeeded, char ***names,
			    size_t *n)
{
	size_t c, m, cap = 0;

	*names = NULL;
	*n = 0;
	for (c = 0; c < st->n; c++) {
		const struct sb_attempt_status *at = st->children[c].latest;
		if (at == NULL || (only_succeeded && st->children[c].cls != SB_CLASS_SUCCEEDED))
			continue;
		for (m = 0; m < at->nmetrics; m++) {
			if (has_name(*names, *n, at->metrics[m].name))
				continue;
			if (*n == cap) {
				char **v = realloc(*names, (cap = cap ? 2 * cap : 16) * sizeof(*v));
				if (v == NULL)
					return -1;
				*names = v;
			}
			if (((*names)[*n] = strdup(at->metrics[m].name)) == NULL)
				return -1;
			(*n)++;
		}
	}
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), cmp_str);
	return 0;
}

static bool spec_lists_metric(const struct sb_spec *spec, const char *name)
{
	size_t k;

	if (!sb_spec_has_analysis_metrics(spec))
		return false;
	for (k = 0; k < sb_spec_analysis_metric_count(spec); k++)
		if (!strcmp(sb_spec_analysis_metric(spec, k), name))
			return true;
	return false;
}

static int add_warning(struct sb_analysis *a, const char *what, const char *name, const char *hint)
{
	char **v = realloc(a->warnings, (a->nwarnings + 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	a->warnings = v;
	if (asprintf(&v[a->nwarnings], "%s '%s' was reported by no succeeded child%s", what, name,
		     hint) < 0)
		return -1;
	a->nwarnings++;
	return 0;
}

/* Every metric analysed that no succeeded child reported: an error for a
 * name the caller gave that no child at all reported and the spec does not
 * list (once a child succeeded, so that the names are known), else a
 * warning; both say the closest name reported. */
/* "a, b, c" of the first max names (", ..." when there are more); NULL
 * when out of memory. */
static char *name_list(char **names, size_t n, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	for (size_t i = 0; i < n && i < max; i++)
		fprintf(f, "%s%s", i ? ", " : "", names[i]);
	if (n > max)
		fputs(", ...", f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int check_metrics(const struct sb_status *st, bool given, struct sb_analysis *a,
			 struct sb_error *err)
{
	const struct sb_spec *spec = st->bench->spec;
	char **any = NULL, **ok = NULL, hint[SB_SUGGEST_MAX];
	size_t nany = 0, nok = 0, m;
	int rc = -1;

	if (metrics_reported(st, false, &any, &nany) < 0 ||
	    metrics_reported(st, true, &ok, &nok) < 0) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (m = 0; m < a->nmetrics; m++) {
		const char *name = a->metrics[m];
		bool listed = spec_lists_metric(spec, name);

		if (has_name(ok, nok, name))
			continue;
		sb_suggest(name, (const char *const *)any, nany, hint);
		if (given && !listed && !has_name(any, nany, name) && st->counts[SB_CLASS_SUCCEEDED] > 0) {
			char *known = *hint || !nany ? NULL : name_list(any, nany, 8);
			sb_error_set(err, SB_ERR_INPUT, "metrics: no child reported a metric '%s' and the "
				     "spec's analysis.metrics does not list it%s%s%s", name,
				     *hint ? hint : !nany ? " (no child reported any metric)"
				     : known ? " (the children reported: " : "",
				     known ? known : "", known ? ")" : "");
			free(known);
			goto done;
		}
		if (add_warning(a, listed ? "metric of the spec's analysis.metrics" : "metric", name,
				hint) < 0) {
			sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			goto done;
		}
	}
	rc = 0;
done:
	free_names(any, nany);
	free_names(ok, nok);
	return rc;
}

/* A group and its key for the ranking. */
struct ranked {
	struct sb_group g;
	size_t was;
	double key;
	bool has;
	bool desc;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->has != b->has)
		return a->has ? -1 : 1;
	if (a->has && a->key != b->key)
		return (a->key < b->key) == !a->desc ? -1 : 1;
	return (a->g.first > b->g.first) - (a->g.first < b->g.first);
}

/* Ranks the groups by the mean of the metric sort (highest first when
 * desc).  A metric the caller named that is not analysed is an error; one
 * the spec's analysis.sort named, a warning (the groups keep their order). */
static int rank_groups(const struct sb_status *st, const char *sort, bool desc, bool from_spec,
		       struct sb_analysis *a, struct sb_error *err)
{
	char hint[SB_SUGGEST_MAX];
	struct ranked *r;
	size_t m, g, c, *now;

	for (m = 0; m < a->nmetrics; m++)
		if (!strcmp(a->metrics[m], sort))
			break;
	if (m == a->nmetrics && from_spec) {
		char **v = realloc(a->warnings, (a->nwarnings + 1) * sizeof(*v));
		if (v == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		a->warnings = v;
		if (asprintf(&v[a->nwarnings], "the spec's analysis.sort '%s' is not one of the "
			     "metrics analysed%s: the groups are not ranked", sort,
			     sb_suggest(sort, (const char *const *)a->metrics, a->nmetrics, hint)) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		a->nwarnings++;
		return 0;
	}
	if (m == a->nmetrics)
		return sb_error_set(err, SB_ERR_INPUT, "sort: '%s' is not one of the metrics analysed%s",
				    sort, sb_suggest(sort, (const char *const *)a->metrics,
						     a->nmetrics, hint));
	a->sort = (int)m;
	a->sort_desc = desc;
	if (a->ngroups < 2)
		return 0;
	r = calloc(a->ngroups, sizeof(*r));
	now = calloc(a->ngroups, sizeof(*now));
	if (r == NULL || now == NULL) {
		free(r);
		free(now);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	for (g = 0; g < a->ngroups; g++)
		r[g] = (struct ranked){ a->groups[g], g, a->groups[g].stats[m].mean,
					a->groups[g].stats[m].n > 0, a->sort_desc };
	qsort(r, a->ngroups, sizeof(*r), cmp_ranked);
	for (g = 0; g < a->ngroups; g++) {
		a->groups[g] = r[g].g;
		now[r[g].was] = g;
	}
	for (c = 0; c < st->n; c++)
		a->group_of[c] = now[a->group_of[c]];
	free(r);
	free(now);
	return 0;
}

/* The metric `name` of child c when it succeeded, or NULL. */
static const struct sb_metric *metric_of(const struct sb_status *st, size_t c, const char *name)
{
	const struct sb_attempt_status *at = st->children[c].latest;
	size_t k;

	if (st->children[c].cls != SB_CLASS_SUCCEEDED || at == NULL)
		return NULL;
	for (k = 0; k < at->nmetrics; k++)
		if (!strcmp(at->metrics[k].name, name))
			return &at->metrics[k];
	return NULL;
}

static int find_param(const struct sb_spec *spec, const char *name)
{
	size_t i;

	for (i = 0; i < sb_spec_param_count(spec); i++)
		if (!strcmp(sb_spec_param_name(spec, i), name))
			return (int)i;
	return -1;
}

/* A hash table from a child's group values to its group. */
struct gtable {
	size_t *slots; /* group index + 1, 0 = empty */
	size_t cap;    /* a power of two, at least twice the groups */
	uint64_t *hash; /* each group's hash, for growing */
	size_t hcap;
};

/* The first empty slot for hash h. */
static size_t gtable_free_slot(const struct gtable *t, uint64_t h)
{
	size_t slot = h & (t->cap - 1);

	while (t->slots[slot] != 0)
		slot = (slot + 1) & (t->cap - 1);
	return slot;
}

/* Room for group number n (0-based) and its hash h: the table grows with
 * the groups, not with the children (a million repeats are one group).
 * -1 when out of memory. */
static int gtable_add(struct gtable *t, size_t n, uint64_t h)
{
	if (n >= t->hcap) {
		size_t cap = t->hcap ? 2 * t->hcap : 64;
		uint64_t *v = realloc(t->hash, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		t->hash = v;
		t->hcap = cap;
	}
	t->hash[n] = h;
	if (2 * (n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64, g;
		size_t *slots = calloc(cap, sizeof(*slots));
		if (slots == NULL)
			return -1;
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
		for (g = 0; g < n; g++)
			t->slots[gtable_free_slot(t, t->hash[g])] = g + 1;
	}
	t->slots[gtable_free_slot(t, h)] = n + 1;
	return 0;
}

static uint64_t group_hash(struct sb_child *ch, const struct sb_analysis *a)
{
	uint64_t h = 1469598103934665603ULL;
	size_t k;

	for (k = 0; k < a->nby; k++)
		h = (h ^ sb_value_hash(sb_child_param(ch, a->by[k]))) * 1099511628211ULL;
	return h;
}

static bool same_group(struct sb_child *x, struct sb_child *y, const struct sb_analysis *a)
{
	size_t k;

	for (k = 0; k < a->nby; k++)
		if (!sb_value_equal(sb_child_param(x, a->by[k]), sb_child_param(y, a->by[k])))
			return false;
	return true;
}

static int group_resources(const struct sb_status *st, const size_t *group_of,
			   struct sb_group *groups, size_t ngroups)
{
	size_t *start = calloc(ngroups + 1, sizeof(*start)), *fill = calloc(ngroups + 1, sizeof(*fill));
	double *vals = malloc((st->n ? st->n : 1) * sizeof(*vals));
	size_t c, g, r;
	int rc = -1;

	if (start == NULL || fill == NULL || vals == NULL)
		goto out;
	for (g = 0; g < ngroups; g++)
		memset(groups[g].resources, 0, sizeof(groups[g].resources));
	for (c = 0; c < st->n; c++) {
		const struct sb_attempt_status *a = st->children[c].latest;
		if (st->children[c].cls == SB_CLASS_SUCCEEDED && a && a->log.has_usage)
			start[group_of[c] + 1]++;
	}
	for (g = 0; g < ngroups; g++)
		start[g + 1] += start[g];
	for (r = 0; r < SB_RESOURCE_COUNT; r++) {
		memcpy(fill, start, (ngroups + 1) * sizeof(*fill));
		for (c = 0; c < st->n; c++) {
			const struct sb_attempt_status *a = st->children[c].latest;
			if (st->children[c].cls != SB_CLASS_SUCCEEDED || !a || !a->log.has_usage)
				continue;
			vals[fill[group_of[c]]++] = r == 0 ? a->log.wall_s : r == 1
				? (double)a->log.max_rss_kb : a->log.cpu_s;
		}
		for (g = 0; g < ngroups; g++)
			if (start[g + 1] > start[g])
				sb_stats_compute(vals + start[g], start[g + 1] - start[g],
						 &groups[g].resources[r]);
	}
	rc = 0;
out:
	free(start);
	free(fill);
	free(vals);
	return rc;
}

int sb_analysis_compute(const struct sb_status *st, const struct sb_analyze_opts *opts,
			struct sb_analysis *out, struct sb_error *err)
{
	const char *const *group_by = opts->group_by, *const *metrics = opts->metrics;
	size_t ngroup_by = opts->ngroup_by, nmetrics = opts->nmetrics;
	const struct sb_spec *spec = st->bench->spec;
	const struct sb_plan *plan = st->bench->plan;
	struct sb_child *ch = sb_child_create(), *other = sb_child_create();
	struct gtable t = { 0 };
	size_t *group_of = NULL, *start = NULL, *fill = NULL, c, k, m, g;
	double *vals = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->st = st;
	out->sort = -1;
	if (ch == NULL || other == NULL)
		goto oom;
	/* what to group by */
	if (group_by == NULL) {
		ngroup_by = sb_spec_group_by_count(spec);
		out->by = calloc(ngroup_by + 1, sizeof(*out->by));
		if (out->by == NULL)
			goto oom;
		for (k = 0; k < ngroup_by; k++)
			out->by[out->nby++] = (size_t)find_param(spec, sb_spec_group_by(spec, k));
	} else {
		out->by = calloc(ngroup_by + 1, sizeof(*out->by));
		if (out->by == NULL)
			goto oom;
		for (k = 0; k < ngroup_by; k++) {
			int p = find_param(spec, group_by[k]);
			if (p < 0) {
				char hint[SB_SUGGEST_MAX];
				size_t i, np = sb_spec_param_count(spec);
				const char **names = calloc(np + 1, sizeof(*names));
				if (names == NULL)
					goto oom;
				for (i = 0; i < np; i++)
					names[i] = sb_spec_param_name(spec, i);
				sb_error_set(err, SB_ERR_INPUT, "group_by: '%s' is not a parameter of "
					     "benchmark '%s'%s", group_by[k], st->bench->name,
					     sb_suggest(group_by[k], names, np, hint));
				free(names);
				goto fail;
			}
			out->by[out->nby++] = (size_t)p;
		}
	}
	/* which metrics */
	if (metrics == NULL && sb_spec_has_analysis_metrics(spec)) {
		nmetrics = sb_spec_analysis_metric_count(spec);
		out->metrics = calloc(nmetrics + 1, sizeof(*out->metrics));
		if (out->metrics == NULL)
			goto oom;
		for (k = 0; k < nmetrics; k++)
			if ((out->metrics[out->nmetrics++] = strdup(sb_spec_analysis_metric(spec, k))) == NULL)
				goto oom;
	} else if (metrics != NULL) {
		out->metrics = calloc(nmetrics + 1, sizeof(*out->metrics));
		if (out->metrics == NULL)
			goto oom;
		for (k = 0; k < nmetrics; k++)
			if ((out->metrics[out->nmetrics++] = strdup(metrics[k])) == NULL)
				goto oom;
	} else if (metrics_reported(st, true, &out->metrics, &out->nmetrics) < 0) {
		goto oom;
	}
	out->metrics_given = metrics != NULL;
	if (check_metrics(st, metrics != NULL, out, err) < 0)
		goto fail;

	/* groups, in the order of their first child */
	group_of = malloc((st->n ? st->n : 1) * sizeof(*group_of));
	if (group_of == NULL)
		goto oom;
	for (c = 0; c < st->n; c++) {
		const struct sb_chain *chn;
		uint64_t h;
		size_t slot;

		if (sb_plan_child_params(plan, c, ch, err) < 0)
			goto fail;
		h = group_hash(ch, out);
		for (slot = h & (t.cap - 1); t.cap && t.slots[slot] != 0; slot = (slot + 1) & (t.cap - 1)) {
			g = t.slots[slot] - 1;
			if (t.hash[g] != h)
				continue;
			if (sb_plan_child_params(plan, out->groups[g].first, other, err) < 0)
				goto fail;
			if (same_group(ch, other, out))
				break;
		}
		if (t.cap == 0 || t.slots[slot] == 0) {
			struct sb_group *v = realloc(out->groups, (out->ngroups + 1) * sizeof(*v));
			if (v == NULL)
				goto oom;
			out->groups = v;
			memset(&v[out->ngroups], 0, sizeof(*v));
			v[out->ngroups].first = c;
			if (gtable_add(&t, out->ngroups, h) < 0)
				goto oom;
			g = out->ngroups++;
		} else {
			g = t.slots[slot] - 1;
		}
		group_of[c] = g;
		out->groups[g].classes[st->children[c].cls]++;
		out->groups[g].n += st->children[c].cls == SB_CLASS_SUCCEEDED;
		if ((chn = sb_status_chain(st, c)) != NULL && chn->n > 1)
			out->groups[g].restarts += chn->n - 1;
	}
	/* statistics: each group's values in child-index order, bucketed in
	 * one pass per metric (a counting sort by group) */
	vals = malloc((st->n ? st->n : 1) * sizeof(*vals));
	start = calloc(out->ngroups + 1, sizeof(*start));
	fill = calloc(out->ngroups + 1, sizeof(*fill));
	if (vals == NULL || start == NULL || fill == NULL)
		goto oom;
	for (g = 0; g < out->ngroups; g++) {
		out->groups[g].stats = calloc(out->nmetrics + 1, sizeof(*out->groups[g].stats));
		if (out->groups[g].stats == NULL)
			goto oom;
	}
	for (m = 0; m < out->nmetrics; m++) {
		memset(start, 0, (out->ngroups + 1) * sizeof(*start));
		for (c = 0; c < st->n; c++)
			if (metric_of(st, c, out->metrics[m]) != NULL)
				start[group_of[c] + 1]++;
		for (g = 0; g < out->ngroups; g++)
			start[g + 1] += start[g];
		memcpy(fill, start, (out->ngroups + 1) * sizeof(*fill));
		for (c = 0; c < st->n; c++) {
			const struct sb_metric *x = metric_of(st, c, out->metrics[m]);
			if (x != NULL)
				vals[fill[group_of[c]]++] = x->value;
		}
		for (g = 0; g < out->ngroups; g++)
			if (start[g + 1] > start[g])
				sb_stats_compute(vals + start[g], start[g + 1] - start[g],
						 &out->groups[g].stats[m]);
	}
	if (group_resources(st, group_of, out->groups, out->ngroups) < 0)
		goto oom;
	out->group_of = group_of;
	group_of = NULL;
	{
		/* --sort, else the spec's analysis.sort */
		bool desc = opts->sort_desc;
		const char *sort = opts->sort ? opts->sort : sb_spec_analysis_sort(spec, &desc);
		if (sort != NULL && rank_groups(st, sort, desc, opts->sort == NULL, out, err) < 0)
			goto fail;
	}
	rc = 0;
	goto done;
oom:
	sb_error_set(err, SB_ERR_NOMEM, "out of memory");
fail:
	sb_analysis_release(out);
done:
	free(vals);
	free(start);
	free(fill);
	free(group_of);
	free(t.slots);
	free(t.hash);
	sb_child_destroy(ch);
	sb_child_destroy(other);
	return rc;
}

void sb_analysis_release(struct sb_analysis *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->nmetrics; i++)
		free(a->metrics[i]);
	for (i = 0; i < a->ngroups; i++)
		free(a->groups[i].stats);
	free_names(a->warnings, a->nwarnings);
	free(a->group_of);
	free(a->metrics);
	free(a->groups);
	free(a->by);
	sb_status_destroy(a->owned);
	memset(a, 0, sizeof(*a));
}

/* ---- the public API (include/sbench/analyze.h) ----------------------------- */

int sb_analyze(const struct sb_status *st, const struct sb_analyze_opts *opts,
	       struct sb_analysis **out, struct sb_error *err)
{
	static const struct sb_analyze_opts defaults;
	struct sb_analysis *an;

	*out = NULL;
	if (st == NULL)
		return sb_error_set(err, SB_ERR_INPUT, "no status given");
	if (opts == NULL)
		opts = &defaults;
	if ((an = calloc(1, sizeof(*an))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (sb_analysis_compute(st, opts, an, err) < 0) {
		free(an);
		return -1;
	}
	*out = an;
	return 0;
}

int sb_analyze_bench(const struct sb_ctx *ctx, struct sb_bench *bench,
		     const struct sb_status_opts *status_opts,
		     const struct sb_analyze_opts *opts, struct sb_analysis **out,
		     struct sb_error *err)
{
	struct sb_status *st;

	*out = NULL;
	if (sb_status_compute(ctx, bench, status_opts, &st, err) < 0)
		return -1;
	if (sb_analyze(st, opts, out, err) < 0) {
		sb_status_destroy(st);
		return -1;
	}
	(*out)->owned = st;
	return 0;
}

void sb_analysis_destroy(struct sb_analysis *an)
{
	sb_analysis_release(an);
	free(an);
}

const struct sb_status *sb_analysis_status(const struct sb_analysis *an)
{
	return an->st;
}

size_t sb_analysis_metric_count(const struct sb_analysis *an)
{
	return an->nmetrics;
}

const char *sb_analysis_metric(const struct sb_analysis *an, size_t m)
{
	return m < an->nmetrics ? an->metrics[m] : NULL;
}

size_t sb_analysis_warning_count(const struct sb_analysis *an)
{
	return an->nwarnings;
}

const char *sb_analysis_warning(const struct sb_analysis *an, size_t i)
{
	return i < an->nwarnings ? an->warnings[i] : NULL;
}

size_t sb_analysis_group_count(const struct sb_analysis *an)
{
	return an->ngroups;
}

size_t sb_analysis_group_first(const struct sb_analysis *an, size_t g)
{
	return g < an->ngroups ? an->groups[g].first : 0;
}

size_t sb_analysis_group_succeeded(const struct sb_analysis *an, size_t g)
{
	return g < an->ngroups ? an->groups[g].n : 0;
}

size_t sb_analysis_group_class(const struct sb_analysis *an, size_t g, enum sb_class c)
{
	return g < an->ngroups && (unsigned)c < SB_CLASS_COUNT ? an->groups[g].classes[c] : 0;
}

int sb_analysis_stats(const struct sb_analysis *an, size_t g, size_t m,
		      struct sb_metric_stats *out)
{
	const struct sb_stats *s;

	if (g >= an->ngroups || m >= an->nmetrics)
		return -1;
	s = &an->groups[g].stats[m];
	if (s->n == 0) {
		*out = (struct sb_metric_stats){ 0, NAN, NAN, NAN, NAN, NAN };
		return 0;
	}
	*out = (struct sb_metric_stats){ s->n, s->mean, s->stddev, s->min, s->median, s->max };
	return 0;
}

int sb_analysis_runs_metrics(const struct sb_analysis *a, char ***names, size_t *n)
{
	if (!a->metrics_given)
		return metrics_reported(a->st, false, names, n);
	*n = 0;
	*names = calloc(a->nmetrics + 1, sizeof(**names));
	if (*names == NULL)
		return -1;
	for (; *n < a->nmetrics; (*n)++)
		if (((*names)[*n] = strdup(a->metrics[*n])) == NULL)
			return -1;
	return 0;
}

void sb_analysis_free_names(char **names, size_t n)
{
	free_names(names, n);
}
