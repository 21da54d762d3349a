/* Reuse of proven children across benchmarks (ctl/reuse.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/index.h"
#include "ctl/resulthash.h"
#include "ctl/reuse.h"
#include "proto/benchdir.h"
#include "proto/filehash.h"
#include "proto/mpcheck.h"
#include "proto/util.h"
#include "sbench/context.h"
#include "sbench/plan.h"

void sb_reuse_release(struct sb_reuse *r)
{
	if (r == NULL)
		return;
	free(r->source_dir);
	free(r->source_job);
	free(r->source_log);
	for (size_t i = 0; i < r->nresults; i++)
		free(r->results[i].path);
	free(r->results);
	for (size_t i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].name);
	free(r->metrics);
	memset(r, 0, sizeof(*r));
}

void sb_reuses_release(struct sb_reuses *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++)
		sb_reuse_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- the record ---------------------------------------------------------- */

void sb_reuse_encode(const struct sb_reuse *r, struct sb_canon *c)
{
	/* keys in byte order; none is an envelope key (attempt, child, job_id) */
	sb_canon_map(c, 11);
	sb_canon_cstr(c, "child_index");
	sb_canon_int(c, r->child);
	sb_canon_cstr(c, "exit_code");
	sb_canon_int(c, r->exit_code);
	sb_canon_cstr(c, "metrics");
	sb_canon_map(c, r->nmetrics);
	for (size_t i = 0; i < r->nmetrics; i++) {
		sb_canon_cstr(c, r->metrics[i].name);
		if (r->metrics[i].is_int)
			sb_canon_int(c, r->metrics[i].i);
		else
			sb_canon_double(c, r->metrics[i].value);
	}
	sb_canon_cstr(c, "results");
	sb_canon_array(c, r->nresults);
	for (size_t i = 0; i < r->nresults; i++) {
		sb_canon_map(c, 2);
		sb_canon_key_cstr(c, "path", r->results[i].path);
		sb_canon_key_cstr(c, "sha256", r->results[i].sha256);
	}
	sb_canon_cstr(c, "source_attempt");
	sb_canon_int(c, r->source_attempt);
	sb_canon_key_cstr(c, "source_digest", r->source_digest);
	sb_canon_key_cstr(c, "source_dir", r->source_dir);
	sb_canon_key_cstr(c, "source_head", r->source_head);
	sb_canon_cstr(c, "source_index");
	sb_canon_int(c, r->source_index);
	sb_canon_key_cstr(c, "source_job", r->source_job);
	sb_canon_key_cstr(c, "source_log", r->source_log);
}

static char *get_str(const msgpack_object *map, const char *key, bool *failed)
{
	const msgpack_object *o = sb_mp_get(map, key);
	char *s;

	if (o == NULL || o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, 0, o->via.str.size))
		return NULL;
	if ((s = strndup(o->via.str.ptr, o->via.str.size)) == NULL)
		*failed = true;
	return s;
}

static int64_t get_int(const msgpack_object *map, const char *key)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	return -1;
}

/* Copies a fixed-size text; false when it does not fit exactly. */
static bool copy_fixed(const msgpack_object *map, const char *key, char *buf, size_t size)
{
	const msgpack_object *o = sb_mp_get(map, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= size)
		return false;
	memcpy(buf, o->via.str.ptr, o->via.str.size);
	buf[o->via.str.size] = '\0';
	return true;
}

