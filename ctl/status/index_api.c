/* The public API of the local index (include/sbench/index.h): the list of
 * benchmarks it knows, its rebuild from benchmark directories, and the
 * renderers of `sbctl list`. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_private.h"
#include "bench/index_private.h"
#include "base/render.h"
#include "status/status_private.h"
#include "proto/json.h"
#include "proto/util.h"
#include "sbench/index.h"

struct list_entry {
	char *name, *digest, *dir, *tag;
	int64_t created_ns, children;
	bool present;
	bool has_counts;
	size_t counts[SB_CLASS_COUNT];
	int64_t counts_ns;
};

struct sb_bench_list {
	struct list_entry *v;
	size_t n, cap;
	bool forgotten;          /* what sb_index_forget removed */
};

/* Whether dir still holds a benchmark record; a directory too long to look
 * at is not known to be there. */
static bool record_present(const char *dir)
{
	char *rec;
	bool present;

	if (asprintf(&rec, "%s/%s", dir, SB_BENCH_RECORD) < 0)
		return false;
	present = access(rec, F_OK) == 0;
	free(rec);
	return present;
}

static int list_add(struct sb_bench_list *l, const struct sb_index_bench *b, struct sb_error *err)
{
	struct list_entry *e;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct list_entry *v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(b->name);
	e->digest = strdup(b->digest);
	e->dir = strdup(b->dir);
	e->tag = b->tag ? strdup(b->tag) : NULL;
	e->created_ns = b->created_ns;
	e->children = b->children;
	e->present = record_present(b->dir);
	e->has_counts = b->has_counts;
	for (int c = 0; c < SB_CLASS_COUNT; c++)
		e->counts[c] = b->has_counts ? (size_t)b->counts[c] : 0;
	e->counts_ns = b->counts_ns;
	if (e->name == NULL || e->digest == NULL || e->dir == NULL || (b->tag && e->tag == NULL)) {
		free(e->name);
		free(e->digest);
		free(e->dir);
		free(e->tag);
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	l->n++;
	return 0;
}

void sb_bench_list_destroy(struct sb_bench_list *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].digest);
		free(l->v[i].dir);
		free(l->v[i].tag);
	}
	free(l->v);
	free(l);
}

struct each_arg {
	struct sb_bench_list *l;
	struct sb_error *err;
};

static int each(const struct sb_index_bench *b, void *arg)
{
	struct each_arg *a = arg;

	return list_add(a->l, b, a->err) < 0 ? -1 : 0;
}

int sb_index_list(const struct sb_ctx *ctx, struct sb_bench_list **out, struct sb_error *err)
{
	struct sb_bench_list *l = calloc(1, sizeof(*l));
	struct each_arg a = { l, err };
	struct sb_index *idx;
	int rc;

	*out = NULL;
	if (l == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	idx = sb_index_open(ctx ? sb_ctx_index(ctx) : NULL, NULL, err);
	if (idx == NULL) {
		sb_bench_list_destroy(l);
		return -1;
	}
	rc = sb_index_each_bench(idx, each, &a, err);
	sb_index_close(idx);
	if (rc != 0) {
		sb_bench_list_destroy(l);
		return -1;
	}
	*out = l;
	return 0;
}

int sb_index_forget(const struct sb_ctx *ctx, const char *bench, struct sb_bench_list **out,
		    struct sb_error *err)
{
	struct sb_bench_list *l = calloc(1, sizeof(*l));
	struct sb_index_bench ib = { 0 };
	struct sb_index *idx;
	struct sb_bench *b = NULL;
	int rc = -1, found;

	*out = NULL;
	if (l == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	l->forgotten = true;
	idx = sb_index_open(ctx ? sb_ctx_index(ctx) : NULL, NULL, err);
	if (idx == NULL)
		goto out;
	if (strchr(bench, '/') || access(bench, F_OK) == 0) {
		/* a path: the benchmark there, found without the index */
		if ((b = sb_bench_open(bench, err)) == NULL)
			goto out;
		sb_bench_index_entry(b, &ib);
		found = sb_index_forget_bench(idx, b->dir, err);
		if (found == 0)
			sb_error_set(err, SB_ERR_NOT_FOUND, "benchmark '%s' is not in the local index: "
				     "nothing to forget", b->dir);
		if (found == 1)
			rc = list_add(l, &ib, err);
		goto out;
	}
	found = sb_index_find_bench(idx, bench, &ib, NULL, err);
	if (found == 0)
		sb_error_set(err, SB_ERR_NOT_FOUND, "no benchmark '%s' in the local index ('sbctl list' "
			     "shows them)", bench);
	if (found == 1 && sb_index_forget_bench(idx, ib.dir, err) >= 0)
		rc = list_add(l, &ib, err);
	sb_index_bench_release(&ib);
out:
	sb_index_close(idx);
	sb_bench_destroy(b);
	if (rc < 0) {
		sb_bench_list_destroy(l);
		return -1;
	}
	*out = l;
	return 0;
}

/* ---- rebuild ------------------------------------------------------------- */

struct rebuild {
	const struct sb_ctx *ctx;
	struct sb_index *idx;
	struct sb_bench_list *added;
	bool failed;
};

/* Indexes the benchmark at dir; 0 when it is indexed or skipped. */
static int add(struct rebuild *r, const char *dir, struct sb_error *err)
{
	struct sb_error e = { 0 };
	struct sb_bench *b = sb_bench_open(dir, &e);
	struct sb_index_bench ib;
	int rc = 0;

	if (b == NULL) {
		sb_ctx_warn(r->ctx, "skipping '%s': %s", dir, e.msg);
		return 0;
	}
	sb_bench_index_entry(b, &ib);
	if (sb_index_put_bench(r->idx, &ib, &e) < 0) {
		sb_ctx_warn(r->ctx, "%s", e.msg);
		r->failed = true;
	} else {
		rc = list_add(r->added, &ib, err);
	}
	sb_bench_destroy(b);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir is a benchmark directory, or a root holding benchmark directories. */
static int scan(struct rebuild *r, const char *dir, struct sb_error *err)
{
	char *path = NULL, **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	if (asprintf(&path, "%s/%s", dir, SB_BENCH_RECORD) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (access(path, F_OK) == 0) {
		free(path);
		return add(r, dir, err);
	}
	free(path);
	if ((dp = opendir(dir)) == NULL) {
		sb_ctx_warn(r->ctx, "cannot read '%s': %s", dir, strerror(errno));
		r->failed = true;
		return 0;
	}
	while ((d = readdir(dp)) != NULL) {
		bool bench;

		if (d->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s/%s", dir, d->d_name, SB_BENCH_RECORD) < 0) {
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		bench = access(path, F_OK) == 0;
		free(path);
		if (!bench)
			continue;
		if (n == cap) {
			char **v = realloc(names, (cap ? 2 * cap : 16) * sizeof(*v));
			if (v == NULL) {
				rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
				break;
			}
			names = v;
			cap = cap ? 2 * cap : 16;
		}
		if (asprintf(&names[n], "%s/%s", dir, d->d_name) < 0) {
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(dp);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = add(r, names[i], err);
		free(names[i]);
	}
	free(names);
	return rc;
}

int sb_index_rebuild(const struct sb_ctx *ctx, const char *const *dirs, size_t ndirs,
		     struct sb_bench_list **added, struct sb_error *err)
{
	struct rebuild r = { .ctx = ctx };
	size_t i;
	int rc = 0;

	if (added)
		*added = NULL;
	for (i = 0; i < ndirs; i++)
		if (access(dirs[i], F_OK) != 0)
			return sb_error_set(err, SB_ERR_NOT_FOUND, "'%s': no such directory", dirs[i]);
	if ((r.added = calloc(1, sizeof(*r.added))) == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	r.idx = sb_index_open(ctx ? sb_ctx_index(ctx) : NULL, NULL, err);
	if (r.idx == NULL || sb_index_clear_benches(r.idx, err) < 0) {
		sb_index_close(r.idx);
		sb_bench_list_destroy(r.added);
		return -1;
	}
	for (i = 0; rc == 0 && i < ndirs; i++)
		rc = scan(&r, dirs[i], err);
	sb_index_close(r.idx);
	if (rc == 0 && r.failed)
		rc = sb_error_set(err, SB_ERR_RUNTIME, "some directories could not be indexed");
	if (added)
		*added = r.added;
	else
		sb_bench_list_destroy(r.added);
	return rc;
}

/* ---- accessors and renderers ----------------------------------------------- */

size_t sb_bench_list_count(const struct sb_bench_list *l)
{
	return l->n;
}

const char *sb_bench_list_name(const struct sb_bench_list *l, size_t i)
{
	return i < l->n ? l->v[i].name : NULL;
}

const char *sb_bench_list_digest(const struct sb_bench_list *l, size_t i)
{
	return i < l->n ? l->v[i].digest : NULL;
}

const char *sb_bench_list_dir(const struct sb_bench_list *l, size_t i)
{
	return i < l->n ? l->v[i].dir : NULL;
}

int64_t sb_bench_list_created_ns(const struct sb_bench_list *l, size_t i)
{
	return i < l->n ? l->v[i].created_ns : 0;
}

bool sb_bench_list_present(const struct sb_bench_list *l, size_t i)
{
	return i < l->n && l->v[i].present;
}

const char *sb_bench_list_tag(const struct sb_bench_list *l, size_t i)
{
	return i < l->n ? l->v[i].tag : NULL;
}

size_t sb_bench_list_children(const struct sb_bench_list *l, size_t i)
{
	return i < l->n ? (size_t)l->v[i].children : 0;
}

bool sb_bench_list_counts_known(const struct sb_bench_list *l, size_t i)
{
	return i < l->n && l->v[i].has_counts;
}

size_t sb_bench_list_class_count(const struct sb_bench_list *l, size_t i, enum sb_class c)
{
	return i < l->n && (int)c >= 0 && c < SB_CLASS_COUNT ? l->v[i].counts[c] : 0;
}

int64_t sb_bench_list_counts_ns(const struct sb_bench_list *l, size_t i)
{
	return i < l->n && l->v[i].has_counts ? l->v[i].counts_ns : 0;
}

static void render_json(const struct sb_bench_list *l, FILE *out)
{
	struct sb_json j;
	char when[32];
	size_t i;

	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	sb_json_key(&j, l->forgotten ? "forgotten" : "benchmarks");
	sb_json_arr_begin(&j);
	for (i = 0; i < l->n; i++) {
		const struct list_entry *e = &l->v[i];
		sb_fmt_time_ns(e->created_ns, when);
		sb_json_obj_begin(&j);
		sb_json_key(&j, "name");
		sb_json_str(&j, e->name);
		sb_json_key(&j, "tag");
		sb_json_str(&j, e->tag);
		sb_json_key(&j, "digest");
		sb_json_str(&j, e->digest);
		sb_json_key(&j, "dir");
		sb_json_str(&j, e->dir);
		sb_json_key(&j, "created");
		sb_json_str(&j, when);
		sb_json_key(&j, "submitted");
		sb_json_str(&j, when);
		sb_json_key(&j, "children");
		sb_json_int(&j, e->children);
		sb_json_key(&j, "present");
		sb_json_bool(&j, e->present);
		sb_json_key(&j, "counts");
		if (e->has_counts)
			sb_status_json_counts(&j, e->counts);
		else
			sb_json_null(&j);
		sb_json_key(&j, "counts_time");
		sb_json_str(&j, e->has_counts ? sb_fmt_time_ns(e->counts_ns, when) : NULL);
		sb_json_obj_end(&j);
	}
	sb_json_arr_end(&j);
	sb_json_obj_end(&j);
	fputc('\n', out);
}

/* "3 succeeded, 1 failed" of the non-zero counts ("-" when none is known). */
static void text_counts(FILE *out, const struct list_entry *e)
{
	bool any = false;

	if (!e->has_counts) {
		fputs("-", out);
		return;
	}
	for (int c = 0; c < SB_CLASS_COUNT; c++) {
		if (e->counts[c] == 0)
			continue;
		fprintf(out, "%s%zu %s", any ? ", " : "", e->counts[c], sb_class_name((enum sb_class)c));
		any = true;
	}
	if (!any)
		fputs("no child", out);
}

static void render_text(const struct sb_bench_list *l, FILE *out)
{
	char when[32];
	size_t i;

	if (l->forgotten) {
		for (i = 0; i < l->n; i++)
			fprintf(out, "forgot %s (%.12s); its directory stays: %s\n", l->v[i].name,
				l->v[i].digest, l->v[i].dir);
		return;
	}
	if (l->n == 0) {
		fputs("no benchmarks known (sbctl submit adds them; sbctl index --rebuild ROOT "
		      "finds them)\n", out);
		return;
	}
	fprintf(out, "%-24s %-12s %-12s %8s %-19s  %-24s %s\n", "NAME", "TAG", "DIGEST", "CHILDREN",
		"SUBMITTED", "LAST STATUS", "DIRECTORY");
	for (i = 0; i < l->n; i++) {
		const struct list_entry *e = &l->v[i];
		sb_fmt_time_ns(e->created_ns, when);
		char *counts = NULL;
		size_t clen = 0;
		FILE *cf = open_memstream(&counts, &clen);
		if (cf) {
			text_counts(cf, e);
			fclose(cf);
		}
		fprintf(out, "%-24s %-12s %.12s %8" PRId64 " %.19s  %-24s %s%s\n", e->name,
			e->tag ? e->tag : "-", e->digest, e->children, when, counts ? counts : "?",
			e->dir, e->present ? "" : "  (gone)");
		free(counts);
	}
}

static int render(const void *obj, int format, FILE *out, struct sb_error *err)
{
	if (format == SB_FORMAT_JSON)
		render_json(obj, out);
	else if (format == SB_FORMAT_TEXT)
		render_text(obj, out);
	else
		return sb_error_set(err, SB_ERR_INPUT, "a list of benchmarks is rendered as text or "
				    "JSON, not format %d", format);
	return sb_render_flush(out, err);
}

int sb_bench_list_render(const struct sb_bench_list *l, enum sb_format format, FILE *out,
			 struct sb_error *err)
{
	return render(l, (int)format, out, err);
}

int sb_bench_list_render_buffer(const struct sb_bench_list *l, enum sb_format format,
				char **buf, size_t *len, struct sb_error *err)
{
	return sb_render_buffer(render, l, (int)format, buf, len, err);
}