int sb_reuse_decode(const msgpack_object *p, int64_t time_ns, struct sb_reuse *r)
{
	const msgpack_object *res = sb_mp_get(p, "results"), *met = sb_mp_get(p, "metrics");
	bool failed = false;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->time_ns = time_ns;
	r->child = get_int(p, "child_index");
	r->source_index = get_int(p, "source_index");
	r->source_attempt = get_int(p, "source_attempt");
	r->exit_code = (int)get_int(p, "exit_code");
	r->source_dir = get_str(p, "source_dir", &failed);
	r->source_log = get_str(p, "source_log", &failed);
	r->source_job = get_str(p, "source_job", &failed);
	if (!copy_fixed(p, "source_digest", r->source_digest, sizeof(r->source_digest)) ||
	    !copy_fixed(p, "source_head", r->source_head, sizeof(r->source_head)) ||
	    r->child < 0 || r->source_index < 0 || r->source_dir == NULL || r->source_dir[0] != '/' ||
	    res == NULL || res->type != MSGPACK_OBJECT_ARRAY || met == NULL ||
	    met->type != MSGPACK_OBJECT_MAP)
		goto fail;
	if (res->via.array.size && (r->results = calloc(res->via.array.size, sizeof(*r->results))) == NULL)
		goto fail;
	for (i = 0; i < res->via.array.size; i++, r->nresults++) {
		struct sb_reuse_result *x = &r->results[i];
		if ((x->path = get_str(&res->via.array.ptr[i], "path", &failed)) == NULL ||
		    !copy_fixed(&res->via.array.ptr[i], "sha256", x->sha256, sizeof(x->sha256)))
			goto fail;
	}
	if (met->via.map.size && (r->metrics = calloc(met->via.map.size, sizeof(*r->metrics))) == NULL)
		goto fail;
	for (i = 0; i < met->via.map.size; i++) {
		const msgpack_object *k = &met->via.map.ptr[i].key, *v = &met->via.map.ptr[i].val;
		struct sb_metric *m = &r->metrics[r->nmetrics];
		if (k->type != MSGPACK_OBJECT_STR)
			goto fail;
		/* an integer beyond int64 is no metric sbctl recorded */
		if (!sb_metric_value(v, m) ||
		    (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && !m->is_int))
			goto fail;
		if ((m->name = strndup(k->via.str.ptr, k->via.str.size)) == NULL)
			goto fail;
		r->nmetrics++;
	}
	if (failed)
		goto fail;
	return 0;
fail:
	sb_reuse_release(r);
	return -1;
}

/* ---- checking it ---------------------------------------------------------- */

/* Reads the source log with the source key: its verified head into head
 * (text), and its tail; -1 with why in *why (malloc'd). */
static int source_head(const char *dir, const char *digest, int64_t index, int64_t attempt,
		       const char *log, char head[SB_LOG_HEAD_TEXT_MAX], enum sb_log_tail *tail,
		       struct sb_log_result **keep, char **why)
{
	struct sb_run_ident want = { .bench = digest, .child = index, .attempt = attempt,
				     .restart = -1, .pid = -1 };
	struct sb_log_expect ex = { .id = &want };
	struct sb_error err = { 0 };
	struct sb_log_verifier *v = NULL;
	struct sb_log_result *r = NULL;
	struct sb_log_head h;
	char *key_path = NULL, *path = NULL;
	struct sb_key key;
	int rc = -1;

	*why = NULL;
	if (asprintf(&key_path, "%s/%s", dir, SB_BENCH_KEY) < 0 || asprintf(&path, "%s/%s", dir, log) < 0) {
		free(key_path);
		return -1;
	}
	if (sb_key_load(key_path, &key, &err) < 0) {
		if (asprintf(why, "the source's key cannot be used: %s", err.msg) < 0)
			*why = NULL;
		goto out;
	}
	v = sb_log_verifier_create(&key, &err);
	sb_key_cleanse(&key);
	if (v == NULL || (r = sb_log_read_file(v, path, &ex, &err)) == NULL) {
		if (asprintf(why, "the source log cannot be read: %s", err.msg) < 0)
			*why = NULL;
		goto out;
	}
	*tail = sb_log_result_tail(r);
	if (sb_log_result_head(r, &h) < 0) {
		if (asprintf(why, "the source log '%s' has no verified record", path) < 0)
			*why = NULL;
		goto out;
	}
	sb_log_head_format(&h, head);
	rc = 0;
out:
	if (rc == 0 && keep)
		*keep = r;
	else
		sb_log_result_destroy(r);
	sb_log_verifier_destroy(v);
	free(key_path);
	free(path);
	return rc;
}

int sb_reuse_verify(const struct sb_reuse *r, const char *bench_name, struct sb_index *idx,
		    bool rehash, enum sb_class *cls, char **reason, struct sb_error *err)
{
	char *rec = NULL, *log = NULL, *why = NULL, head[SB_LOG_HEAD_TEXT_MAX], now[65];
	enum sb_log_tail tail = SB_LOG_TAIL_OK;
	struct stat st;
	int n = 0;

	*reason = NULL;
	*cls = SB_CLASS_SUCCEEDED;
	if (asprintf(&rec, "%s/%s", r->source_dir, SB_BENCH_RECORD) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (lstat(rec, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		free(rec);
		*cls = SB_CLASS_MISSING;
		n = asprintf(reason, "reused from child %" PRId64 " of '%s', which is gone: 'sbctl rerun %s "
			     "--only missing' runs it here", r->source_index, r->source_dir, bench_name);
		return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
	}
	free(rec);
	/* the results, as status hashes its own */
	for (size_t i = 0; i < r->nresults; i++) {
		char *full;
		int got;
		if (asprintf(&full, "%s/runs/%" PRId64 "/%s", r->source_dir, r->source_index,
			     r->results[i].path) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		got = sb_result_hash(full, idx, rehash, now, err);
		free(full);
		if (got < 0)
			return -1; /* unreadable: no verdict */
		if (got == 1 || strcmp(now, r->results[i].sha256) != 0) {
			*cls = SB_CLASS_INVALID;
			n = got == 1 ? asprintf(reason, "reused result '%s' of child %" PRId64 " of '%s' is gone "
						"since its verified finish", r->results[i].path,
						r->source_index, r->source_dir)
				    : asprintf(reason, "reused result '%s' of child %" PRId64 " of '%s' changed "
					       "after its verified finish (sha256 %.12s, not %.12s)",
					       r->results[i].path, r->source_index, r->source_dir, now,
					       r->results[i].sha256);
			return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
		}
	}
	/* the source log, when it is still there: it verifies and ends where it
	 * did when it was reused */
	if (r->source_log == NULL)
		return 0;
	if (asprintf(&log, "%s/%s", r->source_dir, r->source_log) < 0)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (lstat(log, &st) < 0 && errno == ENOENT) {
		free(log);
		return 0;
	}
	if (source_head(r->source_dir, r->source_digest, r->source_index, r->source_attempt,
			r->source_log, head, &tail, NULL, &why) < 0) {
		*cls = SB_CLASS_INVALID;
		n = asprintf(reason, "reused child %" PRId64 " of '%s': %s", r->source_index, r->source_dir,
			     why ? why : "its log cannot be checked");
	} else if (tail != SB_LOG_TAIL_OK || strcmp(head, r->source_head) != 0) {
		*cls = SB_CLASS_INVALID;
		n = asprintf(reason, "reused child %" PRId64 " of '%s': its log '%s' %s", r->source_index,
			     r->source_dir, r->source_log, tail != SB_LOG_TAIL_OK
			     ? sb_log_tail_describe(tail) : "no longer ends with the head recorded when it was reused");
	}
	free(why);
	free(log);
	return n < 0 ? sb_error_set(err, SB_ERR_NOMEM, "out of memory") : 0;
}

/* ---- finding what to reuse ------------------------------------------------- */

struct digest_index {
	char digest[65];
	size_t index;
};

static int by_digest(const void *a, const void *b)
{
	return strcmp(((const struct digest_index *)a)->digest, ((const struct digest_index *)b)->digest);
}

struct candidates {
	const char *name, *self;
	char **dirs;
	size_t n;
	bool failed;
};

static int collect(const struct sb_index_bench *ib, void *arg)
{
	struct candidates *c = arg;
	char **v;

	if (strcmp(ib->name, c->name) != 0 || strcmp(ib->digest, c->self) == 0)
		return 0;
	if ((v = realloc(c->dirs, (c->n + 1) * sizeof(*v))) == NULL ||
	    (v[c->n] = strdup(ib->dir)) == NULL) {
		if (v)
			c->dirs = v;
		c->failed = true;
		return 1;
	}
	c->dirs = v;
	c->n++;
	return 0;
}

/* The record of reusing child c of the source st for child `to`. */
static int make_record(const struct sb_status *st, size_t c, size_t to, struct sb_reuse *r,
		       char **why)
{
	const struct sb_attempt_status *a = st->children[c].latest;
	struct sb_log_result *log = NULL;
	char rel[SB_LOG_REL_MAX];
	enum sb_log_tail tail;
	size_t i, k;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->child = (int64_t)to;
	r->source_index = (int64_t)c;
	r->source_attempt = a->attempt;
	memcpy(r->source_digest, st->bench->digest, 65);
	if ((r->source_dir = strdup(st->bench->dir)) == NULL ||
	    (r->source_log = strdup(sb_status_log_rel(a, c, rel))) == NULL ||
	    (a->job_id && (r->source_job = strdup(a->job_id)) == NULL))
		goto out;
	if (source_head(st->bench->dir, st->bench->digest, (int64_t)c, a->attempt, r->source_log,
			r->source_head, &tail, &log, why) < 0)
		goto out;
	for (i = 0; i < sb_log_result_verified(log); i++) {
		const struct sb_log_record *rec = sb_log_result_record(log, i);
		const msgpack_object *res = sb_mp_get(&rec->payload, "results");
		if (strcmp(rec->type, "finish") != 0)
			continue;
		if (res == NULL || res->type != MSGPACK_OBJECT_ARRAY)
			break;
		if (res->via.array.size && (r->results = calloc(res->via.array.size, sizeof(*r->results))) == NULL)
			goto out;
		for (k = 0; k < res->via.array.size; k++, r->nresults++) {
			bool failed = false;
			struct sb_reuse_result *x = &r->results[k];
			if ((x->path = get_str(&res->via.array.ptr[k], "path", &failed)) == NULL ||
			    !copy_fixed(&res->via.array.ptr[k], "sha256", x->sha256, sizeof(x->sha256)))
				goto out;
		}
		break;
	}
	if (a->nmetrics && (r->metrics = calloc(a->nmetrics, sizeof(*r->metrics))) == NULL)
		goto out;
	for (k = 0; k < a->nmetrics; k++, r->nmetrics++) {
		r->metrics[k] = a->metrics[k];
		if ((r->metrics[k].name = strdup(a->metrics[k].name)) == NULL)
			goto out;
	}
	rc = tail == SB_LOG_TAIL_OK ? 0 : -1;
out:
	sb_log_result_destroy(log);
	if (rc < 0)
		sb_reuse_release(r);
	return rc;
}

/* The children of the source at dir whose digests are in want[0..nwant)
 * and not taken yet, added to out. */
static int from_source(const struct sb_ctx *ctx, const char *dir, const struct sb_bench *b,
		       bool check_tag, bool dry_run, struct digest_index *want, size_t nwant,
		       bool *taken, struct sb_reuses *out, struct sb_error *err)
{
	struct sb_status_cfg so = { .ctx = ctx, .settle_s = (int64_t)(ctx ? sb_ctx_settle(ctx)
								       : SB_CTX_SETTLE_DEFAULT),
				    .record_outcomes = !dry_run };
	struct sb_child *child = sb_child_create();
	struct sb_error why = { 0 };
	struct sb_status st = { 0 };
	struct sb_bench *src;
	int rc = 0;

	if (child == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	src = sb_bench_open(dir, &why);
	if (src && check_tag && !(src->tag == b->tag || (src->tag && b->tag && !strcmp(src->tag, b->tag))))
		goto out; /* another tag measures again */
	if (src == NULL || sb_bench_plan(src, &why) < 0 || sb_status_gather(src, &so, &st, &why) < 0) {
		sb_ctx_warn(ctx, "warning: nothing reused from '%s': %s", dir, why.msg);
		goto out;
	}
	for (size_t c = 0; rc == 0 && c < st.n; c++) {
		const struct sb_child_status *ch = &st.children[c];
		struct digest_index key, *hit;
		struct sb_reuse r, *v;
		char *reason = NULL;

		if (ch->cls != SB_CLASS_SUCCEEDED || ch->latest == NULL || !ch->latest->log.present ||
		    ch->reused != NULL || sb_plan_child(src->plan, c, child, NULL) < 0)
			continue;
		memcpy(key.digest, sb_child_digest_hex(child), 65);
		hit = bsearch(&key, want, nwant, sizeof(*want), by_digest);
		if (hit == NULL || taken[hit->index])
			continue;
		if (make_record(&st, c, hit->index, &r, &reason) < 0) {
			free(reason);
			continue; /* its evidence did not hold: it runs again */
		}
		if ((v = realloc(out->v, (out->n + 1) * sizeof(*v))) == NULL) {
			sb_reuse_release(&r);
			rc = sb_error_set(err, SB_ERR_NOMEM, "out of memory");
			break;
		}
		out->v = v;
		out->v[out->n++] = r;
		taken[hit->index] = true;
	}
out:
	st.owns_bench = false;
	sb_status_release(&st);
	sb_bench_destroy(src);
	sb_child_destroy(child);
	return rc;
}

static int by_child(const void *a, const void *b)
{
	int64_t x = ((const struct sb_reuse *)a)->child, y = ((const struct sb_reuse *)b)->child;

	return (x > y) - (x < y);
}

int sb_reuse_find(const struct sb_ctx *ctx, const struct sb_bench *b, const char *from,
		  bool dry_run, struct sb_reuses *out, struct sb_error *err)
{
	struct candidates cands = { .name = b->name, .self = b->digest };
	struct sb_child *child = sb_child_create();
	struct digest_index *want = malloc((b->children ? b->children : 1) * sizeof(*want));
	bool *taken = calloc(b->children ? b->children : 1, sizeof(*taken));
	struct sb_index *idx = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (child == NULL || want == NULL || taken == NULL) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < b->children; i++) {
		if (sb_plan_child(b->plan, i, child, err) < 0)
			goto done;
		memcpy(want[i].digest, sb_child_digest_hex(child), 65);
		want[i].index = i;
	}
	qsort(want, b->children, sizeof(*want), by_digest);
	if (from) {
		struct sb_bench *src = sb_bench_find(ctx, from, err);
		if (src == NULL) {
			sb_error_prefix(err, "--reuse-from");
			goto done;
		}
		if (strcmp(src->digest, b->digest) != 0)
			rc = from_source(ctx, src->dir, b, false, dry_run, want, b->children, taken, out, err);
		else
			rc = 0;
		sb_bench_destroy(src);
		goto done;
	}
	/* the benchmarks of that name the index knows, newest first */
	if (ctx && sb_ctx_index(ctx) && (idx = sb_index_open(sb_ctx_index(ctx), NULL, NULL)) != NULL) {
		sb_index_each_bench(idx, collect, &cands, NULL);
		sb_index_close(idx);
	}
	if (cands.failed) {
		sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = 0;
	for (size_t i = cands.n; rc == 0 && i-- > 0;)
		rc = from_source(ctx, cands.dirs[i], b, true, dry_run, want, b->children, taken, out,
				 err);
done:
	if (rc == 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_child);
	if (rc < 0)
		sb_reuses_release(out);
	for (size_t i = 0; i < cands.n; i++)
		free(cands.dirs[i]);
	free(cands.dirs);
	free(want);
	free(taken);
	sb_child_destroy(child);
	return rc;
}
